//! The harnesses of VSS, as a library the `vss` command calls: what sets up a scenario,
//! measures it and says how it compares. Nothing here is linked into `vssd`, `libvss.so`
//! or the Python package.
//!
//! - [`report`]: what a harness returns ([`report::Report`]: JSON, a table, the failed
//!   check), text tables and progress bars;
//! - [`bench`]: every `vss bench …` benchmark, its set-up, measurement and references.
//!
//! Harness errors are reported to a person, never matched, so they are [`anyhow::Error`].

pub mod bench;
pub mod report;
