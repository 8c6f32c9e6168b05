//! The client's end of the relay: the proxy's own stdin and stdout. When they are pipes or UNIX
//! sockets (how MCP clients start a server), they are read and written through the runtime's
//! event loop, like the server's pipes; otherwise (a terminal, a file) through tokio's stdio,
//! which hands each read and write to a blocking thread (a thread hop per message each way).

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// The proxy's stdin, to read the client's messages from.
pub fn input() -> Pin<Box<dyn AsyncRead + Send>> {
    #[cfg(unix)]
    if let Some(r) = evented::reader() {
        return r;
    }
    Box::pin(tokio::io::stdin())
}

/// The proxy's stdout, to write the client's messages to.
pub fn output() -> Pin<Box<dyn AsyncWrite + Send>> {
    #[cfg(unix)]
    if let Some(w) = evented::writer() {
        return w;
    }
    Box::pin(tokio::io::stdout())
}

#[cfg(unix)]
mod evented {
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;
    use std::pin::Pin;

    use tokio::io::{AsyncRead, AsyncWrite};

    enum Kind {
        Pipe,
        Socket,
    }

    /// A duplicate of `fd` (so the runtime owns what it registers) and what it is.
    fn own(fd: std::os::fd::BorrowedFd<'_>) -> Option<(OwnedFd, Kind)> {
        let owned = fd.try_clone_to_owned().ok()?;
        let file = std::fs::File::from(owned);
        let kind = file.metadata().ok()?.file_type();
        let kind = if kind.is_fifo() {
            Kind::Pipe
        } else if kind.is_socket() {
            Kind::Socket
        } else {
            return None;
        };
        Some((OwnedFd::from(file), kind))
    }

    fn socket(fd: OwnedFd) -> Option<tokio::net::UnixStream> {
        let s = std::os::unix::net::UnixStream::from(fd);
        s.set_nonblocking(true).ok()?;
        tokio::net::UnixStream::from_std(s).ok()
    }

    pub fn reader() -> Option<Pin<Box<dyn AsyncRead + Send>>> {
        let (fd, kind) = own(std::io::stdin().as_fd())?;
        match kind {
            Kind::Pipe => Some(Box::pin(tokio::net::unix::pipe::Receiver::from_owned_fd(fd).ok()?)),
            Kind::Socket => Some(Box::pin(socket(fd)?)),
        }
    }

    pub fn writer() -> Option<Pin<Box<dyn AsyncWrite + Send>>> {
        let (fd, kind) = own(std::io::stdout().as_fd())?;
        match kind {
            Kind::Pipe => Some(Box::pin(tokio::net::unix::pipe::Sender::from_owned_fd(fd).ok()?)),
            Kind::Socket => Some(Box::pin(socket(fd)?)),
        }
    }
}
