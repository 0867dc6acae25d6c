#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the regular files under DIRS (one file system each, not following links) that are
64-bit little-endian ELF objects with a .debug_line section. usage: list_debug_line.py DIR..."""
import os
import struct
import sys

def has_debug_line(path):
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if len(h) < 64 or h[:4] != b"\x7fELF" or h[4] != 2 or h[5] != 1:
                return False
            shoff, = struct.unpack_from("<Q", h, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", h, 0x3a)
            if not shoff or shentsize != 64 or not shnum or shstrndx >= shnum or shnum > 65000:
                return False
            f.seek(shoff)
            sh = f.read(shentsize * shnum)
            if len(sh) < shentsize * shnum:
                return False
            off, size = struct.unpack_from("<QQ", sh, shstrndx * 64 + 0x18)
            if size > 1 << 24:
                return False
            f.seek(off)
            names = f.read(size)
            for i in range(shnum):
                name, typ = struct.unpack_from("<II", sh, i * 64)
                if typ != 8 and names[name:name + 12] == b".debug_line\0":
                    return True
    except (OSError, ValueError, struct.error):
        pass
    return False

for top in sys.argv[1:]:
    dev = os.lstat(top).st_dev
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ("proc", "sys") and
                   os.lstat(os.path.join(root, d)).st_dev == dev]
        for n in files:
            p = os.path.join(root, n)
            try:
                st = os.lstat(p)
            except (OSError, ValueError, struct.error):
                continue
            if st.st_size > 64 and (st.st_mode & 0o170000) == 0o100000 and has_debug_line(p):
                print(p)
