//! Helpers shared by the integration tests.
#![allow(dead_code)]

use tld4_textures::*;

/// A 1x1 2D texture holding one texel's raw fields.
pub fn one_texel(format: Format, fields: [u32; 4]) -> Texture {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format,
        width: 1,
        height: 1,
        layers: 1,
    };
    Texture::from_fields(desc, &fields[..format.fields()]).unwrap()
}

/// Gather `component` of a 1x1 texture with clamp to edge: all four results read the one texel.
pub fn sample(format: Format, fields: [u32; 4], component: u8) -> u32 {
    let tex = one_texel(format, fields);
    let g = Gatherer::new(
        &tex,
        &Sampler::default(),
        &GatherOp::new(TextureKind::Tex2D, component),
        Precision::default(),
    )
    .unwrap();
    let r = g.gather(&GatherQuery::at(0.5, 0.5));
    assert!(
        r.values.iter().all(|&v| v == r.values[0]),
        "{format:?}: {r:?}"
    );
    r.values[0]
}

/// The correctly rounded f32 of num / den (den > 0), by exact integer long division with
/// round-to-nearest-even. Independent of any float arithmetic; valid for normal results.
pub fn rational_to_f32(num: i64, den: u64) -> f32 {
    if num == 0 {
        return 0.0;
    }
    let neg = num < 0;
    let n = num.unsigned_abs() as u128;
    let d = den as u128;
    // find s with 2^24 <= n * 2^s / d < 2^25
    let mut s: i32 = 0;
    let q = |s: i32| {
        if s >= 0 {
            (n << s) / d
        } else {
            (n >> (-s)) / d
        }
    };
    while q(s) < (1 << 24) {
        s += 1;
    }
    while q(s) >= (1 << 25) {
        s -= 1;
    }
    assert!(s >= 0, "only values below 2^24 are needed here");
    let scaled = (n << s) / d;
    let rem = (n << s) % d;
    let guard = scaled & 1;
    let mut m = scaled >> 1;
    if guard == 1 && (rem != 0 || m & 1 == 1) {
        m += 1;
    }
    let v = (m as f64) * 2f64.powi(-(s - 1));
    let v = v as f32; // exact: m <= 2^24 and the exponent is normal
    if neg {
        -v
    } else {
        v
    }
}

/// A texture built from a closure over (storage layer, x, y).
pub fn texture(
    kind: TextureKind,
    format: Format,
    w: u32,
    h: u32,
    layers: u32,
    f: impl FnMut(u32, u32, u32) -> [u32; 4],
) -> Texture {
    Texture::from_fn(
        TextureDesc {
            kind,
            format,
            width: w,
            height: h,
            layers,
        },
        f,
    )
    .unwrap()
}

/// Gather with the default precision.
pub fn gather(tex: &Texture, sampler: &Sampler, op: &GatherOp, q: &GatherQuery) -> GatherResult {
    Gatherer::new(tex, sampler, op, Precision::default())
        .unwrap()
        .gather(q)
}

/// SplitMix64: the random tests' reproducible stream of 64-bit values.
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random case's sampler and gather choices, as drawn (Vulkan numbering for the modes and
/// the compare function; offsets 0 none, 1 AOFFI, 2 PTP).
pub struct SamplingChoice {
    pub modes: [u8; 2],
    pub border: [u32; 4],
    pub compare: Option<u8>,
    pub seamless: bool,
    pub component: u8,
    pub offsets: u8,
}

impl SamplingChoice {
    /// The sampler and gather for a texture of `kind` and `format`: depth compare only on
    /// a depth format, no offsets on a cube (TLD4 has none there).
    pub fn build(&self, kind: TextureKind, format: Format) -> (Sampler, GatherOp) {
        let compare = self
            .compare
            .filter(|_| format.is_depth())
            .map(|c| CompareOp::from_vulkan(c as u32).unwrap());
        let sampler = Sampler {
            address_u: AddressMode::from_vulkan(self.modes[0] as u32).unwrap(),
            address_v: AddressMode::from_vulkan(self.modes[1] as u32).unwrap(),
            border: BorderColor { words: self.border },
            compare,
            seamless_cube: self.seamless,
            normalized_coords: true,
        };
        let offsets = if kind.is_cube() {
            OffsetMode::None
        } else {
            [OffsetMode::None, OffsetMode::Aoffi, OffsetMode::Ptp][self.offsets as usize]
        };
        let op = GatherOp {
            dim: kind,
            component: self.component,
            offsets,
            compare: compare.is_some(),
        };
        (sampler, op)
    }
}
