//! Objects and their attributes.
//!
//! - Every key of the store is two objects, its public key and its private key. The
//!   private key is private to the logged-in user (the store reads no key without the PIN);
//!   the public key (`CKA_PRIVATE` false) is readable before login from the store's clear
//!   copy ([`vss_hsm::PublicCopies`]). `CKA_LABEL` is the store's label; `CKA_ID` the id
//!   given when the key was made, else the label's bytes.
//! - Certificates and public keys made with `C_CreateObject` are public token objects,
//!   kept in the store's `objects/` ([`vss_hsm::ObjectStore`]), readable before login.
//! - `C_DeriveKey` makes session objects: generic secrets that live until their session
//!   closes.

use std::collections::HashMap;

use cryptoki_sys::*;
use openssl::x509::X509;
use vss_crypto::{Curve, KeyAlgorithm, PublicKey, RsaBits, RsaPublicKey};
use vss_hsm::{pkcs11_ec, ObjectKind, StoredObject};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::mechanism::{self, Function};

/// One attribute of a template: its type and its value's bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attribute<'a> {
    /// `CKA_*`.
    pub(crate) ty: CK_ATTRIBUTE_TYPE,
    /// The value as the standard encodes it (`CK_ULONG` and `CK_BBOOL` in native form).
    pub(crate) value: &'a [u8],
}

/// The one value of attribute `ty` in `template` (two different values are
/// [`Error::TemplateInconsistent`]).
pub(crate) fn one<'a>(
    template: &[Attribute<'a>],
    ty: CK_ATTRIBUTE_TYPE,
) -> Result<Option<&'a [u8]>> {
    let mut values = template.iter().filter(|a| a.ty == ty).map(|a| a.value);
    let first = values.next();
    if values.any(|v| Some(v) != first) {
        return Err(Error::TemplateInconsistent);
    }
    Ok(first)
}

/// A `CK_ULONG` value of a template.
pub(crate) fn ulong_of(value: &[u8]) -> Result<CK_ULONG> {
    Ok(CK_ULONG::from_ne_bytes(
        value.try_into().map_err(|_| Error::AttributeValueInvalid)?,
    ))
}

/// A `CK_BBOOL` value of a template.
pub(crate) fn bool_of(value: &[u8]) -> Result<bool> {
    match value {
        [b] => Ok(*b != CK_FALSE),
        _ => Err(Error::AttributeValueInvalid),
    }
}

pub(crate) fn ulong(value: CK_ULONG) -> Vec<u8> {
    value.to_ne_bytes().to_vec()
}

pub(crate) fn bool(value: bool) -> Vec<u8> {
    vec![if value { CK_TRUE } else { CK_FALSE }]
}

/// Which half of a key pair an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    /// `CKO_PUBLIC_KEY`.
    Public,
    /// `CKO_PRIVATE_KEY`.
    Private,
}

/// The public value of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyPublic {
    /// An EC point.
    Ec(PublicKey),
    /// An RSA modulus and exponent.
    Rsa(RsaPublicKey),
}

impl KeyPublic {
    /// The key's algorithm and size.
    pub(crate) fn algorithm(&self) -> KeyAlgorithm {
        match self {
            KeyPublic::Ec(key) => KeyAlgorithm::Ec(key.curve()),
            KeyPublic::Rsa(key) => KeyAlgorithm::Rsa(key.bits()),
        }
    }

    /// The attributes that carry the public value.
    fn attribute(&self, ty: CK_ATTRIBUTE_TYPE) -> Option<Vec<u8>> {
        match (self, ty) {
            (KeyPublic::Ec(key), CKA_EC_POINT) => {
                Some(pkcs11_ec::ec_point(key.to_sec1_uncompressed()))
            }
            (KeyPublic::Rsa(key), CKA_MODULUS) => Some(key.modulus().to_vec()),
            (KeyPublic::Rsa(key), CKA_PUBLIC_EXPONENT) => Some(key.public_exponent().to_vec()),
            _ => None,
        }
    }

    /// The public key of a stored public-key object.
    pub(crate) fn from_stored(kind: &ObjectKind) -> Option<Self> {
        match kind {
            ObjectKind::EcPublicKey { curve, point } => {
                let curve = curve.parse::<Curve>().ok()?;
                PublicKey::from_sec1(curve, point).ok().map(KeyPublic::Ec)
            }
            ObjectKind::RsaPublicKey { modulus, exponent } => {
                RsaPublicKey::from_components(modulus, exponent)
                    .ok()
                    .map(KeyPublic::Rsa)
            }
            _ => None,
        }
    }

    /// How the store keeps this public key.
    pub(crate) fn to_stored(&self) -> ObjectKind {
        match self {
            KeyPublic::Ec(key) => ObjectKind::EcPublicKey {
                curve: key.curve().to_string(),
                point: key.to_sec1_uncompressed().to_vec(),
            },
            KeyPublic::Rsa(key) => ObjectKind::RsaPublicKey {
                modulus: key.modulus().to_vec(),
                exponent: key.public_exponent().to_vec(),
            },
        }
    }
}

/// The attributes of an algorithm that need no public value.
fn algorithm_attribute(algorithm: KeyAlgorithm, ty: CK_ATTRIBUTE_TYPE) -> Option<Vec<u8>> {
    match (algorithm, ty) {
        (KeyAlgorithm::Ec(_), CKA_KEY_TYPE) => Some(ulong(CKK_EC)),
        (KeyAlgorithm::Rsa(_), CKA_KEY_TYPE) => Some(ulong(CKK_RSA)),
        (KeyAlgorithm::Ec(curve), CKA_EC_PARAMS) => Some(pkcs11_ec::ec_params(curve)),
        (KeyAlgorithm::Rsa(bits), CKA_MODULUS_BITS) => Some(ulong(bits.bits() as CK_ULONG)),
        _ => None,
    }
}

/// What a key of `algorithm` can do: sign, decrypt (RSA), derive (EC).
fn abilities(algorithm: KeyAlgorithm) -> (bool, bool, bool) {
    match algorithm {
        KeyAlgorithm::Ec(curve) => (curve.supports_ecdsa(), false, true),
        KeyAlgorithm::Rsa(_) => (true, true, false),
    }
}

/// The mechanisms a key of `algorithm` may be used with.
fn allowed_mechanisms(algorithm: KeyAlgorithm) -> Vec<u8> {
    let rsa = matches!(algorithm, KeyAlgorithm::Rsa(_));
    let (signs, _, _) = abilities(algorithm);
    mechanism::ALL
        .iter()
        .filter(|m| m.is_rsa() == rsa && !m.functions().contains(&Function::GenerateKeyPair))
        .filter(|m| signs || !m.functions().contains(&Function::SignVerify))
        .flat_map(|m| ulong(m.ckm()))
        .collect()
}

/// A key object: one half of a key of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyObject {
    /// Public or private half.
    pub(crate) class: Class,
    /// The store's label of the key.
    pub(crate) label: String,
    /// `CKA_ID`.
    pub(crate) id: Vec<u8>,
    /// The key's algorithm and size.
    pub(crate) algorithm: KeyAlgorithm,
}

impl KeyObject {
    /// The value of attribute `ty`. `public` gives the key's public value when the attribute
    /// needs it; a secret value is [`Error::AttributeSensitive`], an attribute the object
    /// lacks [`Error::AttributeTypeInvalid`].
    pub(crate) fn attribute(
        &self,
        ty: CK_ATTRIBUTE_TYPE,
        public: impl FnOnce() -> Result<KeyPublic>,
    ) -> Result<Vec<u8>> {
        let (signs, decrypts, derives) = abilities(self.algorithm);
        let private = self.class == Class::Private;
        if let Some(value) = algorithm_attribute(self.algorithm, ty) {
            return Ok(value);
        }
        Ok(match ty {
            CKA_CLASS if private => ulong(CKO_PRIVATE_KEY),
            CKA_CLASS => ulong(CKO_PUBLIC_KEY),
            CKA_TOKEN | CKA_LOCAL => bool(true),
            CKA_PRIVATE => bool(private),
            CKA_MODIFIABLE | CKA_COPYABLE | CKA_DESTROYABLE => bool(ty == CKA_DESTROYABLE),
            CKA_DERIVE => bool(derives),
            CKA_LABEL => self.label.as_bytes().to_vec(),
            CKA_ID => self.id.clone(),
            CKA_KEY_GEN_MECHANISM => ulong(match self.algorithm {
                KeyAlgorithm::Ec(_) => CKM_EC_KEY_PAIR_GEN,
                KeyAlgorithm::Rsa(_) => CKM_RSA_PKCS_KEY_PAIR_GEN,
            }),
            CKA_START_DATE | CKA_END_DATE | CKA_SUBJECT => Vec::new(),
            CKA_ALLOWED_MECHANISMS => allowed_mechanisms(self.algorithm),
            // A private key object carries its public half too (PKCS #11 §2.1.3 for RSA;
            // OpenSSL's pkcs11 engine reads CKA_EC_POINT from the private key).
            CKA_EC_POINT | CKA_MODULUS | CKA_PUBLIC_EXPONENT => {
                public()?.attribute(ty).ok_or(Error::AttributeTypeInvalid)?
            }
            CKA_VERIFY if !private => bool(signs),
            CKA_ENCRYPT if !private => bool(decrypts),
            CKA_VERIFY_RECOVER | CKA_WRAP | CKA_TRUSTED if !private => bool(false),
            CKA_SIGN if private => bool(signs),
            CKA_DECRYPT if private => bool(decrypts),
            CKA_SENSITIVE | CKA_ALWAYS_SENSITIVE | CKA_NEVER_EXTRACTABLE if private => bool(true),
            CKA_SIGN_RECOVER
            | CKA_UNWRAP
            | CKA_EXTRACTABLE
            | CKA_ALWAYS_AUTHENTICATE
            | CKA_WRAP_WITH_TRUSTED
                if private =>
            {
                bool(false)
            }
            CKA_VALUE | CKA_PRIVATE_EXPONENT | CKA_PRIME_1 | CKA_PRIME_2 | CKA_EXPONENT_1
            | CKA_EXPONENT_2 | CKA_COEFFICIENT
                if private =>
            {
                return Err(Error::AttributeSensitive)
            }
            _ => return Err(Error::AttributeTypeInvalid),
        })
    }
}

/// A stored X.509 certificate, with the names `CKA_SUBJECT`, `CKA_ISSUER` and
/// `CKA_SERIAL_NUMBER` read from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CertificateObject {
    label: String,
    id: Vec<u8>,
    der: Vec<u8>,
    subject: Vec<u8>,
    issuer: Vec<u8>,
    serial: Vec<u8>,
}

impl CertificateObject {
    /// The certificate in `der`; [`Error::AttributeValueInvalid`] when it is not one.
    pub(crate) fn new(label: &str, id: &[u8], der: &[u8]) -> Result<Self> {
        let invalid = |_| Error::AttributeValueInvalid;
        let cert = X509::from_der(der).map_err(invalid)?;
        let serial = cert.serial_number().to_bn().map_err(invalid)?.to_vec();
        Ok(CertificateObject {
            label: label.to_owned(),
            id: id.to_vec(),
            der: der.to_vec(),
            subject: cert.subject_name().to_der().map_err(invalid)?,
            issuer: cert.issuer_name().to_der().map_err(invalid)?,
            serial: der_integer(&serial),
        })
    }

    fn attribute(&self, ty: CK_ATTRIBUTE_TYPE) -> Result<Vec<u8>> {
        Ok(match ty {
            CKA_CLASS => ulong(CKO_CERTIFICATE),
            CKA_CERTIFICATE_TYPE => ulong(CKC_X_509),
            CKA_TOKEN | CKA_DESTROYABLE => bool(true),
            CKA_PRIVATE | CKA_MODIFIABLE | CKA_COPYABLE | CKA_TRUSTED => bool(false),
            CKA_CERTIFICATE_CATEGORY | CKA_JAVA_MIDP_SECURITY_DOMAIN => ulong(0),
            CKA_LABEL => self.label.as_bytes().to_vec(),
            CKA_ID => self.id.clone(),
            CKA_VALUE => self.der.clone(),
            CKA_SUBJECT => self.subject.clone(),
            CKA_ISSUER => self.issuer.clone(),
            CKA_SERIAL_NUMBER => self.serial.clone(),
            CKA_START_DATE
            | CKA_END_DATE
            | CKA_URL
            | CKA_HASH_OF_SUBJECT_PUBLIC_KEY
            | CKA_HASH_OF_ISSUER_PUBLIC_KEY => Vec::new(),
            _ => return Err(Error::AttributeTypeInvalid),
        })
    }
}

/// A DER INTEGER of a non-negative big-endian value.
fn der_integer(value: &[u8]) -> Vec<u8> {
    let mut content = Vec::with_capacity(value.len() + 1);
    if value.first().is_none_or(|b| b & 0x80 != 0) {
        content.push(0);
    }
    content.extend_from_slice(value);
    let mut out = vec![0x02];
    if content.len() < 0x80 {
        out.push(content.len() as u8);
    } else {
        out.extend([0x81, content.len() as u8]);
    }
    out.extend(content);
    out
}

/// A stored public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PublicKeyObject {
    label: String,
    id: Vec<u8>,
    /// The key.
    pub(crate) public: KeyPublic,
}

impl PublicKeyObject {
    fn attribute(&self, ty: CK_ATTRIBUTE_TYPE) -> Result<Vec<u8>> {
        let algorithm = self.public.algorithm();
        let (signs, decrypts, _) = abilities(algorithm);
        if let Some(value) =
            algorithm_attribute(algorithm, ty).or_else(|| self.public.attribute(ty))
        {
            return Ok(value);
        }
        Ok(match ty {
            CKA_CLASS => ulong(CKO_PUBLIC_KEY),
            CKA_TOKEN | CKA_DESTROYABLE => bool(true),
            CKA_PRIVATE | CKA_MODIFIABLE | CKA_COPYABLE | CKA_LOCAL | CKA_DERIVE | CKA_WRAP
            | CKA_VERIFY_RECOVER | CKA_TRUSTED => bool(false),
            CKA_VERIFY => bool(signs),
            CKA_ENCRYPT => bool(decrypts),
            CKA_LABEL => self.label.as_bytes().to_vec(),
            CKA_ID => self.id.clone(),
            CKA_START_DATE | CKA_END_DATE | CKA_SUBJECT => Vec::new(),
            CKA_ALLOWED_MECHANISMS => allowed_mechanisms(algorithm),
            _ => return Err(Error::AttributeTypeInvalid),
        })
    }
}

/// A generic secret made by `C_DeriveKey`, living until its session closes.
pub(crate) struct SecretObject {
    /// The session that made it.
    pub(crate) session: CK_SESSION_HANDLE,
    /// The slot of that session.
    pub(crate) slot: CK_SLOT_ID,
    label: Vec<u8>,
    id: Vec<u8>,
    value: Zeroizing<Vec<u8>>,
    sensitive: bool,
    extractable: bool,
    /// The usage flags the template set (`CKA_ENCRYPT`…), reported back as given.
    usage: Vec<(CK_ATTRIBUTE_TYPE, bool)>,
}

/// The usage flags a derived secret's template may set.
const SECRET_USAGE: [CK_ATTRIBUTE_TYPE; 8] = [
    CKA_ENCRYPT,
    CKA_DECRYPT,
    CKA_SIGN,
    CKA_VERIFY,
    CKA_WRAP,
    CKA_UNWRAP,
    CKA_DERIVE,
    CKA_MODIFIABLE,
];

impl SecretObject {
    /// The secret `value` (an ECDH x coordinate) shaped by `template`: `CKA_VALUE_LEN` keeps
    /// that many leading bytes; the object is sensitive unless the template says otherwise.
    pub(crate) fn new(
        session: CK_SESSION_HANDLE,
        slot: CK_SLOT_ID,
        value: Zeroizing<Vec<u8>>,
        template: &[Attribute<'_>],
    ) -> Result<Self> {
        let mut secret = SecretObject {
            session,
            slot,
            label: one(template, CKA_LABEL)?.unwrap_or_default().to_vec(),
            id: one(template, CKA_ID)?.unwrap_or_default().to_vec(),
            value,
            sensitive: true,
            extractable: false,
            usage: Vec::new(),
        };
        for a in template {
            match a.ty {
                CKA_LABEL | CKA_ID => {}
                CKA_CLASS if ulong_of(a.value)? == CKO_SECRET_KEY => {}
                CKA_KEY_TYPE if ulong_of(a.value)? == CKK_GENERIC_SECRET => {}
                CKA_TOKEN | CKA_PRIVATE if bool_of(a.value)? == (a.ty == CKA_PRIVATE) => {}
                CKA_SENSITIVE => secret.sensitive = bool_of(a.value)?,
                CKA_EXTRACTABLE => secret.extractable = bool_of(a.value)?,
                CKA_VALUE_LEN => {
                    let len = ulong_of(a.value)? as usize;
                    if len == 0 || len > secret.value.len() {
                        return Err(Error::AttributeValueInvalid);
                    }
                    secret.value.truncate(len);
                }
                ty if SECRET_USAGE.contains(&ty) => secret.usage.push((ty, bool_of(a.value)?)),
                CKA_CLASS | CKA_KEY_TYPE | CKA_TOKEN | CKA_PRIVATE => {
                    return Err(Error::TemplateInconsistent)
                }
                _ => return Err(Error::AttributeTypeInvalid),
            }
        }
        Ok(secret)
    }

    fn attribute(&self, ty: CK_ATTRIBUTE_TYPE) -> Result<Vec<u8>> {
        if let Some((_, value)) = self.usage.iter().find(|(t, _)| *t == ty) {
            return Ok(bool(*value));
        }
        Ok(match ty {
            CKA_CLASS => ulong(CKO_SECRET_KEY),
            CKA_KEY_TYPE => ulong(CKK_GENERIC_SECRET),
            CKA_TOKEN | CKA_LOCAL | CKA_ALWAYS_SENSITIVE | CKA_NEVER_EXTRACTABLE => bool(false),
            CKA_PRIVATE | CKA_DESTROYABLE => bool(true),
            CKA_SENSITIVE => bool(self.sensitive),
            CKA_EXTRACTABLE => bool(self.extractable),
            CKA_LABEL => self.label.clone(),
            CKA_ID => self.id.clone(),
            CKA_VALUE_LEN => ulong(self.value.len() as CK_ULONG),
            CKA_KEY_GEN_MECHANISM => ulong(CKM_ECDH1_DERIVE),
            CKA_VALUE if self.sensitive || !self.extractable => {
                return Err(Error::AttributeSensitive)
            }
            CKA_VALUE => self.value.to_vec(),
            ty if SECRET_USAGE.contains(&ty) => bool(false),
            _ => return Err(Error::AttributeTypeInvalid),
        })
    }
}

/// Any object, as a search or an attribute read sees it.
pub(crate) enum Object<'a> {
    /// Half of a key of the store.
    Key(KeyObject),
    /// A stored certificate.
    Certificate(CertificateObject),
    /// A stored public key.
    PublicKey(PublicKeyObject),
    /// A derived secret.
    Secret(&'a SecretObject),
}

impl Object<'_> {
    /// The object of a stored record (`None` for key-id records and damaged values).
    pub(crate) fn from_stored(stored: &StoredObject) -> Option<Object<'static>> {
        match &stored.kind {
            ObjectKind::Certificate { der } => {
                CertificateObject::new(&stored.label, &stored.id, der)
                    .ok()
                    .map(Object::Certificate)
            }
            kind => KeyPublic::from_stored(kind).map(|public| {
                Object::PublicKey(PublicKeyObject {
                    label: stored.label.clone(),
                    id: stored.id.clone(),
                    public,
                })
            }),
        }
    }

    /// The value of attribute `ty` (`public` as for [`KeyObject::attribute`]).
    pub(crate) fn attribute(
        &self,
        ty: CK_ATTRIBUTE_TYPE,
        public: impl FnOnce() -> Result<KeyPublic>,
    ) -> Result<Vec<u8>> {
        match self {
            Object::Key(key) => key.attribute(ty, public),
            Object::Certificate(cert) => cert.attribute(ty),
            Object::PublicKey(key) => key.attribute(ty),
            Object::Secret(secret) => secret.attribute(ty),
        }
    }

    /// Whether every attribute of `template` has exactly the template's value (a secret or
    /// missing attribute matches nothing).
    pub(crate) fn matches(
        &self,
        template: &[Attribute<'_>],
        public: impl Fn() -> Result<KeyPublic>,
    ) -> bool {
        template
            .iter()
            .all(|a| self.attribute(a.ty, &public).is_ok_and(|v| v == a.value))
    }
}

/// What an object handle stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ObjectRef {
    /// One half of the key with this label in the store of this slot.
    Key(CK_SLOT_ID, String, Class),
    /// The stored object with this name in the store of this slot.
    Stored(CK_SLOT_ID, String),
    /// A derived secret (kept in the module's table of secrets under its handle).
    Secret,
}

/// Object handles, stable for as long as the module is initialised and never reused; 0 is
/// never a handle.
#[derive(Debug, Default)]
pub(crate) struct ObjectTable {
    by_handle: HashMap<CK_OBJECT_HANDLE, ObjectRef>,
    by_ref: HashMap<ObjectRef, CK_OBJECT_HANDLE>,
    last: CK_OBJECT_HANDLE,
}

impl ObjectTable {
    /// The handle of an object (a new one for a secret, the same one for the same key or
    /// stored object).
    pub(crate) fn handle(&mut self, object: ObjectRef) -> CK_OBJECT_HANDLE {
        if object != ObjectRef::Secret {
            if let Some(&handle) = self.by_ref.get(&object) {
                return handle;
            }
        }
        self.last += 1;
        let handle = self.last;
        if object != ObjectRef::Secret {
            self.by_ref.insert(object.clone(), handle);
        }
        self.by_handle.insert(handle, object);
        handle
    }

    /// What a handle stands for, if it was ever handed out and not forgotten.
    pub(crate) fn lookup(&self, handle: CK_OBJECT_HANDLE) -> Option<&ObjectRef> {
        self.by_handle.get(&handle)
    }

    /// Forgets a handle (its object was destroyed).
    pub(crate) fn forget(&mut self, handle: CK_OBJECT_HANDLE) {
        if let Some(object) = self.by_handle.remove(&handle) {
            self.by_ref.remove(&object);
        }
    }

    /// Forgets the handle of an object, if one was handed out.
    pub(crate) fn forget_object(&mut self, object: &ObjectRef) {
        if let Some(handle) = self.by_ref.remove(object) {
            self.by_handle.remove(&handle);
        }
    }
}

/// What `C_GenerateKeyPair`'s templates ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyPairRequest {
    /// The label, if a template gives one (`CKA_LABEL`).
    pub(crate) label: Option<String>,
    /// The id, if a template gives one (`CKA_ID`).
    pub(crate) id: Option<Vec<u8>>,
    /// The curve named by `CKA_EC_PARAMS`, or the size by `CKA_MODULUS_BITS`.
    pub(crate) algorithm: KeyAlgorithm,
}

/// Reads the two templates of `C_GenerateKeyPair` for `mechanism` (EC or RSA). The curve
/// comes from `CKA_EC_PARAMS`, the RSA size from `CKA_MODULUS_BITS` (the exponent, if given,
/// must be 65537); every other attribute must ask for what the module makes anyway (a token
/// object, private, sensitive, never extractable).
pub(crate) fn key_pair_request(
    rsa: bool,
    public: &[Attribute<'_>],
    private: &[Attribute<'_>],
) -> Result<KeyPairRequest> {
    let all: Vec<Attribute<'_>> = public.iter().chain(private).copied().collect();
    let algorithm = if rsa {
        let bits = ulong_of(one(&all, CKA_MODULUS_BITS)?.ok_or(Error::TemplateIncomplete)?)?;
        if let Some(e) = one(&all, CKA_PUBLIC_EXPONENT)? {
            let e: Vec<u8> = e.iter().copied().skip_while(|&b| b == 0).collect();
            if e != vss_crypto::RSA_PUBLIC_EXPONENT.to_be_bytes()[1..] {
                return Err(Error::TemplateInconsistent);
            }
        }
        KeyAlgorithm::Rsa(RsaBits::from_bits(bits as u64).map_err(|_| Error::KeySizeRange)?)
    } else {
        let params = one(&all, CKA_EC_PARAMS)?.ok_or(Error::TemplateIncomplete)?;
        KeyAlgorithm::Ec(
            pkcs11_ec::curve_of(params)
                .filter(|c| c.supports_ecdsa())
                .ok_or(Error::AttributeValueInvalid)?,
        )
    };
    let label = one(&all, CKA_LABEL)?
        .map(|l| std::str::from_utf8(l).map(str::to_owned))
        .transpose()
        .map_err(|_| Error::AttributeValueInvalid)?;
    let id = one(&all, CKA_ID)?.map(<[u8]>::to_vec);
    for (template, class) in [(public, Class::Public), (private, Class::Private)] {
        let made = KeyObject {
            class,
            label: String::new(),
            id: Vec::new(),
            algorithm,
        };
        for a in template {
            // CKA_PRIVATE on a public key, either way: the token decides (a public key is
            // readable before login, from the store's clear copy).
            let token_decides = class == Class::Public && a.ty == CKA_PRIVATE;
            let given = matches!(
                a.ty,
                CKA_EC_PARAMS | CKA_MODULUS_BITS | CKA_PUBLIC_EXPONENT | CKA_LABEL | CKA_ID
            );
            // Usage flags a key cannot have (an RSA key asked to derive) are refused below;
            // those it has are kept whether asked for or not.
            if token_decides || given {
                continue;
            }
            match made.attribute(a.ty, || Err(Error::AttributeReadOnly)) {
                Ok(value) if value == a.value => {}
                Ok(_) => return Err(Error::TemplateInconsistent),
                Err(Error::AttributeSensitive) => return Err(Error::AttributeReadOnly),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(KeyPairRequest {
        label,
        id,
        algorithm,
    })
}

/// Reads the template of `C_CreateObject`: an X.509 certificate or a public key (EC or
/// RSA), a public token object. Its label, id and what the store keeps.
pub(crate) fn create_request(template: &[Attribute<'_>]) -> Result<(String, Vec<u8>, ObjectKind)> {
    let label = one(template, CKA_LABEL)?
        .map(|l| std::str::from_utf8(l).map(str::to_owned))
        .transpose()
        .map_err(|_| Error::AttributeValueInvalid)?
        .unwrap_or_default();
    let id = one(template, CKA_ID)?.unwrap_or_default().to_vec();
    // The store's bounds, refused as the template's fault rather than the store's.
    let oversized = label.len() > vss_hsm::MAX_OBJECT_LABEL_LEN
        || label.chars().any(char::is_control)
        || id.len() > vss_hsm::MAX_OBJECT_ID_LEN
        || template
            .iter()
            .any(|a| a.ty == CKA_VALUE && a.value.len() > vss_hsm::MAX_OBJECT_LEN);
    if oversized {
        return Err(Error::AttributeValueInvalid);
    }
    let class = ulong_of(one(template, CKA_CLASS)?.ok_or(Error::TemplateIncomplete)?)?;
    let (made, given, kind): (Object<'_>, &[CK_ATTRIBUTE_TYPE], ObjectKind) = match class {
        CKO_CERTIFICATE => {
            let der = one(template, CKA_VALUE)?.ok_or(Error::TemplateIncomplete)?;
            let cert = CertificateObject::new(&label, &id, der)?;
            let kind = ObjectKind::Certificate { der: der.to_vec() };
            (Object::Certificate(cert), &[CKA_LABEL, CKA_ID], kind)
        }
        CKO_PUBLIC_KEY => {
            let public =
                match ulong_of(one(template, CKA_KEY_TYPE)?.ok_or(Error::TemplateIncomplete)?)? {
                    CKK_EC => {
                        let params =
                            one(template, CKA_EC_PARAMS)?.ok_or(Error::TemplateIncomplete)?;
                        let point =
                            one(template, CKA_EC_POINT)?.ok_or(Error::TemplateIncomplete)?;
                        let curve =
                            pkcs11_ec::curve_of(params).ok_or(Error::AttributeValueInvalid)?;
                        KeyPublic::Ec(
                            PublicKey::from_sec1(curve, pkcs11_ec::sec1_of(curve, point))
                                .map_err(|_| Error::AttributeValueInvalid)?,
                        )
                    }
                    CKK_RSA => {
                        let n = one(template, CKA_MODULUS)?.ok_or(Error::TemplateIncomplete)?;
                        let e =
                            one(template, CKA_PUBLIC_EXPONENT)?.ok_or(Error::TemplateIncomplete)?;
                        KeyPublic::Rsa(
                            RsaPublicKey::from_components(n, e)
                                .map_err(|_| Error::AttributeValueInvalid)?,
                        )
                    }
                    _ => return Err(Error::AttributeValueInvalid),
                };
            let kind = public.to_stored();
            let made = PublicKeyObject {
                label: label.clone(),
                id: id.clone(),
                public,
            };
            (
                Object::PublicKey(made),
                &[
                    CKA_LABEL,
                    CKA_ID,
                    CKA_EC_POINT,
                    CKA_MODULUS,
                    CKA_PUBLIC_EXPONENT,
                ],
                kind,
            )
        }
        _ => return Err(Error::AttributeValueInvalid),
    };
    for a in template {
        if given.contains(&a.ty) {
            continue;
        }
        // Absent CKA_TOKEN would mean a session object; the store keeps token objects only,
        // and a template that says CKA_TOKEN false is refused below.
        match made.attribute(a.ty, || Err(Error::AttributeReadOnly)) {
            Ok(value) if value == a.value => {}
            Ok(_) => return Err(Error::TemplateInconsistent),
            Err(e) => return Err(e),
        }
    }
    Ok((label, id, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(class: Class) -> KeyObject {
        KeyObject {
            class,
            label: "k".into(),
            id: b"k".to_vec(),
            algorithm: KeyAlgorithm::Ec(Curve::P256),
        }
    }

    fn no_public() -> Result<KeyPublic> {
        Err(Error::Internal)
    }

    fn attr(ty: CK_ATTRIBUTE_TYPE, value: &[u8]) -> Attribute<'_> {
        Attribute { ty, value }
    }

    #[test]
    fn private_values_are_sensitive_and_private_keys_say_so() {
        let private = key(Class::Private);
        assert!(matches!(
            private.attribute(CKA_VALUE, no_public),
            Err(Error::AttributeSensitive)
        ));
        assert_eq!(
            private.attribute(CKA_SENSITIVE, no_public).ok(),
            Some(vec![CK_TRUE])
        );
        assert_eq!(
            private.attribute(CKA_EXTRACTABLE, no_public).ok(),
            Some(vec![CK_FALSE])
        );
        assert!(matches!(
            key(Class::Public).attribute(CKA_VALUE, no_public),
            Err(Error::AttributeTypeInvalid)
        ));
        let rsa = KeyObject {
            algorithm: KeyAlgorithm::Rsa(RsaBits::B2048),
            ..key(Class::Private)
        };
        for ty in [CKA_PRIVATE_EXPONENT, CKA_PRIME_1, CKA_COEFFICIENT] {
            assert!(matches!(
                rsa.attribute(ty, no_public),
                Err(Error::AttributeSensitive)
            ));
        }
        assert_eq!(rsa.attribute(CKA_DECRYPT, no_public).ok(), Some(bool(true)));
        assert_eq!(rsa.attribute(CKA_DERIVE, no_public).ok(), Some(bool(false)));
        assert_eq!(
            rsa.attribute(CKA_MODULUS_BITS, no_public).ok(),
            Some(ulong(2048))
        );
    }

    #[test]
    fn templates_match_on_class_label_and_id_and_never_on_secrets() {
        let class = ulong(CKO_PRIVATE_KEY);
        let by_class = [attr(CKA_CLASS, &class)];
        assert!(Object::Key(key(Class::Private)).matches(&by_class, no_public));
        assert!(!Object::Key(key(Class::Public)).matches(&by_class, no_public));
        assert!(Object::Key(key(Class::Public)).matches(&[attr(CKA_ID, b"k")], no_public));
        assert!(!Object::Key(key(Class::Public)).matches(&[attr(CKA_ID, b"j")], no_public));
        let by_value = [attr(CKA_VALUE, &[])];
        assert!(!Object::Key(key(Class::Private)).matches(&by_value, no_public));
        assert!(Object::Key(key(Class::Public)).matches(&[], no_public));
    }

    #[test]
    fn handles_are_stable_distinct_and_never_reused() {
        let mut table = ObjectTable::default();
        let a_pub = table.handle(ObjectRef::Key(0, "a".into(), Class::Public));
        let a_priv = table.handle(ObjectRef::Key(0, "a".into(), Class::Private));
        let cert = table.handle(ObjectRef::Stored(0, "00".into()));
        assert_eq!(
            table.handle(ObjectRef::Key(0, "a".into(), Class::Public)),
            a_pub
        );
        let s1 = table.handle(ObjectRef::Secret);
        let s2 = table.handle(ObjectRef::Secret);
        let all = [a_pub, a_priv, cert, s1, s2];
        for (i, h) in all.iter().enumerate() {
            assert_ne!(*h, 0);
            assert!(!all[..i].contains(h));
        }
        assert_eq!(
            table.lookup(a_priv),
            Some(&ObjectRef::Key(0, "a".into(), Class::Private))
        );
        table.forget(cert);
        table.forget_object(&ObjectRef::Key(0, "a".into(), Class::Public));
        assert_eq!(table.lookup(a_pub), None);
        assert!(table.lookup(a_priv).is_some());
        assert_eq!(table.lookup(cert), None);
        assert_ne!(table.handle(ObjectRef::Stored(0, "00".into())), cert);
        assert_eq!(table.lookup(0), None);
    }

    #[test]
    fn key_pair_templates_give_algorithm_label_and_id_and_refuse_what_is_not_made() {
        let params = pkcs11_ec::ec_params(Curve::P384);
        let yes = [CK_TRUE];
        let no = [CK_FALSE];
        let public = [
            attr(CKA_EC_PARAMS, &params[..]),
            attr(CKA_LABEL, b"x"),
            attr(CKA_ID, &[1]),
            attr(CKA_TOKEN, &yes),
            attr(CKA_VERIFY, &yes),
        ];
        let private = [attr(CKA_SENSITIVE, &yes), attr(CKA_SIGN, &yes)];
        assert_eq!(
            key_pair_request(false, &public, &private).ok(),
            Some(KeyPairRequest {
                label: Some("x".into()),
                id: Some(vec![1]),
                algorithm: KeyAlgorithm::Ec(Curve::P384),
            })
        );
        let check = |private: &[Attribute<'_>]| key_pair_request(false, &public, private).err();
        assert!(matches!(
            check(&[attr(CKA_EXTRACTABLE, &yes)]),
            Some(Error::TemplateInconsistent)
        ));
        assert!(matches!(
            check(&[attr(CKA_TOKEN, &no)]),
            Some(Error::TemplateInconsistent)
        ));
        assert!(matches!(
            check(&[attr(CKA_ID, b"y")]),
            Some(Error::TemplateInconsistent)
        ));
        assert!(matches!(
            check(&[attr(CKA_VALUE, b"secret")]),
            Some(Error::AttributeReadOnly)
        ));
        assert!(matches!(
            key_pair_request(false, &[], &[]),
            Err(Error::TemplateIncomplete)
        ));
        let k283 = pkcs11_ec::ec_params(Curve::K283);
        assert!(matches!(
            key_pair_request(false, &[attr(CKA_EC_PARAMS, &k283)], &[]),
            Err(Error::AttributeValueInvalid)
        ));
    }

    #[test]
    fn rsa_key_pair_templates_take_2048_to_4096_bits_and_f4_only() {
        let bits = |n: CK_ULONG| ulong(n);
        let b2048 = bits(2048);
        let f4 = [1, 0, 1];
        let request = key_pair_request(
            true,
            &[
                attr(CKA_MODULUS_BITS, &b2048),
                attr(CKA_PUBLIC_EXPONENT, &f4),
            ],
            &[attr(CKA_DECRYPT, &[CK_TRUE])],
        );
        assert_eq!(
            request.ok().map(|r| r.algorithm),
            Some(KeyAlgorithm::Rsa(RsaBits::B2048))
        );
        let b1024 = bits(1024);
        assert!(matches!(
            key_pair_request(true, &[attr(CKA_MODULUS_BITS, &b1024)], &[]),
            Err(Error::KeySizeRange)
        ));
        assert!(matches!(
            key_pair_request(
                true,
                &[
                    attr(CKA_MODULUS_BITS, &b2048),
                    attr(CKA_PUBLIC_EXPONENT, &[3])
                ],
                &[]
            ),
            Err(Error::TemplateInconsistent)
        ));
        assert!(matches!(
            key_pair_request(
                true,
                &[attr(CKA_MODULUS_BITS, &b2048)],
                &[attr(CKA_DERIVE, &[CK_TRUE])]
            ),
            Err(Error::TemplateInconsistent)
        ));
    }

    #[test]
    fn create_templates_take_certificates_and_public_keys_only() {
        let cert_class = ulong(CKO_CERTIFICATE);
        assert!(matches!(
            create_request(&[attr(CKA_CLASS, &cert_class), attr(CKA_VALUE, b"junk")]),
            Err(Error::AttributeValueInvalid)
        ));
        assert!(matches!(
            create_request(&[attr(CKA_CLASS, &cert_class)]),
            Err(Error::TemplateIncomplete)
        ));
        let secret_class = ulong(CKO_SECRET_KEY);
        assert!(matches!(
            create_request(&[attr(CKA_CLASS, &secret_class)]),
            Err(Error::AttributeValueInvalid)
        ));
        let huge = vec![0x30; vss_hsm::MAX_OBJECT_LEN + 1];
        let long_label = vec![b'x'; vss_hsm::MAX_OBJECT_LABEL_LEN + 1];
        for oversized in [
            vec![attr(CKA_CLASS, &cert_class), attr(CKA_VALUE, &huge)],
            vec![attr(CKA_CLASS, &cert_class), attr(CKA_LABEL, &long_label)],
            vec![attr(CKA_CLASS, &cert_class), attr(CKA_LABEL, b"bell\x07")],
            vec![attr(CKA_CLASS, &cert_class), attr(CKA_ID, &[1; 65])],
        ] {
            assert!(matches!(
                create_request(&oversized),
                Err(Error::AttributeValueInvalid)
            ));
        }
        let key = vss_crypto::PrivateKey::generate(Curve::P256).expect("key");
        let pub_class = ulong(CKO_PUBLIC_KEY);
        let ec = ulong(CKK_EC);
        let params = pkcs11_ec::ec_params(Curve::P256);
        let point = pkcs11_ec::ec_point(key.public_key().to_sec1_uncompressed());
        let template = [
            attr(CKA_CLASS, &pub_class),
            attr(CKA_KEY_TYPE, &ec),
            attr(CKA_EC_PARAMS, &params),
            attr(CKA_EC_POINT, &point),
            attr(CKA_LABEL, b"peer"),
            attr(CKA_TOKEN, &[CK_TRUE]),
            attr(CKA_VERIFY, &[CK_TRUE]),
        ];
        let (label, id, kind) = create_request(&template).expect("public key");
        assert_eq!((label.as_str(), id.len()), ("peer", 0));
        assert!(matches!(kind, ObjectKind::EcPublicKey { .. }));
        let mut private = template.to_vec();
        private.push(attr(CKA_PRIVATE, &[CK_TRUE]));
        assert!(matches!(
            create_request(&private),
            Err(Error::TemplateInconsistent)
        ));
        let mut session = template.to_vec();
        session.push(attr(CKA_TOKEN, &[CK_FALSE]));
        assert!(matches!(
            create_request(&session),
            Err(Error::TemplateInconsistent)
        ));
    }

    #[test]
    fn a_derived_secret_is_readable_only_when_the_template_allows() {
        let value = || Zeroizing::new(vec![7u8; 32]);
        let readable = SecretObject::new(
            1,
            0,
            value(),
            &[
                attr(CKA_SENSITIVE, &[CK_FALSE]),
                attr(CKA_EXTRACTABLE, &[CK_TRUE]),
                attr(CKA_VALUE_LEN, &ulong(16)),
            ],
        )
        .expect("secret");
        assert_eq!(readable.attribute(CKA_VALUE).ok(), Some(vec![7u8; 16]));
        let default = SecretObject::new(1, 0, value(), &[]).expect("secret");
        assert!(matches!(
            default.attribute(CKA_VALUE),
            Err(Error::AttributeSensitive)
        ));
        assert!(SecretObject::new(1, 0, value(), &[attr(CKA_VALUE_LEN, &ulong(33))]).is_err());
        assert!(SecretObject::new(1, 0, value(), &[attr(CKA_TOKEN, &[CK_TRUE])]).is_err());
    }
}
