//! A PKI directory: the authorities' certificates, their key store, the database and the
//! trust list, at fixed places; and `init`, which creates one.

use std::path::{Path, PathBuf};

use vss_crypto::Curve;
use vss_hsm::{GenerateKeyRequest, Hsm};
use vss_its::asn::Duration;
use vss_its::{
    issue_certificate, Cert, CertFileError, CertificateRequest, HsmKey, ItsTime, Profile,
};

use crate::store::{open_store, PkiStore, Role, StoreError, StoreLocation};

/// Labels of the authorities' keys in the PKI's key store.
pub mod labels {
    /// The root CA's signing key.
    pub const ROOT: &str = "root";
    /// The EA's signing key.
    pub const EA: &str = "ea";
    /// The EA's decryption key (the encryption key of its certificate).
    pub const EA_ENCRYPTION: &str = "ea-enc";
    /// The AA's signing key.
    pub const AA: &str = "aa";
    /// The AA's decryption key.
    pub const AA_ENCRYPTION: &str = "aa-enc";
}

/// Where a PKI keeps its files.
#[derive(Debug, Clone)]
pub struct PkiDir {
    dir: PathBuf,
}

impl PkiDir {
    /// The PKI in `dir`.
    pub fn new(dir: &Path) -> Self {
        PkiDir {
            dir: dir.to_path_buf(),
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The certificate of an authority: `root.cert`, `ea.cert`, `aa.cert` (COER).
    pub fn cert_path(&self, role: Role) -> PathBuf {
        self.dir.join(format!("{}.cert", role.name()))
    }

    /// The key store of the authorities' keys.
    pub fn keys(&self) -> PathBuf {
        self.dir.join("keys")
    }

    /// The SQLite database (when no PostgreSQL URL is given).
    pub fn database(&self) -> PathBuf {
        self.dir.join("pki.sqlite")
    }

    /// Opens the store of the PKI (or TLM) in this directory: at `location`, or else its
    /// SQLite database ([`PkiDir::database`]).
    pub fn open_store(
        &self,
        location: Option<&StoreLocation>,
    ) -> Result<Box<dyn PkiStore>, StoreError> {
        match location {
            Some(location) => open_store(location),
            None => open_store(&StoreLocation::Sqlite(self.database())),
        }
    }

    /// The directory of peer PKIs (`trust/`): other PKIs' EAs this PKI's AA accepts.
    pub fn peers_dir(&self) -> PathBuf {
        self.dir.join("trust")
    }

    /// Checks that the directory holds a PKI (the three certificates and the key store), so
    /// that a wrong `--dir` is named as such before a PIN is asked for.
    pub fn check(&self) -> crate::Result<()> {
        let wanted = [Role::Root, Role::Ea, Role::Aa]
            .map(|role| self.cert_path(role))
            .into_iter()
            .chain([self.keys().join("hsm.json")]);
        for path in wanted {
            if !path.is_file() {
                let missing = path.strip_prefix(&self.dir).unwrap_or(&path);
                return Err(crate::Error::NotAPkiDir {
                    dir: self.dir.clone(),
                    missing: missing.display().to_string(),
                });
            }
        }
        Ok(())
    }

    /// Reads an authority's certificate.
    pub fn cert(&self, role: Role) -> crate::Result<Cert> {
        read_cert(&self.cert_path(role))
    }
}

/// Reads a certificate file ([`Cert::read`]), naming it in an I/O error.
pub(super) fn read_cert(path: &Path) -> crate::Result<Cert> {
    Cert::read(path).map_err(|e| match e {
        CertFileError::Read { path, source } => crate::Error::Io { path, source },
        CertFileError::Decode { source, .. } => source.into(),
    })
}

/// What `init` creates.
#[derive(Debug, Clone)]
pub struct InitRequest {
    /// The PKI's name, 1–64 characters of `A-Z a-z 0-9 . _ -`: the certificates are named
    /// `<name>-root`, `<name>-ea`, `<name>-aa`.
    pub name: String,
    /// The curve of the authorities' signing keys (their encryption keys are p256, or bp256
    /// with brainpool).
    pub curve: Curve,
    /// When the certificates start.
    pub start: ItsTime,
    /// The root CA's lifetime.
    pub root_duration: Duration,
    /// The EA's and AA's lifetime (inside the root's).
    pub authority_duration: Duration,
}

impl InitRequest {
    /// Whether [`init`] would take this request for `dir`: the name is a label and `dir`
    /// holds no PKI yet. Checked before anything is made (the key store included).
    pub fn check(&self, dir: &PkiDir) -> crate::Result<()> {
        vss_hsm::check_label(&self.name).map_err(|_| {
            crate::Error::InvalidRequest(format!(
                "'{}' is not a name for a PKI",
                vss_hsm::printable(&self.name)
            ))
        })?;
        if dir.cert_path(Role::Root).exists() {
            return Err(crate::Error::InvalidRequest(format!(
                "{} holds a PKI already",
                dir.path().display()
            )));
        }
        Ok(())
    }

    /// A PKI named `name` on p256 starting now: root 10 years, EA and AA 4 years.
    pub fn new(name: &str) -> Self {
        InitRequest {
            name: name.to_string(),
            curve: Curve::P256,
            start: ItsTime::now(),
            root_duration: Duration::Years(10),
            authority_duration: Duration::Years(4),
        }
    }
}

/// The authorities' certificates.
#[derive(Debug, Clone)]
pub struct Authorities {
    /// The root CA.
    pub root: Cert,
    /// The enrolment authority.
    pub ea: Cert,
    /// The authorization authority.
    pub aa: Cert,
}

/// Creates the authorities' keys in `hsm` and their certificates (root self-signed, EA and AA
/// signed by the root) in `dir`. Refuses a directory that already holds a PKI.
pub fn init(dir: &PkiDir, hsm: &dyn Hsm, request: &InitRequest) -> crate::Result<Authorities> {
    request.check(dir)?;
    let encryption_curve = match request.curve {
        Curve::Bp256 | Curve::Bp384 => Curve::Bp256,
        _ => Curve::P256,
    };
    let key = |label: &str, curve: Curve| -> crate::Result<_> {
        let info = hsm.generate_key(&GenerateKeyRequest::new(label, curve))?;
        Ok(hsm.public_key(&info.handle)?)
    };
    let mut root = CertificateRequest::new(
        Profile::Root,
        key(labels::ROOT, request.curve)?,
        request.root_duration.clone(),
    );
    root.name = Some(format!("{}-root", request.name));
    root.start = request.start;
    let root_signer = HsmKey::new(hsm, labels::ROOT)?;
    let root = issue_certificate(&root, None, &root_signer)?;

    let authority = |profile: Profile, label: &str, encryption: &str| -> crate::Result<Cert> {
        let mut r = CertificateRequest::new(
            profile,
            key(label, request.curve)?,
            request.authority_duration.clone(),
        );
        r.name = Some(format!("{}-{profile}", request.name));
        r.start = request.start;
        r.encryption_key = Some(key(encryption, encryption_curve)?);
        Ok(issue_certificate(&r, Some(&root), &root_signer)?)
    };
    let ea = authority(Profile::Ea, labels::EA, labels::EA_ENCRYPTION)?;
    let aa = authority(Profile::Aa, labels::AA, labels::AA_ENCRYPTION)?;
    for (role, cert) in [(Role::Root, &root), (Role::Ea, &ea), (Role::Aa, &aa)] {
        let path = dir.cert_path(role);
        vss_hsm::write_atomic(&path, cert.bytes())?;
    }
    std::fs::create_dir_all(dir.peers_dir()).map_err(|source| crate::Error::Io {
        path: dir.peers_dir(),
        source,
    })?;
    Ok(Authorities { root, ea, aa })
}
