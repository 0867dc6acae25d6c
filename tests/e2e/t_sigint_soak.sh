#!/bin/bash
# 50 stop signals at random moments, from cpuprof's first line of its own (signals blocked)
# to well into sampling:
# every run ends promptly with a complete file in each format (folded, pprof), exit 0 when
# sampling had started and 128+N when it had not, never a hang. A second SIGINT right after
# the first still leaves complete files.
. "$(dirname "$0")/lib.sh"
require_bpf

bg "$FIX/fix_tree" 120
before=0 during=0 slowest=0
for i in $(seq 50); do
	sig=INT
	[ $((i % 5)) -eq 0 ] && sig=TERM
	delay_ms=$(((RANDOM * 32768 + RANDOM) % 1500))
	"$CPUPROF" record -o "$TMP/s$i.folded" -o "$TMP/s$i.pb.gz" 2>"$TMP/s$i.err" &
	rec=$!
	# from the moment cpuprof's own code runs: before main() (the dynamic loader, the
	# sanitizers' start) a signal still has its default effect; main blocks SIGINT, SIGTERM
	# and SIGHUP first thing
	for _ in $(seq 2000); do
		blk=$(awk '/^SigBlk/ { print $2 }' "/proc/$rec/status" 2>/dev/null)
		[ -n "$blk" ] && [ $((16#$blk & 0x4003)) -eq $((0x4003)) ] && break
		sleep 0.001
	done
	sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
	kill -"$sig" "$rec"
	[ $((i % 10)) -eq 3 ] && kill -INT "$rec" 2>/dev/null # and a second one
	t0=$(date +%s%N)
	# no step before or after sampling may keep a stop waiting: 5 s is a hang here
	for _ in $(seq 100); do kill -0 "$rec" 2>/dev/null || break; sleep 0.05; done
	if kill -0 "$rec" 2>/dev/null; then
		kill -KILL "$rec"
		fail "run $i: still running 5 s after SIG$sig at $delay_ms ms"
	fi
	wait "$rec"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -gt "$slowest" ] && slowest=$ms
	case $rc in
	0) during=$((during + 1)) ;;
	130 | 143)
		before=$((before + 1))
		grep -q 'before sampling started' "$TMP/s$i.err" ||
			fail "run $i: exit $rc without saying so: $(cat "$TMP/s$i.err")"
		;;
	*) fail "run $i: SIG$sig at $delay_ms ms: exit $rc: $(cat "$TMP/s$i.err")" ;;
	esac
	[ -e "$TMP/s$i.folded" ] || fail "run $i: no folded file (exit $rc)"
	# empty when no sample was taken: a complete profile of nothing
	[ -s "$TMP/s$i.folded" ] && check_folded_grammar "$TMP/s$i.folded"
	gzip -t "$TMP/s$i.pb.gz" 2>/dev/null || fail "run $i: the pprof file is not whole gzip"
done
# the pprof files decode (a sample of them: go tool pprof is slow to start)
for i in 1 17 33 50; do
	go tool pprof -raw "$TMP/s$i.pb.gz" >/dev/null 2>"$TMP/pprof.err" ||
		fail "run $i: go tool pprof: $(cat "$TMP/pprof.err")"
done
left=$(find "$TMP" -name '.*' ! -name . | wc -l)
[ "$left" -eq 0 ] || fail "$left temporary files left"
note "50 stop signals: $during during sampling (exit 0), $before before it (exit 130/143);" \
	"all files complete; slowest stop ${slowest} ms"
exit 0
