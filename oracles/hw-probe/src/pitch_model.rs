//! The pitch-linear memory case: a texture over device memory that the probe fills itself
//! (CUDA's `CU_RESOURCE_TYPE_PITCH2D` resource), and what the texture unit's memory-form model
//! says TLD4 reads from it.
//!
//! The texels are built by `tld4_gpu_memory::to_memory` in pitch layout (address + y * pitch +
//! x * bytes; docs/sources.md, Descriptors), the row padding filled with a sentinel no query
//! may return, and the same bytes are both uploaded to the GPU and read back by the model
//! through `MemoryPool` (header and sampler words as `to_memory` writes them). What a run
//! settles: that the hardware addresses a pitch-linear texture row by row with the pitch the
//! resource gives, never reads the padding, and gathers the same texels as the model does
//! (away from sub-texel boundaries). Block-linear CUDA arrays cannot be checked this way:
//! their layout is opaque through CUDA's public API (no device pointer, no block height).

use tld4_gpu_memory::{to_memory, LayoutChoice, MemoryPool};
use tld4_textures::{
    AddressMode, Format, GatherOp, GatherQuery, Handle, Precision, Sampler, Texture, TextureDesc,
    TextureKind,
};

/// Width and height of the texture (odd, so rows need padding at any alignment).
pub const W: u32 = 13;
/// Height.
pub const H: u32 = 7;
/// The padding bytes' value: an f32 NaN whose payload names it.
pub const PAD: u32 = 0x7fc0_0bad;

/// An R32F texture whose texel (x, y) holds 1 + x + W * y (exact in f32), the probe's
/// index-texture convention.
pub fn texture() -> Texture {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R32Float,
        width: W,
        height: H,
        layers: 1,
    };
    Texture::from_fn(desc, |_, x, y| {
        [((1 + x + W * y) as f32).to_bits(), 0, 0, 0]
    })
    .expect("a 13x7 texture is valid")
}

/// CUDA's sampler of the case: clamp, normalized coordinates (CUDA CLAMP is Vulkan's
/// CLAMP_TO_EDGE).
pub fn sampler() -> Sampler {
    Sampler::with_address(AddressMode::ClampToEdge)
}

/// The memory image: texel bytes (padding set to [`PAD`]) and the pitch, for rows aligned to
/// `row_alignment` bytes (a multiple of 32, at least the device's texture pitch alignment).
pub fn image(row_alignment: u32) -> Result<(Vec<u8>, u32), String> {
    let form = to_memory(
        &texture(),
        &sampler(),
        LayoutChoice::Pitch { row_alignment },
        0,
    )
    .map_err(|e| e.to_string())?;
    let tld4_gpu_memory::HeaderLayout::Pitch { pitch } = form.header.layout else {
        return Err("to_memory gave no pitch layout".into());
    };
    let mut bytes = form.bytes;
    for y in 0..H as usize {
        for b in (W as usize * 4..pitch as usize).step_by(4) {
            let at = y * pitch as usize + b;
            bytes[at..at + 4].copy_from_slice(&PAD.to_le_bytes());
        }
    }
    Ok((bytes, pitch))
}

/// Queries away from texel boundaries (u * W - 0.5 = i + 0.25, likewise v), including the
/// clamped edges, and points outside [0, 1].
pub fn queries() -> Vec<(f32, f32)> {
    let mut q = Vec::new();
    for j in -1..=H as i32 {
        for i in -1..=W as i32 {
            q.push(((i as f32 + 0.75) / W as f32, (j as f32 + 0.75) / H as f32));
        }
    }
    q.extend([(-3.0, 0.4), (2.5, 0.6), (0.3, -7.25), (0.7, 9.5)]);
    q
}

/// The model's four results (f32 bits) for component `component` of each query, read from
/// `bytes` placed at `device_address` through the memory-form header and sampler.
pub fn expected(
    bytes: &[u8],
    row_alignment: u32,
    device_address: u64,
    component: u8,
    qs: &[(f32, f32)],
) -> Result<Vec<[u32; 4]>, String> {
    let form = to_memory(
        &texture(),
        &sampler(),
        LayoutChoice::Pitch { row_alignment },
        device_address,
    )
    .map_err(|e| e.to_string())?;
    // descriptors at 0x1000 and 0x1020, texels at the device address (which must not overlap)
    let mut mem = tld4_gpu_memory::SparseMemory::new();
    let words = |w: [u32; 8]| w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    mem.map(0x1000, [words(form.tic), words(form.tsc)].concat())
        .map_err(|e| e.to_string())?;
    mem.map(device_address, bytes.to_vec())
        .map_err(|e| e.to_string())?;
    let pool = MemoryPool::new(&mem, 0x1000, 0x1020);
    let g = pool
        .gatherer(
            Handle(0),
            &GatherOp::new(TextureKind::Tex2D, component),
            Precision::default(),
        )
        .map_err(|e| e.to_string())?;
    qs.iter()
        .map(|&(u, v)| {
            g.gather(&GatherQuery::at(u, v))
                .map(|r| r.values)
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// Queries whose measured results (d0..d3 of each row) differ from the model's.
pub fn mismatches(measured: &[Vec<u32>], model: &[[u32; 4]]) -> Vec<usize> {
    (0..model.len().max(measured.len()))
        .filter(|&k| match (measured.get(k), model.get(k)) {
            (Some(m), Some(e)) => m.len() < 4 || m[..4] != e[..],
            _ => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_pads_rows_and_the_model_never_returns_padding() {
        let (bytes, pitch) = image(128).unwrap();
        assert_eq!(pitch, 128);
        assert_eq!(bytes.len(), 128 * H as usize);
        // texel (12, 6) = 1 + 12 + 13 * 6 = 91; padding right after it
        let at = 6 * 128 + 12 * 4;
        assert_eq!(
            f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()),
            91.0
        );
        assert_eq!(
            u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()),
            PAD
        );
        let qs = queries();
        let model = expected(&bytes, 128, 0x7f00_0000_0000, 0, &qs).unwrap();
        assert!(model.iter().flatten().all(|&v| v != PAD));
        // query (i + 0.75) / W with i = 3, j = 2: footprint (3, 3), (4, 3), (4, 2), (3, 2)
        let k = qs
            .iter()
            .position(|&q| q == (3.75 / W as f32, 2.75 / H as f32))
            .unwrap();
        let t = |x: u32, y: u32| ((1 + x + W * y) as f32).to_bits();
        assert_eq!(model[k], [t(3, 3), t(4, 3), t(4, 2), t(3, 2)]);
        // g of an R32F texture is 0
        let g = expected(&bytes, 128, 0x7f00_0000_0000, 1, &qs).unwrap();
        assert!(g.iter().flatten().all(|&v| v == 0));
    }

    #[test]
    fn mismatches_are_found() {
        let (bytes, _) = image(64).unwrap();
        let qs = queries();
        let model = expected(&bytes, 64, 1 << 40, 0, &qs).unwrap();
        let mut measured: Vec<Vec<u32>> = model.iter().map(|m| [&m[..], &[0]].concat()).collect();
        assert!(mismatches(&measured, &model).is_empty());
        measured[5][2] ^= 1;
        measured.pop();
        assert_eq!(mismatches(&measured, &model), vec![5, model.len() - 1]);
    }
}
