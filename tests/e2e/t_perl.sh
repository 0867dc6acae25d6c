#!/bin/bash
# Perl frames merged with native frames (--perl, the default), under Debian's perl 5.36
# (threaded, libperl linked into /usr/bin/perl). The known call tree tests/data/perl/tree.pl:
#  - over the samples in Work::leaf: >= 95 % whole chains <main>;main::main;main::run;
#    Work::heavy|light;Work::leaf rooted at _start through perl_run; heavy share 75 +- 5 %; the
#    leaf's lines; JSON frames of kind perl with the file; pprof lines with file and line;
#  - a function called back from C (array_map / List::Util::first) under that C code;
#  - two ithreads: each thread's subs under its own native root;
#  - many 0.05 s runs: every Perl frame named;
#  - a perl running before the recording (-p); --no-perl: no Perl frames.
# The script runs for CPU seconds, so a loaded machine stretches its wall time, not its samples.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_script.sh"
require_bpf

PERL=$(command -v perl) || skip "perl is missing"
"$PERL" -e 'exit($] >= 5.036 && $] < 5.037 ? 0 : 1)' || skip "$PERL is not Perl 5.36 (Debian 12's)"
cp "$(dirname "$0")/../../tests/data/perl/tree.pl" "$TMP/tree.pl"

out=$TMP/tree.folded
expect_status 0 "$CPUPROF" record -v -F 999 --lines -o "$out" -o "$TMP/tree.json" -o "$TMP/tree.pb.gz" -- "$PERL" "$TMP/tree.pl" 1.5
check_script_tree "$out" pl perl_run '<main>' main::main main::run tree.pl
# JSON frames of kind perl with the file; pprof read back by go tool pprof, the leaf with its
# file and line
check_script_outputs pl perl tree.pl '( s=[0-9]+)?'

# Perl called back from C: List::Util::first's block under the XS code that runs it
cat >"$TMP/cb.pl" <<'PL'
use List::Util qw(first);
use Time::HiRes qw(time);
sub cb { my $s = 0; $s += $_ for 1 .. 2000; return $s; }
sub outer { return first { cb($_) < 0 } 1 .. 200; }
my $end = time + $ARGV[0];
outer() while time < $end;
PL
out=$TMP/cb.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- "$PERL" "$TMP/cb.pl" 1
cb=$(count "$out" 'pl::main::cb( |;)')
nested=$(count "$out" ';pl::<main>;pl::main::outer;([^;]*;)*Util\.so[^;]*;pl::main::__ANON__;pl::main::cb( |;)')
note "callback: $nested of $cb samples in pl::main::cb under pl::main::outer;...;Util.so;pl::main::__ANON__"
[ "$cb" -ge 50 ] || fail "callback: $cb samples in pl::main::cb"
[ "$(share "$nested" $((cb - nested)))" -ge 95 ] || fail "callback: $nested of $cb pl::main::cb samples nested: $(grep 'pl::main::cb' "$out" | grep -v 'Util\.so' | head -2)"

# ithreads: each thread's own interpreter (its thread-specific my_perl); the thread's subs under
# its own start routine, with no file-level frame (its outermost sub was called from C)
cat >"$TMP/thr.pl" <<'PL'
use threads;
sub spin { my $s = 0; for my $i (1 .. $_[0]) { $s += $i } return $s }
sub worker { spin(4_000_000) for 1 .. 3 }
sub mainloop { spin(4_000_000) for 1 .. 3 }
my $t = threads->create(\&worker);
mainloop();
$t->join;
PL
out=$TMP/thr.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- "$PERL" "$TMP/thr.pl"
w=$(count "$out" ';start_thread;([^;]*;)*pl::main::worker;pl::main::spin( |;)')
m=$(count "$out" ';perl_run;pl::<main>;pl::main::mainloop;pl::main::spin( |;)')
spin=$(count "$out" 'pl::main::spin( |;)')
mixed=$(count "$out" 'pl::<main>;([^;]*;)*start_thread|pl::main::mainloop;([^;]*;)*pl::main::worker|pl::main::worker;([^;]*;)*pl::main::mainloop')
note "threads: $spin samples in pl::main::spin, $w under the thread's worker, $m under the main program's mainloop, $mixed mixed"
[ "$w" -ge 20 ] && [ "$m" -ge 20 ] || fail "threads: worker $w, mainloop $m samples in pl::main::spin"
[ "$mixed" -eq 0 ] || fail "threads: $mixed samples mix the threads' frames: $(grep -E 'pl::<main>;([^;]*;)*start_thread' "$out" | head -2)"
[ "$(share $((w + m)) $((spin - w - m)))" -ge 95 ] || fail "threads: $((w + m)) of $spin spin samples under their thread's chain"

out=$TMP/short.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do '$PERL' '$TMP/tree.pl' 0.05; done"
check_short "$out" pl

bg "$PERL" "$TMP/tree.pl" 30
ppid=$!
sleep 0.5
record_window "$ppid" 1 -F 999 -p "$ppid" -o "$TMP/pid.folded"
kill "$ppid" 2>/dev/null
all=$(total "$TMP/pid.folded")
n=$(count "$TMP/pid.folded" ';pl::<main>;pl::main::main;')
note "-p: $n of $all samples with the script's Perl frames"
[ $((100 * n)) -ge $((90 * all)) ] && [ "$all" -ge 50 ] || fail "-p: $n of $all samples with the script's Perl frames: $(grep -i perl "$TMP/rec.err")"

out=$TMP/noperl.folded
expect_status 0 "$CPUPROF" record -F 499 --no-perl -o "$out" -- "$PERL" "$TMP/tree.pl" 1
n=$(count "$out" 'pl::')
[ "$n" -eq 0 ] || fail "--no-perl: $n samples with Perl frames"
[ "$(total "$out")" -ge 50 ] || fail "--no-perl: $(total "$out") samples"
echo "ok: Perl frames under $("$PERL" -e 'printf "%vd", $^V')"
