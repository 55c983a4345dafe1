//! The point formulas against OpenSSL's scalar multiples of the generator, with the
//! exceptional cases of addition.

use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcPoint, PointConversionForm};

use super::*;
use crate::prepared::curves::{Bp256, Bp384, P256, P384};

/// k·G by OpenSSL, affine.
fn openssl_multiple<C: CurveSpec<N>, const N: usize>(k: u32) -> Affine<C, N> {
    let group = C::CURVE.group().expect("group");
    let mut ctx = BigNumContext::new().expect("ctx");
    let mut point = EcPoint::new(group).expect("point");
    let k = BigNum::from_u32(k).expect("bn");
    point.mul_generator2(group, &k, &mut ctx).expect("mul");
    let bytes = point
        .to_bytes(group, PointConversionForm::UNCOMPRESSED, &mut ctx)
        .expect("bytes");
    let len = 8 * N;
    Affine::from_coordinates(&bytes[1..=len], &bytes[1 + len..]).expect("on the curve")
}

fn affine<C: CurveSpec<N>, const N: usize>(p: &Jacobian<C, N>) -> (Vec<u8>, Vec<u8>) {
    let a = to_affine_batch(&[*p]).expect("not the identity");
    (a[0].x.to_be_bytes(), a[0].y.to_be_bytes())
}

fn same<C: CurveSpec<N>, const N: usize>(p: &Jacobian<C, N>, q: &Affine<C, N>) -> bool {
    affine(p) == (q.x.to_be_bytes(), q.y.to_be_bytes())
}

fn check<C: CurveSpec<N>, const N: usize>() {
    let g = Affine::<C, N>::generator();
    assert!(g.is_on_curve());
    let gj = Jacobian::from(g);
    let two = gj.double();
    assert!(same(&two, &openssl_multiple::<C, N>(2)), "2G");
    let three = two.add_affine(&g);
    assert!(same(&three, &openssl_multiple::<C, N>(3)), "2G + G");
    assert!(
        same(&two.add(&gj), &openssl_multiple::<C, N>(3)),
        "2G + G, Jacobian"
    );
    let five = three.add(&two);
    assert!(same(&five, &openssl_multiple::<C, N>(5)), "3G + 2G");
    assert!(
        same(&five.double().double(), &openssl_multiple::<C, N>(20)),
        "4·5G"
    );
    // Exceptional cases: P + P doubles, P + (−P) is the identity, the identity is neutral.
    assert!(
        same(&gj.add_affine(&g), &openssl_multiple::<C, N>(2)),
        "G + G, mixed"
    );
    assert!(
        same(&three.add(&three), &openssl_multiple::<C, N>(6)),
        "3G + 3G"
    );
    assert!(gj.add_affine(&g.neg()).is_identity(), "G + (−G), mixed");
    let minus_three = Jacobian::from(to_affine_batch(&[three]).expect("3G")[0].neg());
    assert!(three.add(&minus_three).is_identity(), "3G + (−3G)");
    let identity = Jacobian::<C, N>::IDENTITY;
    assert!(same(&identity.add_affine(&g), &g), "O + G");
    assert!(
        same(&identity.add(&three), &openssl_multiple::<C, N>(3)),
        "O + 3G"
    );
    assert!(
        same(&three.add(&identity), &openssl_multiple::<C, N>(3)),
        "3G + O"
    );
    assert!(identity.double().is_identity(), "2·O");
    assert!(
        to_affine_batch(&[gj, identity]).is_none(),
        "the identity has no affine form"
    );
    let off = Affine::<C, N> {
        x: g.x,
        y: g.y + Fe::ONE,
    };
    assert!(!off.is_on_curve());
}

#[test]
fn formulas_agree_with_openssl_on_every_curve() {
    check::<P256, 4>();
    check::<P384, 6>();
    check::<Bp256, 4>();
    check::<Bp384, 6>();
}
