//! `vss-card`: the IoT smart card of seed 003 as a process, its state in one encrypted
//! file, reached through vsmartcard's vpcd (PC/SC) or its own TCP port.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use vss_card::applet::Applet;
use vss_card::state::StateFile;
use vss_card::vpcd::DEFAULT_VPCD;
use vss_net::ServeLimits;

const USAGE: &str = "usage: vss-card --state FILE (--vpcd [HOST:PORT] | --listen ADDR)

  --state FILE       the card's state, encrypted under the key in FILE.key (both created
                     on first start)
  --vpcd HOST:PORT   connect to vsmartcard's vpcd driver (default 127.0.0.1:35963)
  --listen ADDR      serve the same framing on a TCP port, one client at a time, in the
                     order their first commands arrive whole: a connection that sends
                     nothing or drips a frame never delays one that sends its command
                     (the bound address is printed on stderr)
  --idle-timeout-ms MS
                     with --listen: close a client silent this long, before its first
                     frame too (default 60000, 1 to 3600000)
  --frame-timeout-ms MS
                     with --listen: close a client whose frame does not arrive whole
                     this long after its first byte (default 5000, 1 to 3600000)
  --write-timeout-ms MS
                     with --listen: close a client that does not read an answer within
                     this long (default 10000, 1 to 3600000)
  --max-connections N
                     with --listen: connections held, the one served and those waiting
                     (default 16, 1 to 65536); when all are held a new one takes the
                     place of the oldest without a whole first frame, else it is closed
  --help             this text";

/// Where the card is reached.
enum Transport {
    Vpcd(String),
    Listen(String),
}

struct Options {
    state: PathBuf,
    transport: Transport,
    limits: ServeLimits,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut state = None;
    let mut transport = None;
    let mut limits = vss_card::tcp::default_limits();
    let mut args = args.iter().peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => return Ok(None),
            "--state" => state = Some(PathBuf::from(args.next().ok_or("--state needs a FILE")?)),
            "--listen" => {
                let addr = args.next().ok_or("--listen needs an ADDR")?;
                transport = Some(Transport::Listen(addr.clone()));
            }
            "--idle-timeout-ms" => limits.idle_timeout = millis(arg, args.next())?,
            "--frame-timeout-ms" => limits.header_timeout = millis(arg, args.next())?,
            "--write-timeout-ms" => limits.write_timeout = millis(arg, args.next())?,
            "--max-connections" => {
                let n = args.next().ok_or("--max-connections needs N")?;
                limits.max_connections = n
                    .parse()
                    .ok()
                    .filter(|n| (1..=vss_net::MAX_CONNECTIONS).contains(n))
                    .ok_or_else(|| {
                        format!("--max-connections {n:?}: 1 to {}", vss_net::MAX_CONNECTIONS)
                    })?;
            }
            "--vpcd" => {
                let addr = match args.next_if(|a| !a.starts_with("--")) {
                    Some(addr) => addr.clone(),
                    None => DEFAULT_VPCD.to_owned(),
                };
                transport = Some(Transport::Vpcd(addr));
            }
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    Ok(Some(Options {
        state: state.ok_or("--state FILE is required (see --help)")?,
        transport: transport.ok_or("--vpcd or --listen is required (see --help)")?,
        limits,
    }))
}

/// The timeout of the flag `flag` from its value in milliseconds, 1 to
/// [`vss_net::MAX_TIMEOUT`].
fn millis(flag: &str, value: Option<&String>) -> Result<Duration, String> {
    let ms = value.ok_or_else(|| format!("{flag} needs MS"))?;
    ms.parse::<u64>()
        .ok()
        .map(Duration::from_millis)
        .filter(|&d| vss_net::check_timeout("timeout", d).is_ok())
        .ok_or_else(|| format!("{flag} {ms:?}: 1 to {}", vss_net::MAX_TIMEOUT.as_millis()))
}

/// Exits with status 0 on SIGTERM or SIGINT. Every change of the state is written to a
/// temporary file and renamed before the card answers, so no moment loses it.
fn exit_on_signals() -> Result<(), String> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])
        .map_err(|e| format!("signal handlers: {e}"))?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            eprintln!("vss-card: signal {signal}, stopping");
            std::process::exit(0);
        }
    });
    Ok(())
}

fn resolve(addr: &str) -> Result<SocketAddr, String> {
    addr.to_socket_addrs()
        .map_err(|e| format!("{addr:?}: {e}"))?
        .next()
        .ok_or_else(|| format!("{addr:?}: no address"))
}

fn run(options: Options) -> Result<(), String> {
    let (file, state) =
        StateFile::open(&options.state).map_err(|e| format!("cannot open the state: {e}"))?;
    let mut applet =
        Applet::new(state, Box::new(file)).map_err(|e| format!("cannot load the state: {e}"))?;
    exit_on_signals()?;
    match options.transport {
        Transport::Vpcd(addr) => vss_card::vpcd::serve(&mut applet, resolve(&addr)?),
        Transport::Listen(addr) => {
            let listener = TcpListener::bind(&addr).map_err(|e| format!("{addr:?}: {e}"))?;
            let local = listener
                .local_addr()
                .map_err(|e| format!("{addr:?}: {e}"))?;
            eprintln!("vss-card: listening on {local}");
            match vss_card::tcp::serve(&mut applet, &listener, &options.limits) {
                Ok(never) => match never {},
                Err(e) => Err(format!("{local}: {e}")),
            }
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args) {
        Ok(None) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Some(options)) => match run(options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vss-card: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("vss-card: {e}");
            ExitCode::from(2)
        }
    }
}
