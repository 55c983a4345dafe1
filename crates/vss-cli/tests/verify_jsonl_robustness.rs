//! `vss ecdsa verify-jsonl` and `sign-jsonl` on hostile input: one process, thousands of lines
//! of valid, tampered, mistyped, truncated and random records; every record gets exactly one
//! answer line, in order, and nothing panics.

mod common;

use common::{run_with_input, vss, Rng};
use serde_json::{json, Map, Value};
use vss_crypto::{Curve, HashAlg, PrivateKey, PublicKey, Signature};

/// What the answer to one record must be.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// `{"valid": b}`.
    Verdict(bool),
    /// `{"error": "…"}`.
    Error,
    /// Either of the two (the record's meaning is arguable, e.g. duplicated keys).
    Either,
}

/// One input record (without its `\n`) and the answer it must get.
struct Record {
    bytes: Vec<u8>,
    expect: Expect,
    what: &'static str,
}

fn rec(bytes: impl Into<Vec<u8>>, expect: Expect, what: &'static str) -> Record {
    Record {
        bytes: bytes.into(),
        expect,
        what,
    }
}

/// Joins records with `\n`; the last one is left unterminated when `final_newline` is false.
fn encode(records: &[Record], final_newline: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        assert!(
            !r.bytes.contains(&b'\n'),
            "record {i} ({}) holds a newline",
            r.what
        );
        out.extend_from_slice(&r.bytes);
        if i + 1 < records.len() || final_newline {
            out.push(b'\n');
        }
    }
    out
}

/// Runs `vss ecdsa SUB` over `input` and returns its answer lines, after checking the exit
/// status, the absence of a panic, and that there is exactly one answer per record.
fn answers(sub: &str, input: Vec<u8>, records: usize) -> Vec<Map<String, Value>> {
    let (status, stdout, stderr) = run_with_input(vss().args(["ecdsa", sub]), input);
    assert!(
        !stderr.contains("panicked"),
        "vss ecdsa {sub} panicked: {stderr}"
    );
    assert!(
        status.success(),
        "vss ecdsa {sub}: {status}; stderr: {stderr}"
    );
    let stdout = String::from_utf8(stdout).expect("output is UTF-8");
    assert!(
        stdout.is_empty() || stdout.ends_with('\n'),
        "every answer line ends with a newline"
    );
    let lines: Vec<&str> = stdout.split_terminator('\n').collect();
    assert_eq!(
        lines.len(),
        records,
        "one answer line per input record (stderr: {stderr})"
    );
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => o,
            other => panic!("answer {i} is not a JSON object: {line:?} ({other:?})"),
        })
        .collect()
}

/// A correct signature line, kept as fields so that it can be tampered with.
#[derive(Clone)]
struct Signed {
    curve: Curve,
    /// `None`: the `hash` field is left out (the curve's default was used).
    hash: Option<HashAlg>,
    /// `None`: the `format` field is left out (DER was used).
    format: Option<&'static str>,
    public_key: Vec<u8>,
    msg: Vec<u8>,
    sig: Vec<u8>,
}

impl Signed {
    fn object(&self) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("curve".into(), json!(self.curve.name()));
        if let Some(hash) = self.hash {
            o.insert("hash".into(), json!(hash.name()));
        }
        o.insert("public_key".into(), json!(hex::encode(&self.public_key)));
        o.insert("msg".into(), json!(hex::encode(&self.msg)));
        o.insert("sig".into(), json!(hex::encode(&self.sig)));
        if let Some(format) = self.format {
            o.insert("format".into(), json!(format));
        }
        o
    }

    fn line(&self) -> Vec<u8> {
        Value::Object(self.object()).to_string().into_bytes()
    }

    fn with(&self, field: &str, value: Value) -> Vec<u8> {
        let mut o = self.object();
        o.insert(field.into(), value);
        Value::Object(o).to_string().into_bytes()
    }

    fn without(&self, field: &str) -> Vec<u8> {
        let mut o = self.object();
        o.remove(field);
        Value::Object(o).to_string().into_bytes()
    }
}

fn flip_bit(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return vec![0];
    }
    let i = rng.below(out.len());
    out[i] ^= 1 << rng.below(8);
    out
}

/// Keys for every curve, two per curve.
fn keys() -> Vec<(PrivateKey, PrivateKey)> {
    Curve::ECDSA
        .iter()
        .map(|&c| {
            (
                PrivateKey::generate(c).expect("key"),
                PrivateKey::generate(c).expect("key"),
            )
        })
        .collect()
}

fn sign(key: &PrivateKey, i: usize, msg: Vec<u8>) -> Signed {
    let curve = key.curve();
    let hash = HashAlg::ALL[(i / Curve::ECDSA.len()) % HashAlg::ALL.len()];
    let hash_field = if hash == curve.default_hash() && i.is_multiple_of(3) {
        None
    } else {
        Some(hash)
    };
    let p1363 = i % 2 == 1;
    let format = match (p1363, i % 4) {
        (true, _) => Some("p1363"),
        (false, 0) => None,
        (false, _) => Some("der"),
    };
    let signature = key.sign(hash, &msg).expect("sign");
    let sig = if p1363 {
        signature.to_p1363().to_vec()
    } else {
        signature.to_der()
    };
    let public_key = if i.is_multiple_of(7) {
        key.public_key().to_sec1_compressed().to_vec()
    } else {
        key.public_key().to_sec1_uncompressed().to_vec()
    };
    Signed {
        curve,
        hash: hash_field,
        format,
        public_key,
        msg,
        sig,
    }
}

/// Random bytes without `\n` (so that one record stays one record).
fn noise(rng: &mut Rng, len: usize) -> Vec<u8> {
    rng.bytes(len)
        .into_iter()
        .map(|b| if b == b'\n' { 0xff } else { b })
        .collect()
}

/// Random text made of JSON's own punctuation, literals and hex digits.
fn json_noise(rng: &mut Rng) -> Vec<u8> {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        "\"",
        ":",
        ",",
        "\"curve\"",
        "\"p256\"",
        "\"sig\"",
        "\"msg\"",
        "\"public_key\"",
        "\"hash\"",
        "\"format\"",
        "null",
        "true",
        "false",
        "0",
        "-1",
        "1e999",
        "\"04\"",
        "\"zz\"",
        "\\",
        "\\u0000",
        " ",
        "\r",
        "\t",
        "\u{0}",
        "\u{feff}",
        "é",
    ];
    let n = rng.below(40);
    (0..n)
        .flat_map(|_| rng.pick(PIECES).as_bytes().to_vec())
        .collect()
}

#[test]
fn verify_jsonl_answers_every_line_and_never_panics() {
    let mut rng = Rng::new(0x5eed_1609_2025);
    let keys = keys();
    let mut records = Vec::new();

    // Valid signatures over every curve, hash, format and key encoding, and tampered copies.
    let mut signed = Vec::new();
    for i in 0..200 {
        let (key, _) = &keys[i % keys.len()];
        let len = if i == 0 { 0 } else { rng.below(200) };
        signed.push(sign(key, i, rng.bytes(len)));
    }
    for (i, s) in signed.iter().enumerate() {
        let (_, other) = &keys[i % keys.len()];
        records.push(rec(s.line(), Expect::Verdict(true), "valid"));
        records.push(rec(
            s.with("msg", json!(hex::encode(flip_bit(&s.msg, &mut rng)))),
            Expect::Verdict(false),
            "message bit flipped",
        ));
        records.push(rec(
            s.with("sig", json!(hex::encode(flip_bit(&s.sig, &mut rng)))),
            Expect::Verdict(false),
            "signature bit flipped",
        ));
        records.push(rec(
            s.with(
                "public_key",
                json!(hex::encode(other.public_key().to_sec1_uncompressed())),
            ),
            Expect::Verdict(false),
            "another key of the same curve",
        ));
        let signed_with = s.hash.unwrap_or(s.curve.default_hash());
        let claimed = HashAlg::ALL[(HashAlg::ALL
            .iter()
            .position(|&h| h == signed_with)
            .expect("known hash")
            + 1)
            % HashAlg::ALL.len()];
        records.push(rec(
            s.with("hash", json!(claimed.name())),
            Expect::Verdict(false),
            "another hash claimed",
        ));
        let mut longer = s.sig.clone();
        longer.push(0);
        records.push(rec(
            s.with("sig", json!(hex::encode(longer))),
            Expect::Verdict(false),
            "signature with a trailing byte",
        ));
        records.push(rec(
            s.with("sig", json!(hex::encode(&s.sig[..s.sig.len() - 1]))),
            Expect::Verdict(false),
            "signature one byte short",
        ));
    }

    // Other spellings of valid lines.
    for s in signed.iter().take(20) {
        let upper = s.line().to_ascii_uppercase();
        // Upper-casing also upper-cases the field names and curve: an error, not a verdict.
        records.push(rec(upper, Expect::Error, "whole line upper-cased"));
        let mut o = s.object();
        for f in ["public_key", "msg", "sig"] {
            let v = o[f].as_str().expect("hex").to_ascii_uppercase();
            o.insert(f.into(), json!(v));
        }
        records.push(rec(
            Value::Object(o).to_string(),
            Expect::Verdict(true),
            "upper-case hex",
        ));
        let mut crlf = s.line();
        crlf.push(b'\r');
        records.push(rec(crlf, Expect::Verdict(true), "CRLF ending"));
        let mut padded = b"  \t".to_vec();
        padded.extend_from_slice(&s.line());
        padded.extend_from_slice(b" \t ");
        records.push(rec(padded, Expect::Verdict(true), "surrounding blanks"));
        let pretty = serde_json::to_string_pretty(&Value::Object(s.object()))
            .expect("json")
            .replace('\n', " ");
        records.push(rec(pretty, Expect::Verdict(true), "spaced-out JSON"));
        let mut nul = s.line();
        nul.push(0);
        records.push(rec(nul, Expect::Error, "NUL after the object"));
        let mut two = s.line();
        two.extend_from_slice(&s.line());
        records.push(rec(two, Expect::Error, "two objects on one line"));
        let mut extra = s.object();
        extra.insert("comment".into(), json!({"nested": [1, 2, {"x": null}]}));
        records.push(rec(
            Value::Object(extra).to_string(),
            Expect::Either,
            "unknown extra field",
        ));
    }

    // Wrongly typed fields, each field in turn.
    let wrong_values = [
        json!(7),
        json!(-1.5e300),
        json!(["04", "00"]),
        json!(null),
        json!({"hex": "04"}),
        json!(true),
        json!(false),
        json!([]),
        json!({}),
    ];
    for (i, s) in signed.iter().take(30).enumerate() {
        for field in ["curve", "hash", "public_key", "msg", "sig", "format"] {
            let value = wrong_values[(i + field.len()) % wrong_values.len()].clone();
            records.push(rec(s.with(field, value), Expect::Error, "mistyped field"));
        }
    }

    // Missing required fields, and bad values of the right type.
    for s in signed.iter().take(30) {
        for field in ["curve", "public_key", "msg", "sig"] {
            records.push(rec(s.without(field), Expect::Error, "missing field"));
        }
        for (field, value) in [
            ("curve", "p999"),
            ("curve", "P256"),
            ("curve", ""),
            ("hash", "md5"),
            ("hash", "SHA256"),
            ("format", "raw"),
            ("format", ""),
            ("public_key", ""),
            ("public_key", "04"),
            ("public_key", "abc"),
            ("msg", "0"),
            ("msg", "zz"),
            ("msg", "0x00"),
            ("sig", "123"),
            ("sig", "gg"),
        ] {
            records.push(rec(s.with(field, json!(value)), Expect::Error, "bad value"));
        }
        // A signature that is hex but not a signature at all is an invalid signature.
        records.push(rec(
            s.with("sig", json!("")),
            Expect::Verdict(false),
            "empty signature",
        ));
        records.push(rec(
            s.with("sig", json!("3000")),
            Expect::Verdict(false),
            "empty DER sequence",
        ));
    }

    // Duplicated keys: the same value twice, or a bad value and a good one.
    for s in signed.iter().take(20) {
        let text = String::from_utf8(s.line()).expect("utf-8");
        let inner = &text[1..text.len() - 1];
        records.push(rec(
            format!("{{{inner},{inner}}}"),
            Expect::Either,
            "every key twice",
        ));
        records.push(rec(
            format!("{{\"sig\":\"00\",\"curve\":7,{inner}}}"),
            Expect::Either,
            "bad duplicate first",
        ));
        records.push(rec(
            format!("{{{inner},\"msg\":\"zz\"}}"),
            Expect::Either,
            "bad duplicate last",
        ));
    }

    // Truncated prefixes of valid lines (never a whole object).
    for s in signed.iter().take(150) {
        let line = s.line();
        let cut = rng.below(line.len());
        records.push(rec(line[..cut].to_vec(), Expect::Error, "truncated line"));
    }

    // Huge and odd-length hex.
    let s = &signed[1];
    let huge_hex = "ab".repeat(300_000);
    records.push(rec(
        s.with("public_key", json!(huge_hex)),
        Expect::Error,
        "huge public key",
    ));
    records.push(rec(
        s.with("sig", json!(huge_hex)),
        Expect::Verdict(false),
        "huge signature",
    ));
    records.push(rec(
        s.with("msg", json!(huge_hex)),
        Expect::Verdict(false),
        "huge message, signature of another",
    ));
    let odd = format!("{huge_hex}a");
    for field in ["public_key", "msg", "sig"] {
        records.push(rec(
            s.with(field, json!(odd)),
            Expect::Error,
            "huge odd-length hex",
        ));
    }
    // A valid signature of a 512 KiB message: a 1 MiB line that must verify.
    let big = sign(&keys[1].0, 5, rng.bytes(512 * 1024));
    records.push(rec(big.line(), Expect::Verdict(true), "1 MiB valid line"));

    // Not objects, empty and blank lines, deep nesting.
    for (text, what) in [
        ("", "empty line"),
        ("\r", "lone CR"),
        ("   \t ", "blank line"),
        ("[]", "array"),
        ("[1,2,3]", "array"),
        ("\"text\"", "string"),
        ("42", "number"),
        ("null", "null"),
        ("true", "boolean"),
        ("{", "open brace"),
        ("}", "close brace"),
        ("{}", "empty object"),
        ("{\"curve\":\"p256\"}", "curve only"),
        ("\u{feff}{}", "byte-order mark"),
    ] {
        records.push(rec(text, Expect::Error, what));
    }
    records.push(rec("[".repeat(100_000), Expect::Error, "deep array"));
    records.push(rec(
        format!("{{\"curve\":{}", "{\"a\":".repeat(50_000)),
        Expect::Error,
        "deep object",
    ));

    // Random bytes (non-UTF-8, NUL, CR included) and random JSON-looking text.
    for _ in 0..1200 {
        let len = rng.below(300);
        records.push(rec(noise(&mut rng, len), Expect::Error, "random bytes"));
    }
    for _ in 0..600 {
        records.push(rec(
            json_noise(&mut rng),
            Expect::Error,
            "random JSON tokens",
        ));
    }
    for _ in 0..2 {
        records.push(rec(
            noise(&mut rng, 1 << 20),
            Expect::Error,
            "1 MiB of random bytes",
        ));
    }
    records.push(rec(
        vec![b'\r'; 10_000],
        Expect::Error,
        "carriage returns only",
    ));

    // Shuffle (Fisher-Yates) so that every kind of line follows every other kind.
    for i in (1..records.len()).rev() {
        let j = rng.below(i + 1);
        records.swap(i, j);
    }
    // The last record is a valid line without a trailing newline.
    records.push(rec(
        signed[3].line(),
        Expect::Verdict(true),
        "final unterminated line",
    ));

    let input = encode(&records, false);
    let answers = answers("verify-jsonl", input, records.len());
    let mut verdicts = [0usize; 2];
    for (i, (r, a)) in records.iter().zip(&answers).enumerate() {
        let shown = || String::from_utf8_lossy(&r.bytes[..r.bytes.len().min(300)]).into_owned();
        assert_eq!(
            a.len(),
            1,
            "answer {i} ({}) must have exactly one field: {a:?}",
            r.what
        );
        let got = match (a.get("valid"), a.get("error")) {
            (Some(Value::Bool(v)), None) => Expect::Verdict(*v),
            (None, Some(Value::String(e))) => {
                assert!(!e.is_empty(), "answer {i}: empty error message");
                Expect::Error
            }
            _ => panic!(
                "answer {i} ({}) is neither a verdict nor an error: {a:?}",
                r.what
            ),
        };
        if let Expect::Verdict(v) = got {
            verdicts[usize::from(v)] += 1;
        }
        match r.expect {
            Expect::Either => {}
            want => assert_eq!(got, want, "record {i} ({}): {:?} -> {a:?}", r.what, shown()),
        }
    }
    assert!(verdicts[1] >= 200 && verdicts[0] >= 1000, "{verdicts:?}");
}

/// A sign request line, and what its answer must verify against.
struct SignCase {
    line: Vec<u8>,
    /// `Some((key, hash, p1363))` when the line must be signed, `None` when it must be refused.
    signer: Option<(usize, HashAlg, bool)>,
    what: &'static str,
}

#[test]
fn sign_jsonl_answers_every_line_and_signs_correctly() {
    let mut rng = Rng::new(0x0051_6e00_0001);
    let keys: Vec<PrivateKey> = Curve::ECDSA
        .iter()
        .map(|&c| PrivateKey::generate(c).expect("key"))
        .collect();
    let msgs: Vec<Vec<u8>> = (0..keys.len() * 8)
        .map(|i| rng.bytes(i * 5 % 130))
        .collect();
    let mut cases = Vec::new();
    for (i, msg) in msgs.iter().enumerate() {
        let k = i % keys.len();
        let key = &keys[k];
        let hash = HashAlg::ALL[(i / keys.len()) % HashAlg::ALL.len()];
        let mut o = Map::new();
        o.insert("curve".into(), json!(key.curve().name()));
        o.insert("hash".into(), json!(hash.name()));
        o.insert("private_key".into(), json!(hex::encode(key.scalar())));
        o.insert("msg".into(), json!(hex::encode(msg)));
        let p1363 = i % 3 == 0;
        if p1363 {
            o.insert("format".into(), json!("p1363"));
        } else if i % 3 == 1 {
            o.insert("format".into(), json!("der"));
        }
        cases.push(SignCase {
            line: Value::Object(o.clone()).to_string().into_bytes(),
            signer: Some((k, hash, p1363)),
            what: "valid request",
        });
        let mut crlf = Value::Object(o.clone()).to_string().into_bytes();
        crlf.push(b'\r');
        cases.push(SignCase {
            line: crlf,
            signer: Some((k, hash, p1363)),
            what: "CRLF request",
        });
        let n = key.curve().scalar_len();
        let bad_scalars = [
            String::new(),
            "00".into(),
            "ff".repeat(n),
            "01".repeat(n + 1),
            "abc".into(),
            "xy".into(),
            "ab".repeat(100_000),
        ];
        for (j, field) in ["curve", "hash", "private_key", "msg", "format"]
            .iter()
            .enumerate()
        {
            let mut bad = o.clone();
            bad.insert(
                (*field).into(),
                [json!(1), json!(null), json!([]), json!({}), json!(true)][(i + j) % 5].clone(),
            );
            cases.push(SignCase {
                line: Value::Object(bad).to_string().into_bytes(),
                signer: None,
                what: "mistyped field",
            });
        }
        let mut bad = o.clone();
        bad.insert(
            "private_key".into(),
            json!(bad_scalars[i % bad_scalars.len()]),
        );
        cases.push(SignCase {
            line: Value::Object(bad).to_string().into_bytes(),
            signer: None,
            what: "bad private key",
        });
        for field in ["curve", "private_key", "msg"] {
            let mut missing = o.clone();
            missing.remove(field);
            cases.push(SignCase {
                line: Value::Object(missing).to_string().into_bytes(),
                signer: None,
                what: "missing field",
            });
        }
        let line = Value::Object(o).to_string().into_bytes();
        let cut = rng.below(line.len());
        cases.push(SignCase {
            line: line[..cut].to_vec(),
            signer: None,
            what: "truncated line",
        });
        let len = rng.below(200);
        cases.push(SignCase {
            line: noise(&mut rng, len),
            signer: None,
            what: "random bytes",
        });
        cases.push(SignCase {
            line: json_noise(&mut rng),
            signer: None,
            what: "random JSON tokens",
        });
    }
    cases.push(SignCase {
        line: noise(&mut rng, 1 << 20),
        signer: None,
        what: "1 MiB of random bytes",
    });
    for i in (1..cases.len()).rev() {
        let j = rng.below(i + 1);
        cases.swap(i, j);
    }
    let last = &keys[2];
    cases.push(SignCase {
        line: json!({"curve": last.curve().name(), "private_key": hex::encode(last.scalar()), "msg": ""})
            .to_string()
            .into_bytes(),
        signer: Some((2, last.curve().default_hash(), false)),
        what: "final unterminated line",
    });

    let records: Vec<Record> = cases
        .iter()
        .map(|c| rec(c.line.clone(), Expect::Either, c.what))
        .collect();
    let answers = answers("sign-jsonl", encode(&records, false), cases.len());
    for (i, (c, a)) in cases.iter().zip(&answers).enumerate() {
        match c.signer {
            None => {
                assert_eq!(a.len(), 1, "answer {i} ({}): {a:?}", c.what);
                assert!(
                    matches!(a.get("error"), Some(Value::String(e)) if !e.is_empty()),
                    "answer {i} ({}) must be an error: {a:?}",
                    c.what
                );
            }
            Some((k, hash, p1363)) => {
                let key = &keys[k];
                assert_eq!(a.len(), 2, "answer {i} ({}): {a:?}", c.what);
                let public = hex::decode(a["public_key"].as_str().expect("public_key string"))
                    .expect("public_key hex");
                assert_eq!(
                    public,
                    key.public_key().to_sec1_uncompressed(),
                    "answer {i} ({}): public key",
                    c.what
                );
                let sig = hex::decode(a["sig"].as_str().expect("sig string")).expect("sig hex");
                let sig = if p1363 {
                    Signature::from_p1363(key.curve(), &sig)
                } else {
                    Signature::from_der(key.curve(), &sig)
                }
                .unwrap_or_else(|e| panic!("answer {i} ({}): signature encoding: {e}", c.what));
                let msg = serde_json::from_slice::<Value>(c.line.trim_ascii_end())
                    .expect("valid case is JSON")["msg"]
                    .as_str()
                    .map(|m| hex::decode(m).expect("hex"))
                    .expect("msg");
                let verifier = PublicKey::from_sec1(key.curve(), &public)
                    .expect("public key")
                    .verifying_key()
                    .expect("verifier");
                assert!(
                    verifier.verify(hash, &msg, &sig),
                    "answer {i} ({}): signature does not verify",
                    c.what
                );
            }
        }
    }
}

/// A co-process writes one line and waits for its answer before writing the next: each
/// answer must come while stdin is still open.
#[test]
fn answers_come_line_by_line_while_stdin_stays_open() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::Duration;

    let key = PrivateKey::generate(Curve::P256).expect("key");
    let signed = sign(&key, 1, b"co-process".to_vec());
    let mut tampered = signed.clone();
    tampered.msg = b"co-procesS".to_vec();
    for (sub, lines) in [
        (
            "verify-jsonl",
            vec![
                (signed.line(), json!({"valid": true})),
                (b"not json".to_vec(), Value::Null),
                (tampered.line(), json!({"valid": false})),
            ],
        ),
        (
            "sign-jsonl",
            vec![(b"{}".to_vec(), Value::Null), (b"[".to_vec(), Value::Null)],
        ),
    ] {
        let mut child = vss()
            .args(["ecdsa", sub])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn vss");
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.expect("read answer")).is_err() {
                    break;
                }
            }
        });
        for (i, (line, want)) in lines.into_iter().enumerate() {
            stdin.write_all(&line).expect("write line");
            stdin.write_all(b"\n").expect("write newline");
            stdin.flush().expect("flush");
            let answer = rx.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|e| {
                panic!("{sub}: no answer to line {i} while stdin is open: {e}")
            });
            let answer: Value = serde_json::from_str(&answer).expect("answer is JSON");
            if want.is_null() {
                assert!(answer["error"].is_string(), "{sub} line {i}: {answer}");
            } else {
                assert_eq!(answer, want, "{sub} line {i}");
            }
        }
        drop(stdin);
        assert!(child.wait().expect("wait").success(), "{sub}");
        reader.join().expect("reader");
        assert!(rx.try_recv().is_err(), "{sub}: no extra answer");
    }
}
