//! The seeds' reference figures for one signature and one verification.

use vss_crypto::Curve;

/// One reference row: a platform from a seed document and its per-operation times.
pub struct Reference {
    /// Platform and build, as the seed describes it.
    pub name: &'static str,
    /// Where in the seeds the figures are.
    pub source: &'static str,
    /// The curve measured.
    pub curve: &'static str,
    /// Milliseconds per signature.
    pub sign_ms: f64,
    /// Milliseconds per verification.
    pub verify_ms: f64,
}

/// PRESERVE D3.1.1 (seed 000) tables 4.1, 4.2, 4.4, 4.6 and 4.7 (ECDSA P-256), then the KIT
/// ECDSA unit at 50 MHz (seed 001 tables 4 and 5, worst case; P-224 figures for p224, P-256 for the rest).
pub fn references(curve: Curve) -> Vec<Reference> {
    let mut rows = vec![
        Reference {
            name: "x86 Atom N270 1.6 GHz, -Os",
            source: "seed 000 table 4.1",
            curve: "p256",
            sign_ms: 16.5,
            verify_ms: 93.5,
        },
        Reference {
            name: "x86 Atom N270 1.6 GHz, -O3",
            source: "seed 000 table 4.2",
            curve: "p256",
            sign_ms: 14.4,
            verify_ms: 83.2,
        },
        Reference {
            name: "Denso WSU PPC 400 MHz, -O3",
            source: "seed 000 table 4.4",
            curve: "p256",
            sign_ms: 65.8,
            verify_ms: 375.3,
        },
        Reference {
            name: "Cohda MK3 ARM11 533 MHz, -O3",
            source: "seed 000 table 4.6",
            curve: "p256",
            sign_ms: 107.8,
            verify_ms: 616.8,
        },
        Reference {
            name: "PRESERVE FPGA over USB",
            source: "seed 000 table 4.7",
            curve: "p256",
            sign_ms: 88.5,
            verify_ms: 75.8,
        },
    ];
    let (kit_curve, sign_ms, verify_ms) = match curve {
        Curve::P224 => ("p224", 5.56, 7.23),
        _ => ("p256", 7.26, 9.42),
    };
    rows.push(Reference {
        name: "KIT ECDSA unit, FPGA 50 MHz",
        source: "seed 001 tables 4-5",
        curve: kit_curve,
        sign_ms,
        verify_ms,
    });
    rows
}
