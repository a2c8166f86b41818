//! The CTS's error bounds, written from the rules of VK-GL-CTS `framework/common/
//! tcuTexVerifierUtil.cpp`, `tcuTexLookupVerifier.cpp` and `tcuTexture.cpp` (docs/sources.md,
//! Conformance verdicts). Every bound is computed in f32, as the CTS computes it.

use tld4_textures::AddressMode;

/// The error of an f32 `value` known to `accurate_bits` mantissa bits: the bits below them
/// all ones, at the value's exponent (denormals and zero at the smallest normal exponent).
/// Follows `computeFloatingPointError` (tcuTexVerifierUtil.cpp).
pub fn float_error(value: f32, accurate_bits: u32) -> f32 {
    let bits = accurate_bits.min(23);
    let mask = ((1u32 << (23 - bits)) - 1) as f64;
    if !value.is_finite() {
        return f32::NAN;
    }
    let field = (value.to_bits() >> 23) & 0xff;
    let exponent = field.max(1) as i32 - 127;
    (mask * 2f64.powi(exponent - 23)) as f32
}

/// The error of a fixed-point number with `accurate_bits` fractional bits: [`float_error`]
/// at 1.0. Follows `computeFixedPointError` (tcuTexVerifierUtil.cpp).
pub fn fixed_error(accurate_bits: u32) -> f32 {
    float_error(1.0, accurate_bits)
}

/// The range of the unnormalized coordinate u = s * size (u = s for unnormalized
/// coordinates, `normalized` false) that a coordinate `coord` known to `coord_bits` bits may
/// reach once scaled and held in fixed point with `uvw_bits` fractional bits. Follows
/// `computeNonNormalizedCoordBounds` (tcuTexVerifierUtil.cpp).
pub fn unnormalized_bounds(
    normalized: bool,
    size: u32,
    coord: f32,
    coord_bits: u32,
    uvw_bits: u32,
) -> [f32; 2] {
    let err = float_error(coord, coord_bits);
    let scale = if normalized { size as f32 } else { 1.0 };
    let lo = (coord - err) * scale;
    let hi = (coord + err) * scale;
    [lo - fixed_error(uvw_bits), hi + fixed_error(uvw_bits)]
}

/// The footprint origins i0 = floor(u - 0.5) over a range of u, as the CTS bounds them
/// (`deFloorFloatToInt32(bound - 0.5f)` in `isGatherOffsetsResultValid` and its cube and
/// compare variants). None for a non-finite bound.
pub fn origin_range(bounds: [f32; 2]) -> Option<[i64; 2]> {
    let lo = (bounds[0] - 0.5).floor();
    let hi = (bounds[1] - 0.5).floor();
    if !lo.is_finite() || !hi.is_finite() {
        return None;
    }
    let limit = (1i64 << 40) as f32;
    Some([
        lo.clamp(-limit, limit) as i64,
        hi.clamp(-limit, limit) as i64,
    ])
}

/// The array layers a layer coordinate known to `coord_bits` bits may select, clamped to the
/// texture. Follows `computeLayerRange` (tcuTexLookupVerifier.cpp), used by the colour gathers.
pub fn layer_range(layers: u32, coord_bits: u32, layer: f32) -> Option<[u32; 2]> {
    let err = float_error(layer, coord_bits);
    let lo = (layer - err + 0.5).floor();
    let hi = (layer + err + 0.5).ceil() - 1.0;
    clamp_layers(lo, hi, layers)
}

/// The layers of a depth-compare gather on a 2D array: the layer's float error plus the
/// fixed-point error of `uvw_bits`, each end rounded by floor(z + 0.5). Follows
/// `isGatherOffsetsCompareResultValid` for Texture2DArrayView (tcuTexCompareVerifier.cpp).
pub fn compare_layer_range(
    layers: u32,
    coord_bits: u32,
    uvw_bits: u32,
    layer: f32,
) -> Option<[u32; 2]> {
    let err = float_error(layer, coord_bits) + fixed_error(uvw_bits);
    let lo = (layer - err + 0.5).floor();
    let hi = (layer + err + 0.5).floor();
    clamp_layers(lo, hi, layers)
}

fn clamp_layers(lo: f32, hi: f32, layers: u32) -> Option<[u32; 2]> {
    if !lo.is_finite() || !hi.is_finite() {
        return None;
    }
    let last = layers.saturating_sub(1) as f32;
    Some([lo.clamp(0.0, last) as u32, hi.clamp(0.0, last) as u32])
}

/// A cube face in the CTS's numbering (-X, +X, -Y, +Y, -Z, +Z: `tcu::CubeFace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CtsFace {
    /// -X
    NegX,
    /// +X
    PosX,
    /// -Y
    NegY,
    /// +Y
    PosY,
    /// -Z
    NegZ,
    /// +Z
    PosZ,
}

impl CtsFace {
    /// tld4's storage face number (0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z: `tld4_textures::cube`).
    pub fn storage(self) -> u32 {
        match self {
            CtsFace::PosX => 0,
            CtsFace::NegX => 1,
            CtsFace::PosY => 2,
            CtsFace::NegY => 3,
            CtsFace::PosZ => 4,
            CtsFace::NegZ => 5,
        }
    }
}

/// The faces a direction known to `bits` bits a component may select: the major axis's
/// faces where one magnitude clearly dominates (both signs where the major coordinate is
/// within its error of 0), else every face whose axis is not within its error of 0.
/// Follows `getPossibleCubeFaces` (tcuTexVerifierUtil.cpp).
pub fn possible_faces(c: [f32; 3], bits: [u32; 3]) -> Vec<CtsFace> {
    let [x, y, z] = c;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let ex = float_error(x, bits[0]);
    let ey = float_error(y, bits[1]);
    let ez = float_error(z, bits[2]);
    let mut faces = Vec::new();
    let mut pair = |v: f32, e: f32, pos: CtsFace, neg: CtsFace| {
        if v >= e {
            faces.push(pos);
        }
        if v <= e {
            faces.push(neg);
        }
    };
    if ay + ey < ax - ex && az + ez < ax - ex {
        pair(x, ex, CtsFace::PosX, CtsFace::NegX);
    } else if ax + ex < ay - ey && az + ez < ay - ey {
        pair(y, ey, CtsFace::PosY, CtsFace::NegY);
    } else if ax + ex < az - ez && ay + ey < az - ez {
        pair(z, ez, CtsFace::PosZ, CtsFace::NegZ);
    } else {
        if ax > ex {
            faces.extend([CtsFace::NegX, CtsFace::PosX]);
        }
        if ay > ey {
            faces.extend([CtsFace::NegY, CtsFace::PosY]);
        }
        if az > ez {
            faces.extend([CtsFace::NegZ, CtsFace::PosZ]);
        }
    }
    faces
}

/// (s, t) of a direction on a given face, in f32: ((sc / ma) + 1) / 2 with the face's sc, tc
/// and ma (Vulkan's table), and (0, 0) where |ma| < FLT_EPSILON. Follows `projectToFace`
/// (tcuTexture.cpp).
pub fn project_to_face(face: CtsFace, c: [f32; 3]) -> [f32; 2] {
    let [x, y, z] = c;
    let (sc, tc, ma) = match face {
        CtsFace::NegX => (z, -y, -x),
        CtsFace::PosX => (-z, -y, x),
        CtsFace::NegY => (x, -z, -y),
        CtsFace::PosY => (x, z, y),
        CtsFace::NegZ => (-x, -y, -z),
        CtsFace::PosZ => (x, -y, z),
    };
    if ma.abs() < f32::EPSILON {
        return [0.0, 0.0];
    }
    [((sc / ma) + 1.0) / 2.0, ((tc / ma) + 1.0) / 2.0]
}

/// Where texel (s, t) of `face` (size x size) is read under seamless edges: itself, the
/// neighbour across one edge, or None when both s and t are off the face (a corner, where the
/// CTS accepts any result). Follows `remapCubeEdgeCoords` (tcuTexture.cpp): the texel is
/// placed on the cube's integer lattice, then read from the face whose plane it lies in.
pub fn remap_cube_edge(face: CtsFace, s: i64, t: i64, size: i64) -> Option<(CtsFace, i64, i64)> {
    let s_in = (0..size).contains(&s);
    let t_in = (0..size).contains(&t);
    if s_in && t_in {
        return Some((face, s, t));
    }
    if !s_in && !t_in {
        return None;
    }
    let (u, v) = (s.clamp(-1, size), t.clamp(-1, size));
    let last = size - 1;
    // (x, y, z) on the lattice -1..=size of the cube's texels.
    let [x, y, z] = match face {
        CtsFace::NegX => [0, last - v, u],
        CtsFace::PosX => [last, last - v, last - u],
        CtsFace::NegY => [u, 0, last - v],
        CtsFace::PosY => [u, last, v],
        CtsFace::NegZ => [last - u, last - v, 0],
        CtsFace::PosZ => [u, last - v, last],
    };
    Some(if x == -1 {
        (CtsFace::NegX, z, last - y)
    } else if x == size {
        (CtsFace::PosX, last - z, last - y)
    } else if y == -1 {
        (CtsFace::NegY, x, last - z)
    } else if y == size {
        (CtsFace::PosY, x, z)
    } else if z == -1 {
        (CtsFace::NegZ, last - x, last - y)
    } else {
        (CtsFace::PosZ, x, last - y)
    })
}

/// One integer texel coordinate wrapped: Some(coordinate) inside, None for a border texel.
/// Follows `TexVerifierUtil::wrap` (tcuTexVerifierUtil.cpp) with its lookup's bounds test;
/// mirror-clamp-to-edge is the CTS's MIRRORED_ONCE.
pub fn wrap(mode: AddressMode, c: i64, size: i64) -> Option<i64> {
    let mirror = |a: i64| if a >= 0 { a } else { -(1 + a) };
    let mirrored = |c: i64| (size - 1) - mirror(c.rem_euclid(2 * size) - size);
    let w = match mode {
        AddressMode::ClampToBorder => c.clamp(-1, size),
        AddressMode::ClampToEdge => c.clamp(0, size - 1),
        AddressMode::Repeat => c.rem_euclid(size),
        AddressMode::MirrorClampToEdge => mirrored(c.clamp(-size, size)),
        AddressMode::MirroredRepeat => mirrored(c),
    };
    (0..size).contains(&w).then_some(w)
}

/// The origins worth trying in `range` along an axis of `size` texels: all of them, except
/// that a range longer than the address modes can tell apart is cut to the origins within
/// size + 70 texels of the texture and one period (2 * size) beyond each side the range
/// reaches past that (every mode is periodic in 2 * size or saturates within size + 64 of the
/// texture, offsets being at most 32 texels, so no distinct footprint is lost). A bound of
/// this port, not of the CTS (which walks the whole range).
pub fn origins(range: [i64; 2], size: i64) -> Vec<i64> {
    let k = 2 * size + 70;
    let [lo, hi] = range;
    if hi - lo <= 4 * k {
        return (lo..=hi).collect();
    }
    let mut out: Vec<i64> = (lo.max(-k)..=hi.min(k)).collect();
    if hi > k {
        let a = lo.max(k + 1);
        out.extend(a..=hi.min(a + 2 * size - 1));
    }
    if lo < -k {
        let b = hi.min(-k - 1);
        out.extend(lo.max(b - 2 * size + 1)..=b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FACES: [CtsFace; 6] = [
        CtsFace::NegX,
        CtsFace::PosX,
        CtsFace::NegY,
        CtsFace::PosY,
        CtsFace::NegZ,
        CtsFace::PosZ,
    ];

    /// The CTS's lattice rule and tld4's edge table (written from Vulkan's cube-edge rule)
    /// place every texel one step off a face's edge on the same texel.
    #[test]
    fn the_edge_remap_agrees_with_tld4s_seamless_rule() {
        for size in [1i64, 2, 3, 5] {
            for face in FACES {
                for a in -1..=size {
                    for b in -1..=size {
                        let cts =
                            remap_cube_edge(face, a, b, size).map(|(f, s, t)| (f.storage(), s, t));
                        let ours = tld4_textures::cube::seamless_texel(face.storage(), a, b, size);
                        assert_eq!(cts, ours, "size {size} face {face:?} ({a}, {b})");
                    }
                }
            }
        }
    }

    #[test]
    fn float_error_is_the_ulp_pattern_below_the_accurate_bits() {
        assert_eq!(
            fixed_error(7),
            ((1u32 << 16) - 1) as f32 / (1u32 << 23) as f32
        );
        assert_eq!(float_error(0.75, 20), 7.0 * 2f32.powi(-24));
        assert_eq!(float_error(0.0, 22), 2f32.powi(-149));
        assert!(float_error(f32::INFINITY, 20).is_nan());
    }

    #[test]
    fn layer_ranges_reach_both_neighbours_of_a_half() {
        assert_eq!(layer_range(4, 20, 1.5), Some([1, 2]));
        assert_eq!(layer_range(4, 20, 1.25), Some([1, 1]));
        assert_eq!(layer_range(4, 20, -3.0), Some([0, 0]));
        assert_eq!(layer_range(4, 20, 9.0), Some([3, 3]));
    }
}
