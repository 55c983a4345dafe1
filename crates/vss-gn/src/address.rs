//! The GeoNetworking address, GN_ADDR (EN 302 636-4-1 V1.4.1 §6.3): 64 bits of which the
//! low 48, the MID, are the station's link-layer (MAC) address.

use crate::wire::Reader;
use crate::GnError;

/// A GN_ADDR: M (1 bit), ST (5 bits), 10 reserved bits (zero) and the MID (48 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GnAddress {
    /// M: the address was configured manually (1) rather than automatically (0).
    pub manual: bool,
    /// ST: the ITS-S station type (0 to 31; the values of ETSI TS 102 894-2's StationType).
    pub station_type: u8,
    /// MID: the 48-bit link-layer address; a single-hop frame's source MAC.
    pub mid: [u8; 6],
}

impl GnAddress {
    /// Its length on the wire.
    pub const LEN: usize = 8;

    /// An automatically configured address whose MID is `mac`.
    pub fn from_mac(mac: [u8; 6], station_type: u8) -> Self {
        Self {
            manual: false,
            station_type,
            mid: mac,
        }
    }

    /// The 8 bytes on the wire; fails if the station type needs more than 5 bits.
    pub fn to_bytes(&self) -> Result<[u8; 8], GnError> {
        if self.station_type > 31 {
            return Err(GnError::OutOfRange {
                field: "GN_ADDR station type",
                value: self.station_type.into(),
            });
        }
        let mut out = [0u8; 8];
        out[0] = (u8::from(self.manual) << 7) | (self.station_type << 2);
        out[2..].copy_from_slice(&self.mid);
        Ok(out)
    }

    /// Reads a GN_ADDR; its 10 reserved bits must be zero.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, GnError> {
        let b = r.take::<8>("GN_ADDR")?;
        if b[0] & 0x03 != 0 || b[1] != 0 {
            return Err(GnError::Reserved("GN_ADDR reserved bits"));
        }
        let mut mid = [0u8; 6];
        mid.copy_from_slice(&b[2..]);
        Ok(Self {
            manual: b[0] & 0x80 != 0,
            station_type: (b[0] >> 2) & 0x1f,
            mid,
        })
    }

    /// Decodes a GN_ADDR from exactly its 8 bytes.
    pub fn from_bytes(bytes: &[u8; 8]) -> Result<Self, GnError> {
        Self::read(&mut Reader::new(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_sit_where_the_standard_puts_them() {
        let a = GnAddress {
            manual: true,
            station_type: 15,
            mid: [1, 2, 3, 4, 5, 6],
        };
        let b = a.to_bytes().expect("fits");
        assert_eq!(b, [0xbc, 0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(GnAddress::from_bytes(&b), Ok(a));
    }

    #[test]
    fn reserved_bits_and_wide_station_types_are_refused() {
        let reserved = GnAddress::from_bytes(&[0x14, 0x01, 0, 0, 0, 0, 0, 0]);
        assert_eq!(reserved, Err(GnError::Reserved("GN_ADDR reserved bits")));
        let low_bits = GnAddress::from_bytes(&[0x15, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(low_bits, Err(GnError::Reserved("GN_ADDR reserved bits")));
        let wide = GnAddress::from_mac([0; 6], 32).to_bytes();
        assert!(matches!(wide, Err(GnError::OutOfRange { value: 32, .. })));
    }
}
