//! The roles' state on disk, one directory each: the issuer's key and its open offers, the
//! verifier's open policies, the inspector's key, the revocation authority's key and state.
//! An offer or a policy is used once: answering it removes its file, so a replayed request
//! or token finds nothing. Files are written atomically, readable by the owner only, and
//! read with a bound.
//!
//! The secret keys are encrypted at rest: each role that has one keeps it in a soft key
//! store of its own, `DIR/store/` ([`vss_hsm::SoftHsm`]: a master key wrapped under the
//! role's PIN and PUK with Argon2id, the key sealed with AES-256-GCM, PIN and PUK retry
//! counters). Its public files stay plain, and are read without the PIN.

use crate::codec::{self, Versioned};
use crate::group::Scalar;
use crate::issuance::{
    IssuanceOffer, IssuanceRequest, IssuanceResponse, IssuerParameters, IssuerSecret,
};
use crate::layout;
use crate::predicates::inspection::{
    DlogTable, InspectorKey, InspectorPublicKey, DEFAULT_DECRYPT_BITS,
};
use crate::predicates::revocation::{
    MembershipWitness, RemovalEntry, RevocationAuthority, RevocationInfo, RevocationState,
};
use crate::presentation::{self, PresentationPolicy, PresentationToken, VerifiedPresentation};
use crate::spec::CredentialSpecification;
use crate::Error;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use vss_hsm::SoftHsm;
use zeroize::Zeroizing;

/// How long an issuer's offer or a verifier's policy stays open.
pub const OPEN_TTL: Duration = Duration::from_secs(600);
/// The most offers (or policies) open at once in one role directory.
pub const MAX_OPEN: usize = 1024;
/// Of [`MAX_OPEN`], what a service answering remote clients (`vss cred serve`) leaves to the
/// local commands (`vss cred issue`, `vss cred policy`): remote clients can fill at most
/// [`MAX_OPEN_REMOTE`], so they cannot lock the local commands out.
pub const LOCAL_RESERVE: usize = 64;
/// The most offers (or policies) a service opens for remote clients in one role directory.
pub const MAX_OPEN_REMOTE: usize = MAX_OPEN - LOCAL_RESERVE;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads an artefact file with the artefact bound.
pub fn read_artefact<T: DeserializeOwned + Versioned>(path: &Path) -> crate::Result<T> {
    read_artefact_bounded(path, codec::MAX_ARTEFACT_LEN)
}

/// The largest revocation state read: 2^20 live handles and a full removal log, in hex.
pub const MAX_REVOCATION_STATE_LEN: usize = 128 * 1024 * 1024;

/// Reads an artefact file of at most `max` bytes.
fn read_artefact_bounded<T: DeserializeOwned + Versioned>(
    path: &Path,
    max: usize,
) -> crate::Result<T> {
    let bytes = vss_hsm::read_bounded(path, max as u64).map_err(io(path))?;
    codec::from_json_bounded(&bytes, max).map_err(|source| Error::File {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes an artefact file atomically.
pub fn write_artefact<T: Serialize>(path: &Path, value: &T) -> crate::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    vss_hsm::write_atomic(path, &codec::to_json(value))?;
    Ok(())
}

/// Creates the role's key store in `dir` with the PIN and PUK and keeps `key` in it;
/// [`Error::Exists`] if the directory has a store already.
fn create_key(dir: &Path, pin: &str, puk: &str, key: &[u8]) -> crate::Result<()> {
    let store = layout::key_store(dir);
    if store.exists() {
        return Err(Error::Exists(dir.to_path_buf()));
    }
    SoftHsm::init(&store, pin, puk)?;
    SoftHsm::open(&store, pin)?.put_secret(layout::ROLE_KEY, key)?;
    Ok(())
}

/// The role's key, from its store in `dir` opened with the PIN.
fn open_key(dir: &Path, pin: &str) -> crate::Result<Zeroizing<Vec<u8>>> {
    Ok(SoftHsm::open(&layout::key_store(dir), pin)?.get_secret(layout::ROLE_KEY)?)
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

    /// Opens the item under `nonce`, unless `cap` items (at most [`MAX_OPEN`]) are open.
    fn open<T: Serialize>(&self, nonce: &[u8], item: &T, cap: usize) -> crate::Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        self.expire()?;
        let count = std::fs::read_dir(&self.dir).map_err(io(&self.dir))?.count();
        let cap = cap.min(MAX_OPEN);
        if count >= cap {
            return Err(Error::TooManyOpen(cap));
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

    /// Takes the item out: the first caller gets it, every later one [`Error::NotOpen`].
    fn take<T: DeserializeOwned>(&self, nonce: &[u8]) -> crate::Result<T> {
        if nonce.len() != crate::issuance::NONCE_LEN {
            return Err(Error::NotOpen);
        }
        let path = self.path(nonce);
        let open: Open<T> = match read_artefact(&path) {
            Ok(open) => open,
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::NotOpen)
            }
            Err(e) => return Err(e),
        };
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Error::NotOpen),
            Err(e) => return Err(io(&path)(e)),
        }
        if now().saturating_sub(open.opened) > OPEN_TTL.as_secs() {
            return Err(Error::NotOpen);
        }
        Ok(open.item)
    }

    fn expire(&self) -> crate::Result<()> {
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

/// The issuer: `store/` (its key, under its PIN), `parameters.json` (public), `offers/`.
pub struct Issuer {
    secret: IssuerSecret,
    offers: OpenSet,
}

impl Issuer {
    /// Creates the issuer of a specification in `dir`, with a fresh key kept in a new store
    /// under `pin` and `puk`.
    pub fn create(
        dir: &Path,
        specification: CredentialSpecification,
        pin: &str,
        puk: &str,
    ) -> crate::Result<Self> {
        let secret = IssuerSecret::generate(specification)?;
        create_key(dir, pin, puk, secret.secret_key())?;
        write_artefact(&layout::issuer_parameters(dir), &secret.parameters)?;
        Ok(Issuer {
            secret,
            offers: OpenSet {
                dir: layout::offers(dir),
            },
        })
    }

    /// Opens the issuer in `dir`, its key store with `pin`.
    pub fn open(dir: &Path, pin: &str) -> crate::Result<Self> {
        let key = open_key(dir, pin)?;
        Ok(Issuer {
            secret: IssuerSecret::from_parts(&key, Self::parameters_in(dir)?)?,
            offers: OpenSet {
                dir: layout::offers(dir),
            },
        })
    }

    /// The public parameters of the issuer in `dir`, read without its PIN.
    pub fn parameters_in(dir: &Path) -> crate::Result<IssuerParameters> {
        read_artefact(&layout::issuer_parameters(dir))
    }

    /// The issuer's public parameters.
    pub fn parameters(&self) -> &IssuerParameters {
        &self.secret.parameters
    }

    /// Opens an offer of the attributes, unless [`MAX_OPEN`] are open.
    pub fn offer(&self, attributes: &[(String, String)]) -> crate::Result<IssuanceOffer> {
        self.offer_within(attributes, MAX_OPEN)
    }

    /// Opens an offer of the attributes, unless `cap` (at most [`MAX_OPEN`]) are open: a
    /// service for remote clients passes [`MAX_OPEN_REMOTE`].
    pub fn offer_within(
        &self,
        attributes: &[(String, String)],
        cap: usize,
    ) -> crate::Result<IssuanceOffer> {
        let offer = self.secret.offer(attributes)?;
        self.offers.open(&offer.nonce, &offer, cap)?;
        Ok(offer)
    }

    /// Answers a request to an open offer, once; `revocation` is the handle and witness
    /// the revocation authority gave the credential.
    pub fn issue(
        &self,
        request: &IssuanceRequest,
        revocation: Option<(Scalar, MembershipWitness)>,
    ) -> crate::Result<IssuanceResponse> {
        let offer: IssuanceOffer = self.offers.take(&request.nonce)?;
        self.secret.issue(&offer, request, revocation)
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
                dir: layout::policies(dir),
            },
        }
    }

    /// Hands out the policy (whose nonce must be fresh) and keeps it open, unless
    /// [`MAX_OPEN`] are open.
    pub fn open_policy(&self, policy: &PresentationPolicy) -> crate::Result<()> {
        self.open_policy_within(policy, MAX_OPEN)
    }

    /// [`Verifier::open_policy`] unless `cap` (at most [`MAX_OPEN`]) are open: a service for
    /// remote clients passes [`MAX_OPEN_REMOTE`].
    pub fn open_policy_within(&self, policy: &PresentationPolicy, cap: usize) -> crate::Result<()> {
        self.policies.open(&policy.nonce, policy, cap)
    }

    /// Verifies a token against the open policy with its nonce, which is then closed: a
    /// second token for the same nonce is [`Error::NotOpen`].
    pub fn verify(
        &self,
        token: &PresentationToken,
        issuer: &IssuerParameters,
    ) -> crate::Result<VerifiedPresentation> {
        let policy: PresentationPolicy = self.policies.take(&token.policy.nonce)?;
        presentation::verify(&policy, token, issuer)
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
pub fn write_keyed<T: Serialize>(path: &Path, value: T) -> crate::Result<()> {
    write_artefact(
        path,
        &Keyed {
            version: codec::VERSION,
            value,
        },
    )
}

/// Reads what [`write_keyed`] wrote.
pub fn read_keyed<T: DeserializeOwned>(path: &Path) -> crate::Result<T> {
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

/// The inspector: `store/` (its key, under its PIN) and `public.json`. The discrete-log table
/// that decryption needs is built at the first inspection and kept.
pub struct Inspector {
    key: InspectorKey,
    table: std::sync::OnceLock<DlogTable>,
}

impl Inspector {
    /// Creates an inspector in `dir`, with a fresh key kept in a new store under `pin` and
    /// `puk`.
    pub fn create(dir: &Path, pin: &str, puk: &str) -> crate::Result<Self> {
        let key = InspectorKey::new();
        create_key(dir, pin, puk, &Zeroizing::new(key.to_bytes()))?;
        write_keyed(&layout::public(dir), key.public())?;
        Ok(Inspector {
            key,
            table: std::sync::OnceLock::new(),
        })
    }

    /// Opens the inspector in `dir`, its key store with `pin`.
    pub fn open(dir: &Path, pin: &str) -> crate::Result<Self> {
        Ok(Inspector {
            key: InspectorKey::from_bytes(&open_key(dir, pin)?)
                .map_err(Error::statement("inspection"))?,
            table: std::sync::OnceLock::new(),
        })
    }

    /// The public key of the inspector in `dir`, read without its PIN.
    pub fn public_in(dir: &Path) -> crate::Result<InspectorPublicKey> {
        read_keyed(&layout::public(dir))
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
    ) -> crate::Result<Vec<InspectionResult>> {
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
                    let built = DlogTable::new(DEFAULT_DECRYPT_BITS)
                        .map_err(Error::statement("inspection"))?;
                    self.table.get_or_init(|| built)
                }
            };
            let ordinal = self
                .key
                .decrypt_with(table, proof.ciphertext())
                .map_err(Error::statement("inspection"))?;
            let (_, a) = spec.attribute(&request.attribute)?;
            let value = a
                .kind
                .from_ordinal(ordinal)
                .ok_or(Error::Policy("only dates and integers can be inspected"))?;
            opened.push(InspectionResult {
                attribute: request.attribute.clone(),
                value,
                grounds: request.grounds.clone(),
            });
        }
        Ok(opened)
    }
}

/// The revocation authority: `store/` (its key, under its PIN), `state.json` (its
/// accumulator, live handles and removal log: no secret, and up to tens of MiB, so kept
/// beside the store rather than in it) and `public.json` (what verifiers and users need).
pub struct Revocation {
    dir: PathBuf,
    authority: RevocationAuthority,
}

impl Revocation {
    /// Creates a revocation authority in `dir`, with a fresh key kept in a new store under
    /// `pin` and `puk`.
    pub fn create(dir: &Path, pin: &str, puk: &str) -> crate::Result<Self> {
        let authority = RevocationAuthority::new();
        create_key(dir, pin, puk, &authority.secret_to_bytes())?;
        let role = Revocation {
            dir: dir.to_path_buf(),
            authority,
        };
        role.save()?;
        Ok(role)
    }

    /// Opens the revocation authority in `dir`, its key store with `pin`.
    pub fn open(dir: &Path, pin: &str) -> crate::Result<Self> {
        let key = open_key(dir, pin)?;
        Ok(Revocation {
            dir: dir.to_path_buf(),
            authority: RevocationAuthority::from_parts(&key, Self::state_in(dir)?)
                .map_err(Error::statement("revocation"))?,
        })
    }

    fn state_in(dir: &Path) -> crate::Result<RevocationState> {
        read_artefact_bounded::<Keyed<RevocationState>>(
            &layout::revocation_state(dir),
            MAX_REVOCATION_STATE_LEN,
        )
        .map(|k| k.value)
    }

    fn save(&self) -> crate::Result<()> {
        write_keyed(&layout::revocation_state(&self.dir), self.authority.state())?;
        write_keyed(&layout::public(&self.dir), self.authority.public())
    }

    /// The accumulator's current state at the authority in `dir`, read without its PIN.
    pub fn info_in(dir: &Path) -> crate::Result<RevocationInfo> {
        read_keyed(&layout::public(dir))
    }

    /// The removals after `epoch` logged by the authority in `dir`, read without its PIN
    /// (for holders updating their witnesses).
    pub fn removals_in(dir: &Path, epoch: u64) -> crate::Result<Vec<RemovalEntry>> {
        Self::state_in(dir)?
            .removals_since(epoch)
            .map_err(Error::statement("revocation"))
    }

    /// The accumulator's current state.
    pub fn info(&self) -> RevocationInfo {
        self.authority.public()
    }

    /// A fresh handle for a credential being issued, with its witness.
    pub fn issue_handle(&mut self) -> crate::Result<(Scalar, MembershipWitness)> {
        let issued = self
            .authority
            .issue_handle()
            .map_err(Error::statement("revocation"))?;
        self.save()?;
        Ok(issued)
    }

    /// Revokes the credential with `handle`.
    pub fn revoke(&mut self, handle: &Scalar) -> crate::Result<()> {
        self.authority
            .revoke(handle)
            .map_err(Error::statement("revocation"))?;
        self.save()
    }

    /// The removals after `epoch`, for users to update their witnesses.
    pub fn removals_since(&self, epoch: u64) -> crate::Result<Vec<RemovalEntry>> {
        self.authority
            .removals_since(epoch)
            .map_err(Error::statement("revocation"))
    }
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

    const PIN: &str = "1234";
    const PUK: &str = "12345678";

    #[test]
    fn offers_and_policies_are_answered_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        Issuer::create(&dir.path().join("issuer"), spec(), PIN, PUK).expect("issuer");
        assert!(matches!(
            Issuer::create(&dir.path().join("issuer"), spec(), PIN, PUK),
            Err(Error::Exists(_))
        ));
        let issuer = Issuer::open(&dir.path().join("issuer"), PIN).expect("reopen");
        let mut card = LocalHolder::generate(SystemParameters::generate().secret_base);
        let p = card.public_point().expect("p");
        let offer = issuer.offer(&[("n".into(), "7".into())]).expect("offer");
        let (request, pending) =
            crate::issuance::request(&mut card, &p, issuer.parameters(), &offer).expect("request");
        let response = issuer.issue(&request, None).expect("issue");
        assert!(matches!(issuer.issue(&request, None), Err(Error::NotOpen)));
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
            Err(Error::NotOpen)
        ));
        let mut odd = token.clone();
        odd.policy.nonce = vec![0; 5000];
        assert!(matches!(
            verifier.verify(&odd, issuer.parameters()),
            Err(Error::NotOpen)
        ));
    }

    /// Every file under `dir`, recursively.
    fn files(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).expect("list") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                out.extend(files(&path));
            } else {
                out.push(path);
            }
        }
        out
    }

    fn holds(dir: &Path, secret: &[u8]) -> bool {
        let hex = hex::encode(secret);
        files(dir).iter().any(|f| {
            let bytes = std::fs::read(f).expect("read");
            bytes.windows(secret.len()).any(|w| w == secret)
                || bytes.windows(hex.len()).any(|w| w == hex.as_bytes())
        })
    }

    #[test]
    fn the_roles_keys_are_sealed_under_their_pin() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (i, n, r) = (
            dir.path().join("issuer"),
            dir.path().join("inspector"),
            dir.path().join("revocation"),
        );
        let issuer = Issuer::create(&i, spec(), PIN, PUK).expect("issuer");
        let inspector = Inspector::create(&n, PIN, PUK).expect("inspector");
        let mut authority = Revocation::create(&r, PIN, PUK).expect("revocation");
        assert!(matches!(
            Inspector::create(&n, PIN, PUK),
            Err(Error::Exists(_))
        ));
        let (handle, _) = authority.issue_handle().expect("handle");
        authority.revoke(&handle).expect("revoke");

        // No file holds a key in the clear.
        assert!(!holds(&i, issuer.secret.secret_key()));
        assert!(!holds(&n, &inspector.key.to_bytes()));
        assert!(!holds(&r, &authority.authority.secret_to_bytes()));

        // The public parts are read without the PIN.
        assert_eq!(
            &Issuer::parameters_in(&i).expect("params"),
            issuer.parameters()
        );
        assert_eq!(
            Inspector::public_in(&n).expect("public"),
            inspector.public()
        );
        assert_eq!(Revocation::info_in(&r).expect("info"), authority.info());
        assert_eq!(Revocation::removals_in(&r, 0).expect("log").len(), 1);

        // The PIN opens them; a wrong one opens nothing and counts.
        for (dir, open) in [
            (
                &i,
                (|d, p| Issuer::open(d, p).map(drop)) as fn(&Path, &str) -> _,
            ),
            (&n, |d, p| Inspector::open(d, p).map(drop)),
            (&r, |d, p| Revocation::open(d, p).map(drop)),
        ] {
            assert!(matches!(
                open(dir, "0000"),
                Err(Error::Store(vss_hsm::Error::WrongPin { tries_left: 2 }))
            ));
            open(dir, PIN).expect("the right PIN");
        }
        let reopened = Revocation::open(&r, PIN).expect("reopen");
        assert_eq!(reopened.info(), authority.info());
        assert!(matches!(
            reopened.removals_since(0).as_deref(),
            Ok([entry]) if entry.handle == handle
        ));
    }

    /// A revocation authority with more live handles than a 1 MiB artefact holds (its state
    /// is about 70 bytes per handle in hex) still opens: its state has its own bound.
    #[test]
    fn a_large_revocation_state_reopens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("revocation");
        let mut role = Revocation::create(&path, "1234", "12345678").expect("create");
        let handles: Vec<Scalar> = (0..20_000)
            .map(|_| role.authority.issue_handle().expect("handle").0)
            .collect();
        role.save().expect("save");
        let len = std::fs::metadata(layout::revocation_state(&path))
            .expect("state")
            .len();
        assert!(len > codec::MAX_ARTEFACT_LEN as u64, "{len} bytes");
        let mut reopened = Revocation::open(&path, "1234").expect("reopen");
        assert_eq!(reopened.info(), role.info());
        reopened
            .revoke(&handles[12_345])
            .expect("a handle of the reopened state");
    }
}
