//! The entry points that are not implemented: each answers `CKR_FUNCTION_NOT_SUPPORTED`
//! and touches none of its arguments.

use std::ffi::c_void;

use cryptoki_sys::*;

/// Defines each named function, with the standard's parameter types, as a stub.
macro_rules! not_supported {
    ($($name:ident($($ty:ty),*);)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "`: not supported.")]
            pub(super) extern "C" fn $name($(_: $ty),*) -> CK_RV {
                CKR_FUNCTION_NOT_SUPPORTED
            }
        )*
    };
}

not_supported! {
    C_InitToken(CK_SLOT_ID, *mut CK_UTF8CHAR, CK_ULONG, *mut CK_UTF8CHAR);
    C_InitPIN(CK_SESSION_HANDLE, *mut CK_UTF8CHAR, CK_ULONG);
    C_SetPIN(CK_SESSION_HANDLE, *mut CK_UTF8CHAR, CK_ULONG, *mut CK_UTF8CHAR, CK_ULONG);
    C_GetOperationState(CK_SESSION_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_SetOperationState(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, CK_OBJECT_HANDLE, CK_OBJECT_HANDLE);
    C_CopyObject(CK_SESSION_HANDLE, CK_OBJECT_HANDLE, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_GetObjectSize(CK_SESSION_HANDLE, CK_OBJECT_HANDLE, *mut CK_ULONG);
    C_SetAttributeValue(CK_SESSION_HANDLE, CK_OBJECT_HANDLE, *mut CK_ATTRIBUTE, CK_ULONG);
    C_EncryptInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_Encrypt(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_EncryptUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_EncryptFinal(CK_SESSION_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptFinal(CK_SESSION_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_DigestInit(CK_SESSION_HANDLE, *mut CK_MECHANISM);
    C_Digest(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DigestUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_DigestKey(CK_SESSION_HANDLE, CK_OBJECT_HANDLE);
    C_DigestFinal(CK_SESSION_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_SignRecoverInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_SignRecover(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_VerifyRecoverInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_VerifyRecover(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DigestEncryptUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptDigestUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_SignEncryptUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptVerifyUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_GenerateKey(CK_SESSION_HANDLE, *mut CK_MECHANISM, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_WrapKey(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE, CK_OBJECT_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_UnwrapKey(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_SeedRandom(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_GetFunctionStatus(CK_SESSION_HANDLE);
    C_CancelFunction(CK_SESSION_HANDLE);
    C_WaitForSlotEvent(CK_FLAGS, *mut CK_SLOT_ID, *mut c_void);
    C_LoginUser(CK_SESSION_HANDLE, CK_USER_TYPE, *mut CK_UTF8CHAR, CK_ULONG, *mut CK_UTF8CHAR, CK_ULONG);
    C_SessionCancel(CK_SESSION_HANDLE, CK_FLAGS);
    C_MessageEncryptInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_EncryptMessage(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_EncryptMessageBegin(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_EncryptMessageNext(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG, CK_FLAGS);
    C_MessageEncryptFinal(CK_SESSION_HANDLE);
    C_MessageDecryptInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_DecryptMessage(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptMessageBegin(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_DecryptMessageNext(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG, CK_FLAGS);
    C_MessageDecryptFinal(CK_SESSION_HANDLE);
    C_MessageSignInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_SignMessage(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_SignMessageBegin(CK_SESSION_HANDLE, *mut c_void, CK_ULONG);
    C_SignMessageNext(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_MessageSignFinal(CK_SESSION_HANDLE);
    C_MessageVerifyInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_VerifyMessage(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_VerifyMessageBegin(CK_SESSION_HANDLE, *mut c_void, CK_ULONG);
    C_VerifyMessageNext(CK_SESSION_HANDLE, *mut c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_MessageVerifyFinal(CK_SESSION_HANDLE);
}
