//! ISO/IEC 7816-4 command and response APDUs, short and extended length (section 5.1).
//!
//! A command is `CLA INS P1 P2` followed by one of the standard's cases: no body (case 1),
//! `Le` (2), `Lc data` (3) or `Lc data Le` (4); each length field is one byte (short) or,
//! after a leading `00`, two or three bytes (extended). A response is data followed by the
//! status word `SW1 SW2`.

use std::fmt;

/// The longest command data field: 65,535 bytes (extended `Lc`); through the 2-byte frames
/// of vpcd and the TCP port at most [`crate::frame::MAX_FRAMED_DATA`].
pub const MAX_DATA: usize = 65_535;
/// The most response bytes a command may ask for: 65,536 (extended `Le` of `00 00`).
pub const MAX_LE: usize = 65_536;

/// Why bytes are not a command APDU (all answered `67 00`, wrong length).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ApduError {
    /// Fewer than the four header bytes.
    #[error("shorter than the four header bytes")]
    TooShort,
    /// The body's length fields do not match its size (or `Lc` is zero).
    #[error("the length fields do not match the body")]
    BadLength,
}

/// A command APDU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// `CLA`.
    pub cla: u8,
    /// `INS`.
    pub ins: u8,
    /// `P1`.
    pub p1: u8,
    /// `P2`.
    pub p2: u8,
    /// The command data (empty for cases 1 and 2).
    pub data: Vec<u8>,
    /// `Ne`, the response bytes asked for (`None`: none, cases 1 and 3).
    pub le: Option<usize>,
}

/// A short `Le` byte: 1–255, and 0 meaning 256.
fn short_le(b: u8) -> usize {
    if b == 0 {
        256
    } else {
        usize::from(b)
    }
}

/// An extended `Le` field: 1–65,535, and `00 00` meaning 65,536.
fn extended_le(hi: u8, lo: u8) -> usize {
    match u16::from_be_bytes([hi, lo]) {
        0 => MAX_LE,
        n => usize::from(n),
    }
}

impl Command {
    /// Parses a command APDU of any of the seven cases (1, 2S, 3S, 4S, 2E, 3E, 4E).
    pub fn parse(bytes: &[u8]) -> Result<Self, ApduError> {
        let [cla, ins, p1, p2, body @ ..] = bytes else {
            return Err(ApduError::TooShort);
        };
        let (data, le): (&[u8], Option<usize>) = match body {
            [] => (&[], None),
            [le] => (&[], Some(short_le(*le))),
            [0, hi, lo] => (&[], Some(extended_le(*hi, *lo))),
            [0, hi, lo, rest @ ..] => {
                let lc = usize::from(u16::from_be_bytes([*hi, *lo]));
                match rest.len().checked_sub(lc) {
                    _ if lc == 0 => return Err(ApduError::BadLength),
                    Some(0) => (rest, None),
                    Some(2) => (&rest[..lc], Some(extended_le(rest[lc], rest[lc + 1]))),
                    _ => return Err(ApduError::BadLength),
                }
            }
            [lc, rest @ ..] => {
                let lc = usize::from(*lc);
                match rest.len().checked_sub(lc) {
                    _ if lc == 0 => return Err(ApduError::BadLength),
                    Some(0) => (rest, None),
                    Some(1) => (&rest[..lc], Some(short_le(rest[lc]))),
                    _ => return Err(ApduError::BadLength),
                }
            }
        };
        Ok(Command {
            cla: *cla,
            ins: *ins,
            p1: *p1,
            p2: *p2,
            data: data.to_vec(),
            le,
        })
    }

    /// The command's bytes: short length fields when the data and `Le` fit them, extended
    /// ones otherwise. `None` when the data or `Le` is longer than any APDU carries.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        if self.data.len() > MAX_DATA || self.le.is_some_and(|le| le == 0 || le > MAX_LE) {
            return None;
        }
        let extended = self.data.len() > 255 || self.le.is_some_and(|le| le > 256);
        let mut out = vec![self.cla, self.ins, self.p1, self.p2];
        if !self.data.is_empty() {
            if extended {
                out.push(0);
                out.extend_from_slice(&(self.data.len() as u16).to_be_bytes());
            } else {
                out.push(self.data.len() as u8);
            }
            out.extend_from_slice(&self.data);
        }
        if let Some(le) = self.le {
            if extended {
                if self.data.is_empty() {
                    out.push(0);
                }
                out.extend_from_slice(&((le % MAX_LE) as u16).to_be_bytes());
            } else {
                out.push((le % 256) as u8);
            }
        }
        Some(out)
    }
}

/// A status word, `SW1 SW2`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct StatusWord(pub u16);

impl StatusWord {
    /// `90 00`: done.
    pub const OK: StatusWord = StatusWord(0x9000);
    /// `65 81`: memory failure (the card's state could not be stored).
    pub const MEMORY_FAILURE: StatusWord = StatusWord(0x6581);
    /// `67 00`: wrong length.
    pub const WRONG_LENGTH: StatusWord = StatusWord(0x6700);
    /// `69 82`: security status not satisfied (the PIN was not verified).
    pub const SECURITY_NOT_SATISFIED: StatusWord = StatusWord(0x6982);
    /// `69 83`: authentication method blocked (no PIN tries left).
    pub const AUTHENTICATION_BLOCKED: StatusWord = StatusWord(0x6983);
    /// `69 85`: conditions of use not satisfied (not selected, not initialized, no system
    /// parameters, no commitment waiting, already initialized).
    pub const CONDITIONS_NOT_SATISFIED: StatusWord = StatusWord(0x6985);
    /// `6A 80`: incorrect data.
    pub const WRONG_DATA: StatusWord = StatusWord(0x6A80);
    /// `6A 82`: file or application not found (an unknown AID).
    pub const NOT_FOUND: StatusWord = StatusWord(0x6A82);
    /// `6A 84`: not enough memory space (a data object longer than its bound).
    pub const NOT_ENOUGH_MEMORY: StatusWord = StatusWord(0x6A84);
    /// `6A 86`: incorrect P1 or P2.
    pub const WRONG_P1_P2: StatusWord = StatusWord(0x6A86);
    /// `6A 88`: referenced data not found (a data object not set, or an unknown tag).
    pub const DATA_NOT_FOUND: StatusWord = StatusWord(0x6A88);
    /// `6D 00`: instruction not supported.
    pub const INS_NOT_SUPPORTED: StatusWord = StatusWord(0x6D00);
    /// `6E 00`: class not supported.
    pub const CLA_NOT_SUPPORTED: StatusWord = StatusWord(0x6E00);

    /// `6C xx`: wrong `Le`, fewer bytes asked for than the `available` ones, which `xx` tells
    /// (1 to 256, `00` standing for 256); past 256, which one byte cannot tell, `67 00`.
    pub fn wrong_le(available: usize) -> StatusWord {
        match u8::try_from(available % 256) {
            Ok(xx) if (1..=256).contains(&available) => StatusWord(0x6C00 | u16::from(xx)),
            _ => StatusWord::WRONG_LENGTH,
        }
    }

    /// `63 Cx`: verification failed, `tries` (at most 15) left.
    pub fn tries_left(tries: u8) -> StatusWord {
        StatusWord(0x63C0 | u16::from(tries.min(15)))
    }

    /// The tries left that a `63 Cx` tells, if it is one.
    pub fn tries(self) -> Option<u8> {
        (self.0 & 0xFFF0 == 0x63C0).then_some((self.0 & 0x000F) as u8)
    }
}

impl fmt::Debug for StatusWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [sw1, sw2] = self.0.to_be_bytes();
        write!(f, "{sw1:02X} {sw2:02X}")
    }
}

/// A response APDU: data and status word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The response data.
    pub data: Vec<u8>,
    /// The status word.
    pub sw: StatusWord,
}

impl Response {
    /// A response with data and `90 00`.
    pub fn ok(data: Vec<u8>) -> Self {
        Response {
            data,
            sw: StatusWord::OK,
        }
    }

    /// A response with no data.
    pub fn status(sw: StatusWord) -> Self {
        Response {
            data: Vec::new(),
            sw,
        }
    }

    /// The response's bytes: data, then `SW1 SW2`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.data.clone();
        out.extend_from_slice(&self.sw.0.to_be_bytes());
        out
    }

    /// Parses a response: at least the two status bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, ApduError> {
        let split = bytes.len().checked_sub(2).ok_or(ApduError::TooShort)?;
        let (data, sw) = bytes.split_at(split);
        Ok(Response {
            data: data.to_vec(),
            sw: StatusWord(u16::from_be_bytes([sw[0], sw[1]])),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(data: &[u8], le: Option<usize>) -> Command {
        Command {
            cla: 0x00,
            ins: 0xA4,
            p1: 0x04,
            p2: 0x00,
            data: data.to_vec(),
            le,
        }
    }

    #[test]
    fn the_seven_cases_parse_and_encode_as_the_standard_writes_them() {
        let cases: [(&[u8], Command); 7] = [
            (&[0, 0xA4, 4, 0], command(&[], None)),
            (&[0, 0xA4, 4, 0, 0], command(&[], Some(256))),
            (
                &[0, 0xA4, 4, 0, 2, 0xAA, 0xBB],
                command(&[0xAA, 0xBB], None),
            ),
            (&[0, 0xA4, 4, 0, 1, 0xAA, 0x10], command(&[0xAA], Some(16))),
            (&[0, 0xA4, 4, 0, 0, 0x01, 0x2C], command(&[], Some(300))),
            (&[0, 0xA4, 4, 0, 0, 0, 0], command(&[], Some(MAX_LE))),
            (
                &[0, 0xA4, 4, 0, 0, 0, 1, 0xAA, 0x01, 0x00],
                command(&[0xAA], Some(256)),
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(Command::parse(bytes), Ok(want.clone()), "{bytes:02x?}");
        }
        // Encoding picks short fields where they fit; every encoding parses back.
        for c in [
            command(&[], None),
            command(&[], Some(256)),
            command(&[1; 255], Some(256)),
            command(&[1; 256], None),
            command(&[1; 300], Some(MAX_LE)),
            command(&[], Some(257)),
        ] {
            let bytes = c.to_bytes().expect("fits");
            assert_eq!(Command::parse(&bytes), Ok(c.clone()), "{c:?}");
        }
        assert_eq!(
            command(&[7; 3], Some(2)).to_bytes(),
            Some(vec![0, 0xA4, 4, 0, 3, 7, 7, 7, 2])
        );
    }

    #[test]
    fn lengths_that_do_not_match_the_body_are_refused() {
        for bad in [
            &[0u8, 0xA4, 4][..],
            &[0, 0xA4, 4, 0, 3, 0xAA],
            &[0, 0xA4, 4, 0, 1, 0xAA, 0xBB, 0xCC],
            &[0, 0xA4, 4, 0, 0, 0, 0, 0xAA],
            &[0, 0xA4, 4, 0, 0, 0, 2, 0xAA],
            &[0, 0xA4, 4, 0, 0, 0, 1, 0xAA, 0x01],
            &[0, 0xA4, 4, 0, 0, 1],
        ] {
            assert!(Command::parse(bad).is_err(), "{bad:02x?}");
        }
        assert!(command(&vec![0; MAX_DATA + 1], None).to_bytes().is_none());
        assert!(command(&[], Some(MAX_LE + 1)).to_bytes().is_none());
        assert!(command(&[], Some(0)).to_bytes().is_none());
    }

    #[test]
    fn no_prefix_of_a_long_command_parses_as_that_command() {
        let full = command(&[0x5A; 300], Some(1000)).to_bytes().expect("fits");
        for end in 0..full.len() {
            // No prefix panics; the only one with all the data is the command without its
            // Le (case 3E), which is a command of its own.
            if let Ok(c) = Command::parse(&full[..end]) {
                let without_le = end == full.len() - 2 && c.le.is_none();
                assert!(c.data.len() < 300 || without_le, "{end}");
            }
        }
        assert_eq!(Command::parse(&full).map(|c| c.data.len()), Ok(300));
    }

    #[test]
    fn responses_carry_data_and_a_status_word() {
        let r = Response::ok(vec![1, 2]);
        assert_eq!(r.to_bytes(), vec![1, 2, 0x90, 0x00]);
        assert_eq!(Response::parse(&r.to_bytes()), Ok(r));
        assert_eq!(Response::parse(&[0x6A]), Err(ApduError::TooShort));
        assert_eq!(StatusWord::tries_left(2), StatusWord(0x63C2));
        assert_eq!(StatusWord::tries_left(2).tries(), Some(2));
        assert_eq!(StatusWord::OK.tries(), None);
        assert_eq!(format!("{:?}", StatusWord::NOT_FOUND), "6A 82");
        assert_eq!(StatusWord::wrong_le(4), StatusWord(0x6C04));
        assert_eq!(StatusWord::wrong_le(256), StatusWord(0x6C00));
        assert_eq!(StatusWord::wrong_le(257), StatusWord::WRONG_LENGTH);
        assert_eq!(StatusWord::wrong_le(0), StatusWord::WRONG_LENGTH);
    }
}
