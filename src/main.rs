//! The `mcp-pin` binary: everything it does is the library's ([`mcp_pin::cli::run`]).

fn main() {
    // First, while no thread exists: run as the helper a stdio server runs under, if asked to
    // (mcp_pin::sandbox::helper), else register this binary as that helper.
    mcp_pin::sandbox::helper::main_if_helper();
    // Children (stdio servers) cannot read this process's environment or memory.
    mcp_pin::sandbox::protect_self();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let status = runtime.block_on(mcp_pin::cli::run::run_from_args());
    // A signal arrived: its handler ends the servers and exits with its own code.
    if mcp_pin::stop::stopped().is_some() {
        loop {
            std::thread::park();
        }
    }
    // Nothing left to flush: stdout is written synchronously. Do not wait for idle blocking threads.
    runtime.shutdown_background();
    std::process::exit(status.code());
}
