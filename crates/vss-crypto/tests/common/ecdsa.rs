//! The shape of Wycheproof's ECDSA verification files (`ecdsa_*_test.json`,
//! `ecdsa_*_p1363_test.json`).

use serde::Deserialize;

/// A test group: one public key and hash, and its tests.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EcdsaGroup {
    /// The group's type (`EcdsaVerify` or `EcdsaP1363Verify`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The hash's name (`SHA-256`, …).
    pub sha: String,
    /// The public key.
    pub public_key: EcdsaKey,
    /// The tests.
    pub tests: Vec<EcdsaTest>,
}

/// A group's public key.
#[derive(Debug, Deserialize)]
pub struct EcdsaKey {
    /// The curve's name (`secp256r1`, `brainpoolP256r1`, …).
    pub curve: String,
    /// The uncompressed SEC 1 point, hex.
    pub uncompressed: String,
}

/// One test: a message, a signature and the expected result.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EcdsaTest {
    /// The test's number.
    pub tc_id: u32,
    /// What it tests.
    pub comment: String,
    /// The message, hex.
    pub msg: String,
    /// The signature (DER or P1363), hex.
    pub sig: String,
    /// `valid`, `invalid` or `acceptable`.
    pub result: String,
}
