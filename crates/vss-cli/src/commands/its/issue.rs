//! `vss its cert issue` and `vss its sign`: certificates and signed data made with keys in
//! the store.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use serde_json::json;
use vss_its::asn::{Duration, GeographicRegion, ThreeDLocation};
use vss_its::{
    CertificateRequest, HashedId8, HsmKey, ItsTime, Permission, Profile, Psid, SignedDataRequest,
    SignerKind,
};
use vss_proto::proto::{SignRequest, SignerChoice};

use super::{parse_time, write_data, write_output};
use crate::commands::call_daemon;
use crate::files::{read, read_cert};
use crate::output::Format;
use crate::store::StoreArgs;

/// Options of `vss its cert issue`.
#[derive(Args)]
pub struct IssueArgs {
    /// The profile: root, ea, aa, ec, at or tlm.
    #[arg(long, value_parser = parse_profile)]
    profile: Profile,
    /// Label of the subject's key in the store (its public key goes in the certificate).
    #[arg(long, value_name = "LABEL")]
    subject_key: String,
    /// The issuer's certificate (not for a root).
    #[arg(long, value_name = "FILE")]
    issuer_cert: Option<PathBuf>,
    /// Label of the issuer's key in the store (not for a root: it signs with its own key).
    #[arg(long, value_name = "LABEL")]
    issuer_key: Option<String>,
    /// The certificate's name (root, ea, aa, ec; an AT carries none).
    #[arg(long)]
    name: Option<String>,
    /// An application permission, PSID[:SSP-HEX] (e.g. 36 for CAM, 37 for DENM). Repeatable.
    #[arg(long = "psid", value_name = "PSID[:SSP]", value_parser = parse_permission)]
    psids: Vec<Permission>,
    /// For an AA: a PSID its tickets may carry [default: any]. Repeatable.
    #[arg(long = "issue-psid", value_name = "PSID")]
    issue_psids: Vec<Psid>,
    /// Label of the subject's encryption key (p256 or bp256; required for ea and aa).
    #[arg(long, value_name = "LABEL")]
    encryption_key: Option<String>,
    /// Start of validity, RFC 3339 [default: now].
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    start: Option<ItsTime>,
    /// Length of validity: a number with y (years), d (days), h, m or s: 5y, 7d, 168h.
    #[arg(long, value_parser = parse_duration)]
    duration: Duration,
    /// Region: circle:LAT,LON,RADIUS_M | rect:N,W,S,E | polygon:LAT,LON;… | countries:CODE,…
    #[arg(long, value_parser = parse_region)]
    region: Option<GeographicRegion>,
    /// Subject assurance level, one byte.
    #[arg(long, value_name = "BYTE")]
    assurance_level: Option<u8>,
    /// The certificate file to write (COER).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl IssueArgs {
    /// Issues the certificate and writes it.
    pub fn run(self, store: &StoreArgs) -> Result<ExitCode> {
        let hsm = store.open()?;
        let subject = hsm.key(&self.subject_key)?;
        let mut request = CertificateRequest::new(
            self.profile,
            hsm.public_key(&subject.handle)?,
            self.duration.clone(),
        );
        request.name = self.name.clone();
        request.start = self.start.unwrap_or_else(ItsTime::now);
        request.region = self.region.clone();
        request.assurance_level = self.assurance_level;
        request.app_permissions = self.psids.clone();
        request.issue_psids = self.issue_psids.clone();
        if let Some(label) = &self.encryption_key {
            request.encryption_key = Some(hsm.public_key(&hsm.key(label)?.handle)?);
        }
        let cert = match (self.profile, &self.issuer_cert, &self.issuer_key) {
            (profile, None, None) if profile.is_self_signed() => {
                let signer = HsmKey::new(hsm.as_ref(), &self.subject_key)?;
                vss_its::issue_certificate(&request, None, &signer)?
            }
            (profile, _, _) if profile.is_self_signed() => {
                bail!("a {profile} certificate is self-signed: no --issuer-cert or --issuer-key")
            }
            (_, Some(path), Some(label)) => {
                let issuer = read_cert(path)?;
                let signer = HsmKey::new(hsm.as_ref(), label)?;
                vss_its::issue_certificate(&request, Some(&issuer), &signer)?
            }
            _ => bail!(
                "a {} certificate needs --issuer-cert and --issuer-key",
                self.profile
            ),
        };
        let validity = cert.validity();
        write_output(
            &self.out,
            cert.bytes(),
            self.format,
            json!({
                "profile": self.profile.name(),
                "hashed_id8": cert.hashed_id8().to_string(),
                "start": validity.start.to_string(),
                "end": validity.end.to_string(),
            }),
        )?;
        Ok(ExitCode::SUCCESS)
    }
}

/// How the signer is named in signed data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Signer {
    /// The certificate's HashedId8.
    Digest,
    /// The whole certificate.
    Certificate,
    /// No certificate (self-signed).
    #[value(name = "self")]
    SelfSigned,
}

/// Options of `vss its sign`.
#[derive(Args)]
pub struct SignArgs {
    /// Label of the signing key in the store.
    #[arg(long, value_name = "LABEL", required_unless_present = "daemon")]
    label: Option<String>,
    /// The signing key's certificate (not needed with --signer self).
    #[arg(long, value_name = "FILE")]
    cert: Option<PathBuf>,
    /// Sign with the current pseudonym of the vssd serving this Unix socket instead of a
    /// key in the store (the daemon sets the times).
    #[arg(
        long,
        value_name = "SOCKET",
        conflicts_with_all = ["label", "cert", "store", "pin_file", "generation_time", "expiry_time", "location"]
    )]
    daemon: Option<PathBuf>,
    /// The PSID (ITS-AID) of the payload: 36 for CAM, 37 for DENM.
    #[arg(long)]
    psid: Psid,
    /// The file whose bytes are the payload.
    #[arg(long, value_name = "FILE")]
    payload: PathBuf,
    /// How the message names its signer [default: digest; with --daemon, the CAM rule:
    /// the digest, the certificate once a second and after a change].
    #[arg(long, value_enum)]
    signer: Option<Signer>,
    /// Generation time, RFC 3339 [default: now].
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    generation_time: Option<ItsTime>,
    /// Expiry time, RFC 3339.
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    expiry_time: Option<ItsTime>,
    /// Generation location, LAT,LON[,ELEVATION] in degrees and metres above the WGS 84
    /// ellipsoid (-409.5 to 6143.9; default 0).
    #[arg(long, value_name = "LAT,LON[,ELEVATION]", value_parser = parse_location)]
    location: Option<ThreeDLocation>,
    /// The signed-data file to write (COER Ieee1609Dot2Data).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl SignArgs {
    /// Signs the payload and writes the signed data.
    pub fn run(self, store: &StoreArgs) -> Result<ExitCode> {
        let payload = read(&self.payload)?;
        if let Some(socket) = &self.daemon {
            return self.run_on_daemon(socket, payload);
        }
        let Some(label) = &self.label else {
            bail!("--label names the signing key (or --daemon the vssd to sign with)");
        };
        let cert = self.cert.as_deref().map(read_cert).transpose()?;
        let kind = match self.signer.unwrap_or(Signer::Digest) {
            Signer::Digest => SignerKind::Digest,
            Signer::Certificate => SignerKind::Certificate,
            Signer::SelfSigned => SignerKind::SelfSigned,
        };
        if kind != SignerKind::SelfSigned && cert.is_none() {
            bail!("--signer digest and --signer certificate need --cert");
        }
        if let Some(cert) = cert.as_ref().filter(|_| kind != SignerKind::SelfSigned) {
            if !vss_its::allows_psid(cert.tbs(), self.psid) {
                bail!(
                    "certificate {} does not permit PSID {}: receivers would refuse the message",
                    cert.hashed_id8(),
                    self.psid
                );
            }
        }
        let hsm = store.open()?;
        let signer = HsmKey::new(hsm.as_ref(), label)?;
        let mut request = SignedDataRequest::new(self.psid, &payload);
        request.signer = kind;
        request.generation_time = Some(self.generation_time.unwrap_or_else(ItsTime::now));
        request.expiry_time = self.expiry_time;
        request.generation_location = self.location.clone();
        write_data(
            &self.out,
            &vss_its::sign_data(&request, cert.as_ref(), &signer)?,
            self.format,
            json!({
                "psid": self.psid,
                "signer": cert.map(|c| c.hashed_id8().to_string()),
            }),
        )
        .context("signed data")?;
        Ok(ExitCode::SUCCESS)
    }

    /// Has the vssd at `socket` sign and writes what it signed, as [`SignArgs::run`] does.
    fn run_on_daemon(&self, socket: &Path, payload: Vec<u8>) -> Result<ExitCode> {
        let signer = match self.signer {
            None => SignerChoice::Auto,
            Some(Signer::Certificate) => SignerChoice::Certificate,
            Some(Signer::Digest | Signer::SelfSigned) => {
                bail!("with --daemon the signer is named by the CAM rule or, with --signer certificate, by its certificate")
            }
        };
        let request = SignRequest {
            payload,
            psid: self.psid.value(),
            signer: signer.into(),
            ..SignRequest::default()
        };
        let signed = call_daemon(
            socket,
            |mut client| async move { client.sign(request).await },
        )?;
        let signer = <[u8; 8]>::try_from(signed.signer.as_slice())
            .map(|id| HashedId8(id).to_string())
            .map_err(|_| {
                anyhow!(
                    "vssd named a signer of {} bytes, not 8",
                    signed.signer.len()
                )
            })?;
        write_output(
            &self.out,
            &signed.data,
            self.format,
            json!({ "psid": self.psid, "signer": signer }),
        )
        .context("signed data")?;
        Ok(ExitCode::SUCCESS)
    }
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse().map_err(|e: vss_its::Error| e.to_string())
}

fn parse_region(s: &str) -> Result<GeographicRegion, String> {
    text(vss_its::region::parse_region(s))
}

/// An ITS value's text form for clap: the library's refusal, in its own words.
fn text<T>(parsed: vss_its::Result<T>) -> Result<T, String> {
    parsed.map_err(|e| match e {
        vss_its::Error::InvalidRequest(why) => why,
        other => other.to_string(),
    })
}

/// `PSID` or `PSID:SSP-HEX`.
fn parse_permission(s: &str) -> Result<Permission, String> {
    text(vss_its::text::permission(s))
}

/// A 1609.2 `Duration` (`5y`, `7d`, …).
fn parse_duration(s: &str) -> Result<Duration, String> {
    text(vss_its::text::duration(s))
}

/// `LAT,LON[,ELEVATION]`.
fn parse_location(s: &str) -> Result<ThreeDLocation, String> {
    text(vss_its::text::location(s))
}
