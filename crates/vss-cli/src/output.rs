//! How results are printed: an aligned table for people, JSON for programs.

use std::fmt::Write as _;

/// Output format of a subcommand.
#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns.
    #[default]
    Table,
    /// One JSON document.
    Json,
}

/// A plain text table with left-aligned columns.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; control characters in its cells are escaped.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows
            .push(cells.iter().map(|cell| printable(cell)).collect());
    }

    /// Renders the table with two spaces between columns.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let mut widths = vec![0usize; columns];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate().take(columns) {
                let _ = write!(line, "{cell:<w$}  ", w = widths[i]);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
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

/// A progress bar on stderr when it is a terminal; hidden otherwise.
pub fn progress(total: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta} left)")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_owned());
    bar
}

/// A spinner on stderr, ticking, with `what` and the time elapsed, when it is a terminal;
/// hidden otherwise.
pub fn spinner(what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let spinner = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        spinner.set_style(style);
    }
    spinner.set_message(what.to_owned());
    spinner.enable_steady_tick(std::time::Duration::from_millis(100));
    spinner
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

/// `text` with its control characters escaped (`\n`, `\u{1b}`): safe to print as (part of)
/// one line on a terminal.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn columns_are_aligned() {
        let mut t = Table::new(&["a", "bbb"]);
        t.row(vec!["long".into(), "x".into()]);
        assert_eq!(t.render(), "a     bbb\nlong  x\n");
    }

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

    #[test]
    fn table_cells_are_escaped() {
        let mut t = Table::new(&["file"]);
        t.row(vec!["a\u{1b}[2J\nb".into()]);
        assert_eq!(t.render(), "file\na\\u{1b}[2J\\nb\n");
    }
}
