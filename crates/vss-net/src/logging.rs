//! Logs on stderr through `tracing`, set up once per process by [`init`]: text lines or one
//! JSON object per line, filtered by a `RUST_LOG`-style [`LogFilter`] (`info`,
//! `warn,vss_pki=debug`). No colours: a log line carries no control characters.

use std::fmt;
use std::str::FromStr;

use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::EnvFilter;

/// The longest filter [`LogFilter`] takes, in bytes.
pub const MAX_FILTER_LEN: usize = 1024;

/// How log events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// One line of text per event: time, level, target, message and fields.
    #[default]
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, `message` and the fields.
    Json,
}

/// Why a filter or the set-up was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// The filter is empty.
    #[error("the log filter is empty")]
    Empty,
    /// The filter is longer than [`MAX_FILTER_LEN`].
    #[error("the log filter is longer than {MAX_FILTER_LEN} bytes")]
    TooLong,
    /// The filter holds a control character.
    #[error("the log filter holds a control character")]
    Control,
    /// The filter is not in `RUST_LOG` syntax.
    #[error("the log filter is not target=level,…: {0}")]
    Syntax(#[from] tracing_subscriber::filter::ParseError),
    /// This process already has its logger.
    #[error("the logger is already set up")]
    AlreadySet,
}

/// A `RUST_LOG`-style filter (directives `level` or `target=level`, comma-separated), checked:
/// 1 to [`MAX_FILTER_LEN`] bytes without control characters, every directive valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFilter(String);

impl FromStr for LogFilter {
    type Err = LogError;

    fn from_str(text: &str) -> Result<Self, LogError> {
        if text.is_empty() {
            return Err(LogError::Empty);
        }
        if text.len() > MAX_FILTER_LEN {
            return Err(LogError::TooLong);
        }
        if text.chars().any(char::is_control) {
            return Err(LogError::Control);
        }
        let filter = LogFilter(text.to_string());
        filter.env_filter()?;
        Ok(filter)
    }
}

impl fmt::Display for LogFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl LogFilter {
    fn env_filter(&self) -> Result<EnvFilter, LogError> {
        Ok(EnvFilter::builder().parse(&self.0)?)
    }
}

/// Sends this process's log events that pass `filter` to stderr in `format`; once per
/// process (a second call is [`LogError::AlreadySet`]).
pub fn init(format: LogFormat, filter: &LogFilter) -> Result<(), LogError> {
    let subscriber = subscriber(format, filter.env_filter()?, std::io::stderr);
    tracing::subscriber::set_global_default(subscriber).map_err(|_| LogError::AlreadySet)
}

/// The subscriber [`init`] sets, writing to `writer`.
fn subscriber<W>(
    format: LogFormat,
    filter: EnvFilter,
    writer: W,
) -> Box<dyn tracing::Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    match format {
        LogFormat::Text => Box::new(builder.finish()),
        LogFormat::Json => Box::new(builder.json().flatten_event(true).finish()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn a_filter_is_checked_before_it_is_used() {
        for good in ["info", "warn,vss_pki=debug", "vss_pki::http=trace", "off"] {
            assert_eq!(
                good.parse::<LogFilter>().map(|f| f.to_string()).ok(),
                Some(good.into())
            );
        }
        assert!(matches!("".parse::<LogFilter>(), Err(LogError::Empty)));
        let long = "a".repeat(MAX_FILTER_LEN + 1);
        assert!(matches!(long.parse::<LogFilter>(), Err(LogError::TooLong)));
        assert!(matches!(
            "info\n".parse::<LogFilter>(),
            Err(LogError::Control)
        ));
        assert!(matches!(
            "vss_pki=loud".parse::<LogFilter>(),
            Err(LogError::Syntax(_))
        ));
    }

    /// Everything written, shared with the subscriber's writer.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What `format` writes for two events at info and one at debug, under `info`.
    fn written(format: LogFormat) -> String {
        let captured = Captured::default();
        let writer = captured.clone();
        let filter = "info".parse::<LogFilter>().expect("filter");
        let subscriber = subscriber(format, filter.env_filter().expect("filter"), move || {
            writer.clone()
        });
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(status = 200, path = "/health", "request");
            tracing::debug!("not shown");
            tracing::info!(text = "a\nb\u{1b}[31m", "control characters");
        });
        let bytes = captured.0.lock().expect("lock").clone();
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn json_is_one_object_per_line_with_the_fields_at_the_top() {
        let text = written(LogFormat::Json);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        let first: serde_json::Value = serde_json::from_str(lines[0]).expect("JSON");
        assert_eq!(first["level"], "INFO");
        assert_eq!(first["message"], "request");
        assert_eq!(first["status"], 200);
        assert_eq!(first["path"], "/health");
        let second: serde_json::Value = serde_json::from_str(lines[1]).expect("JSON");
        assert_eq!(second["text"], "a\nb\u{1b}[31m");
    }

    #[test]
    fn text_is_one_line_per_event() {
        let text = written(LogFormat::Text);
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.contains("INFO"), "{text}");
        assert!(text.contains("status=200"), "{text}");
        assert!(!text.contains("not shown"), "{text}");
    }
}
