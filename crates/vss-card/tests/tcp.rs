//! The `vss-card` binary on its TCP port, driven by [`CardClient`] over TCP, and held by
//! hostile clients (silent, dripping, never reading) while a client is served.

mod common;

use common::{full_flow, round_trip, PIN};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};
use vss_card::channel::{Counting, TcpChannel};
use vss_card::client::CardClient;
use vss_card::frame::MAX_FRAMED_DATA;
use vss_card::process::CardProcess;
use vss_card::{Command, StatusWord, AID};
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
    for bad in [
        &["--frame-timeout-ms", "0"][..],
        &["--write-timeout-ms", "3600001"],
        &["--max-connections", "0"],
        &["--idle-timeout-ms"],
    ] {
        let out = run(&[&["--state", "s", "--listen", "127.0.0.1:0"][..], bad].concat());
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with(&format!("vss-card: {}", bad[0])),
            "{stderr}"
        );
    }
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

/// A card on loopback TCP with the port's `bounds`, and a fresh state.
fn bounded_card(bounds: &[&str]) -> (tempfile::TempDir, CardProcess, SocketAddr) {
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = Path::new(env!("CARGO_BIN_EXE_vss-card"));
    let (card, addr) =
        CardProcess::start_listening(bin, &dir.path().join("card.state"), bounds, true)
            .expect("vss-card starts");
    (dir, card, addr)
}

/// How long a new client waits, from connecting, for its SELECT's answer.
fn select_time(addr: SocketAddr) -> Duration {
    let start = Instant::now();
    let mut client = CardClient::new(TcpChannel::connect(addr).expect("connect"));
    client.select().expect("select answered");
    start.elapsed()
}

/// The frame of a command APDU.
fn frame(apdu: &[u8]) -> Vec<u8> {
    [&(apdu.len() as u16).to_be_bytes()[..], apdu].concat()
}

/// SELECT of the application, framed.
fn select_frame() -> Vec<u8> {
    let mut apdu = vec![0x00, 0xA4, 0x04, 0x00, AID.len() as u8];
    apdu.extend_from_slice(&AID);
    frame(&apdu)
}

/// Whether the card closed `stream` within `within` (nothing left to read on it).
fn closed_within(stream: &TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).expect("timeout");
    match (&*stream).read(&mut [0; 64]) {
        Ok(n) => n == 0,
        Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
    }
}

#[test]
fn silent_connections_never_delay_a_client_and_the_oldest_makes_room() {
    let idle = Duration::from_millis(1500);
    let (_dir, _card, addr) =
        bounded_card(&["--idle-timeout-ms", "1500", "--max-connections", "2"]);
    // Twice the cap of connections that send nothing, held.
    let silent: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let took = select_time(addr);
    eprintln!("a client answered in {took:?}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    // The two oldest made room for the newer ones, the newer ones go at the idle timeout.
    assert!(closed_within(&silent[0], Duration::from_millis(500)));
    assert!(closed_within(&silent[1], Duration::from_millis(500)));
    assert!(closed_within(&silent[3], idle + Duration::from_secs(1)));
}

/// Sends `bytes` one at a time, `pause` apart, until the card closes the connection.
fn drip(mut stream: TcpStream, bytes: Vec<u8>, pause: Duration) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for b in bytes.iter().cycle() {
            if stream.write_all(&[*b]).is_err() {
                return;
            }
            std::thread::sleep(pause);
        }
    })
}

#[test]
fn a_dripped_frame_holds_the_card_at_most_the_frame_timeout() {
    let frame_timeout = Duration::from_millis(1000);
    let (_dir, _card, addr) = bounded_card(&["--frame-timeout-ms", "1000"]);
    // The first attacker holds the card: a command answered, then a frame dripped.
    let mut holder = TcpStream::connect(addr).expect("connect");
    holder.write_all(&select_frame()).expect("send");
    let mut answer = [0; 4];
    holder.read_exact(&mut answer).expect("answered");
    assert_eq!(answer, [0, 2, 0x90, 0x00]);
    let pause = Duration::from_millis(100);
    let reader = holder.try_clone().expect("clone");
    let dripping = drip(holder, select_frame(), pause);
    // The second drips from its first byte.
    let second = TcpStream::connect(addr).expect("connect");
    let dripping_too = drip(second.try_clone().expect("clone"), select_frame(), pause);
    std::thread::sleep(Duration::from_millis(200));
    let took = select_time(addr);
    eprintln!("a client answered in {took:?}");
    assert!(took < frame_timeout + Duration::from_secs(1), "{took:?}");
    assert!(closed_within(
        &reader,
        frame_timeout + Duration::from_secs(1)
    ));
    assert!(closed_within(
        &second,
        frame_timeout + Duration::from_secs(1)
    ));
    for attacker in [dripping, dripping_too] {
        attacker.join().expect("the attacker stops once closed");
    }
}

/// Sends commands and never reads their answers, until the card closes the connection.
fn pipeline(addr: SocketAddr) -> std::thread::JoinHandle<()> {
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
    socket
        .set_recv_buffer_size(4096)
        .expect("small receive buffer");
    socket.connect(&addr.into()).expect("connect");
    let mut stream = TcpStream::from(socket);
    // An unknown instruction, answered 6D 00.
    let commands = frame(&[0x00, 0xB0, 0x00, 0x00]).repeat(1024);
    std::thread::spawn(move || while stream.write_all(&commands).is_ok() {})
}

#[test]
fn a_client_that_never_reads_holds_the_card_at_most_the_write_timeout() {
    let write_timeout = Duration::from_millis(500);
    let (_dir, _card, addr) = bounded_card(&["--write-timeout-ms", "500"]);
    let first = pipeline(addr);
    std::thread::sleep(Duration::from_millis(100));
    let second = pipeline(addr);
    std::thread::sleep(Duration::from_millis(100));
    // Each pipeliner ahead holds the card in turn, until its answers stall the write
    // timeout.
    let took = select_time(addr);
    eprintln!("a client answered in {took:?}");
    assert!(
        took < 2 * write_timeout + Duration::from_secs(1),
        "{took:?}"
    );
    for attacker in [first, second] {
        attacker.join().expect("the attacker stops once closed");
    }
}

#[test]
fn le_bounds_the_answer_over_tcp() {
    let (_dir, _card, addr) = bounded_card(&[]);
    let mut client = CardClient::new(TcpChannel::connect(addr).expect("connect"));
    client.select().expect("select");
    let get_rss = |le| Command {
        cla: 0x00,
        ins: 0xCA,
        p1: 0xDF,
        p2: 0x01,
        data: Vec::new(),
        le,
    };
    let short = client.send(&get_rss(Some(1))).expect("answered");
    assert_eq!((short.data.len(), short.sw), (0, StatusWord(0x6C04)));
    let exact = client.send(&get_rss(Some(4))).expect("answered");
    assert_eq!((exact.data.len(), exact.sw), (4, StatusWord::OK));
    let none = client.send(&get_rss(None)).expect("answered");
    assert_eq!(none.sw, StatusWord(0x6C04));
    assert!(client.peak_rss_kb().expect("Le 65,536") > 0);
}

#[test]
fn the_largest_framed_command_is_taken_and_one_byte_more_refused() {
    let (_dir, _card, addr) = bounded_card(&[]);
    let mut client = CardClient::new(TcpChannel::connect(addr).expect("connect"));
    let select = |len: usize, le: Option<usize>| Command {
        cla: 0x00,
        ins: 0xA4,
        p1: 0x04,
        p2: 0x00,
        data: vec![0xA0; len],
        le,
    };
    // Parsed whole (an unknown AID, not a wrong length): cases 3E and 4E.
    for (len, le) in [(MAX_FRAMED_DATA, None), (MAX_FRAMED_DATA - 2, Some(256))] {
        let answer = client.send(&select(len, le)).expect("answered");
        assert_eq!(answer.sw, StatusWord::NOT_FOUND, "{len}");
    }
    for (len, le) in [
        (MAX_FRAMED_DATA + 1, None),
        (MAX_FRAMED_DATA - 1, Some(256)),
    ] {
        match client.send(&select(len, le)) {
            Err(HolderError::Transport(e)) => assert_eq!(
                e,
                "the command is 65536 bytes, longer than a frame carries (65535 bytes: at most \
                 65528 bytes of command data)"
            ),
            other => panic!("{len}: {other:?}"),
        }
    }
    // The connection is still good.
    client.select().expect("select");
}
