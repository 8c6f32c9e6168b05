//! The `mcp-pin` binary: everything it does is the library's ([`mcp_pin::cli::run`]).

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let status = runtime.block_on(mcp_pin::cli::run::run_from_args());
    // Nothing left to flush: stdout is written synchronously. Do not wait for idle blocking threads.
    runtime.shutdown_background();
    std::process::exit(status.code());
}
