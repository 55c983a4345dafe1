//! The card application as a state machine: command APDU bytes in, response APDU bytes
//! out, every state change stored before the answer.
//!
//! | Command | APDU | Answer |
//! |---|---|---|
//! | SELECT | `00 A4 04 00 Lc AID [Le]` | `90 00`; another AID `6A 82` |
//! | INITIALIZE | `80 10 00 00 Lc len ‖ PIN ‖ PUK` | `90 00`; once only, then `69 85` |
//! | VERIFY | `00 20 00 81 [Lc PIN]` | `90 00`, `63 Cx`, `69 83` blocked |
//! | RESET RETRY COUNTER | `00 2C 00 81 Lc PUK ‖ new PIN` | `90 00`, `63 Cx`, `69 83` |
//! | PUT DATA | `00 DA P1 P2 [Lc data]` (PIN) | `90 00`; tag `01 01` system parameters, `02 00`..`02 0F` slots, no data deletes a slot |
//! | GET DATA | `00 CA P1 P2 Le` | the object; unset `6A 88`; slots need the PIN; `DF 01` peak RSS in kB (4 bytes) |
//! | GET PUBLIC POINT | `80 12 00 00 Le` (PIN) | `P` (48) |
//! | COMMIT | `80 14 00 00 [Lc scope] Le` (PIN) | `T` (48) [‖ `nym` ‖ `T_nym`] |
//! | RESPOND | `80 16 00 00 Lc c Le` (PIN) | `s` (32); no commitment `69 85` |
//! | ERASE | `80 E6 00 00 Lc PUK` | `90 00`: back to the factory state (no secret, PIN, data); `63 Cx`, `69 83` |
//!
//! Every command but SELECT needs the application selected (else `69 85`). A malformed
//! APDU is `67 00`, a CLA other than the command's `6E 00`, an unknown INS `6D 00`, wrong
//! P1/P2 `6A 86`, bad data `6A 80`, a missing PIN `69 82`, missing system parameters `69 85`,
//! a state that could not be stored `65 81`.
//!
//! `Le` is kept as ISO/IEC 7816-4 (5.1) has it: `Ne` bytes at most are answered, `Le`
//! absent meaning none, `00` 256 (short) and `00 00` 65,536 (extended); fewer is no error.
//! Where the answer is longer than `Ne` the card does not truncate it (it keeps no data for
//! GET RESPONSE, which `61 xx` would promise): it answers the checking error `6C xx` with
//! the exact length (7816-4's "wrong Le field; SW2 encodes the exact number of available
//! data bytes"), or `67 00` past 256 bytes, and the command is not carried out: COMMIT and
//! RESPOND check `Le` before they touch the commitment.

use crate::apdu::{Command, Response, StatusWord};
use crate::codes::{codes_equal, pin_block, puk_block, CodeBlock, PUK_LEN};
use crate::params::{parse_base, MAX_SYSTEM_PARAMETERS};
use crate::state::{
    CardState, Credentials, StateError, Store, Volatile, MAX_SLOT_LEN, PIN_TRIES, PUK_TRIES, SLOTS,
};
use vss_cred::group::{g1_to_bytes, scalar_from_bytes, scalar_to_bytes, G1, G1_LEN, SCALAR_LEN};
use vss_cred::holder::{CardSecret, HolderError};
use zeroize::{Zeroize, Zeroizing};

/// The CLA of the ISO/IEC 7816-4 commands.
pub const CLA_ISO: u8 = 0x00;
/// The CLA of the card's proprietary commands.
pub const CLA_PROPRIETARY: u8 = 0x80;
/// SELECT.
pub const INS_SELECT: u8 = 0xA4;
/// VERIFY.
pub const INS_VERIFY: u8 = 0x20;
/// RESET RETRY COUNTER.
pub const INS_RESET_RETRY_COUNTER: u8 = 0x2C;
/// PUT DATA.
pub const INS_PUT_DATA: u8 = 0xDA;
/// GET DATA.
pub const INS_GET_DATA: u8 = 0xCA;
/// INITIALIZE (proprietary).
pub const INS_INITIALIZE: u8 = 0x10;
/// GET PUBLIC POINT (proprietary).
pub const INS_GET_PUBLIC_POINT: u8 = 0x12;
/// COMMIT (proprietary).
pub const INS_COMMIT: u8 = 0x14;
/// RESPOND (proprietary).
pub const INS_RESPOND: u8 = 0x16;
/// ERASE (proprietary): the card back to its factory state, with the PUK.
pub const INS_ERASE: u8 = 0xE6;
/// P2 of VERIFY and RESET RETRY COUNTER: the application's PIN.
pub const PIN_REFERENCE: u8 = 0x81;
/// The tag of the system parameters.
pub const TAG_SYSTEM_PARAMETERS: u16 = 0x0101;
/// The tag of the first credential slot; the slots are this and the next 15.
pub const TAG_FIRST_SLOT: u16 = 0x0200;
/// The tag of the card process's peak resident memory (GET DATA only).
pub const TAG_PEAK_RSS: u16 = 0xDF01;

/// The result of one command: response data, or the status word of a refusal.
type Answer = Result<Vec<u8>, StatusWord>;

/// The card application: its stored state and the session since the last reset.
pub struct Applet {
    state: CardState,
    store: Box<dyn Store + Send>,
    secret: Option<CardSecret>,
    base: Option<G1>,
    selected: bool,
    pin_verified: bool,
}

/// Which of the two codes a command presents.
#[derive(Clone, Copy)]
enum Code {
    Pin,
    Puk,
}

impl Applet {
    /// The applet over a loaded state, writing every change to `store`.
    pub fn new(state: CardState, store: Box<dyn Store + Send>) -> Result<Self, StateError> {
        let secret = match &state.credentials {
            Some(c) => {
                Some(CardSecret::from_bytes(&c.secret[..]).map_err(|_| StateError::Malformed)?)
            }
            None => None,
        };
        let base = match &state.system_parameters {
            Some(p) => Some(parse_base(p).map_err(|_| StateError::Malformed)?),
            None => None,
        };
        Ok(Applet {
            state,
            store,
            secret,
            base,
            selected: false,
            pin_verified: false,
        })
    }

    /// A fresh card whose state lives only in this process (the software card).
    pub fn volatile() -> Self {
        Applet {
            state: CardState::default(),
            store: Box::new(Volatile),
            secret: None,
            base: None,
            selected: false,
            pin_verified: false,
        }
    }

    /// Power-on or reset: deselects, forgets the verified PIN and any waiting commitment.
    pub fn reset(&mut self) {
        self.selected = false;
        self.pin_verified = false;
        if let Some(secret) = &self.secret {
            // A fresh copy of the secret has no commitment waiting.
            self.secret = CardSecret::from_bytes(&secret.to_bytes()[..]).ok();
        }
    }

    /// Answers one command APDU with the response APDU's bytes.
    pub fn process(&mut self, apdu: &[u8]) -> Vec<u8> {
        let response = match Command::parse(apdu) {
            Err(_) => Response::status(StatusWord::WRONG_LENGTH),
            Ok(mut command) => {
                let answer = self
                    .dispatch(&command)
                    .and_then(|data| check_le(&command, data.len()).map(|()| data));
                command.data.zeroize();
                match answer {
                    Ok(data) => Response::ok(data),
                    Err(sw) => Response::status(sw),
                }
            }
        };
        response.to_bytes()
    }

    fn dispatch(&mut self, c: &Command) -> Answer {
        let expected_cla = match c.ins {
            INS_SELECT | INS_VERIFY | INS_RESET_RETRY_COUNTER | INS_PUT_DATA | INS_GET_DATA => {
                CLA_ISO
            }
            INS_INITIALIZE | INS_GET_PUBLIC_POINT | INS_COMMIT | INS_RESPOND | INS_ERASE => {
                CLA_PROPRIETARY
            }
            _ if c.cla == CLA_ISO || c.cla == CLA_PROPRIETARY => {
                return Err(StatusWord::INS_NOT_SUPPORTED)
            }
            _ => return Err(StatusWord::CLA_NOT_SUPPORTED),
        };
        if c.cla != expected_cla {
            return Err(StatusWord::CLA_NOT_SUPPORTED);
        }
        if c.ins == INS_SELECT {
            return self.select(c);
        }
        if !self.selected {
            return Err(StatusWord::CONDITIONS_NOT_SATISFIED);
        }
        match c.ins {
            INS_VERIFY => self.verify(c),
            INS_RESET_RETRY_COUNTER => self.reset_retry_counter(c),
            INS_PUT_DATA => self.put_data(c),
            INS_GET_DATA => self.get_data(c),
            INS_INITIALIZE => self.initialize(c),
            INS_GET_PUBLIC_POINT => self.public_point(c),
            INS_COMMIT => self.commit(c),
            INS_ERASE => self.erase(c),
            _ => self.respond(c),
        }
    }

    /// Stores the state as `change` leaves it, and keeps it only once stored.
    fn update(&mut self, change: impl FnOnce(&mut CardState)) -> Result<(), StatusWord> {
        let mut next = self.state.clone();
        change(&mut next);
        self.store
            .save(&next)
            .map_err(|_| StatusWord::MEMORY_FAILURE)?;
        self.state = next;
        Ok(())
    }

    fn select(&mut self, c: &Command) -> Answer {
        if c.p1 != 0x04 || c.p2 != 0x00 {
            return Err(StatusWord::WRONG_P1_P2);
        }
        self.selected = c.data == crate::AID;
        self.pin_verified = false;
        if self.selected {
            Ok(Vec::new())
        } else {
            Err(StatusWord::NOT_FOUND)
        }
    }

    fn initialize(&mut self, c: &Command) -> Answer {
        expect_p1p2(c, 0x00, 0x00)?;
        if self.state.credentials.is_some() {
            return Err(StatusWord::CONDITIONS_NOT_SATISFIED);
        }
        let [pin_len, rest @ ..] = c.data.as_slice() else {
            return Err(StatusWord::WRONG_DATA);
        };
        let pin_len = usize::from(*pin_len);
        if rest.len() != pin_len + PUK_LEN {
            return Err(StatusWord::WRONG_DATA);
        }
        let (pin, puk) = rest.split_at(pin_len);
        let pin = pin_block(pin).ok_or(StatusWord::WRONG_DATA)?;
        let puk = puk_block(puk).ok_or(StatusWord::WRONG_DATA)?;
        let secret = CardSecret::generate();
        let credentials = Credentials {
            pin,
            puk,
            secret: secret.to_bytes(),
        };
        self.update(|s| {
            s.credentials = Some(credentials);
            s.pin_tries = PIN_TRIES;
            s.puk_tries = PUK_TRIES;
        })?;
        self.secret = Some(secret);
        Ok(Vec::new())
    }

    /// Spends one try of `code`, stored before the comparison, and restores the tries if
    /// `presented` is right.
    fn check_code(&mut self, code: Code, presented: &CodeBlock) -> Result<(), StatusWord> {
        let Some(credentials) = &self.state.credentials else {
            return Err(StatusWord::CONDITIONS_NOT_SATISFIED);
        };
        let (tries, max, stored) = match code {
            Code::Pin => (self.state.pin_tries, PIN_TRIES, credentials.pin.clone()),
            Code::Puk => (self.state.puk_tries, PUK_TRIES, credentials.puk.clone()),
        };
        if tries == 0 {
            return Err(StatusWord::AUTHENTICATION_BLOCKED);
        }
        let left = tries - 1;
        self.update(|s| set_tries(s, code, left))?;
        if !codes_equal(&stored, presented) {
            return Err(match left {
                0 => StatusWord::AUTHENTICATION_BLOCKED,
                n => StatusWord::tries_left(n),
            });
        }
        self.update(|s| set_tries(s, code, max))
    }

    fn verify(&mut self, c: &Command) -> Answer {
        expect_p1p2(c, 0x00, PIN_REFERENCE)?;
        if self.state.credentials.is_none() {
            return Err(StatusWord::CONDITIONS_NOT_SATISFIED);
        }
        if c.data.is_empty() {
            return match self.state.pin_tries {
                _ if self.pin_verified => Ok(Vec::new()),
                0 => Err(StatusWord::AUTHENTICATION_BLOCKED),
                n => Err(StatusWord::tries_left(n)),
            };
        }
        let pin = pin_block(&c.data).ok_or(StatusWord::WRONG_DATA)?;
        self.pin_verified = false;
        self.check_code(Code::Pin, &pin)?;
        self.pin_verified = true;
        Ok(Vec::new())
    }

    fn reset_retry_counter(&mut self, c: &Command) -> Answer {
        expect_p1p2(c, 0x00, PIN_REFERENCE)?;
        if c.data.len() < PUK_LEN {
            return Err(StatusWord::WRONG_DATA);
        }
        let (puk, new_pin) = c.data.split_at(PUK_LEN);
        let puk = puk_block(puk).ok_or(StatusWord::WRONG_DATA)?;
        let new_pin = pin_block(new_pin).ok_or(StatusWord::WRONG_DATA)?;
        self.check_code(Code::Puk, &puk)?;
        self.update(|s| {
            if let Some(credentials) = &mut s.credentials {
                credentials.pin = new_pin;
            }
            s.pin_tries = PIN_TRIES;
        })?;
        Ok(Vec::new())
    }

    fn erase(&mut self, c: &Command) -> Answer {
        expect_p1p2(c, 0x00, 0x00)?;
        let puk = puk_block(&c.data).ok_or(StatusWord::WRONG_DATA)?;
        self.check_code(Code::Puk, &puk)?;
        self.update(|s| *s = CardState::default())?;
        self.secret = None;
        self.base = None;
        self.pin_verified = false;
        Ok(Vec::new())
    }

    fn put_data(&mut self, c: &Command) -> Answer {
        if !self.pin_verified {
            return Err(StatusWord::SECURITY_NOT_SATISFIED);
        }
        match tag(c) {
            TAG_SYSTEM_PARAMETERS => {
                if c.data.len() > MAX_SYSTEM_PARAMETERS {
                    return Err(StatusWord::NOT_ENOUGH_MEMORY);
                }
                let base = parse_base(&c.data).map_err(|_| StatusWord::WRONG_DATA)?;
                self.update(|s| s.system_parameters = Some(c.data.clone()))?;
                self.base = Some(base);
                Ok(Vec::new())
            }
            t => {
                let slot = slot_index(t).ok_or(StatusWord::DATA_NOT_FOUND)?;
                if c.data.len() > MAX_SLOT_LEN {
                    return Err(StatusWord::NOT_ENOUGH_MEMORY);
                }
                let blob = (!c.data.is_empty()).then(|| c.data.clone());
                self.update(|s| s.slots[slot] = blob)?;
                Ok(Vec::new())
            }
        }
    }

    fn get_data(&mut self, c: &Command) -> Answer {
        if !c.data.is_empty() {
            return Err(StatusWord::WRONG_LENGTH);
        }
        let object = match tag(c) {
            TAG_PEAK_RSS => {
                let kb = crate::rss::peak_rss_kb().ok_or(StatusWord::DATA_NOT_FOUND)?;
                return Ok(kb.to_be_bytes().to_vec());
            }
            TAG_SYSTEM_PARAMETERS => &self.state.system_parameters,
            t => {
                let slot = slot_index(t).ok_or(StatusWord::DATA_NOT_FOUND)?;
                if !self.pin_verified {
                    return Err(StatusWord::SECURITY_NOT_SATISFIED);
                }
                &self.state.slots[slot]
            }
        };
        object.clone().ok_or(StatusWord::DATA_NOT_FOUND)
    }

    /// The secret and the base point, for a command that needs the PIN and both.
    fn ready(&mut self) -> Result<(&mut CardSecret, G1), StatusWord> {
        if !self.pin_verified {
            return Err(StatusWord::SECURITY_NOT_SATISFIED);
        }
        match (&mut self.secret, self.base) {
            (Some(secret), Some(base)) => Ok((secret, base)),
            _ => Err(StatusWord::CONDITIONS_NOT_SATISFIED),
        }
    }

    fn public_point(&mut self, c: &Command) -> Answer {
        expect_p1p2(c, 0x00, 0x00)?;
        if !c.data.is_empty() {
            return Err(StatusWord::WRONG_LENGTH);
        }
        let (secret, base) = self.ready()?;
        Ok(g1_to_bytes(&secret.public_point(&base)).to_vec())
    }

    fn commit(&mut self, c: &Command) -> Answer {
        expect_p1p2(c, 0x00, 0x00)?;
        let scope = (!c.data.is_empty()).then_some(c.data.as_slice());
        check_le(c, if scope.is_some() { 3 * G1_LEN } else { G1_LEN })?;
        let (secret, base) = self.ready()?;
        let commitment = secret
            .commit(&base, scope)
            .map_err(|_| StatusWord::WRONG_DATA)?;
        let mut out = g1_to_bytes(&commitment.t).to_vec();
        if let Some(nym) = commitment.nym {
            out.extend_from_slice(&g1_to_bytes(&nym.nym));
            out.extend_from_slice(&g1_to_bytes(&nym.t));
        }
        Ok(out)
    }

    fn respond(&mut self, c: &Command) -> Answer {
        expect_p1p2(c, 0x00, 0x00)?;
        if c.data.len() != SCALAR_LEN {
            return Err(StatusWord::WRONG_LENGTH);
        }
        check_le(c, SCALAR_LEN)?;
        let challenge = scalar_from_bytes(&c.data).map_err(|_| StatusWord::WRONG_DATA)?;
        let (secret, _) = self.ready()?;
        let s = secret.respond(&challenge).map_err(|e| match e {
            HolderError::NoCommitment => StatusWord::CONDITIONS_NOT_SATISFIED,
            _ => StatusWord::WRONG_DATA,
        })?;
        let out = Zeroizing::new(scalar_to_bytes(&s));
        Ok(out.to_vec())
    }
}

fn set_tries(state: &mut CardState, code: Code, tries: u8) {
    match code {
        Code::Pin => state.pin_tries = tries,
        Code::Puk => state.puk_tries = tries,
    }
}

/// Whether an answer of `len` bytes fits the command's `Ne` (none without `Le`), else the
/// `6C xx` that tells the exact length.
fn check_le(c: &Command, len: usize) -> Result<(), StatusWord> {
    if len <= c.le.unwrap_or(0) {
        Ok(())
    } else {
        Err(StatusWord::wrong_le(len))
    }
}

fn expect_p1p2(c: &Command, p1: u8, p2: u8) -> Result<(), StatusWord> {
    if c.p1 == p1 && c.p2 == p2 {
        Ok(())
    } else {
        Err(StatusWord::WRONG_P1_P2)
    }
}

fn tag(c: &Command) -> u16 {
    u16::from_be_bytes([c.p1, c.p2])
}

/// The slot a tag names, if it names one.
fn slot_index(tag: u16) -> Option<usize> {
    let index = usize::from(tag.checked_sub(TAG_FIRST_SLOT)?);
    (index < SLOTS).then_some(index)
}

#[cfg(test)]
mod tests;
