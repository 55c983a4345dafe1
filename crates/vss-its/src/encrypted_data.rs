//! Encrypted data (`Ieee1609Dot2Data` with `encryptedData`, 1609.2 5.3.4–5.3.5 and 6.3.30–
//! 6.3.46): an inner `Ieee1609Dot2Data` under AES-128-CCM with a fresh data-encryption key,
//! and that key for each recipient — ECIES to a certificate's encryption key
//! (`certRecipInfo`), ECIES to a key known some other way (`rekRecipInfo`), or the key itself
//! shared in advance (`pskRecipInfo`, as TS 102 941 answers a request).

use rasn::types::{FixedOctetString, OctetString};
use vss_crypto::kem::ecies_1609::{self, EncryptedKey};
use vss_crypto::{AesCcm, Curve, HashAlg, PublicKey, NONCE_LEN};
use zeroize::Zeroizing;

use crate::asn::{
    EciesP256EncryptedKey, EncryptedData, EncryptedDataEncryptionKey, Ieee1609Dot2Content,
    Ieee1609Dot2Data, One28BitCcmCiphertext, PKRecipientInfo, PreSharedKeyRecipientInfo,
    RecipientInfo, SequenceOfRecipientInfo, SymmetricCiphertext, SymmetricEncryptionKey,
};
use crate::error::DecryptionError;
use crate::hashing::HashedId8;
use crate::keys::{compressed_256, public_encryption_key, sec1_256};
use crate::{codec, Cert, Error, KeyAgreement, Result};

/// The most recipients VSS accepts in one message (1609.2 asks for at least eight).
pub const MAX_RECIPIENTS: usize = 64;

/// An AES-128-CCM data-encryption key; zeroized on drop.
#[derive(Clone)]
pub struct DataEncryptionKey(Zeroizing<[u8; ecies_1609::KEY_LEN]>);

impl std::fmt::Debug for DataEncryptionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DataEncryptionKey({})", self.hashed_id8())
    }
}

impl DataEncryptionKey {
    /// A fresh random key.
    pub fn generate() -> Result<Self> {
        let mut key = Zeroizing::new([0u8; ecies_1609::KEY_LEN]);
        vss_crypto::random_bytes(key.as_mut())?;
        Ok(DataEncryptionKey(key))
    }

    /// A key from its 16 octets.
    pub fn from_bytes(bytes: [u8; ecies_1609::KEY_LEN]) -> Self {
        DataEncryptionKey(Zeroizing::new(bytes))
    }

    /// The key's octets.
    pub fn as_bytes(&self) -> &[u8; ecies_1609::KEY_LEN] {
        &self.0
    }

    /// How `pskRecipInfo` names the key (5.3.9.3): the HashedId8 of the COER
    /// `SymmetricEncryptionKey` under SHA-256.
    pub fn hashed_id8(&self) -> HashedId8 {
        let asn = SymmetricEncryptionKey::Aes128Ccm(FixedOctetString::new(*self.0));
        let encoded = Zeroizing::new(
            codec::encode("SymmetricEncryptionKey", &asn).expect("a fixed-size key encodes"),
        );
        HashedId8::of_digest(&HashAlg::Sha256.digest(&encoded))
    }
}

/// Who may read encrypted data.
#[derive(Debug, Clone, Copy)]
pub enum Recipient<'a> {
    /// The holder of the private half of this certificate's `encryptionKey`.
    Certificate(&'a Cert),
    /// The holder of this ECIES public key, known outside any certificate.
    PublicKey(&'a PublicKey),
    /// Whoever already holds the data-encryption key.
    PreSharedKey,
}

/// What a receiver decrypts with.
#[derive(Clone, Copy)]
pub enum Decryptor<'a> {
    /// The private key of a certificate's `encryptionKey`.
    Certificate(&'a Cert, &'a dyn KeyAgreement),
    /// The private key of an ECIES public key known outside any certificate.
    PublicKey(&'a PublicKey, &'a dyn KeyAgreement),
    /// A data-encryption key shared in advance.
    PreSharedKey(&'a DataEncryptionKey),
}

/// Decrypted data: the inner `Ieee1609Dot2Data`, its encoding, and the key that opened it
/// (which TS 102 941 reuses to answer).
#[derive(Debug, Clone)]
pub struct Decrypted {
    /// The inner data, decoded.
    pub data: Ieee1609Dot2Data,
    /// The inner data's COER encoding (the plaintext).
    pub bytes: Vec<u8>,
    /// The data-encryption key.
    pub key: DataEncryptionKey,
}

/// Encrypts `inner` under `key` for `recipients` (at least one, at most
/// [`MAX_RECIPIENTS`]); each gets its own `RecipientInfo`.
pub fn encrypt_data(
    inner: &Ieee1609Dot2Data,
    recipients: &[Recipient<'_>],
    key: &DataEncryptionKey,
) -> Result<Ieee1609Dot2Data> {
    if recipients.is_empty() || recipients.len() > MAX_RECIPIENTS {
        return Err(Error::InvalidRequest(format!(
            "encrypted data needs 1 to {MAX_RECIPIENTS} recipients, not {}",
            recipients.len()
        )));
    }
    let infos = recipients
        .iter()
        .map(|recipient| recipient_info(recipient, key))
        .collect::<Result<Vec<_>>>()?;
    let plaintext = Zeroizing::new(codec::encode("Ieee1609Dot2Data", inner)?);
    let mut nonce = [0u8; NONCE_LEN];
    vss_crypto::random_bytes(&mut nonce)?;
    let ciphertext = AesCcm::new(key.as_bytes())?.seal(&nonce, &[], &plaintext)?;
    Ok(Ieee1609Dot2Data {
        protocol_version: Ieee1609Dot2Data::VERSION,
        content: Ieee1609Dot2Content::EncryptedData(EncryptedData {
            recipients: SequenceOfRecipientInfo(infos),
            ciphertext: SymmetricCiphertext::Aes128ccm(One28BitCcmCiphertext {
                nonce: FixedOctetString::new(nonce),
                ccm_ciphertext: OctetString::from(ciphertext).into(),
            }),
        }),
    })
}

/// Decrypts `data` (which must be `encryptedData`) with `decryptor`: finds the
/// `RecipientInfo` that names its key, recovers the data-encryption key, and decodes the
/// inner `Ieee1609Dot2Data` strictly.
pub fn decrypt_data(data: &Ieee1609Dot2Data, decryptor: Decryptor<'_>) -> Result<Decrypted> {
    let Ieee1609Dot2Content::EncryptedData(encrypted) = &data.content else {
        return Err(Error::Malformed {
            what: "encrypted data",
            detail: "the content is not encryptedData".into(),
        });
    };
    if encrypted.recipients.0.len() > MAX_RECIPIENTS {
        return Err(Error::Unsupported(format!(
            "more than {MAX_RECIPIENTS} recipients"
        )));
    }
    let SymmetricCiphertext::Aes128ccm(ccm) = &encrypted.ciphertext else {
        return Err(Error::Unsupported(
            "a symmetric cipher other than AES-128-CCM".into(),
        ));
    };
    let key = data_key(&encrypted.recipients.0, decryptor)?;
    let plaintext = Zeroizing::new(
        AesCcm::new(key.as_bytes())?
            .open(ccm.nonce.as_ref(), &[], &ccm.ccm_ciphertext.0)
            .map_err(|_| Error::Decryption(DecryptionError::CiphertextTag))?,
    );
    let inner = codec::decode("Ieee1609Dot2Data", &plaintext)?;
    Ok(Decrypted {
        data: inner,
        bytes: plaintext.to_vec(),
        key,
    })
}

/// The `RecipientInfo` that gives `key` to `recipient`.
fn recipient_info(recipient: &Recipient<'_>, key: &DataEncryptionKey) -> Result<RecipientInfo> {
    Ok(match recipient {
        Recipient::Certificate(cert) => {
            let public = cert_encryption_key(cert)?;
            RecipientInfo::CertRecipInfo(PKRecipientInfo {
                recipient_id: cert.hashed_id8().to_asn(),
                enc_key: encrypted_key(&public, key, cert.digest())?,
            })
        }
        Recipient::PublicKey(public) => RecipientInfo::RekRecipInfo(PKRecipientInfo {
            recipient_id: public_key_id(public)?.to_asn(),
            enc_key: encrypted_key(public, key, &HashAlg::Sha256.digest(b""))?,
        }),
        Recipient::PreSharedKey => {
            RecipientInfo::PskRecipInfo(PreSharedKeyRecipientInfo(key.hashed_id8().to_asn()))
        }
    })
}

/// The data-encryption key, from the first `RecipientInfo` that names the decryptor's key.
fn data_key(infos: &[RecipientInfo], decryptor: Decryptor<'_>) -> Result<DataEncryptionKey> {
    match decryptor {
        Decryptor::PreSharedKey(key) => {
            let id = key.hashed_id8();
            let named = infos.iter().any(|info| {
                matches!(info, RecipientInfo::PskRecipInfo(psk)
                    if HashedId8::from_asn(&psk.0) == id)
            });
            if named {
                Ok(key.clone())
            } else {
                Err(not_a_recipient(id))
            }
        }
        Decryptor::Certificate(cert, agreement) => {
            let info = named(infos, cert.hashed_id8(), |info| match info {
                RecipientInfo::CertRecipInfo(pk) => Some(pk),
                _ => None,
            })?;
            let public = cert_encryption_key(cert)?;
            decrypt_key(&info.enc_key, public.curve(), cert.digest(), agreement)
        }
        Decryptor::PublicKey(public, agreement) => {
            let info = named(infos, public_key_id(public)?, |info| match info {
                RecipientInfo::RekRecipInfo(pk) => Some(pk),
                _ => None,
            })?;
            decrypt_key(
                &info.enc_key,
                public.curve(),
                &HashAlg::Sha256.digest(b""),
                agreement,
            )
        }
    }
}

/// The first `PKRecipientInfo` of the kind `kind` picks out whose recipient id is `id`.
fn named<'a>(
    infos: &'a [RecipientInfo],
    id: HashedId8,
    kind: impl Fn(&'a RecipientInfo) -> Option<&'a PKRecipientInfo>,
) -> Result<&'a PKRecipientInfo> {
    infos
        .iter()
        .filter_map(kind)
        .find(|pk| HashedId8::from_asn(&pk.recipient_id) == id)
        .ok_or_else(|| not_a_recipient(id))
}

fn not_a_recipient(id: HashedId8) -> Error {
    Error::Decryption(DecryptionError::NotARecipient(id))
}

/// The ECIES public key in a certificate's `encryptionKey` field.
fn cert_encryption_key(cert: &Cert) -> Result<PublicKey> {
    match cert.encryption_key()? {
        Some(key) => Ok(key),
        None => Err(Error::InvalidRequest(format!(
            "certificate {} has no encryption key",
            cert.hashed_id8()
        ))),
    }
}

/// How `rekRecipInfo` names a public key (5.3.9.5): the HashedId8 of its COER
/// `PublicEncryptionKey` (compressed) under SHA-256.
fn public_key_id(public: &PublicKey) -> Result<HashedId8> {
    let encoded = codec::encode("PublicEncryptionKey", &public_encryption_key(public)?)?;
    Ok(HashedId8::of_digest(&HashAlg::Sha256.digest(&encoded)))
}

/// `key` ECIES-encrypted to `recipient` with parameter P1.
fn encrypted_key(
    recipient: &PublicKey,
    key: &DataEncryptionKey,
    p1: &[u8],
) -> Result<EncryptedDataEncryptionKey> {
    let sealed = EncryptedKey::encrypt(recipient, key.as_bytes(), p1)?;
    let asn = EciesP256EncryptedKey {
        v: compressed_256(&sealed.v),
        c: FixedOctetString::new(sealed.c),
        t: FixedOctetString::new(sealed.t),
    };
    Ok(match recipient.curve() {
        Curve::Bp256 => EncryptedDataEncryptionKey::EciesBrainpoolP256r1(asn),
        _ => EncryptedDataEncryptionKey::EciesNistP256(asn),
    })
}

/// The data-encryption key from an ECIES-encrypted key, for a recipient key on `curve`.
fn decrypt_key(
    enc_key: &EncryptedDataEncryptionKey,
    curve: Curve,
    p1: &[u8],
    agreement: &dyn KeyAgreement,
) -> Result<DataEncryptionKey> {
    let (key_curve, asn) = match enc_key {
        EncryptedDataEncryptionKey::EciesNistP256(k) => (Curve::P256, k),
        EncryptedDataEncryptionKey::EciesBrainpoolP256r1(k) => (Curve::Bp256, k),
        _ => {
            return Err(Error::Unsupported(
                "a key encryption other than ECIES".into(),
            ))
        }
    };
    if key_curve != curve {
        return Err(Error::Decryption(DecryptionError::CurveMismatch {
            key: key_curve,
            recipient: curve,
        }));
    }
    let v = sec1_256(&asn.v)
        .and_then(|sec1| Ok(PublicKey::from_sec1(curve, &sec1)?))
        .map_err(|_| Error::Decryption(DecryptionError::InvalidEphemeralKey))?;
    let sealed = EncryptedKey {
        v,
        c: *asn.c,
        t: *asn.t,
    };
    let key = sealed
        .decrypt(p1, |peer| agreement.ecdh(peer))
        .map_err(|e| match e {
            Error::Crypto(vss_crypto::Error::KemRejected(_)) => {
                Error::Decryption(DecryptionError::KeyTag)
            }
            other => other,
        })?;
    Ok(DataEncryptionKey::from_bytes(*key))
}
