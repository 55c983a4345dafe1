//! The C boundary, and the crate's only unsafe code. Each entry point checks its pointers
//! (NULL where the standard wants a value is `CKR_ARGUMENTS_BAD`), converts the arguments
//! to Rust values, calls the safe core in `module`, writes the results back, and runs inside
//! `catch_unwind`, so that no panic crosses into C (`CKR_GENERAL_ERROR` instead).
//!
//! Exported symbols: [`C_GetFunctionList`] (PKCS#11 2.40), [`C_GetInterfaceList`] and
//! [`C_GetInterface`] (3.0). Every other function is reached through the function lists.
#![allow(unsafe_code)]
#![allow(non_snake_case)]

mod stubs;

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use cryptoki_sys::*;

use crate::error::{Error, Result};
use crate::mechanism::Param;
use crate::module::{self, InitArgs};
use crate::object::Attribute;
use crate::session::{Output, Room};
use stubs::*;

/// Runs an entry point's body: its error's code, or `CKR_GENERAL_ERROR` for a panic.
fn entry(body: impl FnOnce() -> Result<()>) -> CK_RV {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CKR_OK,
        Ok(Err(e)) => e.rv(),
        Err(_) => CKR_GENERAL_ERROR,
    }
}

/// A `CK_ULONG` count or length as a `usize`.
fn size(n: CK_ULONG) -> Result<usize> {
    usize::try_from(n).map_err(|_| Error::ArgumentsBad)
}

/// Writes `value` where `out` points.
///
/// # Safety
/// `out` is NULL or valid for writing one `T` (the calling entry point's contract).
unsafe fn write<T>(out: *mut T, value: T) -> Result<()> {
    if out.is_null() {
        return Err(Error::ArgumentsBad);
    }
    // SAFETY: non-NULL, and valid for writes by this function's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// The `len` items at `ptr` (NULL only with `len` 0).
///
/// # Safety
/// `ptr` is NULL or valid for reading `len` items that nothing writes while the slice lives.
unsafe fn input<'a, T>(ptr: *const T, len: CK_ULONG) -> Result<&'a [T]> {
    let len = size(len)?;
    if len == 0 {
        return Ok(&[]);
    }
    // No buffer is that long: a length past isize::MAX bytes is a caller's mistake, refused
    // before a slice is made of it.
    let too_long = len
        .checked_mul(std::mem::size_of::<T>())
        .is_none_or(|bytes| bytes > isize::MAX as usize);
    if ptr.is_null() || too_long {
        return Err(Error::ArgumentsBad);
    }
    // SAFETY: non-NULL, and valid for `len` reads by this function's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The standard's protocol for a list of items: `out` NULL asks for the count; a count too
/// small is `CKR_BUFFER_TOO_SMALL` with the count needed written back.
///
/// # Safety
/// `count` is NULL or valid for reading and writing; `out` is NULL or valid for writing
/// `*count` items.
unsafe fn list<T: Copy>(out: *mut T, count: *mut CK_ULONG, items: &[T]) -> Result<()> {
    if count.is_null() {
        return Err(Error::ArgumentsBad);
    }
    // SAFETY: `count` is non-NULL and readable by this function's contract.
    let room = unsafe { count.read() };
    // SAFETY: as above, writable.
    unsafe { count.write(items.len() as CK_ULONG) };
    if out.is_null() {
        return Ok(());
    }
    if size(room)? < items.len() {
        return Err(Error::BufferTooSmall {
            needed: items.len(),
        });
    }
    // SAFETY: `out` holds at least `room >= items.len()` items by this function's contract,
    // and is the caller's memory, apart from `items`.
    unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), out, items.len()) };
    Ok(())
}

/// The standard's protocol for an output of bytes: `out` NULL asks for the length; a buffer
/// too small is `CKR_BUFFER_TOO_SMALL` with the length needed written back (`produce` sees
/// which, and leaves its operation active then).
///
/// # Safety
/// `len` is NULL or valid for reading and writing; `out` is NULL or valid for writing
/// `*len` bytes.
unsafe fn output(
    out: *mut u8,
    len: *mut CK_ULONG,
    produce: impl FnOnce(Room) -> Result<Output>,
) -> Result<()> {
    if len.is_null() {
        return Err(Error::ArgumentsBad);
    }
    let room = if out.is_null() {
        None
    } else {
        // SAFETY: `len` is non-NULL and readable by this function's contract.
        Some(size(unsafe { len.read() })?)
    };
    let written = match produce(room) {
        Ok(Output::Length(n)) => n,
        Ok(Output::Bytes(bytes)) => {
            if room.is_none_or(|room| room < bytes.len()) {
                return Err(Error::Internal);
            }
            // SAFETY: `out` is non-NULL (room is Some) and holds `room >= bytes.len()`
            // bytes by this function's contract.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
            bytes.len()
        }
        Err(Error::BufferTooSmall { needed }) => {
            // SAFETY: `len` is non-NULL and writable by this function's contract.
            unsafe { len.write(needed as CK_ULONG) };
            return Err(Error::BufferTooSmall { needed });
        }
        Err(e) => return Err(e),
    };
    // SAFETY: as above.
    unsafe { len.write(written as CK_ULONG) };
    Ok(())
}

/// A template of `count` attributes to read (`C_FindObjectsInit`, `C_GenerateKeyPair`).
///
/// # Safety
/// `template` is NULL or valid for reading `count` attributes, each of whose `pValue` is
/// NULL or valid for reading `ulValueLen` bytes.
unsafe fn template<'a>(
    template: *const CK_ATTRIBUTE,
    count: CK_ULONG,
) -> Result<Vec<Attribute<'a>>> {
    // SAFETY: by this function's contract.
    let attributes = unsafe { input(template, count)? };
    attributes
        .iter()
        .map(|a| {
            Ok(Attribute {
                ty: a.type_,
                // SAFETY: by this function's contract.
                value: unsafe { input(a.pValue as *const u8, a.ulValueLen)? },
            })
        })
        .collect()
}

/// The parameter structure at `param`, when it is `len` bytes long (else `None`).
///
/// # Safety
/// `param` is NULL or valid for reading `len` bytes.
unsafe fn structure<T: Copy>(param: *const c_void, len: CK_ULONG) -> Result<Option<T>> {
    if param.is_null() || size(len)? != std::mem::size_of::<T>() {
        return Ok(None);
    }
    // SAFETY: non-NULL and `size_of::<T>()` readable bytes by this function's contract;
    // the application's structure need not be aligned for us.
    Ok(Some(unsafe { (param as *const T).read_unaligned() }))
}

/// A mechanism's type and parameter, read into Rust values: the structures of the
/// mechanisms that take one (PSS, OAEP, ECDH), each pointer inside checked and copied; no
/// parameter (length 0) is [`Param::None`], and any other shape, a NULL parameter with a
/// length among them, [`Param::Other`], which no mechanism takes.
///
/// # Safety
/// `mechanism` is NULL or valid for reading; its `pParameter` NULL or valid for reading
/// `ulParameterLen` bytes; the pointers inside the parameter structure NULL or valid for
/// reading their lengths.
unsafe fn mechanism(mechanism: *const CK_MECHANISM) -> Result<(CK_MECHANISM_TYPE, Param)> {
    if mechanism.is_null() {
        return Err(Error::ArgumentsBad);
    }
    // SAFETY: non-NULL and readable by this function's contract.
    let m = unsafe { &*mechanism };
    let (ptr, len) = (m.pParameter as *const c_void, m.ulParameterLen);
    if ptr.is_null() && len != 0 {
        // A length with no parameter: no mechanism takes that (`CKR_MECHANISM_PARAM_INVALID`
        // once the mechanism is known).
        return Ok((m.mechanism, Param::Other));
    }
    if len == 0 {
        return Ok((m.mechanism, Param::None));
    }
    let param = match m.mechanism {
        CKM_RSA_PKCS_PSS
        | CKM_SHA224_RSA_PKCS_PSS
        | CKM_SHA256_RSA_PKCS_PSS
        | CKM_SHA384_RSA_PKCS_PSS
        | CKM_SHA512_RSA_PKCS_PSS => {
            // SAFETY: by this function's contract.
            match unsafe { structure::<CK_RSA_PKCS_PSS_PARAMS>(ptr, len)? } {
                Some(p) => Param::Pss {
                    hash: p.hashAlg,
                    mgf: p.mgf,
                    salt_len: p.sLen,
                },
                None => Param::Other,
            }
        }
        CKM_RSA_PKCS_OAEP => {
            // SAFETY: by this function's contract.
            match unsafe { structure::<CK_RSA_PKCS_OAEP_PARAMS>(ptr, len)? } {
                Some(p) if p.source == CKZ_DATA_SPECIFIED || p.ulSourceDataLen == 0 => {
                    Param::Oaep {
                        hash: p.hashAlg,
                        mgf: p.mgf,
                        // SAFETY: pSourceData is NULL or ulSourceDataLen bytes (contract).
                        label: unsafe {
                            input(p.pSourceData as *const u8, p.ulSourceDataLen)?.to_vec()
                        },
                    }
                }
                _ => Param::Other,
            }
        }
        CKM_ECDH1_DERIVE => {
            // SAFETY: by this function's contract.
            match unsafe { structure::<CK_ECDH1_DERIVE_PARAMS>(ptr, len)? } {
                // SAFETY: each data pointer is NULL or its length of bytes (contract).
                Some(p) => unsafe {
                    Param::Ecdh1 {
                        kdf: p.kdf,
                        shared_data: input(p.pSharedData, p.ulSharedDataLen)?.to_vec(),
                        public_data: input(p.pPublicData, p.ulPublicDataLen)?.to_vec(),
                    }
                },
                None => Param::Other,
            }
        }
        _ => Param::Other,
    };
    Ok((m.mechanism, param))
}

/// An operation's `C_*Init`: the mechanism read, then `start` on the module with it.
///
/// # Safety
/// `mechanism` as for [`mechanism`].
unsafe fn operation_init(
    mechanism: *const CK_MECHANISM,
    start: impl FnOnce(&module::Module, CK_MECHANISM_TYPE, &Param) -> Result<()>,
) -> CK_RV {
    entry(|| {
        // SAFETY: by this function's contract.
        let (ckm, param) = unsafe { self::mechanism(mechanism)? };
        module::with(|m| start(m, ckm, &param))
    })
}

/// A single-part call with input bytes and an output under the buffer protocol (`C_Sign`,
/// `C_Decrypt`).
///
/// # Safety
/// `input` is NULL or `input_len` bytes; `out_len` NULL or valid for reading and writing;
/// `out` NULL or `*out_len` bytes.
unsafe fn single_part(
    input: *const CK_BYTE,
    input_len: CK_ULONG,
    out: *mut CK_BYTE,
    out_len: *mut CK_ULONG,
    produce: impl FnOnce(&module::Module, &[u8], Room) -> Result<Output>,
) -> CK_RV {
    entry(|| {
        // SAFETY: by this function's contract.
        let input = unsafe { self::input(input, input_len)? };
        // SAFETY: by this function's contract.
        unsafe {
            output(out, out_len, |room| {
                module::with(|m| produce(m, input, room))
            })
        }
    })
}

/// `C_Initialize`.
unsafe extern "C" fn C_Initialize(init_args: *mut c_void) -> CK_RV {
    entry(|| {
        let args = if init_args.is_null() {
            None
        } else {
            // SAFETY: a non-NULL pInitArgs points to a CK_C_INITIALIZE_ARGS.
            let a = unsafe { &*(init_args as *const CK_C_INITIALIZE_ARGS) };
            let callbacks = [
                a.CreateMutex.is_some(),
                a.DestroyMutex.is_some(),
                a.LockMutex.is_some(),
                a.UnlockMutex.is_some(),
            ];
            Some(InitArgs {
                os_locking_ok: a.flags & CKF_OS_LOCKING_OK != 0,
                mutex_callbacks: callbacks.iter().filter(|&&given| given).count(),
                reserved: !a.pReserved.is_null(),
            })
        };
        module::initialize(args)
    })
}

/// `C_Finalize`.
unsafe extern "C" fn C_Finalize(reserved: *mut c_void) -> CK_RV {
    entry(|| {
        if !reserved.is_null() {
            return Err(Error::ArgumentsBad);
        }
        module::finalize()
    })
}

/// `C_GetInfo`.
unsafe extern "C" fn C_GetInfo(info: *mut CK_INFO) -> CK_RV {
    // SAFETY: pInfo is NULL or the caller's CK_INFO.
    entry(|| unsafe { write(info, module::info()?) })
}

/// `C_GetSlotList`.
unsafe extern "C" fn C_GetSlotList(
    token_present: CK_BBOOL,
    slots: *mut CK_SLOT_ID,
    count: *mut CK_ULONG,
) -> CK_RV {
    entry(|| {
        let found = module::with(|m| Ok(m.slot_list(token_present != CK_FALSE)))?;
        // SAFETY: pulCount is NULL or the caller's count; pSlotList NULL or *pulCount ids.
        unsafe { list(slots, count, &found) }
    })
}

/// `C_GetSlotInfo`.
unsafe extern "C" fn C_GetSlotInfo(slot: CK_SLOT_ID, info: *mut CK_SLOT_INFO) -> CK_RV {
    // SAFETY: pInfo is NULL or the caller's CK_SLOT_INFO.
    entry(|| unsafe { write(info, module::with(|m| m.slot_info(slot))?) })
}

/// `C_GetTokenInfo`.
unsafe extern "C" fn C_GetTokenInfo(slot: CK_SLOT_ID, info: *mut CK_TOKEN_INFO) -> CK_RV {
    // SAFETY: pInfo is NULL or the caller's CK_TOKEN_INFO.
    entry(|| unsafe { write(info, module::with(|m| m.token_info(slot))?) })
}

/// `C_GetMechanismList`.
unsafe extern "C" fn C_GetMechanismList(
    slot: CK_SLOT_ID,
    mechanisms: *mut CK_MECHANISM_TYPE,
    count: *mut CK_ULONG,
) -> CK_RV {
    entry(|| {
        let all = module::with(|m| m.mechanism_list(slot))?;
        // SAFETY: pulCount is NULL or the caller's count; pMechanismList NULL or *pulCount.
        unsafe { list(mechanisms, count, &all) }
    })
}

/// `C_GetMechanismInfo`.
unsafe extern "C" fn C_GetMechanismInfo(
    slot: CK_SLOT_ID,
    ty: CK_MECHANISM_TYPE,
    info: *mut CK_MECHANISM_INFO,
) -> CK_RV {
    // SAFETY: pInfo is NULL or the caller's CK_MECHANISM_INFO.
    entry(|| unsafe { write(info, module::with(|m| m.mechanism_info(slot, ty))?) })
}

/// `C_OpenSession` (no notification callback is ever called).
unsafe extern "C" fn C_OpenSession(
    slot: CK_SLOT_ID,
    flags: CK_FLAGS,
    _application: *mut c_void,
    _notify: CK_NOTIFY,
    session: *mut CK_SESSION_HANDLE,
) -> CK_RV {
    entry(|| {
        if session.is_null() {
            return Err(Error::ArgumentsBad);
        }
        let handle = module::with(|m| m.open_session(slot, flags))?;
        // SAFETY: phSession is the caller's handle (checked non-NULL above).
        unsafe { write(session, handle) }
    })
}

/// `C_CloseSession`.
unsafe extern "C" fn C_CloseSession(session: CK_SESSION_HANDLE) -> CK_RV {
    entry(|| module::with(|m| m.close_session(session)))
}

/// `C_CloseAllSessions`.
unsafe extern "C" fn C_CloseAllSessions(slot: CK_SLOT_ID) -> CK_RV {
    entry(|| module::with(|m| m.close_all_sessions(slot)))
}

/// `C_GetSessionInfo`.
unsafe extern "C" fn C_GetSessionInfo(
    session: CK_SESSION_HANDLE,
    info: *mut CK_SESSION_INFO,
) -> CK_RV {
    // SAFETY: pInfo is NULL or the caller's CK_SESSION_INFO.
    entry(|| unsafe { write(info, module::with(|m| m.session_info(session))?) })
}

/// `C_Login`.
unsafe extern "C" fn C_Login(
    session: CK_SESSION_HANDLE,
    user: CK_USER_TYPE,
    pin: *mut CK_UTF8CHAR,
    pin_len: CK_ULONG,
) -> CK_RV {
    entry(|| {
        // SAFETY: pPin is NULL or ulPinLen bytes of the caller's.
        let pin = unsafe { input(pin, pin_len)? };
        module::with(|m| m.login(session, user, pin))
    })
}

/// `C_Logout`.
unsafe extern "C" fn C_Logout(session: CK_SESSION_HANDLE) -> CK_RV {
    entry(|| module::with(|m| m.logout(session)))
}

/// `C_GetAttributeValue`, with the standard's per-attribute protocol: a secret or unknown
/// attribute, or one whose buffer is too small, gets `CK_UNAVAILABLE_INFORMATION` as its
/// length, and the call answers that error after filling in every other attribute.
unsafe extern "C" fn C_GetAttributeValue(
    session: CK_SESSION_HANDLE,
    object: CK_OBJECT_HANDLE,
    template: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
) -> CK_RV {
    entry(|| {
        let count = size(count)?;
        if count > 0 && template.is_null() {
            return Err(Error::ArgumentsBad);
        }
        let types = (0..count)
            // SAFETY: pTemplate holds `count` attributes (checked non-NULL above).
            .map(|i| unsafe { (*template.add(i)).type_ })
            .collect::<Vec<_>>();
        let values = module::with(|m| m.attribute_values(session, object, &types))?;
        let mut result = Ok(());
        for (i, value) in values.into_iter().enumerate() {
            // SAFETY: as above; the attribute is the caller's to have written.
            let attribute = unsafe { &mut *template.add(i) };
            let outcome = match value {
                Ok(bytes) if attribute.pValue.is_null() => {
                    attribute.ulValueLen = bytes.len() as CK_ULONG;
                    Ok(())
                }
                Ok(bytes) if size(attribute.ulValueLen)? >= bytes.len() => {
                    // SAFETY: pValue holds ulValueLen >= bytes.len() bytes of the caller's.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            bytes.as_ptr(),
                            attribute.pValue as *mut u8,
                            bytes.len(),
                        )
                    };
                    attribute.ulValueLen = bytes.len() as CK_ULONG;
                    Ok(())
                }
                Ok(bytes) => Err(Error::BufferTooSmall {
                    needed: bytes.len(),
                }),
                Err(e) => Err(e),
            };
            if let Err(e) = outcome {
                attribute.ulValueLen = CK_UNAVAILABLE_INFORMATION;
                if result.is_ok() {
                    result = Err(e);
                }
            }
        }
        result
    })
}

/// `C_FindObjectsInit`.
unsafe extern "C" fn C_FindObjectsInit(
    session: CK_SESSION_HANDLE,
    template: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
) -> CK_RV {
    entry(|| {
        // SAFETY: pTemplate is NULL or ulCount attributes of the caller's.
        let template = unsafe { self::template(template, count)? };
        module::with(|m| m.find_objects_init(session, &template))
    })
}

/// `C_FindObjects`.
unsafe extern "C" fn C_FindObjects(
    session: CK_SESSION_HANDLE,
    objects: *mut CK_OBJECT_HANDLE,
    max: CK_ULONG,
    count: *mut CK_ULONG,
) -> CK_RV {
    entry(|| {
        if objects.is_null() || count.is_null() {
            return Err(Error::ArgumentsBad);
        }
        let found = module::with(|m| m.find_objects(session, size(max)?))?;
        // SAFETY: phObject holds ulMaxObjectCount >= found.len() handles of the caller's.
        unsafe { std::ptr::copy_nonoverlapping(found.as_ptr(), objects, found.len()) };
        // SAFETY: pulObjectCount is the caller's (checked non-NULL above).
        unsafe { write(count, found.len() as CK_ULONG) }
    })
}

/// `C_FindObjectsFinal`.
unsafe extern "C" fn C_FindObjectsFinal(session: CK_SESSION_HANDLE) -> CK_RV {
    entry(|| module::with(|m| m.find_objects_final(session)))
}

/// `C_GenerateKeyPair`.
unsafe extern "C" fn C_GenerateKeyPair(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    public_template: *mut CK_ATTRIBUTE,
    public_count: CK_ULONG,
    private_template: *mut CK_ATTRIBUTE,
    private_count: CK_ULONG,
    public_key: *mut CK_OBJECT_HANDLE,
    private_key: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    entry(|| {
        if public_key.is_null() || private_key.is_null() {
            return Err(Error::ArgumentsBad);
        }
        // SAFETY: pMechanism is NULL or the caller's mechanism.
        let (ckm, param) = unsafe { self::mechanism(mechanism)? };
        // SAFETY: each template is NULL or its count of attributes of the caller's.
        let public = unsafe { template(public_template, public_count)? };
        // SAFETY: as above.
        let private = unsafe { template(private_template, private_count)? };
        let (public_handle, private_handle) =
            module::with(|m| m.generate_key_pair(session, ckm, &param, &public, &private))?;
        // SAFETY: both handles are the caller's (checked non-NULL above).
        unsafe {
            write(public_key, public_handle)?;
            write(private_key, private_handle)
        }
    })
}

/// `C_SignInit`.
unsafe extern "C" fn C_SignInit(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
) -> CK_RV {
    // SAFETY: pMechanism is NULL or the caller's mechanism.
    unsafe {
        operation_init(mechanism, |m, ckm, param| {
            m.sign_init(session, ckm, param, key)
        })
    }
}

/// `C_Sign`.
unsafe extern "C" fn C_Sign(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    data_len: CK_ULONG,
    signature: *mut CK_BYTE,
    signature_len: *mut CK_ULONG,
) -> CK_RV {
    // SAFETY: pData is NULL or ulDataLen bytes of the caller's; pulSignatureLen NULL or the
    // caller's; pSignature NULL or that long.
    unsafe {
        single_part(data, data_len, signature, signature_len, |m, data, room| {
            m.sign(session, Some(data), room)
        })
    }
}

/// `C_SignUpdate`.
unsafe extern "C" fn C_SignUpdate(
    session: CK_SESSION_HANDLE,
    part: *mut CK_BYTE,
    part_len: CK_ULONG,
) -> CK_RV {
    entry(|| {
        // SAFETY: pPart is NULL or ulPartLen bytes of the caller's.
        let part = unsafe { input(part, part_len)? };
        module::with(|m| m.sign_update(session, part))
    })
}

/// `C_SignFinal`.
unsafe extern "C" fn C_SignFinal(
    session: CK_SESSION_HANDLE,
    signature: *mut CK_BYTE,
    signature_len: *mut CK_ULONG,
) -> CK_RV {
    // SAFETY: pulSignatureLen is NULL or the caller's; pSignature NULL or that long.
    entry(|| unsafe {
        output(signature, signature_len, |room| {
            module::with(|m| m.sign(session, None, room))
        })
    })
}

/// `C_VerifyInit`.
unsafe extern "C" fn C_VerifyInit(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
) -> CK_RV {
    // SAFETY: pMechanism is NULL or the caller's mechanism.
    unsafe {
        operation_init(mechanism, |m, ckm, param| {
            m.verify_init(session, ckm, param, key)
        })
    }
}

/// `C_Verify`.
unsafe extern "C" fn C_Verify(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    data_len: CK_ULONG,
    signature: *mut CK_BYTE,
    signature_len: CK_ULONG,
) -> CK_RV {
    entry(|| {
        // SAFETY: pData and pSignature are NULL or their lengths of the caller's bytes.
        let (data, signature) =
            unsafe { (input(data, data_len)?, input(signature, signature_len)?) };
        module::with(|m| m.verify(session, Some(data), signature))
    })
}

/// `C_VerifyUpdate`.
unsafe extern "C" fn C_VerifyUpdate(
    session: CK_SESSION_HANDLE,
    part: *mut CK_BYTE,
    part_len: CK_ULONG,
) -> CK_RV {
    entry(|| {
        // SAFETY: pPart is NULL or ulPartLen bytes of the caller's.
        let part = unsafe { input(part, part_len)? };
        module::with(|m| m.verify_update(session, part))
    })
}

/// `C_VerifyFinal`.
unsafe extern "C" fn C_VerifyFinal(
    session: CK_SESSION_HANDLE,
    signature: *mut CK_BYTE,
    signature_len: CK_ULONG,
) -> CK_RV {
    entry(|| {
        // SAFETY: pSignature is NULL or ulSignatureLen bytes of the caller's.
        let signature = unsafe { input(signature, signature_len)? };
        module::with(|m| m.verify(session, None, signature))
    })
}

/// `C_CreateObject`.
unsafe extern "C" fn C_CreateObject(
    session: CK_SESSION_HANDLE,
    template: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    object: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    entry(|| {
        if object.is_null() {
            return Err(Error::ArgumentsBad);
        }
        // SAFETY: pTemplate is NULL or ulCount attributes of the caller's.
        let template = unsafe { self::template(template, count)? };
        let handle = module::with(|m| m.create_object(session, &template))?;
        // SAFETY: phObject is the caller's (checked non-NULL above).
        unsafe { write(object, handle) }
    })
}

/// `C_DestroyObject`.
unsafe extern "C" fn C_DestroyObject(
    session: CK_SESSION_HANDLE,
    object: CK_OBJECT_HANDLE,
) -> CK_RV {
    entry(|| module::with(|m| m.destroy_object(session, object)))
}

/// `C_DecryptInit`.
unsafe extern "C" fn C_DecryptInit(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
) -> CK_RV {
    // SAFETY: pMechanism is NULL or the caller's mechanism.
    unsafe {
        operation_init(mechanism, |m, ckm, param| {
            m.decrypt_init(session, ckm, param, key)
        })
    }
}

/// `C_Decrypt`.
unsafe extern "C" fn C_Decrypt(
    session: CK_SESSION_HANDLE,
    ciphertext: *mut CK_BYTE,
    ciphertext_len: CK_ULONG,
    data: *mut CK_BYTE,
    data_len: *mut CK_ULONG,
) -> CK_RV {
    // SAFETY: pEncryptedData is NULL or ulEncryptedDataLen bytes of the caller's; pulDataLen
    // NULL or the caller's; pData NULL or that long.
    unsafe {
        single_part(
            ciphertext,
            ciphertext_len,
            data,
            data_len,
            |m, ciphertext, room| m.decrypt(session, ciphertext, room),
        )
    }
}

/// `C_DeriveKey`.
unsafe extern "C" fn C_DeriveKey(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    base_key: CK_OBJECT_HANDLE,
    template: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    key: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    entry(|| {
        if key.is_null() {
            return Err(Error::ArgumentsBad);
        }
        // SAFETY: pMechanism is NULL or the caller's mechanism.
        let (ckm, param) = unsafe { self::mechanism(mechanism)? };
        // SAFETY: pTemplate is NULL or ulAttributeCount attributes of the caller's.
        let template = unsafe { self::template(template, count)? };
        let handle = module::with(|m| m.derive_key(session, ckm, &param, base_key, &template))?;
        // SAFETY: phKey is the caller's (checked non-NULL above).
        unsafe { write(key, handle) }
    })
}

/// `C_GenerateRandom`.
unsafe extern "C" fn C_GenerateRandom(
    session: CK_SESSION_HANDLE,
    out: *mut CK_BYTE,
    len: CK_ULONG,
) -> CK_RV {
    entry(|| {
        let len = size(len)?;
        if out.is_null() && len > 0 {
            return Err(Error::ArgumentsBad);
        }
        let bytes = module::with(|m| m.generate_random(session, len))?;
        // SAFETY: pRandomData holds ulRandomLen bytes of the caller's (non-NULL when > 0).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
        Ok(())
    })
}

/// Fills a function list: the 2.40 functions, then `$extra` (the 3.0 additions).
macro_rules! function_list {
    ($list:ident, ($major:literal, $minor:literal), { $($extra:ident),* }) => {
        $list {
            version: CK_VERSION { major: $major, minor: $minor },
            C_Initialize: Some(C_Initialize),
            C_Finalize: Some(C_Finalize),
            C_GetInfo: Some(C_GetInfo),
            C_GetFunctionList: Some(C_GetFunctionList),
            C_GetSlotList: Some(C_GetSlotList),
            C_GetSlotInfo: Some(C_GetSlotInfo),
            C_GetTokenInfo: Some(C_GetTokenInfo),
            C_GetMechanismList: Some(C_GetMechanismList),
            C_GetMechanismInfo: Some(C_GetMechanismInfo),
            C_InitToken: Some(C_InitToken),
            C_InitPIN: Some(C_InitPIN),
            C_SetPIN: Some(C_SetPIN),
            C_OpenSession: Some(C_OpenSession),
            C_CloseSession: Some(C_CloseSession),
            C_CloseAllSessions: Some(C_CloseAllSessions),
            C_GetSessionInfo: Some(C_GetSessionInfo),
            C_GetOperationState: Some(C_GetOperationState),
            C_SetOperationState: Some(C_SetOperationState),
            C_Login: Some(C_Login),
            C_Logout: Some(C_Logout),
            C_CreateObject: Some(C_CreateObject),
            C_CopyObject: Some(C_CopyObject),
            C_DestroyObject: Some(C_DestroyObject),
            C_GetObjectSize: Some(C_GetObjectSize),
            C_GetAttributeValue: Some(C_GetAttributeValue),
            C_SetAttributeValue: Some(C_SetAttributeValue),
            C_FindObjectsInit: Some(C_FindObjectsInit),
            C_FindObjects: Some(C_FindObjects),
            C_FindObjectsFinal: Some(C_FindObjectsFinal),
            C_EncryptInit: Some(C_EncryptInit),
            C_Encrypt: Some(C_Encrypt),
            C_EncryptUpdate: Some(C_EncryptUpdate),
            C_EncryptFinal: Some(C_EncryptFinal),
            C_DecryptInit: Some(C_DecryptInit),
            C_Decrypt: Some(C_Decrypt),
            C_DecryptUpdate: Some(C_DecryptUpdate),
            C_DecryptFinal: Some(C_DecryptFinal),
            C_DigestInit: Some(C_DigestInit),
            C_Digest: Some(C_Digest),
            C_DigestUpdate: Some(C_DigestUpdate),
            C_DigestKey: Some(C_DigestKey),
            C_DigestFinal: Some(C_DigestFinal),
            C_SignInit: Some(C_SignInit),
            C_Sign: Some(C_Sign),
            C_SignUpdate: Some(C_SignUpdate),
            C_SignFinal: Some(C_SignFinal),
            C_SignRecoverInit: Some(C_SignRecoverInit),
            C_SignRecover: Some(C_SignRecover),
            C_VerifyInit: Some(C_VerifyInit),
            C_Verify: Some(C_Verify),
            C_VerifyUpdate: Some(C_VerifyUpdate),
            C_VerifyFinal: Some(C_VerifyFinal),
            C_VerifyRecoverInit: Some(C_VerifyRecoverInit),
            C_VerifyRecover: Some(C_VerifyRecover),
            C_DigestEncryptUpdate: Some(C_DigestEncryptUpdate),
            C_DecryptDigestUpdate: Some(C_DecryptDigestUpdate),
            C_SignEncryptUpdate: Some(C_SignEncryptUpdate),
            C_DecryptVerifyUpdate: Some(C_DecryptVerifyUpdate),
            C_GenerateKey: Some(C_GenerateKey),
            C_GenerateKeyPair: Some(C_GenerateKeyPair),
            C_WrapKey: Some(C_WrapKey),
            C_UnwrapKey: Some(C_UnwrapKey),
            C_DeriveKey: Some(C_DeriveKey),
            C_SeedRandom: Some(C_SeedRandom),
            C_GenerateRandom: Some(C_GenerateRandom),
            C_GetFunctionStatus: Some(C_GetFunctionStatus),
            C_CancelFunction: Some(C_CancelFunction),
            C_WaitForSlotEvent: Some(C_WaitForSlotEvent),
            $($extra: Some($extra),)*
        }
    };
}

static FUNCTION_LIST: CK_FUNCTION_LIST = function_list!(CK_FUNCTION_LIST, (2, 40), {});

static FUNCTION_LIST_3_0: CK_FUNCTION_LIST_3_0 = function_list!(CK_FUNCTION_LIST_3_0, (3, 0), {
    C_GetInterfaceList, C_GetInterface, C_LoginUser, C_SessionCancel,
    C_MessageEncryptInit, C_EncryptMessage, C_EncryptMessageBegin, C_EncryptMessageNext,
    C_MessageEncryptFinal, C_MessageDecryptInit, C_DecryptMessage, C_DecryptMessageBegin,
    C_DecryptMessageNext, C_MessageDecryptFinal, C_MessageSignInit, C_SignMessage,
    C_SignMessageBegin, C_SignMessageNext, C_MessageSignFinal, C_MessageVerifyInit,
    C_VerifyMessage, C_VerifyMessageBegin, C_VerifyMessageNext, C_MessageVerifyFinal
});

/// The name of the standard's interface.
const INTERFACE_NAME: &[u8] = b"PKCS 11\0";

/// The interfaces `C_GetInterfaceList` lists: 3.0 first, then 2.40.
const fn interface_values() -> [CK_INTERFACE; 2] {
    [
        CK_INTERFACE {
            pInterfaceName: INTERFACE_NAME.as_ptr() as *mut CK_UTF8CHAR,
            pFunctionList: &FUNCTION_LIST_3_0 as *const CK_FUNCTION_LIST_3_0 as *mut c_void,
            flags: 0,
        },
        CK_INTERFACE {
            pInterfaceName: INTERFACE_NAME.as_ptr() as *mut CK_UTF8CHAR,
            pFunctionList: &FUNCTION_LIST as *const CK_FUNCTION_LIST as *mut c_void,
            flags: 0,
        },
    ]
}

/// The interfaces `C_GetInterface` points into. They live in writable memory because some
/// applications write into the interface they are given (OpenSC's pkcs11-spy before 0.27
/// does, and faults on read-only memory); the module never reads them back.
struct Interfaces(std::cell::UnsafeCell<[CK_INTERFACE; 2]>);

// SAFETY: the module only takes pointers into the cell and never reads through them; what
// an application writes there is the application's own business.
unsafe impl Sync for Interfaces {}

static INTERFACES: Interfaces = Interfaces(std::cell::UnsafeCell::new(interface_values()));

/// `C_GetFunctionList`: the PKCS#11 2.40 function list (the module need not be
/// initialised). The list is static; the application must not write to it.
///
/// # Safety
/// `list` is NULL or valid for writing one pointer.
#[no_mangle]
pub unsafe extern "C" fn C_GetFunctionList(list: *mut *mut CK_FUNCTION_LIST) -> CK_RV {
    entry(|| {
        let ours = &FUNCTION_LIST as *const CK_FUNCTION_LIST as *mut CK_FUNCTION_LIST;
        // SAFETY: ppFunctionList is NULL or the caller's pointer, by this function's contract.
        unsafe { write(list, ours) }
    })
}

/// `C_GetInterfaceList`: the 3.0 and the 2.40 interface, both named "PKCS 11".
///
/// # Safety
/// `count` is NULL or valid for reading and writing; `interfaces` is NULL or valid for
/// writing `*count` interfaces.
#[no_mangle]
pub unsafe extern "C" fn C_GetInterfaceList(
    interfaces: *mut CK_INTERFACE,
    count: *mut CK_ULONG,
) -> CK_RV {
    // SAFETY: by this function's contract.
    entry(|| unsafe { list(interfaces, count, &interface_values()) })
}

/// `C_GetInterface`: the interface with this name (NULL: "PKCS 11"), version (NULL: the
/// newest) and flags (none are offered).
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `version` NULL or valid for reading;
/// `interface` NULL or valid for writing one pointer.
#[no_mangle]
pub unsafe extern "C" fn C_GetInterface(
    name: *mut CK_UTF8CHAR,
    version: *mut CK_VERSION,
    interface: *mut *mut CK_INTERFACE,
    flags: CK_FLAGS,
) -> CK_RV {
    entry(|| {
        if interface.is_null() {
            return Err(Error::ArgumentsBad);
        }
        // SAFETY: a non-NULL name is NUL-terminated, by this function's contract.
        let name_ok = name.is_null()
            || unsafe { std::ffi::CStr::from_ptr(name as *const std::ffi::c_char) }.to_bytes()
                == &INTERFACE_NAME[..INTERFACE_NAME.len() - 1];
        // SAFETY: a non-NULL version is readable, by this function's contract.
        let wanted = (!version.is_null()).then(|| unsafe { version.read() });
        let found = [(3, 0), (2, 40)]
            .iter()
            .position(|v| wanted.is_none_or(|w| (w.major, w.minor) == *v));
        match found {
            Some(index) if name_ok && flags == 0 => {
                // Only a pointer into the static is made; nothing is read through it.
                let chosen = INTERFACES
                    .0
                    .get()
                    .cast::<CK_INTERFACE>()
                    .wrapping_add(index);
                // SAFETY: ppInterface is the caller's (checked non-NULL above).
                unsafe { write(interface, chosen) }
            }
            _ => Err(Error::ArgumentsBad),
        }
    })
}

#[cfg(test)]
mod tests {
    use std::ptr::{null, null_mut};
    use std::sync::Mutex;

    use super::*;

    /// The module's state is per process: one test at a time here.
    static SERIAL: Mutex<()> = Mutex::new(());

    const PIN: &str = "1234";

    /// Runs `test` with the module initialised over a fresh soft store, logged in, in a
    /// read/write session (whose handle it gets).
    fn with_session(test: impl FnOnce(CK_SESSION_HANDLE)) {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().expect("tempdir");
        vss_hsm::SoftHsm::init(dir.path(), PIN, "12345678").expect("store");
        std::env::set_var("VSS_STORE", dir.path());
        std::env::remove_var(crate::slot::CONF_ENV);
        // SAFETY (all calls below): every pointer is NULL or to a live local.
        unsafe {
            assert_eq!(C_Initialize(null_mut()), CKR_OK);
            let mut session = 0;
            let flags = CKF_SERIAL_SESSION | CKF_RW_SESSION;
            assert_eq!(
                C_OpenSession(0, flags, null_mut(), None, &mut session),
                CKR_OK
            );
            let pin = PIN.as_bytes();
            let login = C_Login(session, CKU_USER, pin.as_ptr() as *mut _, pin.len() as _);
            assert_eq!(login, CKR_OK);
            test(session);
            assert_eq!(C_Finalize(null_mut()), CKR_OK);
        }
    }

    /// A P-256 key pair labelled `k`: (public, private).
    fn key_pair(session: CK_SESSION_HANDLE) -> (CK_OBJECT_HANDLE, CK_OBJECT_HANDLE) {
        let params = vss_hsm::pkcs11_ec::ec_params(vss_crypto::Curve::P256);
        let mut public = [CK_ATTRIBUTE {
            type_: CKA_EC_PARAMS,
            pValue: params.as_ptr() as *mut c_void,
            ulValueLen: params.len() as CK_ULONG,
        }];
        let mut mechanism = CK_MECHANISM {
            mechanism: CKM_EC_KEY_PAIR_GEN,
            pParameter: null_mut(),
            ulParameterLen: 0,
        };
        let (mut pub_key, mut priv_key) = (0, 0);
        // SAFETY: pointers to live locals.
        let rv = unsafe {
            C_GenerateKeyPair(
                session,
                &mut mechanism,
                public.as_mut_ptr(),
                1,
                null_mut(),
                0,
                &mut pub_key,
                &mut priv_key,
            )
        };
        assert_eq!(rv, CKR_OK);
        (pub_key, priv_key)
    }

    #[test]
    fn every_function_is_in_both_lists_and_the_unimplemented_ones_say_so() {
        let mut list: *mut CK_FUNCTION_LIST = null_mut();
        // SAFETY: pointers to live locals and to the static lists.
        unsafe {
            assert_eq!(C_GetFunctionList(null_mut()), CKR_ARGUMENTS_BAD);
            assert_eq!(C_GetFunctionList(&mut list), CKR_OK);
            let list = &*list;
            assert_eq!((list.version.major, list.version.minor), (2, 40));
            let init_token = list.C_InitToken.expect("C_InitToken");
            assert_eq!(
                init_token(0, null_mut(), 0, null_mut()),
                CKR_FUNCTION_NOT_SUPPORTED
            );
            let mut interface: *mut CK_INTERFACE = null_mut();
            assert_eq!(
                C_GetInterface(null_mut(), null_mut(), &mut interface, 0),
                CKR_OK
            );
            let list_3_0 = &*((*interface).pFunctionList as *const CK_FUNCTION_LIST_3_0);
            assert_eq!((list_3_0.version.major, list_3_0.version.minor), (3, 0));
            assert!(list_3_0.C_MessageVerifyFinal.is_some());
            let mut count = 0;
            assert_eq!(C_GetInterfaceList(null_mut(), &mut count), CKR_OK);
            assert_eq!(count, 2);
            let mut v240 = CK_VERSION {
                major: 2,
                minor: 40,
            };
            assert_eq!(
                C_GetInterface(null_mut(), &mut v240, &mut interface, 0),
                CKR_OK
            );
            assert_eq!(
                (*interface).pFunctionList as *const CK_FUNCTION_LIST,
                list as *const _
            );
            let mut v9 = CK_VERSION { major: 9, minor: 0 };
            assert_eq!(
                C_GetInterface(null_mut(), &mut v9, &mut interface, 0),
                CKR_ARGUMENTS_BAD
            );
        }
    }

    #[test]
    fn initialisation_is_checked_and_null_pointers_are_refused() {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let mut info = std::mem::MaybeUninit::<CK_INFO>::uninit();
        let mut count = 0;
        // SAFETY: pointers to live locals.
        unsafe {
            assert_eq!(C_GetInfo(info.as_mut_ptr()), CKR_CRYPTOKI_NOT_INITIALIZED);
            assert_eq!(C_CloseSession(1), CKR_CRYPTOKI_NOT_INITIALIZED);
            assert_eq!(C_Finalize(null_mut()), CKR_CRYPTOKI_NOT_INITIALIZED);
            let initialize = |flags: CK_FLAGS, reserved: *mut c_void| {
                let mut args = CK_C_INITIALIZE_ARGS {
                    CreateMutex: None,
                    DestroyMutex: None,
                    LockMutex: None,
                    UnlockMutex: None,
                    flags,
                    pReserved: reserved,
                };
                C_Initialize(&mut args as *mut _ as *mut c_void)
            };
            let mut reserved = 0u8;
            let reserved = &mut reserved as *mut u8 as *mut c_void;
            assert_eq!(initialize(0, reserved), CKR_ARGUMENTS_BAD);
            std::env::remove_var(crate::slot::CONF_ENV);
            assert_eq!(initialize(CKF_OS_LOCKING_OK, null_mut()), CKR_OK);
            assert_eq!(C_Initialize(null_mut()), CKR_CRYPTOKI_ALREADY_INITIALIZED);
            assert_eq!(C_GetInfo(null_mut()), CKR_ARGUMENTS_BAD);
            assert_eq!(C_GetInfo(info.as_mut_ptr()), CKR_OK);
            assert_eq!(info.assume_init().cryptokiVersion.major, 3);
            assert_eq!(
                C_GetSlotList(CK_FALSE, null_mut(), null_mut()),
                CKR_ARGUMENTS_BAD
            );
            assert_eq!(C_GetSlotList(CK_FALSE, null_mut(), &mut count), CKR_OK);
            assert_eq!(count, 1);
            let mut session = 0;
            assert_eq!(
                C_OpenSession(0, CKF_SERIAL_SESSION, null_mut(), None, null_mut()),
                CKR_ARGUMENTS_BAD
            );
            assert_eq!(
                C_OpenSession(7, CKF_SERIAL_SESSION, null_mut(), None, &mut session),
                CKR_SLOT_ID_INVALID
            );
            assert_eq!(C_CloseSession(12345), CKR_SESSION_HANDLE_INVALID);
            assert_eq!(
                C_SignUpdate(12345, null_mut(), 0),
                CKR_SESSION_HANDLE_INVALID
            );
            assert_eq!(C_Finalize(null_mut()), CKR_OK);
        }
    }

    #[test]
    fn the_object_decrypt_and_derive_entry_points_check_pointers_and_parameters() {
        with_session(|session| {
            let (_, private) = key_pair(session);
            let class = CKO_CERTIFICATE.to_ne_bytes();
            let mut template = [CK_ATTRIBUTE {
                type_: CKA_CLASS,
                pValue: class.as_ptr() as *mut c_void,
                ulValueLen: class.len() as CK_ULONG,
            }];
            let mut out = 0;
            // A PSS parameter of the wrong size, an OAEP label pointer that is NULL with a
            // length, ECDH public data that is NULL with a length.
            let mut short_pss = [0u8; 8];
            let mut pss = CK_MECHANISM {
                mechanism: CKM_RSA_PKCS_PSS,
                pParameter: short_pss.as_mut_ptr() as *mut c_void,
                ulParameterLen: 8,
            };
            let mut oaep_params = CK_RSA_PKCS_OAEP_PARAMS {
                hashAlg: CKM_SHA256,
                mgf: CKG_MGF1_SHA256,
                source: CKZ_DATA_SPECIFIED,
                pSourceData: null_mut(),
                ulSourceDataLen: 5,
            };
            let mut oaep = CK_MECHANISM {
                mechanism: CKM_RSA_PKCS_OAEP,
                pParameter: &mut oaep_params as *mut _ as *mut c_void,
                ulParameterLen: std::mem::size_of::<CK_RSA_PKCS_OAEP_PARAMS>() as CK_ULONG,
            };
            let mut ecdh_params = CK_ECDH1_DERIVE_PARAMS {
                kdf: CKD_NULL,
                ulSharedDataLen: 0,
                pSharedData: null_mut(),
                ulPublicDataLen: 65,
                pPublicData: null_mut(),
            };
            let mut ecdh = CK_MECHANISM {
                mechanism: CKM_ECDH1_DERIVE,
                pParameter: &mut ecdh_params as *mut _ as *mut c_void,
                ulParameterLen: std::mem::size_of::<CK_ECDH1_DERIVE_PARAMS>() as CK_ULONG,
            };
            let mut len: CK_ULONG = 0;
            // SAFETY: pointers to live locals, or NULL.
            unsafe {
                assert_eq!(
                    C_CreateObject(session, template.as_mut_ptr(), 1, null_mut()),
                    CKR_ARGUMENTS_BAD
                );
                assert_eq!(
                    C_CreateObject(session, null_mut(), 1, &mut out),
                    CKR_ARGUMENTS_BAD
                );
                assert_eq!(
                    C_CreateObject(session, template.as_mut_ptr(), 1, &mut out),
                    CKR_TEMPLATE_INCOMPLETE
                );
                assert_eq!(C_DestroyObject(session, 4242), CKR_OBJECT_HANDLE_INVALID);
                let data = [0u8; 4];
                assert_eq!(
                    C_Sign(
                        session,
                        data.as_ptr() as *mut _,
                        CK_ULONG::MAX,
                        null_mut(),
                        &mut len
                    ),
                    CKR_ARGUMENTS_BAD
                );
                assert_eq!(
                    C_DecryptInit(session, null_mut(), private),
                    CKR_ARGUMENTS_BAD
                );
                assert_eq!(
                    C_DecryptInit(session, &mut oaep, private),
                    CKR_ARGUMENTS_BAD
                );
                assert_eq!(
                    C_SignInit(session, &mut pss, private),
                    CKR_MECHANISM_PARAM_INVALID
                );
                assert_eq!(
                    C_Decrypt(session, null_mut(), 0, null_mut(), &mut len),
                    CKR_OPERATION_NOT_INITIALIZED
                );
                assert_eq!(
                    C_DeriveKey(session, &mut ecdh, private, null_mut(), 0, null_mut()),
                    CKR_ARGUMENTS_BAD
                );
                assert_eq!(
                    C_DeriveKey(session, &mut ecdh, private, null_mut(), 0, &mut out),
                    CKR_ARGUMENTS_BAD
                );
                // An EC key cannot decrypt.
                let mut pkcs1 = CK_MECHANISM {
                    mechanism: CKM_RSA_PKCS,
                    pParameter: null_mut(),
                    ulParameterLen: 0,
                };
                assert_eq!(
                    C_DecryptInit(session, &mut pkcs1, private),
                    CKR_KEY_TYPE_INCONSISTENT
                );
            }
        });
    }

    #[test]
    fn signatures_follow_the_buffer_protocol_and_the_operation_survives_a_length_query() {
        with_session(|session| {
            let (public, private) = key_pair(session);
            let mut ecdsa = CK_MECHANISM {
                mechanism: CKM_ECDSA_SHA256,
                pParameter: null_mut(),
                ulParameterLen: 0,
            };
            let data = b"handshake";
            let data_ptr = data.as_ptr() as *mut u8;
            let mut signature = [0u8; 64];
            let mut len: CK_ULONG = 0;
            // SAFETY: pointers to live locals.
            unsafe {
                assert_eq!(
                    C_Sign(session, data_ptr, 9, null_mut(), &mut len),
                    CKR_OPERATION_NOT_INITIALIZED
                );
                assert_eq!(C_SignInit(session, null_mut(), private), CKR_ARGUMENTS_BAD);
                assert_eq!(
                    C_SignInit(session, &mut ecdsa, public),
                    CKR_KEY_FUNCTION_NOT_PERMITTED
                );
                assert_eq!(C_SignInit(session, &mut ecdsa, 999), CKR_KEY_HANDLE_INVALID);
                assert_eq!(C_SignInit(session, &mut ecdsa, private), CKR_OK);
                assert_eq!(
                    C_SignInit(session, &mut ecdsa, private),
                    CKR_OPERATION_ACTIVE
                );
                assert_eq!(
                    C_Sign(session, data_ptr, 9, signature.as_mut_ptr(), null_mut()),
                    CKR_ARGUMENTS_BAD
                );
                assert_eq!(C_Sign(session, data_ptr, 9, null_mut(), &mut len), CKR_OK);
                assert_eq!(len, 64);
                len = 10;
                assert_eq!(
                    C_Sign(session, data_ptr, 9, signature.as_mut_ptr(), &mut len),
                    CKR_BUFFER_TOO_SMALL
                );
                assert_eq!(len, 64);
                assert_eq!(
                    C_Sign(session, data_ptr, 9, signature.as_mut_ptr(), &mut len),
                    CKR_OK
                );
                assert_eq!(
                    C_Sign(session, data_ptr, 9, signature.as_mut_ptr(), &mut len),
                    CKR_OPERATION_NOT_INITIALIZED
                );
                assert_eq!(C_VerifyInit(session, &mut ecdsa, public), CKR_OK);
                assert_eq!(
                    C_Verify(session, data_ptr, 9, signature.as_mut_ptr(), 64),
                    CKR_OK
                );
                assert_eq!(C_VerifyInit(session, &mut ecdsa, public), CKR_OK);
                assert_eq!(
                    C_Verify(session, data_ptr, 9, signature.as_mut_ptr(), 63),
                    CKR_SIGNATURE_LEN_RANGE
                );
            }
        });
    }

    #[test]
    fn attributes_follow_the_per_attribute_protocol() {
        with_session(|session| {
            let (_, private) = key_pair(session);
            let mut label = [0u8; 0];
            let mut template = [
                CK_ATTRIBUTE {
                    type_: CKA_VALUE,
                    pValue: null_mut(),
                    ulValueLen: 0,
                },
                CK_ATTRIBUTE {
                    type_: CKA_LABEL,
                    pValue: label.as_mut_ptr() as *mut c_void,
                    ulValueLen: 0,
                },
                CK_ATTRIBUTE {
                    type_: CKA_KEY_TYPE,
                    pValue: null_mut(),
                    ulValueLen: 0,
                },
                CK_ATTRIBUTE {
                    type_: CKA_MODULUS,
                    pValue: null_mut(),
                    ulValueLen: 0,
                },
            ];
            // SAFETY: the template and its (empty or NULL) buffers are live locals.
            let rv = unsafe { C_GetAttributeValue(session, private, template.as_mut_ptr(), 4) };
            assert_eq!(rv, CKR_ATTRIBUTE_SENSITIVE);
            let lens: Vec<CK_ULONG> = template.iter().map(|a| a.ulValueLen).collect();
            let unavailable = CK_UNAVAILABLE_INFORMATION;
            let ulong = std::mem::size_of::<CK_ULONG>() as CK_ULONG;
            assert_eq!(lens, [unavailable, unavailable, ulong, unavailable]);
            let mut key_type: CK_ULONG = 0;
            let mut one = [CK_ATTRIBUTE {
                type_: CKA_KEY_TYPE,
                pValue: &mut key_type as *mut _ as *mut c_void,
                ulValueLen: ulong,
            }];
            // SAFETY: as above.
            let rv = unsafe { C_GetAttributeValue(session, private, one.as_mut_ptr(), 1) };
            assert_eq!((rv, key_type), (CKR_OK, CKK_EC));
            // SAFETY: as above.
            let rv = unsafe { C_GetAttributeValue(session, private, null_mut(), 1) };
            assert_eq!(rv, CKR_ARGUMENTS_BAD);
        });
    }

    #[test]
    fn random_bytes_come_in_the_length_asked_for() {
        with_session(|session| {
            let mut out = [0u8; 32];
            // SAFETY: pointers to live locals, or NULL.
            unsafe {
                assert_eq!(C_GenerateRandom(session, out.as_mut_ptr(), 32), CKR_OK);
                assert_eq!(C_GenerateRandom(session, null_mut(), 32), CKR_ARGUMENTS_BAD);
                assert_eq!(
                    C_GenerateRandom(session, null::<u8>() as *mut u8, 0),
                    CKR_OK
                );
            }
            assert_ne!(out, [0u8; 32]);
        });
    }
}
