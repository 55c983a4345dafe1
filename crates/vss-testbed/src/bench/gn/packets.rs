//! The packets of the GeoNetworking bench: single-hop CAMs (Common Header, SHB header, BTP-B
//! to port 2001, a CAM-sized payload ending in the packet's number), each signed by a ticket
//! of the bench PKI. `vss filter` gets the 1609.2 messages, the bridge the same messages in
//! secured GN frames from the radio; the bridge signs the unsecured frames of its stack.

use anyhow::{anyhow, Result};
use vss_core::gn_bridge::{frame, Frame, Mac};
use vss_gn::{
    BasicHeader, BtpHeader, CommonHeader, CommonNextHeader, ExtendedHeader, GnAddress, GnPacket,
    Lifetime, LongPositionVector, TrafficClass, Unsecured, FLAG_MOBILE,
};
use vss_its::{ItsTime, SignedMessage, SignerKind};

use crate::bench::ticket_pki::Pki;

/// The stack's MAC (locally administered).
pub(super) const STACK_MAC: Mac = Mac([0x02, 0, 0, 0, 0x5a, 0x01]);
/// The bridge's MAC on the stack's side.
pub(super) const STACK_SIDE_MAC: Mac = Mac([0x02, 0, 0, 0, 0x5a, 0x02]);
/// The bridge's MAC on the radio's side (before its pseudonym's).
pub(super) const RADIO_MAC: Mac = Mac([0x02, 0, 0, 0, 0x5a, 0x03]);

/// The BTP port of CAMs (ITS-AID 36).
const CAM_PORT: u16 = 2001;
/// The facilities payload before the number: a small CAM's size (ETSI EN 302 637-2's
/// basic container and high-frequency container take about 40 bytes).
const CAM_BODY: usize = 40;
/// ITS-S station type 5: passenger car.
const PASSENGER_CAR: u8 = 5;
/// Single hop: the Basic Header's remaining hop limit and the Common Header's maximum.
const ONE_HOP: u8 = 1;

/// The unsecured CAM packet number `i` (Common Header on) from the station `mac`.
fn cam(i: usize, mac: Mac) -> Unsecured {
    let mut payload = BtpHeader::B {
        destination: CAM_PORT,
        destination_info: 0,
    }
    .to_bytes()
    .to_vec();
    payload.resize(BtpHeader::LEN + CAM_BODY, 0);
    payload.extend_from_slice(&(i as u64).to_be_bytes());
    Unsecured {
        common: CommonHeader {
            next_header: CommonNextHeader::BtpB,
            traffic_class: TrafficClass(2),
            flags: FLAG_MOBILE,
            max_hop_limit: ONE_HOP,
        },
        extended: ExtendedHeader::SingleHop {
            source: LongPositionVector {
                address: GnAddress::from_mac(mac.0, PASSENGER_CAR),
                timestamp: i as u32,
                latitude: 490_126_000,
                longitude: 84_044_000,
                accurate: true,
                speed: 1_389,
                heading: 900,
            },
            media_dependent: [0; 4],
        },
        payload,
    }
}

/// A single-hop packet's Basic Header.
fn basic() -> BasicHeader {
    BasicHeader {
        lifetime: Lifetime::from_millis(1_000),
        remaining_hop_limit: ONE_HOP,
    }
}

/// The number a packet's (or a frame's) bytes end with.
pub(super) fn number(bytes: &[u8]) -> Option<usize> {
    let tail = bytes.get(bytes.len().checked_sub(8)?..)?;
    usize::try_from(u64::from_be_bytes(tail.try_into().ok()?)).ok()
}

/// The number of the CAM a secured frame for the radio signs.
pub(super) fn signed_number(bytes: &[u8]) -> Option<usize> {
    let packet = Frame::parse(bytes)?.packet;
    let message = SignedMessage::from_bytes(packet.get(BasicHeader::LEN..)?).ok()?;
    number(message.payload()?)
}

/// The MAC of the bench PKI's signer `s` (and the MID of its GN address).
fn signer_mac(s: usize) -> Mac {
    let [.., a, b] = (s as u64).to_be_bytes();
    Mac([0x02, 0, 0, 0x10, a, b])
}

/// Every form of the bench's packets, numbered alike.
pub(super) struct Packets {
    /// 1609.2 signed messages (what `vss filter` gets): CAM `i` signed by ticket `i mod
    /// signers`, with its certificate for each signer's first, by digest after.
    pub(super) messages: Vec<Vec<u8>>,
    /// The same messages in secured GN frames from the radio (what the bridge verifies).
    pub(super) secured: Vec<Vec<u8>>,
    /// Unsecured CAM frames from the stack (what the bridge signs).
    pub(super) unsecured: Vec<Vec<u8>>,
}

impl Packets {
    /// `n` packets of each form from `pki`'s tickets, generated `now`.
    pub(super) fn sign(
        pki: &Pki,
        n: usize,
        now: ItsTime,
        bar: &indicatif::ProgressBar,
    ) -> Result<Packets> {
        let mut packets = Packets {
            messages: Vec::with_capacity(n),
            secured: Vec::with_capacity(n),
            unsecured: Vec::with_capacity(n),
        };
        let encoded = |packet: GnPacket| packet.encode().map_err(|e| anyhow!("a CAM: {e}"));
        for i in 0..n {
            let signer = i % pki.signers();
            let mac = signer_mac(signer);
            let body = cam(i, mac).encode().map_err(|e| anyhow!("a CAM: {e}"))?;
            let kind = if i < pki.signers() {
                SignerKind::Certificate
            } else {
                SignerKind::Digest
            };
            let message = pki.sign_payload(i, &body, kind, now)?;
            let secured = encoded(GnPacket::secured(basic(), message.clone()))?;
            packets.secured.push(frame(Mac::BROADCAST, mac, &secured));
            packets.messages.push(message);
            let unsecured = encoded(GnPacket::unsecured(basic(), cam(i, STACK_MAC))?)?;
            packets
                .unsecured
                .push(frame(Mac::BROADCAST, STACK_MAC, &unsecured));
            bar.inc(1);
        }
        Ok(packets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_crypto::Curve;
    use vss_gn::{Body, Limits};

    #[test]
    fn the_forms_of_a_packet_carry_the_same_numbered_cam() {
        let pki = crate::bench::ticket_pki::build_pki(Curve::P256, 2, ItsTime::now()).expect("pki");
        let packets = Packets::sign(&pki, 3, ItsTime::now(), &indicatif::ProgressBar::hidden())
            .expect("packets");
        for i in 0..3 {
            let message = SignedMessage::from_bytes(&packets.messages[i]).expect("signed");
            let payload = message.payload().expect("a payload");
            assert_eq!(number(payload), Some(i));
            let body = Unsecured::decode(payload, &Limits::default()).expect("a GN packet");
            assert_eq!(body.its_aid(), Some(36), "BTP port 2001: CAM");
            assert_eq!(signed_number(&packets.secured[i]), Some(i));
            let unsecured = Frame::parse(&packets.unsecured[i]).expect("a frame");
            assert_eq!(unsecured.source, STACK_MAC);
            assert_eq!(number(&packets.unsecured[i]), Some(i));
            match GnPacket::decode(unsecured.packet, &Limits::default()).expect("decodes") {
                GnPacket {
                    body: Body::Unsecured(b),
                    ..
                } => assert_eq!(b.source().address.mid, STACK_MAC.0),
                other => panic!("not unsecured: {other:?}"),
            }
        }
        let digest = |i: usize| {
            SignedMessage::from_bytes(&packets.messages[i])
                .expect("signed")
                .signer_digest()
        };
        assert_eq!(
            digest(0),
            None,
            "a signer's first message carries its certificate"
        );
        assert!(digest(2).is_some(), "later ones name it by digest");
    }
}
