//! The authorities of a PKI: its directory, the creation of the root CA, EA and AA, the EA
//! (enrolment, authorization validation) and the AA (authorization).

mod aa;
mod conclude;
mod ea;
mod intake;
mod layout;
mod list_order;
mod lists;
mod peers;
mod tlm;

pub use aa::{Aa, EaLink, KnownEa, LocalEa};
pub use ea::{Answer, Ea, EC_CACHE_CAPACITY};
pub use layout::{init, labels, Authorities, InitRequest, PkiDir};
pub use list_order::TrustListOrder;
pub use lists::{CtlRequest, MAX_LIST_VALIDITY};
pub use peers::PeerPki;
pub use tlm::{init_tlm, EctlRequest, EctlRoot, TLM_KEY};
