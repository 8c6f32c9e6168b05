//! `--format json`: the stable contract scripts rely on (see docs/report-json.md).

use serde_json::{json, Value};

use super::Report;

pub fn to_value(report: &Report) -> Value {
    let servers: Vec<Value> = report
        .servers
        .iter()
        .map(|s| {
            let mut v = json!({
                "name": s.name,
                "status": s.status,
                "error": s.error,
                "changes": s.changes,
                "probes": s.probes,
                "notes": s.notes,
                // The same change on several tools, as one entry (every change stays in `changes`).
                "groups": super::group::groups(&s.changes.iter().collect::<Vec<_>>())
                    .into_iter()
                    .filter(|g| g.len() > 1)
                    .collect::<Vec<_>>(),
            });
            if let Some(line) = &s.probe_summary {
                v["probeSummary"] = json!(line);
            }
            if let Some(tools) = &s.tools {
                v["tools"] = json!(tools);
            }
            v
        })
        .collect();
    json!({
        "verdict": report.verdict(),
        "failOn": report.fail_on,
        "counts": report.counts(),
        "servers": servers,
    })
}

pub fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(&to_value(report)).expect("report serialises");
    s.push('\n');
    s
}
