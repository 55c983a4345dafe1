use rasn::types::{FixedOctetString, Integer};
use rasn_its::ieee1609dot2::base_types::{
    EccP256CurvePoint, HashedId8, Psid, PsidSsp, PublicVerificationKey, SequenceOfPsidSsp,
};
use rasn_its::ieee1609dot2::{Ieee1609Dot2Content, Ieee1609Dot2Data};

use super::*;

fn key(byte: u8) -> PublicVerificationKey {
    PublicVerificationKey::EcdsaNistP256(EccP256CurvePoint::CompressedY0(FixedOctetString::new(
        [byte; 32],
    )))
}

fn attributes() -> CertificateSubjectAttributes {
    CertificateSubjectAttributes::with_app_permissions(SequenceOfPsidSsp(vec![
        PsidSsp {
            psid: Psid(Integer::from(36)),
            ssp: None,
        },
        PsidSsp {
            psid: Psid(Integer::from(37)),
            ssp: None,
        },
    ]))
}

fn unsecured(bytes: &[u8]) -> Ieee1609Dot2Data {
    Ieee1609Dot2Data {
        protocol_version: Ieee1609Dot2Data::VERSION,
        content: Ieee1609Dot2Content::UnsecuredData(
            rasn::types::OctetString::from_slice(bytes).into(),
        ),
    }
}

fn round_trip(data: &EtsiTs102941Data) -> Vec<u8> {
    let bytes = encode("EtsiTs102941Data", data).expect("encode");
    let back: EtsiTs102941Data = decode("EtsiTs102941Data", &bytes).expect("decode");
    assert_eq!(&back, data);
    assert_eq!(encode("EtsiTs102941Data", &back).expect("encode"), bytes);
    bytes
}

#[test]
fn an_enrolment_response_has_the_bytes_the_asn1_gives() {
    // EtsiTs102941Data: version (1..1, one octet) 01; content CHOICE alternative [1]
    // (context class 0b10, tag 1) 81; InnerEcResponse: preamble (extension bit 0,
    // certificate absent) 00, requestHash 16 octets, responseCode unknownits (6) 06.
    let response = InnerEcResponse::new([0xAA; 16], EnrolmentResponseCode::UnknownIts, None);
    let data = EtsiTs102941Data::new(EtsiTs102941DataContent::EnrolmentResponse(Box::new(
        response,
    )));
    let mut want = vec![0x01, 0x81, 0x00];
    want.extend([0xAA; 16]);
    want.push(0x06);
    assert_eq!(round_trip(&data), want);
}

#[test]
fn every_message_round_trips() {
    let public_keys = PublicKeys {
        verification_key: key(7),
        encryption_key: None,
    };
    let ec_request = InnerEcRequest::new(b"station-1", public_keys.clone(), attributes());
    let signed_for_pop = unsecured(&encode("InnerEcRequest", &ec_request).expect("encode"));
    let shared = SharedAtRequest::new(
        HashedId8(FixedOctetString::new([3; 8])),
        [4; 16],
        attributes(),
    );
    let at_request = InnerAtRequest::new(
        public_keys,
        [5; 32],
        shared.clone(),
        EcSignature::EcSignature(unsecured(b"ec signature")),
    );
    for content in [
        EtsiTs102941DataContent::EnrolmentRequest(Box::new(signed_for_pop)),
        EtsiTs102941DataContent::AuthorizationRequest(Box::new(at_request)),
        EtsiTs102941DataContent::AuthorizationResponse(Box::new(InnerAtResponse::new(
            [1; 16],
            AuthorizationResponseCode::ItsAaUnknownEa,
            None,
        ))),
        EtsiTs102941DataContent::AuthorizationValidationRequest(Box::new(
            AuthorizationValidationRequest::new(
                shared,
                EcSignature::EncryptedEcSignature(unsecured(b"encrypted")),
            ),
        )),
        EtsiTs102941DataContent::AuthorizationValidationResponse(Box::new(
            AuthorizationValidationResponse::new(
                [2; 16],
                AuthorizationValidationResponseCode::Ok,
                Some(attributes()),
            ),
        )),
    ] {
        round_trip(&EtsiTs102941Data::new(content));
    }
    let request: InnerEcRequest = decode(
        "InnerEcRequest",
        &encode("InnerEcRequest", &ec_request).expect("encode"),
    )
    .expect("decode");
    assert_eq!(request.its_id.as_ref(), b"station-1");
    assert_eq!(request.certificate_format, TS103097V131);
}

#[test]
fn trailing_truncated_and_oversized_input_is_malformed() {
    let data = EtsiTs102941Data::new(EtsiTs102941DataContent::AuthorizationResponse(Box::new(
        InnerAtResponse::new([1; 16], AuthorizationResponseCode::Ok, None),
    )));
    let bytes = round_trip(&data);
    let mut trailing = bytes.clone();
    trailing.push(0);
    for bad in [&trailing[..], &bytes[..bytes.len() - 1], &[0x02, 0x81][..]] {
        assert!(
            matches!(
                decode::<EtsiTs102941Data>("EtsiTs102941Data", bad),
                Err(Error::Malformed { .. })
            ),
            "{bad:02x?}"
        );
    }
    let huge = vec![0; MAX_MESSAGE_LEN + 1];
    assert!(matches!(
        decode::<EtsiTs102941Data>("EtsiTs102941Data", &huge),
        Err(Error::Malformed { .. })
    ));
    // An alternative VSS does not implement (certificateRevocationList, [4]).
    assert!(decode::<EtsiTs102941Data>("EtsiTs102941Data", &[0x01, 0x84, 0x00]).is_err());
}

#[test]
fn the_v2_extension_alternatives_are_named_by_their_tags_and_refused() {
    // X.696 20: an extension addition is its tag, then its value as an open type (length,
    // encoding). butterflyAuthorizationRequest is [13], 8D; linkCertificateTlm [10], 8A.
    let butterfly = [0x01, 0x8D, 0x03, 0xAA, 0xBB, 0xCC];
    assert_eq!(
        extension_alternative(&butterfly),
        Some("butterflyAuthorizationRequest")
    );
    let e = decode_data(&butterfly).expect_err("not implemented");
    assert!(
        matches!(
            e,
            Error::UnsupportedContent {
                content: "butterflyAuthorizationRequest"
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("not part of the EU C-ITS profile"),
        "{e}"
    );
    let link = [0x01, 0x8A, 0x01, 0x00];
    let e = decode_data(&link).expect_err("not implemented");
    assert_eq!(
        e.to_string(),
        "linkCertificateTlm (TS 102 941 V2.x) is not implemented"
    );
    assert_eq!(
        extension_alternative(&[0x01, 0x92, 0x00]),
        Some("butterflyAtDownloadRequest")
    );
    // Past V2.2.1's last alternative, a root alternative, or no envelope at all: malformed.
    for other in [
        &[0x01, 0x93, 0x01, 0x00][..],
        &[0x01, 0x81, 0x00],
        &[0x02, 0x8D],
        &[],
    ] {
        assert_eq!(extension_alternative(other), None, "{other:02x?}");
        assert!(
            matches!(decode_data(other), Err(Error::Malformed { .. })),
            "{other:02x?}"
        );
    }
}

#[test]
fn a_ca_certificate_request_is_the_root_alternative_9() {
    let request = CaCertificateRequest {
        public_keys: PublicKeys {
            verification_key: key(0x11),
            encryption_key: None,
        },
        requested_subject_attributes: attributes(),
    };
    let data = EtsiTs102941Data::new(EtsiTs102941DataContent::CaCertificateRequest(Box::new(
        request,
    )));
    let bytes = round_trip(&data);
    assert_eq!(&bytes[..2], [0x01, 0x89]);
    assert_eq!(data.content.name(), "caCertificateRequest");
}
