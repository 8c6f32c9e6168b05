//! A session's order, per server process: what `sets` tools set, what `makes` tools made.
//! Lives in memory, so every new process starts empty (as a real server's session does).

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::{Map, Value};

use crate::surface::{CallBehaviour, Surface};

struct State {
    /// `sets` key -> value.
    set: BTreeMap<String, String>,
    /// Made id -> its kind.
    made: BTreeMap<String, String>,
    /// Ids made so far in this process.
    count: u64,
}

static STATE: Mutex<State> = Mutex::new(State { set: BTreeMap::new(), made: BTreeMap::new(), count: 0 });

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

fn as_text(v: &Value) -> String {
    v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())
}

/// Why a call with every required argument is refused by `needs` / `uses` / `removes`, if it is.
pub fn refusal(s: &Surface, b: &CallBehaviour, args: &Map<String, Value>) -> Option<String> {
    let st = state();
    for key in &b.needs {
        if !st.set.contains_key(key) {
            let what = key.replace('_', " ");
            let setter = s.calls.iter().find(|(_, c)| c.sets.as_deref() == Some(key.as_str())).map(|(n, _)| n);
            return Some(match setter {
                Some(tool) => format!("No {what} set. Call {tool} first."),
                None => format!("No {what} set."),
            });
        }
    }
    for (arg, kind) in b.uses.iter().chain(&b.removes) {
        let value = args.get(arg).map(as_text).unwrap_or_default();
        if st.made.get(&value) != Some(kind) {
            return Some(format!("{kind} '{value}' not found"));
        }
    }
    None
}

/// What a call with every required argument leaves behind, refused or not (`leaves`).
pub fn attempted(b: &CallBehaviour) {
    if let Some(key) = &b.leaves {
        state().set.insert(key.clone(), String::new());
    }
}

/// The state changes of a call that succeeded: `sets`, `removes`, `makes`. Returns the
/// answer of a maker.
pub fn succeeded(tool: &Value, b: &CallBehaviour, args: &Map<String, Value>) -> Option<String> {
    let mut st = state();
    if let Some(key) = &b.sets {
        let first = tool.pointer("/inputSchema/required/0").and_then(Value::as_str);
        let value = first.and_then(|name| args.get(name)).map(as_text).unwrap_or_default();
        st.set.insert(key.clone(), value);
    }
    for arg in b.removes.keys() {
        if let Some(v) = args.get(arg) {
            st.made.remove(&as_text(v));
        }
    }
    let make = b.makes.as_ref()?;
    st.count += 1;
    let id = format!("{}-{:x}{:04x}", make.kind, std::process::id(), st.count);
    st.made.insert(id.clone(), make.kind.clone());
    Some(make.answer.replace("{id}", &id))
}
