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
    hot(30000)
    cold(10000)


def main(secs):
    end = time.time() + secs
    while time.time() < end:
        outer()


main(float(sys.argv[1]))

# The known call tree of t_python_frames and bench/python.sh: main -> outer -> {hot 3/4,
# cold 1/4}. The tests look for hot's loop at lines 6-7: keep the lines above as they are.
