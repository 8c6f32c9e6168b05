//! The house's layers, read from the `use` lines alone (`crate::…` and `super::…` paths in
//! `src/`, comments and `#[cfg(test)]` code left out), as a newcomer reads them:
//! - no two source files import each other, directly or round a circle;
//! - the top-level rooms of `src/` (a file `src/x.rs` or a folder `src/x/`) read one way, each
//!   using only rooms of its own layer or below ([`LAYERS`], the table CONTRIBUTING.md shows),
//!   and no circle among the rooms of one layer.
//!
//! A new room fails the test until it is given a layer here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, top first. A room may use rooms of its own layer (without a circle) or of any
/// layer below it, never one above.
const LAYERS: &[(&str, &[&str])] = &[
    ("command line and test harnesses", &["cli", "fuzzing"]),
    ("commands and front ends", &["app", "proxy"]),
    ("probe and report", &["probe", "report"]),
    ("diff and client", &["diff", "client", "sandbox"]),
    ("lockfile and config", &["lockfile", "settle", "rejections", "config"]),
    (
        "rules and the small shared modules",
        &[
            "rules",
            "change",
            "calendar",
            "digest",
            "env_vars",
            "exit",
            "files",
            "json",
            "json_read",
            "secrets",
            "sink",
            "spelling",
            "stop",
            "suggest",
            "surface",
        ],
    ),
];

type Module = Vec<String>;

/// Every module of `src/` and its source text without comments and test code.
fn modules(src: &Path) -> BTreeMap<Module, (String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    let mut mods = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Module = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
        if parts.last().is_some_and(|l| l == "mod") {
            parts.pop();
        }
        if parts == ["lib"] || parts == ["main"] {
            parts.clear();
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
        mods.insert(parts, (f.strip_prefix(src).unwrap().display().to_string(), code));
    }
    mods
}

/// The module paths a file's code names: `crate::a::b`, `super::x`, and `use crate::a::{b, c::d}`
/// groups expanded one level.
fn paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let starts = (rest.starts_with("crate::") || rest.starts_with("super::"))
            && (i == 0 || !word(code[..i].chars().next_back().unwrap()));
        if !starts {
            i += rest.chars().next().map(char::len_utf8).unwrap_or(1);
            continue;
        }
        // the base: crate, or super repeated
        let mut j = i;
        let mut ups = 0;
        let is_crate = rest.starts_with("crate::");
        if is_crate {
            j += "crate::".len();
        } else {
            while code[j..].starts_with("super::") {
                ups += 1;
                j += "super::".len();
            }
        }
        // segments a::b::c, then maybe a {group}
        let mut segs = Vec::new();
        loop {
            let seg: String = code[j..].chars().take_while(|c| word(*c)).collect();
            if seg.is_empty() {
                break;
            }
            j += seg.len();
            segs.push(seg);
            if code[j..].starts_with("::") {
                j += 2;
            } else {
                break;
            }
        }
        let base = if is_crate { usize::MAX } else { ups };
        if bytes.get(j) == Some(&b'{') {
            let end = code[j..].find('}').map(|e| j + e).unwrap_or(code.len());
            for item in code[j + 1..end].split(',') {
                let item = item.split(" as ").next().unwrap_or("").trim();
                let mut p = segs.clone();
                if !item.is_empty() && item != "self" {
                    p.extend(
                        item.split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty() && !s.contains('{')),
                    );
                }
                out.push((base, p));
            }
            j = end;
        }
        if !segs.is_empty() {
            out.push((base, segs));
        }
        i = j.max(i + 1);
    }
    out
}

/// Edges between modules: `from` names something in `to`, where neither is the other's
/// ancestor (a parent and its children are one room).
fn edges(mods: &BTreeMap<Module, (String, String)>) -> BTreeMap<Module, BTreeSet<Module>> {
    let resolve = |p: &[String]| (0..=p.len()).rev().map(|n| p[..n].to_vec()).find(|m| mods.contains_key(m));
    let mut out: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, (_, code)) in mods {
        let e = out.entry(m.clone()).or_default();
        for (base, p) in paths(code) {
            let full: Module = if base == usize::MAX {
                p
            } else {
                let keep = m.len().saturating_sub(base);
                m[..keep].iter().cloned().chain(p).collect()
            };
            let Some(t) = resolve(&full) else { continue };
            if t.is_empty() || &t == m || t.starts_with(m) || m.starts_with(&t) {
                continue;
            }
            e.insert(t);
        }
    }
    out
}

/// Strongly connected components of more than one node (Tarjan).
fn circles<T: Ord + Clone>(g: &BTreeMap<T, BTreeSet<T>>) -> Vec<Vec<T>> {
    struct St<T> {
        index: BTreeMap<T, usize>,
        low: BTreeMap<T, usize>,
        stack: Vec<T>,
        on: BTreeSet<T>,
        out: Vec<Vec<T>>,
        n: usize,
    }
    fn strong<T: Ord + Clone>(v: &T, g: &BTreeMap<T, BTreeSet<T>>, s: &mut St<T>) {
        s.index.insert(v.clone(), s.n);
        s.low.insert(v.clone(), s.n);
        s.n += 1;
        s.stack.push(v.clone());
        s.on.insert(v.clone());
        for w in g.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                strong(w, g, s);
                let l = s.low[v].min(s.low[w]);
                s.low.insert(v.clone(), l);
            } else if s.on.contains(w) {
                let l = s.low[v].min(s.index[w]);
                s.low.insert(v.clone(), l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(&w);
                let done = &w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s =
        St { index: BTreeMap::new(), low: BTreeMap::new(), stack: vec![], on: BTreeSet::new(), out: vec![], n: 0 };
    for v in g.keys() {
        if !s.index.contains_key(v) {
            strong(v, g, &mut s);
        }
    }
    s.out
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_source_file_imports_in_a_circle() {
    let mods = modules(&src());
    let found: Vec<String> = circles(&edges(&mods))
        .into_iter()
        .map(|c| c.iter().map(|m| mods[m].0.clone()).collect::<Vec<_>>().join(", "))
        .collect();
    assert!(found.is_empty(), "import circles among files:\n{}", found.join("\n"));
}

#[test]
fn rooms_use_only_their_own_layer_or_the_layers_below() {
    let mods = modules(&src());
    let layer_of: BTreeMap<&str, usize> =
        LAYERS.iter().enumerate().flat_map(|(i, (_, rooms))| rooms.iter().map(move |r| (*r, i))).collect();
    let mut problems = Vec::new();
    let mut rooms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in mods.keys().filter(|m| !m.is_empty()) {
        if !layer_of.contains_key(m[0].as_str()) {
            problems.push(format!(
                "src/{} is in no layer: give it one in LAYERS (tests/integration/layers.rs) and in CONTRIBUTING.md",
                mods[m].0
            ));
        }
    }
    for (from, tos) in edges(&mods) {
        for to in tos {
            let (a, b) = (&from[0], &to[0]);
            if from.is_empty() || a == b {
                continue;
            }
            rooms.entry(a.clone()).or_default().insert(b.clone());
            if let (Some(la), Some(lb)) = (layer_of.get(a.as_str()), layer_of.get(b.as_str())) {
                if lb < la {
                    problems.push(format!(
                        "src/{} ({}) uses src/{} ({}), a layer above it",
                        mods[&from].0, LAYERS[*la].0, mods[&to].0, LAYERS[*lb].0
                    ));
                }
            }
        }
    }
    for c in circles(&rooms) {
        problems.push(format!("a circle of rooms: {}", c.join(", ")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The reader itself: it finds the paths a newcomer would read, and a planted circle.
#[test]
fn the_reader_finds_grouped_and_relative_paths_and_circles() {
    let p = paths("use crate::a::{b, c::d as e};\nfn f() { super::super::x::y(); }\nlet s = my_crate::z;");
    assert_eq!(
        p,
        vec![
            (usize::MAX, vec!["a".into(), "b".into()]),
            (usize::MAX, vec!["a".into(), "c".into(), "d".into()]),
            (usize::MAX, vec!["a".into()]),
            (2, vec!["x".into(), "y".into()]),
        ]
    );
    let g: BTreeMap<u8, BTreeSet<u8>> =
        [(1, [2].into()), (2, [3].into()), (3, [1].into()), (4, [1].into())].into_iter().collect();
    assert_eq!(circles(&g), vec![vec![1, 2, 3]]);
}
