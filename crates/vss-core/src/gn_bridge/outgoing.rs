//! Stack → radio: the stack's unsecured packet, its source rewritten to the current
//! pseudonym's identity, signed under its ITS-AID's profile and sent as a secured packet.

use vss_gn::{Body, ExtendedHeader, GnPacket, LongPositionVector, Unsecured};
use vss_its::asn::ThreeDLocation;
use vss_its::asn::{Elevation, Latitude, Longitude, NinetyDegreeInt, OneEightyDegreeInt};
use vss_its::Psid;

use super::ethernet::{frame, Frame, Mac};
use super::identity::pseudonym_mac;
use super::{Bridge, Refusal};
use crate::sign::SignOptions;

/// The ITS-AID of GeoNetworking management (ETSI TS 102 965: GN-MGMT), under which
/// beacons and Location Service packets are signed.
pub const GN_MGMT_AID: u64 = 141;

/// 1609.2's `Elevation` for 0 m (decimetres above −409.5 m): a GN position vector has no
/// altitude.
const SEA_LEVEL: u16 = 4095;

/// Where a packet was generated, from its source position vector (both in 1/10 µdegree);
/// none when the vector holds no valid position.
fn generation_location(source: &LongPositionVector) -> Option<ThreeDLocation> {
    let latitude = NinetyDegreeInt::new(source.latitude)?;
    let in_range = (OneEightyDegreeInt::MIN..=OneEightyDegreeInt::MAX).contains(&source.longitude);
    in_range.then_some(ThreeDLocation {
        latitude: Latitude(latitude),
        longitude: Longitude(OneEightyDegreeInt(source.longitude)),
        elevation: Elevation(SEA_LEVEL),
    })
}

/// The signing options of ETSI TS 103 097 §7.1 for a packet under `aid`
/// ([`SignOptions::profile`]), a DENM's generation location its source position.
pub fn profile(aid: Psid, body: &Unsecured) -> SignOptions {
    SignOptions::profile(aid, generation_location(body.source()))
}

/// The ITS-AID a packet is signed under: its BTP port's, or GN-MGMT's for beacons and
/// Location Service packets.
fn its_aid(body: &Unsecured) -> Option<Psid> {
    match body.extended {
        ExtendedHeader::Beacon { .. }
        | ExtendedHeader::LsRequest { .. }
        | ExtendedHeader::LsReply { .. } => Some(Psid::new(GN_MGMT_AID)),
        _ => body.its_aid().map(Psid::new),
    }
}

impl Bridge {
    /// The secured frame for the radio that the stack's `frame` becomes, or why it is
    /// dropped.
    pub fn to_radio(&self, bytes: &[u8]) -> Result<Vec<u8>, Refusal> {
        let frame_in = Frame::parse(bytes).ok_or(Refusal::NotGeoNetworking)?;
        let packet =
            GnPacket::decode(frame_in.packet, &self.config.limits).map_err(Refusal::Malformed)?;
        let Body::Unsecured(mut body) = packet.body else {
            return Err(Refusal::Secured);
        };
        if Mac(body.source().address.mid) != frame_in.source {
            return Err(Refusal::Forwarded);
        }
        self.learn_stack_mac(frame_in.source);
        let aid = its_aid(&body).ok_or(Refusal::NoItsAid)?;
        let options = profile(aid, &body);
        let signed = self.vss.create_signature_for(&options, |signer| {
            let mut address = body.source().address;
            address.mid = pseudonym_mac(signer).0;
            body.set_source_address(address);
            body.encode().map_err(Refusal::Malformed)
        })?;
        let secured = GnPacket::secured(packet.basic, signed.bytes)
            .encode()
            .map_err(Refusal::Malformed)?;
        Ok(frame(
            frame_in.destination,
            pseudonym_mac(signed.signer),
            &secured,
        ))
    }
}
