//! How a run ends, as a type: every command returns an [`ExitStatus`], and the process exit code
//! is derived from it here and nowhere else (uv's `ExitStatus`).

/// The outcome of one run of mcp-pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// The gate passed (or the command did what it was asked).
    Success,
    /// The gate failed: a change or probe failure the gate fails on.
    GateFailed,
    /// An error: bad input, a server that could not be reached, a file that could not be written.
    Error,
    /// Stopped by SIGINT (130), SIGTERM (143) or SIGHUP (129); every server mcp-pin started was
    /// ended and nothing was written after the signal ([`crate::stop`]).
    Interrupted(Signal),
}

/// The signals mcp-pin stops on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Interrupt,
    Terminate,
    /// The terminal went away (or a supervisor said so).
    Hangup,
}

impl Signal {
    /// The signal's usual name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Hangup => "SIGHUP",
        }
    }
}

impl ExitStatus {
    /// The process exit code: 0 pass, 1 the gate failed, 2 an error, 128 + the signal's number.
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::GateFailed => 1,
            ExitStatus::Error => 2,
            ExitStatus::Interrupted(Signal::Interrupt) => 130,
            ExitStatus::Interrupted(Signal::Terminate) => 143,
            ExitStatus::Interrupted(Signal::Hangup) => 129,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_ones() {
        assert_eq!(ExitStatus::Success.code(), 0);
        assert_eq!(ExitStatus::GateFailed.code(), 1);
        assert_eq!(ExitStatus::Error.code(), 2);
        assert_eq!(ExitStatus::Interrupted(Signal::Interrupt).code(), 130);
        assert_eq!(ExitStatus::Interrupted(Signal::Terminate).code(), 143);
        assert_eq!(ExitStatus::Interrupted(Signal::Hangup).code(), 129);
    }
}
