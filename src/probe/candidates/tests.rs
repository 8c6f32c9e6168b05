//! Unit tests of how argument sets are made from the sources (each source has its own tests in
//! its file).

use super::*;
use serde_json::json;

fn tool(props: Value, required: &[&str]) -> Value {
    json!({"name": "t", "inputSchema": {"type": "object", "properties": props, "required": required}})
}

fn smallest(def: &Value) -> Map<String, Value> {
    crate::probe::synthesize_args(&def["inputSchema"]).unwrap()
}

fn sets(name: &str, def: &Value, known: &Known) -> Vec<ArgSet> {
    argument_sets(name, def, known, &smallest(def))
}

fn project() -> (tempfile::TempDir, Known) {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("docs")).unwrap();
    std::fs::write(d.path().join("notes.txt"), "hi").unwrap();
    std::fs::write(d.path().join("docs/guide.md"), "g").unwrap();
    let known = Known { paths: context::Paths::scan(d.path(), &[]), ..Known::default() };
    (d, known)
}

#[test]
fn a_description_example_comes_before_the_smallest_value() {
    let def = tool(
        json!({"timezone": {"type": "string", "description": "IANA timezone name (e.g., 'America/New_York', 'Europe/London')."}}),
        &["timezone"],
    );
    let s = sets("get_current_time", &def, &Known::default());
    assert_eq!(s[0].args["timezone"], "America/New_York");
    assert_eq!(s[0].from["timezone"], Source::Description);
    assert_eq!(s[1].args["timezone"], "Europe/London");
    let smallest = s.iter().find(|x| x.args["timezone"] == "").expect("the smallest valid value is always among them");
    assert_eq!(smallest.describe(), "the smallest valid values");
}

#[test]
fn a_value_the_tools_description_gives_by_name_comes_before_the_smallest_value() {
    let mut def = tool(
        json!({"action": {"enum": ["get_prompt"], "type": "string"}, "promptId": {"type": "string"}}),
        &["action", "promptId"],
    );
    def["description"] = json!("Retrieve a prompt. 1. Organize my Downloads folder (promptId: 'onb2_01')\n- \"1\" → get_prompts(action='get_prompt', promptId='onb2_01')");
    let s = sets("get_prompts", &def, &Known::default());
    assert_eq!(s[0].args["promptId"], "onb2_01");
    assert_eq!(s[0].from["promptId"], Source::Description);
}

/// A tool whose schema declares no argument while its description shows a call with some: the
/// call with none first, then the shown arguments, searched like declared ones (a vault another
/// tool was sent, the operation shown).
#[test]
fn a_call_the_description_shows_gives_a_tool_that_declares_nothing_its_arguments() {
    let mut def = tool(json!({}), &[]);
    def["description"] = json!("Edit a note.\nExamples:\n- Root note: { \"vault\": \"vault1\", \"filename\": \"note.md\", \"operation\": \"append\", \"content\": \"new content\" }\n- INCORRECT: { \"filename\": \"journal/2024/note.md\" }");
    let mut known = Known::default();
    known.worked.push(Worked {
        tool: "create-note".into(),
        prop: "vault".into(),
        value: json!("project"),
        relative: vec![],
    });
    let s = sets("edit-note", &def, &known);
    assert!(s[0].args.is_empty(), "the call with none first: {s:?}");
    assert_eq!(s[1].args["vault"], "project", "a vault another tool was sent");
    assert_eq!(s[1].args["operation"], "append");
    assert_eq!(s[1].from["operation"], Source::Description);
    assert!(s.iter().all(|x| x.args.get("filename") != Some(&json!("journal/2024/note.md"))));
    // A closed schema that declares nothing takes nothing.
    def["inputSchema"]["additionalProperties"] = json!(false);
    assert_eq!(sets("edit-note", &def, &known).len(), 1);
}

/// A property the schema does not describe takes the examples of the line its tool's docstring
/// gives it; one the schema describes keeps its own words.
#[test]
fn a_property_the_schema_does_not_describe_is_described_by_its_docstring_line() {
    let mut def = tool(
        json!({"connector_type": {"title": "Connector Type", "type": "string"},
               "unit": {"type": "string", "description": "Unit, e.g. 'cm'"}}),
        &["connector_type", "unit"],
    );
    def["description"] = json!("Add a connector.\n\n    Args:\n        connector_type: Type of connector (\"straight\", \"elbow\")\n        unit: 'inch' or 'pt'\n");
    let s = sets("add_connector", &def, &Known::default());
    assert_eq!(s[0].args["connector_type"], "straight");
    assert_eq!(s[0].from["connector_type"], Source::Description);
    assert_eq!(s[0].args["unit"], "cm", "its own description first");
}

#[test]
fn the_schema_comes_first_and_invalid_examples_are_dropped() {
    let def = tool(
        json!({"unit": {"type": "string", "enum": ["c", "f"], "description": "e.g. 'kelvin' or 'c'"},
               "count": {"type": "integer", "minimum": 1, "description": "for example 0 or 5"}}),
        &["unit", "count"],
    );
    let s = sets("convert", &def, &Known::default());
    assert_eq!(s[0].args["unit"], "c");
    assert_eq!(s[0].from["unit"], Source::Schema);
    assert_eq!(s[0].args["count"], 5, "0 is below the minimum; 5 is read as an integer");
    assert!(s.iter().all(|x| x.args["unit"] != "kelvin"), "not in the enum: never sent");
}

#[test]
fn a_path_from_the_project_folder_is_pinned_relative_and_sent_absolute() {
    let (d, known) = project();
    let def = tool(json!({"path": {"type": "string"}}), &["path"]);
    let s = sets("read_text_file", &def, &known);
    assert_eq!(s[0].args["path"], "notes.txt");
    assert_eq!(s[0].from["path"], Source::ProjectFolder);
    assert_eq!(s[0].relative, ["/path"]);
    let sent = s[0].resolve(Some(d.path()));
    assert_eq!(sent["path"], d.path().join("notes.txt").to_string_lossy().as_ref());
    // Another place (a scratch copy) gets the same file in its own folder.
    let sent = s[0].resolve(Some(Path::new("/scratch/copy")));
    assert_eq!(sent["path"], "/scratch/copy/notes.txt");
    // The working folder itself is `.`, sent as the folder.
    let s = sets("list_directory", &def, &known);
    assert_eq!((s[0].args["path"].as_str(), s[0].from["path"]), (Some("."), Source::Roots));
    assert_eq!(s[0].resolve(Some(Path::new("/w")))["path"], "/w");
}

#[test]
fn an_array_of_paths_gets_one_path() {
    let (_d, known) = project();
    let def = tool(json!({"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1}}), &["paths"]);
    let s = sets("read_multiple_files", &def, &known);
    assert_eq!(s[0].args["paths"], json!(["notes.txt"]));
    assert_eq!(s[0].relative, ["/paths/0"]);
}

#[test]
fn a_relative_path_never_climbs_out_of_the_folder() {
    assert_eq!(absolute(Path::new("/w"), "../../etc/passwd"), "/w/etc/passwd");
    assert_eq!(absolute(Path::new("/w"), "a/./b"), "/w/a/b");
}

#[test]
fn listed_values_feed_the_property_that_shares_their_words() {
    let mut known = Known::default();
    known.listed_by("list_tables", &json!({"content": [{"type": "text", "text": "[{'name': 'items'}]"}]}));
    let def = tool(json!({"table_name": {"type": "string", "description": "Name of the table"}}), &["table_name"]);
    let s = sets("describe_table", &def, &known);
    assert_eq!((s[0].args["table_name"].as_str(), s[0].from["table_name"]), (Some("items"), Source::Listing));
    assert_eq!(s[0].describe(), "table_name from listing");
}

#[test]
fn a_secret_is_never_a_candidate_and_nothing_from_the_environment() {
    let mut known =
        Known { secrets: vec!["s3cr3t-token".into()], env_values: vec!["/home/someone".into()], ..Known::default() };
    known.listed_by(
        "list_keys",
        &json!({"structuredContent": {"keys": ["key-s3cr3t-token", "/home/someone/.ssh/id", "plain"]}}),
    );
    assert_eq!(known.listed.len(), 2, "an environment value is never kept: {:?}", known.listed);
    let def =
        tool(json!({"key": {"type": "string", "description": "e.g. 's3cr3t-token' or 'x-s3cr3t-token-y'"}}), &["key"]);
    for s in sets("get_key", &def, &known) {
        assert!(!Value::Object(s.args.clone()).to_string().contains("s3cr3t"), "{:?}", s.args);
    }
}

#[test]
fn at_most_max_candidates_each_valid_one_property_varied_at_a_time() {
    let def = tool(
        json!({"a": {"type": "string", "enum": ["1", "2", "3", "4", "5", "6", "7", "8", "9"]},
               "b": {"type": "string", "examples": ["x", "y", "z"]}}),
        &["a", "b"],
    );
    let s = sets("t", &def, &Known::default());
    assert!(s.len() <= MAX_CANDIDATES, "{}", s.len());
    assert_eq!((s[0].args["a"].as_str(), s[0].args["b"].as_str()), (Some("1"), Some("x")));
    assert_eq!((s[1].args["a"].as_str(), s[1].args["b"].as_str()), (Some("2"), Some("x")));
    assert_eq!((s[2].args["a"].as_str(), s[2].args["b"].as_str()), (Some("1"), Some("y")));
    let v = validate::compile(&def["inputSchema"], Formats::Assert).unwrap();
    assert!(s.iter().all(|x| v.is_valid(&Value::Object(x.args.clone()))));
}

#[test]
fn a_tool_without_required_arguments_gets_one_set() {
    let def = tool(json!({"verbose": {"type": "boolean"}}), &[]);
    let s = sets("status", &def, &Known::default());
    assert_eq!(s.len(), 1);
    assert!(s[0].args.is_empty());
    assert_eq!(s[0].describe(), "none needed");
}

#[test]
fn pins_round_trip_and_junk_is_no_pin() {
    let (_d, known) = project();
    let def = tool(json!({"path": {"type": "string"}, "n": {"type": "integer"}}), &["path", "n"]);
    let s = &sets("read_file", &def, &known)[0];
    let pin = s.to_pin(3);
    assert_eq!(pin["tried"], 3);
    assert_eq!(pin["from"]["path"], "project folder");
    assert_eq!(ArgSet::from_pin(&pin).as_ref(), Some(s));
    assert_eq!(ArgSet::from_pin(&json!({"args": "x"})), None);
    assert_eq!(ArgSet::from_pin(&json!({})), None);
    // An unknown source label is dropped, the arguments kept.
    let odd = ArgSet::from_pin(&json!({"args": {"a": 1}, "from": {"a": "elsewhere"}})).unwrap();
    assert!(odd.from.is_empty() && odd.args["a"] == 1);
}

#[test]
fn pinned_arguments_replay_as_pinned_and_adapt_to_a_changed_schema() {
    let (_d, known) = project();
    let def = tool(json!({"path": {"type": "string"}, "n": {"type": "integer"}}), &["path", "n"]);
    let pin = sets("read_file", &def, &known)[0].clone();
    let (same, adapted) = replay(pin.clone(), &def, &known, &smallest(&def));
    assert_eq!((same, adapted), (pin.clone(), false));
    // `n` became a string and `mode` a new required property: `path` is kept, the rest made anew.
    let changed = tool(
        json!({"path": {"type": "string"}, "n": {"type": "string", "minLength": 1}, "mode": {"enum": ["r"]}}),
        &["path", "n", "mode"],
    );
    let (set, adapted) = replay(pin, &changed, &known, &smallest(&changed));
    assert!(adapted);
    assert_eq!(set.args["path"], "notes.txt");
    assert_eq!(set.relative, ["/path"]);
    assert_eq!(set.args["mode"], "r");
    assert!(set.args["n"].is_string());
}

#[test]
fn listed_paths_are_pinned_relative_and_nothing_of_this_machine_is_kept() {
    let (d, mut known) = project();
    let base = d.path().to_path_buf();
    let name = base.file_name().unwrap().to_string_lossy().into_owned();
    let uri = reqwest::Url::from_directory_path(base.join("docs")).unwrap().to_string();
    known.listed_by(
        "list_roots",
        &json!({"structuredContent": {"roots": [
            {"uri": uri, "name": name},
            {"path": base.join("notes.txt").display().to_string()},
            {"path": "/elsewhere/on/this/machine"}
        ]}}),
    );
    let kept: Vec<(&str, bool)> = known.listed.iter().map(|l| (l.value.as_str(), l.relative)).collect();
    assert_eq!(kept, [("docs", true), ("notes.txt", true)]);
    // A reader's argument nothing else is known about takes the first listed value, a path here.
    let def = tool(json!({"entry": {"type": "string"}}), &["entry"]);
    let s = sets("get_entry", &def, &known);
    assert_eq!(
        (s[0].args["entry"].as_str(), s[0].relative.as_slice()),
        (Some("docs"), ["/entry".to_string()].as_slice())
    );
}

/// An array of objects one of whose properties names a path gets one object holding a project
/// file, its path relative (resolved where it is sent).
#[test]
fn an_array_of_objects_with_a_path_gets_one_object_holding_a_project_file() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("notes.txt"), "x").unwrap();
    std::fs::write(d.path().join("invoice.pdf"), "%PDF").unwrap();
    let known = Known { paths: context::Paths::scan(d.path(), &[]), ..Known::default() };
    let def = json!({"name": "read_pdf", "inputSchema": {"type": "object", "properties": {
        "sources": {"type": "array", "items": {"type": "object", "properties": {
            "path": {"type": "string", "minLength": 1, "description": "Path to the local PDF file"},
            "url": {"type": "string", "minLength": 1}
        }}}
    }, "required": ["sources"]}});
    let smallest = Map::from_iter([("sources".to_string(), json!([]))]);
    let sets = argument_sets("read_pdf", &def, &known, &smallest);
    assert_eq!(sets[0].args["sources"], json!([{"path": "invoice.pdf"}]), "{sets:?}");
    assert_eq!(sets[0].relative, ["/sources/0/path"]);
    let sent = sets[0].resolve(Some(d.path()));
    assert_eq!(sent["sources"][0]["path"], json!(d.path().join("invoice.pdf").display().to_string()));
}

/// A process id a listing returned is a process of the machine: never offered; one a tool of the
/// session made is.
#[test]
fn a_listed_process_id_is_never_offered_a_made_one_is() {
    let mut known = Known::default();
    // A listing of the machine's processes, longer than what one property is offered.
    let lines: Vec<String> = (2..40).map(|p| format!("PID: {p}, Command: kthreadd")).collect();
    known.listed_by("list_processes", &json!({"content": [{"type": "text", "text": lines.join("\n")}]}));
    let def = json!({"name": "kill_process", "inputSchema": {"type": "object", "properties": {
        "pid": {"type": "integer", "description": "The process ID to kill"}
    }, "required": ["pid"]}});
    let smallest = Map::from_iter([("pid".to_string(), json!(0))]);
    let pids = |k: &Known| {
        argument_sets("kill_process", &def, k, &smallest).iter().map(|s| s.args["pid"].clone()).collect::<Vec<_>>()
    };
    assert!(!pids(&known).iter().any(|p| p.as_i64().is_some_and(|p| p < 40)), "{:?}", pids(&known));
    known.made_by("start_process", &json!({"content": [{"type": "text", "text": "Process started with PID 5599"}]}));
    assert_eq!(pids(&known)[0], json!(5599), "{:?}", pids(&known));
}

/// What another tool's call that succeeded was sent is offered for a property of the same name,
/// first: values found in the project or the server's words, never a schema's own, the smallest
/// valid one, or a name made for one tool (a new path it made is kept); never for a path that
/// must not exist yet.
#[test]
fn a_value_another_tool_was_sent_is_offered_first_for_the_same_property() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("notes.txt"), "x").unwrap();
    std::fs::write(d.path().join("report.docx"), "x").unwrap();
    let mut known = Known { paths: context::Paths::scan(d.path(), &[]), ..Known::default() };
    let mut set = ArgSet::smallest(Map::from_iter([
        ("filename".to_string(), json!("report.docx")),
        ("mode".to_string(), json!("fast")),
        ("out".to_string(), json!("mcp-pin-probe-x.txt")),
        ("sheet".to_string(), json!("mcp_pin_probe_x")),
    ]));
    set.from.insert("filename".into(), Source::ProjectFolder);
    set.from.insert("mode".into(), Source::Schema);
    set.from.insert("out".into(), Source::ProjectFolder);
    set.from.insert("sheet".into(), Source::Rejection(Some("offered-values")));
    set.relative = vec!["/filename".into(), "/out".into()];
    known.worked_for("get_document_info", &set);
    // The new path a tool made is there for the tools after it; a name made for it is its own.
    let kept: Vec<&str> = known.worked.iter().map(|w| w.prop.as_str()).collect();
    assert_eq!(kept, ["filename", "out"], "{:?}", known.worked);
    assert_eq!(known.worked[0].relative, [""]);
    let def = |name: &str| {
        json!({"name": name, "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string"}, "mode": {"type": "string"}
        }, "required": ["filename", "mode"]}})
    };
    let smallest = Map::from_iter([("filename".to_string(), json!("")), ("mode".to_string(), json!(""))]);
    let sets = argument_sets("insert_near_text", &def("insert_near_text"), &known, &smallest);
    assert_eq!((sets[0].args["filename"].clone(), sets[0].from["filename"]), (json!("report.docx"), Source::Sibling));
    assert!(sets[0].relative.contains(&"/filename".to_string()), "{:?}", sets[0]);
    assert_ne!(sets[0].args["mode"], "fast", "a schema's own value is the tool's own");
    // A tool that makes a new file never gets the document another tool opened.
    let sets = argument_sets("create_document", &def("create_document"), &known, &smallest);
    assert!(sets.iter().all(|s| s.from["filename"] != Source::Sibling), "{sets:?}");
}

/// A flag is tried both ways ("force flag must be set to true to clean untracked files").
#[test]
fn a_flag_is_offered_both_values() {
    let def = json!({"name": "clean", "inputSchema": {"type": "object", "properties": {
        "force": {"type": "boolean", "default": false}
    }, "required": ["force"]}});
    let smallest = Map::from_iter([("force".to_string(), json!(false))]);
    let values: Vec<Value> =
        argument_sets("clean", &def, &Known::default(), &smallest).iter().map(|s| s.args["force"].clone()).collect();
    assert!(values.contains(&json!(false)) && values.contains(&json!(true)), "{values:?}");
}

/// A value a listing named under words the property does not share: a reader takes it first; a
/// tool that changes things takes it only in the sandbox (on the scratch copy), after its
/// smallest values, so its first sets stay as they were.
#[test]
fn an_untied_listed_value_reaches_a_changing_tool_only_in_the_sandbox() {
    let mut known = Known::default();
    known.listed_by("git_branch", &json!({"content": [{"type": "text", "text": "* main"}]}));
    let def = json!({"name": "git_checkout", "inputSchema": {"type": "object", "properties": {
        "target": {"type": "string"}
    }, "required": ["target"]}});
    let smallest = Map::from_iter([("target".to_string(), json!(""))]);
    let targets = |k: &Known| {
        argument_sets("git_checkout", &def, k, &smallest).iter().map(|s| s.args["target"].clone()).collect::<Vec<_>>()
    };
    assert!(!targets(&known).contains(&json!("main")), "{:?}", targets(&known));
    known.sandboxed = true;
    let t = targets(&known);
    assert!(t.contains(&json!("main")) && t[0] != json!("main"), "{t:?}");
}

/// A required property whose every value would be aimed at the machine (a process id the schema
/// fixes at 1) has no candidate: no set is made with it, and nothing panics (found by the `synth`
/// fuzz target).
#[test]
fn a_property_with_no_candidate_makes_no_set() {
    for schema in [json!({"type": "integer", "const": 1}), json!({"type": "integer", "enum": [0, 1]})] {
        let def = tool(json!({"pid": schema, "name": {"type": "string"}}), &["name", "pid"]);
        let sets = sets("kill_process", &def, &Known::default());
        assert!(sets.is_empty(), "{schema}: {sets:?}");
    }
}

/// A flag the server's words give as a command-line option ("use 'git cherry-pick --abort'") is
/// added set, before any other value; a flag they only name is added at its smallest value.
#[test]
fn a_flag_the_words_give_as_an_option_is_set_first() {
    let def = tool(
        json!({"commits": {"type": "array", "items": {"type": "string"}},
               "abort": {"type": "boolean", "default": false}, "noCommit": {"type": "boolean"}, "signoff": {"type": "boolean"}}),
        &["commits"],
    );
    let rejected = ArgSet::smallest(Map::from_iter([("commits".to_string(), json!(["main"]))]));
    let text = "The previous cherry-pick is now empty. Otherwise, use 'git cherry-pick --skip' or 'git cherry-pick --abort' (or --no-commit).";
    let sets = with_named_optional(
        &def,
        &Known::default(),
        &rejected,
        text,
        std::slice::from_ref(&rejected),
        Source::Rejection(Some("named-optional")),
    );
    let first = |p: &str| sets.iter().find(|s| s.args.contains_key(p)).map(|s| s.args[p].clone());
    assert_eq!(first("abort"), Some(json!(true)), "{sets:?}");
    assert_eq!(first("noCommit"), Some(json!(true)), "{sets:?}");
    assert!(first("signoff").is_none(), "{sets:?}");
    assert!(gives_option("--abort", "abort") && !gives_option("abort", "abort") && !gives_option("---abort", "abort"));
    let text = "Abort is not possible: nothing to abort.";
    let sets = with_named_optional(
        &def,
        &Known::default(),
        &rejected,
        text,
        std::slice::from_ref(&rejected),
        Source::Rejection(Some("named-optional")),
    );
    assert_eq!(sets.iter().find(|s| s.args.contains_key("abort")).map(|s| s.args["abort"].clone()), Some(json!(false)));
}

/// A permission flag the refusal's words point at is set: `allowEmpty` ("Allow creating a commit
/// with no changes") after "nothing added to commit"; an `allow…` flag about something else, a
/// flag of another name, and a fixture's flag are left as they are.
#[test]
fn a_permission_the_refusal_points_at_is_granted() {
    let def = tool(
        json!({"message": {"type": "string"},
               "allowEmpty": {"type": "boolean", "default": false, "description": "Allow creating a commit with no changes."},
               "allow_remote": {"type": "boolean", "description": "Allow fetching over the network."},
               "amend": {"type": "boolean", "description": "Amend the previous commit instead."}}),
        &["message"],
    );
    let rejected = ArgSet::smallest(Map::from_iter([("message".to_string(), json!("a"))]));
    let text = "Git commit failed: HEAD detached at c53828e. nothing added to commit but untracked files present";
    let sets = with_permission(
        &def,
        &Known::default(),
        &rejected,
        text,
        std::slice::from_ref(&rejected),
        Source::Rejection(Some("permission")),
    );
    assert_eq!(sets.len(), 1, "{sets:?}");
    assert_eq!(sets[0].args["allowEmpty"], json!(true));
    assert_eq!(sets[0].args["message"], json!("a"), "every other argument kept");
    assert!(with_permission(
        &def,
        &Known::default(),
        &rejected,
        "Error: message too long",
        &[],
        Source::Rejection(Some("permission"))
    )
    .is_empty());
    let mut fixed = rejected.clone();
    fixed.args.insert("allowEmpty".into(), json!(false));
    fixed.from.insert("allowEmpty".into(), Source::Fixture);
    assert!(
        with_permission(&def, &Known::default(), &fixed, text, &[], Source::Rejection(Some("permission"))).is_empty(),
        "a fixture's flag stays"
    );
    // Reached from the words of a rejection, as the search asks for them.
    let worded =
        responders::sets_from_rejection(&def, &Known::default(), &rejected, text, std::slice::from_ref(&rejected));
    assert!(worded.iter().any(|s| s.args.get("allowEmpty") == Some(&json!(true))), "{worded:?}");
}

/// Text a tool must find in the file its call names (`old_string` of an edit) is a line of that
/// file, first: the edit reaches the tool's code. Never a line holding a configured secret, nor
/// one of a binary file or of a file outside the project folder.
#[test]
fn text_to_find_is_a_line_of_the_file_the_call_names() {
    for p in ["old_string", "oldText", "search_text", "find_str", "start_anchor_text"] {
        assert!(finds_text(p), "{p}");
    }
    for p in ["query", "text", "old_name", "search", "new_string", "anchor"] {
        assert!(!finds_text(p), "{p}");
    }
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("notes.txt"), "\n  hello world  \nmore\n").unwrap();
    std::fs::write(d.path().join("blob.bin"), b"abc\0def").unwrap();
    let mut known = Known { paths: context::Paths::scan(d.path(), &[]), ..Known::default() };
    let set = |file: &str| {
        let mut s = ArgSet::smallest(Map::from_iter([("file_path".to_string(), json!(file))]));
        s.relative = vec!["/file_path".into()];
        s
    };
    assert_eq!(file_line(&set("notes.txt"), &known).as_deref(), Some("hello world"));
    assert_eq!(file_line(&set("blob.bin"), &known), None);
    assert_eq!(file_line(&set("../outside.txt"), &known), None);
    let def = json!({"name": "edit_block", "inputSchema": {"type": "object", "properties": {
        "file_path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}
    }, "required": ["file_path"]}});
    let text = "Must provide either (old_string + new_string) or (range + content)";
    let sets =
        with_named_optional(&def, &known, &set("notes.txt"), text, &[], Source::Rejection(Some("named-optional")));
    let olds: Vec<&Value> = sets.iter().filter_map(|s| s.args.get("old_string")).collect();
    assert_eq!(olds.first(), Some(&&json!("hello world")), "{sets:?}");
    // `check` reads the file again: an edit of that line is no drift of the server.
    let pinned = sets.iter().find(|s| s.args.get("old_string") == Some(&json!("hello world"))).unwrap().clone();
    assert_eq!(pinned.from["old_string"], Source::FileText);
    let pinned = ArgSet::from_pin(&pinned.to_pin(1)).unwrap();
    std::fs::write(d.path().join("notes.txt"), "goodbye\n").unwrap();
    assert_eq!(refresh_made(pinned, &known).args["old_string"], "goodbye");
    known.secrets = vec!["goodbye".into()];
    assert_eq!(file_line(&set("notes.txt"), &known), None, "a line holding a secret is never offered");
}

/// The one gate (`gate::admit`): an absolute path inside the project is made relative, one of
/// the machine outside it is refused unless the config names it, a withheld file or the
/// server's own program is refused, a fixture passes as written, and the schema holds.
#[test]
fn the_gate_makes_project_paths_relative_and_refuses_the_rest() {
    let (d, mut known) = project();
    let root = d.path().canonicalize().unwrap();
    std::fs::write(root.join(".env"), "TOKEN_X=abcdefgh12345\n").unwrap();
    known.withheld_files = gate::withheld_files(Some(&root), None);
    known.withheld = gate::withheld_values(&known.withheld_files);
    let def = tool(json!({"path": {"type": "string"}, "n": {"type": "integer"}}), &["path"]);
    let set = |v: Value| ArgSet::smallest(Map::from_iter([("path".to_string(), v)]));
    let inside = format!("{}/docs/guide.md", root.display());
    let ok = gate::admit(&def, &known, &set(json!(inside)), Some(&root)).unwrap();
    assert_eq!(ok.args["path"], "docs/guide.md");
    assert_eq!(ok.relative, vec!["/path".to_string()]);
    let uri = format!("file://{}/notes.txt", root.display());
    assert_eq!(gate::admit(&def, &known, &set(json!(uri)), Some(&root)).unwrap().args["path"], "notes.txt");
    for refused in
        [json!("/usr/share"), json!("../x"), json!(format!("{}/.env", root.display())), json!("abcdefgh12345")]
    {
        assert!(gate::admit(&def, &known, &set(refused.clone()), Some(&root)).is_err(), "{refused}");
    }
    // A route or an id that only looks like a path is no path of the machine.
    assert!(gate::admit(&def, &known, &set(json!("/no-such-top-folder/42")), Some(&root)).is_ok());
    // The schema: an integer where a string is asked for.
    assert!(gate::admit(&def, &known, &set(json!(3)), Some(&root)).is_err());
    // A path the config names, outside the project.
    let outside = tempfile::tempdir().unwrap();
    let named = outside.path().canonicalize().unwrap();
    known.paths.named.push(named.clone());
    assert!(gate::admit(&def, &known, &set(json!(named.display().to_string())), Some(&root)).is_ok());
    // The server's own program, named on its command line.
    let program = named.join("index.js");
    std::fs::write(&program, "// server\n").unwrap();
    let paths = context::Paths::scan_server(
        &root,
        "node",
        None,
        &[(program.display().to_string(), program.display().to_string())],
    );
    assert!(paths.own.contains(&program) && paths.entries.iter().all(|e| !e.path.ends_with("index.js")), "{paths:?}");
    known.paths = paths;
    assert!(gate::admit(&def, &known, &set(json!(program.display().to_string())), Some(&root)).is_err());
    // A fixture is the user's word.
    let fixture = ArgSet::fixture(Map::from_iter([("path".to_string(), json!("/usr/share"))]));
    assert!(gate::admit(&def, &known, &fixture, Some(&root)).is_ok());
}
