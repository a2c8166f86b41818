//! Pool images near the top of the address space are refused, never wrapped to address 0;
//! header addresses at or above 2^57 say where texels must lie.

use tld4_gpu_memory::*;
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

/// Reserved TIC and TSC fields set to non-zero are ignored (a documented decision,
/// docs/sources.md, Decisions): the header and sampler read as without them.
#[test]
fn reserved_descriptor_fields_are_ignored() {
    use tld4_gpu_memory::descriptor::tic::TextureHeader;
    use tld4_gpu_memory::descriptor::tsc::SamplerState;
    let s = Sampler::with_address(AddressMode::Repeat);
    let form = to_memory(
        &texture(),
        &s,
        LayoutChoice::Pitch { row_alignment: 32 },
        0x2000,
    )
    .unwrap();
    let clean = TextureHeader::decode(&form.tic).unwrap();
    let mut tic = form.tic;
    tic[0] |= 0xf; // RESERVED0A, bits 3:0
    tic[1] |= 0xfe00_0000; // RESERVED1A, bits 63:57
    tic[7] |= 0xff00_0000; // RESERVED7Y, bits 255:248
    let dirty = TextureHeader::decode(&tic).unwrap();
    assert_eq!(
        (
            dirty.address,
            dirty.format,
            dirty.width,
            dirty.height,
            dirty.layout
        ),
        (
            clean.address,
            clean.format,
            clean.width,
            clean.height,
            clean.layout
        )
    );
    let mut tsc = form.tsc;
    tsc[3] |= 0xfff; // RESERVED12, bits 107:96
    assert_eq!(
        SamplerState::decode(&tsc).sampler().unwrap(),
        SamplerState::decode(&form.tsc).sampler().unwrap()
    );
}
