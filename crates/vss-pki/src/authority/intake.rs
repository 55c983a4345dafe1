//! How an authority opens a request: COER `Ieee1609Dot2Data`, encrypted to its certificate,
//! decrypted with its key in the HSM. A request that cannot be opened gets no encrypted
//! answer, only the code of why.

use vss_hsm::Hsm;
use vss_its::asn::Ieee1609Dot2Content;
use vss_its::{Cert, Decrypted, Decryptor, HsmKey};

/// Why a request could not be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unopened {
    /// Not COER `Ieee1609Dot2Data`.
    Parse,
    /// Not encrypted data.
    ContentType,
    /// Not encrypted to this authority.
    NotRecipient,
    /// A tag that does not match (or the key is unusable).
    Decryption,
}

/// Decrypts `request` with the key labelled `label` in `hsm`, the private half of `cert`'s
/// encryption key.
pub(crate) fn open_request(
    hsm: &dyn Hsm,
    label: &str,
    cert: &Cert,
    request: &[u8],
) -> Result<Decrypted, Unopened> {
    let data = vss_its::decode_data(request).map_err(|_| Unopened::Parse)?;
    if !matches!(data.content, Ieee1609Dot2Content::EncryptedData(_)) {
        return Err(Unopened::ContentType);
    }
    let key = HsmKey::new(hsm, label).map_err(|_| Unopened::Decryption)?;
    vss_its::decrypt_data(&data, Decryptor::Certificate(cert, &key)).map_err(|e| match e {
        vss_its::Error::Decryption(why) if why.contains("no recipient info") => {
            Unopened::NotRecipient
        }
        vss_its::Error::Decryption(_) => Unopened::Decryption,
        _ => Unopened::Parse,
    })
}
