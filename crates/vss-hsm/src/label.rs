//! Key labels: what a label may contain.

use crate::{Error, Result};

/// Checks that a label is 1–64 characters of `A-Z a-z 0-9 . _ -` and does not start with
/// `.`, so that it is safe as a file name and on a token.
pub fn check_label(label: &str) -> Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if label.is_empty() || label.len() > 64 || label.starts_with('.') || !label.chars().all(allowed)
    {
        return Err(Error::InvalidLabel(label.to_owned()));
    }
    Ok(())
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
}
