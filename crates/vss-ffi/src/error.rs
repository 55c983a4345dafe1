//! Failures: a status code with its message, the one mapping from `vss_core::Error` to a
//! status, and the thread-local last error that `vss_last_error` reads.

use std::cell::RefCell;
use std::ffi::{c_char, CString};

use crate::types::VssStatus;

/// Why a call failed: its status and a one-line message.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The status returned.
    pub status: VssStatus,
    /// What `vss_last_error` says.
    pub message: String,
}

impl Failure {
    /// A failure of `status` saying `message`.
    pub fn new(status: VssStatus, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// `what` was NULL.
    pub fn null(what: &str) -> Self {
        Failure::new(VssStatus::VssErrNull, format!("{what} is NULL"))
    }

    /// `what` is out of its bounds.
    pub fn invalid(what: impl Into<String>) -> Self {
        Failure::new(VssStatus::VssErrInvalidArgument, what)
    }
}

/// The status of an error of the entity.
fn status_of(error: &vss_core::Error) -> VssStatus {
    use vss_core::Error;
    match error {
        Error::Config { .. } => VssStatus::VssErrConfig,
        Error::NoPin(_) => VssStatus::VssErrPin,
        Error::Hsm(
            vss_hsm::Error::WrongPin { .. }
            | vss_hsm::Error::PinBlocked
            | vss_hsm::Error::Locked
            | vss_hsm::Error::EmptySecret(_),
        ) => VssStatus::VssErrPin,
        Error::Hsm(_) => VssStatus::VssErrHsm,
        Error::NoPseudonym(_) => VssStatus::VssErrNoPseudonym,
        Error::PoolEmpty => VssStatus::VssErrPoolEmpty,
        Error::PsidNotPermitted(_) => VssStatus::VssErrPsidNotPermitted,
        Error::ChangeBlocked(_) => VssStatus::VssErrChangeBlocked,
        Error::NoChangeListener | Error::ChangePostponed => VssStatus::VssErrChangeRefused,
        Error::NoEngine(_) => VssStatus::VssErrNoEngine,
        Error::Stats(_) => VssStatus::VssErrStats,
        Error::NoFrameKey | Error::NotAFrame(_) => VssStatus::VssErrFrame,
        Error::Its(_) => VssStatus::VssErrIts,
        Error::Pki(_) => VssStatus::VssErrPki,
        Error::Repository(_) => VssStatus::VssErrRepository,
        Error::UnknownMessage(_) => VssStatus::VssErrUnknownMessage,
        // vss_core::Error is non_exhaustive: a variant added later reads as internal until
        // this table names it.
        _ => VssStatus::VssErrInternal,
    }
}

impl From<vss_core::Error> for Failure {
    fn from(error: vss_core::Error) -> Self {
        Failure::new(status_of(&error), error.to_string())
    }
}

thread_local! {
    /// The message of this thread's last call: empty after a success.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Records the message of this thread's last call (control characters and NULs become
/// spaces, so it is one printable line).
pub(crate) fn set_last_error(message: &str) {
    let line: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let text = CString::new(line).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// The message of this thread's last call, valid until its next call.
pub(crate) fn last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_map_to_their_status_and_pin_failures_to_pin() {
        let wrong = vss_core::Error::Hsm(vss_hsm::Error::WrongPin { tries_left: 2 });
        assert_eq!(Failure::from(wrong).status, VssStatus::VssErrPin);
        let blocked = vss_core::Error::ChangeBlocked(std::time::Duration::from_secs(3));
        let failure = Failure::from(blocked);
        assert_eq!(failure.status, VssStatus::VssErrChangeBlocked);
        assert!(failure.message.contains("blocked"), "{}", failure.message);
    }

    #[test]
    fn the_last_error_is_one_line_without_nul() {
        set_last_error("first\nsecond\0third");
        // SAFETY: last_error points at this thread's live CString.
        #[expect(unsafe_code, reason = "reading back the C string handed to C")]
        let text = unsafe { std::ffi::CStr::from_ptr(last_error()) };
        assert_eq!(text.to_str().ok(), Some("first second third"));
    }
}
