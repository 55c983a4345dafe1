//! The `vss-card` binary behind pcscd's vpcd driver (vsmartcard), reached by `opensc-tool`
//! and by [`CardClient`] over the `pcsc` crate.
//!
//! Skipped (with the reason printed) when pcscd, the vpcd driver or opensc-tool is missing,
//! unless `VSS_REQUIRE_PCSC=1`. When pcscd is not running, the test starts `pcscd
//! --foreground` itself (as root) and stops it at the end.

mod common;

use common::{full_flow, round_trip, PIN};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};
use vss_card::channel::Counting;
use vss_card::client::CardClient;
use vss_card::pcsc::PcscChannel;
use vss_card::process::CardProcess;
use vss_cred::holder::SecretHolder;

/// pcscd's socket.
const PCSCD_SOCKET: &str = "/run/pcscd/pcscd.comm";
/// Where Debian's vsmartcard-vpcd puts its driver.
const VPCD_DRIVER: &str = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so";
/// The driver's configuration for pcscd.
const VPCD_CONFIG: &str = "/etc/reader.conf.d/vpcd";
/// vpcd's first slot, where the driver inside pcscd listens for the card.
const VPCD_PORT: u16 = 35963;
/// How long pcscd and the card get to find each other.
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// pcscd started by this test, stopped with SIGTERM when dropped.
struct Pcscd(Child);

impl Drop for Pcscd {
    fn drop(&mut self) {
        // If it is already gone there is nothing to stop.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.0.id().to_string())
            .status();
        let _ = self.0.wait();
    }
}

fn on_path(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Why the test cannot run here, if it cannot.
fn missing() -> Option<String> {
    for program in ["pcscd", "opensc-tool"] {
        if !on_path(program) {
            return Some(format!("{program} is not installed"));
        }
    }
    let driver = Path::new(VPCD_DRIVER).exists() || Path::new(VPCD_CONFIG).exists();
    (!driver).then(|| format!("the vpcd driver ({VPCD_DRIVER}, {VPCD_CONFIG}) is not installed"))
}

fn start_pcscd() -> Option<Pcscd> {
    if Path::new(PCSCD_SOCKET).exists() {
        return None;
    }
    let child = Command::new("pcscd")
        .arg("--foreground")
        .spawn()
        .expect("pcscd starts (as root)");
    Some(Pcscd(child))
}

/// Whether something listens on `port` (IPv4 or IPv6), from the kernel's socket tables.
fn listening(port: u16) -> bool {
    let local = format!(":{port:04X}");
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|table| {
        std::fs::read_to_string(table).is_ok_and(|text| {
            text.lines().skip(1).any(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                fields.len() > 3 && fields[1].ends_with(&local) && fields[3] == "0A"
            })
        })
    })
}

/// Waits for vpcd's port; a pcscd that runs without it was started before the driver was
/// installed, or is gone and left its socket behind.
fn wait_for_vpcd() {
    let deadline = Instant::now() + READY_TIMEOUT;
    while !listening(VPCD_PORT) {
        assert!(
            Instant::now() < deadline,
            "pcscd's socket {PCSCD_SOCKET} exists but nothing listens on vpcd's port {VPCD_PORT}: \
             pcscd runs without the vpcd driver (started before it was installed) or is gone; \
             restart pcscd"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn connect() -> PcscChannel {
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        match PcscChannel::connect(None) {
            Ok(channel) => return channel,
            Err(e) if Instant::now() > deadline => panic!("no card over PC/SC: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

#[test]
fn the_card_behind_vpcd_answers_opensc_tool_and_runs_the_full_flow() {
    if let Some(reason) = missing() {
        assert!(
            std::env::var("VSS_REQUIRE_PCSC").as_deref() != Ok("1"),
            "VSS_REQUIRE_PCSC=1 but {reason}"
        );
        eprintln!("SKIPPED: {reason}");
        return;
    }
    let _pcscd = start_pcscd();
    wait_for_vpcd();
    let dir = tempfile::tempdir().expect("temp dir");
    let card = CardProcess::start(
        Path::new(env!("CARGO_BIN_EXE_vss-card")),
        &dir.path().join("card.state"),
        &["--vpcd", &format!("127.0.0.1:{VPCD_PORT}")],
        true,
    )
    .expect("vss-card starts");
    card.wait_for("connected to vpcd", vss_card::process::START_TIMEOUT)
        .expect("the card connects to vpcd");
    let channel = connect();
    let reader = channel.reader().to_owned();
    eprintln!("reader: {reader}");

    let out = Command::new("opensc-tool")
        .args([
            "-r",
            &reader,
            "-s",
            "00 A4 04 00 08 F0 56 53 53 43 52 45 44",
        ])
        .output()
        .expect("opensc-tool runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("opensc-tool: {stdout}");
    assert!(out.status.success() && stdout.contains("SW1=0x90, SW2=0x00"));

    let mut client = CardClient::new(Counting::new(channel));
    let p = full_flow(&mut client);
    let flow = (client.channel_mut().apdus(), client.channel_mut().bytes());
    let per_apdu = round_trip(&mut client, 100);
    let kb = client.peak_rss_kb().expect("peak RSS");
    eprintln!(
        "full flow: {} APDUs, {} bytes; PC/SC (vpcd) round trip {per_apdu:?} per APDU; card peak RSS {kb} kB",
        flow.0, flow.1
    );
    client.verify_pin(PIN).expect("verify");
    assert_eq!(client.public_point(), Ok(p));
    drop(client);
    assert!(
        card.terminate().expect("kill"),
        "SIGTERM exits with status 0"
    );
}
