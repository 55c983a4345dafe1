//! The user service's side of the card: [`CardClient`] builds the card's commands (see
//! [`crate::applet`]) over any [`CardChannel`] and is a [`SecretHolder`].

use crate::apdu::{Command, Response, StatusWord};
use crate::applet::{
    CLA_ISO, CLA_PROPRIETARY, INS_COMMIT, INS_ERASE, INS_GET_DATA, INS_GET_PUBLIC_POINT,
    INS_INITIALIZE, INS_PUT_DATA, INS_RESET_RETRY_COUNTER, INS_RESPOND, INS_SELECT, INS_VERIFY,
    PIN_REFERENCE, TAG_FIRST_SLOT, TAG_PEAK_RSS, TAG_SYSTEM_PARAMETERS,
};
use crate::channel::{CardChannel, Counting};
use crate::params::encode_system_parameters;
use crate::AID;
use vss_cred::group::{
    g1_nonzero_from_bytes, scalar_from_bytes, scalar_to_bytes, Scalar, G1, G1_LEN, SCALAR_LEN,
};
use vss_cred::holder::{
    Card, CardCommitment, HolderError, PseudonymCommitment, SecretHolder, Traffic, MAX_SCOPE_LEN,
};
use vss_cred::spec::SystemParameters;
use zeroize::Zeroizing;

/// The card's commands over a channel.
pub struct CardClient<C> {
    channel: C,
}

/// The holder error a refusal stands for: `69 82` the PIN not verified, `63 Cx` a wrong
/// code with x tries left, `69 83` blocked, any other status word as it is.
pub fn holder_error(sw: StatusWord) -> HolderError {
    match sw {
        StatusWord::SECURITY_NOT_SATISFIED => HolderError::PinNotVerified,
        StatusWord::AUTHENTICATION_BLOCKED => HolderError::Blocked,
        sw => match sw.tries() {
            Some(tries) => HolderError::WrongPin(tries),
            None => HolderError::Card(sw.0),
        },
    }
}

fn command(cla: u8, ins: u8, p1: u8, p2: u8, data: &[u8], le: Option<usize>) -> Command {
    Command {
        cla,
        ins,
        p1,
        p2,
        data: data.to_vec(),
        le,
    }
}

impl<C: CardChannel> CardClient<C> {
    /// A client over `channel`.
    pub fn new(channel: C) -> Self {
        CardClient { channel }
    }

    /// The channel.
    pub fn channel_mut(&mut self) -> &mut C {
        &mut self.channel
    }

    /// Sends `command` and returns the response, whatever its status word.
    pub fn send(&mut self, command: &Command) -> Result<Response, HolderError> {
        let bytes = Zeroizing::new(command.to_bytes().ok_or(HolderError::Malformed)?);
        let response = self
            .channel
            .transmit(&bytes)
            .map_err(|e| HolderError::Transport(e.to_string()))?;
        Response::parse(&response).map_err(|_| HolderError::Malformed)
    }

    /// Sends `command` and returns the response data of a `90 00`.
    fn call(&mut self, command: Command) -> Result<Vec<u8>, HolderError> {
        let mut command = command;
        let result = self.send(&command);
        zeroize::Zeroize::zeroize(&mut command.data);
        let response = result?;
        if response.sw == StatusWord::OK {
            Ok(response.data)
        } else {
            Err(holder_error(response.sw))
        }
    }

    /// SELECT of the application.
    pub fn select(&mut self) -> Result<(), HolderError> {
        self.call(command(CLA_ISO, INS_SELECT, 0x04, 0x00, &AID, None))
            .map(drop)
    }

    /// INITIALIZE with the PIN (4 to 8 digits) and the PUK (8 digits); a PIN over 255 bytes
    /// is [`HolderError::InvalidCode`], sent nowhere.
    pub fn initialize(&mut self, pin: &[u8], puk: &[u8]) -> Result<(), HolderError> {
        let pin_len = u8::try_from(pin.len()).map_err(|_| HolderError::InvalidCode)?;
        let mut data = Zeroizing::new(vec![pin_len]);
        data.extend_from_slice(pin);
        data.extend_from_slice(puk);
        self.call(command(CLA_PROPRIETARY, INS_INITIALIZE, 0, 0, &data, None))
            .map(drop)
    }

    /// VERIFY of the PIN.
    pub fn verify_pin(&mut self, pin: &[u8]) -> Result<(), HolderError> {
        self.call(command(CLA_ISO, INS_VERIFY, 0, PIN_REFERENCE, pin, None))
            .map(drop)
    }

    /// RESET RETRY COUNTER: unblocks the PIN with the PUK and sets a new PIN.
    pub fn reset_retry_counter(&mut self, puk: &[u8], new_pin: &[u8]) -> Result<(), HolderError> {
        let mut data = Zeroizing::new(puk.to_vec());
        data.extend_from_slice(new_pin);
        let c = command(
            CLA_ISO,
            INS_RESET_RETRY_COUNTER,
            0,
            PIN_REFERENCE,
            &data,
            None,
        );
        self.call(c).map(drop)
    }

    /// PUT DATA of the object `tag`; no data deletes a slot.
    pub fn put_data(&mut self, tag: u16, data: &[u8]) -> Result<(), HolderError> {
        let [p1, p2] = tag.to_be_bytes();
        self.call(command(CLA_ISO, INS_PUT_DATA, p1, p2, data, None))
            .map(drop)
    }

    /// GET DATA of the object `tag`.
    pub fn get_data(&mut self, tag: u16) -> Result<Vec<u8>, HolderError> {
        let [p1, p2] = tag.to_be_bytes();
        self.call(command(
            CLA_ISO,
            INS_GET_DATA,
            p1,
            p2,
            &[],
            Some(crate::MAX_LE),
        ))
    }

    /// Returns the card to its factory state (its secret, PIN and data erased), with the PUK.
    pub fn erase(&mut self, puk: &[u8]) -> Result<(), HolderError> {
        self.call(command(CLA_PROPRIETARY, INS_ERASE, 0, 0, puk, None))
            .map(|_| ())
    }

    /// Stores the system parameters with the base point of `P` and `T`.
    pub fn store_system_parameters(&mut self, base: &G1) -> Result<(), HolderError> {
        self.put_data(TAG_SYSTEM_PARAMETERS, &encode_system_parameters(base, &[]))
    }

    /// The card process's peak resident memory in kB.
    pub fn peak_rss_kb(&mut self) -> Result<u32, HolderError> {
        let data = self.get_data(TAG_PEAK_RSS)?;
        let bytes: [u8; 4] = data.try_into().map_err(|_| HolderError::Malformed)?;
        Ok(u32::from_be_bytes(bytes))
    }
}

fn point(bytes: &[u8]) -> Result<G1, HolderError> {
    g1_nonzero_from_bytes(bytes).map_err(|_| HolderError::Malformed)
}

impl<C: CardChannel> SecretHolder for CardClient<C> {
    fn public_point(&mut self) -> Result<G1, HolderError> {
        let c = command(
            CLA_PROPRIETARY,
            INS_GET_PUBLIC_POINT,
            0,
            0,
            &[],
            Some(G1_LEN),
        );
        point(&self.call(c)?)
    }

    /// An empty scope cannot be sent (a command's data is never empty) and is refused as
    /// [`HolderError::Malformed`].
    fn commit(&mut self, scope: Option<&[u8]>) -> Result<CardCommitment, HolderError> {
        if scope.is_some_and(<[u8]>::is_empty) {
            return Err(HolderError::Malformed);
        }
        let scope = scope.unwrap_or_default();
        if scope.len() > MAX_SCOPE_LEN {
            return Err(HolderError::ScopeTooLong(scope.len()));
        }
        let le = if scope.is_empty() { G1_LEN } else { 3 * G1_LEN };
        let c = command(CLA_PROPRIETARY, INS_COMMIT, 0, 0, scope, Some(le));
        let data = self.call(c)?;
        match (data.len(), scope.is_empty()) {
            (G1_LEN, true) => Ok(CardCommitment {
                t: point(&data)?,
                nym: None,
            }),
            (n, false) if n == 3 * G1_LEN => Ok(CardCommitment {
                t: point(&data[..G1_LEN])?,
                nym: Some(PseudonymCommitment {
                    nym: point(&data[G1_LEN..2 * G1_LEN])?,
                    t: point(&data[2 * G1_LEN..])?,
                }),
            }),
            _ => Err(HolderError::Malformed),
        }
    }

    /// `69 85` (no commitment waiting) is [`HolderError::NoCommitment`].
    fn respond(&mut self, challenge: &Scalar) -> Result<Scalar, HolderError> {
        let c = command(
            CLA_PROPRIETARY,
            INS_RESPOND,
            0,
            0,
            &scalar_to_bytes(challenge),
            Some(SCALAR_LEN),
        );
        match self.call(c) {
            Err(HolderError::Card(sw)) if sw == StatusWord::CONDITIONS_NOT_SATISFIED.0 => {
                Err(HolderError::NoCommitment)
            }
            Err(e) => Err(e),
            Ok(data) => scalar_from_bytes(&data).map_err(|_| HolderError::Malformed),
        }
    }
}

/// The card over a counted channel is the user service's [`Card`].
impl<C: CardChannel> Card for CardClient<Counting<C>> {
    fn setup(
        &mut self,
        pin: &str,
        puk: &str,
        system: &SystemParameters,
    ) -> Result<(), HolderError> {
        self.select()?;
        match self.initialize(pin.as_bytes(), puk.as_bytes()) {
            Err(HolderError::Card(sw)) if sw == StatusWord::CONDITIONS_NOT_SATISFIED.0 => {
                return Err(HolderError::AlreadySetUp)
            }
            // The only data of INITIALIZE are the codes: the caller's, not the card's, fault.
            Err(HolderError::Card(sw))
                if sw == StatusWord::WRONG_DATA.0 || sw == StatusWord::WRONG_LENGTH.0 =>
            {
                return Err(HolderError::InvalidCode)
            }
            other => other?,
        }
        self.verify_pin(pin.as_bytes())?;
        self.store_system_parameters(&system.secret_base)
    }

    fn erase(&mut self, puk: &str) -> Result<(), HolderError> {
        self.select()?;
        CardClient::erase(self, puk.as_bytes())
    }

    fn verify_pin(&mut self, pin: &str) -> Result<(), HolderError> {
        self.select()?;
        CardClient::verify_pin(self, pin.as_bytes())
    }

    fn store_credential(&mut self, slot: u8, bytes: &[u8]) -> Result<(), HolderError> {
        self.put_data(TAG_FIRST_SLOT + u16::from(slot), bytes)
    }

    fn load_credential(&mut self, slot: u8) -> Result<Option<Vec<u8>>, HolderError> {
        match self.get_data(TAG_FIRST_SLOT + u16::from(slot)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(HolderError::Card(sw)) if sw == StatusWord::DATA_NOT_FOUND.0 => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn peak_rss_kb(&mut self) -> Result<u32, HolderError> {
        CardClient::peak_rss_kb(self)
    }

    fn traffic(&self) -> Traffic {
        Traffic {
            apdus: self.channel.apdus(),
            bytes: self.channel.bytes(),
        }
    }
}
