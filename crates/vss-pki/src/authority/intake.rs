//! How an authority opens a request: COER `Ieee1609Dot2Data`, encrypted to its certificate,
//! decrypted with its key in the HSM. A request that cannot be opened gets no encrypted
//! answer, only the code of why.

use vss_hsm::Hsm;
use vss_its::asn::Ieee1609Dot2Content;
use vss_its::{Cert, Decrypted, DecryptionError, Decryptor, HsmKey};

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
        vss_its::Error::Decryption(DecryptionError::NotARecipient(_)) => Unopened::NotRecipient,
        vss_its::Error::Decryption(_) => Unopened::Decryption,
        _ => Unopened::Parse,
    })
}

/// Each protocol's codes for a request that could not be opened.
macro_rules! unopened_codes {
    ($code:ty: $parse:ident, $content:ident, $recipient:ident, $decryption:ident) => {
        impl From<Unopened> for $code {
            fn from(failure: Unopened) -> Self {
                match failure {
                    Unopened::Parse => <$code>::$parse,
                    Unopened::ContentType => <$code>::$content,
                    Unopened::NotRecipient => <$code>::$recipient,
                    Unopened::Decryption => <$code>::$decryption,
                }
            }
        }
    };
}

unopened_codes!(crate::messages::EnrolmentResponseCode:
    CantParse, BadContentType, ImNotTheRecipient, DecryptionFailed);
unopened_codes!(crate::messages::AuthorizationValidationResponseCode:
    CantParse, BadContentType, ImNotTheRecipient, DecryptionFailed);
unopened_codes!(crate::messages::AuthorizationResponseCode:
    ItsAaCantParse, ItsAaBadContentType, ItsAaImNotTheRecipient, ItsAaDecryptionFailed);
