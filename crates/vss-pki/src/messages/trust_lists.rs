//! `EtsiTs102941TrustLists` (TS 102 941 v2.1.1, Annex A): the certificate trust lists a TLM
//! signs for the root CAs (ECTL) and a root CA signs for its EAs and AAs (CTL), full or as a
//! delta, and the revocation list of a root CA (CRL). Field order and extension markers
//! follow the standard's ASN.1 as quoted in bc-java's OER templates (MIT).

use rasn::prelude::*;
use rasn_its::ieee1609dot2::base_types::{HashedId8, Time32};
use rasn_its::ieee1609dot2::Certificate;

/// `Url ::= IA5String`.
pub type Url = Ia5String;

/// `ToBeSignedCrl`: the CA certificates a root CA has revoked, by HashedId8.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct ToBeSignedCrl {
    /// `version`: `Version ::= INTEGER {v1(1)}`, unconstrained here (a length octet, then the
    /// value); 1.
    pub version: Integer,
    /// `thisUpdate`.
    #[rasn(identifier = "thisUpdate")]
    pub this_update: Time32,
    /// `nextUpdate`: after it the list is stale.
    #[rasn(identifier = "nextUpdate")]
    pub next_update: Time32,
    /// `entries`: `CrlEntry ::= HashedId8`.
    pub entries: SequenceOf<HashedId8>,
}

/// `CtlFormat`, which `ToBeSignedTlmCtl` (the ECTL) and `ToBeSignedRcaCtl` (a root's CTL)
/// constrain: a full list (additions only) or a delta (additions and deletions).
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct CtlFormat {
    /// `version`: `Version ::= INTEGER {v1(1)}`, unconstrained here (a length octet, then the
    /// value); 1.
    pub version: Integer,
    /// `nextUpdate`: after it the list is stale.
    #[rasn(identifier = "nextUpdate")]
    pub next_update: Time32,
    /// `isFullCtl`.
    #[rasn(identifier = "isFullCtl")]
    pub is_full_ctl: bool,
    /// `ctlSequence`: 0 to 255, one more for each list issued (a delta names the full list
    /// it follows by it).
    #[rasn(identifier = "ctlSequence")]
    pub ctl_sequence: u8,
    /// `ctlCommands`.
    #[rasn(identifier = "ctlCommands")]
    pub ctl_commands: SequenceOf<CtlCommand>,
}

/// `CtlCommand`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(choice, automatic_tags)]
#[non_exhaustive]
pub enum CtlCommand {
    /// `add`.
    Add(CtlEntry),
    /// `delete`.
    Delete(CtlDelete),
}

/// `CtlEntry`: what a list adds.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(choice, automatic_tags)]
#[non_exhaustive]
pub enum CtlEntry {
    /// `rca`: a root CA (ECTL).
    Rca(Box<RootCaEntry>),
    /// `ea`: an EA (a root's CTL).
    Ea(Box<EaEntry>),
    /// `aa`: an AA (a root's CTL).
    Aa(Box<AaEntry>),
    /// `dc`: a distribution centre and the certificates whose lists it serves.
    Dc(DcEntry),
    /// `tlm`: the TLM (ECTL).
    Tlm(Box<TlmEntry>),
}

/// `CtlDelete`: what a delta list removes.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(choice, automatic_tags)]
#[non_exhaustive]
pub enum CtlDelete {
    /// `cert`: a certificate, by HashedId8.
    Cert(HashedId8),
    /// `dc`: a distribution centre, by URL (`DcDelete ::= Url`).
    Dc(Url),
}

/// `RootCaEntry`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
pub struct RootCaEntry {
    /// `selfsignedRootCa`.
    #[rasn(identifier = "selfsignedRootCa")]
    pub selfsigned_root_ca: Certificate,
    /// `successorTo`: the root certificate this one rekeys.
    #[rasn(identifier = "successorTo")]
    pub successor_to: Option<Certificate>,
}

/// `EaEntry`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
pub struct EaEntry {
    /// `eaCertificate`.
    #[rasn(identifier = "eaCertificate")]
    pub ea_certificate: Certificate,
    /// `aaAccessPoint`: where AAs reach the EA (authorization validation).
    #[rasn(identifier = "aaAccessPoint")]
    pub aa_access_point: Url,
    /// `itsAccessPoint`: where stations reach the EA (enrolment).
    #[rasn(identifier = "itsAccessPoint")]
    pub its_access_point: Option<Url>,
}

/// `AaEntry`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
pub struct AaEntry {
    /// `aaCertificate`.
    #[rasn(identifier = "aaCertificate")]
    pub aa_certificate: Certificate,
    /// `accessPoint`: where stations reach the AA.
    #[rasn(identifier = "accessPoint")]
    pub access_point: Url,
}

/// `DcEntry`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
pub struct DcEntry {
    /// `url`.
    pub url: Url,
    /// `cert`: the root CAs (or the TLM) whose lists it serves.
    pub cert: SequenceOf<HashedId8>,
}

/// `TlmEntry`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
pub struct TlmEntry {
    /// `selfSignedTLMCertificate`.
    #[rasn(identifier = "selfSignedTLMCertificate")]
    pub self_signed_tlm_certificate: Certificate,
    /// `successorTo`: the TLM certificate this one rekeys.
    #[rasn(identifier = "successorTo")]
    pub successor_to: Option<Certificate>,
    /// `accessPoint`: where the ECTL is served.
    #[rasn(identifier = "accessPoint")]
    pub access_point: Url,
}
