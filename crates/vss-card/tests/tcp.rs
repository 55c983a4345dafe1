//! The `vss-card` binary on its TCP port, driven by [`CardClient`] over TCP.

mod common;

use common::{full_flow, round_trip, PIN};
use std::path::Path;
use vss_card::channel::{Counting, TcpChannel};
use vss_card::client::CardClient;
use vss_card::process::CardProcess;
use vss_cred::holder::{HolderError, SecretHolder};

fn start_tcp(state: &Path) -> (CardProcess, CardClient<Counting<TcpChannel>>) {
    let bin = Path::new(env!("CARGO_BIN_EXE_vss-card"));
    let (card, addr) = CardProcess::start_tcp(bin, state, true).expect("vss-card starts");
    let client = CardClient::new(Counting::new(TcpChannel::connect(addr).expect("connect")));
    (card, client)
}

#[test]
fn the_card_process_runs_the_full_flow_over_tcp_and_keeps_its_state() {
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("card.state");
    let (card, mut client) = start_tcp(&state);
    let p = full_flow(&mut client);
    let flow = (client.channel_mut().apdus(), client.channel_mut().bytes());
    let per_apdu = round_trip(&mut client, 100);
    let kb = client.peak_rss_kb().expect("peak RSS");
    assert!((100..1_000_000).contains(&kb), "{kb} kB");
    eprintln!(
        "full flow: {} APDUs, {} bytes; TCP round trip {per_apdu:?} per APDU; card peak RSS {kb} kB",
        flow.0, flow.1
    );
    assert_eq!(client.verify_pin(b"9999"), Err(HolderError::WrongPin(2)));
    drop(client);
    assert!(
        card.terminate().expect("kill"),
        "SIGTERM exits with status 0"
    );

    let (_card, mut client) = start_tcp(&state);
    client.select().expect("select");
    assert_eq!(client.verify_pin(b""), Err(HolderError::WrongPin(2)));
    client.verify_pin(PIN).expect("verify");
    assert_eq!(client.public_point(), Ok(p));
}

#[test]
fn bad_arguments_and_a_tampered_state_are_one_line_errors() {
    let bin = env!("CARGO_BIN_EXE_vss-card");
    let run = |args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .output()
            .expect("vss-card runs")
    };
    assert!(run(&["--help"]).status.success());
    let out = run(&["--listen", "127.0.0.1:0"]);
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);

    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("card.state");
    let state_arg = state.to_str().expect("UTF-8 path");
    let (card, _client) = start_tcp(&state);
    drop(card);
    let mut bytes = std::fs::read(&state).expect("state written on first start");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&state, bytes).expect("write");
    let out = run(&["--state", state_arg, "--listen", "127.0.0.1:0"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("tampered"), "{stderr}");
}
