//! The domain parameters of the four curves with prepared keys: P-256 and P-384 (FIPS
//! 186-4, a = −3) and brainpoolP256r1 and brainpoolP384r1 (RFC 5639, general a). Only the
//! constants differ; the arithmetic is generic over [`CurveSpec`].

use super::field::{Fe, Modulus};
use super::limbs::from_hex;

/// A short Weierstrass curve y² = x³ + a·x + b of prime order n (cofactor 1) over the field
/// of `Self::Fp`, with n and p below 2^(64·N), n's bit length a multiple of 8, and
/// n < p < 2n (so that x(R) ≡ r mod n means x(R) = r or r + n).
pub(crate) trait CurveSpec<const N: usize>: Sized + 'static {
    /// The field prime p.
    type Fp: Modulus<N>;
    /// The group order n.
    type Fn: Modulus<N>;
    /// The curve as the rest of the crate names it.
    #[cfg(test)]
    const CURVE: crate::Curve;
    /// a, in the field.
    const A: Fe<Self::Fp, N>;
    /// b, in the field.
    const B: Fe<Self::Fp, N>;
    /// Whether a = −3 (the NIST curves), for the cheaper doubling.
    const A_IS_MINUS_3: bool;
    /// The generator's affine coordinates.
    const G: (Fe<Self::Fp, N>, Fe<Self::Fp, N>);
    /// The bit length of n.
    const BITS: usize = 64 * N - (<Self::Fn as Modulus<N>>::P[N - 1].leading_zeros() as usize);
}

/// The field element of a hex constant.
const fn fe<M: Modulus<N>, const N: usize>(hex: &str) -> Fe<M, N> {
    Fe::from_canonical(&from_hex(hex))
}

/// One curve: its two moduli (field and order) and its constants.
macro_rules! curve {
    ($doc:literal, $curve:ident, $fp:ident, $fn:ident, $n:literal, minus_3: $minus_3:literal,
     p: $p:literal, n: $order:literal, a: $a:literal, b: $b:literal, gx: $gx:literal,
     gy: $gy:literal) => {
        #[doc = concat!("The field of ", $doc, ".")]
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $fp;
        impl Modulus<$n> for $fp {
            const P: [u64; $n] = from_hex($p);
        }
        #[doc = concat!("The scalars of ", $doc, " (modulo its order).")]
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $fn;
        impl Modulus<$n> for $fn {
            const P: [u64; $n] = from_hex($order);
        }
        #[doc = $doc]
        #[derive(Debug)]
        pub(crate) struct $curve;
        impl CurveSpec<$n> for $curve {
            type Fp = $fp;
            type Fn = $fn;
            #[cfg(test)]
            const CURVE: crate::Curve = crate::Curve::$curve;
            const A: Fe<$fp, $n> = fe($a);
            const B: Fe<$fp, $n> = fe($b);
            const A_IS_MINUS_3: bool = $minus_3;
            const G: (Fe<$fp, $n>, Fe<$fp, $n>) = (fe($gx), fe($gy));
        }
    };
}

curve!("NIST P-256", P256, P256Fp, P256Fn, 4, minus_3: true,
    p: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
    n: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
    a: "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
    b: "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
    gx: "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
    gy: "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5");

curve!("NIST P-384", P384, P384Fp, P384Fn, 6, minus_3: true,
    p: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
    n: "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
    a: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000fffffffc",
    b: "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
    gx: "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7",
    gy: "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f");

curve!("brainpoolP256r1", Bp256, Bp256Fp, Bp256Fn, 4, minus_3: false,
    p: "a9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377",
    n: "a9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a7",
    a: "7d5a0975fc2c3057eef67530417affe7fb8055c126dc5c6ce94a4b44f330b5d9",
    b: "26dc5c6ce94a4b44f330b5d9bbd77cbf958416295cf7e1ce6bccdc18ff8c07b6",
    gx: "8bd2aeb9cb7e57cb2c4b482ffc81b7afb9de27e1e3bd23c23a4453bd9ace3262",
    gy: "547ef835c3dac4fd97f8461a14611dc9c27745132ded8e545c1d54c72f046997");

curve!("brainpoolP384r1", Bp384, Bp384Fp, Bp384Fn, 6, minus_3: false,
    p: "8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b412b1da197fb71123acd3a729901d1a71874700133107ec53",
    n: "8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b31f166e6cac0425a7cf3ab6af6b7fc3103b883202e9046565",
    a: "7bc382c63d8c150c3c72080ace05afa0c2bea28e4fb22787139165efba91f90f8aa5814a503ad4eb04a8c7dd22ce2826",
    b: "04a8c7dd22ce28268b39b55416f0447c2fb77de107dcd2a62e880ea53eeb62d57cb4390295dbc9943ab78696fa504c11",
    gx: "1d1c64f068cf45ffa2a63a81b7c13f6b8847a3e77ef14fe3db7fcafe0cbd10e8e826e03436d646aaef87b2e247d4af1e",
    gy: "8abe1d7520f9c2a45cb1eb8e95cfd55262b70b29feec5864e19c054ff99129280e4646217791811142820341263c5315");

#[cfg(test)]
mod tests {
    use openssl::bn::{BigNum, BigNumContext};
    use openssl::ec::PointConversionForm;

    use super::*;
    use crate::prepared::limbs::{lt, to_be_bytes};

    fn agrees_with_openssl<C: CurveSpec<N>, const N: usize>() {
        let curve = C::CURVE;
        let group = curve.group().expect("group");
        let mut ctx = BigNumContext::new().expect("ctx");
        let (mut p, mut a, mut b) = (
            BigNum::new().expect("bn"),
            BigNum::new().expect("bn"),
            BigNum::new().expect("bn"),
        );
        group
            .components_gfp(&mut p, &mut a, &mut b, &mut ctx)
            .expect("components");
        let width = 8 * N as i32;
        let bytes = |x: &BigNum| x.to_vec_padded(width).expect("pad");
        assert_eq!(
            to_be_bytes(&<C::Fp as Modulus<N>>::P),
            bytes(&p),
            "{curve} p"
        );
        assert_eq!(
            to_be_bytes(&<C::Fn as Modulus<N>>::P),
            bytes(&curve.order().expect("n")),
            "{curve} n"
        );
        assert_eq!(C::A.to_be_bytes(), bytes(&a), "{curve} a");
        assert_eq!(C::B.to_be_bytes(), bytes(&b), "{curve} b");
        assert_eq!(
            C::A_IS_MINUS_3,
            C::A == -Fe::ONE.double() - Fe::ONE,
            "{curve} a = -3"
        );
        let g = group
            .generator_opt()
            .expect("a generator")
            .to_bytes(group, PointConversionForm::UNCOMPRESSED, &mut ctx)
            .expect("generator");
        assert_eq!(
            [&[4u8][..], &C::G.0.to_be_bytes(), &C::G.1.to_be_bytes()].concat(),
            g,
            "{curve} G"
        );
        assert_eq!(C::BITS, 8 * curve.scalar_len(), "{curve} bits of n");
        let (p, n) = (<C::Fp as Modulus<N>>::P, <C::Fn as Modulus<N>>::P);
        let (two_n, carry) = crate::prepared::limbs::add(&n, &n);
        assert!(
            lt(&n, &p) && (carry == 1 || lt(&p, &two_n)),
            "{curve}: n < p < 2n"
        );
    }

    #[test]
    fn the_constants_are_openssls() {
        agrees_with_openssl::<P256, 4>();
        agrees_with_openssl::<P384, 6>();
        agrees_with_openssl::<Bp256, 4>();
        agrees_with_openssl::<Bp384, 6>();
    }
}
