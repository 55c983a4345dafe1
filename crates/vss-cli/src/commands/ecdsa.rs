//! `vss ecdsa verify-jsonl | sign-jsonl`: one JSON object per line in, one per line out.
//!
//! A line that cannot be used gets `{"error":"…"}`; it never stops the stream.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use serde_json::{json, Map, Value};
use vss_crypto::{Curve, HashAlg, PrivateKey, PublicKey, Signature};

/// JSON-lines ECDSA.
#[derive(Subcommand)]
pub enum EcdsaCommand {
    /// Verify signatures: reads lines
    /// {"curve","hash","public_key","msg","sig","format":"der"|"p1363"} (hex strings),
    /// writes {"valid":true|false} or {"error":"…"} per line, in order.
    VerifyJsonl,
    /// Sign messages: reads lines {"curve","hash","private_key","msg"[,"format"]},
    /// writes {"public_key":"<SEC1 uncompressed>","sig":"<DER>"} or {"error":"…"} per line.
    SignJsonl,
}

impl EcdsaCommand {
    /// Runs the subcommand over stdin and stdout.
    pub fn run(self) -> Result<ExitCode> {
        let answer: fn(&Map<String, Value>) -> Result<Value, String> = match self {
            EcdsaCommand::VerifyJsonl => verify_line,
            EcdsaCommand::SignJsonl => sign_line,
        };
        // Our own buffer, so that whether more input is already waiting can be asked
        // without blocking.
        let mut input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
        let stdout = std::io::stdout();
        let mut output = std::io::BufWriter::new(stdout.lock());
        let mut line = Vec::new();
        loop {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let reply = match parse_object(&line) {
                Ok(object) => answer(&object).unwrap_or_else(|e| json!({ "error": e })),
                Err(e) => json!({ "error": e }),
            };
            writeln!(output, "{reply}")?;
            // Answer at once when no further line is waiting; batch while lines stream in.
            if !input.buffer().contains(&b'\n') {
                output.flush()?;
            }
        }
        output.flush()?;
        Ok(ExitCode::SUCCESS)
    }
}

fn parse_object(line: &[u8]) -> Result<Map<String, Value>, String> {
    let text = std::str::from_utf8(line).map_err(|_| "line is not UTF-8".to_owned())?;
    let text = text.trim_end_matches(['\n', '\r']);
    if text.trim().is_empty() {
        return Err("empty line".into());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err("line is not a JSON object".into()),
        Err(e) => Err(format!("bad JSON: {e}")),
    }
}

fn field<'a>(object: &'a Map<String, Value>, name: &str) -> Result<&'a str, String> {
    match object.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(format!("field '{name}' must be a string")),
        None => Err(format!("missing field '{name}'")),
    }
}

fn hex_field(object: &Map<String, Value>, name: &str) -> Result<Vec<u8>, String> {
    hex::decode(field(object, name)?).map_err(|e| format!("field '{name}' is not hex: {e}"))
}

fn curve_and_hash(object: &Map<String, Value>) -> Result<(Curve, HashAlg), String> {
    let curve: Curve = field(object, "curve")?
        .parse()
        .map_err(|e| format!("{e}"))?;
    let hash = match object.get("hash") {
        None => curve.default_hash(),
        Some(_) => field(object, "hash")?.parse().map_err(|e| format!("{e}"))?,
    };
    Ok((curve, hash))
}

/// Signature encodings accepted in a line's `format`.
#[derive(Clone, Copy)]
enum SigFormat {
    Der,
    P1363,
}

fn sig_format(object: &Map<String, Value>) -> Result<SigFormat, String> {
    match object.get("format") {
        None => Ok(SigFormat::Der),
        Some(_) => match field(object, "format")? {
            "der" => Ok(SigFormat::Der),
            "p1363" => Ok(SigFormat::P1363),
            other => Err(format!("unknown format '{other}' (expected der or p1363)")),
        },
    }
}

fn verify_line(object: &Map<String, Value>) -> Result<Value, String> {
    let (curve, hash) = curve_and_hash(object)?;
    let format = sig_format(object)?;
    let key = PublicKey::from_sec1(curve, &hex_field(object, "public_key")?)
        .map_err(|e| format!("public_key: {e}"))?;
    let msg = hex_field(object, "msg")?;
    let sig_bytes = hex_field(object, "sig")?;
    // A signature that does not parse is an invalid signature, not an unusable line.
    let sig = match format {
        SigFormat::Der => Signature::from_der(curve, &sig_bytes),
        SigFormat::P1363 => Signature::from_p1363(curve, &sig_bytes),
    };
    let valid = match sig {
        Ok(sig) => key
            .verifying_key()
            .map_err(|e| format!("public_key: {e}"))?
            .verify(hash, &msg, &sig),
        Err(_) => false,
    };
    Ok(json!({ "valid": valid }))
}

fn sign_line(object: &Map<String, Value>) -> Result<Value, String> {
    let (curve, hash) = curve_and_hash(object)?;
    let format = sig_format(object)?;
    let scalar = zeroize::Zeroizing::new(hex_field(object, "private_key")?);
    let key = PrivateKey::from_scalar(curve, &scalar).map_err(|e| format!("private_key: {e}"))?;
    let msg = hex_field(object, "msg")?;
    let sig = key.sign(hash, &msg).map_err(|e| e.to_string())?;
    let sig = match format {
        SigFormat::Der => sig.to_der(),
        SigFormat::P1363 => sig.to_p1363().to_vec(),
    };
    Ok(json!({
        "public_key": hex::encode(key.public_key().to_sec1_uncompressed()),
        "sig": hex::encode(sig),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(text: &str) -> Map<String, Value> {
        parse_object(text.as_bytes()).expect("object")
    }

    #[test]
    fn sign_then_verify_and_reject_tampering() {
        let key = PrivateKey::generate(Curve::Bp256).expect("key");
        let line = format!(
            r#"{{"curve":"bp256","hash":"sha256","private_key":"{}","msg":"00ff"}}"#,
            hex::encode(key.scalar())
        );
        let signed = sign_line(&obj(&line)).expect("signed");
        let public = signed["public_key"].as_str().expect("pk");
        let sig = signed["sig"].as_str().expect("sig");
        for (msg, valid) in [("00ff", true), ("00fe", false)] {
            let line = format!(
                r#"{{"curve":"bp256","hash":"sha256","public_key":"{public}","msg":"{msg}","sig":"{sig}","format":"der"}}"#
            );
            assert_eq!(verify_line(&obj(&line)), Ok(json!({ "valid": valid })));
        }
    }

    #[test]
    fn unusable_lines_get_errors_naming_the_problem() {
        assert!(parse_object(b"[1]").is_err());
        assert!(parse_object(b"{").is_err());
        assert!(parse_object(b"\xff\n").is_err());
        assert!(parse_object(b"\n").is_err());
        let e = verify_line(&obj(r#"{"curve":"p999"}"#)).expect_err("curve");
        assert!(e.contains("p999"), "{e}");
        let e = verify_line(&obj(r#"{"curve":"p256","public_key":7}"#)).expect_err("type");
        assert!(e.contains("public_key"), "{e}");
        let e = verify_line(&obj(
            r#"{"curve":"p256","public_key":"04","msg":"","sig":""}"#,
        ))
        .expect_err("key");
        assert!(e.starts_with("public_key"), "{e}");
    }
}
