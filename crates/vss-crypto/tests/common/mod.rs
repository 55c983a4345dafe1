//! Shared helpers of the conformance tests: locating and loading the pinned vectors under
//! `tests/vectors/`, hex, CAVP `.rsp` parsing, and a failure collector that reports every
//! failing vector of a run at once.

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod ecdsa;

use std::fmt::Display;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use vss_crypto::{Curve, HashAlg};

/// The directory of the pinned vectors (`<workspace>/tests/vectors`).
pub const VECTORS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors");

/// Path of a vector file, relative to `tests/vectors/`.
pub fn vector_path(relative: &str) -> PathBuf {
    PathBuf::from(VECTORS_DIR).join(relative)
}

/// Reads a vector file as text.
pub fn read_text(relative: &str) -> String {
    let path = vector_path(relative);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read vector file {}: {e}", path.display()))
}

/// Loads and deserialises a JSON vector file.
pub fn load_json<T: DeserializeOwned>(relative: &str) -> T {
    serde_json::from_str(&read_text(relative))
        .unwrap_or_else(|e| panic!("cannot parse JSON vector file {relative}: {e}"))
}

/// File names in a vector directory (relative to `tests/vectors/`) that start with `prefix`
/// and end with `suffix`, sorted.
pub fn list_vector_files(dir: &str, prefix: &str, suffix: &str) -> Vec<String> {
    let path = vector_path(dir);
    let mut names: Vec<String> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", path.display()))
        .map(|entry| {
            entry
                .expect("directory entry")
                .file_name()
                .into_string()
                .expect("UTF-8 file name")
        })
        .filter(|name| name.starts_with(prefix) && name.ends_with(suffix))
        .collect();
    names.sort();
    names
}

/// Decodes lowercase or uppercase hex of even length.
pub fn hex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// Decodes hex of any length (an odd number of digits gets a leading `0`) as a big-endian
/// integer, strips leading zero bytes and left-pads to `width` bytes. `None` if the integer
/// needs more than `width` bytes.
pub fn hex_fixed(s: &str, width: usize) -> Option<Vec<u8>> {
    let bytes = hex_minimal(s);
    if bytes.len() > width {
        return None;
    }
    let mut out = vec![0u8; width - bytes.len()];
    out.extend_from_slice(&bytes);
    Some(out)
}

/// Decodes hex of any length as a big-endian integer with no leading zero bytes.
pub fn hex_minimal(s: &str) -> Vec<u8> {
    let even = if s.len() % 2 == 1 {
        format!("0{s}")
    } else {
        s.to_owned()
    };
    let bytes = hex(&even);
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    bytes[start..].to_vec()
}

/// Strips leading zero bytes from a big-endian scalar while it is longer than `width`
/// (Wycheproof writes private keys with a sign byte, e.g. `00` ‖ 32 bytes for P-256).
pub fn strip_to_width(bytes: &[u8], width: usize) -> &[u8] {
    let mut b = bytes;
    while b.len() > width && b[0] == 0 {
        b = &b[1..];
    }
    b
}

/// The hash named as Wycheproof (`SHA-256`) or CAVP (`SHA-256`) write it.
pub fn hash_alg(name: &str) -> HashAlg {
    match name {
        "SHA-224" => HashAlg::Sha224,
        "SHA-256" => HashAlg::Sha256,
        "SHA-384" => HashAlg::Sha384,
        "SHA-512" => HashAlg::Sha512,
        other => panic!("unsupported hash name {other:?}"),
    }
}

/// The curve named as Wycheproof writes it (`secp256r1`, `brainpoolP256r1`).
pub fn wycheproof_curve(name: &str) -> Curve {
    match name {
        "secp224r1" => Curve::P224,
        "secp256r1" => Curve::P256,
        "secp384r1" => Curve::P384,
        "brainpoolP256r1" => Curve::Bp256,
        "brainpoolP384r1" => Curve::Bp384,
        other => panic!("unsupported Wycheproof curve {other:?}"),
    }
}

/// The curve named as NIST CAVP writes it (`P-256`); `None` for curves VSS does not support.
pub fn nist_curve(name: &str) -> Option<Curve> {
    match name {
        "P-224" => Some(Curve::P224),
        "P-256" => Some(Curve::P256),
        "P-384" => Some(Curve::P384),
        _ => None,
    }
}

/// `04 ‖ x ‖ y`.
pub fn uncompressed(x: &[u8], y: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + x.len() + y.len());
    out.push(0x04);
    out.extend_from_slice(x);
    out.extend_from_slice(y);
    out
}

/// The expected outcome of a Wycheproof test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// `valid`: must be accepted.
    Valid,
    /// `invalid`: must be rejected.
    Invalid,
    /// `acceptable`: either outcome is allowed.
    Acceptable,
}

impl Expect {
    /// Parses Wycheproof's `result` field.
    pub fn parse(result: &str) -> Expect {
        match result {
            "valid" => Expect::Valid,
            "invalid" => Expect::Invalid,
            "acceptable" => Expect::Acceptable,
            other => panic!("unknown Wycheproof result {other:?}"),
        }
    }
}

/// Counts of the tests run for one file, by expected result.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// `valid` tests run.
    pub valid: usize,
    /// `invalid` tests run.
    pub invalid: usize,
    /// `acceptable` tests run.
    pub acceptable: usize,
}

impl Tally {
    /// Counts one test.
    pub fn count(&mut self, expect: Expect) {
        match expect {
            Expect::Valid => self.valid += 1,
            Expect::Invalid => self.invalid += 1,
            Expect::Acceptable => self.acceptable += 1,
        }
    }

    /// All tests counted.
    pub fn total(&self) -> usize {
        self.valid + self.invalid + self.acceptable
    }
}

impl Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} tests (valid {}, invalid {}, acceptable {})",
            self.total(),
            self.valid,
            self.invalid,
            self.acceptable
        )
    }
}

/// Collects failing vectors so that one run lists all of them.
#[derive(Debug, Default)]
pub struct Failures {
    items: Vec<String>,
}

impl Failures {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one failing vector.
    pub fn push(&mut self, file: &str, id: impl Display, comment: &str, detail: impl Display) {
        self.items
            .push(format!("{file} tcId/id {id} ({comment}): {detail}"));
    }

    /// Records a failure when `ok` is false.
    pub fn check(
        &mut self,
        ok: bool,
        file: &str,
        id: impl Display,
        comment: &str,
        detail: impl Display,
    ) {
        if !ok {
            self.push(file, id, comment, detail);
        }
    }

    /// Number of failures so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing failed.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Panics with the full list if anything failed.
    pub fn assert_none(&self, what: &str) {
        assert!(
            self.items.is_empty(),
            "{what}: {} failing vector(s):\n  {}",
            self.items.len(),
            self.items.join("\n  ")
        );
    }
}

/// The top level of a Wycheproof v1 file; `G` is the group type.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WycheproofFile<G> {
    /// `algorithm`, e.g. `ECDSA`.
    pub algorithm: String,
    /// The number of tests the file declares.
    pub number_of_tests: usize,
    /// The test groups.
    pub test_groups: Vec<G>,
}

/// One record of a CAVP response file: its section header (without brackets) and its
/// `Name = value` lines in order.
#[derive(Debug, Clone)]
pub struct RspRecord {
    /// The section, e.g. `P-256,SHA-256` or `P-256`.
    pub section: String,
    /// The fields in file order.
    pub fields: Vec<(String, String)>,
}

impl RspRecord {
    /// The value of field `name`; panics if missing.
    pub fn get(&self, name: &str) -> &str {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("CAVP record in [{}] lacks {name}", self.section))
    }
}

/// Parses a CAVP `.rsp`/`.txt` file: `#` comments, `[section]` headers, records of
/// `Name = value` lines separated by blank lines.
pub fn parse_rsp(text: &str) -> Vec<RspRecord> {
    let mut records = Vec::new();
    let mut section = String::new();
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut flush = |section: &str, fields: &mut Vec<(String, String)>| {
        if !fields.is_empty() {
            records.push(RspRecord {
                section: section.to_owned(),
                fields: std::mem::take(fields),
            });
        }
    };
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            flush(&section, &mut fields);
        } else if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            flush(&section, &mut fields);
            section = inner.to_owned();
        } else if let Some((k, v)) = line.split_once('=') {
            fields.push((k.trim().to_owned(), v.trim().to_owned()));
        } else {
            panic!("unexpected CAVP line {line:?}");
        }
    }
    flush(&section, &mut fields);
    records
}
