//! `Texture` and `Sampler`: numpy texels validated against the format, the sampler with the
//! JSON files' names.

use std::sync::Arc;

use numpy::{PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use tld4_gather_cases::{BorderSpec, PrecisionSpec};
use tld4_textures::{
    AddressMode, Class, CompareOp, Format, Precision, Sampler as RustSampler, Source, StorageWidth,
    Swizzle, Texture as RustTexture, TextureDesc, TextureKind,
};

use crate::errors::value_error;
use crate::names::{from_name, from_py, name_of};

/// The storage layers a kind keeps for `layers` (1 for 2D, 6 a cube).
fn storage_layers(kind: TextureKind, layers: u32) -> u64 {
    match kind {
        TextureKind::Tex2D => 1,
        TextureKind::Tex2DArray => layers as u64,
        TextureKind::Cube => 6,
        TextureKind::CubeArray => 6 * layers as u64,
    }
}

/// The dtypes a format's fields are given in: the unsigned one first (the raw bits), then
/// the signed or float one that holds the same bits.
fn dtypes(format: Format) -> (&'static str, Option<&'static str>) {
    if format.is_packed() {
        return ("uint32", None);
    }
    let float = matches!(format.class(0), Class::Float);
    let signed = format.field_is_signed(0);
    match format.storage() {
        StorageWidth::U8 => ("uint8", signed.then_some("int8")),
        StorageWidth::U16 => (
            "uint16",
            if float {
                Some("float16")
            } else {
                signed.then_some("int16")
            },
        ),
        StorageWidth::U32 => (
            "uint32",
            if float {
                Some("float32")
            } else {
                signed.then_some("int32")
            },
        ),
    }
}

/// The expected shape, written for a message: `(6, h, w, 4)`.
fn shape_text(kind: TextureKind, layers: u32, fields: usize) -> String {
    let mut parts = Vec::new();
    if kind != TextureKind::Tex2D {
        parts.push(storage_layers(kind, layers).to_string());
    }
    parts.push("h".into());
    parts.push("w".into());
    if fields > 1 {
        parts.push(fields.to_string());
    }
    format!("({})", parts.join(", "))
}

/// The raw fields of `texels` (layer-major, then rows, then texels, then fields), with the
/// width and height, after checking its shape and dtype against the format and kind.
fn fields_of(
    texels: &Bound<'_, PyAny>,
    kind: TextureKind,
    format: Format,
    layers: u32,
) -> PyResult<(u32, u32, Vec<u32>)> {
    let py = texels.py();
    let np = py.import("numpy")?;
    let arr = np.call_method1("ascontiguousarray", (texels,))?;
    let dtype: String = arr.getattr("dtype")?.getattr("name")?.extract()?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let nf = format.fields();
    let (raw, alt) = dtypes(format);
    let want = shape_text(kind, layers, nf);
    let dtype_text = match alt {
        Some(a) => format!("{raw} or {a}"),
        None => raw.to_string(),
    };
    let bad = || {
        value_error(format!(
            "texels of a {} {} texture{}: expected shape {want} and dtype {dtype_text}; got shape {shape:?} and dtype {dtype}",
            name_of(&kind),
            name_of(&format),
            if kind.is_array() { format!(" of {layers} layers") } else { String::new() },
        ))
    };
    let lead = usize::from(kind != TextureKind::Tex2D);
    let rank = lead + 2 + usize::from(nf > 1);
    if shape.len() != rank {
        return Err(bad());
    }
    let (h, w) = (shape[lead], shape[lead + 1]);
    let (Ok(h), Ok(w)) = (u32::try_from(h), u32::try_from(w)) else {
        return Err(bad());
    };
    // Sizes first, with the error `texel_shape` gives for them.
    let desc = TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        layers,
    };
    desc.validate().map_err(value_error)?;
    if (lead == 1 && shape[0] as u64 != storage_layers(kind, layers))
        || (nf > 1 && shape[rank - 1] != nf)
        || !(dtype == raw || alt == Some(dtype.as_str()))
    {
        return Err(bad());
    }
    // the same bits as the unsigned dtype of the element's width
    let unsigned = arr.call_method1("view", (raw,))?;
    let fields: Vec<u32> = match raw {
        "uint8" => read::<u8>(&unsigned)?,
        "uint16" => read::<u16>(&unsigned)?,
        _ => read::<u32>(&unsigned)?,
    };
    Ok((w, h, fields))
}

/// The elements of a contiguous numpy array, widened to u32.
fn read<T: numpy::Element + Copy + Into<u32>>(arr: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let a: PyReadonlyArrayDyn<'_, T> = arr.extract()?;
    let n = a.as_array().len();
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| no_memory(n as u64 * 4))?;
    out.extend(a.as_array().iter().map(|&v| v.into()));
    Ok(out)
}

/// `MemoryError` for `bytes` that could not be allocated.
fn no_memory(bytes: u64) -> PyErr {
    pyo3::exceptions::PyMemoryError::new_err(format!("no memory for the texture: {bytes} bytes"))
}

/// Whether the texture unit's storage of `desc` (one u32 a word of every texel) can be
/// allocated now: asked for and let go, so that a texture too large for the process's memory
/// (an address-space limit) is a `MemoryError`, not an abort inside the texture unit, whose
/// allocations are infallible. A check at this moment, not a reservation.
fn storage_fits(desc: &TextureDesc) -> PyResult<()> {
    let words = (desc.storage_layers() as u64)
        .saturating_mul(desc.height as u64)
        .saturating_mul(desc.width as u64)
        .saturating_mul(desc.format.words() as u64);
    let n = usize::try_from(words).map_err(|_| no_memory(words.saturating_mul(4)))?;
    Vec::<u32>::new()
        .try_reserve_exact(n)
        .map_err(|_| no_memory(words.saturating_mul(4)))
}

/// A swizzle from four names (`"r"`, `"g"`, `"b"`, `"a"`, `"zero"`, `"one"`) or a string of
/// four letters (`"bgra"`, `"rrr1"`).
fn swizzle_of(s: &Bound<'_, PyAny>) -> PyResult<Swizzle> {
    let names: Vec<String> = match s.extract::<String>() {
        Ok(text) => text.chars().map(|c| c.to_string()).collect(),
        Err(_) => s.extract()?,
    };
    if names.len() != 4 {
        return Err(value_error(format!(
            "swizzle: four sources (r, g, b, a, zero, one), got {}",
            names.len()
        )));
    }
    let mut out = [Source::R; 4];
    for (k, n) in names.iter().enumerate() {
        out[k] = from_name(n, &format!("swizzle[{k}]"))?;
    }
    Ok(Swizzle(out))
}

/// The kind, format and layer count of `Texture(...)` and `Texture.texel_shape(...)`, with
/// the same errors: a non-array kind has one layer.
fn kind_format_layers(
    kind: &str,
    format: &str,
    layers: Option<&Bound<'_, PyAny>>,
) -> PyResult<(TextureKind, Format, u32)> {
    let layers: u32 = layers.map_or(Ok(1), |l| crate::errors::int_arg(l, "layers"))?;
    let kind: TextureKind = from_name(kind, "kind")?;
    let format: Format = from_name(format, "format")?;
    if !kind.is_array() && layers != 1 {
        return Err(value_error(format!(
            "layers: a {} texture has one layer, got {layers}",
            name_of(&kind)
        )));
    }
    Ok((kind, format, layers))
}

/// A texture: kind, format, size and texels.
///
/// `Texture(kind, format, texels, layers=1, swizzle=None, residency=None)`: `kind` one of `"2d"`,
/// `"2d_array"`, `"cube"`, `"cube_array"`; `format` a format name (`"rgba8_unorm"`,
/// `"d32_float"`...); `texels` a numpy array of shape `(h, w, fields)` for 2D (the last axis
/// left out for one-field formats), with a leading axis of storage layers for the other
/// kinds (`layers`, 6, or `6 * layers`, faces +X, -X, +Y, -Y, +Z, -Z), whose dtype holds
/// the fields' bits: `uint8`/`uint16`/`uint32` as the format stores them (or `int8`..
/// `int32` for signed formats, `float16`/`float32` for float formats); packed formats
/// (`rgb10a2_unorm`, `r11g11b10_float`, `rgb9e5`, `d24_unorm_s8_uint`) take `uint32` bit
/// fields. `swizzle`: four sources, e.g. `"bgra"` or `["r", "r", "r", "one"]`.
/// `residency`: a sparse residency map (docs/sources.md, Decisions: sparse residency), a dict of
/// `tile_width`, `tile_height` and either `non_resident` (a list of [storage layer, tile x,
/// tile y], as in the JSON files) or `resident` (a `bool` array of shape (storage layers,
/// tiles down, tiles across)); a gather whose footprint touches a non-resident tile reads
/// zeros and reports it (`gather(..., return_resident=True)`, a sparse TLD4's predicate).
#[pyclass(module = "tld4", frozen)]
pub struct Texture {
    pub inner: Arc<RustTexture>,
}

#[pymethods]
impl Texture {
    #[new]
    #[pyo3(signature = (kind, format, texels, layers = None, swizzle = None, residency = None))]
    fn new(
        kind: &str,
        format: &str,
        texels: &Bound<'_, PyAny>,
        layers: Option<&Bound<'_, PyAny>>,
        swizzle: Option<&Bound<'_, PyAny>>,
        residency: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (kind, format, layers) = kind_format_layers(kind, format, layers)?;
        let (width, height, fields) = fields_of(texels, kind, format, layers)?;
        let desc = TextureDesc {
            kind,
            format,
            width,
            height,
            layers,
        };
        storage_fits(&desc)?;
        let mut tex = RustTexture::from_fields(desc, &fields).map_err(value_error)?;
        if let Some(s) = swizzle {
            tex = tex.with_swizzle(swizzle_of(s)?);
        }
        if let Some(r) = residency {
            tex = crate::residency::with_residency(tex, r)?;
        }
        Ok(Texture {
            inner: Arc::new(tex),
        })
    }

    /// The shape and dtype of the texels a texture of this kind, format and size takes, as
    /// a numpy shape tuple and the unsigned dtype of the raw bits (`uint8`, `uint16` or
    /// `uint32`; signed and float formats also take the signed or float dtype of the same
    /// width). Sizes `Texture` refuses raise the `ValueError` it raises. For example
    /// (python/tests/test_surface.py runs it):
    ///
    /// >>> tld4.Texture.texel_shape("cube", "d32_float", 8, 8)
    /// ((6, 8, 8), 'uint32')
    /// >>> tld4.Texture.texel_shape("2d_array", "rgba8_unorm", 16, 4, layers=3)
    /// ((3, 4, 16, 4), 'uint8')
    #[staticmethod]
    #[pyo3(signature = (kind, format, width, height, layers = None))]
    fn texel_shape<'py>(
        py: Python<'py>,
        kind: &str,
        format: &str,
        width: &Bound<'_, PyAny>,
        height: &Bound<'_, PyAny>,
        layers: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Bound<'py, PyTuple>, &'static str)> {
        let (kind, format, layers) = kind_format_layers(kind, format, layers)?;
        let desc = TextureDesc {
            kind,
            format,
            width: crate::errors::int_arg(width, "width")?,
            height: crate::errors::int_arg(height, "height")?,
            layers,
        };
        desc.validate().map_err(value_error)?;
        let mut shape = Vec::new();
        if kind != TextureKind::Tex2D {
            shape.push(desc.storage_layers());
        }
        shape.extend([desc.height as usize, desc.width as usize]);
        if format.fields() > 1 {
            shape.push(format.fields());
        }
        Ok((PyTuple::new(py, shape)?, dtypes(format).0))
    }

    /// The sparse residency map, or None: a dict of `tile_width`, `tile_height` and
    /// `resident`, a `bool` array of shape (storage layers, tiles down, tiles across), True
    /// where the tile is resident.
    #[getter]
    fn residency<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .residency()
            .map(|r| crate::residency::residency_dict(py, r))
            .transpose()
    }

    /// `"2d"`, `"2d_array"`, `"cube"` or `"cube_array"`.
    #[getter]
    fn kind(&self) -> String {
        name_of(&self.inner.kind())
    }

    /// The format's name.
    #[getter]
    fn format(&self) -> String {
        name_of(&self.inner.format())
    }

    /// Width in texels.
    #[getter]
    fn width(&self) -> u32 {
        self.inner.width()
    }

    /// Height in texels.
    #[getter]
    fn height(&self) -> u32 {
        self.inner.height()
    }

    /// Layers (whole cubes for a cube array).
    #[getter]
    fn layers(&self) -> u32 {
        self.inner.layers()
    }

    /// The raw fields of every texel, as a `uint32` array of shape (storage layers, h, w, 4)
    /// (fields past the format's are 0).
    fn raw_fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<u32>>> {
        let t = &self.inner;
        let (l, h, w) = (
            t.desc().storage_layers(),
            t.height() as usize,
            t.width() as usize,
        );
        let mut out = Vec::with_capacity(l * h * w * 4);
        for layer in 0..l {
            for y in 0..h {
                for x in 0..w {
                    out.extend(t.raw_fields(layer, x, y).unwrap_or([0; 4]));
                }
            }
        }
        numpy::PyArray1::from_vec(py, out).reshape(vec![l, h, w, 4])
    }

    fn __repr__(&self) -> String {
        let t = &self.inner;
        format!(
            "tld4.Texture({:?}, {:?}, {}x{}, layers={})",
            name_of(&t.kind()),
            name_of(&t.format()),
            t.width(),
            t.height(),
            t.layers()
        )
    }
}

/// A sampler, with the names of the JSON files.
///
/// `Sampler(address_u="clamp_to_edge", address_v="clamp_to_edge",
/// border="float_transparent_black", compare=None, seamless_cube=True,
/// normalized_coords=True)`: address modes
/// `repeat`, `mirrored_repeat`, `clamp_to_edge`, `clamp_to_border`,
/// `mirror_clamp_to_edge`; `border` a Vulkan name or `{"float": [r, g, b, a]}`, `{"int":
/// [...]}`, `{"words": [...]}`; `compare` None (off) or `never`, `less`, `equal`,
/// `less_or_equal`, `greater`, `not_equal`, `greater_or_equal`, `always`;
/// `normalized_coords=False`: coordinates in texels, u = s (CUDA's `normalizedCoords = 0`),
/// with clamp to edge or clamp to border on 2D and 2D array textures (docs/sources.md,
/// Unnormalized coordinates).
#[pyclass(module = "tld4", frozen)]
pub struct Sampler {
    pub inner: RustSampler,
}

#[pymethods]
impl Sampler {
    #[new]
    #[pyo3(signature = (address_u = "clamp_to_edge", address_v = "clamp_to_edge", border = None, compare = None, seamless_cube = true, normalized_coords = true))]
    fn new(
        address_u: &str,
        address_v: &str,
        border: Option<&Bound<'_, PyAny>>,
        compare: Option<&str>,
        seamless_cube: bool,
        normalized_coords: bool,
    ) -> PyResult<Self> {
        let address_u: AddressMode = from_name(address_u, "address_u")?;
        let address_v: AddressMode = from_name(address_v, "address_v")?;
        let border: BorderSpec = match border {
            Some(b) => from_py(b, "border")?,
            None => BorderSpec::default(),
        };
        let compare: Option<CompareOp> = compare.map(|c| from_name(c, "compare")).transpose()?;
        Ok(Sampler {
            inner: RustSampler {
                address_u,
                address_v,
                border: border.color(),
                compare,
                seamless_cube,
                normalized_coords,
            },
        })
    }

    /// The address mode of s.
    #[getter]
    fn address_u(&self) -> String {
        name_of(&self.inner.address_u)
    }

    /// The address mode of t.
    #[getter]
    fn address_v(&self) -> String {
        name_of(&self.inner.address_v)
    }

    /// The border colour's four raw words.
    #[getter]
    fn border_words(&self) -> [u32; 4] {
        self.inner.border.words
    }

    /// The depth compare function, or None.
    #[getter]
    fn compare(&self) -> Option<String> {
        self.inner.compare.map(|c| name_of(&c))
    }

    /// Seamless cube edges.
    #[getter]
    fn seamless_cube(&self) -> bool {
        self.inner.seamless_cube
    }

    /// Normalized coordinates (False: in texels).
    #[getter]
    fn normalized_coords(&self) -> bool {
        self.inner.normalized_coords
    }

    fn __repr__(&self) -> String {
        format!(
            "tld4.Sampler(address_u={:?}, address_v={:?}, compare={:?}, normalized_coords={})",
            name_of(&self.inner.address_u),
            name_of(&self.inner.address_v),
            self.inner.compare.map(|c| name_of(&c)),
            if self.inner.normalized_coords {
                "True"
            } else {
                "False"
            }
        )
    }
}

/// The precision model of a `precision=` argument: None (the default), `"exact"`,
/// `"default"`, or `{"fraction_bits": n, "rounding": ...}` as in the JSON files.
pub fn precision_of(p: Option<&Bound<'_, PyAny>>) -> PyResult<Precision> {
    match p {
        None => Ok(Precision::default()),
        Some(p) => Ok(from_py::<PrecisionSpec>(p, "precision")?.precision()),
    }
}
