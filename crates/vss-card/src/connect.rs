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

impl std::str::FromStr for CardAddress {
    type Err = ChannelError;

    /// `software`, `tcp:HOST:PORT`, `pcsc` or `pcsc:READER NAME`.
    fn from_str(text: &str) -> Result<Self, ChannelError> {
        match text.split_once(':') {
            None if text == "software" => Ok(CardAddress::Software),
            None if text == "pcsc" => Ok(CardAddress::Pcsc(None)),
            Some(("tcp", addr)) if !addr.is_empty() => Ok(CardAddress::Tcp(addr.to_string())),
            Some(("pcsc", reader)) if !reader.is_empty() => {
                Ok(CardAddress::Pcsc(Some(reader.to_string())))
            }
            _ => Err(ChannelError::Address(text.to_string())),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse() {
        let parse = |t: &str| t.parse::<CardAddress>();
        assert_eq!(parse("software").ok(), Some(CardAddress::Software));
        assert_eq!(
            parse("tcp:127.0.0.1:9").ok(),
            Some(CardAddress::Tcp("127.0.0.1:9".into()))
        );
        assert_eq!(parse("pcsc").ok(), Some(CardAddress::Pcsc(None)));
        assert_eq!(
            parse("pcsc:Virtual PCD 00 00").ok(),
            Some(CardAddress::Pcsc(Some("Virtual PCD 00 00".into())))
        );
        for bad in ["", "tcp", "tcp:", "pcsc:", "usb:1", "soft"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
