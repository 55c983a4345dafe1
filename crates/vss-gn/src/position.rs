//! The position vectors of EN 302 636-4-1 V1.4.1 §9.5: long (24 bytes) and short (20).

use crate::wire::Reader;
use crate::{GnAddress, GnError};

/// The long position vector: a station's address, when and where it was, its speed and
/// heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LongPositionVector {
    /// GN_ADDR of the station.
    pub address: GnAddress,
    /// TST: milliseconds of TAI since 2004-01-01, modulo 2^32.
    pub timestamp: u32,
    /// Latitude, in 1/10 micro-degree (WGS 84).
    pub latitude: i32,
    /// Longitude, in 1/10 micro-degree (WGS 84).
    pub longitude: i32,
    /// PAI: the position is accurate (within `itsGnPaiInterval`).
    pub accurate: bool,
    /// S: speed in 0.01 m/s, 15-bit signed (-16384 to 16383).
    pub speed: i16,
    /// H: heading in 0.1 degree from north.
    pub heading: u16,
}

/// The short position vector: address, time and place only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShortPositionVector {
    /// GN_ADDR of the station.
    pub address: GnAddress,
    /// TST: milliseconds of TAI since 2004-01-01, modulo 2^32.
    pub timestamp: u32,
    /// Latitude, in 1/10 micro-degree (WGS 84).
    pub latitude: i32,
    /// Longitude, in 1/10 micro-degree (WGS 84).
    pub longitude: i32,
}

/// The smallest and largest speed a 15-bit signed field holds.
const SPEED_RANGE: std::ops::RangeInclusive<i16> = -0x4000..=0x3fff;

impl LongPositionVector {
    /// Its length on the wire.
    pub const LEN: usize = 24;

    /// Appends its 24 bytes; fails if a field does not fit.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), GnError> {
        if !SPEED_RANGE.contains(&self.speed) {
            return Err(GnError::OutOfRange {
                field: "position vector speed",
                value: self.speed.into(),
            });
        }
        out.extend_from_slice(&self.address.to_bytes()?);
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.extend_from_slice(&self.latitude.to_be_bytes());
        out.extend_from_slice(&self.longitude.to_be_bytes());
        // PAI is the top bit; the speed's 15 bits (two's complement) follow.
        let pai_speed = (u16::from(self.accurate) << 15) | (self.speed as u16 & 0x7fff);
        out.extend_from_slice(&pai_speed.to_be_bytes());
        out.extend_from_slice(&self.heading.to_be_bytes());
        Ok(())
    }

    /// Reads 24 bytes.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, GnError> {
        let address = GnAddress::read(r)?;
        let timestamp = r.u32("long position vector")?;
        let latitude = r.i32("long position vector")?;
        let longitude = r.i32("long position vector")?;
        let pai_speed = r.u16("long position vector")?;
        let heading = r.u16("long position vector")?;
        // Sign-extend the 15-bit speed: shift it to the top, then back arithmetically.
        let speed = ((pai_speed << 1) as i16) >> 1;
        Ok(Self {
            address,
            timestamp,
            latitude,
            longitude,
            accurate: pai_speed & 0x8000 != 0,
            speed,
            heading,
        })
    }

    /// The short vector of the same station, time and place.
    pub fn short(&self) -> ShortPositionVector {
        ShortPositionVector {
            address: self.address,
            timestamp: self.timestamp,
            latitude: self.latitude,
            longitude: self.longitude,
        }
    }
}

impl ShortPositionVector {
    /// Its length on the wire.
    pub const LEN: usize = 20;

    /// Appends its 20 bytes; fails if the address does not fit.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), GnError> {
        out.extend_from_slice(&self.address.to_bytes()?);
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.extend_from_slice(&self.latitude.to_be_bytes());
        out.extend_from_slice(&self.longitude.to_be_bytes());
        Ok(())
    }

    /// Reads 20 bytes.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, GnError> {
        Ok(Self {
            address: GnAddress::read(r)?,
            timestamp: r.u32("short position vector")?,
            latitude: r.i32("short position vector")?,
            longitude: r.i32("short position vector")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(speed: i16) -> LongPositionVector {
        LongPositionVector {
            address: GnAddress::from_mac([2, 0, 0, 0, 0, 1], 5),
            timestamp: 0xdead_beef,
            latitude: -338_688_500,
            longitude: -1_512_093_000,
            accurate: true,
            speed,
            heading: 3599,
        }
    }

    #[test]
    fn negative_coordinates_and_speeds_round_trip() {
        for speed in [-16384, -1, 0, 1389, 16383] {
            let pv = sample(speed);
            let mut out = Vec::new();
            pv.write(&mut out).expect("fits");
            assert_eq!(out.len(), LongPositionVector::LEN);
            let back = LongPositionVector::read(&mut Reader::new(&out)).expect("decodes");
            assert_eq!(back, pv);
        }
    }

    #[test]
    fn a_speed_beyond_fifteen_bits_is_refused() {
        let err = sample(16384).write(&mut Vec::new());
        assert!(matches!(err, Err(GnError::OutOfRange { value: 16384, .. })));
    }

    #[test]
    fn pai_is_the_top_bit_before_the_speed() {
        let mut out = Vec::new();
        sample(-1).write(&mut out).expect("fits");
        assert_eq!(out[20..22], [0xff, 0xff]);
        let mut out = Vec::new();
        sample(1).write(&mut out).expect("fits");
        assert_eq!(out[20..22], [0x80, 0x01]);
    }

    #[test]
    fn the_short_vector_keeps_address_time_and_place() {
        let s = sample(0).short();
        let mut out = Vec::new();
        s.write(&mut out).expect("fits");
        assert_eq!(out.len(), ShortPositionVector::LEN);
        assert_eq!(ShortPositionVector::read(&mut Reader::new(&out)), Ok(s));
    }
}
