//! Objects: every key of the store is two objects, its public key and its private key, both
//! private to the logged-in user (the store reads no key without the PIN). Their attributes,
//! object handles, template matching, and the templates of `C_GenerateKeyPair`.

use std::collections::HashMap;

use cryptoki_sys::*;
use vss_crypto::{Curve, PublicKey};
use vss_hsm::pkcs11_ec;

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

/// Which half of a key pair an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    /// `CKO_PUBLIC_KEY`.
    Public,
    /// `CKO_PRIVATE_KEY`.
    Private,
}

impl Class {
    fn cko(self) -> CK_OBJECT_CLASS {
        match self {
            Class::Public => CKO_PUBLIC_KEY,
            Class::Private => CKO_PRIVATE_KEY,
        }
    }
}

/// A key object: one half of a key of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyObject {
    /// Public or private half.
    pub(crate) class: Class,
    /// The store's label of the key (also `CKA_ID`).
    pub(crate) label: String,
    /// The key's curve.
    pub(crate) curve: Curve,
}

fn ulong(value: CK_ULONG) -> Vec<u8> {
    value.to_ne_bytes().to_vec()
}

fn bool(value: bool) -> Vec<u8> {
    vec![if value { CK_TRUE } else { CK_FALSE }]
}

impl KeyObject {
    /// The value of attribute `ty`. `public` gives the key's public half when the attribute
    /// needs it (`CKA_EC_POINT`); a secret value is [`Error::AttributeSensitive`], an
    /// attribute the object lacks [`Error::AttributeTypeInvalid`].
    pub(crate) fn attribute(
        &self,
        ty: CK_ATTRIBUTE_TYPE,
        public: impl FnOnce() -> Result<PublicKey>,
    ) -> Result<Vec<u8>> {
        let signs = self.curve.supports_ecdsa();
        let private = self.class == Class::Private;
        Ok(match ty {
            CKA_CLASS => ulong(self.class.cko()),
            CKA_TOKEN | CKA_PRIVATE => bool(true),
            CKA_MODIFIABLE | CKA_COPYABLE | CKA_DESTROYABLE => bool(false),
            // Every key of the store can do ECDH (`Hsm::ecdh`); pkcs11-tool asks for
            // CKA_DERIVE on both halves of an EC key pair.
            CKA_DERIVE => bool(true),
            CKA_LABEL | CKA_ID => self.label.as_bytes().to_vec(),
            CKA_KEY_TYPE => ulong(CKK_EC),
            CKA_START_DATE | CKA_END_DATE | CKA_SUBJECT => Vec::new(),
            CKA_EC_PARAMS => pkcs11_ec::ec_params(self.curve),
            CKA_ALLOWED_MECHANISMS => mechanism::ALL
                .iter()
                .filter(|m| signs && m.function() == Function::SignVerify)
                .flat_map(|m| ulong(m.ckm()))
                .collect(),
            CKA_VERIFY if !private => bool(signs),
            CKA_ENCRYPT | CKA_VERIFY_RECOVER | CKA_WRAP | CKA_TRUSTED if !private => bool(false),
            CKA_EC_POINT if !private => pkcs11_ec::ec_point(public()?.to_sec1_uncompressed()),
            CKA_SIGN if private => bool(signs),
            CKA_SENSITIVE if private => bool(true),
            CKA_DECRYPT
            | CKA_SIGN_RECOVER
            | CKA_UNWRAP
            | CKA_EXTRACTABLE
            | CKA_ALWAYS_AUTHENTICATE
            | CKA_WRAP_WITH_TRUSTED
                if private =>
            {
                bool(false)
            }
            CKA_VALUE if private => return Err(Error::AttributeSensitive),
            _ => return Err(Error::AttributeTypeInvalid),
        })
    }

    /// Whether every attribute of `template` has exactly the template's value (a secret or
    /// missing attribute matches nothing).
    pub(crate) fn matches(
        &self,
        template: &[Attribute<'_>],
        public: impl Fn() -> Result<PublicKey>,
    ) -> bool {
        template
            .iter()
            .all(|a| self.attribute(a.ty, &public).is_ok_and(|v| v == a.value))
    }
}

/// Object handles, stable for as long as the module is initialised: key `i` (in order of
/// first sight) has handles `2i + 2` (public) and `2i + 3` (private); 0 is never a handle.
#[derive(Debug, Default)]
pub(crate) struct ObjectTable {
    labels: Vec<String>,
    index: HashMap<String, usize>,
}

impl ObjectTable {
    /// The handle of one half of the key labelled `label`.
    pub(crate) fn handle(&mut self, label: &str, class: Class) -> CK_OBJECT_HANDLE {
        let i = match self.index.get(label) {
            Some(&i) => i,
            None => {
                self.labels.push(label.to_owned());
                self.index.insert(label.to_owned(), self.labels.len() - 1);
                self.labels.len() - 1
            }
        };
        let base = 2 * i as CK_OBJECT_HANDLE + 2;
        match class {
            Class::Public => base,
            Class::Private => base + 1,
        }
    }

    /// The label and class behind a handle, if it was ever handed out.
    pub(crate) fn lookup(&self, handle: CK_OBJECT_HANDLE) -> Option<(&str, Class)> {
        let i = usize::try_from(handle.checked_sub(2)? / 2).ok()?;
        let class = if handle.is_multiple_of(2) {
            Class::Public
        } else {
            Class::Private
        };
        Some((self.labels.get(i)?.as_str(), class))
    }
}

/// What `C_GenerateKeyPair`'s templates ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyPairRequest {
    /// The label, if a template gives one (`CKA_LABEL`, else a UTF-8 `CKA_ID`).
    pub(crate) label: Option<String>,
    /// The curve named by `CKA_EC_PARAMS`.
    pub(crate) curve: Curve,
}

/// Reads the two templates of `C_GenerateKeyPair`. The curve and the label come from
/// `CKA_EC_PARAMS` and `CKA_LABEL`; every other attribute must ask for what the module makes
/// anyway (a token object, private, sensitive, never extractable; `CKA_ID` = the label).
pub(crate) fn key_pair_request(
    public: &[Attribute<'_>],
    private: &[Attribute<'_>],
) -> Result<KeyPairRequest> {
    let all = || public.iter().chain(private);
    let one = |ty: CK_ATTRIBUTE_TYPE| -> Result<Option<&[u8]>> {
        let mut values = all().filter(|a| a.ty == ty).map(|a| a.value);
        let first = values.next();
        if values.any(|v| Some(v) != first) {
            return Err(Error::TemplateInconsistent);
        }
        Ok(first)
    };
    let params = one(CKA_EC_PARAMS)?.ok_or(Error::TemplateIncomplete)?;
    let curve = pkcs11_ec::curve_of(params)
        .filter(|c| c.supports_ecdsa())
        .ok_or(Error::AttributeValueInvalid)?;
    let label = match (one(CKA_LABEL)?, one(CKA_ID)?) {
        (Some(label), Some(id)) if label != id => return Err(Error::TemplateInconsistent),
        (Some(name), _) | (None, Some(name)) => Some(
            std::str::from_utf8(name)
                .map_err(|_| Error::AttributeValueInvalid)?
                .to_owned(),
        ),
        (None, None) => None,
    };
    let label_bytes = label.clone().unwrap_or_default();
    for (template, class) in [(public, Class::Public), (private, Class::Private)] {
        let made = KeyObject {
            class,
            label: label_bytes.clone(),
            curve,
        };
        for a in template {
            // CKA_PRIVATE false on a public key (pkcs11-tool asks for it) cannot be kept:
            // the store reads no key without the PIN, so the public key stays private.
            let token_decides = class == Class::Public && a.ty == CKA_PRIVATE;
            if token_decides || matches!(a.ty, CKA_EC_PARAMS | CKA_LABEL | CKA_ID) {
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
    Ok(KeyPairRequest { label, curve })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(class: Class) -> KeyObject {
        KeyObject {
            class,
            label: "k".into(),
            curve: Curve::P256,
        }
    }

    fn no_public() -> Result<PublicKey> {
        Err(Error::Internal)
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
            private.attribute(CKA_EC_POINT, no_public),
            Err(Error::AttributeTypeInvalid)
        ));
        assert!(matches!(
            key(Class::Public).attribute(CKA_VALUE, no_public),
            Err(Error::AttributeTypeInvalid)
        ));
    }

    #[test]
    fn templates_match_on_class_label_and_never_on_secrets() {
        let class = ulong(CKO_PRIVATE_KEY);
        let by_class = [Attribute {
            ty: CKA_CLASS,
            value: &class,
        }];
        assert!(key(Class::Private).matches(&by_class, no_public));
        assert!(!key(Class::Public).matches(&by_class, no_public));
        let by_value = [Attribute {
            ty: CKA_VALUE,
            value: &[],
        }];
        assert!(!key(Class::Private).matches(&by_value, no_public));
        assert!(key(Class::Public).matches(&[], no_public));
    }

    #[test]
    fn handles_are_stable_and_distinct() {
        let mut table = ObjectTable::default();
        let a_pub = table.handle("a", Class::Public);
        let a_priv = table.handle("a", Class::Private);
        let b_pub = table.handle("b", Class::Public);
        assert_eq!(table.handle("a", Class::Public), a_pub);
        assert_ne!(a_pub, a_priv);
        assert_ne!(a_priv, b_pub);
        assert_eq!(table.lookup(a_priv), Some(("a", Class::Private)));
        assert_eq!(table.lookup(b_pub), Some(("b", Class::Public)));
        for invalid in [0, 1, 99] {
            assert_eq!(table.lookup(invalid), None);
        }
    }

    #[test]
    fn key_pair_templates_give_curve_and_label_and_refuse_what_is_not_made() {
        let params = pkcs11_ec::ec_params(Curve::P384);
        let yes = [CK_TRUE];
        let no = [CK_FALSE];
        let attr = |ty, value| Attribute { ty, value };
        let public = [
            attr(CKA_EC_PARAMS, &params[..]),
            attr(CKA_LABEL, b"x"),
            attr(CKA_TOKEN, &yes),
            attr(CKA_VERIFY, &yes),
        ];
        let private = [attr(CKA_SENSITIVE, &yes), attr(CKA_SIGN, &yes)];
        assert_eq!(
            key_pair_request(&public, &private).ok(),
            Some(KeyPairRequest {
                label: Some("x".into()),
                curve: Curve::P384
            })
        );
        let check = |private: &[Attribute<'_>]| key_pair_request(&public, private).err();
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
            key_pair_request(&[], &[]),
            Err(Error::TemplateIncomplete)
        ));
        let k283 = pkcs11_ec::ec_params(Curve::K283);
        assert!(matches!(
            key_pair_request(&[attr(CKA_EC_PARAMS, &k283)], &[]),
            Err(Error::AttributeValueInvalid)
        ));
    }
}
