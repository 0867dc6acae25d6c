#!/bin/bash
# Python frames merged with native frames (--python, the default), under every CPython on the
# machine: pyenv's 3.8-3.13 (and 2.7, 3.6, 3.7 when present) and Debian's /usr/bin/python3.11.
# A script with a known call tree, main -> outer -> {hot 3/4, cold 1/4}, run as `-- COMMAND`:
#  - >= 95 % of the samples in the script's code (a frame of tree.py) show their
#    Python frames as a prefix of <module>;main;outer;{hot|cold}, in order (a wrong or
#    missing frame fails; the interpreter's start-up imports are not the script's);
#  - hot / (hot + cold) within 0.1 of 0.75;
#  - hot's frames carry the lines of its loop (6 or 7) in >= 90 % of its samples;
#  - two threads, one in pure Python, one in zlib.compress without the GIL: every sample in
#    zlib's deflate code is under py::squash, never under py::spin, and py::spin's samples hold
#    no deflate frame;
#  - processes started while recording (3.x): a multiprocessing worker forked, and one
#    spawned (a new python exec'd by the first), each get Python frames.
# Shares, not counts: the machine may be loaded. A missing interpreter skips outside CI only
# (CI must have them all).
. "$(dirname "$0")/lib.sh"
require_bpf

PYENV_VERSIONS=${PYENV_ROOT:-${HOME:-/root}/.pyenv}/versions
required="3.8 3.9 3.10 3.11 3.12 3.13"
optional="2.7 3.6 3.7"

cp "$(dirname "$0")/../../tests/data/python/tree.py" "$TMP/tree.py"

cat >"$TMP/threads.py" <<'PY'
import sys, threading, time, zlib

# CPU seconds of the process (both threads), not wall: a loaded machine stretches the run
cpu = time.process_time if hasattr(time, "process_time") else time.clock
DATA = bytes(bytearray((i * 7919) % 251 for i in range(1 << 20)))
END = cpu() + float(sys.argv[1])


def spin():
    s = 0
    while cpu() < END:
        for i in range(10000):
            s += i


def squash():
    while cpu() < END:
        zlib.compress(DATA, 9)


t = threading.Thread(target=squash)
t.start()
spin()
t.join()
PY

cat >"$TMP/workers.py" <<'PY'
import multiprocessing, sys, time


# CPU seconds, not wall: on a loaded machine a worker still runs long enough to be found
def burn(secs):
    end = time.process_time() + secs
    s = 0
    while time.process_time() < end:
        for i in range(10000):
            s += i


def forked(secs):
    burn(secs)


def spawned(secs):
    burn(secs)


if __name__ == "__main__":
    secs = float(sys.argv[1])
    a = multiprocessing.get_context("fork").Process(target=forked, args=(secs,))
    b = multiprocessing.get_context("spawn").Process(target=spawned, args=(secs,))
    a.start()
    b.start()
    a.join()
    b.join()
PY

# The Python frames of each line, in order: "<module>;main;outer;hot COUNT"
py_chains() {
	awk '{ n = split($0, f, ";"); c = f[n]; sub(/.* /, "", c); sub(/ [0-9]+$/, "", f[n])
		out = ""
		for (i = 1; i <= n; i++) if (f[i] ~ /^py::/) {
			x = f[i]; sub(/^py::/, "", x); sub(/ \(.*$/, "", x)
			out = out (out == "" ? "" : ";") x
		}
		if (out != "") print out, c }' "$1"
}

# One recording per interpreter, of the three scripts run one after the other (each record's
# start, its BPF programs verified, costs seconds): tree.py for 1.5 s of CPU, threads.py for
# 1 s of CPU (its two threads together), workers.py's two workers 0.5 s of CPU each (Python
# 2.7 has no multiprocessing contexts).
# The scripts share no function name: each check below counts its own script's frames.
check_one() {
	py=$1
	name=$2
	out=$TMP/$name.folded
	runs="'$py' '$TMP/tree.py' 1.5 && '$py' '$TMP/threads.py' 1"
	case $name in py2.7) ;; *) runs="$runs && '$py' '$TMP/workers.py' 0.5" ;; esac
	expect_status 0 "$CPUPROF" record -v -F 499 --lines -o "$out" -- sh -c "$runs"
	check_folded_grammar "$out"
	grep 'tree\.py:' "$out" >"$TMP/$name.script"
	py_chains "$TMP/$name.script" >"$TMP/$name.chains"
	with=$(total "$TMP/$name.chains")
	exact=$(count "$TMP/$name.chains" '^<module>(;main(;outer(;(hot|cold))?)?)? [0-9]+$')
	hot=$(count "$TMP/$name.chains" '^<module>;main;outer;hot ')
	cold=$(count "$TMP/$name.chains" '^<module>;main;outer;cold ')
	hotline=$(count "$out" 'py::hot \([^)]*tree\.py:[67]\)')
	[ "$with" -ge 100 ] || fail "$name: $with samples in the script's Python functions, want >= 100: $(grep -i python "$TMP/err")"
	pct=$(share "$exact" $((with - exact)))
	note "$name: $with samples in the script's functions, $pct% exact chains, hot $hot cold $cold, hot at lines 6-7: $hotline"
	[ "$pct" -ge 95 ] || fail "$name: $pct% of the Python stacks are exact chains, want >= 95: $(grep -vE '^<module>(;main(;outer(;(hot|cold))?)?)? ' "$TMP/$name.chains" | sort -k2 -nr | head -3)"
	split=$(share "$hot" "$cold")
	[ "$split" -ge 65 ] && [ "$split" -le 85 ] || fail "$name: hot share $split%, want 75 +- 10"
	[ "$(share "$hotline" $((hot - hotline)))" -ge 90 ] ||
		fail "$name: only $hotline of $hot hot samples at tree.py:6-7: $(grep -o 'py::hot ([^)]*)' "$out" | sort | uniq -c | head -3)"

	# a Python frame's line, "py::f (FILE:LINE)", with --lines
	at='( \([^)]*\))?'
	deflate='(deflate|longest_match|fill_window|compress_block|send_bits)'
	z=$(count "$out" "$deflate")
	zsq=$(count "$out" "py::squash$at;.*$deflate")
	zspin=$(count "$out" "py::spin$at;.*$deflate")
	spin=$(count "$out" 'py::spin( |;)')
	note "$name threads: $z samples in zlib ($zsq under squash, $zspin under spin), $spin in spin"
	[ "$z" -ge 30 ] || fail "$name: $z samples in zlib's deflate, want >= 30"
	[ "$spin" -ge 30 ] || fail "$name: $spin samples in spin, want >= 30"
	[ "$zspin" -eq 0 ] || fail "$name: $zspin zlib samples under the other thread's py::spin"
	# attribution is the point (none under spin, above); a sample whose Python walk failed
	# keeps its native stack without Python frames (Debian 3.11: 391-445 of 413-445 under squash)
	[ "$(share "$zsq" $((z - zsq)))" -ge 90 ] || fail "$name: $zsq of $z zlib samples under py::squash"

	case $name in py2.7) return ;; esac # no multiprocessing contexts
	nf=$(count "$out" "py::forked$at;(.*;)?py::burn( |;)")
	ns=$(count "$out" "py::spawned$at;(.*;)?py::burn( |;)")
	note "$name workers: forked $nf, spawned $ns samples in py::burn"
	[ "$nf" -ge 20 ] || fail "$name: the forked worker has $nf samples under py::forked, py::burn"
	[ "$ns" -ge 20 ] || fail "$name: the spawned worker has $ns samples under py::spawned, py::burn"
}

ran=0
for v in $required $optional; do
	py=""
	for d in "$PYENV_VERSIONS/$v".*; do
		[ -x "$d/bin/python$v" ] && py=$d/bin/python$v
	done
	if [ -z "$py" ]; then
		case " $required " in
		*" $v "*) skip "pyenv Python $v is missing (pyenv install $v; pyenv is no Debian package, install-deps.sh does not install it)" ;;
		esac
		continue
	fi
	check_one "$py" "py$v"
	ran=$((ran + 1))
done
[ -x /usr/bin/python3.11 ] || skip "/usr/bin/python3.11 is missing (Debian package python3.11-minimal)"
check_one /usr/bin/python3.11 debian3.11
echo "ok: Python frames under $((ran + 1)) interpreters"
