//! The framing of vpcd and of the card's TCP port: a 2-byte big-endian length, then the
//! payload. A 1-byte payload is a control from the reader side; a longer one is a command
//! APDU, answered by a frame with the response APDU.

use crate::applet::Applet;
use std::io::{self, Read, Write};
use zeroize::Zeroizing;

/// The longest payload a frame carries (its length field is 2 bytes).
pub const MAX_FRAME: usize = u16::MAX as usize;
/// Control: power off (no answer).
pub const CTRL_POWER_OFF: u8 = 0x00;
/// Control: power on (no answer).
pub const CTRL_POWER_ON: u8 = 0x01;
/// Control: reset (no answer).
pub const CTRL_RESET: u8 = 0x02;
/// Control: get the ATR (answered with a frame holding the ATR).
pub const CTRL_GET_ATR: u8 = 0x04;
/// The card's answer to reset: direct convention, T=0 and T=1 offered, no historical
/// bytes, and the check byte.
pub const ATR: [u8; 5] = [0x3B, 0x80, 0x80, 0x01, 0x01];

/// The most command data a frame carries: a case 3E APDU, its 4 header bytes and 3-byte
/// `Lc` beside [`MAX_FRAME`] bytes in all (65,528; 65,526 with a 2-byte `Le`, case 4E).
/// The APDU format allows 65,535 ([`crate::MAX_DATA`]), which no 2-byte frame holds.
pub const MAX_FRAMED_DATA: usize = MAX_FRAME - 7;

/// A frame's payload, erased when dropped.
pub type Payload = Zeroizing<Vec<u8>>;

/// A connection that frames are served on, with hooks where its waits begin: the card's
/// TCP port bounds each wait there ([`crate::tcp`]), vpcd asks for quick ACKs.
pub trait FrameIo: Read + Write {
    /// Before waiting for the first byte of the next frame.
    fn before_frame(&mut self) {}
    /// Once a frame's first byte arrived: the rest of the frame follows.
    fn frame_started(&mut self) {}
    /// Before an answer is written.
    fn before_answer(&mut self) {}
}

/// Reads one frame's payload; `None` when the peer closed the connection between frames.
pub fn read_frame(r: &mut impl Read) -> io::Result<Option<Payload>> {
    read_frame_with(r, |_| ())
}

/// [`read_frame`], calling `started` once the frame's first byte arrived.
fn read_frame_with<R: Read>(
    r: &mut R,
    started: impl FnOnce(&mut R),
) -> io::Result<Option<Payload>> {
    let mut header = [0u8; 2];
    match r.read(&mut header[..1])? {
        0 => return Ok(None),
        _ => {
            started(r);
            r.read_exact(&mut header[1..])?
        }
    }
    let mut payload = Zeroizing::new(vec![0u8; usize::from(u16::from_be_bytes(header))]);
    r.read_exact(&mut payload)?;
    Ok(Some(payload))
}

/// The next frame on `stream`, its hooks called: `None` when the peer closed the connection
/// between frames.
pub fn next_frame(stream: &mut impl FrameIo) -> io::Result<Option<Payload>> {
    stream.before_frame();
    read_frame_with(stream, FrameIo::frame_started)
}

/// Writes one frame, header and payload in one write.
pub fn write_frame(w: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    let len = u16::try_from(payload.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "payload longer than a frame"))?;
    let mut frame = Zeroizing::new(Vec::with_capacity(2 + payload.len()));
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(payload);
    w.write_all(&frame)?;
    w.flush()
}

/// The card's answer to one payload: controls power-cycle the applet or ask for the ATR;
/// unknown controls and empty payloads are ignored (`None`, no frame is sent).
pub fn answer(applet: &mut Applet, payload: &[u8]) -> Option<Vec<u8>> {
    match payload {
        [] => None,
        [CTRL_POWER_OFF | CTRL_POWER_ON | CTRL_RESET] => {
            applet.reset();
            None
        }
        [CTRL_GET_ATR] => Some(ATR.to_vec()),
        [_] => None,
        apdu => Some(applet.process(apdu)),
    }
}

/// Answers `first` (a frame already read, if any), then every frame on `stream` until the
/// peer closes it (`Ok`) or it fails.
pub fn serve_frames(
    applet: &mut Applet,
    stream: &mut impl FrameIo,
    first: Option<Payload>,
) -> io::Result<()> {
    let mut next = first;
    loop {
        let payload = match next.take() {
            Some(payload) => payload,
            None => match next_frame(stream)? {
                Some(payload) => payload,
                None => return Ok(()),
            },
        };
        if let Some(response) = answer(applet, &payload) {
            let response = Zeroizing::new(response);
            stream.before_answer();
            write_frame(stream, &response)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_controls_are_answered() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &[1, 2, 3]).expect("write");
        assert_eq!(buf, [0, 3, 1, 2, 3]);
        let mut r = &buf[..];
        assert_eq!(
            read_frame(&mut r)
                .expect("read")
                .as_deref()
                .map(|v| v.as_slice()),
            Some(&[1u8, 2, 3][..])
        );
        assert!(read_frame(&mut r).expect("eof").is_none());
        assert!(read_frame(&mut &[0u8, 5, 1][..]).is_err());
        assert!(read_frame(&mut &[0u8][..]).is_err());
        assert!(write_frame(&mut Vec::new(), &vec![0; MAX_FRAME + 1]).is_err());

        let mut applet = Applet::volatile();
        assert_eq!(answer(&mut applet, &[CTRL_GET_ATR]), Some(ATR.to_vec()));
        assert_eq!(answer(&mut applet, &[CTRL_POWER_ON]), None);
        assert_eq!(answer(&mut applet, &[0x7F]), None);
        assert_eq!(answer(&mut applet, &[]), None);
        assert_eq!(
            answer(&mut applet, &[0x00, 0xA4, 0x04, 0x00, 0x01, 0x00]),
            Some(vec![0x6A, 0x82])
        );
        // The ATR's check byte makes the XOR of T0 to TCK zero.
        assert_eq!(ATR[1..].iter().fold(0, |x, b| x ^ b), 0);
    }

    /// Reads from one buffer, writes to another, counts the frames waited for.
    struct Duplex {
        input: io::Cursor<Vec<u8>>,
        output: Vec<u8>,
        frames: usize,
    }

    impl FrameIo for Duplex {
        fn before_frame(&mut self) {
            self.frames += 1;
        }
    }

    impl Read for Duplex {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.input.read(buf)
        }
    }

    impl Write for Duplex {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_session_answers_apdus_until_the_peer_closes() {
        let mut input = Vec::new();
        write_frame(&mut input, &[CTRL_POWER_ON]).expect("write");
        write_frame(&mut input, &[CTRL_GET_ATR]).expect("write");
        write_frame(&mut input, &[0x00, 0xA4, 0x04, 0x00, 0x01, 0x00]).expect("write");
        let mut stream = Duplex {
            input: io::Cursor::new(input),
            output: Vec::new(),
            frames: 0,
        };
        let mut applet = Applet::volatile();
        let first = Zeroizing::new(vec![CTRL_GET_ATR]);
        serve_frames(&mut applet, &mut stream, Some(first)).expect("serve");
        assert_eq!(stream.frames, 4);
        let mut want = Vec::new();
        write_frame(&mut want, &ATR).expect("write");
        write_frame(&mut want, &ATR).expect("write");
        write_frame(&mut want, &[0x6A, 0x82]).expect("write");
        assert_eq!(stream.output, want);
    }
}
