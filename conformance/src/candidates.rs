//! The footprints the CTS accepts for one query, with the four values each reads: the loops of
//! VK-GL-CTS `isGatherOffsetsResultValid`, `isGatherResultValid` (cube) and their compare
//! forms `isGatherOffsetsCompareResultValid` / `isGatherCompareResultValid`
//! (tcuTexLookupVerifier.cpp, tcuTexCompareVerifier.cpp; docs/sources.md, Conformance verdicts).

use tld4_textures::trace::{texel_depth, texel_selected};
use tld4_textures::{border_value, OffsetMode, Sampler, Texture, TextureKind};

use crate::bounds::{
    compare_layer_range, layer_range, origin_range, origins, possible_faces, project_to_face,
    remap_cube_edge, unnormalized_bounds, wrap, CtsFace,
};
use crate::precision::CtsPrecision;
use crate::query::Query;

/// One footprint: the array layer (whole cube for cube arrays), the cube face (tld4's storage
/// numbering, 0 +X .. 5 -Z) and the origin (i0, j0) before offsets and wrapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Footprint {
    /// Array layer (0 for 2D and cube textures).
    pub layer: u32,
    /// Cube face, tld4's numbering (None for 2D kinds).
    pub face: Option<u32>,
    /// i0 = floor(u - 0.5).
    pub i0: i64,
    /// j0 = floor(v - 0.5).
    pub j0: i64,
}

impl Footprint {
    /// How far apart two footprints are: origin steps, plus a step for another layer or face.
    pub fn distance(&self, other: &Footprint) -> u64 {
        self.i0.abs_diff(other.i0)
            + self.j0.abs_diff(other.j0)
            + u64::from(self.layer != other.layer)
            + u64::from(self.face != other.face)
    }
}

/// A footprint the bounds reach, and its four values in gather order: the texels' values
/// (tld4's conversion of the gathered component, f32 or integer bits) or, with depth compare,
/// their depths as f32 bits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Where.
    pub footprint: Footprint,
    /// What it reads.
    pub values: [u32; 4],
}

/// The unnormalized coordinate ranges of one face or plane, as the CTS bounds them.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Bounds {
    /// The face they were computed on (cubes).
    pub face: Option<u32>,
    /// Range of u = s * width.
    pub u: [f32; 2],
    /// Range of v = t * height.
    pub v: [f32; 2],
}

/// Why the CTS accepts any result for a query.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case", tag = "kind"))]
pub enum Anything {
    /// A footprint within the bounds has a texel off both edges of a cube face: the CTS
    /// accepts any result there (`remapCubeEdgeCoords` finds no face).
    CubeCorner {
        /// That footprint.
        footprint: Footprint,
    },
    /// No face is possible for the direction (every coordinate within its error of 0): the
    /// result is undefined.
    NoFace,
}

/// Everything the CTS would accept for one query.
#[derive(Debug, Clone, PartialEq)]
pub enum Candidates {
    /// Any result.
    Anything(Anything),
    /// The footprints within the bounds, in the CTS's order (layer, face, j0, i0).
    Footprints {
        /// The footprints and their values.
        list: Vec<Candidate>,
        /// The coordinate ranges they come from.
        bounds: Vec<Bounds>,
    },
    /// A non-finite coordinate or layer: the CTS has no bound for it (its tests never make one).
    NoBound,
}

/// Reads the texels of footprints of one texture and sampler.
pub(crate) struct Reader<'a> {
    pub(crate) texture: &'a Texture,
    pub(crate) sampler: &'a Sampler,
    pub(crate) cts: CtsPrecision,
}

/// Base positions of a footprint in gather order: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
const BASE: [[i64; 2]; 4] = [[0, 1], [1, 1], [1, 0], [0, 0]];

impl Reader<'_> {
    /// The four texel positions of the footprint at (i, j): the base positions plus the
    /// single offset, or (i, j) plus each of the four offsets (the CTS's `SinglePixelOffsets`
    /// and `MultiplePixelOffsets`).
    fn positions(q: &Query, i: i64, j: i64) -> [[i64; 2]; 4] {
        let off = |k: usize| [q.offsets[k][0] as i64, q.offsets[k][1] as i64];
        std::array::from_fn(|k| match q.offset_mode {
            OffsetMode::None => [i + BASE[k][0], j + BASE[k][1]],
            OffsetMode::Aoffi => [i + off(0)[0] + BASE[k][0], j + off(0)[1] + BASE[k][1]],
            OffsetMode::Ptp => [i + off(k)[0], j + off(k)[1]],
        })
    }

    /// The value of texel (x, y) of storage layer `layer`, or of the border where None.
    fn value(&self, q: &Query, layer: u32, at: Option<(i64, i64)>) -> u32 {
        let format = self.texture.format();
        match (at, q.dref.is_some()) {
            (Some((x, y)), true) => {
                texel_depth(self.texture, layer as usize, x as usize, y as usize)
                    .map_or(0, f32::to_bits)
            }
            (Some((x, y)), false) => texel_selected(
                self.texture,
                q.component,
                layer as usize,
                x as usize,
                y as usize,
            )
            .unwrap_or(0),
            // tld4's border rule (docs/sources.md, Decisions): the CTS's gather tests use none.
            (None, true) => self.sampler.border.words[0],
            (None, false) => border_value(&self.sampler.border, format, q.component as usize),
        }
    }

    /// The candidates of a query.
    pub(crate) fn candidates(&self, q: &Query) -> Candidates {
        let desc = *self.texture.desc();
        if q.coords.iter().any(|c| !c.is_finite()) {
            return Candidates::NoBound;
        }
        match desc.kind {
            TextureKind::Tex2D => self.planar(q, [0, 0]),
            TextureKind::Tex2DArray => {
                let range = if q.dref.is_some() {
                    compare_layer_range(
                        desc.layers,
                        self.cts.layer_bits,
                        self.cts.layer_uvw_bits,
                        q.coords[2],
                    )
                } else {
                    layer_range(desc.layers, self.cts.layer_bits, q.coords[2])
                };
                match range {
                    Some(r) => self.planar(q, r),
                    None => Candidates::NoBound,
                }
            }
            TextureKind::Cube => self.cube(q, [0, 0]),
            TextureKind::CubeArray => {
                match layer_range(desc.layers, self.cts.layer_bits, q.coords[3]) {
                    Some(r) => self.cube(q, r),
                    None => Candidates::NoBound,
                }
            }
        }
    }

    /// 2D and 2D array: every layer in range, every origin within the u and v bounds.
    fn planar(&self, q: &Query, layers: [u32; 2]) -> Candidates {
        let (w, h) = (self.texture.width(), self.texture.height());
        let u = unnormalized_bounds(
            self.sampler.normalized_coords,
            w,
            q.coords[0],
            self.cts.coord_bits[0],
            self.cts.uvw_bits[0],
        );
        let v = unnormalized_bounds(
            self.sampler.normalized_coords,
            h,
            q.coords[1],
            self.cts.coord_bits[1],
            self.cts.uvw_bits[1],
        );
        let (Some(ir), Some(jr)) = (origin_range(u), origin_range(v)) else {
            return Candidates::NoBound;
        };
        let (is, js) = (origins(ir, w as i64), origins(jr, h as i64));
        let mut list = Vec::with_capacity(is.len() * js.len());
        for layer in layers[0]..=layers[1] {
            for &j in &js {
                for &i in &is {
                    let values = Self::positions(q, i, j).map(|[x, y]| {
                        let at = wrap(self.sampler.address_u, x, w as i64).zip(wrap(
                            self.sampler.address_v,
                            y,
                            h as i64,
                        ));
                        self.value(q, layer, at)
                    });
                    let footprint = Footprint {
                        layer,
                        face: None,
                        i0: i,
                        j0: j,
                    };
                    list.push(Candidate { footprint, values });
                }
            }
        }
        Candidates::Footprints {
            list,
            bounds: vec![Bounds { face: None, u, v }],
        }
    }

    /// Cubes: every possible face, every origin within the bounds on it; seamless edges as
    /// the CTS's `remapCubeEdgeCoords`, with any result accepted at a corner. Without
    /// seamless edges (which the CTS does not test) each face wraps with the sampler's
    /// address modes (Vulkan's rule for VK_EXT_non_seamless_cube_map; a decision of this port).
    fn cube(&self, q: &Query, cubes: [u32; 2]) -> Candidates {
        let c = [q.coords[0], q.coords[1], q.coords[2]];
        let faces = possible_faces(c, self.cts.coord_bits);
        if faces.is_empty() {
            return Candidates::Anything(Anything::NoFace);
        }
        let size = self.texture.width() as i64;
        let mut list = Vec::new();
        let mut bounds = Vec::new();
        for cube in cubes[0]..=cubes[1] {
            for &face in &faces {
                let [s, t] = project_to_face(face, c);
                let u = unnormalized_bounds(
                    true,
                    size as u32,
                    s,
                    self.cts.coord_bits[0],
                    self.cts.uvw_bits[0],
                );
                let v = unnormalized_bounds(
                    true,
                    size as u32,
                    t,
                    self.cts.coord_bits[1],
                    self.cts.uvw_bits[1],
                );
                if cube == cubes[0] {
                    bounds.push(Bounds {
                        face: Some(face.storage()),
                        u,
                        v,
                    });
                }
                let (Some(ir), Some(jr)) = (origin_range(u), origin_range(v)) else {
                    return Candidates::NoBound;
                };
                for j in origins(jr, size) {
                    for i in origins(ir, size) {
                        let footprint = Footprint {
                            layer: cube,
                            face: Some(face.storage()),
                            i0: i,
                            j0: j,
                        };
                        match self.cube_values(q, cube, face, i, j, size) {
                            Some(values) => list.push(Candidate { footprint, values }),
                            None => {
                                return Candidates::Anything(Anything::CubeCorner { footprint })
                            }
                        }
                    }
                }
            }
        }
        Candidates::Footprints { list, bounds }
    }

    /// The four values of a cube footprint; None at a corner (seamless only).
    fn cube_values(
        &self,
        q: &Query,
        cube: u32,
        face: CtsFace,
        i: i64,
        j: i64,
        size: i64,
    ) -> Option<[u32; 4]> {
        let mut values = [0u32; 4];
        for (k, [x, y]) in Self::positions(q, i, j).into_iter().enumerate() {
            values[k] = if self.sampler.seamless_cube {
                let (f, s, t) = remap_cube_edge(face, x, y, size)?;
                self.value(q, cube * 6 + f.storage(), Some((s, t)))
            } else {
                let at = wrap(self.sampler.address_u, x, size).zip(wrap(
                    self.sampler.address_v,
                    y,
                    size,
                ));
                self.value(q, cube * 6 + face.storage(), at)
            };
        }
        Some(values)
    }
}
