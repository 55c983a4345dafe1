//! Frame encryption (seed 000's encryptSendingFrame and decryptReceivedFrame): a payload
//! sealed for the holder of a certificate's encryption key as IEEE 1609.2 encrypted data
//! (ECIES to the key, AES-128-CCM over the data), and opened with the receiver's private key
//! in the HSM.

use std::sync::Arc;

use vss_hsm::Hsm;
use vss_its::asn::Ieee1609Dot2Content;
use vss_its::{Cert, DataEncryptionKey, Decryptor, HsmKey, Recipient};

use crate::{Error, Result};

/// What a decrypted frame held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameContent {
    /// A plain payload (as [`encrypt_sending_frame`] seals it).
    Payload(Vec<u8>),
    /// Signed data (COER), for the verify service.
    Signed(Vec<u8>),
}

/// Seals `payload` for the holder of `recipient`'s encryption key; the frame's bytes (COER
/// `Ieee1609Dot2Data`).
pub fn encrypt_sending_frame(payload: &[u8], recipient: &Cert) -> Result<Vec<u8>> {
    let inner = vss_its::unsecured(payload);
    let key = DataEncryptionKey::generate()?;
    let sealed = vss_its::encrypt_data(&inner, &[Recipient::Certificate(recipient)], &key)?;
    Ok(vss_its::encode_data(&sealed)?)
}

/// Opens frames addressed to a certificate whose encryption key is in the HSM.
pub struct FrameReceiver {
    hsm: Arc<dyn Hsm>,
    cert: Cert,
    key_label: String,
}

impl FrameReceiver {
    /// Opens frames for `cert` with the HSM key `key_label` (its encryption key's private
    /// half).
    pub fn new(hsm: Arc<dyn Hsm>, cert: Cert, key_label: &str) -> Self {
        FrameReceiver {
            hsm,
            cert,
            key_label: key_label.to_string(),
        }
    }

    /// Decrypts a received frame: refused when it is malformed, not addressed to this key,
    /// or changed on the way (the CCM tag).
    pub fn decrypt_received_frame(&self, bytes: &[u8]) -> Result<FrameContent> {
        let data = vss_its::decode_data(bytes)?;
        let key = HsmKey::new(self.hsm.as_ref(), &self.key_label)?;
        let opened = vss_its::decrypt_data(&data, Decryptor::Certificate(&self.cert, &key))?;
        match opened.data.content {
            Ieee1609Dot2Content::UnsecuredData(payload) => {
                Ok(FrameContent::Payload(payload.0.to_vec()))
            }
            Ieee1609Dot2Content::SignedData(_) => Ok(FrameContent::Signed(opened.bytes)),
            _ => Err(Error::NotAFrame(
                "the decrypted content is neither data nor signed data",
            )),
        }
    }
}
