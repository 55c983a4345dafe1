//! Seed 003's scenario end to end: a soccer club issues John Dow a VIP ticket bound to his
//! card, he shows it at the gate (matchday by equality, member number inspectable, a
//! pseudonym for the gate's scope, not revoked), the verifier accepts it once, the inspector
//! opens the member number for the lottery; then every refusal the seed's system owes.
//! Each step is timed and the card's APDUs counted.

use crate::attributes::AttributeType;
use crate::codec;
use crate::holder::{Card, HolderError, LocalHolder, SecretHolder, Traffic};
use crate::issuance::{self, Credential};
use crate::layout::SystemDir;
use crate::presentation::{
    self, Equality, InspectionRequest, PresentationPolicy, PresentationToken,
};
use crate::roles::{Inspector, Issuer, Revocation, Verifier};
use crate::spec::{AttributeSpec, CredentialSpecification, SystemParameters};
use crate::Error;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// The credential slot the ticket is stored in on the card.
pub const TICKET_SLOT: u8 = 0;
/// The gate's pseudonym scope.
pub const GATE_SCOPE: &str = "urn:soccer:gate";
/// The matchday the gate admits.
pub const MATCHDAY: &str = "2013-08-07Z";

/// One step's figures.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Step {
    /// Wall-clock milliseconds.
    pub ms: f64,
    /// Command APDUs sent to the card.
    pub apdus: u64,
    /// Command and response bytes.
    pub bytes: u64,
}

/// The seed's steps.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Steps {
    /// System setup: system parameters, issuer, revocation authority and inspector keys.
    pub setup: Step,
    /// Card setup: PIN, PUK, the card's secret, the system parameters on the card.
    #[serde(rename = "card-setup")]
    pub card_setup: Step,
    /// Issuance of the ticket, stored on the card.
    pub issue: Step,
    /// The presentation token for the gate's policy.
    pub present: Step,
    /// The verifier's check.
    pub verify: Step,
    /// The inspector opening the member number.
    pub inspect: Step,
}

/// Whether each thing that must be refused was.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Refused {
    /// A ticket for another matchday (2013-08-14Z).
    pub other_matchday: bool,
    /// A token made without the card (another secret).
    pub without_card: bool,
    /// A token with a changed byte.
    pub tampered_token: bool,
    /// A second use of the verifier's nonce.
    pub replayed_token: bool,
    /// A revoked credential.
    pub revoked: bool,
    /// A wrong PIN, with the card's counter decremented.
    pub wrong_pin: bool,
}

/// The pseudonyms' properties.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Pseudonyms {
    /// Two presentations to the gate show the same pseudonym.
    pub same_scope_equal: bool,
    /// A presentation to another scope shows another.
    pub other_scope_differs: bool,
}

/// What the inspector opened.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Inspected {
    /// The member number.
    pub member_number: String,
}

impl Steps {
    /// The steps in the seed's order, each with its name in the report.
    pub fn named(&self) -> [(&'static str, Step); 6] {
        [
            ("setup", self.setup),
            ("card-setup", self.card_setup),
            ("issue", self.issue),
            ("present", self.present),
            ("verify", self.verify),
            ("inspect", self.inspect),
        ]
    }
}

impl Refused {
    /// Whether all six were refused.
    pub fn all(&self) -> bool {
        self.other_matchday
            && self.without_card
            && self.tampered_token
            && self.replayed_token
            && self.revoked
            && self.wrong_pin
    }
}

/// The scenario's report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Figures per step.
    pub steps: Steps,
    /// The inspector's result.
    pub inspected: Inspected,
    /// The refusals.
    pub refused: Refused,
    /// The pseudonyms.
    pub pseudonym: Pseudonyms,
    /// The card process's peak resident memory in kB (GET DATA DF01).
    pub card_max_rss_kb: u32,
}

impl Report {
    /// Whether the scenario went as the seed's system must: every refusal refused, the
    /// pseudonyms as they should be, the member number opened.
    pub fn passed(&self) -> bool {
        self.refused.all()
            && self.pseudonym.same_scope_equal
            && self.pseudonym.other_scope_differs
            && self.inspected.member_number == MEMBER_NUMBER
    }
}

/// John Dow's member number.
pub const MEMBER_NUMBER: &str = "23784638726";

/// The VIP ticket's credential specification.
pub fn vip_ticket() -> CredentialSpecification {
    let attribute = |name: &str, kind| AttributeSpec {
        name: name.into(),
        kind,
    };
    CredentialSpecification {
        version: codec::VERSION,
        id: "urn:soccer:vip-ticket".into(),
        attributes: vec![
            attribute("first_name", AttributeType::String),
            attribute("last_name", AttributeType::String),
            attribute("birthday", AttributeType::Date),
            attribute("member_number", AttributeType::Integer),
            attribute("matchday", AttributeType::Date),
        ],
        revocable: true,
    }
}

/// John Dow's attributes, for a matchday.
pub fn john_dow(matchday: &str) -> Vec<(String, String)> {
    [
        ("first_name", "John"),
        ("last_name", "Dow"),
        ("birthday", "1985-05-05Z"),
        ("member_number", MEMBER_NUMBER),
        ("matchday", matchday),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .collect()
}

/// The roles of the scenario, each in its directory under one root.
struct Roles {
    system: SystemParameters,
    issuer: Issuer,
    revocation: Revocation,
    inspector: Inspector,
    verifier: Verifier,
}

/// The roles' PIN and PUK in the scenario: fixed, as its directory is thrown away.
const ROLE_PIN: &str = "scenario";
const ROLE_PUK: &str = "scenario-puk";

impl Roles {
    fn create(root: &Path) -> crate::Result<Self> {
        let (pin, puk) = (ROLE_PIN, ROLE_PUK);
        let dir = SystemDir::new(root);
        Ok(Roles {
            system: SystemParameters::generate(),
            issuer: Issuer::create(&dir.issuer(), vip_ticket(), pin, puk)?,
            revocation: Revocation::create(&dir.revocation(), pin, puk)?,
            inspector: Inspector::create(&dir.inspector(), pin, puk)?,
            verifier: Verifier::open(&dir.verifier()),
        })
    }

    /// The gate's policy with a fresh nonce, opened at the verifier.
    fn gate_policy(&self, scope: &str) -> crate::Result<PresentationPolicy> {
        let mut policy = PresentationPolicy::new(self.issuer.parameters());
        policy.equal.push(Equality {
            attribute: "matchday".into(),
            value: MATCHDAY.into(),
        });
        policy.inspect.push(InspectionRequest {
            attribute: "member_number".into(),
            inspector: self.inspector.public(),
            grounds: format!("VIP lottery of matchday {MATCHDAY}"),
        });
        policy.revocation = Some(self.revocation.info());
        policy.scope = Some(scope.into());
        self.verifier.open_policy(&policy)?;
        Ok(policy)
    }

    fn issue(&mut self, card: &mut dyn Card, matchday: &str) -> crate::Result<Credential> {
        let p = card.public_point()?;
        let offer = self.issuer.offer(&john_dow(matchday))?;
        let (request, pending) = issuance::request(card, &p, self.issuer.parameters(), &offer)?;
        let handle = self.revocation.issue_handle()?;
        let response = self.issuer.issue(&request, Some(handle))?;
        pending.complete(self.issuer.parameters(), &response)
    }

    /// Presents to a fresh gate policy and returns the verified pseudonym, if it verified.
    fn verified_pseudonym(
        &self,
        holder: &mut dyn SecretHolder,
        credential: &Credential,
        scope: &str,
    ) -> crate::Result<Option<crate::group::G1>> {
        let policy = self.gate_policy(scope)?;
        let Ok(token) = presentation::present(holder, credential, &policy) else {
            return Ok(None);
        };
        Ok(self
            .verifier
            .verify(&token, self.issuer.parameters())
            .ok()
            .and_then(|v| v.pseudonym))
    }

    /// Whether the verifier refuses whatever `holder` can make of `credential` for the gate.
    fn refuses(
        &self,
        holder: &mut dyn SecretHolder,
        credential: &Credential,
    ) -> crate::Result<bool> {
        let policy = self.gate_policy(GATE_SCOPE)?;
        Ok(match presentation::present(holder, credential, &policy) {
            Err(_) => true,
            Ok(token) => self
                .verifier
                .verify(&token, self.issuer.parameters())
                .is_err(),
        })
    }
}

/// Runs `f` with the card, timed, and counts the card's traffic during it.
fn timed<T>(
    card: &mut dyn Card,
    f: impl FnOnce(&mut dyn Card) -> crate::Result<T>,
) -> crate::Result<(T, Step)> {
    let before: Traffic = card.traffic();
    let start = Instant::now();
    let out = f(&mut *card)?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let used = card.traffic() - before;
    Ok((
        out,
        Step {
            ms,
            apdus: used.apdus,
            bytes: used.bytes,
        },
    ))
}

/// Runs the scenario with the roles' state under `root` (an empty directory) and the card
/// in its factory state, set up with `pin` and `puk`.
pub fn run(card: &mut dyn Card, root: &Path, pin: &str, puk: &str) -> crate::Result<Report> {
    let mut report = Report::default();
    let (mut roles, setup) = timed(card, |_| Roles::create(root))?;
    let ((), card_setup) = timed(card, |card| Ok(card.setup(pin, puk, &roles.system)?))?;
    let (credential, issue) = timed(card, |card| {
        let credential = roles.issue(card, MATCHDAY)?;
        card.store_credential(TICKET_SLOT, &credential.compact())?;
        Ok(credential)
    })?;
    let policy = roles.gate_policy(GATE_SCOPE)?;
    let (token, present) = timed(card, |card| {
        let stored = card
            .load_credential(TICKET_SLOT)?
            .ok_or(HolderError::Malformed)?;
        let from_card: Credential =
            codec::from_json_bounded(&stored, codec::MAX_ARTEFACT_LEN).map_err(Error::Stored)?;
        presentation::present(card, &from_card, &policy)
    })?;
    let (verified, verify) = timed(card, |_| {
        roles.verifier.verify(&token, roles.issuer.parameters())
    })?;
    let (opened, inspect) = timed(card, |_| {
        roles.inspector.inspect(&token, roles.issuer.parameters())
    })?;
    report.steps = Steps {
        setup,
        card_setup,
        issue,
        present,
        verify,
        inspect,
    };
    report.inspected.member_number = opened
        .into_iter()
        .find(|o| o.attribute == "member_number")
        .map(|o| o.value)
        .ok_or(Error::NotInspected)?;

    report.refused = refusals(card, &mut roles, &credential, &token, pin)?;
    let first = verified.pseudonym;
    let again = roles.verified_pseudonym(card, &credential, GATE_SCOPE)?;
    let shop = roles.verified_pseudonym(card, &credential, "urn:soccer:shop")?;
    report.pseudonym = Pseudonyms {
        same_scope_equal: first.is_some() && again == first,
        other_scope_differs: shop.is_some() && shop != first,
    };
    report.refused.revoked = revoked(card, &mut roles, credential)?;
    report.card_max_rss_kb = card.peak_rss_kb()?;
    Ok(report)
}

fn refusals(
    card: &mut dyn Card,
    roles: &mut Roles,
    credential: &Credential,
    token: &PresentationToken,
    pin: &str,
) -> crate::Result<Refused> {
    let replayed_token = matches!(
        roles.verifier.verify(token, roles.issuer.parameters()),
        Err(Error::NotOpen)
    );
    let policy = roles.gate_policy(GATE_SCOPE)?;
    let mut tampered = presentation::present(card, credential, &policy)?;
    let last = tampered.proof.len() - 1;
    tampered.proof[last] ^= 0x01;
    let tampered_token = roles
        .verifier
        .verify(&tampered, roles.issuer.parameters())
        .is_err();
    let other_day = roles.issue(card, "2013-08-14Z")?;
    let other_matchday = roles.refuses(card, &other_day)?;
    let mut not_the_card = LocalHolder::generate(roles.system.secret_base);
    let without_card = roles.refuses(&mut not_the_card, credential)?;
    let wrong = if pin == "0000" { "1111" } else { "0000" };
    let wrong_pin = matches!(card.verify_pin(wrong), Err(HolderError::WrongPin(2)));
    card.verify_pin(pin)?;
    Ok(Refused {
        other_matchday,
        without_card,
        tampered_token,
        replayed_token,
        revoked: false,
        wrong_pin,
    })
}

/// Revokes the ticket: its witness cannot be brought up to date, and neither the stale
/// witness nor a fresh presentation is accepted.
fn revoked(
    card: &mut dyn Card,
    roles: &mut Roles,
    mut credential: Credential,
) -> crate::Result<bool> {
    let handle = credential.handle.ok_or(Error::Handle)?;
    let epoch = roles.revocation.info().epoch;
    roles.revocation.revoke(&handle)?;
    let removals = roles.revocation.removals_since(epoch)?;
    let update_refused = credential.update_witness(&removals).is_err();
    Ok(update_refused && roles.refuses(card, &credential)?)
}
