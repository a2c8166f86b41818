//! One query as the verifier reads it: the coordinates as given (floats, the layer too), and
//! the operation's component, offsets and depth reference.

#[cfg(feature = "cases")]
use tld4_gather_cases::{Case, CaseError, QuerySpec};
use tld4_textures::{float_layer, GatherOp, GatherQuery, OffsetMode, TextureKind};

/// One gather query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Query {
    /// (s, t) for 2D, (s, t, layer) for 2D arrays, (x, y, z) for cubes, (x, y, z, layer) for
    /// cube arrays; unused entries 0. The layer is the float the shader passes.
    pub coords: [f32; 4],
    /// Component gathered (after the swizzle); ignored with depth compare.
    pub component: u8,
    /// Which offsets the gather carries.
    pub offset_mode: OffsetMode,
    /// The offsets: entry 0 for a single offset, all four for an offset array (-32..=31).
    pub offsets: [[i8; 2]; 4],
    /// The depth reference of a depth-compare gather.
    pub dref: Option<f32>,
}

impl Query {
    /// tld4's operation and lane query for this query on a `kind` texture (the layer
    /// converted as NVIDIA's compiler converts it: `tld4_gather_cases::float_layer`).
    pub fn to_model(&self, kind: TextureKind) -> (GatherOp, GatherQuery) {
        let c = self.coords;
        let mut lane = GatherQuery {
            coords: [c[0], c[1], c[2]],
            layer: 0,
            offsets: self.offsets,
            dref: self.dref.unwrap_or(0.0),
        };
        match kind {
            TextureKind::Tex2D => lane.coords[2] = 0.0,
            TextureKind::Tex2DArray => {
                lane.coords[2] = 0.0;
                lane.layer = float_layer(c[2]);
            }
            TextureKind::Cube => {}
            TextureKind::CubeArray => lane.layer = float_layer(c[3]),
        }
        let op = GatherOp {
            dim: kind,
            component: self.component,
            offsets: self.offset_mode,
            compare: self.dref.is_some(),
        };
        (op, lane)
    }

    #[cfg(feature = "cases")]
    /// A query of a `tld4 gather` cases file; errors name their JSON path under `path`.
    pub fn from_spec(case: &Case, q: &QuerySpec, path: &str) -> Result<Query, CaseError> {
        let (op, lane) = tld4_gather_cases::query(case, q, path)?;
        let mut coords = [0f32; 4];
        for (out, n) in coords.iter_mut().zip(&q.coord) {
            *out = n.as_f32();
        }
        Ok(Query {
            coords,
            component: op.component,
            offset_mode: op.offsets,
            offsets: lane.offsets,
            dref: op.compare.then_some(lane.dref),
        })
    }
}
