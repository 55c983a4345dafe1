//! Where the user service finds its card: in this process, on a TCP port, or in a PC/SC
//! reader; each opened as a [`Card`] whose traffic is counted.

use crate::applet::Applet;
use crate::channel::{ChannelError, Counting, TcpChannel};
use crate::client::CardClient;
use vss_cred::holder::Card;

/// A card's whereabouts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardAddress {
    /// A software card in this process (P2ABCE's `/createSmartcard`), state in memory.
    Software,
    /// A card process's `--listen` address.
    Tcp(String),
    /// A card in a PC/SC reader: the named one, or the first whose card answers SELECT.
    Pcsc(Option<String>),
}

/// Opens the card at `address`.
pub fn open(address: &CardAddress) -> Result<Box<dyn Card + Send>, ChannelError> {
    Ok(match address {
        CardAddress::Software => Box::new(CardClient::new(Counting::new(Applet::volatile()))),
        CardAddress::Tcp(addr) => Box::new(CardClient::new(Counting::new(TcpChannel::connect(
            addr.as_str(),
        )?))),
        CardAddress::Pcsc(reader) => pcsc_card(reader.as_deref())?,
    })
}

#[cfg(feature = "pcsc")]
fn pcsc_card(reader: Option<&str>) -> Result<Box<dyn Card + Send>, ChannelError> {
    let channel = crate::pcsc::PcscChannel::connect(reader)?;
    Ok(Box::new(CardClient::new(Counting::new(channel))))
}

#[cfg(not(feature = "pcsc"))]
fn pcsc_card(_reader: Option<&str>) -> Result<Box<dyn Card + Send>, ChannelError> {
    Err(ChannelError::PcscNotBuilt)
}
