//! Every mechanism's parameter, through the C functions as an application calls them: no
//! parameter where one is needed, a NULL parameter with a length (2^40 among them), a
//! parameter where none is taken, one of the wrong length, and the right one, for
//! `C_SignInit`, `C_VerifyInit`, `C_DecryptInit`, `C_DeriveKey`, `C_GenerateKeyPair` and
//! `C_EncryptInit` (not implemented).

// The test calls the C ABI with raw pointers, as a PKCS#11 application does.
#![allow(unsafe_code)]

mod common;

use std::ffi::c_void;
use std::ptr::null_mut;

use common::{serial, Store, PIN};
use cryptoki_sys::*;
use vss_crypto::{Curve, RsaBits};
use vss_hsm::GenerateKeyRequest;

/// A mechanism's parameter as the application hands it over.
#[derive(Debug, Clone)]
enum Given {
    /// `pParameter` NULL, `ulParameterLen` 0.
    Nothing,
    /// `pParameter` NULL with this length.
    NullWithLen(CK_ULONG),
    /// These bytes.
    Bytes(Vec<u8>),
    /// A pointer to 16 bytes with a length of 2^40 (a module that reads it crashes).
    Huge,
}

/// The bytes of a C structure.
fn bytes_of<T: Copy>(value: &T) -> Vec<u8> {
    let size = std::mem::size_of::<T>();
    // SAFETY: `value` is a live `T` of `size` bytes; its padding is never read as anything
    // but bytes the module copies back into a `T`.
    unsafe { std::slice::from_raw_parts((value as *const T).cast::<u8>(), size).to_vec() }
}

/// The wrong shapes of a parameter whose right one is `right`.
fn wrong_shapes(right: &[u8]) -> Vec<Given> {
    let len = right.len();
    vec![
        Given::Nothing,
        Given::NullWithLen(len as CK_ULONG),
        Given::NullWithLen(1 << 40),
        Given::Bytes(right[..len - 1].to_vec()),
        Given::Bytes([right, &[0]].concat()),
        Given::Huge,
    ]
}

/// The wrong shapes of a parameter for a mechanism that takes none.
fn none_taken() -> Vec<Given> {
    vec![
        Given::NullWithLen(1),
        Given::NullWithLen(1 << 40),
        Given::Bytes(vec![0; 16]),
        Given::Huge,
    ]
}

/// The module's function list, initialised over `store` and logged in; the session kept
/// open (the login lasts while a session is open).
struct Module {
    f: &'static CK_FUNCTION_LIST,
    ec: (CK_OBJECT_HANDLE, CK_OBJECT_HANDLE),
    rsa: (CK_OBJECT_HANDLE, CK_OBJECT_HANDLE),
    ec_point: Vec<u8>,
}

impl Module {
    fn open_session(&self) -> CK_SESSION_HANDLE {
        let mut session = 0;
        let flags = CKF_SERIAL_SESSION | CKF_RW_SESSION;
        // SAFETY: a pointer to a live local.
        let rv = unsafe {
            (self.f.C_OpenSession.expect("C_OpenSession"))(0, flags, null_mut(), None, &mut session)
        };
        assert_eq!(rv, CKR_OK);
        session
    }

    /// The one object of `class` labelled `label`.
    fn find(
        &self,
        session: CK_SESSION_HANDLE,
        class: CK_OBJECT_CLASS,
        label: &str,
    ) -> CK_OBJECT_HANDLE {
        let class = class.to_ne_bytes();
        let mut template = [
            CK_ATTRIBUTE {
                type_: CKA_CLASS,
                pValue: class.as_ptr() as *mut c_void,
                ulValueLen: class.len() as CK_ULONG,
            },
            CK_ATTRIBUTE {
                type_: CKA_LABEL,
                pValue: label.as_ptr() as *mut c_void,
                ulValueLen: label.len() as CK_ULONG,
            },
        ];
        let (mut found, mut count) = ([0; 2], 0);
        // SAFETY: pointers to live locals.
        unsafe {
            assert_eq!(
                (self.f.C_FindObjectsInit.expect("init"))(session, template.as_mut_ptr(), 2),
                CKR_OK
            );
            assert_eq!(
                (self.f.C_FindObjects.expect("find"))(session, found.as_mut_ptr(), 2, &mut count),
                CKR_OK
            );
            assert_eq!((self.f.C_FindObjectsFinal.expect("final"))(session), CKR_OK);
        }
        assert_eq!(count, 1, "{label}");
        found[0]
    }

    /// What the `C_*Init` of `function` answers for `ckm` with `given`, on `key`, in a
    /// session of its own (closed after, which ends any operation begun).
    fn init(
        &self,
        function: &str,
        ckm: CK_MECHANISM_TYPE,
        given: &Given,
        key: CK_OBJECT_HANDLE,
    ) -> CK_RV {
        let mut huge = [0u8; 16];
        let mut bytes = match given {
            Given::Bytes(bytes) => bytes.clone(),
            _ => Vec::new(),
        };
        let (pointer, len) = match given {
            Given::Nothing => (null_mut(), 0),
            Given::NullWithLen(len) => (null_mut(), *len),
            Given::Bytes(_) => (bytes.as_mut_ptr() as *mut c_void, bytes.len() as CK_ULONG),
            Given::Huge => (huge.as_mut_ptr() as *mut c_void, 1 << 40),
        };
        let mut mechanism = CK_MECHANISM {
            mechanism: ckm,
            pParameter: pointer,
            ulParameterLen: len,
        };
        let session = self.open_session();
        let f = self.f;
        let (mut public, mut private) = (0, 0);
        let mut derived = 0;
        let params = vss_hsm::pkcs11_ec::ec_params(Curve::P256);
        let mut ec_params = [CK_ATTRIBUTE {
            type_: CKA_EC_PARAMS,
            pValue: params.as_ptr() as *mut c_void,
            ulValueLen: params.len() as CK_ULONG,
        }];
        // SAFETY: the mechanism's parameter is NULL or `len` bytes of a live local (Huge
        // aside, which no module may read past its structure's size); other pointers are to
        // live locals.
        let rv = unsafe {
            match function {
                "sign" => (f.C_SignInit.expect("sign"))(session, &mut mechanism, key),
                "verify" => (f.C_VerifyInit.expect("verify"))(session, &mut mechanism, key),
                "decrypt" => (f.C_DecryptInit.expect("decrypt"))(session, &mut mechanism, key),
                "encrypt" => (f.C_EncryptInit.expect("encrypt"))(session, &mut mechanism, key),
                "derive" => (f.C_DeriveKey.expect("derive"))(
                    session,
                    &mut mechanism,
                    key,
                    null_mut(),
                    0,
                    &mut derived,
                ),
                "generate" => (f.C_GenerateKeyPair.expect("generate"))(
                    session,
                    &mut mechanism,
                    ec_params.as_mut_ptr(),
                    1,
                    null_mut(),
                    0,
                    &mut public,
                    &mut private,
                ),
                other => panic!("no function {other}"),
            }
        };
        // SAFETY: a session this function opened.
        assert_eq!(
            unsafe { (f.C_CloseSession.expect("close"))(session) },
            CKR_OK
        );
        rv
    }
}

/// Runs `test` with the module initialised over a store holding an EC key "ec" and an RSA
/// key "rsa", logged in.
fn with_module(test: impl FnOnce(&Module)) {
    let _serial = serial();
    let store = Store::new();
    let hsm = vss_hsm::open(&store.path(), PIN).expect("open");
    let ec = hsm
        .generate_key(&GenerateKeyRequest::new("ec", Curve::P256))
        .expect("ec");
    hsm.generate_key(&GenerateKeyRequest::new("rsa", RsaBits::B2048))
        .expect("rsa");
    let ec_point = hsm
        .public_key(&ec.handle)
        .expect("point")
        .to_sec1_uncompressed()
        .to_vec();
    std::env::set_var("VSS_STORE", store.path());
    std::env::remove_var("VSS_PKCS11_CONF");
    let mut list: *mut CK_FUNCTION_LIST = null_mut();
    // SAFETY: pointers to live locals; the list is the module's static.
    let f = unsafe {
        assert_eq!(vss_pkcs11::ffi::C_GetFunctionList(&mut list), CKR_OK);
        &*list
    };
    // SAFETY: NULL arguments, as the standard allows.
    assert_eq!(
        unsafe { (f.C_Initialize.expect("init"))(null_mut()) },
        CKR_OK
    );
    let mut module = Module {
        f,
        ec: (0, 0),
        rsa: (0, 0),
        ec_point,
    };
    let session = module.open_session();
    // SAFETY: the PIN's bytes, live.
    let login = unsafe {
        (f.C_Login.expect("login"))(session, CKU_USER, PIN.as_ptr() as *mut _, PIN.len() as _)
    };
    assert_eq!(login, CKR_OK);
    let pair = |label| {
        (
            module.find(session, CKO_PUBLIC_KEY, label),
            module.find(session, CKO_PRIVATE_KEY, label),
        )
    };
    (module.ec, module.rsa) = (pair("ec"), pair("rsa"));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(&module)));
    // SAFETY: NULL, as the standard asks.
    assert_eq!(
        unsafe { (f.C_Finalize.expect("finalize"))(null_mut()) },
        CKR_OK
    );
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn every_mechanism_refuses_a_parameter_of_the_wrong_shape() {
    with_module(|module| {
        let pss = bytes_of(&CK_RSA_PKCS_PSS_PARAMS {
            hashAlg: CKM_SHA256,
            mgf: CKG_MGF1_SHA256,
            sLen: 32,
        });
        let oaep = bytes_of(&CK_RSA_PKCS_OAEP_PARAMS {
            hashAlg: CKM_SHA256,
            mgf: CKG_MGF1_SHA256,
            source: CKZ_DATA_SPECIFIED,
            pSourceData: null_mut(),
            ulSourceDataLen: 0,
        });
        let ecdh = bytes_of(&CK_ECDH1_DERIVE_PARAMS {
            kdf: CKD_NULL,
            ulSharedDataLen: 0,
            pSharedData: null_mut(),
            ulPublicDataLen: module.ec_point.len() as CK_ULONG,
            pPublicData: module.ec_point.as_ptr() as *mut u8,
        });
        let (ec, rsa) = (module.ec, module.rsa);
        // (function, mechanism, key, the right parameter: None where none is taken)
        let cases: Vec<(&str, CK_MECHANISM_TYPE, CK_OBJECT_HANDLE, Option<&[u8]>)> = vec![
            ("sign", CKM_ECDSA, ec.1, None),
            ("sign", CKM_ECDSA_SHA256, ec.1, None),
            ("sign", CKM_RSA_PKCS, rsa.1, None),
            ("sign", CKM_SHA256_RSA_PKCS, rsa.1, None),
            ("sign", CKM_RSA_PKCS_PSS, rsa.1, Some(&pss)),
            ("sign", CKM_SHA256_RSA_PKCS_PSS, rsa.1, Some(&pss)),
            ("verify", CKM_ECDSA, ec.0, None),
            ("verify", CKM_ECDSA_SHA384, ec.0, None),
            ("verify", CKM_SHA384_RSA_PKCS, rsa.0, None),
            ("verify", CKM_RSA_PKCS_PSS, rsa.0, Some(&pss)),
            ("verify", CKM_SHA256_RSA_PKCS_PSS, rsa.0, Some(&pss)),
            ("decrypt", CKM_RSA_PKCS, rsa.1, None),
            ("decrypt", CKM_RSA_PKCS_OAEP, rsa.1, Some(&oaep)),
            ("derive", CKM_ECDH1_DERIVE, ec.1, Some(&ecdh)),
            ("generate", CKM_EC_KEY_PAIR_GEN, 0, None),
        ];
        for (function, ckm, key, right) in cases {
            let what = |given: &Given| format!("{function} {ckm:#x} with {given:?}");
            let good = right.map_or(Given::Nothing, |r| Given::Bytes(r.to_vec()));
            assert_eq!(
                module.init(function, ckm, &good, key),
                CKR_OK,
                "{}",
                what(&good)
            );
            let wrong = right.map_or_else(none_taken, wrong_shapes);
            for given in wrong {
                let rv = module.init(function, ckm, &given, key);
                assert_eq!(rv, CKR_MECHANISM_PARAM_INVALID, "{}", what(&given));
            }
        }
        // The hashing PSS mechanism with another hash in its parameter.
        let sha384 = bytes_of(&CK_RSA_PKCS_PSS_PARAMS {
            hashAlg: CKM_SHA384,
            mgf: CKG_MGF1_SHA384,
            sLen: 48,
        });
        let rv = module.init(
            "sign",
            CKM_SHA256_RSA_PKCS_PSS,
            &Given::Bytes(sha384),
            rsa.1,
        );
        assert_eq!(rv, CKR_MECHANISM_PARAM_INVALID);
        // An unknown mechanism is that, whatever its parameter; encryption is not offered.
        let unknown = module.init("sign", CKM_SHA_1, &Given::NullWithLen(1 << 40), ec.1);
        assert_eq!(unknown, CKR_MECHANISM_INVALID);
        let encrypt = module.init("encrypt", CKM_RSA_PKCS, &Given::NullWithLen(1 << 40), rsa.0);
        assert_eq!(encrypt, CKR_FUNCTION_NOT_SUPPORTED);
    });
}
