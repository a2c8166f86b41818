//! `gather`: many queries through the lane-parallel texture unit, 32 lanes at a time,
//! without the GIL.

use numpy::{
    PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use tld4_gather_cases::{float_layer, result_kind};
use tld4_textures::{
    GatherOp, Gatherer, LaneQueries, LaneResults, OffsetMode, TextureKind, ValueKind, LANES,
};

use crate::errors::value_error;
use crate::names::name_of;
use crate::texture::{precision_of, Sampler, Texture};

/// How many coordinates a kind takes: (s, t), (s, t, layer), (x, y, z), (x, y, z, layer).
pub fn coord_count(kind: TextureKind) -> usize {
    match kind {
        TextureKind::Tex2D => 2,
        TextureKind::Tex2DArray | TextureKind::Cube => 3,
        TextureKind::CubeArray => 4,
    }
}

/// Per-query or shared values of an optional argument.
enum PerQuery<'a, T> {
    None,
    Shared(T),
    Each(Vec<T>),
    EachRef(&'a [T]),
}

impl<T: Copy + Default> PerQuery<'_, T> {
    #[inline]
    fn get(&self, k: usize) -> T {
        match self {
            PerQuery::None => T::default(),
            PerQuery::Shared(v) => *v,
            PerQuery::Each(v) => v[k],
            PerQuery::EachRef(v) => v[k],
        }
    }
    fn is_none(&self) -> bool {
        matches!(self, PerQuery::None)
    }
}

/// An offset as the hardware reads it: -32..=31.
fn offset6(v: i64, what: &str) -> PyResult<i8> {
    if (-32..=31).contains(&v) {
        Ok(v as i8)
    } else {
        Err(value_error(format!(
            "{what}: offset {v} is outside -32..=31"
        )))
    }
}

/// Offsets as an int64 array: whole numbers of any dtype; a float that is not whole (1.5,
/// NaN) is a ValueError naming the argument, never truncated (the hardware's offsets are
/// whole texels: docs/sources.md, What ptxas emits).
fn whole_offsets<'py>(o: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let np = o.py().import("numpy")?;
    let raw = np.call_method1("asarray", (o,))?;
    let kind: String = raw.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind == "f" || kind == "c" {
        let whole = np.call_method1("equal", (&raw, np.call_method1("trunc", (&raw,))?))?;
        if !np.call_method1("all", (whole,))?.extract::<bool>()? {
            return Err(value_error(format!(
                "{what}: offsets are whole texels (-32..31); got {}, which is not whole (it is not truncated)",
                raw.repr()?
            )));
        }
    }
    np.call_method1("asarray", (raw, "int64"))
}

/// `offset=`: (dx, dy) for every query, or an (n, 2) array.
fn aoffi_of(o: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<PerQuery<'static, [[i8; 2]; 4]>> {
    let Some(o) = o else {
        return Ok(PerQuery::None);
    };
    let a = whole_offsets(o, "offset")?;
    if let Ok(v) = a.extract::<PyReadonlyArray1<'_, i64>>() {
        let v = v.as_array();
        if v.len() == 2 {
            let mut out = [[0i8; 2]; 4];
            out[0] = [offset6(v[0], "offset[0]")?, offset6(v[1], "offset[1]")?];
            return Ok(PerQuery::Shared(out));
        }
    }
    if let Ok(v) = a.extract::<PyReadonlyArray2<'_, i64>>() {
        let v = v.as_array();
        if v.shape() == [n, 2] {
            let mut out = Vec::with_capacity(n);
            for (k, r) in v.rows().into_iter().enumerate() {
                let mut o = [[0i8; 2]; 4];
                o[0] = [
                    offset6(r[0], &format!("offset[{k}, 0]"))?,
                    offset6(r[1], &format!("offset[{k}, 1]"))?,
                ];
                out.push(o);
            }
            return Ok(PerQuery::Each(out));
        }
    }
    Err(value_error(format!(
        "offset: (dx, dy) or an array of shape ({n}, 2); got shape {}",
        a.getattr("shape")?
    )))
}

/// `offsets=`: four (dx, dy) for every query, or an (n, 4, 2) array.
fn ptp_of(o: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<PerQuery<'static, [[i8; 2]; 4]>> {
    let Some(o) = o else {
        return Ok(PerQuery::None);
    };
    let a = whole_offsets(o, "offsets")?;
    let read =
        |v: numpy::ndarray::ArrayView2<'_, i64>, k: Option<usize>| -> PyResult<[[i8; 2]; 4]> {
            let mut out = [[0i8; 2]; 4];
            for t in 0..4 {
                for a in 0..2 {
                    let at = match k {
                        Some(k) => format!("offsets[{k}, {t}, {a}]"),
                        None => format!("offsets[{t}][{a}]"),
                    };
                    out[t][a] = offset6(v[[t, a]], &at)?;
                }
            }
            Ok(out)
        };
    if let Ok(v) = a.extract::<PyReadonlyArray2<'_, i64>>() {
        if v.shape() == [4, 2] {
            return Ok(PerQuery::Shared(read(v.as_array(), None)?));
        }
    }
    if let Ok(v) = a.extract::<PyReadonlyArray3<'_, i64>>() {
        let v = v.as_array();
        if v.shape() == [n, 4, 2] {
            let mut out = Vec::with_capacity(n);
            for k in 0..n {
                out.push(read(v.index_axis(numpy::ndarray::Axis(0), k), Some(k))?);
            }
            return Ok(PerQuery::Each(out));
        }
    }
    Err(value_error(format!(
        "offsets: four (dx, dy) pairs (shape (4, 2)) or an array of shape ({n}, 4, 2); got shape {}",
        a.getattr("shape")?
    )))
}

/// `dref=`: one depth reference, or one per query.
fn dref_of(d: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<PerQuery<'static, f32>> {
    let Some(d) = d else {
        return Ok(PerQuery::None);
    };
    if let Ok(v) = d.extract::<f32>() {
        return Ok(PerQuery::Shared(v));
    }
    let np = d.py().import("numpy")?;
    let a = np.call_method1("asarray", (d, "float32"))?;
    let v: PyReadonlyArray1<'_, f32> = a
        .extract()
        .map_err(|_| value_error(format!("dref: a number or an array of shape ({n},)")))?;
    if v.len() != n {
        return Err(value_error(format!(
            "dref: a number or an array of shape ({n},); got {} values",
            v.len()
        )));
    }
    Ok(PerQuery::Each(v.as_array().to_vec()))
}

/// The checked arguments of a gather: coordinates (n rows of the kind's count, row-major),
/// offsets and depth references.
pub struct Queries<'a> {
    pub kind: TextureKind,
    pub coords: &'a [f32],
    pub n: usize,
    offsets: PerQuery<'a, [[i8; 2]; 4]>,
    dref: PerQuery<'a, f32>,
}

impl Queries<'_> {
    /// Fills `q` with queries `start..start + len` (len at most [`LANES`]).
    #[inline]
    fn pack_block(&self, start: usize, len: usize, q: &mut LaneQueries) {
        let k = coord_count(self.kind);
        let rows = &self.coords[start * k..(start + len) * k];
        match self.kind {
            TextureKind::Tex2D => {
                for (lane, row) in rows.chunks_exact(2).enumerate() {
                    q.coords[0][lane] = row[0];
                    q.coords[1][lane] = row[1];
                }
            }
            TextureKind::Tex2DArray => {
                for (lane, row) in rows.chunks_exact(3).enumerate() {
                    q.coords[0][lane] = row[0];
                    q.coords[1][lane] = row[1];
                    q.layer[lane] = float_layer(row[2]);
                }
            }
            TextureKind::Cube | TextureKind::CubeArray => {
                for (lane, row) in rows.chunks_exact(k).enumerate() {
                    q.coords[0][lane] = row[0];
                    q.coords[1][lane] = row[1];
                    q.coords[2][lane] = row[2];
                    if k == 4 {
                        q.layer[lane] = float_layer(row[3]);
                    }
                }
            }
        }
        if !self.offsets.is_none() {
            for lane in 0..len {
                let o = self.offsets.get(start + lane);
                for (t, [dx, dy]) in o.iter().enumerate() {
                    q.offsets[t][0][lane] = *dx;
                    q.offsets[t][1][lane] = *dy;
                }
            }
        }
        if !self.dref.is_none() {
            for lane in 0..len {
                q.dref[lane] = self.dref.get(start + lane);
            }
        }
        // len <= LANES
        let _ = q.set_len(len);
    }

    /// Query `k`'s offsets (entry 0 for AOFFI, all four for PTP; zeros without).
    pub fn offsets_at(&self, k: usize) -> [[i8; 2]; 4] {
        self.offsets.get(k)
    }

    /// Query `k`'s depth reference (0 without depth compare).
    pub fn dref_at(&self, k: usize) -> f32 {
        self.dref.get(k)
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

    /// Gathers every query into `out` (n rows of four words), one 32-lane block at a time.
    pub fn gather_into(&self, g: &Gatherer<'_>, out: &mut [u32]) {
        let mut q = LaneQueries::new();
        let mut results = LaneResults::new();
        for start in (0..self.n).step_by(LANES) {
            let len = (self.n - start).min(LANES);
            self.pack_block(start, len, &mut q);
            g.gather_lanes(&q, &mut results);
            write_rows(&results, &mut out[start * 4..(start + len) * 4]);
        }
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

/// Gathers prepacked blocks into `out` (the benchmark's reference loop).
pub fn run_blocks(g: &Gatherer<'_>, blocks: &[LaneQueries], out: &mut [u32]) {
    let mut results = LaneResults::new();
    for (b, q) in blocks.iter().enumerate() {
        g.gather_lanes(q, &mut results);
        write_rows(&results, &mut out[b * LANES * 4..(b * LANES + q.len()) * 4]);
    }
}

/// What `gather` and the benchmark share: the checked arguments.
pub struct Prepared<'py> {
    pub op: GatherOp,
    pub precision: tld4_textures::Precision,
    pub kind: ValueKind,
    coords: PyReadonlyArray2<'py, f32>,
    n: usize,
    offsets: PerQuery<'static, [[i8; 2]; 4]>,
    dref: PerQuery<'static, f32>,
}

impl Prepared<'_> {
    /// The queries, reading the coordinates in place.
    pub fn queries(&self) -> PyResult<Queries<'_>> {
        Ok(Queries {
            kind: self.op.dim,
            coords: self.coords.as_slice().map_err(value_error)?,
            n: self.n,
            offsets: match &self.offsets {
                PerQuery::None => PerQuery::None,
                PerQuery::Shared(v) => PerQuery::Shared(*v),
                PerQuery::Each(v) => PerQuery::EachRef(v),
                PerQuery::EachRef(v) => PerQuery::EachRef(v),
            },
            dref: match &self.dref {
                PerQuery::None => PerQuery::None,
                PerQuery::Shared(v) => PerQuery::Shared(*v),
                PerQuery::Each(v) => PerQuery::EachRef(v),
                PerQuery::EachRef(v) => PerQuery::EachRef(v),
            },
        })
    }
}

/// The `component` argument (0..3), its errors naming it.
pub fn component_of(value: Option<&Bound<'_, PyAny>>) -> PyResult<u8> {
    let c: u8 = value.map_or(Ok(0), |v| crate::errors::int_arg(v, "component"))?;
    if c > 3 {
        return Err(value_error(format!("component: {c} is outside 0..=3")));
    }
    Ok(c)
}

#[allow(clippy::too_many_arguments)]
pub fn prepare<'py>(
    texture: &Texture,
    coords: &Bound<'py, PyAny>,
    component: u8,
    offset: Option<&Bound<'_, PyAny>>,
    offsets: Option<&Bound<'_, PyAny>>,
    dref: Option<&Bound<'_, PyAny>>,
    precision: Option<&Bound<'_, PyAny>>,
) -> PyResult<Prepared<'py>> {
    let kind = texture.inner.kind();
    let k = coord_count(kind);
    let np = coords.py().import("numpy")?;
    let arr = np.call_method1("ascontiguousarray", (coords, "float32"))?;
    let c: PyReadonlyArray2<'_, f32> = arr.extract().map_err(|_| {
        value_error(format!(
            "coords: an array of shape (n, {k}) for a {} texture",
            name_of(&kind)
        ))
    })?;
    let [n, cols] = [c.shape()[0], c.shape()[1]];
    if cols != k {
        return Err(value_error(format!(
            "coords: a {} texture takes {k} coordinates a query ({}), got shape ({n}, {cols})",
            name_of(&kind),
            match kind {
                TextureKind::Tex2D => "s, t",
                TextureKind::Tex2DArray => "s, t, layer",
                TextureKind::Cube => "x, y, z",
                TextureKind::CubeArray => "x, y, z, layer",
            }
        )));
    }
    if component > 3 {
        return Err(value_error(format!(
            "component: {component} is outside 0..=3"
        )));
    }
    let aoffi = aoffi_of(offset, n)?;
    let ptp = ptp_of(offsets, n)?;
    let (mode, offs) = match (aoffi.is_none(), ptp.is_none()) {
        (false, false) => {
            return Err(value_error(
                "give either offset (AOFFI) or offsets (PTP), not both",
            ))
        }
        (false, true) => (OffsetMode::Aoffi, aoffi),
        (true, false) => (OffsetMode::Ptp, ptp),
        (true, true) => (OffsetMode::None, PerQuery::None),
    };
    let dref = dref_of(dref, n)?;
    let compare = !dref.is_none();
    let op = GatherOp {
        dim: kind,
        component,
        offsets: mode,
        compare,
    };
    Ok(Prepared {
        op,
        precision: precision_of(precision)?,
        kind: result_kind(texture.inner.format(), compare),
        coords: c,
        n,
        offsets: offs,
        dref,
    })
}

/// Gathers the 2x2 footprint of each query, computed by the lane-parallel texture unit 32
/// queries at a time, without the GIL.
///
/// `coords`: an (n, k) array, k = 2 (2d: s, t), 3 (2d_array: s, t, layer; cube: x, y, z) or
/// 4 (cube_array: x, y, z, layer); layers are floats, rounded as NVIDIA's compiler does
/// (floor(layer + 0.5)). `component` 0..3; `offset` (dx, dy) or (n, 2) for AOFFI;
/// `offsets` (4, 2) or (n, 4, 2) for PTP; `dref` a number or (n,) for depth compare (the
/// sampler's compare function must be set); `precision` as in the JSON files. Returns an
/// (n, 4) array in gather order (i0,j1), (i1,j1), (i1,j0), (i0,j0): `float32`, or `uint32`
/// / `int32` for integer formats (without depth compare).
#[pyfunction]
#[pyo3(signature = (texture, sampler, coords, component = None, offset = None, offsets = None, dref = None, precision = None))]
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
) -> PyResult<Bound<'py, PyAny>> {
    let component = component_of(component)?;
    let p = prepare(texture, coords, component, offset, offsets, dref, precision)?;
    let tex = texture.inner.clone();
    let smp = sampler.inner;
    let queries = p.queries()?;
    let out = PyArray2::<u32>::zeros(py, [queries.n, 4], false);
    {
        let mut w = out.try_readwrite().map_err(value_error)?;
        let slice = w.as_slice_mut().map_err(value_error)?;
        py.detach(|| {
            let g = Gatherer::new(&tex, &smp, &p.op, p.precision).map_err(|e| e.to_string())?;
            queries.gather_into(&g, slice);
            Ok::<(), String>(())
        })
        .map_err(value_error)?;
    }
    let dtype = match p.kind {
        ValueKind::Uint => "uint32",
        ValueKind::Sint => "int32",
        _ => "float32",
    };
    out.call_method1("view", (dtype,))
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
    let p = prepare(texture, coords, 0, None, None, None, None)?;
    let queries = p.queries()?;
    let tex = texture.inner.clone();
    let smp = sampler.inner;
    py.detach(|| {
        let g = Gatherer::new(&tex, &smp, &p.op, p.precision).map_err(|e| e.to_string())?;
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
