//! From the cases JSON to Vulkan: formats, texel bytes, samplers and query records.
//!
//! How the JSON gives texels (`tld4_gather_cases`): layer-major (cube layers are
//! cube * 6 + face, faces +X, -X, +Y, -Y, +Z, -Z, which is Vulkan's cube layer order too), then
//! rows, then texels, then the format's raw fields: integer codes for UNORM/SNORM/sRGB/UINT/SINT
//! (SNORM/SINT may be negative), numbers for the 16- and 32-bit float formats, and for the
//! packed formats their bit fields as integers: rgb10a2_unorm r, g, b, a; r11g11b10_float the
//! r, g, b float bit patterns; rgb9e5 the r, g, b mantissas and the shared exponent;
//! d24_unorm_s8_uint the depth code and the stencil. `cases::prepare` turns them into raw
//! field bits (floats to f16/f32 bits, negatives to two's complement in the field width);
//! this module lays those bits out as Vulkan's formats define them, independently of the
//! texture unit's own packing.

use anyhow::{bail, Result};
use ash::vk;
use tld4_gather_cases::{BorderSpec, Case, NamedBorder, PreparedCase};
use tld4_textures::{Format, Source, TextureKind, ValueKind};

use crate::vulkan::{Border, GpuQuery, Job};

/// The Vulkan format of each texture-unit format (Vulkan "Formats"; component order R first);
/// an error for a format added to the texture unit but not yet here.
pub fn vk_format(f: Format) -> anyhow::Result<vk::Format> {
    use vk::Format as V;
    use Format::*;
    Ok(match f {
        R8Unorm => V::R8_UNORM,
        R8Snorm => V::R8_SNORM,
        R8Uint => V::R8_UINT,
        R8Sint => V::R8_SINT,
        Rg8Unorm => V::R8G8_UNORM,
        Rg8Snorm => V::R8G8_SNORM,
        Rg8Uint => V::R8G8_UINT,
        Rg8Sint => V::R8G8_SINT,
        Rgba8Unorm => V::R8G8B8A8_UNORM,
        Rgba8Snorm => V::R8G8B8A8_SNORM,
        Rgba8Uint => V::R8G8B8A8_UINT,
        Rgba8Sint => V::R8G8B8A8_SINT,
        Rgba8Srgb => V::R8G8B8A8_SRGB,
        R16Unorm => V::R16_UNORM,
        R16Snorm => V::R16_SNORM,
        R16Float => V::R16_SFLOAT,
        R16Uint => V::R16_UINT,
        R16Sint => V::R16_SINT,
        Rg16Unorm => V::R16G16_UNORM,
        Rg16Snorm => V::R16G16_SNORM,
        Rg16Float => V::R16G16_SFLOAT,
        Rg16Uint => V::R16G16_UINT,
        Rg16Sint => V::R16G16_SINT,
        Rgba16Unorm => V::R16G16B16A16_UNORM,
        Rgba16Snorm => V::R16G16B16A16_SNORM,
        Rgba16Float => V::R16G16B16A16_SFLOAT,
        Rgba16Uint => V::R16G16B16A16_UINT,
        Rgba16Sint => V::R16G16B16A16_SINT,
        R32Float => V::R32_SFLOAT,
        R32Uint => V::R32_UINT,
        R32Sint => V::R32_SINT,
        Rg32Float => V::R32G32_SFLOAT,
        Rg32Uint => V::R32G32_UINT,
        Rg32Sint => V::R32G32_SINT,
        Rgba32Float => V::R32G32B32A32_SFLOAT,
        Rgba32Uint => V::R32G32B32A32_UINT,
        Rgba32Sint => V::R32G32B32A32_SINT,
        // R in bits 0-9, G 10-19, B 20-29, A 30-31.
        Rgb10a2Unorm => V::A2B10G10R10_UNORM_PACK32,
        // R (11 bits) in 0-10, G (11) in 11-21, B (10) in 22-31.
        R11g11b10Float => V::B10G11R11_UFLOAT_PACK32,
        // R, G, B mantissas in 0-8, 9-17, 18-26, exponent in 27-31.
        Rgb9e5 => V::E5B9G9R9_UFLOAT_PACK32,
        D16Unorm => V::D16_UNORM,
        D32Float => V::D32_SFLOAT,
        D24UnormS8Uint => V::D24_UNORM_S8_UINT,
        other => anyhow::bail!("no Vulkan format is known for {other:?}"),
    })
}

/// Bit position of field `i` in the packed word of the packed formats (from the Vulkan
/// format names above).
fn packed_shift(f: Format, i: usize) -> u32 {
    match f {
        Format::Rgb10a2Unorm => [0, 10, 20, 30][i],
        Format::R11g11b10Float => [0, 11, 22][i],
        Format::Rgb9e5 => [0, 9, 18, 27][i],
        // Depth-aspect copy of D24_UNORM_S8_UINT: X8_D24 words, depth in bits 0-23; the
        // stencil field is not uploaded (a gather never reads it).
        Format::D24UnormS8Uint => [0, 32][i],
        _ => 0,
    }
}

/// The texels of a prepared case as the bytes of a tightly packed buffer-to-image copy of all
/// layers (little-endian, as Vulkan's formats are laid out in memory on these hosts).
pub fn texel_bytes(p: &PreparedCase) -> Vec<u8> {
    let t = &p.texture;
    let f = t.format();
    let layers = t.desc().storage_layers();
    let mut out = Vec::new();
    for layer in 0..layers {
        for y in 0..t.height() as usize {
            for x in 0..t.width() as usize {
                let fields = t.raw_fields(layer, x, y).unwrap_or_default();
                if f.is_packed() {
                    let mut w = 0u32;
                    for (i, &v) in fields.iter().enumerate().take(f.fields()) {
                        let sh = packed_shift(f, i);
                        if sh < 32 {
                            w |= v << sh;
                        }
                    }
                    out.extend_from_slice(&w.to_le_bytes());
                } else {
                    for &v in fields.iter().take(f.fields()) {
                        match f.field_bits(0) {
                            8 => out.push(v as u8),
                            16 => out.extend_from_slice(&(v as u16).to_le_bytes()),
                            _ => out.extend_from_slice(&v.to_le_bytes()),
                        }
                    }
                }
            }
        }
    }
    out
}

/// The Vulkan job of one case, or why the driver cannot run it.
pub fn job(case: &Case, p: &PreparedCase, caps: &crate::vulkan::Caps) -> Result<Job> {
    let t = &case.texture;
    let s = &case.sampler;
    let f = t.format;
    if t.residency.is_some() {
        bail!("sparse residency is not run through Vulkan here");
    }
    if !s.seamless_cube {
        bail!("non-seamless cube maps need VK_EXT_non_seamless_cube_map");
    }
    let compare = s.compare.is_some();
    for (qi, q) in case.queries.iter().enumerate() {
        // A shadow sampler needs a dref and a plain one none (Vulkan: compareEnable must match
        // the shader's Dref instructions, VUID-vkCmdDispatch-None-06479 and the SPIR-V rules).
        if q.dref.is_some() != compare {
            bail!(
                "queries[{qi}]: dref given {} but the sampler's compare is {}",
                q.dref.is_some(),
                compare
            );
        }
        for (dx, dy) in q
            .offset
            .into_iter()
            .chain(q.offsets.into_iter().flatten())
            .map(|o| (o[0], o[1]))
        {
            let (lo, hi) = caps.gather_offsets;
            if [dx, dy].iter().any(|&v| v < lo as i64 || v > hi as i64) {
                bail!("queries[{qi}]: offset ({dx}, {dy}) is outside the device's {lo}..={hi}");
            }
        }
    }
    if [s.address_u, s.address_v].contains(&tld4_textures::AddressMode::MirrorClampToEdge)
        && !caps.mirror_clamp
    {
        bail!("samplerMirrorClampToEdge is not supported");
    }
    let border = match &s.border {
        BorderSpec::Named(n) => Border::Named(match n {
            NamedBorder::FloatTransparentBlack => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
            NamedBorder::IntTransparentBlack => vk::BorderColor::INT_TRANSPARENT_BLACK,
            NamedBorder::FloatOpaqueBlack => vk::BorderColor::FLOAT_OPAQUE_BLACK,
            NamedBorder::IntOpaqueBlack => vk::BorderColor::INT_OPAQUE_BLACK,
            NamedBorder::FloatOpaqueWhite => vk::BorderColor::FLOAT_OPAQUE_WHITE,
            NamedBorder::IntOpaqueWhite => vk::BorderColor::INT_OPAQUE_WHITE,
        }),
        other => {
            if !caps.custom_border {
                bail!("custom border colours need VK_EXT_custom_border_color");
            }
            Border::Custom(other.color().words)
        }
    };
    let queries = case
        .queries
        .iter()
        .map(|q| {
            let c: Vec<f32> = q.coord.iter().map(|n| n.as_f64() as f32).collect();
            let mut g = GpuQuery {
                comp: q.component as i32,
                dref: q.dref.map_or(0.0, |d| d.as_f64() as f32),
                ..GpuQuery::default()
            };
            for (k, v) in c.iter().take(4).enumerate() {
                g.coord[k] = *v;
            }
            if let Some([dx, dy]) = q.offset {
                g.mode = 1;
                g.off01 = [dx as i32, dy as i32, 0, 0];
            }
            if let Some(o) = q.offsets {
                g.mode = 2;
                g.off01 = [o[0][0], o[0][1], o[1][0], o[1][1]].map(|v| v as i32);
                g.off23 = [o[2][0], o[2][1], o[3][0], o[3][1]].map(|v| v as i32);
            }
            g
        })
        .collect();
    let values = if compare {
        ValueKind::Float
    } else {
        f.value_kind()
    };
    Ok(Job {
        kind: t.dim,
        format: vk_format(f)?,
        depth: f.is_depth(),
        stencil: f == Format::D24UnormS8Uint,
        values,
        width: t.width,
        height: t.height,
        array_layers: t.layers * if t.dim.is_cube() { 6 } else { 1 },
        bytes: texel_bytes(p),
        swizzle: t
            .swizzle
            .unwrap_or([Source::R, Source::G, Source::B, Source::A]),
        address: [s.address_u, s.address_v],
        border,
        compare: s.compare,
        queries,
    })
}

/// Kind names for messages.
pub fn kind_name(k: TextureKind) -> &'static str {
    match k {
        TextureKind::Tex2D => "2d",
        TextureKind::Tex2DArray => "2d_array",
        TextureKind::Cube => "cube",
        TextureKind::CubeArray => "cube_array",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tld4_gather_cases as cases;

    fn prepared(format: &str, w: u32, texels: &str) -> (Case, PreparedCase) {
        let text = format!(
            r#"{{"cases": [{{"texture": {{"dim": "2d", "format": "{format}", "width": {w}, "height": 1, "layers": 1, "texels": {texels}}},
                "sampler": {{"address_u": "repeat", "address_v": "repeat", "border": "float_opaque_white", "compare": null}},
                "queries": []}}]}}"#
        );
        let file = cases::parse(&text).unwrap();
        let p = cases::prepare(&file.cases[0], 0).unwrap();
        (file.cases[0].clone(), p)
    }

    #[test]
    fn packed_formats_follow_the_vulkan_bit_layouts() {
        let (_, p) = prepared("rgb10a2_unorm", 1, "[1, 2, 3, 2]");
        assert_eq!(
            texel_bytes(&p),
            (1u32 | 2 << 10 | 3 << 20 | 2 << 30).to_le_bytes()
        );
        let (_, p) = prepared("r11g11b10_float", 1, "[2047, 5, 1023]");
        assert_eq!(
            texel_bytes(&p),
            (2047u32 | 5 << 11 | 1023 << 22).to_le_bytes()
        );
        let (_, p) = prepared("rgb9e5", 1, "[511, 1, 2, 31]");
        assert_eq!(
            texel_bytes(&p),
            (511u32 | 1 << 9 | 2 << 18 | 31 << 27).to_le_bytes()
        );
        let (_, p) = prepared("d24_unorm_s8_uint", 1, "[16777215, 255]");
        assert_eq!(
            texel_bytes(&p),
            0x00ff_ffffu32.to_le_bytes(),
            "stencil not uploaded"
        );
    }

    #[test]
    fn plain_formats_are_little_endian_components() {
        let (_, p) = prepared("rg8_snorm", 2, "[-1, 127, -128, 0]");
        assert_eq!(texel_bytes(&p), [0xff, 0x7f, 0x80, 0x00]);
        let (_, p) = prepared("r16_float", 2, "[1.0, -2.0]");
        assert_eq!(texel_bytes(&p), [0x00, 0x3c, 0x00, 0xc0]);
        let (_, p) = prepared("r32_sint", 1, "[-2]");
        assert_eq!(texel_bytes(&p), (-2i32).to_le_bytes());
        let (_, p) = prepared("d32_float", 1, "[0.5]");
        assert_eq!(texel_bytes(&p), 0.5f32.to_le_bytes());
    }
}
