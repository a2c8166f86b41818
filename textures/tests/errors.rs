//! Handles, pools and the two kinds of error.

use crate::common;
use common::*;
use tld4_reference as reference;
use tld4_textures::*;

fn tex2d() -> Texture {
    texture(TextureKind::Tex2D, Format::R8Unorm, 2, 2, 1, |_, x, _| {
        [x, 0, 0, 0]
    })
}

#[test]
fn handle_fields() {
    let h = Handle(0xabc1_2345);
    assert_eq!(h.header_index(), 0x1_2345);
    assert_eq!(h.sampler_index(), 0xabc);
    assert_eq!(Handle::new(0xfffff, 0xfff).unwrap(), Handle(u32::MAX));
    let e = Handle::new(0, 4096).unwrap_err();
    assert!(e.to_string().contains("4096"), "{e}");
}

#[test]
fn pool_lookups_name_the_bad_index() {
    let mut pool = TexturePool::new();
    let t = pool.add_texture(tex2d()).unwrap();
    let s = pool.add_sampler(Sampler::default()).unwrap();
    assert_eq!((t, s), (0, 0));
    assert!(pool.resolve(Handle::new(0, 0).unwrap()).is_ok());

    let e = pool.resolve(Handle::new(7, 0).unwrap()).unwrap_err();
    assert_eq!(
        e,
        Error::Invalid(InvalidInput::BadHeaderIndex {
            index: 7,
            len: 1,
            empty_slot: false
        })
    );
    assert!(e.to_string().contains("texture header index 7"), "{e}");
    let e = pool.resolve(Handle::new(0, 3).unwrap()).unwrap_err();
    assert!(matches!(
        e,
        Error::Invalid(InvalidInput::BadSamplerIndex { index: 3, .. })
    ));
    assert!(e.to_string().contains("sampler index 3"), "{e}");
    assert!(!e.is_not_modeled());

    // empty slots
    pool.set_texture(5, tex2d()).unwrap();
    let e = pool.resolve(Handle::new(3, 0).unwrap()).unwrap_err();
    assert_eq!(
        e,
        Error::Invalid(InvalidInput::BadHeaderIndex {
            index: 3,
            len: 6,
            empty_slot: true
        })
    );
    assert!(e.to_string().contains("empty"), "{e}");
    assert!(pool.resolve(Handle::new(5, 0).unwrap()).is_ok());
    assert!(pool.set_sampler(4096, Sampler::default()).is_err());
    assert!(pool.set_texture(1 << 20, tex2d()).is_err());
}

#[test]
fn pool_gatherer_checks_everything() {
    let mut pool = TexturePool::new();
    pool.add_texture(tex2d()).unwrap();
    pool.add_sampler(Sampler::default()).unwrap();
    let op = GatherOp::new(TextureKind::Tex2D, 0);
    let g = pool.gatherer(Handle(0), &op, Precision::default()).unwrap();
    // texel x holds code x: (i1, j1) = (1, 1) reads 1/255
    assert_eq!(
        g.gather(&GatherQuery::at(0.5, 0.5)).as_f32()[1],
        1.0 / 255.0
    );
    assert!(pool.gatherer(Handle(1), &op, Precision::default()).is_err());
}

#[test]
fn not_modeled_cases() {
    let t = tex2d();
    let s = Sampler::default();
    let p = Precision::default();
    // kind mismatch
    let e = Gatherer::new(&t, &s, &GatherOp::new(TextureKind::Tex2DArray, 0), p).unwrap_err();
    assert_eq!(
        e,
        Error::NotModeled(NotModeled::KindMismatch {
            texture: TextureKind::Tex2D,
            requested: TextureKind::Tex2DArray
        })
    );
    assert!(e.is_not_modeled());
    assert!(e.to_string().starts_with("not modeled"), "{e}");
    // compare with the sampler's compare off
    let op = GatherOp {
        compare: true,
        ..GatherOp::new(TextureKind::Tex2D, 0)
    };
    let d = texture(TextureKind::Tex2D, Format::D16Unorm, 1, 1, 1, |_, _, _| {
        [0; 4]
    });
    assert_eq!(
        Gatherer::new(&d, &s, &op, p).unwrap_err(),
        Error::NotModeled(NotModeled::CompareOff)
    );
    // compare on a colour format
    let cmp = Sampler {
        compare: Some(CompareOp::Less),
        ..s
    };
    assert_eq!(
        Gatherer::new(&t, &cmp, &op, p).unwrap_err(),
        Error::NotModeled(NotModeled::CompareOnColor(Format::R8Unorm))
    );
    assert!(Gatherer::new(&d, &cmp, &op, p).is_ok());
    // the reference refuses the same
    assert!(reference::gather(&d, &s, &op, &GatherQuery::default())
        .unwrap_err()
        .is_not_modeled());
}

#[test]
fn invalid_cases() {
    let t = tex2d();
    let e = Gatherer::new(
        &t,
        &Sampler::default(),
        &GatherOp::new(TextureKind::Tex2D, 4),
        Precision::default(),
    )
    .unwrap_err();
    assert_eq!(e, Error::Invalid(InvalidInput::Component(4)));
    let desc = |kind, w, h, layers| TextureDesc {
        kind,
        format: Format::R8Unorm,
        width: w,
        height: h,
        layers,
    };
    for d in [
        desc(TextureKind::Tex2D, 0, 1, 1),
        desc(TextureKind::Tex2D, 1, 1, 2),
        desc(TextureKind::Cube, 2, 3, 1),
        desc(TextureKind::Cube, 2, 2, 2),
        desc(TextureKind::Tex2DArray, 1, 1, 0),
        desc(TextureKind::Tex2D, 70000, 1, 1),
    ] {
        let e = Texture::from_fn(d, |_, _, _| [0; 4]).unwrap_err();
        assert!(
            matches!(e, Error::Invalid(InvalidInput::BadSize { .. })),
            "{d:?}: {e}"
        );
    }
    assert!(Texture::from_fn(desc(TextureKind::CubeArray, 2, 2, 2), |_, _, _| [0; 4]).is_ok());
}
