//! `gather`: many queries through the lane-parallel texture unit, 32 lanes at a time,
//! without the GIL.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;

use tld4_textures::{
    GatherOp, Gatherer, LaneQueries, LaneResults, Precision, Sampler as RustSampler,
    Texture as RustTexture, TextureKind, ValueKind, LANES,
};

use crate::columns::{columns2, columns3, columns4, Layers};
use crate::errors::value_error;
use crate::queries::{coord_count, prepare, Args, Queries};
use crate::texture::{Sampler, Texture};

/// The coordinates of a block's rows (the kind's count a row, at most [`LANES`] rows) into
/// the lanes, a whole block transposed at once ([`crate::columns`]), float layers converted
/// on the way ([`Layers`]). (Inlined into the loops over blocks, as the two below: their
/// calls were 1.5 instructions a query of the conversion's 10, callgrind, docs/python.md.)
#[inline(always)]
fn pack_coords(kind: TextureKind, rows: &[f32], q: &mut LaneQueries) {
    if rows.len() < coord_count(kind) * LANES {
        return pack_short(kind, rows, q);
    }
    let [c0, c1, c2] = &mut q.coords;
    match kind {
        TextureKind::Tex2D => columns2(block(rows), [c0, c1]),
        TextureKind::Tex2DArray => columns3(block(rows), [c0, c1], Layers(&mut q.layer)),
        TextureKind::Cube => columns3(block(rows), [c0, c1], c2),
        TextureKind::CubeArray => columns4(block(rows), [c0, c1, c2], Layers(&mut q.layer)),
    }
}

/// A last block of fewer than [`LANES`] rows: padded with zeros to a whole one.
#[cold]
fn pack_short(kind: TextureKind, rows: &[f32], q: &mut LaneQueries) {
    let mut padded = [0f32; 4 * LANES];
    padded[..rows.len()].copy_from_slice(rows);
    pack_coords(kind, &padded[..coord_count(kind) * LANES], q);
}

/// The first `N` values of `rows` (which holds a whole block).
#[inline(always)]
fn block<const N: usize>(rows: &[f32]) -> &[f32; N] {
    rows.first_chunk().expect("a whole block")
}

impl Queries<'_> {
    /// The offsets and depth references of queries `index(0..len)` into the lanes.
    #[inline(always)]
    fn pack_extras(&self, len: usize, index: impl Fn(usize) -> usize, q: &mut LaneQueries) {
        if !self.offsets.is_none() {
            for lane in 0..len {
                let o = self.offsets.get(index(lane));
                for (t, [dx, dy]) in o.iter().enumerate() {
                    q.offsets[t][0][lane] = *dx;
                    q.offsets[t][1][lane] = *dy;
                }
            }
        }
        if !self.dref.is_none() {
            for lane in 0..len {
                q.dref[lane] = self.dref.get(index(lane));
            }
        }
        // len <= LANES
        let _ = q.set_len(len);
    }

    /// Fills `q` with queries `start..start + len` (len at most [`LANES`]).
    #[inline(always)]
    fn pack_block(&self, start: usize, len: usize, q: &mut LaneQueries) {
        let k = coord_count(self.dim);
        pack_coords(self.dim, &self.coords[start * k..(start + len) * k], q);
        self.pack_extras(len, |lane| start + lane, q);
    }

    /// Fills `q` with the queries `indices` (at most [`LANES`]).
    fn pack_indexed(&self, indices: &[u32], q: &mut LaneQueries) {
        let k = coord_count(self.dim);
        let mut rows = [0f32; LANES * 4];
        for (lane, &i) in indices.iter().enumerate() {
            let i = i as usize;
            rows[lane * k..(lane + 1) * k].copy_from_slice(&self.coords[i * k..(i + 1) * k]);
        }
        // (the lanes past the queries hold zeros: a whole block)
        pack_coords(self.dim, &rows[..k * LANES], q);
        self.pack_extras(indices.len(), |lane| indices[lane] as usize, q);
    }

    /// Every query packed into 32-lane blocks (the benchmark's reference input).
    pub fn blocks(&self) -> Vec<LaneQueries> {
        (0..self.n)
            .step_by(LANES)
            .map(|start| {
                let mut q = LaneQueries::new();
                self.pack_block(start, (self.n - start).min(LANES), &mut q);
                q
            })
            .collect()
    }

    /// The queries grouped by their operation (component, offset kind), each group's query
    /// indices in order: one group when the operation is shared.
    fn groups(&self) -> Vec<(GatherOp, Vec<u32>)> {
        let mut groups: Vec<(GatherOp, Vec<u32>)> = Vec::new();
        for k in 0..self.n {
            let op = self.op_at(k);
            match groups.iter_mut().find(|(o, _)| *o == op) {
                Some((_, v)) => v.push(k as u32),
                None => groups.push((op, vec![k as u32])),
            }
        }
        groups
    }

    /// Gathers every query into `out` (n rows of four words), one 32-lane block at a time,
    /// and where asked each query's residency (true: its footprint was resident).
    pub fn gather_into(
        &self,
        unit: &Unit<'_>,
        out: &mut [u32],
        mut resident: Option<&mut [bool]>,
    ) -> Result<(), String> {
        let mut q = LaneQueries::new();
        let mut results = LaneResults::new();
        if let Some(op) = self.shared_op() {
            let g = unit.gatherer(&op)?;
            for start in (0..self.n).step_by(LANES) {
                let len = (self.n - start).min(LANES);
                self.pack_block(start, len, &mut q);
                g.gather_lanes(&q, &mut results);
                write_rows(&results, &mut out[start * 4..(start + len) * 4]);
                if let Some(r) = resident.as_deref_mut() {
                    write_resident(&results, &mut r[start..start + len]);
                }
            }
            return Ok(());
        }
        for (op, indices) in self.groups() {
            let g = unit.gatherer(&op)?;
            for chunk in indices.chunks(LANES) {
                self.pack_indexed(chunk, &mut q);
                g.gather_lanes(&q, &mut results);
                for (lane, &i) in chunk.iter().enumerate() {
                    let i = i as usize;
                    for (c, values) in results.values.iter().enumerate() {
                        out[i * 4 + c] = values[lane];
                    }
                    if let Some(r) = resident.as_deref_mut() {
                        r[i] = results.nonresident >> lane & 1 == 0;
                    }
                }
            }
        }
        Ok(())
    }
}

/// What every operation of a call shares: the texture, the sampler and the precision.
pub struct Unit<'a> {
    pub texture: &'a RustTexture,
    pub sampler: &'a RustSampler,
    pub precision: Precision,
}

impl Unit<'_> {
    /// The texture unit prepared for `op`.
    fn gatherer(&self, op: &GatherOp) -> Result<Gatherer<'_>, String> {
        Gatherer::new(self.texture, self.sampler, op, self.precision).map_err(|e| e.to_string())
    }
}

/// The lanes' results into rows of four words (as many rows as `rows` holds).
#[inline]
fn write_rows(results: &LaneResults, rows: &mut [u32]) {
    for (lane, row) in rows.chunks_exact_mut(4).enumerate() {
        for (v, values) in row.iter_mut().zip(&results.values) {
            *v = values[lane];
        }
    }
}

/// The lanes' residency (true: resident), as many as `out` holds.
#[inline]
fn write_resident(results: &LaneResults, out: &mut [bool]) {
    for (lane, r) in out.iter_mut().enumerate() {
        *r = results.nonresident >> lane & 1 == 0;
    }
}

/// Gathers prepacked blocks into `out` (the benchmark's reference loop).
pub fn run_blocks(g: &Gatherer<'_>, blocks: &[LaneQueries], out: &mut [u32]) {
    let mut results = LaneResults::new();
    for (b, q) in blocks.iter().enumerate() {
        g.gather_lanes(q, &mut results);
        write_rows(&results, &mut out[b * LANES * 4..(b * LANES + q.len()) * 4]);
    }
}

/// Gathers the 2x2 footprint of each query, computed by the lane-parallel texture unit 32
/// queries at a time, without the GIL.
///
/// `coords`: an (n, k) array, k = 2 (2d: s, t), 3 (2d_array: s, t, layer; cube: x, y, z) or
/// 4 (cube_array: x, y, z, layer); layers are floats, rounded as NVIDIA's compiler does
/// (floor(layer + 0.5)). Per query or one for all (an int, a name, a pair, a number, or an
/// array of n of them; errors name the argument and the query's index): `component` 0..3;
/// `offset` (dx, dy) or (n, 2) for AOFFI; `offsets` (4, 2) or (n, 4, 2) for PTP;
/// `offset_kind` `"none"`, `"aoffi"` or `"ptp"`, or (n,) of them (by default the kind of
/// whichever of `offset` and `offsets` is given; with a kind per query both may be given,
/// each query reading its kind's); `dref` a number or (n,) for depth compare (the sampler's
/// compare function must be set). `precision` as in the JSON files. Returns an (n, 4) array
/// in gather order (i0,j1), (i1,j1), (i1,j0), (i0,j0): `float32`, or `uint32` / `int32` for
/// integer formats (without depth compare); with `return_resident=True`, a pair (values,
/// resident), `resident` an (n,) `bool` array, False where the footprint touched a
/// non-resident tile of a sparse texture (whose values are then 0: a sparse TLD4's
/// predicate, docs/sources.md, Decisions: sparse residency).
#[pyfunction]
#[pyo3(signature = (texture, sampler, coords, component = None, offset = None, offsets = None, dref = None, precision = None, offset_kind = None, return_resident = false))]
#[allow(clippy::too_many_arguments)]
pub fn gather<'py>(
    py: Python<'py>,
    texture: &Texture,
    sampler: &Sampler,
    coords: &Bound<'py, PyAny>,
    component: Option<&Bound<'py, PyAny>>,
    offset: Option<&Bound<'py, PyAny>>,
    offsets: Option<&Bound<'py, PyAny>>,
    dref: Option<&Bound<'py, PyAny>>,
    precision: Option<&Bound<'py, PyAny>>,
    offset_kind: Option<&Bound<'py, PyAny>>,
    return_resident: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let args = Args {
        coords,
        component,
        offset_kind,
        offset,
        offsets,
        dref,
        precision,
    };
    let p = prepare(texture, &args)?;
    let tex = texture.inner.clone();
    let smp = sampler.inner;
    let queries = p.queries()?;
    // (every element is written: no need to zero it first)
    let out = unsafe { PyArray2::<u32>::new(py, [queries.n, 4], false) };
    let resident = return_resident.then(|| unsafe { PyArray1::<bool>::new(py, queries.n, false) });
    {
        let mut w = out.try_readwrite().map_err(value_error)?;
        let slice = w.as_slice_mut().map_err(value_error)?;
        let mut r = resident
            .as_ref()
            .map(|r| r.try_readwrite())
            .transpose()
            .map_err(value_error)?;
        let r_slice = r
            .as_mut()
            .map(|r| r.as_slice_mut())
            .transpose()
            .map_err(value_error)?;
        py.detach(|| {
            let unit = Unit {
                texture: &tex,
                sampler: &smp,
                precision: p.precision,
            };
            queries.gather_into(&unit, slice, r_slice)
        })
        .map_err(value_error)?;
    }
    let dtype = match p.kind {
        ValueKind::Uint => "uint32",
        ValueKind::Sint => "int32",
        _ => "float32",
    };
    let values = out.call_method1("view", (dtype,))?;
    match resident {
        Some(r) => Ok((values, r).into_pyobject(py)?.into_any()),
        None => Ok(values),
    }
}

/// The seconds the Rust texture unit (`Gatherer::gather_lanes`, 32 lanes a call) takes for
/// the queries, packed beforehand, `repeat` times (the best time): what `bench/gather.py`
/// compares `gather` with. Not part of the API.
#[pyfunction]
#[pyo3(signature = (texture, sampler, coords, repeat = 5))]
pub fn _rust_gather_lanes_seconds(
    py: Python<'_>,
    texture: &Texture,
    sampler: &Sampler,
    coords: &Bound<'_, PyAny>,
    repeat: usize,
) -> PyResult<Vec<f64>> {
    let args = Args {
        coords,
        component: None,
        offset_kind: None,
        offset: None,
        offsets: None,
        dref: None,
        precision: None,
    };
    let p = prepare(texture, &args)?;
    let queries = p.queries()?;
    let tex = texture.inner.clone();
    let smp = sampler.inner;
    let op = queries.op_at(0);
    py.detach(|| {
        let g = Gatherer::new(&tex, &smp, &op, p.precision).map_err(|e| e.to_string())?;
        let blocks = queries.blocks();
        let mut out = vec![0u32; queries.n * 4];
        let mut times = Vec::with_capacity(repeat);
        for _ in 0..repeat.max(1) {
            let t = std::time::Instant::now();
            run_blocks(&g, &blocks, &mut out);
            times.push(t.elapsed().as_secs_f64());
            std::hint::black_box(&out);
        }
        Ok::<_, String>(times)
    })
    .map_err(value_error)
}
