#!/bin/bash
# --drain-interval: the in-kernel counts drained many times during a short recording of the
# known call tree lose nothing and count nothing twice: the profile holds exactly the samples
# the kernel counted, in the same exact stacks and shares as one drain at the end (t_tree.sh).
. "$(dirname "$0")/lib.sh"
require_bpf

for unwind in dwarf fp; do
	out=$TMP/drain-$unwind.folded
	expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -v --unwind "$unwind" --drain-interval 20ms -F 499 \
		-o "$out" -- "$FIX/fix_tree" 3
	# "N samples counted in the kernel, M sets drained (...); ..."
	line=$(grep 'samples counted in the kernel' "$TMP/err")
	[ -n "$line" ] || fail "no drain summary with -v: $(cat "$TMP/err")"
	counted=$(sed -n 's/.*: \([0-9]*\) samples counted in the kernel.*/\1/p' <<<"$line")
	drains=$(sed -n 's/.*kernel, \([0-9]*\) sets drained.*/\1/p' <<<"$line")
	all=$(total "$out")
	note "--unwind $unwind: $drains drains, $counted samples counted in the kernel, $all in the profile"
	# 3 s of recording at 20 ms: some 100 sets on a quiet machine (the first naming, which
	# reads the objects' DWARF, takes a while); two of them are taken after sampling stops
	[ "${drains:-0}" -ge 5 ] || fail "only ${drains:-0} sets drained in 3 s at --drain-interval 20ms"
	# exact: every sample the kernel counted is in the profile, once
	[ "$counted" -eq "$all" ] || fail "the kernel counted $counted samples, the profile has $all"
	# and record's own check of counted, copied and named agrees
	! grep -q 'do not add up' "$TMP/err" || fail "$(grep 'do not add up' "$TMP/err")"

	check_tree "$out" 499 "--unwind $unwind"
done

# a usage error below the minimum
expect_status 64 "$CPUPROF" record --drain-interval 5ms -o "$TMP/x.folded" -- /bin/true
grep -q 'cpuprof record:' "$TMP/err" || fail "no usage message: $(cat "$TMP/err")"
exit 0
