//! The module's state between `C_Initialize` and `C_Finalize`, and the safe core of every
//! implemented function: [`crate::ffi`] checks and converts the C arguments, then calls here.

use std::sync::{Mutex, MutexGuard, RwLock};

use cryptoki_sys::*;
use vss_hsm::{GenerateKeyRequest, Hsm};

use crate::error::{Error, Result};
use crate::mechanism::{self, Function, Mechanism};
use crate::object::{self, Attribute, Class, KeyObject, ObjectTable};
use crate::session::{Operation, Output, Room, Session, Sessions};
use crate::slot;
use crate::token::Token;
use crate::{padded, version};

/// The most bytes one `C_GenerateRandom` hands out.
const MAX_RANDOM: usize = 1 << 20;

/// What the application said in `CK_C_INITIALIZE_ARGS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InitArgs {
    /// `CKF_OS_LOCKING_OK`.
    pub(crate) os_locking_ok: bool,
    /// How many of the four mutex callbacks the application gave.
    pub(crate) mutex_callbacks: usize,
    /// Whether `pReserved` was set (it must be NULL).
    pub(crate) reserved: bool,
}

/// The initialised module.
pub(crate) struct Module {
    token: Token,
    sessions: Sessions,
    objects: Mutex<ObjectTable>,
}

static MODULE: RwLock<Option<Module>> = RwLock::new(None);

/// `C_Initialize`.
pub(crate) fn initialize(args: Option<InitArgs>) -> Result<()> {
    if let Some(args) = args {
        if args.reserved || !matches!(args.mutex_callbacks, 0 | 4) {
            return Err(Error::ArgumentsBad);
        }
        if args.mutex_callbacks == 4 && !args.os_locking_ok {
            return Err(Error::CantLock);
        }
    }
    let mut module = MODULE.write().map_err(|_| Error::Internal)?;
    if module.is_some() {
        return Err(Error::AlreadyInitialized);
    }
    *module = Some(Module {
        token: Token::new(vss_hsm::default_store_dir().ok()),
        sessions: Sessions::default(),
        objects: Mutex::new(ObjectTable::default()),
    });
    Ok(())
}

/// `C_Finalize`.
pub(crate) fn finalize() -> Result<()> {
    MODULE
        .write()
        .map_err(|_| Error::Internal)?
        .take()
        .map(drop)
        .ok_or(Error::NotInitialized)
}

/// Runs `f` on the initialised module.
pub(crate) fn with<T>(f: impl FnOnce(&Module) -> Result<T>) -> Result<T> {
    f(MODULE
        .read()
        .map_err(|_| Error::Internal)?
        .as_ref()
        .ok_or(Error::NotInitialized)?)
}

/// `C_GetInfo` (needs no initialised state beyond the check).
pub(crate) fn info() -> Result<CK_INFO> {
    with(|_| {
        Ok(CK_INFO {
            cryptokiVersion: CK_VERSION { major: 3, minor: 0 },
            manufacturerID: padded("VSS"),
            flags: 0,
            libraryDescription: padded("VSS key store PKCS#11 module"),
            libraryVersion: version(),
        })
    })
}

fn lock(session: &Mutex<Session>) -> Result<MutexGuard<'_, Session>> {
    session.lock().map_err(|_| Error::Internal)
}

impl Module {
    /// `C_GetSlotList`.
    pub(crate) fn slot_list(&self, token_present: bool) -> Vec<CK_SLOT_ID> {
        slot::list(&self.token, token_present)
    }

    /// `C_GetSlotInfo`.
    pub(crate) fn slot_info(&self, slot: CK_SLOT_ID) -> Result<CK_SLOT_INFO> {
        slot::check(slot)?;
        Ok(slot::info(&self.token))
    }

    /// `C_GetTokenInfo`.
    pub(crate) fn token_info(&self, slot: CK_SLOT_ID) -> Result<CK_TOKEN_INFO> {
        slot::check(slot)?;
        let (sessions, rw) = self.sessions.counts()?;
        self.token.info(sessions, rw)
    }

    /// `C_GetMechanismList`.
    pub(crate) fn mechanism_list(&self, slot: CK_SLOT_ID) -> Result<Vec<CK_MECHANISM_TYPE>> {
        slot::check(slot)?;
        self.token.dir()?;
        Ok(mechanism::ALL.iter().map(|m| m.ckm()).collect())
    }

    /// `C_GetMechanismInfo`.
    pub(crate) fn mechanism_info(
        &self,
        slot: CK_SLOT_ID,
        ckm: CK_MECHANISM_TYPE,
    ) -> Result<CK_MECHANISM_INFO> {
        slot::check(slot)?;
        self.token.dir()?;
        let m = Mechanism::from_ckm(ckm).ok_or(Error::MechanismInvalid)?;
        let (min, max) = m.key_sizes();
        Ok(CK_MECHANISM_INFO {
            ulMinKeySize: min,
            ulMaxKeySize: max,
            flags: m.flags(),
        })
    }

    /// `C_OpenSession`.
    pub(crate) fn open_session(
        &self,
        slot: CK_SLOT_ID,
        flags: CK_FLAGS,
    ) -> Result<CK_SESSION_HANDLE> {
        slot::check(slot)?;
        if flags & CKF_SERIAL_SESSION == 0 {
            return Err(Error::SessionParallelNotSupported);
        }
        self.token.dir()?;
        self.sessions.open(flags & CKF_RW_SESSION != 0)
    }

    /// `C_CloseSession`: closing the last session logs the user out.
    pub(crate) fn close_session(&self, handle: CK_SESSION_HANDLE) -> Result<()> {
        if self.sessions.close(handle)? == 0 {
            self.logout_quietly()?;
        }
        Ok(())
    }

    /// `C_CloseAllSessions`.
    pub(crate) fn close_all_sessions(&self, slot: CK_SLOT_ID) -> Result<()> {
        slot::check(slot)?;
        self.sessions.close_all()?;
        self.logout_quietly()
    }

    fn logout_quietly(&self) -> Result<()> {
        match self.token.logout() {
            Ok(()) | Err(Error::UserNotLoggedIn) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `C_GetSessionInfo`.
    pub(crate) fn session_info(&self, handle: CK_SESSION_HANDLE) -> Result<CK_SESSION_INFO> {
        let (_, rw) = self.sessions.get(handle)?;
        let state = match (rw, self.token.logged_in()?) {
            (false, false) => CKS_RO_PUBLIC_SESSION,
            (true, false) => CKS_RW_PUBLIC_SESSION,
            (false, true) => CKS_RO_USER_FUNCTIONS,
            (true, true) => CKS_RW_USER_FUNCTIONS,
        };
        Ok(CK_SESSION_INFO {
            slotID: slot::SLOT_ID,
            state,
            flags: CKF_SERIAL_SESSION | if rw { CKF_RW_SESSION } else { 0 },
            ulDeviceError: 0,
        })
    }

    /// `C_Login`: only the normal user, whose PIN is the store's.
    pub(crate) fn login(
        &self,
        handle: CK_SESSION_HANDLE,
        user: CK_USER_TYPE,
        pin: &[u8],
    ) -> Result<()> {
        self.sessions.get(handle)?;
        match user {
            CKU_USER => self.token.login(pin),
            CKU_CONTEXT_SPECIFIC => Err(Error::OperationNotInitialized),
            _ => Err(Error::UserTypeInvalid),
        }
    }

    /// `C_Logout`.
    pub(crate) fn logout(&self, handle: CK_SESSION_HANDLE) -> Result<()> {
        self.sessions.get(handle)?;
        self.token.logout()
    }

    /// `C_GenerateRandom`.
    pub(crate) fn generate_random(&self, handle: CK_SESSION_HANDLE, len: usize) -> Result<Vec<u8>> {
        self.sessions.get(handle)?;
        if len > MAX_RANDOM {
            return Err(Error::ArgumentsBad);
        }
        let mut out = vec![0; len];
        vss_crypto::random_bytes(&mut out)?;
        Ok(out)
    }

    fn objects(&self) -> Result<MutexGuard<'_, ObjectTable>> {
        self.objects.lock().map_err(|_| Error::Internal)
    }

    /// The key object behind `object`, for the logged-in user (objects are private: nobody
    /// else sees one).
    fn object(&self, hsm: &dyn Hsm, object: CK_OBJECT_HANDLE) -> Result<KeyObject> {
        let (label, class) = {
            let objects = self.objects()?;
            let (label, class) = objects.lookup(object).ok_or(Error::ObjectHandleInvalid)?;
            (label.to_owned(), class)
        };
        let info = hsm.key(&label)?;
        Ok(KeyObject {
            class,
            label,
            curve: info.curve,
        })
    }

    /// `C_FindObjectsInit`: the search runs now, over the store as it is.
    pub(crate) fn find_objects_init(
        &self,
        handle: CK_SESSION_HANDLE,
        template: &[Attribute<'_>],
    ) -> Result<()> {
        let (session, _) = self.sessions.get(handle)?;
        let mut session = lock(&session)?;
        if session.find.is_some() {
            return Err(Error::OperationActive);
        }
        let mut found = Vec::new();
        if let Ok(hsm) = self.token.hsm() {
            for key in hsm.keys()? {
                for class in [Class::Public, Class::Private] {
                    let object = KeyObject {
                        class,
                        label: key.label.clone(),
                        curve: key.curve,
                    };
                    if object.matches(template, || Ok(hsm.public_key(&key.handle)?)) {
                        found.push(self.objects()?.handle(&key.label, class));
                    }
                }
            }
        }
        session.find = Some(found.into_iter());
        Ok(())
    }

    /// `C_FindObjects`: at most `max` more handles.
    pub(crate) fn find_objects(
        &self,
        handle: CK_SESSION_HANDLE,
        max: usize,
    ) -> Result<Vec<CK_OBJECT_HANDLE>> {
        let (session, _) = self.sessions.get(handle)?;
        let mut session = lock(&session)?;
        let found = session
            .find
            .as_mut()
            .ok_or(Error::OperationNotInitialized)?;
        Ok(found.take(max).collect())
    }

    /// `C_FindObjectsFinal`.
    pub(crate) fn find_objects_final(&self, handle: CK_SESSION_HANDLE) -> Result<()> {
        let (session, _) = self.sessions.get(handle)?;
        let found = lock(&session)?.find.take();
        found.map(drop).ok_or(Error::OperationNotInitialized)
    }

    /// `C_GetAttributeValue`'s values, one per type asked for: the bytes, or why not.
    pub(crate) fn attribute_values(
        &self,
        handle: CK_SESSION_HANDLE,
        object: CK_OBJECT_HANDLE,
        types: &[CK_ATTRIBUTE_TYPE],
    ) -> Result<Vec<Result<Vec<u8>>>> {
        self.sessions.get(handle)?;
        let hsm = self.token.hsm().map_err(|_| Error::ObjectHandleInvalid)?;
        let key = self.object(hsm.as_ref(), object)?;
        let public = || Ok(hsm.public_key(&vss_hsm::KeyHandle::new(key.label.as_str()))?);
        Ok(types.iter().map(|&ty| key.attribute(ty, public)).collect())
    }

    /// `C_GenerateKeyPair`: a key made in the store; the public and private key's handles.
    pub(crate) fn generate_key_pair(
        &self,
        handle: CK_SESSION_HANDLE,
        ckm: CK_MECHANISM_TYPE,
        param: &[u8],
        public: &[Attribute<'_>],
        private: &[Attribute<'_>],
    ) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE)> {
        let (_, rw) = self.sessions.get(handle)?;
        Mechanism::for_function(ckm, param, Function::GenerateKeyPair)?;
        let hsm = self.token.hsm()?;
        if !rw {
            return Err(Error::SessionReadOnly);
        }
        let request = object::key_pair_request(public, private)?;
        let label = match request.label {
            Some(label) => label,
            None => fresh_label()?,
        };
        let key = hsm.generate_key(&GenerateKeyRequest::new(label, request.curve))?;
        let mut objects = self.objects()?;
        Ok((
            objects.handle(&key.label, Class::Public),
            objects.handle(&key.label, Class::Private),
        ))
    }

    /// The key and curve for a signature or verification with `key` by `mechanism`.
    fn operation_key(
        &self,
        hsm: &dyn Hsm,
        ckm: CK_MECHANISM_TYPE,
        param: &[u8],
        key: CK_OBJECT_HANDLE,
        class: Class,
    ) -> Result<(Mechanism, KeyObject)> {
        let mechanism = Mechanism::for_function(ckm, param, Function::SignVerify)?;
        let key = match self.object(hsm, key) {
            Err(Error::ObjectHandleInvalid) => return Err(Error::KeyHandleInvalid),
            other => other?,
        };
        if key.class != class {
            return Err(Error::KeyFunctionNotPermitted);
        }
        if !key.curve.supports_ecdsa() {
            return Err(Error::KeyTypeInconsistent);
        }
        Ok((mechanism, key))
    }

    /// `C_SignInit`.
    pub(crate) fn sign_init(
        &self,
        handle: CK_SESSION_HANDLE,
        ckm: CK_MECHANISM_TYPE,
        param: &[u8],
        key: CK_OBJECT_HANDLE,
    ) -> Result<()> {
        let (session, _) = self.sessions.get(handle)?;
        let mut session = lock(&session)?;
        if session.sign.is_some() {
            return Err(Error::OperationActive);
        }
        let hsm = self.token.hsm()?;
        let (mechanism, key) = self.operation_key(hsm.as_ref(), ckm, param, key, Class::Private)?;
        session.sign = Some(Operation::new(
            vss_hsm::KeyHandle::new(key.label),
            key.curve,
            mechanism,
        ));
        Ok(())
    }

    /// `C_VerifyInit`: with a public key object.
    pub(crate) fn verify_init(
        &self,
        handle: CK_SESSION_HANDLE,
        ckm: CK_MECHANISM_TYPE,
        param: &[u8],
        key: CK_OBJECT_HANDLE,
    ) -> Result<()> {
        let (session, _) = self.sessions.get(handle)?;
        let mut session = lock(&session)?;
        if session.verify.is_some() {
            return Err(Error::OperationActive);
        }
        let hsm = self.token.hsm()?;
        let (mechanism, key) = self.operation_key(hsm.as_ref(), ckm, param, key, Class::Public)?;
        let public = hsm.public_key(&vss_hsm::KeyHandle::new(key.label.as_str()))?;
        session.verify = Some(Operation::new(
            public.verifying_key()?,
            key.curve,
            mechanism,
        ));
        Ok(())
    }

    /// `C_Sign` (`data` given) and `C_SignFinal` (`None`).
    pub(crate) fn sign(
        &self,
        handle: CK_SESSION_HANDLE,
        data: Option<&[u8]>,
        room: Room,
    ) -> Result<Output> {
        let (session, _) = self.sessions.get(handle)?;
        let mut session = lock(&session)?;
        let hsm = match self.token.hsm() {
            Ok(hsm) => hsm,
            Err(e) => {
                session.sign = None;
                return Err(e);
            }
        };
        session.sign(hsm.as_ref(), data, room)
    }

    /// `C_SignUpdate`.
    pub(crate) fn sign_update(&self, handle: CK_SESSION_HANDLE, data: &[u8]) -> Result<()> {
        let (session, _) = self.sessions.get(handle)?;
        let result = lock(&session)?.sign_update(data);
        result
    }

    /// `C_Verify` (`data` given) and `C_VerifyFinal` (`None`).
    pub(crate) fn verify(
        &self,
        handle: CK_SESSION_HANDLE,
        data: Option<&[u8]>,
        signature: &[u8],
    ) -> Result<()> {
        let (session, _) = self.sessions.get(handle)?;
        let result = lock(&session)?.verify(data, signature);
        result
    }

    /// `C_VerifyUpdate`.
    pub(crate) fn verify_update(&self, handle: CK_SESSION_HANDLE, data: &[u8]) -> Result<()> {
        let (session, _) = self.sessions.get(handle)?;
        let result = lock(&session)?.verify_update(data);
        result
    }
}

/// A label for a key whose templates name none: `key-` and 16 random hex digits.
fn fresh_label() -> Result<String> {
    let mut bytes = [0u8; 8];
    vss_crypto::random_bytes(&mut bytes)?;
    Ok(format!(
        "key-{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}
