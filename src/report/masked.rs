//! The report with every secret masked in its data, before any renderer runs: the one boundary
//! every format passes ([`super::render`]), so a renderer never sees a secret and a structured
//! format (JSON, SARIF, JUnit) is masked in its strings only, never in its syntax.
//!
//! Each report type is taken apart field by field, so a field added later does not compile
//! until it is masked here (or said to need no masking).

use std::borrow::Cow;

use super::{Probe, Report, ServerReport};
use crate::change::Change;
use crate::secrets::{mask, mask_json};

/// `report` with every secret masked (borrowed as is while no secret is registered).
pub fn masked(report: &Report) -> Cow<'_, Report> {
    if !crate::secrets::any_registered() {
        return Cow::Borrowed(report);
    }
    let mut r = report.clone();
    let Report { fail_on: _, servers } = &mut r;
    servers.iter_mut().for_each(server);
    Cow::Owned(r)
}

fn text(s: &mut String) {
    if let Cow::Owned(m) = mask(s) {
        *s = m;
    }
}

fn server(s: &mut ServerReport) {
    let ServerReport { name, status: _, error, changes, probes, notes, probe_summary, tools: _ } = s;
    text(name);
    error.iter_mut().for_each(text);
    changes.iter_mut().for_each(change);
    probes.iter_mut().for_each(probe);
    notes.iter_mut().for_each(text);
    probe_summary.iter_mut().for_each(text);
}

fn change(c: &mut Change) {
    let Change { rule: _, class: _, tool, pointer, message, before, after, cues } = c;
    tool.iter_mut().for_each(text);
    text(pointer);
    text(message);
    if let Some(cues) = cues {
        text(&mut cues.added);
        cues.found.iter_mut().for_each(|c| text(&mut c.at));
    }
    for v in [before, after].into_iter().flatten() {
        mask_json(v);
    }
}

fn probe(p: &mut Probe) {
    let Probe {
        tool,
        kind: _,
        outcome: _,
        rule: _,
        message,
        class: _,
        place: _,
        reason: _,
        answered,
        answered_failure: _,
    } = p;
    text(tool);
    text(message);
    answered.iter_mut().for_each(text);
}
