//! `vss pki serve` (or another serving command) as a child process on a free loopback port.

use std::ffi::OsString;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::{vss, PIN};

/// A `vss pki serve` process, killed when dropped.
pub struct Served {
    /// The process.
    pub child: Child,
    /// Its base URL (`http://127.0.0.1:PORT`).
    pub url: String,
}

impl Served {
    /// Sends SIGTERM and waits (at most 30 s) for the process to exit: how it exited.
    pub fn terminate(&mut self) -> ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success(), "kill -TERM: {sent}");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "still running 30 s after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the process at once (SIGKILL: no clean shutdown) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.kill();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("address")
        .port()
}

/// Serves the PKI in `dir` (with `extra` arguments, e.g. `--database URL`) and waits until
/// it listens.
pub fn serve(dir: &Path, extra: &[&str]) -> Served {
    let mut args: Vec<OsString> = vec!["pki".into(), "serve".into(), "--dir".into(), dir.into()];
    args.extend(extra.iter().map(OsString::from));
    listening(&args)
}

/// `vss ARGS --listen 127.0.0.1:PORT` on a free port, once it listens.
pub fn listening(args: &[OsString]) -> Served {
    listening_logged(args, Stdio::null())
}

/// [`listening`], its standard error (its log) going to `log`.
pub fn listening_logged(args: &[OsString], log: impl Into<Stdio>) -> Served {
    let listen = format!("127.0.0.1:{}", free_port());
    let child = vss()
        .args(args)
        .args(["--listen", &listen])
        .env("VSS_PIN", PIN)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("spawn vss");
    let mut served = Served {
        child,
        url: format!("http://{listen}"),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(&listen).is_err() {
        if let Ok(Some(status)) = served.child.try_wait() {
            panic!("vss {args:?} exited: {status}");
        }
        assert!(Instant::now() < deadline, "vss {args:?} did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    served
}
