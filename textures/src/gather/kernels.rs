//! The lane-parallel kernels: 8 lanes at a time through address -> footprint -> wrap ->
//! fetch -> convert -> compare, written as fixed-size loops over the chunk's lanes (no
//! branch inside a loop) in 32-bit integers, so that the compiler vectorizes each step.
//! Two passes over the lanes: the first addresses every chunk (texel indices into
//! [`Addressed`]), the second fetches and converts them, so that the texel loads of the
//! whole warp issue back to back and their cache misses overlap.
//!
//! 32 bits are exact where [`Quantizer::origins32`](crate::stages::Quantizer::origins32)
//! accepts a lane (|u * 2^bits| < 2^28) and the texture is small enough for its texel
//! indices and wrap periods ([`Gatherer::lanes32`]; the lane-parallel path is not taken
//! otherwise): then every step computes what the
//! per-lane path computes in i64. A lane outside that range (NaN, infinities, huge
//! coordinates), and a seamless cube lane whose footprint leaves its face, is computed
//! again by the per-lane reference path ([`Gatherer::reference_lane`]), which overwrites
//! what the chunk wrote for it; every index the chunk computes for such a lane
//! is still inside the texture (wrapped or clamped), and [`Isa::load8`] checks it anyway.

use std::marker::PhantomData;

use super::lanes::{LaneResults, Lanes, CHUNK, LANES};
use super::{Addr, Convert, OffsetMode};
use crate::cube;
use crate::sampler::AddressMode;
use crate::simd::{Isa, Kernel};
use crate::stages::{array_layer, repeat_pow2};

/// The texel storage's strides in elements, as u32 (`Gatherer::lanes32`: every index of
/// the texture fits).
struct Strides {
    layer: u32,
    row: u32,
    texel: u32,
    element: u32,
}

impl Strides {
    #[inline(always)]
    fn of<T, C>(l: &Lanes<'_, '_, T, C>) -> Strides {
        Strides {
            layer: l.g.layer_stride as u32,
            row: l.g.row_stride as u32,
            texel: l.g.words as u32,
            element: l.element as u32,
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

/// Lanes the scratch arrays hold: a warp, plus a chunk's overhang (a range may start at
/// any lane, and its last chunk is computed whole).
const SPAN: usize = LANES + CHUNK;

/// What the address pass leaves for the fetch pass, by lane.
struct Addressed {
    /// The storage index of each footprint texel (0 for border texels).
    index: [[u32; SPAN]; 4],
    /// All ones where the footprint texel is a texel, 0 where it is a border texel.
    real: [[u32; SPAN]; 4],
    /// Lanes the per-lane path redoes (bit = lane), outside the 32-bit range.
    redo: u32,
}

impl Addressed {
    #[inline(always)]
    fn new() -> Self {
        Addressed {
            index: [[0; SPAN]; 4],
            real: [[u32::MAX; SPAN]; 4],
            redo: 0,
        }
    }
}

/// Bits of lanes 0..n of a chunk.
#[inline(always)]
fn chunk_mask(n: usize) -> u32 {
    (1u32 << n.min(CHUNK)) - 1
}

/// The lanes of a chunk where `flags` is non-zero, as bits (`base` the chunk's first lane).
#[inline(always)]
fn lane_bits<I: Isa>(flags: &[i32; CHUNK], n: usize, base: usize) -> u32 {
    (I::mask8(flags) & chunk_mask(n)) << base
}

/// The chunk's 8 entries of a scratch row.
#[inline(always)]
fn at<T: Copy>(row: &[T; SPAN], base: usize) -> &[T; CHUNK] {
    // base <= LANES - 1, so base + CHUNK <= SPAN: the conversion never fails
    row[base..base + CHUNK].try_into().expect("within SPAN")
}

/// The chunk's 8 entries of a scratch row, to write.
#[inline(always)]
fn at_mut<T: Copy>(row: &mut [T; SPAN], base: usize) -> &mut [T; CHUNK] {
    (&mut row[base..base + CHUNK])
        .try_into()
        .expect("within SPAN")
}

/// 2D and 2D array kinds.
pub(super) struct Planar<'a, 'g, 'o, T, C, A> {
    pub(super) l: Lanes<'a, 'g, T, C>,
    pub(super) out: &'o mut LaneResults,
    pub(super) _a: PhantomData<A>,
}

impl<T: Copy + Into<u32>, C: Convert, A: Addr> Kernel for Planar<'_, '_, '_, T, C, A> {
    #[inline(always)]
    fn run<I: Isa>(self) {
        let Planar { l, out, .. } = self;
        let mut a = Addressed::new();
        let mut base = l.range.start;
        while base < l.range.end {
            planar_address::<I, T, C, A>(&l, base, &mut a);
            base += CHUNK;
        }
        fetch_pass::<I, T, C>(&l, &a, !A::BORDERLESS, out);
        redo(&l, a.redo, out);
    }
}

/// The 6-bit signed offset the hardware reads ([`super::footprint`]'s rule).
#[inline(always)]
fn six(v: i8) -> i32 {
    (((v as u8) << 2) as i8 >> 2) as i32
}

/// address -> footprint -> wrap -> texel indices for the lanes of chunk `base`.
#[inline(always)]
fn planar_address<I: Isa, T, C, A: Addr>(l: &Lanes<'_, '_, T, C>, base: usize, a: &mut Addressed) {
    let g = l.g;
    let c = l.chunk(base, g.offsets != OffsetMode::None);
    // address: (s, t) in f64 and the storage layer
    let mut u = [0f64; CHUNK];
    let mut v = [0f64; CHUNK];
    let mut layer = [0u32; CHUNK];
    for k in 0..CHUNK {
        u[k] = c.coords[0][k] as f64 * g.scale_u;
        v[k] = c.coords[1][k] as f64 * g.scale_v;
        layer[k] = array_layer(c.layer[k], g.max_layer);
    }
    // footprint origin (the precision model)
    let (i0, outside_u) = g.quant.origins32(&u);
    let (j0, outside_v) = g.quant.origins32(&v);
    let mut outside = [0i32; CHUNK];
    for k in 0..CHUNK {
        outside[k] = outside_u[k] | outside_v[k];
    }
    a.redo |= lane_bits::<I>(&outside, c.n, base);
    // footprint and wrap
    let (w, h) = (g.width as i32, g.height as i32);
    let [au, av] = g.address;
    let mut xs = [[0i32; CHUNK]; 4];
    let mut ys = [[0i32; CHUNK]; 4];
    if g.offsets == OffsetMode::Ptp {
        for t in 0..4 {
            let mut x = [0i32; CHUNK];
            let mut y = [0i32; CHUNK];
            for k in 0..CHUNK {
                x[k] = i0[k].wrapping_add(six(c.offsets[k][t][0]));
                y[k] = j0[k].wrapping_add(six(c.offsets[k][t][1]));
            }
            xs[t] = wrap_lanes::<A>(&x, w, au);
            ys[t] = wrap_lanes::<A>(&y, h, av);
        }
    } else {
        let (mut i, mut j) = (i0, j0);
        if g.offsets == OffsetMode::Aoffi {
            for k in 0..CHUNK {
                i[k] = i[k].wrapping_add(six(c.offsets[k][0][0]));
                j[k] = j[k].wrapping_add(six(c.offsets[k][0][1]));
            }
        }
        let x0 = wrap_lanes::<A>(&i, w, au);
        let y0 = wrap_lanes::<A>(&j, h, av);
        let (mut i1, mut j1) = (i, j);
        for k in 0..CHUNK {
            i1[k] = i1[k].wrapping_add(1);
            j1[k] = j1[k].wrapping_add(1);
        }
        let x1 = wrap_lanes::<A>(&i1, w, au);
        let y1 = wrap_lanes::<A>(&j1, h, av);
        xs = [x0, x1, x1, x0];
        ys = [y1, y1, y0, y0];
    }
    // texel indices (border texels, -1, address texel 0 and are replaced after the fetch)
    let s = Strides::of(l);
    for t in 0..4 {
        let index = at_mut(&mut a.index[t], base);
        for k in 0..CHUNK {
            let (x, y) = (xs[t][k].max(0) as u32, ys[t][k].max(0) as u32);
            index[k] = s.index(layer[k], x, y);
        }
        if !A::BORDERLESS {
            let real = at_mut(&mut a.real[t], base);
            for k in 0..CHUNK {
                real[k] = if xs[t][k] >= 0 && ys[t][k] >= 0 {
                    u32::MAX
                } else {
                    0
                };
            }
        }
    }
}

/// fetch -> convert (-> border) -> store for every lane of the range, from the indices the
/// address pass left.
#[inline(always)]
fn fetch_pass<I: Isa, T: Copy + Into<u32>, C: Convert>(
    l: &Lanes<'_, '_, T, C>,
    a: &Addressed,
    border: bool,
    out: &mut LaneResults,
) {
    let mut base = l.range.start;
    while base < l.range.end {
        let n = (l.range.end - base).min(CHUNK);
        let dref = l.chunk_dref(base);
        // (loops, not `array::map`: its closures may stay out of line, compiled without AVX2)
        let mut raw = [[0u32; CHUNK]; 4];
        for t in 0..4 {
            raw[t] = I::load8(l.d, at(&a.index[t], base));
        }
        let mut values = if C::UNROLL {
            convert_lanes(l.conv, &raw, &dref)
        } else {
            convert_lanes_outlined(l.conv, &raw, &dref)
        };
        if border {
            for t in 0..4 {
                let real = at(&a.real[t], base);
                for k in 0..CHUNK {
                    let b = l.conv.for_lane(dref[k]).border(l.g.border);
                    values[t][k] = (values[t][k] & real[k]) | (b & !real[k]);
                }
            }
        }
        store(out, base, n, &values);
        base += CHUNK;
    }
}

/// The lanes of `redo` by the per-lane reference path.
#[inline(always)]
fn redo<T, C>(l: &Lanes<'_, '_, T, C>, redo: u32, out: &mut LaneResults) {
    let mut m = redo;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        out.set(lane, &l.g.reference_lane(&l.q.get_unchecked(lane)));
    }
}

/// convert (and compare) of the chunk's texels.
#[inline(always)]
fn convert_lanes<C: Convert>(
    conv: C,
    raw: &[[u32; CHUNK]; 4],
    dref: &[f32; CHUNK],
) -> [[u32; CHUNK]; 4] {
    let mut values = [[0u32; CHUNK]; 4];
    for t in 0..4 {
        for k in 0..CHUNK {
            values[t][k] = conv.for_lane(dref[k]).convert(raw[t][k]);
        }
    }
    values
}

/// [`convert_lanes`] out of line, for the rules that are not unrolled ([`Convert::UNROLL`]).
#[inline(never)]
fn convert_lanes_outlined<C: Convert>(
    conv: C,
    raw: &[[u32; CHUNK]; 4],
    dref: &[f32; CHUNK],
) -> [[u32; CHUNK]; 4] {
    convert_lanes(conv, raw, dref)
}

/// Writes lanes base..base + n of `out` (the chunk's first n lanes).
#[inline(always)]
fn store(out: &mut LaneResults, base: usize, n: usize, values: &[[u32; CHUNK]; 4]) {
    for t in 0..4 {
        if n == CHUNK {
            out.values[t][base..base + CHUNK].copy_from_slice(&values[t]);
        } else {
            for k in 0..n {
                out.values[t][base + k] = values[t][k];
            }
        }
    }
}

/// [`wrap`](super::wrap) of 8 lanes with one address mode (-1 for a border texel), the mode
/// dispatched once outside the lane loop.
#[inline(always)]
fn wrap_lanes<A: Addr>(i: &[i32; CHUNK], size: i32, mode: AddressMode) -> [i32; CHUNK] {
    #[inline(always)]
    fn each<A: Addr>(i: &[i32; CHUNK], size: i32, mode: AddressMode) -> [i32; CHUNK] {
        let mut o = [0i32; CHUNK];
        for k in 0..CHUNK {
            o[k] = A::wrap(i[k], size, mode);
        }
        o
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
            let mut o = [0i32; CHUNK];
            for k in 0..CHUNK {
                o[k] = repeat_pow2(i[k], size);
            }
            o
        }
        AddressMode::Repeat => each::<A>(i, size, AddressMode::Repeat),
        AddressMode::MirroredRepeat => each::<A>(i, size, AddressMode::MirroredRepeat),
        AddressMode::ClampToBorder => each::<A>(i, size, AddressMode::ClampToBorder),
        AddressMode::MirrorClampToEdge => each::<A>(i, size, AddressMode::MirrorClampToEdge),
    }
}

/// Cube kinds with seamless edges.
pub(super) struct Cube<'a, 'g, 'o, T, C> {
    pub(super) l: Lanes<'a, 'g, T, C>,
    pub(super) out: &'o mut LaneResults,
}

/// Where a seamless cube lane's footprint lies, for the lanes whose footprint leaves its
/// face (the edge path takes it from here).
struct CubeLanes {
    face: [u32; SPAN],
    i0: [i32; SPAN],
    j0: [i32; SPAN],
    /// Lanes whose footprint leaves the face (bit = lane).
    edge: u32,
}

impl<T: Copy + Into<u32>, C: Convert> Kernel for Cube<'_, '_, '_, T, C> {
    #[inline(always)]
    fn run<I: Isa>(self) {
        let Cube { l, out } = self;
        let mut a = Addressed::new();
        let mut e = CubeLanes {
            face: [0; SPAN],
            i0: [0; SPAN],
            j0: [0; SPAN],
            edge: 0,
        };
        let mut base = l.range.start;
        while base < l.range.end {
            cube_address::<I, T, C>(&l, base, &mut a, &mut e);
            base += CHUNK;
        }
        fetch_pass::<I, T, C>(&l, &a, false, out);
        // lanes crossing an edge: the edge path, from the face and origin found here
        let mut m = e.edge & !a.redo;
        let cube_base = |lane: usize| {
            if l.g.kind.is_array() {
                array_layer(l.q.layer[lane], l.g.max_layer) as usize * 6
            } else {
                0
            }
        };
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let conv = l.conv.for_lane(l.q.dref[lane]);
            let (i, j) = (e.i0[lane] as i64, e.j0[lane] as i64);
            let r =
                l.g.lane_cube_edge(l.d, l.element, conv, e.face[lane], cube_base(lane), i, j);
            out.set(lane, &r);
        }
        redo(&l, a.redo, out);
    }
}

/// Seamless cube lanes of chunk `base`: projection and face selection, footprint origin,
/// the footprint's indices on the face; lanes whose footprint leaves the face are marked in
/// `e` (and lanes outside the 32-bit range in `a.redo`).
#[inline(always)]
fn cube_address<I: Isa, T, C>(
    l: &Lanes<'_, '_, T, C>,
    base: usize,
    a: &mut Addressed,
    e: &mut CubeLanes,
) {
    let g = l.g;
    let c = l.chunk(base, false);
    let mut face = [0u32; CHUNK];
    let mut u = [0f64; CHUNK];
    let mut v = [0f64; CHUNK];
    for k in 0..CHUNK {
        let (f, s, t) = cube::project_select(c.coords[0][k], c.coords[1][k], c.coords[2][k]);
        face[k] = f;
        u[k] = s * g.scale_u;
        v[k] = t * g.scale_v;
    }
    let (i0, outside_u) = g.quant.origins32(&u);
    let (j0, outside_v) = g.quant.origins32(&v);
    let n = g.width as i32;
    let per_cube = if g.kind.is_array() { 6 } else { 0 };
    let s = Strides::of(l);
    let mut outside = [0i32; CHUNK];
    let mut off_face = [0i32; CHUNK];
    let mut index = [[0u32; CHUNK]; 4];
    for k in 0..CHUNK {
        outside[k] = outside_u[k] | outside_v[k];
        let (i, j) = (i0[k], j0[k]);
        let on_face = i >= 0 && j >= 0 && i < n - 1 && j < n - 1;
        off_face[k] = -(!on_face as i32);
        // off-face lanes are redone: any in-range texel will do
        let (i, j) = (i.min(n - 2).max(0) as u32, j.min(n - 2).max(0) as u32);
        let layer = array_layer(c.layer[k], g.max_layer)
            .wrapping_mul(per_cube)
            .wrapping_add(face[k]);
        let r0 = s.index(layer, i, j);
        let r1 = r0.wrapping_add(s.row);
        index[0][k] = r1;
        index[1][k] = r1.wrapping_add(s.texel);
        index[2][k] = r0.wrapping_add(s.texel);
        index[3][k] = r0;
    }
    for t in 0..4 {
        *at_mut(&mut a.index[t], base) = index[t];
    }
    a.redo |= lane_bits::<I>(&outside, c.n, base);
    let edge = lane_bits::<I>(&off_face, c.n, base);
    if edge != 0 {
        *at_mut(&mut e.face, base) = face;
        *at_mut(&mut e.i0, base) = i0;
        *at_mut(&mut e.j0, base) = j0;
        e.edge |= edge;
    }
}
