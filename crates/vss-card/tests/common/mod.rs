//! What the integration tests share: the `vss-card` process and the full flow of a proof's
//! card share through [`CardClient`].

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use vss_card::channel::CardChannel;
use vss_card::client::CardClient;
use vss_cred::group::{hash_to_curve_g1, random_scalar, G1};
use vss_cred::holder::{scope_base, HolderError, SecretHolder};

/// The test PIN.
pub const PIN: &[u8] = b"1234";
/// The test PUK.
pub const PUK: &[u8] = b"12345678";

/// A running `vss-card`, killed when dropped.
pub struct CardProcess {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl CardProcess {
    /// Starts `vss-card --state STATE` with `transport` arguments.
    pub fn start(state: &Path, transport: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vss-card"))
            .arg("--state")
            .arg(state)
            .args(transport)
            .stderr(Stdio::piped())
            .spawn()
            .expect("vss-card starts");
        let stderr = child.stderr.take().expect("stderr piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[card] {line}");
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        CardProcess { child, lines }
    }

    /// The first line on the card's stderr that contains `needle`, within ten seconds.
    pub fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .expect("the card logs in time");
            if line.contains(needle) {
                return line;
            }
        }
    }

    /// Sends SIGTERM and returns whether the card exited with status 0.
    pub fn terminate(mut self) -> bool {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(status.success());
        self.child.wait().expect("the card exits").success()
    }
}

impl Drop for CardProcess {
    fn drop(&mut self) {
        // Already gone after terminate(); the errors say so and are of no interest.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The base point of the tests' system parameters.
pub fn base() -> G1 {
    hash_to_curve_g1(b"base", b"VSS-CARD-TEST")
}

/// Selects, initializes, verifies the PIN (after one wrong try), stores the system
/// parameters and checks two card shares (with and without a scope); returns `P`.
pub fn full_flow<C: CardChannel>(card: &mut CardClient<C>) -> G1 {
    card.select().expect("select");
    card.initialize(PIN, PUK).expect("initialize");
    assert_eq!(card.public_point(), Err(HolderError::PinNotVerified));
    assert_eq!(card.verify_pin(b"0000"), Err(HolderError::WrongPin(2)));
    card.verify_pin(PIN).expect("verify");
    card.store_system_parameters(&base())
        .expect("system parameters");
    let p = card.public_point().expect("public point");

    let com = card.commit(Some(b"gate")).expect("commit");
    let c = random_scalar();
    let s = card.respond(&c).expect("respond");
    assert_eq!(base() * s, com.t + p * c);
    let nym = com.nym.expect("pseudonym");
    assert_eq!(scope_base(b"gate") * s, nym.t + nym.nym * c);
    assert_eq!(card.respond(&c), Err(HolderError::NoCommitment));

    let com = card.commit(None).expect("commit");
    let s = card.respond(&c).expect("respond");
    assert_eq!(base() * s, com.t + p * c);
    assert!(com.nym.is_none());
    p
}

/// The mean time of one APDU round trip over `pairs` COMMIT and RESPOND pairs.
pub fn round_trip<C: CardChannel>(card: &mut CardClient<C>, pairs: u32) -> Duration {
    let c = random_scalar();
    let start = Instant::now();
    for _ in 0..pairs {
        card.commit(None).expect("commit");
        card.respond(&c).expect("respond");
    }
    start.elapsed() / (2 * pairs)
}
