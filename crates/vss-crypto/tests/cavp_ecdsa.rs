//! NIST CAVP ECDSA vectors (FIPS 186-3: SigVer, SigGen, PKV) for P-224, P-256 and P-384.

mod common;

use common::{
    hash_alg, hex, hex_fixed, hex_minimal, nist_curve, parse_rsp, read_text, uncompressed,
};
use common::{Failures, RspRecord};
use vss_crypto::{Curve, HashAlg, PrivateKey, PublicKey, Signature};

/// The curve × hash sections run from SigVer.rsp and SigGen.txt.
const SECTIONS: [(&str, &str); 12] = [
    ("P-224", "SHA-224"),
    ("P-224", "SHA-256"),
    ("P-224", "SHA-384"),
    ("P-224", "SHA-512"),
    ("P-256", "SHA-224"),
    ("P-256", "SHA-256"),
    ("P-256", "SHA-384"),
    ("P-256", "SHA-512"),
    ("P-384", "SHA-224"),
    ("P-384", "SHA-256"),
    ("P-384", "SHA-384"),
    ("P-384", "SHA-512"),
];

/// CAVS writes 15 vectors per curve × hash section in SigVer and SigGen.
const PER_SECTION: usize = 15;

/// The records of `file` in section `[curve,hash]` (or `[curve]` when `hash` is `None`).
fn section<'a>(records: &'a [RspRecord], curve: &str, hash: Option<&str>) -> Vec<&'a RspRecord> {
    let name = match hash {
        Some(h) => format!("{curve},{h}"),
        None => curve.to_owned(),
    };
    records.iter().filter(|r| r.section == name).collect()
}

/// `Result = P (0 )` → true, `Result = F (3 - S changed)` → false.
fn passes(record: &RspRecord) -> bool {
    match record.get("Result").chars().next() {
        Some('P') => true,
        Some('F') => false,
        _ => panic!("unexpected Result {:?}", record.get("Result")),
    }
}

/// The public key (Qx, Qy) at field size; an error string if it cannot be formed or is refused.
fn public_key(curve: Curve, qx: &str, qy: &str) -> Result<PublicKey, String> {
    let n = curve.scalar_len();
    let x = hex_fixed(qx, n).ok_or("Qx longer than the field")?;
    let y = hex_fixed(qy, n).ok_or("Qy longer than the field")?;
    PublicKey::from_sec1(curve, &uncompressed(&x, &y)).map_err(|e| e.to_string())
}

/// (R, S) as a P1363 signature, each half left-padded to the scalar length.
fn signature(curve: Curve, r: &str, s: &str) -> Result<Signature, String> {
    let n = curve.scalar_len();
    let mut r_s = hex_fixed(r, n).ok_or("R longer than the order")?;
    r_s.extend(hex_fixed(s, n).ok_or("S longer than the order")?);
    Signature::from_p1363(curve, &r_s).map_err(|e| e.to_string())
}

/// Whether (R, S) verifies for (Qx, Qy) over Msg hashed with `hash`; `Err` says why not.
fn verifies(curve: Curve, hash: HashAlg, record: &RspRecord) -> Result<(), String> {
    let key = public_key(curve, record.get("Qx"), record.get("Qy"))?;
    let verifier = key.verifying_key().map_err(|e| e.to_string())?;
    let sig = signature(curve, record.get("R"), record.get("S"))?;
    if verifier.verify(hash, &hex(record.get("Msg")), &sig) {
        Ok(())
    } else {
        Err("verify returned false".into())
    }
}

#[test]
fn sigver() {
    let records = parse_rsp(&read_text("cavp/SigVer.rsp"));
    let mut failures = Failures::new();
    let mut total = 0;
    for (curve_name, hash_name) in SECTIONS {
        let curve = nist_curve(curve_name).expect("supported curve");
        let hash = hash_alg(hash_name);
        let vectors = section(&records, curve_name, Some(hash_name));
        let (mut pass, mut fail) = (0, 0);
        for (i, record) in vectors.iter().enumerate() {
            let id = format!("[{curve_name},{hash_name}] #{i}");
            let result = record.get("Result");
            match (passes(record), verifies(curve, hash, record)) {
                (true, Ok(())) => pass += 1,
                (false, Err(_)) => fail += 1,
                (true, Err(why)) => {
                    failures.push("SigVer.rsp", &id, result, format!("P but rejected: {why}"))
                }
                (false, Ok(())) => failures.push("SigVer.rsp", &id, result, "F but verified"),
            }
        }
        println!(
            "SigVer.rsp [{curve_name},{hash_name}]: {} vectors ({pass} P verified, {fail} F rejected)",
            vectors.len()
        );
        assert_eq!(
            vectors.len(),
            PER_SECTION,
            "SigVer.rsp [{curve_name},{hash_name}]"
        );
        total += vectors.len();
    }
    println!("SigVer.rsp: {total} vectors run");
    failures.assert_none("CAVP SigVer");
}

#[test]
fn siggen() {
    let records = parse_rsp(&read_text("cavp/SigGen.txt"));
    let mut failures = Failures::new();
    let mut total = 0;
    for (curve_name, hash_name) in SECTIONS {
        let curve = nist_curve(curve_name).expect("supported curve");
        let hash = hash_alg(hash_name);
        let n = curve.scalar_len();
        let vectors = section(&records, curve_name, Some(hash_name));
        for (i, record) in vectors.iter().enumerate() {
            let id = format!("[{curve_name},{hash_name}] #{i}");
            let msg = hex(record.get("Msg"));
            let d = hex_fixed(record.get("d"), n).expect("d fits the scalar length");
            let key = match PrivateKey::from_scalar(curve, &d) {
                Ok(key) => key,
                Err(e) => {
                    failures.push("SigGen.txt", &id, "from_scalar", e);
                    continue;
                }
            };
            let qx = hex_fixed(record.get("Qx"), n).expect("Qx fits the field");
            let qy = hex_fixed(record.get("Qy"), n).expect("Qy fits the field");
            failures.check(
                key.public_key().to_sec1_uncompressed() == uncompressed(&qx, &qy),
                "SigGen.txt",
                &id,
                "public key",
                "from_scalar(d) does not give (Qx, Qy)",
            );
            if let Err(why) = verifies(curve, hash, record) {
                failures.push("SigGen.txt", &id, "given (R, S)", why);
            }
            let ours = key.sign(hash, &msg).expect("sign");
            let verifier = key.public_key().verifying_key().expect("verifying key");
            failures.check(
                verifier.verify(hash, &msg, &ours),
                "SigGen.txt",
                &id,
                "own signature",
                "our signature with d does not verify",
            );
            // Also through the DER encoding, as a peer would receive it.
            let der = Signature::from_der(curve, &ours.to_der()).expect("own DER parses");
            failures.check(
                der == ours && verifier.verify(hash, &msg, &der),
                "SigGen.txt",
                &id,
                "own signature (DER)",
                "DER round trip of our signature fails",
            );
        }
        println!(
            "SigGen.txt [{curve_name},{hash_name}]: {} vectors",
            vectors.len()
        );
        assert_eq!(
            vectors.len(),
            PER_SECTION,
            "SigGen.txt [{curve_name},{hash_name}]"
        );
        total += vectors.len();
    }
    println!("SigGen.txt: {total} vectors run");
    failures.assert_none("CAVP SigGen");
}

#[test]
fn pkv() {
    let records = parse_rsp(&read_text("cavp/PKV.rsp"));
    let mut failures = Failures::new();
    let mut total = 0;
    for curve_name in ["P-224", "P-256", "P-384"] {
        let curve = nist_curve(curve_name).expect("supported curve");
        let n = curve.scalar_len();
        let vectors = section(&records, curve_name, None);
        let (mut pass, mut fail) = (0, 0);
        for (i, record) in vectors.iter().enumerate() {
            let id = format!("[{curve_name}] #{i}");
            let result = record.get("Result");
            // Coordinates are left-padded to the field size; a coordinate that needs more
            // bytes than the field is kept at its own length, so the SEC1 string has the
            // wrong length and must be refused for that reason.
            let coordinate = |name: &str| {
                hex_fixed(record.get(name), n).unwrap_or_else(|| hex_minimal(record.get(name)))
            };
            let (x, y) = (coordinate("Qx"), coordinate("Qy"));
            let parsed = PublicKey::from_sec1(curve, &uncompressed(&x, &y));
            match (passes(record), &parsed) {
                (true, Ok(key)) => {
                    pass += 1;
                    // The compressed form of a valid key must decompress to the same point.
                    let mut compressed = vec![0x02 | (y[n - 1] & 1)];
                    compressed.extend_from_slice(&x);
                    match PublicKey::from_sec1(curve, &compressed) {
                        Ok(again) => failures.check(
                            &again == key,
                            "PKV.rsp",
                            &id,
                            result,
                            "compressed form decompresses to another point",
                        ),
                        Err(e) => failures.push(
                            "PKV.rsp",
                            &id,
                            result,
                            format!("compressed form refused: {e}"),
                        ),
                    }
                }
                (false, Err(_)) => fail += 1,
                (true, Err(e)) => {
                    failures.push("PKV.rsp", &id, result, format!("P but refused: {e}"))
                }
                (false, Ok(_)) => failures.push("PKV.rsp", &id, result, "F but accepted"),
            }
        }
        println!(
            "PKV.rsp [{curve_name}]: {} vectors ({pass} P accepted, {fail} F refused)",
            vectors.len()
        );
        assert_eq!(vectors.len(), 12, "PKV.rsp [{curve_name}]");
        total += vectors.len();
    }
    println!("PKV.rsp: {total} vectors run");
    failures.assert_none("CAVP PKV");
}
