//! `init`: a root CA, an EA and an AA with their keys in a real soft HSM, the certificates
//! in the PKI directory, each validating up to the root.

use vss_crypto::Curve;
use vss_hsm::{Hsm, SoftHsm};
use vss_its::{ItsTime, TrustAnchors, Validator, Verdict};
use vss_pki::authority::{init, labels, InitRequest, PeerPki, PkiDir};
use vss_pki::store::Role;

#[test]
fn init_makes_three_authorities_that_validate_to_the_root() {
    for curve in [Curve::P256, Curve::Bp384] {
        let dir = tempfile::tempdir().expect("tempdir");
        let pki = PkiDir::new(dir.path());
        SoftHsm::init(&pki.keys(), "1234", "12345678").expect("hsm");
        let hsm = SoftHsm::open(&pki.keys(), "1234").expect("open");
        let mut request = InitRequest::new("alpha");
        request.curve = curve;
        let made = init(&pki, &hsm, &request).expect("init");
        for role in [Role::Root, Role::Ea, Role::Aa] {
            assert!(pki.cert_path(role).exists(), "{role}");
        }
        assert_eq!(pki.cert(Role::Ea).expect("read"), made.ea);
        let mut trust = TrustAnchors::new();
        trust.add(made.root.clone()).expect("anchor");
        let mut validator = Validator::new(trust, 8);
        let now = ItsTime::now().plus_micros(60_000_000);
        for cert in [&made.ea, &made.aa] {
            let report = validator.verify_certificate(cert, &[], now);
            assert_eq!(report.verdict, Verdict::Valid, "{curve}: {}", report.reason);
            assert!(cert.tbs().encryption_key.is_some());
        }
        for label in [
            labels::ROOT,
            labels::EA,
            labels::EA_ENCRYPTION,
            labels::AA,
            labels::AA_ENCRYPTION,
        ] {
            hsm.key(label).expect("key in the HSM");
        }
        // A name that is no label is refused before anything is made.
        let empty = PkiDir::new(&dir.path().join("other"));
        for name in ["", "a\u{1b}[2Jb", "a/b"] {
            assert!(matches!(
                init(&empty, &hsm, &InitRequest::new(name)),
                Err(vss_pki::Error::InvalidRequest(_))
            ));
        }
        // Nor is a trusted PKI added where there is no PKI.
        let trusted = PeerPki {
            name: "other".into(),
            ea: made.ea.clone(),
            root: made.root.clone(),
            ea_url: "http://127.0.0.1:9".into(),
        };
        assert!(matches!(
            empty.add_peer(&trusted),
            Err(vss_pki::Error::NotAPkiDir { .. })
        ));
        assert!(!empty.path().exists());
        // A second init in the same directory is refused and changes nothing.
        let before = std::fs::read(pki.cert_path(Role::Root)).expect("read");
        assert!(matches!(
            init(&pki, &hsm, &request),
            Err(vss_pki::Error::InvalidRequest(_))
        ));
        assert_eq!(
            std::fs::read(pki.cert_path(Role::Root)).expect("read"),
            before
        );
    }
}
