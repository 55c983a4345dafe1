//! Key labels: what a label may contain.

use crate::{Error, Result};

/// The longest label: 64 characters.
pub const MAX_LABEL_LEN: usize = 64;

/// Checks that a label is 1–64 characters of `A-Z a-z 0-9 . _ -` and does not start with
/// `.`, so that it is safe as a file name and on a token. A refused label comes back in the
/// error escaped (control characters as `\u{…}`) and cut to 64 characters, so a hostile one
/// neither floods nor drives the terminal.
pub fn check_label(label: &str) -> Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if label.is_empty()
        || label.len() > MAX_LABEL_LEN
        || label.starts_with('.')
        || !label.chars().all(allowed)
    {
        return Err(Error::InvalidLabel(printable(label)));
    }
    Ok(())
}

/// Refused text (a label, a name, a URL) as an error may show it: at most
/// [`MAX_LABEL_LEN`] characters, escaped, with `…` and the full length when it was cut.
pub fn printable(text: &str) -> String {
    let shown: String = text.chars().take(MAX_LABEL_LEN).collect();
    let mut out: String = shown.escape_debug().collect();
    let total = text.chars().count();
    if total > MAX_LABEL_LEN {
        out.push_str(&format!("… ({total} characters)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for good in ["a", "station-1", "psnym_0.v2", &"x".repeat(64)] {
            assert!(check_label(good).is_ok(), "{good}");
        }
        for bad in ["", ".hidden", "../x", "a/b", "a b", "é", &"x".repeat(65)] {
            assert!(check_label(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_refused_label_is_escaped_and_cut_in_the_error() {
        let text = |label: &str| check_label(label).expect_err(label).to_string();
        let escaped = text("a\x1b[2J\x07b\n");
        assert!(escaped.contains("a\\u{1b}[2J\\u{7}b\\n"), "{escaped}");
        assert!(!escaped.chars().any(char::is_control), "{escaped:?}");
        let long = text(&"y".repeat(10_000));
        assert!(long.len() < 300, "{}", long.len());
        assert!(long.contains("… (10000 characters)"), "{long}");
    }
}
