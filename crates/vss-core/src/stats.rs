//! Statistics logging (seed 000's LogMemoryAndTimeStats): named checkpoints that record the
//! time a function took, its result and the process's memory use, one line each, in files
//! that rotate in a circle (`stats.1` … `stats.N`, then `stats.1` again) and never grow past
//! `max_bytes`, for devices with little storage. [`report`] summarises them per function.
//!
//! A line: `<unix µs>\t<function>\t<elapsed µs>\t<result>\t<resident KiB>`.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::config::StatisticsConfig;
use crate::{Error, Result};

struct Current {
    index: usize,
    file: File,
    written: u64,
}

/// The rotating statistics files of one process.
pub struct StatsLog {
    dir: PathBuf,
    files: usize,
    max_bytes: u64,
    current: Mutex<Current>,
}

fn stats_error(path: &Path, e: std::io::Error) -> Error {
    Error::Stats(format!("{}: {e}", path.display()))
}

/// The path of file `index` in `dir`.
fn file_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("stats.{index}"))
}

impl StatsLog {
    /// The log `config` describes, or `None` when statistics are off. Writing goes on in the
    /// file after the one written last (the circle continues across restarts).
    pub fn open(config: &StatisticsConfig) -> Result<Option<StatsLog>> {
        if !config.enabled {
            return Ok(None);
        }
        std::fs::create_dir_all(&config.dir).map_err(|e| stats_error(&config.dir, e))?;
        let newest = (1..=config.files)
            .filter_map(|i| {
                let modified = std::fs::metadata(file_path(&config.dir, i))
                    .and_then(|m| m.modified())
                    .ok()?;
                Some((modified, i))
            })
            .max()
            .map(|(_, i)| i);
        let index = newest.map_or(1, |i| i % config.files + 1);
        let file = Self::start(&config.dir, index)?;
        Ok(Some(StatsLog {
            dir: config.dir.clone(),
            files: config.files,
            max_bytes: config.max_bytes,
            current: Mutex::new(Current {
                index,
                file,
                written: 0,
            }),
        }))
    }

    /// Empties file `index` and opens it for writing.
    fn start(dir: &Path, index: usize) -> Result<File> {
        let path = file_path(dir, index);
        OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(&path)
            .map_err(|e| stats_error(&path, e))
    }

    /// Records that `function` took `elapsed` with `result` (e.g. a verdict).
    pub fn record(&self, function: &str, elapsed: Duration, result: &str) -> Result<()> {
        let at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_micros());
        let clean = |s: &str| s.replace(['\t', '\n'], " ");
        let mut line = format!(
            "{at}\t{}\t{}\t{}\t{}\n",
            clean(function),
            elapsed.as_micros(),
            clean(result),
            resident_kib()
        )
        .into_bytes();
        let cap = usize::try_from(self.max_bytes).unwrap_or(usize::MAX);
        if line.len() > cap {
            line.truncate(cap.saturating_sub(1));
            line.push(b'\n');
        }
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if current.written + line.len() as u64 > self.max_bytes {
            let index = current.index % self.files + 1;
            *current = Current {
                index,
                file: Self::start(&self.dir, index)?,
                written: 0,
            };
        }
        current
            .file
            .write_all(&line)
            .map_err(|e| stats_error(&file_path(&self.dir, current.index), e))?;
        current.written += line.len() as u64;
        Ok(())
    }

    /// A checkpoint for `function`, started now; [`Checkpoint::end`] records it.
    pub fn checkpoint<'a>(&'a self, function: &'a str) -> Checkpoint<'a> {
        Checkpoint {
            log: self,
            function,
            started: Instant::now(),
        }
    }
}

/// A function being timed.
pub struct Checkpoint<'a> {
    log: &'a StatsLog,
    function: &'a str,
    started: Instant,
}

impl Checkpoint<'_> {
    /// Records the time since the start, with `result`.
    pub fn end(self, result: &str) -> Result<()> {
        self.log
            .record(self.function, self.started.elapsed(), result)
    }
}

/// The process's resident memory in KiB (0 where the system does not say).
fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4)
}

/// One function's figures over the files of a directory.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionSummary {
    /// The function.
    pub function: String,
    /// How many times it was recorded.
    pub calls: u64,
    /// Mean time in µs.
    pub mean_us: f64,
    /// Median time in µs.
    pub p50_us: u64,
    /// 99th percentile in µs.
    pub p99_us: u64,
    /// Longest time in µs.
    pub max_us: u64,
    /// How often each result occurred.
    pub results: BTreeMap<String, u64>,
    /// The largest resident memory seen, KiB.
    pub max_resident_kib: u64,
}

/// One function's lines as read.
#[derive(Default)]
struct Gathered {
    elapsed: Vec<u64>,
    results: BTreeMap<String, u64>,
    max_kib: u64,
}

/// Summarises the `stats.N` files in `dir`, per function (sorted by name); lines that are
/// not statistics lines are counted in the second value and skipped.
pub fn report(dir: &Path) -> Result<(Vec<FunctionSummary>, u64)> {
    let mut gathered: BTreeMap<String, Gathered> = BTreeMap::new();
    let mut skipped = 0;
    let entries = std::fs::read_dir(dir).map_err(|e| stats_error(dir, e))?;
    for entry in entries {
        let path = entry.map_err(|e| stats_error(dir, e))?.path();
        let is_stats = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("stats."))
            .is_some_and(|n| n.parse::<usize>().is_ok());
        if !is_stats {
            continue;
        }
        let text = std::fs::read(&path).map_err(|e| stats_error(&path, e))?;
        for line in String::from_utf8_lossy(&text).lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            let parsed = match fields.as_slice() {
                [_, function, elapsed, result, kib] => elapsed
                    .parse::<u64>()
                    .ok()
                    .zip(kib.parse::<u64>().ok())
                    .map(|(e, k)| (*function, e, *result, k)),
                _ => None,
            };
            let Some((function, elapsed, result, kib)) = parsed else {
                skipped += 1;
                continue;
            };
            let slot = gathered.entry(function.to_string()).or_default();
            slot.elapsed.push(elapsed);
            *slot.results.entry(result.to_string()).or_default() += 1;
            slot.max_kib = slot.max_kib.max(kib);
        }
    }
    let summaries = gathered
        .into_iter()
        .map(
            |(
                function,
                Gathered {
                    mut elapsed,
                    results,
                    max_kib,
                },
            )| {
                elapsed.sort_unstable();
                let at = |q: f64| elapsed[((elapsed.len() - 1) as f64 * q).round() as usize];
                FunctionSummary {
                    function,
                    calls: elapsed.len() as u64,
                    mean_us: elapsed.iter().sum::<u64>() as f64 / elapsed.len() as f64,
                    p50_us: at(0.5),
                    p99_us: at(0.99),
                    max_us: at(1.0),
                    results,
                    max_resident_kib: max_kib,
                }
            },
        )
        .collect();
    Ok((summaries, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path, files: usize, max_bytes: u64) -> StatisticsConfig {
        StatisticsConfig {
            enabled: true,
            dir: dir.to_path_buf(),
            files,
            max_bytes,
        }
    }

    fn open_log(dir: &Path, files: usize, max_bytes: u64) -> StatsLog {
        StatsLog::open(&config(dir, files, max_bytes))
            .expect("open")
            .expect("enabled")
    }

    #[test]
    fn files_rotate_at_the_configured_count_and_never_exceed_the_size() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = open_log(dir.path(), 3, 200);
        for i in 0..100 {
            log.record("verifySignature", Duration::from_micros(i), "Valid")
                .expect("record");
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["stats.1", "stats.2", "stats.3"]);
        for name in &names {
            let size = std::fs::metadata(dir.path().join(name))
                .expect("meta")
                .len();
            assert!(size <= 200, "{name}: {size} bytes");
            assert!(size > 0);
        }
        // A line longer than a whole file is cut to fit.
        log.record(&"x".repeat(500), Duration::ZERO, "long")
            .expect("record");
        for name in &names {
            assert!(
                std::fs::metadata(dir.path().join(name))
                    .expect("meta")
                    .len()
                    <= 200
            );
        }
    }

    #[test]
    fn the_circle_goes_on_after_a_restart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = open_log(dir.path(), 3, 1000);
        first.record("a", Duration::ZERO, "ok").expect("record");
        drop(first);
        std::thread::sleep(Duration::from_millis(20));
        let second = open_log(dir.path(), 3, 1000);
        second.record("b", Duration::ZERO, "ok").expect("record");
        let one = std::fs::read_to_string(dir.path().join("stats.1")).expect("stats.1");
        let two = std::fs::read_to_string(dir.path().join("stats.2")).expect("stats.2");
        assert!(
            one.contains("\ta\t") && two.contains("\tb\t"),
            "{one:?} {two:?}"
        );
    }

    #[test]
    fn disabled_statistics_write_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut c = config(&dir.path().join("stats"), 2, 100);
        c.enabled = false;
        assert!(StatsLog::open(&c).expect("open").is_none());
        assert!(!dir.path().join("stats").exists());
    }

    #[test]
    fn the_report_summarises_each_function_and_skips_foreign_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = open_log(dir.path(), 2, 10_000);
        for us in 1..=100 {
            let verdict = if us % 10 == 0 {
                "FalseSignature"
            } else {
                "Valid"
            };
            log.record("verifySignature", Duration::from_micros(us), verdict)
                .expect("record");
        }
        log.checkpoint("createSignature").end("ok").expect("record");
        std::fs::write(dir.path().join("stats.2"), "garbage\n").expect("write");
        std::fs::write(dir.path().join("notes.txt"), "a\tb\t1\tc\t2\n").expect("write");
        let (summaries, skipped) = report(dir.path()).expect("report");
        assert_eq!(skipped, 1);
        let names: Vec<&str> = summaries.iter().map(|s| s.function.as_str()).collect();
        assert_eq!(names, ["createSignature", "verifySignature"]);
        let verify = &summaries[1];
        assert_eq!(verify.calls, 100);
        assert_eq!((verify.p50_us, verify.max_us), (51, 100));
        assert!((verify.mean_us - 50.5).abs() < 1e-9);
        assert_eq!(verify.results["Valid"], 90);
        assert_eq!(verify.results["FalseSignature"], 10);
        assert!(cfg!(not(target_os = "linux")) || verify.max_resident_kib > 0);
    }
}
