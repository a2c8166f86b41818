//! The arguments `gather` and `check` share, read and checked: coordinates, and per query or
//! shared the component, the offset kind and values and the depth reference (errors name the
//! argument and the query's index).

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArrayMethods};
use pyo3::prelude::*;

use tld4_gather_cases::result_kind;
use tld4_textures::{GatherOp, OffsetMode, Precision, TextureKind, ValueKind};

use crate::errors::value_error;
use crate::names::name_of;
use crate::texture::{precision_of, Texture};

/// How many coordinates a kind takes: (s, t), (s, t, layer), (x, y, z), (x, y, z, layer).
pub fn coord_count(kind: TextureKind) -> usize {
    match kind {
        TextureKind::Tex2D => 2,
        TextureKind::Tex2DArray | TextureKind::Cube => 3,
        TextureKind::CubeArray => 4,
    }
}

/// Per-query or shared values of an argument (`None`: not given, the default value).
pub enum PerQuery<'a, T> {
    None,
    Shared(T),
    Each(Vec<T>),
    EachRef(&'a [T]),
}

impl<T: Copy + Default> PerQuery<'_, T> {
    /// Query `k`'s value.
    #[inline]
    pub fn get(&self, k: usize) -> T {
        match self {
            PerQuery::None => T::default(),
            PerQuery::Shared(v) => *v,
            PerQuery::Each(v) => v[k],
            PerQuery::EachRef(v) => v[k],
        }
    }

    /// Not given.
    pub fn is_none(&self) -> bool {
        matches!(self, PerQuery::None)
    }

    /// One value for every query (given or not).
    pub fn is_shared(&self) -> bool {
        matches!(self, PerQuery::None | PerQuery::Shared(_))
    }

    /// The same values, borrowed (what crosses into code run without the GIL).
    pub fn borrow(&self) -> PerQuery<'_, T> {
        match self {
            PerQuery::None => PerQuery::None,
            PerQuery::Shared(v) => PerQuery::Shared(*v),
            PerQuery::Each(v) => PerQuery::EachRef(v),
            PerQuery::EachRef(v) => PerQuery::EachRef(v),
        }
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

/// Offset values as the lanes hold them: entry 0 for AOFFI, all four for PTP.
type Offsets = [[i8; 2]; 4];

/// `offset=`: (dx, dy) for every query, or an (n, 2) array.
fn aoffi_of(o: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<PerQuery<'static, Offsets>> {
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
fn ptp_of(o: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<PerQuery<'static, Offsets>> {
    let Some(o) = o else {
        return Ok(PerQuery::None);
    };
    let a = whole_offsets(o, "offsets")?;
    let read = |v: numpy::ndarray::ArrayView2<'_, i64>, k: Option<usize>| -> PyResult<Offsets> {
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

/// `component=`: 0..3, one for every query (an int) or an (n,) array of ints; errors name
/// the argument and the query.
pub fn component_of(value: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<PerQuery<'static, u8>> {
    let Some(value) = value else {
        return Ok(PerQuery::Shared(0));
    };
    let in_range = |c: i64, what: &str| -> PyResult<u8> {
        u8::try_from(c)
            .ok()
            .filter(|c| *c <= 3)
            .ok_or_else(|| value_error(format!("{what}: {c} is outside 0..=3")))
    };
    let np = value.py().import("numpy")?;
    if !value.is_instance(&np.getattr("ndarray")?)? && value.extract::<i128>().is_ok() {
        let c: i64 = crate::errors::int_arg(value, "component")?;
        return Ok(PerQuery::Shared(in_range(c, "component")?));
    }
    let a = np.call_method1("asarray", (value,))?;
    let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
    let ndim: usize = a.getattr("ndim")?.extract()?;
    if kind != "i" && kind != "u" {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "component: an int (0..3) or an array of shape ({n},) of ints; got dtype {}",
            a.getattr("dtype")?
        )));
    }
    if ndim == 0 {
        return component_of(Some(&a.call_method0("item")?), n);
    }
    let a = np.call_method1("asarray", (a, "int64"))?;
    let v: PyReadonlyArray1<'_, i64> = a.extract().map_err(|_| {
        value_error(format!(
            "component: an int (0..3) or an array of shape ({n},)"
        ))
    })?;
    if v.len() != n {
        return Err(value_error(format!(
            "component: an int (0..3) or an array of shape ({n},); got {} values",
            v.len()
        )));
    }
    let mut out = Vec::with_capacity(n);
    for (k, &c) in v.as_array().iter().enumerate() {
        out.push(in_range(c, &format!("component[{k}]"))?);
    }
    Ok(PerQuery::Each(out))
}

/// The offset kinds' names, as `offset_kind=` takes them.
const OFFSET_KINDS: [(&str, OffsetMode); 3] = [
    ("none", OffsetMode::None),
    ("aoffi", OffsetMode::Aoffi),
    ("ptp", OffsetMode::Ptp),
];

/// `offset_kind=`: None (from which of `offset` and `offsets` is given), a name (`"none"`,
/// `"aoffi"`, `"ptp"`) or an (n,) array of names.
fn offset_kind_of(
    value: Option<&Bound<'_, PyAny>>,
    n: usize,
) -> PyResult<Option<PerQuery<'static, OffsetMode>>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let unknown = |what: &str, name: &str| {
        value_error(format!(
            "{what}: '{name}' is not an offset kind: none, aoffi or ptp"
        ))
    };
    if let Ok(name) = value.extract::<String>() {
        let mode = OFFSET_KINDS
            .iter()
            .find(|(k, _)| *k == name)
            .ok_or_else(|| unknown("offset_kind", &name))?;
        return Ok(Some(PerQuery::Shared(mode.1)));
    }
    let np = value.py().import("numpy")?;
    let a = np.call_method1("asarray", (value,))?;
    let shape: Vec<usize> = a.getattr("shape")?.extract()?;
    if shape != [n] {
        return Err(value_error(format!(
            "offset_kind: a name (none, aoffi, ptp) or an array of shape ({n},) of names; got shape {shape:?}"
        )));
    }
    // Each name's mask, numpy comparing the strings: the modes a query at a time after.
    let mut modes = vec![None; n];
    for (name, mode) in OFFSET_KINDS {
        let mask = a.call_method1("__eq__", (name,))?;
        let mask = np.call_method1("asarray", (mask, "bool"))?;
        let m: PyReadonlyArray1<'_, bool> = mask.extract()?;
        if m.len() != n {
            continue;
        }
        for (slot, &hit) in modes.iter_mut().zip(m.as_array().iter()) {
            if hit {
                *slot = Some(mode);
            }
        }
    }
    let mut out = Vec::with_capacity(n);
    for (k, m) in modes.into_iter().enumerate() {
        match m {
            Some(m) => out.push(m),
            None => {
                let item = a.get_item(k)?;
                return Err(unknown(
                    &format!("offset_kind[{k}]"),
                    &item.str()?.to_string(),
                ));
            }
        }
    }
    Ok(Some(PerQuery::Each(out)))
}

/// Each query's offset kind and values, from `offset_kind`, `offset` and `offsets`.
fn offsets_of(
    kind: Option<&Bound<'_, PyAny>>,
    offset: Option<&Bound<'_, PyAny>>,
    offsets: Option<&Bound<'_, PyAny>>,
    n: usize,
) -> PyResult<(PerQuery<'static, OffsetMode>, PerQuery<'static, Offsets>)> {
    let aoffi = aoffi_of(offset, n)?;
    let ptp = ptp_of(offsets, n)?;
    let Some(kinds) = offset_kind_of(kind, n)? else {
        return match (aoffi.is_none(), ptp.is_none()) {
            (false, false) => Err(value_error(
                "give either offset (AOFFI) or offsets (PTP), not both (or offset_kind, naming each query's)",
            )),
            (false, true) => Ok((PerQuery::Shared(OffsetMode::Aoffi), aoffi)),
            (true, false) => Ok((PerQuery::Shared(OffsetMode::Ptp), ptp)),
            (true, true) => Ok((PerQuery::Shared(OffsetMode::None), PerQuery::None)),
        };
    };
    if let PerQuery::Shared(mode) = kinds {
        let name = OFFSET_KINDS
            .iter()
            .find(|(_, m)| *m == mode)
            .map_or("", |k| k.0);
        let missing = |what: &str| value_error(format!("offset_kind: {name}, but no {what} given"));
        let (values, stray) = match mode {
            OffsetMode::None => (
                PerQuery::None,
                [("offset", &aoffi), ("offsets", &ptp)]
                    .into_iter()
                    .find(|(_, v)| !v.is_none())
                    .map(|(s, _)| s),
            ),
            OffsetMode::Aoffi if aoffi.is_none() => return Err(missing("offset is")),
            OffsetMode::Aoffi => (aoffi, (!ptp.is_none()).then_some("offsets")),
            OffsetMode::Ptp if ptp.is_none() => return Err(missing("offsets are")),
            OffsetMode::Ptp => (ptp, (!aoffi.is_none()).then_some("offset")),
        };
        if let Some(stray) = stray {
            return Err(value_error(format!(
                "{stray}: given, but offset_kind is {name}"
            )));
        }
        return Ok((PerQuery::Shared(mode), values));
    }
    let mut values = Vec::with_capacity(n);
    for k in 0..n {
        values.push(match kinds.get(k) {
            OffsetMode::None => [[0; 2]; 4],
            OffsetMode::Aoffi if aoffi.is_none() => {
                return Err(value_error(format!(
                    "offset_kind[{k}]: aoffi, but no offset is given"
                )))
            }
            OffsetMode::Aoffi => aoffi.get(k),
            OffsetMode::Ptp if ptp.is_none() => {
                return Err(value_error(format!(
                    "offset_kind[{k}]: ptp, but no offsets are given"
                )))
            }
            OffsetMode::Ptp => ptp.get(k),
        });
    }
    Ok((kinds, PerQuery::Each(values)))
}

/// The checked queries of a gather, reading the coordinates in place (n rows of the kind's
/// count, row-major), with each query's component, offsets and depth reference.
pub struct Queries<'a> {
    pub dim: TextureKind,
    pub compare: bool,
    pub coords: &'a [f32],
    pub n: usize,
    pub component: PerQuery<'a, u8>,
    pub mode: PerQuery<'a, OffsetMode>,
    pub offsets: PerQuery<'a, Offsets>,
    pub dref: PerQuery<'a, f32>,
}

impl Queries<'_> {
    /// Query `k`'s offsets (entry 0 for AOFFI, all four for PTP; zeros without).
    pub fn offsets_at(&self, k: usize) -> Offsets {
        self.offsets.get(k)
    }

    /// Query `k`'s depth reference (0 without depth compare).
    pub fn dref_at(&self, k: usize) -> f32 {
        self.dref.get(k)
    }

    /// Query `k`'s gather operation: the kind, its component and offset kind, compare.
    pub fn op_at(&self, k: usize) -> GatherOp {
        GatherOp {
            dim: self.dim,
            component: self.component.get(k),
            offsets: self.mode.get(k),
            compare: self.compare,
        }
    }

    /// One operation for every query: the component and the offset kind are shared.
    pub fn shared_op(&self) -> Option<GatherOp> {
        (self.component.is_shared() && self.mode.is_shared()).then(|| self.op_at(0))
    }
}

/// What `gather`, `check` and the benchmark share: the checked arguments.
pub struct Prepared<'py> {
    pub dim: TextureKind,
    pub compare: bool,
    pub precision: Precision,
    pub kind: ValueKind,
    coords: PyReadonlyArray2<'py, f32>,
    n: usize,
    component: PerQuery<'static, u8>,
    mode: PerQuery<'static, OffsetMode>,
    offsets: PerQuery<'static, Offsets>,
    dref: PerQuery<'static, f32>,
}

impl Prepared<'_> {
    /// The queries, reading the coordinates in place.
    pub fn queries(&self) -> PyResult<Queries<'_>> {
        Ok(Queries {
            dim: self.dim,
            compare: self.compare,
            coords: self.coords.as_slice().map_err(value_error)?,
            n: self.n,
            component: self.component.borrow(),
            mode: self.mode.borrow(),
            offsets: self.offsets.borrow(),
            dref: self.dref.borrow(),
        })
    }
}

/// The arguments `gather` and `check` take (beyond the texture and sampler), read and checked.
pub struct Args<'a, 'py> {
    pub coords: &'a Bound<'py, PyAny>,
    pub component: Option<&'a Bound<'py, PyAny>>,
    pub offset_kind: Option<&'a Bound<'py, PyAny>>,
    pub offset: Option<&'a Bound<'py, PyAny>>,
    pub offsets: Option<&'a Bound<'py, PyAny>>,
    pub dref: Option<&'a Bound<'py, PyAny>>,
    pub precision: Option<&'a Bound<'py, PyAny>>,
}

/// Reads and checks the arguments against `texture`.
pub fn prepare<'py>(texture: &Texture, a: &Args<'_, 'py>) -> PyResult<Prepared<'py>> {
    let kind = texture.inner.kind();
    let k = coord_count(kind);
    let np = a.coords.py().import("numpy")?;
    let arr = np.call_method1("ascontiguousarray", (a.coords, "float32"))?;
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
    let component = component_of(a.component, n)?;
    let (mode, offsets) = offsets_of(a.offset_kind, a.offset, a.offsets, n)?;
    let dref = dref_of(a.dref, n)?;
    let compare = !dref.is_none();
    Ok(Prepared {
        dim: kind,
        compare,
        precision: precision_of(a.precision)?,
        kind: result_kind(texture.inner.format(), compare),
        coords: c,
        n,
        component,
        mode,
        offsets,
        dref,
    })
}
