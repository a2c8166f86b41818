//! A gather question without a scenario file: `--texture 4x4 --coord 0.5,0.5 ...` on the
//! command line, or the same names in `tld4 serve`'s API and page URL. The question becomes
//! an ordinary scenario document ([`scenario_json`]), so it runs through the very loader and
//! executor `tld4 run` uses, and "copy as scenario" is that document.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tld4_decoder::{HandleForm, OffsetMode, Tld4};
use tld4_textures::{Class, Format, TextureKind};

/// The most texels (all layers and faces) an `index` texture may hold: its texels are written
/// into the scenario document, one number a field (a bound on the document, not on the texture
/// unit; a generated pattern has the scenario loader's own bound).
pub const MAX_INDEX_TEXELS: u64 = 1 << 20;

/// A gather question: the texture, sampler and one lane's operands, named as `tld4 explain`'s
/// flags (and `tld4 serve`'s query parameters) name them. Every field is text, as typed.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// A texture WxH (2D, cube: the face size) or WxHxL (L layers, or L cubes for a cube
    /// array) of the instruction's dimension, instead of a scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture: Option<String>,
    /// The texture's format (`tld4 gather`'s names: rgba8_unorm, r32_float, ...; default
    /// rgba32_float, whose values print as the indices themselves).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The texels: `index` (default: R = x, G = y, B = storage layer, A = the texel's number
    /// layer*W*H + y*W + x), `checker`, `checker:CELL`, `gradient` or `random:SEED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The coordinate: u,v (normalized) for 2D forms, x,y,z (a direction) for cubes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coord: Option<String>,
    /// The address mode of both axes, or u,v: repeat, mirrored_repeat, clamp_to_edge
    /// (default), clamp_to_border, mirror_clamp_to_edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// The border colour: a name (float_transparent_black, float_opaque_white, ...), four
    /// floats r,g,b,a, or four raw words 0x..,0x..,0x..,0x...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub border: Option<String>,
    /// The AOFFI offset dx,dy (-32..31 each; the instruction must be .AOFFI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<String>,
    /// The four PTP offsets x0,y0,x1,y1,x2,y2,x3,y3 in gather order x, y, z, w (-32..31
    /// each; the instruction must be .PTP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offsets: Option<String>,
    /// The depth reference (the instruction must be .DC; default 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dref: Option<String>,
    /// The sampler's compare function for .DC (default less_or_equal): never, less, equal,
    /// less_or_equal, greater, not_equal, greater_or_equal, always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<String>,
    /// The layer (array forms; for a cube array, the cube): an integer (default 0), or a float
    /// converted as the compiler converts GLSL's float layer ([`parse_layer`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    /// The texture unit's precision: `default` (8 fractional bits, round to nearest even) or
    /// `exact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<String>,
    /// Cube faces addressed one by one (the sampler's seamless_cube off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_seamless: bool,
    /// Unnormalized coordinates: u,v in texels (the sampler's normalized_coords off; CUDA's
    /// `normalizedCoords = 0`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unnormalized: bool,
}

/// A `--layer` as the lane's layer register holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerValue {
    /// The integer the layer register holds.
    pub register: u32,
    /// The float it was converted from, when the layer was given as one (GLSL's and SPIR-V's
    /// array layer is a float).
    pub from_float: Option<f32>,
}

/// Reads `--layer`: a whole number 0..65535 as the register holds it, or a float (`1.6`,
/// `-0.5`, `2.0`) converted as NVIDIA's Vulkan compiler (Mesa NAK) converts a float layer
/// before the instruction: floor(layer + 0.5) in f32, clamped to 0..65535, NaN to 0
/// (docs/sources.md, Decisions; the rule `tld4 gather` and the lavapipe cases use).
pub fn parse_layer(text: &str) -> Result<LayerValue, String> {
    let t = text.trim();
    if let Ok(layer) = t.parse::<u32>() {
        if layer > 0xffff {
            return Err(format!(
                "--layer {layer}: the unit reads a layer's bits 15:0; ptxas clamps it to 0..65535"
            ));
        }
        return Ok(LayerValue {
            register: layer,
            from_float: None,
        });
    }
    let f: f32 = t.parse().map_err(|_| {
        format!("--layer {t}: expected a whole number 0..65535 or a float (GLSL's layer, as 1.6)")
    })?;
    Ok(LayerValue {
        register: tld4_gather_cases::float_layer(f),
        from_float: Some(f),
    })
}

impl Question {
    /// The picture's legend line for a float layer (`layer 1.6 (float): floor(1.6 + 0.5) = 2`),
    /// `None` for an integer layer or none.
    pub fn float_layer_line(&self) -> Option<String> {
        let l = parse_layer(self.layer.as_deref()?).ok()?;
        let f = l.from_float?;
        Some(format!(
            "layer {f:?} (float): floor({f:?} + 0.5) = {}",
            l.register
        ))
    }

    /// For a layer given as a float: the lines saying how it became the register's integer,
    /// with the rule's provenance tag; None for an integer layer or none.
    pub fn layer_note(&self) -> Option<String> {
        let l = parse_layer(self.layer.as_deref()?).ok()?;
        let f = l.from_float?;
        Some(format!(
            "the layer {f:?} is a float, as GLSL's and SPIR-V's array layer is: converted before the TLD4 \
             as NAK does, floor({f:?} + 0.5) clamped to 0..65535 = {}; the layer register holds the integer {}\n    {}\n\n",
            l.register,
            l.register,
            super::provenance::tag("float_layer")
        ))
    }
}

/// The texture's size: width, height and layers (cubes for cube arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Layers (array forms), cubes (cube arrays), else 1.
    pub layers: u32,
}

/// Reads `WxH` or `WxHxL`.
pub fn parse_size(text: &str) -> Result<Size, String> {
    let parts: Vec<&str> = text.trim().split(['x', 'X']).collect();
    let num = |s: &str| -> Result<u32, String> {
        match s.trim().parse::<u32>() {
            Ok(0) | Err(_) => Err(format!(
                "--texture {text}: expected WxH or WxHxL with sizes of at least 1 (4x4, 8x8x3)"
            )),
            Ok(n) => Ok(n),
        }
    };
    match parts.as_slice() {
        [w, h] => Ok(Size {
            width: num(w)?,
            height: num(h)?,
            layers: 1,
        }),
        [w, h, l] => Ok(Size {
            width: num(w)?,
            height: num(h)?,
            layers: num(l)?,
        }),
        _ => Err(format!(
            "--texture {text}: expected WxH or WxHxL (4x4, 8x8x3)"
        )),
    }
}

/// A format by its `tld4 gather` name.
pub fn parse_format(text: &str) -> Result<Format, String> {
    Format::ALL
        .iter()
        .copied()
        .find(|f| f.name() == text.trim())
        .ok_or_else(|| {
            format!(
                "--format {text}: no such format; the formats are {}",
                Format::ALL.map(|f| f.name()).join(", ")
            )
        })
}

/// Comma-separated numbers of `flag`, exactly `n` of them.
fn numbers<T: std::str::FromStr>(flag: &str, text: &str, n: usize) -> Result<Vec<T>, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != n {
        return Err(format!(
            "--{flag} {text}: expected {n} comma-separated numbers"
        ));
    }
    parts
        .iter()
        .map(|p| {
            p.parse::<T>()
                .map_err(|_| format!("--{flag} {text}: `{p}` is not a number"))
        })
        .collect()
}

/// A 6-bit signed offset (the unit reads bits 5:0 as a signed value:
/// docs/sources.md, NAK conventions), checked to -32..31 so that what is asked is what is read.
fn offset6(flag: &str, v: i32) -> Result<u32, String> {
    if !(-32..=31).contains(&v) {
        return Err(format!(
            "--{flag}: {v} is outside -32..31 (offsets are 6-bit signed)"
        ));
    }
    Ok(v as u32 & 0x3f)
}

/// An f32 register value as the scenario reads it: the shortest decimal that reads back as
/// this f32 (`tld4 run`'s rule: a decimal is rounded once to f32), or `inf`/`nan` text.
fn f32_value(x: f32) -> Value {
    if x.is_nan() {
        return json!("nan");
    }
    if x.is_infinite() {
        return json!(if x > 0.0 { "inf" } else { "-inf" });
    }
    // `{:?}` always prints a fraction or an exponent, so the number reads as a float.
    serde_json::from_str(&format!("{x:?}")).unwrap_or(Value::Null)
}

/// A float of `flag`.
fn float(flag: &str, text: &str) -> Result<f32, String> {
    text.trim()
        .parse::<f32>()
        .map_err(|_| format!("--{flag} {text}: not a number"))
}

/// The `index` pattern's raw field value `n` for field `i` of `format`: 16- and 32-bit float
/// fields hold the number itself (exact up to 2^11 and 2^24), the others the raw integer;
/// a value past what the field holds exactly wraps modulo that range (a documented choice of
/// this teaching pattern, not a hardware rule).
fn index_field(format: Format, i: usize, n: u64) -> Value {
    let bits = format.field_bits(i);
    let float = i < format.components() && matches!(format.class(i), Class::Float) && bits >= 16;
    let exact_bits = if float {
        if bits == 16 {
            11
        } else {
            24
        }
    } else if format.field_is_signed(i) {
        bits - 1
    } else {
        bits
    };
    let v = n % (1u64 << exact_bits);
    if float {
        json!(v as f64)
    } else {
        json!(v)
    }
}

/// The texels of the `index` pattern, as the scenario's flat `texels` list (layer-major, then
/// rows, then the format's fields): R = x, G = y, B = storage layer, A = the texel's number
/// `layer * W * H + y * W + x`, each field as `index_field` holds it.
pub fn index_texels(format: Format, w: u32, h: u32, storage_layers: u32) -> Vec<Value> {
    let fields = format.fields();
    let mut out = Vec::with_capacity((w * h * storage_layers) as usize * fields);
    for l in 0..storage_layers as u64 {
        for y in 0..h as u64 {
            for x in 0..w as u64 {
                let n = l * w as u64 * h as u64 + y * w as u64 + x;
                for (i, v) in [x, y, l, n].iter().enumerate().take(fields) {
                    out.push(index_field(format, i, *v));
                }
            }
        }
    }
    out
}

/// The scenario document for `q` and the instruction `insn` (written as `text`): one texture
/// (header 0) and one sampler (0) behind a handle named `tex`, every lane set alike.
pub fn scenario_json(insn: &Tld4, text: &str, q: &Question) -> Result<Value, String> {
    let size = parse_size(q.texture.as_deref().unwrap_or("4x4"))?;
    let kind = tld4_emu::texture_kind(insn.dimension).unwrap_or(TextureKind::Tex2D);
    let format = parse_format(q.format.as_deref().unwrap_or("rgba32_float"))?;
    if !kind.is_array() && size.layers != 1 {
        return Err(format!(
            "--texture {}x{}x{}: the instruction's dimension {} has no layers (use WxH)",
            size.width,
            size.height,
            size.layers,
            insn.dimension.name()
        ));
    }
    if kind.is_cube() && size.width != size.height {
        return Err(format!(
            "--texture {}x{}: cube faces are square",
            size.width, size.height
        ));
    }
    let faces = if kind.is_cube() { 6 } else { 1 };
    let mut texture = Map::new();
    texture.insert(
        "dim".into(),
        serde_json::to_value(kind).map_err(|e| e.to_string())?,
    );
    texture.insert("format".into(), json!(format.name()));
    texture.insert("width".into(), json!(size.width));
    texture.insert("height".into(), json!(size.height));
    if kind.is_array() {
        texture.insert("layers".into(), json!(size.layers));
    }
    let pattern = q.pattern.as_deref().unwrap_or("index").trim();
    let (name, arg) = match pattern.split_once(':') {
        Some((n, a)) => (n, Some(a)),
        None => (pattern, None),
    };
    let arg_num = |what: &str| -> Result<u64, String> {
        arg.ok_or(format!("--pattern {pattern}: expected {name}:{what}"))?
            .parse::<u64>()
            .map_err(|_| format!("--pattern {pattern}: {what} is not a whole number"))
    };
    match (name, arg) {
        ("index", None) => {
            let count = size.width as u64 * size.height as u64 * size.layers as u64 * faces;
            if count > MAX_INDEX_TEXELS {
                return Err(format!(
                    "--texture: the index pattern writes each texel into the scenario, at most {MAX_INDEX_TEXELS} texels ({count} asked); use --pattern checker, gradient or random:SEED for larger textures"
                ));
            }
            texture.insert(
                "texels".into(),
                Value::Array(index_texels(
                    format,
                    size.width,
                    size.height,
                    size.layers * faces as u32,
                )),
            );
        }
        ("checker", None) => {
            texture.insert("generate".into(), json!({"pattern": "checker"}));
        }
        ("checker", Some(_)) => {
            let cell = arg_num("CELL")?;
            texture.insert(
                "generate".into(),
                json!({"pattern": "checker", "cell": cell}),
            );
        }
        ("gradient", None) => {
            texture.insert("generate".into(), json!({"pattern": "gradient"}));
        }
        ("random", _) => {
            let seed = arg_num("SEED")?;
            texture.insert(
                "generate".into(),
                json!({"pattern": "random", "seed": seed}),
            );
        }
        _ => {
            return Err(format!(
            "--pattern {pattern}: expected index, checker, checker:CELL, gradient or random:SEED"
        ))
        }
    }
    let sampler = sampler_json(insn, q)?;
    let mut doc = Map::new();
    doc.insert("textures".into(), json!([Value::Object(texture)]));
    doc.insert("samplers".into(), json!([sampler]));
    doc.insert(
        "handles".into(),
        json!({"tex": {"texture": 0, "sampler": 0}}),
    );
    doc.insert("instruction".into(), json!(text));
    if insn.form == HandleForm::Uniform && !insn.ur.is_urz() {
        doc.insert(
            "uniform".into(),
            json!({ format!("UR{}", insn.ur.0): "tex" }),
        );
    }
    let mut lanes = Map::new();
    lanes.insert("lanes".into(), json!("all"));
    lane_registers(insn, q, kind, &mut lanes)?;
    doc.insert("lanes".into(), json!([Value::Object(lanes)]));
    if let Some(p) = &q.precision {
        let p = match p.trim() {
            "default" | "exact" => p.trim().to_string(),
            _ => {
                return Err(format!(
                    "--precision {p}: expected default (8 fractional bits) or exact"
                ))
            }
        };
        doc.insert("config".into(), json!({ "precision": p }));
    }
    Ok(Value::Object(doc))
}

/// The sampler object: address modes, border, compare, seamless cube edges, normalized
/// coordinates.
fn sampler_json(insn: &Tld4, q: &Question) -> Result<Value, String> {
    let modes = [
        "repeat",
        "mirrored_repeat",
        "clamp_to_edge",
        "clamp_to_border",
        "mirror_clamp_to_edge",
    ];
    let address = q.address.as_deref().unwrap_or("clamp_to_edge");
    let parts: Vec<&str> = address.split(',').map(str::trim).collect();
    let (u, v) = match parts.as_slice() {
        [m] => (*m, *m),
        [a, b] => (*a, *b),
        _ => {
            return Err(format!(
                "--address {address}: expected MODE or U_MODE,V_MODE"
            ))
        }
    };
    for m in [u, v] {
        if !modes.contains(&m) {
            return Err(format!(
                "--address {address}: `{m}` is no address mode; the modes are {}",
                modes.join(", ")
            ));
        }
    }
    let mut s = Map::new();
    s.insert("address_u".into(), json!(u));
    s.insert("address_v".into(), json!(v));
    if let Some(b) = &q.border {
        let parts: Vec<&str> = b.split(',').map(str::trim).collect();
        let border = if parts.len() == 1 {
            json!(parts[0])
        } else if parts.iter().all(|p| p.starts_with("0x")) {
            let words: Result<Vec<u32>, String> = parts
                .iter()
                .map(|p| {
                    u32::from_str_radix(&p[2..], 16)
                        .map_err(|_| format!("--border {b}: `{p}` is not a 32-bit hex word"))
                })
                .collect();
            let words = words?;
            if words.len() != 4 {
                return Err(format!("--border {b}: expected four words"));
            }
            json!({ "words": words })
        } else {
            let f: Vec<f32> = numbers("border", b, 4)?;
            json!({ "float": f.iter().map(|x| f32_value(*x)).collect::<Vec<_>>() })
        };
        s.insert("border".into(), border);
    }
    if insn.depth_compare {
        s.insert(
            "compare".into(),
            json!(q.compare.as_deref().unwrap_or("less_or_equal").trim()),
        );
    } else if q.compare.is_some() {
        return Err(
            "--compare: the instruction has no .DC, so the sampler's compare is not used".into(),
        );
    }
    if q.non_seamless {
        s.insert("seamless_cube".into(), json!(false));
    }
    if q.unnormalized {
        s.insert("normalized_coords".into(), json!(false));
    }
    Ok(Value::Object(s))
}

/// Sets register `r` in `lanes`, refusing RZ and a register two operands share.
fn set(lanes: &mut Map<String, Value>, r: u32, what: &str, v: Value) -> Result<(), String> {
    if r >= 255 {
        return Err(format!(
            "{what} would be in register {r}, past R254 (the operand vector runs into RZ)"
        ));
    }
    let key = format!("R{r}");
    if lanes.contains_key(&key) {
        return Err(format!(
            "{what} is read from {key}, which another operand already uses"
        ));
    }
    lanes.insert(key, v);
    Ok(())
}

/// The lane's registers, where the instruction's operand layout reads them (docs/sources.md,
/// What ptxas emits: Ra = {layer, coordinates}, Rb = {handle, offsets, depth reference}).
fn lane_registers(
    insn: &Tld4,
    q: &Question,
    kind: TextureKind,
    lanes: &mut Map<String, Value>,
) -> Result<(), String> {
    let ra = insn.ra_layout();
    let rb = insn.rb_layout();
    let mut at = insn.ra.0 as u32;
    if ra.layer {
        let layer = match &q.layer {
            Some(l) => parse_layer(l)?.register,
            None => 0,
        };
        set(lanes, at, "the layer", json!(layer))?;
        at += 1;
    } else if q.layer.is_some() {
        return Err(format!(
            "--layer: the instruction's dimension {} reads no layer (use an ARRAY form)",
            insn.dimension.name()
        ));
    }
    let n = ra.coords as usize;
    let default = if kind.is_cube() { "1,0,0" } else { "0.5,0.5" };
    let coord = q.coord.as_deref().unwrap_or(default);
    let c: Vec<f32> = numbers("coord", coord, n).map_err(|e| {
        format!(
            "{e} ({})",
            if n == 3 {
                "a cube direction x,y,z"
            } else {
                "u,v"
            }
        )
    })?;
    for (k, x) in c.iter().enumerate() {
        set(lanes, at + k as u32, "the coordinate", f32_value(*x))?;
    }
    let b = insn.rb.0 as u32;
    if rb.handle {
        set(lanes, b, "the texture handle", json!("tex"))?;
    }
    let o = b + rb.offsets_at() as u32;
    match insn.offset_mode {
        OffsetMode::Aoffi => {
            let d: Vec<i32> = numbers("offset", q.offset.as_deref().unwrap_or("0,0"), 2)?;
            let word = offset6("offset", d[0])? | offset6("offset", d[1])? << 8;
            set(lanes, o, "the AOFFI offset", json!(format!("{word:#010x}")))?;
        }
        OffsetMode::Ptp => {
            let d: Vec<i32> = numbers(
                "offsets",
                q.offsets.as_deref().unwrap_or("0,0,0,0,0,0,0,0"),
                8,
            )?;
            let mut words = [0u32; 2];
            for (k, v) in d.iter().enumerate() {
                // Bytes {o0.x, o0.y, o1.x, o1.y}, {o2.x, o2.y, o3.x, o3.y} (NAK; emu's ptp_offsets).
                words[k / 4] |= offset6("offsets", *v)? << (8 * (k % 4));
            }
            set(
                lanes,
                o,
                "the PTP offsets",
                json!(format!("{:#010x}", words[0])),
            )?;
            set(
                lanes,
                o + 1,
                "the PTP offsets",
                json!(format!("{:#010x}", words[1])),
            )?;
        }
        _ => {}
    }
    if insn.offset_mode != OffsetMode::Aoffi && q.offset.is_some() {
        return Err("--offset: the instruction has no .AOFFI".into());
    }
    if insn.offset_mode != OffsetMode::Ptp && q.offsets.is_some() {
        return Err("--offsets: the instruction has no .PTP".into());
    }
    if rb.depth_ref {
        let d = float("dref", q.dref.as_deref().unwrap_or("0.5"))?;
        set(
            lanes,
            b + rb.depth_ref_at() as u32,
            "the depth reference",
            f32_value(d),
        )?;
    } else if q.dref.is_some() {
        return Err("--dref: the instruction has no .DC, so it reads no depth reference".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tld4_emu::{aoffi_offsets, ptp_offsets};

    fn insn(t: &str) -> Tld4 {
        tld4_decoder::parse(t).unwrap()
    }

    #[test]
    fn offsets_pack_as_the_unit_reads_them() {
        let i = insn("TLD4.R.PTP R10, R8, R20, R24, UR4, 2D ;");
        let q = Question {
            texture: Some("4x4".into()),
            offsets: Some("1,-1,2,-2,3,-3,-32,31".into()),
            ..Default::default()
        };
        let doc = scenario_json(&i, "x", &q).unwrap();
        let l = &doc["lanes"][0];
        let word = |k: &str| u32::from_str_radix(&l[k].as_str().unwrap()[2..], 16).unwrap();
        assert_eq!(
            ptp_offsets(word("R24"), word("R25")),
            [[1, -1], [2, -2], [3, -3], [-32, 31]]
        );
        let i = insn("TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;");
        let q = Question {
            offset: Some("-3,5".into()),
            ..q
        };
        let q = Question { offsets: None, ..q };
        let doc = scenario_json(&i, "x", &q).unwrap();
        let w = u32::from_str_radix(&doc["lanes"][0]["R24"].as_str().unwrap()[2..], 16).unwrap();
        assert_eq!(aoffi_offsets(w), [-3, 5]);
        assert_eq!(doc["uniform"]["UR4"], "tex");
        let q = Question {
            offset: Some("32,0".into()),
            ..q
        };
        assert!(scenario_json(&i, "x", &q).unwrap_err().contains("-32..31"));
    }

    #[test]
    fn a_float_layer_converts_as_the_compiler_does() {
        // Integers are the register as given; past 65535 is refused.
        assert_eq!(parse_layer("3").unwrap().register, 3);
        assert_eq!(parse_layer("3").unwrap().from_float, None);
        assert!(parse_layer("70000").unwrap_err().contains("0..65535"));
        // Floats: floor(l + 0.5), so halves go up (1.5 -> 2, 2.5 -> 3: not ties to even),
        // negatives clamp to 0, NaN reads 0, huge values clamp to 65535.
        let reg = |t: &str| parse_layer(t).unwrap().register;
        assert_eq!(reg("1.6"), 2);
        assert_eq!(reg("1.4"), 1);
        assert_eq!(reg("1.5"), 2);
        assert_eq!(reg("2.5"), 3);
        assert_eq!(reg("-0.7"), 0);
        assert_eq!(reg("NaN"), 0);
        assert_eq!(reg("1e9"), 65535);
        assert_eq!(parse_layer("1.6").unwrap().from_float, Some(1.6));
        assert!(parse_layer("one").unwrap_err().contains("--layer one"));
        // The note names the conversion and its provenance; an integer layer has none.
        let q = Question {
            layer: Some("1.6".into()),
            ..Default::default()
        };
        let note = q.layer_note().unwrap();
        assert!(
            note.contains("floor(1.6 + 0.5)") && note.contains("holds the integer 2"),
            "{note}"
        );
        assert!(note.contains("[model decision:"), "{note}");
        let q = Question {
            layer: Some("2".into()),
            ..Default::default()
        };
        assert_eq!(q.layer_note(), None);
    }

    #[test]
    fn the_index_pattern_encodes_each_texel() {
        let t = index_texels(Format::Rgba32Float, 3, 2, 2);
        assert_eq!(t.len(), 3 * 2 * 2 * 4);
        // Layer 1, y 1, x 2: texel number 6 + 3 + 2 = 11.
        let k = ((6 + 3 + 2) * 4) as usize;
        assert_eq!(
            &t[k..k + 4],
            &[json!(2.0), json!(1.0), json!(1.0), json!(11.0)]
        );
        // 8-bit fields hold the raw integer, wrapped at 256.
        let t = index_texels(Format::Rgba8Unorm, 20, 20, 1);
        assert_eq!(t[(399 * 4 + 3) as usize], json!(399 % 256));
    }

    #[test]
    fn wrong_questions_are_refused_with_the_flag() {
        let i = insn("TLD4.R R8, R20, R24, UR4, 2D ;");
        let ask = |q: Question| scenario_json(&i, "x", &q).unwrap_err();
        let e = ask(Question {
            texture: Some("4x0".into()),
            ..Default::default()
        });
        assert!(e.contains("--texture"), "{e}");
        let e = ask(Question {
            layer: Some("1".into()),
            ..Default::default()
        });
        assert!(e.contains("--layer"), "{e}");
        let e = ask(Question {
            coord: Some("0.5".into()),
            ..Default::default()
        });
        assert!(e.contains("2 comma-separated"), "{e}");
        let e = ask(Question {
            address: Some("wrapz".into()),
            ..Default::default()
        });
        assert!(e.contains("wrapz"), "{e}");
        let e = ask(Question {
            format: Some("rgba9".into()),
            ..Default::default()
        });
        assert!(e.contains("rgba8_unorm"), "{e}");
    }
}
