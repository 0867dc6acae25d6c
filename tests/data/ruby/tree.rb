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

def outer
  hot(30000)
  cold(10000)
end

def main_loop(secs)
  finish = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) + secs
  outer while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) < finish
end

main_loop(Float(ARGV[0]))

# The known call tree of t_ruby and bench/ruby.sh: main_loop -> outer -> {hot 3/4, cold 1/4},
# for ARGV[0] seconds of CPU time (a loaded machine stretches the wall time, not the samples).
# The tests look for hot's loop at lines 4-6 and the calls at 22 and 28: keep the lines above
# as they are.
