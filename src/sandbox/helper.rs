//! The helper every stdio server runs under: `mcp-pin __mcp-pin-helper MODE [--write DIR]
//! [--hide PATH]... [--open PATH]... --argv-fd 3` (built by [`super::launch`]; never typed by a person). It reads
//! `PROGRAM ARGV0 ARGS...` from descriptor 3 (each ended by a NUL byte, up to its end), so the
//! server's arguments (a secret expanded into them, say) are never on the helper's own command
//! line, which any process can read. `-- PROGRAM ARGV0 ARGS...` in place of `--argv-fd N` gives
//! them on the command line (a benchmark's way).
//!
//! It runs first thing in `main`, before any runtime or thread exists ([`main_if_helper`]), so
//! `fork` is safe and Landlock and seccomp restrict exactly the process that becomes the server.
//!
//! 1. Mark every inherited descriptor above stderr close-on-exec (a descriptor mcp-pin's own
//!    parent leaked never reaches a server), become a child subreaper (Linux), catch SIGCHLD,
//!    SIGTERM, SIGINT and SIGHUP through a self-pipe.
//! 2. Fork. The child gets its own process group, a parent-death signal (SIGKILL), the default
//!    dispositions back (SIGPIPE included), its confinement ([`super::Confinement`]), then
//!    `exec`s PROGRAM with ARGV0 and ARGS. A failure before `exec` comes back to the helper
//!    through a close-on-exec pipe: the helper says why on stderr and exits 121 (confinement) or
//!    127 (the program could not be started).
//! 3. Supervise: the helper makes itself undumpable, lets go of stdout (only the server writes
//!    MCP there) and waits for one of: the server exits; its stdin has no writer left (mcp-pin
//!    closed the session, or died, SIGKILL included); SIGTERM, SIGINT or SIGHUP. Then the server
//!    gets SIGTERM and [`GRACE`] to exit, and every process left below the helper is killed
//!    (`setsid` daemons included: orphans come back to the subreaper). The helper exits as the
//!    server did (its code, or the same signal).

use std::ffi::OsString;
use std::path::PathBuf;

use super::HELPER_ARG;

/// How long a server has to exit after SIGTERM before everything below the helper is killed.
pub const GRACE: std::time::Duration = std::time::Duration::from_millis(400);
/// Exit code of the helper when the confinement could not be applied (the server never ran).
pub const CONFINEMENT_FAILED: i32 = 121;
/// The start of the helper's stderr line when the confinement could not be applied.
pub const CONFINEMENT_FAILED_TEXT: &str = "mcp-pin helper: the sandbox could not be applied";

/// What the helper was asked to do.
#[derive(Debug, PartialEq)]
struct Spec {
    /// `None`: the session confinement; `Some(dir)`: the sandbox, writing only under `dir`.
    sandbox: Option<PathBuf>,
    /// The sandbox reads none of these.
    hide: Vec<PathBuf>,
    /// ... but what lies under these, but for what of `hide` lies inside them.
    open: Vec<PathBuf>,
    program: OsString,
    argv: Vec<OsString>,
}

/// At most this many bytes of command line are read from the descriptor (Linux's own limit on
/// a command line and environment together is 2 MiB at most by default).
const ARGV_MAX: usize = 8 * 1024 * 1024;

/// The helper's arguments; `read_fd` reads `PROGRAM ARGV0 ARGS...` from a descriptor.
fn parse(args: &[OsString], read_fd: &dyn Fn(i32) -> Result<Vec<u8>, String>) -> Result<Spec, String> {
    let mut it = args.iter();
    let mode = it.next().ok_or("no mode")?;
    let mut sandbox = None;
    let mut write: Option<PathBuf> = None;
    let mut hide = vec![];
    let mut open = vec![];
    let mut from_fd = None;
    loop {
        match it.next().and_then(|a| a.to_str()) {
            Some("--write") => write = Some(PathBuf::from(it.next().ok_or("--write needs a folder")?)),
            Some("--hide") => hide.push(PathBuf::from(it.next().ok_or("--hide needs a path")?)),
            Some("--open") => open.push(PathBuf::from(it.next().ok_or("--open needs a path")?)),
            Some("--argv-fd") => {
                let fd = it.next().and_then(|a| a.to_str()).and_then(|a| a.parse::<i32>().ok());
                from_fd = Some(fd.filter(|fd| *fd > 2).ok_or("--argv-fd needs a descriptor above 2")?);
                break;
            }
            Some("--") => break,
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    match mode.to_str() {
        Some("session") => {}
        Some("sandbox") => sandbox = Some(write.ok_or("the sandbox needs --write")?),
        other => return Err(format!("unknown mode {other:?}")),
    }
    let mut line: Vec<OsString> = match from_fd {
        Some(fd) => {
            if it.next().is_some() {
                return Err("nothing may follow --argv-fd N".into());
            }
            let bytes = read_fd(fd)?;
            let Some(body) = bytes.strip_suffix(&[0]) else {
                return Err("the command line read is not NUL-ended".into());
            };
            body.split(|b| *b == 0).map(|a| os_from_bytes(a.to_vec())).collect()
        }
        None => it.cloned().collect(),
    };
    if line.is_empty() {
        return Err("no program".into());
    }
    let program = line.remove(0);
    if line.is_empty() {
        return Err("no argv[0]".into());
    }
    Ok(Spec { sandbox, hide, open, program, argv: line })
}

#[cfg(unix)]
fn os_from_bytes(b: Vec<u8>) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(b)
}
#[cfg(not(unix))]
fn os_from_bytes(b: Vec<u8>) -> OsString {
    OsString::from(String::from_utf8_lossy(&b).into_owned())
}

/// Everything on descriptor `fd` up to its end ([`ARGV_MAX`] at most), then the descriptor closed.
#[cfg(unix)]
fn read_fd(fd: i32) -> Result<Vec<u8>, String> {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // SAFETY: the descriptor was handed over for this alone (mcp-pin's spawn puts the read end
    // of a pipe there); it is owned, read and closed here, once.
    let file = unsafe { std::fs::File::from_raw_fd(fd) };
    let mut out = Vec::new();
    file.take(ARGV_MAX as u64 + 1).read_to_end(&mut out).map_err(|e| format!("reading descriptor {fd}: {e}"))?;
    if out.len() > ARGV_MAX {
        return Err(format!("the command line on descriptor {fd} is longer than {ARGV_MAX} bytes"));
    }
    Ok(out)
}
#[cfg(not(unix))]
fn read_fd(fd: i32) -> Result<Vec<u8>, String> {
    Err(format!("descriptor {fd}: not on this system"))
}

/// Run as the helper when the first argument says so (and never return), else register this
/// program as the helper for the servers this process starts and return. Call it first in
/// `main`, before any thread exists.
pub fn main_if_helper() {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).and_then(|a| a.to_str()) != Some(HELPER_ARG) {
        if let Ok(exe) = std::env::current_exe() {
            super::register_helper(exe);
        }
        return;
    }
    let code = match parse(&args[2..], &read_fd) {
        Ok(spec) => run(spec),
        Err(e) => {
            let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("mcp-pin helper: {e}\n").as_bytes());
            2
        }
    };
    std::process::exit(code);
}

#[cfg(not(unix))]
fn run(_spec: Spec) -> i32 {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), b"mcp-pin helper: not available on this system\n");
    2
}

#[cfg(unix)]
use unix::run;

#[cfg(unix)]
mod unix {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::time::Instant;

    use super::{Spec, CONFINEMENT_FAILED, CONFINEMENT_FAILED_TEXT, GRACE};

    /// The write end of the self-pipe the signal handler writes to.
    static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);

    extern "C" fn on_signal(sig: libc::c_int) {
        let b = sig as u8;
        // SAFETY: write(2) is async-signal-safe; the fd is a non-blocking pipe (a full pipe
        // drops the byte, and a wake-up is already pending).
        unsafe {
            libc::write(SIGNAL_PIPE.load(Ordering::Relaxed), (&b as *const u8).cast(), 1);
        }
    }

    const CAUGHT: [libc::c_int; 4] = [libc::SIGCHLD, libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

    fn say(text: &str) {
        let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{text}\n").as_bytes());
    }

    fn pipe(flags: libc::c_int) -> std::io::Result<[libc::c_int; 2]> {
        let mut fds = [-1; 2];
        // SAFETY: fds is a valid two-int buffer.
        #[cfg(target_os = "linux")]
        let r = unsafe { libc::pipe2(fds.as_mut_ptr(), flags | libc::O_CLOEXEC) };
        #[cfg(not(target_os = "linux"))]
        let r = unsafe {
            let r = libc::pipe(fds.as_mut_ptr());
            if r == 0 {
                for fd in fds {
                    libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
                    if flags & libc::O_NONBLOCK != 0 {
                        libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK);
                    }
                }
            }
            r
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(fds)
    }

    /// Every descriptor above stderr close-on-exec.
    fn cloexec_above_stderr() {
        #[cfg(target_os = "linux")]
        {
            const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
            // SAFETY: close_range with integer arguments.
            if unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC) } == 0 {
                return;
            }
        }
        // SAFETY: fcntl on descriptors that may not exist (EBADF is ignored).
        unsafe {
            let max = libc::sysconf(libc::_SC_OPEN_MAX).clamp(256, 65_536) as libc::c_int;
            for fd in 3..max {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
    }

    fn cstring(s: &std::ffi::OsStr) -> Result<CString, String> {
        CString::new(s.as_bytes()).map_err(|_| format!("{} contains a NUL byte", s.to_string_lossy()))
    }

    pub fn run(spec: Spec) -> i32 {
        cloexec_above_stderr();
        let program = match cstring(&spec.program) {
            Ok(p) => p,
            Err(e) => {
                say(&format!("mcp-pin helper: {e}"));
                return 127;
            }
        };
        let argv: Result<Vec<CString>, String> = spec.argv.iter().map(|a| cstring(a)).collect();
        let argv = match argv {
            Ok(a) => a,
            Err(e) => {
                say(&format!("mcp-pin helper: {e}"));
                return 127;
            }
        };
        let (signals, status) = match (pipe(libc::O_NONBLOCK), pipe(0)) {
            (Ok(s), Ok(t)) => (s, t),
            (Err(e), _) | (_, Err(e)) => {
                say(&format!("mcp-pin helper: pipe: {e}"));
                return 127;
            }
        };
        SIGNAL_PIPE.store(signals[1], Ordering::Relaxed);
        // SAFETY: plain libc calls in a single-threaded process; the child only calls
        // async-signal-safe functions and the confinement (which allocates: safe here, no other
        // thread can hold a lock) before exec or _exit.
        unsafe {
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            for sig in CAUGHT {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                sa.sa_flags = if sig == libc::SIGCHLD { libc::SA_NOCLDSTOP } else { 0 };
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            }
            let helper = libc::getpid();
            let pid = libc::fork();
            if pid < 0 {
                say(&format!("mcp-pin helper: fork: {}", std::io::Error::last_os_error()));
                return 127;
            }
            if pid == 0 {
                libc::close(signals[0]);
                libc::close(signals[1]);
                libc::close(status[0]);
                child(&spec, helper, &program, &argv, status[1]);
            }
            libc::close(status[1]);
            if let Some(code) = started(status[0], pid, &spec) {
                return code;
            }
            libc::close(status[0]);
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
            // Only the server writes on the MCP channel; the helper keeps stdin to notice when
            // its writer is gone.
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
            if null >= 0 {
                libc::dup2(null, 1);
                libc::close(null);
            }
            supervise(pid, signals[0])
        }
    }

    /// The forked child: confine, then exec; on failure tell the helper through `status`.
    unsafe fn child(spec: &Spec, helper: libc::pid_t, program: &CString, argv: &[CString], status: libc::c_int) -> ! {
        let fail = |code: i32, text: String| -> ! {
            libc::write(status, text.as_ptr().cast(), text.len());
            libc::_exit(code)
        };
        for sig in CAUGHT.iter().copied().chain([libc::SIGPIPE]) {
            libc::signal(sig, libc::SIG_DFL);
        }
        libc::setpgid(0, 0);
        #[cfg(target_os = "linux")]
        {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            if libc::getppid() != helper {
                libc::_exit(1);
            }
        }
        let _ = helper;
        #[cfg_attr(not(target_os = "macos"), allow(unused_mut))]
        let mut exec: (CString, Vec<CString>) = (program.clone(), argv.to_vec());
        match &spec.sandbox {
            None => {
                #[cfg(target_os = "linux")]
                if let Err(e) = crate::sandbox::linux::confine_session() {
                    // The boundary is best effort (an old kernel); a failure is said, not fatal.
                    say(&format!("mcp-pin helper: note: {e}"));
                }
            }
            Some(dir) => {
                #[cfg(target_os = "linux")]
                if let Err(e) = crate::sandbox::linux::confine_sandbox(dir, &spec.hide, &spec.open) {
                    fail(CONFINEMENT_FAILED, format!("confine:{e}"));
                }
                #[cfg(target_os = "macos")]
                {
                    exec = crate::sandbox::macos::wrap(dir, &spec.hide, &spec.open, program, argv);
                }
                #[cfg(not(any(target_os = "linux", target_os = "macos")))]
                {
                    let _ = dir;
                    fail(CONFINEMENT_FAILED, "confine:no sandbox on this system".into());
                }
            }
        }
        let mut ptrs: Vec<*const libc::c_char> = exec.1.iter().map(|a| a.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        libc::execv(exec.0.as_ptr(), ptrs.as_ptr());
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        fail(127, format!("exec:{errno}"))
    }

    /// Read the child's report until exec closes the pipe: `None` when the server started,
    /// else the helper's exit code after saying why.
    unsafe fn started(fd: libc::c_int, pid: libc::pid_t, spec: &Spec) -> Option<i32> {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 512];
        loop {
            let n = libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len());
            if n > 0 {
                buf.extend_from_slice(&chunk[..n as usize]);
            } else if n == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
        if buf.is_empty() {
            return None;
        }
        let mut st = 0;
        libc::waitpid(pid, &mut st, 0);
        let text = String::from_utf8_lossy(&buf);
        let name = spec.argv[0].to_string_lossy();
        if let Some(why) = text.strip_prefix("confine:") {
            say(&format!("{CONFINEMENT_FAILED_TEXT}: {why}"));
            return Some(CONFINEMENT_FAILED);
        }
        let errno = text.strip_prefix("exec:").and_then(|e| e.parse().ok()).unwrap_or(0);
        say(&format!("mcp-pin helper: cannot start `{name}`: {}", std::io::Error::from_raw_os_error(errno)));
        Some(127)
    }

    /// Wait for the end (see the module docs), end everything, exit as the server did.
    unsafe fn supervise(server: libc::pid_t, signals: libc::c_int) -> i32 {
        let mut server_status: Option<i32> = None;
        let mut deadline: Option<Instant> = None;
        let mut watch_stdin = true;
        let begin_end = |deadline: &mut Option<Instant>| {
            if deadline.is_none() {
                libc::kill(server, libc::SIGTERM);
                *deadline = Some(Instant::now() + GRACE);
            }
        };
        loop {
            loop {
                let mut st = 0;
                let pid = libc::waitpid(-1, &mut st, libc::WNOHANG);
                if pid <= 0 {
                    break;
                }
                if pid == server {
                    server_status = Some(st);
                }
            }
            if server_status.is_some() {
                break;
            }
            let timeout = match deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    left.as_millis().clamp(1, 60_000) as libc::c_int
                }
                None => -1,
            };
            let mut fds = [
                libc::pollfd { fd: signals, events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: if watch_stdin { 0 } else { -1 }, events: 0, revents: 0 },
            ];
            libc::poll(fds.as_mut_ptr(), 2, timeout);
            if fds[0].revents & libc::POLLIN != 0 {
                let mut buf = [0u8; 64];
                loop {
                    let n = libc::read(signals, buf.as_mut_ptr().cast(), buf.len());
                    if n <= 0 {
                        break;
                    }
                    if buf[..n as usize].iter().any(|&s| s as libc::c_int != libc::SIGCHLD) {
                        begin_end(&mut deadline);
                    }
                }
            }
            if watch_stdin && fds[1].revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
                watch_stdin = false;
                begin_end(&mut deadline);
            }
        }
        let reaped = end_everything(server);
        exit_as(server_status.or(reaped))
    }

    /// Kill every process left below the helper and reap them; the server's wait status if it
    /// was among them.
    unsafe fn end_everything(server: libc::pid_t) -> Option<i32> {
        #[cfg(target_os = "linux")]
        {
            crate::sandbox::reap::kill_tree(server)
        }
        #[cfg(not(target_os = "linux"))]
        {
            // No subreaper here: the server's process group is what can be reached.
            libc::killpg(server, libc::SIGKILL);
            let mut status = None;
            loop {
                let mut st = 0;
                let pid = libc::waitpid(-1, &mut st, 0);
                if pid <= 0 {
                    break;
                }
                if pid == server {
                    status = Some(st);
                }
            }
            status
        }
    }

    /// Exit with the server's code, or die of the same signal.
    unsafe fn exit_as(status: Option<i32>) -> i32 {
        match status {
            Some(st) if libc::WIFEXITED(st) => libc::WEXITSTATUS(st),
            Some(st) if libc::WIFSIGNALED(st) => {
                let sig = libc::WTERMSIG(st);
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
                128 + sig
            }
            _ => 128 + libc::SIGKILL,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_what_launch_builds() {
        let no_fd = |_: i32| -> Result<Vec<u8>, String> { panic!("no descriptor here") };
        let p = |a: &[&str]| parse(&os(a), &no_fd);
        let s = p(&["session", "--", "/usr/bin/npx", "npx", "-y", "pkg"]).unwrap();
        let want = Spec {
            sandbox: None,
            hide: vec![],
            open: vec![],
            program: "/usr/bin/npx".into(),
            argv: os(&["npx", "-y", "pkg"]),
        };
        assert_eq!(s, want);
        let s = p(&["sandbox", "--write", "/tmp/s", "--hide", "/h/.ssh", "--open", "/h/.npm", "--", "/bin/srv", "srv"])
            .unwrap();
        assert_eq!(s.sandbox, Some(PathBuf::from("/tmp/s")));
        assert_eq!(s.hide, vec![PathBuf::from("/h/.ssh")]);
        assert_eq!(s.open, vec![PathBuf::from("/h/.npm")]);
        assert!(p(&["sandbox", "--", "/bin/srv", "srv"]).is_err(), "a sandbox names its folder");
        assert!(p(&["other", "--", "/bin/srv", "srv"]).is_err());
        assert!(p(&["session", "--", "/bin/srv"]).is_err(), "argv[0] is required");
        assert!(p(&["session", "--bogus", "--", "/bin/srv", "srv"]).is_err());
        // What mcp-pin sends: the command line on a descriptor.
        let fd = |n: i32| -> Result<Vec<u8>, String> {
            assert_eq!(n, 3);
            Ok(b"/usr/bin/npx\0npx\0--token=s3cr3t-value\0\0".to_vec())
        };
        let s = parse(&os(&["session", "--argv-fd", "3"]), &fd).unwrap();
        assert_eq!(s.program, OsString::from("/usr/bin/npx"));
        assert_eq!(s.argv, os(&["npx", "--token=s3cr3t-value", ""]), "an empty argument is kept");
        assert!(parse(&os(&["session", "--argv-fd", "3", "x"]), &fd).is_err());
        assert!(parse(&os(&["session", "--argv-fd", "1"]), &fd).is_err(), "never stdin, stdout or stderr");
        let unended = |_: i32| -> Result<Vec<u8>, String> { Ok(b"/bin/srv\0srv".to_vec()) };
        assert!(parse(&os(&["session", "--argv-fd", "3"]), &unended).is_err());
    }
}
