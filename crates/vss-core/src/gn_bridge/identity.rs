//! The radio-side identity that goes with a pseudonym: a MAC address derived from the
//! pseudonym's certificate, which is also the MID of the GN address the bridge writes as
//! the packet's source (each change is announced by [`crate::id_change::IdAnnouncer`]).
//!
//! The derivation: the first six bytes of the certificate's HashedId8 (the low-order eight
//! bytes of its SHA-256), with the first byte's I/G bit cleared (an individual address) and
//! its U/L bit set (locally administered, IEEE 802 §8.4), so it is stable for a pseudonym,
//! changes with it, tells nothing the certificate does not, and is never a vendor's address.

use vss_its::HashedId8;

use super::ethernet::Mac;

/// The radio-side MAC address of the pseudonym `id`.
pub fn pseudonym_mac(id: HashedId8) -> Mac {
    let mut mac = [0u8; 6];
    mac.copy_from_slice(&id.0[..6]);
    mac[0] = (mac[0] & 0xfc) | 0x02;
    Mac(mac)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pseudonym_mac_is_individual_local_and_its_own() {
        let a = pseudonym_mac(HashedId8([0xff, 1, 2, 3, 4, 5, 6, 7]));
        assert_eq!(a, Mac([0xfe, 1, 2, 3, 4, 5]));
        let b = pseudonym_mac(HashedId8([0x00, 1, 2, 3, 4, 6, 6, 7]));
        assert_eq!(b, Mac([0x02, 1, 2, 3, 4, 6]));
        assert!(!a.is_group() && a.0[0] & 0x02 != 0);
    }
}
