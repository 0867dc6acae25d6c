use strict;
package Work;
sub leaf {
    my ($n, $s) = (shift, 0);
    for my $i (1 .. $n) {
        $s += $i * $i;
    }
    return $s;
}

sub heavy { return leaf(3 * $_[0]); }

sub light { return leaf($_[0]); }

package main;

sub cpu { my @t = times; return $t[0] + $t[1]; }

sub run { my $k = 5000 + int(rand(10000)); return Work::heavy($k) + Work::light($k); }

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
# line 19 and main's at 24: keep the lines above as they are. run's size varies at random
# (same 3:1 split each time) so that its period cannot lock onto the sampling period: with a
# fixed size one run took 0.70 ms against 2.004 ms between samples at 499 Hz, and a CI run saw
# an 82 % heavy share.
