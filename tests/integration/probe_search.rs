//! Arguments that reach the tool, end to end (RULES.md, "Probes"): `lock` finds arguments the
//! fixture server's tools accept (from the schema, the description, the project folder, the
//! values a reader lists, the smallest valid value), pins them in the lock, and `check` replays
//! them; judging of the incomplete call and of tools the lock holds no probe for.

use crate::common;

use common::*;
use serde_json::{json, Value};

fn ro(name: &str, props: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": format!("Tool {name}."),
        "inputSchema": {"type": "object", "properties": props, "required": required},
        "annotations": {"readOnlyHint": true}
    })
}

/// Tools that succeed only with the right arguments, each found by another source.
fn picky_surface() -> Value {
    json!({
        "tools": [
            ro("get_time", json!({"timezone": {"type": "string", "description": "IANA timezone (e.g. 'Europe/Paris')"}}), &["timezone"]),
            ro("read_text_file", json!({"path": {"type": "string"}}), &["path"]),
            ro("list_tables", json!({}), &[]),
            ro("describe_table", json!({"table_name": {"type": "string", "description": "Name of the table"}}), &["table_name"]),
            ro("set_mode", json!({"mode": {"type": "string", "enum": ["slow", "fast"]}}), &["mode"]),
            ro("echo", json!({"text": {"type": "string"}}), &["text"])
        ],
        "calls": {
            "get_time": {"accepts": {"timezone": ["Europe/Paris"]}},
            "read_text_file": {"exists": ["path"]},
            "list_tables": {"result": {"content": [{"type": "text", "text": "[{'name': 'items'}, {'name': 'users'}]"}]}},
            "describe_table": {"accepts": {"table_name": ["users"]}},
            "set_mode": {"accepts": {"mode": ["fast"]}}
        }
    })
}

#[test]
fn lock_finds_arguments_the_tool_accepts_and_check_replays_them() {
    let p = Project::new();
    std::fs::create_dir(p.path("docs")).unwrap();
    p.write("docs/guide.md", "# guide\n");
    p.write_json("surface.json", &picky_surface());
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("probes: 6 tools: 6 probed (6 in the session), 6 passed, 0 failed"), "{err}");
    // lock says per tool how its arguments were found, never a value.
    assert!(
        err.contains("probe of `get_time` passed: ok (1 text block); arguments: timezone from description"),
        "{err}"
    );
    assert!(
        err.contains("probe of `describe_table` passed: ok (1 text block); arguments: table_name from listing"),
        "{err}"
    );
    assert!(!err.contains("Europe/Paris"), "{err}");
    // The arguments of the call that succeeded are pinned, readable in the lock's diff.
    let pins = pins(&p, "fx");
    assert_eq!(
        pins["get_time"]["call"],
        json!({"args": {"timezone": "Europe/Paris"}, "from": {"timezone": "description"}})
    );
    assert_eq!(pins["describe_table"]["call"]["args"], json!({"table_name": "users"}));
    assert_eq!(pins["describe_table"]["call"]["tried"], 2, "`items` was listed first: {pins:#}");
    assert_eq!(pins["set_mode"]["call"]["args"], json!({"mode": "fast"}));
    assert_eq!(pins["set_mode"]["call"]["from"], json!({"mode": "schema"}));
    // Nothing known about `text` of a reader: what the server listed comes before the smallest.
    assert_eq!(pins["echo"]["call"], json!({"args": {"text": "items"}, "from": {"text": "listing"}}));
    // A path from the project folder is pinned relative to it: no machine's path in the lock.
    let read = &pins["read_text_file"]["call"];
    // The first file the context names: on the command line (the surface file) or in the folder.
    assert!(["command line", "project folder"].contains(&read["from"]["path"].as_str().unwrap()), "{read:#}");
    assert_eq!(read["relative"], json!(["/path"]));
    let path = read["args"]["path"].as_str().unwrap();
    assert!(p.path(path).is_file() && !path.starts_with('/'), "{path}");
    let dir = p.dir.path().display().to_string();
    assert!(!pins.to_string().contains(&dir), "{pins:#}");
    // check replays the pinned arguments: every call passes, twice, with the same outcome.
    for _ in 0..2 {
        let (code, report) = p.check_json(&["--fail-on", "loud"]);
        assert_eq!(code, 0, "{report:#}");
        assert_eq!(
            report["servers"][0]["probeSummary"],
            "6 tools: 6 probed (6 in the session), 6 passed, 0 failed; 0 skipped"
        );
        let msg = probe(&report, "read_text_file", "call")["message"].as_str().unwrap().to_string();
        assert!(msg.contains("; arguments: path from "), "{msg}");
    }
    // `check -v` says it in the human report.
    let out = p.run(&["check", "-v"]);
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains("get_time in the session: ok (1 text block); arguments: timezone from description"),
        "{human}"
    );
}

#[test]
fn check_replays_what_was_pinned_even_when_the_project_changed() {
    let p = Project::new();
    // The server works in `work/` (the project folder); its surface file lies outside it.
    std::fs::create_dir(p.path("work")).unwrap();
    p.write("work/b.txt", "b\n");
    let work = std::fs::canonicalize(p.path("work")).unwrap();
    let abs = |f: &str| work.join(f).display().to_string();
    let surface = json!({
        "tools": [ro("read_text_file", json!({"path": {"type": "string"}}), &["path"])],
        "calls": {"read_text_file": {"exists": ["path"], "accepts": {"path": [abs("a.txt"), abs("b.txt")]}}}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let toml = p.read("mcp-pin.toml");
    p.write("mcp-pin.toml", &format!("{toml}cwd = \"work\"\n"));
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let call = &pins(&p, "fx")["read_text_file"]["call"];
    assert_eq!(call["args"]["path"], "b.txt", "{call:#}");
    // A file that would now be found first changes nothing: the pinned one is replayed.
    p.write("work/a.txt", "a\n");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    // The pinned file gone: the call that succeeded at lock fails now, and that gates (a new
    // search would have found a.txt and passed).
    std::fs::remove_file(p.path("work/b.txt")).unwrap();
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(probe(&report, "read_text_file", "call")["rule"], "call-failed");
}

#[test]
fn a_call_that_fails_with_every_candidate_is_skipped_with_its_fixture_line() {
    let p = Project::new();
    let surface = json!({
        "tools": [ro("lookup", json!({"key": {"type": "string", "description": "e.g. 'alpha' or 'beta'"}}), &["key"])],
        "calls": {"lookup": {"accepts": {"key": ["gamma"]}}}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    // alpha, beta, "", "a", "1": each tried, none succeeded.
    assert!(err.contains("no arguments mcp-pin tried made the call succeed (5 tried)"), "{err}");
    assert!(err.contains("[servers.fx.tools.lookup] args = { key = ... }"), "{err}");
    // The first (best) candidate is pinned with the failure.
    let pin = &pins(&p, "fx")["lookup"];
    assert_eq!(pin["call"]["args"], json!({"key": "alpha"}));
    assert_eq!((pin["isError"].clone(), pin["call"]["tried"].clone()), (json!(true), json!(5)));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let call = probe(&report, "lookup", "call");
    assert_eq!(call["outcome"], "skipped", "{call:#}");
    assert!(call["message"].as_str().unwrap().contains("[servers.fx.tools.lookup] args = { key = ... }"), "{call:#}");
    // The incomplete call's rejection (`missing required argument: key`) names the argument.
    assert_eq!(probe(&report, "lookup", "incomplete")["outcome"], "pass");
    assert_eq!(
        report["servers"][0]["probeSummary"],
        "1 tool: 0 probed, 0 passed, 0 failed; 1 skipped (1 failed at lock with every argument set tried)"
    );
}

#[test]
fn the_incomplete_call_counts_only_when_the_rejection_is_the_missing_arguments() {
    let p = Project::new();
    let broken = json!({"content": [{"type": "text", "text": "upstream exploded"}], "isError": true});
    let surface = json!({
        "tools": [
            // Fails every call the same way: its failing incomplete call proves nothing.
            ro("broken", json!({"q": {"type": "string"}}), &["q"]),
            // Succeeds, and rejects the incomplete call without naming the argument.
            ro("terse", json!({"b": {"type": "string"}, "a": {"type": "string"}}), &["b", "a"]),
            // Accepts the incomplete call.
            ro("lenient", json!({"q": {"type": "string"}}), &["q"]),
            // Answers the incomplete call with invalid params.
            ro("strict", json!({"q": {"type": "string"}}), &["q"])
        ],
        "calls": {
            "broken": {"result": broken},
            "terse": {"results": [{"content": [{"type": "text", "text": "ok"}]}]},
            "lenient": {"acceptIncomplete": true}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    let broken = probe(&report, "broken", "incomplete");
    assert_eq!(broken["outcome"], "skipped", "{broken:#}");
    assert!(broken["message"].as_str().unwrap().contains("proves nothing"), "{broken:#}");
    // RULES: the first in `required` order (`b`), not by name; rejected while the valid call succeeded.
    let terse = probe(&report, "terse", "incomplete");
    assert_eq!(terse["outcome"], "pass", "{terse:#}");
    assert!(terse["message"].as_str().unwrap().contains("without `b`"), "{terse:#}");
    assert_eq!(probe(&report, "lenient", "incomplete")["rule"], "incomplete-call-accepted");
    let strict = probe(&report, "strict", "incomplete");
    assert!(strict["message"].as_str().unwrap().contains("naming it"), "{strict:#}");
}

#[test]
fn a_tool_the_lock_holds_no_probe_for_is_judged_from_the_next_lock_on() {
    let p = Project::new();
    let mut surface = json!({"tools": [ro("old", json!({}), &[])]});
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    // A tool added since, broken from the start: reported added (loud), its call not judged.
    surface["tools"].as_array_mut().unwrap().push(ro("new", json!({}), &[]));
    surface["calls"] = json!({"new": {"result": {"content": [], "isError": true}}});
    p.write_json("surface.json", &surface);
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let new = probe(&report, "new", "call");
    assert_eq!(new["outcome"], "skipped", "{new:#}");
    assert!(new["message"].as_str().unwrap().contains("`mcp-pin lock` pins its probe"), "{new:#}");
    // A lock written without probes (or by an mcp-pin before them): nothing judged, nothing fails.
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert!(report["servers"][0]["probeSummary"].as_str().unwrap().contains("(1 nothing pinned yet)"), "{report:#}");
    // From the next lock on, it is judged.
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    surface["calls"] = json!({"new": {"results": [{"content": []}, {"content": [], "isError": true}]}});
    p.write_json("surface.json", &surface);
    let _ = std::fs::remove_file(p.path("surface.json.calls-new"));
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(probe(&report, "new", "call")["rule"], "call-failed");
}

#[test]
fn a_lock_from_before_pinned_arguments_checks_as_it_was_probed() {
    let p = Project::new();
    p.write_json("surface.json", &picky_surface());
    p.stdio_config(&[("fx", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    // The previous mcp-pin probed with the smallest valid arguments and pinned no `call`: those
    // tools failed then, and fail again when replayed the old way. Not drift.
    let mut lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    for (tool, pin) in lock["servers"]["fx"]["probes"].as_object_mut().unwrap() {
        let pin = pin.as_object_mut().unwrap();
        pin.remove("call");
        if ["get_time", "read_text_file", "describe_table", "set_mode"].contains(&tool.as_str()) {
            pin.insert("isError".into(), json!(true));
        }
    }
    p.write_json("mcp.lock", &lock);
    let (code, report) = p.check_json(&["--fail-on", "loud"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["counts"]["probeFailures"], 0, "{report:#}");
}

#[test]
fn a_registered_secret_is_never_pinned() {
    let p = Project::new();
    let surface = json!({
        "tools": [
            ro("list_keys", json!({}), &[]),
            ro("get_key", json!({"key_name": {"type": "string"}}), &["key_name"])
        ],
        "calls": {
            "list_keys": {"result": {"content": [{"type": "text", "text": "key-with-Sup3rS3cret-inside\nplain-key"}]}},
            "get_key": {"accepts": {"key_name": ["key-with-Sup3rS3cret-inside", "plain-key"]}}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let toml = p.read("mcp-pin.toml");
    p.write("mcp-pin.toml", &format!("{toml}env = {{ API_TOKEN = \"Sup3rS3cret\" }}\n"));
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let lock = p.read("mcp.lock");
    assert!(!lock.contains("Sup3rS3cret"), "{lock}");
    assert_eq!(pins(&p, "fx")["get_key"]["call"]["args"], json!({"key_name": "plain-key"}));
}

#[test]
fn roots_declared_to_a_stdio_server_are_its_project_folder() {
    let p = Project::new();
    std::fs::create_dir(p.path("data")).unwrap();
    // Roots are asked for during a request on the legacy protocol (2026-07-28 answers them in
    // `inputRequests`: `client` unit tests).
    let surface = json!({"protocolVersions": ["2025-11-25"], "tools": [ro("roots", json!({}), &[])],
                         "calls": {"roots": {"rootsTo": "roots.json"}}});
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    // A folder on the command line is a root too.
    let toml =
        p.read("mcp-pin.toml").replace("args = [\"--surface\", ", "args = [\"--note\", \"data\", \"--surface\", ");
    p.write("mcp-pin.toml", &toml);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    // Declared as the client mcp-pin presents itself as declares them (Claude Code: roots too).
    assert_eq!(lock["servers"]["fx"]["clientCapabilities"], json!(["elicitation", "roots"]));
    let roots: Value = serde_json::from_str(&p.read("roots.json")).unwrap();
    let dir = std::fs::canonicalize(p.dir.path()).unwrap();
    let uris: Vec<&str> = roots["roots"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, [format!("file://{}", dir.display()), format!("file://{}/data", dir.display())], "{roots:#}");
}

/// An answer that says it failed has failed (RULES.md): a server that answers a refusal as
/// ordinary text (`isError` false) does not end the search, the call pinned is the one whose
/// answer reads as an answer, and a tool no candidate gets past is pinned "answered with a
/// failure", counted apart. Every probe carries `answered`. Without `answer::failure` in the
/// search's rank (`src/probe/search.rs`), `pick` pins `alpha` (checked by hand) and the summary
/// says 2 passed.
#[test]
fn an_answer_that_says_it_failed_is_no_success() {
    let p = Project::new();
    let surface = json!({
        "tools": [
            ro("pick", json!({"name": {"type": "string", "description": "Which one (e.g. 'alpha' or 'beta')"}}), &["name"]),
            ro("never", json!({"name": {"type": "string", "description": "Which one (e.g. 'alpha')"}}), &["name"])
        ],
        "calls": {
            "pick": {"accepts": {"name": ["beta"]}, "quietRefusal": true},
            "never": {"accepts": {"name": ["omega"]}, "quietRefusal": true}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = pins(&p, "fx");
    assert_eq!(pins["pick"]["call"]["args"], json!({"name": "beta"}), "{pins:#}");
    assert_eq!(pins["pick"]["call"]["tried"], 2, "{pins:#}");
    // Nothing better came for `never`: its first candidate is pinned, and it passes apart.
    assert_eq!(pins["never"]["call"]["args"], json!({"name": "alpha"}), "{pins:#}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        report["servers"][0]["probeSummary"],
        "2 tools: 2 probed (2 in the session), 1 passed, 0 failed, 1 answered with a failure; 0 skipped"
    );
    let never = probe(&report, "never", "call");
    assert_eq!(never["answeredFailure"], true, "{never:#}");
    assert_eq!(never["answered"], "not found: alpha");
    assert!(
        never["message"].as_str().unwrap().contains("it answered with a failure (it starts \"not found\")"),
        "{never:#}"
    );
    let pick = probe(&report, "pick", "call");
    assert!(pick.get("answeredFailure").is_none(), "{pick:#}");
    assert!(pick["answered"].as_str().is_some(), "{pick:#}");
}

/// Never aimed at the machine (RULES.md): a tool that takes a process id is never sent 0 (its
/// caller's own process group), 1 or mcp-pin's own; it gets a process id no process has, and
/// a pinned 0 from a hand-edited lock is refused at `check`. Without `guard::aimed_at_machine`
/// in the candidates, `kill_process` is pinned with `pid: 0` (checked by hand).
#[test]
fn a_process_id_candidate_is_never_the_callers_group_or_init() {
    let p = Project::new();
    let kill = json!({
        "name": "kill_process",
        "description": "Send a signal to a process.",
        "inputSchema": {"type": "object", "properties": {"pid": {"type": "integer", "minimum": 0}}, "required": ["pid"]},
        "annotations": {"readOnlyHint": true}
    });
    p.write_json("surface.json", &json!({"tools": [kill]}));
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = pins(&p, "fx");
    assert_eq!(pins["kill_process"]["call"]["args"], json!({"pid": 4_194_305}), "{pins:#}");
    // A lock from a pull request that pins `pid: 0` is not replayed.
    let lock = p.read("mcp.lock").replace("4194305", "0");
    p.write("mcp.lock", &lock);
    let (_, report) = p.check_json(&[]);
    let call = probe(&report, "kill_process", "call");
    assert_eq!(call["outcome"], "skipped", "{call:#}");
    assert!(call["message"].as_str().unwrap().contains("would aim the call at the machine"), "{call:#}");
}

/// The server's own words are a source, and arguments are searched together (RULES.md): a
/// tool that needs a file, a sheet and a range gets them as one consistent set, each value from
/// the rejection that names it, the others kept. Without `responders::sets_from_rejection` in the
/// search (`src/probe/search.rs`), no candidate reaches the tool and it is pinned as failed
/// (checked by hand).
#[test]
fn values_a_rejection_names_are_tried_next_keeping_the_other_arguments() {
    let p = Project::new();
    p.write("budget.xlsx", "x");
    let tool = json!({
        "name": "read_sheet",
        "description": "Read cells of a sheet of a workbook.",
        "inputSchema": {"type": "object", "properties": {
            "file": {"type": "string", "description": "Path of the .xlsx file"},
            "sheet": {"type": "string"},
            "range": {"type": "string"}
        }, "required": ["file", "sheet", "range"]},
        "annotations": {"readOnlyHint": true}
    });
    let surface = json!({
        "tools": [tool],
        "calls": {"read_sheet": {
            "exists": ["file"],
            "accepts": {"sheet": ["Notes"], "range": ["A1:C10"]},
            "refusalTexts": {
                "sheet": "Sheet '{value}' not found. Available sheets: 'Items', 'Notes'",
                "range": "Invalid range '{value}'. Use a range such as 'A1:C10'"
            }
        }}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let call = &pins(&p, "fx")["read_sheet"]["call"];
    assert_eq!(call["args"]["sheet"], "Notes", "{call:#}");
    assert_eq!(call["args"]["range"], "A1:C10", "{call:#}");
    assert_eq!(call["from"]["sheet"], "rejection: offered-values", "{call:#}");
    assert_eq!(call["from"]["range"], "rejection: offered-values", "{call:#}");
    // The file the argument asks for (`.xlsx`), before the surface file on the command line.
    assert_eq!(call["args"]["file"], "budget.xlsx", "{call:#}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(probe(&report, "read_sheet", "call")["outcome"], "pass", "{report:#}");
}

/// Two classes of the server's words, against a fixture that exhibits both: a name it says is
/// taken gets one of the tool's own, and a value offered for a property inside an object argument
/// (`sort_by: [{column}]`) goes there, never into the other arguments. Without the `TAKEN` words,
/// or without the leaves inside object arguments (`words::inner_leaves`), the call is pinned as
/// failed (checked by hand).
#[test]
fn a_taken_name_and_a_property_inside_an_object_argument_are_found_from_the_words() {
    let p = Project::new();
    p.write("sales.xlsx", "x");
    let tool = json!({
        "name": "add_sorted_copy",
        "description": "Copy a sheet of a workbook, sorted, under a new name.",
        "inputSchema": {"type": "object", "properties": {
            "file": {"type": "string", "description": "Path of the .xlsx file"},
            "new_sheet": {"type": "string", "description": "Name of the new sheet, e.g. 'Sales'", "maxLength": 31},
            "sort_by": {"type": "array", "minItems": 1, "items": {"type": "object",
                "properties": {"column": {"type": "string"}}, "required": ["column"]}}
        }, "required": ["file", "new_sheet", "sort_by"]},
        "annotations": {"readOnlyHint": true}
    });
    let surface = json!({
        "tools": [tool],
        "calls": {"add_sorted_copy": {
            "exists": ["file"],
            "taken": {"new_sheet": ["Sales"]},
            "accepts": {"/sort_by/0/column": ["region"]},
            "refusalTexts": {
                "new_sheet": "A sheet named '{value}' already exists.",
                "/sort_by/0/column": "Column '{value}' is not in A1:C10. Use a header ('region', 'sales') or a column letter."
            }
        }}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let call = &pins(&p, "fx")["add_sorted_copy"]["call"];
    assert_eq!(call["args"]["new_sheet"], "mcp_pin_probe_add_sorted_copy", "{call:#}");
    assert_eq!(call["args"]["sort_by"], json!([{"column": "region"}]), "{call:#}");
    assert_eq!(call["args"]["file"], "sales.xlsx", "{call:#}");
    assert_eq!(call["from"]["sort_by"], "rejection: offered-values", "{call:#}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(probe(&report, "add_sorted_copy", "call")["outcome"], "pass", "{report:#}");
}

/// What another tool of the server accepted for a property of the same name is a source: a
/// tool whose own words point at text files (`insert_near_text`) gets the document its sibling
/// opened. Without `Known::worked_for` fed after each wave, or without the `Late` wave (its own
/// wave, `Begin`, comes before its sibling's), the project's seven text files fill its
/// candidates and it is pinned as failed (both checked by hand).
#[test]
fn a_value_another_tool_accepted_for_the_same_property_is_tried() {
    let p = Project::new();
    for f in ["a.txt", "b.md", "c.json", "d.csv", "e.toml", "f.yaml", "g.yml", "report.docx"] {
        p.write(f, "x");
    }
    // Paths are sent resolved against the server's working folder.
    let doc = p.path("report.docx").display().to_string();
    let reader = |name: &str, desc: &str| {
        json!({"name": name, "description": desc,
            "inputSchema": {"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]},
            "annotations": {"readOnlyHint": true}})
    };
    let surface = json!({
        "tools": [
            reader("get_document_info", "Information about a Word document (.docx)."),
            reader("insert_near_text", "Insert a line near the target text of a paragraph."),
        ],
        "calls": {
            "get_document_info": {"accepts": {"filename": [doc]}},
            "insert_near_text": {"accepts": {"filename": [doc]}}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = pins(&p, "fx");
    assert_eq!(pins["get_document_info"]["call"]["from"]["filename"], "project folder", "{pins:#}");
    let call = &pins["insert_near_text"]["call"];
    assert_eq!(call["args"]["filename"], "report.docx", "{call:#}");
    assert_eq!(call["from"]["filename"], "another tool's call", "{call:#}");
    // Called after every other wave of its place (its own wave came before its sibling's), and
    // the lock says so: `check` calls it at the same point.
    assert_eq!(call["late"], true, "{call:#}");
    assert!(pins["get_document_info"]["call"].get("late").is_none(), "{pins:#}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(probe(&report, "insert_near_text", "call")["outcome"], "pass", "{report:#}");
}

/// A format the words name with no literal (RULES.md, "A session has an order"): a cron line, a
/// hex color and a language code, each refused unless well formed (the fixture knows one
/// well-formed value of each, as a server's parser would take it). `lock` finds each from the
/// table of well-known formats (`from: well-known format`) and `check` replays it. Without
/// `formats::examples` in `property_candidates`, the three fail at lock with every candidate.
#[test]
fn a_format_the_words_name_gets_a_well_formed_example() {
    let p = Project::new();
    let surface = json!({
        "tools": [
            ro("schedule_job", json!({"schedule": {"type": "string", "description": "Cron expression for when the job runs"}}), &["schedule"]),
            ro("set_theme", json!({"accent": {"type": "string", "description": "Accent as a hex color code"}}), &["accent"]),
            ro("translate", json!({"target_lang": {"type": "string"}}), &["target_lang"])
        ],
        "calls": {
            "schedule_job": {"accepts": {"schedule": ["0 0 * * *"]}, "refusalTexts": {"schedule": "invalid cron expression: '{value}'"}},
            "set_theme": {"accepts": {"accent": ["#1F4E78"]}, "refusalTexts": {"accent": "'{value}' is not a color"}},
            "translate": {"accepts": {"target_lang": ["en"]}, "refusalTexts": {"target_lang": "unsupported language '{value}'"}}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = pins(&p, "fx");
    for (tool, prop) in [("schedule_job", "schedule"), ("set_theme", "accent"), ("translate", "target_lang")] {
        assert_eq!(pins[tool]["call"]["from"][prop], "well-known format", "{tool}: {pins:#}");
    }
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    for tool in ["schedule_job", "set_theme", "translate"] {
        assert_eq!(probe(&report, tool, "call")["outcome"], "pass", "{tool}: {report:#}");
    }
}
