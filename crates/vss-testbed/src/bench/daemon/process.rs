//! `vssd` as a child process of the bench: started from the entity's configuration, ready
//! once its socket answers `Status`, stopped with SIGTERM (and killed if dropped first).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use vss_proto::proto::StatusRequest;

/// How long `vssd` may take to answer its first call, and to exit after SIGTERM.
const PATIENCE: Duration = Duration::from_secs(30);

/// The `vssd` beside this `vss` (`cargo build` puts them together), else the one on `PATH`.
pub(super) fn default_binary() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("vssd")))
        .filter(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from("vssd"))
}

/// An error unless `binary` is a file, or a bare name for `PATH` to find (checked before
/// the messages are signed, so a wrong `--vssd` fails at once).
pub(super) fn check_binary(binary: &Path) -> Result<()> {
    if binary.components().count() > 1 && !binary.is_file() {
        bail!(
            "{}: no vssd there (build it with `cargo build -p vss-daemon`, or name it with --vssd)",
            binary.display()
        );
    }
    Ok(())
}

/// A running `vssd`.
pub(super) struct Daemon {
    child: Child,
    log: PathBuf,
}

impl Daemon {
    /// Starts `binary --config config` (its log in `dir`) and waits on `runtime` until it
    /// answers `Status` on `socket`.
    pub(super) fn start(
        binary: &Path,
        config: &Path,
        socket: &Path,
        dir: &Path,
        runtime: &tokio::runtime::Runtime,
    ) -> Result<Daemon> {
        let log = dir.join("vssd.log");
        let child = Command::new(binary)
            .arg("--config")
            .arg(config)
            .args(["--log-level", "warn"])
            .env_remove("NOTIFY_SOCKET")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log)?)
            .spawn()
            .with_context(|| format!("cannot start {}", binary.display()))?;
        let mut daemon = Daemon { child, log };
        let started = Instant::now();
        runtime.block_on(async {
            loop {
                if let Ok(mut client) = vss_proto::client::connect(socket).await {
                    if client.status(StatusRequest {}).await.is_ok() {
                        return Ok(());
                    }
                }
                if let Some(status) = daemon.child.try_wait()? {
                    bail!("vssd exited with {status}: {}", daemon.log_text());
                }
                if started.elapsed() > PATIENCE {
                    bail!(
                        "vssd did not answer within {PATIENCE:?}: {}",
                        daemon.log_text()
                    );
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })?;
        Ok(daemon)
    }

    /// Its process id.
    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops it with SIGTERM; an error unless it exits 0 in time.
    pub(super) fn stop(mut self) -> Result<()> {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .context("cannot run kill")?;
        if !status.success() {
            bail!("kill -TERM {} failed", self.child.id());
        }
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                return if status.success() {
                    Ok(())
                } else {
                    Err(anyhow!("vssd exited with {status}: {}", self.log_text()))
                };
            }
            if started.elapsed() > PATIENCE {
                bail!("vssd did not stop within {PATIENCE:?} of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        // A no-op once stop() saw it exit.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
