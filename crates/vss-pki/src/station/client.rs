//! The station client: enrolment and pseudonyms over HTTP with keys in the station's HSM,
//! the certificates stored in its repository beside their key labels.

use std::sync::atomic::{AtomicUsize, Ordering};

use vss_hsm::{GenerateKeyRequest, Hsm};
use vss_its::{Cert, CertRequestPermission, HsmKey, ItsTime, Psid, Signer};

use super::{
    authorization_request, enrolment_request, CertKind, Entry, Outer, Repository, TicketKeys,
};
use crate::messages::{code_name, AuthorizationResponseCode, EnrolmentResponseCode};
use crate::{http, protocol, Error, Result};

/// A fresh key label with `prefix`: `<prefix>-<16 hex digits>`.
fn fresh_label(prefix: &str) -> Result<String> {
    let mut random = [0u8; 8];
    vss_crypto::random_bytes(&mut random)?;
    Ok(format!("{prefix}-{}", hex::encode(random)))
}

/// Generates a p256 key under a fresh label; runs `use_key`, and deletes the key again if
/// that fails, so a refused request leaves no key behind.
fn with_new_key<T>(
    hsm: &dyn Hsm,
    prefix: &str,
    use_key: impl FnOnce(&str) -> Result<T>,
) -> Result<T> {
    let label = fresh_label(prefix)?;
    let info = hsm.generate_key(&GenerateKeyRequest::new(&label, vss_crypto::Curve::P256))?;
    let result = use_key(&label);
    if result.is_err() {
        hsm.delete_key(&info.handle)?;
    }
    result
}

/// Enrols (or re-enrols, with the newest stored enrolment credential) station `its_id`
/// at the EA at `ea_url`; the credential goes to `repository` beside its key label. An EA
/// whose certificate does not permit enrolment responses is refused before anything is
/// sent ([`Error::NotPermitted`]).
pub fn enroll(
    hsm: &dyn Hsm,
    repository: &Repository,
    its_id: &str,
    canonical_key: &str,
    ea_url: &str,
    ea: &Cert,
) -> Result<Entry> {
    protocol::require(ea, "EA", CertRequestPermission::EnrolmentResponse)?;
    let current = repository.list(CertKind::Enrolment)?.pop();
    with_new_key(hsm, "ec", |label| {
        let new_signer = HsmKey::new(hsm, label)?;
        let request = match &current {
            Some(entry) => {
                let signer = HsmKey::new(hsm, &entry.meta.verification_key)?;
                let outer = Outer::Enrolment(&entry.cert, &signer);
                enrolment_request(its_id, &new_signer, outer, ea, ItsTime::now())?
            }
            None => {
                let signer = HsmKey::new(hsm, canonical_key)?;
                let outer = Outer::Canonical(&signer);
                enrolment_request(its_id, &new_signer, outer, ea, ItsTime::now())?
            }
        };
        let body = post(&format!("{}/ea/enrolment", base(ea_url)), &request.bytes)?;
        let response = request.read_response(&body, ea)?;
        match response.certificate {
            Some(cert) if response.code == EnrolmentResponseCode::Ok => {
                Ok(repository.store(CertKind::Enrolment, &cert, label, None)?)
            }
            _ => Err(refused("EA", &response.code)),
        }
    })
}

/// The most tickets one [`pseudonyms`] call asks for.
pub const MAX_TICKETS: usize = 10_000;
/// The most requests one [`pseudonyms`] call has in flight at once.
pub const MAX_TICKET_CONCURRENCY: usize = 64;
/// Requests in flight at once unless told otherwise.
pub const DEFAULT_TICKET_CONCURRENCY: usize = 8;

/// How many tickets to ask for, and how many requests to have in flight at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TicketBatch {
    /// Tickets, 1 to [`MAX_TICKETS`].
    pub count: usize,
    /// Requests in flight at once, 1 to [`MAX_TICKET_CONCURRENCY`].
    pub concurrency: usize,
}

impl TicketBatch {
    /// `count` tickets, [`DEFAULT_TICKET_CONCURRENCY`] requests at once.
    pub fn of(count: usize) -> Self {
        TicketBatch {
            count,
            concurrency: DEFAULT_TICKET_CONCURRENCY,
        }
    }
}

/// Asks the AA at `aa_url` for `batch.count` tickets for `psids`, `batch.concurrency`
/// requests at a time, with the newest stored enrolment credential from `ea`; each ticket
/// goes to `repository` beside its key. Both numbers are checked against their ranges
/// before anything is sent. Returns the stored tickets; the first failure, if any, after
/// all requests ended. An AA whose certificate does not permit authorization responses is
/// refused before anything is sent ([`Error::NotPermitted`]).
pub fn pseudonyms(
    hsm: &dyn Hsm,
    repository: &Repository,
    aa_url: &str,
    aa: &Cert,
    ea: &Cert,
    psids: &[Psid],
    batch: TicketBatch,
) -> Result<Vec<Entry>> {
    let TicketBatch { count, concurrency } = batch;
    protocol::require(aa, "AA", CertRequestPermission::AuthorizationResponse)?;
    if !(1..=MAX_TICKETS).contains(&count) {
        return Err(Error::InvalidRequest(format!(
            "{count} tickets: ask for 1 to {MAX_TICKETS} at a time"
        )));
    }
    if !(1..=MAX_TICKET_CONCURRENCY).contains(&concurrency) {
        return Err(Error::InvalidRequest(format!(
            "{concurrency} requests at once: 1 to {MAX_TICKET_CONCURRENCY}"
        )));
    }
    let ec = repository
        .list(CertKind::Enrolment)?
        .pop()
        .ok_or_else(|| Error::InvalidRequest("no enrolment credential: enrol first".into()))?;
    let url = format!("{}/aa/authorization", base(aa_url));
    let next = AtomicUsize::new(0);
    let worker = || {
        let mut done = Vec::new();
        while next.fetch_add(1, Ordering::Relaxed) < count {
            done.push(one_ticket(hsm, repository, &url, aa, ea, &ec, psids));
        }
        done
    };
    let results: Vec<Result<Entry>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..concurrency.min(count))
            .map(|_| scope.spawn(worker))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![Err(Error::InvalidRequest(
                        "a request thread panicked".into(),
                    ))]
                })
            })
            .collect()
    });
    results.into_iter().collect()
}

fn one_ticket(
    hsm: &dyn Hsm,
    repository: &Repository,
    url: &str,
    aa: &Cert,
    ea: &Cert,
    ec: &Entry,
    psids: &[Psid],
) -> Result<Entry> {
    with_new_key(hsm, "at", |label| {
        with_new_key(hsm, "at-enc", |encryption_label| {
            let ticket_signer = HsmKey::new(hsm, label)?;
            let encryption_key = HsmKey::new(hsm, encryption_label)?.public_key()?;
            let ec_signer = HsmKey::new(hsm, &ec.meta.verification_key)?;
            let keys = TicketKeys::with_encryption(&ticket_signer, &encryption_key);
            let request =
                authorization_request(keys, &ec.cert, &ec_signer, ea, aa, psids, ItsTime::now())?;
            let body = post(url, &request.bytes)?;
            let response = request.read_response(&body, aa)?;
            match response.certificate {
                Some(cert) if response.code == AuthorizationResponseCode::Ok => Ok(
                    repository.store(CertKind::Pseudonym, &cert, label, Some(encryption_label))?
                ),
                _ => Err(refused("AA", &response.code)),
            }
        })
    })
}

fn base(url: &str) -> &str {
    url.trim_end_matches('/')
}

fn post(url: &str, request: &[u8]) -> Result<Vec<u8>> {
    Ok(http::post(url, request)?)
}

fn refused<C: rasn::Encode>(authority: &'static str, code: &C) -> Error {
    Error::Refused {
        authority,
        code: code_name(code),
    }
}
