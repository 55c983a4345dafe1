//! The roles' state on disk, one directory each: the issuer's key and its open offers, the
//! verifier's open policies. An offer or a policy is used once: answering it removes its
//! file, so a replayed request or token finds nothing. Files are written atomically, readable
//! by the owner only, and read with a bound.

use crate::codec::{self, CodecError, Versioned};
use crate::group::Scalar;
use crate::issuance::{
    IssuanceError, IssuanceOffer, IssuanceRequest, IssuanceResponse, IssuerParameters, IssuerSecret,
};
use crate::predicates::inspection::{
    DlogTable, InspectorKey, InspectorPublicKey, DEFAULT_DECRYPT_BITS,
};
use crate::predicates::revocation::{
    MembershipWitness, RemovalEntry, RevocationAuthority, RevocationInfo,
};
use crate::predicates::PredicateError;
use crate::presentation::{
    self, PresentationError, PresentationPolicy, PresentationToken, VerifiedPresentation,
};
use crate::spec::{CredentialSpecification, SpecError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long an issuer's offer or a verifier's policy stays open.
pub const OPEN_TTL: Duration = Duration::from_secs(600);
/// The most offers (or policies) open at once in one role directory.
pub const MAX_OPEN: usize = 1024;

/// Why a role could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum RoleError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What happened.
        source: std::io::Error,
    },
    /// A file could not be written atomically.
    #[error(transparent)]
    Store(#[from] vss_hsm::Error),
    /// A file is not the artefact it should be.
    #[error("{path}: {source}")]
    Codec {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: CodecError,
    },
    /// The role directory already holds a role.
    #[error("{0} already holds this role")]
    Exists(PathBuf),
    /// The nonce names no open offer or policy: never made, already answered, or expired.
    #[error("the nonce names no open offer or policy (unknown, already used or expired)")]
    NotOpen,
    /// [`MAX_OPEN`] offers or policies are already open.
    #[error("{MAX_OPEN} offers or policies are open already")]
    TooManyOpen,
    /// The specification is not usable.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// Issuance failed.
    #[error(transparent)]
    Issuance(#[from] IssuanceError),
    /// Presentation failed.
    #[error(transparent)]
    Presentation(#[from] PresentationError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RoleError + '_ {
    move |source| RoleError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads an artefact file with the artefact bound.
pub fn read_artefact<T: DeserializeOwned + Versioned>(path: &Path) -> Result<T, RoleError> {
    let bytes = vss_hsm::read_bounded(path, codec::MAX_ARTEFACT_LEN as u64).map_err(io(path))?;
    codec::from_json(&bytes).map_err(|source| RoleError::Codec {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes an artefact file atomically.
pub fn write_artefact<T: Serialize>(path: &Path, value: &T) -> Result<(), RoleError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    vss_hsm::write_atomic(path, &codec::to_json(value))?;
    Ok(())
}

/// An offer or policy with the time it was opened.
#[derive(Serialize, Deserialize)]
struct Open<T> {
    version: u32,
    opened: u64,
    item: T,
}

impl<T> Versioned for Open<T> {
    fn version(&self) -> u32 {
        self.version
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A directory of open offers or policies, each used once.
struct OpenSet {
    dir: PathBuf,
}

impl OpenSet {
    fn path(&self, nonce: &[u8]) -> PathBuf {
        self.dir.join(format!("{}.json", hex::encode(nonce)))
    }

    fn open<T: Serialize>(&self, nonce: &[u8], item: &T) -> Result<(), RoleError> {
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        self.expire()?;
        let count = std::fs::read_dir(&self.dir).map_err(io(&self.dir))?.count();
        if count >= MAX_OPEN {
            return Err(RoleError::TooManyOpen);
        }
        write_artefact(
            &self.path(nonce),
            &Open {
                version: codec::VERSION,
                opened: now(),
                item,
            },
        )
    }

    /// Takes the item out: the first caller gets it, every later one [`RoleError::NotOpen`].
    fn take<T: DeserializeOwned>(&self, nonce: &[u8]) -> Result<T, RoleError> {
        if nonce.len() != crate::issuance::NONCE_LEN {
            return Err(RoleError::NotOpen);
        }
        let path = self.path(nonce);
        let open: Open<T> = match read_artefact(&path) {
            Ok(open) => open,
            Err(RoleError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(RoleError::NotOpen)
            }
            Err(e) => return Err(e),
        };
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(RoleError::NotOpen),
            Err(e) => return Err(io(&path)(e)),
        }
        if now().saturating_sub(open.opened) > OPEN_TTL.as_secs() {
            return Err(RoleError::NotOpen);
        }
        Ok(open.item)
    }

    fn expire(&self) -> Result<(), RoleError> {
        for entry in std::fs::read_dir(&self.dir).map_err(io(&self.dir))? {
            let path = entry.map_err(io(&self.dir))?.path();
            let expired = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > OPEN_TTL));
            if expired {
                // Best effort: an expired entry is refused by take() anyway.
                let _ = std::fs::remove_file(&path);
            }
        }
        Ok(())
    }
}

/// The issuer: `secret.json` (its key), `parameters.json` (public), `offers/`.
pub struct Issuer {
    secret: IssuerSecret,
    offers: OpenSet,
}

impl Issuer {
    /// Creates the issuer of a specification in `dir`, with a fresh key.
    pub fn create(dir: &Path, specification: CredentialSpecification) -> Result<Self, RoleError> {
        let secret_path = dir.join("secret.json");
        if secret_path.exists() {
            return Err(RoleError::Exists(dir.to_path_buf()));
        }
        let secret = IssuerSecret::generate(specification)?;
        write_artefact(&secret_path, &secret)?;
        write_artefact(&dir.join("parameters.json"), &secret.parameters)?;
        Ok(Issuer {
            secret,
            offers: OpenSet {
                dir: dir.join("offers"),
            },
        })
    }

    /// Opens the issuer in `dir`.
    pub fn open(dir: &Path) -> Result<Self, RoleError> {
        Ok(Issuer {
            secret: read_artefact(&dir.join("secret.json"))?,
            offers: OpenSet {
                dir: dir.join("offers"),
            },
        })
    }

    /// The issuer's public parameters.
    pub fn parameters(&self) -> &IssuerParameters {
        &self.secret.parameters
    }

    /// Opens an offer of the attributes.
    pub fn offer(&self, attributes: &[(String, String)]) -> Result<IssuanceOffer, RoleError> {
        let offer = self.secret.offer(attributes)?;
        self.offers.open(&offer.nonce, &offer)?;
        Ok(offer)
    }

    /// Answers a request to an open offer, once; `revocation` is the handle and witness
    /// the revocation authority gave the credential.
    pub fn issue(
        &self,
        request: &IssuanceRequest,
        revocation: Option<(Scalar, MembershipWitness)>,
    ) -> Result<IssuanceResponse, RoleError> {
        let offer: IssuanceOffer = self.offers.take(&request.nonce)?;
        Ok(self.secret.issue(&offer, request, revocation)?)
    }
}

/// The verifier: `policies/`, the policies it handed out and has not seen answered.
pub struct Verifier {
    policies: OpenSet,
}

impl Verifier {
    /// The verifier whose state is in `dir`.
    pub fn open(dir: &Path) -> Self {
        Verifier {
            policies: OpenSet {
                dir: dir.join("policies"),
            },
        }
    }

    /// Hands out the policy (whose nonce must be fresh) and keeps it open.
    pub fn open_policy(&self, policy: &PresentationPolicy) -> Result<(), RoleError> {
        self.policies.open(&policy.nonce, policy)
    }

    /// Verifies a token against the open policy with its nonce, which is then closed: a
    /// second token for the same nonce is [`RoleError::NotOpen`].
    pub fn verify(
        &self,
        token: &PresentationToken,
        issuer: &IssuerParameters,
    ) -> Result<VerifiedPresentation, RoleError> {
        let policy: PresentationPolicy = self.policies.take(&token.policy.nonce)?;
        Ok(presentation::verify(&policy, token, issuer)?)
    }
}

/// A key or state file: a value (one that has no format version of its own) with the
/// artefacts' version.
#[derive(Serialize, Deserialize)]
struct Keyed<T> {
    version: u32,
    value: T,
}

impl<T> Versioned for Keyed<T> {
    fn version(&self) -> u32 {
        self.version
    }
}

/// Writes a value without a format version of its own (a key, parameters) as an artefact.
pub fn write_keyed<T: Serialize>(path: &Path, value: T) -> Result<(), RoleError> {
    write_artefact(
        path,
        &Keyed {
            version: codec::VERSION,
            value,
        },
    )
}

/// Reads what [`write_keyed`] wrote.
pub fn read_keyed<T: DeserializeOwned>(path: &Path) -> Result<T, RoleError> {
    read_artefact::<Keyed<T>>(path).map(|k| k.value)
}

/// What an inspector opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectionResult {
    /// The attribute.
    pub attribute: String,
    /// Its value.
    pub value: String,
    /// The grounds the token was bound to.
    pub grounds: String,
}

/// The inspector: `secret.json` (its key) and `public.json`. The discrete-log table that
/// decryption needs is built at the first inspection and kept.
pub struct Inspector {
    key: InspectorKey,
    table: std::sync::OnceLock<DlogTable>,
}

impl Inspector {
    /// Creates an inspector with a fresh key in `dir`.
    pub fn create(dir: &Path) -> Result<Self, RoleError> {
        let path = dir.join("secret.json");
        if path.exists() {
            return Err(RoleError::Exists(dir.to_path_buf()));
        }
        let key = InspectorKey::new();
        write_keyed(&path, &key)?;
        write_keyed(&dir.join("public.json"), key.public())?;
        Ok(Inspector {
            key,
            table: std::sync::OnceLock::new(),
        })
    }

    /// Opens the inspector in `dir`.
    pub fn open(dir: &Path) -> Result<Self, RoleError> {
        Ok(Inspector {
            key: read_keyed(&dir.join("secret.json"))?,
            table: std::sync::OnceLock::new(),
        })
    }

    /// The inspector's public key.
    pub fn public(&self) -> InspectorPublicKey {
        self.key.public()
    }

    /// Checks the token and opens the attributes encrypted for this inspector.
    pub fn inspect(
        &self,
        token: &PresentationToken,
        issuer: &IssuerParameters,
    ) -> Result<Vec<InspectionResult>, RoleError> {
        presentation::verify(&token.policy, token, issuer)?;
        let spec = &issuer.specification;
        let mine = self.key.public();
        let mut opened = Vec::new();
        for (request, proof) in token.policy.inspect.iter().zip(&token.inspections) {
            if request.inspector != mine {
                continue;
            }
            let table = match self.table.get() {
                Some(t) => t,
                None => {
                    let built = DlogTable::new(DEFAULT_DECRYPT_BITS).map_err(inspection)?;
                    self.table.get_or_init(|| built)
                }
            };
            let ordinal = self
                .key
                .decrypt_with(table, proof.ciphertext())
                .map_err(inspection)?;
            let (_, a) = spec.attribute(&request.attribute)?;
            let value = a.kind.from_ordinal(ordinal).ok_or(RoleError::Presentation(
                PresentationError::Policy("only dates and integers can be inspected"),
            ))?;
            opened.push(InspectionResult {
                attribute: request.attribute.clone(),
                value,
                grounds: request.grounds.clone(),
            });
        }
        Ok(opened)
    }
}

fn inspection(e: PredicateError) -> RoleError {
    RoleError::Presentation(PresentationError::Predicate("inspection", e))
}

/// The revocation authority: `state.json` (its key, accumulator and removal log) and
/// `public.json` (what verifiers and users need).
pub struct Revocation {
    dir: PathBuf,
    authority: RevocationAuthority,
}

impl Revocation {
    /// Creates a revocation authority in `dir`.
    pub fn create(dir: &Path) -> Result<Self, RoleError> {
        if dir.join("state.json").exists() {
            return Err(RoleError::Exists(dir.to_path_buf()));
        }
        let role = Revocation {
            dir: dir.to_path_buf(),
            authority: RevocationAuthority::new(),
        };
        role.save()?;
        Ok(role)
    }

    /// Opens the revocation authority in `dir`.
    pub fn open(dir: &Path) -> Result<Self, RoleError> {
        Ok(Revocation {
            dir: dir.to_path_buf(),
            authority: read_keyed(&dir.join("state.json"))?,
        })
    }

    fn save(&self) -> Result<(), RoleError> {
        write_keyed(&self.dir.join("state.json"), &self.authority)?;
        write_keyed(&self.dir.join("public.json"), self.authority.public())
    }

    /// The accumulator's current state.
    pub fn info(&self) -> RevocationInfo {
        self.authority.public()
    }

    /// A fresh handle for a credential being issued, with its witness.
    pub fn issue_handle(&mut self) -> Result<(Scalar, MembershipWitness), RoleError> {
        let issued = self.authority.issue_handle().map_err(revocation)?;
        self.save()?;
        Ok(issued)
    }

    /// Revokes the credential with `handle`.
    pub fn revoke(&mut self, handle: &Scalar) -> Result<(), RoleError> {
        self.authority.revoke(handle).map_err(revocation)?;
        self.save()
    }

    /// The removals after `epoch`, for users to update their witnesses.
    pub fn removals_since(&self, epoch: u64) -> Result<Vec<RemovalEntry>, RoleError> {
        self.authority.removals_since(epoch).map_err(revocation)
    }
}

fn revocation(e: PredicateError) -> RoleError {
    RoleError::Presentation(PresentationError::Predicate("revocation", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attributes::AttributeType;
    use crate::holder::{LocalHolder, SecretHolder};
    use crate::spec::{AttributeSpec, SystemParameters};

    fn spec() -> CredentialSpecification {
        CredentialSpecification {
            version: 1,
            id: "urn:test".into(),
            attributes: vec![AttributeSpec {
                name: "n".into(),
                kind: AttributeType::Integer,
            }],
            revocable: false,
        }
    }

    #[test]
    fn offers_and_policies_are_answered_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        Issuer::create(&dir.path().join("issuer"), spec()).expect("issuer");
        assert!(matches!(
            Issuer::create(&dir.path().join("issuer"), spec()),
            Err(RoleError::Exists(_))
        ));
        let issuer = Issuer::open(&dir.path().join("issuer")).expect("reopen");
        let mut card = LocalHolder::generate(SystemParameters::generate().secret_base);
        let p = card.public_point().expect("p");
        let offer = issuer.offer(&[("n".into(), "7".into())]).expect("offer");
        let (request, pending) =
            crate::issuance::request(&mut card, &p, issuer.parameters(), &offer).expect("request");
        let response = issuer.issue(&request, None).expect("issue");
        assert!(matches!(
            issuer.issue(&request, None),
            Err(RoleError::NotOpen)
        ));
        let credential = pending
            .complete(issuer.parameters(), &response)
            .expect("credential");

        let verifier = Verifier::open(&dir.path().join("verifier"));
        let mut policy = PresentationPolicy::new(issuer.parameters());
        policy.reveal.push("n".into());
        verifier.open_policy(&policy).expect("open policy");
        let token = presentation::present(&mut card, &credential, &policy).expect("present");
        let seen = verifier
            .verify(&token, issuer.parameters())
            .expect("verify");
        assert_eq!(seen.disclosed, vec![("n".to_string(), "7".to_string())]);
        assert!(matches!(
            verifier.verify(&token, issuer.parameters()),
            Err(RoleError::NotOpen)
        ));
        let mut odd = token.clone();
        odd.policy.nonce = vec![0; 5000];
        assert!(matches!(
            verifier.verify(&odd, issuer.parameters()),
            Err(RoleError::NotOpen)
        ));
    }
}
