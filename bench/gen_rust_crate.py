#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a Cargo workspace for make bench-cargo: a binary crate with a few local path
dependencies (no registry, no network), each of several modules of generic code, traits and
closures, so that `cargo build --release` keeps rustc busy for a few seconds.

usage: gen_rust_crate.py DIR [--deps N] [--modules M] [--items K]
"""
import argparse
import os

MODULE = """
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub trait Shape{m} {{
    fn area(&self) -> f64;
    fn name(&self) -> String;
}}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rect{m}<T> {{
    pub w: T,
    pub h: T,
    pub tags: Vec<String>,
}}

impl<T: Copy + Into<f64> + std::fmt::Debug> Shape{m} for Rect{m}<T> {{
    fn area(&self) -> f64 {{
        self.w.into() * self.h.into()
    }}
    fn name(&self) -> String {{
        format!("rect{m}({{:?}}, {{:?}}, {{}})", self.w, self.h, self.tags.len())
    }}
}}
{items}
pub fn run{m}(n: u32) -> f64 {{
    let mut acc = 0.0;
{calls}
    acc
}}
"""

ITEM = """
pub fn work{m}_{i}<T: Copy + Into<f64> + std::fmt::Debug + Default>(xs: &[T], k: u32) -> f64 {{
    let mut map: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (j, x) in xs.iter().enumerate() {{
        let r = Rect{m} {{ w: *x, h: T::default(), tags: vec![format!("{i}-{{}}", j)] }};
        let key = r.name();
        map.entry(key).or_default().push(r.area() + (j as f64) * {i}.0 + k as f64);
    }}
    let mut s = String::new();
    let total: f64 = map
        .iter()
        .filter(|(k, _)| k.len() % 3 != {r3})
        .map(|(k, v)| {{
            let _ = write!(s, "{{}}", k);
            v.iter().copied().fold(0.0, |a, b| if b > a {{ a + b }} else {{ a - b / 2.0 }})
        }})
        .sum();
    total + s.len() as f64
}}
"""


def module(m, items):
    body = "".join(ITEM.format(m=m, i=i, r3=i % 3) for i in range(items))
    calls = "".join(
        "    acc += work{m}_{i}(&[n, n + {i}, 3], {i}) + work{m}_{i}(&[1.5f32, {i}.0], n);\n"
        "    acc += work{m}_{i}(&[n as u16, 7u16], {i}) + work{m}_{i}(&[2i8, 1i8], n);\n".format(
            m=m, i=i
        )
        for i in range(items)
    )
    return MODULE.format(m=m, items=body, calls=calls)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--deps", type=int, default=3)
    ap.add_argument("--modules", type=int, default=3, help="modules per crate")
    ap.add_argument("--items", type=int, default=4, help="generic functions per module")
    a = ap.parse_args()
    deps = ["cpdep%d" % d for d in range(a.deps)]
    members = ", ".join('"%s"' % d for d in deps)
    write(
        os.path.join(a.dir, "Cargo.toml"),
        '[workspace]\nmembers = [".", %s]\n\n[package]\nname = "cpbench"\nversion = "0.1.0"\n'
        'edition = "2021"\n\n[dependencies]\n%s\n\n[profile.release]\ncodegen-units = 4\n'
        % (members, "".join('%s = { path = "%s" }\n' % (d, d) for d in deps)),
    )
    for d in deps + ["."]:
        lib = d != "."
        src = []
        for m in range(a.modules):
            write(os.path.join(a.dir, d, "src", "m%d.rs" % m), module(m, a.items))
            src.append("pub mod m%d;\n" % m)
        runs = "".join("    acc += m%d::run%d(n);\n" % (m, m) for m in range(a.modules))
        if lib:
            write(
                os.path.join(a.dir, d, "Cargo.toml"),
                '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\n' % d,
            )
            write(
                os.path.join(a.dir, d, "src", "lib.rs"),
                "".join(src) + "\npub fn run(n: u32) -> f64 {\n    let mut acc = 0.0;\n"
                + runs + "    acc\n}\n",
            )
        else:
            write(
                os.path.join(a.dir, "src", "main.rs"),
                "".join(src)
                + "\nfn main() {\n    let n = std::env::args().count() as u32;\n"
                "    let mut acc = 0.0;\n"
                + runs
                + "".join("    acc += %s::run(n);\n" % x for x in deps)
                + '    println!("{}", acc);\n}\n',
            )


if __name__ == "__main__":
    main()
