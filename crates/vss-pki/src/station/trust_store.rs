//! A station's trust store from the lists of the C-ITS trust model (TS 102 941 v2.1.1,
//! §6.3): the ECTL verified under a pinned TLM certificate, and for each root CA it lists,
//! the root's CTL (with its delta CTL, where the distribution centre serves one) and CRL
//! fetched from its distribution centre and verified under the root.
//! [`StationTrust::trust_store`] turns them into the validator's anchors with their lists.
//!
//! On disk (`DIR`, see [`StationTrust::save`]) a store is a generation directory
//! `DIR/gen-N/` with `tlm.cert`, `ectl.oer`, `<root>.ctl.oer`, `<root>.deltactl.oer` (where
//! there is a delta), `<root>.crl.oer` and `<root>.dc`, and the
//! link `DIR/current` to it, replaced atomically: a reader, or a crash, sees the old store or
//! the new one, and a failed update leaves the last good one in place.

use std::path::{Path, PathBuf};

use vss_its::{
    AnchorLists, Cert, HashedId8, ItsTime, StaleCrlPolicy, TrustAnchors, Validator, Verdict,
};

use crate::http::{get_list, list_url, HttpError, MAX_LIST_FILE};
use crate::lists::{ListEntry, ListIssuer, ListKind, RevocationList, TrustList};
use crate::{Error, Result};

/// The most root CAs an ECTL may list for a station to fetch the lists of.
pub const MAX_ROOTS: usize = 64;

/// The link to the current generation in a trust store directory.
const CURRENT: &str = "current";
/// The prefix of a generation directory.
const GENERATION: &str = "gen-";
/// The pinned TLM certificate, in a generation.
const TLM_CERT: &str = "tlm.cert";
/// The ECTL, in a generation.
const ECTL: &str = "ectl.oer";

/// Where the ECTL comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EctlSource {
    /// A distribution centre's URL for it (`…/getectl/<TLM HashedId8>`).
    Url(String),
    /// A file.
    File(PathBuf),
}

impl EctlSource {
    /// An `http://` or `https://` argument is a URL, anything else a file.
    pub fn parse(text: &str) -> EctlSource {
        if text.starts_with("http://") || text.starts_with("https://") {
            EctlSource::Url(text.to_string())
        } else {
            EctlSource::File(PathBuf::from(text))
        }
    }

    fn fetch(&self) -> Result<Vec<u8>> {
        match self {
            EctlSource::Url(url) => Ok(get_list(url)?),
            EctlSource::File(path) => read(path),
        }
    }
}

/// A signed list with its typed view.
#[derive(Debug, Clone)]
pub struct Signed<T> {
    /// The list.
    pub list: T,
    /// Its signed bytes, as fetched.
    pub bytes: Vec<u8>,
}

/// A root CA of the ECTL with its verified lists.
#[derive(Debug, Clone)]
pub struct RootTrust {
    /// Its certificate, from the ECTL.
    pub cert: Cert,
    /// The distribution centre its lists came from.
    pub dc_url: String,
    /// Its CTL (full), signed by it.
    pub ctl: Signed<TrustList>,
    /// Its delta CTL on that full CTL, signed by it, where one was served.
    pub delta_ctl: Option<Signed<TrustList>>,
    /// The CTL in force: the full CTL with the delta applied ([`TrustList::apply`]).
    pub ctl_in_force: TrustList,
    /// Its CRL, signed by it.
    pub crl: Signed<RevocationList>,
}

/// A verified set of lists: the ECTL under the TLM, each root's CTL and CRL under the root.
#[derive(Debug, Clone)]
pub struct StationTrust {
    /// The pinned TLM certificate.
    pub tlm: Cert,
    /// The ECTL (full), signed by the TLM.
    pub ectl: Signed<TrustList>,
    /// The root CAs of the ECTL, in its order.
    pub roots: Vec<RootTrust>,
}

/// Whether verification insists that every list is current (a trust update) or takes lists
/// that have gone stale since (loading the store: staleness is then the validator's policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Freshness {
    Required,
    Tolerated,
}

impl StationTrust {
    /// A trust update: fetches the ECTL from `source` and verifies it under the pinned `tlm`,
    /// then fetches each listed root's CTL and CRL from the distribution centres the ECTL
    /// names for it and verifies them under the root. Every list must be current at `now`
    /// and the trust lists full. Nothing is written: see [`StationTrust::save`].
    pub fn fetch(tlm: &Cert, source: &EctlSource, now: ItsTime) -> Result<StationTrust> {
        let ectl = verify_ectl(tlm, source.fetch()?, now, Freshness::Required)?;
        let roots = ectl
            .list
            .roots()
            .into_iter()
            .map(|root| fetch_root(&ectl.list, root, now))
            .collect::<Result<Vec<_>>>()?;
        Ok(StationTrust {
            tlm: tlm.clone(),
            ectl,
            roots,
        })
    }

    /// Writes the store as a new generation under `dir` and makes it current atomically;
    /// older generations are removed.
    pub fn save(&self, dir: &Path) -> Result<()> {
        create_dir(dir)?;
        let next = current_generation(dir)?.map_or(1, |n| n + 1);
        let name = format!("{GENERATION}{next}");
        let generation = dir.join(&name);
        if generation.exists() {
            // Left by an update that failed before it became current.
            std::fs::remove_dir_all(&generation).map_err(io(&generation))?;
        }
        create_dir(&generation)?;
        write(&generation.join(TLM_CERT), self.tlm.canonical_bytes())?;
        write(&generation.join(ECTL), &self.ectl.bytes)?;
        for root in &self.roots {
            let id = root.cert.hashed_id8();
            write(
                &generation.join(list_file(&id, ListKind::Ctl)),
                &root.ctl.bytes,
            )?;
            write(
                &generation.join(list_file(&id, ListKind::Crl)),
                &root.crl.bytes,
            )?;
            if let Some(delta) = &root.delta_ctl {
                write(
                    &generation.join(list_file(&id, ListKind::DeltaCtl)),
                    &delta.bytes,
                )?;
            }
            write(&generation.join(dc_file(&id)), root.dc_url.as_bytes())?;
        }
        vss_hsm::sync_dir(&generation)?;
        vss_hsm::replace_link(&dir.join(CURRENT), Path::new(&name))?;
        remove_other_generations(dir, &name)
    }

    /// Reads the current store of `dir` and verifies it again at `now` (a list that has
    /// gone stale since the update is taken; what that means is the validator's policy).
    pub fn load(dir: &Path, now: ItsTime) -> Result<StationTrust> {
        let current = dir.join(CURRENT);
        if std::fs::symlink_metadata(&current).is_err() {
            return Err(Error::InvalidRequest(format!(
                "{} holds no trust store (make one with `vss station trust-update`)",
                dir.display()
            )));
        }
        let tlm_path = current.join(TLM_CERT);
        let tlm = Cert::from_bytes(&read(&tlm_path)?).map_err(|e| Error::Malformed {
            what: "TLM certificate",
            detail: format!("{}: {e}", tlm_path.display()),
        })?;
        let ectl = verify_ectl(&tlm, read(&current.join(ECTL))?, now, Freshness::Tolerated)?;
        let roots = ectl
            .list
            .roots()
            .into_iter()
            .map(|root| {
                let id = root.hashed_id8();
                let lists = |kind| read(&current.join(list_file(&id, kind)));
                let dc_url = used_dc(&current, &id, &ectl.list.dc_urls(&id))?;
                let delta = current.join(list_file(&id, ListKind::DeltaCtl));
                let fetched = RootLists {
                    ctl: lists(ListKind::Ctl)?,
                    delta_ctl: read_if_present(&delta, MAX_LIST_FILE)?,
                    crl: lists(ListKind::Crl)?,
                };
                verify_root(root, dc_url, fetched, now, Freshness::Tolerated)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(StationTrust { tlm, ectl, roots })
    }

    /// The validator's trust store: each root CA an anchor, with what its CTL in force lists,
    /// what its CRL revokes and when that CRL is due; the EAs and AAs of the CTLs and delta
    /// CTLs known issuers.
    pub fn trust_store(&self, stale_crl: StaleCrlPolicy) -> Result<TrustAnchors> {
        let mut store = TrustAnchors::new().with_stale_crl(stale_crl);
        for root in &self.roots {
            let id = store.add(root.cert.clone())?;
            let lists = AnchorLists {
                listed: root.authorities().map(Cert::hashed_id8).collect(),
                revoked: root.crl.list.revoked.iter().copied().collect(),
                crl_next_update: root.crl.list.next_update,
            };
            store.set_lists(id, lists)?;
        }
        for cert in self.roots.iter().flat_map(RootTrust::known_authorities) {
            store.add_issuer(cert.clone());
        }
        Ok(store)
    }

    /// The EA and AA certificates every root's CTL in force lists.
    pub fn authorities(&self) -> Vec<&Cert> {
        self.roots.iter().flat_map(RootTrust::authorities).collect()
    }
}

impl RootTrust {
    /// The EA and AA certificates its CTL in force lists.
    pub fn authorities(&self) -> impl Iterator<Item = &Cert> {
        authorities(&self.ctl_in_force)
    }

    /// The EA and AA certificates its CTL or delta CTL carries: the issuers the validator
    /// knows, so that a ticket whose AA the message does not carry resolves (and one under
    /// an AA the delta deletes is refused as `UnlistedCa`, one under a revoked AA as
    /// `Revoked`, not as an unknown signer).
    pub fn known_authorities(&self) -> impl Iterator<Item = &Cert> {
        let delta = self.delta_ctl.as_ref().map(|d| &d.list);
        authorities(&self.ctl.list).chain(delta.into_iter().flat_map(authorities))
    }
}

/// The EA and AA certificates `list` adds.
fn authorities(list: &TrustList) -> impl Iterator<Item = &Cert> {
    list.additions.iter().filter_map(|entry| match entry {
        ListEntry::Ea { cert, .. } | ListEntry::Aa { cert, .. } => Some(cert),
        _ => None,
    })
}

/// The ECTL in `bytes` verified under `tlm`: signed by it, a full TLM list, and (when
/// required) current.
fn verify_ectl(
    tlm: &Cert,
    bytes: Vec<u8>,
    now: ItsTime,
    freshness: Freshness,
) -> Result<Signed<TrustList>> {
    let what = "ECTL".to_string();
    verify_signed(&bytes, tlm, &what, now)?;
    let list = TrustList::parse(&bytes)?;
    check_full(&list, ListIssuer::Tlm, &what)?;
    check_current(&what, list.next_update, now, freshness)?;
    if list.roots().len() > MAX_ROOTS {
        return Err(Error::Malformed {
            what: "ECTL",
            detail: format!("it lists more than {MAX_ROOTS} root CAs"),
        });
    }
    Ok(Signed { list, bytes })
}

/// The signed lists of a root, as fetched or read back.
struct RootLists {
    ctl: Vec<u8>,
    delta_ctl: Option<Vec<u8>>,
    crl: Vec<u8>,
}

/// Fetches the CTL, delta CTL (where served: a 404 means none) and CRL of `root` from
/// `dc`.
fn fetch_lists(dc: &str, id: &HashedId8) -> std::result::Result<RootLists, HttpError> {
    let ctl = get_list(&list_url(dc, ListKind::Ctl, id))?;
    let delta_ctl = match get_list(&list_url(dc, ListKind::DeltaCtl, id)) {
        Ok(delta) => Some(delta),
        Err(HttpError::Status { status: 404, .. }) => None,
        Err(e) => return Err(e),
    };
    let crl = get_list(&list_url(dc, ListKind::Crl, id))?;
    Ok(RootLists {
        ctl,
        delta_ctl,
        crl,
    })
}

/// Fetches the lists of `root` from the first distribution centre the ECTL names for it
/// that serves them, and verifies them.
fn fetch_root(ectl: &TrustList, root: &Cert, now: ItsTime) -> Result<RootTrust> {
    let id = root.hashed_id8();
    let urls = ectl.dc_urls(&id);
    let mut last_error = None;
    for dc in &urls {
        match fetch_lists(dc, &id) {
            Ok(lists) => return verify_root(root, dc, lists, now, Freshness::Required),
            Err(e) => last_error = Some(e),
        }
    }
    Err(match last_error {
        Some(e) => e.into(),
        None => Error::Malformed {
            what: "ECTL",
            detail: format!("it names no distribution centre for root CA {id}"),
        },
    })
}

/// The lists of `root` verified under it: signed by it, the CTL a full root list and the
/// delta CTL a delta on it, and (when required) all current.
fn verify_root(
    root: &Cert,
    dc_url: &str,
    lists: RootLists,
    now: ItsTime,
    freshness: Freshness,
) -> Result<RootTrust> {
    let id = root.hashed_id8();
    let ctl_name = format!("CTL of root CA {id}");
    verify_signed(&lists.ctl, root, &ctl_name, now)?;
    let ctl = TrustList::parse(&lists.ctl)?;
    check_full(&ctl, ListIssuer::RootCa, &ctl_name)?;
    check_current(&ctl_name, ctl.next_update, now, freshness)?;
    let mut ctl_in_force = ctl.clone();
    let delta_ctl = match lists.delta_ctl {
        Some(bytes) => {
            let name = format!("delta CTL of root CA {id}");
            verify_signed(&bytes, root, &name, now)?;
            let delta = TrustList::parse(&bytes)?;
            check_current(&name, delta.next_update, now, freshness)?;
            ctl_in_force = ctl.apply(&delta)?;
            Some(Signed { list: delta, bytes })
        }
        None => None,
    };
    let crl_name = format!("CRL of root CA {id}");
    verify_signed(&lists.crl, root, &crl_name, now)?;
    let crl = RevocationList::parse(&lists.crl)?;
    check_current(&crl_name, crl.next_update, now, freshness)?;
    Ok(RootTrust {
        cert: root.clone(),
        dc_url: dc_url.to_string(),
        ctl: Signed {
            list: ctl,
            bytes: lists.ctl,
        },
        delta_ctl,
        ctl_in_force,
        crl: Signed {
            list: crl,
            bytes: lists.crl,
        },
    })
}

/// Whether `bytes` is a message signed by `signer` (and only it), valid at `now`.
fn verify_signed(bytes: &[u8], signer: &Cert, list: &str, now: ItsTime) -> Result<()> {
    let mut anchor = TrustAnchors::new();
    anchor.add(signer.clone())?;
    let report = Validator::new(anchor, 1).verify_data(bytes, &[], now);
    if report.verdict == Verdict::Valid {
        return Ok(());
    }
    Err(Error::UntrustedList {
        list: list.to_string(),
        verdict: report.verdict,
        reason: report.reason,
    })
}

fn check_full(list: &TrustList, issuer: ListIssuer, name: &str) -> Result<()> {
    if list.issuer != issuer {
        return Err(Error::Malformed {
            what: "CTL",
            detail: format!("the {name} is not a list of its signer's kind"),
        });
    }
    if !list.full {
        return Err(Error::Malformed {
            what: "CTL",
            detail: format!("the {name} is a delta list: a trust update takes full lists"),
        });
    }
    Ok(())
}

fn check_current(
    name: &str,
    next_update: ItsTime,
    now: ItsTime,
    freshness: Freshness,
) -> Result<()> {
    if freshness == Freshness::Required && next_update <= now {
        return Err(Error::StaleList {
            list: name.to_string(),
            next_update,
        });
    }
    Ok(())
}

/// The file of a root's list in a generation.
fn list_file(id: &HashedId8, kind: ListKind) -> String {
    format!("{id}.{}.oer", kind.name())
}

/// The file naming the distribution centre a root's lists came from, in a generation.
fn dc_file(id: &HashedId8) -> String {
    format!("{id}.dc")
}

/// The distribution centre root `id`'s lists came from, as the generation `current` names
/// it; it must be one the ECTL lists for the root. A store saved before the file existed
/// names the first.
fn used_dc<'a>(current: &Path, id: &HashedId8, listed: &[&'a str]) -> Result<&'a str> {
    let path = current.join(dc_file(id));
    let Some(named) = read_if_present(&path, crate::url::MAX_URL_LEN as u64)? else {
        return Ok(listed.first().copied().unwrap_or_default());
    };
    listed
        .iter()
        .copied()
        .find(|url| url.as_bytes() == named.as_slice())
        .ok_or_else(|| Error::Malformed {
            what: "trust store",
            detail: format!(
                "{} names a distribution centre the ECTL does not list for root {id}",
                path.display()
            ),
        })
}

/// The number of the generation `DIR/current` points at, if any.
fn current_generation(dir: &Path) -> Result<Option<u64>> {
    let link = dir.join(CURRENT);
    match std::fs::read_link(&link) {
        Ok(target) => Ok(target
            .to_str()
            .and_then(|t| t.strip_prefix(GENERATION))
            .and_then(|n| n.parse().ok())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(&link)(e)),
    }
}

/// Removes every generation of `dir` but `keep`.
fn remove_other_generations(dir: &Path, keep: &str) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let path = entry.map_err(io(dir))?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.starts_with(GENERATION) && name != keep && path.is_dir() {
            std::fs::remove_dir_all(&path).map_err(io(&path))?;
        }
    }
    Ok(())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io(dir))
}

/// The file at `path`, at most `max` bytes, or `None` when there is none (a generation
/// written before it existed, or without a delta).
fn read_if_present(path: &Path, max: u64) -> Result<Option<Vec<u8>>> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => Ok(Some(vss_hsm::read_bounded(path, max).map_err(io(path))?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    vss_hsm::read_bounded(path, MAX_LIST_FILE).map_err(io(path))
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(vss_hsm::write_atomic(path, bytes)?)
}
