//! Media types as HTTP compares them (RFC 9110 8.3.1): type and subtype without regard to
//! case, parameters (`; charset=…`) ignored, spaces around them allowed.

/// Whether the `Content-Type` value `value` names the media type `expected` (a lower-case
/// `type/subtype`).
pub fn is_media_type(value: &str, expected: &str) -> bool {
    let essence = value.split(';').next().unwrap_or("").trim();
    match (essence.split_once('/'), expected.split_once('/')) {
        (Some((ty, sub)), Some((want_ty, want_sub))) => {
            ty.eq_ignore_ascii_case(want_ty) && sub.trim().eq_ignore_ascii_case(want_sub)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_media_type;

    const T: &str = "application/x-its-request";

    #[test]
    fn case_and_parameters_do_not_matter() {
        for value in [
            T,
            "Application/X-Its-Request",
            "APPLICATION/X-ITS-REQUEST",
            "application/x-its-request; charset=binary",
            "application/x-its-request;charset=binary;q=1",
            "  application/x-its-request  ",
        ] {
            assert!(is_media_type(value, T), "{value}");
        }
    }

    #[test]
    fn other_types_and_malformed_values_do_not_match() {
        for value in [
            "",
            "application",
            "application/",
            "/x-its-request",
            "application/x-its-response",
            "application/x-its-request-extra",
            "text/x-its-request",
            "application/octet-stream; x=application/x-its-request",
            "application x-its-request",
        ] {
            assert!(!is_media_type(value, T), "{value}");
        }
    }
}
