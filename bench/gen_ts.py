#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a TypeScript project for bench/tsc.sh: MODULES modules of classes, generic
functions, unions and interfaces that import each other, a tsconfig.json (strict), about
LINES lines in all. Usage: gen_ts.py DIR [LINES]."""
import os
import sys


def module(i, n):
    imp = "".join(f"import {{ Item{j}, make{j} }} from './m{j}';\n" for j in range(max(0, i - 3), i))
    body = [imp, f"export interface Item{i}<T> {{ id: number; tag: 'a{i}' | 'b{i}'; value: T; next?: Item{i}<T>; }}\n"]
    body.append(f"export function make{i}<T>(id: number, value: T): Item{i}<T> {{\n"
                f"  return {{ id, tag: id % 2 ? 'a{i}' : 'b{i}', value }};\n}}\n")
    body.append(f"export class Store{i}<K extends string, V> {{\n"
                f"  private items = new Map<K, Item{i}<V>>();\n"
                f"  put(k: K, v: V): Item{i}<V> {{ const it = make{i}(this.items.size, v); this.items.set(k, it); return it; }}\n"
                f"  get(k: K): V | undefined {{ return this.items.get(k)?.value; }}\n"
                f"  map<U>(f: (v: V, k: K) => U): U[] {{ const out: U[] = []; this.items.forEach((it, k) => out.push(f(it.value, k))); return out; }}\n"
                f"}}\n")
    for j in range(n):
        body.append(f"export type U{i}_{j} = {{ kind: 'k{j}'; a: number; b: string[] }} | {{ kind: 'q{j}'; c: Record<string, number> }};\n"
                    f"export function f{i}_{j}(x: U{i}_{j}, s: Store{i}<string, number>): number {{\n"
                    f"  switch (x.kind) {{\n"
                    f"    case 'k{j}': return x.a + x.b.length + (s.get('k') ?? 0);\n"
                    f"    case 'q{j}': return Object.values(x.c).reduce((p, q) => p + q, 0);\n"
                    f"  }}\n}}\n")
    if i > 0:
        body.append(f"export const use{i} = make{i - 1}(1, {{ n: {i} }});\n")
    return "".join(body)


def main():
    d = sys.argv[1]
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 2500
    os.makedirs(os.path.join(d, "src"), exist_ok=True)
    n = 6  # functions per module: about 50 lines a module
    modules = max(2, lines // (8 + 7 * n + 5))
    for i in range(modules):
        with open(os.path.join(d, "src", f"m{i}.ts"), "w") as f:
            f.write(module(i, n))
    with open(os.path.join(d, "tsconfig.json"), "w") as f:
        f.write('{ "compilerOptions": { "strict": true, "target": "es2020", "module": "commonjs",'
                ' "outDir": "out", "declaration": true }, "include": ["src"] }\n')


main()
