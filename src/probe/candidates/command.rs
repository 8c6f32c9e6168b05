//! A command for a tool that starts a process and returns while it runs (`start_process`,
//! `spawn_terminal`, `launch_repl`): the tools after it send it input, read its output and end
//! it, so the process must still be running when they are called. `sleep 600` runs on whatever
//! it is sent (`cat` ends when a tool closes its input), reads nothing and writes nothing; the
//! process is started in the sandbox (the tool changes things) and ends with it.

use super::hints::words;

/// Verbs of a tool that starts a process and returns while it runs.
const STARTING_VERBS: &[&str] = &["start", "spawn", "launch", "open", "create", "new"];
/// What such a tool starts.
const PROCESS_WORDS: &[&str] = &["process", "terminal", "shell", "repl", "session", "console", "pty"];
/// Names of a property that takes a command line.
const COMMAND_WORDS: &[&str] = &["command", "cmd", "commandline"];

/// The command a process a tool starts is given: it runs on, whatever it is sent.
pub const LASTING: &str = "sleep 600";

/// Whether property `prop` of tool `tool` takes the command of a process the tool starts and
/// leaves running.
pub fn starts_process(tool: &str, prop: &str) -> bool {
    let tw = words(tool);
    let starts = tw.first().is_some_and(|v| STARTING_VERBS.contains(&v.as_str()));
    starts
        && tw.iter().any(|w| PROCESS_WORDS.contains(&w.as_str()))
        && words(prop).iter().any(|w| COMMAND_WORDS.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_that_starts_a_process_gets_a_command_that_lasts() {
        assert!(starts_process("start_process", "command"));
        assert!(starts_process("spawnTerminal", "cmd"));
        // A tool that runs a command and waits for it, or a property that is no command: no.
        assert!(!starts_process("execute_command", "command"));
        assert!(!starts_process("run_process", "command"));
        assert!(!starts_process("start_process", "timeout_ms"));
        assert!(!starts_process("start_search", "pattern"));
    }
}
