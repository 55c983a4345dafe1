//! The roles' HTTP services' bounds: an idle connection is closed and past the connection
//! cap a new one is answered 503. (The services driven end to end with a card are tested
//! in vss-card, which has the card: its tests/service.rs.)

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use vss_cred::roles::Inspector;
use vss_cred::service::inspector::InspectorService;
use vss_cred::service::{default_limits, serve, Role};
use vss_net::ServeLimits;

/// The role's PIN and PUK.
const PIN: &str = "1234";
const PUK: &str = "12345678";

#[test]
fn idle_connections_are_closed_and_the_cap_sheds_load() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    Inspector::create(dir.path(), PIN, PUK).expect("inspector");
    let service = Arc::new(InspectorService::open(dir.path(), PIN).expect("service"));
    let config = ServeLimits {
        idle_timeout: Duration::from_millis(300),
        max_connections: 1,
        ..default_limits()
    };
    let addr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(serve(Role::Inspector(service), listener, config));
        addr
    });
    let mut idle = std::net::TcpStream::connect(addr).expect("connect");
    idle.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    std::thread::sleep(Duration::from_millis(100));
    let mut second = std::net::TcpStream::connect(addr).expect("connect");
    second
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    second
        .write_all(b"GET /public HTTP/1.1\r\nhost: x\r\n\r\n")
        .expect("write");
    let mut busy = String::new();
    let _ = second.read_to_string(&mut busy);
    assert!(busy.starts_with("HTTP/1.1 503 "), "{busy}");
    // The first connection sent nothing: closed once the idle timeout ran out.
    let mut rest = Vec::new();
    let started = std::time::Instant::now();
    let _ = idle.read_to_end(&mut rest);
    assert!(started.elapsed() < Duration::from_secs(5));
}
