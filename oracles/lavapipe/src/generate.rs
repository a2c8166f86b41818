//! The random corpus generator: cases in the `tld4 gather` JSON model (`tld4_gather_cases`) that cover
//! every kind, format, address mode, border colour and compare function, components 0..3,
//! offsets -32..31 (AOFFI and PTP), coordinates inside and outside [0, 1], near and on texel
//! boundaries, out-of-range layers and small textures, so that edges and wrapping happen often.
//!
//! Every choice that keeps a query inside what Vulkan defines (so that a Vulkan driver's answer
//! is a reference at all) carries a comment naming the rule.

use serde::{Deserialize, Serialize};
use tld4_gather_cases::{
    BorderSpec, Case, CasesFile, NamedBorder, Num, QuerySpec, SamplerSpec, TextureSpec,
};
use tld4_textures::{AddressMode, Class, CompareOp, Format, Source, TextureKind};

use crate::rng::Rng;

/// What produced a corpus: recorded next to it (the `.meta.json` sidecar), so that it can be
/// regenerated exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratorInfo {
    /// Always "tld4-lavapipe generate".
    pub tool: String,
    /// Generator version: bumped whenever the same seed would give a different corpus.
    pub version: u32,
    /// The seed.
    pub seed: u64,
    /// Queries asked for (the corpus has at least this many).
    pub count: usize,
}

/// Bumped whenever the stream for a given seed changes.
pub const GENERATOR_VERSION: u32 = 1;

/// The kinds, formats, address modes and compare functions the generator draws from.
const KINDS: [TextureKind; 4] = [
    TextureKind::Tex2D,
    TextureKind::Tex2DArray,
    TextureKind::Cube,
    TextureKind::CubeArray,
];

/// Generate a corpus of at least `count` queries from `seed`.
pub fn generate(seed: u64, count: usize) -> (CasesFile, GeneratorInfo) {
    let mut rng = Rng::new(seed);
    let mut cases = Vec::new();
    let mut n = 0;
    while n < count {
        let want = (rng.range(12, 48) as usize).min(count - n).max(1);
        let case = gen_case(&mut rng, want);
        n += case.queries.len();
        cases.push(case);
    }
    (
        CasesFile { cases },
        GeneratorInfo {
            tool: "tld4-lavapipe generate".into(),
            version: GENERATOR_VERSION,
            seed,
            count,
        },
    )
}

fn gen_case(rng: &mut Rng, queries: usize) -> Case {
    let dim = rng.pick(&KINDS);
    // Depth formats get a quarter of the cases (there are 3 of 43), so that every compare
    // function is well covered.
    let depth = [Format::D16Unorm, Format::D32Float, Format::D24UnormS8Uint];
    let format = if rng.chance(0.25) {
        rng.pick(&depth)
    } else {
        rng.pick(&Format::ALL)
    };
    // Small textures, so that edges, wrapping and borders come up often; now and then a
    // larger 2D one (kept small: the corpus is committed).
    let side = |rng: &mut Rng| {
        if !dim.is_cube() && rng.chance(0.06) {
            rng.pick(&[12, 16])
        } else {
            rng.range(1, 9) as u32
        }
    };
    let width = side(rng);
    // Cube faces are square (Vulkan: VkImageCreateInfo with CUBE_COMPATIBLE, width == height).
    let height = if dim.is_cube() { width } else { side(rng) };
    let layers = match dim {
        TextureKind::Tex2DArray => rng.range(1, 4) as u32,
        TextureKind::CubeArray => rng.range(1, 3) as u32,
        _ => 1,
    };
    let storage_layers = layers as usize * if dim.is_cube() { 6 } else { 1 };
    let texel_count = storage_layers * (width * height) as usize;
    let mut texels = Vec::with_capacity(texel_count * format.fields());
    for _ in 0..texel_count {
        for i in 0..format.fields() {
            texels.push(texel_field(rng, format, i));
        }
    }
    let address_u = rng.pick(&AddressMode::ALL);
    let address_v = rng.pick(&AddressMode::ALL);
    let border = gen_border(rng, format);
    let compare = if format.is_depth() && rng.chance(0.7) {
        Some(rng.pick(&CompareOp::ALL))
    } else {
        // Depth compare needs a depth format (Vulkan VUID-vkCmdDispatch: a shadow sampler's
        // view must have a depth format).
        None
    };
    // A swizzle only where no border texel can be read: Vulkan leaves border colours with a
    // non-identity component mapping undefined unless VK_EXT_border_color_swizzle is enabled,
    // and the texture unit does not swizzle the border (docs/sources.md, Decisions). Depth views keep the identity: Vulkan
    // defines only their R (and the compare result), so a swizzle there would test nothing.
    let border_reachable = !dim.is_cube()
        && (address_u == AddressMode::ClampToBorder || address_v == AddressMode::ClampToBorder);
    let swizzle = if !format.is_depth() && !border_reachable && rng.chance(0.15) {
        Some([0; 4].map(|_| rng.pick(&Source::ALL)))
    } else {
        None
    };
    let texture = TextureSpec {
        dim,
        format,
        width,
        height,
        layers,
        texels,
        swizzle,
        residency: None,
    };
    let sampler = SamplerSpec {
        address_u,
        address_v,
        border,
        compare,
        seamless_cube: true,
        normalized_coords: true,
    };
    let depth_values = depth_values(&texture);
    let queries = (0..queries)
        .map(|_| gen_query(rng, &texture, compare.is_some(), &depth_values))
        .collect();
    Case {
        texture,
        sampler,
        precision: None,
        queries,
    }
}

/// One raw texel field, in the JSON form of `tld4_gather_cases`: integers (signed
/// for SNORM and SINT) for every integer field and the packed formats' bit fields, numbers for
/// the 16- and 32-bit float components.
fn texel_field(rng: &mut Rng, f: Format, i: usize) -> Num {
    let bits = f.field_bits(i);
    let float = i < f.components() && f.class(i) == Class::Float && bits >= 16;
    if float && bits == 16 {
        // Any half, denormals included; infinities and NaNs (written "inf", "NaN") one in 32.
        let h = loop {
            let b = rng.bits(16) as u16;
            if (b >> 10) & 0x1f != 0x1f || rng.chance(1.0 / 32.0) {
                break b;
            }
        };
        return num(half::f16::from_bits(h).to_f32());
    }
    if float {
        return num(f32_value(rng, f == Format::D32Float));
    }
    if f == Format::R11g11b10Float {
        // Unsigned 11/10-bit float bit patterns; exponent 31 (infinity, NaN) one in 32.
        let mbits = if bits == 11 { 6 } else { 5 };
        let e = if rng.chance(1.0 / 32.0) {
            31
        } else {
            rng.range(0, 30) as u32
        };
        let m = rng.bits(mbits);
        return Num::Int(((e << mbits) | m) as i64);
    }
    let raw = if rng.chance(0.1) {
        // the ends of the range, and for SNORM both -1.0 codes
        rng.pick(&[0u32, u32::MAX, 1 << (bits - 1), (1 << (bits - 1)) + 1])
    } else {
        rng.bits(32)
    };
    let raw = if bits >= 32 {
        raw
    } else {
        raw & ((1u32 << bits) - 1)
    };
    if f.field_is_signed(i) {
        let sh = 32 - bits;
        Num::Int((((raw << sh) as i32) >> sh) as i64)
    } else {
        Num::Int(raw as i64)
    }
}

/// An f32: small dyadic values, extremes, denormals, infinities and NaN now and then (a gather
/// returns the texel without arithmetic; lavapipe keeps denormals, measured), random bits of a
/// moderate exponent otherwise. D32 depths stay in [0, 1], the range depth attachments hold
/// (Vulkan "Depth Test" without VK_EXT_depth_range_unrestricted).
fn f32_value(rng: &mut Rng, depth: bool) -> f32 {
    if depth {
        return match rng.below(10) {
            0 => 0.0,
            1 => 1.0,
            2..=3 => rng.range(0, 16) as f32 / 16.0,
            _ => rng.unit() as f32,
        };
    }
    match rng.below(40) {
        0..=7 => rng.range(-32, 32) as f32 / 8.0,
        8..=9 => rng.pick(&[
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MAX,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
        ]),
        10 => f32::from_bits((rng.bits(1) << 31) | rng.bits(23).max(1)),
        11 => rng.pick(&[f32::INFINITY, f32::NEG_INFINITY, f32::NAN]),
        12..=15 => {
            f32::from_bits((rng.bits(1) << 31) | (rng.range(1, 254) as u32) << 23 | rng.bits(23))
        }
        _ => {
            f32::from_bits((rng.bits(1) << 31) | (rng.range(107, 147) as u32) << 23 | rng.bits(23))
        }
    }
}

/// Border colour: a named one of the format's numeric type, or (one case in five) custom
/// values. Integer formats take integer borders and the others float borders: Vulkan leaves
/// a border of the other type undefined ("Texel Replacement").
fn gen_border(rng: &mut Rng, f: Format) -> BorderSpec {
    let integer = f.is_integer();
    if rng.chance(0.8) {
        let named = if integer {
            [
                NamedBorder::IntTransparentBlack,
                NamedBorder::IntOpaqueBlack,
                NamedBorder::IntOpaqueWhite,
            ]
        } else {
            [
                NamedBorder::FloatTransparentBlack,
                NamedBorder::FloatOpaqueBlack,
                NamedBorder::FloatOpaqueWhite,
            ]
        };
        return BorderSpec::Named(rng.pick(&named));
    }
    if integer {
        // Values the format can hold (VK_EXT_custom_border_color gives no rule for others).
        let int = [0, 1, 2, 3].map(|c| {
            let i = c.min(f.components().max(1) - 1);
            let bits = f.field_bits(i).min(32);
            let raw = if bits >= 32 {
                rng.bits(32)
            } else {
                rng.bits(bits)
            };
            if f.field_is_signed(i) && bits < 32 {
                let sh = 32 - bits;
                ((raw << sh) as i32) >> sh
            } else {
                raw as i32
            }
        });
        BorderSpec::Int { int }
    } else {
        BorderSpec::Float {
            float: [0, 1, 2, 3].map(|c| border_float(rng, f, c)),
        }
    }
}

/// A custom float border component that the format represents exactly, so that a driver that
/// stores the border in the texture's format gives the same value back.
fn border_float(rng: &mut Rng, f: Format, c: usize) -> f32 {
    let i = c.min(f.components().max(1) - 1);
    match f.class(i) {
        Class::Unorm => {
            let max = ((1u64 << f.field_bits(i)) - 1) as f64;
            (rng.range(0, max as i64) as f64 / max) as f32
        }
        Class::Snorm => {
            let max = ((1u64 << (f.field_bits(i) - 1)) - 1) as f64;
            (rng.range(-(max as i64), max as i64) as f64 / max) as f32
        }
        // sRGB: 0 and 1 are the only values whose encoding round-trips exactly for certain.
        Class::Srgb => rng.pick(&[0.0, 1.0]),
        // finite: a NaN border would only test NaN propagation through the sampler state
        Class::Float if f.field_bits(i) == 32 => loop {
            let v = f32_value(rng, f == Format::D32Float);
            if v.is_finite() {
                break v;
            }
        },
        // f16 and the unsigned small floats: small dyadic values all of them hold.
        _ => rng.range(0, 64) as f32 / 16.0,
    }
}

/// The correctly rounded depth values of a depth texture's texels (for drefs that tie).
fn depth_values(t: &TextureSpec) -> Vec<f32> {
    let stride = t.format.fields();
    let max = match t.format {
        Format::D16Unorm => 65535.0,
        Format::D24UnormS8Uint => 16777215.0,
        Format::D32Float => 0.0,
        _ => return Vec::new(),
    };
    t.texels
        .iter()
        .step_by(stride)
        .map(|n| {
            if max == 0.0 {
                n.as_f64() as f32
            } else {
                (n.as_f64() / max) as f32
            }
        })
        .collect()
}

/// An f32 as a JSON number: its shortest decimal, which reads back to the same f32.
fn num(x: f32) -> Num {
    Num::from_f32(x)
}

fn gen_query(rng: &mut Rng, t: &TextureSpec, compare: bool, depth_values: &[f32]) -> QuerySpec {
    let mut coord = Vec::with_capacity(4);
    match t.dim {
        TextureKind::Tex2D | TextureKind::Tex2DArray => {
            coord.push(num(axis(rng, t.width)));
            coord.push(num(axis(rng, t.height)));
        }
        TextureKind::Cube | TextureKind::CubeArray => {
            coord.extend(cube_direction(rng, t.width).0.map(num));
        }
    }
    if t.dim.is_array() {
        coord.push(num(layer(rng, t.layers)));
    }
    // Offsets only on the 2D kinds: GLSL and SPIR-V have no offset gathers on cubes (and
    // NVIDIA's are "not modeled": docs/sources.md, Decisions).
    let (mut offset, mut offsets) = (None, None);
    if !t.dim.is_cube() {
        match rng.below(20) {
            0..=6 => {}
            7..=13 => offset = Some([gen_offset(rng), gen_offset(rng)]),
            _ => offsets = Some([0; 4].map(|_| [gen_offset(rng), gen_offset(rng)])),
        }
    }
    let dref = compare.then(|| num(gen_dref(rng, depth_values)));
    // Any component: depth formats read (D, 0, 0, 1) like one-component formats (Vulkan
    // "Conversion to RGBA"; lavapipe agrees, measured); with compare the component is not part
    // of the GLSL gather at all and must be ignored (docs/sources.md, Decisions).
    let component = rng.range(0, 3) as u32;
    QuerySpec {
        coord,
        component,
        offset,
        offsets,
        dref,
        result: None,
    }
}

/// One offset in -32..=31 (Vulkan minTexelGatherOffset/maxTexelGatherOffset on lavapipe:
/// docs/sources.md, lavapipe; NVIDIA reads 6-bit offsets: docs/sources.md, NAK conventions),
/// with the ends and small values often.
fn gen_offset(rng: &mut Rng) -> i64 {
    match rng.below(8) {
        0..=1 => rng.pick(&[-32, 31]),
        2..=4 => rng.range(-2, 2),
        _ => rng.range(-32, 31),
    }
}

/// A normalized coordinate on an axis of `n` texels. Texel *centres* (k + 0.5) / n are where
/// the footprint i0 = floor(u - 0.5) changes, so they and their neighbourhoods are frequent.
fn axis(rng: &mut Rng, n: u32) -> f32 {
    let n = n as f64;
    let k = |rng: &mut Rng| rng.range(-1, n as i64) as f64;
    match rng.below(100) {
        0..=44 => rng.uniform(-0.25, 1.25) as f32,
        45..=61 => rng.uniform(-3.0, 4.0) as f32,
        62..=66 => ((k(rng) + 0.5) / n) as f32,
        67..=70 => {
            let d = (2.0f64).powi(-(rng.range(7, 14) as i32))
                * if rng.chance(0.5) { 1.0 } else { -1.0 };
            ((k(rng) + 0.5 + d) / n) as f32
        }
        71..=82 => (rng.range(-1, n as i64 + 1) as f64 / n) as f32,
        83..=96 => rng.uniform(-40.0, 40.0) as f32,
        _ => {
            let c = ((k(rng) + 0.5) / n) as f32;
            let ulps = rng.range(-8, 8) as i32;
            step_ulps(c, ulps)
        }
    }
}

/// x moved by `ulps` units in the last place (through zero as the f32 order goes).
fn step_ulps(x: f32, ulps: i32) -> f32 {
    let mut v = x;
    for _ in 0..ulps.unsigned_abs() {
        v = if ulps > 0 { next_up(v) } else { -next_up(-v) };
    }
    v
}

fn next_up(x: f32) -> f32 {
    if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

/// A coordinate across one cube face, in [0, 1]: centres, edges (0 and 1 included), and the
/// half-texel strips along the edges where footprints cross to the neighbouring face.
fn face_axis(rng: &mut Rng, n: u32) -> f64 {
    let nf = n as f64;
    match rng.below(100) {
        0..=49 => rng.unit(),
        50..=54 => (rng.range(0, n as i64 - 1) as f64 + 0.5) / nf,
        55..=59 => {
            let d = (2.0f64).powi(-(rng.range(7, 14) as i32))
                * if rng.chance(0.5) { 1.0 } else { -1.0 };
            ((rng.range(0, n as i64 - 1) as f64 + 0.5 + d) / nf).clamp(0.0, 1.0)
        }
        60..=74 => rng.range(0, n as i64) as f64 / nf,
        _ => {
            let w = rng.uniform(0.0, 0.5 / nf);
            if rng.chance(0.5) {
                w
            } else {
                1.0 - w
            }
        }
    }
}

/// A cube direction: a face, face coordinates and a major-axis magnitude, mapped back through
/// Vulkan's face table ("Cube Map Face Selection"); sometimes with two or three equal
/// magnitudes (face-selection ties). Returns the direction and the face it was made for.
fn cube_direction(rng: &mut Rng, n: u32) -> ([f32; 3], usize) {
    let face = rng.below(6);
    let (s, t) = (face_axis(rng, n), face_axis(rng, n));
    let (sc, tc) = (2.0 * s - 1.0, 2.0 * t - 1.0);
    let m = if rng.chance(0.4) {
        1.0
    } else {
        rng.uniform(0.25, 4.0)
    };
    let (x, y, z) = match face {
        0 => (m, -tc * m, -sc * m),
        1 => (-m, -tc * m, sc * m),
        2 => (sc * m, m, tc * m),
        3 => (sc * m, -m, -tc * m),
        4 => (sc * m, -tc * m, m),
        _ => (-sc * m, -tc * m, -m),
    };
    let mut v = [x as f32, y as f32, z as f32];
    if rng.chance(0.08) {
        // a tie: copy the major magnitude into one or both other axes
        let major = face / 2;
        let mag = v[major].abs();
        for (a, c) in v.iter_mut().enumerate() {
            if a != major && (rng.chance(0.6)) {
                *c = if rng.chance(0.5) { mag } else { -mag };
            }
        }
    }
    (v, face)
}

/// An array layer (or cube index) as a float: integers in and out of range, exact halves
/// (Vulkan rounds them to even, NVIDIA's compiler up), values a few ulps around halves, and
/// uniform values.
fn layer(rng: &mut Rng, layers: u32) -> f32 {
    let l = layers as i64;
    match rng.below(20) {
        0..=9 => rng.range(-1, l) as f32,
        10..=13 => rng.uniform(-2.0, l as f64 + 2.0) as f32,
        14..=16 => rng.range(-1, l) as f32 + 0.5,
        _ => step_ulps(rng.range(-1, l) as f32 + 0.5, rng.range(-3, 3) as i32),
    }
}

/// A depth reference: uniform in [0, 1] and beyond (UNORM formats clamp it, Vulkan "Depth
/// Compare Operation"), exactly a texel's depth (equal/less-or-equal cases), 0 and 1.
fn gen_dref(rng: &mut Rng, depth_values: &[f32]) -> f32 {
    match rng.below(20) {
        0..=6 => rng.unit() as f32,
        7..=9 => rng.uniform(-0.5, 1.5) as f32,
        10..=16 if !depth_values.is_empty() => rng.pick(depth_values),
        17..=18 => rng.pick(&[0.0, 1.0]),
        _ => rng.range(0, 16) as f32 / 16.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn a_corpus_covers_every_kind_format_mode_and_compare_and_parses_as_cases() {
        let (file, info) = generate(42, 20000);
        assert_eq!(info.seed, 42);
        let total: usize = file.cases.iter().map(|c| c.queries.len()).sum();
        assert!(total >= 20000, "{total} queries");
        let kinds: HashSet<_> = file.cases.iter().map(|c| c.texture.dim).collect();
        assert_eq!(kinds.len(), 4);
        let formats: HashSet<_> = file.cases.iter().map(|c| c.texture.format).collect();
        assert_eq!(formats.len(), Format::ALL.len(), "every format appears");
        let modes: HashSet<_> = file
            .cases
            .iter()
            .flat_map(|c| [c.sampler.address_u, c.sampler.address_v])
            .collect();
        assert_eq!(modes.len(), 5);
        let compares: HashSet<_> = file
            .cases
            .iter()
            .filter_map(|c| c.sampler.compare)
            .collect();
        assert_eq!(compares.len(), 8);
        let named: HashSet<_> = file
            .cases
            .iter()
            .filter_map(|c| match c.sampler.border {
                BorderSpec::Named(n) => Some(format!("{n:?}")),
                _ => None,
            })
            .collect();
        assert_eq!(named.len(), 6);
        let queries: Vec<_> = file.cases.iter().flat_map(|c| &c.queries).collect();
        let offs: Vec<i64> = queries.iter().filter_map(|q| q.offset).flatten().collect();
        assert!(offs.contains(&-32) && offs.contains(&31));
        assert!(queries.iter().any(|q| q.offsets.is_some()));
        let comps: HashSet<_> = queries.iter().map(|q| q.component).collect();
        assert_eq!(comps.len(), 4);
        let outside = queries
            .iter()
            .filter(|q| {
                q.coord
                    .iter()
                    .take(2)
                    .any(|c| !(0.0..=1.0).contains(&c.as_f64()))
            })
            .count();
        assert!(outside > total / 10, "{outside} queries outside [0, 1]");
        // Layers out of range on arrays.
        assert!(file.cases.iter().any(|c| c.texture.dim.is_array()
            && c.queries.iter().any(|q| {
                let l = q.coord.last().unwrap().as_f64();
                l < -0.5 || l >= c.texture.layers as f64 + 0.5
            })));
        // The texture unit's own parser accepts the corpus, and the same seed gives it again.
        let text = serde_json::to_string(&file).unwrap();
        let back = tld4_gather_cases::parse(&text).unwrap();
        for (i, c) in back.cases.iter().enumerate() {
            tld4_gather_cases::prepare(c, i).unwrap();
        }
        assert_eq!(crate::corpus::same_queries(&back, &file), Ok(()));
        assert_eq!(
            crate::corpus::same_queries(&generate(42, 20000).0, &file),
            Ok(())
        );
        assert!(crate::corpus::same_queries(&generate(43, 20000).0, &file).is_err());
    }

    #[test]
    fn cube_directions_land_on_the_face_they_were_made_for() {
        let mut rng = Rng::new(5);
        let mut ties = 0;
        for _ in 0..2000 {
            let (v, face) = cube_direction(&mut rng, 4);
            let (got, s, t, tie) = crate::classify::cube_project(v[0], v[1], v[2]);
            assert!(
                (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t),
                "{v:?}"
            );
            if tie {
                ties += 1;
            } else {
                assert_eq!(got as usize, face, "{v:?}");
            }
        }
        assert!(ties > 50, "{ties} face-selection ties in 2000");
    }

    #[test]
    fn ulp_steps_walk_the_f32_order() {
        assert_eq!(step_ulps(1.0, 1).to_bits(), 1.0f32.to_bits() + 1);
        assert_eq!(step_ulps(1.0, -2).to_bits(), 1.0f32.to_bits() - 2);
        assert_eq!(step_ulps(0.0, -1), -f32::from_bits(1));
    }
}
