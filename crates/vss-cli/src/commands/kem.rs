//! `vss kem …`: key encapsulation (PSEC-KEM, ECIES-KEM, IEEE 1609.2 ECIES) with the
//! recipient's private key in the key store.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use vss_crypto::kem::ecies_1609::{self, EncryptedKey};
use vss_crypto::kem::ecies_kem::{EciesKem, EciesKemParams, Kdf, KdfHash, PointFormat};
use vss_crypto::kem::psec_kem::{self, PsecKem};
use vss_crypto::kem::Encapsulation;
use vss_crypto::{Curve, HashAlg, PrivateKey, PublicKey};
use vss_hsm::{GenerateKeyRequest, Hsm, KeyHandle};
use zeroize::Zeroizing;

use crate::output::{emit, print_json, Format, Table};
use crate::store::StoreArgs;

/// Key encapsulation.
#[derive(Subcommand)]
pub enum KemCommand {
    /// Generate a recipient key pair inside the key store.
    Keygen {
        #[command(flatten)]
        store: StoreArgs,
        /// Scheme the key is for (ecies-1609 takes p256 or bp256 only).
        #[arg(long, value_enum)]
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
        /// Scheme.
        #[arg(long, value_enum)]
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
        /// Scheme.
        #[arg(long, value_enum)]
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

/// A key-encapsulation scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scheme {
    /// PSEC-KEM of ISO/IEC 18033-2 (KDF2-SHA256, SeedLen 32, EG compressed).
    PsecKem,
    /// ECIES-KEM of ISO/IEC 18033-2 (parameters from the flags).
    EciesKem,
    /// ECIES of IEEE 1609.2: a 16-octet AES key encrypted with P1 (p256 and bp256).
    #[value(name = "ecies-1609")]
    Ecies1609,
}

impl Scheme {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::PsecKem => "psec-kem",
            Scheme::EciesKem => "ecies-kem",
            Scheme::Ecies1609 => "ecies-1609",
        }
    }
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
    fn ecies_kem_flags(&self) -> bool {
        self.kdf.is_some()
            || self.hash.is_some()
            || self.point_format.is_some()
            || self.cofactor_mode
            || self.old_cofactor_mode
            || self.check_mode
            || self.single_hash_mode
    }

    fn ecies_kem(&self) -> EciesKemParams {
        let default = EciesKemParams::default();
        EciesKemParams {
            kdf: self.kdf.unwrap_or(default.kdf),
            hash: self.hash.unwrap_or(default.hash),
            format: self.point_format.unwrap_or(default.format),
            cofactor_mode: self.cofactor_mode,
            old_cofactor_mode: self.old_cofactor_mode,
            check_mode: self.check_mode,
            single_hash_mode: self.single_hash_mode,
            key_len: self.key_len.unwrap_or(default.key_len),
        }
    }
}

/// One scheme on one curve with its parameters: encapsulates in software, decapsulates
/// with the HSM's ECDH.
pub enum Kem {
    /// PSEC-KEM.
    Psec(PsecKem),
    /// ECIES-KEM.
    Ecies(EciesKem),
    /// IEEE 1609.2 ECIES with its P1.
    Ieee1609 {
        /// p256 or bp256.
        curve: Curve,
        /// The recipient-certificate hash.
        p1: Vec<u8>,
    },
}

impl Kem {
    /// The scheme on `curve`; refuses parameters that belong to another scheme.
    pub fn new(scheme: Scheme, curve: Curve, params: &KemParams) -> Result<Kem> {
        if scheme != Scheme::EciesKem && params.ecies_kem_flags() {
            bail!("--kdf, --hash, --point-format and the mode flags apply to ecies-kem only");
        }
        if scheme != Scheme::Ecies1609 && params.p1.is_some() {
            bail!("--p1 applies to ecies-1609 only");
        }
        Ok(match scheme {
            Scheme::PsecKem => Kem::Psec(PsecKem::new(
                curve,
                params.key_len.unwrap_or(psec_kem::DEFAULT_KEY_LEN),
            )?),
            Scheme::EciesKem => Kem::Ecies(EciesKem::new(curve, params.ecies_kem())?),
            Scheme::Ecies1609 => {
                ecies_1609::check_curve(curve)?;
                if params.key_len.is_some_and(|n| n != ecies_1609::KEY_LEN) {
                    bail!("ecies-1609 always carries a 16-octet AES-128 key: drop --key-len");
                }
                let p1 = match &params.p1 {
                    Some(p1) => p1.clone(),
                    None => HashAlg::Sha256.digest(b"").to_vec(),
                };
                Kem::Ieee1609 { curve, p1 }
            }
        })
    }

    /// Encapsulates to `recipient`; `seed` fixes the randomness (known-answer tests only),
    /// `aes_key` the key that ecies-1609 encrypts.
    pub fn encapsulate(
        &self,
        recipient: &PublicKey,
        seed: Option<&[u8]>,
        aes_key: Option<&[u8]>,
    ) -> Result<Encapsulation> {
        if aes_key.is_some() && !matches!(self, Kem::Ieee1609 { .. }) {
            bail!("--aes-key applies to ecies-1609 only");
        }
        Ok(match (self, seed) {
            (Kem::Psec(kem), None) => kem.encapsulate(recipient)?,
            (Kem::Psec(kem), Some(seed)) => kem.encapsulate_with_seed(recipient, seed)?,
            (Kem::Ecies(kem), None) => kem.encapsulate(recipient)?,
            (Kem::Ecies(kem), Some(r)) => kem.encapsulate_with_scalar(recipient, r)?,
            (Kem::Ieee1609 { curve, p1 }, seed) => {
                let mut key = Zeroizing::new([0u8; ecies_1609::KEY_LEN]);
                match aes_key {
                    Some(given) => {
                        if given.len() != ecies_1609::KEY_LEN {
                            bail!("--aes-key must be 16 octets, not {}", given.len());
                        }
                        key.copy_from_slice(given);
                    }
                    None => vss_crypto::random_bytes(key.as_mut())?,
                }
                let encrypted = match seed {
                    None => EncryptedKey::encrypt(recipient, &key, p1)?,
                    Some(scalar) => {
                        let ephemeral = PrivateKey::from_scalar(*curve, scalar)
                            .context("--seed is not a private key of the curve")?;
                        EncryptedKey::encrypt_with_ephemeral(recipient, &key, p1, &ephemeral)?
                    }
                };
                Encapsulation {
                    ciphertext: encrypted.to_bytes(),
                    key: Zeroizing::new(key.to_vec()),
                }
            }
        })
    }

    /// Decapsulates `ciphertext` with the HSM's ECDH on `key`.
    pub fn decapsulate(
        &self,
        ciphertext: &[u8],
        hsm: &dyn Hsm,
        key: &KeyHandle,
    ) -> Result<Zeroizing<Vec<u8>>> {
        let ecdh = |point: &PublicKey| hsm.ecdh(key, point);
        Ok(match self {
            Kem::Psec(kem) => kem.decapsulate(ciphertext, ecdh)?,
            Kem::Ecies(kem) => kem.decapsulate(ciphertext, ecdh)?,
            Kem::Ieee1609 { curve, p1 } => {
                let encrypted = EncryptedKey::from_bytes(*curve, ciphertext)?;
                Zeroizing::new(encrypted.decrypt(p1, ecdh)?.to_vec())
            }
        })
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
                let kem = Kem::new(scheme, curve, &params)?;
                let sent = kem.encapsulate(&recipient, seed.as_deref(), aes_key.as_deref())?;
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
                let kem = Kem::new(scheme, info.ec_curve()?, &params)?;
                let key = kem.decapsulate(&ciphertext, hsm.as_ref(), &info.handle)?;
                print_json(&json!({ "key": hex::encode(&key) }))?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}
