//! Reading the ITS files the commands take: bounded to the largest encoded structure, a
//! failure naming the file.

use std::path::Path;

use anyhow::{Context, Result};
use vss_its::Cert;

/// Reads a whole file, naming it in the error: no more than [`vss_its::MAX_ENCODED_LEN`]
/// bytes (the longest 1609.2 encoding VSS decodes, so the most a payload can be too),
/// whatever the file is (`/dev/zero`, a huge file).
pub fn read(path: &Path) -> Result<Vec<u8>> {
    vss_hsm::read_bounded(path, vss_its::MAX_ENCODED_LEN as u64)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// Reads a certificate file ([`Cert::read`]).
pub fn read_cert(path: &Path) -> Result<Cert> {
    Ok(Cert::read(path)?)
}
