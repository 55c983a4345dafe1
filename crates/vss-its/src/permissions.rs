//! Permissions (1609.2 5.1.2.4, 6.4.28–6.4.31): a certificate's application, issue and
//! request permissions must be granted by its issuer's `certIssuePermissions`.

use rasn::types::Integer;

use crate::asn::{
    EndEntityType, Psid, PsidGroupPermissions, PsidSsp, PsidSspRange, ServiceSpecificPermissions,
    SspRange, SubjectPermissions, ToBeSignedCertificate,
};

/// The value of a PSID, when it fits in 64 bits.
pub fn psid_value(psid: &Psid) -> Option<u64> {
    u64::try_from(&psid.0).ok()
}

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

/// Whether an SSP range is inside another.
fn range_in_range(inner: Option<&SspRange>, outer: Option<&SspRange>) -> bool {
    match (outer, inner) {
        (None | Some(SspRange::All(())), _) => true,
        (Some(SspRange::Opaque(outer)), Some(SspRange::Opaque(inner))) => {
            inner.iter().all(|i| outer.contains(i))
        }
        (Some(outer @ SspRange::BitmapSspRange(_)), Some(inner)) => outer == inner,
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

/// Whether the subject permissions of `inner` are inside those of `outer`.
fn subject_in_group(inner: &PsidGroupPermissions, outer: &PsidGroupPermissions) -> bool {
    match &inner.subject_permissions {
        SubjectPermissions::All(()) => {
            matches!(outer.subject_permissions, SubjectPermissions::All(()))
        }
        SubjectPermissions::Explicit(ranges) => {
            ranges.0.iter().all(|r| covers_psid_range(outer, r))
        }
        _ => false,
    }
}

/// Checks that every permission of `subject` is granted by `issuer_groups` (the issuer's
/// `certIssuePermissions`); the error says which one is not.
pub fn check_granted(
    subject: &ToBeSignedCertificate,
    issuer_groups: &[PsidGroupPermissions],
) -> Result<(), String> {
    for p in subject.app_permissions.iter().flat_map(|s| s.0.iter()) {
        let granted = issuer_groups.iter().any(|g| {
            ee_bits(&g.ee_type) & EndEntityType::APP != 0
                && issues_end_entities(g)
                && covers_psid_ssp(g, p)
        });
        if !granted {
            return Err(format!(
                "application permission for PSID {} is not granted",
                psid_text(&p.psid)
            ));
        }
    }
    for (field, groups) in [
        ("certIssuePermissions", &subject.cert_issue_permissions),
        ("certRequestPermissions", &subject.cert_request_permissions),
    ] {
        for s in groups.iter().flat_map(|g| g.0.iter()) {
            let granted = issuer_groups.iter().any(|g| {
                let chain = if field == "certIssuePermissions" {
                    issues_chain(s, g)
                } else {
                    ee_bits(&g.ee_type) & EndEntityType::ENROLL != 0 && issues_end_entities(g)
                };
                chain && ee_bits(&s.ee_type) & !ee_bits(&g.ee_type) == 0 && subject_in_group(s, g)
            });
            if !granted {
                return Err(format!("a group of {field} is not granted by the issuer"));
            }
        }
    }
    Ok(())
}

/// Whether a certificate's `appPermissions` allow signing for `psid`.
pub fn allows_psid(subject: &ToBeSignedCertificate, psid: u64) -> bool {
    subject
        .app_permissions
        .iter()
        .flat_map(|s| s.0.iter())
        .any(|p| psid_value(&p.psid) == Some(psid))
}

fn psid_text(psid: &Psid) -> String {
    psid_value(psid).map_or_else(|| "(out of range)".into(), |v| v.to_string())
}
