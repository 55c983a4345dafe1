//! The one error type of the module, and its mapping to the standard's `CKR_*` codes.

use cryptoki_sys::*;

/// Why a PKCS#11 call failed; [`Error::rv`] is what the application is told.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// `C_Initialize` has not been called (or `C_Finalize` has).
    #[error("the module is not initialised")]
    NotInitialized,
    /// `C_Initialize` was called twice.
    #[error("the module is initialised already")]
    AlreadyInitialized,
    /// A NULL pointer, or arguments that do not fit together.
    #[error("bad arguments")]
    ArgumentsBad,
    /// The application asked for its own locking, which this module cannot use.
    #[error("the module needs the operating system's locking")]
    CantLock,
    /// No slot has this id.
    #[error("no such slot")]
    SlotIdInvalid,
    /// The slot's store directory holds no key store.
    #[error("no key store in the slot")]
    TokenNotPresent,
    /// No open session has this handle.
    #[error("no such session")]
    SessionHandleInvalid,
    /// A session without `CKF_SERIAL_SESSION` was asked for.
    #[error("parallel sessions are not supported")]
    SessionParallelNotSupported,
    /// The operation writes to the token, and the session is read-only.
    #[error("the session is read-only")]
    SessionReadOnly,
    /// No visible object has this handle.
    #[error("no such object")]
    ObjectHandleInvalid,
    /// The key handle names no usable key.
    #[error("no such key")]
    KeyHandleInvalid,
    /// The key is not of a type the mechanism works with.
    #[error("the key does not fit the mechanism")]
    KeyTypeInconsistent,
    /// The key may not be used for this function (a private key to verify).
    #[error("the key may not be used for this")]
    KeyFunctionNotPermitted,
    /// The mechanism is not one this module knows for this function.
    #[error("mechanism not supported here")]
    MechanismInvalid,
    /// The mechanism's parameter is wrong (these mechanisms take none).
    #[error("bad mechanism parameter")]
    MechanismParamInvalid,
    /// Another operation of this kind is active in the session.
    #[error("an operation is active already")]
    OperationActive,
    /// No operation of this kind is active in the session.
    #[error("no operation is active")]
    OperationNotInitialized,
    /// The output buffer is too small; `needed` bytes (or items) are.
    #[error("buffer too small: {needed} needed")]
    BufferTooSmall {
        /// The length that would fit.
        needed: usize,
    },
    /// The key size is not one the module makes (RSA-1024 and below are no longer safe).
    #[error("key size out of range")]
    KeySizeRange,
    /// The ciphertext does not decrypt under the key (its padding is wrong).
    #[error("ciphertext invalid")]
    EncryptedDataInvalid,
    /// The ciphertext has the wrong length for the key.
    #[error("ciphertext length wrong for the key")]
    EncryptedDataLenRange,
    /// The input is longer than the mechanism takes.
    #[error("input too long")]
    DataLenRange,
    /// The signature has the wrong length for the key.
    #[error("signature length wrong for the key")]
    SignatureLenRange,
    /// The signature does not verify.
    #[error("signature invalid")]
    SignatureInvalid,
    /// The function needs a logged-in user.
    #[error("not logged in")]
    UserNotLoggedIn,
    /// The user is logged in already.
    #[error("logged in already")]
    UserAlreadyLoggedIn,
    /// Only the normal user (`CKU_USER`) can log in to a key store.
    #[error("only the normal user can log in")]
    UserTypeInvalid,
    /// The PIN is wrong; the store counted one try.
    #[error("wrong PIN")]
    PinIncorrect,
    /// The PIN is empty or longer than any store takes; nothing was tried.
    #[error("PIN length out of range")]
    PinLenRange,
    /// The PIN is blocked (or the store locked for good).
    #[error("PIN locked")]
    PinLocked,
    /// The attribute does not exist for the object.
    #[error("attribute type invalid")]
    AttributeTypeInvalid,
    /// The attribute's value is secret.
    #[error("attribute sensitive")]
    AttributeSensitive,
    /// The attribute cannot be set by the application.
    #[error("attribute read-only")]
    AttributeReadOnly,
    /// The attribute's value is not one the module accepts (an unknown curve, a bad label).
    #[error("attribute value invalid")]
    AttributeValueInvalid,
    /// A template lacks what the function needs (`CKA_EC_PARAMS`).
    #[error("template incomplete")]
    TemplateIncomplete,
    /// A template asks for something this token does not make (a session object, an
    /// extractable key, two labels).
    #[error("template inconsistent")]
    TemplateInconsistent,
    /// A key with this label exists already.
    #[error("a key with this label exists already")]
    KeyExists,
    /// The key store failed (a file, the token behind it).
    #[error("key store: {0}")]
    Store(vss_hsm::Error),
    /// A cryptographic library failed.
    #[error("crypto: {0}")]
    Crypto(#[from] vss_crypto::Error),
    /// `VSS_PKCS11_CONF` names a list of stores that cannot be read, or names none or too
    /// many.
    #[error("the list of stores in VSS_PKCS11_CONF is unusable")]
    Configuration,
    /// A panic was caught at the C boundary, or a lock was poisoned by one.
    #[error("internal error")]
    Internal,
}

impl From<vss_hsm::Error> for Error {
    fn from(e: vss_hsm::Error) -> Self {
        use vss_hsm::Error as H;
        match e {
            H::WrongPin { .. } | H::TokenPinIncorrect => Error::PinIncorrect,
            H::PinBlocked | H::Locked => Error::PinLocked,
            H::EmptySecret(_) => Error::PinLenRange,
            H::KeyExists(_) => Error::KeyExists,
            H::InvalidLabel(_) => Error::AttributeValueInvalid,
            H::KeyNotFound(_) => Error::ObjectHandleInvalid,
            H::NotAStore(_) => Error::TokenNotPresent,
            H::WrongKeyType { .. } => Error::KeyTypeInconsistent,
            other => Error::Store(other),
        }
    }
}

impl Error {
    /// The standard's return value for this error.
    pub(crate) fn rv(&self) -> CK_RV {
        match self {
            Error::NotInitialized => CKR_CRYPTOKI_NOT_INITIALIZED,
            Error::AlreadyInitialized => CKR_CRYPTOKI_ALREADY_INITIALIZED,
            Error::ArgumentsBad => CKR_ARGUMENTS_BAD,
            Error::CantLock => CKR_CANT_LOCK,
            Error::SlotIdInvalid => CKR_SLOT_ID_INVALID,
            Error::TokenNotPresent => CKR_TOKEN_NOT_PRESENT,
            Error::SessionHandleInvalid => CKR_SESSION_HANDLE_INVALID,
            Error::SessionParallelNotSupported => CKR_SESSION_PARALLEL_NOT_SUPPORTED,
            Error::SessionReadOnly => CKR_SESSION_READ_ONLY,
            Error::ObjectHandleInvalid => CKR_OBJECT_HANDLE_INVALID,
            Error::KeyHandleInvalid => CKR_KEY_HANDLE_INVALID,
            Error::KeyTypeInconsistent => CKR_KEY_TYPE_INCONSISTENT,
            Error::KeyFunctionNotPermitted => CKR_KEY_FUNCTION_NOT_PERMITTED,
            Error::MechanismInvalid => CKR_MECHANISM_INVALID,
            Error::MechanismParamInvalid => CKR_MECHANISM_PARAM_INVALID,
            Error::OperationActive => CKR_OPERATION_ACTIVE,
            Error::OperationNotInitialized => CKR_OPERATION_NOT_INITIALIZED,
            Error::BufferTooSmall { .. } => CKR_BUFFER_TOO_SMALL,
            Error::DataLenRange => CKR_DATA_LEN_RANGE,
            Error::KeySizeRange => CKR_KEY_SIZE_RANGE,
            Error::EncryptedDataInvalid => CKR_ENCRYPTED_DATA_INVALID,
            Error::EncryptedDataLenRange => CKR_ENCRYPTED_DATA_LEN_RANGE,
            Error::SignatureLenRange => CKR_SIGNATURE_LEN_RANGE,
            Error::SignatureInvalid => CKR_SIGNATURE_INVALID,
            Error::UserNotLoggedIn => CKR_USER_NOT_LOGGED_IN,
            Error::UserAlreadyLoggedIn => CKR_USER_ALREADY_LOGGED_IN,
            Error::UserTypeInvalid => CKR_USER_TYPE_INVALID,
            Error::PinIncorrect => CKR_PIN_INCORRECT,
            Error::PinLenRange => CKR_PIN_LEN_RANGE,
            Error::PinLocked => CKR_PIN_LOCKED,
            Error::AttributeTypeInvalid => CKR_ATTRIBUTE_TYPE_INVALID,
            Error::AttributeSensitive => CKR_ATTRIBUTE_SENSITIVE,
            Error::AttributeReadOnly => CKR_ATTRIBUTE_READ_ONLY,
            Error::AttributeValueInvalid | Error::KeyExists => CKR_ATTRIBUTE_VALUE_INVALID,
            Error::TemplateIncomplete => CKR_TEMPLATE_INCOMPLETE,
            Error::TemplateInconsistent => CKR_TEMPLATE_INCONSISTENT,
            Error::Store(vss_hsm::Error::Io { .. } | vss_hsm::Error::CorruptFile { .. }) => {
                CKR_DEVICE_ERROR
            }
            Error::Store(_) | Error::Crypto(_) | Error::Configuration | Error::Internal => {
                CKR_GENERAL_ERROR
            }
        }
    }
}

/// The result type of the module's safe core.
pub(crate) type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_errors_map_to_the_login_codes() {
        let rv = |e: vss_hsm::Error| Error::from(e).rv();
        assert_eq!(
            rv(vss_hsm::Error::WrongPin { tries_left: 2 }),
            CKR_PIN_INCORRECT
        );
        assert_eq!(rv(vss_hsm::Error::TokenPinIncorrect), CKR_PIN_INCORRECT);
        assert_eq!(rv(vss_hsm::Error::PinBlocked), CKR_PIN_LOCKED);
        assert_eq!(rv(vss_hsm::Error::Locked), CKR_PIN_LOCKED);
        assert_eq!(rv(vss_hsm::Error::EmptySecret("PIN")), CKR_PIN_LEN_RANGE);
        assert_eq!(
            rv(vss_hsm::Error::KeyExists("k".into())),
            CKR_ATTRIBUTE_VALUE_INVALID
        );
    }
}
