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

    /// Appends a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
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
    let mut printable = String::with_capacity(line.len());
    for c in line.chars() {
        if c.is_control() {
            printable.extend(c.escape_default());
        } else {
            printable.push(c);
        }
    }
    printable
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
}
