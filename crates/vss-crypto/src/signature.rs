//! ECDSA signatures and their two encodings: DER (X9.62) and raw r ‖ s (IEEE P1363).

use crate::{Curve, Error, Result};

/// An ECDSA signature `(r, s)` for a given curve, held as fixed-width big-endian r ‖ s.
///
/// Parsing checks the encoding only; whether `0 < r, s < n` is the verifier's question.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Signature {
    curve: Curve,
    r_s: Vec<u8>,
}

impl Signature {
    /// Parses IEEE P1363 form: exactly `2 × scalar_len` bytes, r then s.
    pub fn from_p1363(curve: Curve, bytes: &[u8]) -> Result<Self> {
        if bytes.len() != 2 * curve.scalar_len() {
            return Err(Error::MalformedSignature(
                "P1363 signature of the wrong length",
            ));
        }
        Ok(Signature {
            curve,
            r_s: bytes.to_vec(),
        })
    }

    /// Parses strict DER: `SEQUENCE { INTEGER r, INTEGER s }`, minimal lengths, minimal
    /// non-negative integers, nothing after the sequence.
    pub fn from_der(curve: Curve, bytes: &[u8]) -> Result<Self> {
        let (body, rest) = der_element(bytes, 0x30)?;
        if !rest.is_empty() {
            return Err(Error::MalformedSignature(
                "trailing bytes after the DER sequence",
            ));
        }
        let (r, body) = der_element(body, 0x02)?;
        let (s, body) = der_element(body, 0x02)?;
        if !body.is_empty() {
            return Err(Error::MalformedSignature(
                "extra elements in the DER sequence",
            ));
        }
        let n = curve.scalar_len();
        let mut r_s = vec![0u8; 2 * n];
        copy_der_integer(r, &mut r_s[..n])?;
        copy_der_integer(s, &mut r_s[n..])?;
        Ok(Signature { curve, r_s })
    }

    /// The curve this signature belongs to.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// r, big-endian, `scalar_len` bytes.
    pub fn r(&self) -> &[u8] {
        &self.r_s[..self.curve.scalar_len()]
    }

    /// s, big-endian, `scalar_len` bytes.
    pub fn s(&self) -> &[u8] {
        &self.r_s[self.curve.scalar_len()..]
    }

    /// IEEE P1363 form: r ‖ s.
    pub fn to_p1363(&self) -> &[u8] {
        &self.r_s
    }

    /// DER form.
    pub fn to_der(&self) -> Vec<u8> {
        let r = der_integer(self.r());
        let s = der_integer(self.s());
        let mut body = r;
        body.extend_from_slice(&s);
        let mut out = vec![0x30];
        push_der_length(&mut out, body.len());
        out.extend_from_slice(&body);
        out
    }
}

/// Splits one DER element with the expected tag off the front of `bytes`.
fn der_element(bytes: &[u8], tag: u8) -> Result<(&[u8], &[u8])> {
    let malformed = Error::MalformedSignature;
    let (&t, rest) = bytes.split_first().ok_or(malformed("truncated DER"))?;
    if t != tag {
        return Err(malformed("unexpected DER tag"));
    }
    let (&first, rest) = rest.split_first().ok_or(malformed("truncated DER"))?;
    let (len, rest) = match first {
        0..=0x7f => (usize::from(first), rest),
        0x81 => {
            let (&l, rest) = rest.split_first().ok_or(malformed("truncated DER"))?;
            if l < 0x80 {
                return Err(malformed("non-minimal DER length"));
            }
            (usize::from(l), rest)
        }
        _ => return Err(malformed("unsupported DER length form")),
    };
    if rest.len() < len {
        return Err(malformed("truncated DER"));
    }
    Ok(rest.split_at(len))
}

/// Copies a minimal non-negative DER INTEGER body into a fixed-width big-endian buffer.
fn copy_der_integer(body: &[u8], out: &mut [u8]) -> Result<()> {
    let malformed = Error::MalformedSignature;
    match body {
        [] => return Err(malformed("empty DER integer")),
        [b, ..] if b & 0x80 != 0 => return Err(malformed("negative DER integer")),
        [0, b, ..] if b & 0x80 == 0 => return Err(malformed("non-minimal DER integer")),
        _ => {}
    }
    let digits = match body {
        [0, rest @ ..] if !rest.is_empty() => rest,
        _ => body,
    };
    if digits.len() > out.len() {
        return Err(malformed("integer larger than the curve order"));
    }
    let offset = out.len() - digits.len();
    out[offset..].copy_from_slice(digits);
    Ok(())
}

fn der_integer(fixed: &[u8]) -> Vec<u8> {
    let start = fixed
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(fixed.len() - 1);
    let digits = &fixed[start..];
    let mut out = vec![0x02];
    let pad = digits[0] & 0x80 != 0;
    push_der_length(&mut out, digits.len() + usize::from(pad));
    if pad {
        out.push(0);
    }
    out.extend_from_slice(digits);
    out
}

fn push_der_length(out: &mut Vec<u8>, len: usize) {
    // Signatures of the supported curves are at most 2 × (49 + 2) + 2 bytes: one length byte.
    if len < 0x80 {
        out.push(len as u8);
    } else {
        out.push(0x81);
        out.push(len as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(curve: Curve, r: &[u8], s: &[u8]) -> Signature {
        let n = curve.scalar_len();
        let mut raw = vec![0u8; 2 * n];
        raw[n - r.len()..n].copy_from_slice(r);
        raw[2 * n - s.len()..].copy_from_slice(s);
        Signature::from_p1363(curve, &raw).expect("p1363")
    }

    #[test]
    fn der_round_trips_small_high_bit_and_full_width_values() {
        for curve in Curve::ECDSA {
            let n = curve.scalar_len();
            for (r, s) in [
                (vec![1u8], vec![0x7f]),
                (vec![0x80], vec![0xff; 3]),
                (vec![0xff; n], vec![0x01; n]),
            ] {
                let sig = sig(curve, &r, &s);
                let der = sig.to_der();
                assert_eq!(Signature::from_der(curve, &der), Ok(sig.clone()));
            }
        }
    }

    #[test]
    fn known_der_encoding() {
        let sig = sig(Curve::P256, &[0x80], &[0x01]);
        assert_eq!(
            sig.to_der(),
            vec![0x30, 0x07, 0x02, 0x02, 0x00, 0x80, 0x02, 0x01, 0x01]
        );
    }

    #[test]
    fn non_strict_der_is_refused() {
        let c = Curve::P256;
        let bad: &[&[u8]] = &[
            &[],
            &[0x30],
            &[0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00],
            &[0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01],
            &[0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01],
            &[0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],
            &[0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x01],
            &[0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],
            &[0x30, 0x03, 0x02, 0x01, 0x01],
            &[0x30, 0x80, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00],
        ];
        for b in bad {
            assert!(Signature::from_der(c, b).is_err(), "{b:02x?}");
        }
        assert!(Signature::from_der(c, &[0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]).is_ok());
    }

    #[test]
    fn p1363_length_is_exact() {
        assert!(Signature::from_p1363(Curve::P256, &[1u8; 63]).is_err());
        assert!(Signature::from_p1363(Curve::P256, &[1u8; 65]).is_err());
        assert!(Signature::from_p1363(Curve::P384, &[1u8; 96]).is_ok());
    }
}
