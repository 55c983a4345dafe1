//! Why the bridge did not pass a frame on: its name (the verification report's, where
//! there is one) and its report code (`vss.v1.ReportCode`; 0 where no verdict applies).

use vss_gn::GnError;
use vss_its::{Psid, Verdict};

use crate::verify::SKIPPED_CODE;

/// Why a frame was dropped.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// Not an Ethernet II frame of EtherType 0x8947.
    #[error("not a GeoNetworking frame")]
    NotGeoNetworking,
    /// The GeoNetworking packet (or the signed payload) does not decode.
    #[error("malformed GeoNetworking packet: {0}")]
    Malformed(GnError),
    /// From the radio, an unsecured packet, and unsecured packets are not allowed.
    #[error("unsecured packet")]
    Unsecured,
    /// From the stack, a packet already secured (the bridge signs unsecured ones only).
    #[error("the stack sent a secured packet")]
    Secured,
    /// From the stack, a packet it forwards for another station (its source GN address is
    /// not the stack's own): the bridge signs only what its stack originates.
    #[error("a forwarded packet")]
    Forwarded,
    /// From the stack, a packet with no ITS-AID to sign under (not BTP to a well-known
    /// port, nor a beacon or Location Service packet).
    #[error("no ITS-AID for the packet")]
    NoItsAid,
    /// From the radio, a packet whose source is this station's own pseudonym: its own
    /// packet echoed or replayed back to it.
    #[error("the station's own packet")]
    OwnPacket,
    /// The entity could not sign it.
    #[error("signing failed: {0}")]
    SignFailed(#[from] crate::Error),
    /// The entity could not verify (its statistics log failed): what it said.
    #[error("verification failed: {0}")]
    VerifyFailed(String),
    /// Verification refused it.
    #[error("{}", .0.name())]
    Invalid(Verdict),
    /// The verification policy skipped it (the bridge passes only verified packets).
    #[error("skipped by the verification policy")]
    Skipped,
    /// It is signed under another ITS-AID than its BTP port's.
    #[error("signed for ITS-AID {signed}, its BTP port is ITS-AID {port}")]
    WrongItsAid {
        /// The ITS-AID of the BTP destination port.
        port: u64,
        /// The PSID it is signed for.
        signed: Psid,
    },
}

impl Refusal {
    /// The name in counts and events: the verdict's where there is one.
    pub fn name(&self) -> &'static str {
        match self {
            Refusal::NotGeoNetworking => "NotGeoNetworking",
            Refusal::Malformed(_) => Verdict::Malformed.name(),
            Refusal::Unsecured => "Unsecured",
            Refusal::Secured => "Secured",
            Refusal::Forwarded => "Forwarded",
            Refusal::NoItsAid => "NoItsAid",
            Refusal::OwnPacket => "OwnPacket",
            Refusal::SignFailed(_) => "SignFailed",
            Refusal::VerifyFailed(_) => "VerifyFailed",
            Refusal::Invalid(verdict) => verdict.name(),
            Refusal::Skipped => "Skipped",
            Refusal::WrongItsAid { .. } => Verdict::InsufficientPermissions.name(),
        }
    }

    /// The report code: the verdict's, [`SKIPPED_CODE`], or 0 (no verdict) for a packet
    /// that was never a signed message to verify.
    pub fn code(&self) -> u8 {
        match self {
            Refusal::Malformed(_) => Verdict::Malformed.code(),
            Refusal::Invalid(verdict) => verdict.code(),
            Refusal::Skipped => SKIPPED_CODE,
            Refusal::WrongItsAid { .. } => Verdict::InsufficientPermissions.code(),
            _ => 0,
        }
    }
}
