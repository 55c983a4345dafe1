//! Prepared keys in the cache: when they are built, the byte bound, the order of eviction
//! (idle keys only) and the back-off of dropped keys.

use std::sync::Arc;

use vss_crypto::{Curve, PrivateKey};

use super::PreparedKeyPolicy;
use crate::asn::Duration;
use crate::cache::{CertCache, ValidatedCert};
use crate::{issue_certificate, CertificateRequest, ItsTime, Profile};

/// The time of the uses that do not depend on it.
const NOW: ItsTime = ItsTime::EPOCH;

/// Two seconds after the last: every kept key has been idle long enough to be dropped.
fn later(clock: &mut ItsTime) -> ItsTime {
    *clock = clock.plus_micros(2_000_000);
    *clock
}

/// A validated self-signed certificate of a fresh key on `curve`.
fn signer(curve: Curve) -> Arc<ValidatedCert> {
    let key = PrivateKey::generate(curve).expect("key");
    let mut request =
        CertificateRequest::new(Profile::Root, key.public_key().clone(), Duration::Years(1));
    request.name = Some("prepared.test".into());
    request.start = ItsTime::EPOCH;
    let cert = issue_certificate(&request, None, &key).expect("issue");
    Arc::new(ValidatedCert {
        key: cert
            .verification_key()
            .and_then(|k| k.verifying_key().map_err(Into::into))
            .expect("key"),
        cert,
        region: None,
    })
}

/// A cache of 16 certificates preparing under `policy`, holding `signers`.
fn cache(policy: PreparedKeyPolicy, signers: &[Arc<ValidatedCert>]) -> CertCache {
    let mut cache = CertCache::new(16);
    cache.set_prepared_policy(policy);
    for s in signers {
        cache.insert(Arc::clone(s));
    }
    cache
}

/// The bytes of one prepared P-256 key.
fn p256_bytes() -> usize {
    let key = PrivateKey::generate(Curve::P256).expect("key");
    vss_crypto::PreparedKey::new(key.public_key())
        .expect("prepared")
        .memory_bytes()
}

#[test]
fn a_key_is_prepared_after_its_first_uses_and_kept() {
    let s = signer(Curve::P256);
    let policy = PreparedKeyPolicy {
        max_bytes: 1 << 20,
        after: 3,
    };
    let mut cache = cache(policy, &[Arc::clone(&s)]);
    for _ in 0..3 {
        assert!(
            cache.prepared_key(&s, NOW).is_none(),
            "not before its 4th use"
        );
    }
    let built = cache
        .prepared_key(&s, NOW)
        .expect("prepared at the 4th use");
    assert_eq!(built.public_key(), s.key.public_key());
    let again = cache.prepared_key(&s, NOW).expect("kept");
    assert!(Arc::ptr_eq(&built, &again));
    let stats = cache.stats();
    assert_eq!((stats.prepared_builds, stats.prepared_hits), (1, 1));
    assert_eq!(stats.prepared_bytes, built.memory_bytes() as u64);
}

#[test]
fn zero_bytes_prepares_nothing() {
    let s = signer(Curve::P256);
    let mut cache = cache(PreparedKeyPolicy::OFF, &[Arc::clone(&s)]);
    for _ in 0..50 {
        assert!(cache.prepared_key(&s, NOW).is_none());
    }
    assert_eq!(cache.stats().prepared_builds, 0);
    assert_eq!(cache.stats().prepared_bytes, 0);
}

#[test]
fn a_certificate_not_cached_under_its_name_gets_no_key() {
    let cached = signer(Curve::P256);
    let stranger = signer(Curve::P256);
    let policy = PreparedKeyPolicy {
        max_bytes: 1 << 20,
        after: 0,
    };
    let mut cache = cache(policy, &[cached]);
    assert!(cache.prepared_key(&stranger, NOW).is_none());
    assert_eq!(cache.stats().prepared_builds, 0);
}

#[test]
fn the_bound_holds_and_the_least_recently_used_idle_key_goes_first() {
    let size = p256_bytes();
    let signers: Vec<_> = (0..5).map(|_| signer(Curve::P256)).collect();
    let policy = PreparedKeyPolicy {
        max_bytes: 2 * size + size / 2,
        after: 0,
    };
    let mut cache = cache(policy, &signers);
    let mut clock = NOW;
    for s in &signers {
        assert!(cache.prepared_key(s, later(&mut clock)).is_some());
        assert!(cache.stats().prepared_bytes as usize <= policy.max_bytes);
    }
    let stats = cache.stats();
    assert_eq!(stats.prepared_builds, 5);
    assert_eq!(stats.prepared_evictions, 3);
    assert_eq!(stats.prepared_bytes as usize, 2 * size);
    // The last two are kept (hits); the first was dropped and must be counted again.
    assert!(cache.prepared_key(&signers[4], clock).is_some());
    assert!(cache.prepared_key(&signers[3], clock).is_some());
    assert_eq!(cache.stats().prepared_hits, 2);
    // Dropped once: built at its second use from now, once the others are idle.
    assert!(cache.prepared_key(&signers[0], later(&mut clock)).is_none());
    assert!(cache.prepared_key(&signers[0], clock).is_some());
    assert_eq!(cache.stats().prepared_builds, 6);
    // A certificate that leaves the cache takes its key's bytes with it.
    cache.clear();
    assert_eq!(cache.stats().prepared_bytes, 0);
}

#[test]
fn keys_in_use_are_not_dropped_for_new_ones() {
    let size = p256_bytes();
    let signers: Vec<_> = (0..3).map(|_| signer(Curve::P256)).collect();
    let policy = PreparedKeyPolicy {
        max_bytes: 2 * size,
        after: 0,
    };
    let mut cache = cache(policy, &signers);
    // Three signers in turn, all busy: the two keys that fit stay, the third is not built.
    for _ in 0..10 {
        for s in &signers {
            cache.prepared_key(s, NOW);
        }
    }
    let stats = cache.stats();
    assert_eq!((stats.prepared_builds, stats.prepared_evictions), (2, 0));
    assert_eq!(stats.prepared_hits, 18);
    // Once the first has been idle a second, the third takes its place.
    let idle = NOW.plus_micros(1_000_001);
    assert!(cache.prepared_key(&signers[1], idle).is_some());
    assert!(cache.prepared_key(&signers[2], idle).is_some());
    assert_eq!(cache.stats().prepared_evictions, 1);
}

#[test]
fn a_dropped_key_needs_twice_the_uses_before_it_is_prepared_again() {
    let size = p256_bytes();
    let (a, b) = (signer(Curve::P256), signer(Curve::P256));
    let policy = PreparedKeyPolicy {
        max_bytes: size,
        after: 2,
    };
    let mut cache = cache(policy, &[Arc::clone(&a), Arc::clone(&b)]);
    let mut clock = NOW;
    let mut prepare = |cache: &mut CertCache, s: &Arc<ValidatedCert>| {
        (1..).find(|_| cache.prepared_key(s, later(&mut clock)).is_some())
    };
    assert_eq!(prepare(&mut cache, &a), Some(3));
    assert_eq!(prepare(&mut cache, &b), Some(3), "a is dropped for b");
    assert_eq!(
        prepare(&mut cache, &a),
        Some(6),
        "twice the uses after a drop"
    );
    assert_eq!(prepare(&mut cache, &b), Some(6));
    assert_eq!(prepare(&mut cache, &a), Some(12));
    assert_eq!(cache.stats().prepared_evictions, 4);
}

#[test]
fn a_key_larger_than_the_bound_is_not_kept() {
    let s = signer(Curve::P384);
    let policy = PreparedKeyPolicy {
        max_bytes: p256_bytes(),
        after: 0,
    };
    let mut cache = cache(policy, &[Arc::clone(&s)]);
    assert!(cache.prepared_key(&s, NOW).is_none());
    assert_eq!(cache.stats().prepared_bytes, 0);
    // Its size known now, it is not built again.
    for _ in 0..4 {
        assert!(cache.prepared_key(&s, NOW).is_none());
    }
    assert_eq!(cache.stats().prepared_builds, 1);
}
