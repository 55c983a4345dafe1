//! `vss kem …`: key encapsulation (PSEC-KEM, ECIES-KEM, IEEE 1609.2 ECIES) with the
//! recipient's private key in the key store.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;
use vss_crypto::kem::ecies_1609;
use vss_crypto::kem::ecies_kem::{Kdf, KdfHash, PointFormat};
use vss_crypto::kem::{Kem, KnownAnswerSeed, Scheme};
use vss_crypto::{Curve, PublicKey};
use vss_hsm::GenerateKeyRequest;

use crate::output::{emit, print_json, Format, Table};
use crate::store::StoreArgs;

/// Key encapsulation.
#[derive(Subcommand)]
pub enum KemCommand {
    /// Generate a recipient key pair inside the key store.
    Keygen {
        #[command(flatten)]
        store: StoreArgs,
        /// Scheme the key is for: psec-kem, ecies-kem, ecies-1609 (p256 or bp256 only).
        #[arg(long)]
        scheme: Scheme,
        /// Curve: p256 p384 bp256 bp384 p224 k283 b283 p192.
        #[arg(long)]
        curve: Curve,
        /// Label of the new key (1-64 of A-Z a-z 0-9 . _ -).
        #[arg(long)]
        label: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Encapsulate a fresh key to a public key; prints {"ciphertext":"<hex>","key":"<hex>"}.
    Encap {
        /// Scheme: psec-kem, ecies-kem or ecies-1609.
        #[arg(long)]
        scheme: Scheme,
        /// Curve of the recipient's key.
        #[arg(long)]
        curve: Curve,
        /// The recipient's public key, SEC1 hex (compressed or uncompressed).
        #[arg(long, value_name = "HEX", value_parser = parse_hex)]
        public_key: Hex,
        /// TEST ONLY, never in production: fixes the randomness for known-answer tests —
        /// r (psec-kem, 32 octets), the scalar r (ecies-kem) or the ephemeral private key
        /// (ecies-1609). A repeated or guessable value gives the key away.
        #[arg(long, value_name = "HEX", value_parser = parse_hex)]
        seed: Option<Hex>,
        /// ecies-1609: the 16-octet AES-128 key to encrypt [default: a fresh random key].
        #[arg(long, value_name = "HEX", value_parser = parse_hex)]
        aes_key: Option<Hex>,
        #[command(flatten)]
        params: KemParams,
    },
    /// Decapsulate with a key in the store; prints {"key":"<hex>"}, or fails when the
    /// ciphertext is rejected.
    Decap {
        #[command(flatten)]
        store: StoreArgs,
        /// Scheme: psec-kem, ecies-kem or ecies-1609.
        #[arg(long)]
        scheme: Scheme,
        /// Label of the recipient's key.
        #[arg(long)]
        label: String,
        /// The ciphertext, hex.
        #[arg(long, value_name = "HEX", value_parser = parse_hex)]
        ciphertext: Hex,
        #[command(flatten)]
        params: KemParams,
    },
}

/// Bytes given in hex on the command line.
pub type Hex = Vec<u8>;

fn parse_hex(s: &str) -> Result<Hex, String> {
    hex::decode(s).map_err(|e| format!("not hex: {e}"))
}

/// The scheme parameters shared by `encap`, `decap` and `bench kem`.
#[derive(Args, Debug, Clone, Default)]
pub struct KemParams {
    /// Octets of the encapsulated key, 1-1024 (psec-kem, ecies-kem) [default: 32].
    #[arg(long, value_name = "N")]
    pub key_len: Option<usize>,
    /// ecies-kem: key-derivation function [default: kdf2].
    #[arg(long, value_name = "KDF")]
    pub kdf: Option<Kdf>,
    /// ecies-kem: hash of the KDF, sha1 or sha256 [default: sha256].
    #[arg(long, value_name = "HASH")]
    pub hash: Option<KdfHash>,
    /// ecies-kem: encoding of EG, compressed or uncompressed [default: compressed].
    #[arg(long, value_name = "FORMAT")]
    pub point_format: Option<PointFormat>,
    /// ecies-kem: CofactorMode (clears small-subgroup components, same keys as plain mode).
    #[arg(long)]
    pub cofactor_mode: bool,
    /// ecies-kem: OldCofactorMode (IEEE 1363 cofactor Diffie-Hellman).
    #[arg(long)]
    pub old_cofactor_mode: bool,
    /// ecies-kem: CheckMode (decapsulation checks that EG has the group's order).
    #[arg(long)]
    pub check_mode: bool,
    /// ecies-kem: SingleHashMode (the KDF sees PEH alone, not EG ‖ PEH).
    #[arg(long)]
    pub single_hash_mode: bool,
    /// ecies-1609: P1, the hash of the recipient's certificate [default: SHA-256 of the
    /// empty string, as for a key not identified by a certificate].
    #[arg(long, value_name = "HEX", value_parser = parse_hex)]
    pub p1: Option<Hex>,
}

impl KemParams {
    /// The library's parameters.
    pub fn params(&self) -> vss_crypto::kem::KemParams {
        vss_crypto::kem::KemParams {
            key_len: self.key_len,
            kdf: self.kdf,
            hash: self.hash,
            point_format: self.point_format,
            cofactor_mode: self.cofactor_mode,
            old_cofactor_mode: self.old_cofactor_mode,
            check_mode: self.check_mode,
            single_hash_mode: self.single_hash_mode,
            p1: self.p1.clone(),
        }
    }
}

impl KemCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            KemCommand::Keygen {
                store,
                scheme,
                curve,
                label,
                format,
            } => {
                if scheme == Scheme::Ecies1609 {
                    ecies_1609::check_curve(curve)?;
                }
                let hsm = store.open()?;
                let info = hsm.generate_key(&GenerateKeyRequest::new(label, curve))?;
                let public = hex::encode(hsm.public_key(&info.handle)?.to_sec1_uncompressed());
                match format {
                    Format::Json => print_json(&json!({
                        "label": info.label,
                        "curve": curve.name(),
                        "scheme": scheme.name(),
                        "public_key": public,
                    }))?,
                    Format::Table => {
                        let mut t = Table::new(&["label", "curve", "scheme", "public key"]);
                        t.row(vec![
                            info.label,
                            curve.to_string(),
                            scheme.name().into(),
                            public,
                        ]);
                        emit(&t.render())?;
                    }
                }
            }
            KemCommand::Encap {
                scheme,
                curve,
                public_key,
                seed,
                aes_key,
                params,
            } => {
                let recipient = PublicKey::from_sec1(curve, &public_key)
                    .with_context(|| format!("--public-key is not a {curve} point"))?;
                let kem = Kem::new(scheme, curve, &params.params())?;
                let aes_key = aes_key.as_deref();
                let sent = match seed.as_deref().map(KnownAnswerSeed::known_answer_test_only) {
                    Some(seed) => kem.encapsulate_known_answer(&recipient, &seed, aes_key)?,
                    None => kem.encapsulate(&recipient, aes_key)?,
                };
                print_json(&json!({
                    "ciphertext": hex::encode(&sent.ciphertext),
                    "key": hex::encode(&sent.key),
                }))?;
            }
            KemCommand::Decap {
                store,
                scheme,
                label,
                ciphertext,
                params,
            } => {
                let hsm = store.open()?;
                let info = hsm.key(&label)?;
                let kem = Kem::new(scheme, info.ec_curve()?, &params.params())?;
                let key = kem.decapsulate(&ciphertext, |point: &PublicKey| {
                    hsm.ecdh(&info.handle, point)
                })?;
                print_json(&json!({ "key": hex::encode(&key) }))?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}
