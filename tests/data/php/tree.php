<?php
class Work {
    public static function leaf($n) {
        $s = 0;
        for ($i = 0; $i < $n; $i++) {
            $s += $i * $i;
        }
        return $s;
    }

    public static function heavy($k) { return self::leaf(3 * $k); }

    public static function light($k) { return self::leaf($k); }
}

function cpu() {
    $r = getrusage();
    return $r['ru_utime.tv_sec'] + $r['ru_utime.tv_usec'] / 1e6 +
        $r['ru_stime.tv_sec'] + $r['ru_stime.tv_usec'] / 1e6;
}

function run() { $k = mt_rand(5000, 15000); return Work::heavy($k) + Work::light($k); }

function main($secs) {
    $finish = cpu() + $secs;
    while (cpu() < $finish) {
        run();
    }
}

main((float)$argv[1]);

// The known call tree of t_php: main -> run -> {Work::heavy -> Work::leaf 3/4,
// Work::light -> Work::leaf 1/4}, for $argv[1] seconds of CPU time (a loaded machine stretches
// the wall time, not the samples). The test looks for leaf's loop at lines 5-6, run's calls at
// line 23 and main's at 27: keep the lines above as they are. run's size varies at random
// (same 3:1 split) so that its period cannot lock onto the sampling period (see tree.pl).
