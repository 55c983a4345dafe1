//! Times out of range in signed data and certificates: each is a verdict, never a panic
//! (issue 18: a `generationTime` whose top byte is 0xFF made the validator panic while it
//! wrote its reason, which stopped `vss its verify` and `vss filter`).

mod common;

use std::sync::OnceLock;

use common::{forge, message, now, start, Pki};
use proptest::prelude::*;
use vss_crypto::Curve;
use vss_its::asn::{Duration, Time32, Time64, ValidityPeriod};
use vss_its::{encode_data, sign_data, Cert, ItsTime, Psid, SignerKind, Validator, Verdict};

/// The Time64 of the issue: top byte 0xFF.
const FORGED: u64 = 0xFF00_0000_0000_0000;

fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| Pki::new(Curve::P256, None))
}

fn time(micros: u64) -> ItsTime {
    ItsTime::from_time64(&Time64(micros))
}

/// A CAM signed by the AT (signer: its certificate) with these raw time fields.
fn signed(generation: Option<u64>, expiry: Option<u64>) -> Vec<u8> {
    let mut request = message(Psid::CAM, SignerKind::Certificate);
    request.generation_time = generation.map(time);
    request.expiry_time = expiry.map(time);
    let pki = pki();
    encode_data(&sign_data(&request, Some(&pki.at.cert), &pki.at.key).expect("sign"))
        .expect("encode")
}

fn verify(bytes: &[u8], at: ItsTime) -> vss_its::Report {
    let pki = pki();
    Validator::new(pki.trust(), 8).verify_data(bytes, std::slice::from_ref(&pki.aa.cert), at)
}

#[test]
fn a_generation_or_expiry_time_after_the_last_real_time_is_an_invalid_timestamp() {
    for micros in [FORGED, u64::MAX, ItsTime::LAST.micros() + 1] {
        for (bytes, field) in [
            (signed(Some(micros), None), "generation time"),
            (signed(Some(now().micros()), Some(micros)), "expiry time"),
            (signed(None, Some(micros)), "expiry time"),
        ] {
            for at in [now(), time(micros), time(u64::MAX), ItsTime::EPOCH] {
                let report = verify(&bytes, at);
                if at == now() {
                    assert_eq!(report.verdict, Verdict::InvalidTimestamp, "{report:?}");
                    assert!(report.reason.contains(field), "{report:?}");
                    assert!(report.reason.contains(&micros.to_string()), "{report:?}");
                    assert_eq!(report.signer, Some(pki().at.cert.hashed_id8()));
                } else {
                    // The chain is refused first, and its reason is written out.
                    assert!(
                        !report.is_valid() && !report.reason.is_empty(),
                        "{report:?}"
                    );
                }
            }
        }
    }
    // The last time RFC 3339 can write is a real one: the ticket had expired by then.
    let report = verify(&signed(Some(ItsTime::LAST.micros()), None), now());
    assert_eq!(report.verdict, Verdict::Expired, "{report:?}");
    assert!(report.reason.contains("9999-12-31T23:59:59Z"), "{report:?}");
}

#[test]
fn certificates_valid_up_to_the_limits_of_time32_and_duration_validate_or_are_refused() {
    let pki = pki();
    let longest = |start: u32| {
        forge(&pki.at.cert, &pki.aa, |tbs| {
            tbs.validity_period = ValidityPeriod {
                start: Time32(start),
                duration: Duration::Years(u16::MAX),
            }
        })
    };
    let mut validator = Validator::new(pki.trust(), 8);
    let chain = [pki.aa.cert.clone()];
    for cert in [longest(u32::MAX), longest(0)] {
        for at in [now(), time(FORGED), time(u64::MAX)] {
            let report = validator.verify_certificate(&cert, &chain, at);
            assert!(
                !report.is_valid() && !report.reason.is_empty(),
                "{report:?}"
            );
        }
    }
    // Starting at the end of Time32, the ticket is not valid yet; its end prints as a Time64.
    let report = validator.verify_certificate(&longest(u32::MAX), &chain, now());
    assert_eq!(report.verdict, Verdict::NotYetValid, "{report:?}");
    assert!(report.reason.contains("2140-02-07T06:28:10Z"), "{report:?}");
    assert!(longest(u32::MAX)
        .validity()
        .end
        .to_string()
        .starts_with("Time64 "));
}

/// A raw time: near the tests' clock, anywhere in Time64, or at a boundary.
fn any_time() -> impl Strategy<Value = u64> {
    let near = start().micros()..start().micros() + 400 * 3_600_000_000;
    prop_oneof![
        near,
        any::<u64>(),
        Just(FORGED),
        Just(u64::MAX),
        Just(ItsTime::LAST.micros()),
        Just(ItsTime::LAST.micros() + 1),
        Just(0),
    ]
}

/// What the validator must answer for a message with these times, checked at `at`, signed
/// by the AT (valid for a week from `start`, its issuers for years).
fn expected(generation: Option<u64>, expiry: Option<u64>, at: u64) -> Verdict {
    let (start, end) = (start().micros(), pki().at.cert.validity().end.micros());
    let last = ItsTime::LAST.micros();
    if at < start {
        return Verdict::NotYetValid;
    }
    if at >= end {
        return Verdict::Expired;
    }
    if generation.is_some_and(|g| g > last) || expiry.is_some_and(|e| e > last) {
        return Verdict::InvalidTimestamp;
    }
    if let Some(g) = generation {
        if g >= end {
            return Verdict::Expired;
        }
        if g < start || g > at.saturating_add(5_000_000) {
            return Verdict::NotYetValid;
        }
        if expiry.is_some_and(|e| e <= g) {
            return Verdict::Malformed;
        }
    }
    if expiry.is_some_and(|e| e <= at) {
        return Verdict::Expired;
    }
    Verdict::Valid
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any generation time, expiry time and clock: the verdict the rules give, whose reason
    /// is written out, by both the one-call and the two-phase validator.
    #[test]
    fn any_time_fields_get_the_expected_verdict(
        generation in proptest::option::of(any_time()),
        expiry in proptest::option::of(any_time()),
        at in any_time(),
    ) {
        let bytes = signed(generation, expiry);
        let report = verify(&bytes, time(at));
        prop_assert_eq!(report.verdict, expected(generation, expiry, at), "{:?}", report);
        prop_assert_eq!(report.is_valid(), report.reason.is_empty());
        let pki = pki();
        let message = vss_its::SignedMessage::from_bytes(&bytes).expect("decodes");
        let two_phase = Validator::new(pki.trust(), 8)
            .prepare_message(&message, std::slice::from_ref(&pki.aa.cert), time(at))
            .complete();
        prop_assert_eq!(two_phase, report);
    }

    /// Any Time32 start and Duration in the signer's certificate: a verdict with a reason.
    #[test]
    fn any_certificate_validity_gets_a_verdict(
        start in any::<u32>(),
        years in any::<u16>(),
        at in any_time(),
    ) {
        let pki = pki();
        let cert: Cert = forge(&pki.at.cert, &pki.aa, |tbs| {
            tbs.validity_period = ValidityPeriod { start: Time32(start), duration: Duration::Years(years) }
        });
        let report = Validator::new(pki.trust(), 8)
            .verify_certificate(&cert, std::slice::from_ref(&pki.aa.cert), time(at));
        prop_assert_eq!(report.is_valid(), report.reason.is_empty());
        let validity = cert.validity();
        if report.is_valid() {
            prop_assert!(validity.contains(time(at)));
        }
        let _ = (validity.start.to_string(), validity.end.to_string());
    }
}
