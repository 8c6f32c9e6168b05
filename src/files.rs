//! Every file mcp-pin reads or writes, through one place each way.
//!
//! - Reading: [`open_regular`] / [`read_regular`]: a regular file only (a lockfile, config, dotenv
//!   file or report shard from a pull request may be a FIFO, a device or a symlink to
//!   `/dev/zero`), size-capped before and while it is read, opened without blocking. A file a
//!   crate reads itself is checked the same way first ([`check_regular`], [`vet_ignore_files`]
//!   for the ignore files of the sandbox's scratch copy); a pipe is read only where a user names
//!   one on the command line ([`read_regular_or_pipe`]: `report merge /dev/stdin`).
//! - Writing a file mcp-pin owns (the lockfile, `init`'s config, `review`'s rejections):
//!   [`write_atomic`], a temporary file renamed into place. A signal that stops the run removes
//!   a temporary file still being filled and lets nothing be renamed after it ([`crate::stop`]),
//!   so neither a temporary file nor a file written from an interrupted run is left behind.
//!   Reports a user names are written in place instead ([`crate::sink::write_report`]).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Open `path` for reading only if it is a regular file of at most `max` bytes: a lockfile or
/// config from a pull request may be a symlink to `/dev/zero`, a FIFO or a device, which would
/// be read forever (or block the open itself). The open does not block (`O_NONBLOCK`), and the
/// opened file is checked again, so a swap between the check and the open changes nothing.
pub fn open_regular(path: &Path, max: u64) -> std::io::Result<std::fs::File> {
    let not_regular = |what: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "it is {what}, not a regular file; mcp-pin reads only regular files (replace it with the file itself)"
            ),
        )
    };
    let kind = |m: &std::fs::Metadata| {
        let t = m.file_type();
        if t.is_dir() {
            "a directory"
        } else {
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                if t.is_fifo() {
                    return "a FIFO (named pipe)";
                }
                if t.is_char_device() || t.is_block_device() {
                    return "a device";
                }
                if t.is_socket() {
                    return "a socket";
                }
            }
            "not a regular file"
        }
    };
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(kind(&meta)));
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits());
    }
    let file = opts.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(kind(&meta)));
    }
    if meta.len() > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it is {} bytes, over the limit of {max}; it is not a file mcp-pin wrote", meta.len()),
        ));
    }
    Ok(file)
}

/// Read a regular file of at most `max` bytes as UTF-8 text (see [`open_regular`]).
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<String> {
    read_capped(&open_regular(path, max)?, max)
}

/// At most `max` bytes of `from` as UTF-8 text: capped while it is read, so an endless stream
/// is an error once past the cap, never a huge allocation.
fn read_capped(from: impl std::io::Read, max: u64) -> std::io::Result<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(from, max + 1), &mut text)?;
    if text.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it grew past {max} bytes while being read"),
        ));
    }
    Ok(text)
}

/// The first `n` bytes (or fewer) of a regular file of any size (see [`open_regular`]): what a
/// reader needs to tell what a file is (a script's `#!` line, a line to find in it).
pub fn read_head(path: &Path, n: u64) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(open_regular(path, u64::MAX)?, n), &mut head)?;
    Ok(head)
}

/// [`read_regular`], and also a pipe the user hands mcp-pin on its command line (`report merge
/// /dev/stdin`, a FIFO, a shell's `<(...)`): read as it comes, capped at `max` bytes while it is
/// read. Opening a FIFO waits for its writer, as any reader of a pipe does. Only for a path a
/// user names for mcp-pin to read then and there; never for a file a project holds (a FIFO there
/// would stall the run).
pub fn read_regular_or_pipe(path: &Path, max: u64) -> std::io::Result<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            let file = std::fs::File::open(path)?;
            if file.metadata()?.file_type().is_fifo() {
                return read_capped(&file, max);
            }
        }
    }
    read_regular(path, max)
}

/// The largest ignore file (`.gitignore`, `.ignore`, `.git/info/exclude`) a walk of a project
/// lets be read.
pub const MAX_IGNORE_FILE: u64 = 16 << 20;

/// Check `path` as [`open_regular`] would, for a reader that then opens it itself (a crate):
/// `Ok` when it is absent, cannot be opened at all (that reader reads nothing from it either), or
/// is a regular file of at most `max` bytes; otherwise the refusal [`open_regular`] gives.
pub fn check_regular(path: &Path, max: u64) -> std::io::Result<()> {
    match open_regular(path, max) {
        Err(e) if matches!(e.kind(), std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData) => Err(e),
        _ => Ok(()),
    }
}

/// Check every ignore file a walk of the folder `dir` reads (the `ignore` crate's walker, which
/// opens them itself: the scratch copy of a sandboxed session) with [`check_regular`]:
/// `.gitignore`, `.ignore`, and git's `info/exclude`, found as the walker finds it (`.git/` or,
/// when `.git` is a file, through its `gitdir:` line and that folder's `commondir` file, both of
/// which are read too). A `.gitignore` that is a symlink to `/dev/zero`, a FIFO or a device is
/// refused with a message naming it, before the walker could read it forever or block on it.
/// The error names the file and says what it is.
pub fn vet_ignore_files(dir: &Path) -> Result<(), String> {
    let check = |p: &Path| check_regular(p, MAX_IGNORE_FILE).map_err(|e| format!("{}: {e}", p.display()));
    // The first line of a small file the walker reads one line of (absent or unreadable: none).
    let first_line = |p: &Path| -> Result<Option<String>, String> {
        check(p)?;
        Ok(read_regular(p, MAX_IGNORE_FILE).ok().and_then(|t| t.lines().next().map(str::to_string)))
    };
    check(&dir.join(".gitignore"))?;
    check(&dir.join(".ignore"))?;
    let git = dir.join(".git");
    // As the walker resolves it (`ignore::dir::resolve_git_commondir`): a `.git` file names the
    // real git folder, whose `commondir` names the folder that holds `info/exclude`.
    let common = if std::fs::metadata(&git).is_ok_and(|m| m.is_file()) {
        let Some(real) = first_line(&git)?.and_then(|l| l.strip_prefix("gitdir: ").map(PathBuf::from)) else {
            return Ok(());
        };
        let Some(line) = first_line(&real.join("commondir"))? else { return Ok(()) };
        if line.starts_with('.') {
            real.join(line)
        } else {
            PathBuf::from(line)
        }
    } else {
        git
    };
    check(&common.join("info").join("exclude"))
}

/// Atomically replace `path` with `bytes`. A signal at any moment leaves the old file and no
/// temporary one ([`crate::stop`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = crate::stop::temp_file(&dir)?;
    let filled = (|| {
        tmp.write_all(bytes)?;
        // The temp file is created 0600; the result keeps the permissions of the file it
        // replaces, or gets the usual 0644 (a lockfile is committed and read by others).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let perms = std::fs::metadata(path)
                .map(|m| m.permissions())
                .unwrap_or_else(|_| std::fs::Permissions::from_mode(0o644));
            tmp.as_file().set_permissions(perms)?;
        }
        tmp.as_file().sync_all()
    })();
    match filled {
        Ok(()) => crate::stop::persist(tmp, path)?,
        Err(e) => {
            crate::stop::discard(tmp);
            return Err(e);
        }
    }
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
