//! The f64 reference oracle of the tld4 texture unit: a plain gather, straight from the Vulkan specification's formulas, in f64 with
//! no fixed point. It is written apart from the fast path ([`tld4_textures::Gatherer`]) and shares
//! only the data types and the format tables (component counts, field widths) with it: its
//! own texel decoding, wrapping, cube face selection and geometric cube-edge projection.
//!
//! It is slow (it allocates nothing, but recomputes everything per call) and meant for tests,
//! demonstrations and comparisons. Away from texel boundaries it agrees with the fast path
//! bit for bit (a property test checks it); at boundaries only the precision model decides,
//! and this module has none (it is [`tld4_textures::Precision::Exact`]). At seamless cube corners its
//! average is the exact mean rounded once, where the fast path uses lavapipe's f32 arithmetic
//! (within 2 ulp). It assumes |s * width| < 2^40.

#![warn(missing_docs)]
#![deny(unsafe_code)]

use tld4_textures::{
    AddressMode, Class, CompareOp, Error, Format, GatherOp, GatherQuery, GatherResult,
    InvalidInput, NotModeled, OffsetMode, Sampler, Source, Texture, TextureKind,
};

/// A value on its way through the reference pipeline.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Val {
    /// A real number (float, normalized and depth formats).
    F(f64),
    /// Raw bits passed through unchanged (integer formats, f32 texels).
    Bits(u32),
}

impl Val {
    fn bits(self) -> u32 {
        match self {
            Val::F(x) => (x as f32).to_bits(),
            Val::Bits(b) => b,
        }
    }

    fn real(self) -> f64 {
        match self {
            Val::F(x) => x,
            Val::Bits(b) => f32::from_bits(b) as f64,
        }
    }
}

/// Gather one lane by the book. Errors as [`tld4_textures::Gatherer::new`] gives them.
///
/// ```
/// use tld4_textures::*;
/// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Unorm, width: 2, height: 2, layers: 1 };
/// let tex = Texture::from_fields(desc, &[0, 51, 102, 255]).unwrap();
/// let op = GatherOp::new(TextureKind::Tex2D, 0);
/// let q = GatherQuery::at(0.5, 0.5);
/// let r = tld4_reference::gather(&tex, &Sampler::default(), &op, &q).unwrap();
/// assert_eq!(r.as_f32(), [0.4, 1.0, 0.2, 0.0]);
/// let fast = Gatherer::new(&tex, &Sampler::default(), &op, Precision::default()).unwrap();
/// assert_eq!(fast.gather(&q), r);
/// ```
pub fn gather(
    texture: &Texture,
    sampler: &Sampler,
    op: &GatherOp,
    q: &GatherQuery,
) -> Result<GatherResult, Error> {
    let kind = texture.kind();
    let format = texture.format();
    if kind != op.dim {
        return Err(NotModeled::KindMismatch {
            texture: kind,
            requested: op.dim,
        }
        .into());
    }
    let cube = matches!(kind, TextureKind::Cube | TextureKind::CubeArray);
    if cube && op.offsets != OffsetMode::None {
        return Err(NotModeled::OffsetsOnCube(kind).into());
    }
    if op.component > 3 {
        return Err(InvalidInput::Component(op.component as u32).into());
    }
    // Unnormalized coordinates: 2D kinds with clamp to edge or to border only (the modes
    // CUDA and Vulkan allow with them; docs/sources.md, Unnormalized coordinates).
    if !sampler.normalized_coords {
        if cube {
            return Err(NotModeled::UnnormalizedCube(kind).into());
        }
        for mode in [sampler.address_u, sampler.address_v] {
            if !matches!(mode, AddressMode::ClampToEdge | AddressMode::ClampToBorder) {
                return Err(NotModeled::UnnormalizedAddressMode(mode).into());
            }
        }
    }
    let compare = if op.compare {
        match sampler.compare {
            None => return Err(NotModeled::CompareOff.into()),
            Some(_) if !format.is_depth() => return Err(NotModeled::CompareOnColor(format).into()),
            Some(c) => Some(c),
        }
    } else {
        None
    };

    let w = texture.width() as i64;
    let h = texture.height() as i64;
    let last = texture.layers() as i64 - 1;
    let layer_coord = (q.layer as i64).min(last);

    // Coordinates and the layer (cube: the face).
    let (s, t, face, base) = if cube {
        let (face, s, t) =
            face_and_coords(q.coords[0] as f64, q.coords[1] as f64, q.coords[2] as f64);
        let base = if kind == TextureKind::CubeArray {
            layer_coord * 6
        } else {
            0
        };
        (s, t, face, base)
    } else {
        let layer = if kind == TextureKind::Tex2DArray {
            layer_coord
        } else {
            0
        };
        (q.coords[0] as f64, q.coords[1] as f64, 0, layer)
    };

    // Texel selection for LINEAR filtering: i0 = floor(u - 0.5), j0 = floor(v - 0.5), with
    // u = s * width for normalized coordinates and u = s for unnormalized ones (Vulkan
    // "Unnormalized Texel Coordinate Operations").
    let (su, sv) = if sampler.normalized_coords {
        (w as f64, h as f64)
    } else {
        (1.0, 1.0)
    };
    let u = if s.is_nan() { 0.0 } else { s * su };
    let v = if t.is_nan() { 0.0 } else { t * sv };
    // Below 2^52 in magnitude u - 0.5 is exact in f64 and floor() fits an i64 far from
    // overflow; beyond, the book's arithmetic cannot be followed exactly: refused.
    const LIMIT: f64 = (1u64 << 52) as f64;
    for c in [u, v] {
        if c.abs() >= LIMIT {
            return Err(NotModeled::ReferenceRange(c).into());
        }
    }
    let i0 = (u - 0.5).floor() as i64;
    let j0 = (v - 0.5).floor() as i64;

    // The gathered texels: (i0, j1), (i1, j1), (i1, j0), (i0, j0), offset as asked.
    let six = |v: i8| {
        let v = v as i64 & 63;
        if v >= 32 {
            v - 64
        } else {
            v
        }
    };
    let unit = [(0, 1), (1, 1), (1, 0), (0, 0)];
    let mut texels = [(0i64, 0i64); 4];
    for k in 0..4 {
        texels[k] = match op.offsets {
            OffsetMode::None => (i0 + unit[k].0, j0 + unit[k].1),
            OffsetMode::Aoffi => (
                i0 + unit[k].0 + six(q.offsets[0][0]),
                j0 + unit[k].1 + six(q.offsets[0][1]),
            ),
            OffsetMode::Ptp => (i0 + six(q.offsets[k][0]), j0 + six(q.offsets[k][1])),
        };
    }

    let dref = {
        let d = q.dref as f64;
        if format.is_unorm_depth() && !d.is_nan() {
            d.clamp(0.0, 1.0)
        } else {
            d
        }
    };
    let component = op.component as usize;
    let mut out = [Val::F(0.0); 4];
    let mut corner = None;
    let mut resident = true;
    for k in 0..4 {
        let (i, j) = texels[k];
        // Where the texel is: Some((layer, x, y)) or None for a border texel.
        let place = if cube && sampler.seamless_cube {
            match cube_texel(face, i, j, w) {
                CubeTexel::Face(f, x, y) => Some((base + f as i64, x, y)),
                CubeTexel::Corner => {
                    corner = Some(k);
                    continue;
                }
            }
        } else {
            match (wrap(sampler.address_u, i, w), wrap(sampler.address_v, j, h)) {
                (Some(x), Some(y)) => Some((base + face as i64, x, y)),
                _ => None,
            }
        };
        out[k] = match place {
            Some((layer, x, y)) => {
                if let Some(r) = texture.residency() {
                    if !r.is_resident(layer as usize, x as usize, y as usize) {
                        resident = false;
                    }
                }
                let raw = texture
                    .raw_fields(layer as usize, x as usize, y as usize)
                    .ok_or_else(|| {
                        InvalidInput::Storage("reference read outside the texture".into())
                    })?;
                let rgba = to_rgba(format, raw);
                match compare {
                    Some(c) => compared(c, dref, rgba[0].real() as f32 as f64),
                    None => swizzled(texture.swizzle().0[component], &rgba, format),
                }
            }
            None => {
                let b = border_rgba(format, sampler.border.words);
                match compare {
                    Some(c) => compared(c, dref, b[0].real()),
                    None => b[component],
                }
            }
        };
    }
    if let Some(c) = corner {
        out[c] = if format.is_integer() && compare.is_none() {
            // The texel in the same column (same i, other j); see `cube_corner_value`.
            out[3 - c]
        } else {
            let sum: f64 = (0..4).filter(|&k| k != c).map(|k| out[k].real()).sum();
            Val::F(sum / 3.0)
        };
    }
    if !resident {
        return Ok(GatherResult {
            values: [0; 4],
            resident: false,
        });
    }
    Ok(GatherResult {
        values: out.map(Val::bits),
        resident: true,
    })
}

/// Vulkan's face table: for each face, the major axis, and sc, tc as (axis, sign).
/// Face order +X, -X, +Y, -Y, +Z, -Z.
/// (major axis, its sign, (axis, sign) of sc, (axis, sign) of tc).
type FaceRow = (usize, f64, (usize, f64), (usize, f64));

const FACES: [FaceRow; 6] = [
    (0, 1.0, (2, -1.0), (1, -1.0)),
    (0, -1.0, (2, 1.0), (1, -1.0)),
    (1, 1.0, (0, 1.0), (2, 1.0)),
    (1, -1.0, (0, 1.0), (2, -1.0)),
    (2, 1.0, (0, 1.0), (1, -1.0)),
    (2, -1.0, (0, -1.0), (1, -1.0)),
];

/// Select the face (largest magnitude; ties z, then y, then x; a zero major axis counts as
/// positive) and return (face, s, t) with s = 0.5 * sc / |ma| + 0.5.
fn face_and_coords(x: f64, y: f64, z: f64) -> (u32, f64, f64) {
    let r = [x, y, z];
    let a = r.map(f64::abs);
    let axis = if a[2] >= a[0] && a[2] >= a[1] {
        2
    } else if a[1] >= a[0] {
        1
    } else {
        0
    };
    let positive = r[axis] >= 0.0;
    let face = FACES
        .iter()
        .position(|f| f.0 == axis && (f.1 > 0.0) == positive)
        .unwrap_or(0);
    let (_, _, (sa, ss), (ta, ts)) = FACES[face];
    let ma = r[axis].abs();
    let sc = ss * r[sa];
    let tc = ts * r[ta];
    (face as u32, 0.5 * (sc / ma) + 0.5, 0.5 * (tc / ma) + 0.5)
}

enum CubeTexel {
    Face(u32, i64, i64),
    Corner,
}

/// Seamless cube addressing by geometry: a texel off the face is the texel whose face holds
/// the direction through the off-face texel's centre; off both axes it is a corner.
fn cube_texel(face: u32, i: i64, j: i64, n: i64) -> CubeTexel {
    let inside = |c: i64| c >= 0 && c < n;
    if inside(i) && inside(j) {
        return CubeTexel::Face(face, i, j);
    }
    if !inside(i) && !inside(j) {
        return CubeTexel::Corner;
    }
    let nf = n as f64;
    let sc = 2.0 * (i as f64 + 0.5) / nf - 1.0;
    let tc = 2.0 * (j as f64 + 0.5) / nf - 1.0;
    let (axis, sign, (sa, ss), (ta, ts)) = FACES[face as usize];
    let mut d = [0.0f64; 3];
    d[axis] = sign;
    d[sa] = ss * sc;
    d[ta] = ts * tc;
    let (f, s, t) = face_and_coords(d[0], d[1], d[2]);
    let clamp = |c: f64| ((c * nf).floor() as i64).clamp(0, n - 1);
    CubeTexel::Face(f, clamp(s), clamp(t))
}

/// Vulkan's wrapping formulas; None for a border texel.
fn wrap(mode: AddressMode, i: i64, size: i64) -> Option<i64> {
    let mirror = |a: i64| if a >= 0 { a } else { -(1 + a) };
    let modulo = |a: i64, m: i64| ((a % m) + m) % m;
    match mode {
        AddressMode::Repeat => Some(modulo(i, size)),
        AddressMode::MirroredRepeat => Some((size - 1) - mirror(modulo(i, 2 * size) - size)),
        AddressMode::ClampToEdge => Some(i.max(0).min(size - 1)),
        AddressMode::ClampToBorder => {
            let c = i.max(-1).min(size);
            if c == -1 || c == size {
                None
            } else {
                Some(c)
            }
        }
        AddressMode::MirrorClampToEdge => Some(mirror(i).max(0).min(size - 1)),
    }
}

/// Sign-extend a `bits`-wide field.
fn signed(v: u32, bits: u32) -> i64 {
    let v = v as i64;
    if v >= 1 << (bits - 1) {
        v - (1 << bits)
    } else {
        v
    }
}

/// Decode one texel's raw fields to (R, G, B, A), filling missing components with (0, 0, 0, 1).
fn to_rgba(format: Format, raw: [u32; 4]) -> [Val; 4] {
    let n = format.components();
    let integer = format.is_integer();
    let mut out = [
        Val::F(0.0),
        Val::F(0.0),
        Val::F(0.0),
        if integer { Val::Bits(1) } else { Val::F(1.0) },
    ];
    if integer {
        out[0] = Val::Bits(0);
        out[1] = Val::Bits(0);
        out[2] = Val::Bits(0);
    }
    for (c, o) in out.iter_mut().enumerate().take(n) {
        let bits = format.field_bits(c);
        let v = raw[c];
        *o = match format.class(c) {
            Class::Unorm => Val::F(v as f64 / ((1u64 << bits) - 1) as f64),
            Class::Snorm => {
                Val::F((signed(v, bits) as f64 / ((1u64 << (bits - 1)) - 1) as f64).max(-1.0))
            }
            Class::Uint => Val::Bits(v),
            Class::Sint => Val::Bits(signed(v, bits) as i32 as u32),
            Class::Float => match bits {
                32 => Val::Bits(v),
                16 => Val::F(small_float(v, 10, true)),
                11 => Val::F(small_float(v, 6, false)),
                _ => Val::F(small_float(v, 5, false)),
            },
            Class::Srgb => {
                let c = v as f64 / 255.0;
                Val::F(if c <= 0.04045 {
                    c / 12.92
                } else {
                    ((c + 0.055) / 1.055).powf(2.4)
                })
            }
            Class::SharedExp => Val::F(v as f64 * 2f64.powi(raw[3] as i32 - 15 - 9)),
        };
    }
    out
}

/// A float with a 5-bit exponent (bias 15) and `m` mantissa bits, signed or not.
fn small_float(v: u32, m: u32, has_sign: bool) -> f64 {
    let sign = if has_sign && v >> (m + 5) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = (v >> m) & 31;
    let f = (v & ((1 << m) - 1)) as f64 / (1u32 << m) as f64;
    sign * match e {
        0 => 2f64.powi(-14) * f,
        31 if f == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => 2f64.powi(e as i32 - 15) * (1.0 + f),
    }
}

/// Apply one swizzle entry to a converted texel.
fn swizzled(src: Source, rgba: &[Val; 4], format: Format) -> Val {
    match src {
        Source::R => rgba[0],
        Source::G => rgba[1],
        Source::B => rgba[2],
        Source::A => rgba[3],
        Source::Zero => {
            if format.is_integer() {
                Val::Bits(0)
            } else {
                Val::F(0.0)
            }
        }
        Source::One => {
            if format.is_integer() {
                Val::Bits(1)
            } else {
                Val::F(1.0)
            }
        }
    }
}

/// The border colour as the format reads it, with (0, 0, 1) for missing components, unswizzled.
fn border_rgba(format: Format, words: [u32; 4]) -> [Val; 4] {
    let n = format.components();
    let integer = format.is_integer();
    std::array::from_fn(|c| {
        if c < n {
            Val::Bits(words[c])
        } else if c == 3 {
            if integer {
                Val::Bits(1)
            } else {
                Val::F(1.0)
            }
        } else if integer {
            Val::Bits(0)
        } else {
            Val::F(0.0)
        }
    })
}

/// 1.0 where `dref OP d` holds, else 0.0.
fn compared(op: CompareOp, dref: f64, d: f64) -> Val {
    let holds = match op {
        CompareOp::Never => false,
        CompareOp::Less => dref < d,
        CompareOp::Equal => dref == d,
        CompareOp::LessOrEqual => dref <= d,
        CompareOp::Greater => dref > d,
        CompareOp::NotEqual => dref != d,
        CompareOp::GreaterOrEqual => dref >= d,
        CompareOp::Always => true,
    };
    Val::F(if holds { 1.0 } else { 0.0 })
}
