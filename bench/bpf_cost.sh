# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/python.sh, bench/ruby.sh and bench/script.sh (PHP, Perl): the BPF cost of a
# running recording, read with bpftool, kernel.bpf_stats_enabled set for the runs (bpf_cost_on)
# and put back at exit, the recording in the background (BG) ended at exit too. ENTRY: the
# sampling program's name.
ENTRY=cp_sample
for t in bpftool jq sysctl; do
	command -v "$t" >/dev/null || { echo "$0: $t is missing" >&2; exit 1; }
done
OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
BG=""
cleanup() {
	if [ -n "$BG" ]; then kill "$BG" 2>/dev/null || true; fi
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS" || true
}
trap cleanup EXIT

# "A B" snapshots of recording COMMAND... (in the background, BG) 3 s and 7 s into it; waits
# for its end
record_cost() {
	"$@" &
	BG=$!
	sleep 3
	a=$(snapshot "$BG")
	sleep 4
	b=$(snapshot "$BG")
	wait "$BG"
	BG=""
	echo "$a $b"
}

# "RUN_TIME_NS RUN_CNT RECORDED" of the cpuprof process $1
snapshot() {
	local fdinfo progs stats
	fdinfo=$(cat /proc/"$1"/fdinfo/* 2>/dev/null) || true
	progs=,$(awk '$1 == "prog_id:" { print $2 }' <<<"$fdinfo" | sort -u | paste -sd,),
	stats=$(bpftool map show --json | jq -r --arg ids ",$(awk '$1 == "map_id:" { print $2 }' \
		<<<"$fdinfo" | paste -sd,)," '.[] | select(.name == "stats") |
		select(",\(.id)," as $k | $ids | contains($k)) | .id')
	echo "$(bpftool prog show --json | jq -r --arg ids "$progs" --arg e "$ENTRY" '.[] |
		select(",\(.id)," as $k | $ids | contains($k)) | select(.name == $e) |
		"\(.run_time_ns // 0) \(.run_cnt // 0)"') $(bpftool map dump id "$stats" --json |
		jq -r '.[].formatted | select(.key == 1) | .values | map(.value) | add')"
}
