//! `vss its encrypt` and `vss its decrypt`: 1609.2 encrypted data to certificates' encryption
//! keys, opened with the private key in the store.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::json;
use vss_its::asn::{Ieee1609Dot2Content, Ieee1609Dot2Data};
use vss_its::{DataEncryptionKey, Decryptor, HsmKey, Recipient};

use super::{write_data, write_output};
use crate::files::{read, read_cert};
use crate::output::Format;
use crate::store::StoreArgs;

/// Options of `vss its encrypt`.
#[derive(Args)]
pub struct EncryptArgs {
    /// A recipient's certificate (it must carry an encryption key). Repeatable.
    #[arg(long = "to", value_name = "CERT", required = true)]
    recipients: Vec<PathBuf>,
    /// A file whose bytes are the plaintext, carried as unsecuredData.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "data",
        required_unless_present = "data"
    )]
    payload: Option<PathBuf>,
    /// A COER Ieee1609Dot2Data to encrypt as it is (e.g. the output of `vss its sign`).
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// The encrypted-data file to write (COER Ieee1609Dot2Data).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl EncryptArgs {
    /// Encrypts the plaintext to every recipient and writes the encrypted data.
    pub fn run(self) -> Result<ExitCode> {
        let inner = match (&self.payload, &self.data) {
            (Some(payload), _) => vss_its::unsecured(&read(payload)?),
            (None, Some(data)) => {
                vss_its::decode_data(&read(data)?).with_context(|| data.display().to_string())?
            }
            (None, None) => bail!("give --payload or --data"),
        };
        let certs = self
            .recipients
            .iter()
            .map(|path| read_cert(path))
            .collect::<Result<Vec<_>>>()?;
        let recipients: Vec<Recipient<'_>> = certs.iter().map(Recipient::Certificate).collect();
        let key = DataEncryptionKey::generate()?;
        write_data(
            &self.out,
            &vss_its::encrypt_data(&inner, &recipients, &key)?,
            self.format,
            json!({
                "recipients": certs.iter().map(|c| c.hashed_id8().to_string()).collect::<Vec<_>>(),
                "content": content_name(&inner),
            }),
        )
        .context("encrypted data")?;
        Ok(ExitCode::SUCCESS)
    }
}

/// Options of `vss its decrypt`.
#[derive(Args)]
pub struct DecryptArgs {
    /// The encrypted-data file (COER Ieee1609Dot2Data).
    file: PathBuf,
    /// Label of the decryption key in the store (the private half of the certificate's
    /// encryption key).
    #[arg(long, value_name = "LABEL")]
    label: String,
    /// The certificate the data was encrypted to.
    #[arg(long, value_name = "CERT")]
    cert: PathBuf,
    /// Write the payload of unsecuredData instead of the whole inner Ieee1609Dot2Data.
    #[arg(long)]
    payload: bool,
    /// The file to write the plaintext to.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl DecryptArgs {
    /// Decrypts with the key in the store and writes the plaintext.
    pub fn run(self, store: &StoreArgs) -> Result<ExitCode> {
        let data = vss_its::decode_data(&read(&self.file)?)
            .with_context(|| self.file.display().to_string())?;
        let cert = read_cert(&self.cert)?;
        let hsm = store.open()?;
        let key = HsmKey::new(hsm.as_ref(), &self.label)?;
        let opened = vss_its::decrypt_data(&data, Decryptor::Certificate(&cert, &key))
            .with_context(|| self.file.display().to_string())?;
        let bytes = if self.payload {
            match &opened.data.content {
                Ieee1609Dot2Content::UnsecuredData(payload) => payload.0.to_vec(),
                _ => bail!(
                    "the decrypted data is {}, not unsecuredData: leave out --payload",
                    content_name(&opened.data)
                ),
            }
        } else {
            opened.bytes.clone()
        };
        write_output(
            &self.out,
            &bytes,
            self.format,
            json!({
                "recipient": cert.hashed_id8().to_string(),
                "content": content_name(&opened.data),
            }),
        )
        .context("plaintext")?;
        Ok(ExitCode::SUCCESS)
    }
}

/// The standard's name of a data's content.
fn content_name(data: &Ieee1609Dot2Data) -> &'static str {
    match data.content {
        Ieee1609Dot2Content::UnsecuredData(_) => "unsecuredData",
        Ieee1609Dot2Content::SignedData(_) => "signedData",
        Ieee1609Dot2Content::EncryptedData(_) => "encryptedData",
        Ieee1609Dot2Content::SignedCertificateRequest(_) => "signedCertificateRequest",
        Ieee1609Dot2Content::SignedX509CertificateRequest(_) => "signedX509CertificateRequest",
        _ => "an extension of Ieee1609Dot2Content",
    }
}
