//! Descriptor fields without a typed member: NVK's TWO_D_NO_MIPMAP texture type survives a
//! decode and encode; `descriptor::differing` names the fields two descriptors disagree on.

use tld4_gpu_memory::descriptor::tic::{TEXHEAD_V2_PITCH, TEXTURE_TYPES};
use tld4_gpu_memory::descriptor::{differing, field};
use tld4_gpu_memory::*;
use tld4_textures::*;

/// An 8 x 4 RGBA8 pitch header (the model's encoding of a plain 2D texture).
fn pitch_header() -> [u32; 8] {
    let h = TextureHeader {
        layout: HeaderLayout::Pitch { pitch: 64 },
        address: 0x1000,
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 8,
        height: 4,
        depth: 1,
        swizzle: Swizzle::IDENTITY,
        normalized_coords: true,
        depth_texture: false,
        border_from_sampler: true,
        words: [0; 8],
    };
    h.encode().unwrap()
}

#[test]
fn two_d_no_mipmap_is_a_2d_texture_and_stays_so_when_encoded() {
    let tt = field(TEXHEAD_V2_PITCH, "TEXTURE_TYPE").unwrap();
    let no_mip = TEXTURE_TYPES
        .iter()
        .find(|t| t.1 == "TWO_D_NO_MIPMAP")
        .unwrap()
        .0;
    let mut w = pitch_header();
    assert_eq!(tt.get(&w), 1, "TWO_D by default");
    tt.set(&mut w, no_mip).unwrap();
    let h = TextureHeader::decode(&w).unwrap();
    assert_eq!(h.kind, TextureKind::Tex2D);
    assert_eq!(h.encode().unwrap(), w, "TWO_D_NO_MIPMAP kept");
    // Another kind is encoded with its own type, whatever the words held.
    let mut held = [0u32; 8];
    tt.set(&mut held, no_mip).unwrap();
    let cube = TextureHeader {
        layout: HeaderLayout::BlockLinear {
            gobs_per_block_height_log2: 0,
        },
        kind: TextureKind::Cube,
        height: 8,
        address: 0,
        words: held,
        ..h
    };
    let cw = cube.encode().unwrap();
    assert_eq!(TextureHeader::decode(&cw).unwrap().kind, TextureKind::Cube);
}

#[test]
fn differing_names_the_fields_that_disagree() {
    let a = pitch_header();
    let mut b = a;
    for (name, v) in [("SECTOR_PROMOTION", 2), ("LOD_ISO_QUALITY", 1)] {
        field(TEXHEAD_V2_PITCH, name)
            .unwrap()
            .set(&mut b, v)
            .unwrap();
    }
    let names: Vec<&str> = differing(TEXHEAD_V2_PITCH, &a, &b)
        .map(|i| TEXHEAD_V2_PITCH[i].name)
        .collect();
    assert_eq!(names, ["LOD_ISO_QUALITY", "SECTOR_PROMOTION"]);
    assert_eq!(differing(TEXHEAD_V2_PITCH, &a, &a).count(), 0);
}
