//! Generated textures (`"generate": {"pattern": ...}`), bounded by their storage size before
//! anything is allocated.

use ndarray::Array4;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use tld4_textures::{Class, Format, StorageWidth, TexelData, Texture, TextureDesc};

use crate::error::{err, ScenarioError};

/// The largest texture storage a `generate` pattern makes: 256 MiB (the README's bound,
/// checked on the texture's storage bytes with checked arithmetic; a guess at what a test
/// needs, documented in docs/scenarios.md).
pub const MAX_GENERATED_BYTES: u64 = 256 << 20;

/// A texel pattern.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "pattern", rename_all = "snake_case", deny_unknown_fields)]
pub enum Generate {
    /// Squares of `cell` texels (at least 1, default 1) alternating between the format's
    /// zero and its maximum (1.0 for float fields), in every component.
    Checker {
        /// Side of a square, in texels.
        #[serde(default = "one")]
        cell: u32,
    },
    /// R ramps with x, G with y, B with the storage layer, from 0 to the maximum; A is the
    /// maximum.
    Gradient {},
    /// Uniform random raw values (floats in [0, 1)), reproducible from `seed` (ChaCha8).
    Random {
        /// The generator's seed.
        seed: u64,
    },
}

fn one() -> u32 {
    1
}

/// Bytes of storage a texture of `desc` needs, or `None` when the count overflows u64.
pub fn storage_bytes(desc: &TextureDesc) -> Option<u64> {
    let per_layer = if desc.kind.is_cube() { 6u64 } else { 1 };
    let elem = match desc.format.storage() {
        StorageWidth::U8 => 1u64,
        StorageWidth::U16 => 2,
        StorageWidth::U32 => 4,
    };
    (desc.layers as u64)
        .checked_mul(per_layer)?
        .checked_mul(desc.height as u64)?
        .checked_mul(desc.width as u64)?
        .checked_mul(desc.format.words() as u64)?
        .checked_mul(elem)
}

/// The raw value range of field `i` of `format`, and whether it is a 16- or 32-bit float.
fn field_range(format: Format, i: usize) -> (bool, i64, i64) {
    let bits = format.field_bits(i);
    // As `tld4 gather` reads texels: 16- and 32-bit float fields are numbers, the rest raw integers.
    let float_field =
        i < format.components() && matches!(format.class(i), Class::Float) && bits >= 16;
    let (min, max) = if format.field_is_signed(i) {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    (float_field, min, max)
}

/// Generates a texture of `desc` with pattern `g`; `path` names it in errors.
pub fn generate(desc: TextureDesc, g: &Generate, path: &str) -> Result<Texture, ScenarioError> {
    // A zero size makes the storage 0 bytes, under any bound, while the other sizes may still
    // be too large for an array shape: refused before anything is shaped (the texture unit
    // refuses zero sizes too, but only once the texels exist).
    if desc.width == 0 || desc.height == 0 || desc.layers == 0 {
        return Err(err(
            path,
            format!(
                "a {}x{} texture with {} layer(s): every size must be at least 1",
                desc.width, desc.height, desc.layers
            ),
        ));
    }
    match storage_bytes(&desc) {
        Some(b) if b <= MAX_GENERATED_BYTES => {}
        need => {
            return Err(err(
                path,
                format!(
                    "a generated texture is limited to {MAX_GENERATED_BYTES} bytes of storage; this {}x{} one with {} layer(s) needs {}",
                    desc.width,
                    desc.height,
                    desc.layers,
                    need.map_or("more than 2^64 bytes".to_string(), |b| format!("{b} bytes"))
                ),
            ))
        }
    }
    if let Generate::Checker { cell: 0 } = g {
        return Err(err(
            format!("{path}.generate.cell"),
            "a checker cell is at least 1 texel",
        ));
    }
    let f = desc.format;
    let layers = desc.storage_layers() as u32;
    let mut rng = match g {
        Generate::Random { seed } => Some(ChaCha8Rng::seed_from_u64(*seed)),
        _ => None,
    };
    let ranges: Vec<(bool, i64, i64, u32)> = (0..f.fields())
        .map(|i| {
            let (fl, min, max) = field_range(f, i);
            (fl, min, max, f.field_bits(i))
        })
        .collect();
    // One raw field value; called in storage order (layer, y, x, field), so `random` draws
    // its numbers in that order.
    let mut value = |l: u32, x: u32, y: u32, i: usize| -> u32 {
        let (float, min, max, bits) = ranges[i];
        let frac = match g {
            Generate::Checker { cell } => ((x / cell + y / cell + l) % 2) as f64,
            Generate::Gradient {} => match i {
                0 => x as f64 / (desc.width.max(2) - 1) as f64,
                1 => y as f64 / (desc.height.max(2) - 1) as f64,
                2 => l as f64 / (layers.max(2) - 1) as f64,
                _ => 1.0,
            },
            Generate::Random { .. } => {
                let r = rng.as_mut().expect("random has a generator");
                if float {
                    r.gen::<f64>()
                } else {
                    let mask = if bits >= 32 {
                        u32::MAX
                    } else {
                        (1u32 << bits) - 1
                    };
                    return r.gen_range(min..=max) as u32 & mask;
                }
            }
        };
        if float {
            if bits == 32 {
                (frac as f32).to_bits()
            } else {
                half::f16::from_f64(frac).to_bits() as u32
            }
        } else {
            (frac * max as f64).round() as u32
        }
    };
    let tex = if f.is_packed() {
        let nf = f.fields();
        Texture::from_fn(desc, |l, x, y| {
            let mut t = [0u32; 4];
            for (i, v) in t.iter_mut().enumerate().take(nf) {
                *v = value(l, x, y, i);
            }
            t
        })
    } else {
        let shape = (
            layers as usize,
            desc.height as usize,
            desc.width as usize,
            f.words(),
        );
        let at = |(l, y, x, i): (usize, usize, usize, usize)| (l as u32, x as u32, y as u32, i);
        let data = match f.storage() {
            StorageWidth::U8 => TexelData::U8(Array4::from_shape_fn(shape, |p| {
                let (l, x, y, i) = at(p);
                value(l, x, y, i) as u8
            })),
            StorageWidth::U16 => TexelData::U16(Array4::from_shape_fn(shape, |p| {
                let (l, x, y, i) = at(p);
                value(l, x, y, i) as u16
            })),
            StorageWidth::U32 => TexelData::U32(Array4::from_shape_fn(shape, |p| {
                let (l, x, y, i) = at(p);
                value(l, x, y, i)
            })),
        };
        Texture::from_data(desc, data)
    };
    tex.map_err(|e| err(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tld4_textures::TextureKind;

    fn desc(kind: TextureKind, format: Format, w: u32, h: u32, layers: u32) -> TextureDesc {
        TextureDesc {
            kind,
            format,
            width: w,
            height: h,
            layers,
        }
    }

    #[test]
    fn huge_sizes_are_refused_before_allocating() {
        let big = 2_147_483_648;
        for d in [
            desc(TextureKind::Tex2DArray, Format::Rgba8Unorm, big, big, 4),
            desc(TextureKind::CubeArray, Format::Rgba8Unorm, big, big, big),
            desc(TextureKind::Tex2D, Format::Rgba32Float, big, big, 1),
            desc(TextureKind::Tex2D, Format::R8Unorm, 8192, 8192, 8),
        ] {
            let e = generate(d, &Generate::Gradient {}, "textures[0]").unwrap_err();
            assert_eq!(e.path, "textures[0]");
            assert!(e.message.contains("limited to 268435456 bytes"), "{e}");
        }
        // 2^31 * 2^31 texels * 16 bytes = 2^66: the count overflows, and says so.
        assert_eq!(
            storage_bytes(&desc(TextureKind::Tex2D, Format::Rgba32Float, big, big, 1)),
            None
        );
    }

    #[test]
    fn the_bound_is_in_bytes_of_storage() {
        // 8192 x 8192 R8 is 64 MiB of storage: allowed; RGBA32F at 8192 x 4096 is 512 MiB: refused.
        assert_eq!(
            storage_bytes(&desc(TextureKind::Tex2D, Format::R8Unorm, 8192, 8192, 1)),
            Some(64 << 20)
        );
        assert_eq!(
            storage_bytes(&desc(TextureKind::Cube, Format::Rgba16Float, 4, 4, 1)),
            Some(6 * 16 * 8)
        );
        assert!(generate(
            desc(TextureKind::Tex2D, Format::Rgba32Float, 8192, 4096, 1),
            &Generate::Checker { cell: 1 },
            "t"
        )
        .is_err());
    }

    #[test]
    fn patterns_fill_the_fields() {
        let t = generate(
            desc(TextureKind::Tex2D, Format::Rgba8Unorm, 4, 4, 1),
            &Generate::Checker { cell: 2 },
            "t",
        )
        .unwrap();
        assert_eq!(t.raw_fields(0, 0, 0), Some([0, 0, 0, 0]));
        assert_eq!(t.raw_fields(0, 2, 0), Some([255, 255, 255, 255]));
        assert_eq!(t.raw_fields(0, 2, 2), Some([0, 0, 0, 0]));
        let g = generate(
            desc(TextureKind::Tex2D, Format::Rgba8Unorm, 4, 2, 1),
            &Generate::Gradient {},
            "t",
        )
        .unwrap();
        assert_eq!(g.raw_fields(0, 3, 1), Some([255, 255, 0, 255]));
        assert_eq!(g.raw_fields(0, 1, 0), Some([85, 0, 0, 255]));
        let p = generate(
            desc(TextureKind::Tex2D, Format::Rgb10a2Unorm, 2, 2, 1),
            &Generate::Gradient {},
            "t",
        )
        .unwrap();
        assert_eq!(p.raw_fields(0, 1, 1), Some([1023, 1023, 0, 3]));
        let a = generate(
            desc(TextureKind::Tex2D, Format::R32Float, 8, 8, 1),
            &Generate::Random { seed: 7 },
            "t",
        )
        .unwrap();
        let b = generate(
            desc(TextureKind::Tex2D, Format::R32Float, 8, 8, 1),
            &Generate::Random { seed: 7 },
            "t",
        )
        .unwrap();
        assert_eq!(a.raw_fields(0, 5, 6), b.raw_fields(0, 5, 6));
        let x = f32::from_bits(a.raw_fields(0, 5, 6).unwrap()[0]);
        assert!((0.0..1.0).contains(&x));
        assert!(generate(
            desc(TextureKind::Tex2D, Format::R8Unorm, 2, 2, 1),
            &Generate::Checker { cell: 0 },
            "t"
        )
        .is_err());
    }

    #[test]
    fn patterns_take_only_their_own_keys() {
        let g = |j: &str| serde_json::from_str::<Generate>(j);
        assert_eq!(
            g(r#"{"pattern": "gradient"}"#).unwrap(),
            Generate::Gradient {}
        );
        assert!(g(r#"{"pattern": "gradient", "cell": 2}"#).is_err());
        assert!(g(r#"{"pattern": "random", "seed": 1, "cell": 2}"#).is_err());
        assert_eq!(
            g(r#"{"pattern": "checker"}"#).unwrap(),
            Generate::Checker { cell: 1 }
        );
    }
}
