//! Cube maps: face selection and projection, and where a footprint texel that falls off a
//! face lands on its neighbour (seamless edges).
//!
//! Face numbers are the storage order: 0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z.

/// Face selection and projection, Vulkan "Cube Map Face Selection and Transformations":
/// the major axis is the coordinate of largest magnitude, with ties going z, then y, then x
/// (lavapipe, docs/sources.md; unmeasured on NVIDIA); a major axis of +0.0 or -0.0 counts as positive
/// (guess, only reachable with a zero vector). Returns (face, s, t) with
/// s = (sc / |ma| + 1) / 2 and t = (tc / |ma| + 1) / 2, evaluated in f64 with a true division
/// (guess: the hardware's internal precision is unknown). Coordinates need not be normalized
/// (docs/sources.md, Decisions).
#[inline]
pub fn project(x: f32, y: f32, z: f32) -> (u32, f64, f64) {
    let (x, y, z) = (x as f64, y as f64, z as f64);
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if az >= ax && az >= ay {
        if z >= 0.0 {
            (4, x, -y, az)
        } else {
            (5, -x, -y, az)
        }
    } else if ay >= ax {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if x >= 0.0 {
        (0, -z, -y, ax)
    } else {
        (1, z, -y, ax)
    };
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// [`project`] written with selects instead of branches, for the lane-parallel pipeline
/// (every lane computes every candidate; the compiler turns the choices into blends). The
/// magnitudes, comparisons and choices are made in f32 (8 lanes a 256-bit register instead
/// of 4): widening f32 to f64 is exact and keeps the order, the sign and which values are
/// NaN, and `abs` and negation only touch the sign bit, so every comparison has the same
/// outcome and the chosen sc, tc and ma widen to the very f64 values [`project`] chooses;
/// the division chain is then the same f64 operations. The results are bit-identical to
/// [`project`] for every input, NaN and signed zeros included (the tests
/// `select_projection_is_bit_identical*` check special values, magnitude ties and random
/// inputs).
#[inline(always)]
pub fn project_select(x: f32, y: f32, z: f32) -> (u32, f64, f64) {
    let (face, sc, tc, ma) = select_axes(x, y, z);
    let (s, t) = divide_axes(sc, tc, ma);
    (face, s, t)
}

/// The first half of [`project_select`]: the face and its (sc, tc, |ma|), all f32 (kept
/// apart so a lane loop runs it 8 lanes a 256-bit register, and the f64 half 4).
#[inline(always)]
pub fn select_axes(x: f32, y: f32, z: f32) -> (u32, f32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let zmaj = az >= ax && az >= ay;
    let ymaj = ay >= ax;
    let (zp, yp, xp) = (z >= 0.0, y >= 0.0, x >= 0.0);
    let pick = |c: bool, a: f32, b: f32| if c { a } else { b };
    let pick_u = |c: bool, a: u32, b: u32| if c { a } else { b };
    let face = pick_u(
        zmaj,
        pick_u(zp, 4, 5),
        pick_u(ymaj, pick_u(yp, 2, 3), pick_u(xp, 0, 1)),
    );
    let sc = pick(zmaj, pick(zp, x, -x), pick(ymaj, x, pick(xp, -z, z)));
    let tc = pick(zmaj, -y, pick(ymaj, pick(yp, z, -z), -y));
    let ma = pick(zmaj, az, pick(ymaj, ay, ax));
    (face, sc, tc, ma)
}

/// The second half of [`project_select`]: s = (sc / |ma| + 1) / 2 and t likewise, widened
/// to f64 (exactly) and evaluated in f64 as [`project`] does.
#[inline(always)]
pub fn divide_axes(sc: f32, tc: f32, ma: f32) -> (f64, f64) {
    let (sc, tc, ma) = (sc as f64, tc as f64, ma as f64);
    ((sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// The cube kernel's f32 stand-in for [`divide_axes`] followed by the scale to fixed-point
/// units: y = fl32(fl32(fl32(sc / ma) + 1) * half), where half = size * 2^bits / 2 (exact in
/// f32). Not bit-identical to the f64 chain x = fl64(fl64(fl64(sc / ma) + 1) * half) that
/// [`project`] and the precision model compute, but provably close to it (error analysis of
/// the three roundings; the tests `f32_projection_brackets_the_f64_chain*` check it): with
/// |sc| <= ma, which [`select_axes`] guarantees, q = sc / ma lies in [-1, 1] and q + 1 in
/// [0, 2], so each f32 rounding moves its result by at most 2^-24 of it: the quotient by at
/// most 2^-24 (times half after the scale), the sum by 2 * 2^-24, the product by
/// 2 * 2^-24 * half. Hence |y - e| <= 5 * 2^-24 * half for the exact e = (sc / ma + 1) *
/// half, |x - e| <= 5 * 2^-53 * half the same way, and |x - y| < 6 * 2^-24 * half. NaN (a
/// zero vector, NaN coordinates) stays NaN in both.
#[inline(always)]
pub fn scaled_f32(sc: f32, ma: f32, half: f32) -> f32 {
    (sc / ma + 1.0) * half
}

/// The half-width of the interval around [`scaled_f32`]'s y that holds the f64 chain's x:
/// delta = 2^-20 * half = 16 * 2^-24 * half, so fl32(y - delta) <= x <= fl32(y + delta). The
/// slack delta - 6 * 2^-24 * half = 10 * 2^-24 * half covers the rounding of y +- delta: both
/// are below 4 * half in magnitude, where half an f32 ulp is at most 4 * 2^-24 * half.
#[inline]
pub fn scaled_f32_bracket(half: f32) -> f32 {
    half / (1u32 << 20) as f32
}

/// How a coordinate on the neighbouring face is formed from the along-edge index k.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Along {
    /// 0.
    First,
    /// size - 1.
    Last,
    /// k.
    Same,
    /// size - 1 - k.
    Flipped,
}

use Along::*;

/// For each face and each edge (0: i < 0, 1: i >= size, 2: j < 0, 3: j >= size): the
/// neighbouring face and how its (i, j) come from the along-edge index k (j for edges 0 and 1,
/// i for edges 2 and 3). Derived by hand from the face table of Vulkan "Cube Map Face
/// Selection": the texel's centre, continued past the edge, projects onto the neighbour's
/// edge row or column at the same distance along the shared edge. A test checks every entry
/// against `reference`'s geometric projection.
const EDGES: [[(u32, Along, Along); 4]; 6] = [
    // +X
    [
        (4, Last, Same),
        (5, First, Same),
        (2, Last, Flipped),
        (3, Last, Same),
    ],
    // -X
    [
        (5, Last, Same),
        (4, First, Same),
        (2, First, Same),
        (3, First, Flipped),
    ],
    // +Y
    [
        (1, Same, First),
        (0, Flipped, First),
        (5, Flipped, First),
        (4, Same, First),
    ],
    // -Y
    [
        (1, Flipped, Last),
        (0, Same, Last),
        (4, Same, Last),
        (5, Flipped, Last),
    ],
    // +Z
    [
        (1, Last, Same),
        (0, First, Same),
        (2, Same, Last),
        (3, Same, First),
    ],
    // -Z
    [
        (0, Last, Same),
        (1, First, Same),
        (2, Flipped, First),
        (3, Flipped, Last),
    ],
];

/// [`EDGES`] as numbers, so that the seamless rule picks a coordinate by arithmetic, not by a
/// jump per coordinate: (neighbour, then for i and for j: 1 where the coordinate counts from
/// size - 1, and the step it takes with k: First (0, 0), Last (1, 0), Same (0, 1),
/// Flipped (1, -1)).
const EDGE_STEPS: [[[i8; 5]; 4]; 6] = {
    const fn steps(a: Along) -> [i8; 2] {
        match a {
            First => [0, 0],
            Last => [1, 0],
            Same => [0, 1],
            Flipped => [1, -1],
        }
    }
    let mut out = [[[0i8; 5]; 4]; 6];
    let mut f = 0;
    while f < 6 {
        let mut e = 0;
        while e < 4 {
            let (nf, ai, aj) = EDGES[f][e];
            let ([end_i, step_i], [end_j, step_j]) = (steps(ai), steps(aj));
            out[f][e] = [nf as i8, end_i, step_i, end_j, step_j];
            e += 1;
        }
        f += 1;
    }
    out
};

/// Where texel (i, j) of `face` (size x size) is read from under seamless addressing (Vulkan
/// "Cube Map Edge Handling"): on the face itself, on the neighbouring face across one edge,
/// or nowhere (a corner, both i and j off the face). Only which side of the face an
/// off-face coordinate lies on matters: (-5, j) reads what (-1, j) reads.
#[inline]
pub fn seamless_texel(face: u32, i: i64, j: i64, size: i64) -> Option<(u32, i64, i64)> {
    let i_in = (0..size).contains(&i);
    let j_in = (0..size).contains(&j);
    if i_in && j_in {
        return Some((face, i, j));
    }
    if !i_in && !j_in {
        return None;
    }
    let (edge, k) = if !i_in {
        (if i < 0 { 0 } else { 1 }, j)
    } else {
        (if j < 0 { 2 } else { 3 }, i)
    };
    Some(across(face, edge, k, size))
}

/// Where a texel past edge `edge` of `face` (0: i < 0, 1: i >= size, 2: j < 0, 3: j >= size),
/// `k` along that edge (its j for edges 0 and 1, its i for 2 and 3, in 0..size), is read
/// from under seamless addressing: the neighbouring face and the texel on it ([`EDGES`]).
/// [`seamless_texel`]'s rule for a texel past one edge, for a caller that knows the edge.
#[inline]
pub(crate) fn across(face: u32, edge: usize, k: i64, size: i64) -> (u32, i64, i64) {
    let [nf, end_i, step_i, end_j, step_j] = EDGE_STEPS[(face % 6) as usize][edge & 3];
    let last = size - 1;
    let pick = |end: i8, step: i8| i64::from(end) * last + i64::from(step) * k;
    (nf as u32, pick(end_i, step_i), pick(end_j, step_j))
}
