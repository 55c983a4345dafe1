//! [`ClientKey`]: what names a client of the services for its per-client caps.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// A client as the per-client caps count it: its IPv4 address, or the /64 prefix of its
/// IPv6 address (one host commonly holds a whole /64; `::1` stays itself); an IPv4-mapped
/// IPv6 address counts as its IPv4 address. [`super::serve`] puts it in every request's extensions; a request
/// without one (the routes served some other way) counts as the unspecified address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    /// The key of a client at `ip`.
    pub fn of(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(v4) => ClientKey(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey(IpAddr::V4(v4)),
                None if v6.is_loopback() => ClientKey(IpAddr::V6(v6)),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    ClientKey(IpAddr::V6(Ipv6Addr::from(prefix)))
                }
            },
        }
    }

    /// The key of the client at `peer`.
    pub fn of_peer(peer: SocketAddr) -> Self {
        Self::of(peer.ip())
    }

    /// Whether the client is on this host's loopback (127/8, `::1`).
    pub fn is_loopback(&self) -> bool {
        self.0.is_loopback()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientKey {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<ClientKey>()
            .copied()
            .unwrap_or(ClientKey(IpAddr::V4(Ipv4Addr::UNSPECIFIED))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_client_is_its_64_prefix_and_a_mapped_one_its_ipv4_address() {
        let v6 = |s: &str| ClientKey::of(s.parse().expect("address"));
        assert_eq!(v6("2001:db8:1:2:aaaa::1"), v6("2001:db8:1:2:bbbb::2"));
        assert_ne!(v6("2001:db8:1:2::1"), v6("2001:db8:1:3::1"));
        assert_eq!(v6("::ffff:192.0.2.7"), v6("192.0.2.7"));
        assert_ne!(v6("192.0.2.7"), v6("192.0.2.8"));
        assert!(v6("::1").is_loopback() && v6("127.0.0.2").is_loopback());
        assert!(!v6("::2").is_loopback() && !v6("192.0.2.7").is_loopback());
    }
}
