//! Radio → stack: secured packets verified in one batch, valid ones passed on unsecured,
//! the rest dropped and announced.

use vss_gn::{BasicHeader, Body, GnPacket, Unsecured};
use vss_its::{HashedId8, Psid, SignedMessage, Verdict};

use super::ethernet::{frame, Frame, Mac};
use super::identity::pseudonym_mac;
use super::neighbours::asks_for;
use super::{Bridge, Refusal};
use crate::events::Event;
use crate::verify::Outcome;

/// A frame from the radio after decoding: settled (with its ITS-AID and source, for the
/// announcement of a refusal), or a secured packet to verify.
enum Step<'a> {
    Settled(Result<Vec<u8>, Refusal>, Option<Psid>, String),
    Verify(Frame<'a>, BasicHeader, &'a [u8]),
}

/// Upper-case hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// Where a frame came from: `gn:MAC` and, where it could be read, `/` and the source GN
/// address in hexadecimal.
fn source(frame: Option<&Frame<'_>>, body: Option<&Unsecured>) -> String {
    let mac = frame.map_or_else(|| "?".to_string(), |f| f.source.to_string());
    match body.and_then(|b| b.source().address.to_bytes().ok()) {
        Some(address) => format!("gn:{mac}/{}", hex(&address)),
        None => format!("gn:{mac}"),
    }
}

impl Bridge {
    /// For each frame from the radio, in order, the unsecured frame for the stack, or why
    /// it was dropped (announced on the events socket); the secured ones are verified in
    /// one batch.
    pub fn to_stack(&self, frames: &[&[u8]]) -> Vec<Result<Vec<u8>, Refusal>> {
        let steps: Vec<Step<'_>> = frames.iter().map(|bytes| self.decode(bytes)).collect();
        let secured: Vec<&[u8]> = steps
            .iter()
            .filter_map(|step| match step {
                Step::Verify(_, _, data) => Some(*data),
                Step::Settled(..) => None,
            })
            .collect();
        let mut outcomes: std::vec::IntoIter<Result<Outcome, String>> =
            match self.vss.verify_batch(&secured) {
                Ok(outcomes) => outcomes.into_iter().map(Ok).collect::<Vec<_>>(),
                Err(e) => vec![Err(e.to_string()); secured.len()],
            }
            .into_iter();
        steps
            .into_iter()
            .map(|step| match step {
                Step::Settled(result, psid, source) => {
                    if let Err(refusal) = &result {
                        self.announce(refusal, psid, None, source);
                    }
                    result
                }
                Step::Verify(frame_in, basic, data) => {
                    let result = outcomes
                        .next()
                        .unwrap_or_else(|| Err("no outcome".into()))
                        .map_err(Refusal::VerifyFailed)
                        .and_then(|outcome| self.release(&frame_in, basic, data, outcome));
                    if let Err(refusal) = &result {
                        self.announce_secured(refusal, &frame_in, data);
                    }
                    result
                }
            })
            .collect()
    }

    /// Decodes a frame from the radio; an unsecured packet is passed on (where allowed) or
    /// dropped here.
    fn decode<'a>(&self, bytes: &'a [u8]) -> Step<'a> {
        let Some(frame_in) = Frame::parse(bytes) else {
            return Step::Settled(Err(Refusal::NotGeoNetworking), None, source(None, None));
        };
        match GnPacket::decode(frame_in.packet, &self.config.limits) {
            Err(e) => Step::Settled(
                Err(Refusal::Malformed(e)),
                None,
                source(Some(&frame_in), None),
            ),
            Ok(GnPacket {
                body: Body::Unsecured(body),
                basic,
            }) => {
                let psid = body.its_aid().map(Psid::new);
                let from = source(Some(&frame_in), Some(&body));
                let result = if self.config.allow_unsecured {
                    self.to_stack_frame(&frame_in, basic, body)
                } else {
                    Err(Refusal::Unsecured)
                };
                Step::Settled(result, psid, from)
            }
            Ok(GnPacket {
                body: Body::Secured(_),
                basic,
            }) => {
                let data = &frame_in.packet[BasicHeader::LEN..];
                Step::Verify(frame_in, basic, data)
            }
        }
    }

    /// Announces `refusal` of the secured packet `data`, with what can be read of it; a
    /// signer whose certificate is not known is asked for in the next CAM.
    fn announce_secured(&self, refusal: &Refusal, frame_in: &Frame<'_>, data: &[u8]) {
        let message = SignedMessage::from_bytes(data).ok();
        if let (Refusal::Invalid(Verdict::SignerNotFound), Some(digest)) = (
            refusal,
            message.as_ref().and_then(SignedMessage::signer_digest),
        ) {
            // Not this station's own certificate, echoed back to it.
            if self.vss.pseudonyms().current() != Some(digest) {
                self.vss
                    .sign_service()
                    .request_certificate(digest.hashed_id3());
            }
        }
        let body = message
            .as_ref()
            .and_then(SignedMessage::payload)
            .and_then(|p| Unsecured::decode(p, &self.config.limits).ok());
        let psid = message.as_ref().and_then(SignedMessage::psid);
        let signer = message.as_ref().and_then(SignedMessage::signer_id);
        self.announce(refusal, psid, signer, source(Some(frame_in), body.as_ref()));
    }

    fn announce(
        &self,
        refusal: &Refusal,
        psid: Option<Psid>,
        signer: Option<HashedId8>,
        source: String,
    ) {
        if let Some(events) = &self.events {
            let event = Event::dropped(refusal.name(), refusal.code(), psid, signer, source);
            events.publish(&event);
        }
    }

    /// The frame for the stack that a verified packet's `outcome` releases (the secured
    /// packet's `data` asked for the certificate or its signer is new: the next CAM carries
    /// the certificate).
    fn release(
        &self,
        frame_in: &Frame<'_>,
        basic: BasicHeader,
        data: &[u8],
        outcome: Outcome,
    ) -> Result<Vec<u8>, Refusal> {
        let (payload, psid, signer) = match outcome {
            Outcome::Valid {
                payload,
                psid,
                signer,
            } => (payload, psid, signer),
            Outcome::Invalid { verdict } => return Err(Refusal::Invalid(verdict)),
            Outcome::Skipped { .. } => return Err(Refusal::Skipped),
        };
        let packet = GnPacket::from_signed_payload(basic, &payload, &self.config.limits)
            .map_err(Refusal::Malformed)?;
        let Body::Unsecured(body) = packet.body else {
            return Err(Refusal::Secured);
        };
        let current = self.vss.pseudonyms().current();
        if current.map(pseudonym_mac) == Some(Mac(body.source().address.mid)) {
            return Err(Refusal::OwnPacket);
        }
        if let Some(id) = current.map(|c| c.hashed_id3()) {
            let new = self
                .neighbours
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .heard(signer);
            if new || asks_for(data, id) {
                self.vss.sign_service().certificate_requested(id);
            }
        }
        if let Some(port) = body.its_aid() {
            if port != psid.value() {
                return Err(Refusal::WrongItsAid { port, signed: psid });
            }
        }
        self.to_stack_frame(frame_in, basic, body)
    }

    /// The unsecured frame for the stack: from the bridge's stack-side MAC, to the frame's
    /// group address, or to the stack's MAC when it was addressed to one station.
    fn to_stack_frame(
        &self,
        frame_in: &Frame<'_>,
        basic: BasicHeader,
        body: Unsecured,
    ) -> Result<Vec<u8>, Refusal> {
        let bytes = GnPacket::unsecured(basic, body)
            .and_then(|packet| packet.encode())
            .map_err(Refusal::Malformed)?;
        let destination = match self.stack_mac() {
            Some(stack) if !frame_in.destination.is_group() => stack,
            _ => frame_in.destination,
        };
        Ok(frame(destination, self.config.stack_side_mac, &bytes))
    }
}
