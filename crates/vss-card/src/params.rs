//! The system parameters the card is given by PUT DATA (tag `01 01`): a versioned layout
//! from which the card takes the base point of `P` and `T`.
//!
//! Version 1 is `01 ‖ base (48-byte compressed G1 point) ‖ opaque bytes`, at most
//! [`MAX_SYSTEM_PARAMETERS`] bytes in all. The card checks the point and keeps the rest for
//! whoever reads it back.

use vss_cred::group::{g1_nonzero_from_bytes, g1_to_bytes, EncodingError, G1, G1_LEN};

/// The layout version this card understands.
pub const SYSTEM_PARAMETERS_VERSION: u8 = 1;
/// The longest system parameters the card stores, in bytes.
pub const MAX_SYSTEM_PARAMETERS: usize = 1024;

/// Why bytes are not system parameters the card can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// Longer than [`MAX_SYSTEM_PARAMETERS`].
    #[error("system parameters are {0} bytes, at most {MAX_SYSTEM_PARAMETERS} are allowed")]
    TooLong(usize),
    /// Shorter than the version byte and the base point.
    #[error("system parameters are truncated")]
    Truncated,
    /// A layout version other than [`SYSTEM_PARAMETERS_VERSION`].
    #[error("system parameters version {0} is not supported")]
    Version(u8),
    /// The base point is not a non-identity point of G1.
    #[error("the base point is invalid: {0}")]
    Base(EncodingError),
}

/// The version-1 encoding of `base` followed by the opaque `rest`.
pub fn encode_system_parameters(base: &G1, rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + G1_LEN + rest.len());
    out.push(SYSTEM_PARAMETERS_VERSION);
    out.extend_from_slice(&g1_to_bytes(base));
    out.extend_from_slice(rest);
    out
}

/// The base point of encoded system parameters, checked.
pub fn parse_base(bytes: &[u8]) -> Result<G1, ParamsError> {
    if bytes.len() > MAX_SYSTEM_PARAMETERS {
        return Err(ParamsError::TooLong(bytes.len()));
    }
    let [version, rest @ ..] = bytes else {
        return Err(ParamsError::Truncated);
    };
    if *version != SYSTEM_PARAMETERS_VERSION {
        return Err(ParamsError::Version(*version));
    }
    let point = rest.get(..G1_LEN).ok_or(ParamsError::Truncated)?;
    g1_nonzero_from_bytes(point).map_err(ParamsError::Base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_cred::group::hash_to_curve_g1;

    #[test]
    fn the_base_point_round_trips_and_bad_layouts_are_refused() {
        let base = hash_to_curve_g1(b"base", b"TEST");
        let bytes = encode_system_parameters(&base, b"opaque");
        assert_eq!(parse_base(&bytes), Ok(base));
        assert_eq!(parse_base(&[]), Err(ParamsError::Truncated));
        assert_eq!(parse_base(&bytes[..40]), Err(ParamsError::Truncated));
        let mut v2 = bytes.clone();
        v2[0] = 2;
        assert_eq!(parse_base(&v2), Err(ParamsError::Version(2)));
        let mut zero = vec![1u8; 49];
        zero[1..].copy_from_slice(&g1_to_bytes(&G1::default()));
        assert_eq!(
            parse_base(&zero),
            Err(ParamsError::Base(EncodingError::Identity))
        );
        let long = encode_system_parameters(&base, &[0; MAX_SYSTEM_PARAMETERS]);
        assert_eq!(
            parse_base(&long),
            Err(ParamsError::TooLong(MAX_SYSTEM_PARAMETERS + 49))
        );
    }
}
