//! The bridge's station: the daemon bench's entity (the bench PKI's root trusted, its AA
//! known, every message verified, replays refused within an hour) with one ticket of the
//! bench PKI as its pseudonym, its key in the entity's store; each measurement opens a bridge
//! on it afresh (an empty replay window: every measurement verifies the same packets).

use std::sync::Arc;

use anyhow::{Context, Result};
use vss_core::config::{DaemonConfig, PseudonymConfig};
use vss_core::gn_bridge::{run, Bridge, BridgeConfig};
use vss_core::replay::ReplayConfig;
use vss_core::Vss;
use vss_crypto::Curve;
use vss_engine::EngineKind;
use vss_gn::Limits;
use vss_hsm::GenerateKeyRequest;
use vss_pki::station::{CertKind, Repository};

use super::packets::STACK_SIDE_MAC;
use crate::bench::daemon::setup::{DaemonSettings, Entity};
use crate::bench::ticket_pki::Pki;

/// The label of the pseudonym's key.
const TICKET_KEY: &str = "bench-pseudonym";

/// The station behind the bridge.
pub(super) struct Station {
    entity: Entity,
}

impl Station {
    /// The station for `pki`, verifying on `engine`, remembering `remembered` messages
    /// against replays; its one pseudonym is kept throughout (no change is due).
    pub(super) fn new(pki: &Pki, engine: EngineKind, remembered: usize) -> Result<Station> {
        let daemon = DaemonConfig::default();
        let mut entity = Entity::new(
            pki,
            engine,
            DaemonSettings {
                batch_max: run::MAX_BATCH,
                batch_deadline: daemon.batch_deadline,
                max_connections: daemon.max_connections,
            },
            remembered,
        )?;
        entity.config.pseudonyms = PseudonymConfig {
            max_uses: u64::MAX,
            ask_new_pseudonyms: false,
            min_pool: 0,
            ..PseudonymConfig::default()
        };
        let hsm = entity.open_store()?;
        let key = hsm.generate_key(&GenerateKeyRequest::new(TICKET_KEY, Curve::P256))?;
        let ticket = pki.ticket(hsm.public_key(&key.handle)?)?;
        Repository::open(&entity.config.repository.dir)?.store(
            CertKind::Pseudonym,
            &ticket,
            TICKET_KEY,
            None,
        )?;
        Ok(Station { entity })
    }

    /// The entity's replay window (the filter of the same run gets it too).
    pub(super) fn replay(&self) -> Option<ReplayConfig> {
        self.entity.config.replay.window()
    }

    /// A bridge on the entity, opened afresh; unsecured packets from the radio dropped.
    pub(super) fn bridge(&self) -> Result<Bridge> {
        let vss =
            Vss::open_unattended(&self.entity.config).context("cannot open the bridge's entity")?;
        let config = BridgeConfig {
            limits: Limits::default(),
            allow_unsecured: false,
            stack_side_mac: STACK_SIDE_MAC,
        };
        Ok(Bridge::new(Arc::new(vss), config, None))
    }
}
