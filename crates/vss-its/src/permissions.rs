//! Permissions (1609.2 5.1.2.4, 6.4.28–6.4.31): a certificate's application, issue and
//! request permissions must be granted by its issuer's `certIssuePermissions`.

use rasn::types::Integer;

use crate::asn::{
    EndEntityType, Psid, PsidGroupPermissions, PsidSsp, PsidSspRange, ServiceSpecificPermissions,
    SspRange, SubjectPermissions, ToBeSignedCertificate,
};

fn int(value: &Integer) -> Option<i64> {
    i64::try_from(value).ok()
}

fn ee_bits(ee: &EndEntityType) -> u8 {
    ee.0.as_raw_slice().first().copied().unwrap_or(0)
}

/// Whether `ssp` is inside `range` (absent range: any SSP).
fn ssp_in_range(ssp: Option<&ServiceSpecificPermissions>, range: Option<&SspRange>) -> bool {
    match (range, ssp) {
        (None | Some(SspRange::All(())), _) => true,
        (Some(SspRange::Opaque(allowed)), Some(ServiceSpecificPermissions::Opaque(s))) => {
            allowed.iter().any(|a| a == s)
        }
        (Some(SspRange::Opaque(allowed)), None) => allowed.iter().any(|a| a.is_empty()),
        (Some(SspRange::BitmapSspRange(r)), Some(ServiceSpecificPermissions::BitmapSsp(s))) => {
            s.0.len() == r.ssp_value.len()
                && r.ssp_bitmask.len() == r.ssp_value.len()
                && s.0
                    .iter()
                    .zip(r.ssp_value.iter().zip(r.ssp_bitmask.iter()))
                    .all(|(s, (v, m))| s & m == v & m)
        }
        _ => false,
    }
}

/// Whether an SSP range is inside another. A bitmap range is inside another when it fixes
/// at least the bits the other fixes, to the same values.
fn range_in_range(inner: Option<&SspRange>, outer: Option<&SspRange>) -> bool {
    match (outer, inner) {
        (None | Some(SspRange::All(())), _) => true,
        (Some(SspRange::Opaque(outer)), Some(SspRange::Opaque(inner))) => {
            inner.iter().all(|i| outer.contains(i))
        }
        (Some(SspRange::BitmapSspRange(o)), Some(SspRange::BitmapSspRange(i))) => {
            let len = o.ssp_value.len();
            [&o.ssp_bitmask, &i.ssp_value, &i.ssp_bitmask]
                .iter()
                .all(|b| b.len() == len)
                && (0..len).all(|k| {
                    let mask = o.ssp_bitmask[k];
                    mask & !i.ssp_bitmask[k] == 0 && i.ssp_value[k] & mask == o.ssp_value[k] & mask
                })
        }
        _ => false,
    }
}

/// Whether a group lets its holder issue end-entity certificates (chain length 1).
fn issues_end_entities(group: &PsidGroupPermissions) -> bool {
    match (int(&group.min_chain_length), int(&group.chain_length_range)) {
        (Some(min), Some(range)) => min <= 1 && (range == -1 || min + range >= 1),
        _ => false,
    }
}

/// Whether a group lets its holder issue a CA certificate holding `subject`'s chain lengths.
fn issues_chain(subject: &PsidGroupPermissions, group: &PsidGroupPermissions) -> bool {
    let (Some(s_min), Some(s_range), Some(i_min), Some(i_range)) = (
        int(&subject.min_chain_length),
        int(&subject.chain_length_range),
        int(&group.min_chain_length),
        int(&group.chain_length_range),
    ) else {
        return false;
    };
    if i_range == -1 {
        return i_min <= s_min + 1;
    }
    s_range != -1 && i_min <= s_min + 1 && s_min + 1 + s_range <= i_min + i_range
}

/// Whether a group's subject permissions cover a PSID with an SSP.
fn covers_psid_ssp(group: &PsidGroupPermissions, permission: &PsidSsp) -> bool {
    match &group.subject_permissions {
        SubjectPermissions::All(()) => true,
        SubjectPermissions::Explicit(ranges) => ranges.0.iter().any(|r| {
            r.psid == permission.psid && ssp_in_range(permission.ssp.as_ref(), r.ssp_range.as_ref())
        }),
        _ => false,
    }
}

/// Whether a group's subject permissions cover a PSID with an SSP range.
fn covers_psid_range(group: &PsidGroupPermissions, permission: &PsidSspRange) -> bool {
    match &group.subject_permissions {
        SubjectPermissions::All(()) => true,
        SubjectPermissions::Explicit(ranges) => ranges.0.iter().any(|r| {
            r.psid == permission.psid
                && range_in_range(permission.ssp_range.as_ref(), r.ssp_range.as_ref())
        }),
        _ => false,
    }
}

/// Whether the subject permissions of `inner` are inside the union of the `groups`' (each
/// PSID may be granted by a different group, as in ETSI's conformance-test root
/// certificates, whose EA permission to certify PSID 623 comes from the group for
/// PSID 623).
fn subject_in_groups(inner: &PsidGroupPermissions, groups: &[&PsidGroupPermissions]) -> bool {
    match &inner.subject_permissions {
        SubjectPermissions::All(()) => groups
            .iter()
            .any(|g| matches!(g.subject_permissions, SubjectPermissions::All(()))),
        SubjectPermissions::Explicit(ranges) => ranges
            .0
            .iter()
            .all(|r| groups.iter().any(|g| covers_psid_range(g, r))),
        _ => false,
    }
}

/// Checks that every permission of `subject` is granted by `issuer_groups` (the issuer's
/// `certIssuePermissions`); the error says which one is not.
pub fn check_granted(
    subject: &ToBeSignedCertificate,
    issuer_groups: &[PsidGroupPermissions],
) -> Result<(), String> {
    // A CA's own application permissions (e.g. PSID 623 to sign requests) are granted by a
    // group for CA certificates too: ETSI's conformance-test roots grant them that way.
    let is_ca = subject.cert_issue_permissions.is_some();
    for p in subject.app_permissions.iter().flat_map(|s| s.0.iter()) {
        let granted = issuer_groups.iter().any(|g| {
            ee_bits(&g.ee_type) & EndEntityType::APP != 0
                && (is_ca || issues_end_entities(g))
                && covers_psid_ssp(g, p)
        });
        if !granted {
            return Err(format!(
                "application permission for PSID {} is not granted",
                psid_text(&p.psid)
            ));
        }
    }
    let all: Vec<&PsidGroupPermissions> = issuer_groups.iter().collect();
    for s in subject
        .cert_issue_permissions
        .iter()
        .flat_map(|g| g.0.iter())
    {
        let chain = issuer_groups
            .iter()
            .any(|g| issues_chain(s, g) && ee_bits(&s.ee_type) & !ee_bits(&g.ee_type) == 0);
        if !chain || !subject_in_groups(s, &all) {
            return Err("a group of certIssuePermissions is not granted by the issuer".into());
        }
    }
    let enrol: Vec<&PsidGroupPermissions> = issuer_groups
        .iter()
        .filter(|g| ee_bits(&g.ee_type) & EndEntityType::ENROLL != 0 && issues_end_entities(g))
        .collect();
    for s in subject
        .cert_request_permissions
        .iter()
        .flat_map(|g| g.0.iter())
    {
        if enrol.is_empty() || !subject_in_groups(s, &enrol) {
            return Err("a group of certRequestPermissions is not granted by the issuer".into());
        }
    }
    Ok(())
}

/// Whether a certificate's `appPermissions` allow signing for `psid`.
pub fn allows_psid(subject: &ToBeSignedCertificate, psid: crate::Psid) -> bool {
    subject
        .app_permissions
        .iter()
        .flat_map(|s| s.0.iter())
        .any(|p| crate::Psid::from_asn(&p.psid) == Some(psid))
}

fn psid_text(psid: &Psid) -> String {
    crate::Psid::from_asn(psid).map_or_else(|| "(out of range)".into(), |v| v.to_string())
}
