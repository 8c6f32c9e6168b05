//! A session has an order, end to end (RULES.md, "Probes"): a tool that sets up the session is
//! called first, alone, in each place whose tools need it; values a result returns are offered to
//! the tools called after it, makers before users, removers last; a server that dies mid-wave is
//! started again and a lost call is made again; the sandbox's scratch copy is never under the
//! temp folder; a kill tool never takes its own server down. Each against the fixture server's
//! per-process state (`sets`/`needs`, `makes`/`uses`/`removes`, `exitProcess`, `signal`, fault
//! `refuseCwdUnder`: tests/fixtures/surfaces/README.md).

use crate::common;

use common::*;
use serde_json::{json, Value};

/// A tool: `annotations` null for none, `props` its properties, `required` its required names.
fn tool(name: &str, description: &str, read_only: bool, props: Value, required: &[&str]) -> Value {
    let mut t = json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": props, "required": required}
    });
    if read_only {
        t["annotations"] = json!({"readOnlyHint": true});
    }
    t
}

fn ro(name: &str, props: Value, required: &[&str]) -> Value {
    tool(name, &format!("Tool {name}."), true, props, required)
}

fn rw(name: &str, props: Value, required: &[&str]) -> Value {
    tool(name, &format!("Tool {name}."), false, props, required)
}

fn string() -> Value {
    json!({"type": "string"})
}

fn probes_of<'a>(report: &'a Value, tool: &str) -> Vec<&'a Value> {
    report["servers"][0]["probes"].as_array().unwrap().iter().filter(|p| p["tool"] == tool).collect()
}

/// Every call probe of `tools` passed, none answered with a failure.
fn calls_pass(report: &Value, tools: &[&str]) {
    for t in tools {
        let call = probe(report, t, "call");
        assert_eq!(call["outcome"], "pass", "{t}: {call:#}\n{report:#}");
        assert!(call.get("answeredFailure").is_none(), "{t}: {call:#}");
    }
}

/// `lock` in the project, exit 0, with `env`.
fn lock_ok(p: &Project, env: &[(&str, &str)]) -> String {
    let out = p.run_env(&["lock"], env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    text(&out)
}

/// `check --format json` with `env`, parsed, with the exit code.
fn check_json_env(p: &Project, env: &[(&str, &str)]) -> (i32, Value) {
    let out = p.run_env(&["check", "--format", "json"], env);
    let code = out.status.code().unwrap_or(-1);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("no JSON ({e}): {}", text(&out)));
    (code, report)
}

/// Whether this machine can have the sandbox; if not, say so where a person reads it.
fn sandbox_here() -> bool {
    #[cfg(target_os = "linux")]
    let why = match mcp_pin::sandbox::linux::sandbox_available() {
        Ok(()) => return true,
        Err(why) => why,
    };
    #[cfg(not(target_os = "linux"))]
    let why = "the sandbox is Linux only".to_string();
    skip(&format!("no sandbox on this machine: {why}"));
    false
}

/// A session has an order (RULES.md): "A tool that sets up the session (sets its working folder,
/// opens a document, starts a session) is called first, alone, with the project's values, in each
/// place (session or sandbox) whose other tools need it." `set_working_dir` is not read-only, so
/// it runs in the sandbox, and so do all the tools that need it: every call succeeds there.
/// Without the move in `probe::arrange` (a setup tool that must run in the sandbox takes the
/// other tools there), `wd_status` and `wd_log` fail in the session, unset (checked by hand).
#[test]
fn a_setup_tool_is_called_first_alone_and_the_tools_that_need_it_succeed() {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    let needs = json!({"needs": ["working_directory"]});
    let surface = json!({
        "tools": [
            tool("set_working_dir", "Set the working directory for later git commands", false,
                 json!({"path": string()}), &["path"]),
            ro("wd_status", json!({}), &[]),
            ro("wd_log", json!({"count": {"type": "integer", "minimum": 1}}), &["count"]),
            rw("wd_write", json!({"text": string()}), &["text"])
        ],
        "calls": {
            "set_working_dir": {"sets": "working_directory"},
            "wd_status": needs, "wd_log": needs, "wd_write": needs
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    calls_pass(&report, &["set_working_dir", "wd_status", "wd_log", "wd_write"]);
    assert_eq!(
        report["servers"][0]["probeSummary"], "4 tools: 4 probed (4 in the sandbox), 4 passed, 0 failed; 0 skipped",
        "{report:#}"
    );
    for t in ["wd_log", "wd_write"] {
        let incomplete = probe(&report, t, "incomplete");
        assert_eq!(incomplete["outcome"], "pass", "{incomplete:#}");
    }
}

/// A session has an order (RULES.md): "... called first, alone, with the project's values, in
/// each place (session or sandbox) whose other tools need it." A read-only setup tool runs in the
/// session, before the read-only tool that needs it; the sandbox, where the writer that needs it
/// runs, gets a preparatory call of its own first (not a probe: `open_project` has exactly its
/// two probes, the valid and the incomplete call).
/// Without `probe::prepare` (the setup calls made first in a later place), `project_save` fails
/// in the sandbox with "No project set" (checked by hand).
#[test]
fn a_read_only_setup_tool_is_repeated_in_the_sandbox_before_its_tools() {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    let surface = json!({
        "tools": [
            ro("open_project", json!({"path": string()}), &["path"]),
            ro("project_info", json!({}), &[]),
            rw("project_save", json!({"name": string()}), &["name"])
        ],
        "calls": {
            "open_project": {"sets": "project"},
            "project_info": {"needs": ["project"]},
            "project_save": {"needs": ["project"]}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    calls_pass(&report, &["open_project", "project_info", "project_save"]);
    assert_eq!(probe(&report, "open_project", "call")["place"], "session", "{report:#}");
    assert_eq!(probe(&report, "project_info", "call")["place"], "session", "{report:#}");
    assert_eq!(probe(&report, "project_save", "call")["place"], "sandbox", "{report:#}");
    assert_eq!(probes_of(&report, "open_project").len(), 2, "{report:#}");
}

/// Notes made, used, read and deleted: `answer` is the maker's answer template.
fn notes_surface(answer: &str) -> Value {
    json!({
        "tools": [
            rw("create_note", json!({"title": string()}), &["title"]),
            rw("update_note", json!({"note_id": string(), "text": string()}), &["note_id", "text"]),
            rw("delete_note", json!({"note_id": string()}), &["note_id"]),
            ro("get_note", json!({"note_id": string()}), &["note_id"])
        ],
        "calls": {
            "create_note": {"makes": {"kind": "note", "answer": answer}},
            "update_note": {"uses": {"note_id": "note"}},
            "delete_note": {"removes": {"note_id": "note"}},
            "get_note": {"uses": {"note_id": "note"}}
        }
    })
}

/// Makers before users, removers last: the id `create_note` answers is offered to the tools
/// after it (pinned `from: "result"`), `get_note` is called in the sandbox after the maker (the
/// session has no note), `delete_note` after `update_note` and `get_note` (had it run first, they
/// would fail). The lock's ids and check's differ (each process makes its own), so check passing
/// proves it resolves them again.
fn makers_before_users_removers_last(answer: &str) {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    p.write_json("surface.json", &notes_surface(answer));
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let pins = pins(&p, "fx");
    assert_eq!(pins["update_note"]["call"]["from"]["note_id"], "result", "{pins:#}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    calls_pass(&report, &["create_note", "update_note", "delete_note", "get_note"]);
    assert_eq!(probe(&report, "get_note", "call")["place"], "sandbox", "{report:#}");
}

/// A session has an order (RULES.md): "Values a result returns (ids, names, handles, paths) are
/// offered to the tools called after it: makers before users, removers and closers last."
/// Without `Known::made_by` feeding what a maker returned (`probe::feed`), `update_note` is pinned
/// with the smallest valid `note_id`; without `candidates::refresh_made` at `check`, the pinned id of
/// the lock's process is replayed and `update_note` fails (both checked by hand).
#[test]
fn makers_come_before_users_and_removers_last_with_the_id_a_result_returns() {
    makers_before_users_removers_last("Created note with ID: {id}");
}

/// As above, the maker answering JSON text (`{"id": "note-…"}`).
/// The same with the id in a JSON answer (checked by hand as above).
#[test]
fn makers_come_before_users_and_removers_last_with_an_id_in_a_json_answer() {
    makers_before_users_removers_last(r#"{"id": "{id}"}"#);
}

/// Two removers of one made handle (`force_terminate` and `kill_process` of the process
/// `start_process` made): the first ends it, so the maker is called again before the second,
/// which gets a handle of its own, at lock and at check. Without `probe::remove_each` the second
/// finds its note gone ("note '…' not found") and fails at lock with every candidate.
#[test]
fn each_remover_of_a_made_handle_gets_one_of_its_own() {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    let surface = json!({
        "tools": [
            rw("create_note", json!({"title": string()}), &["title"]),
            rw("delete_note", json!({"note_id": string()}), &["note_id"]),
            rw("remove_note", json!({"note_id": string()}), &["note_id"]),
            ro("get_note", json!({"note_id": string()}), &["note_id"])
        ],
        "calls": {
            "create_note": {"makes": {"kind": "note", "answer": "Created note with ID: {id}"}},
            "delete_note": {"removes": {"note_id": "note"}},
            "remove_note": {"removes": {"note_id": "note"}},
            "get_note": {"uses": {"note_id": "note"}}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let pins = pins(&p, "fx");
    for t in ["delete_note", "remove_note"] {
        assert_eq!(pins[t]["call"]["from"]["note_id"], "result", "{t}: {pins:#}");
    }
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    calls_pass(&report, &["create_note", "delete_note", "remove_note", "get_note"]);
}

/// Never aimed at the machine (RULES.md): "A server that dies during a wave is started again for
/// the tools still waiting, and a tool whose call was lost that way is called again, never judged
/// on the loss." `crash_once` takes its server down once per marker; `slow_a`/`slow_b` are in
/// flight then and lose their call.
/// Without the restart in `probe::probe_wave`, nothing is pinned for the three tools and `check`
/// skips them (checked by hand).
#[test]
fn a_server_that_dies_mid_wave_is_started_again_and_lost_calls_are_made_again() {
    let p = Project::new();
    let marker = p.path("crashed.marker");
    let surface = json!({
        "tools": [ro("crash_once", json!({}), &[]), ro("slow_a", json!({}), &[]), ro("slow_b", json!({}), &[])],
        "calls": {
            "crash_once": {"exitProcess": {"afterMs": 100, "unlessFile": marker}},
            "slow_a": {"delayMs": 800},
            "slow_b": {"delayMs": 800}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    assert!(marker.exists(), "crash_once did not take its server down at lock");
    std::fs::remove_file(&marker).unwrap();
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    calls_pass(&report, &["crash_once", "slow_a", "slow_b"]);
    assert!(marker.exists(), "crash_once did not take its server down at check");
}

/// Never aimed at the machine (RULES.md): "... a tool whose call was lost that way is called
/// again, never judged on the loss." A tool that takes its server down on every call fails, and
/// alone: the tool beside it is judged on its own answer.
/// Without the restart in `probe::probe_wave`, `slow_a` loses its call with `crash_always`'s
/// server and is never judged (checked by hand).
#[test]
fn a_tool_that_kills_its_server_every_time_fails_alone() {
    let p = Project::new();
    let surface = json!({
        "tools": [ro("crash_always", json!({}), &[]), ro("slow_a", json!({}), &[])],
        "calls": {"crash_always": {"exitProcess": {"afterMs": 100}}, "slow_a": {"delayMs": 800}}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let out = lock_ok(&p, &[]);
    assert!(out.contains("crash_always"), "lock says nothing of crash_always: {out}");
    assert!(
        out.contains("called again in a new session after the server died during its wave, and it died again"),
        "{out}"
    );
    // Pinned as failed at lock: failing the same way now is not drift (RULES.md, Judging).
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let crash = probe(&report, "crash_always", "call");
    assert_eq!(crash["outcome"], "skipped", "{crash:#}");
    assert_eq!(crash["reason"], "fails-as-at-lock", "{crash:#}");
    calls_pass(&report, &["slow_a"]);
}

/// Steady (RULES.md): "a server that dies is started again before the next call is judged (an
/// incomplete call after a crash is made again, never counted as rejected or accepted on the
/// crash)". `render`'s valid call is answered with a failure and takes its server down a moment
/// later (`exitProcess.afterAnswer`: the next call finds it gone), so the incomplete call that
/// follows loses its connection. It is made again in a server started again, and judged on its
/// own answer, at `lock` and at three `check`s alike; `ping`, beside it, passes.
/// Without `probe::again_incomplete` (the incomplete call judged on the crash), `render`'s
/// incomplete call is a `call-failed` finding and `check` fails (exit 1).
#[test]
fn an_incomplete_call_after_a_crash_is_made_again_and_judged_on_its_answer() {
    let p = Project::new();
    let surface = json!({
        "tools": [
            ro("render", json!({"template": {"type": "string", "enum": ["invoice"]}, "copies": {"type": "integer"}}), &["template", "copies"]),
            ro("ping", json!({}), &[])
        ],
        "calls": {"render": {"accepts": {"template": ["none-valid"]}, "exitProcess": {"afterAnswer": true}}}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let mut seen = None;
    for _ in 0..3 {
        let (code, report) = p.check_json(&[]);
        assert_eq!(code, 0, "{report:#}");
        calls_pass(&report, &["ping"]);
        let incomplete = probe(&report, "render", "incomplete");
        assert_ne!(incomplete["outcome"], "fail", "{incomplete:#}");
        assert!(
            incomplete["message"].as_str().unwrap().contains("made again in a new session after the server died"),
            "{incomplete:#}"
        );
        let verdict = (incomplete["outcome"].clone(), incomplete["reason"].clone());
        assert!(seen.as_ref().is_none_or(|s| *s == verdict), "the same verdict every time: {verdict:?} {seen:?}");
        seen = Some(verdict);
    }
}

/// The sandbox's scratch copy (issue #32, "Also in this step"): "lives where a project could live
/// (beside the project, or in a cache folder under the user's home), never under the system temp
/// folder". The server refuses to start in a folder under `$TMPDIR` (a fresh folder beside the
/// project here): its writer still runs in the sandbox.
/// The scratch copy is in the cache folder (`src/sandbox/scratch.rs`); with `XDG_CACHE_HOME` set
/// under the refused folder, the server refuses to start and the probe fails (checked by hand).
#[test]
fn the_scratch_copy_is_never_under_the_temp_folder() {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().display().to_string();
    assert!(!p.dir.path().starts_with(tmp.path()));
    let surface = json!({
        "tools": [rw("touch_it", json!({"name": string()}), &["name"])],
        "fault": {"refuseCwdUnder": [d]}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    let env = [("TMPDIR", d.as_str())];
    lock_ok(&p, &env);
    let (code, report) = check_json_env(&p, &env);
    assert_eq!(code, 0, "{report:#}");
    calls_pass(&report, &["touch_it"]);
    assert_eq!(probe(&report, "touch_it", "call")["place"], "sandbox", "{report:#}");
}

/// Never aimed at the machine (RULES.md): "No candidate targets mcp-pin, the server or the machine
/// itself: process ids 0, 1, negative or the server's own process or group". The fixture's
/// `kill_process` really sends SIGTERM (within its own process group only): pid 0 would take its
/// server (and a call in flight beside it) down: by hand, with `args = { pid = 0 }` in the config,
/// the call is lost (`connection failed: tools/call: Transport closed`). A "Sent signal" answer
/// can only mean its own process or group.
/// The process-id guard (`src/probe/candidates/guard.rs`) keeps pid 0 away; with an `args`
/// fixture of `pid = 0`, the fixture really signals its own group and the call is lost (checked
/// by hand).
#[test]
fn a_kill_tool_never_takes_down_its_server() {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    let surface = json!({
        "tools": [
            tool("kill_process", "Send a signal to a process.", false,
                 json!({"pid": {"type": "integer", "minimum": 0}}), &["pid"]),
            // Not read-only either: in the same place (the sandbox's server) as the kill tool.
            rw("slow_a", json!({}), &[])
        ],
        "calls": {"kill_process": {"signal": "pid"}, "slow_a": {"delayMs": 800}}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let pid = pins(&p, "fx")["kill_process"]["call"]["args"]["pid"].as_i64();
    assert!(pid.is_some_and(|pid| pid > 1), "pinned pid {pid:?}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    calls_pass(&report, &["slow_a"]);
    let kill = probe(&report, "kill_process", "call");
    // Pid 0 loses the call with the server (`call-failed`, the connection closed).
    assert_ne!(kill["outcome"], "fail", "{kill:#}");
    assert!(!kill["answered"].as_str().unwrap_or("").starts_with("Sent signal"), "{kill:#}");
}

/// A call `lock` pinned may pass only after what an earlier, failed call of the same search left
/// behind (a cherry-pick of a real commit left in progress, then `--abort` passed). `check` makes
/// the pinned call alone, in a new session, where it fails; it then makes again the calls `lock`
/// made before it (pinned with it, `before`) and judges the pinned call on that: no false alarm.
/// Without the replay in `search::probe_tool`, `check` fails `call-failed` (checked by hand).
#[test]
fn a_call_that_passed_after_what_a_failed_call_left_is_judged_after_the_same_calls() {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    let surface = json!({
        "tools": [rw("cherry_pick", json!({"commit": string()}), &["commit"])],
        "calls": {"cherry_pick": {
            "leaves": "pick_in_progress",
            "needs": ["pick_in_progress"],
            "accepts": {"commit": ["abort"]},
            "refusalTexts": {"commit": "Commit '{value}' could not be applied; a pick is in progress: try 'abort'"}
        }}
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let call = &pins(&p, "fx")["cherry_pick"]["call"];
    assert_eq!(call["args"]["commit"], "abort", "{call:#}");
    assert!(call["before"].as_array().is_some_and(|b| !b.is_empty()), "{call:#}");
    let (code, report) = check_json_env(&p, &[]);
    assert_eq!(code, 0, "{report:#}");
    let c = probe(&report, "cherry_pick", "call");
    assert_eq!(c["outcome"], "pass", "{c:#}");
    assert!(c["message"].as_str().unwrap_or("").contains("made again"), "{c:#}");
}

/// Any successful answer is a source (RULES.md, "A session has an order"): `analyze_sales` is
/// neither a listing, a setup tool nor a maker by its verb, and returns `{"session_id": …}`, a
/// fresh id per process; the tools taking `session_id` get it first, at `lock` and, taken again
/// from this session's answer, at `check`. Without `Known::keyed_by` in `probe::feed`, both
/// readers are sent `session_id: ""` (or another guess) and fail at lock; without the
/// `afterWave` mark on a call the wave's retry found, `check` makes them beside `analyze_sales`
/// and fails (both checked). (`late` would make them after every later wave, after a tool that
/// renames what they read: the excel server's `sort_range` after `rename_sheet`.)
#[test]
fn a_value_under_another_tools_property_name_reaches_that_property() {
    let p = Project::new();
    let sid = json!({"session_id": string()});
    let surface = json!({
        "tools": [
            ro("analyze_sales", json!({"metric": {"type": "string", "enum": ["revenue"]}}), &["metric"]),
            ro("describe_dataset", sid.clone(), &["session_id"]),
            ro("query_rows", json!({"session_id": string(), "limit": {"type": "integer"}}), &["session_id"])
        ],
        "calls": {
            "analyze_sales": {"makes": {"kind": "session", "answer": "{\"session_id\": \"{id}\", \"rows\": 3}"}},
            "describe_dataset": {"uses": {"session_id": "session"}},
            "query_rows": {"uses": {"session_id": "session"}}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let pins = pins(&p, "fx");
    for t in ["describe_dataset", "query_rows"] {
        assert_eq!(pins[t]["call"]["from"]["session_id"], "result", "{t}: {pins:#}");
        // Found after analyze_sales's wave: made after the rest of that wave at `check` too.
        assert_eq!(pins[t]["call"]["afterWave"], true, "{t}: {pins:#}");
    }
    for _ in 0..2 {
        let (code, report) = p.check_json(&[]);
        assert_eq!(code, 0, "{report:#}");
        calls_pass(&report, &["analyze_sales", "describe_dataset", "query_rows"]);
    }
}

/// A tool reads the world the other tools made (RULES.md, "Where a tool is called"): a read-only
/// query tool whose server builds what it reads with a tool called in the sandbox is called there
/// after that maker, although the maker returns no value the reader is sent (an index is state,
/// not a handle). One reader refuses with an error, the other answers a failure as plain text;
/// both reach their code in the sandbox after `build_index`, are pinned `place: "sandbox"`, and
/// `check` calls them there after it, steadily. `index_help` needs nothing and stays in the
/// session. Without `probe::sandbox_changed` (the Use wave taking only readers that a maker's
/// values give other arguments), both readers are pinned as failed and check skips them.
#[test]
fn a_reader_is_called_after_the_maker_of_what_it_reads_in_the_same_place() {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    let needs = json!({"needs": ["index"]});
    let surface = json!({
        "tools": [
            tool("build_index", "Build the search index of a folder.", false, json!({"path": string()}), &["path"]),
            tool("search_index", "Search the index for a text.", true,
                 json!({"query": string(), "limit": {"type": "integer", "minimum": 1}}), &["query"]),
            tool("index_stats", "How many documents the index holds.", true, json!({"verbose": {"type": "boolean"}}), &[]),
            tool("index_help", "How to use the index.", true, json!({}), &[])
        ],
        "calls": {
            "build_index": {"sets": "index"},
            "search_index": needs.clone(),
            "index_stats": {"needs": ["index"], "quietRefusal": true}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let pins = pins(&p, "fx");
    for t in ["search_index", "index_stats"] {
        assert_eq!(pins[t]["call"]["place"], "sandbox", "{t}: {pins:#}");
    }
    for _ in 0..2 {
        let (code, report) = p.check_json(&[]);
        assert_eq!(code, 0, "{report:#}");
        calls_pass(&report, &["build_index", "search_index", "index_stats", "index_help"]);
        for t in ["build_index", "search_index", "index_stats"] {
            assert_eq!(probe(&report, t, "call")["place"], "sandbox", "{t}: {report:#}");
        }
        assert_eq!(probe(&report, "index_help", "call")["place"], "session", "{report:#}");
        assert_eq!(probe(&report, "search_index", "incomplete")["outcome"], "pass", "{report:#}");
    }
}

/// A probe is never judged on the state another probe left (RULES.md, "Steady": "a tool that
/// deletes, overwrites or clears is called after every tool that reads what it destroys (or on
/// a fresh copy of the project)"). Two destroyers want the project's one markdown file; each acts
/// on the sandbox's copy as the makers left it (`sandbox::keep`), so both reach their code, at
/// `lock` and at every `check`, and the real project is untouched. Without `Places::keep`/`put_back` in `probe::remove_each`, the second destroyer finds the
/// file gone and fails with every candidate.
#[test]
fn each_destroyer_acts_on_the_world_the_makers_left() {
    if !sandbox_here() {
        return;
    }
    let p = Project::new();
    p.write("report.md", "# Report\n");
    let md = json!({"type": "string", "pattern": "\\.md$", "description": "A markdown file."});
    let surface = json!({
        "tools": [
            tool("delete_document", "Delete a markdown document.", false, json!({"path": md.clone()}), &["path"]),
            tool("remove_file", "Remove a markdown file.", false, json!({"file": md.clone()}), &["file"]),
            tool("write_note", "Write a note.", false, json!({"text": string()}), &["text"])
        ],
        "calls": {
            "delete_document": {"exists": ["path"], "deletes": "path"},
            "remove_file": {"exists": ["file"], "deletes": "file"}
        }
    });
    p.write_json("surface.json", &surface);
    p.stdio_config(&[("fx", "surface.json")]);
    lock_ok(&p, &[]);
    let pins = pins(&p, "fx");
    assert_eq!(pins["delete_document"]["call"]["args"]["path"], "report.md", "{pins:#}");
    assert_eq!(pins["remove_file"]["call"]["args"]["file"], "report.md", "{pins:#}");
    for _ in 0..2 {
        let (code, report) = p.check_json(&[]);
        assert_eq!(code, 0, "{report:#}");
        calls_pass(&report, &["delete_document", "remove_file", "write_note"]);
    }
    assert_eq!(p.read("report.md"), "# Report\n", "the real project was touched");
}
