//! `Le` as ISO/IEC 7816-4 has it, on the software card: at most `Ne` bytes answered, `6C xx`
//! with the exact length where the answer is longer (`67 00` past 256), and the command then
//! not carried out.

use vss_card::applet::{Applet, TAG_FIRST_SLOT, TAG_PEAK_RSS, TAG_SYSTEM_PARAMETERS};
use vss_card::client::CardClient;
use vss_card::{Command, Response, StatusWord, MAX_LE};
use vss_cred::group::{
    hash_to_curve_g1, random_scalar, scalar_from_bytes, scalar_to_bytes, G1, G1_LEN, SCALAR_LEN,
};
use vss_cred::holder::SecretHolder;

/// The base point of the system parameters.
fn base() -> G1 {
    hash_to_curve_g1(b"base", b"VSS-CARD-LE-TEST")
}

/// A card with its PIN verified and system parameters stored.
fn ready() -> CardClient<Applet> {
    let mut card = CardClient::new(Applet::volatile());
    card.select().expect("select");
    card.initialize(b"1234", b"12345678").expect("initialize");
    card.verify_pin(b"1234").expect("verify");
    card.store_system_parameters(&base()).expect("parameters");
    card
}

fn command(cla: u8, ins: u8, tag: u16, data: &[u8], le: Option<usize>) -> Command {
    let [p1, p2] = tag.to_be_bytes();
    Command {
        cla,
        ins,
        p1,
        p2,
        data: data.to_vec(),
        le,
    }
}

fn get_data(card: &mut CardClient<Applet>, tag: u16, le: Option<usize>) -> Response {
    card.send(&command(0x00, 0xCA, tag, &[], le))
        .expect("answered")
}

/// The answer's data length and status word.
fn shape(r: &Response) -> (usize, StatusWord) {
    (r.data.len(), r.sw)
}

#[test]
fn an_answer_longer_than_le_is_6cxx_with_its_length() {
    let mut card = ready();
    let ok = StatusWord::OK;
    // GET DATA DF01 (4 bytes): Le absent, 01, 03 refused with the length; 04, 00, 00 00 00.
    for le in [None, Some(1), Some(3)] {
        let r = get_data(&mut card, TAG_PEAK_RSS, le);
        assert_eq!(shape(&r), (0, StatusWord(0x6C04)), "{le:?}");
    }
    for le in [Some(4), Some(256), Some(MAX_LE)] {
        assert_eq!(
            shape(&get_data(&mut card, TAG_PEAK_RSS, le)),
            (4, ok),
            "{le:?}"
        );
    }
    // The system parameters: 49 bytes.
    let r = get_data(&mut card, TAG_SYSTEM_PARAMETERS, Some(48));
    assert_eq!(shape(&r), (0, StatusWord(0x6C31)));
    // A 256-byte slot: 6C 00 stands for 256; a longer one cannot say its length: 67 00.
    card.put_data(TAG_FIRST_SLOT, &[7; 256]).expect("put");
    assert_eq!(
        shape(&get_data(&mut card, TAG_FIRST_SLOT, Some(255))),
        (0, StatusWord(0x6C00))
    );
    assert_eq!(
        shape(&get_data(&mut card, TAG_FIRST_SLOT, Some(256))),
        (256, ok)
    );
    card.put_data(TAG_FIRST_SLOT + 1, &[7; 4096]).expect("put");
    for le in [Some(256), Some(4095)] {
        let r = get_data(&mut card, TAG_FIRST_SLOT + 1, le);
        assert_eq!(shape(&r), (0, StatusWord::WRONG_LENGTH), "{le:?}");
    }
    let r = get_data(&mut card, TAG_FIRST_SLOT + 1, Some(4096));
    assert_eq!(shape(&r), (4096, ok));
}

#[test]
fn commit_and_respond_check_le_before_touching_the_commitment() {
    let mut card = ready();
    let p = card.public_point().expect("P");
    let commit = |le| command(0x80, 0x14, 0, &[], le);
    let c = random_scalar();
    let respond = |le| command(0x80, 0x16, 0, &scalar_to_bytes(&c), le);
    // A COMMIT refused for its Le makes no commitment.
    let r = card.send(&commit(Some(G1_LEN - 1))).expect("answered");
    assert_eq!(shape(&r), (0, StatusWord(0x6C30)));
    let r = card.send(&respond(Some(SCALAR_LEN))).expect("answered");
    assert_eq!(r.sw, StatusWord::CONDITIONS_NOT_SATISFIED);
    // A RESPOND refused for its Le leaves the commitment waiting.
    let t = card.send(&commit(Some(G1_LEN))).expect("answered");
    assert_eq!(shape(&t), (G1_LEN, StatusWord::OK));
    let r = card.send(&respond(None)).expect("answered");
    assert_eq!(shape(&r), (0, StatusWord(0x6C20)));
    let r = card.send(&respond(Some(SCALAR_LEN))).expect("answered");
    assert_eq!(shape(&r), (SCALAR_LEN, StatusWord::OK));
    let s = scalar_from_bytes(&r.data).expect("s");
    let t = vss_cred::group::g1_nonzero_from_bytes(&t.data).expect("T");
    assert_eq!(base() * s, t + p * c);
}
