//! Where the user service finds its card: in this process, on a TCP port, or in a PC/SC
//! reader; each opened as a [`Card`] whose traffic is counted. [`CardChoice`] is a card as
//! a command line names it (`--card KIND --card-addr ADDR --reader NAME`).

use crate::applet::Applet;
use crate::channel::{ChannelError, Counting, TcpChannel};
use crate::client::CardClient;
use crate::process::{card_binary, CardProcess};
use std::path::Path;
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

/// Opens the card at an address written as [`CardAddress`] parses it.
pub fn open_address(address: &str) -> Result<Box<dyn Card + Send>, ChannelError> {
    open(&address.parse()?)
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

/// Kinds of card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum CardKind {
    /// A software card in this process; its state ends with it.
    Soft,
    /// A card process on TCP.
    Tcp,
    /// A card in a PC/SC reader (pcscd).
    Pcsc,
}

/// The longest --card-addr or --reader accepted, in bytes.
pub const MAX_CARD_ADDRESS_LEN: usize = 255;

/// Why the card a command line names could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// `option` was given with another kind of card than `kind`, the one it goes with.
    #[error("{option} goes with --card {kind}")]
    Mismatch {
        /// `--card-addr` or `--reader`.
        option: &'static str,
        /// `tcp` or `pcsc`.
        kind: &'static str,
    },
    /// An address or reader name that is empty, too long or has control characters.
    #[error("{0} must be 1 to {MAX_CARD_ADDRESS_LEN} bytes without control characters")]
    Bounds(&'static str),
    /// `--card tcp` without the card's address.
    #[error("--card tcp needs --card-addr (the address of `vss card serve --listen`)")]
    NoAddress,
    /// The software card, where the card must outlast the command.
    #[error("a software card lives only as long as this command: use --card tcp or pcsc")]
    Volatile,
    /// No card answered at the address.
    #[error("cannot reach the card ({address:?}): {source}")]
    Unreachable {
        /// Where the card should be.
        address: CardAddress,
        /// What happened.
        source: ChannelError,
    },
    /// A card process could not be started.
    #[error("starting a card process (vss-card): {0}")]
    Start(#[source] std::io::Error),
}

/// A card as a command line names it: its kind, a card process's TCP address (`tcp`), a
/// PC/SC reader (`pcsc`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardChoice {
    /// Where the card is.
    pub kind: CardKind,
    /// The TCP address of a card process (`vss card serve --listen`), for `tcp`.
    pub addr: Option<String>,
    /// The PC/SC reader, for `pcsc` (default: the first whose card has the application).
    pub reader: Option<String>,
}

impl CardChoice {
    /// `addr` goes with `tcp` and `reader` with `pcsc`; each is 1 to
    /// [`MAX_CARD_ADDRESS_LEN`] bytes with no control characters.
    pub fn check(&self) -> Result<(), OpenError> {
        for (option, value, wanted) in [
            ("--card-addr", &self.addr, CardKind::Tcp),
            ("--reader", &self.reader, CardKind::Pcsc),
        ] {
            let Some(value) = value else { continue };
            if self.kind != wanted {
                let kind = if wanted == CardKind::Tcp {
                    "tcp"
                } else {
                    "pcsc"
                };
                return Err(OpenError::Mismatch { option, kind });
            }
            if value.is_empty()
                || value.len() > MAX_CARD_ADDRESS_LEN
                || value.chars().any(char::is_control)
            {
                return Err(OpenError::Bounds(option));
            }
        }
        Ok(())
    }

    /// The card's address, once checked; `tcp` needs `addr`.
    pub fn address(&self) -> Result<CardAddress, OpenError> {
        self.check()?;
        Ok(match self.kind {
            CardKind::Soft => CardAddress::Software,
            CardKind::Tcp => CardAddress::Tcp(self.addr.clone().ok_or(OpenError::NoAddress)?),
            CardKind::Pcsc => CardAddress::Pcsc(self.reader.clone()),
        })
    }

    /// Opens the card.
    pub fn open(&self) -> Result<Box<dyn Card + Send>, OpenError> {
        reach(self.address()?)
    }

    /// Opens a card whose state outlasts this process: not the software card.
    pub fn open_lasting(&self) -> Result<Box<dyn Card + Send>, OpenError> {
        if self.kind == CardKind::Soft {
            return Err(OpenError::Volatile);
        }
        self.open()
    }

    /// Opens the card, starting a card process on loopback TCP (its state in `state`) for
    /// `tcp` without an address; that process, if one was started, is killed when dropped.
    pub fn open_or_start(
        &self,
        state: &Path,
    ) -> Result<(Box<dyn Card + Send>, Option<CardProcess>), OpenError> {
        self.check()?;
        if let (CardKind::Tcp, None) = (self.kind, &self.addr) {
            let (process, addr) =
                CardProcess::start_tcp(&card_binary(), state, false).map_err(OpenError::Start)?;
            let card = reach(CardAddress::Tcp(addr.to_string()))?;
            return Ok((card, Some(process)));
        }
        Ok((self.open()?, None))
    }
}

/// Opens the card at `address`, saying where on failure.
fn reach(address: CardAddress) -> Result<Box<dyn Card + Send>, OpenError> {
    open(&address).map_err(|source| OpenError::Unreachable { address, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_go_with_their_kind_and_are_bounded() {
        let choice = |kind, addr: Option<&str>, reader: Option<&str>| CardChoice {
            kind,
            addr: addr.map(str::to_string),
            reader: reader.map(str::to_string),
        };
        let text = |c: CardChoice| c.address().map_err(|e| e.to_string());
        assert_eq!(
            text(choice(CardKind::Tcp, Some("127.0.0.1:9"), None)),
            Ok(CardAddress::Tcp("127.0.0.1:9".into()))
        );
        assert_eq!(
            text(choice(CardKind::Pcsc, None, Some("r"))),
            Ok(CardAddress::Pcsc(Some("r".into())))
        );
        assert_eq!(
            text(choice(CardKind::Soft, Some("a"), None)),
            Err("--card-addr goes with --card tcp".into())
        );
        assert_eq!(
            text(choice(CardKind::Tcp, None, Some("r"))),
            Err("--reader goes with --card pcsc".into())
        );
        assert_eq!(
            text(choice(CardKind::Tcp, Some("a\tb"), None)),
            Err("--card-addr must be 1 to 255 bytes without control characters".into())
        );
        assert_eq!(
            text(choice(CardKind::Tcp, None, None)),
            Err("--card tcp needs --card-addr (the address of `vss card serve --listen`)".into())
        );
        assert!(matches!(
            choice(CardKind::Soft, None, None).open_lasting(),
            Err(OpenError::Volatile)
        ));
    }

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
