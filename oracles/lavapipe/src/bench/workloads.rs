//! What `tld4-lavapipe bench` runs: the gather shader with its defines, the coordinates each
//! gather moves to, and the three rows (texture, sampler, queries, and the TLD4 doing the same).

use tld4_lavapipe::rng::Rng;
use tld4_textures::TextureKind;

use crate::vulkan::{GpuQuery, Job};

/// The gather shader's source; the bench compiles it with its own defines put in front.
pub(super) const SHADER: &str = include_str!("../../shaders/gather.comp");

/// `gather.comp` with `#define GATHERS K` (and `NO_GATHER` for the twin) after `#version`.
pub(super) fn shader(gathers: usize, twin: bool) -> String {
    let (version, rest) = SHADER.split_once('\n').unwrap_or((SHADER, ""));
    format!(
        "{version}\n#define GATHERS {gathers}\n{}{rest}",
        if twin { "#define NO_GATHER\n" } else { "" }
    )
}

/// The coordinates of gather `k` of a query, as the shader's `delta(k)` moves them: s (x) by
/// k/64, t (y) by -k/128 and, on cubes, z by k/256; the layer stays. Each product is exact and
/// a shader's f32 add is correctly rounded, so the result is the shader's bit for bit
/// (docs/sources.md, lavapipe); `bench` checks it on every invocation.
pub(super) fn moved(kind: TextureKind, coord: [f32; 4], k: usize) -> [f32; 4] {
    let f = k as f32;
    let mut c = coord;
    c[0] += f * 0.015625;
    c[1] += f * -0.0078125;
    if matches!(kind, TextureKind::Cube | TextureKind::CubeArray) {
        c[2] += f * 0.003_906_25;
    }
    c
}

/// The job with each query repeated K times at its moved coordinates (query i, gather k at
/// index i * K + k): what a one-gather dispatch runs to check the K-gather one.
pub(super) fn expand(job: &Job, gathers: usize) -> Job {
    let queries = job
        .queries
        .iter()
        .flat_map(|q| {
            (0..gathers).map(move |k| GpuQuery {
                coord: moved(job.kind, q.coord, k),
                ..*q
            })
        })
        .collect();
    Job {
        queries,
        ..job.clone()
    }
}

/// Registers each lane loads before a TLD4, from R20 up.
pub(super) const FIRST_REG: u8 = 20;

/// One row: a cases-file case (texture, sampler, N queries) and the TLD4 doing the same.
pub(super) struct Row {
    pub(super) name: &'static str,
    /// The cases JSON of one case.
    pub(super) json: String,
    /// nvdisasm text of the TLD4 (handle in UR4, sources from R20, results in R8..R11).
    pub(super) insn: &'static str,
    /// A gather's values of R20, R21, ... from its query (as the shader reads it).
    pub(super) regs: fn(&GpuQuery) -> [u32; 6],
    /// (register index from R20, coordinate) of the registers holding a coordinate that
    /// [`moved`] moves: tld4's side moves them itself, as the shader does (checked against
    /// `regs` of the moved query for every gather).
    pub(super) moves: &'static [(usize, usize)],
}

/// R20.. of a 2D gather: s, t.
fn regs_2d(q: &GpuQuery) -> [u32; 6] {
    [q.coord[0].to_bits(), q.coord[1].to_bits(), 0, 0, 0, 0]
}

/// R20.. of a cube-array depth-compare gather: the layer (an integer), x, y, z, the reference.
fn regs_cube_array_dc(q: &GpuQuery) -> [u32; 6] {
    let [x, y, z, layer] = q.coord;
    [
        layer as u32,
        x.to_bits(),
        y.to_bits(),
        z.to_bits(),
        q.dref.to_bits(),
        0,
    ]
}

/// R20.. of a 2D PTP gather: s, t, then the four offsets in R24 and R25, one byte each, the
/// low 6 bits (NAK's PTP packing).
fn regs_2d_ptp(q: &GpuQuery) -> [u32; 6] {
    let byte = |v: i32| (v as u32) & 0x3f;
    let word = |o: [i32; 4]| byte(o[0]) | byte(o[1]) << 8 | byte(o[2]) << 16 | byte(o[3]) << 24;
    [
        q.coord[0].to_bits(),
        q.coord[1].to_bits(),
        0,
        0,
        word(q.off01),
        word(q.off23),
    ]
}

/// JSON of an f32 that parses back to the same f32 (the shortest f64 text of its value).
fn num(v: f32) -> String {
    format!("{:?}", v as f64)
}

fn texels(n: usize, mut f: impl FnMut() -> String) -> String {
    (0..n).map(|_| f()).collect::<Vec<_>>().join(",")
}

/// The three rows: RGBA8 2D clamp to edge; D32 cube array with depth compare; 2D with PTP.
pub(super) fn rows(n: usize) -> Vec<Row> {
    let mut rng = Rng::new(20260602);
    let rgba8 = texels(256 * 256 * 4, || rng.below(256).to_string());
    let rgba8_tex = format!(
        r#""texture": {{"dim": "2d", "format": "rgba8_unorm", "width": 256, "height": 256, "texels": [{rgba8}]}}"#
    );
    let coord = |rng: &mut Rng| rng.uniform(-0.1, 1.1) as f32;

    let mut q2d = Vec::with_capacity(n);
    for _ in 0..n {
        let (s, t) = (coord(&mut rng), coord(&mut rng));
        q2d.push(format!(
            r#"{{"coord": [{}, {}], "component": 0}}"#,
            num(s),
            num(t)
        ));
    }

    let depth = texels(64 * 64 * 6 * 4, || num(rng.unit() as f32));
    let mut qdc = Vec::with_capacity(n);
    for _ in 0..n {
        let layer = rng.below(4) as u32;
        let [x, y, z] = [(); 3].map(|_| rng.uniform(-1.0, 1.0) as f32);
        let dref = rng.unit() as f32;
        qdc.push(format!(
            r#"{{"coord": [{}, {}, {}, {layer}], "component": 0, "dref": {}}}"#,
            num(x),
            num(y),
            num(z),
            num(dref)
        ));
    }

    let mut qptp = Vec::with_capacity(n);
    for _ in 0..n {
        let (s, t) = (coord(&mut rng), coord(&mut rng));
        // Offsets within -8..=7, inside every Vulkan device's gather offset range.
        let o: [i64; 8] = std::array::from_fn(|_| rng.range(-8, 7));
        qptp.push(format!(
            r#"{{"coord": [{}, {}], "component": 1, "offsets": [[{}, {}], [{}, {}], [{}, {}], [{}, {}]]}}"#,
            num(s),
            num(t),
            o[0],
            o[1],
            o[2],
            o[3],
            o[4],
            o[5],
            o[6],
            o[7]
        ));
    }
    let case = |tex: &str, sampler: &str, queries: &[String]| {
        format!(
            r#"{{"cases": [{{{tex}, "sampler": {sampler}, "queries": [{}]}}]}}"#,
            queries.join(",")
        )
    };
    vec![
        Row {
            name: "RGBA8 UNORM 2D, clamp to edge",
            json: case(
                &rgba8_tex,
                r#"{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"}"#,
                &q2d,
            ),
            insn: "TLD4.R R10, R8, R20, UR4, 2D ;",
            regs: regs_2d,
            moves: &[(0, 0), (1, 1)],
        },
        Row {
            name: "D32 FLOAT cube array, depth compare",
            json: case(
                &format!(
                    r#""texture": {{"dim": "cube_array", "format": "d32_float", "width": 64, "height": 64, "layers": 4, "texels": [{depth}]}}"#
                ),
                r#"{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge", "compare": "less_or_equal"}"#,
                &qdc,
            ),
            insn: "TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;",
            regs: regs_cube_array_dc,
            moves: &[(1, 0), (2, 1), (3, 2)],
        },
        Row {
            name: "RGBA8 UNORM 2D, PTP, repeat",
            json: case(
                &rgba8_tex,
                r#"{"address_u": "repeat", "address_v": "repeat"}"#,
                &qptp,
            ),
            insn: "TLD4.G.PTP R10, R8, R20, R24, UR4, 2D ;",
            regs: regs_2d_ptp,
            moves: &[(0, 0), (1, 1)],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_k_moves_exactly_as_written() {
        let c = [0.5f32, 0.25, -0.75, 3.0];
        assert_eq!(moved(TextureKind::Tex2D, c, 0), c);
        // k = 4: s + 4/64, t - 4/128; z and the layer of a 2D array stay.
        assert_eq!(
            moved(TextureKind::Tex2DArray, c, 4),
            [0.5625, 0.21875, -0.75, 3.0]
        );
        // Cubes move z too (by 4/256); a cube array's layer stays.
        assert_eq!(
            moved(TextureKind::CubeArray, c, 4),
            [0.5625, 0.21875, -0.734375, 3.0]
        );
    }

    #[test]
    fn the_shader_variants_put_their_defines_after_the_version() {
        let k = shader(16, false);
        assert!(k.starts_with("#version 450\n#define GATHERS 16\n"), "{k}");
        assert!(!k.contains("#define NO_GATHER"));
        let twin = shader(8, true);
        assert!(twin.starts_with("#version 450\n#define GATHERS 8\n#define NO_GATHER\n"));
        // The plain shader has the one-gather main and both K-mode switches.
        assert!(SHADER.contains("#ifdef GATHERS") && SHADER.contains("#ifdef NO_GATHER"));
    }
}
