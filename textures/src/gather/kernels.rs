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
//! stored for the lane. Faces read in place (textures in memory: no apron) hand a footprint
//! crossing one edge, whose origin the kernel vouched for, to a shorter per-lane step
//! (`edge_lane`: the composition's seamless rule from the kernel's face and origin on). Every index the kernel computes for such a lane is still inside the
//! texture (wrapped or clamped), and [`Isa::load`] checks it anyway.

use std::marker::PhantomData;

use super::lanes::{range_bits, LaneQueries, LaneResults, Lanes, CHUNK, LANES};
use super::probe::{KernelTexels, LaneProbe};
use super::Gatherer;
use super::{Addr, Convert, OffsetMode};
use crate::cube;
use crate::lane::Site;
use crate::op::GatherResult;
use crate::placement::{Linear, Placement};
use crate::sampler::AddressMode;
use crate::simd::{footprint_index, Isa, Kernel};
use crate::stages::{array_layer, footprint_unchecked, may_border, repeat_pow2, six};

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

/// Reports the texels of the lanes of `lanes` to the probe (border texels, unless
/// `borderless`: a negative coordinate), and `unreported` as such.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn report<P: LaneProbe>(
    probe: &mut P,
    lanes: u32,
    unreported: u32,
    index: &[[u32; LANES]; 4],
    xs: &[[i32; LANES]; 4],
    ys: &[[i32; LANES]; 4],
    element: usize,
    borderless: bool,
) {
    if !probe.watching() {
        return;
    }
    let mut real = [[false; LANES]; 4];
    if !borderless {
        for t in 0..4 {
            for k in 0..LANES {
                real[t][k] = xs[t][k] >= 0 && ys[t][k] >= 0;
            }
        }
    }
    probe.texels(&KernelTexels {
        lanes: lanes & !unreported,
        index,
        real: (!borderless).then_some(&real),
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
        let mut xs = [[0i32; LANES]; 4];
        let mut ys = [[0i32; LANES]; 4];
        if g.plan.offsets == OffsetMode::Ptp {
            for t in 0..4 {
                for k in 0..LANES {
                    xs[t][k] = i0[k].wrapping_add(six(q.offsets[t][0][k]));
                    ys[t][k] = j0[k].wrapping_add(six(q.offsets[t][1][k]));
                }
                wrap_lanes::<A>(&mut xs[t], w, au);
                wrap_lanes::<A>(&mut ys[t], h, av);
            }
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
        }
        // texel indices (border texels, -1, address texel 0 and are replaced after the fetch)
        let index = texel_indices(&g.place, l.element, &layer, &xs, &ys);
        let mut values = fetch_convert::<I, T, C>(&l, &index);
        let borderless = A::BORDERLESS || !(may_border(au) || may_border(av));
        if !borderless {
            for t in 0..4 {
                for k in 0..LANES {
                    let b = l.conv.for_lane(q.dref[k]).border(g.border);
                    let real = xs[t][k] >= 0 && ys[t][k] >= 0;
                    values[t][k] = if real { values[t][k] } else { b };
                }
            }
        }
        let range = range_bits(&l.range);
        store(out, range, &values);
        let redone = lane_bits::<I>(&outside) & range;
        report(
            probe, range, redone, &index, &xs, &ys, l.element, borderless,
        );
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

/// fetch -> convert of the four footprint texels of every lane.
#[inline(always)]
fn fetch_convert<I: Isa, T: Copy + Into<u32>, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    index: &[[u32; LANES]; 4],
) -> [[u32; LANES]; 4] {
    let mut raw = [[0u32; LANES]; 4];
    I::load(l.d, index, &mut raw);
    convert_raw(l, &raw)
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
fn store(out: &mut LaneResults, range: u32, values: &[[u32; LANES]; 4]) {
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
fn redo<T, C>(l: &Lanes<'_, '_, T, C>, redo: u32, out: &mut LaneResults) {
    let mut m = redo;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        out.set(lane, &l.g.fallback_lane(&l.q.get_unchecked(lane)));
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
            let mut raw = [[0u32; LANES]; 4];
            I::load_pairs(l.d, &rows, &mut raw);
            convert_raw(&l, &raw)
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
/// origin on (`edge_lane`); one with a corner, like a lane whose origin is unsure, takes the
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
        direct_faces::<I, T, C, P>(l, out, probe, face, origins, unsure)
    }
}

/// The in-place cube kernel after the projection.
#[inline(always)]
fn direct_faces<I: Isa, T: Copy + Into<u32>, C: Convert, P: LaneProbe>(
    l: Lanes<'_, '_, T, C>,
    out: &mut LaneResults,
    probe: &mut P,
    face: [u32; LANES],
    [i0, j0]: [[i32; LANES]; 2],
    unsure: [i32; LANES],
) {
    let (g, q) = (l.g, l.q);
    let n = g.plan.width as u32;
    let per_cube = if g.plan.kind.is_array() { 6 } else { 0 };
    let mut redo_lane = [0i32; LANES];
    let mut layer = [0u32; LANES];
    let mut xs = [[0i32; LANES]; 4];
    let mut ys = [[0i32; LANES]; 4];
    for k in 0..LANES {
        // inside the face where 0 <= i0 and i0 + 1 < n (a negative i0 reads as a huge
        // unsigned value), likewise j0
        let (i, j) = (i0[k] as u32, j0[k] as u32);
        let inside = i.max(j) < n - 1;
        redo_lane[k] = unsure[k] | -(!inside as i32);
        // (lanes redone: any texel of the face will do)
        let last = n - 1;
        let (x0, y0) = (i.min(last), j.min(last));
        let (x1, y1) = ((x0 + 1).min(last), (y0 + 1).min(last));
        layer[k] = array_layer(q.layer[k], g.plan.max_layer)
            .wrapping_mul(per_cube)
            .wrapping_add(face[k]);
        let [x0, y0, x1, y1] = [x0, y0, x1, y1].map(|v| v as i32);
        for (t, (x, y)) in [(x0, y1), (x1, y1), (x1, y0), (x0, y0)]
            .into_iter()
            .enumerate()
        {
            xs[t][k] = x;
            ys[t][k] = y;
        }
    }
    let index = texel_indices(&g.place, l.element, &layer, &xs, &ys);
    let values = fetch_convert::<I, T, C>(&l, &index);
    let range = range_bits(&l.range);
    store(out, range, &values);
    let redone = lane_bits::<I>(&redo_lane) & range;
    // the indices reported: the kernel's, and those of the lanes `edge_lane` read (a copy
    // made only for a probe that records reads: 512 bytes, about 2.4 instructions a lane
    // gather)
    let mut reported = probe.watching().then_some(index);
    let lanes = FaceLanes {
        face: &face,
        origins: [&i0, &j0],
        unsure: &unsure,
    };
    let edges = redo_faces(&l, redone, &lanes, reported.as_mut(), out);
    // (a cube face has no border: every texel of a footprint on the faces is read)
    report(
        probe,
        range,
        redone & !edges,
        reported.as_ref().unwrap_or(&index),
        &xs,
        &ys,
        l.element,
        true,
    );
}

/// The in-place cube kernel's lanes as [`redo_faces`] reads them.
struct FaceLanes<'a> {
    face: &'a [u32; LANES],
    origins: [&'a [i32; LANES]; 2],
    unsure: &'a [i32; LANES],
}

/// The lanes of `redo` of the in-place cube kernel: a footprint across one face edge whose
/// origin the kernel vouches for by [`edge_lane`] (its storage indices into `reported`, for
/// a watched gather), any other by the per-lane path. Returns the lanes `edge_lane` read.
#[inline(always)]
fn redo_faces<T: Copy + Into<u32>, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    redo: u32,
    lanes: &FaceLanes<'_>,
    mut reported: Option<&mut [[u32; LANES]; 4]>,
    out: &mut LaneResults,
) -> u32 {
    let mut edges = 0;
    let mut m = redo;
    while m != 0 {
        let k = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        let lane = EdgeLane {
            k,
            face: lanes.face[k],
            i0: lanes.origins[0][k] as i64,
            j0: lanes.origins[1][k] as i64,
            unsure: lanes.unsure[k] != 0,
        };
        let r = match edge_lane(l, lane) {
            Some(EdgeRead { result, index }) => {
                edges |= 1 << k;
                if let Some(reported) = reported.as_deref_mut() {
                    for (r, i) in reported.iter_mut().zip(index) {
                        r[k] = i;
                    }
                }
                result
            }
            None => l.g.fallback_lane(&l.q.get_unchecked(k)),
        };
        out.set(k, &r);
    }
    edges
}

/// A lane of the in-place cube kernel: its index, face, footprint origin, and whether the
/// kernel could not vouch for them.
#[derive(Clone, Copy)]
struct EdgeLane {
    k: usize,
    face: u32,
    i0: i64,
    j0: i64,
    unsure: bool,
}

/// Lane `k` of the in-place cube kernel, where its footprint crosses one face edge and the
/// kernel vouches for its face and origin ([`cube_origins`], for this lane alone; then they
/// are the per-lane composition's): the four texels by the composition's seamless rule
/// ([`LanePlan::seamless_sites`](crate::lane::LanePlan)), read through the gatherer's
/// placement and converted by the value rule, as the per-lane path reads them. None for any
/// other lane (unsure, outside the 32-bit range, or a footprint with a corner), which takes
/// the per-lane path. Out of line: few lanes cross an edge.
#[inline(never)]
fn edge_lane<T: Copy + Into<u32>, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    lane: EdgeLane,
) -> Option<EdgeRead> {
    let (g, q) = (l.g, l.q);
    let EdgeLane {
        k,
        face,
        i0,
        j0,
        unsure,
    } = lane;
    let n = g.plan.width;
    let near = |v: i64| (-1..n).contains(&v);
    if unsure || !near(i0) || !near(j0) {
        return None;
    }
    let positions = footprint_unchecked(i0, j0, OffsetMode::None, &[[0; 2]; 4]);
    let per_cube = if g.plan.kind.is_array() { 6 } else { 0 };
    let cube_base = array_layer(q.layer[k], g.plan.max_layer).wrapping_mul(per_cube);
    let sites = g.plan.seamless_sites(face, cube_base, &positions);
    let mut texels = [(0u32, 0u32, 0u32); 4];
    for (t, site) in texels.iter_mut().zip(sites) {
        let Site::Texel { layer, x, y } = site else {
            return None;
        };
        *t = (layer, x, y);
    }
    let index = texel_indices_of(&g.place, l.element, &texels);
    let conv = l.conv.for_lane(q.dref[k]);
    let mut values = [0u32; 4];
    for (v, &i) in values.iter_mut().zip(&index) {
        *v = conv.convert(l.d.get(i as usize).map_or(0, |&e| e.into()));
    }
    Some(EdgeRead {
        result: GatherResult {
            values,
            resident: true,
        },
        index,
    })
}

/// What [`edge_lane`] read: the lane's result and the storage index of each texel.
struct EdgeRead {
    result: GatherResult,
    index: [u32; 4],
}

/// The storage indices of element `element` of four texels (layer, x, y), as
/// [`texel_indices`] computes them (the placement's kind matched once, not per texel).
#[inline(always)]
fn texel_indices_of(place: &Placement, element: usize, texels: &[(u32, u32, u32); 4]) -> [u32; 4] {
    let mut index = [0u32; 4];
    match place {
        Placement::Linear(p) => {
            let strides = Strides::linear(p, element);
            for (i, &(layer, x, y)) in index.iter_mut().zip(texels) {
                *i = strides.index(layer, x, y);
            }
        }
        Placement::BlockLinear(b) => {
            let per_layer = b.layer() as u32;
            for (i, &(layer, x, y)) in index.iter_mut().zip(texels) {
                *i = layer
                    .wrapping_mul(per_layer)
                    .wrapping_add(b.row_part(y))
                    .wrapping_add(b.col_part(x))
                    .wrapping_add(element as u32);
            }
        }
    }
    index
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
