//! How the user service reaches a card: [`CardChannel`] over the in-process software card
//! ([`Applet`]), a card's TCP port ([`TcpChannel`]) or PC/SC (`crate::pcsc`, feature
//! `pcsc`), and [`Counting`] to count what goes over one.

use crate::applet::Applet;
use crate::frame::{read_frame, write_frame, MAX_FRAME, MAX_FRAMED_DATA};
use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long the TCP channel waits for the card's answer.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(30);

/// Why an APDU did not reach the card or its answer did not come back.
#[derive(Debug, thiserror::Error)]
pub enum ChannelError {
    /// The connection failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The card closed the connection.
    #[error("the card closed the connection")]
    Closed,
    /// The command is longer than a frame of the TCP port carries ([`MAX_FRAME`] bytes,
    /// [`MAX_FRAMED_DATA`] of them command data).
    #[error(
        "the command is {0} bytes, longer than a frame carries ({MAX_FRAME} bytes: at most \
         {MAX_FRAMED_DATA} bytes of command data)"
    )]
    TooLong(usize),
    /// No reader holds a card that answers SELECT of the application.
    #[error("no reader holds a card with the application")]
    NoCard,
    /// A card address that is none of `software`, `tcp:HOST:PORT`, `pcsc[:READER]`.
    #[error("{0:?} is not a card address (software, tcp:HOST:PORT, pcsc or pcsc:READER)")]
    Address(String),
    /// This build has no PC/SC (cargo feature `pcsc`).
    #[error("this build has no PC/SC support (build with the cargo feature `pcsc`)")]
    PcscNotBuilt,
    /// PC/SC failed.
    #[cfg(feature = "pcsc")]
    #[error("PC/SC: {0}")]
    Pcsc(#[from] ::pcsc::Error),
}

/// A channel to a card: one command APDU out, its response APDU back.
pub trait CardChannel {
    /// Sends `apdu` and returns the response APDU (data and status word).
    fn transmit(&mut self, apdu: &[u8]) -> Result<Vec<u8>, ChannelError>;
}

/// The software card: the applet in this process.
impl CardChannel for Applet {
    fn transmit(&mut self, apdu: &[u8]) -> Result<Vec<u8>, ChannelError> {
        Ok(self.process(apdu))
    }
}

/// A card's TCP port (`vss-card --listen`).
pub struct TcpChannel {
    stream: TcpStream,
}

impl TcpChannel {
    /// Connects to the card at `addr`.
    pub fn connect(addr: impl ToSocketAddrs) -> Result<Self, ChannelError> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(RESPONSE_TIMEOUT))?;
        Ok(TcpChannel { stream })
    }
}

impl CardChannel for TcpChannel {
    fn transmit(&mut self, apdu: &[u8]) -> Result<Vec<u8>, ChannelError> {
        if apdu.len() > MAX_FRAME {
            return Err(ChannelError::TooLong(apdu.len()));
        }
        write_frame(&mut self.stream, apdu)?;
        let response = read_frame(&mut self.stream)?.ok_or(ChannelError::Closed)?;
        Ok(response.to_vec())
    }
}

/// A channel that counts the APDUs and the bytes (command and response) through it.
pub struct Counting<C> {
    inner: C,
    apdus: u64,
    bytes: u64,
}

impl<C> Counting<C> {
    /// Counts from zero what goes through `inner`.
    pub fn new(inner: C) -> Self {
        Counting {
            inner,
            apdus: 0,
            bytes: 0,
        }
    }

    /// The command APDUs answered so far.
    pub fn apdus(&self) -> u64 {
        self.apdus
    }

    /// The command and response bytes so far, both directions together.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The channel counted.
    pub fn inner_mut(&mut self) -> &mut C {
        &mut self.inner
    }
}

impl<C: CardChannel> CardChannel for Counting<C> {
    fn transmit(&mut self, apdu: &[u8]) -> Result<Vec<u8>, ChannelError> {
        let response = self.inner.transmit(apdu)?;
        self.apdus += 1;
        self.bytes += (apdu.len() + response.len()) as u64;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_adds_both_directions() {
        let mut channel = Counting::new(Applet::volatile());
        let response = channel
            .transmit(&[0x00, 0xB0, 0, 0])
            .expect("software card");
        assert_eq!(response, [0x6D, 0x00]);
        channel.transmit(&[0x00]).expect("software card");
        assert_eq!(channel.apdus(), 2);
        assert_eq!(channel.bytes(), 4 + 2 + 1 + 2);
    }
}
