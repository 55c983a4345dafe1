//! The lists of the C-ITS trust model (TS 102 941 v2.1.1, §6.3): the certificate trust list a
//! TLM signs for the root CAs (ECTL), the one a root CA signs for its EAs and AAs (CTL), and
//! a root CA's revocation list (CRL), read from their signed 1609.2 form into typed views.
//! Parsing checks their shape (PSID, content, version, what a full or a TLM list may hold),
//! not their signature: that is the validator's work, under a pinned TLM or a trusted root.

mod envelope;
mod summary;

use vss_its::{Cert, HashedId8, ItsTime, Psid};

use envelope::{check_version, open};

use crate::messages::{
    CtlCommand, CtlDelete, CtlEntry, CtlFormat, EtsiTs102941DataContent, ToBeSignedCrl,
};
use crate::{Error, Result};

/// The lists: a root's CTL (full or delta) and CRL, a TLM's ECTL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListKind {
    /// A root's full CTL.
    Ctl,
    /// A root's delta CTL: what changed since the full CTL of the same sequence.
    DeltaCtl,
    /// A root's CRL.
    Crl,
    /// A TLM's ECTL.
    Ectl,
}

impl ListKind {
    /// Its short name: `ctl`, `deltactl`, `crl` or `ectl` (the store's key, a station's
    /// file names).
    pub fn name(self) -> &'static str {
        match self {
            ListKind::Ctl => "ctl",
            ListKind::DeltaCtl => "deltactl",
            ListKind::Crl => "crl",
            ListKind::Ectl => "ectl",
        }
    }
}

/// Who signed a trust list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListIssuer {
    /// The Trust List Manager: the ECTL, listing root CAs.
    Tlm,
    /// A root CA: its CTL, listing its EAs and AAs.
    RootCa,
}

/// What a trust list adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListEntry {
    /// A root CA (ECTL).
    RootCa {
        /// Its self-signed certificate.
        cert: Cert,
        /// The root certificate it succeeds (a rekeying).
        successor_to: Option<Cert>,
    },
    /// The TLM (ECTL).
    Tlm {
        /// Its self-signed certificate.
        cert: Cert,
        /// The TLM certificate it succeeds.
        successor_to: Option<Cert>,
        /// Where the ECTL is served.
        access_point: String,
    },
    /// An EA (a root's CTL).
    Ea {
        /// Its certificate.
        cert: Cert,
        /// Where AAs reach it (authorization validation).
        aa_access_point: String,
        /// Where stations reach it (enrolment).
        its_access_point: Option<String>,
    },
    /// An AA (a root's CTL).
    Aa {
        /// Its certificate.
        cert: Cert,
        /// Where stations reach it.
        access_point: String,
    },
    /// A distribution centre, and the certificates whose lists it serves.
    Dc {
        /// Its URL.
        url: String,
        /// The root CAs (or the TLM) it serves lists of.
        certs: Vec<HashedId8>,
    },
}

/// What a delta list removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListDeletion {
    /// A certificate, by HashedId8.
    Cert(HashedId8),
    /// A distribution centre, by URL.
    Dc(String),
}

/// An ECTL or a CTL.
#[derive(Debug, Clone)]
pub struct TrustList {
    /// Who signs it.
    pub issuer: ListIssuer,
    /// The signer's HashedId8 (`None` when the list names no signer).
    pub signer: Option<HashedId8>,
    /// When it was signed, when the header says.
    pub generated: Option<ItsTime>,
    /// When the next list is due; after it this one is stale.
    pub next_update: ItsTime,
    /// A full list (else a delta on the full list of the same sequence).
    pub full: bool,
    /// Its sequence number, 0 to 255.
    pub sequence: u8,
    /// What it adds.
    pub additions: Vec<ListEntry>,
    /// What it removes (a delta only).
    pub deletions: Vec<ListDeletion>,
}

/// A root CA's CRL.
#[derive(Debug, Clone)]
pub struct RevocationList {
    /// The signer's HashedId8.
    pub signer: Option<HashedId8>,
    /// When it was signed, when the header says.
    pub generated: Option<ItsTime>,
    /// When it was issued.
    pub this_update: ItsTime,
    /// When the next one is due; after it this one is stale.
    pub next_update: ItsTime,
    /// The revoked CA certificates.
    pub revoked: Vec<HashedId8>,
}

fn cert(asn: &rasn_its::ieee1609dot2::Certificate) -> Result<Cert> {
    Ok(Cert::from_asn(asn.clone())?)
}

/// The typed view of an entry (an unknown extension alternative does not decode).
pub(crate) fn entry(entry: &CtlEntry) -> Result<ListEntry> {
    Ok(match entry {
        CtlEntry::Rca(e) => ListEntry::RootCa {
            cert: cert(&e.selfsigned_root_ca)?,
            successor_to: e.successor_to.as_ref().map(cert).transpose()?,
        },
        CtlEntry::Tlm(e) => ListEntry::Tlm {
            cert: cert(&e.self_signed_tlm_certificate)?,
            successor_to: e.successor_to.as_ref().map(cert).transpose()?,
            access_point: e.access_point.to_string(),
        },
        CtlEntry::Ea(e) => ListEntry::Ea {
            cert: cert(&e.ea_certificate)?,
            aa_access_point: e.aa_access_point.to_string(),
            its_access_point: e.its_access_point.as_ref().map(ToString::to_string),
        },
        CtlEntry::Aa(e) => ListEntry::Aa {
            cert: cert(&e.aa_certificate)?,
            access_point: e.access_point.to_string(),
        },
        CtlEntry::Dc(e) => ListEntry::Dc {
            url: e.url.to_string(),
            certs: e.cert.iter().map(HashedId8::from_asn).collect(),
        },
    })
}

impl ListEntry {
    /// What removes it from a list, and what a delta list names to replace it: a
    /// certificate entry's HashedId8, a distribution centre's URL.
    pub fn deletion(&self) -> ListDeletion {
        match self {
            ListEntry::Dc { url, .. } => ListDeletion::Dc(url.clone()),
            ListEntry::RootCa { cert, .. }
            | ListEntry::Tlm { cert, .. }
            | ListEntry::Ea { cert, .. }
            | ListEntry::Aa { cert, .. } => ListDeletion::Cert(cert.hashed_id8()),
        }
    }

    /// Whether a list of `issuer` may add it: the ECTL root CAs, the TLM and distribution
    /// centres; a root's CTL EAs, AAs and distribution centres.
    fn allowed_in(&self, issuer: ListIssuer) -> bool {
        match self {
            ListEntry::Dc { .. } => true,
            ListEntry::RootCa { .. } | ListEntry::Tlm { .. } => issuer == ListIssuer::Tlm,
            ListEntry::Ea { .. } | ListEntry::Aa { .. } => issuer == ListIssuer::RootCa,
        }
    }
}

impl TrustList {
    /// Reads a signed ECTL or CTL (`Ieee1609Dot2Data`, COER).
    pub fn parse(bytes: &[u8]) -> Result<TrustList> {
        let envelope = open("CTL", bytes, Psid::CTL)?;
        let (issuer, ctl): (ListIssuer, CtlFormat) = match envelope.data.content {
            EtsiTs102941DataContent::CertificateTrustListTlm(ctl) => (ListIssuer::Tlm, *ctl),
            EtsiTs102941DataContent::CertificateTrustListRca(ctl) => (ListIssuer::RootCa, *ctl),
            _ => {
                return Err(Error::Malformed {
                    what: "CTL",
                    detail: "the payload is not a certificate trust list".into(),
                })
            }
        };
        check_version("CTL", &ctl.version)?;
        let mut additions = Vec::new();
        let mut deletions = Vec::new();
        for command in &ctl.ctl_commands {
            match command {
                CtlCommand::Add(added) => additions.push(entry(added)?),
                CtlCommand::Delete(CtlDelete::Cert(id)) => {
                    deletions.push(ListDeletion::Cert(HashedId8::from_asn(id)))
                }
                CtlCommand::Delete(CtlDelete::Dc(url)) => {
                    deletions.push(ListDeletion::Dc(url.to_string()))
                }
            }
        }
        let malformed = |detail: &str| Error::Malformed {
            what: "CTL",
            detail: detail.into(),
        };
        if ctl.is_full_ctl && !deletions.is_empty() {
            return Err(malformed("a full list deletes"));
        }
        if additions.iter().any(|e| !e.allowed_in(issuer)) {
            return Err(malformed(match issuer {
                ListIssuer::Tlm => "the ECTL adds an EA or an AA",
                ListIssuer::RootCa => "a root's CTL adds a root CA or a TLM",
            }));
        }
        Ok(TrustList {
            issuer,
            signer: envelope.signer,
            generated: envelope.generated,
            next_update: ItsTime::from_time32(&ctl.next_update),
            full: ctl.is_full_ctl,
            sequence: ctl.ctl_sequence,
            additions,
            deletions,
        })
    }

    /// The full list in force after `delta`, a delta on this full list (the same issuer and
    /// sequence): its entries, less those the delta deletes or adds anew (an entry is
    /// replaced by one of the same certificate, or of the same URL for a distribution
    /// centre), then the delta's additions; current until the delta's next update.
    pub fn apply(&self, delta: &TrustList) -> Result<TrustList> {
        let refuse = |detail: String| Error::Malformed {
            what: "delta CTL",
            detail,
        };
        if !self.full || delta.full {
            return Err(refuse("a delta applies to a full list".into()));
        }
        if delta.issuer != self.issuer || delta.signer != self.signer {
            return Err(refuse("it is not signed by the full list's signer".into()));
        }
        if delta.sequence != self.sequence {
            return Err(refuse(format!(
                "it follows the full list of sequence {}, not {}",
                delta.sequence, self.sequence
            )));
        }
        let replaced: Vec<ListDeletion> = delta
            .additions
            .iter()
            .map(ListEntry::deletion)
            .chain(delta.deletions.iter().cloned())
            .collect();
        let additions = self
            .additions
            .iter()
            .filter(|entry| !replaced.contains(&entry.deletion()))
            .chain(&delta.additions)
            .cloned()
            .collect();
        Ok(TrustList {
            generated: delta.generated,
            next_update: delta.next_update,
            full: true,
            additions,
            deletions: Vec::new(),
            ..self.clone()
        })
    }

    /// What a delta on this full list says to reach the entries `to`: the entries of `to`
    /// it does not hold as they are (by index in `to`), and the deletions of its entries
    /// `to` has nothing of the same certificate or URL for.
    pub fn changes_to(&self, to: &[ListEntry]) -> (Vec<usize>, Vec<ListDeletion>) {
        let added = (0..to.len())
            .filter(|&i| !self.additions.contains(&to[i]))
            .collect();
        let kept: Vec<ListDeletion> = to.iter().map(ListEntry::deletion).collect();
        let deleted = self
            .additions
            .iter()
            .map(ListEntry::deletion)
            .filter(|d| !kept.contains(d))
            .collect();
        (added, deleted)
    }

    /// The root CAs it adds (an ECTL's).
    pub fn roots(&self) -> Vec<&Cert> {
        self.additions
            .iter()
            .filter_map(|e| match e {
                ListEntry::RootCa { cert, .. } => Some(cert),
                _ => None,
            })
            .collect()
    }

    /// The URLs of the distribution centres that serve the lists of `id`.
    pub fn dc_urls(&self, id: &HashedId8) -> Vec<&str> {
        self.additions
            .iter()
            .filter_map(|e| match e {
                ListEntry::Dc { url, certs } if certs.contains(id) => Some(url.as_str()),
                _ => None,
            })
            .collect()
    }
}

impl RevocationList {
    /// Reads a signed CRL (`Ieee1609Dot2Data`, COER).
    pub fn parse(bytes: &[u8]) -> Result<RevocationList> {
        let envelope = open("CRL", bytes, Psid::CRL)?;
        let EtsiTs102941DataContent::CertificateRevocationList(crl) = envelope.data.content else {
            return Err(Error::Malformed {
                what: "CRL",
                detail: "the payload is not a certificate revocation list".into(),
            });
        };
        let ToBeSignedCrl {
            version,
            this_update,
            next_update,
            entries,
            ..
        } = *crl;
        check_version("CRL", &version)?;
        Ok(RevocationList {
            signer: envelope.signer,
            generated: envelope.generated,
            this_update: ItsTime::from_time32(&this_update),
            next_update: ItsTime::from_time32(&next_update),
            revoked: entries.iter().map(HashedId8::from_asn).collect(),
        })
    }
}
