//! How results are printed: an aligned table for people, JSON for programs.

use vss_testbed::report::Report;
pub use vss_testbed::report::{printable, progress, spinner, Table};

/// Output format of a subcommand.
#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns.
    #[default]
    Table,
    /// One JSON document.
    Json,
}

/// Writes `text` to stdout; a closed or failing stdout is an error, not a panic.
pub fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| anyhow::anyhow!("cannot write to stdout: {e}"))
}

/// Writes a JSON value on one line to stdout.
pub fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    emit(&format!("{value}\n"))
}

/// Prints a harness's report in the chosen format; the exit code says whether every check
/// of the run passed, and stderr says which one did not.
pub fn finish(format: Format, report: &Report) -> anyhow::Result<std::process::ExitCode> {
    match format {
        Format::Json => print_json(&report.json)?,
        Format::Table => emit(&report.table)?,
    }
    Ok(match &report.failure {
        None => std::process::ExitCode::SUCCESS,
        Some(failure) => {
            eprintln!("vss: {failure}");
            std::process::ExitCode::FAILURE
        }
    })
}

/// An error and its causes as the one line `vss` prints: each cause once (one whose text its
/// parent already shows, such as an OS error a wrapper quotes, is left out), and control
/// characters escaped so that nothing from outside breaks the line or drives the terminal.
pub fn error_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    printable(&line)
}

/// Reports a command-line error as clap found it: help and version as clap prints them (on
/// stdout, exit 0); a usage error as one line on stderr, exit 2.
pub fn usage_error(error: clap::Error) -> std::process::ExitCode {
    use clap::error::ErrorKind;
    if let ErrorKind::DisplayHelp | ErrorKind::DisplayVersion = error.kind() {
        // A closed stdout leaves nothing to tell.
        let _ = error.print();
        return std::process::ExitCode::SUCCESS;
    }
    let code = u8::try_from(error.exit_code()).unwrap_or(2);
    eprintln!("vss: {}", usage_line(error));
    std::process::ExitCode::from(code)
}

/// A clap usage error (several lines: what is wrong, a list or a tip, the usage, where
/// help is) as one line: without its "error: " prefix, the items of a list that follows a
/// colon joined with commas, the other lines with semicolons. The arguments clap quotes
/// are escaped before it renders them, so they show as given and cannot split the line;
/// what is left (a value parser's message may quote the value too) is escaped after.
fn usage_line(mut error: clap::Error) -> String {
    use clap::error::ContextValue;
    let escaped: Vec<_> = error
        .context()
        .filter_map(|(kind, value)| match value {
            ContextValue::String(s) => Some((kind, ContextValue::String(printable(s)))),
            ContextValue::Strings(all) => Some((
                kind,
                ContextValue::Strings(all.iter().map(|s| printable(s)).collect()),
            )),
            _ => None,
        })
        .collect();
    for (kind, value) in escaped {
        error.insert(kind, value);
    }
    let text = error.render().to_string();
    let mut line = String::new();
    let mut listing = false;
    for raw in text.lines() {
        let item = raw.trim();
        if item.is_empty() {
            continue;
        }
        let indented = raw.starts_with(char::is_whitespace);
        if line.is_empty() {
            line.push_str(item.strip_prefix("error: ").unwrap_or(item));
        } else if indented && listing {
            line.push_str(if line.ends_with(':') { " " } else { ", " });
            line.push_str(item);
            continue;
        } else {
            line.push_str("; ");
            line.push_str(item);
        }
        listing = item.ends_with(':');
    }
    printable(&line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn each_cause_once_on_one_line() {
        let os = std::io::Error::from_raw_os_error(2);
        let quoted = format!("/x: {os}");
        let error = anyhow::Error::new(os)
            .context(quoted)
            .context("reading the trust store");
        assert_eq!(
            error_line(&error),
            "reading the trust store: /x: No such file or directory (os error 2)"
        );
        let hostile: anyhow::Result<()> = Err(anyhow::anyhow!("bad\nlabel \u{1b}[2J"));
        let line = error_line(&hostile.context("keys").expect_err("error"));
        assert_eq!(line, "keys: bad\\nlabel \\u{1b}[2J");
    }

    #[test]
    fn usage_errors_are_one_line() {
        use clap::{Arg, Command};
        let command = || {
            Command::new("vss")
                .arg(Arg::new("label").long("label").required(true))
                .arg(Arg::new("out").long("out").required(true))
                .arg(
                    Arg::new("count")
                        .long("count")
                        .value_parser(clap::value_parser!(u32)),
                )
        };
        let line = |args: &[&str]| {
            usage_line(
                command()
                    .try_get_matches_from(args)
                    .expect_err("usage error"),
            )
        };
        assert_eq!(
            line(&["vss"]),
            "the following required arguments were not provided: --label <label>, \
             --out <out>; Usage: vss --label <label> --out <out>; \
             For more information, try '--help'."
        );
        let hostile = line(&["vss", "--label", "x", "--out", "y", "--count", "7\n\t\u{7}"]);
        assert!(
            hostile.starts_with("invalid value '7\\n\\t\\u{7}' for '--count <count>'"),
            "{hostile}"
        );
        assert!(!hostile.contains(char::is_control), "{hostile}");
    }
}
