//! The IoT smart card of seed 003 (issue 21): the card that holds a credential user's secret
//! and computes its share of every proof, reached by ISO/IEC 7816-4 APDUs over PC/SC (vpcd)
//! or TCP.
//!
//! - [`apdu`]: command and response APDUs in short and extended length, the status words.
//! - [`applet`]: the card application, a state machine from command to response bytes.
//! - [`state`]: its state in one file encrypted at rest.
//! - [`vpcd`] and [`tcp`]: the card's transports, [`frame`] their framing.
//! - [`channel`] and [`client`]: the user service's side, [`client::CardClient`] over any
//!   [`channel::CardChannel`] as a [`vss_cred::holder::SecretHolder`].

pub mod apdu;
pub mod applet;
pub mod channel;
pub mod client;
pub mod codes;
pub mod connect;
pub mod frame;
pub mod params;
#[cfg(feature = "pcsc")]
pub mod pcsc;
pub mod process;
pub mod rss;
pub mod state;
pub mod tcp;
pub mod vpcd;

pub use apdu::{ApduError, Command, Response, StatusWord, MAX_DATA, MAX_LE};

/// The card application's identifier (ISO/IEC 7816-5 proprietary AID): `F0 56 53 53 43 52
/// 45 44`, "VSSCRED" after the proprietary marker.
pub const AID: [u8; 8] = [0xF0, 0x56, 0x53, 0x53, 0x43, 0x52, 0x45, 0x44];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_aid_is_proprietary_and_names_the_application() {
        assert_eq!(AID[0], 0xF0);
        assert_eq!(&AID[1..], b"VSSCRED");
        let select = Command {
            cla: 0x00,
            ins: 0xA4,
            p1: 0x04,
            p2: 0x00,
            data: AID.to_vec(),
            le: Some(256),
        };
        assert_eq!(
            select.to_bytes(),
            Some(vec![
                0x00, 0xA4, 0x04, 0x00, 0x08, 0xF0, 0x56, 0x53, 0x53, 0x43, 0x52, 0x45, 0x44, 0x00
            ])
        );
    }
}
