//! Helpers shared by the `vss` integration tests: running the binary, a store, a PRNG.

// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

pub mod served;

use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

/// The user PIN of every test store.
pub const PIN: &str = "1234";
/// The PUK of every test store.
pub const PUK: &str = "12345678";

/// `vss` with a clean environment as far as VSS is concerned (no inherited PIN, PUK or
/// store) and stdin that is not a terminal.
pub fn vss() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vss"));
    for var in ["VSS_PIN", "VSS_PUK", "VSS_NEW_PIN", "VSS_STORE"] {
        cmd.env_remove(var);
    }
    cmd.stdin(Stdio::null());
    cmd
}

/// What one run of `vss` produced.
#[derive(Debug)]
pub struct Run {
    /// Exit status.
    pub status: ExitStatus,
    /// Standard output (lossy UTF-8).
    pub stdout: String,
    /// Standard error (lossy UTF-8).
    pub stderr: String,
}

impl Run {
    /// Panics with the whole run shown unless it exited 0.
    pub fn success(self) -> Self {
        assert!(self.status.success(), "vss failed: {self:#?}");
        self.assert_no_panic();
        self
    }

    /// Panics with the whole run shown unless it exited non-zero (and did not panic).
    pub fn failure(self) -> Self {
        assert!(!self.status.success(), "vss should have failed: {self:#?}");
        assert!(
            self.status.code().is_some(),
            "killed by a signal: {self:#?}"
        );
        self.assert_no_panic();
        self
    }

    /// Panics unless stderr is exactly one non-empty line.
    pub fn one_line_stderr(self) -> Self {
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "stderr must be one line: {self:#?}");
        assert!(!lines[0].trim().is_empty(), "empty error line: {self:#?}");
        self
    }

    /// Panics if stderr reports a panic.
    pub fn assert_no_panic(&self) {
        assert!(
            !self.stderr.contains("panicked"),
            "vss panicked: {}",
            self.stderr
        );
    }

    /// Stdout parsed as one JSON document.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", self.stdout))
    }
}

/// Runs a command to completion with stdin closed.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("spawn vss");
    Run {
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `vss ARGS`.
pub fn vss_run(args: &[&str]) -> Run {
    run(vss().args(args))
}

/// Runs a command with `input` on stdin (written from another thread, so that a large input
/// cannot dead-lock against a large output) and returns the raw output.
pub fn run_with_input(cmd: &mut Command, input: Vec<u8>) -> (ExitStatus, Vec<u8>, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn vss");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        // A write error means vss closed its input early; the line count catches that.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for vss");
    writer.join().expect("writer thread");
    (
        out.status,
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `vss hsm init --store DIR` with [`PIN`] and [`PUK`] from the environment.
pub fn init_store(dir: &Path) {
    run(vss()
        .args(["hsm", "init", "--store"])
        .arg(dir)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .success();
}

/// A station's key store in `dir` with a p256 key `canonical`; its public key, SEC 1 hex.
pub fn station_with_canonical_key(dir: &Path) -> String {
    init_store(dir);
    let generate = [
        "keys",
        "generate",
        "--label",
        "canonical",
        "--curve",
        "p256",
    ];
    vss_store(dir, PIN, &generate).success();
    let export = ["keys", "export-public", "--label", "canonical"];
    vss_store(dir, PIN, &export)
        .success()
        .stdout
        .trim()
        .to_string()
}

/// `vss ARGS --store DIR` with `VSS_PIN=pin`.
pub fn vss_store(dir: &Path, pin: &str, args: &[&str]) -> Run {
    run(vss().args(args).arg("--store").arg(dir).env("VSS_PIN", pin))
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
