//! The trust-list messages of TS 102 941 v2.1.1 against the real EU ECTL (the L2 test list
//! signed by the TLM with brainpoolP384r1): it decodes strictly into its commands.

use vss_its::Cert;
use vss_pki::messages::{
    decode, encode, CtlCommand, CtlEntry, EtsiTs102941Data, EtsiTs102941DataContent,
};

fn vector(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/vectors/its/ectl/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn hashed_id8(id: &rasn_its::ieee1609dot2::base_types::HashedId8) -> String {
    hex::encode_upper(id.0.as_ref())
}

#[test]
fn the_eu_ectl_decodes_into_its_roots_tlm_and_distribution_centres() {
    let ectl = vector("eu_ectl_L2_CE4CF6C19BFED720.oer");
    let message = vss_its::SignedMessage::from_bytes(&ectl).expect("ECTL");
    let payload = message.payload().expect("an inline payload");
    let data: EtsiTs102941Data = decode("ECTL", payload).expect("strict COER");
    assert_eq!(encode("ECTL", &data).expect("encode"), payload);
    let EtsiTs102941DataContent::CertificateTrustListTlm(ctl) = data.content else {
        panic!("not a TLM CTL: {:?}", data.content);
    };
    assert_eq!(ctl.version, 1.into());
    assert!(ctl.is_full_ctl);
    assert_eq!(ctl.ctl_sequence, 1);
    // Time32 679788003 (TAI seconds since 2004-01-01): 2025-07-16 21:59:58 UTC.
    assert_eq!(ctl.next_update.0, 679_788_003);

    let mut roots = Vec::new();
    let mut centres = Vec::new();
    let mut tlm = None;
    for command in &ctl.ctl_commands {
        match command {
            CtlCommand::Add(CtlEntry::Rca(entry)) => {
                assert!(entry.successor_to.is_none());
                let cert = Cert::from_asn(entry.selfsigned_root_ca.clone()).expect("a root");
                roots.push(cert.hashed_id8().to_string());
            }
            CtlCommand::Add(CtlEntry::Dc(entry)) => {
                let certs: Vec<String> = entry.cert.iter().map(hashed_id8).collect();
                centres.push((entry.url.to_string(), certs));
            }
            CtlCommand::Add(CtlEntry::Tlm(entry)) => tlm = Some(entry.access_point.to_string()),
            other => panic!("unexpected in the ECTL: {other:?}"),
        }
    }
    roots.sort();
    assert_eq!(roots, ["624E2E81B7945C4F", "B1FC75CD5A80C630"]);
    assert_eq!(tlm.as_deref(), Some("https://cpoc.jrc.ec.europa.eu/L2"));
    centres.sort();
    assert_eq!(
        centres,
        [
            (
                "http://1.eu-dc.l2.c-its-eu-rca.eu".to_string(),
                vec!["624E2E81B7945C4F".to_string()]
            ),
            (
                "http://microsec-ccms-dc-2024-l2.v2x-pki.com/".to_string(),
                vec!["B1FC75CD5A80C630".to_string()]
            ),
        ]
    );
}

#[test]
fn the_eu_ectl_reads_as_a_full_tlm_list_with_each_roots_distribution_centre() {
    use vss_pki::lists::{ListEntry, ListIssuer, RevocationList, TrustList};

    let list = TrustList::parse(&vector("eu_ectl_L2_CE4CF6C19BFED720.oer")).expect("ECTL");
    assert_eq!(list.issuer, ListIssuer::Tlm);
    assert_eq!(
        list.signer.map(|s| s.to_string()).as_deref(),
        Some("E7A4B2B045E7ACF9")
    );
    assert!(list.full);
    assert_eq!(list.sequence, 1);
    assert!(list.deletions.is_empty());
    assert_eq!(list.next_update.to_string(), "2025-07-16T21:59:58Z");
    let roots: Vec<_> = list
        .additions
        .iter()
        .filter_map(|e| match e {
            ListEntry::RootCa { cert, .. } => Some(cert.hashed_id8()),
            _ => None,
        })
        .collect();
    assert_eq!(roots.len(), 2);
    let urls: Vec<Vec<&str>> = roots.iter().map(|r| list.dc_urls(r)).collect();
    assert!(
        urls.contains(&vec!["http://1.eu-dc.l2.c-its-eu-rca.eu"]),
        "{urls:?}"
    );
    assert!(
        urls.contains(&vec!["http://microsec-ccms-dc-2024-l2.v2x-pki.com/"]),
        "{urls:?}"
    );

    // The ECTL is no CRL (another PSID), a certificate is no list, and a cut list is
    // malformed.
    let ectl = vector("eu_ectl_L2_CE4CF6C19BFED720.oer");
    assert!(matches!(
        RevocationList::parse(&ectl),
        Err(vss_pki::Error::Malformed { what: "CRL", .. })
    ));
    assert!(TrustList::parse(&vector("eu_tlm_L2_cert_E7A4B2B045E7ACF9.oer")).is_err());
    assert!(TrustList::parse(&ectl[..ectl.len() / 2]).is_err());
}
