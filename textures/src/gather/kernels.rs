//! The lane-parallel kernels: a warp's 32 lanes at once through address -> footprint ->
//! wrap -> fetch -> convert -> compare, each step one loop over the 32 lanes (no branch
//! inside a loop, 32-bit integers), which the compiler vectorizes 8 (or 4 for f64) lanes at
//! a time. Every lane is computed, in range or not (a lane outside the range reads whatever
//! its queries hold, harmlessly); only the range's lanes are stored. The texel loads of the
//! whole warp issue back to back, so their cache misses overlap.
//!
//! 32 bits are exact where [`Quantizer::origins32`](crate::stages::Quantizer::origins32)
//! accepts a lane (|u * 2^bits| < 2^28) and the texture is small enough for its texel
//! indices and wrap periods ([`Gatherer::lanes32`]; the lane-parallel path is not taken
//! otherwise): then every step computes what the per-lane path computes in i64. The cube
//! kernel projects in f32 where the texture allows and vouches for an origin only where a
//! proven bracket around the f64 projection holds no change of origin (`cube_origins`). A
//! lane outside that range (NaN, infinities, huge coordinates), or whose origin the cube
//! kernel cannot vouch for, is computed again by the
//! per-lane path ([`Gatherer::fallback_lane`]), as is a seamless cube lane whose
//! footprint takes a corner of its face's apron (`crate::storage`: the cube kernel reads the
//! faces with the texels seamless addressing reads past each edge around them, so a
//! footprint crossing one edge is an ordinary 2x2 read); each overwrites what the kernel
//! stored for the lane. Faces read in place (textures in memory: no apron) place the texels
//! of a footprint crossing one edge, whose origin the kernel vouched for, by the
//! composition's seamless rule before the kernel reads them (`across_edge`). Every index the
//! kernel computes for a lane is still inside the texture (wrapped or clamped), and
//! [`Isa::load`] checks it anyway.

use std::marker::PhantomData;

use super::lanes::{range_bits, LaneQueries, LaneResults, Lanes, CHUNK, LANES};
use super::probe::{KernelTexels, LaneProbe};
use super::Gatherer;
use super::{Addr, Convert, OffsetMode};
use crate::cube;
use crate::lane::NON_RESIDENT;
use crate::placement::{Linear, Placement};
use crate::sampler::AddressMode;
use crate::simd::{footprint_index, Isa, Kernel};
use crate::stages::{array_layer, may_border, repeat_pow2, six};

/// A kernel array on whole cache lines, for the reason [`LaneQueries`] is (which also puts
/// the kernel's frame on whole lines).
#[repr(C, align(64))]
struct Aligned<T>(T);

/// Strides in elements, as u32 (`Gatherer::lanes32`: every index of the texture fits).
struct Strides {
    layer: u32,
    row: u32,
    texel: u32,
    element: u32,
}

impl Strides {
    /// A linear placement's strides, for element `element` of each texel.
    #[inline(always)]
    fn linear(p: &Linear, element: usize) -> Self {
        Strides {
            layer: p.layer as u32,
            row: p.row as u32,
            texel: p.texel as u32,
            element: element as u32,
        }
    }

    /// The storage index of element `element` of texel (x, y) of `layer` (wrapping
    /// arithmetic: within the texture nothing wraps, and no overflow check is compiled).
    #[inline(always)]
    fn index(&self, layer: u32, x: u32, y: u32) -> u32 {
        layer
            .wrapping_mul(self.layer)
            .wrapping_add(y.wrapping_mul(self.row))
            .wrapping_add(x.wrapping_mul(self.texel))
            .wrapping_add(self.element)
    }
}

/// The storage indices of element `element` of texels (`xs[t][k]`, `ys[t][k]`) of layer
/// `layer[k]`, by the gatherer's [`Placement`] (one loop per placement; negative
/// coordinates, border texels, read as 0). Wrapping u32 arithmetic: `Gatherer::lanes32`
/// makes every index of the texture fit.
#[inline(always)]
fn texel_indices(
    place: &Placement,
    element: usize,
    layer: &[u32; LANES],
    xs: &[[i32; LANES]; 4],
    ys: &[[i32; LANES]; 4],
) -> [[u32; LANES]; 4] {
    let mut index = [[0u32; LANES]; 4];
    match place {
        Placement::Linear(p) => {
            let s = Strides::linear(p, element);
            for t in 0..4 {
                for k in 0..LANES {
                    let (x, y) = (xs[t][k].max(0) as u32, ys[t][k].max(0) as u32);
                    index[t][k] = s.index(layer[k], x, y);
                }
            }
        }
        Placement::BlockLinear(b) => {
            let (stride, element) = (b.layer() as u32, element as u32);
            for t in 0..4 {
                for k in 0..LANES {
                    let (x, y) = (xs[t][k].max(0) as u32, ys[t][k].max(0) as u32);
                    index[t][k] = layer[k]
                        .wrapping_mul(stride)
                        .wrapping_add(b.row_part(y))
                        .wrapping_add(b.col_part(x))
                        .wrapping_add(element);
                }
            }
        }
    }
    index
}

/// The storage indices of element `element` of each lane's 2x2 footprint of columns
/// (`x0[k]`, `x1[k]`) and rows (`y0[k]`, `y1[k]`) on layer `layer[k]`, in gather order
/// ((x0, y1), (x1, y1), (x1, y0), (x0, y0)): what [`texel_indices`] computes for those
/// texels, with each column's and row's part computed once (two a lane, not four).
#[inline(always)]
fn footprint_indices(
    place: &Placement,
    element: usize,
    layer: &[u32; LANES],
    [x0, x1]: [&[i32; LANES]; 2],
    [y0, y1]: [&[i32; LANES]; 2],
) -> [[u32; LANES]; 4] {
    let mut index = [[0u32; LANES]; 4];
    let at = |v: &[i32; LANES], k: usize| v[k].max(0) as u32;
    match place {
        Placement::Linear(p) => {
            let s = Strides::linear(p, element);
            for k in 0..LANES {
                let base = s.index(layer[k], 0, 0);
                let cols = [at(x0, k), at(x1, k)].map(|x| x.wrapping_mul(s.texel));
                let rows = [at(y0, k), at(y1, k)].map(|y| y.wrapping_mul(s.row));
                for (t, i) in footprint_parts(base, cols, rows).into_iter().enumerate() {
                    index[t][k] = i;
                }
            }
        }
        Placement::BlockLinear(b) => {
            let (stride, element) = (b.layer() as u32, element as u32);
            for k in 0..LANES {
                let base = layer[k].wrapping_mul(stride).wrapping_add(element);
                let cols = [at(x0, k), at(x1, k)].map(|x| b.col_part(x));
                let rows = [at(y0, k), at(y1, k)].map(|y| b.row_part(y));
                for (t, i) in footprint_parts(base, cols, rows).into_iter().enumerate() {
                    index[t][k] = i;
                }
            }
        }
    }
    index
}

/// The storage indices of element `element` of each lane's footprint on its face of the
/// in-place cube kernel ([`direct_faces`]; layer `layer[k]`), from its origin (`i0[k]`,
/// `j0[k]`), in gather order: [`footprint_indices`] of the columns min(i0, n - 1) and, where
/// i0 < n - 1 (unsigned: not -1), i0 + 1, else 0, and the rows likewise from j0. Those
/// second columns and rows differ from the planar kernels' clamp only for lanes the kernel
/// redoes or whose texels there it places across the edge (i0 = -1 reads column 0 on the
/// face, the footprint's next column, in both). Block-linear: the next column's part by a
/// carry through the swizzled bits of the first's ([`BlockLinear::col_part_next`]), not
/// computed afresh (the rows' by a carry too measured slower: docs/benchmarks.md).
///
/// [`BlockLinear::col_part_next`]: crate::placement::BlockLinear::col_part_next
#[inline(always)]
fn face_footprint_indices(
    place: &Placement,
    element: usize,
    n: u32,
    layer: &[u32; LANES],
    [i0, j0]: [&[i32; LANES]; 2],
) -> [[u32; LANES]; 4] {
    let mut index = [[0u32; LANES]; 4];
    let last = n - 1;
    // all ones where `b`, else 0
    let ones = |b: bool| 0u32.wrapping_sub(b as u32);
    match place {
        Placement::Linear(p) => {
            let s = Strides::linear(p, element);
            for k in 0..LANES {
                let (i, j) = (i0[k] as u32, j0[k] as u32);
                let base = s.index(layer[k], 0, 0);
                let next = |v: u32| v.wrapping_add(1) & ones(v < last);
                let cols = [i.min(last), next(i)].map(|x| x.wrapping_mul(s.texel));
                let rows = [j.min(last), next(j)].map(|y| y.wrapping_mul(s.row));
                for (t, i) in footprint_parts(base, cols, rows).into_iter().enumerate() {
                    index[t][k] = i;
                }
            }
        }
        Placement::BlockLinear(b) if b.one_block_row(n) => {
            // every row of the face in the first row of blocks: rows and columns by masks and
            // shifts (every row read is below n; the next row by a carry, as the next column
            // is, took more instructions: docs/benchmarks.md)
            let (stride, element) = (b.layer() as u32, element as u32);
            for k in 0..LANES {
                let (i, j) = (i0[k] as u32, j0[k] as u32);
                let base = layer[k].wrapping_mul(stride).wrapping_add(element);
                let (more_i, more_j) = (ones(i < last), ones(j < last));
                let c0 = b.col_part_by_shifts(i.min(last));
                let cols = [c0, b.col_part_next(c0) & more_i];
                let rows = [j.min(last), j.wrapping_add(1) & more_j].map(|y| b.row_in_block(y));
                for (t, i) in footprint_parts(base, cols, rows).into_iter().enumerate() {
                    index[t][k] = i;
                }
            }
        }
        Placement::BlockLinear(b) => {
            let (stride, element) = (b.layer() as u32, element as u32);
            for k in 0..LANES {
                let (i, j) = (i0[k] as u32, j0[k] as u32);
                let base = layer[k].wrapping_mul(stride).wrapping_add(element);
                // all ones where the next column (row) is the origin's + 1, else 0 (column
                // or row 0)
                let (more_i, more_j) = (ones(i < last), ones(j < last));
                let c0 = b.col_part(i.min(last));
                let cols = [c0, b.col_part_next(c0) & more_i];
                let rows = [j.min(last), j.wrapping_add(1) & more_j].map(|y| b.row_part(y));
                for (t, i) in footprint_parts(base, cols, rows).into_iter().enumerate() {
                    index[t][k] = i;
                }
            }
        }
    }
    index
}

/// A footprint's four storage indices in gather order, from its base, its columns' parts
/// (x0, x1) and its rows' parts (y0, y1).
#[inline(always)]
fn footprint_parts(base: u32, [c0, c1]: [u32; 2], [r0, r1]: [u32; 2]) -> [u32; 4] {
    let [a, b] = [base.wrapping_add(r1), base.wrapping_add(r0)];
    [
        a.wrapping_add(c0),
        a.wrapping_add(c1),
        b.wrapping_add(c1),
        b.wrapping_add(c0),
    ]
}

/// Bit k set where `flags[k]` is negative (the kernels' flags are 0 or -1).
#[inline(always)]
fn lane_bits<I: Isa>(flags: &[i32; LANES]) -> u32 {
    let mut m = 0;
    for c in 0..LANES / CHUNK {
        let part: &[i32; CHUNK] = flags[c * CHUNK..(c + 1) * CHUNK]
            .try_into()
            .expect("a chunk of the warp");
        m |= I::mask8(part) << (c * CHUNK);
    }
    m
}

/// 2D and 2D array kinds.
pub(super) struct Planar<'a, 'g, 'o, 'p, T, C, A, P> {
    pub(super) l: Lanes<'a, 'g, T, C>,
    pub(super) out: &'o mut LaneResults,
    pub(super) probe: &'p mut P,
    pub(super) _a: PhantomData<A>,
}

/// The texel coordinates of a kernel that may read border texels (a negative coordinate).
#[derive(Clone, Copy)]
struct BorderCoords<'a> {
    xs: &'a [[i32; LANES]; 4],
    ys: &'a [[i32; LANES]; 4],
}

/// Reports the texels of the lanes of `lanes` to the probe (border texels where `border`
/// gives coordinates: a negative one), and `unreported` as such.
#[inline(always)]
fn report<P: LaneProbe>(
    probe: &mut P,
    lanes: u32,
    unreported: u32,
    index: &[[u32; LANES]; 4],
    border: Option<BorderCoords<'_>>,
    element: usize,
) {
    if !probe.watching() {
        return;
    }
    let mut real = [[false; LANES]; 4];
    if let Some(BorderCoords { xs, ys }) = border {
        for t in 0..4 {
            for k in 0..LANES {
                real[t][k] = xs[t][k] >= 0 && ys[t][k] >= 0;
            }
        }
    }
    probe.texels(&KernelTexels {
        lanes: lanes & !unreported,
        index,
        real: border.is_some().then_some(&real),
        element: element as u32,
    });
    if unreported != 0 {
        probe.unreported(unreported);
    }
}

impl<T: Copy + Into<u32>, C: Convert, A: Addr, P: LaneProbe> Kernel
    for Planar<'_, '_, '_, '_, T, C, A, P>
{
    /// address -> footprint -> wrap -> texel indices, then fetch -> convert -> border.
    #[inline(always)]
    fn run<I: Isa>(self) {
        let Planar { l, out, probe, .. } = self;
        let (g, q) = (l.g, l.q);
        // address and footprint origin (the precision model), and the storage layer
        let ([i0, j0], outside) = planar_origins(g, q);
        let mut layer = [0u32; LANES];
        for (l, &q) in layer.iter_mut().zip(&q.layer) {
            *l = array_layer(q, g.plan.max_layer);
        }
        // footprint and wrap
        let (w, h) = (g.plan.width as i32, g.plan.height as i32);
        let [au, av] = g.plan.address;
        // texel indices (border texels, -1, address texel 0 and are replaced after the fetch)
        let mut xs = [[0i32; LANES]; 4];
        let mut ys = [[0i32; LANES]; 4];
        let index = if g.plan.offsets == OffsetMode::Ptp {
            for t in 0..4 {
                for k in 0..LANES {
                    xs[t][k] = i0[k].wrapping_add(six(q.offsets[t][0][k]));
                    ys[t][k] = j0[k].wrapping_add(six(q.offsets[t][1][k]));
                }
                wrap_lanes::<A>(&mut xs[t], w, au);
                wrap_lanes::<A>(&mut ys[t], h, av);
            }
            texel_indices(&g.place, l.element, &layer, &xs, &ys)
        } else {
            let (mut i, mut j) = (i0, j0);
            if g.plan.offsets == OffsetMode::Aoffi {
                for k in 0..LANES {
                    i[k] = i[k].wrapping_add(six(q.offsets[0][0][k]));
                    j[k] = j[k].wrapping_add(six(q.offsets[0][1][k]));
                }
            }
            let (mut i1, mut j1) = (i, j);
            for k in 0..LANES {
                i1[k] = i1[k].wrapping_add(1);
                j1[k] = j1[k].wrapping_add(1);
            }
            let (mut x0, mut y0, mut x1, mut y1) = (i, j, i1, j1);
            wrap_lanes::<A>(&mut x0, w, au);
            wrap_lanes::<A>(&mut y0, h, av);
            wrap_lanes::<A>(&mut x1, w, au);
            wrap_lanes::<A>(&mut y1, h, av);
            xs = [x0, x1, x1, x0];
            ys = [y1, y1, y0, y0];
            footprint_indices(&g.place, l.element, &layer, [&x0, &x1], [&y0, &y1])
        };
        let borderless = A::BORDERLESS || !(may_border(au) || may_border(av));
        let range = range_bits(&l.range);
        let redone = lane_bits::<I>(&outside) & range;
        let border = (!borderless).then_some(BorderCoords { xs: &xs, ys: &ys });
        report(probe, range, redone, &index, border, l.element);
        if probe.addresses_only() {
            return;
        }
        let mut values = fetch_convert::<I, T, C>(&l, &index);
        if !borderless {
            replace_borders(&l, &mut values, |t, k| xs[t][k] >= 0 && ys[t][k] >= 0);
        }
        store(out, range, &values);
        redo(&l, redone, out);
    }
}

/// The planar kernel's footprint origins (i0, j0), and -1 for the lanes outside the 32-bit
/// range (0 for the others), which the caller takes the per-lane path for: (s, t) times
/// size * 2^bits in f32, 8 lanes a register, where the sizes are powers of two (the product
/// is then exact: [`Gatherer::planar_f32`]) and every lane's product is below 2^22 in
/// magnitude; else in f64, 4 lanes a register, which takes |x| up to 2^28.
#[inline(always)]
fn planar_origins(g: &Gatherer<'_>, q: &LaneQueries) -> ([[i32; LANES]; 2], [i32; LANES]) {
    let mut outside = [0i32; LANES];
    if let Some([su, sv]) = g.planar_f32 {
        let mut u = [0f32; LANES];
        let mut v = [0f32; LANES];
        for k in 0..LANES {
            u[k] = q.coords[0][k] * su;
            v[k] = q.coords[1][k] * sv;
        }
        let (i0, outside_u) = g.plan.quant.origins32_f32(&u);
        let (j0, outside_v) = g.plan.quant.origins32_f32(&v);
        let mut any = 0;
        for k in 0..LANES {
            any |= outside_u[k] | outside_v[k];
        }
        if any == 0 {
            return ([i0, j0], outside);
        }
    }
    let (i0, j0) = {
        let mut u = [0f64; LANES];
        let mut v = [0f64; LANES];
        for k in 0..LANES {
            u[k] = q.coords[0][k] as f64 * g.plan.scale[0];
            v[k] = q.coords[1][k] as f64 * g.plan.scale[1];
        }
        let (i0, outside_u) = g.plan.quant.origins32(&u);
        let (j0, outside_v) = g.plan.quant.origins32(&v);
        for k in 0..LANES {
            outside[k] = outside_u[k] | outside_v[k];
        }
        (i0, j0)
    };
    ([i0, j0], outside)
}

/// The border value in place of each texel that `real(t, k)` says is not read (texel `t`
/// of lane `k`, a border texel: its value is the sampler's border, through the lane's value
/// rule).
#[inline(always)]
pub(super) fn replace_borders<T, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    values: &mut [[u32; LANES]; 4],
    real: impl Fn(usize, usize) -> bool,
) {
    for (t, values) in values.iter_mut().enumerate() {
        for (k, v) in values.iter_mut().enumerate() {
            let b = l.conv.for_lane(l.q.dref[k]).border(l.g.border);
            *v = if real(t, k) { *v } else { b };
        }
    }
}

/// fetch -> convert of the four footprint texels of every lane.
#[inline(always)]
pub(super) fn fetch_convert<I: Isa, T: Copy + Into<u32>, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    index: &[[u32; LANES]; 4],
) -> [[u32; LANES]; 4] {
    let mut raw = Aligned([[0u32; LANES]; 4]);
    I::load(l.d, index, &mut raw.0);
    convert_raw(l, &raw.0)
}

/// convert -> compare of the four footprint texels of every lane, as loaded.
#[inline(always)]
fn convert_raw<T, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    raw: &[[u32; LANES]; 4],
) -> [[u32; LANES]; 4] {
    if C::UNROLL {
        convert_lanes(l.conv, raw, &l.q.dref)
    } else {
        convert_lanes_outlined(l.conv, raw, &l.q.dref)
    }
}

/// convert (and compare) of the warp's texels.
#[inline(always)]
fn convert_lanes<C: Convert>(
    conv: C,
    raw: &[[u32; LANES]; 4],
    dref: &[f32; LANES],
) -> [[u32; LANES]; 4] {
    conv.convert_warp(raw, dref)
}

/// [`convert_lanes`] out of line, for the rules that are not unrolled ([`Convert::UNROLL`]).
#[inline(never)]
fn convert_lanes_outlined<C: Convert>(
    conv: C,
    raw: &[[u32; LANES]; 4],
    dref: &[f32; LANES],
) -> [[u32; LANES]; 4] {
    convert_lanes(conv, raw, dref)
}

/// Writes the lanes of `range` (bits) of `out`.
#[inline(always)]
pub(super) fn store(out: &mut LaneResults, range: u32, values: &[[u32; LANES]; 4]) {
    for (slot, texel) in out.values.iter_mut().zip(values) {
        if range == u32::MAX {
            *slot = *texel;
        } else {
            for (k, (o, v)) in slot.iter_mut().zip(texel).enumerate() {
                let keep = range >> k & 1 == 0;
                *o = if keep { *o } else { *v };
            }
        }
    }
}

/// The lanes of `redo` by the per-lane path.
#[inline(always)]
pub(super) fn redo<T: Copy + Into<u32>, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    redo: u32,
    out: &mut LaneResults,
) {
    let mut m = redo;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        let q = l.q.get_unchecked(lane);
        // (the faces with their apron are not what the per-lane path reads: the gatherer's
        // own texels are; every other kernel reads the per-lane path's texels, which a
        // detached gatherer's are not)
        let r = if l.g.cube.is_some() {
            l.g.fallback_lane(&q)
        } else {
            let mut r = [NON_RESIDENT];
            l.g.compose_lanes_apart(l.d, l.element, l.conv, std::slice::from_ref(&q), &mut r);
            r[0]
        };
        out.set(lane, &r);
    }
}

/// [`wrap`](super::wrap) of the warp's lanes in place, with one address mode (-1 for a
/// border texel), the mode dispatched once outside the lane loop.
#[inline(always)]
fn wrap_lanes<A: Addr>(i: &mut [i32; LANES], size: i32, mode: AddressMode) {
    #[inline(always)]
    fn each<A: Addr>(i: &mut [i32; LANES], size: i32, mode: AddressMode) {
        for v in i.iter_mut() {
            *v = A::wrap(*v, size, mode);
        }
    }
    if A::BORDERLESS {
        return each::<A>(i, size, mode);
    }
    // AnyMode: a literal mode per arm, so each loop is specialized.
    match mode {
        AddressMode::ClampToEdge => each::<A>(i, size, AddressMode::ClampToEdge),
        // the power-of-two test hoisted out of the lane loop (a vectorized loop would
        // otherwise compute the division of every lane)
        AddressMode::Repeat if size & (size - 1) == 0 => {
            for v in i.iter_mut() {
                *v = repeat_pow2(*v, size);
            }
        }
        AddressMode::Repeat => each::<A>(i, size, AddressMode::Repeat),
        AddressMode::MirroredRepeat => each::<A>(i, size, AddressMode::MirroredRepeat),
        AddressMode::ClampToBorder => each::<A>(i, size, AddressMode::ClampToBorder),
        AddressMode::MirrorClampToEdge => each::<A>(i, size, AddressMode::MirrorClampToEdge),
    }
}

/// Cube kinds with seamless edges, over the faces with their apron (`crate::storage`), or
/// in place.
pub(super) struct Cube<'a, 'g, 'o, 'p, T, C, P> {
    pub(super) l: Lanes<'a, 'g, T, C>,
    pub(super) out: &'o mut LaneResults,
    pub(super) probe: &'p mut P,
}

impl<T: Copy + Into<u32>, C: Convert, P: LaneProbe> Kernel for Cube<'_, '_, '_, '_, T, C, P> {
    /// Projection and face selection, footprint origin, the footprint's indices on the
    /// face's apron, fetch -> convert -> compare; then lanes whose footprint takes an apron
    /// corner (or that are outside the 32-bit range, or whose origin the f32 projection
    /// cannot vouch for) take the per-lane path.
    #[inline(always)]
    fn run<I: Isa>(self) {
        let Cube { l, out, probe } = self;
        let (g, q) = (l.g, l.q);
        let (face, [i0, j0], unsure) = cube_origins(g, &q.coords);
        let n = g.plan.width as u32;
        let per_cube = if g.plan.kind.is_array() { 6 } else { 0 };
        // `l.d` is the faces with their apron (`crate::storage`): face texel (x, y) at apron
        // position (x + 1, y + 1), (n + 2) x (n + 2) a face
        let m = n + 2;
        let s = Strides {
            layer: m * m * g.words as u32,
            row: m * g.words as u32,
            texel: g.words as u32,
            element: l.element as u32,
        };
        let mut redo_lane = [0i32; LANES];
        // the indices of (i0, j0) and (i0, j1)
        let mut rows = [[0u32; LANES]; 2];
        for k in 0..LANES {
            // the origin's apron position, (i + 1, j + 1): within the apron where both are
            // in 0..=n (a negative i + 1 reads as a huge unsigned value); a footprint with an
            // apron corner (past two edges: both positions 0 or n) has no texel there
            let (ai, aj) = (i0[k].wrapping_add(1) as u32, j0[k].wrapping_add(1) as u32);
            let in_apron = ai.max(aj) <= n;
            let at_edge = |a: u32| a.min(n.wrapping_sub(a));
            let corner = at_edge(ai).max(at_edge(aj)) == 0;
            redo_lane[k] = unsure[k] | -((!in_apron || corner) as i32);
            // (lanes redone: any in-range texel will do)
            let (x, y) = (ai.min(n), aj.min(n));
            let layer = array_layer(q.layer[k], g.plan.max_layer)
                .wrapping_mul(per_cube)
                .wrapping_add(face[k]);
            rows[0][k] = s.index(layer, x, y);
            rows[1][k] = rows[0][k].wrapping_add(s.row);
        }
        let values = if s.texel == 1 {
            // one-element texels: each row's two texels are adjacent
            let mut raw = Aligned([[0u32; LANES]; 4]);
            I::load_pairs(l.d, &rows, &mut raw.0);
            convert_raw(&l, &raw.0)
        } else {
            fetch_convert::<I, T, C>(&l, &footprint_index(&rows, s.texel))
        };
        let range = range_bits(&l.range);
        store(out, range, &values);
        // (the apron's positions are not the texture's: no texel is reported; owned
        // textures, the only ones with an apron, have no addresses)
        if probe.watching() {
            probe.unreported(range);
        }
        // lanes outside the 32-bit range, and footprints with a corner: the per-lane path
        redo(&l, lane_bits::<I>(&redo_lane) & range, out);
    }
}

/// Cube kinds with seamless edges, faces read in place (textures in memory, which have no
/// apron): a footprint inside its face is a plain 2x2 read through the gatherer's
/// [`Placement`]; one that crosses one edge takes the seamless rule from the kernel's face and
/// origin on (`across_edge`); one with a corner, like a lane whose origin is unsure, takes the
/// per-lane path. (A kernel of its own, so that the apron kernel compiles as it would alone.)
pub(super) struct CubeInPlace<'a, 'g, 'o, 'p, T, C, P> {
    pub(super) l: Lanes<'a, 'g, T, C>,
    pub(super) out: &'o mut LaneResults,
    pub(super) probe: &'p mut P,
}

impl<T: Copy + Into<u32>, C: Convert, P: LaneProbe> Kernel
    for CubeInPlace<'_, '_, '_, '_, T, C, P>
{
    #[inline(always)]
    fn run<I: Isa>(self) {
        let CubeInPlace { l, out, probe } = self;
        let (face, origins, unsure) = cube_origins(l.g, &l.q.coords);
        direct_faces::<I, T, C, P>(l, out, probe, &face, &origins, &unsure)
    }
}

/// The in-place cube kernel after the projection.
#[inline(always)]
fn direct_faces<I: Isa, T: Copy + Into<u32>, C: Convert, P: LaneProbe>(
    l: Lanes<'_, '_, T, C>,
    out: &mut LaneResults,
    probe: &mut P,
    face: &[u32; LANES],
    [i0, j0]: &[[i32; LANES]; 2],
    unsure: &[i32; LANES],
) {
    let (g, q) = (l.g, l.q);
    let n = g.plan.width as u32;
    let per_cube = if g.plan.kind.is_array() { 6 } else { 0 };
    let mut redo_lane = [0i32; LANES];
    let mut edge_lane = [0i32; LANES];
    let mut layer = [0u32; LANES];
    for k in 0..LANES {
        // inside the face where 0 <= i0 and i0 + 1 < n (a negative i0 reads as a huge
        // unsigned value), likewise j0; across an edge or at a corner where both are in
        // -1..n otherwise
        let (i, j) = (i0[k] as u32, j0[k] as u32);
        let inside = i.max(j) < n - 1;
        let near = i.wrapping_add(1).max(j.wrapping_add(1)) <= n;
        // (flags by bitwise operations on `unsure`'s 0 or -1: `||` and `&&` here compiled to
        // conditional writes, masked stores, which cost the memory cube array about 12% of
        // its time on Zen 4)
        redo_lane[k] = unsure[k] | -(!inside as i32);
        edge_lane[k] = !unsure[k] & -((!inside & near) as i32);
        layer[k] = array_layer(q.layer[k], g.plan.max_layer)
            .wrapping_mul(per_cube)
            .wrapping_add(face[k]);
    }
    // the footprint's columns and rows on the face (`face_footprint_indices`): the texels on
    // the face of a footprint across an edge are read where they are (i0 = -1 reads column
    // 0), those off it are placed below; for lanes redone, any texel of the face will do
    let mut index = face_footprint_indices(&g.place, l.element, n, &layer, [i0, j0]);
    let range = range_bits(&l.range);
    // footprints across one edge: the storage indices of their texels off the face, then
    // read as any other lane's
    let mut edges = 0;
    let mut m = lane_bits::<I>(&edge_lane) & range;
    while m != 0 {
        let k = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        let lane = EdgeLane {
            face: face[k],
            cube_base: layer[k].wrapping_sub(face[k]),
            i0: i0[k],
            j0: j0[k],
        };
        if let Some(off) = across_edge(g, lane, l.element) {
            edges |= 1 << k;
            for OffFace { t, index: i } in off {
                index[t & 3][k] = i;
            }
        }
    }
    let redone = lane_bits::<I>(&redo_lane) & range & !edges;
    // (a cube face has no border: every texel of a footprint on the faces is read)
    report(probe, range, redone, &index, None, l.element);
    if probe.addresses_only() {
        return;
    }
    let values = fetch_convert::<I, T, C>(&l, &index);
    store(out, range, &values);
    // unsure lanes, lanes outside the 32-bit range and footprints with a corner: the
    // per-lane path
    redo(&l, redone, out);
}

/// A lane of the in-place cube kernel whose footprint leaves its face: its face, the first
/// storage layer of its cube, and its footprint origin, which the kernel vouches for.
#[derive(Clone, Copy)]
struct EdgeLane {
    face: u32,
    cube_base: u32,
    i0: i32,
    j0: i32,
}

/// A footprint texel off its lane's face: its place in gather order and its storage index.
#[derive(Clone, Copy)]
struct OffFace {
    t: usize,
    index: u32,
}

/// A lane of the in-place cube kernel whose footprint (origin in -1..n, vouched for by
/// [`cube_origins`]: then it is the per-lane composition's) leaves its face across one edge:
/// the two texels past the edge, placed by the composition's seamless rule
/// ([`cube::across`], the rule [`cube::seamless_texel`] applies past one edge), with the
/// storage index of element `element` of each; the kernel reads the other two on the face.
/// None for a footprint with a corner, which takes the per-lane path. (Inlined: out of
/// line, the call costs about 30 instructions an edge lane, 1.7 a lane gather in
/// `stream_bench`'s cube array.)
#[inline(always)]
fn across_edge(g: &Gatherer<'_>, lane: EdgeLane, element: usize) -> Option<[OffFace; 2]> {
    let EdgeLane {
        face,
        cube_base,
        i0,
        j0,
    } = lane;
    let n = g.plan.width;
    let (i0, j0) = (i64::from(i0), i64::from(j0));
    let (i1, j1) = (i0 + 1, j0 + 1);
    let off_i = i0 < 0 || i1 >= n;
    let off_j = j0 < 0 || j1 >= n;
    if off_i == off_j {
        // a corner (past two edges)
        return None;
    }
    // the edge crossed (cube::across's numbering), the footprint's two texels past it (gather
    // order: (i0, j1), (i1, j1), (i1, j0), (i0, j0)) and their coordinates along the edge
    let (edge, ts, along) = if i0 < 0 {
        (0, [0, 3], [j1, j0])
    } else if i1 >= n {
        (1, [1, 2], [j1, j0])
    } else if j0 < 0 {
        (2, [2, 3], [i1, i0])
    } else {
        (3, [0, 1], [i0, i1])
    };
    let texel = |t: usize, k: i64| {
        let (f, x, y) = cube::across(face, edge, k, n);
        OffFace {
            t,
            index: g.place.index32(cube_base + f, x as u32, y as u32, element),
        }
    };
    Some([texel(ts[0], along[0]), texel(ts[1], along[1])])
}

/// The cube kernel's projection, face selection and footprint origins: the face of each
/// lane, its origins (i0, j0), and -1 for the lanes whose origins this cannot vouch for
/// (0 for the others), which the caller takes the per-lane path for. The face choice runs in
/// f32, 8 lanes a 256-bit register; the division chain in f32 too where the texture allows
/// ([`Gatherer::cube_f32`]): its y is within a proven bracket of the f64 chain's x
/// ([`cube::scaled_f32_bracket`]), and a lane whose bracket straddles a change of origin
/// (near one in 2^19 / size) is left unsure. Otherwise the chain runs in f64, 4 lanes a
/// register, as [`cube::project_select`] does.
#[inline(always)]
fn cube_origins<const N: usize>(
    g: &Gatherer<'_>,
    coords: &[[f32; N]; 3],
) -> ([u32; N], [[i32; N]; 2], [i32; N]) {
    let mut face = [0u32; N];
    let mut axes = [[0f32; N]; 3];
    for k in 0..N {
        let (f, sc, tc, ma) = cube::select_axes(coords[0][k], coords[1][k], coords[2][k]);
        face[k] = f;
        axes[0][k] = sc;
        axes[1][k] = tc;
        axes[2][k] = ma;
    }
    let mut unsure = [0i32; N];
    let origins = if let Some(p) = g.cube_f32 {
        let mut ys = [[0f32; N]; 2];
        for k in 0..N {
            ys[0][k] = cube::scaled_f32(axes[0][k], axes[2][k], p.half);
            ys[1][k] = cube::scaled_f32(axes[1][k], axes[2][k], p.half);
        }
        let (i0, unsure_u) = g.plan.quant.origins_bracketed(&ys[0], p.bracket);
        let (j0, unsure_v) = g.plan.quant.origins_bracketed(&ys[1], p.bracket);
        for k in 0..N {
            unsure[k] = unsure_u[k] | unsure_v[k];
        }
        [i0, j0]
    } else {
        let mut u = [0f64; N];
        let mut v = [0f64; N];
        for k in 0..N {
            let (s, t) = cube::divide_axes(axes[0][k], axes[1][k], axes[2][k]);
            u[k] = s * g.plan.scale[0];
            v[k] = t * g.plan.scale[1];
        }
        let (i0, outside_u) = g.plan.quant.origins32(&u);
        let (j0, outside_v) = g.plan.quant.origins32(&v);
        for k in 0..N {
            unsure[k] = outside_u[k] | outside_v[k];
        }
        [i0, j0]
    };
    (face, origins, unsure)
}
