//! Sessions: the table of open sessions, and each session's active operations (a search, a
//! signature, a verification), each behind its own lock so that sessions work in parallel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cryptoki_sys::*;
use vss_crypto::{Curve, Hasher, RsaEncryptionPadding, RsaPublicKey, Signature, VerifyingKey};
use vss_hsm::{Hsm, KeyHandle};

use crate::error::{Error, Result};
use crate::mechanism::{Resolved, MAX_RAW_INPUT};

/// The data a signature or verification is over, as it arrives.
pub(crate) enum Input {
    /// A digest or DigestInfo given whole, at most [`MAX_RAW_INPUT`] bytes.
    Raw(Vec<u8>),
    /// The data, hashed as it comes.
    Hashed(Hasher),
}

impl Input {
    /// The empty input of a signature mechanism.
    fn new(how: &Resolved) -> Self {
        match how {
            Resolved::Ecdsa(Some(hash)) => Input::Hashed(hash.hasher()),
            Resolved::Rsa {
                scheme,
                hashed: true,
            } => Input::Hashed(scheme.hash().hasher()),
            _ => Input::Raw(Vec::new()),
        }
    }

    fn update(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Input::Raw(raw) => {
                if raw.len() + data.len() > MAX_RAW_INPUT {
                    return Err(Error::DataLenRange);
                }
                raw.extend_from_slice(data);
            }
            Input::Hashed(hasher) => hasher.update(data),
        }
        Ok(())
    }

    fn digest(self) -> Vec<u8> {
        match self {
            Input::Raw(raw) => raw,
            Input::Hashed(hasher) => hasher.finish(),
        }
    }
}

/// The public key a verification checks against.
pub(crate) enum VerifyKey {
    /// An EC key.
    Ec(VerifyingKey),
    /// An RSA key.
    Rsa(RsaPublicKey),
}

/// Where a signature or verification stands.
pub(crate) struct Operation<K> {
    /// The key: a private key's handle to sign, a public key to verify.
    key: K,
    how: Resolved,
    /// The length of a signature with the key.
    signature_len: usize,
    input: Input,
    /// Whether `C_*Update` was called (then only `C_*Final` ends it).
    multipart: bool,
}

impl<K> Operation<K> {
    /// An operation with `key` by the resolved mechanism `how`; signatures with the key are
    /// `signature_len` bytes.
    pub(crate) fn new(key: K, how: Resolved, signature_len: usize) -> Self {
        Operation {
            input: Input::new(&how),
            key,
            how,
            signature_len,
            multipart: false,
        }
    }
}

/// The length of a signature by a key on `curve`: `r || s`.
pub(crate) fn ecdsa_signature_len(curve: Curve) -> usize {
    2 * curve.scalar_len()
}

/// An active decryption.
pub(crate) struct Decryption {
    key: KeyHandle,
    padding: RsaEncryptionPadding,
    modulus_len: usize,
}

impl Decryption {
    /// A decryption with the RSA key `key` of `modulus_len` bytes.
    pub(crate) fn new(key: KeyHandle, padding: RsaEncryptionPadding, modulus_len: usize) -> Self {
        Decryption {
            key,
            padding,
            modulus_len,
        }
    }
}

/// Where an output goes: `None` when the application asks for the length only.
pub(crate) type Room = Option<usize>;

/// What an output-producing call gives back.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// The length the output will have (the application passed no buffer).
    Length(usize),
    /// The output, which fits the application's buffer.
    Bytes(Vec<u8>),
}

/// Whether an output of `needed` bytes is to be produced: not when only its length is asked
/// for, and [`Error::BufferTooSmall`] when it would not fit.
pub(crate) fn produce(room: Room, needed: usize) -> Result<bool> {
    match room {
        None => Ok(false),
        Some(room) if room < needed => Err(Error::BufferTooSmall { needed }),
        Some(_) => Ok(true),
    }
}

/// One session.
#[derive(Default)]
pub(crate) struct Session {
    /// The objects a search found and has not handed out yet.
    pub(crate) find: Option<std::vec::IntoIter<CK_OBJECT_HANDLE>>,
    /// The active signature.
    pub(crate) sign: Option<Operation<KeyHandle>>,
    /// The active verification.
    pub(crate) verify: Option<Operation<VerifyKey>>,
    /// The active decryption.
    pub(crate) decrypt: Option<Decryption>,
}

/// Runs `step` on the operation in `slot`; an error ends the operation.
fn step<K>(
    slot: &mut Option<Operation<K>>,
    step: impl FnOnce(&mut Operation<K>) -> Result<()>,
) -> Result<()> {
    let op = slot.as_mut().ok_or(Error::OperationNotInitialized)?;
    let result = step(op);
    if result.is_err() {
        *slot = None;
    }
    result
}

impl Session {
    /// `C_SignUpdate` and `C_VerifyUpdate`'s part.
    fn update<K>(slot: &mut Option<Operation<K>>, data: &[u8]) -> Result<()> {
        step(slot, |op| {
            op.multipart = true;
            op.input.update(data)
        })
    }

    /// `C_SignUpdate`.
    pub(crate) fn sign_update(&mut self, data: &[u8]) -> Result<()> {
        Self::update(&mut self.sign, data)
    }

    /// `C_VerifyUpdate`.
    pub(crate) fn verify_update(&mut self, data: &[u8]) -> Result<()> {
        Self::update(&mut self.verify, data)
    }

    /// `C_Sign` (`data` given) and `C_SignFinal` (`None`): the operation stays active while
    /// the application only asks for the length or its buffer is too small.
    pub(crate) fn sign(
        &mut self,
        hsm: &dyn Hsm,
        data: Option<&[u8]>,
        room: Room,
    ) -> Result<Output> {
        let op = self.sign.as_ref().ok_or(Error::OperationNotInitialized)?;
        if data.is_some() && op.multipart {
            return Err(Error::OperationActive);
        }
        let len = op.signature_len;
        if !produce(room, len)? {
            return Ok(Output::Length(len));
        }
        let mut op = self.sign.take().ok_or(Error::OperationNotInitialized)?;
        op.input.update(data.unwrap_or_default())?;
        let digest = op.input.digest();
        let signature = match op.how {
            Resolved::Ecdsa(_) => hsm.sign_digest(&op.key, &digest)?.to_p1363().to_vec(),
            Resolved::RsaRaw => hsm
                .rsa_sign_pkcs1_raw(&op.key, &digest)
                .map_err(|e| match e {
                    vss_hsm::Error::Crypto(vss_crypto::Error::InvalidLength { .. }) => {
                        Error::DataLenRange
                    }
                    other => other.into(),
                })?,
            Resolved::Rsa { scheme, .. } => {
                if digest.len() != scheme.hash().output_len() {
                    return Err(Error::DataLenRange);
                }
                hsm.rsa_sign_digest(&op.key, scheme, &digest)?
            }
            _ => return Err(Error::Internal),
        };
        Ok(Output::Bytes(signature))
    }

    /// `C_Verify` (`data` given) and `C_VerifyFinal` (`None`); always ends the operation.
    pub(crate) fn verify(&mut self, data: Option<&[u8]>, signature: &[u8]) -> Result<()> {
        let op = self.verify.as_ref().ok_or(Error::OperationNotInitialized)?;
        if data.is_some() && op.multipart {
            return Err(Error::OperationActive);
        }
        let mut op = self.verify.take().ok_or(Error::OperationNotInitialized)?;
        op.input.update(data.unwrap_or_default())?;
        if signature.len() != op.signature_len {
            return Err(Error::SignatureLenRange);
        }
        let digest = op.input.digest();
        let valid = match (&op.key, &op.how) {
            (VerifyKey::Ec(key), Resolved::Ecdsa(_)) => {
                let signature = Signature::from_p1363(key.public_key().curve(), signature)
                    .map_err(|_| Error::SignatureInvalid)?;
                key.verify_digest(&digest, &signature)
            }
            (VerifyKey::Rsa(key), Resolved::RsaRaw) => key.verify_pkcs1_raw(&digest, signature),
            (VerifyKey::Rsa(key), Resolved::Rsa { scheme, .. }) => {
                key.verify_digest(*scheme, &digest, signature)
            }
            _ => return Err(Error::Internal),
        };
        if valid {
            Ok(())
        } else {
            Err(Error::SignatureInvalid)
        }
    }

    /// `C_Decrypt`: the operation stays active while the application only asks for the
    /// length or its buffer is too small for the plaintext.
    pub(crate) fn decrypt(
        &mut self,
        hsm: &dyn Hsm,
        ciphertext: &[u8],
        room: Room,
    ) -> Result<Output> {
        let op = self
            .decrypt
            .as_ref()
            .ok_or(Error::OperationNotInitialized)?;
        if ciphertext.len() != op.modulus_len {
            self.decrypt = None;
            return Err(Error::EncryptedDataLenRange);
        }
        if room.is_none() {
            return Ok(Output::Length(op.modulus_len));
        }
        let plaintext = match hsm.rsa_decrypt(&op.key, op.padding, ciphertext) {
            Ok(plaintext) => plaintext,
            Err(e) => {
                self.decrypt = None;
                return Err(match e {
                    vss_hsm::Error::Crypto(vss_crypto::Error::KemRejected(_)) => {
                        Error::EncryptedDataInvalid
                    }
                    other => other.into(),
                });
            }
        };
        produce(room, plaintext.len())?;
        self.decrypt = None;
        Ok(Output::Bytes(plaintext.to_vec()))
    }
}

/// A session as the table keeps it.
struct Entry {
    slot: CK_SLOT_ID,
    rw: bool,
    session: Arc<Mutex<Session>>,
}

/// An open session: its state, its slot, and whether it is read/write.
pub(crate) struct SessionRef {
    /// The session's operations.
    pub(crate) session: Arc<Mutex<Session>>,
    /// The slot it was opened on.
    pub(crate) slot: CK_SLOT_ID,
    /// `CKF_RW_SESSION`.
    pub(crate) rw: bool,
}

/// The open sessions, by handle.
#[derive(Default)]
pub(crate) struct Sessions {
    open: Mutex<HashMap<CK_SESSION_HANDLE, Entry>>,
    /// The last handle handed out (handles are never reused while the module lives).
    last: Mutex<CK_SESSION_HANDLE>,
}

impl Sessions {
    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<CK_SESSION_HANDLE, Entry>>> {
        self.open.lock().map_err(|_| Error::Internal)
    }

    /// Opens a session on `slot`; its handle.
    pub(crate) fn open(&self, slot: CK_SLOT_ID, rw: bool) -> Result<CK_SESSION_HANDLE> {
        let handle = {
            let mut last = self.last.lock().map_err(|_| Error::Internal)?;
            *last += 1;
            *last
        };
        let session = Arc::new(Mutex::new(Session::default()));
        self.lock()?.insert(handle, Entry { slot, rw, session });
        Ok(handle)
    }

    /// The session `handle`.
    pub(crate) fn get(&self, handle: CK_SESSION_HANDLE) -> Result<SessionRef> {
        self.lock()?
            .get(&handle)
            .map(|e| SessionRef {
                session: Arc::clone(&e.session),
                slot: e.slot,
                rw: e.rw,
            })
            .ok_or(Error::SessionHandleInvalid)
    }

    /// Closes a session; its slot, and how many sessions stay open on that slot.
    pub(crate) fn close(&self, handle: CK_SESSION_HANDLE) -> Result<(CK_SLOT_ID, usize)> {
        let mut open = self.lock()?;
        let slot = open
            .remove(&handle)
            .ok_or(Error::SessionHandleInvalid)?
            .slot;
        Ok((slot, open.values().filter(|e| e.slot == slot).count()))
    }

    /// Closes every session on `slot`.
    pub(crate) fn close_all(&self, slot: CK_SLOT_ID) -> Result<()> {
        self.lock()?.retain(|_, e| e.slot != slot);
        Ok(())
    }

    /// How many sessions are open on `slot`, and how many of them are read/write.
    pub(crate) fn counts(&self, slot: CK_SLOT_ID) -> Result<(usize, usize)> {
        let open = self.lock()?;
        let on_slot = || open.values().filter(|e| e.slot == slot);
        Ok((on_slot().count(), on_slot().filter(|e| e.rw).count()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_crypto::{HashAlg, PrivateKey};

    #[test]
    fn output_is_produced_only_into_a_buffer_that_fits() {
        assert!(!produce(None, 64).expect("query"));
        assert!(matches!(
            produce(Some(63), 64),
            Err(Error::BufferTooSmall { needed: 64 })
        ));
        assert!(produce(Some(64), 64).expect("fits"));
    }

    #[test]
    fn a_raw_pkcs1_signature_verifies_with_the_key_over_exactly_its_data() {
        let key = vss_crypto::RsaPrivateKey::generate(vss_crypto::RsaBits::B2048).expect("key");
        let digest = HashAlg::Sha256.digest(b"tls");
        let info = vss_crypto::digest_info(HashAlg::Sha256, &digest).expect("info");
        let signature = key.sign_digest_info(&info).expect("sign");
        let start = || Session {
            verify: Some(Operation::new(
                VerifyKey::Rsa(key.public_key().clone()),
                Resolved::RsaRaw,
                256,
            )),
            ..Session::default()
        };
        start().verify(Some(&info), &signature).expect("valid");
        assert!(matches!(
            start().verify(Some(&digest), &signature),
            Err(Error::SignatureInvalid)
        ));
        assert!(matches!(
            start().verify(Some(&info), &signature[1..]),
            Err(Error::SignatureLenRange)
        ));
    }

    #[test]
    fn raw_ecdsa_input_is_bounded_and_ends_the_operation() {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let verifying = key.public_key().verifying_key().expect("verifying");
        let mut session = Session {
            verify: Some(Operation::new(
                VerifyKey::Ec(verifying),
                Resolved::Ecdsa(None),
                ecdsa_signature_len(Curve::P256),
            )),
            ..Session::default()
        };
        session.verify_update(&[0; 1000]).expect("within bound");
        assert!(matches!(
            session.verify_update(&[0; 100]),
            Err(Error::DataLenRange)
        ));
        assert!(session.verify.is_none());
    }

    #[test]
    fn verification_in_parts_accepts_the_signature_and_refuses_another() {
        let key = PrivateKey::generate(Curve::P384).expect("key");
        let signature = key.sign(HashAlg::Sha384, b"abc").expect("sign");
        let start = || {
            let verifying = key.public_key().verifying_key().expect("verifying");
            Session {
                verify: Some(Operation::new(
                    VerifyKey::Ec(verifying),
                    Resolved::Ecdsa(Some(HashAlg::Sha384)),
                    ecdsa_signature_len(Curve::P384),
                )),
                ..Session::default()
            }
        };
        let mut session = start();
        session.verify_update(b"a").expect("update");
        session.verify_update(b"bc").expect("update");
        assert!(matches!(
            session.verify(Some(b""), signature.to_p1363()),
            Err(Error::OperationActive)
        ));
        session.verify(None, signature.to_p1363()).expect("valid");
        assert!(matches!(
            session.verify(None, signature.to_p1363()),
            Err(Error::OperationNotInitialized)
        ));
        let mut session = start();
        assert!(matches!(
            session.verify(Some(b"abd"), signature.to_p1363()),
            Err(Error::SignatureInvalid)
        ));
        let mut session = start();
        assert!(matches!(
            session.verify(Some(b"abc"), &signature.to_p1363()[1..]),
            Err(Error::SignatureLenRange)
        ));
    }
}
