import sys, time


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
    hot(300000)
    cold(100000)


def main(secs):
    end = time.time() + secs
    while time.time() < end:
        outer()


main(float(sys.argv[1]))

# The known call tree of t_python_frames and bench/python.sh: main -> outer -> {hot 3/4,
# cold 1/4}. One outer() takes about 20 ms (10 sampling periods at 499 Hz): at 40,000
# iterations it took about 2 ms on CPython 3.7, one sampling period, and samples locked to its
# phase counted 85-91 % hot on a loaded machine. The tests look for hot's loop at lines 6-7:
# keep the lines above as they are.
