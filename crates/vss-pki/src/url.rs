//! What an authority's base URL may be: where `vss pki serve` says it is reached, and where
//! a trusted PKI's EA is.

use crate::{Error, Result};

/// The longest base URL: 2,048 bytes.
pub const MAX_URL_LEN: usize = 2048;

/// Checks that `url` is an authority's base URL: `http://` or `https://`, then a host, at
/// most [`MAX_URL_LEN`] bytes, with no space or control character; a refused one comes back
/// escaped and cut.
pub fn check_base_url(url: &str) -> Result<()> {
    let host = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .map(|rest| rest.split('/').next().unwrap_or_default());
    let clean = url.chars().all(|c| !c.is_whitespace() && !c.is_control());
    match host {
        Some(host) if !host.is_empty() && clean && url.len() <= MAX_URL_LEN => Ok(()),
        _ => Err(Error::InvalidRequest(format!(
            "'{}' is not an http(s) URL with a host (at most {MAX_URL_LEN} bytes, no spaces)",
            vss_hsm::printable(url)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_need_a_scheme_and_a_host_and_nothing_hostile() {
        for good in [
            "http://127.0.0.1:8080",
            "https://pki.example/ea",
            "http://[::1]:80/",
        ] {
            assert!(check_base_url(good).is_ok(), "{good}");
        }
        let long = format!("http://h/{}", "x".repeat(MAX_URL_LEN));
        for bad in [
            "",
            "ftp://h",
            "http://",
            "http:///path",
            "127.0.0.1:8080",
            "http://h/a b",
            "http://h/\u{1b}[2J",
            long.as_str(),
        ] {
            let err = check_base_url(bad).expect_err(bad).to_string();
            assert!(!err.contains('\u{1b}'), "{err}");
            assert!(err.len() < 300, "{err}");
        }
    }
}
