//! Comparison of two sets of gather results (a Vulkan driver's and the texture unit's) under
//! the agreement rules (docs/sources.md, Agreement rules): exact everywhere, normalized formats
//! within 1 ulp (lavapipe's UNORM8/SNORM8 -> float is not correctly rounded: docs/sources.md,
//! lavapipe), sRGB colour channels by 8-bit code, and the ambiguous
//! spots, where each disagreement is classified and counted but nothing is loosened elsewhere.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use tld4_gather_cases::{result_kind, ulp_distance, Case, Num, QuerySpec};
use tld4_textures::{Format, TextureKind, ValueKind};

/// Half-width of the band around a texel boundary where the 8-bit sub-texel precision model
/// and an exact float path may choose different texels (2^-8 texel: docs/sources.md, Agreement rules).
pub const BOUNDARY_BAND: f64 = 1.0 / 256.0;

/// A spot where two correct implementations may legitimately return different texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ambiguity {
    /// The array layer converts differently: Vulkan rounds to nearest even (lavapipe), NVIDIA's
    /// compiler takes floor(layer + 0.5) in f32 (docs/sources.md, Decisions); they differ at exact
    /// halves and where layer + 0.5 rounds up in f32.
    Layer,
    /// Two or three cube coordinates share the largest magnitude: the face depends on the tie
    /// rule (Vulkan leaves it to the implementation).
    CubeFaceTie,
    /// A cube footprint with one texel off both face edges (for some choice of the footprint
    /// within the boundary band): Vulkan only recommends averaging the other three ("Cube Map
    /// Edge Handling"); NVIDIA is unmeasured.
    CubeCorner,
    /// u - 0.5 or v - 0.5 lies within 2^-8 texel of an integer: the sub-texel precision model
    /// decides (Vulkan: subTexelPrecisionBits; docs/sources.md, Sub-texel model).
    Boundary,
    /// Depth compare on a UNORM depth format with dref within 1 ulp of a representable depth:
    /// the comparison then depends on the texel's UNORM -> float rounding, which lavapipe does
    /// not round correctly (docs/sources.md, lavapipe; the 1-ulp rule for normalized formats
    /// carried over).
    UnormDrefTie,
}

impl Ambiguity {
    /// Every category, in report order.
    pub const ALL: [Ambiguity; 5] = [
        Ambiguity::Layer,
        Ambiguity::CubeFaceTie,
        Ambiguity::CubeCorner,
        Ambiguity::Boundary,
        Ambiguity::UnormDrefTie,
    ];

    /// Snake-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Ambiguity::Layer => "layer_rounding",
            Ambiguity::CubeFaceTie => "cube_face_tie",
            Ambiguity::CubeCorner => "cube_corner",
            Ambiguity::Boundary => "texel_boundary",
            Ambiguity::UnormDrefTie => "unorm_dref_tie",
        }
    }
}

/// The set of ambiguities of one query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Ambiguities(u8);

impl Ambiguities {
    /// Add one.
    pub fn insert(&mut self, a: Ambiguity) {
        self.0 |= 1 << a as u8;
    }

    /// Whether `a` is in the set.
    pub fn contains(self, a: Ambiguity) -> bool {
        self.0 & (1 << a as u8) != 0
    }

    /// No ambiguity.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members, in report order.
    pub fn iter(self) -> impl Iterator<Item = Ambiguity> {
        Ambiguity::ALL
            .into_iter()
            .filter(move |a| self.contains(*a))
    }

    /// Names joined by '+', e.g. `cube_corner+texel_boundary`.
    pub fn label(self) -> String {
        self.iter()
            .map(Ambiguity::name)
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// Distance of x from the nearest integer.
fn off_integer(x: f64) -> f64 {
    (x - x.round()).abs()
}

/// Whether u - 0.5 = s * size - 0.5 lies within [`BOUNDARY_BAND`] of an integer.
fn near_boundary(s: f64, size: u32) -> bool {
    off_integer(s * size as f64 - 0.5) <= BOUNDARY_BAND
}

/// Vulkan's array layer: clamp(RNE(layer), 0, layers - 1) ("Texel Coordinate Systems",
/// the layer term of the unnormalized coordinates).
pub fn vulkan_layer(layer: f32, layers: u32) -> u32 {
    let r = layer.round_ties_even();
    if r.is_nan() || r <= 0.0 {
        0
    } else {
        (r as u64).min(layers as u64 - 1) as u32
    }
}

/// The texture unit's array layer: the compiler's floor(layer + 0.5) in f32 (docs/sources.md,
/// Decisions; `tld4_gather_cases::float_layer`), then the hardware clamp to layers - 1.
pub fn nvidia_layer(layer: f32, layers: u32) -> u32 {
    tld4_gather_cases::float_layer(layer).min(layers - 1)
}

/// Cube face selection and projection, Vulkan "Cube Map Face Selection and Transformations",
/// in f64; ties go z, then y, then x (as lavapipe does; docs/sources.md, lavapipe). Returns (face, s, t, tie).
pub fn cube_project(x: f32, y: f32, z: f32) -> (u32, f64, f64, bool) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let max = ax.max(ay).max(az);
    let tie = [ax, ay, az].iter().filter(|&&a| a == max).count() > 1;
    let (x, y, z) = (x as f64, y as f64, z as f64);
    // Vulkan's table: (sc, tc, ma) per major axis.
    let (face, sc, tc, ma) = if az >= ax && az >= ay {
        if z >= 0.0 {
            (4, x, -y, z.abs())
        } else {
            (5, -x, -y, z.abs())
        }
    } else if ay >= ax {
        if y >= 0.0 {
            (2, x, z, y.abs())
        } else {
            (3, x, -z, y.abs())
        }
    } else if x >= 0.0 {
        (0, -z, -y, x.abs())
    } else {
        (1, z, -y, x.abs())
    };
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0), tie)
}

/// Whether the footprint i0 = floor(s * size - 0.5), i1 = i0 + 1 may leave the face, for
/// any choice of i0 within the boundary band (near a boundary the corner status is itself
/// ambiguous).
fn may_leave_face(s: f64, size: u32) -> bool {
    let x = s * size as f64 - 0.5;
    (x - BOUNDARY_BAND).floor() < 0.0 || (x + BOUNDARY_BAND).floor() + 1.0 > size as f64 - 1.0
}

/// The ambiguous spots of one query (coordinates read as f32, as both sides read them).
pub fn ambiguities(case: &Case, q: &QuerySpec) -> Ambiguities {
    let t = &case.texture;
    let c: Vec<f32> = q.coord.iter().map(|n| n.as_f64() as f32).collect();
    let mut a = Ambiguities::default();
    let layer_of = |l: f32| {
        if vulkan_layer(l, t.layers.max(1)) != nvidia_layer(l, t.layers.max(1)) {
            Some(Ambiguity::Layer)
        } else {
            None
        }
    };
    match t.dim {
        TextureKind::Tex2D | TextureKind::Tex2DArray => {
            if c.len() >= 2
                && (near_boundary(c[0] as f64, t.width) || near_boundary(c[1] as f64, t.height))
            {
                a.insert(Ambiguity::Boundary);
            }
            if t.dim == TextureKind::Tex2DArray && c.len() >= 3 {
                if let Some(l) = layer_of(c[2]) {
                    a.insert(l);
                }
            }
        }
        TextureKind::Cube | TextureKind::CubeArray => {
            if c.len() >= 3 {
                let (_, s, tt, tie) = cube_project(c[0], c[1], c[2]);
                if tie {
                    a.insert(Ambiguity::CubeFaceTie);
                }
                if near_boundary(s, t.width) || near_boundary(tt, t.height) {
                    a.insert(Ambiguity::Boundary);
                }
                if may_leave_face(s, t.width) && may_leave_face(tt, t.height) {
                    a.insert(Ambiguity::CubeCorner);
                }
            }
            if t.dim == TextureKind::CubeArray && c.len() >= 4 {
                if let Some(l) = layer_of(c[3]) {
                    a.insert(l);
                }
            }
        }
    }
    if let (Some(d), Some(bits)) = (q.dref, unorm_depth_bits(t.format)) {
        let stride = t.format.fields();
        let codes = t.texels.iter().step_by(stride).filter_map(|n| n.as_int());
        if unorm_dref_tie(d.as_f64() as f32, bits, codes) {
            a.insert(Ambiguity::UnormDrefTie);
        }
    }
    a
}

/// Bits of a UNORM depth format's depth.
fn unorm_depth_bits(f: Format) -> Option<u32> {
    match f {
        Format::D16Unorm => Some(16),
        Format::D24UnormS8Uint => Some(24),
        _ => None,
    }
}

/// Whether dref, clamped to [0, 1] (Vulkan "Depth Compare Operation"), lies within 1 ulp of
/// c / (2^bits - 1), correctly rounded, for one of the texture's depth codes c.
pub fn unorm_dref_tie(dref: f32, bits: u32, codes: impl IntoIterator<Item = i64>) -> bool {
    if dref.is_nan() {
        return false;
    }
    let d = dref.clamp(0.0, 1.0);
    let max = ((1u64 << bits) - 1) as f64;
    codes
        .into_iter()
        .any(|c| ulp_distance(d, (c as f64 / max) as f32) <= 1)
}

/// How two results of one query compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Bit-identical.
    Exact,
    /// Equal except the sign of a zero (what `tld4 gather --check` accepts as equal).
    ZeroSign,
    /// A normalized result within 1 ulp, not identical.
    WithinUlp,
    /// An sRGB-decoded result that is the same 8-bit code: ours is the correctly rounded
    /// decoding of the code nearest the reference's value. lavapipe decodes sRGB with an
    /// approximation up to 1.2e-3 off (measured over all 256 codes; llvmpipe's
    /// lp_build_srgb_to_linear is a polynomial), which the 1-ulp rule cannot cover, while the
    /// nearest code is still unique (the worst margin is 7% of the code spacing).
    SrgbCode,
    /// Anything else.
    Differs,
}

/// The sRGB EOTF of the Khronos Data Format specification ("sRGB EOTF"), in f64, rounded
/// once to f32: c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055)^2.4 with c = code / 255.
pub fn srgb_decode(code: u8) -> f32 {
    let c = code as f64 / 255.0;
    (if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }) as f32
}

/// The 8-bit code whose exact decoding is nearest `v`.
pub fn nearest_srgb_code(v: f32) -> u8 {
    let mut best = 0u8;
    for c in 0..=255u8 {
        if (srgb_decode(c) as f64 - v as f64).abs() < (srgb_decode(best) as f64 - v as f64).abs() {
            best = c;
        }
    }
    best
}

/// Whether a query's result values are sRGB-decoded colour channels: an sRGB format without
/// compare, gathering a post-swizzle component that comes from R, G or B (alpha is linear
/// UNORM, Vulkan "sRGB" conversion; ZERO/ONE are constants).
pub fn gathers_srgb(case: &Case, q: &QuerySpec) -> bool {
    use tld4_textures::Source;
    if case.texture.format != Format::Rgba8Srgb || q.dref.is_some() {
        return false;
    }
    let sw = case
        .texture
        .swizzle
        .unwrap_or([Source::R, Source::G, Source::B, Source::A]);
    matches!(
        sw[(q.component as usize).min(3)],
        Source::R | Source::G | Source::B
    )
}

/// Compare a reference result with ours; `kind` is `cases::result_kind` of the query,
/// `srgb` is [`gathers_srgb`].
pub fn outcome(kind: ValueKind, srgb: bool, reference: &[Num], ours: &[Num]) -> Outcome {
    if reference.len() != 4 || ours.len() != 4 {
        return Outcome::Differs;
    }
    let mut worst = Outcome::Exact;
    for (r, o) in reference.iter().zip(ours) {
        let this = match kind {
            ValueKind::Uint | ValueKind::Sint => match (r.as_int(), o.as_int()) {
                (Some(a), Some(b)) if (a as u32) == (b as u32) => Outcome::Exact,
                _ => Outcome::Differs,
            },
            ValueKind::Float | ValueKind::Normalized => {
                let (a, b) = (r.as_f64() as f32, o.as_f64() as f32);
                if a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) {
                    Outcome::Exact
                } else if a.is_nan() || b.is_nan() {
                    Outcome::Differs
                } else if a == b {
                    Outcome::ZeroSign
                } else if kind == ValueKind::Normalized && ulp_distance(a, b) <= 1 {
                    Outcome::WithinUlp
                } else if srgb && b.to_bits() == srgb_decode(nearest_srgb_code(a)).to_bits() {
                    Outcome::SrgbCode
                } else {
                    Outcome::Differs
                }
            }
        };
        worst = worst.max_with(this);
    }
    worst
}

impl Outcome {
    fn rank(self) -> u8 {
        match self {
            Outcome::Exact => 0,
            Outcome::ZeroSign => 1,
            Outcome::WithinUlp => 2,
            Outcome::SrgbCode => 3,
            Outcome::Differs => 4,
        }
    }

    fn max_with(self, o: Outcome) -> Outcome {
        if o.rank() > self.rank() {
            o
        } else {
            self
        }
    }
}

/// A query where the two sides differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    /// `cases[i].queries[j]`.
    pub path: String,
    /// Format, kind, sampler and query in one line.
    pub what: String,
    /// The reference result (e.g. lavapipe's).
    pub reference: Vec<Num>,
    /// Ours.
    pub ours: Vec<Num>,
    /// Ambiguous spots of the query (empty for a real disagreement).
    pub ambiguities: Ambiguities,
    /// At a texel boundary: whether the texture unit with the exact precision model agrees
    /// with the reference (None: not checked).
    pub exact_precision_agrees: Option<bool>,
}

/// Counts over a corpus.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Queries compared.
    pub total: usize,
    /// Bit-identical results.
    pub exact: usize,
    /// Equal but for a zero's sign.
    pub zero_sign: usize,
    /// Normalized results within 1 ulp.
    pub within_ulp: usize,
    /// sRGB results equal as codes (lavapipe's approximate decoding).
    pub srgb_code: usize,
    /// Queries that lie in some ambiguous spot, per category (a query may count in several).
    pub ambiguous_queries: BTreeMap<&'static str, usize>,
    /// Disagreements at ambiguous spots, by category label (`a+b` for several).
    pub ambiguous_disagreements: BTreeMap<String, usize>,
    /// Of the disagreements at texel boundaries, those where the texture unit with the exact
    /// precision model (`"precision": "exact"`) agrees with the reference: the 8-bit fixed
    /// point alone explains them. Counted by `corpus::compare_with_texture_unit`.
    pub boundary_explained: usize,
    /// Every disagreement at an ambiguous spot (for inspection).
    pub ambiguous: Vec<Disagreement>,
    /// Disagreements away from ambiguous spots: a bug on one side.
    pub real: Vec<Disagreement>,
}

impl Report {
    /// Record one query.
    pub fn add(
        &mut self,
        path: String,
        case: &Case,
        q: &QuerySpec,
        reference: &[Num],
        ours: &[Num],
    ) {
        let kind = result_kind(case.texture.format, q.dref.is_some());
        let amb = ambiguities(case, q);
        self.total += 1;
        for a in amb.iter() {
            *self.ambiguous_queries.entry(a.name()).or_default() += 1;
        }
        match outcome(kind, gathers_srgb(case, q), reference, ours) {
            Outcome::Exact => self.exact += 1,
            Outcome::ZeroSign => self.zero_sign += 1,
            Outcome::WithinUlp => self.within_ulp += 1,
            Outcome::SrgbCode => self.srgb_code += 1,
            Outcome::Differs => {
                let d = Disagreement {
                    path,
                    what: describe(case, q),
                    reference: reference.to_vec(),
                    ours: ours.to_vec(),
                    ambiguities: amb,
                    exact_precision_agrees: None,
                };
                if amb.is_empty() {
                    self.real.push(d);
                } else {
                    *self.ambiguous_disagreements.entry(amb.label()).or_default() += 1;
                    self.ambiguous.push(d);
                }
            }
        }
    }

    /// Agreements (exact, zero sign, within 1 ulp, same sRGB code).
    pub fn agreeing(&self) -> usize {
        self.exact + self.zero_sign + self.within_ulp + self.srgb_code
    }

    /// The report as text; `list` caps how many disagreements of each kind are listed.
    pub fn render(&self, list: usize) -> String {
        let mut s = String::new();
        let pct = |n: usize| {
            if self.total == 0 {
                0.0
            } else {
                100.0 * n as f64 / self.total as f64
            }
        };
        let _ = writeln!(s, "queries compared:            {}", self.total);
        let _ = writeln!(
            s,
            "  exact (bit-identical):     {} ({:.2}%)",
            self.exact,
            pct(self.exact)
        );
        let _ = writeln!(s, "  equal but zero sign:       {}", self.zero_sign);
        let _ = writeln!(s, "  normalized within 1 ulp:   {}", self.within_ulp);
        let _ = writeln!(s, "  sRGB, same code:           {}", self.srgb_code);
        let amb: usize = self.ambiguous_disagreements.values().sum();
        let _ = writeln!(s, "  disagree, ambiguous spot:  {amb}");
        for (k, n) in &self.ambiguous_disagreements {
            let _ = writeln!(s, "      {k}: {n}");
        }
        let at_boundary = self
            .ambiguous
            .iter()
            .filter(|d| d.ambiguities.contains(Ambiguity::Boundary))
            .count();
        if at_boundary > 0 {
            let _ = writeln!(
                s,
                "      (of the {at_boundary} at texel boundaries, {} agree with the exact precision model)",
                self.boundary_explained
            );
        }
        let _ = writeln!(s, "  disagree, REAL:            {}", self.real.len());
        let _ = writeln!(s, "queries at ambiguous spots (agreeing or not):");
        for a in Ambiguity::ALL {
            let _ = writeln!(
                s,
                "      {}: {}",
                a.name(),
                self.ambiguous_queries.get(a.name()).copied().unwrap_or(0)
            );
        }
        for d in self.real.iter().take(list) {
            let _ = writeln!(s, "REAL {d}");
        }
        if self.real.len() > list {
            let _ = writeln!(s, "... {} more real disagreements", self.real.len() - list);
        }
        for d in self.ambiguous.iter().take(list) {
            let _ = writeln!(s, "ambiguous {d}");
        }
        if self.ambiguous.len() > list {
            let _ = writeln!(
                s,
                "... {} more ambiguous disagreements",
                self.ambiguous.len() - list
            );
        }
        s
    }
}

fn list(v: &[Num]) -> String {
    v.iter().map(Num::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}] {}: reference [{}], ours [{}]{}",
            self.path,
            if self.ambiguities.is_empty() {
                "-".to_string()
            } else {
                self.ambiguities.label()
            },
            self.what,
            list(&self.reference),
            list(&self.ours),
            match self.exact_precision_agrees {
                Some(true) => " (exact precision model agrees)",
                Some(false) => " (exact precision model differs too)",
                None => "",
            }
        )
    }
}

/// One line naming what a query does.
pub fn describe(case: &Case, q: &QuerySpec) -> String {
    let t = &case.texture;
    let s = &case.sampler;
    let mut out = format!(
        "{} {} {}x{}x{} u={:?} v={:?} border={} compare={} comp={} coord=[{}]",
        t.format.name(),
        match t.dim {
            TextureKind::Tex2D => "2d",
            TextureKind::Tex2DArray => "2d_array",
            TextureKind::Cube => "cube",
            TextureKind::CubeArray => "cube_array",
        },
        t.width,
        t.height,
        t.layers,
        s.address_u,
        s.address_v,
        serde_json::to_string(&s.border).unwrap_or_default(),
        s.compare.map_or("null".to_string(), |c| format!("{c:?}")),
        q.component,
        list(&q.coord)
    );
    if let Some(o) = q.offset {
        let _ = write!(out, " offset={o:?}");
    }
    if let Some(o) = q.offsets {
        let _ = write!(out, " offsets={o:?}");
    }
    if let Some(d) = q.dref {
        let _ = write!(out, " dref={d}");
    }
    if let Some(sw) = t.swizzle {
        let _ = write!(out, " swizzle={sw:?}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_differ_only_at_halves_and_f32_round_up() {
        assert_eq!(vulkan_layer(2.5, 8), 2, "ties to even");
        assert_eq!(nvidia_layer(2.5, 8), 3, "floor(l + 0.5)");
        assert_eq!(vulkan_layer(3.5, 8), nvidia_layer(3.5, 8));
        assert_eq!(vulkan_layer(2.4, 8), nvidia_layer(2.4, 8));
        // 0.49999997 + 0.5 rounds to 1.0 in f32.
        let l = f32::from_bits(0.5f32.to_bits() - 1);
        assert_eq!((vulkan_layer(l, 8), nvidia_layer(l, 8)), (0, 1));
        assert_eq!(vulkan_layer(-3.0, 8), 0);
        assert_eq!(vulkan_layer(99.0, 8), 7);
        assert_eq!(nvidia_layer(99.0, 8), 7);
    }

    #[test]
    fn cube_projection_follows_the_vulkan_table() {
        // +X: sc = -z, tc = -y
        let (f, s, t, tie) = cube_project(1.0, 0.5, -0.5);
        assert_eq!((f, s, t, tie), (0, 0.75, 0.25, false));
        // -Z: sc = -x, tc = -y
        let (f, s, t, _) = cube_project(0.5, 0.0, -1.0);
        assert_eq!((f, s, t), (5, 0.25, 0.5));
        // +Y: sc = x, tc = z
        let (f, s, t, _) = cube_project(-0.5, 2.0, 1.0);
        assert_eq!((f, s, t), (2, 0.375, 0.75));
        let (f, _, _, tie) = cube_project(1.0, -1.0, 0.0);
        assert_eq!((f, tie), (3, true), "ties go y before x");
    }

    #[test]
    fn outcomes_follow_the_rules() {
        let one = Num::from_f32(1.0);
        let below = Num::from_f32(f32::from_bits(1.0f32.to_bits() - 1));
        let two_below = Num::from_f32(f32::from_bits(1.0f32.to_bits() - 2));
        let r = [one, one, one, one];
        let n = ValueKind::Normalized;
        let f = ValueKind::Float;
        assert_eq!(outcome(n, false, &r, &r), Outcome::Exact);
        assert_eq!(
            outcome(n, false, &r, &[one, below, one, one]),
            Outcome::WithinUlp
        );
        assert_eq!(
            outcome(f, false, &r, &[one, below, one, one]),
            Outcome::Differs
        );
        assert_eq!(
            outcome(n, false, &r, &[one, two_below, one, one]),
            Outcome::Differs
        );
        let z = [Num::Float(0.0); 4];
        assert_eq!(
            outcome(f, false, &z, &[Num::Float(-0.0); 4]),
            Outcome::ZeroSign
        );
        let i = [Num::Int(-1); 4];
        let all_ones = [Num::Int(u32::MAX as i64); 4];
        assert_eq!(
            outcome(ValueKind::Sint, false, &i, &all_ones),
            Outcome::Exact
        );
        assert_eq!(
            outcome(ValueKind::Uint, false, &i, &[Num::Int(1); 4]),
            Outcome::Differs
        );
        assert_eq!(
            outcome(ValueKind::Uint, false, &i, &[Num::Int(1); 3]),
            Outcome::Differs
        );
        // lavapipe's decoding of sRGB code 188 (seen in a corpus) against the exact one.
        let lav = [Num::from_f32(0.5021603); 4];
        let exact = [Num::from_f32(srgb_decode(188)); 4];
        assert_eq!(outcome(n, true, &lav, &exact), Outcome::SrgbCode);
        assert_eq!(
            outcome(n, false, &lav, &exact),
            Outcome::Differs,
            "only sRGB channels"
        );
        let other = [Num::from_f32(srgb_decode(189)); 4];
        assert_eq!(
            outcome(n, true, &lav, &other),
            Outcome::Differs,
            "another code"
        );
    }

    #[test]
    fn srgb_codes_map_back_to_themselves() {
        for c in 0..=255u8 {
            assert_eq!(nearest_srgb_code(srgb_decode(c)), c);
        }
        assert_eq!(srgb_decode(255), 1.0);
        assert_eq!(srgb_decode(0), 0.0);
    }

    #[test]
    fn unorm_dref_ties_are_found() {
        let c = (12345.0f64 / 65535.0) as f32;
        let codes = [7, 12345, 65535];
        assert!(unorm_dref_tie(c, 16, codes));
        assert!(unorm_dref_tie(f32::from_bits(c.to_bits() + 1), 16, codes));
        assert!(!unorm_dref_tie(f32::from_bits(c.to_bits() + 2), 16, codes));
        assert!(
            !unorm_dref_tie(c, 16, [12346]),
            "only the texture's own codes count"
        );
        assert!(
            unorm_dref_tie(1.5, 16, codes),
            "clamped to 1.0 = 65535/65535"
        );
        assert!(!unorm_dref_tie(0.3, 16, codes));
    }

    #[test]
    fn boundary_band_is_2_to_the_minus_8() {
        // u - 0.5 = 1.5 * 4 - 0.5 ... s = 0.375 on a 4-wide texture: u - 0.5 = 1.0 exactly.
        assert!(near_boundary(0.375, 4));
        assert!(near_boundary(0.375 + 0.9 / 1024.0, 4));
        assert!(!near_boundary(0.375 + 1.1 / 1024.0, 4));
        assert!(!near_boundary(0.5, 4));
    }
}
