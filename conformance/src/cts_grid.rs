//! The CTS's texture-gather test grid, generated as VK-GL-CTS
//! `vktShaderRenderTextureGatherTests.cpp` generates it
//! (docs/sources.md, Conformance verdicts): its textures (random colour tiles from its `de::Random`, base seed 0), samplers,
//! iterations (components, offsets, offset arrays, layers, faces) and the per-pixel queries of
//! its 64 x 64 render (coordinates interpolated across the quad, the depth reference, the
//! dynamic offsets). Not ported: the filter-mode and base-level groups (a gather ignores the
//! filter; tld4 models level 0 only), and the sparse and compute variants (the same queries).

use tld4_textures::{
    AddressMode, CompareOp, Format, OffsetMode, Sampler, Source, Swizzle, Texture, TextureDesc,
    TextureKind,
};

use crate::query::Query;

/// The CTS's random number generator (`deRandom`: xorshift128 seeded as `deRandom_init`).
#[derive(Debug, Clone)]
pub struct DeRandom {
    x: u32,
    y: u32,
    z: u32,
    w: u32,
}

impl DeRandom {
    /// Seeded as `deRandom_init`.
    pub fn new(seed: u32) -> Self {
        DeRandom {
            x: (seed as i32).wrapping_neg() as u32 ^ 123_456_789,
            y: 362_436_069u32.wrapping_mul(seed),
            z: 521_288_629 ^ (seed >> 7),
            w: 88_675_123 ^ (seed << 3),
        }
    }

    /// `deRandom_getUint32`.
    pub fn next_u32(&mut self) -> u32 {
        let w = self.w;
        let t = self.x ^ (self.x << 11);
        self.x = self.y;
        self.y = self.z;
        self.z = w;
        self.w = (w ^ (w >> 19)) ^ (t ^ (t >> 8));
        self.w
    }

    /// `de::Random::getFloat(min, max)`: min + (max - min) * (28 random bits / 2^28), in f32.
    pub fn float(&mut self, min: f32, max: f32) -> f32 {
        let unit = (self.next_u32() & 0x0fff_ffff) as f32 / (0x1000_0000u32 as f32);
        min + (max - min) * unit
    }
}

/// A texture format of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridFormat {
    /// `rgba8`: RGBA8 UNORM.
    Rgba8,
    /// `rgba8ui`.
    Rgba8Ui,
    /// `rgba8i`.
    Rgba8I,
    /// `depth32f`, gathered with depth compare.
    Depth32F,
}

impl GridFormat {
    /// All four, in the CTS's order.
    pub const ALL: [GridFormat; 4] = [
        GridFormat::Rgba8,
        GridFormat::Rgba8Ui,
        GridFormat::Rgba8I,
        GridFormat::Depth32F,
    ];

    fn format(self) -> Format {
        match self {
            GridFormat::Rgba8 => Format::Rgba8Unorm,
            GridFormat::Rgba8Ui => Format::Rgba8Uint,
            GridFormat::Rgba8I => Format::Rgba8Sint,
            GridFormat::Depth32F => Format::D32Float,
        }
    }

    fn is_depth(self) -> bool {
        self == GridFormat::Depth32F
    }

    /// The range of the random tile colours (`getTextureFormatInfo`'s valueMin/valueMax).
    fn value_range(self) -> (f32, f32) {
        match self {
            GridFormat::Rgba8 | GridFormat::Depth32F => (0.0, 1.0),
            GridFormat::Rgba8Ui => (0.0, 255.0),
            GridFormat::Rgba8I => (-128.0, 127.0),
        }
    }

    /// A float colour component stored as the format stores it (`tcu::clear`: UNORM scaled by
    /// 255, integers as they are, each rounded to nearest even and saturated).
    fn field(self, v: f32) -> u32 {
        match self {
            GridFormat::Rgba8 => (v * 255.0).round_ties_even().clamp(0.0, 255.0) as u32,
            GridFormat::Rgba8Ui => v.round_ties_even().clamp(0.0, 255.0) as u32,
            GridFormat::Rgba8I => (v.round_ties_even().clamp(-128.0, 127.0) as i32 & 0xff) as u32,
            GridFormat::Depth32F => v.to_bits(),
        }
    }
}

/// Which gather function a case calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GatherType {
    /// `textureGather`.
    Basic,
    /// `textureGatherOffset` with a constant offset.
    Offset,
    /// `textureGatherOffset` with an offset varying by pixel.
    OffsetDynamic,
    /// `textureGatherOffsets`.
    Offsets,
}

/// The offset range a case uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetSize {
    /// No offsets (basic gathers).
    None,
    /// The range every implementation supports, -8..=7.
    MinimumRequired,
    /// The implementation's range: -32..=31 here, the offsets NVIDIA's texture unit reads (6
    /// bits signed, docs/sources.md); offset arrays use exactly -32 and 31 (the CTS's fixed
    /// implementation values).
    Implementation,
}

impl OffsetSize {
    fn range(self) -> (i32, i32) {
        match self {
            OffsetSize::None => (0, 0),
            OffsetSize::MinimumRequired => (-8, 7),
            OffsetSize::Implementation => (-32, 31),
        }
    }
}

/// One iteration's gather arguments (`GatherArgs`): the component (None: implicit, 0) and
/// the offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatherArgs {
    /// Explicit component, or None.
    pub component: Option<u8>,
    /// Offsets (entry 0 for single offsets).
    pub offsets: [[i32; 2]; 4],
}

/// A case of the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct GridCase {
    /// Its name in the CTS's hierarchy (below `texture_gather`).
    pub name: String,
    /// Texture kind.
    pub kind: TextureKind,
    /// Format.
    pub format: GridFormat,
    /// Gather function.
    pub gather: GatherType,
    /// Offset range.
    pub offset_size: OffsetSize,
    /// Width, height, layers (cubes: size, size, 1).
    pub size: [u32; 3],
    /// Address modes (s, t).
    pub wrap: [AddressMode; 2],
    /// Depth compare (depth32f only).
    pub compare: Option<CompareOp>,
    /// Texture swizzle (the texture_swizzle group).
    pub swizzle: Option<[Source; 4]>,
    /// Cubes: whether the quad reaches the cube's corners.
    pub corners: bool,
}

/// The render's size, in pixels a side (`RENDER_SIZE`).
pub const RENDER_SIZE: u32 = 64;

fn div_round_to_zero(a: i32, b: i32) -> i32 {
    a / b
}

/// `generateBasic2DCaseIterations`.
fn basic_iterations(gather: GatherType, size: OffsetSize, format: GridFormat) -> Vec<GatherArgs> {
    let components = if format.is_depth() { 1 } else { 5 };
    let (min, max) = size.range();
    let (hmin, hmax) = (div_round_to_zero(min, 2), div_round_to_zero(max, 2));
    let mut out = Vec::new();
    for case in 0..components {
        let component = (case > 0).then(|| (case - 1) as u8);
        let args = |o: [[i32; 2]; 4]| GatherArgs {
            component,
            offsets: o,
        };
        let z = [0, 0];
        match gather {
            GatherType::Basic | GatherType::OffsetDynamic => out.push(args([z; 4])),
            GatherType::Offset => {
                out.push(args([[min, max], z, z, z]));
                if case == 0 {
                    for o in [
                        [min, min],
                        [max, min],
                        [max, max],
                        [0, hmax],
                        [hmin, 0],
                        [0, 0],
                    ] {
                        out.push(args([o, z, z, z]));
                    }
                }
            }
            GatherType::Offsets => {
                if size == OffsetSize::Implementation {
                    out.push(args([[-32, -32], [-32, 31], [31, -32], [31, 31]]));
                } else {
                    out.push(args([[min, min], [min, max], [max, min], [max, max]]));
                    if case == 0 {
                        out.push(args([[min, hmax], [hmin, max], [0, hmax], [hmax, 0]]));
                    }
                }
            }
        }
    }
    out
}

/// An iteration: its gather arguments and, for 2D arrays, the layer; for cubes, the face
/// (the CTS's numbering, -X, +X, -Y, +Y, -Z, +Z).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Iteration {
    /// Gather arguments.
    pub args: GatherArgs,
    /// 2D array layer (-1..=layers: out-of-range layers are tested too).
    pub layer: i32,
    /// Cube face.
    pub face: usize,
}

impl GridCase {
    /// The iterations (`generate2DArrayCaseIterations`, `generateCubeCaseIterations`): every
    /// basic iteration on layer 0 / face -X, then one per other layer / face, of the component
    /// that layer or face picks.
    pub fn iterations(&self) -> Vec<Iteration> {
        let basic = basic_iterations(self.gather, self.offset_size, self.format);
        let one = |args: GatherArgs| Iteration {
            args,
            layer: 0,
            face: 0,
        };
        let pick = |c: i32| {
            basic
                .iter()
                .find(|a| self.format.is_depth() || a.component.map_or(-1, i32::from) == c)
                .copied()
        };
        match self.kind {
            TextureKind::Tex2D => basic.iter().map(|&a| one(a)).collect(),
            TextureKind::Tex2DArray => {
                let mut out = Vec::new();
                for layer in -1..=self.size[2] as i32 {
                    if layer == 0 {
                        out.extend(basic.iter().map(|&a| Iteration { layer, ..one(a) }));
                    } else if let Some(a) = pick((layer + 2) % 4) {
                        out.push(Iteration { layer, ..one(a) });
                    }
                }
                out
            }
            TextureKind::Cube | TextureKind::CubeArray => {
                let mut out: Vec<Iteration> = basic.iter().map(|&a| one(a)).collect();
                for face in 1..6 {
                    if let Some(a) = pick(face as i32 % 4) {
                        out.push(Iteration { face, ..one(a) });
                    }
                }
                out
            }
        }
    }

    /// The texture: random colour tiles (`fillWithRandomColorTiles`: at most 7 columns and 5
    /// rows of tiles, a random colour each, base seed 0; cube faces seeded 0 ^ face), then
    /// the case's swizzle.
    pub fn texture(&self) -> Texture {
        let [w, h, layers] = self.size;
        let (kind, storage_layers, layers) = match self.kind {
            TextureKind::Tex2D => (TextureKind::Tex2D, 1, 1),
            TextureKind::Tex2DArray => (TextureKind::Tex2DArray, layers, layers),
            _ => (TextureKind::Cube, 6, 1),
        };
        let fields_per = if self.format.is_depth() { 1 } else { 4 };
        let mut fields = vec![0u32; (w * h * storage_layers) as usize * fields_per];
        let (min, max) = self.format.value_range();
        let mut fill = |rnd: &mut DeRandom, layer: u32| {
            let cols = if w >= 7 { 7 } else { w };
            let rows = if h >= 5 { 5 } else { h };
            for row in 0..rows {
                for col in 0..cols {
                    let color: [f32; 4] = std::array::from_fn(|_| rnd.float(min, max));
                    for y in row * h / rows..(row + 1) * h / rows {
                        for x in col * w / cols..(col + 1) * w / cols {
                            let base = (((layer * h + y) * w + x) as usize) * fields_per;
                            for c in 0..fields_per {
                                fields[base + c] = self.format.field(color[c]);
                            }
                        }
                    }
                }
            }
        };
        if kind == TextureKind::Cube {
            for cts_face in 0..6u32 {
                let mut rnd = DeRandom::new(cts_face);
                // tld4's storage order: +X, -X, +Y, -Y, +Z, -Z.
                fill(&mut rnd, cts_face ^ 1);
            }
        } else {
            let mut rnd = DeRandom::new(0);
            for layer in 0..storage_layers {
                fill(&mut rnd, layer);
            }
        }
        let desc = TextureDesc {
            kind,
            format: self.format.format(),
            width: w,
            height: h,
            layers,
        };
        let tex = Texture::from_fields(desc, &fields).expect("a grid texture is well formed");
        match self.swizzle {
            Some(s) => tex.with_swizzle(Swizzle(s)),
            None => tex,
        }
    }

    /// The sampler: the case's wrap modes and compare, seamless cube edges.
    pub fn sampler(&self) -> Sampler {
        Sampler {
            address_u: self.wrap[0],
            address_v: self.wrap[1],
            compare: self.compare,
            ..Sampler::default()
        }
    }

    /// The four corners' coordinates (`computeQuadTexCoord*`): v0 (bottom left), v1 (top
    /// left), v2 (bottom right), v3 (top right).
    fn quad(&self, it: &Iteration) -> [[f32; 3]; 4] {
        let (bl, tr) = ([-0.3f32, -0.4], [1.5f32, 1.6]);
        match self.kind {
            TextureKind::Tex2D | TextureKind::Tex2DArray => {
                let l = it.layer as f32;
                [
                    [bl[0], bl[1], l],
                    [bl[0], tr[1], l],
                    [tr[0], bl[1], l],
                    [tr[0], tr[1], l],
                ]
            }
            _ => {
                let (min, max) = if self.corners {
                    ([-1.2f32, -1.2], [1.2f32, 1.2])
                } else {
                    ([-0.6, -1.2], [0.6, 1.2])
                };
                // (major row, s row, t row, major sign, s sign, t sign) per CTS face.
                let (m, s, t, ms, ss, ts) = match it.face {
                    0 => (0, 2, 1, -1.0, 1.0, -1.0),
                    1 => (0, 2, 1, 1.0, -1.0, -1.0),
                    2 => (1, 0, 2, -1.0, 1.0, -1.0),
                    3 => (1, 0, 2, 1.0, 1.0, 1.0),
                    4 => (2, 0, 1, -1.0, -1.0, -1.0),
                    _ => (2, 0, 1, 1.0, 1.0, -1.0),
                };
                let corner = |sv: f32, tv: f32| {
                    let mut v = [0f32; 3];
                    v[m] = ms;
                    v[s] = ss * sv;
                    v[t] = ts * tv;
                    v
                };
                [
                    corner(min[0], min[1]),
                    corner(min[0], max[1]),
                    corner(max[0], min[1]),
                    corner(max[0], max[1]),
                ]
            }
        }
    }

    /// The query of pixel (px, py) of an iteration: the coordinate interpolated across the
    /// quad's two triangles (`triQuadInterpolate` at the pixel's centre), the depth reference
    /// (px + 0.5) / 64 (`PixelCompareRefZDefault`), and the offsets (`SinglePixelOffsets`,
    /// `MultiplePixelOffsets`, `DynamicSinglePixelOffsets`).
    pub fn query(&self, it: &Iteration, px: u32, py: u32) -> Query {
        let q = self.quad(it);
        let n = RENDER_SIZE as f32;
        let (x, y) = ((px as f32 + 0.5) / n, (py as f32 + 0.5) / n);
        let c: [f32; 3] = std::array::from_fn(|k| {
            if x + y < 1.0 {
                q[0][k] + (q[2][k] - q[0][k]) * x + (q[1][k] - q[0][k]) * y
            } else {
                q[3][k] + (q[1][k] - q[3][k]) * (1.0 - x) + (q[2][k] - q[3][k]) * (1.0 - y)
            }
        });
        let (offset_mode, offsets) = match self.gather {
            GatherType::Basic => (OffsetMode::None, [[0i32; 2]; 4]),
            GatherType::Offset => (OffsetMode::Aoffi, it.args.offsets),
            GatherType::OffsetDynamic => {
                let (min, max) = self.offset_size.range();
                let span = max - min + 1;
                let o = [
                    (py as i32).rem_euclid(span) + min,
                    (px as i32).rem_euclid(span) + min,
                ];
                (OffsetMode::Aoffi, [o, [0; 2], [0; 2], [0; 2]])
            }
            GatherType::Offsets => (OffsetMode::Ptp, it.args.offsets),
        };
        Query {
            coords: [c[0], c[1], c[2], 0.0],
            component: if self.format.is_depth() {
                0
            } else {
                it.args.component.unwrap_or(0)
            },
            offset_mode,
            offsets: offsets.map(|[a, b]| [a as i8, b as i8]),
            dref: self.format.is_depth().then_some((px as f32 + 0.5) / n),
        }
    }
}

/// The grid (`TextureGatherTests::init`): per gather function and offset range, per texture
/// kind (cubes: basic gathers only, with and without corners), format, size (64 x 64 and
/// 17 x 23, 3 layers), compare (depth: less and greater) and wrap pair; plus the
/// texture_swizzle group of the colour formats (six rotations of R, G, B, A, ZERO, ONE,
/// repeat, 64 x 64) where the CTS adds it.
pub fn grid() -> Vec<GridCase> {
    use AddressMode::*;
    let wraps = [ClampToEdge, Repeat, MirroredRepeat];
    let kinds = [
        (TextureKind::Tex2D, "2d"),
        (TextureKind::Tex2DArray, "2d_array"),
        (TextureKind::Cube, "cube"),
    ];
    let types = [
        (GatherType::Basic, OffsetSize::None, "basic"),
        (
            GatherType::Offset,
            OffsetSize::MinimumRequired,
            "offset/min_required_offset",
        ),
        (
            GatherType::Offset,
            OffsetSize::Implementation,
            "offset/implementation_offset",
        ),
        (
            GatherType::OffsetDynamic,
            OffsetSize::MinimumRequired,
            "offset_dynamic/min_required_offset",
        ),
        (
            GatherType::OffsetDynamic,
            OffsetSize::Implementation,
            "offset_dynamic/implementation_offset",
        ),
        (
            GatherType::Offsets,
            OffsetSize::MinimumRequired,
            "offsets/min_required_offset",
        ),
        (
            GatherType::Offsets,
            OffsetSize::Implementation,
            "offsets/implementation_offset",
        ),
    ];
    let mut out = Vec::new();
    for (gather, offset_size, tname) in types {
        for (kind, kname) in kinds {
            if kind == TextureKind::Cube && gather != GatherType::Basic {
                continue;
            }
            for format in GridFormat::ALL {
                let fname = ["rgba8", "rgba8ui", "rgba8i", "depth32f"][format as usize];
                for corners in [true, false] {
                    if !corners && kind != TextureKind::Cube {
                        continue;
                    }
                    for (size, sname) in [([64, 64, 3], "size_pot"), ([17, 23, 3], "size_npot")] {
                        let size = if kind == TextureKind::Cube {
                            [size[0], size[0], 1]
                        } else {
                            size
                        };
                        let compares: &[Option<CompareOp>] = if format.is_depth() {
                            &[Some(CompareOp::Less), Some(CompareOp::Greater)]
                        } else {
                            &[None]
                        };
                        for &compare in compares {
                            for k in 0..3 {
                                let wrap = [wraps[k], wraps[(k + 1) % 3]];
                                let name = format!(
                                    "{tname}/{kname}/{fname}{}/{sname}{}/{:?}_{:?}",
                                    if corners { "" } else { "/no_corners" },
                                    compare.map_or(String::new(), |c| format!("/compare_{c:?}")),
                                    wrap[0],
                                    wrap[1]
                                );
                                out.push(GridCase {
                                    name,
                                    kind,
                                    format,
                                    gather,
                                    offset_size,
                                    size,
                                    wrap,
                                    compare,
                                    swizzle: None,
                                    corners,
                                });
                            }
                        }
                    }
                }
                if (offset_size != OffsetSize::MinimumRequired || gather == GatherType::Offsets)
                    && !format.is_depth()
                {
                    for rot in 0..6 {
                        let swizzle: [Source; 4] =
                            std::array::from_fn(|i| Source::ALL[(rot + i) % Source::ALL.len()]);
                        let size = if kind == TextureKind::Cube {
                            [64, 64, 1]
                        } else {
                            [64, 64, 3]
                        };
                        out.push(GridCase {
                            name: format!("{tname}/{kname}/{fname}/texture_swizzle/{swizzle:?}"),
                            kind,
                            format,
                            gather,
                            offset_size,
                            size,
                            wrap: [Repeat, Repeat],
                            compare: None,
                            swizzle: Some(swizzle),
                            corners: true,
                        });
                    }
                }
            }
        }
    }
    out
}
