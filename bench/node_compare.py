#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare cpuprof's JS frames with node's own --cpu-prof profile of the same run (bench/tsc.sh).
Usage: node_compare.py FOLDED CPUPROFILE [N]. FOLDED: cpuprof's folded output with --lines
(js::NAME (FILE:LINE:COL) frames). Prints the share of the samples with JS frames whose
innermost JS frame is JS code (not one of V8's builtins, "NAME [builtin]": counted apart) named
with a file and line, and the N (10) JS functions with the most self samples
in node's profile beside their share in cpuprof's: a sample counts for its innermost JS frame
(at the line running: counted for the function of that name starting last before it);
one in the garbage collector (a Heap:: or GC native frame below it) counts as node's
"(garbage collector)"; shares are of the samples counted for a JS function."""
import collections
import json
import re
import sys

# a JS frame, inlined into its caller's code ("_[i]": TurboFan's) or not
JS = re.compile(r"^js::(.*?)(?: \(([^;()]*):(\d+):(\d+)\))?(?:_\[i\])?$")
GC = re.compile(r"v8::internal::(Heap::|MarkCompact|Scavenger|ScavengerCollector|MinorMarkCompact)")


def ours(path):
    self_ = collections.Counter()
    nofile = collections.Counter()
    with_js = named = builtin = 0
    for line in open(path, encoding="utf-8", errors="replace"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not count.isdigit():
            continue
        c = int(count)
        frames = stack.split(";")
        inner = None
        for i in range(len(frames) - 1, -1, -1):
            if frames[i].startswith("js::") and frames[i] != "js::[unknown]":
                inner = i
                break
        if inner is None:
            continue
        m = JS.match(frames[inner])
        if m and m.group(1).endswith(" [builtin]"):
            builtin += c
        else:
            with_js += c
        if m and m.group(2):
            named += c
        elif m and m.group(1) != "[unknown]" and not m.group(1).endswith(" [builtin]"):
            nofile[m.group(1)] += c
        if any(GC.search(f) for f in frames[inner + 1:]):
            continue
        name, line_no = (m.group(1), m.group(3)) if m else (frames[inner][4:], None)
        name = name[:-len(" [builtin]")] if name.endswith(" [builtin]") else name
        self_[(name, int(line_no) if line_no else 0)] += c
    return self_, with_js, named, nofile, builtin


def by_function(a, b):
    """cpuprof's self samples keyed as node's: node keys a function by the line it starts at,
    cpuprof's frame has the line running in it (interpreted and optimized frames) or the one it
    starts at: a frame of NAME at line L counts for node's NAME starting last at or before L."""
    starts = collections.defaultdict(list)
    for name, line in b:
        starts[name].append(line)
    out = collections.Counter()
    for (name, line), c in a.items():
        s = [x for x in starts.get(name, []) if x <= line] if line else []
        out[(name, max(s) if s else line)] += c
    return out


def theirs(path):
    p = json.load(open(path))
    nodes = {n["id"]: n for n in p["nodes"]}
    self_ = collections.Counter()
    for s in p["samples"]:
        cf = nodes[s]["callFrame"]
        name = cf["functionName"]
        if not cf.get("url") and name.startswith("("):
            continue  # (program), (garbage collector), (idle), (root)
        self_[(name or "(anonymous)", cf["lineNumber"] + 1)] += 1
    return self_


def main():
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    a, with_js, named, nofile, builtin = ours(sys.argv[1])
    b = theirs(sys.argv[2])
    a = by_function(a, b)
    ta, tb = sum(a.values()), sum(b.values())
    print(f"cpuprof: {with_js} samples in JS code (and {builtin} in V8's builtins), {named} "
          f"({100.0 * named / max(with_js, 1):.1f}%) whose innermost JS frame has its file and "
          f"line; {ta} counted for a JS function; "
          f"node --cpu-prof: {tb}")
    print("without a file and line: " + ", ".join(f"{k} {v}" for k, v in nofile.most_common(6)))
    print(f"{'function (line)':48} {'--cpu-prof':>10} {'cpuprof':>8} {'diff':>6}")
    worst = 0.0
    for (name, line), c in b.most_common(n):
        sb = 100.0 * c / tb
        # a frame of node's own JS (node:internal/...) has no file to read its line from
        got = a.get((name, line), 0) + (a.get((name, 0), 0) if line else 0)
        sa = 100.0 * got / max(ta, 1)
        worst = max(worst, abs(sa - sb))
        print(f"{(name + ' (' + str(line) + ')')[:48]:48} {sb:9.1f}% {sa:7.1f}% {sa - sb:+6.1f}")
    print(f"largest difference: {worst:.1f} points")


main()
