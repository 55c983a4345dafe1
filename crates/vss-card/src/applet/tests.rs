use super::*;
use crate::params::encode_system_parameters;
use crate::state::StateFile;
use vss_cred::group::{g1_nonzero_from_bytes, hash_to_curve_g1, random_scalar};
use vss_cred::holder::scope_base;

const SELECT: [u8; 13] = [
    0x00, 0xA4, 0x04, 0x00, 0x08, 0xF0, 0x56, 0x53, 0x53, 0x43, 0x52, 0x45, 0x44,
];

fn sw(response: &[u8]) -> u16 {
    let n = response.len();
    u16::from_be_bytes([response[n - 2], response[n - 1]])
}

fn apdu(cla: u8, ins: u8, p1: u8, p2: u8, data: &[u8]) -> Vec<u8> {
    apdu_le(cla, ins, p1, p2, data, None)
}

fn apdu_le(cla: u8, ins: u8, p1: u8, p2: u8, data: &[u8], le: Option<usize>) -> Vec<u8> {
    Command {
        cla,
        ins,
        p1,
        p2,
        data: data.to_vec(),
        le,
    }
    .to_bytes()
    .expect("fits")
}

fn initialize_data(pin: &[u8], puk: &[u8]) -> Vec<u8> {
    [&[pin.len() as u8][..], pin, puk].concat()
}

fn verify(a: &mut Applet, pin: &[u8]) -> u16 {
    sw(&a.process(&apdu(0x00, INS_VERIFY, 0, PIN_REFERENCE, pin)))
}

fn base() -> G1 {
    hash_to_curve_g1(b"base", b"VSS-CARD-TEST")
}

/// A selected, initialized card with PIN 1234 and PUK 12345678.
fn initialized(a: &mut Applet) {
    assert_eq!(sw(&a.process(&SELECT)), 0x9000);
    let init = apdu(
        0x80,
        INS_INITIALIZE,
        0,
        0,
        &initialize_data(b"1234", b"12345678"),
    );
    assert_eq!(sw(&a.process(&init)), 0x9000);
}

/// Initialized, PIN verified and system parameters stored.
fn ready() -> Applet {
    let mut a = Applet::volatile();
    initialized(&mut a);
    assert_eq!(verify(&mut a, b"1234"), 0x9000);
    let params = encode_system_parameters(&base(), b"rest");
    let put = apdu(0x00, INS_PUT_DATA, 0x01, 0x01, &params);
    assert_eq!(sw(&a.process(&put)), 0x9000);
    a
}

fn public_point(a: &mut Applet) -> G1 {
    let r = a.process(&[0x80, INS_GET_PUBLIC_POINT, 0, 0, 48]);
    assert_eq!(sw(&r), 0x9000);
    g1_nonzero_from_bytes(&r[..48]).expect("P")
}

#[test]
fn select_needs_the_aid_and_everything_else_needs_select() {
    let mut a = Applet::volatile();
    assert_eq!(sw(&a.process(&[0x00, INS_VERIFY, 0, 0x81])), 0x6985);
    assert_eq!(
        sw(&a.process(&apdu(0, INS_SELECT, 4, 0, &[0xA0, 0, 0]))),
        0x6A82
    );
    assert_eq!(
        sw(&a.process(&apdu(0, INS_SELECT, 1, 0, &crate::AID))),
        0x6A86
    );
    let mut with_le = SELECT.to_vec();
    with_le.push(0);
    assert_eq!(a.process(&with_le), [0x90, 0x00]);
    a.reset();
    assert_eq!(
        sw(&a.process(&[0x80, INS_GET_PUBLIC_POINT, 0, 0, 48])),
        0x6985
    );
}

#[test]
fn wrong_class_unknown_instruction_and_malformed_apdus_get_their_status_words() {
    let mut a = Applet::volatile();
    a.process(&SELECT);
    assert_eq!(sw(&a.process(&[0x00, 0xB0, 0, 0])), 0x6D00);
    assert_eq!(sw(&a.process(&[0x80, 0xB0, 0, 0])), 0x6D00);
    assert_eq!(sw(&a.process(&[0x80, INS_VERIFY, 0, 0x81])), 0x6E00);
    assert_eq!(sw(&a.process(&[0x00, INS_COMMIT, 0, 0])), 0x6E00);
    assert_eq!(sw(&a.process(&[0x0C, INS_SELECT, 4, 0])), 0x6E00);
    for bad in [
        &[][..],
        &[0x00],
        &[0x00, 0xA4, 0x04],
        &[0x00, 0xA4, 0x04, 0x00, 0x08, 0xF0],
        &[0x00, 0xA4, 0x04, 0x00, 0x00, 0x00, 0x08, 0xF0],
        &[0x00, 0xA4, 0x04, 0x00, 0x00, 0x00],
    ] {
        assert_eq!(a.process(bad), [0x67, 0x00], "{bad:02x?}");
    }
    // An extended-length SELECT is a SELECT.
    let extended = [&[0x00, 0xA4, 0x04, 0x00, 0x00, 0x00, 0x08][..], &crate::AID].concat();
    assert_eq!(a.process(&extended), [0x90, 0x00]);
}

#[test]
fn no_input_panics() {
    // Every short command of up to 7 bytes with the interesting header bytes, and every
    // prefix of the real commands.
    let mut a = ready();
    let heads = [0x00u8, 0x80, 0xFF];
    let inss = [
        INS_SELECT,
        INS_VERIFY,
        INS_RESET_RETRY_COUNTER,
        INS_PUT_DATA,
        INS_GET_DATA,
        INS_INITIALIZE,
        INS_GET_PUBLIC_POINT,
        INS_COMMIT,
        INS_RESPOND,
        0x00,
    ];
    for cla in heads {
        for ins in inss {
            for tail in [
                &[][..],
                &[0],
                &[1, 0],
                &[0, 0, 1, 7],
                &[2, 1, 1, 0],
                &[0xFF],
            ] {
                for p in [
                    [0u8, 0],
                    [0x01, 0x01],
                    [0x02, 0x0F],
                    [0xDF, 0x01],
                    [0, 0x81],
                ] {
                    let bytes = [&[cla, ins, p[0], p[1]][..], tail].concat();
                    assert!(a.process(&bytes).len() >= 2);
                }
            }
        }
    }
}

#[test]
fn initialize_once_with_valid_codes() {
    let mut a = Applet::volatile();
    a.process(&SELECT);
    assert_eq!(verify(&mut a, b"1234"), 0x6985);
    for bad in [
        initialize_data(b"123", b"12345678"),
        initialize_data(b"123456789", b"12345678"),
        initialize_data(b"12a4", b"12345678"),
        initialize_data(b"1234", b"1234567"),
        vec![4, b'1', b'2'],
    ] {
        let init = apdu(0x80, INS_INITIALIZE, 0, 0, &bad);
        assert_eq!(sw(&a.process(&init)), 0x6A80, "{bad:02x?}");
    }
    assert_eq!(sw(&a.process(&[0x80, INS_INITIALIZE, 0, 0])), 0x6A80);
    let init = apdu(
        0x80,
        INS_INITIALIZE,
        0,
        0,
        &initialize_data(b"12345678", b"87654321"),
    );
    assert_eq!(sw(&a.process(&init)), 0x9000);
    assert_eq!(sw(&a.process(&init)), 0x6985);
    assert_eq!(verify(&mut a, b"12345678"), 0x9000);
}

#[test]
fn three_wrong_pins_block_and_the_puk_unblocks() {
    let mut a = Applet::volatile();
    initialized(&mut a);
    assert_eq!(verify(&mut a, b""), 0x63C3);
    assert_eq!(verify(&mut a, b"0000"), 0x63C2);
    assert_eq!(verify(&mut a, b"1234"), 0x9000);
    assert_eq!(verify(&mut a, b""), 0x9000);
    assert_eq!(verify(&mut a, b"0000"), 0x63C2);
    assert_eq!(verify(&mut a, b""), 0x63C2);
    assert_eq!(verify(&mut a, b"0001"), 0x63C1);
    assert_eq!(verify(&mut a, b"0002"), 0x6983);
    assert_eq!(verify(&mut a, b"1234"), 0x6983);
    assert_eq!(verify(&mut a, b""), 0x6983);
    assert_eq!(verify(&mut a, b"12"), 0x6A80);

    let rrc = |puk: &[u8], pin: &[u8]| {
        apdu(
            0x00,
            INS_RESET_RETRY_COUNTER,
            0,
            PIN_REFERENCE,
            &[puk, pin].concat(),
        )
    };
    assert_eq!(sw(&a.process(&rrc(b"00000000", b"5678"))), 0x63C9);
    assert_eq!(sw(&a.process(&rrc(b"12345678", b"56"))), 0x6A80);
    assert_eq!(sw(&a.process(&rrc(b"1234567", b""))), 0x6A80);
    assert_eq!(sw(&a.process(&rrc(b"12345678", b"5678"))), 0x9000);
    assert_eq!(verify(&mut a, b""), 0x63C3);
    assert_eq!(verify(&mut a, b"1234"), 0x63C2);
    assert_eq!(verify(&mut a, b"5678"), 0x9000);

    for left in (1..PUK_TRIES).rev() {
        assert_eq!(
            sw(&a.process(&rrc(b"00000000", b"5678"))),
            0x63C0 | u16::from(left)
        );
    }
    assert_eq!(sw(&a.process(&rrc(b"00000000", b"5678"))), 0x6983);
    assert_eq!(sw(&a.process(&rrc(b"12345678", b"5678"))), 0x6983);
}

#[test]
fn counters_and_data_survive_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("card.state");
    let restart = || {
        let (file, state) = StateFile::open(&path).expect("state");
        Applet::new(state, Box::new(file)).expect("applet")
    };
    let p = {
        let mut a = restart();
        initialized(&mut a);
        assert_eq!(verify(&mut a, b"1234"), 0x9000);
        let params = encode_system_parameters(&base(), &[]);
        assert_eq!(
            sw(&a.process(&apdu(0, INS_PUT_DATA, 1, 1, &params))),
            0x9000
        );
        assert_eq!(
            sw(&a.process(&apdu(0, INS_PUT_DATA, 2, 5, b"cred"))),
            0x9000
        );
        let p = public_point(&mut a);
        assert_eq!(verify(&mut a, b"9999"), 0x63C2);
        p
    };
    let mut a = restart();
    a.process(&SELECT);
    assert_eq!(verify(&mut a, b""), 0x63C2);
    assert_eq!(verify(&mut a, b"9999"), 0x63C1);
    let mut a = restart();
    a.process(&SELECT);
    assert_eq!(verify(&mut a, b"1234"), 0x9000);
    assert_eq!(public_point(&mut a), p);
    assert_eq!(a.process(&[0, INS_GET_DATA, 2, 5, 0]), b"cred\x90\x00");
}

#[test]
fn put_and_get_data() {
    let mut a = Applet::volatile();
    initialized(&mut a);
    let params = encode_system_parameters(&base(), b"opaque");
    let put_params = apdu(0, INS_PUT_DATA, 1, 1, &params);
    assert_eq!(sw(&a.process(&put_params)), 0x6982);
    assert_eq!(sw(&a.process(&[0, INS_GET_DATA, 1, 1, 0])), 0x6A88);
    assert_eq!(sw(&a.process(&[0, INS_GET_DATA, 2, 0, 0])), 0x6982);
    let rss = a.process(&[0, INS_GET_DATA, 0xDF, 0x01, 4]);
    assert_eq!((rss.len(), sw(&rss)), (6, 0x9000));
    assert!(u32::from_be_bytes([rss[0], rss[1], rss[2], rss[3]]) > 0);

    assert_eq!(verify(&mut a, b"1234"), 0x9000);
    assert_eq!(sw(&a.process(&put_params)), 0x9000);
    assert_eq!(
        a.process(&[0, INS_GET_DATA, 1, 1, 0]),
        [&params[..], &[0x90, 0]].concat()
    );
    let mut bad = params.clone();
    bad[0] = 2;
    assert_eq!(sw(&a.process(&apdu(0, INS_PUT_DATA, 1, 1, &bad))), 0x6A80);
    let long = vec![1; MAX_SYSTEM_PARAMETERS + 1];
    assert_eq!(sw(&a.process(&apdu(0, INS_PUT_DATA, 1, 1, &long))), 0x6A84);

    assert_eq!(sw(&a.process(&[0, INS_GET_DATA, 2, 0x0F, 0])), 0x6A88);
    let blob = vec![0xAB; MAX_SLOT_LEN];
    assert_eq!(
        sw(&a.process(&apdu(0, INS_PUT_DATA, 2, 0x0F, &blob))),
        0x9000
    );
    let got = a.process(&[0, INS_GET_DATA, 2, 0x0F, 0, 0, 0]);
    assert_eq!(got, [&blob[..], &[0x90, 0]].concat());
    let too_long = vec![0xAB; MAX_SLOT_LEN + 1];
    assert_eq!(
        sw(&a.process(&apdu(0, INS_PUT_DATA, 2, 0, &too_long))),
        0x6A84
    );
    assert_eq!(sw(&a.process(&[0, INS_PUT_DATA, 2, 0x0F])), 0x9000);
    assert_eq!(sw(&a.process(&[0, INS_GET_DATA, 2, 0x0F, 0])), 0x6A88);
    assert_eq!(
        sw(&a.process(&apdu(0, INS_PUT_DATA, 2, 0x10, b"x"))),
        0x6A88
    );
    assert_eq!(sw(&a.process(&[0, INS_GET_DATA, 0x01, 0x02, 0])), 0x6A88);
    assert_eq!(sw(&a.process(&apdu(0, INS_GET_DATA, 1, 1, b"x"))), 0x6700);
}

#[test]
fn the_public_point_and_commitments_need_the_pin_and_the_parameters() {
    let mut a = Applet::volatile();
    initialized(&mut a);
    assert_eq!(
        sw(&a.process(&[0x80, INS_GET_PUBLIC_POINT, 0, 0, 48])),
        0x6982
    );
    assert_eq!(sw(&a.process(&[0x80, INS_COMMIT, 0, 0, 48])), 0x6982);
    assert_eq!(verify(&mut a, b"1234"), 0x9000);
    assert_eq!(
        sw(&a.process(&[0x80, INS_GET_PUBLIC_POINT, 0, 0, 48])),
        0x6985
    );
    assert_eq!(sw(&a.process(&[0x80, INS_COMMIT, 0, 0, 48])), 0x6985);
    assert_eq!(
        sw(&a.process(&[0x80, INS_GET_PUBLIC_POINT, 1, 0, 48])),
        0x6A86
    );
}

#[test]
fn card_shares_satisfy_the_schnorr_equations_once_per_commitment() {
    let mut a = ready();
    let p = public_point(&mut a);
    let c = random_scalar();
    let respond = apdu_le(0x80, INS_RESPOND, 0, 0, &scalar_to_bytes(&c), Some(32));
    assert_eq!(sw(&a.process(&respond)), 0x6985);

    let com = a.process(&apdu_le(0x80, INS_COMMIT, 0, 0, b"gate", Some(144)));
    assert_eq!((com.len(), sw(&com)), (3 * 48 + 2, 0x9000));
    let point = |i: usize| g1_nonzero_from_bytes(&com[48 * i..48 * (i + 1)]).expect("point");
    let (t, nym, t_nym) = (point(0), point(1), point(2));
    let r = a.process(&respond);
    assert_eq!(sw(&r), 0x9000);
    let s = scalar_from_bytes(&r[..32]).expect("s");
    assert_eq!(base() * s, t + p * c);
    assert_eq!(scope_base(b"gate") * s, t_nym + nym * c);
    assert_eq!(sw(&a.process(&respond)), 0x6985);

    let com = a.process(&[0x80, INS_COMMIT, 0, 0, 48]);
    assert_eq!((com.len(), sw(&com)), (48 + 2, 0x9000));
    let t = g1_nonzero_from_bytes(&com[..48]).expect("T");
    let r = a.process(&respond);
    let s = scalar_from_bytes(&r[..32]).expect("s");
    assert_eq!(base() * s, t + p * c);

    // A reset forgets the waiting commitment and the PIN.
    a.process(&[0x80, INS_COMMIT, 0, 0, 48]);
    a.reset();
    a.process(&SELECT);
    assert_eq!(sw(&a.process(&respond)), 0x6982);
    assert_eq!(verify(&mut a, b"1234"), 0x9000);
    assert_eq!(sw(&a.process(&respond)), 0x6985);

    let long_scope = vec![7; 256];
    assert_eq!(
        sw(&a.process(&apdu_le(0x80, INS_COMMIT, 0, 0, &long_scope, Some(144)))),
        0x6A80
    );
    assert_eq!(
        sw(&a.process(&apdu(0x80, INS_RESPOND, 0, 0, &[0; 31]))),
        0x6700
    );
    assert_eq!(
        sw(&a.process(&apdu_le(0x80, INS_RESPOND, 0, 0, &[0xFF; 32], Some(32)))),
        0x6A80
    );
}

#[test]
fn erase_needs_the_puk_and_returns_the_card_to_its_factory_state() {
    let mut a = ready();
    let p = public_point(&mut a);
    assert_eq!(
        sw(&a.process(&apdu(0x80, INS_ERASE, 0, 0, b"87654321"))),
        0x63C9
    );
    assert_eq!(
        sw(&a.process(&apdu(0x80, INS_ERASE, 0, 0, b"1234"))),
        0x6A80
    );
    assert_eq!(
        sw(&a.process(&apdu(0x80, INS_ERASE, 0, 0, b"12345678"))),
        0x9000
    );
    assert_eq!(verify(&mut a, b"1234"), 0x6985, "no PIN after erase");
    initialized(&mut a);
    assert_eq!(verify(&mut a, b"1234"), 0x9000);
    let params = encode_system_parameters(&base(), b"");
    assert_eq!(
        sw(&a.process(&apdu(0x00, INS_PUT_DATA, 0x01, 0x01, &params))),
        0x9000
    );
    assert_ne!(public_point(&mut a), p, "a new secret");
}
