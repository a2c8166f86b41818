//! The JSON model of `tld4 gather CASES.json`: serde types for the file, and the functions
//! that evaluate it ([`run`]) or check the results it holds ([`check`]).
//!
//! ```json
//! {"cases": [{
//!   "texture": {"dim": "2d", "format": "rgba8_unorm", "width": 2, "height": 2, "layers": 1,
//!               "texels": [255, 0, 0, 255,  0, 255, 0, 255,  0, 0, 255, 255,  255, 255, 255, 255],
//!               "swizzle": ["r", "g", "b", "a"],
//!               "residency": {"tile_width": 1, "tile_height": 1, "non_resident": [[0, 1, 1]]}},
//!   "sampler": {"address_u": "clamp_to_edge", "address_v": "repeat",
//!               "border": "float_opaque_black", "compare": null, "seamless_cube": true},
//!   "precision": {"fraction_bits": 8, "rounding": "nearest_even"},
//!   "queries": [{"coord": [0.5, 0.5], "component": 0, "offset": [-1, 0], "dref": null}]
//! }]}
//! ```
//!
//! * `texels`: layer-major (cube layers are cube * 6 + face, faces +X, -X, +Y, -Y, +Z, -Z),
//!   then rows (y), then texels (x), then the format's raw fields ([`Format::fields`]): integers
//!   for UNORM, SNORM, sRGB, UINT and SINT (SNORM/SINT may be negative), numbers for the 16- and
//!   32-bit float formats (rounded to nearest even; "NaN", "inf", "-inf" as strings), and the
//!   bit fields as integers for the packed formats (rgb10a2_unorm: r, g, b, a;
//!   r11g11b10_float: the r, g, b float bit patterns; rgb9e5: r, g, b mantissas, exponent;
//!   d24_unorm_s8_uint: depth code, stencil).
//! * `border`: a name (`float_transparent_black`, `float_opaque_black`, `float_opaque_white`,
//!   `int_transparent_black`, `int_opaque_black`, `int_opaque_white`) or custom words:
//!   `{"words": [u32; 4]}`, `{"float": [4 numbers]}`, `{"int": [4 integers]}`.
//! * `coord`: [s, t] (2d), [s, t, layer] (2d_array), [x, y, z] (cube), [x, y, z, layer]
//!   (cube_array). A layer is a float converted as Mesa's NVIDIA compiler does,
//!   floor(layer + 0.5) in f32, clamped to 0..=65535 (NaN: 0), then clamped by the texture unit.
//! * `dref` present means a depth-compare gather (the sampler's `compare` must be set).
//! * Optional keys: `swizzle`, custom `border`, `seamless_cube` (default true),
//!   `normalized_coords` (default true; false: `coord` s, t in texels), `precision`
//!   (`"exact"` or `{"fraction_bits", "rounding": "nearest_even" | "toward_zero" | "floor"}`),
//!   `residency` (tiles listed in `non_resident` as [storage layer, tile x, tile y]), `result`.
//! * `result`: four numbers: f32 values printed as the shortest decimal that reads back to
//!   the same f32 (non-finite as strings), UINT results as unsigned and SINT results as signed
//!   integers.
//!
//! Unknown keys are errors, and every error names its JSON path (`cases[3].queries[7].offset`).

#![warn(missing_docs)]
#![deny(unsafe_code)]

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

mod num;
mod precision;

pub use num::Num;
pub use precision::{PrecisionName, PrecisionSpec, MAX_FRACTION_BITS};

use tld4_textures::{
    AddressMode, BorderColor, Class, CompareOp, Error, Format, GatherOp, GatherQuery, GatherResult,
    Gatherer, NotModeled, OffsetMode, Precision, Residency, Rounding, Sampler, Source, Swizzle,
    Texture, TextureDesc, TextureKind, ValueKind,
};

/// A whole cases file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CasesFile {
    /// The cases.
    pub cases: Vec<Case>,
}

/// One texture and sampler, and the queries made on them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The texture.
    pub texture: TextureSpec,
    /// The sampler.
    pub sampler: SamplerSpec,
    /// Sub-texel precision model (default: 8 fractional bits, round to nearest even).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<PrecisionSpec>,
    /// The queries.
    pub queries: Vec<QuerySpec>,
}

/// The texture of a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextureSpec {
    /// Kind.
    pub dim: TextureKind,
    /// Format.
    pub format: Format,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Layers (whole cubes for cube_array; 1 for 2d and cube). Default 1.
    #[serde(default = "one")]
    pub layers: u32,
    /// Raw texel fields, flat.
    pub texels: Vec<Num>,
    /// Component swizzle (default r, g, b, a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swizzle: Option<[Source; 4]>,
    /// Sparse residency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residency: Option<ResidencySpec>,
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// A sparse residency map: every tile resident except those listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResidencySpec {
    /// Tile width in texels.
    pub tile_width: u32,
    /// Tile height in texels.
    pub tile_height: u32,
    /// Non-resident tiles as [storage layer, tile x, tile y].
    #[serde(default)]
    pub non_resident: Vec<[u32; 3]>,
}

/// The sampler of a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamplerSpec {
    /// Address mode of s.
    pub address_u: AddressMode,
    /// Address mode of t.
    pub address_v: AddressMode,
    /// Border colour (default float_transparent_black).
    #[serde(default)]
    pub border: BorderSpec,
    /// Depth compare function, null for off.
    #[serde(default)]
    pub compare: Option<CompareOp>,
    /// Seamless cube edges (default true).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub seamless_cube: bool,
    /// Normalized coordinates (default true); false: coordinates in texels, u = s
    /// (docs/sources.md, Unnormalized coordinates).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub normalized_coords: bool,
}

/// A border colour: a Vulkan name or custom words (exactly one of `words`, `float`, `int`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum BorderSpec {
    /// One of Vulkan's six named colours.
    Named(NamedBorder),
    /// Four raw words.
    Words {
        /// R, G, B, A words.
        words: [u32; 4],
    },
    /// Four floats.
    Float {
        /// R, G, B, A.
        float: [f32; 4],
    },
    /// Four signed integers.
    Int {
        /// R, G, B, A.
        int: [i32; 4],
    },
}

/// The forms a border takes, for error messages.
const BORDER_FORMS: &str = "a name (float_transparent_black, float_opaque_black, float_opaque_white, int_transparent_black, int_opaque_black, int_opaque_white), {\"words\": [4 u32]}, {\"float\": [4 numbers]} or {\"int\": [4 integers]}";

impl<'de> Deserialize<'de> for BorderSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BorderSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(BORDER_FORMS)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BorderSpec, E> {
                NamedBorder::deserialize(de::value::StrDeserializer::<E>::new(v))
                    .map(BorderSpec::Named)
                    .map_err(|_| {
                        E::custom(format!(
                            "`{v}` is not a border colour; expected {BORDER_FORMS}"
                        ))
                    })
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<BorderSpec, A::Error> {
                let mut out: Option<(String, BorderSpec)> = None;
                while let Some(key) = map.next_key::<String>()? {
                    let value = match key.as_str() {
                        "words" => BorderSpec::Words {
                            words: map.next_value()?,
                        },
                        "float" => {
                            let nums: [Num; 4] = map.next_value()?;
                            let mut float = [0.0f32; 4];
                            for (k, n) in nums.iter().enumerate() {
                                float[k] = n.as_f32();
                            }
                            BorderSpec::Float { float }
                        }
                        "int" => BorderSpec::Int {
                            int: map.next_value()?,
                        },
                        other => {
                            return Err(de::Error::custom(format!(
                                "unknown border key `{other}`; expected {BORDER_FORMS}"
                            )))
                        }
                    };
                    if let Some((first, _)) = &out {
                        return Err(de::Error::custom(format!(
                            "a border has one of `words`, `float`, `int`; this one has `{first}` and `{key}`"
                        )));
                    }
                    out = Some((key, value));
                }
                out.map(|(_, b)| b).ok_or_else(|| {
                    de::Error::custom(format!("an empty border; expected {BORDER_FORMS}"))
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl Default for BorderSpec {
    fn default() -> Self {
        BorderSpec::Named(NamedBorder::FloatTransparentBlack)
    }
}

/// Vulkan's named border colours (VkBorderColor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum NamedBorder {
    FloatTransparentBlack,
    IntTransparentBlack,
    FloatOpaqueBlack,
    IntOpaqueBlack,
    FloatOpaqueWhite,
    IntOpaqueWhite,
}

impl BorderSpec {
    /// The border words.
    pub fn color(&self) -> BorderColor {
        match self {
            BorderSpec::Named(n) => match n {
                NamedBorder::FloatTransparentBlack => BorderColor::FLOAT_TRANSPARENT_BLACK,
                NamedBorder::IntTransparentBlack => BorderColor::INT_TRANSPARENT_BLACK,
                NamedBorder::FloatOpaqueBlack => BorderColor::FLOAT_OPAQUE_BLACK,
                NamedBorder::IntOpaqueBlack => BorderColor::INT_OPAQUE_BLACK,
                NamedBorder::FloatOpaqueWhite => BorderColor::FLOAT_OPAQUE_WHITE,
                NamedBorder::IntOpaqueWhite => BorderColor::INT_OPAQUE_WHITE,
            },
            BorderSpec::Words { words } => BorderColor { words: *words },
            BorderSpec::Float { float } => BorderColor::from_f32(*float),
            BorderSpec::Int { int } => BorderColor::from_i32(*int),
        }
    }
}

/// One query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuerySpec {
    /// Coordinates (with the layer last for array kinds).
    pub coord: Vec<Num>,
    /// Component 0..=3 (default 0).
    #[serde(default)]
    pub component: u32,
    /// AOFFI offset [dx, dy].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<[i64; 2]>,
    /// PTP offsets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offsets: Option<[[i64; 2]; 4]>,
    /// Depth reference: present for a depth-compare gather.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dref: Option<Num>,
    /// The four values, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Vec<Num>>,
}

/// An error in a cases file, with the JSON path it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseError {
    /// JSON path, e.g. `cases[3].queries[7].offset` (empty for the whole document).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() || self.path == "." {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for CaseError {}

fn err(path: impl Into<String>, message: impl fmt::Display) -> CaseError {
    CaseError {
        path: path.into(),
        message: message.to_string(),
    }
}

/// Parse a cases file; structural errors name their JSON path.
pub fn parse(text: &str) -> Result<CasesFile, CaseError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let file: CasesFile = serde_path_to_error::deserialize(&mut *de)
        .map_err(|e| err(e.path().to_string(), e.inner()))?;
    // Text after the document is an error (with its line and column), not ignored.
    de.end()
        .map_err(|e| err("", format!("after the document: {e}")))?;
    Ok(file)
}

/// A case made ready to query.
#[derive(Debug, Clone)]
pub struct PreparedCase {
    /// The texture.
    pub texture: Texture,
    /// The sampler.
    pub sampler: Sampler,
    /// The precision model.
    pub precision: Precision,
}

/// Build the texture, sampler and precision of case `index`.
pub fn prepare(case: &Case, index: usize) -> Result<PreparedCase, CaseError> {
    let at = |rest: &str| format!("cases[{index}].{rest}");
    let texture = build_texture(&case.texture, &at("texture"))?;
    let sampler = build_sampler(&case.sampler, &at("sampler"))?;
    let precision = case
        .precision
        .map_or(Precision::default(), |p| p.precision());
    if let Precision::Fixed { fraction_bits, .. } = precision {
        if fraction_bits > MAX_FRACTION_BITS {
            return Err(err(
                at("precision.fraction_bits"),
                format!("must be 0..={MAX_FRACTION_BITS}"),
            ));
        }
    }
    Ok(PreparedCase {
        texture,
        sampler,
        precision,
    })
}

/// Build a texture from its JSON model; errors name paths under `path` (e.g.
/// `cases[0].texture`). Also used by scenario files, so both read texels alike.
pub fn build_texture(t: &TextureSpec, path: &str) -> Result<Texture, CaseError> {
    let at = |rest: &str| {
        if rest.is_empty() {
            path.to_string()
        } else {
            format!("{path}.{rest}")
        }
    };
    let desc = TextureDesc {
        kind: t.dim,
        format: t.format,
        width: t.width,
        height: t.height,
        layers: t.layers,
    };
    let f = t.format;
    let nf = f.fields();
    let need = (desc.width as usize)
        .saturating_mul(desc.height as usize)
        .saturating_mul(desc.layers as usize * if t.dim.is_cube() { 6 } else { 1 })
        .saturating_mul(nf);
    if t.texels.len() != need {
        return Err(err(
            at("texels"),
            format!(
                "a {}x{} {} texture with {} layer(s) of {} needs {} values ({} per texel), got {}",
                t.width,
                t.height,
                kind_name(t.dim),
                t.layers,
                f.name(),
                need,
                nf,
                t.texels.len()
            ),
        ));
    }
    let mut fields = Vec::with_capacity(need);
    for (k, v) in t.texels.iter().enumerate() {
        fields.push(texel_field(f, k % nf, *v).map_err(|m| err(at(&format!("texels[{k}]")), m))?);
    }
    let texture = Texture::from_fields(desc, &fields).map_err(|e| err(at(""), e))?;
    finish_texture(texture, t.swizzle, t.residency.as_ref(), path)
}

/// Applies a texture's optional `swizzle` and `residency` keys; errors name paths under
/// `path`. Also used for the generated textures of scenario files.
pub fn finish_texture(
    mut texture: Texture,
    swizzle: Option<[Source; 4]>,
    residency: Option<&ResidencySpec>,
    path: &str,
) -> Result<Texture, CaseError> {
    if let Some(sw) = swizzle {
        texture = texture.with_swizzle(Swizzle(sw));
    }
    if let Some(r) = residency {
        let desc = *texture.desc();
        let mut map = Residency::all_resident(&desc, r.tile_width, r.tile_height)
            .map_err(|e| err(format!("{path}.residency"), e))?;
        for (k, &[layer, tx, ty]) in r.non_resident.iter().enumerate() {
            map.set(layer as usize, tx as usize, ty as usize, false)
                .map_err(|e| err(format!("{path}.residency.non_resident[{k}]"), e))?;
        }
        texture = texture
            .with_residency(map)
            .map_err(|e| err(format!("{path}.residency"), e))?;
    }
    Ok(texture)
}

/// Build a sampler from its JSON model (`path` is kept for errors of future keys).
pub fn build_sampler(s: &SamplerSpec, _path: &str) -> Result<Sampler, CaseError> {
    Ok(Sampler {
        address_u: s.address_u,
        address_v: s.address_v,
        border: s.border.color(),
        compare: s.compare,
        seamless_cube: s.seamless_cube,
        normalized_coords: s.normalized_coords,
    })
}

fn kind_name(k: TextureKind) -> &'static str {
    match k {
        TextureKind::Tex2D => "2d",
        TextureKind::Tex2DArray => "2d_array",
        TextureKind::Cube => "cube",
        TextureKind::CubeArray => "cube_array",
    }
}

/// One JSON texel value -> the raw bits of field `i` of format `f`.
fn texel_field(f: Format, i: usize, v: Num) -> Result<u32, String> {
    let bits = f.field_bits(i);
    let float_field = i < f.components() && matches!(f.class(i), Class::Float) && bits >= 16;
    if let Num::Bits(b) = v {
        // Raw bits: the field's own bit pattern, which must fit its width.
        if bits < 32 && b >> bits != 0 {
            return Err(format!(
                "{v} does not fit the {bits}-bit field of {}",
                f.name()
            ));
        }
        return Ok(b);
    }
    if float_field {
        return Ok(if bits == 32 {
            v.as_f32().to_bits()
        } else {
            // decimal -> f64 -> f16: exact except for decimals within an f64 ulp of an f16
            // midpoint (more than 17 significant digits).
            half::f16::from_f64(v.as_f64()).to_bits() as u32
        });
    }
    let Some(n) = v.as_int() else {
        return Err(format!(
            "expected an integer raw value for {}, got {v}",
            f.name()
        ));
    };
    let max = (1i64 << bits) - 1;
    let min = if f.field_is_signed(i) {
        -(1i64 << (bits - 1))
    } else {
        0
    };
    if n < min || n > max {
        return Err(format!(
            "{n} does not fit the {bits}-bit field of {} ({min}..={max})",
            f.name()
        ));
    }
    Ok((n & max) as u32)
}

/// The gather operation and lane query of one JSON query.
pub fn query(case: &Case, q: &QuerySpec, path: &str) -> Result<(GatherOp, GatherQuery), CaseError> {
    let at = |rest: &str| format!("{path}.{rest}");
    let dim = case.texture.dim;
    let want = match dim {
        TextureKind::Tex2D => 2,
        TextureKind::Tex2DArray | TextureKind::Cube => 3,
        TextureKind::CubeArray => 4,
    };
    if q.coord.len() != want {
        return Err(err(
            at("coord"),
            format!(
                "a {} texture takes {want} coordinates, got {}",
                kind_name(dim),
                q.coord.len()
            ),
        ));
    }
    if q.component > 3 {
        return Err(err(
            at("component"),
            format!("{} is outside 0..=3", q.component),
        ));
    }
    let mut lane = GatherQuery::default();
    let c: Vec<f32> = q.coord.iter().map(|n| n.as_f32()).collect();
    match dim {
        TextureKind::Tex2D => lane.coords = [c[0], c[1], 0.0],
        TextureKind::Tex2DArray => {
            lane.coords = [c[0], c[1], 0.0];
            lane.layer = float_layer(c[2]);
        }
        TextureKind::Cube => lane.coords = [c[0], c[1], c[2]],
        TextureKind::CubeArray => {
            lane.coords = [c[0], c[1], c[2]];
            lane.layer = float_layer(c[3]);
        }
    }
    let check6 = |v: i64, p: String| -> Result<i8, CaseError> {
        if (-32..=31).contains(&v) {
            Ok(v as i8)
        } else {
            Err(err(p, format!("offset {v} is outside -32..=31")))
        }
    };
    let mut offsets = OffsetMode::None;
    match (q.offset, q.offsets) {
        (Some(_), Some(_)) => {
            return Err(err(
                at("offsets"),
                "give either offset (AOFFI) or offsets (PTP), not both",
            ))
        }
        (Some([dx, dy]), None) => {
            lane.offsets[0] = [check6(dx, at("offset[0]"))?, check6(dy, at("offset[1]"))?];
            offsets = OffsetMode::Aoffi;
        }
        (None, Some(list)) => {
            for (k, [dx, dy]) in list.iter().enumerate() {
                lane.offsets[k] = [
                    check6(*dx, at(&format!("offsets[{k}][0]")))?,
                    check6(*dy, at(&format!("offsets[{k}][1]")))?,
                ];
            }
            offsets = OffsetMode::Ptp;
        }
        (None, None) => {}
    }
    if let Some(d) = q.dref {
        lane.dref = d.as_f32();
    }
    let op = GatherOp {
        dim,
        component: q.component as u8,
        offsets,
        compare: q.dref.is_some(),
    };
    Ok((op, lane))
}

/// A float layer as NVIDIA's Vulkan compiler converts it (the texture unit's rule, defined
/// in `tld4_textures`: docs/sources.md, Decisions).
pub use tld4_textures::float_layer;

/// Run one query of a prepared case.
pub fn evaluate(
    case: &Case,
    prepared: &PreparedCase,
    q: &QuerySpec,
    path: &str,
) -> Result<GatherResult, CaseError> {
    let (op, lane) = query(case, q, path)?;
    let g = Gatherer::new(
        &prepared.texture,
        &prepared.sampler,
        &op,
        prepared.precision,
    )
    .map_err(|e| {
        let key = match &e {
            Error::NotModeled(NotModeled::OffsetsOnCube(_)) => {
                if q.offset.is_some() {
                    "offset"
                } else {
                    "offsets"
                }
            }
            Error::NotModeled(NotModeled::CompareOff | NotModeled::CompareOnColor(_)) => "dref",
            _ => "",
        };
        err(
            if key.is_empty() {
                path.to_string()
            } else {
                format!("{path}.{key}")
            },
            e,
        )
    })?;
    Ok(g.gather(&lane))
}

/// The kind of numbers a query's result holds: floats for every depth compare.
pub fn result_kind(format: Format, compare: bool) -> ValueKind {
    match (compare, format.value_kind()) {
        (true, ValueKind::Uint | ValueKind::Sint) => ValueKind::Float,
        (_, k) => k,
    }
}

/// A result as JSON numbers.
pub fn result_nums(kind: ValueKind, r: &GatherResult) -> Vec<Num> {
    r.values
        .iter()
        .map(|&b| match kind {
            ValueKind::Uint => Num::Int(b as i64),
            ValueKind::Sint => Num::Int(b as i32 as i64),
            ValueKind::Float | ValueKind::Normalized => Num::from_f32(f32::from_bits(b)),
        })
        .collect()
}

/// Evaluate every query and fill in its `result`.
pub fn annotate(file: &mut CasesFile) -> Result<(), CaseError> {
    for (ci, case) in file.cases.iter_mut().enumerate() {
        let prepared = prepare(case, ci)?;
        let kind_case = case.clone();
        for (qi, q) in case.queries.iter_mut().enumerate() {
            let path = format!("cases[{ci}].queries[{qi}]");
            let r = evaluate(&kind_case, &prepared, q, &path)?;
            let kind = result_kind(prepared.texture.format(), q.dref.is_some());
            q.result = Some(result_nums(kind, &r));
        }
    }
    Ok(())
}

/// `tld4 gather CASES.json`: the file printed back with a `result` in every query.
pub fn run(text: &str) -> Result<String, CaseError> {
    let mut file = parse(text)?;
    annotate(&mut file)?;
    let value = serde_json::to_value(&file).map_err(|e| err("", e))?;
    let mut out = String::new();
    pretty(&value, 0, &mut out);
    out.push('\n');
    Ok(out)
}

/// One query whose result differs from the expected one.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// `cases[i].queries[j]`.
    pub path: String,
    /// The `result` in the file (None when it had none).
    pub expected: Option<Vec<Num>>,
    /// What the texture unit returns.
    pub got: Vec<Num>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[Num]| v.iter().map(Num::to_string).collect::<Vec<_>>().join(", ");
        match &self.expected {
            Some(e) => write!(
                f,
                "{}: expected [{}], got [{}]",
                self.path,
                list(e),
                list(&self.got)
            ),
            None => write!(
                f,
                "{}: no result to check, got [{}]",
                self.path,
                list(&self.got)
            ),
        }
    }
}

/// What `--check` found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CheckReport {
    /// Queries compared.
    pub checked: usize,
    /// Those that differ.
    pub mismatches: Vec<Mismatch>,
}

/// `tld4 gather --check`: compare every query's `result` with what the texture unit returns:
/// exactly for float and integer results, within 1 ulp for normalized formats.
pub fn check(text: &str) -> Result<CheckReport, CaseError> {
    let file = parse(text)?;
    let mut report = CheckReport::default();
    for (ci, case) in file.cases.iter().enumerate() {
        let prepared = prepare(case, ci)?;
        for (qi, q) in case.queries.iter().enumerate() {
            let path = format!("cases[{ci}].queries[{qi}]");
            let r = evaluate(case, &prepared, q, &path)?;
            let kind = result_kind(prepared.texture.format(), q.dref.is_some());
            let got = result_nums(kind, &r);
            report.checked += 1;
            let ok = match &q.result {
                Some(e) if e.len() == 4 => e
                    .iter()
                    .zip(r.values)
                    .all(|(e, g)| value_matches(kind, *e, g)),
                Some(e) => {
                    return Err(err(
                        format!("{path}.result"),
                        format!("a result has 4 values, got {}", e.len()),
                    ))
                }
                None => false,
            };
            if !ok {
                report.mismatches.push(Mismatch {
                    path,
                    expected: q.result.clone(),
                    got,
                });
            }
        }
    }
    Ok(report)
}

/// Does an expected JSON number match the result bits? Floats exactly (NaN matches NaN,
/// 0 matches -0), normalized values within 1 ulp, integers exactly (a SINT result may be
/// written signed or as its unsigned bit pattern, and a UINT one as a negative i32).
pub fn value_matches(kind: ValueKind, expected: Num, got: u32) -> bool {
    match kind {
        ValueKind::Float | ValueKind::Normalized => {
            let e = expected.as_f32();
            let g = f32::from_bits(got);
            if e.is_nan() || g.is_nan() {
                return e.is_nan() && g.is_nan();
            }
            let tolerance = if kind == ValueKind::Normalized { 1 } else { 0 };
            ulp_distance(e, g) <= tolerance
        }
        ValueKind::Uint | ValueKind::Sint => match expected.as_int() {
            Some(n) if (i32::MIN as i64..=u32::MAX as i64).contains(&n) => n as u32 == got,
            _ => false,
        },
    }
}

/// Distance in ulps between two non-NaN f32 (0 between 0.0 and -0.0).
pub fn ulp_distance(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let b = x.to_bits();
        if b >> 31 == 1 {
            -((b & 0x7fff_ffff) as i64)
        } else {
            b as i64
        }
    };
    key(a).abs_diff(key(b))
}

/// The order keys print in: the schema's.
const KEY_ORDER: [&str; 31] = [
    "cases",
    "texture",
    "sampler",
    "precision",
    "queries",
    "dim",
    "format",
    "width",
    "height",
    "layers",
    "texels",
    "swizzle",
    "residency",
    "tile_width",
    "tile_height",
    "non_resident",
    "address_u",
    "address_v",
    "border",
    "compare",
    "seamless_cube",
    "normalized_coords",
    "fraction_bits",
    "rounding",
    "coord",
    "component",
    "offset",
    "offsets",
    "dref",
    "result",
    "words",
];

/// Indented JSON, keys in schema order, arrays of scalars kept on one line.
fn pretty(v: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let pad = |n: usize| "  ".repeat(n);
    let scalar = |v: &Value| !v.is_object() && !v.is_array();
    match v {
        Value::Object(map) if !map.is_empty() => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|k| {
                (
                    KEY_ORDER
                        .iter()
                        .position(|o| o == k)
                        .unwrap_or(KEY_ORDER.len()),
                    k.as_str(),
                )
            });
            out.push_str("{\n");
            for (n, key) in keys.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push_str(": ");
                pretty(&map[key.as_str()], indent + 1, out);
                if n + 1 < keys.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(indent));
            out.push('}');
        }
        Value::Array(items)
            if items
                .iter()
                .all(|i| scalar(i) || i.as_array().is_some_and(|a| a.iter().all(scalar))) =>
        {
            // scalars, or short arrays of scalars (PTP offsets): one line
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                pretty(item, indent, out);
            }
            out.push(']');
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (n, item) in items.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                pretty(item, indent + 1, out);
                if n + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(indent));
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
