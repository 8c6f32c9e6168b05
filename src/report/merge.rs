//! `mcp-pin report merge`: the JSON reports of several runs (the shards of a drift cron) as one
//! report, the same whatever the order of the files.
//!
//! - Servers are joined by name. A server in two reports with the same result is one entry; with
//!   different results it is an error naming both files (which one is newer cannot be told: merge
//!   the reports of one run).
//! - The gate is `--fail-on` when given, else the strictest gate among the reports (`loud`, then
//!   `silent`, then `never`), else `silent`.
//! - Every file is read as every file mcp-pin reads ([`crate::files::read_regular`]: a regular
//!   file, at most [`MAX_REPORT`] bytes), or, named on the command line, a pipe
//!   (`report merge /dev/stdin`, a FIFO: read as it comes, capped at [`MAX_REPORT`] bytes while
//!   it is read, [`crate::files::read_regular_or_pipe`]), and parsed with each key once
//!   ([`crate::json_read`]); every error names the file.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::{FailOn, Report, ServerReport};

/// The largest report file read.
pub const MAX_REPORT: u64 = 256 << 20;

/// Merge the JSON report files `paths` (see the module's documentation).
pub fn merge_files(paths: &[PathBuf], fail_on: Option<FailOn>) -> Result<Report, String> {
    let mut reports = Vec::with_capacity(paths.len());
    for p in paths {
        let text = crate::files::read_regular_or_pipe(p, MAX_REPORT)
            .map_err(|e| format!("cannot read report {}: {e}", p.display()))?;
        let v = crate::json_read::from_str(&text).map_err(|e| format!("report {}: {e}", p.display()))?;
        reports.push((p.display().to_string(), v));
    }
    merge_named(&reports, fail_on)
}

/// Merge JSON reports already parsed; errors name them `report #N`.
pub fn merge_json(reports: &[Value], fail_on: Option<FailOn>) -> Result<Report, String> {
    let named: Vec<(String, Value)> =
        reports.iter().enumerate().map(|(i, r)| (format!("report #{}", i + 1), r.clone())).collect();
    merge_named(&named, fail_on)
}

fn strictness(f: FailOn) -> u8 {
    match f {
        FailOn::Never => 0,
        FailOn::Silent => 1,
        FailOn::Loud => 2,
    }
}

fn merge_named(reports: &[(String, Value)], fail_on: Option<FailOn>) -> Result<Report, String> {
    let mut servers: BTreeMap<String, (ServerReport, &str)> = BTreeMap::new();
    let mut strictest: Option<FailOn> = None;
    for (name, r) in reports {
        if let Some(v) = r.get("failOn") {
            let gate: FailOn = serde_json::from_value(v.clone())
                .map_err(|_| format!("{name}: `failOn` is not one of silent, loud, never"))?;
            if strictest.is_none_or(|s| strictness(gate) > strictness(s)) {
                strictest = Some(gate);
            }
        }
        let list = r
            .get("servers")
            .and_then(|v| v.as_array())
            .ok_or_else(|| format!("{name}: no `servers` list; is it `mcp-pin check --format json` output?"))?;
        for s in list {
            let mut obj = s.clone();
            if let Some(m) = obj.as_object_mut() {
                m.entry("notes").or_insert_with(|| Value::Array(vec![]));
                m.entry("probes").or_insert_with(|| Value::Array(vec![]));
            }
            let sr: ServerReport = serde_json::from_value(obj).map_err(|e| format!("{name}: {e}"))?;
            match servers.get(&sr.name) {
                Some((seen, _)) if *seen == sr => {}
                Some((_, first)) => {
                    return Err(format!(
                        "server `{}` is in {first} and in {name} with different results; merge the reports of one run (each server in one of them)",
                        crate::json::escape_line(&sr.name)
                    ))
                }
                None => {
                    servers.insert(sr.name.clone(), (sr, name.as_str()));
                }
            }
        }
    }
    Ok(Report {
        fail_on: fail_on.or(strictest).unwrap_or(FailOn::Silent),
        servers: servers.into_values().map(|(s, _)| s).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(name: &str, error: Option<&str>) -> Value {
        json!({"name": name, "status": if error.is_some() { "error" } else { "ok" }, "error": error, "changes": []})
    }

    #[test]
    fn the_order_of_the_reports_changes_nothing() {
        let a = json!({"failOn": "never", "servers": [server("x", None)]});
        let b = json!({"failOn": "loud", "servers": [server("y", Some("down")), server("x", None)]});
        let ab = merge_json(&[a.clone(), b.clone()], None).unwrap();
        let ba = merge_json(&[b.clone(), a.clone()], None).unwrap();
        assert_eq!(ab, ba);
        assert_eq!(ab.fail_on, FailOn::Loud, "the strictest gate");
        assert_eq!(ab.servers.len(), 2, "the same result twice is one entry");
        assert_eq!(merge_json(&[a.clone(), b], Some(FailOn::Silent)).unwrap().fail_on, FailOn::Silent);
        let c = json!({"servers": [server("x", Some("down"))]});
        for pair in [[a.clone(), c.clone()], [c, a]] {
            let e = merge_json(&pair, None).unwrap_err();
            assert!(e.contains("report #1 and in report #2 with different results"), "{e}");
        }
        let e = merge_json(&[json!({"failOn": "sometimes", "servers": []})], None).unwrap_err();
        assert!(e.starts_with("report #1: `failOn`"), "{e}");
    }
}
