def hot(n)
  s = 0
  i = 0
  while i < n
    s += i * i
    i += 1
  end
  s
end

def cold(n)
  s = 0
  i = 0
  while i < n
    s += i * i
    i += 1
  end
  s
end

def outer(k = 5000 + rand(10000))
  hot(3 * k)
  cold(k)
end

def main_loop(secs)
  finish = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) + secs
  outer while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) < finish
end

main_loop(Float(ARGV[0]))

# The known call tree of t_ruby and bench/ruby.sh: main_loop -> outer -> {hot 3/4, cold 1/4},
# for ARGV[0] seconds of CPU time (a loaded machine stretches the wall time, not the samples).
# The tests look for hot's loop at lines 4-6 and the calls at 22 and 28: keep the lines above
# as they are. outer's size is drawn at random each call (same 3:1 split, 10,000 on average) so
# that its period cannot lock onto the sampling period: at a fixed 10,000 one outer took
# 0.43 ms, 2.004 / 0.43 = 4.66, near 14/3, at 499 Hz (Perl's 0.70 ms, near 20/7 of it, saw an
# 82 % heavy share in CI).
