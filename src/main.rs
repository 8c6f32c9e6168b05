use clap::Parser;

fn main() {
    let cli = mcp_pin::cli::Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let code = runtime.block_on(mcp_pin::app::run(cli));
    // Nothing left to flush: stdout is written synchronously. Do not wait for idle blocking threads.
    runtime.shutdown_background();
    std::process::exit(code);
}
