//! macOS: the sandbox is `sandbox-exec` (Seatbelt) with a profile that makes the Linux
//! sandbox's promises where Seatbelt can: no network, writes only under the scratch folder and
//! to `/dev/null`, no signal to and no process information of any process outside the sandbox.
//! `sandbox-exec` is deprecated by Apple but present on every release; without it there is no
//! sandbox. Not tested by mcp-pin's own CI (it runs on Linux): see `docs/probes.md`.

use std::ffi::CString;
use std::path::Path;

/// Where `sandbox-exec` is.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

pub fn sandbox_available() -> Result<(), String> {
    if Path::new(SANDBOX_EXEC).is_file() {
        Ok(())
    } else {
        Err(format!("{SANDBOX_EXEC} is not on this Mac"))
    }
}

/// A string literal of the profile language.
fn quote(path: &Path) -> String {
    let s = path.to_string_lossy();
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The Seatbelt profile for a sandbox writing only under `write` and reading nothing of `hide`
/// (canonical paths: Seatbelt matches real paths, `/private/var/...` rather than `/var/...`).
/// `file-write*` covers metadata too (`file-write-mode`, `-owner`, `-times`, `-xattr`,
/// `-flags`), judged at the real path, so a link in the scratch copy changes nothing outside.
/// Reads under `open` are allowed again (a later rule wins in Seatbelt), but for what of `hide`
/// lies inside it, denied once more after them.
pub fn profile(write: &Path, hide: &[std::path::PathBuf], open: &[std::path::PathBuf]) -> String {
    let mut p = format!(
        "(version 1)\n\
         (allow default)\n\
         (deny network*)\n\
         (deny file-write*)\n\
         (allow file-write* (subpath {}) (literal \"/dev/null\"))\n\
         (deny signal)\n\
         (allow signal (target same-sandbox))\n\
         (deny process-info*)\n\
         (allow process-info* (target same-sandbox))\n\
         (deny mach-priv-task-port)\n",
        quote(write)
    );
    for h in hide {
        p.push_str(&format!("(deny file-read-data (subpath {}))\n", quote(h)));
    }
    for o in open {
        p.push_str(&format!("(allow file-read-data (subpath {}))\n", quote(o)));
    }
    for h in hide.iter().filter(|h| open.iter().any(|o| h.starts_with(o))) {
        p.push_str(&format!("(deny file-read-data (subpath {}))\n", quote(h)));
    }
    p
}

/// `sandbox-exec -p PROFILE PROGRAM ARGS...` for the helper's `exec`.
pub fn wrap(
    write: &Path,
    hide: &[std::path::PathBuf],
    open: &[std::path::PathBuf],
    program: &CString,
    argv: &[CString],
) -> (CString, Vec<CString>) {
    let text = |s: &str| CString::new(s).unwrap_or_default();
    let mut out = vec![text("sandbox-exec"), text("-p"), text(&profile(write, hide, open)), program.clone()];
    out.extend(argv.iter().skip(1).cloned());
    (text(SANDBOX_EXEC), out)
}
