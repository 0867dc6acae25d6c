#!/bin/bash
# The BPF maps of a system-wide recording (--unwind dwarf, every runtime wanted): where the
# kernel lets perf_event programs use hash maps without preallocated elements (Linux 6.1 on;
# before, the verifier refuses them and every hash map stays preallocated), the hash maps that
# a program run inserts into once at most (counts, rtstacks, procs, uprocs...) are made so,
# and the maps' kernel memory (memlock, as the kernel counts it; the row store's chunks, which
# follow the unwind tables, left out) follows what they hold: under 144 MiB, where all
# preallocated it is 174 MiB. rt_names (a sample copies several names) and
# dstacks (their inserts cost more so) stay preallocated.
. "$(dirname "$0")/lib.sh"
require_bpf
command -v bpftool >/dev/null || skip "bpftool is missing (scripts/install-deps.sh installs it)"

start_recording -F 99 -d 20s --unwind dwarf -o "$TMP/sys.pb.gz"
# "name flags memlock" of each map the recording holds (fdinfo: its map_id, flags, memlock)
for f in /proc/"$REC"/fdinfo/*; do
	id=$(sed -n 's/^map_id:[[:space:]]*//p' "$f" 2>/dev/null)
	[ -n "$id" ] || continue
	name=$(bpftool map show id "$id" 2>/dev/null | sed -n 's/.* name \([^ ]*\) .*/\1/p')
	echo "$name $(sed -n 's/^map_flags:[[:space:]]*//p' "$f") $(sed -n 's/^memlock:[[:space:]]*//p' "$f")"
done | sort -u >"$TMP/maps"
kill -INT "$REC"
wait "$REC" || fail "the recording failed: $(cat "$TMP/rec.err")"

flags() { awk -v n="$1" '$1 == n { print $2; exit }' "$TMP/maps"; }
for m in counts0 counts1 dstacks0 rt_names rtstacks0 procs uprocs; do
	[ -n "$(flags $m)" ] || fail "no map $m in the recording's: $(tr '\n' ' ' <"$TMP/maps")"
done
total=$(awk '$1 != "cp_row_chunk" { s += $3 } END { print s }' "$TMP/maps")
note "$(wc -l <"$TMP/maps") maps, $((total >> 20)) MiB of kernel memory; counts0 flags $(flags counts0)"

IFS=. read -r major minor _ < <(uname -r)
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "${minor%%[!0-9]*}" -ge 1 ]; }; then
	# BPF_F_NO_PREALLOC is 0x1
	for m in counts0 counts1 rtstacks0 rtstacks1 procs uprocs; do
		[ $(($(flags $m) & 1)) -eq 1 ] || fail "Linux $(uname -r): $m preallocated (flags $(flags $m))"
	done
	[ "$total" -lt $((144 << 20)) ] || fail "Linux $(uname -r): $((total >> 20)) MiB of maps"
else
	[ $(($(flags counts0) & 1)) -eq 0 ] || fail "Linux $(uname -r): counts0 not preallocated"
fi
for m in dstacks0 dstacks1 rt_names; do
	[ $(($(flags $m) & 1)) -eq 0 ] || fail "$m not preallocated (flags $(flags $m))"
done
exit 0
