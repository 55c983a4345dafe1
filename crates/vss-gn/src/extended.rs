//! The extended headers of EN 302 636-4-1 V1.4.1 §9.8, one per header type and subtype.

use crate::wire::Reader;
use crate::{GnAddress, GnError, LongPositionVector, ShortPositionVector};

/// The shape of a GeoBroadcast or GeoAnycast area (the header subtype, §9.7.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AreaShape {
    /// A circle of radius `distance_a`.
    Circle = 0,
    /// A rectangle of half-sides `distance_a` and `distance_b`.
    Rectangle = 1,
    /// An ellipse of semi-axes `distance_a` and `distance_b`.
    Ellipse = 2,
}

/// The destination area of a GeoBroadcast or GeoAnycast packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Area {
    /// Its shape.
    pub shape: AreaShape,
    /// The centre's latitude, in 1/10 micro-degree.
    pub latitude: i32,
    /// The centre's longitude, in 1/10 micro-degree.
    pub longitude: i32,
    /// Distance a, in metres.
    pub distance_a: u16,
    /// Distance b, in metres.
    pub distance_b: u16,
    /// The azimuth of the long side, in degrees from north.
    pub angle: u16,
}

/// An extended header: it names the packet's type (HT) and subtype (HST).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtendedHeader {
    /// Beacon (HT 1): the source's position only.
    Beacon {
        /// SO PV.
        source: LongPositionVector,
    },
    /// Single-hop broadcast (HT 5, HST 0).
    SingleHop {
        /// SO PV.
        source: LongPositionVector,
        /// The 4 bytes the standard leaves to the media (ITS-G5's DCC, TS 102 636-4-2).
        media_dependent: [u8; 4],
    },
    /// Multi-hop topologically-scoped broadcast (HT 5, HST 1).
    TopoBroadcast {
        /// SN.
        sequence: u16,
        /// SO PV.
        source: LongPositionVector,
    },
    /// GeoUnicast (HT 2).
    GeoUnicast {
        /// SN.
        sequence: u16,
        /// SO PV.
        source: LongPositionVector,
        /// DE PV.
        destination: ShortPositionVector,
    },
    /// GeoBroadcast (HT 4, HST the area's shape).
    GeoBroadcast {
        /// SN.
        sequence: u16,
        /// SO PV.
        source: LongPositionVector,
        /// The destination area.
        area: Area,
    },
    /// GeoAnycast (HT 3, HST the area's shape).
    GeoAnycast {
        /// SN.
        sequence: u16,
        /// SO PV.
        source: LongPositionVector,
        /// The destination area.
        area: Area,
    },
    /// Location Service request (HT 6, HST 0).
    LsRequest {
        /// SN.
        sequence: u16,
        /// SO PV.
        source: LongPositionVector,
        /// The GN_ADDR sought.
        request: GnAddress,
    },
    /// Location Service reply (HT 6, HST 1).
    LsReply {
        /// SN.
        sequence: u16,
        /// SO PV.
        source: LongPositionVector,
        /// DE PV: the requester.
        destination: ShortPositionVector,
    },
}

/// The field names a short read reports.
const SN: &str = "extended header sequence number";
const RESERVED: &str = "extended header reserved";

impl ExtendedHeader {
    /// HT and HST.
    pub fn type_and_subtype(&self) -> (u8, u8) {
        match self {
            Self::Beacon { .. } => (1, 0),
            Self::GeoUnicast { .. } => (2, 0),
            Self::GeoAnycast { area, .. } => (3, area.shape as u8),
            Self::GeoBroadcast { area, .. } => (4, area.shape as u8),
            Self::SingleHop { .. } => (5, 0),
            Self::TopoBroadcast { .. } => (5, 1),
            Self::LsRequest { .. } => (6, 0),
            Self::LsReply { .. } => (6, 1),
        }
    }

    /// The source's position vector (every extended header has one).
    pub fn source(&self) -> &LongPositionVector {
        match self {
            Self::Beacon { source }
            | Self::SingleHop { source, .. }
            | Self::TopoBroadcast { source, .. }
            | Self::GeoUnicast { source, .. }
            | Self::GeoBroadcast { source, .. }
            | Self::GeoAnycast { source, .. }
            | Self::LsRequest { source, .. }
            | Self::LsReply { source, .. } => source,
        }
    }

    /// The source's position vector, to rewrite.
    pub fn source_mut(&mut self) -> &mut LongPositionVector {
        match self {
            Self::Beacon { source }
            | Self::SingleHop { source, .. }
            | Self::TopoBroadcast { source, .. }
            | Self::GeoUnicast { source, .. }
            | Self::GeoBroadcast { source, .. }
            | Self::GeoAnycast { source, .. }
            | Self::LsRequest { source, .. }
            | Self::LsReply { source, .. } => source,
        }
    }

    /// The sequence number, where the packet type has one (not beacons or single hops).
    pub fn sequence(&self) -> Option<u16> {
        match self {
            Self::Beacon { .. } | Self::SingleHop { .. } => None,
            Self::TopoBroadcast { sequence, .. }
            | Self::GeoUnicast { sequence, .. }
            | Self::GeoBroadcast { sequence, .. }
            | Self::GeoAnycast { sequence, .. }
            | Self::LsRequest { sequence, .. }
            | Self::LsReply { sequence, .. } => Some(*sequence),
        }
    }

    /// Appends the header's bytes.
    pub(crate) fn write(&self, out: &mut Vec<u8>) -> Result<(), GnError> {
        if let Some(sn) = self.sequence() {
            out.extend_from_slice(&sn.to_be_bytes());
            out.extend_from_slice(&[0, 0]);
        }
        self.source().write(out)?;
        match self {
            Self::Beacon { .. } | Self::TopoBroadcast { .. } => {}
            Self::SingleHop {
                media_dependent, ..
            } => out.extend_from_slice(media_dependent),
            Self::GeoUnicast { destination, .. } | Self::LsReply { destination, .. } => {
                destination.write(out)?
            }
            Self::GeoBroadcast { area, .. } | Self::GeoAnycast { area, .. } => {
                out.extend_from_slice(&area.latitude.to_be_bytes());
                out.extend_from_slice(&area.longitude.to_be_bytes());
                for v in [area.distance_a, area.distance_b, area.angle, 0] {
                    out.extend_from_slice(&v.to_be_bytes());
                }
            }
            Self::LsRequest { request, .. } => out.extend_from_slice(&request.to_bytes()?),
        }
        Ok(())
    }

    /// Reads the extended header of type `ht` and subtype `hst`.
    pub(crate) fn read(ht: u8, hst: u8, r: &mut Reader<'_>) -> Result<Self, GnError> {
        let shape = match hst {
            0 => Some(AreaShape::Circle),
            1 => Some(AreaShape::Rectangle),
            2 => Some(AreaShape::Ellipse),
            _ => None,
        };
        let (header_type, subtype) = (ht, hst);
        let unknown = GnError::UnknownHeaderType {
            header_type,
            subtype,
        };
        Ok(match (ht, hst, shape) {
            (1, 0, _) => Self::Beacon {
                source: LongPositionVector::read(r)?,
            },
            (5, 0, _) => Self::SingleHop {
                source: LongPositionVector::read(r)?,
                media_dependent: r.take::<4>("SHB media-dependent data")?,
            },
            (2, 0, _) | (5, 1, _) | (6, 0 | 1, _) | (3 | 4, _, Some(_)) => {
                let sequence = r.u16(SN)?;
                r.reserved16(RESERVED)?;
                let source = LongPositionVector::read(r)?;
                match (ht, hst, shape) {
                    (2, 0, _) => Self::GeoUnicast {
                        sequence,
                        source,
                        destination: ShortPositionVector::read(r)?,
                    },
                    (5, _, _) => Self::TopoBroadcast { sequence, source },
                    (6, 0, _) => Self::LsRequest {
                        sequence,
                        source,
                        request: GnAddress::read(r)?,
                    },
                    (6, _, _) => Self::LsReply {
                        sequence,
                        source,
                        destination: ShortPositionVector::read(r)?,
                    },
                    (3, _, Some(shape)) => Self::GeoAnycast {
                        sequence,
                        source,
                        area: read_area(shape, r)?,
                    },
                    (4, _, Some(shape)) => Self::GeoBroadcast {
                        sequence,
                        source,
                        area: read_area(shape, r)?,
                    },
                    _ => return Err(unknown),
                }
            }
            _ => return Err(unknown),
        })
    }
}

/// Reads a GBC/GAC area and its trailing reserved field.
fn read_area(shape: AreaShape, r: &mut Reader<'_>) -> Result<Area, GnError> {
    let area = Area {
        shape,
        latitude: r.i32("area")?,
        longitude: r.i32("area")?,
        distance_a: r.u16("area")?,
        distance_b: r.u16("area")?,
        angle: r.u16("area")?,
    };
    r.reserved16(RESERVED)?;
    Ok(area)
}

#[cfg(test)]
mod tests;
