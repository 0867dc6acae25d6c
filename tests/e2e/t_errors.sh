#!/bin/bash
# Every error: one line that says what to do, its documented exit status, no file left behind.
. "$(dirname "$0")/lib.sh"
require_bpf

# expect STATUS MESSAGE-REGEX ARGS...: run cpuprof ARGS, check status, message and line count
expect() {
	want=$1 re=$2
	shift 2
	expect_status "$want" "$CPUPROF" "$@"
	grep -qE -- "$re" "$TMP/err" || fail "'cpuprof $*': message does not match /$re/: $(cat "$TMP/err")"
	[ -s "$TMP/out" ] && fail "'cpuprof $*' wrote to stdout on error: $(head -c 200 "$TMP/out")"
	ls -A "$TMP/outdir" | grep -q . && fail "'cpuprof $*' left a file: $(ls -A "$TMP/outdir")"
	return 0
}
mkdir "$TMP/outdir"
o=$TMP/outdir/p.folded

# usage errors: 64
expect 64 'invalid frequency' record -F 0 -o "$o" -- true
expect 64 'invalid frequency' record -F abc -o "$o" -- true
expect 64 'invalid frequency' record -F 1000000 -o "$o" -- true
expect 64 'invalid duration' record -d 10abc -o "$o" -- true
expect 64 'invalid duration' record -d 0s -o "$o" -- true
expect 64 'invalid pid list' record -p 12,x -o "$o"
expect 64 'unknown format' record --format xml -o "$o" -- true
expect 64 'only one output can go to stdout' record -o - -o - -- true
expect 64 'exclude each other' record --no-kernel --kernel-only -o "$o" -- true
expect 64 'either COMMAND, -p or --comm' record -p 1 -o "$o" -- true
expect 64 'invalid --comm regular expression' record --comm '(' -o "$o" -d 1s
expect 64 'unrecognized option|invalid option' record --bogus -o "$o"
expect 64 'unknown command' frobnicate

# targets
expect 66 'no such process: 2147483000' record -p 2147483000 -o "$o"
expect 127 'command not found: cpuprof-no-such-command' record -o "$o" -- cpuprof-no-such-command
expect 127 'command not found: /nonexistent/x' record -o "$o" -- /nonexistent/x
printf '#!/bin/sh\n' >"$TMP/noexec"
chmod 644 "$TMP/noexec"
expect 126 'cannot execute .*noexec: permission denied' record -o "$o" -- "$TMP/noexec"

# usage mistakes that used to pass
expect 64 "^cpuprof record: '--' must be followed by the COMMAND" record --
expect 64 "is given to -o twice" record -o "$o" -o "$o" -- true
expect 64 "^cpuprof record: --format folded contradicts the name" \
	record --format folded -o "$TMP/outdir/p.pb.gz" -- true
expect_status 0 "$CPUPROF" help record
grep -q -- '--frequency' "$TMP/out" || fail "cpuprof help record: $(head -2 "$TMP/out")"

# output
expect 73 "cannot write the profile to '$TMP/nodir/p.folded': No such file or directory" \
	record -o "$TMP/nodir/p.folded" -- true
expect 73 "cannot write the profile to '$TMP/outdir': Is a directory" record -o "$TMP/outdir" -- true

# empty or unusable names, durations below the minimum, costly regular expressions: refused
# before sampling (the first used to record and then fail with 1, the second was taken as 1 ms)
expect 64 "^cpuprof record: -o needs a file name \\(or '-' for stdout\\), not ''" \
	record -o '' -- true
expect 64 "invalid duration '0.5ms': out of range" record -d 0.5ms -o "$o" -- true
expect 64 "invalid duration '0.0009s': out of range" record -d 0.0009s -o "$o" -- true
# regcomp of this one took 24 GB and ignored SIGTERM; the address-space limit keeps a
# regression from taking the machine down (it then fails on the message); ASan needs its
# terabytes of shadow address space, so not under ASan
bomb='((((((((a*)*)*)*)*)*)*)*)*{1,255}{1,255}{1,255}'
limit_as="prlimit --as=$((2 << 30))"
ldd "$CPUPROF" 2>/dev/null | grep -q libasan && limit_as=
expect_status 64 $limit_as "$CPUPROF" record --comm "$bomb" -d 1s -o "$o"
grep -qE "^cpuprof: invalid --comm regular expression .*: too complex \\(longer than 1000 characters, or its repetition counts multiply to more than 1000 elements\\)$" "$TMP/err" ||
	fail "--comm $bomb: $(cat "$TMP/err")"
printf 'main;work 5\n' >"$TMP/in.folded"
expect 64 "^cpuprof report: invalid --focus regular expression .*: too complex" \
	report --focus "$bomb" "$TMP/in.folded"
expect 64 "^cpuprof report: invalid --comm regular expression .*: too complex" \
	report --comm "$bomb" "$TMP/in.folded"
expect 64 "^cpuprof report: invalid --focus regular expression '\\(a\\)\\\\1': back-references" \
	report --focus '(a)\1' "$TMP/in.folded"

# counts that overflow (2^64-1 plus 1 used to read as "0 samples", exit 0): refused, 65
printf 'main;a 18446744073709551615\nmain;b 1\n' >"$TMP/over.folded"
expect 65 "^cpuprof: $TMP/over.folded: folded: line 1: count 18446744073709551615 is more than 2\\^63-1$" \
	report "$TMP/over.folded"
printf 'main;a 9223372036854775807\nmain;b 1\n' >"$TMP/over.folded"
expect 65 "^cpuprof: $TMP/over.folded: folded: line 2: the counts add up to more than 2\\^63-1$" \
	report "$TMP/over.folded"
expect 65 "folded: line 2: the counts add up to more than 2\\^63-1" \
	diff "$TMP/in.folded" "$TMP/over.folded"

# a write past the file-size limit used to kill cpuprof by SIGXFSZ (153, no message): now the
# error by name, status 1, and no output left behind; a full file system likewise
(
	ulimit -f 1 # 1 KiB: the smallest JSON profile takes 1.7
	expect 1 "^cpuprof: cannot write the profile to $TMP/outdir/p.json: File too large \\(EFBIG\\), the file-size limit \\(ulimit -f\\) is too small for it; no output was written" \
		record -o "$TMP/outdir/p.json" -- true
) || exit 1
mkdir "$TMP/full"
mount -t tmpfs -o size=64k tmpfs "$TMP/full" || fail "cannot mount a tmpfs on $TMP/full"
trap 'umount "$TMP/full"; cleanup' EXIT
dd if=/dev/zero of="$TMP/full/fill" bs=4k 2>/dev/null
expect_status 1 "$CPUPROF" record -o "$TMP/full/p.json" -- true
grep -qE "^cpuprof: cannot write the profile to $TMP/full/p.json: No space left on device \\(ENOSPC\\), the file system is full; no output was written" "$TMP/err" ||
	fail "full file system: $(cat "$TMP/err")"
[ "$(ls -A "$TMP/full")" = fill ] || fail "a full file system kept: $(ls -A "$TMP/full")"
umount "$TMP/full"
trap cleanup EXIT

# unwind-table: an object or the vDSO prints its rows and exits 0; what has no table, 66
expect 66 'not an x86-64 ELF' unwind-table /etc/passwd
expect 66 'cannot open' unwind-table "$TMP/none"
# what is not a regular file is refused at once, not read (a FIFO used to hang)
mkfifo "$TMP/fifo"
expect 66 "cannot open $TMP/fifo: not a regular file" unwind-table "$TMP/fifo"
expect 66 "cannot open $TMP/fifo: not a regular file" symbolize -e "$TMP/fifo" 0x1
expect 66 "cannot open $TMP/outdir: Is a directory" symbolize -e "$TMP/outdir" 0x1
expect_status 0 "$CPUPROF" unwind-table "$FIX/unw_nofp"
grep -q '^# .eh_frame: [1-9][0-9]* rows' "$TMP/out" || fail "unwind-table summary: $(tail -1 "$TMP/out")"
expect_status 0 "$CPUPROF" unwind-table --vdso
grep -q 'end-func' "$TMP/out" || fail "unwind-table --vdso: $(tail -2 "$TMP/out")"

# environment
CPUPROF_BTF=$TMP/no-btf expect 69 'no BTF.*CONFIG_DEBUG_INFO_BTF' record -o "$o" -- true
if command -v setpriv >/dev/null; then
	# an unprivileged user without capabilities
	chmod 755 "$TMP" "$TMP/outdir"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$CPUPROF" record -o /tmp/cpuprof-unpriv-$$.folded -- true >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 77 ] || fail "unprivileged run exited $rc: $(cat "$TMP/err")"
	grep -q 'needs root, or the CAP_BPF and CAP_PERFMON capabilities.*perf_event_paranoid' "$TMP/err" || fail "unprivileged message: $(cat "$TMP/err")"
	[ -e /tmp/cpuprof-unpriv-$$.folded ] && fail "unprivileged run left a file"
fi
note "$(grep -c '^expect ' "$0") error cases checked"
exit 0
