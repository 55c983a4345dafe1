//! `examples/vss.toml` is read by the real parser, holds every key of the configuration,
//! and shows the defaults, so it cannot drift from `vss_core::Config`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use vss_core::config::{
    DaemonConfig, EngineConfig, PseudonymConfig, ReplayCheckConfig, StatisticsConfig,
    VerificationConfig,
};
use vss_core::Config;

fn example() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vss.toml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The example with its optional settings (`# key = value`, `# [section]`) uncommented.
fn with_optional_settings(text: &str) -> String {
    text.lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(rest) if is_setting(rest) => rest,
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `[a.b]` or `key = value`.
fn is_setting(text: &str) -> bool {
    let name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c == '.')
    };
    match text.split_once(" = ") {
        Some((key, _)) => name(key),
        None => text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .is_some_and(name),
    }
}

/// Every key of a TOML document as a dotted path (tables included).
fn keys(table: &toml::Table, prefix: &str, out: &mut BTreeSet<String>) {
    for (key, value) in table {
        let path = format!("{prefix}{key}");
        if let toml::Value::Table(inner) = value {
            keys(inner, &format!("{path}."), out);
        }
        out.insert(path);
    }
}

fn keys_of(text: &str) -> BTreeSet<String> {
    let table: toml::Table = toml::from_str(text).expect("TOML");
    let mut out = BTreeSet::new();
    keys(&table, "", &mut out);
    out
}

#[test]
fn the_example_parses_and_shows_the_defaults() {
    let config = Config::parse(&example(), Path::new("/etc/vss")).expect("examples/vss.toml");
    assert_eq!(config.hsm.store, Path::new("/etc/vss/keys"));
    assert_eq!(
        config.hsm.pin_file, None,
        "pin_file is optional, commented out"
    );
    assert_eq!(config.trust.cache_capacity, 1024);
    assert_eq!(config.trust.anchors.len(), 2);
    assert!(config.pki.is_some());
    assert_eq!(config.frames, None);
    assert_eq!(config.pseudonyms, PseudonymConfig::default());
    assert_eq!(config.verification, VerificationConfig::default());
    assert_eq!(config.replay, ReplayCheckConfig::default());
    assert_eq!(config.engine, EngineConfig::default());
    assert_eq!(
        config.statistics,
        StatisticsConfig {
            dir: PathBuf::from("/etc/vss/stats"),
            ..StatisticsConfig::default()
        }
    );
    assert_eq!(config.daemon, DaemonConfig::default());
}

#[test]
fn the_example_names_every_key_of_the_configuration() {
    let text = with_optional_settings(&example());
    let config = Config::parse(&text, Path::new("/etc/vss")).expect("with optional settings");
    assert!(config.hsm.pin_file.is_some() && config.frames.is_some());
    assert!(config.daemon.metrics.is_some() && config.daemon.tcp.is_some());
    // Written back with every optional part present, the configuration names all its keys.
    let every_key = keys_of(&toml::to_string(&config).expect("serialize"));
    let written = keys_of(&text);
    let missing: Vec<_> = every_key.difference(&written).collect();
    assert!(missing.is_empty(), "examples/vss.toml lacks {missing:?}");
    assert!(every_key.len() > 40, "{every_key:?}");
}

#[test]
fn only_settings_are_uncommented() {
    assert!(is_setting("key = \"rx-enc\"") && is_setting("[daemon.tcp]"));
    assert!(!is_setting("… and its private key (PEM, PKCS#8)."));
    assert!(!is_setting(
        "Optional: where Prometheus /metrics is served = x"
    ));
}
