//! zkryptium, an independent implementation of the IETF BBS draft, checks ours: it verifies
//! our signatures and our proofs (including one whose secret message was held outside the
//! prover, as the card holds it), and we verify its signatures and proofs.

use vss_cred::bbs::{self, Proof, ProofInit, ProverMessage, PublicKey, SecretKey, Signature};
use vss_cred::group::{random_scalar, Scalar};
use zkryptium::bbsplus::keys::BBSplusPublicKey;
use zkryptium::keys::pair::KeyPair;
use zkryptium::schemes::algorithms::BbsBls12381Sha256;
use zkryptium::schemes::generics::{PoKSignature, Signature as ZkSignature};

const HEADER: &[u8] = b"vss-cred oracle header";

fn octet_messages() -> Vec<Vec<u8>> {
    ["John", "Dow", "1985-05-05Z", "23784638726", "2013-08-07Z"]
        .iter()
        .map(|m| m.as_bytes().to_vec())
        .collect()
}

fn scalars(messages: &[Vec<u8>]) -> Vec<Scalar> {
    messages.iter().map(|m| bbs::message_to_scalar(m)).collect()
}

#[test]
fn zkryptium_verifies_our_signature_and_proof() {
    let sk = SecretKey::random();
    let pk = sk.public_key();
    let messages = octet_messages();
    let sig = bbs::sign(&sk, &pk, HEADER, &scalars(&messages)).expect("sign");
    let zk_pk = BBSplusPublicKey::from_bytes(&pk.to_bytes()).expect("zkryptium reads our key");
    let zk_sig = ZkSignature::<BbsBls12381Sha256>::from_bytes(&sig.to_bytes())
        .expect("zkryptium reads our signature");
    zk_sig
        .verify(&zk_pk, Some(&messages), Some(HEADER))
        .expect("zkryptium verifies our signature");

    let ph = b"nonce-1";
    let proof = bbs::proof_gen(&pk, &sig, HEADER, ph, &scalars(&messages), &[4]).expect("proof");
    let zk_proof = PoKSignature::<BbsBls12381Sha256>::from_bytes(&proof.to_bytes())
        .expect("zkryptium reads our proof");
    zk_proof
        .proof_verify(
            &zk_pk,
            Some(&messages[4..5]),
            Some(&[4]),
            Some(HEADER),
            Some(ph),
        )
        .expect("zkryptium verifies our proof");
    assert!(zk_proof
        .proof_verify(
            &zk_pk,
            Some(&messages[4..5]),
            Some(&[4]),
            Some(HEADER),
            Some(b"nonce-2")
        )
        .is_err());
}

#[test]
fn zkryptium_verifies_a_proof_whose_first_message_was_held_outside() {
    let sk = SecretKey::random();
    let pk = sk.public_key();
    let messages = octet_messages();
    let mut m = scalars(&messages);
    let held = random_scalar();
    m.insert(0, held);
    let h0 = bbs::generators(2).expect("generators")[1];
    let point = h0 * held;
    let known: Vec<(usize, Scalar)> = m.iter().copied().enumerate().skip(1).collect();
    let sig =
        bbs::sign_with_commitment(&sk, &pk, HEADER, m.len(), &point, &known).expect("blind sign");
    bbs::verify(&pk, &sig, HEADER, &m).expect("the signature covers the held message");

    let r = random_scalar();
    let mut prover_messages = vec![ProverMessage::External {
        point,
        commitment: h0 * r,
    }];
    for (i, value) in known.iter() {
        prover_messages.push(if *i == 5 {
            ProverMessage::Disclosed(*value)
        } else {
            ProverMessage::Hidden {
                value: *value,
                blinding: None,
            }
        });
    }
    let init =
        ProofInit::new(&pk, &sig, HEADER, &prover_messages, &mut random_scalar).expect("init");
    let ph = b"gate nonce";
    let c = init.challenge(ph).expect("challenge");
    let proof = init.finalize(c, &[(0, r + c * held)]).expect("finalize");
    bbs::proof_verify(&pk, &proof, HEADER, ph, &[(5, m[5])]).expect("we verify it");

    let zk_pk = BBSplusPublicKey::from_bytes(&pk.to_bytes()).expect("key");
    let zk_proof = PoKSignature::<BbsBls12381Sha256>::from_bytes(&proof.to_bytes()).expect("proof");
    zk_proof
        .proof_verify(
            &zk_pk,
            Some(&messages[4..5]),
            Some(&[5]),
            Some(HEADER),
            Some(ph),
        )
        .expect("zkryptium verifies the split proof");

    let wrong = init_wrong_response(
        &pk,
        &sig,
        &prover_messages,
        ph,
        r + c * held + Scalar::from(1u8),
    );
    assert!(bbs::proof_verify(&pk, &wrong, HEADER, ph, &[(5, m[5])]).is_err());
}

fn init_wrong_response(
    pk: &PublicKey,
    sig: &Signature,
    messages: &[ProverMessage],
    ph: &[u8],
    response: Scalar,
) -> Proof {
    let init = ProofInit::new(pk, sig, HEADER, messages, &mut random_scalar).expect("init");
    let c = init.challenge(ph).expect("challenge");
    init.finalize(c, &[(0, response)]).expect("finalize")
}

#[test]
fn we_verify_zkryptiums_signature_and_proof() {
    let keypair = KeyPair::<BbsBls12381Sha256>::generate(&[7u8; 32], None, None).expect("keypair");
    let messages = octet_messages();
    let zk_sig = ZkSignature::<BbsBls12381Sha256>::sign(
        Some(&messages),
        keypair.private_key(),
        keypair.public_key(),
        Some(HEADER),
    )
    .expect("zkryptium signs");
    let pk = PublicKey::from_bytes(&keypair.public_key().to_bytes()).expect("key");
    let sig = Signature::from_bytes(&zk_sig.to_bytes()).expect("signature");
    bbs::verify(&pk, &sig, HEADER, &scalars(&messages)).expect("we verify zkryptium's signature");

    let proof = PoKSignature::<BbsBls12381Sha256>::proof_gen(
        keypair.public_key(),
        &zk_sig.to_bytes(),
        Some(HEADER),
        Some(b"ph"),
        Some(&messages),
        Some(&[1, 3]),
    )
    .expect("zkryptium proves");
    let proof = Proof::from_bytes(&proof.to_bytes()).expect("we read zkryptium's proof");
    let m = scalars(&messages);
    bbs::proof_verify(&pk, &proof, HEADER, b"ph", &[(1, m[1]), (3, m[3])]).expect("we verify it");
    assert!(bbs::proof_verify(&pk, &proof, HEADER, b"ph", &[(1, m[1]), (3, m[2])]).is_err());
}
