#!/bin/bash
# An exec storm during a system-wide recording: a shell loop runs a short program without
# frame pointers 300 times. Each new program asks for its mappings at its execve, so its
# samples are walked with its tables; samples taken before they are in are walked through
# frame pointers, and whatever such a walk takes from something that is no frame is cut
# ([truncated: ...]): no user stack ever starts with an unnamed address.
. "$(dirname "$0")/lib.sh"
require_bpf

prog=$FIX/fix_tree_nofp
# more than 256 processes end: at the next drain while recording (every 200 ms here, and once
# more after the storm) their samples are merged per (comm, stack) and moved to unnamed files
# of TMPDIR, read back for the output; so are the frames (CPUPROF_SPILL_AFTER=0: from the
# first, not after 32768 as by default)
mkdir "$TMP/spill"
CPUPROF_SPILL_AFTER=0 TMPDIR=$TMP/spill start_recording -F 499 --drain-interval 200ms -o "$TMP/storm.folded" \
	-o "$TMP/storm.json"
for _ in $(seq 300); do
	"$prog" 0.01 2>/dev/null
done
sleep 1
kill -INT "$REC"
wait "$REC" || fail "system-wide record failed: $(cat "$TMP/rec.err")"
check_folded_grammar "$TMP/storm.folded"
spilled=$(sed -n 's/.*kept on disk until the output: \([0-9]*\) stacks of ended processes.*/\1/p' "$TMP/rec.err")
frames=$(sed -n 's/.*kept on disk until the output: .*), \([0-9]*\) frames.*/\1/p' "$TMP/rec.err")
[ "${frames:-0}" -gt 0 ] || fail "no frame was kept on disk: $(grep -i 'disk\|memory' "$TMP/rec.err")"
[ "${spilled:-0}" -gt 0 ] || fail "no stack of ended processes was moved to disk: $(grep -i 'disk\|memory\|merged' "$TMP/rec.err")"
[ -z "$(ls -A "$TMP/spill")" ] || fail "files left in TMPDIR: $(ls -A "$TMP/spill")"
# exact accounting: every sample the kernel counted is in the output, those read back included
counted=$(sed -n 's/.*: \([0-9]*\) samples counted in the kernel.*/\1/p' "$TMP/rec.err")
folded=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/storm.folded")
[ "$counted" = "$folded" ] || fail "the kernel counted $counted samples, the folded output holds $folded"
# system-wide, no --comm: the only process left out is cpuprof, and the summary says so
grep -q 'samples left out:.*other processes' "$TMP/rec.err" &&
	fail "system-wide, cpuprof's own samples are called other processes: $(grep 'left out' "$TMP/rec.err")"
note "exec storm: $(grep -o 'cpuprof itself [0-9]*' "$TMP/rec.err" || echo 'cpuprof itself 0') samples left out;"
note "exec storm: $spilled stacks of ended processes and $frames frames moved to disk and back; $folded samples, as counted"

f=$TMP/storm.folded
chain='^fix_tree_nofp;_start;__libc_start_main;__libc_start_call_main;main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf( |;)'
# samples with a user stack: the first frame after the name is no kernel frame
user=$(grep -E '^fix_tree_nofp;' "$f" |
	grep -vE '^fix_tree_nofp;([^;]*_\[k\]|\[no stack\]|\[kernel stack [^;]*)( [0-9]+$|;)' |
	awk '{ s += $NF } END { print s + 0 }')
complete=$(count "$f" '^fix_tree_nofp;(_start|__libc_start_main|__libc_start_call_main|_dl_start_user);')
exact=$(count "$f" "$chain")
all=$(count "$f" '^fix_tree_nofp;')
note "exec storm: $all samples of fix_tree_nofp, $user with a user stack, $complete complete ($(share "$complete" $((user - complete)))%), $exact with the whole chain"
[ "$user" -ge 100 ] || fail "only $user samples of the 300 short programs"
bad=$(grep -E '^[^;]*;\[unknown\]' "$f" | head -1)
[ -z "$bad" ] || fail "a user stack starts with an unnamed address: $bad"
# The walker makes each new program's mapping table itself at its exec and executable mmaps,
# and finds the tables by file: complete stacks do not wait for user space (98 % measured at
# load 5; 50-80 % when they did). The floor leaves room for samples in execve and the loader.
[ $((100 * complete)) -ge $((85 * user)) ] ||
	fail "only $complete of $user user stacks complete: $(grep -E '^fix_tree_nofp;\[' "$f" | sort -t' ' -k2 -rn | head -3)"
exit 0
