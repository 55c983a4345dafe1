//! `vss its cert issue` and `vss its sign`: certificates and signed data made with keys in
//! the store.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use serde_json::json;
use vss_its::asn::{Duration, GeographicRegion, ThreeDLocation};
use vss_its::{
    CertificateRequest, HashedId8, HsmKey, ItsTime, Permission, Profile, SignedDataRequest,
    SignerKind,
};
use vss_proto::proto::{SignRequest, SignerChoice};

use super::{parse_time, read, read_cert, write_data, write_output};
use crate::commands::call_daemon;
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
    issue_psids: Vec<u64>,
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
    psid: u64,
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
            psid: self.psid,
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
    vss_its::region::parse_region(s).map_err(|e| match e {
        vss_its::Error::InvalidRequest(why) => why,
        other => other.to_string(),
    })
}

/// `PSID` or `PSID:SSP-HEX`.
fn parse_permission(s: &str) -> Result<Permission, String> {
    let (psid, ssp) = match s.split_once(':') {
        Some((p, ssp)) => (
            p,
            Some(hex::decode(ssp).map_err(|e| format!("SSP is not hex: {e}"))?),
        ),
        None => (s, None),
    };
    let psid = psid
        .parse()
        .map_err(|_| format!("'{psid}' is not a PSID number"))?;
    Ok(Permission::opaque(psid, ssp))
}

/// `5y`, `7d`, `168h`, `30m`, `90s`: a length that one of 1609.2's `Duration` choices holds
/// (16 bits of years, sixty hours, hours, minutes or seconds). Whether it ends by the end of
/// `Time32` depends on the start, and is checked when the certificate is built.
fn parse_duration(s: &str) -> Result<Duration, String> {
    const UNITS: [(&str, u64); 4] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)];
    let number = |n: &str| {
        n.parse::<u64>()
            .map_err(|_| format!("'{s}': expected a number and a unit (y d h m s)"))
    };
    if let Some(years) = s.strip_suffix('y') {
        return u16::try_from(number(years)?)
            .map(Duration::Years)
            .map_err(|_| format!("'{s}': a 1609.2 Duration holds at most 65535 years"));
    }
    let Some((n, unit)) = UNITS
        .iter()
        .find_map(|&(suffix, unit)| s.strip_suffix(suffix).map(|n| (n, unit)))
    else {
        return Err(format!("'{s}': the unit is y, d, h, m or s"));
    };
    number(n)?
        .checked_mul(unit)
        .and_then(vss_its::duration_from_seconds)
        .ok_or_else(|| {
            format!(
                "'{s}' fits no 1609.2 Duration (at most 65535 of seconds, minutes, hours or \
                 sixty hours, or 65535 years)"
            )
        })
}

/// `LAT,LON[,ELEVATION]`.
fn parse_location(s: &str) -> Result<ThreeDLocation, String> {
    let parts: Vec<&str> = s.split(',').collect();
    let number = |t: &str| {
        t.trim()
            .parse::<f64>()
            .map_err(|_| format!("'{t}' is not a number"))
    };
    if !(2..=3).contains(&parts.len()) {
        return Err("expected LAT,LON or LAT,LON,ELEVATION".into());
    }
    let at = vss_its::region::location(number(parts[0])?, number(parts[1])?)?;
    let metres = parts.get(2).map(|e| number(e)).transpose()?.unwrap_or(0.0);
    Ok(ThreeDLocation {
        latitude: at.latitude,
        longitude: at.longitude,
        elevation: vss_its::asn::Elevation(elevation(metres)?),
    })
}

/// 1609.2's `Elevation`: decimetres above −409.5 m, so −409.5 m to 6143.9 m.
fn elevation(metres: f64) -> Result<u16, String> {
    let decimetres = ((metres + 409.5) * 10.0).round();
    if (0.0..=65535.0).contains(&decimetres) {
        Ok(decimetres as u16)
    } else {
        Err(format!(
            "elevation {metres} m is outside -409.5 m to 6143.9 m"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elevation_is_decimetres_above_minus_409_5_metres() {
        assert_eq!(elevation(0.0), Ok(4095));
        assert_eq!(elevation(-409.5), Ok(0));
        assert_eq!(elevation(6143.9), Ok(65534));
        assert_eq!(elevation(12.34), Ok(4218));
        assert!(elevation(-409.6).is_err());
        assert!(elevation(6200.0).is_err());
        let at = parse_location("50.85,4.35,100").expect("location");
        assert_eq!(at.elevation.0, 5095);
        assert_eq!(
            parse_location("50.85,4.35").expect("location").elevation.0,
            4095
        );
        assert!(parse_location("50.85").is_err());
    }

    #[test]
    fn durations_are_checked_against_the_1609_2_choices() {
        assert_eq!(parse_duration("5y"), Ok(Duration::Years(5)));
        assert_eq!(parse_duration("7974y"), Ok(Duration::Years(7974)));
        assert_eq!(parse_duration("65535y"), Ok(Duration::Years(65535)));
        assert_eq!(parse_duration("7d"), Ok(Duration::Hours(168)));
        assert_eq!(parse_duration("90s"), Ok(Duration::Seconds(90)));
        assert_eq!(parse_duration("65535s"), Ok(Duration::Seconds(65535)));
        // 65536 s is 1092 minutes and 16 s: no choice holds it exactly.
        assert!(parse_duration("65536s").is_err_and(|e| e.contains("fits no 1609.2 Duration")));
        assert_eq!(parse_duration("65580s"), Ok(Duration::Minutes(1093)));
        // Longer than 65535 hours: in sixty-hour periods when they divide it.
        assert_eq!(parse_duration("163835d"), Ok(Duration::SixtyHours(65534)));
        for too_long in [
            "65536y",
            "18446744073709551615y",
            "163838d",
            "18446744073709551615d",
        ] {
            assert!(parse_duration(too_long).is_err(), "{too_long}");
        }
        for malformed in ["", "y", "7", "-1d", "5w", "1.5y", "5é", "é", "5 y"] {
            let err = parse_duration(malformed).expect_err(malformed);
            assert!(err.contains(malformed), "{err}");
        }
    }
}
