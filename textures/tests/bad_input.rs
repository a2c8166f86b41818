//! Pool images near the top of the address space are refused, never wrapped to address 0;
//! header addresses at or above 2^57 say where texels must lie.

use tld4_textures::*;

fn texture() -> Texture {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 2,
        height: 2,
        layers: 1,
    };
    Texture::from_fields(desc, &[7; 16]).unwrap()
}

#[test]
fn pool_images_near_2_to_the_64_are_refused() {
    let (t, s) = (texture(), Sampler::default());
    let layout = LayoutChoice::Pitch { row_alignment: 32 };
    for base in [
        0xffff_ffff_ffff_fe00u64,
        u64::MAX - 511,
        0xffff_ffff_ffff_f000,
    ] {
        match pool_image(&[(&t, &s, layout)], base) {
            Err(MemTexError::Memory(MemoryError::Overflow { .. })) => {}
            other => panic!("{base:#x}: {other:?}"),
        }
    }
    // no entries: nothing to pass the end
    assert!(pool_image(&[], u64::MAX - 511).is_ok());
    // the pools fit, the texels would lie above what a header's address holds
    let e = pool_image(&[(&t, &s, layout)], 0xffff_ffff_ffff_0000).unwrap_err();
    assert!(e.to_string().contains("texels must lie below 2^57"), "{e}");
    let e = to_memory(&t, &s, layout, 1 << 57).unwrap_err();
    assert!(
        e.to_string()
            .contains("ADDRESS_BITS56TO32 = 0x200000000000000: texels must lie below 2^57"),
        "{e}"
    );
    // just below 2^57 is fine
    let base = (1u64 << 57) - 0x10_0000;
    let image = pool_image(&[(&t, &s, layout)], base).unwrap();
    assert_eq!(image.header_pool, base);
}
