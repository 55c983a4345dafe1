//! The bridge's links: an AF_PACKET socket on a named interface (Linux; it needs
//! `CAP_NET_RAW`), receiving every frame of the interface in promiscuous mode (frames to a
//! pseudonym's MAC included) and sending whole Ethernet frames; or, without privileges, one
//! end of a Unix datagram socket pair whose other end plays the wire ([`Link::unix_pair`]:
//! `vss bench gn` runs the bridge's loop over two of them).
//!
//! The AF_PACKET socket sees every EtherType (the bridge keeps GeoNetworking's, 0x8947) and,
//! as any AF_PACKET tap does, frames other sockets send on the interface; its own it does
//! not see.

use std::io;
use std::os::unix::net::UnixDatagram;
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
pub struct LinkSender(Sender);

/// The receiving half of a link.
pub struct LinkReceiver(Receiver);

/// What a link sends on.
enum Sender {
    Packet(Box<dyn DataLinkSender>),
    Unix(UnixDatagram),
}

/// What a link receives on (a Unix socket with its buffer of [`MAX_FRAME`] bytes).
enum Receiver {
    Packet(Box<dyn DataLinkReceiver>),
    Unix(UnixDatagram, Vec<u8>),
}

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
                sender: LinkSender(Sender::Packet(sender)),
                receiver: LinkReceiver(Receiver::Packet(receiver)),
                mac,
            }),
            _ => Err(open(io::Error::other("not an Ethernet channel"))),
        }
    }

    /// A link with the MAC `mac` over one end of a new Unix datagram socket pair, and the
    /// other end: each datagram is one whole frame (a receive waits at most `poll`; one over
    /// [`MAX_FRAME`] bytes is cut there). No privileges needed.
    pub fn unix_pair(mac: Mac, poll: Duration) -> io::Result<(Link, UnixDatagram)> {
        let (ours, wire) = UnixDatagram::pair()?;
        ours.set_read_timeout(Some(poll))?;
        let sender = ours.try_clone()?;
        Ok((
            Link {
                sender: LinkSender(Sender::Unix(sender)),
                receiver: LinkReceiver(Receiver::Unix(ours, vec![0; MAX_FRAME])),
                mac,
            },
            wire,
        ))
    }
}

impl LinkSender {
    /// Sends one whole Ethernet frame.
    pub fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        match &mut self.0 {
            Sender::Packet(sender) => sender
                .send_to(frame, None)
                .unwrap_or_else(|| Err(io::Error::other("the link cannot send"))),
            Sender::Unix(socket) => socket.send(frame).map(drop),
        }
    }
}

impl LinkReceiver {
    /// The next frame, or `None` when none came within the poll interval (or a signal
    /// interrupted the wait).
    pub fn recv(&mut self) -> io::Result<Option<Vec<u8>>> {
        let received = match &mut self.0 {
            Receiver::Packet(receiver) => receiver.next().map(<[u8]>::to_vec),
            Receiver::Unix(socket, buffer) => socket.recv(buffer).map(|n| buffer[..n].to_vec()),
        };
        match received {
            Ok(frame) => Ok(Some(frame)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unix_pair_carries_whole_frames_both_ways_and_waits_at_most_its_poll() {
        let mac = Mac([0x02, 0, 0, 0, 0, 0x01]);
        let (mut link, wire) =
            Link::unix_pair(mac, Duration::from_millis(20)).expect("a socket pair");
        assert_eq!(link.mac, mac);
        let started = std::time::Instant::now();
        assert_eq!(link.receiver.recv().expect("a quiet wait"), None);
        assert!(started.elapsed() < Duration::from_secs(1));
        wire.send(&[1, 2, 3]).expect("send");
        assert_eq!(link.receiver.recv().expect("recv"), Some(vec![1, 2, 3]));
        wire.send(&[7; MAX_FRAME + 100]).expect("send");
        assert_eq!(
            link.receiver.recv().expect("recv").map(|f| f.len()),
            Some(MAX_FRAME),
            "cut at the largest frame"
        );
        link.sender.send(&[0xaa; 100]).expect("send");
        let mut buffer = [0u8; 200];
        assert_eq!(wire.recv(&mut buffer).expect("recv"), 100);
        assert_eq!(buffer[..100], [0xaa; 100]);
    }
}
