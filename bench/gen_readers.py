#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Big synthetic profiles for bench/readers.sh: a folded file of many distinct long stacks, a
pprof profile (raw protobuf, encoded here by hand: formats.md 1) and a speedscope JSON file.
usage: gen_readers.py KIND SIZE_MIB OUT   (KIND: folded, unique, pprof, json)"""
import random
import sys

kind, size, out = sys.argv[1], int(sys.argv[2]) << 20, sys.argv[3]
rnd = random.Random(23)
NAMES = ["ns%d::Class%d::method_with_a_long_name_%d" % (i % 41, i % 997, i) for i in range(20000)]


def stack():
    """20 to 60 frames, a shared root part and a random tail: most stacks are distinct."""
    depth = rnd.randint(20, 60)
    root = [NAMES[i] for i in range(8)]
    return root + [NAMES[rnd.randrange(len(NAMES))] for _ in range(depth - 8)]


def folded():
    with open(out, "w") as f:
        while f.tell() < size:
            f.write("app%d;%s %d\n" % (rnd.randrange(40), ";".join(stack()), rnd.randint(1, 999)))


def unique():
    """Every frame its own: 20 to 60 random 40-bit names a line."""
    with open(out, "w") as f:
        while f.tell() < size:
            f.write("app;%s %d\n" % (";".join("f_%x" % rnd.getrandbits(40) for _ in range(rnd.randint(20, 60))),
                                      rnd.randint(1, 99)))


def varint(v):
    b = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        if v:
            b.append(c | 0x80)
        else:
            b.append(c)
            return bytes(b)


def field(num, wire, payload):
    key = varint(num << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def packed(num, values):
    return field(num, 2, b"".join(varint(v) for v in values))


def pprof():
    strings = ["", "samples", "count", "/usr/bin/app", "app.c"] + NAMES
    sid = {s: i for i, s in enumerate(strings)}
    parts = [field(1, 2, field(1, 0, sid["samples"]) + field(2, 0, sid["count"]))]
    # one mapping, a function and a location per name (location id = function id = index + 1)
    parts.append(field(3, 2, field(1, 0, 1) + field(2, 0, 0x400000) + field(3, 0, 0x900000) +
                       field(5, 0, sid["/usr/bin/app"])))
    for i, n in enumerate(NAMES):
        parts.append(field(4, 2, field(1, 0, i + 1) + field(2, 0, 1) + field(3, 0, 0x401000 + 16 * i) +
                           field(4, 2, field(1, 0, i + 1) + field(2, 0, 10 + i % 500))))
        parts.append(field(5, 2, field(1, 0, i + 1) + field(2, 0, sid[n]) + field(3, 0, sid[n]) +
                           field(4, 0, sid["app.c"])))
    total = sum(len(p) for p in parts)
    with open(out, "wb") as f:
        for p in parts:
            f.write(p)
        while total < size:
            # location ids leaf first
            st = stack()
            ids = [NAME_ID[n] for n in reversed(st)]
            s = field(2, 2, packed(1, ids) + packed(2, [rnd.randint(1, 999)]))
            f.write(s)
            total += len(s)
        for s in strings:
            f.write(field(6, 2, s.encode()))


def json_():
    frames = [{"name": "app%d" % i} for i in range(40)] + [{"name": n} for n in NAMES]
    with open(out, "w") as f:
        f.write('{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [')
        f.write(", ".join('{"name": "%s"}' % fr["name"] for fr in frames))
        f.write(']}, "profiles": [{"type": "sampled", "name": "big", "unit": "none", "startValue": 0, "endValue": 1, "samples": [')
        weights = []
        first = True
        while f.tell() < size:
            st = [rnd.randrange(40)] + [40 + NAME_ID[n] - 1 for n in stack()]
            f.write(("" if first else ", ") + "[" + ", ".join(map(str, st)) + "]")
            first = False
            weights.append(rnd.randint(1, 999))
        f.write('], "weights": [' + ", ".join(map(str, weights)) + "]}]}\n")


NAME_ID = {n: i + 1 for i, n in enumerate(NAMES)}
{"folded": folded, "unique": unique, "pprof": pprof, "json": json_}[kind]()
