//! How an authority ends a certificate request: the outcome recorded with the request id in
//! one transaction (a replay that slipped past the first check is caught here), and the code
//! and certificate to answer with.

use vss_its::Cert;

use crate::messages::ResponseCode;
use crate::store::{IssuedCertificate, Outcome, PkiStore, Role, StoreError};
use crate::Result;

/// What checking a request gave: the certificate issued (and the station it is for), or the
/// refusal's code and reason.
pub(crate) type Checked<C> = std::result::Result<(Cert, Option<String>), (C, String)>;

/// Records `checked` for the request `hash`; answers `ok` with the certificate, the refusal's
/// code, or `replay` when the request id was answered before.
pub(crate) fn conclude<C: Copy + Into<ResponseCode>>(
    store: &dyn PkiStore,
    role: Role,
    hash: &[u8; 16],
    checked: Checked<C>,
    ok: C,
    replay: C,
) -> Result<(C, Option<Cert>)> {
    let (code, certificate, outcome) = match checked {
        Ok((cert, station)) => {
            let outcome = Outcome::Issued(IssuedCertificate {
                hashed_id8: cert.hashed_id8(),
                role,
                station,
                request_id: hash.to_vec(),
                certificate: cert.bytes().to_vec(),
            });
            (ok, Some(cert), outcome)
        }
        Err((code, reason)) => {
            let outcome = Outcome::Refused {
                code: code.into(),
                reason,
            };
            (code, None, outcome)
        }
    };
    match store.record(role, hash, &outcome) {
        Ok(()) => Ok((code, certificate)),
        Err(StoreError::Replay(_)) => Ok((replay, None)),
        Err(e) => Err(e.into()),
    }
}

/// The answer carrying `content` with `code`: signed with the authority's key `label` and
/// encrypted with the request's key.
pub(crate) fn respond<C>(
    hsm: &dyn vss_hsm::Hsm,
    label: &str,
    cert: &Cert,
    content: crate::messages::EtsiTs102941DataContent,
    code: C,
    key: &vss_its::DataEncryptionKey,
    now: vss_its::ItsTime,
) -> Result<super::Answer<C>> {
    let signer = vss_its::HsmKey::new(hsm, label)?;
    let body = crate::protocol::seal_response(content, cert, &signer, key, now)?;
    Ok(super::Answer::Response { code, body })
}
