use clap::Parser;

fn main() {
    let cli = mcp_pin::cli::Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let code = runtime.block_on(mcp_pin::app::run(cli));
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    std::process::exit(code);
}
