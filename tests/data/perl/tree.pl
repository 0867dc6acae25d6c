use strict;
package Work;
sub leaf {
    my ($n, $s) = (shift, 0);
    for my $i (1 .. $n) {
        $s += $i * $i;
    }
    return $s;
}

sub heavy { return leaf(30000); }

sub light { return leaf(10000); }

package main;

sub cpu { my @t = times; return $t[0] + $t[1]; }

sub run { return Work::heavy() + Work::light(); }

sub main {
    my $finish = cpu() + shift;
    while (cpu() < $finish) {
        run();
    }
}

main($ARGV[0]);

# The known call tree of t_perl: main -> run -> {Work::heavy -> Work::leaf 3/4,
# Work::light -> Work::leaf 1/4}, for $ARGV[0] seconds of CPU time (a loaded machine stretches
# the wall time, not the samples). The test looks for leaf's loop at lines 5-6, run's calls at
# line 19 and main's at 24: keep the lines above as they are.
