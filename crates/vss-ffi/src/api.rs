//! The entry points, and the crate's only unsafe code. Each one checks its pointers
//! (`VSS_ERR_NULL`) and lengths (`VSS_ERR_INVALID_ARGUMENT`), converts the arguments to Rust
//! values, calls `vss_core::Vss`, writes the results back, records the message that
//! `vss_last_error` returns, and runs inside `catch_unwind`, so that no panic crosses into C
//! (`VSS_ERR_PANIC` instead).
#![allow(unsafe_code)]

use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use vss_core::id_change::{IdChangeEvent, IdChangeEvents};
use vss_core::verify::Outcome;
use vss_core::{Config, Vss};

use crate::error::{last_error, set_last_error, Failure};
use crate::types::{
    VssBuffer, VssHashedId8, VssIdChangeEvent, VssSlice, VssStatus, VssVerdict, VSS_MAX_BATCH,
    VSS_MAX_MESSAGE_LEN, VSS_MAX_PATH_LEN, VSS_MAX_SUBSCRIPTIONS,
};

/// An open security entity; one may be shared by any number of threads.
pub struct VssEntity {
    vss: Vss,
    subscriptions: AtomicUsize,
}

/// The entity is shared between threads: checked when the crate compiles.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<VssEntity>();
};

/// A callback told of each phase of an identifier change, with the caller's `user_data`.
pub type VssIdChangeCb =
    Option<unsafe extern "C" fn(event: *const VssIdChangeEvent, user_data: *mut c_void)>;

/// A subscriber's callback and its user data.
struct Subscriber {
    cb: unsafe extern "C" fn(*const VssIdChangeEvent, *mut c_void),
    user_data: *mut c_void,
}

// SAFETY: vss_id_change_subscribe's contract: the callback and its user data may be used
// from any thread that calls into the entity, for as long as the entity is open.
unsafe impl Send for Subscriber {}
// SAFETY: as above.
unsafe impl Sync for Subscriber {}

impl Subscriber {
    /// Hands `event` to the callback.
    fn notify(&self, event: IdChangeEvent) {
        let event = VssIdChangeEvent::from(event);
        // SAFETY: the callback takes an event that lives for the call and the user data
        // it was given with (vss_id_change_subscribe's contract).
        unsafe { (self.cb)(&event, self.user_data) }
    }
}

/// Runs an entry point's body: `VSS_OK`, the failure's status, or `VSS_ERR_PANIC`; the last
/// error is set either way (empty on success).
fn entry(body: impl FnOnce() -> Result<(), Failure>) -> VssStatus {
    let result = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(Failure::new(
            VssStatus::VssErrPanic,
            format!("libvss panicked (a bug): {what}"),
        ))
    });
    match result {
        Ok(()) => {
            set_last_error("");
            VssStatus::VssOk
        }
        Err(failure) => {
            set_last_error(&failure.message);
            failure.status
        }
    }
}

/// `ptr` when it is not NULL.
fn non_null<T>(ptr: *mut T, what: &str) -> Result<*mut T, Failure> {
    if ptr.is_null() {
        Err(Failure::null(what))
    } else {
        Ok(ptr)
    }
}

/// The entity `entity` points at.
///
/// # Safety
/// `entity` is NULL or from `vss_entity_open` and not closed.
unsafe fn entity<'a>(entity: *const VssEntity) -> Result<&'a VssEntity, Failure> {
    // SAFETY: the caller's contract.
    unsafe { entity.as_ref() }.ok_or_else(|| Failure::null("entity"))
}

/// The `len` bytes at `data` (`what` in messages), at most `VSS_MAX_MESSAGE_LEN`; NULL is
/// an empty slice when `len` is 0.
///
/// # Safety
/// `data` is NULL or points at `len` readable bytes that stay unchanged during the call.
unsafe fn bytes<'a>(data: *const u8, len: usize, what: &str) -> Result<&'a [u8], Failure> {
    if len > VSS_MAX_MESSAGE_LEN {
        return Err(Failure::invalid(format!(
            "{what}: {len} bytes, more than VSS_MAX_MESSAGE_LEN ({VSS_MAX_MESSAGE_LEN})"
        )));
    }
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: the caller's contract; len is bounded, so it fits an allocation.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// The configuration path at `path`.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
unsafe fn config_path(path: *const c_char) -> Result<PathBuf, Failure> {
    if path.is_null() {
        return Err(Failure::null("config_path"));
    }
    // SAFETY: the caller's contract.
    let text = unsafe { CStr::from_ptr(path) };
    if text.to_bytes().len() > VSS_MAX_PATH_LEN {
        return Err(Failure::invalid(format!(
            "config_path: longer than VSS_MAX_PATH_LEN ({VSS_MAX_PATH_LEN})"
        )));
    }
    let text = text
        .to_str()
        .map_err(|_| Failure::invalid("config_path: not UTF-8"))?;
    Ok(PathBuf::from(text))
}

/// Opens the security entity that the TOML configuration at `config_path` describes,
/// without a prompt: the key store's PIN comes from `[hsm] pin_file`, the systemd
/// credential `vss-pin` or `$VSS_PIN`. On success `*out` is the entity (close it with
/// `vss_entity_close`); on failure `*out` is NULL.
///
/// # Safety
/// `config_path` is NULL or a NUL-terminated string; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn vss_entity_open(
    config_path: *const c_char,
    out: *mut *mut VssEntity,
) -> VssStatus {
    entry(|| {
        let out = non_null(out, "out")?;
        // SAFETY: out is writable (the contract).
        unsafe { out.write(std::ptr::null_mut()) };
        // SAFETY: the contract.
        let path = unsafe { self::config_path(config_path) }?;
        let vss = Vss::open_unattended(&Config::load(&path)?)?;
        let entity = Box::new(VssEntity {
            vss,
            subscriptions: AtomicUsize::new(0),
        });
        // SAFETY: as above.
        unsafe { out.write(Box::into_raw(entity)) };
        Ok(())
    })
}

/// Closes `entity` (NULL is ignored): statistics are flushed and the key store closed.
/// No other thread may be using it, and no callback of it runs after this returns.
///
/// # Safety
/// `entity` is NULL or from `vss_entity_open`, not closed yet.
#[no_mangle]
pub unsafe extern "C" fn vss_entity_close(entity: *mut VssEntity) {
    if entity.is_null() {
        return;
    }
    // A panic while dropping is caught and dropped here: close has no status to report it.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the contract: it came from Box::into_raw in vss_entity_open.
        drop(unsafe { Box::from_raw(entity) });
    }));
}

/// Signs `payload` (`len` bytes, at most `VSS_MAX_MESSAGE_LEN`; NULL when `len` is 0) for
/// `psid` with the current pseudonym (createSignature). On success `*out` holds the
/// Ieee1609Dot2Data (COER), to be freed with `vss_buffer_free`; on failure `{NULL, 0}`.
/// A signature may change the pseudonym first, which the id-change callbacks are told of.
///
/// # Safety
/// `entity` as for `vss_entity_close`; `payload` points at `len` readable bytes; `out` is
/// NULL or writable (its old contents are not freed).
#[no_mangle]
pub unsafe extern "C" fn vss_sign(
    entity: *const VssEntity,
    psid: u64,
    payload: *const u8,
    len: usize,
    out: *mut VssBuffer,
) -> VssStatus {
    entry(|| {
        let out = non_null(out, "out")?;
        // SAFETY: the contract.
        unsafe { out.write(VssBuffer::EMPTY) };
        // SAFETY: the contract.
        let (entity, payload) = unsafe { (self::entity(entity)?, bytes(payload, len, "payload")?) };
        let signed = entity.vss.create_signature(psid.into(), payload)?;
        // SAFETY: the contract.
        unsafe { out.write(signed.bytes.into()) };
        Ok(())
    })
}

/// Verifies a received message (`len` bytes of Ieee1609Dot2Data, at most
/// `VSS_MAX_MESSAGE_LEN`) under the configured policy (verifySignature). `VSS_OK` means a
/// verdict was reached, whichever it is: `*verdict` says which. With `VSS_VERDICT_SUCCESS`
/// and `payload_out` not NULL, `*payload_out` holds the payload (free it with
/// `vss_buffer_free`); otherwise it is `{NULL, 0}`.
///
/// # Safety
/// `entity` as for `vss_entity_close`; `data` points at `len` readable bytes; `verdict` is
/// NULL or writable; `payload_out` is NULL or writable (its old contents are not freed).
#[no_mangle]
pub unsafe extern "C" fn vss_verify(
    entity: *const VssEntity,
    data: *const u8,
    len: usize,
    verdict: *mut VssVerdict,
    payload_out: *mut VssBuffer,
) -> VssStatus {
    entry(|| {
        let verdict = non_null(verdict, "verdict")?;
        // SAFETY: the contract.
        unsafe { verdict.write(VssVerdict::Unspecified) };
        if !payload_out.is_null() {
            // SAFETY: the contract.
            unsafe { payload_out.write(VssBuffer::EMPTY) };
        }
        // SAFETY: the contract.
        let (entity, data) = unsafe { (self::entity(entity)?, bytes(data, len, "data")?) };
        let outcome = entity.vss.verify_signature(data)?;
        // SAFETY: the contract.
        unsafe { verdict.write(VssVerdict::from(&outcome)) };
        if let (Outcome::Valid { payload, .. }, false) = (outcome, payload_out.is_null()) {
            // SAFETY: the contract.
            unsafe { payload_out.write(payload.into()) };
        }
        Ok(())
    })
}

/// Verifies `count` messages (at most `VSS_MAX_BATCH`, each at most `VSS_MAX_MESSAGE_LEN`)
/// as `vss_verify` would one after the other, with their signatures checked in one batch on
/// the engine; `verdicts[i]` is the verdict of `messages[i]`. The payloads are not returned.
/// A `count` over the bound is refused before anything is read or written; on any other
/// failure every verdict is `VSS_VERDICT_UNSPECIFIED`.
///
/// # Safety
/// `entity` as for `vss_entity_close`; `messages` points at `count` readable slices whose
/// bytes are readable; `verdicts` at `count` writable verdicts (both may be NULL when
/// `count` is 0).
#[no_mangle]
pub unsafe extern "C" fn vss_verify_batch(
    entity: *const VssEntity,
    messages: *const VssSlice,
    count: usize,
    verdicts: *mut VssVerdict,
) -> VssStatus {
    entry(|| {
        if count > VSS_MAX_BATCH {
            return Err(Failure::invalid(format!(
                "count: {count} messages, more than VSS_MAX_BATCH ({VSS_MAX_BATCH})"
            )));
        }
        if count == 0 {
            return Ok(());
        }
        let verdicts = non_null(verdicts, "verdicts")?;
        for i in 0..count {
            // SAFETY: the contract: count writable verdicts.
            unsafe { verdicts.add(i).write(VssVerdict::Unspecified) };
        }
        // SAFETY: the contract.
        let entity = unsafe { self::entity(entity) }?;
        if messages.is_null() {
            return Err(Failure::null("messages"));
        }
        // SAFETY: the contract: count readable slices, count bounded.
        let slices = unsafe { std::slice::from_raw_parts(messages, count) };
        let batch = slices
            .iter()
            .enumerate()
            // SAFETY: the contract: each slice's bytes are readable.
            .map(|(i, s)| unsafe { bytes(s.data, s.len, &format!("messages[{i}]")) })
            .collect::<Result<Vec<_>, _>>()?;
        let outcomes = entity.vss.verify_batch(&batch)?;
        for (i, outcome) in outcomes.iter().enumerate().take(count) {
            // SAFETY: as above.
            unsafe { verdicts.add(i).write(outcome.into()) };
        }
        Ok(())
    })
}

/// Subscribes `cb` to identifier changes (SN-IDCHANGE-SUBSCRIBE): before the pseudonym
/// changes it is called with `VSS_ID_CHANGE_PHASE_PREPARE`, then with `…_COMMIT` once it
/// has, or `…_ABORT` when the change is called off, each time with `user_data`. It runs on
/// the thread whose call changes the pseudonym (`vss_sign`, `vss_trigger_id_change`), must
/// return quickly and must not call this library with the same entity. A subscription lasts
/// until the entity closes; at most `VSS_MAX_SUBSCRIPTIONS` (else `VSS_ERR_LIMIT`).
///
/// # Safety
/// `entity` as for `vss_entity_close`; `cb` and `user_data` may be used from any thread
/// until the entity is closed.
#[no_mangle]
pub unsafe extern "C" fn vss_id_change_subscribe(
    entity: *const VssEntity,
    cb: VssIdChangeCb,
    user_data: *mut c_void,
) -> VssStatus {
    entry(|| {
        // SAFETY: the contract.
        let entity = unsafe { self::entity(entity) }?;
        let cb = cb.ok_or_else(|| Failure::null("cb"))?;
        let taken = entity
            .subscriptions
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < VSS_MAX_SUBSCRIPTIONS).then_some(n + 1)
            });
        if taken.is_err() {
            return Err(Failure::new(
                VssStatus::VssErrLimit,
                format!("already VSS_MAX_SUBSCRIPTIONS ({VSS_MAX_SUBSCRIPTIONS}) subscriptions"),
            ));
        }
        let subscriber = Subscriber { cb, user_data };
        entity
            .vss
            .register_network_id_listener(Arc::new(IdChangeEvents(move |event| {
                subscriber.notify(event)
            })));
        Ok(())
    })
}

/// Changes the pseudonym now (SN-IDCHANGE-TRIGGER), with the callbacks told; `*new_id`
/// (when not NULL) is the new pseudonym's HashedId8. `VSS_ERR_CHANGE_BLOCKED` while locked,
/// `VSS_ERR_POOL_EMPTY` when no other pseudonym is left.
///
/// # Safety
/// `entity` as for `vss_entity_close`; `new_id` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn vss_trigger_id_change(
    entity: *const VssEntity,
    new_id: *mut VssHashedId8,
) -> VssStatus {
    entry(|| {
        // SAFETY: the contract.
        let entity = unsafe { self::entity(entity) }?;
        let id = entity.vss.change_pseudonym()?;
        if !new_id.is_null() {
            // SAFETY: the contract.
            unsafe { new_id.write(id.into()) };
        }
        Ok(())
    })
}

/// Locks identifier changes for `seconds` (SN-ID-LOCK, 1–255); 0 lifts the lock
/// (SN-ID-UNLOCK). While locked, neither signing nor `vss_trigger_id_change` changes the
/// pseudonym.
///
/// # Safety
/// `entity` as for `vss_entity_close`.
#[no_mangle]
pub unsafe extern "C" fn vss_lock_id_change(entity: *const VssEntity, seconds: u8) -> VssStatus {
    entry(|| {
        // SAFETY: the contract.
        let entity = unsafe { self::entity(entity) }?;
        match seconds {
            0 => entity.vss.free_pseudonym_change(),
            s => entity
                .vss
                .block_pseudonym_change(Duration::from_secs(u64::from(s))),
        }
        Ok(())
    })
}

/// Frees the bytes of a buffer that the library handed out and sets it to `{NULL, 0}`;
/// NULL, and a buffer already `{NULL, 0}`, are ignored.
///
/// # Safety
/// `buffer` is NULL or points at a buffer filled by this library and not freed since.
#[no_mangle]
pub unsafe extern "C" fn vss_buffer_free(buffer: *mut VssBuffer) {
    // SAFETY: the contract.
    let Some(buffer) = (unsafe { buffer.as_mut() }) else {
        return;
    };
    if !buffer.data.is_null() {
        let bytes = std::ptr::slice_from_raw_parts_mut(buffer.data, buffer.len);
        // SAFETY: data and len came from Box::into_raw of a boxed slice (VssBuffer::from).
        drop(unsafe { Box::from_raw(bytes) });
    }
    *buffer = VssBuffer::EMPTY;
}

/// The message of this thread's last call that returned a status: empty after `VSS_OK`,
/// the reason (one line) after a failure. Owned by the library, valid until this thread's
/// next call; never NULL.
#[no_mangle]
pub extern "C" fn vss_last_error() -> *const c_char {
    last_error()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_vss_err_panic_with_its_message() {
        let status = entry(|| panic!("boom"));
        assert_eq!(status, VssStatus::VssErrPanic);
        // SAFETY: vss_last_error points at this thread's live message.
        let message = unsafe { CStr::from_ptr(vss_last_error()) };
        assert!(message.to_string_lossy().contains("boom"), "{message:?}");
        assert_eq!(entry(|| Ok(())), VssStatus::VssOk);
        // SAFETY: as above.
        assert!(unsafe { CStr::from_ptr(vss_last_error()) }.is_empty());
    }

    #[test]
    fn a_null_entity_is_refused_and_the_outputs_are_left_empty() {
        let mut out = VssBuffer {
            data: std::ptr::NonNull::dangling().as_ptr(),
            len: 1,
        };
        let payload = [0u8; 3];
        // SAFETY: NULL entity, a readable payload, a writable buffer.
        let status = unsafe { vss_sign(std::ptr::null(), 36, payload.as_ptr(), 3, &mut out) };
        assert_eq!(status, VssStatus::VssErrNull);
        assert!(out.data.is_null() && out.len == 0);
        let mut verdict = VssVerdict::Success;
        // SAFETY: as above.
        let status = unsafe {
            vss_verify(
                std::ptr::null(),
                payload.as_ptr(),
                3,
                &mut verdict,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(status, VssStatus::VssErrNull);
        assert_eq!(verdict, VssVerdict::Unspecified);
    }
}
