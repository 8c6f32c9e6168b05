//! The diff corpus: every folder under `tests/cases/` holds `before.json`, `after.json` (surfaces:
//! `{"tools": [...], "instructions", "serverInfo", "protocolVersion", "capabilities"}`) and
//! `expected.json` (`[{"rule", "class", "pointer", "tool"}]`, compared as a sorted multiset).
//! Adding a case is adding a folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mcp_pin::change::Change;
use mcp_pin::diff::{diff_surfaces, surface_from_json};
use mcp_pin::rules::{self, Surface, RULES};
use serde_json::Value;

type Key = (String, String, String, Option<String>);

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

fn read(p: &Path) -> Value {
    let s = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn key(c: &Change) -> Key {
    (c.rule.to_string(), c.class.to_string(), c.pointer.clone(), c.tool.clone())
}

fn expected_keys(v: &Value) -> Vec<Key> {
    let mut out: Vec<Key> = v
        .as_array()
        .expect("expected.json is an array")
        .iter()
        .map(|e| {
            (
                e["rule"].as_str().expect("rule").to_string(),
                e["class"].as_str().expect("class").to_string(),
                e["pointer"].as_str().expect("pointer").to_string(),
                e.get("tool").and_then(Value::as_str).map(str::to_string),
            )
        })
        .collect();
    out.sort();
    out
}

struct Case {
    name: String,
    before: Value,
    after: Value,
    expected: Value,
}

fn all_cases() -> Vec<Case> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("tests/cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| Case {
            name: d.file_name().unwrap().to_string_lossy().into_owned(),
            before: read(&d.join("before.json")),
            after: read(&d.join("after.json")),
            expected: read(&d.join("expected.json")),
        })
        .collect()
}

fn is_hidden(c: char) -> bool {
    matches!(c as u32,
        0x200B..=0x200F | 0x2060..=0x2064 | 0xFEFF | 0x202A..=0x202E | 0x2066..=0x2069 | 0xE0000..=0xE007F)
}

#[test]
fn corpus() {
    let cases = all_cases();
    assert!(cases.len() >= 80, "corpus has {} cases, want >= 80", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let old = surface_from_json(&c.before);
        let new = surface_from_json(&c.after);
        let changes = diff_surfaces(&old, &new);
        let mut got: Vec<Key> = changes.iter().map(key).collect();
        got.sort();
        let want = expected_keys(&c.expected);
        if got != want {
            let detail: Vec<String> = changes
                .iter()
                .map(|x| format!("    {} {} {:?} {}  | {}", x.rule, x.class, x.tool, x.pointer, x.message))
                .collect();
            failures.push(format!("{}:\n  want {:?}\n  got  {:?}\n{}", c.name, want, got, detail.join("\n")));
        }
        for x in &changes {
            assert!(rules::lookup(x.rule).is_some(), "{}: rule {} is not in the catalogue", c.name, x.rule);
            assert!(
                !x.message.chars().any(is_hidden),
                "{}: message shows a hidden character raw: {}",
                c.name,
                x.message
            );
            assert!(!x.message.contains('\n'), "{}: message is not one line: {}", c.name, x.message);
        }
        // deterministic order
        let again = diff_surfaces(&old, &new);
        assert_eq!(changes, again, "{}: not deterministic", c.name);
        let order: Vec<_> = changes.iter().map(|x| (x.tool.clone(), x.pointer.clone(), x.rule)).collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted, "{}: not ordered by (tool, pointer, rule)", c.name);
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn identity_is_no_change() {
    for c in all_cases() {
        for (side, v) in [("before", &c.before), ("after", &c.after)] {
            let s = surface_from_json(v);
            let d = diff_surfaces(&s, &s);
            assert!(d.is_empty(), "{} ({side} vs itself): {:?}", c.name, d.iter().map(key).collect::<Vec<_>>());
        }
    }
}

/// Swapping before and after pairs the same tools as one rename: both conditions of RULES'
/// `tool-renamed` ((a) the schemas equal once descriptions and titles are set aside, (b) the names
/// equal once case and separators are) are symmetric, and so is "one to one", so every rename
/// A -> B is the rename B -> A the other way, and a tool removed one way is added the other (an
/// ambiguous pair stays removed plus added both ways). Checked over the whole corpus, the
/// `tool-renamed-*` cases of both conditions and their ambiguous and near-miss controls included.
#[test]
fn swapping_before_and_after_mirrors_renames() {
    use mcp_pin::diff::diff_surfaces_partial;
    use mcp_pin::rules::RuleId;
    let renames = |v: &[Change]| -> BTreeSet<(String, String)> {
        v.iter()
            .filter(|x| x.rule == RuleId::ToolRenamed)
            .map(|x| {
                let name = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).unwrap_or_default().to_string();
                (name(&x.before), name(&x.after))
            })
            .collect()
    };
    let tools = |v: &[Change], rule: RuleId| -> BTreeSet<String> {
        v.iter().filter(|x| x.rule == rule).filter_map(|x| x.tool.clone()).collect()
    };
    let mut cases_with_renames = BTreeSet::new();
    for c in all_cases() {
        let (old, new) = (surface_from_json(&c.before), surface_from_json(&c.after));
        // Without "every tool is gone", which folds a one-way removal into one line.
        let (there, back) = (diff_surfaces_partial(&old, &new), diff_surfaces_partial(&new, &old));
        let swapped: BTreeSet<(String, String)> = renames(&back).into_iter().map(|(a, b)| (b, a)).collect();
        assert_eq!(renames(&there), swapped, "{}: renames differ when before and after are swapped", c.name);
        assert_eq!(tools(&there, RuleId::ToolRemoved), tools(&back, RuleId::ToolAdded), "{}", c.name);
        assert_eq!(tools(&there, RuleId::ToolAdded), tools(&back, RuleId::ToolRemoved), "{}", c.name);
        if !swapped.is_empty() {
            cases_with_renames.insert(c.name.clone());
        }
    }
    for name in [
        "tool-renamed-schema-suffix",
        "tool-renamed-schema-prefix",
        "tool-renamed-schema-unrelated-name",
        "tool-renamed-spelling",
        "tool-renamed-spelling-case-separators",
    ] {
        assert!(cases_with_renames.contains(name), "{name}: no rename either way");
    }
}

/// Every rule of the catalogue appears in at least two cases (probe rules come from live calls;
/// `schema-too-deep` needs nesting deeper than serde_json parses from a file, see diff_props.rs;
/// `server-launch-changed` compares the config with the lock, not two surfaces: launch.rs runs it
/// through the binary).
#[test]
fn every_rule_has_two_cases() {
    let exempt: BTreeSet<&str> = ["schema-too-deep", "server-launch-changed"].into();
    let mut count: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for c in all_cases() {
        for k in expected_keys(&c.expected) {
            count.entry(k.0).or_default().insert(c.name.clone());
        }
    }
    let mut missing = Vec::new();
    for r in RULES.iter().filter(|r| r.surface != Surface::Probe && !exempt.contains(r.id)) {
        let n = count.get(r.id).map_or(0, BTreeSet::len);
        if n < 2 {
            missing.push(format!("{} ({n})", r.id));
        }
    }
    assert!(missing.is_empty(), "rules with fewer than 2 cases: {}", missing.join(", "));
    for id in count.keys() {
        assert!(rules::lookup(id).is_some(), "expected.json names unknown rule {id}");
    }
}

/// Every id is one `RuleId` (the catalogue macro generates both), and the probe rules are in it.
#[test]
fn every_rule_id_is_a_rule_id() {
    for r in RULES {
        assert_eq!(r.id.parse::<rules::RuleId>(), Ok(r.rule), "{}", r.id);
    }
    for id in [
        "call-failed",
        "call-timeout",
        "structured-content-missing",
        "structured-content-invalid",
        "incomplete-call-accepted",
        "result-shape-changed",
        "result-shape-reduced",
        "result-payload-invalid",
        "text-structure-conflict",
    ] {
        assert!(rules::lookup(id).is_some(), "probe rule {id} missing");
    }
}

#[test]
fn docs_rules_md_is_generated() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
    let want = rules::rules_markdown();
    // Refreshed like the snapshots: `INSTA_UPDATE=always` (insta's "write every snapshot") rewrites
    // it, then `git diff` is the review. A plain file, not a `.snap`: it is the published page.
    if std::env::var("INSTA_UPDATE").is_ok_and(|v| v == "always") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/rules.md is stale; run `INSTA_UPDATE=always cargo test --test integration diff_cases::` and review `git diff`"
    );
    for r in RULES {
        assert!(got.contains(&format!("`{}`", r.id)), "docs/rules.md does not document {}", r.id);
        assert!(rules::explain(r.id).is_some());
    }
}

/// The whole report of every case, as `mcp-pin diff` prints it in JSON and in the human format
/// (plain and `--verbose`): one insta snapshot per case
/// (`tests/integration/snapshots/integration__diff_cases__report@*.snap`). These hold every
/// rendered message, so they replace the cases' former `messages.txt` goldens; `corpus` keeps
/// what those promised besides the text (each message one line, no hidden character raw).
/// A refactor of the engine or the renderers must leave these byte-identical; an intended change
/// is reviewed with `cargo insta review` (or `INSTA_UPDATE=always`, then `git diff`).
#[test]
fn report() {
    use mcp_pin::report::{self, human::Style, FailOn, Format, LazyText, RenderContext, Report, ServerReport};
    insta::glob!("../cases", "*/before.json", |path| {
        let dir = path.parent().expect("case folder");
        let old = surface_from_json(&read(path));
        let new = surface_from_json(&read(&dir.join("after.json")));
        let mut server = ServerReport::ok("case");
        server.changes = diff_surfaces(&old, &new);
        server.tools = Some(mcp_pin::report::ToolCounts { pinned: old.tools.len(), live: new.tools.len() });
        let r = Report { fail_on: FailOn::Silent, servers: vec![server] };
        let ctx = |verbose| RenderContext {
            style: Style { color: false, verbose, width: 0 },
            lockfile_display: "mcp.lock".into(),
            lock_text: LazyText::text(""),
            run_url: None,
        };
        let text = format!(
            "--- json\n{}\n--- human\n{}\n--- human --verbose\n{}",
            report::render(&r, Format::Json, &ctx(false)),
            report::render(&r, Format::Human, &ctx(false)),
            report::render(&r, Format::Human, &ctx(true)),
        );
        insta::assert_snapshot!(text);
    });
}

/// The six real release pairs (`tests/cases/real-*-to-*`, from `scripts/real-case.py`): no cue
/// fires for a server's own tool names (a server naming its own tools is ordinary), and a safety
/// hint escalated (`annotation-escalated`, `readOnlyHint` true → false) ranks above every
/// rewording without a pattern. Before issue 45 all five cued rows of these releases were a
/// server naming its own tools, ranked above the escalations: this fails with the served-names
/// check in `cues::tool_names` taken out.
#[test]
fn real_releases_cry_no_wolf() {
    use mcp_pin::rules::cues::CueKind;
    let real: Vec<Case> =
        all_cases().into_iter().filter(|c| c.name.starts_with("real-") && c.name.contains("-to-")).collect();
    assert_eq!(real.len(), 6, "{:?}", real.iter().map(|c| &c.name).collect::<Vec<_>>());
    let mut escalations = 0;
    for case in &real {
        let (old, new) = (surface_from_json(&case.before), surface_from_json(&case.after));
        let changes = diff_surfaces(&old, &new);
        let own: BTreeSet<String> = old.tools.keys().chain(new.tools.keys()).map(|n| n.to_ascii_lowercase()).collect();
        for c in &changes {
            for cue in c.cues.iter().flat_map(|q| &q.found) {
                assert!(
                    !(cue.kind == CueKind::OtherTool && own.contains(&cue.at.to_ascii_lowercase())),
                    "{}: {:?} names its own tool {:?}",
                    case.name,
                    c.tool,
                    cue.at
                );
            }
        }
        let plain = changes.iter().filter(|c| c.rule.is_prose() && !c.matches_pattern());
        for e in changes.iter().filter(|c| c.rule == rules::RuleId::AnnotationEscalated) {
            escalations += 1;
            for p in plain.clone() {
                assert!(
                    e.rank() > p.rank(),
                    "{}: {:?} {} ranks below {:?} {}",
                    case.name,
                    e.tool,
                    e.rule,
                    p.tool,
                    p.rule
                );
            }
        }
    }
    assert!(escalations >= 5, "the real releases escalate hints on five tools or more: {escalations}");
}
