//! Canonical OER (COER) decoding and encoding of the 1609.2 structures.
//!
//! Decoding is strict: the bytes must be exactly the canonical encoding of the value
//! (no trailing bytes, no non-minimal lengths), as 1609.2 requires of signed input.

use rasn::{Decode, Encode};

use crate::{Error, Result};

/// The largest encoding VSS decodes (a certificate trust list is the largest structure).
pub const MAX_ENCODED_LEN: usize = 1 << 20;

/// Decodes `bytes` as a `T` and checks that they are its canonical encoding.
pub fn decode<T: Decode + Encode>(what: &'static str, bytes: &[u8]) -> Result<T> {
    if bytes.len() > MAX_ENCODED_LEN {
        return Err(Error::TooLarge {
            what,
            len: bytes.len(),
            max: MAX_ENCODED_LEN,
        });
    }
    let value: T = rasn::coer::decode(bytes).map_err(|e| Error::Malformed {
        what,
        detail: first_line(&e.to_string()),
    })?;
    let again = encode(what, &value)?;
    if again != bytes {
        return Err(Error::Malformed {
            what,
            detail: if again.len() < bytes.len() && bytes.starts_with(&again) {
                format!("{} trailing bytes", bytes.len() - again.len())
            } else {
                "not the canonical (COER) encoding".into()
            },
        });
    }
    Ok(value)
}

/// The canonical OER encoding of `value`.
pub fn encode<T: Encode>(what: &'static str, value: &T) -> Result<Vec<u8>> {
    rasn::coer::encode(value).map_err(|e| Error::Encode {
        what,
        detail: first_line(&e.to_string()),
    })
}

/// The JSON encoding rules (X.697) form of `value`: the structure with the standard's
/// field names, octet strings in hex.
pub fn to_json<T: Encode>(what: &'static str, value: &T) -> Result<serde_json::Value> {
    let text = rasn::jer::encode(value).map_err(|e| Error::Encode {
        what,
        detail: first_line(&e.to_string()),
    })?;
    let mut json = serde_json::from_str(&text).map_err(|e| Error::Encode {
        what,
        detail: e.to_string(),
    })?;
    asn1_identifiers(&mut json);
    Ok(json)
}

/// Fields whose value is an ENUMERATED of 1609.2 (`CertificateType`, `SymmAlgorithm`,
/// `HashAlgorithm`).
const ENUMERATED_FIELDS: [&str; 4] = ["type", "supportedSymmAlg", "hashId", "self"];

/// rasn writes CHOICE alternatives and ENUMERATED values that carry no explicit identifier
/// under their Rust names (`SignedData`, `Explicit`); ASN.1 identifiers begin in lower case
/// (`signedData`, `explicit`), which is what X.697 asks for.
fn asn1_identifiers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut inner) in entries {
                if ENUMERATED_FIELDS.contains(&key.as_str()) {
                    if let serde_json::Value::String(text) = &mut inner {
                        *text = lower_first(text);
                    }
                }
                asn1_identifiers(&mut inner);
                map.insert(lower_first(&key), inner);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(asn1_identifiers),
        _ => {}
    }
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// rasn's messages carry a backtrace after the first line; the first line says it all.
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or("").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asn::Certificate;

    #[test]
    fn empty_and_oversized_input_are_errors() {
        assert!(matches!(
            decode::<Certificate>("certificate", &[]),
            Err(Error::Malformed { .. })
        ));
        let big = vec![0u8; MAX_ENCODED_LEN + 1];
        assert!(matches!(
            decode::<Certificate>("certificate", &big),
            Err(Error::TooLarge { .. })
        ));
    }
}
