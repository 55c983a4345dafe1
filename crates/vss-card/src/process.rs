//! A `vss-card` process started by a program (the scenario, the benchmark, the tests):
//! started with its transport, its log lines read, stopped with SIGTERM or killed on drop.

use std::io::{self, BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a started card has to log that it is ready.
pub const START_TIMEOUT: Duration = Duration::from_secs(10);

/// The `vss-card` binary: beside the running program's (cargo puts them in one directory,
/// so do installs), else the one on `PATH`.
pub fn card_binary() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            let dir = exe.parent()?;
            // Test binaries live one level down, in deps/.
            [dir.join("vss-card"), dir.parent()?.join("vss-card")]
                .into_iter()
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| PathBuf::from("vss-card"))
}

/// The card's command: `bin --state STATE` and the `transport` arguments (`--vpcd
/// HOST:PORT`, or `--listen ADDR` and optionally its bounds, `--idle-timeout-ms MS` and
/// the others of `vss-card --help`).
pub fn command(bin: &Path, state: &Path, transport: &[&str]) -> Command {
    let mut command = Command::new(bin);
    command.arg("--state").arg(state).args(transport);
    command
}

/// A running card, killed when dropped.
pub struct CardProcess {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl CardProcess {
    /// Starts [`command`]; its stderr lines are kept for [`CardProcess::wait_for`] and,
    /// when `echo` is set, copied to this stderr.
    pub fn start(bin: &Path, state: &Path, transport: &[&str], echo: bool) -> io::Result<Self> {
        let mut child = command(bin, state, transport)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", bin.display())))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| io::Error::other("no stderr"))?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if echo {
                    eprintln!("[card] {line}");
                }
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(CardProcess { child, lines })
    }

    /// Starts a card listening on a free loopback port and returns it with that address.
    pub fn start_tcp(bin: &Path, state: &Path, echo: bool) -> io::Result<(Self, SocketAddr)> {
        CardProcess::start_listening(bin, state, &[], echo)
    }

    /// [`CardProcess::start_tcp`] with the port's `bounds` (`--frame-timeout-ms MS`…).
    pub fn start_listening(
        bin: &Path,
        state: &Path,
        bounds: &[&str],
        echo: bool,
    ) -> io::Result<(Self, SocketAddr)> {
        let transport = [&["--listen", "127.0.0.1:0"][..], bounds].concat();
        let card = CardProcess::start(bin, state, &transport, echo)?;
        let line = card.wait_for("listening on", START_TIMEOUT)?;
        let addr = line
            .rsplit(' ')
            .next()
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| io::Error::other(format!("unexpected card log line: {line}")))?;
        Ok((card, addr))
    }

    /// The first log line containing `needle` within `timeout`; an error if the card
    /// exits or stays silent.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> io::Result<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return Ok(line),
                Ok(_) => {}
                Err(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("the card did not log {needle:?} in {timeout:?}"),
                    ))
                }
            }
        }
    }

    /// Sends SIGTERM and returns whether the card exited with status 0.
    pub fn terminate(mut self) -> io::Result<bool> {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()?;
        if !status.success() {
            return Err(io::Error::other("kill -TERM failed"));
        }
        Ok(self.child.wait()?.success())
    }
}

impl Drop for CardProcess {
    fn drop(&mut self) {
        // Already gone after terminate(); those errors say so and are of no interest.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
