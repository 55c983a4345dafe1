//! The bridge's links: an AF_PACKET socket on a named interface (Linux; it needs
//! `CAP_NET_RAW`), receiving every frame of the interface in promiscuous mode (frames to a
//! pseudonym's MAC included) and sending whole Ethernet frames.
//!
//! The socket sees every EtherType (the bridge keeps GeoNetworking's, 0x8947) and, as any
//! AF_PACKET tap does, frames other sockets send on the interface; its own it does not see.

use std::io;
use std::time::Duration;

use pnet_datalink::{Channel, Config, DataLinkReceiver, DataLinkSender};

use super::ethernet::Mac;

/// The largest frame read: an Ethernet frame with a 1500-byte payload and a VLAN tag.
pub const MAX_FRAME: usize = 1518;

/// Why a link did not open.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// No interface has this name (in this network namespace).
    #[error("no network interface '{0}'")]
    NoInterface(String),
    /// The interface has no MAC address (not an Ethernet interface).
    #[error("network interface '{0}' has no MAC address")]
    NoMac(String),
    /// The socket could not be opened or bound (raw sockets need `CAP_NET_RAW`).
    #[error("cannot open a packet socket on '{interface}': {source}")]
    Open {
        /// The interface.
        interface: String,
        /// The system's answer.
        #[source]
        source: io::Error,
    },
}

/// The sending half of a link.
pub struct LinkSender(Box<dyn DataLinkSender>);

/// The receiving half of a link.
pub struct LinkReceiver(Box<dyn DataLinkReceiver>);

/// An open link: its two halves and the interface's own MAC.
pub struct Link {
    /// Sends frames.
    pub sender: LinkSender,
    /// Receives frames.
    pub receiver: LinkReceiver,
    /// The interface's MAC address.
    pub mac: Mac,
}

impl Link {
    /// Opens `interface`; a receive waits at most `poll` for a frame.
    pub fn open(interface: &str, poll: Duration) -> Result<Link, LinkError> {
        let found = pnet_datalink::interfaces()
            .into_iter()
            .find(|i| i.name == interface)
            .ok_or_else(|| LinkError::NoInterface(interface.into()))?;
        let mac = found
            .mac
            .map(|m| Mac(m.octets()))
            .ok_or_else(|| LinkError::NoMac(interface.into()))?;
        let config = Config {
            read_buffer_size: MAX_FRAME,
            write_buffer_size: MAX_FRAME,
            read_timeout: Some(poll),
            ..Config::default()
        };
        let open = |source| LinkError::Open {
            interface: interface.into(),
            source,
        };
        match pnet_datalink::channel(&found, config).map_err(open)? {
            Channel::Ethernet(sender, receiver) => Ok(Link {
                sender: LinkSender(sender),
                receiver: LinkReceiver(receiver),
                mac,
            }),
            _ => Err(open(io::Error::other("not an Ethernet channel"))),
        }
    }
}

impl LinkSender {
    /// Sends one whole Ethernet frame.
    pub fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        self.0
            .send_to(frame, None)
            .unwrap_or_else(|| Err(io::Error::other("the link cannot send")))
    }
}

impl LinkReceiver {
    /// The next frame, or `None` when none came within the poll interval (or a signal
    /// interrupted the wait).
    pub fn recv(&mut self) -> io::Result<Option<Vec<u8>>> {
        match self.0.next() {
            Ok(frame) => Ok(Some(frame.to_vec())),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut
                        | io::ErrorKind::WouldBlock
                        | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}
