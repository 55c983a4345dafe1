//! The C types of the API and their conversions from `vss-core`'s values (no pointers are
//! read here).

use vss_core::id_change::{IdChangeEvent, IdChangePhase};
use vss_core::verify::Outcome;
use vss_its::{HashedId8, Verdict};

/// The largest message or payload passed in or out of a call: 65536 bytes (vssd's
/// `[daemon] max_message_bytes` default).
pub const VSS_MAX_MESSAGE_LEN: usize = 65536;
/// The most messages in one `vss_verify_batch`: 4096 (vssd's largest `[daemon] batch_max`).
pub const VSS_MAX_BATCH: usize = 4096;
/// The longest configuration path, in bytes without the final NUL: 4096 (Linux's
/// PATH_MAX).
pub const VSS_MAX_PATH_LEN: usize = 4096;
/// The most `vss_id_change_subscribe` callbacks on one entity: 64.
pub const VSS_MAX_SUBSCRIPTIONS: usize = 64;

/// What a call returned: `VSS_OK` (0) or why it failed; `vss_last_error` says more.
/// cbindgen:rename-all=ScreamingSnakeCase
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VssStatus {
    /// Success.
    VssOk = 0,
    /// A pointer that must not be NULL was NULL.
    VssErrNull = 1,
    /// An argument is out of its bounds (a length, a count) or not UTF-8 (a path).
    VssErrInvalidArgument = 2,
    /// The configuration file is missing, unreadable or wrong, or names a file that is.
    VssErrConfig = 3,
    /// No PIN was found for the key store, or it is wrong, or the key store is blocked.
    VssErrPin = 4,
    /// The key store failed otherwise.
    VssErrHsm = 5,
    /// No pseudonym is available to sign with.
    VssErrNoPseudonym = 6,
    /// An identifier change was asked for, but no other pseudonym is in the pool.
    VssErrPoolEmpty = 7,
    /// The current pseudonym may not sign for this PSID.
    VssErrPsidNotPermitted = 8,
    /// Identifier changes are locked (`vss_lock_id_change`).
    VssErrChangeBlocked = 9,
    /// A change was refused: postponed by a listener, or no listener is registered while
    /// `[pseudonyms] change_needs_listener` is on.
    VssErrChangeRefused = 10,
    /// The configured verification engine is not available here.
    VssErrNoEngine = 11,
    /// The statistics files could not be written.
    VssErrStats = 12,
    /// Frame encryption failed (no `[frames]` key, or not a frame).
    VssErrFrame = 13,
    /// ITS data could not be built or read.
    VssErrIts = 14,
    /// The PKI could not be reached or refused a request.
    VssErrPki = 15,
    /// The certificate repository failed.
    VssErrRepository = 16,
    /// No skipped message has this id.
    VssErrUnknownMessage = 17,
    /// A bound of the library was reached (`VSS_MAX_SUBSCRIPTIONS`).
    VssErrLimit = 18,
    /// An error of a newer `vss-core` than this library's table knows.
    VssErrInternal = 19,
    /// A bug: the library panicked. The entity may be used on, but report it.
    VssErrPanic = 20,
}

/// A verification's report code: the same names and numbers as `vss.v1.ReportCode` in
/// crates/vss-proto/proto/vss/v1/vss.proto (ETSI TS 102 723-8's SN-VERIFY report).
/// cbindgen:rename-all=QualifiedScreamingSnakeCase
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VssVerdict {
    /// No verdict: what a failed call leaves.
    Unspecified = 0,
    /// Valid: the payload is released.
    Success = 1,
    /// The signature does not verify with the signer's key.
    FalseSignature = 2,
    /// The signer's certificate is not known.
    SignerNotFound = 3,
    /// The chain ends in a self-signed certificate that is not a trust anchor.
    UntrustedRoot = 4,
    /// A certificate of the chain is inconsistent with its issuer.
    InvalidChain = 5,
    /// A certificate, or the message, is past its validity.
    Expired = 6,
    /// A certificate, or the message, is not valid yet.
    NotYetValid = 7,
    /// The PSID or a certificate's permissions are not granted by the issuer.
    InsufficientPermissions = 8,
    /// Outside the region of the signer's certificate.
    OutsideRegion = 9,
    /// Not a well-formed structure.
    Malformed = 10,
    /// An algorithm or form that VSS does not implement.
    UnsupportedAlgorithm = 11,
    /// No real time, or outside the replay window.
    InvalidTimestamp = 12,
    /// A copy of a message already accepted.
    DuplicateMessage = 13,
    /// Not verified: the verification policy skipped it.
    Skipped = 14,
    /// A CA certificate of the chain is on its root's revocation list.
    Revoked = 15,
    /// A CA certificate of the chain is not on its root's trust list (or that root's
    /// revocation list is out of date).
    UnlistedCa = 16,
}

/// The C verdict of `verdict`: the same number ([`Verdict::code`]), which a test checks.
impl From<Verdict> for VssVerdict {
    fn from(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Valid => VssVerdict::Success,
            Verdict::FalseSignature => VssVerdict::FalseSignature,
            Verdict::SignerNotFound => VssVerdict::SignerNotFound,
            Verdict::UntrustedRoot => VssVerdict::UntrustedRoot,
            Verdict::InvalidChain => VssVerdict::InvalidChain,
            Verdict::Expired => VssVerdict::Expired,
            Verdict::NotYetValid => VssVerdict::NotYetValid,
            Verdict::InsufficientPermissions => VssVerdict::InsufficientPermissions,
            Verdict::OutsideRegion => VssVerdict::OutsideRegion,
            Verdict::Malformed => VssVerdict::Malformed,
            Verdict::UnsupportedAlgorithm => VssVerdict::UnsupportedAlgorithm,
            Verdict::InvalidTimestamp => VssVerdict::InvalidTimestamp,
            Verdict::DuplicateMessage => VssVerdict::DuplicateMessage,
            Verdict::Revoked => VssVerdict::Revoked,
            Verdict::UnlistedCa => VssVerdict::UnlistedCa,
        }
    }
}

impl From<&Outcome> for VssVerdict {
    fn from(outcome: &Outcome) -> Self {
        match outcome {
            Outcome::Valid { .. } => Verdict::Valid.into(),
            Outcome::Invalid { verdict } => (*verdict).into(),
            Outcome::Skipped { .. } => VssVerdict::Skipped,
        }
    }
}

/// Bytes handed out by the library (a signed message, a payload): free them with
/// `vss_buffer_free`. An empty buffer is `{NULL, 0}`.
#[repr(C)]
#[derive(Debug)]
pub struct VssBuffer {
    /// The bytes, or NULL when `len` is 0.
    pub data: *mut u8,
    /// How many.
    pub len: usize,
}

impl VssBuffer {
    /// `{NULL, 0}`.
    pub const EMPTY: VssBuffer = VssBuffer {
        data: std::ptr::null_mut(),
        len: 0,
    };
}

impl From<Vec<u8>> for VssBuffer {
    fn from(bytes: Vec<u8>) -> Self {
        if bytes.is_empty() {
            return VssBuffer::EMPTY;
        }
        let boxed = bytes.into_boxed_slice();
        let len = boxed.len();
        VssBuffer {
            data: Box::into_raw(boxed).cast::<u8>(),
            len,
        }
    }
}

/// Bytes lent to the library for one call (a message of a batch); the caller keeps them.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VssSlice {
    /// The bytes (NULL only when `len` is 0).
    pub data: *const u8,
    /// How many, at most `VSS_MAX_MESSAGE_LEN`.
    pub len: usize,
}

/// A HashedId8: the low 8 bytes of a certificate's hash, naming a pseudonym.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VssHashedId8 {
    /// The bytes.
    pub bytes: [u8; 8],
}

impl From<HashedId8> for VssHashedId8 {
    fn from(id: HashedId8) -> Self {
        VssHashedId8 { bytes: id.0 }
    }
}

/// The phase of an identifier change (SN-IDCHANGE-EVENT).
/// cbindgen:rename-all=QualifiedScreamingSnakeCase
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VssIdChangePhase {
    /// The pseudonym is about to change: prepare the new station ID and MAC address.
    Prepare = 0,
    /// It changed: switch to them now.
    Commit = 1,
    /// It did not change: keep the old ones.
    Abort = 2,
}

impl From<IdChangePhase> for VssIdChangePhase {
    fn from(phase: IdChangePhase) -> Self {
        match phase {
            IdChangePhase::Prepare => VssIdChangePhase::Prepare,
            IdChangePhase::Commit => VssIdChangePhase::Commit,
            IdChangePhase::Abort => VssIdChangePhase::Abort,
        }
    }
}

/// One event of an identifier change, lent to the callback for the call only.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VssIdChangeEvent {
    /// Which phase.
    pub phase: VssIdChangePhase,
    /// Whether `from` holds the pseudonym before (false at the first pseudonym).
    pub has_from: bool,
    /// The pseudonym before, when `has_from`; zero otherwise.
    pub from: VssHashedId8,
    /// The pseudonym after.
    pub to: VssHashedId8,
}

impl From<IdChangeEvent> for VssIdChangeEvent {
    fn from(event: IdChangeEvent) -> Self {
        VssIdChangeEvent {
            phase: event.phase.into(),
            has_from: event.from.is_some(),
            from: event
                .from
                .map_or(VssHashedId8 { bytes: [0; 8] }, Into::into),
            to: event.to.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verdict_keeps_its_code_in_c() {
        for verdict in Verdict::ALL {
            assert_eq!(
                VssVerdict::from(verdict) as i32,
                i32::from(verdict.code()),
                "{verdict}"
            );
        }
        let skipped = Outcome::Skipped { id: 1 };
        assert_eq!(VssVerdict::from(&skipped) as i32, i32::from(skipped.code()));
    }
}
