//! Two more reasons of ETSI TS 103 097 §7.1.1 for the next CAM to carry the whole
//! certificate: a new neighbour (a signer not heard from before) and a neighbour's inline
//! P2PCD request for the current pseudonym's certificate. The once-a-second rule and the
//! change of pseudonym are the sign service's.

use std::collections::{HashSet, VecDeque};

use vss_its::{HashedId3, HashedId8, SignedMessage};

/// Signers remembered as heard; past them the oldest is forgotten (and is new again when
/// heard next).
pub const NEIGHBOURS: usize = 4096;

/// The signers heard lately, at most [`NEIGHBOURS`].
#[derive(Debug, Default)]
pub struct Neighbours {
    seen: HashSet<HashedId8>,
    order: VecDeque<HashedId8>,
}

impl Neighbours {
    /// Notes that `signer` was heard; whether it is new.
    pub fn heard(&mut self, signer: HashedId8) -> bool {
        if !self.seen.insert(signer) {
            return false;
        }
        self.order.push_back(signer);
        if self.order.len() > NEIGHBOURS {
            if let Some(oldest) = self.order.pop_front() {
                self.seen.remove(&oldest);
            }
        }
        true
    }
}

/// Whether the signed message `data` asks (inline P2PCD) for the certificate `wanted`.
pub fn asks_for(data: &[u8], wanted: HashedId3) -> bool {
    let Ok(message) = SignedMessage::from_bytes(data) else {
        return false;
    };
    message
        .header()
        .inline_p2pcd_request
        .as_ref()
        .is_some_and(|ids| ids.0.iter().any(|id| HashedId3::from_asn(id) == wanted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_crypto::{Curve, PrivateKey};
    use vss_its::{Psid, SignedDataRequest, SignerKind};

    /// Signed data (self-signed, COER) asking for `asked`.
    fn asking(asked: Vec<HashedId3>) -> Vec<u8> {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let mut request = SignedDataRequest::new(Psid::CAM, b"cam");
        request.signer = SignerKind::SelfSigned;
        request.inline_p2pcd_request = asked;
        let data = vss_its::sign_data(&request, None, &key).expect("sign");
        vss_its::encode_data(&data).expect("encode")
    }

    #[test]
    fn an_inline_p2pcd_request_names_the_certificate() {
        let ours = HashedId3([1, 2, 3]);
        assert!(asks_for(&asking(vec![HashedId3([9, 9, 9]), ours]), ours));
        assert!(!asks_for(&asking(vec![HashedId3([9, 9, 9])]), ours));
        assert!(!asks_for(&asking(Vec::new()), ours));
        assert!(!asks_for(b"\x03junk", ours));
    }

    #[test]
    fn a_signer_is_new_once_until_forgotten() {
        let mut neighbours = Neighbours::default();
        let id = |n: u32| {
            let mut bytes = [0u8; 8];
            bytes[..4].copy_from_slice(&n.to_be_bytes());
            HashedId8(bytes)
        };
        assert!(neighbours.heard(id(0)));
        assert!(!neighbours.heard(id(0)));
        for n in 1..=NEIGHBOURS as u32 {
            assert!(neighbours.heard(id(n)));
        }
        assert_eq!(neighbours.seen.len(), NEIGHBOURS);
        assert!(neighbours.heard(id(0)), "forgotten, so new again");
        assert!(!neighbours.heard(id(NEIGHBOURS as u32)));
    }
}
