#!/bin/bash
# Names that break outputs (issue 23): a process that names itself '<!--<script>' and 'x\xff'
# and its threads with U+FFFE, a surrogate, an overlong form, a code point above U+10FFFF,
# ESC/BEL/CR and ';' with a newline, run from a file whose name holds an escape sequence.
# Recorded per thread to every format: the HTML page's code runs (headless chromium), the SVG
# is well-formed XML (xmllint), every JSON and pprof string is strict UTF-8 with no control
# character or noncharacter (pprof decoded from the wire), the folded output keeps its
# grammar, report prints no control byte, and the warning that names the file writes its ESC
# as \x1b. Before: a blank page, an error page for the SVG, a pprof protobuf decoders refuse,
# escape sequences on root's terminal.
. "$(dirname "$0")/lib.sh"
require_bpf
command -v gcc >/dev/null || fail "gcc is missing"
command -v xmllint >/dev/null || fail "xmllint is missing (libxml2-utils)"
command -v chromium >/dev/null || fail "chromium is missing (scripts/install-deps.sh installs it)"
command -v node >/dev/null || fail "node is missing"
HERE=$(cd "$(dirname "$0")" && pwd)

cat >"$TMP/names.c" <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static double secs;

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - t0->tv_sec + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *spin(void *name)
{
	struct timespec t0;
	volatile unsigned long x = 0;

	if (name)
		pthread_setname_np(pthread_self(), name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since(&t0) < secs)
		x++;
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"\xef\xbf\xbe\xed\xa0\x80\xc0\xaf", /* U+FFFE, a surrogate, an overlong '/' */
		"\xf4\x90\x80\x80\xef\xbf\xbf",	    /* above U+10FFFF, U+FFFF */
		"\x1b]0;pwn\x07\r\x1b[2J",	    /* a title, a bell, CR, clear screen */
		"a;b\nc 42",			    /* folded's separators */
		"x\xff",
	};
	pthread_t th[5];

	secs = argc > 1 ? atof(argv[1]) : 2;
	prctl(PR_SET_NAME, "<!--<script>", 0, 0, 0);
	for (int i = 0; i < 5; i++)
		pthread_create(&th[i], NULL, spin, (void *)names[i]);
	spin(NULL);
	for (int i = 0; i < 5; i++)
		pthread_join(th[i], NULL);
	return 0;
}
C
exe="$TMP/names"$'\x1b]0;pwn\x07'
gcc -O0 -g -fno-omit-frame-pointer -o "$exe" "$TMP/names.c" -lpthread || fail "could not build the program"

expect_status 0 timeout 60 "$CPUPROF" record --per-thread -F 199 -o "$TMP/n.folded" -o "$TMP/n.pb.gz" \
	-o "$TMP/n.json" -o "$TMP/n.html" -o "$TMP/n.svg" -- "$exe" 2
cp "$TMP/err" "$TMP/record.err"
check_folded_grammar "$TMP/n.folded"
grep -q '^<!--<script>;' "$TMP/n.folded" || fail "no '<!--<script>' process: $(head -3 "$TMP/n.folded")"
threads=$(cut -d';' -f2 "$TMP/n.folded" | sort -u | wc -l)
[ "$threads" -ge 6 ] || fail "$threads threads in the folded output: $(cut -d';' -f2 "$TMP/n.folded" | sort -u)"

# every string: strict UTF-8 (Python refuses surrogates, overlong forms, > U+10FFFF), no
# control character, no noncharacter; the JSON parsed, the pprof's string table from the wire
python3 - "$TMP/n.json" "$TMP/n.pb.gz" <<'PY' || fail "invalid strings (above)"
import gzip, json, sys

def check(s, where):
    for c in s:
        o = ord(c)
        assert o >= 0x20 and not 0x7f <= o <= 0x9f, f"{where}: control {o:#x} in {s!r}"
        assert not 0xfdd0 <= o <= 0xfdef and (o & 0xfffe) != 0xfffe, f"{where}: noncharacter {o:#x} in {s!r}"

raw = open(sys.argv[1], "rb").read()
doc = json.loads(raw.decode("utf-8", "strict"))
n = 0
def walk(v):
    global n
    if isinstance(v, str):
        check(v, "json"); n += 1
    elif isinstance(v, dict):
        for k, x in v.items():
            walk(k); walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(doc)

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i

pb = gzip.decompress(open(sys.argv[2], "rb").read())
i, strings = 0, []
while i < len(pb):
    key, i = varint(pb, i)
    field, wt = key >> 3, key & 7
    if wt == 0:
        _, i = varint(pb, i)
    elif wt == 1:
        i += 8
    elif wt == 5:
        i += 4
    elif wt == 2:
        ln, i = varint(pb, i)
        if field == 6:  # Profile.string_table
            strings.append(pb[i:i + ln].decode("utf-8", "strict"))
        i += ln
    else:
        raise SystemExit(f"pprof: wire type {wt}")
assert strings and strings[0] == "", "pprof: string 0 is not empty"
for s in strings:
    check(s, "pprof")
assert any(s == "<!--<script>" for s in strings), "pprof: no '<!--<script>'"
print(f"  json: {n} strings, pprof: {len(strings)} strings, all valid")
PY

xmllint --noout "$TMP/n.svg" 2>"$TMP/xml.err" || fail "the SVG is not well-formed: $(head -3 "$TMP/xml.err")"

# the page's own code ran: html_check waits for the page's ready flag and reports errors
node "$HERE/html_check.js" "$TMP/n.html" --search 'script' >"$TMP/page.json" 2>"$TMP/page.err" ||
	fail "html_check: $(tail -5 "$TMP/page.err")"
python3 - "$TMP/page.json" <<'PY' || fail "the page: $(cat "$TMP/page.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["errors"] == [], d["errors"]
assert d["rows"] > 0, d
assert d["matched"].startswith("Matched: ") and not d["matched"].startswith("Matched: 0.00%"), d["matched"]
PY

# report: the tables hold no control byte but the newlines
for by in function process thread; do
	expect_status 0 "$CPUPROF" report --by "$by" "$TMP/n.pb.gz"
	ctl=$(LC_ALL=C tr -d '\n' <"$TMP/out" | LC_ALL=C grep -c '[[:cntrl:]]')
	[ "$ctl" -eq 0 ] || fail "report --by $by writes control bytes: $(od -c "$TMP/out" | head)"
done
LC_ALL=C grep -q $'x\xef\xbf\xbd' "$TMP/out" ||
	fail "report --by thread: no 'x' + U+FFFD: $(cat "$TMP/out")"

# a profile file anyone could hand to report: the same rule as its names enter
printf 'x\xef\xbf\xbf;f\xef\xbf\xbe\xef\xb7\x90;g\tx\r 5\nx\xef\xbf\xbf;f\xef\xbf\xbe\xef\xb7\x90 2\n' >"$TMP/h.folded"
expect_status 0 "$CPUPROF" report -o "$TMP/h.svg" "$TMP/h.folded"
xmllint --noout "$TMP/h.svg" 2>"$TMP/xml.err" || fail "report's SVG is not well-formed: $(head -3 "$TMP/xml.err")"
expect_status 0 "$CPUPROF" report --by function "$TMP/h.folded"
ctl=$(LC_ALL=C tr -d '\n' <"$TMP/out" | LC_ALL=C grep -c '[[:cntrl:]]')
[ "$ctl" -eq 0 ] || fail "report of a hostile folded file writes control bytes: $(od -c "$TMP/out" | head)"
LC_ALL=C grep -q $'f\xef\xbf\xbd\xef\xbf\xbd' "$TMP/out" || fail "report: no U+FFFD in $(cat "$TMP/out")"

# a message that names the file: the debug sections of a copy damaged so that record warns
cp "$exe" "$TMP/damaged"$'\x1b[31m'
damage_debug_line "$TMP/damaged"$'\x1b[31m' || fail "could not damage the copy"
expect_status 0 timeout 60 "$CPUPROF" record -o "$TMP/d.folded" -- "$TMP/damaged"$'\x1b[31m' 1
grep -qF 'damaged\x1b[31m' "$TMP/err" || fail "no escaped file name in the warnings: $(cat -v "$TMP/err")"
for f in "$TMP/err" "$TMP/record.err"; do
	ctl=$(LC_ALL=C tr -d '\n' <"$f" | LC_ALL=C grep -c '[[:cntrl:]]')
	[ "$ctl" -eq 0 ] || fail "control bytes on stderr: $(cat -v "$f")"
done
note "$threads threads; HTML ran, SVG well-formed, JSON and pprof strings valid, report and warnings free of control bytes"
exit 0
