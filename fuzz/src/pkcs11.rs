//! [`pkcs11_templates`]: `libvss_pkcs11.so`'s entry points fed with templates and mechanism
//! parameters built from the input, through its C function list, in a logged-in session on
//! a soft store made once per process. A panic anywhere in the module aborts (it would
//! otherwise come back as `CKR_GENERAL_ERROR`), so libFuzzer sees it.

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::{Mutex, OnceLock};

use cryptoki_sys::*;

/// The PIN of the throw-away store.
const PIN: &str = "1234";

/// The attribute types the inputs pick from: those the module reads somewhere, and one it
/// does not know.
const TYPES: [CK_ATTRIBUTE_TYPE; 20] = [
    CKA_CLASS,
    CKA_TOKEN,
    CKA_PRIVATE,
    CKA_LABEL,
    CKA_ID,
    CKA_VALUE,
    CKA_CERTIFICATE_TYPE,
    CKA_SUBJECT,
    CKA_ISSUER,
    CKA_SERIAL_NUMBER,
    CKA_KEY_TYPE,
    CKA_EC_PARAMS,
    CKA_EC_POINT,
    CKA_MODULUS,
    CKA_PUBLIC_EXPONENT,
    CKA_VERIFY,
    CKA_ENCRYPT,
    CKA_SENSITIVE,
    CKA_VALUE_LEN,
    0x8000_1234,
];

/// The mechanisms the inputs pick from.
const MECHANISMS: [CK_MECHANISM_TYPE; 8] = [
    CKM_ECDSA,
    CKM_ECDSA_SHA256,
    CKM_RSA_PKCS,
    CKM_RSA_PKCS_PSS,
    CKM_SHA256_RSA_PKCS_PSS,
    CKM_RSA_PKCS_OAEP,
    CKM_ECDH1_DERIVE,
    CKM_AES_GCM,
];

/// The module's function list and a logged-in session with one P-256 key pair.
struct Fixture {
    f: &'static CK_FUNCTION_LIST,
    session: CK_SESSION_HANDLE,
    public: CK_OBJECT_HANDLE,
    private: CK_OBJECT_HANDLE,
    _store: tempfile::TempDir,
}

// SAFETY: the function list is a static of the module; the module is thread-safe, and the
// fixture is used behind a mutex anyway.
unsafe impl Send for Fixture {}

fn fixture() -> &'static Mutex<Fixture> {
    static FIXTURE: OnceLock<Mutex<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        std::panic::set_hook(Box::new(|info| {
            eprintln!("panic: {info}");
            std::process::abort();
        }));
        let store = tempfile::tempdir().expect("tempdir");
        vss_hsm::SoftHsm::init(store.path(), PIN, "12345678").expect("store");
        std::env::set_var("VSS_STORE", store.path());
        std::env::remove_var("VSS_PKCS11_CONF");
        let mut list: *mut CK_FUNCTION_LIST = null_mut();
        // SAFETY: a pointer to a live local; the list returned is a static.
        let f = unsafe {
            assert_eq!(vss_pkcs11::ffi::C_GetFunctionList(&mut list), CKR_OK);
            &*list
        };
        let call = |rv: CK_RV, what: &str| assert_eq!(rv, CKR_OK, "{what}");
        let mut session = 0;
        let (mut public, mut private) = (0, 0);
        let params = vss_hsm::pkcs11_ec::ec_params(vss_crypto::Curve::P256);
        // SAFETY: every pointer is to a live local or NULL where the standard allows it.
        unsafe {
            call(f.C_Initialize.expect("fn")(null_mut()), "C_Initialize");
            let flags = CKF_SERIAL_SESSION | CKF_RW_SESSION;
            call(
                f.C_OpenSession.expect("fn")(0, flags, null_mut(), None, &mut session),
                "C_OpenSession",
            );
            call(
                f.C_Login.expect("fn")(session, CKU_USER, PIN.as_ptr() as *mut _, 4),
                "C_Login",
            );
            let mut template = [attribute(CKA_EC_PARAMS, &params)];
            let mut mechanism = CK_MECHANISM {
                mechanism: CKM_EC_KEY_PAIR_GEN,
                pParameter: null_mut(),
                ulParameterLen: 0,
            };
            call(
                f.C_GenerateKeyPair.expect("fn")(
                    session,
                    &mut mechanism,
                    template.as_mut_ptr(),
                    1,
                    null_mut(),
                    0,
                    &mut public,
                    &mut private,
                ),
                "C_GenerateKeyPair",
            );
        }
        Mutex::new(Fixture {
            f,
            session,
            public,
            private,
            _store: store,
        })
    })
}

fn attribute(ty: CK_ATTRIBUTE_TYPE, value: &[u8]) -> CK_ATTRIBUTE {
    CK_ATTRIBUTE {
        type_: ty,
        pValue: value.as_ptr() as *mut c_void,
        ulValueLen: value.len() as CK_ULONG,
    }
}

/// Reads `(type index, length as two bytes little-endian, value)` triples off the input:
/// at most 16 attributes.
fn template(mut bytes: &[u8]) -> Vec<(CK_ATTRIBUTE_TYPE, Vec<u8>)> {
    let mut out = Vec::new();
    while let [ty, lo, hi, rest @ ..] = bytes {
        let len = usize::from(u16::from_le_bytes([*lo, *hi])).min(rest.len());
        let ty = TYPES[usize::from(*ty) % TYPES.len()];
        // Small values that look like CK_ULONGs and CK_BBOOLs are what the module checks
        // first: widen one-byte values of the ULONG attributes.
        let value = match (ty, len) {
            (CKA_CLASS | CKA_CERTIFICATE_TYPE | CKA_KEY_TYPE | CKA_VALUE_LEN, 1) => {
                CK_ULONG::from(rest[0]).to_ne_bytes().to_vec()
            }
            _ => rest[..len].to_vec(),
        };
        out.push((ty, value));
        bytes = &rest[len..];
        if out.len() == 16 {
            break;
        }
    }
    out
}

/// Runs one input: its first byte picks the entry point, the rest is a template or a
/// mechanism parameter.
pub fn pkcs11_templates(bytes: &[u8]) {
    let Some((&op, rest)) = bytes.split_first() else {
        return;
    };
    let fixture = fixture().lock().unwrap_or_else(|e| e.into_inner());
    let f = fixture.f;
    let session = fixture.session;
    let attrs = template(rest);
    let mut raw: Vec<CK_ATTRIBUTE> = attrs.iter().map(|(t, v)| attribute(*t, v)).collect();
    let count = raw.len() as CK_ULONG;
    // SAFETY: every pointer is to a live local or NULL where the standard allows it.
    unsafe {
        match op % 4 {
            0 => {
                let mut object = 0;
                let rv =
                    f.C_CreateObject.expect("fn")(session, raw.as_mut_ptr(), count, &mut object);
                if rv == CKR_OK {
                    // What was stored reads back with the class it was given, then goes.
                    let mut class: CK_ULONG = 0;
                    let mut read = [CK_ATTRIBUTE {
                        type_: CKA_CLASS,
                        pValue: &mut class as *mut CK_ULONG as *mut c_void,
                        ulValueLen: std::mem::size_of::<CK_ULONG>() as CK_ULONG,
                    }];
                    let got =
                        f.C_GetAttributeValue.expect("fn")(session, object, read.as_mut_ptr(), 1);
                    assert_eq!(got, CKR_OK);
                    let given = attrs.iter().find(|(t, _)| *t == CKA_CLASS).map(|(_, v)| v);
                    assert_eq!(given.map(Vec::as_slice), Some(&class.to_ne_bytes()[..]));
                    assert_eq!(f.C_DestroyObject.expect("fn")(session, object), CKR_OK);
                }
            }
            1 => {
                let rv = f.C_FindObjectsInit.expect("fn")(session, raw.as_mut_ptr(), count);
                if rv == CKR_OK {
                    let mut found = [0; 8];
                    let mut n = 0;
                    let rv = f.C_FindObjects.expect("fn")(session, found.as_mut_ptr(), 8, &mut n);
                    assert_eq!(rv, CKR_OK);
                    assert!(n <= 8);
                    assert_eq!(f.C_FindObjectsFinal.expect("fn")(session), CKR_OK);
                }
            }
            2 => {
                // The bytes after a mechanism index are its parameter: as is for those without
                // pointers inside, else the parameter structure pointing into them.
                let (index, param) = rest.split_first().map_or((0, &[][..]), |(i, p)| (*i, p));
                let ckm = MECHANISMS[usize::from(index) % MECHANISMS.len()];
                let word = |i: usize| {
                    let mut b = [0u8; 8];
                    let part = param.get(i * 8..).unwrap_or_default();
                    let n = part.len().min(8);
                    b[..n].copy_from_slice(&part[..n]);
                    CK_ULONG::from_le_bytes(b)
                };
                let data = param.get(16..).unwrap_or_default();
                let (shared, public) = data.split_at(data.len() / 2);
                let mut oaep = CK_RSA_PKCS_OAEP_PARAMS {
                    hashAlg: word(0),
                    mgf: word(1),
                    source: CKZ_DATA_SPECIFIED,
                    pSourceData: data.as_ptr() as *mut c_void,
                    ulSourceDataLen: data.len() as CK_ULONG,
                };
                let mut ecdh = CK_ECDH1_DERIVE_PARAMS {
                    kdf: word(0),
                    ulSharedDataLen: shared.len() as CK_ULONG,
                    pSharedData: shared.as_ptr() as *mut u8,
                    ulPublicDataLen: public.len() as CK_ULONG,
                    pPublicData: public.as_ptr() as *mut u8,
                };
                let (pointer, length) = match ckm {
                    CKM_RSA_PKCS_OAEP => (
                        &mut oaep as *mut _ as *mut c_void,
                        std::mem::size_of::<CK_RSA_PKCS_OAEP_PARAMS>(),
                    ),
                    CKM_ECDH1_DERIVE => (
                        &mut ecdh as *mut _ as *mut c_void,
                        std::mem::size_of::<CK_ECDH1_DERIVE_PARAMS>(),
                    ),
                    _ => (param.as_ptr() as *mut c_void, param.len()),
                };
                let mut mechanism = CK_MECHANISM {
                    mechanism: ckm,
                    pParameter: pointer,
                    ulParameterLen: length as CK_ULONG,
                };
                let key = if index & 0x80 == 0 {
                    fixture.private
                } else {
                    fixture.public
                };
                let rv = f.C_SignInit.expect("fn")(session, &mut mechanism, key);
                if rv == CKR_OK {
                    let mut len = 0;
                    let data = [7u8; 32];
                    let rv = f.C_Sign.expect("fn")(
                        session,
                        data.as_ptr() as *mut _,
                        32,
                        null_mut(),
                        &mut len,
                    );
                    assert_eq!(rv, CKR_OK);
                    let mut signature = vec![0u8; len as usize];
                    let _ = f.C_Sign.expect("fn")(
                        session,
                        data.as_ptr() as *mut _,
                        32,
                        signature.as_mut_ptr(),
                        &mut len,
                    );
                }
                let rv = f.C_DecryptInit.expect("fn")(session, &mut mechanism, key);
                if ckm == CKM_ECDH1_DERIVE {
                    let mut secret = 0;
                    let rv = f.C_DeriveKey.expect("fn")(
                        session,
                        &mut mechanism,
                        key,
                        raw.as_mut_ptr(),
                        0,
                        &mut secret,
                    );
                    if rv == CKR_OK {
                        assert_eq!(f.C_DestroyObject.expect("fn")(session, secret), CKR_OK);
                    }
                }
                if rv == CKR_OK {
                    let mut len = 0;
                    let _ = f.C_Decrypt.expect("fn")(
                        session,
                        param.as_ptr() as *mut _,
                        param.len() as CK_ULONG,
                        null_mut(),
                        &mut len,
                    );
                }
            }
            _ => {
                // Attribute reads of the fixture's keys, with buffers of the input's sizes (the
                // lengths set afresh for each read: the module writes them back).
                let mut buffers: Vec<Vec<u8>> =
                    attrs.iter().map(|(_, v)| vec![0u8; v.len()]).collect();
                for key in [fixture.public, fixture.private] {
                    for (a, buffer) in raw.iter_mut().zip(buffers.iter_mut()) {
                        a.pValue = if buffer.is_empty() {
                            null_mut()
                        } else {
                            buffer.as_mut_ptr() as *mut c_void
                        };
                        a.ulValueLen = buffer.len() as CK_ULONG;
                    }
                    let _ =
                        f.C_GetAttributeValue.expect("fn")(session, key, raw.as_mut_ptr(), count);
                    for (a, buffer) in raw.iter().zip(&buffers) {
                        // A length written back is what was filled in, never more than the
                        // buffer, or the standard's "unavailable".
                        assert!(
                            a.ulValueLen == CK_UNAVAILABLE_INFORMATION
                                || buffer.is_empty()
                                || a.ulValueLen as usize <= buffer.len()
                        );
                    }
                }
            }
        }
    }
}
