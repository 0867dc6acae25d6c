#!/bin/bash
# PHP frames merged with native frames (--php, the default), under Debian's php8.2 (NTS;
# scripts/install-deps.sh installs it). The known call tree tests/data/php/tree.php:
#  - over the samples in Work::leaf: >= 95 % whole chains {main};main;run;Work::heavy|light;
#    Work::leaf rooted at _start through php_execute_script; heavy share 75 +- 5 %; the leaf's
#    lines; JSON frames of kind php with the file; pprof lines with file, line and start line;
#  - a function called back from C (array_map / List::Util::first) under that C code;
#  - many 0.05 s runs: every PHP frame named;
#  - a php running before the recording (-p); --no-php: no PHP frames.
# The script runs for CPU seconds, so a loaded machine stretches its wall time, not its samples.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_script.sh"
require_bpf

PHP=$(command -v php8.2) || skip "php8.2 is missing (scripts/install-deps.sh installs it)"
cp "$(dirname "$0")/../../tests/data/php/tree.php" "$TMP/tree.php"

out=$TMP/tree.folded
expect_status 0 "$CPUPROF" record -v -F 999 --lines -o "$out" -o "$TMP/tree.json" -o "$TMP/tree.pb.gz" -- "$PHP" "$TMP/tree.php" 1.5
check_script_tree "$out" php php_execute_script '\{main\}' main run tree.php
# JSON frames of kind php with the file; pprof read back by go tool pprof, the leaf with its
# file and line and start line
check_script_outputs php php tree.php ' s=3'

# PHP called back from C: array_map's callback under php::array_map and its native frames
cat >"$TMP/cb.php" <<'PHP'
<?php
function cb($x) { $s = 0; for ($i = 0; $i < 2000; $i++) $s += $i; return $s; }
function outer() { return array_sum(array_map('cb', range(1, 200))); }
$end = microtime(true) + (float)$argv[1];
while (microtime(true) < $end) outer();
PHP
out=$TMP/cb.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- "$PHP" "$TMP/cb.php" 1
cb=$(count "$out" 'php::cb( |;)')
nested=$(count "$out" ';php::\{main\};php::outer;php::array_map;([^;]*;)*zend_call_function;php::cb( |;)')
note "callback: $nested of $cb samples in php::cb under php::outer;php::array_map;...;zend_call_function"
[ "$cb" -ge 50 ] || fail "callback: $cb samples in php::cb"
[ "$(share "$nested" $((cb - nested)))" -ge 95 ] || fail "callback: $nested of $cb php::cb samples nested: $(grep 'php::cb' "$out" | grep -v zend_call_function | head -2)"

out=$TMP/short.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do '$PHP' '$TMP/tree.php' 0.05; done"
check_short "$out" php

bg "$PHP" "$TMP/tree.php" 30
ppid=$!
sleep 0.5
record_window "$ppid" 1 -F 999 -p "$ppid" -o "$TMP/pid.folded"
kill "$ppid" 2>/dev/null
all=$(total "$TMP/pid.folded")
n=$(count "$TMP/pid.folded" ';php::\{main\};php::main;')
note "-p: $n of $all samples with the script's PHP frames"
[ $((100 * n)) -ge $((90 * all)) ] && [ "$all" -ge 50 ] || fail "-p: $n of $all samples with the script's PHP frames: $(grep -i php "$TMP/rec.err")"

out=$TMP/nophp.folded
expect_status 0 "$CPUPROF" record -F 499 --no-php -o "$out" -- "$PHP" "$TMP/tree.php" 1
n=$(count "$out" 'php::')
[ "$n" -eq 0 ] || fail "--no-php: $n samples with PHP frames"
[ "$(total "$out")" -ge 50 ] || fail "--no-php: $(total "$out") samples"
echo "ok: PHP frames under $("$PHP" -r 'echo PHP_VERSION;')"
