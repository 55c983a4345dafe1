//! What the benchmarks measure besides the clock: the CPU time another process has used
//! (from `/proc/PID/stat`, in clock ticks of 10 ms: what a server spent on the work it was
//! given; this process's own is `vss_pki::store::process_cpu_time`, to the nanosecond), and
//! percentiles of latencies.

use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};

/// The user and system CPU time process `pid` has used so far (every thread, live or gone).
pub fn process_cpu(pid: u32) -> Result<Duration> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    // Fields after the command name (which may hold spaces) are space-separated; utime and
    // stime are the 14th and 15th fields of the line.
    let after = stat
        .rfind(')')
        .and_then(|i| stat.get(i + 2..))
        .ok_or_else(|| anyhow!("{path}: no command name"))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = fields
        .get(11..13)
        .ok_or_else(|| anyhow!("{path}: too few fields"))?
        .iter()
        .map(|f| f.parse::<u64>())
        .sum::<Result<u64, _>>()
        .with_context(|| format!("{path}: CPU times are not numbers"))?;
    Ok(Duration::from_secs_f64(ticks as f64 / ticks_per_second()))
}

/// `openssl speed`'s single-thread ECDSA verification rate for `curve`, measured now over
/// `seconds`; `None` where the `openssl` command, or its figure for the curve, is missing.
pub fn openssl_speed_verify(curve: vss_crypto::Curve, seconds: u32) -> Option<f64> {
    use vss_crypto::Curve;
    let algorithm = match curve {
        Curve::P224 => "ecdsap224",
        Curve::P256 => "ecdsap256",
        Curve::P384 => "ecdsap384",
        Curve::Bp256 => "ecdsabrp256r1",
        Curve::Bp384 => "ecdsabrp384r1",
        _ => return None,
    };
    let out = Command::new("openssl")
        .args(["speed", "-seconds", &seconds.to_string(), algorithm])
        .output()
        .ok()?;
    // The table's last row: "... sign verify sign/s verify/s".
    let table = String::from_utf8_lossy(&out.stdout);
    let row = table.lines().rev().find(|l| l.contains("ecdsa"))?;
    row.split_whitespace().last()?.parse().ok()
}

/// Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 where it cannot say).
fn ticks_per_second() -> f64 {
    static TICKS: OnceLock<f64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .filter(|t: &f64| *t > 0.0)
            .unwrap_or(100.0)
    })
}

/// The `p`-quantile (0 to 1) of `sorted` (ascending): the nearest rank; zero when empty.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_used_cpu_and_a_missing_one_is_an_error() {
        let mut spin = 0u64;
        let started = std::time::Instant::now();
        while started.elapsed() < Duration::from_millis(50) {
            spin = spin.wrapping_add(1);
        }
        assert!(spin > 0);
        assert!(process_cpu(std::process::id()).expect("own CPU") >= Duration::from_millis(40));
        let child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep");
        let idle = process_cpu(child.id()).expect("a child's CPU");
        assert!(idle < Duration::from_millis(40), "{idle:?}");
        let mut child = child;
        child.kill().expect("kill");
        child.wait().expect("wait");
        assert!(process_cpu(u32::MAX).is_err());
    }

    #[test]
    fn percentiles_pick_from_the_sorted_times() {
        let times: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&times, 0.5), Duration::from_millis(51));
        assert_eq!(percentile(&times, 0.99), Duration::from_millis(99));
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
    }
}
