//! Blind issuance (P2ABCE's issuance protocol, in three messages): the issuer offers the
//! attributes with a fresh nonce, the user answers with a commitment to the card's secret
//! and a blinding of its own and proves knowledge of both (the card computing its share),
//! and the issuer signs the commitment with the attributes. The issuer never sees the card's
//! secret, and two issuances to the same card are unlinkable to it.

use crate::bbs::{self, PublicKey, SecretKey, Signature, API_ID};
use crate::codec::{self, Versioned};
use crate::group::{g1_to_bytes, hash_to_scalar, random_scalar, Scalar, G1};
use crate::holder::SecretHolder;
use crate::predicates::revocation::{update_witness, MembershipWitness, RemovalEntry};
use crate::spec::{
    CredentialSpecification, FIRST_ATTRIBUTE_INDEX, PROVER_BLIND_INDEX, SECRET_INDEX,
};
use crate::Error;
use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Octets in an issuance nonce.
pub const NONCE_LEN: usize = 32;
/// The DST of the challenge of the commitment's proof of knowledge.
const COMMITMENT_DST: &[u8] = b"VSS_CRED_ISSUANCE_COMMITMENT_";

/// The issuer's secret key with its specification.
#[derive(Clone, Serialize, Deserialize, ZeroizeOnDrop)]
pub struct IssuerSecret {
    /// Format version.
    #[zeroize(skip)]
    pub version: u32,
    /// The issuer's BBS secret key, as hex.
    #[serde(with = "codec::bytes")]
    secret_key: Vec<u8>,
    /// The public parameters that go with it.
    #[zeroize(skip)]
    pub parameters: IssuerParameters,
}

impl Versioned for IssuerSecret {
    fn version(&self) -> u32 {
        self.version
    }
}

/// The issuer's public parameters: its key and the specification it issues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuerParameters {
    /// Format version.
    pub version: u32,
    /// The issuer's BBS public key, hex of its 96 octets.
    #[serde(with = "codec::bytes")]
    pub public_key: Vec<u8>,
    /// The specification of the credentials it issues.
    pub specification: CredentialSpecification,
}

impl Versioned for IssuerParameters {
    fn version(&self) -> u32 {
        self.version
    }
}

impl IssuerParameters {
    /// The issuer's public key, checked.
    pub fn key(&self) -> crate::Result<PublicKey> {
        PublicKey::from_bytes(&self.public_key)
    }
}

impl IssuerSecret {
    /// A fresh issuer key for the specification.
    pub fn generate(specification: CredentialSpecification) -> crate::Result<Self> {
        specification.check()?;
        let sk = SecretKey::random();
        Ok(IssuerSecret {
            version: codec::VERSION,
            secret_key: sk.to_bytes().to_vec(),
            parameters: IssuerParameters {
                version: codec::VERSION,
                public_key: sk.public_key().to_bytes().to_vec(),
                specification,
            },
        })
    }

    fn key(&self) -> crate::Result<SecretKey> {
        SecretKey::from_bytes(&self.secret_key)
    }

    /// The secret key alone (32 octets), for the issuer's key store.
    pub fn secret_key(&self) -> &[u8] {
        &self.secret_key
    }

    /// The issuer of the secret key [`Self::secret_key`] gave and its public parameters,
    /// refused ([`Error::KeyMismatch`]) when the key is not the parameters' key.
    pub fn from_parts(secret_key: &[u8], parameters: IssuerParameters) -> crate::Result<Self> {
        let secret = IssuerSecret {
            version: codec::VERSION,
            secret_key: secret_key.to_vec(),
            parameters,
        };
        if secret.key()?.public_key().to_bytes()[..] != secret.parameters.public_key[..] {
            return Err(Error::KeyMismatch);
        }
        Ok(secret)
    }

    /// Opens an issuance: the attribute values (checked against the specification) and a
    /// fresh nonce, which the issuer keeps until the request comes.
    pub fn offer(&self, attributes: &[(String, String)]) -> crate::Result<IssuanceOffer> {
        let spec = &self.parameters.specification;
        encode_attributes(spec, attributes)?;
        let mut nonce = [0u8; NONCE_LEN];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut nonce);
        Ok(IssuanceOffer {
            version: codec::VERSION,
            specification_id: spec.id.clone(),
            nonce: nonce.to_vec(),
            attributes: attributes.to_vec(),
        })
    }

    /// Signs the request's commitment with the offer's attributes and the revocation
    /// handle, once the proof of knowledge verifies. The caller checks that the offer is
    /// open and closes it.
    pub fn issue(
        &self,
        offer: &IssuanceOffer,
        request: &IssuanceRequest,
        revocation: Option<(Scalar, MembershipWitness)>,
    ) -> crate::Result<IssuanceResponse> {
        let spec = &self.parameters.specification;
        if request.nonce != offer.nonce {
            return Err(Error::UnknownNonce);
        }
        let (handle, witness) = revocation.unzip();
        if handle.is_some() != spec.revocable || witness.is_some() != spec.revocable {
            return Err(Error::Handle);
        }
        let pk = self.parameters.key()?;
        request.verify(&pk, spec)?;
        let known = known_messages(spec, &offer.attributes, handle)?;
        let sk = self.key()?;
        let signature = bbs::sign_with_commitment(
            &sk,
            &pk,
            &spec.header(),
            spec.message_count(),
            &request.commitment,
            &known,
        )?;
        Ok(IssuanceResponse {
            version: codec::VERSION,
            signature: signature.to_bytes().to_vec(),
            handle,
            witness,
        })
    }
}

/// The attributes as signed messages with their indexes, once they are checked to be the
/// specification's, in its order, each a value of its type.
fn encode_attributes(
    spec: &CredentialSpecification,
    attributes: &[(String, String)],
) -> crate::Result<Vec<(usize, Scalar)>> {
    if attributes.len() != spec.attributes.len()
        || attributes
            .iter()
            .zip(&spec.attributes)
            .any(|((name, _), a)| *name != a.name)
    {
        return Err(Error::AttributesMismatch);
    }
    attributes
        .iter()
        .zip(&spec.attributes)
        .enumerate()
        .map(|(i, ((name, value), a))| {
            let m = a.kind.encode(value).map_err(|source| Error::Attribute {
                name: name.clone(),
                source: Box::new(source),
            })?;
            Ok((FIRST_ATTRIBUTE_INDEX + i, m))
        })
        .collect()
}

/// The signed messages the issuer knows: the attributes and the revocation handle.
fn known_messages(
    spec: &CredentialSpecification,
    attributes: &[(String, String)],
    handle: Option<Scalar>,
) -> crate::Result<Vec<(usize, Scalar)>> {
    let mut known = encode_attributes(spec, attributes)?;
    match (spec.handle_index(), handle) {
        (Some(index), Some(h)) => known.push((index, h)),
        (None, None) => {}
        _ => return Err(Error::Handle),
    }
    Ok(known)
}

/// The issuer's first message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuanceOffer {
    /// Format version.
    pub version: u32,
    /// The specification of the credential offered.
    pub specification_id: String,
    /// The issuer's fresh nonce.
    #[serde(with = "codec::bytes")]
    pub nonce: Vec<u8>,
    /// The attribute values, in the specification's order.
    pub attributes: Vec<(String, String)>,
}

impl Versioned for IssuanceOffer {
    fn version(&self) -> u32 {
        self.version
    }
}

/// The user's answer: `C = H_secret·sk + H_blind·b` and a proof of knowledge of `sk` (the
/// card's share) and `b`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuanceRequest {
    /// Format version.
    pub version: u32,
    /// The offer's nonce.
    #[serde(with = "codec::bytes")]
    pub nonce: Vec<u8>,
    /// The commitment `C`.
    #[serde(with = "codec::g1")]
    pub commitment: G1,
    /// The proof's commitment `T`.
    #[serde(with = "codec::g1")]
    pub t: G1,
    /// The card's response for its secret.
    #[serde(with = "codec::scalar")]
    pub s_secret: Scalar,
    /// The user's response for its blinding.
    #[serde(with = "codec::scalar")]
    pub s_blind: Scalar,
}

impl Versioned for IssuanceRequest {
    fn version(&self) -> u32 {
        self.version
    }
}

fn commitment_challenge(
    pk: &PublicKey,
    spec: &CredentialSpecification,
    nonce: &[u8],
    c: &G1,
    t: &G1,
) -> Scalar {
    let mut input = pk.to_bytes().to_vec();
    input.extend_from_slice(&spec.header());
    input.extend_from_slice(nonce);
    input.extend_from_slice(&g1_to_bytes(c));
    input.extend_from_slice(&g1_to_bytes(t));
    hash_to_scalar(&input, &[API_ID, COMMITMENT_DST].concat())
}

fn bases() -> (G1, G1) {
    let gens = bbs::generators(PROVER_BLIND_INDEX + 2).expect("within bounds");
    (gens[SECRET_INDEX + 1], gens[PROVER_BLIND_INDEX + 1])
}

impl IssuanceRequest {
    /// Checks the proof of knowledge: `H_secret·s_secret + H_blind·s_blind = T + c·C`.
    pub fn verify(&self, pk: &PublicKey, spec: &CredentialSpecification) -> crate::Result<()> {
        let (h_secret, h_blind) = bases();
        let c = commitment_challenge(pk, spec, &self.nonce, &self.commitment, &self.t);
        if h_secret * self.s_secret + h_blind * self.s_blind == self.t + self.commitment * c {
            Ok(())
        } else {
            Err(Error::InvalidCommitmentProof)
        }
    }
}

/// The issuer's last message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuanceResponse {
    /// Format version.
    pub version: u32,
    /// The BBS signature, hex of its 80 octets.
    #[serde(with = "codec::bytes")]
    pub signature: Vec<u8>,
    /// The revocation handle, when the credential is revocable.
    #[serde(with = "scalar_option", default)]
    pub handle: Option<Scalar>,
    /// The handle's witness in the revocation authority's accumulator.
    #[serde(default)]
    pub witness: Option<MembershipWitness>,
}

impl Versioned for IssuanceResponse {
    fn version(&self) -> u32 {
        self.version
    }
}

mod scalar_option {
    use crate::group::{scalar_from_bytes, scalar_to_bytes, Scalar};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<Scalar>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.serialize_some(&hex::encode(scalar_to_bytes(v))),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Scalar>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| {
            let bytes = hex::decode(t).map_err(serde::de::Error::custom)?;
            scalar_from_bytes(&bytes).map_err(serde::de::Error::custom)
        })
        .transpose()
    }
}

/// The user's state between its request and the issuer's response.
#[derive(ZeroizeOnDrop)]
pub struct PendingIssuance {
    blind: Scalar,
    #[zeroize(skip)]
    secret_point: G1,
    #[zeroize(skip)]
    commitment: G1,
    #[zeroize(skip)]
    offer: IssuanceOffer,
}

/// The user's side: answers an offer with the card's help.
pub fn request(
    holder: &mut dyn SecretHolder,
    secret_point: &G1,
    issuer: &IssuerParameters,
    offer: &IssuanceOffer,
) -> crate::Result<(IssuanceRequest, PendingIssuance)> {
    let spec = &issuer.specification;
    if offer.specification_id != spec.id {
        return Err(Error::AttributesMismatch);
    }
    encode_attributes(spec, &offer.attributes)?;
    let pk = issuer.key()?;
    let (_, h_blind) = bases();
    let mut blind = random_scalar();
    let mut blind_tilde = random_scalar();
    let commitment = *secret_point + h_blind * blind;
    let card = holder.commit(None)?;
    let t = card.t + h_blind * blind_tilde;
    let c = commitment_challenge(&pk, spec, &offer.nonce, &commitment, &t);
    let s_secret = holder.respond(&c)?;
    let s_blind = blind_tilde + c * blind;
    blind_tilde.zeroize();
    let request = IssuanceRequest {
        version: codec::VERSION,
        nonce: offer.nonce.clone(),
        commitment,
        t,
        s_secret,
        s_blind,
    };
    let pending = PendingIssuance {
        blind,
        secret_point: *secret_point,
        commitment,
        offer: offer.clone(),
    };
    blind.zeroize();
    Ok((request, pending))
}

impl PendingIssuance {
    /// Checks the issuer's signature and keeps the credential.
    pub fn complete(
        self,
        issuer: &IssuerParameters,
        response: &IssuanceResponse,
    ) -> crate::Result<Credential> {
        let spec = &issuer.specification;
        if response.witness.is_some() != spec.revocable {
            return Err(Error::Handle);
        }
        let signature = Signature::from_bytes(&response.signature)?;
        let known = known_messages(spec, &self.offer.attributes, response.handle)?;
        let pk = issuer.key()?;
        bbs::verify_with_commitment(
            &pk,
            &signature,
            &spec.header(),
            spec.message_count(),
            &self.commitment,
            &known,
        )
        .map_err(|_| Error::InvalidSignature)?;
        Ok(Credential {
            version: codec::VERSION,
            issuer: issuer.clone(),
            attributes: self.offer.attributes.clone(),
            secret_point: self.secret_point,
            prover_blind: self.blind,
            handle: response.handle,
            witness: response.witness.clone(),
            signature: response.signature.clone(),
        })
    }
}

/// A credential as the user keeps it: everything but the card's secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    /// Format version.
    pub version: u32,
    /// The issuer's parameters.
    pub issuer: IssuerParameters,
    /// The attribute values, in the specification's order.
    pub attributes: Vec<(String, String)>,
    /// `P = H_secret·sk`, the card's contribution to the signed messages.
    #[serde(with = "codec::g1")]
    pub secret_point: G1,
    /// The user's blinding `b` (message 1).
    #[serde(with = "codec::scalar")]
    pub prover_blind: Scalar,
    /// The revocation handle, when revocable.
    #[serde(with = "scalar_option", default)]
    pub handle: Option<Scalar>,
    /// The handle's witness, kept up to date from the revocation authority's removal log.
    #[serde(default)]
    pub witness: Option<MembershipWitness>,
    /// The BBS signature, hex of its 80 octets.
    #[serde(with = "codec::bytes")]
    pub signature: Vec<u8>,
}

impl Versioned for Credential {
    fn version(&self) -> u32 {
        self.version
    }
}

impl Drop for Credential {
    fn drop(&mut self) {
        self.prover_blind.zeroize();
    }
}

impl Credential {
    /// Brings the witness up to date with the revocation authority's removals since its
    /// epoch; a revoked credential's witness cannot be.
    pub fn update_witness(&mut self, removals: &[RemovalEntry]) -> crate::Result<()> {
        if let (Some(handle), Some(witness)) = (&self.handle, &self.witness) {
            self.witness = Some(update_witness(witness, handle, removals)?);
        }
        Ok(())
    }

    /// The credential's revocation handle; [`Error::NotRevocable`] when it has none.
    pub fn revocation_handle(&self) -> crate::Result<Scalar> {
        self.handle.ok_or(Error::NotRevocable)
    }

    /// The credential's compact JSON, as a card slot keeps it (erased when dropped).
    pub fn compact(&self) -> zeroize::Zeroizing<Vec<u8>> {
        zeroize::Zeroizing::new(serde_json::to_vec(self).expect("credentials serialize"))
    }

    /// The messages the user knows, by index (all but the card's secret).
    pub fn known_messages(&self) -> crate::Result<Vec<(usize, Scalar)>> {
        let mut known = known_messages(&self.issuer.specification, &self.attributes, self.handle)?;
        known.insert(0, (PROVER_BLIND_INDEX, self.prover_blind));
        Ok(known)
    }
}
