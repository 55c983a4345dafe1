//! `vssd --config FILE [--socket PATH] [--log-format text|json] [--log-level FILTER]`: the
//! security entity as a service (docs/DAEMON.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Parser;
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
    /// The Unix socket to serve on, instead of the socket of the configuration's daemon table.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Log lines on stderr as text, or as one JSON object per line.
    #[arg(long, value_name = "FORMAT", default_value = "text",
          value_parser = PossibleValuesParser::new(["text", "json"]).try_map(|s| s.parse::<LogFormat>()))]
    log_format: LogFormat,
    /// Which log events are written, in RUST_LOG syntax: a level (error, warn, info, debug,
    /// trace, off) or TARGET=LEVEL, comma-separated, at most 1,024 bytes (as `vss`).
    #[arg(long, value_name = "FILTER", env = "VSS_LOG", default_value = "info")]
    log_level: LogFilter,
}

/// One line, without control characters.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(e) = vss_net::logging::init(args.log_format, &args.log_level) {
        eprintln!("vssd: logging: {}", one_line(&e.to_string()));
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
