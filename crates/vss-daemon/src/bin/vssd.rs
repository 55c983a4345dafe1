//! `vssd --config FILE [--socket PATH] [--log-format text|json]`: the security entity as a
//! service (docs/DAEMON.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use vss_daemon::server::{run, Options};
use vss_net::logging::{LogFilter, LogFormat};

/// The V2X security entity as a gRPC service (vss.v1.SecurityEntity, ETSI TS 102 723-8
/// SN-SAP) on a Unix socket.
#[derive(Parser)]
#[command(name = "vssd", version)]
struct Args {
    /// The configuration file (vss.toml).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The Unix socket to serve on, instead of [daemon] socket.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Log lines as text or JSON (to stderr; the filter is $RUST_LOG, default info).
    #[arg(long, value_enum, default_value = "text")]
    log_format: Format,
}

/// How log lines are written.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
}

/// One line, without control characters.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn main() -> ExitCode {
    let args = Args::parse();
    let format = match args.log_format {
        Format::Text => LogFormat::Text,
        Format::Json => LogFormat::Json,
    };
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into());
    let logging = filter
        .parse::<LogFilter>()
        .and_then(|filter| vss_net::logging::init(format, &filter));
    if let Err(e) = logging {
        eprintln!("vssd: RUST_LOG: {}", one_line(&e.to_string()));
        return ExitCode::FAILURE;
    }
    let options = Options {
        config: args.config,
        socket: args.socket,
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vssd: {}", one_line(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}
