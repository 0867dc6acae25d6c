<?php
class Work {
    public static function leaf($n) {
        $s = 0;
        for ($i = 0; $i < $n; $i++) {
            $s += $i * $i;
        }
        return $s;
    }

    public static function heavy() { return self::leaf(30000); }

    public static function light() { return self::leaf(10000); }
}

function cpu() {
    $r = getrusage();
    return $r['ru_utime.tv_sec'] + $r['ru_utime.tv_usec'] / 1e6 +
        $r['ru_stime.tv_sec'] + $r['ru_stime.tv_usec'] / 1e6;
}

function run() { return Work::heavy() + Work::light(); }

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
// line 23 and main's at 27: keep the lines above as they are.
