//! The PKI's peers (`vss pki trust`; the role the European certificate trust list plays
//! between PKIs): other PKIs whose enrolment credentials this PKI's AA accepts — each EA's certificate, its root (so
//! this PKI's EA can also check that PKI's AA) and the EA's URL — in
//! `trust/<name>/{ea.cert,root.cert,ea-url}`.

use std::path::Path;

use vss_its::Cert;

use super::layout::read_cert;
use super::PkiDir;
use crate::{Error, Result};

/// A peer PKI: another PKI whose enrolment credentials this one's AA accepts.
#[derive(Debug, Clone)]
pub struct PeerPki {
    /// A name for it: 1–64 characters of `A-Z a-z 0-9 . _ -`.
    pub name: String,
    /// Its EA's certificate.
    pub ea: Cert,
    /// Its root CA's certificate.
    pub root: Cert,
    /// Where its EA serves (e.g. `http://127.0.0.1:8081`).
    pub ea_url: String,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl PkiDir {
    /// Adds (or replaces) a trusted PKI. This directory must hold a PKI
    /// ([`Error::NotAPkiDir`] otherwise, and nothing is created); the other PKI's EA must be
    /// issued by its root.
    pub fn add_peer(&self, pki: &PeerPki) -> Result<()> {
        self.check()?;
        vss_hsm::check_label(&pki.name).map_err(|_| {
            Error::InvalidRequest(format!("'{}' is not a name for a trusted PKI", pki.name))
        })?;
        if pki.ea.issuer() != vss_its::Issuer::Digest(pki.ea.issuer().hash(), pki.root.hashed_id8())
        {
            return Err(Error::InvalidRequest(format!(
                "EA {} is not issued by root {}",
                pki.ea.hashed_id8(),
                pki.root.hashed_id8()
            )));
        }
        crate::url::check_base_url(&pki.ea_url)?;
        let dir = self.peers_dir().join(&pki.name);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        vss_hsm::write_atomic(&dir.join("ea.cert"), pki.ea.bytes())?;
        vss_hsm::write_atomic(&dir.join("root.cert"), pki.root.bytes())?;
        vss_hsm::write_atomic(&dir.join("ea-url"), pki.ea_url.as_bytes())?;
        Ok(())
    }

    /// Every trusted PKI, by name.
    pub fn peers(&self) -> Result<Vec<PeerPki>> {
        let list = self.peers_dir();
        let mut trusted = Vec::new();
        let entries = match std::fs::read_dir(&list) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(trusted),
            Err(e) => return Err(io(&list)(e)),
        };
        for entry in entries {
            let dir = entry.map_err(io(&list))?.path();
            if !dir.is_dir() {
                continue;
            }
            let url_path = dir.join("ea-url");
            trusted.push(PeerPki {
                name: dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                ea: read_cert(&dir.join("ea.cert"))?,
                root: read_cert(&dir.join("root.cert"))?,
                ea_url: std::fs::read_to_string(&url_path)
                    .map_err(io(&url_path))?
                    .trim()
                    .to_string(),
            });
        }
        trusted.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(trusted)
    }
}
