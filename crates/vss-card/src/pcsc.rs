//! The PC/SC channel (feature `pcsc`): a card in a reader of pcscd, such as `vss-card
//! --vpcd` behind vsmartcard's vpcd driver.

use crate::channel::{CardChannel, ChannelError};
use crate::AID;
use pcsc::{Card, Context, Protocols, Scope, ShareMode, MAX_BUFFER_SIZE_EXTENDED};

/// A card reached through PC/SC.
pub struct PcscChannel {
    card: Card,
    reader: String,
}

impl PcscChannel {
    /// Connects to the card in `reader`, or with no name to the first reader whose card
    /// answers SELECT of the application with `90 00`.
    pub fn connect(reader: Option<&str>) -> Result<Self, ChannelError> {
        let context = Context::establish(Scope::User)?;
        for name in context.list_readers_owned()? {
            let display = name.to_string_lossy().into_owned();
            if reader.is_some_and(|wanted| wanted != display) {
                continue;
            }
            let Ok(card) = context.connect(&name, ShareMode::Shared, Protocols::ANY) else {
                continue;
            };
            let mut channel = PcscChannel {
                card,
                reader: display,
            };
            if reader.is_some() || channel.selects_the_application() {
                return Ok(channel);
            }
        }
        Err(ChannelError::NoCard)
    }

    /// The reader's name.
    pub fn reader(&self) -> &str {
        &self.reader
    }

    fn selects_the_application(&mut self) -> bool {
        let mut select = vec![0x00, 0xA4, 0x04, 0x00, AID.len() as u8];
        select.extend_from_slice(&AID);
        self.transmit(&select)
            .is_ok_and(|response| response.ends_with(&[0x90, 0x00]))
    }
}

impl CardChannel for PcscChannel {
    fn transmit(&mut self, apdu: &[u8]) -> Result<Vec<u8>, ChannelError> {
        let mut buffer = vec![0u8; MAX_BUFFER_SIZE_EXTENDED];
        let response = self.card.transmit(apdu, &mut buffer)?;
        Ok(response.to_vec())
    }
}
