//! The `pkcs11` backend: keys on any PKCS#11 token (SoftHSMv2 in the tests), generated on
//! the token as sensitive and not extractable; ECDSA with `CKM_ECDSA` on a digest, ECDH with
//! `CKM_ECDH1_DERIVE`; RSA with `CKM_RSA_PKCS` (on a DigestInfo), `CKM_RSA_PKCS_PSS` and
//! `CKM_RSA_PKCS_OAEP`.

pub mod ec;
mod module;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, RwLock};

use cryptoki::context::Pkcs11;
use cryptoki::error::RvError;
use cryptoki::mechanism::elliptic_curve::{EcKdf, Ecdh1DeriveParams};
use cryptoki::mechanism::rsa::{PkcsMgfType, PkcsOaepParams, PkcsOaepSource, PkcsPssParams};
use cryptoki::mechanism::{Mechanism, MechanismType};
use cryptoki::object::{Attribute, AttributeType, KeyType, ObjectClass, ObjectHandle};
use cryptoki::session::{Session, UserType};
use cryptoki::slot::Slot;
use cryptoki::types::{AuthPin, Ulong};
use vss_crypto::{
    Curve, HashAlg, KeyAlgorithm, PublicKey, RsaBits, RsaEncryptionPadding, RsaPublicKey,
    RsaSignatureScheme, Signature, RSA_PUBLIC_EXPONENT,
};
use zeroize::Zeroizing;

use crate::{
    check_label, Error, GenerateKeyRequest, Hsm, ImportKeyRequest, KeyHandle, KeyInfo, Result,
};

/// The PKCS#11 module used when none is named: SoftHSMv2 as Debian installs it.
pub const DEFAULT_PKCS11_MODULE: &str = "/usr/lib/softhsm/libsofthsm2.so";

/// A size for a template or mechanism as the module's CK_ULONG, C's unsigned long: 32 bits
/// on ILP32 units (armv7), 64 on LP64; a value it cannot hold is the error of `function`.
fn ck_ulong(value: usize, function: &'static str) -> Result<Ulong> {
    Ulong::try_from(value).map_err(ckr(function))
}

/// Maps a cryptoki error from `function` to this crate's error.
pub(crate) fn ckr(function: &'static str) -> impl Fn(cryptoki::error::Error) -> Error {
    move |e| match e {
        cryptoki::error::Error::Pkcs11(RvError::PinIncorrect, _) => Error::TokenPinIncorrect,
        cryptoki::error::Error::Pkcs11(RvError::PinLocked, _) => Error::PinBlocked,
        cryptoki::error::Error::Pkcs11(RvError::PinLenRange, _) => {
            Error::WeakSecret("the token refused the PIN's length")
        }
        cryptoki::error::Error::Pkcs11(rv, _) => Error::Pkcs11 {
            function,
            code: format!("{rv:?}"),
        },
        other => Error::Pkcs11 {
            function,
            code: other.to_string(),
        },
    }
}

/// Which token holds a store's keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRef {
    /// Path of the PKCS#11 module (shared library).
    pub module: PathBuf,
    /// Label of the token.
    pub token_label: String,
}

/// What a token says about its user PIN (read without logging in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenPinStatus {
    /// A wrong PIN was entered since the last success (`CKF_USER_PIN_COUNT_LOW`).
    pub count_low: bool,
    /// One more wrong PIN locks it (`CKF_USER_PIN_FINAL_TRY`).
    pub final_try: bool,
    /// The PIN is locked (`CKF_USER_PIN_LOCKED`).
    pub locked: bool,
}

/// An HSM on a PKCS#11 token, logged in as the user.
pub struct Pkcs11Hsm {
    token: TokenRef,
    module: Pkcs11,
    slot: Slot,
    /// Idle sessions; the first one also keeps the login alive (PKCS#11 logs in the whole
    /// application, for as long as one of its sessions stays open).
    sessions: Mutex<Vec<Session>>,
    /// Private-key handles already looked up, by label (a sign then costs one call).
    found: RwLock<HashMap<String, (ObjectHandle, KeyAlgorithm)>>,
}

impl Pkcs11Hsm {
    /// Initialises a fresh token with `token_label`, SO PIN and user PIN (on a free slot).
    pub fn init_token(token: &TokenRef, so_pin: &str, user_pin: &str) -> Result<()> {
        let module = module::load(&token.module)?;
        if module::find_token(&module, &token.module, &token.token_label).is_ok() {
            return Err(Error::Unsupported(format!(
                "a token labelled '{}' exists already in {}",
                token.token_label,
                token.module.display()
            )));
        }
        let slot = module::free_slot(&module, &token.module)?;
        module
            .init_token(slot, &AuthPin::from(so_pin), &token.token_label)
            .map_err(ckr("C_InitToken"))?;
        let session = module.open_rw_session(slot).map_err(ckr("C_OpenSession"))?;
        session
            .login(UserType::So, Some(&AuthPin::from(so_pin)))
            .map_err(ckr("C_Login (SO)"))?;
        session
            .init_pin(&AuthPin::from(user_pin))
            .map_err(ckr("C_InitPIN"))?;
        session.logout().map_err(ckr("C_Logout"))
    }

    /// The token's user-PIN flags.
    pub fn pin_status(token: &TokenRef) -> Result<TokenPinStatus> {
        let module = module::load(&token.module)?;
        let slot = module::find_token(&module, &token.module, &token.token_label)?;
        let info = module.get_token_info(slot).map_err(ckr("C_GetTokenInfo"))?;
        Ok(TokenPinStatus {
            count_low: info.user_pin_count_low(),
            final_try: info.user_pin_final_try(),
            locked: info.user_pin_locked(),
        })
    }

    /// Whether an initialised token with this label exists in the module.
    pub fn token_exists(token: &TokenRef) -> Result<bool> {
        let module = module::load(&token.module)?;
        match module::find_token(&module, &token.module, &token.token_label) {
            Ok(_) => Ok(true),
            Err(Error::TokenNotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Opens the token and logs in with the user PIN.
    pub fn open(token: &TokenRef, pin: &str) -> Result<Self> {
        if pin.is_empty() {
            return Err(Error::EmptySecret("PIN"));
        }
        let module = module::load(&token.module)?;
        let slot = module::find_token(&module, &token.module, &token.token_label)?;
        let session = module.open_rw_session(slot).map_err(ckr("C_OpenSession"))?;
        match session.login(UserType::User, Some(&AuthPin::from(pin))) {
            Ok(()) => module::remember_login(&token.module, slot, pin)?,
            Err(cryptoki::error::Error::Pkcs11(RvError::UserAlreadyLoggedIn, _)) => {
                if !module::is_login_pin(&token.module, slot, pin)? {
                    return Err(Error::TokenPinIncorrect);
                }
            }
            Err(e) => return Err(ckr("C_Login")(e)),
        }
        Ok(Pkcs11Hsm {
            token: token.clone(),
            module,
            slot,
            sessions: Mutex::new(vec![session]),
            found: RwLock::new(HashMap::new()),
        })
    }

    /// The token this HSM uses.
    pub fn token(&self) -> &TokenRef {
        &self.token
    }

    /// Runs `f` with an idle session, alongside other uses of the token.
    fn with_session<T>(&self, f: impl FnOnce(&Session) -> Result<T>) -> Result<T> {
        let _shared = module::token_access()
            .read()
            .unwrap_or_else(|p| p.into_inner());
        self.in_session(f)
    }

    /// Runs `f`, which creates or destroys objects, with an idle session and the token to
    /// itself.
    fn changing<T>(&self, f: impl FnOnce(&Session) -> Result<T>) -> Result<T> {
        let _alone = module::token_access()
            .write()
            .unwrap_or_else(|p| p.into_inner());
        self.in_session(f)
    }

    /// Runs `f` with an idle session (opening one when all are busy) and returns it after.
    fn in_session<T>(&self, f: impl FnOnce(&Session) -> Result<T>) -> Result<T> {
        let idle = self
            .sessions
            .lock()
            .map_err(|_| Error::Unsupported("PKCS#11 session pool poisoned".into()))?
            .pop();
        let session = match idle {
            Some(session) => session,
            None => self
                .module
                .open_rw_session(self.slot)
                .map_err(ckr("C_OpenSession"))?,
        };
        let result = f(&session);
        if let Ok(mut pool) = self.sessions.lock() {
            pool.push(session);
        }
        result
    }

    /// The private and public key objects labelled `label`.
    fn objects(session: &Session, label: &str) -> Result<(ObjectHandle, Option<ObjectHandle>)> {
        let find = |class| {
            session
                .find_objects(&[
                    Attribute::Class(class),
                    Attribute::Label(label.as_bytes().to_vec()),
                ])
                .map_err(ckr("C_FindObjects"))
        };
        let private = match find(ObjectClass::PRIVATE_KEY)?.as_slice() {
            [] => return Err(Error::KeyNotFound(label.to_owned())),
            [one] => *one,
            _ => {
                return Err(Error::Unsupported(format!(
                    "the token holds several private keys labelled '{label}'"
                )))
            }
        };
        Ok((private, find(ObjectClass::PUBLIC_KEY)?.first().copied()))
    }

    /// The private key labelled `label` and its algorithm, from the cache or the token.
    fn private_key(&self, session: &Session, label: &str) -> Result<(ObjectHandle, KeyAlgorithm)> {
        if let Some(found) = self.found.read().ok().and_then(|f| f.get(label).copied()) {
            return Ok(found);
        }
        let (private, _) = Self::objects(session, label)?;
        let found = (private, Self::algorithm_of(session, private, label)?);
        if let Ok(mut cache) = self.found.write() {
            cache.insert(label.to_owned(), found);
        }
        Ok(found)
    }

    /// Maps a failure to use a cached handle: a key deleted by someone else is not found.
    fn stale(
        &self,
        label: &str,
        function: &'static str,
    ) -> impl Fn(cryptoki::error::Error) -> Error + '_ {
        let label = label.to_owned();
        move |e| match e {
            cryptoki::error::Error::Pkcs11(
                RvError::KeyHandleInvalid | RvError::ObjectHandleInvalid,
                _,
            ) => {
                if let Ok(mut cache) = self.found.write() {
                    cache.remove(&label);
                }
                Error::KeyNotFound(label.clone())
            }
            other => ckr(function)(other),
        }
    }

    /// `C_Sign` with the RSA key labelled `label`.
    fn rsa_sign(&self, label: &str, mechanism: &Mechanism<'_>, input: &[u8]) -> Result<Vec<u8>> {
        self.with_session(|session| {
            let private = self.rsa_private_key(session, label)?;
            session
                .sign(mechanism, private, input)
                .map_err(self.stale(label, "C_Sign"))
        })
    }

    /// The private EC key labelled `label` and its curve, or [`Error::WrongKeyType`].
    fn ec_private_key(&self, session: &Session, label: &str) -> Result<(ObjectHandle, Curve)> {
        match self.private_key(session, label)? {
            (object, KeyAlgorithm::Ec(curve)) => Ok((object, curve)),
            (_, algorithm) => Err(wrong_type(label, algorithm, "an EC key")),
        }
    }

    /// The private RSA key labelled `label`, or [`Error::WrongKeyType`].
    fn rsa_private_key(&self, session: &Session, label: &str) -> Result<ObjectHandle> {
        match self.private_key(session, label)? {
            (object, KeyAlgorithm::Rsa(_)) => Ok(object),
            (_, algorithm) => Err(wrong_type(label, algorithm, "an RSA key")),
        }
    }

    /// A key object's algorithm: its curve, or its modulus size.
    fn algorithm_of(session: &Session, object: ObjectHandle, label: &str) -> Result<KeyAlgorithm> {
        Self::algorithm_if_ours(session, object)?.ok_or_else(|| {
            Error::Unsupported(format!(
                "key '{label}' is of a type or size VSS does not support"
            ))
        })
    }

    /// A key object's algorithm, or `None` for keys VSS does not use (other types, curves
    /// or sizes).
    fn algorithm_if_ours(session: &Session, object: ObjectHandle) -> Result<Option<KeyAlgorithm>> {
        let attributes = session
            .get_attributes(object, &[AttributeType::KeyType])
            .map_err(ckr("C_GetAttributeValue"))?;
        let key_type = match attributes.first() {
            Some(Attribute::KeyType(t)) => *t,
            _ => return Ok(None),
        };
        let wanted = if key_type == KeyType::EC {
            AttributeType::EcParams
        } else if key_type == KeyType::RSA {
            AttributeType::Modulus
        } else {
            return Ok(None);
        };
        let attributes = session
            .get_attributes(object, &[wanted])
            .map_err(ckr("C_GetAttributeValue"))?;
        Ok(match attributes.first() {
            Some(Attribute::EcParams(params)) => ec::curve_of(params).map(KeyAlgorithm::Ec),
            Some(Attribute::Modulus(n)) => {
                let n = n.iter().skip_while(|&&b| b == 0).count() as u64;
                RsaBits::from_bits(n * 8).ok().map(KeyAlgorithm::Rsa)
            }
            _ => None,
        })
    }

    /// Generates an RSA key pair on the token (public exponent 65537).
    fn create_rsa(&self, label: &str, bits: RsaBits) -> Result<KeyInfo> {
        check_label(label)?;
        let common = || {
            vec![
                Attribute::Token(true),
                Attribute::Label(label.as_bytes().to_vec()),
                Attribute::Id(label.as_bytes().to_vec()),
            ]
        };
        let mut public = common();
        public.extend([
            Attribute::ModulusBits(ck_ulong(bits.bits() as usize, "C_GenerateKeyPair")?),
            Attribute::PublicExponent(RSA_PUBLIC_EXPONENT.to_be_bytes()[1..].to_vec()),
            Attribute::Verify(true),
            Attribute::Encrypt(true),
        ]);
        let mut private = common();
        private.extend([
            Attribute::Private(true),
            Attribute::Sensitive(true),
            Attribute::Extractable(false),
            Attribute::Sign(true),
            Attribute::Decrypt(true),
        ]);
        self.changing(|session| {
            if Self::objects(session, label).is_ok() {
                return Err(Error::KeyExists(label.to_owned()));
            }
            session
                .generate_key_pair(&Mechanism::RsaPkcsKeyPairGen, &public, &private)
                .map_err(ckr("C_GenerateKeyPair"))?;
            Ok(())
        })?;
        Ok(KeyInfo {
            handle: KeyHandle::new(label),
            label: label.to_owned(),
            algorithm: KeyAlgorithm::Rsa(bits),
        })
    }

    fn create(
        &self,
        label: &str,
        curve: Curve,
        private_value: Option<&[u8]>,
        public: Option<&PublicKey>,
    ) -> Result<KeyInfo> {
        check_label(label)?;
        let common = |class| {
            vec![
                Attribute::Class(class),
                Attribute::KeyType(KeyType::EC),
                Attribute::Token(true),
                Attribute::Label(label.as_bytes().to_vec()),
                Attribute::Id(label.as_bytes().to_vec()),
                Attribute::EcParams(ec::ec_params(curve)),
            ]
        };
        let mut private = common(ObjectClass::PRIVATE_KEY);
        private.extend([
            Attribute::Private(true),
            Attribute::Sensitive(true),
            Attribute::Extractable(false),
            Attribute::Sign(true),
            Attribute::Derive(true),
        ]);
        let mut public_template = common(ObjectClass::PUBLIC_KEY);
        public_template.push(Attribute::Verify(true));
        self.changing(|session| {
            if Self::objects(session, label).is_ok() {
                return Err(Error::KeyExists(label.to_owned()));
            }
            match (private_value, public) {
                (Some(value), Some(public)) => {
                    private.push(Attribute::Value(value.to_vec()));
                    public_template.push(Attribute::EcPoint(ec::ec_point(
                        public.to_sec1_uncompressed(),
                    )));
                    let private = session
                        .create_object(&private)
                        .map_err(ckr("C_CreateObject"))?;
                    if let Err(e) = session.create_object(&public_template) {
                        let _ = session.destroy_object(private);
                        return Err(ckr("C_CreateObject")(e));
                    }
                }
                _ => {
                    public_template
                        .retain(|a| !matches!(a, Attribute::Class(_) | Attribute::KeyType(_)));
                    // The token takes the curve from the public template only.
                    private.retain(|a| {
                        !matches!(
                            a,
                            Attribute::Class(_) | Attribute::KeyType(_) | Attribute::EcParams(_)
                        )
                    });
                    session
                        .generate_key_pair(&Mechanism::EccKeyPairGen, &public_template, &private)
                        .map_err(ckr("C_GenerateKeyPair"))?;
                }
            }
            Ok(())
        })?;
        Ok(KeyInfo {
            handle: KeyHandle::new(label),
            label: label.to_owned(),
            algorithm: KeyAlgorithm::Ec(curve),
        })
    }
}

fn wrong_type(label: &str, algorithm: KeyAlgorithm, needs: &'static str) -> Error {
    Error::WrongKeyType {
        label: label.to_owned(),
        algorithm,
        needs,
    }
}

/// The PKCS#11 mechanism of a hash, and MGF1 over it.
fn hash_mechanism(hash: HashAlg) -> (MechanismType, PkcsMgfType) {
    match hash {
        HashAlg::Sha224 => (MechanismType::SHA224, PkcsMgfType::MGF1_SHA224),
        HashAlg::Sha256 => (MechanismType::SHA256, PkcsMgfType::MGF1_SHA256),
        HashAlg::Sha384 => (MechanismType::SHA384, PkcsMgfType::MGF1_SHA384),
        HashAlg::Sha512 => (MechanismType::SHA512, PkcsMgfType::MGF1_SHA512),
    }
}

impl Hsm for Pkcs11Hsm {
    fn backend(&self) -> crate::Backend {
        crate::Backend::Pkcs11
    }

    fn generate_key(&self, request: &GenerateKeyRequest) -> Result<KeyInfo> {
        match request.algorithm {
            KeyAlgorithm::Ec(curve) => self.create(&request.label, curve, None, None),
            KeyAlgorithm::Rsa(bits) => self.create_rsa(&request.label, bits),
        }
    }

    fn import_key(&self, request: &ImportKeyRequest<'_>) -> Result<KeyInfo> {
        let key = request.private_key;
        self.create(
            &request.label,
            key.curve(),
            Some(key.scalar()),
            Some(key.public_key()),
        )
    }

    fn keys(&self) -> Result<Vec<KeyInfo>> {
        self.with_session(|session| {
            let objects = session
                .find_objects(&[Attribute::Class(ObjectClass::PRIVATE_KEY)])
                .map_err(ckr("C_FindObjects"))?;
            let mut keys = Vec::with_capacity(objects.len());
            for object in objects {
                let attributes = session
                    .get_attributes(object, &[AttributeType::Label])
                    .map_err(ckr("C_GetAttributeValue"))?;
                let label = match attributes.into_iter().next() {
                    Some(Attribute::Label(l)) => String::from_utf8(l).ok(),
                    _ => None,
                };
                // Keys of other applications (other types, curves, sizes, odd labels) are
                // not ours.
                if let (Some(label), Some(algorithm)) =
                    (label, Self::algorithm_if_ours(session, object)?)
                {
                    keys.push(KeyInfo {
                        handle: KeyHandle::new(&label),
                        label,
                        algorithm,
                    });
                }
            }
            keys.sort_by(|a, b| a.label.cmp(&b.label));
            Ok(keys)
        })
    }

    fn key(&self, label: &str) -> Result<KeyInfo> {
        check_label(label)?;
        self.with_session(|session| {
            // Asked of the token, not the cache: another session may have deleted it.
            let found = Self::objects(session, label).and_then(|(private, _)| {
                Ok((private, Self::algorithm_of(session, private, label)?))
            });
            if let Ok(mut cache) = self.found.write() {
                match &found {
                    Ok(found) => cache.insert(label.to_owned(), *found),
                    Err(_) => cache.remove(label),
                };
            }
            let (_, algorithm) = found?;
            Ok(KeyInfo {
                handle: KeyHandle::new(label),
                label: label.to_owned(),
                algorithm,
            })
        })
    }

    fn public_key(&self, key: &KeyHandle) -> Result<PublicKey> {
        let label = key.id();
        self.with_session(|session| {
            let (private, public) = Self::objects(session, label)?;
            let curve = match Self::algorithm_of(session, private, label)? {
                KeyAlgorithm::Ec(curve) => curve,
                algorithm => return Err(wrong_type(label, algorithm, "an EC key")),
            };
            let public = public.ok_or_else(|| {
                Error::Unsupported(format!("key '{label}' has no public key object"))
            })?;
            let attributes = session
                .get_attributes(public, &[AttributeType::EcPoint])
                .map_err(ckr("C_GetAttributeValue"))?;
            match attributes.first() {
                Some(Attribute::EcPoint(point)) => {
                    Ok(PublicKey::from_sec1(curve, ec::sec1_of(curve, point))?)
                }
                _ => Err(Error::Unsupported(format!(
                    "key '{label}' has no CKA_EC_POINT"
                ))),
            }
        })
    }

    fn sign_digest(&self, key: &KeyHandle, digest: &[u8]) -> Result<Signature> {
        let label = key.id();
        self.with_session(|session| {
            let (private, curve) = self.ec_private_key(session, label)?;
            if !curve.supports_ecdsa() {
                // Tokens may sign on binary curves; VSS keeps them for key encapsulation.
                return Err(vss_crypto::Error::NotForSignatures(curve).into());
            }
            // FIPS 186: a digest longer than the order counts by its leftmost bits.
            let digest = &digest[..digest.len().min(curve.scalar_len())];
            let raw = session
                .sign(&Mechanism::Ecdsa, private, digest)
                .map_err(self.stale(label, "C_Sign"))?;
            Ok(Signature::from_p1363(curve, &raw)?)
        })
    }

    fn ecdh(&self, key: &KeyHandle, peer: &PublicKey) -> Result<Zeroizing<Vec<u8>>> {
        let label = key.id();
        self.with_session(|session| {
            let (private, curve) = self.ec_private_key(session, label)?;
            if peer.curve() != curve {
                return Err(
                    vss_crypto::Error::InvalidPublicKey("peer key is on another curve").into(),
                );
            }
            let params = Ecdh1DeriveParams::new(EcKdf::null(), peer.to_sec1_uncompressed());
            let secret = session
                .derive_key(
                    &Mechanism::Ecdh1Derive(params),
                    private,
                    &[
                        Attribute::Class(ObjectClass::SECRET_KEY),
                        Attribute::KeyType(KeyType::GENERIC_SECRET),
                        Attribute::ValueLen(ck_ulong(curve.scalar_len(), "C_DeriveKey")?),
                        Attribute::Token(false),
                        Attribute::Sensitive(false),
                        Attribute::Extractable(true),
                    ],
                )
                .map_err(self.stale(label, "C_DeriveKey"))?;
            let value = session.get_attributes(secret, &[AttributeType::Value]);
            let _ = session.destroy_object(secret);
            match value
                .map_err(ckr("C_GetAttributeValue"))?
                .into_iter()
                .next()
            {
                Some(Attribute::Value(v)) => Ok(Zeroizing::new(v)),
                _ => Err(Error::Unsupported(
                    "the token withheld the ECDH secret".into(),
                )),
            }
        })
    }

    fn rsa_public_key(&self, key: &KeyHandle) -> Result<RsaPublicKey> {
        let label = key.id();
        self.with_session(|session| {
            let private = self.rsa_private_key(session, label)?;
            let attributes = session
                .get_attributes(
                    private,
                    &[AttributeType::Modulus, AttributeType::PublicExponent],
                )
                .map_err(self.stale(label, "C_GetAttributeValue"))?;
            match attributes.as_slice() {
                [Attribute::Modulus(n), Attribute::PublicExponent(e)] => {
                    Ok(RsaPublicKey::from_components(n, e)?)
                }
                _ => Err(Error::Unsupported(format!(
                    "key '{label}' withholds CKA_MODULUS or CKA_PUBLIC_EXPONENT"
                ))),
            }
        })
    }

    fn rsa_sign_digest(
        &self,
        key: &KeyHandle,
        scheme: RsaSignatureScheme,
        digest: &[u8],
    ) -> Result<Vec<u8>> {
        let label = key.id();
        let (mechanism, input) = match scheme {
            RsaSignatureScheme::Pkcs1(hash) => {
                (Mechanism::RsaPkcs, vss_crypto::digest_info(hash, digest)?)
            }
            RsaSignatureScheme::Pss(hash) => {
                if digest.len() != hash.output_len() {
                    return Err(vss_crypto::Error::InvalidLength {
                        what: "digest",
                        expected: "the hash's output length",
                        got: digest.len(),
                    }
                    .into());
                }
                let (hash_alg, mgf) = hash_mechanism(hash);
                let params = PkcsPssParams {
                    hash_alg,
                    mgf,
                    s_len: ck_ulong(hash.output_len(), "C_Sign")?,
                };
                (Mechanism::RsaPkcsPss(params), digest.to_vec())
            }
        };
        self.rsa_sign(label, &mechanism, &input)
    }

    fn rsa_sign_pkcs1_raw(&self, key: &KeyHandle, data: &[u8]) -> Result<Vec<u8>> {
        self.rsa_sign(key.id(), &Mechanism::RsaPkcs, data)
    }

    fn rsa_decrypt(
        &self,
        key: &KeyHandle,
        padding: RsaEncryptionPadding,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        let label = key.id();
        let mechanism = match padding {
            RsaEncryptionPadding::Pkcs1 => Mechanism::RsaPkcs,
            RsaEncryptionPadding::OaepSha1 => Mechanism::RsaPkcsOaep(PkcsOaepParams::new(
                MechanismType::SHA1,
                PkcsMgfType::MGF1_SHA1,
                PkcsOaepSource::empty(),
            )),
            RsaEncryptionPadding::OaepSha256 => {
                let (hash_alg, mgf) = hash_mechanism(HashAlg::Sha256);
                Mechanism::RsaPkcsOaep(PkcsOaepParams::new(hash_alg, mgf, PkcsOaepSource::empty()))
            }
        };
        self.with_session(|session| {
            let private = self.rsa_private_key(session, label)?;
            session
                .decrypt(&mechanism, private, ciphertext)
                .map(Zeroizing::new)
                .map_err(|e| match e {
                    // SoftHSM answers a bad PKCS #1 v1.5 padding with CKR_GENERAL_ERROR.
                    cryptoki::error::Error::Pkcs11(
                        RvError::EncryptedDataInvalid
                        | RvError::EncryptedDataLenRange
                        | RvError::GeneralError,
                        _,
                    ) => vss_crypto::Error::KemRejected("RSA decryption failed").into(),
                    // SoftHSM 2.6 does OAEP with SHA-1 only.
                    cryptoki::error::Error::Pkcs11(
                        RvError::ArgumentsBad
                        | RvError::MechanismParamInvalid
                        | RvError::MechanismInvalid,
                        _,
                    ) => Error::Unsupported(format!(
                        "the token does not decrypt with {padding:?} padding"
                    )),
                    other => self.stale(label, "C_Decrypt")(other),
                })
        })
    }

    fn delete_key(&self, key: &KeyHandle) -> Result<()> {
        let label = key.id();
        check_label(label)?;
        self.changing(|session| {
            let (private, public) = Self::objects(session, label)?;
            session
                .destroy_object(private)
                .map_err(ckr("C_DestroyObject"))?;
            if let Some(public) = public {
                session
                    .destroy_object(public)
                    .map_err(ckr("C_DestroyObject"))?;
            }
            Ok(())
        })
    }
}

impl std::fmt::Debug for Pkcs11Hsm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pkcs11Hsm")
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}
