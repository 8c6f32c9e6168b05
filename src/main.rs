//! The `mcp-pin` binary: everything it does is the library's ([`mcp_pin::cli::run`]).

fn main() {
    // First, while no thread exists: run as the helper a stdio server runs under, if asked to
    // (mcp_pin::sandbox::helper), else register this binary as that helper.
    mcp_pin::sandbox::helper::main_if_helper();
    // Children (stdio servers) cannot read this process's environment or memory.
    mcp_pin::sandbox::protect_self();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let status = runtime.block_on(mcp_pin::cli::run::run_from_args());
    // A signal stopped the run (nothing was written since): exit with its code once the
    // signal path has ended every server.
    if let Some(signal) = mcp_pin::stop::stopped() {
        mcp_pin::stop::wait_servers_ended(std::time::Duration::from_secs(10));
        std::process::exit(mcp_pin::exit::ExitStatus::Interrupted(signal).code());
    }
    // Nothing left to flush: stdout is written synchronously. Do not wait for idle blocking threads.
    runtime.shutdown_background();
    std::process::exit(status.code());
}
