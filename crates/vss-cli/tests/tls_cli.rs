//! `vss tls serve` in front of a plain HTTP backend, reached by real clients: curl (TLS 1.3)
//! and `openssl s_client` (TLS 1.2), with an RSA-2048 key made by `vss keys generate` and a
//! certificate an `openssl` CA issued for its exported public key; SIGTERM stops it with its
//! `stopped:` line and exit 0. Bad arguments are one-line errors.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{init_store, run, vss, vss_store, PIN};

/// A backend that answers every request with one fixed HTTP response, then closes.
fn backend(body: &'static str) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream, body));
        }
    });
    addr
}

fn answer(mut stream: TcpStream, body: &str) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA, and a certificate it issued for the store key `label`'s public key (localhost).
fn certificate(dir: &Path, store: &Path, label: &str) {
    let public = vss_store(store, PIN, &["keys", "export-public", "--label", label]).success();
    std::fs::write(dir.join("server-pub.pem"), public.stdout).expect("write");
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-subj",
            "/CN=test CA",
            "-days",
            "2",
        ],
    );
    std::fs::write(dir.join("san.ext"), "subjectAltName=DNS:localhost\n").expect("write");
    openssl(
        dir,
        &[
            "x509",
            "-new",
            "-subj",
            "/CN=localhost",
            "-force_pubkey",
            "server-pub.pem",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-extfile",
            "san.ext",
            "-days",
            "2",
            "-out",
            "server.pem",
        ],
    );
}

/// The server and its standard error, kept open so that its last line can be written.
struct Server(Child, BufReader<std::process::ChildStderr>);

impl Server {
    /// Sends SIGTERM; the exit status and what the server wrote on stderr since its start.
    fn terminate(mut self) -> (std::process::ExitStatus, String) {
        let sent = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success(), "kill -TERM: {sent}");
        let mut rest = String::new();
        self.1.read_to_string(&mut rest).expect("stderr");
        (self.0.wait().expect("wait"), rest)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `vss tls serve` and returns it with the port it printed.
fn serve(store: &Path, dir: &Path, label: &str, backend: std::net::SocketAddr) -> (Server, u16) {
    let mut child = vss()
        .args(["tls", "serve", "--store"])
        .arg(store)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--backend",
            &backend.to_string(),
            "--cert",
        ])
        .arg(dir.join("server.pem"))
        .args(["--key", label])
        .env("VSS_PIN", PIN)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("first line");
    let port = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("127.0.0.1:"))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    (Server(child, stderr), port)
}

#[test]
fn curl_and_openssl_reach_the_backend_through_an_rsa_key_in_the_store() {
    let dir = tempfile::tempdir().expect("dir");
    let store = dir.path().join("store");
    init_store(&store);
    let listed = vss_store(
        &store,
        PIN,
        &[
            "keys",
            "generate",
            "--label",
            "web",
            "--algorithm",
            "rsa2048",
            "--format",
            "json",
        ],
    )
    .success()
    .json();
    assert_eq!(listed[0]["algorithm"], "rsa2048");
    certificate(dir.path(), &store, "web");
    let (server, port) = serve(&store, dir.path(), "web", backend("hello from the backend"));

    let curl = Command::new("curl")
        .args(["-sS", "--max-time", "20", "--cacert"])
        .arg(dir.path().join("ca.pem"))
        .args(["--resolve", &format!("localhost:{port}:127.0.0.1")])
        .args(["-w", "\n%{http_version} %{ssl_verify_result}"])
        .arg(format!("https://localhost:{port}/"))
        .output()
        .expect("curl runs");
    let out = String::from_utf8_lossy(&curl.stdout);
    assert!(
        curl.status.success(),
        "curl: {out} {}",
        String::from_utf8_lossy(&curl.stderr)
    );
    assert!(out.starts_with("hello from the backend"), "{out}");
    assert!(
        out.trim_end().ends_with(" 0"),
        "certificate verified: {out}"
    );

    let mut s_client = Command::new("openssl")
        .args(["s_client", "-connect", &format!("127.0.0.1:{port}")])
        .args([
            "-servername",
            "localhost",
            "-tls1_2",
            "-sigalgs",
            "RSA+SHA256",
            "-CAfile",
        ])
        .arg(dir.path().join("ca.pem"))
        .args(["-verify_return_error", "-quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("s_client runs");
    s_client
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .expect("request");
    let out = s_client.wait_with_output().expect("s_client ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("hello from the backend"),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let (status, log) = server.terminate();
    assert_eq!(status.code(), Some(0), "{status}: {log}");
    assert!(log.contains("stopped: "), "{log}");
}

#[test]
fn mismatched_arguments_and_a_wrong_key_are_one_line_errors() {
    let dir = tempfile::tempdir().expect("dir");
    let store = dir.path().join("store");
    init_store(&store);
    vss_store(
        &store,
        PIN,
        &[
            "keys",
            "generate",
            "--label",
            "web",
            "--algorithm",
            "rsa2048",
        ],
    )
    .success();
    vss_store(
        &store,
        PIN,
        &[
            "keys",
            "generate",
            "--label",
            "other",
            "--algorithm",
            "p256",
        ],
    )
    .success();
    certificate(dir.path(), &store, "web");
    let cert = dir.path().join("server.pem");
    let cert = cert.to_str().expect("utf-8");
    let base = [
        "tls",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--backend",
        "127.0.0.1:9",
    ];
    let serve = |extra: &[&str]| {
        run(vss()
            .args(base)
            .arg("--store")
            .arg(&store)
            .args(extra)
            .env("VSS_PIN", PIN))
        .failure()
        .one_line_stderr()
    };
    let two_certs = serve(&["--cert", cert, "--cert", cert, "--key", "web"]);
    assert!(
        two_certs.stderr.contains("one --key LABEL for each --cert"),
        "{}",
        two_certs.stderr
    );
    let mismatch = serve(&["--cert", cert, "--key", "other"]);
    assert!(
        mismatch.stderr.contains("is not for key 'other'"),
        "{}",
        mismatch.stderr
    );
    let missing = serve(&["--cert", cert, "--key", "nobody"]);
    assert!(missing.stderr.contains("nobody"), "{}", missing.stderr);
    let rsa1024 = run(vss()
        .args([
            "keys",
            "generate",
            "--label",
            "weak",
            "--algorithm",
            "rsa1024",
            "--store",
        ])
        .arg(&store)
        .env("VSS_PIN", PIN))
    .failure();
    assert!(
        rsa1024.stderr.contains("no longer safe"),
        "{}",
        rsa1024.stderr
    );
}
