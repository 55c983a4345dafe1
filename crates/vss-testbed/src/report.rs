//! What a harness returns and how its figures are laid out for people: a [`Report`], aligned
//! text [`Table`]s, and progress bars on stderr.

use std::fmt::Write as _;

/// What a benchmark or scenario measured: one JSON document for programs, the same figures
/// as text for people, and the first check of the run that did not pass.
#[derive(Debug, Clone)]
pub struct Report {
    /// The figures as one JSON document.
    pub json: serde_json::Value,
    /// The figures as text for a terminal (usually a rendered [`Table`]).
    pub table: String,
    /// What did not pass; `None` when every check of the run passed.
    pub failure: Option<String>,
}

impl Report {
    /// A report whose checks passed when `success`, and otherwise failed for `failure`.
    pub fn checked(
        json: serde_json::Value,
        table: String,
        success: bool,
        failure: impl Into<String>,
    ) -> Report {
        Report {
            json,
            table,
            failure: (!success).then(|| failure.into()),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_aligned() {
        let mut t = Table::new(&["a", "bbb"]);
        t.row(vec!["long".into(), "x".into()]);
        assert_eq!(t.render(), "a     bbb\nlong  x\n");
    }

    #[test]
    fn table_cells_are_escaped() {
        let mut t = Table::new(&["file"]);
        t.row(vec!["a\u{1b}[2J\nb".into()]);
        assert_eq!(t.render(), "file\na\\u{1b}[2J\\nb\n");
    }

    #[test]
    fn a_report_fails_only_when_its_check_did_not_pass() {
        let passed = Report::checked(serde_json::json!({}), String::new(), true, "x");
        assert!(passed.failure.is_none());
        let failed = Report::checked(serde_json::json!({}), String::new(), false, "slow");
        assert_eq!(failed.failure.as_deref(), Some("slow"));
    }
}
