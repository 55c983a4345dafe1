//! `vss ecdsa verify-jsonl | sign-jsonl`: one JSON object per line in, one per line out.
//!
//! A line that cannot be used gets `{"error":"…"}`; it never stops the stream.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};
use vss_crypto::{Curve, HashAlg, PrivateKey, PublicKey, Signature};
use vss_engine::{VerifyEngine, VerifyJob};

use vss_engine::EngineKind;

/// JSON-lines ECDSA.
#[derive(Subcommand)]
pub enum EcdsaCommand {
    /// Verify signatures: reads lines
    /// {"curve","hash","public_key","msg","sig","format":"der"|"p1363"} (hex strings),
    /// writes {"valid":true|false} or {"error":"…"} per line, in order.
    VerifyJsonl(VerifyJsonlArgs),
    /// Sign messages: reads lines {"curve","hash","private_key","msg"[,"format"]},
    /// writes {"public_key":"<SEC1 uncompressed>","sig":"<DER>"} or {"error":"…"} per line.
    SignJsonl,
}

/// Options of `vss ecdsa verify-jsonl`.
#[derive(Args)]
pub struct VerifyJsonlArgs {
    /// Verify in batches through this engine instead of one line at a time with the
    /// library (the verdicts are the same).
    #[arg(long, value_enum)]
    engine: Option<EngineKind>,
    /// Lines per batch with `--engine`; a batch is also cut whenever no further line is
    /// waiting, so an interactive caller is answered at once.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    batch: u32,
}

/// A line's answer, or the signature check it waits for.
enum Answer {
    Ready(Value),
    Verify {
        curve: Curve,
        public_key: Vec<u8>,
        digest: Vec<u8>,
        signature: Vec<u8>,
    },
}

impl EcdsaCommand {
    /// Runs the subcommand over stdin and stdout.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            EcdsaCommand::VerifyJsonl(args) => {
                let engine = args.engine.map(|c| c.engine_on(None)).transpose()?;
                let batch = if engine.is_some() {
                    args.batch as usize
                } else {
                    1
                };
                stream(prepare_verify, engine.as_deref(), batch)
            }
            EcdsaCommand::SignJsonl => stream(|o| sign_line(o).map(Answer::Ready), None, 1),
        }
    }
}

/// Answers stdin's lines on stdout, in order, `batch` lines at a time at most: the pending
/// signature checks of a batch go to `engine` together (to the library one by one without
/// one).
fn stream(
    answer: impl Fn(&Map<String, Value>) -> Result<Answer, String>,
    engine: Option<&dyn VerifyEngine>,
    batch: usize,
) -> Result<ExitCode> {
    // Our own buffer, so that whether more input is already waiting can be asked without
    // blocking.
    let mut input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let stdout = std::io::stdout();
    let mut output = std::io::BufWriter::new(stdout.lock());
    let mut line = Vec::new();
    let mut pending: Vec<Answer> = Vec::new();
    loop {
        line.clear();
        let end = input.read_until(b'\n', &mut line)? == 0;
        if !end {
            pending.push(match parse_object(&line) {
                Ok(object) => {
                    answer(&object).unwrap_or_else(|e| Answer::Ready(json!({ "error": e })))
                }
                Err(e) => Answer::Ready(json!({ "error": e })),
            });
        }
        // Answer at once when no further line is waiting; batch while lines stream in.
        if end || pending.len() >= batch || !input.buffer().contains(&b'\n') {
            for reply in settle(&mut pending, engine) {
                writeln!(output, "{reply}")?;
            }
            output.flush()?;
        }
        if end {
            return Ok(ExitCode::SUCCESS);
        }
    }
}

/// The replies of `pending` (emptied), the signature checks done in one batch.
fn settle(pending: &mut Vec<Answer>, engine: Option<&dyn VerifyEngine>) -> Vec<Value> {
    let jobs: Vec<VerifyJob<'_>> = pending
        .iter()
        .filter_map(|a| match a {
            Answer::Ready(_) => None,
            Answer::Verify {
                curve,
                public_key,
                digest,
                signature,
            } => Some(VerifyJob {
                curve: *curve,
                public_key,
                digest,
                signature,
            }),
        })
        .collect();
    let verdicts: Vec<bool> = match engine {
        Some(engine) => engine.verify_batch(&jobs),
        None => jobs.iter().map(VerifyJob::verify_one).collect(),
    };
    let mut verdicts = verdicts.into_iter();
    let replies = pending
        .iter()
        .map(|a| match a {
            Answer::Ready(reply) => reply.clone(),
            Answer::Verify { .. } => json!({ "valid": verdicts.next().unwrap_or(false) }),
        })
        .collect();
    pending.clear();
    replies
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

/// A verify line checked and hashed: what is left is the signature check. A signature
/// that does not parse is an invalid signature (an empty one), not an unusable line.
fn prepare_verify(object: &Map<String, Value>) -> Result<Answer, String> {
    let (curve, hash) = curve_and_hash(object)?;
    let format = sig_format(object)?;
    let public_key = hex_field(object, "public_key")?;
    PublicKey::from_sec1(curve, &public_key)
        .and_then(|key| key.verifying_key())
        .map_err(|e| format!("public_key: {e}"))?;
    let digest = hash.digest(&hex_field(object, "msg")?);
    let sig_bytes = hex_field(object, "sig")?;
    let signature = match format {
        SigFormat::Der => Signature::from_der(curve, &sig_bytes),
        SigFormat::P1363 => Signature::from_p1363(curve, &sig_bytes),
    }
    .map(|sig| sig.to_p1363().to_vec())
    .unwrap_or_default();
    Ok(Answer::Verify {
        curve,
        public_key,
        digest,
        signature,
    })
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

    /// One line's reply without an engine.
    fn verify_line(object: &Map<String, Value>) -> Result<Value, String> {
        let mut pending = vec![prepare_verify(object)?];
        Ok(settle(&mut pending, None).remove(0))
    }

    #[test]
    fn a_batch_through_the_engine_gets_the_replies_of_one_at_a_time() {
        let mut lines = Vec::new();
        for curve in ["p256", "bp256", "p384"] {
            let key = PrivateKey::generate(curve.parse().expect("curve")).expect("key");
            let public = hex::encode(key.public_key().to_sec1_compressed());
            for (i, format) in ["der", "p1363"].iter().enumerate() {
                let line = format!(
                    r#"{{"curve":"{curve}","private_key":"{}","msg":"0{i}","format":"{format}"}}"#,
                    hex::encode(key.scalar())
                );
                let sig = sign_line(&obj(&line)).expect("signed")["sig"]
                    .as_str()
                    .expect("sig")
                    .to_owned();
                for msg in [format!("0{i}"), "ff".to_owned()] {
                    lines.push(format!(
                        r#"{{"curve":"{curve}","public_key":"{public}","msg":"{msg}","sig":"{sig}","format":"{format}"}}"#
                    ));
                }
                lines.push(format!(
                    r#"{{"curve":"{curve}","public_key":"{public}","msg":"00","sig":"3000","format":"{format}"}}"#
                ));
            }
        }
        lines.push(r#"{"curve":"p256","public_key":"04","msg":"","sig":""}"#.to_owned());
        let one_by_one: Vec<Value> = lines
            .iter()
            .map(|l| verify_line(&obj(l)).unwrap_or_else(|e| json!({ "error": e })))
            .collect();
        let engine = vss_engine::CpuEngine::new(2);
        let mut pending: Vec<Answer> = lines
            .iter()
            .map(|l| {
                prepare_verify(&obj(l)).unwrap_or_else(|e| Answer::Ready(json!({ "error": e })))
            })
            .collect();
        assert_eq!(settle(&mut pending, Some(&engine)), one_by_one);
        assert!(pending.is_empty());
        let valid = one_by_one.iter().filter(|r| r["valid"] == true).count();
        assert_eq!(valid, 6, "{one_by_one:?}");
        assert!(one_by_one.last().expect("last")["error"].is_string());
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
