//! The module's state between `C_Initialize` and `C_Finalize`, and the safe core of every
//! implemented function: [`crate::ffi`] checks and converts the C arguments, then calls here.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, RwLock};

use cryptoki_sys::*;
use vss_crypto::{KeyAlgorithm, PublicKey};
use vss_hsm::{
    pkcs11_ec, GenerateKeyRequest, Hsm, KeyHandle, KeyInfo, ObjectKind, ObjectStore, PublicCopies,
    StoredObject,
};

use crate::error::{Error, Result};
use crate::mechanism::{self, Function, Mechanism, Param, Resolved};
use crate::object::{
    self, Attribute, Class, KeyObject, KeyPublic, Object, ObjectRef, ObjectTable, SecretObject,
};
use crate::session::{
    ecdsa_signature_len, Decryption, Operation, Output, Room, Session, SessionRef, Sessions,
    VerifyKey,
};
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
    /// The token of each slot, in slot order.
    tokens: Vec<Token>,
    sessions: Sessions,
    objects: Mutex<ObjectTable>,
    /// The secrets `C_DeriveKey` made, by object handle.
    secrets: Mutex<HashMap<CK_OBJECT_HANDLE, SecretObject>>,
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
    let tokens = slot::store_dirs()?.into_iter().map(Token::new).collect();
    *module = Some(Module {
        tokens,
        sessions: Sessions::default(),
        objects: Mutex::new(ObjectTable::default()),
        secrets: Mutex::new(HashMap::new()),
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
    /// The token of `slot`.
    fn token(&self, slot: CK_SLOT_ID) -> Result<&Token> {
        slot::token(&self.tokens, slot)
    }

    /// The open session `handle` and the token of its slot.
    fn session(&self, handle: CK_SESSION_HANDLE) -> Result<(SessionRef, &Token)> {
        let session = self.sessions.get(handle)?;
        let token = self.token(session.slot)?;
        Ok((session, token))
    }

    /// `C_GetSlotList`.
    pub(crate) fn slot_list(&self, token_present: bool) -> Vec<CK_SLOT_ID> {
        slot::list(&self.tokens, token_present)
    }

    /// `C_GetSlotInfo`.
    pub(crate) fn slot_info(&self, slot: CK_SLOT_ID) -> Result<CK_SLOT_INFO> {
        Ok(slot::info(self.token(slot)?))
    }

    /// `C_GetTokenInfo`.
    pub(crate) fn token_info(&self, slot: CK_SLOT_ID) -> Result<CK_TOKEN_INFO> {
        let token = self.token(slot)?;
        let (sessions, rw) = self.sessions.counts(slot)?;
        token.info(sessions, rw)
    }

    /// `C_GetMechanismList`.
    pub(crate) fn mechanism_list(&self, slot: CK_SLOT_ID) -> Result<Vec<CK_MECHANISM_TYPE>> {
        self.token(slot)?.dir()?;
        Ok(mechanism::ALL.iter().map(|m| m.ckm()).collect())
    }

    /// `C_GetMechanismInfo`.
    pub(crate) fn mechanism_info(
        &self,
        slot: CK_SLOT_ID,
        ckm: CK_MECHANISM_TYPE,
    ) -> Result<CK_MECHANISM_INFO> {
        self.token(slot)?.dir()?;
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
        let token = self.token(slot)?;
        if flags & CKF_SERIAL_SESSION == 0 {
            return Err(Error::SessionParallelNotSupported);
        }
        token.dir()?;
        self.sessions.open(slot, flags & CKF_RW_SESSION != 0)
    }

    /// `C_CloseSession`: its session objects go; closing the last session of a slot logs
    /// the user out of its token.
    pub(crate) fn close_session(&self, handle: CK_SESSION_HANDLE) -> Result<()> {
        let (slot, left) = self.sessions.close(handle)?;
        self.drop_secrets(|secret| secret.session == handle)?;
        if left == 0 {
            logout_quietly(self.token(slot)?)?;
        }
        Ok(())
    }

    /// `C_CloseAllSessions`.
    pub(crate) fn close_all_sessions(&self, slot: CK_SLOT_ID) -> Result<()> {
        let token = self.token(slot)?;
        self.sessions.close_all(slot)?;
        self.drop_secrets(|secret| secret.slot == slot)?;
        logout_quietly(token)
    }

    fn secrets(&self) -> Result<MutexGuard<'_, HashMap<CK_OBJECT_HANDLE, SecretObject>>> {
        self.secrets.lock().map_err(|_| Error::Internal)
    }

    /// Destroys the session objects `which` picks.
    fn drop_secrets(&self, which: impl Fn(&SecretObject) -> bool) -> Result<()> {
        let mut secrets = self.secrets()?;
        let gone: Vec<CK_OBJECT_HANDLE> = secrets
            .iter()
            .filter(|(_, s)| which(s))
            .map(|(h, _)| *h)
            .collect();
        let mut objects = self.objects()?;
        for handle in gone {
            secrets.remove(&handle);
            objects.forget(handle);
        }
        Ok(())
    }

    /// `C_GetSessionInfo`.
    pub(crate) fn session_info(&self, handle: CK_SESSION_HANDLE) -> Result<CK_SESSION_INFO> {
        let (session, token) = self.session(handle)?;
        let rw = session.rw;
        let state = match (rw, token.logged_in()?) {
            (false, false) => CKS_RO_PUBLIC_SESSION,
            (true, false) => CKS_RW_PUBLIC_SESSION,
            (false, true) => CKS_RO_USER_FUNCTIONS,
            (true, true) => CKS_RW_USER_FUNCTIONS,
        };
        Ok(CK_SESSION_INFO {
            slotID: session.slot,
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
        let (_, token) = self.session(handle)?;
        match user {
            CKU_USER => token.login(pin),
            CKU_CONTEXT_SPECIFIC => Err(Error::OperationNotInitialized),
            _ => Err(Error::UserTypeInvalid),
        }
    }

    /// `C_Logout`.
    pub(crate) fn logout(&self, handle: CK_SESSION_HANDLE) -> Result<()> {
        self.session(handle)?.1.logout()
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

    /// The ids given to keys, by key label, from a store's objects.
    fn key_ids(stored: &[StoredObject]) -> HashMap<String, Vec<u8>> {
        stored
            .iter()
            .filter_map(|o| match &o.kind {
                ObjectKind::KeyId { key_label } => Some((key_label.clone(), o.id.clone())),
                _ => None,
            })
            .collect()
    }

    /// A key object of the store.
    fn key_object(&self, key: &KeyInfo, class: Class, ids: &HashMap<String, Vec<u8>>) -> KeyObject {
        KeyObject {
            class,
            label: key.label.clone(),
            id: ids
                .get(&key.label)
                .cloned()
                .unwrap_or_else(|| key.label.as_bytes().to_vec()),
            algorithm: key.algorithm,
        }
    }

    /// The public-key objects of `token`'s store that can be read without the PIN (from the
    /// store's clear copies, [`PublicCopies`]), each with its public value.
    fn public_copies(&self, token: &Token, stored: &[StoredObject]) -> Vec<(KeyObject, KeyPublic)> {
        let Ok(copies) = token.dir().map(|dir| PublicCopies::new(dir).list()) else {
            return Vec::new();
        };
        let ids = Self::key_ids(stored);
        copies
            .unwrap_or_default()
            .into_iter()
            .filter_map(|copy| {
                let public = KeyPublic::from_stored(&copy.kind)?;
                let key = KeyInfo {
                    handle: KeyHandle::new(copy.label.as_str()),
                    label: copy.label,
                    algorithm: public.algorithm(),
                };
                Some((self.key_object(&key, Class::Public, &ids), public))
            })
            .collect()
    }

    /// Runs `f` on the object behind `handle` on `slot` and the means to read its key's
    /// public value. Private objects exist only for the logged-in user (a key pair's public
    /// key is read from its clear copy before login); objects of other slots not at all.
    fn with_object<T>(
        &self,
        slot: CK_SLOT_ID,
        handle: CK_OBJECT_HANDLE,
        f: impl FnOnce(&Object<'_>, &dyn Fn() -> Result<KeyPublic>) -> Result<T>,
    ) -> Result<T> {
        let object = self
            .objects()?
            .lookup(handle)
            .cloned()
            .ok_or(Error::ObjectHandleInvalid)?;
        let no_public = || Err(Error::AttributeTypeInvalid);
        let token = self.token(slot)?;
        match object {
            // Before login a public key is read from the store's clear copy.
            ObjectRef::Key(s, label, Class::Public) if s == slot && !token.logged_in()? => {
                let stored = object_store(token)?.list()?;
                let (object, public) = self
                    .public_copies(token, &stored)
                    .into_iter()
                    .find(|(object, _)| object.label == label)
                    .ok_or(Error::ObjectHandleInvalid)?;
                f(&Object::Key(object), &|| Ok(public.clone()))
            }
            ObjectRef::Key(s, label, class) if s == slot => {
                let hsm = token.hsm().map_err(|_| Error::ObjectHandleInvalid)?;
                let key = hsm.key(&label)?;
                let ids = Self::key_ids(&object_store(token)?.list()?);
                let object = Object::Key(self.key_object(&key, class, &ids));
                f(&object, &|| key_public(hsm.as_ref(), &key))
            }
            ObjectRef::Stored(s, name) if s == slot => {
                let stored = object_store(token)?.get(&name)?;
                let object = Object::from_stored(&stored).ok_or(Error::ObjectHandleInvalid)?;
                f(&object, &no_public)
            }
            ObjectRef::Secret => {
                if !token.logged_in()? {
                    return Err(Error::ObjectHandleInvalid);
                }
                let secrets = self.secrets()?;
                let secret = secrets
                    .get(&handle)
                    .filter(|secret| secret.slot == slot)
                    .ok_or(Error::ObjectHandleInvalid)?;
                f(&Object::Secret(secret), &no_public)
            }
            _ => Err(Error::ObjectHandleInvalid),
        }
    }

    /// `C_FindObjectsInit`: the search runs now, over the store as it is. Before login it
    /// sees the public objects only: certificates and public keys, those of the key pairs
    /// read from the store's clear copies.
    pub(crate) fn find_objects_init(
        &self,
        handle: CK_SESSION_HANDLE,
        template: &[Attribute<'_>],
    ) -> Result<()> {
        let (opened, token) = self.session(handle)?;
        let slot = opened.slot;
        let mut session = lock(&opened.session)?;
        if session.find.is_some() {
            return Err(Error::OperationActive);
        }
        let mut found = Vec::new();
        let stored = match object_store(token) {
            Ok(store) => store.list()?,
            Err(_) => Vec::new(),
        };
        if let Ok(hsm) = token.hsm() {
            let ids = Self::key_ids(&stored);
            for key in hsm.keys()? {
                for class in [Class::Public, Class::Private] {
                    let object = Object::Key(self.key_object(&key, class, &ids));
                    if object.matches(template, || key_public(hsm.as_ref(), &key)) {
                        found.push(self.objects()?.handle(ObjectRef::Key(
                            slot,
                            key.label.clone(),
                            class,
                        )));
                    }
                }
            }
            for (&handle, secret) in self.secrets()?.iter().filter(|(_, s)| s.slot == slot) {
                if Object::Secret(secret).matches(template, || Err(Error::AttributeTypeInvalid)) {
                    found.push(handle);
                }
            }
        } else {
            for (object, public) in self.public_copies(token, &stored) {
                let label = object.label.clone();
                if Object::Key(object).matches(template, || Ok(public.clone())) {
                    let key = ObjectRef::Key(slot, label, Class::Public);
                    found.push(self.objects()?.handle(key));
                }
            }
        }
        for record in stored {
            if let Some(object) = Object::from_stored(&record) {
                if object.matches(template, || Err(Error::AttributeTypeInvalid)) {
                    found.push(self.objects()?.handle(ObjectRef::Stored(slot, record.name)));
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
        let session = self.sessions.get(handle)?;
        let mut session = lock(&session.session)?;
        let found = session
            .find
            .as_mut()
            .ok_or(Error::OperationNotInitialized)?;
        Ok(found.take(max).collect())
    }

    /// `C_FindObjectsFinal`.
    pub(crate) fn find_objects_final(&self, handle: CK_SESSION_HANDLE) -> Result<()> {
        let session = self.sessions.get(handle)?;
        let found = lock(&session.session)?.find.take();
        found.map(drop).ok_or(Error::OperationNotInitialized)
    }

    /// `C_GetAttributeValue`'s values, one per type asked for: the bytes, or why not.
    pub(crate) fn attribute_values(
        &self,
        handle: CK_SESSION_HANDLE,
        object: CK_OBJECT_HANDLE,
        types: &[CK_ATTRIBUTE_TYPE],
    ) -> Result<Vec<Result<Vec<u8>>>> {
        let session = self.sessions.get(handle)?;
        self.with_object(session.slot, object, |object, public| {
            Ok(types
                .iter()
                .map(|&ty| object.attribute(ty, public))
                .collect())
        })
    }

    /// `C_GenerateKeyPair`: a key made in the store; the public and private key's handles.
    pub(crate) fn generate_key_pair(
        &self,
        handle: CK_SESSION_HANDLE,
        ckm: CK_MECHANISM_TYPE,
        param: &Param,
        public: &[Attribute<'_>],
        private: &[Attribute<'_>],
    ) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE)> {
        let (session, token) = self.session(handle)?;
        let (mechanism, _) = Mechanism::resolve(ckm, param, Function::GenerateKeyPair)?;
        let hsm = token.hsm()?;
        if !session.rw {
            return Err(Error::SessionReadOnly);
        }
        let request = object::key_pair_request(mechanism.is_rsa(), public, private)?;
        let label = match request.label {
            Some(label) => label,
            None => fresh_label()?,
        };
        let key = hsm.generate_key(&GenerateKeyRequest::new(label, request.algorithm))?;
        if let Some(id) = request.id.filter(|id| id != key.label.as_bytes()) {
            let kind = ObjectKind::KeyId {
                key_label: key.label.clone(),
            };
            if let Err(e) = object_store(token)?.add(&key.label, &id, kind) {
                // No key without the id it was asked for: the store stays as it was.
                let _ = hsm.delete_key(&key.handle);
                return Err(e.into());
            }
        }
        let mut objects = self.objects()?;
        Ok((
            objects.handle(ObjectRef::Key(
                session.slot,
                key.label.clone(),
                Class::Public,
            )),
            objects.handle(ObjectRef::Key(session.slot, key.label, Class::Private)),
        ))
    }

    /// `C_CreateObject`: a certificate or public key kept in the store (a public token
    /// object; the user must be logged in to add one).
    pub(crate) fn create_object(
        &self,
        handle: CK_SESSION_HANDLE,
        template: &[Attribute<'_>],
    ) -> Result<CK_OBJECT_HANDLE> {
        let (session, token) = self.session(handle)?;
        token.hsm()?;
        if !session.rw {
            return Err(Error::SessionReadOnly);
        }
        let (label, id, kind) = object::create_request(template)?;
        let stored = object_store(token)?.add(&label, &id, kind)?;
        Ok(self
            .objects()?
            .handle(ObjectRef::Stored(session.slot, stored.name)))
    }

    /// `C_DestroyObject`: a key goes from the store with both its objects.
    pub(crate) fn destroy_object(
        &self,
        handle: CK_SESSION_HANDLE,
        object: CK_OBJECT_HANDLE,
    ) -> Result<()> {
        let (session, token) = self.session(handle)?;
        let slot = session.slot;
        let target = self
            .objects()?
            .lookup(object)
            .cloned()
            .ok_or(Error::ObjectHandleInvalid)?;
        let hsm = token.hsm()?;
        if target == ObjectRef::Secret {
            let mut secrets = self.secrets()?;
            if secrets.get(&object).is_none_or(|s| s.slot != slot) {
                return Err(Error::ObjectHandleInvalid);
            }
            secrets.remove(&object);
            self.objects()?.forget(object);
            return Ok(());
        }
        if !session.rw {
            return Err(Error::SessionReadOnly);
        }
        match &target {
            ObjectRef::Key(s, label, _) if *s == slot => {
                hsm.delete_key(&KeyHandle::new(label.as_str()))?;
                object_store(token)?.remove_key_ids(label)?;
                let mut objects = self.objects()?;
                for class in [Class::Public, Class::Private] {
                    objects.forget_object(&ObjectRef::Key(slot, label.clone(), class));
                }
            }
            ObjectRef::Stored(s, name) if *s == slot => {
                object_store(token)?.remove(name)?;
                self.objects()?.forget(object);
            }
            _ => return Err(Error::ObjectHandleInvalid),
        }
        Ok(())
    }

    /// The key of the store behind a key handle, checked to be the half `class` and of the
    /// kind the mechanism works with.
    fn operation_key(
        &self,
        hsm: &dyn Hsm,
        slot: CK_SLOT_ID,
        mechanism: Mechanism,
        key: CK_OBJECT_HANDLE,
        class: Class,
    ) -> Result<KeyInfo> {
        let label = match self.objects()?.lookup(key) {
            Some(ObjectRef::Key(s, label, c)) if *s == slot && *c == class => label.clone(),
            Some(ObjectRef::Key(s, ..) | ObjectRef::Stored(s, _)) if *s != slot => {
                return Err(Error::KeyHandleInvalid)
            }
            Some(_) => return Err(Error::KeyFunctionNotPermitted),
            None => return Err(Error::KeyHandleInvalid),
        };
        let info = match hsm.key(&label) {
            Err(vss_hsm::Error::KeyNotFound(_)) => return Err(Error::KeyHandleInvalid),
            other => other?,
        };
        check_key_type(mechanism, info.algorithm)?;
        Ok(info)
    }

    /// The mechanism `ckm` resolved for `function`, and the private key of `token`'s store
    /// behind `key` that it will use.
    fn private_key_for(
        &self,
        token: &Token,
        slot: CK_SLOT_ID,
        ckm: CK_MECHANISM_TYPE,
        param: &Param,
        key: CK_OBJECT_HANDLE,
        function: Function,
    ) -> Result<(Resolved, KeyInfo)> {
        let (mechanism, how) = Mechanism::resolve(ckm, param, function)?;
        let hsm = token.hsm()?;
        let key = self.operation_key(hsm.as_ref(), slot, mechanism, key, Class::Private)?;
        Ok((how, key))
    }

    /// Starts the operation in the slot `slot` picks of session `handle` with what `make`
    /// makes, unless one is active there.
    fn start<T>(
        &self,
        handle: CK_SESSION_HANDLE,
        slot: impl Fn(&mut Session) -> &mut Option<T>,
        make: impl FnOnce(&Token, CK_SLOT_ID) -> Result<T>,
    ) -> Result<()> {
        let (opened, token) = self.session(handle)?;
        let mut session = lock(&opened.session)?;
        if slot(&mut session).is_some() {
            return Err(Error::OperationActive);
        }
        let operation = make(token, opened.slot)?;
        *slot(&mut session) = Some(operation);
        Ok(())
    }

    /// Runs `finish` on session `handle` with the opened store; without one, the operation
    /// in `slot` ends.
    fn finish<T, R>(
        &self,
        handle: CK_SESSION_HANDLE,
        slot: impl Fn(&mut Session) -> &mut Option<T>,
        finish: impl FnOnce(&mut Session, &dyn Hsm) -> Result<R>,
    ) -> Result<R> {
        let (opened, token) = self.session(handle)?;
        let mut session = lock(&opened.session)?;
        match token.hsm() {
            Ok(hsm) => finish(&mut session, hsm.as_ref()),
            Err(e) => {
                *slot(&mut session) = None;
                Err(e)
            }
        }
    }

    /// `C_SignInit`.
    pub(crate) fn sign_init(
        &self,
        handle: CK_SESSION_HANDLE,
        ckm: CK_MECHANISM_TYPE,
        param: &Param,
        key: CK_OBJECT_HANDLE,
    ) -> Result<()> {
        self.start(
            handle,
            |s| &mut s.sign,
            |token, slot| {
                let (how, key) =
                    self.private_key_for(token, slot, ckm, param, key, Function::SignVerify)?;
                let len = signature_len(key.algorithm);
                Ok(Operation::new(key.handle, how, len))
            },
        )
    }

    /// `C_VerifyInit`: with a public key of the store (after login) or a stored public key.
    pub(crate) fn verify_init(
        &self,
        handle: CK_SESSION_HANDLE,
        ckm: CK_MECHANISM_TYPE,
        param: &Param,
        key: CK_OBJECT_HANDLE,
    ) -> Result<()> {
        self.start(
            handle,
            |s| &mut s.verify,
            |token, slot| self.verify_operation(token, slot, ckm, param, key),
        )
    }

    /// The verification `C_VerifyInit` starts.
    fn verify_operation(
        &self,
        token: &Token,
        slot: CK_SLOT_ID,
        ckm: CK_MECHANISM_TYPE,
        param: &Param,
        key: CK_OBJECT_HANDLE,
    ) -> Result<Operation<VerifyKey>> {
        let (mechanism, how) = Mechanism::resolve(ckm, param, Function::SignVerify)?;
        let stored = match self.objects()?.lookup(key) {
            Some(ObjectRef::Stored(s, name)) if *s == slot => Some(name.clone()),
            _ => None,
        };
        let public = match stored {
            Some(name) => {
                let record = object_store(token)?.get(&name)?;
                KeyPublic::from_stored(&record.kind).ok_or(Error::KeyTypeInconsistent)?
            }
            // Before login, a key pair's public key from its clear copy.
            None if !token.logged_in()? => {
                self.with_object(slot, key, |object, public| match object {
                    Object::Key(key) if key.class == Class::Public => public(),
                    _ => Err(Error::KeyFunctionNotPermitted),
                })?
            }
            None => {
                let hsm = token.hsm()?;
                let info = self.operation_key(hsm.as_ref(), slot, mechanism, key, Class::Public)?;
                key_public(hsm.as_ref(), &info)?
            }
        };
        let (key, len) = match public {
            KeyPublic::Ec(key) => {
                check_key_type(mechanism, KeyAlgorithm::Ec(key.curve()))?;
                let len = ecdsa_signature_len(key.curve());
                (VerifyKey::Ec(key.verifying_key()?), len)
            }
            KeyPublic::Rsa(key) => {
                check_key_type(mechanism, KeyAlgorithm::Rsa(key.bits()))?;
                let len = key.modulus_len();
                (VerifyKey::Rsa(key), len)
            }
        };
        Ok(Operation::new(key, how, len))
    }

    /// `C_Sign` (`data` given) and `C_SignFinal` (`None`).
    pub(crate) fn sign(
        &self,
        handle: CK_SESSION_HANDLE,
        data: Option<&[u8]>,
        room: Room,
    ) -> Result<Output> {
        self.finish(
            handle,
            |s| &mut s.sign,
            |session, hsm| session.sign(hsm, data, room),
        )
    }

    /// `C_SignUpdate`.
    pub(crate) fn sign_update(&self, handle: CK_SESSION_HANDLE, data: &[u8]) -> Result<()> {
        let session = self.sessions.get(handle)?;
        let result = lock(&session.session)?.sign_update(data);
        result
    }

    /// `C_Verify` (`data` given) and `C_VerifyFinal` (`None`).
    pub(crate) fn verify(
        &self,
        handle: CK_SESSION_HANDLE,
        data: Option<&[u8]>,
        signature: &[u8],
    ) -> Result<()> {
        let session = self.sessions.get(handle)?;
        let result = lock(&session.session)?.verify(data, signature);
        result
    }

    /// `C_VerifyUpdate`.
    pub(crate) fn verify_update(&self, handle: CK_SESSION_HANDLE, data: &[u8]) -> Result<()> {
        let session = self.sessions.get(handle)?;
        let result = lock(&session.session)?.verify_update(data);
        result
    }

    /// `C_DecryptInit`: with an RSA private key.
    pub(crate) fn decrypt_init(
        &self,
        handle: CK_SESSION_HANDLE,
        ckm: CK_MECHANISM_TYPE,
        param: &Param,
        key: CK_OBJECT_HANDLE,
    ) -> Result<()> {
        self.start(
            handle,
            |s| &mut s.decrypt,
            |token, slot| {
                let (how, key) =
                    self.private_key_for(token, slot, ckm, param, key, Function::Decrypt)?;
                let Resolved::Decrypt(padding) = how else {
                    return Err(Error::MechanismInvalid);
                };
                let len = signature_len(key.algorithm);
                Ok(Decryption::new(key.handle, padding, len))
            },
        )
    }

    /// `C_Decrypt`.
    pub(crate) fn decrypt(
        &self,
        handle: CK_SESSION_HANDLE,
        ciphertext: &[u8],
        room: Room,
    ) -> Result<Output> {
        self.finish(
            handle,
            |s| &mut s.decrypt,
            |session, hsm| session.decrypt(hsm, ciphertext, room),
        )
    }

    /// `C_DeriveKey` with `CKM_ECDH1_DERIVE`: the shared secret as a session object.
    pub(crate) fn derive_key(
        &self,
        handle: CK_SESSION_HANDLE,
        ckm: CK_MECHANISM_TYPE,
        param: &Param,
        base: CK_OBJECT_HANDLE,
        template: &[Attribute<'_>],
    ) -> Result<CK_OBJECT_HANDLE> {
        let (session, token) = self.session(handle)?;
        let (mechanism, how) = Mechanism::resolve(ckm, param, Function::Derive)?;
        let Resolved::Ecdh { public_data } = how else {
            return Err(Error::MechanismInvalid);
        };
        let hsm = token.hsm()?;
        let key =
            self.operation_key(hsm.as_ref(), session.slot, mechanism, base, Class::Private)?;
        let curve = key.ec_curve()?;
        let peer = PublicKey::from_sec1(curve, pkcs11_ec::sec1_of(curve, &public_data))
            .map_err(|_| Error::MechanismParamInvalid)?;
        let secret = hsm.ecdh(&key.handle, &peer)?;
        let secret = SecretObject::new(handle, session.slot, secret, template)?;
        let object = self.objects()?.handle(ObjectRef::Secret);
        self.secrets()?.insert(object, secret);
        Ok(object)
    }
}

/// The public objects of `token`'s store.
fn object_store(token: &Token) -> Result<ObjectStore> {
    Ok(ObjectStore::new(token.dir()?))
}

/// Logs the user out of `token`, if logged in.
fn logout_quietly(token: &Token) -> Result<()> {
    match token.logout() {
        Ok(()) | Err(Error::UserNotLoggedIn) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The public value of a key of the store.
fn key_public(hsm: &dyn Hsm, key: &KeyInfo) -> Result<KeyPublic> {
    Ok(match key.algorithm {
        KeyAlgorithm::Ec(_) => KeyPublic::Ec(hsm.public_key(&key.handle)?),
        KeyAlgorithm::Rsa(_) => KeyPublic::Rsa(hsm.rsa_public_key(&key.handle)?),
    })
}

/// [`Error::KeyTypeInconsistent`] unless a key of `algorithm` works with `mechanism`.
fn check_key_type(mechanism: Mechanism, algorithm: KeyAlgorithm) -> Result<()> {
    let fits = match algorithm {
        KeyAlgorithm::Rsa(_) => mechanism.is_rsa(),
        KeyAlgorithm::Ec(curve) => {
            !mechanism.is_rsa() && (curve.supports_ecdsa() || mechanism == Mechanism::Ecdh1Derive)
        }
    };
    if fits {
        Ok(())
    } else {
        Err(Error::KeyTypeInconsistent)
    }
}

/// The length of a signature (or an RSA ciphertext) by a key of `algorithm`.
fn signature_len(algorithm: KeyAlgorithm) -> usize {
    match algorithm {
        KeyAlgorithm::Ec(curve) => ecdsa_signature_len(curve),
        KeyAlgorithm::Rsa(bits) => bits.bits() as usize / 8,
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
