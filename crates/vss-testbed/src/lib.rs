//! The harnesses of VSS, as a library the `vss` command calls: what sets up a scenario,
//! measures it and says how it compares. Nothing here is linked into `vssd`, `libvss.so`
//! or the Python package.
//!
//! - [`loopback`]: a [`Testbed`] of ETSI TS 102 941 PKIs served on loopback and stations
//!   registered at all of them, in a directory removed when it is dropped;
//! - [`service`]: `vss testbed up`, the testbed with a provisioned station and a
//!   configuration for `vssd`;
//! - [`selftest`]: seed 000's validation suite on the testbed;
//! - [`demo`]: `vss demo`, two stations exchanging signed CAMs over UDP on loopback;
//! - [`bench`]: every `vss bench …` benchmark, its set-up, measurement and references;
//! - [`report`]: what a harness returns ([`report::Report`]: JSON, a table, the failed
//!   check), text tables and progress bars.
//!
//! Harness errors are reported to a person, never matched, so they are [`anyhow::Error`]
//! where the harness is not built on the entity's own errors.

pub mod bench;
pub mod demo;
pub mod loopback;
pub mod report;
pub mod selftest;
pub mod service;

use std::path::{Path, PathBuf};

use vss_hsm::Backend;

pub use loopback::{Testbed, TestbedPki, TestbedStation, PIN};

/// Which key store a harness makes: its backend, and the PKCS#11 module of a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HsmOptions {
    /// The backend of the store.
    pub backend: Backend,
    /// The PKCS#11 module for [`Backend::Pkcs11`] (SoftHSMv2 reads its token directory from
    /// `SOFTHSM2_CONF`).
    pub module: PathBuf,
}

impl HsmOptions {
    /// A soft key store.
    pub fn soft() -> HsmOptions {
        HsmOptions {
            backend: Backend::Soft,
            module: PathBuf::new(),
        }
    }

    /// A token of the PKCS#11 `module`.
    pub fn pkcs11(module: &Path) -> HsmOptions {
        HsmOptions {
            backend: Backend::Pkcs11,
            module: module.to_path_buf(),
        }
    }
}
