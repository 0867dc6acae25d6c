import random, sys, time
range = getattr(__builtins__, "xrange", range)  # Python 2: no list of n numbers

def hot(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def cold(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def outer():
    n = random.randint(50000, 150000)
    hot(3 * n)
    cold(n)


def main(secs):
    cpu = time.process_time if hasattr(time, "process_time") else time.clock
    end = cpu() + secs
    while cpu() < end:
        outer()


main(float(sys.argv[1]))

# The known call tree of t_python_frames and bench/python.sh: main -> outer -> {hot 3/4,
# cold 1/4}, for argv[1] seconds of CPU time (a loaded machine stretches the wall time, not
# the samples). Python 2 counts with time.clock and xrange: its range's list of 3n numbers
# cost more per number than cold's n, and hot took 78 % of the CPU time.
# At 40,000 iterations one outer() took about 2 ms on CPython 3.7, one sampling period at
# 499 Hz, and samples locked to its phase counted 85-91 % hot on a loaded machine. At a fixed
# 100,000 it took 11.5-17 ms, near 8 sampling periods (16.03 ms) on CPython 3.10 and 3.12,
# where samples at the same 8 phases of each call count 62.5, 75 or 87.5 % hot: so its size
# is drawn at random each call (same 3:1 split, 100,000 on average) and its period cannot
# lock onto the sampling period. The tests look for hot's loop at lines 6-7: keep the lines
# above as they are.
