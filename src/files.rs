//! Every file mcp-pin reads or writes, through one place each way.
//!
//! - Reading: [`open_regular`] / [`read_regular`]: a regular file only (a lockfile, config, dotenv
//!   file or report shard from a pull request may be a FIFO, a device or a symlink to
//!   `/dev/zero`), size-capped before and while it is read, opened without blocking.
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
    let file = open_regular(path, max)?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(&file, max + 1), &mut text)?;
    if text.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it grew past {max} bytes while being read"),
        ));
    }
    Ok(text)
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
