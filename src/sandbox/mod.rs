//! Where a stdio server runs, and what it can reach from there.
//!
//! Every stdio server mcp-pin starts runs under a small **helper**: mcp-pin re-executes itself
//! with the hidden first argument [`HELPER_ARG`] ([`helper`]), single-threaded, before any
//! runtime starts. The helper becomes a child subreaper, forks the server, confines it just
//! before `exec`, and stays as its supervisor: when the session ends, when mcp-pin ends however
//! it ends (its end of the server's stdin closes, even after SIGKILL), or on SIGTERM, SIGINT or
//! SIGHUP, it ends the server and every process the server started, a `setsid` daemon included
//! (orphans are reparented to the subreaper, and the helper walks its own process tree).
//!
//! Two confinements ([`Confinement`]):
//! - **session**, every stdio server: the process boundary only. On Linux `no_new_privs` and a
//!   Landlock domain that restricts nothing else: a process inside a Landlock domain cannot
//!   ptrace (nor read `/proc/PID/environ` or the memory of) any process outside it, root
//!   included, and with ABI 6 (Linux 6.12) it cannot signal one either ([`linux`]).
//! - **sandbox**, the second session in which probes call tools that are not read-only: no
//!   network at all (seccomp: every socket family but `AF_UNIX`, `connect`, `io_uring`, ptrace),
//!   writes only under a scratch folder ([`scratch::Scratch`]: a copy of the project folder with
//!   its own home, temp and cache folders) and `/dev/null` (Landlock), no change of any file's
//!   metadata anywhere and no file-system `ioctl` (seccomp), no SysV or POSIX IPC object nor key
//!   in a keyring that could outlive it (seccomp), no read of the real home folder outside what
//!   servers read there ([`scratch::HOME_OPEN`], the server's installation), of its secret
//!   stores nor of the project's ignored secret files (Landlock), no signal or ptrace to any
//!   process outside it, no capability (root included). macOS: `sandbox-exec` with a
//!   profile making the same promises ([`macos`]). Elsewhere there is none ([`available`]).
//!
//! See `docs/probes.md` (what the sandbox promises on each platform) and `docs/security.md` (the
//! process boundary).

#[allow(
    unsafe_code,
    reason = "the helper runs between fork and exec and in the single-threaded child: raw descriptors, signals and exec through libc, each block with its SAFETY note"
)]
pub mod helper;
pub mod keep;
#[cfg(target_os = "linux")]
#[allow(
    unsafe_code,
    reason = "Landlock, seccomp and prctl have no safe binding here: raw syscalls, each block with its SAFETY note"
)]
pub mod linux;
#[cfg(target_os = "macos")]
pub mod macos;
pub mod own_code;
#[cfg(target_os = "linux")]
#[allow(
    unsafe_code,
    reason = "the subreaper waits for and kills orphans through libc (waitpid, prctl), each block with its SAFETY note"
)]
mod reap;
pub mod runner;
pub mod samples;
pub mod scratch;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The hidden first argument that makes `mcp-pin` run as the helper ([`helper::main_if_helper`]).
pub const HELPER_ARG: &str = "__mcp-pin-helper";

/// Where a tool's calls are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    /// The server's own session.
    Session,
    /// A second session of the same server, started inside the sandbox.
    Sandbox,
}

impl Place {
    pub fn as_str(self) -> &'static str {
        match self {
            Place::Session => "session",
            Place::Sandbox => "sandbox",
        }
    }
}

/// How a stdio server is confined.
#[derive(Debug, Clone, Copy)]
pub enum Confinement<'a> {
    /// The process boundary only (every stdio server).
    Session,
    /// The full sandbox: writes only under `write` (and `/dev/null`), no reads of `hide` (the
    /// real files a scratch copy withheld, and the real home folder: [`scratch::Scratch::unreadable`])
    /// but under `open` (the home folder's toolchains and caches, the server's installation:
    /// [`scratch::Scratch::open`]), where what of `hide` lies inside stays hidden.
    Sandbox { write: &'a Path, hide: &'a [PathBuf], open: &'a [PathBuf] },
}

static HELPER: OnceLock<PathBuf> = OnceLock::new();

/// Name the program that runs the helper: the `mcp-pin` binary (`main` does this at start with
/// its own path; a test that drives the library directly names the built binary). Without it,
/// stdio servers run unsupervised and no sandbox is available.
pub fn register_helper(path: PathBuf) {
    let _ = HELPER.set(path);
}

/// The registered helper program, if any.
pub fn helper_program() -> Option<&'static Path> {
    HELPER.get().map(PathBuf::as_path)
}

/// Whether a complete sandbox can be had here, or why not (the reason probes give when they skip
/// a tool that must run in it). Checked once per process.
pub fn available() -> Result<(), String> {
    static AVAILABLE: OnceLock<Result<(), String>> = OnceLock::new();
    AVAILABLE.get_or_init(check_available).clone()
}

fn check_available() -> Result<(), String> {
    if crate::env_vars::get(crate::env_vars::MCP_PIN_NO_SANDBOX).is_some_and(|v| v != "0") {
        return Err(format!("{} is set", crate::env_vars::MCP_PIN_NO_SANDBOX));
    }
    if helper_program().is_none() {
        return Err("mcp-pin runs as a library here, without its helper program".into());
    }
    platform_available()
}

#[cfg(target_os = "linux")]
fn platform_available() -> Result<(), String> {
    linux::sandbox_available()
}

#[cfg(target_os = "macos")]
fn platform_available() -> Result<(), String> {
    macos::sandbox_available()
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn platform_available() -> Result<(), String> {
    Err(format!("mcp-pin has no sandbox on {}", std::env::consts::OS))
}

/// What to execute to start a server under the helper: the helper program and its arguments,
/// and what the helper reads on descriptor [`ARGV_FD`] (the server's program and command line).
/// The server's arguments are never on the helper's own command line: a secret expanded into
/// them would be in the helper's `/proc/PID/cmdline` too, which every process can read.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// PROGRAM, ARGV0, ARGS..., each ended by a NUL byte, for descriptor [`ARGV_FD`].
    pub argv: Vec<u8>,
}

/// The descriptor the helper reads the server's program and command line from
/// ([`Launch::argv`]).
pub const ARGV_FD: i32 = 3;

/// The helper's command line for starting `command` (resolved as `exec` would, against the
/// child's `PATH` and working folder) with `args`. `None` when no helper is registered or the
/// platform has none: the server is then started directly. Errors are the ones starting the
/// command directly would give (it does not exist, it is not executable).
pub fn launch(
    command: &str,
    args: &[String],
    path_env: Option<&str>,
    cwd: Option<&Path>,
    confinement: Confinement<'_>,
) -> std::io::Result<Option<Launch>> {
    if !cfg!(unix) {
        return Ok(None);
    }
    let Some(helper) = helper_program() else { return Ok(None) };
    launch_with(helper, command, args, path_env, cwd, confinement).map(Some)
}

/// [`launch`] with the helper program named.
fn launch_with(
    helper: &Path,
    command: &str,
    args: &[String],
    path_env: Option<&str>,
    cwd: Option<&Path>,
    confinement: Confinement<'_>,
) -> std::io::Result<Launch> {
    let program = resolve(command, path_env, cwd)?;
    let mut out: Vec<OsString> = vec![HELPER_ARG.into()];
    match confinement {
        Confinement::Session => out.push("session".into()),
        Confinement::Sandbox { write, hide, open } => {
            out.push("sandbox".into());
            out.push("--write".into());
            out.push(write.as_os_str().to_owned());
            for h in hide {
                out.push("--hide".into());
                out.push(h.as_os_str().to_owned());
            }
            for o in open {
                out.push("--open".into());
                out.push(o.as_os_str().to_owned());
            }
        }
    }
    out.push("--argv-fd".into());
    out.push(ARGV_FD.to_string().into());
    let mut argv = Vec::new();
    let program = program.into_os_string();
    for a in
        [program.as_os_str(), std::ffi::OsStr::new(command)].into_iter().chain(args.iter().map(std::ffi::OsStr::new))
    {
        argv.extend_from_slice(a.as_encoded_bytes());
        argv.push(0);
    }
    Ok(Launch { program: helper.to_path_buf(), args: out, argv })
}

/// The program `exec` would run for `command`: a name with a `/` as a path (relative to the
/// child's working folder), a bare name looked up on `path_env` (mcp-pin's own `PATH` when the
/// child has none).
pub fn resolve(command: &str, path_env: Option<&str>, cwd: Option<&Path>) -> std::io::Result<PathBuf> {
    let executable = |p: &Path| -> std::io::Result<()> {
        let meta = std::fs::metadata(p)?;
        if meta.is_dir() {
            return Err(std::io::Error::from_raw_os_error(libc_eacces()));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if meta.permissions().mode() & 0o111 == 0 {
                return Err(std::io::Error::from_raw_os_error(libc_eacces()));
            }
        }
        Ok(())
    };
    if command.is_empty() {
        return Err(std::io::Error::from_raw_os_error(libc_enoent()));
    }
    if command.contains('/') {
        let p = Path::new(command);
        let full = match cwd {
            Some(d) if p.is_relative() => d.join(p),
            _ => p.to_path_buf(),
        };
        executable(&full)?;
        return Ok(full);
    }
    let own = std::env::var("PATH").ok();
    let search = path_env.map(str::to_string).or(own).unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let mut denied = false;
    for dir in search.split(':') {
        let dir = if dir.is_empty() { "." } else { dir };
        let mut candidate = PathBuf::from(dir).join(command);
        if candidate.is_relative() {
            if let Some(c) = cwd {
                candidate = c.join(candidate);
            }
        }
        match executable(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.raw_os_error() == Some(libc_eacces()) => denied = true,
            Err(_) => {}
        }
    }
    Err(std::io::Error::from_raw_os_error(if denied { libc_eacces() } else { libc_enoent() }))
}

#[cfg(unix)]
fn libc_eacces() -> i32 {
    libc::EACCES
}
#[cfg(unix)]
fn libc_enoent() -> i32 {
    libc::ENOENT
}
#[cfg(not(unix))]
fn libc_eacces() -> i32 {
    5
}
#[cfg(not(unix))]
fn libc_enoent() -> i32 {
    2
}

/// Make mcp-pin's own process unreadable by its children: not dumpable, so a process of the
/// same user cannot read `/proc/PID/environ` or `/proc/PID/mem` of it, nor attach to it. Root
/// ignores this; the Landlock domain every stdio server runs in is what stops root
/// ([`Confinement::Session`]). Called first thing in `main`.
#[allow(unsafe_code, reason = "prctl(PR_SET_DUMPABLE) through libc, integer arguments only")]
pub fn protect_self() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn resolve_finds_commands_as_exec_would() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("srv");
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("/nonexistent:{}", dir.path().display());
        assert_eq!(resolve("srv", Some(&path), None).unwrap(), bin);
        assert_eq!(resolve("./srv", None, Some(dir.path())).unwrap(), dir.path().join("./srv"));
        let missing = resolve("no-such-server", Some(&path), None).unwrap_err();
        assert_eq!(missing.raw_os_error(), Some(libc::ENOENT));
        let denied = resolve("plain", Some(&path), None).unwrap_err();
        assert_eq!(denied.raw_os_error(), Some(libc::EACCES));
        assert!(resolve("", None, None).is_err());
    }

    #[test]
    #[cfg(unix)]
    fn the_helper_line_names_the_resolved_program_and_keeps_argv0() {
        let helper = Path::new("/opt/mcp-pin");
        let args = vec!["-y".to_string(), "pkg".to_string()];
        let l = launch_with(helper, "sh", &args, Some("/usr/bin:/bin"), None, Confinement::Session).unwrap();
        assert_eq!(l.program, helper);
        let sh = resolve("sh", Some("/usr/bin:/bin"), None).unwrap();
        // The server's command line goes through a descriptor, never on the helper's own.
        let want: Vec<OsString> = vec![HELPER_ARG.into(), "session".into(), "--argv-fd".into(), "3".into()];
        assert_eq!(l.args, want);
        assert_eq!(l.argv, format!("{}\0sh\0-y\0pkg\0", sh.display()).into_bytes());
        let scratch = Path::new("/tmp/scratch");
        let hide = [PathBuf::from("/home/me/.ssh")];
        let l = launch_with(
            helper,
            "sh",
            &[],
            Some("/bin"),
            None,
            Confinement::Sandbox { write: scratch, hide: &hide, open: &[] },
        )
        .unwrap();
        assert_eq!(
            &l.args[1..6],
            &[
                OsString::from("sandbox"),
                "--write".into(),
                "/tmp/scratch".into(),
                "--hide".into(),
                "/home/me/.ssh".into()
            ]
        );
        // A command that cannot start fails here, as starting it directly would.
        let e = launch_with(helper, "no-such-server", &[], Some("/bin"), None, Confinement::Session).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
    }
}
