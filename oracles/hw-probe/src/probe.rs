//! The device run: phases of gathers, each in a child process of its own (a fault or a hang in
//! one cannot spoil the others), each writing `phases/<name>.json` under the output folder;
//! the parent merges them into `hw_results.json` with the GPU, driver and date.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::cuda::{self, Array3dDescriptor, Cuda, Function, Module, TexObject, TextureDesc};
use crate::kernels;
use crate::layout::Layout;
use crate::patch;
use crate::ptx::{NAT_Q_WORDS, NAT_R_WORDS, RAW_Q_WORDS, RAW_R_WORDS};

/// The format version of `hw_results.json`.
pub const SCHEMA: u32 = 2;

/// The sentinels loaded into quad C before the TLD4 (as halves 0x7fa0 is a NaN and 0x5e0k a
/// number, neither of which a gather of the probe's textures yields).
pub const SENTINELS: [u32; 4] = [0x7fa0_5e00, 0x7fa0_5e01, 0x7fa0_5e02, 0x7fa0_5e03];

/// Why a patched variant did not run: the run's kernels are not the sm_90 cubin.
pub const NOT_SM90: &str = "patched TLD4 variants need the committed sm_90 cubin (an SM90 GPU); this run's kernels are the portable PTX's";

/// One phase.
pub struct Phase {
    /// Its name.
    pub name: &'static str,
    /// What it measures.
    pub about: &'static str,
    /// Whether it runs patched variants only (then it runs from the sm_90 cubin only).
    pub patched_only: bool,
    run: fn(&mut Ctx) -> Result<Value, String>,
}

/// Every phase, in run order (the risky variants come after these, one process each).
pub const PHASES: &[Phase] = &[
    Phase {
        name: "info",
        patched_only: false,
        about: "device attributes and a smoke gather",
        run: phase_info,
    },
    Phase {
        name: "basics",
        patched_only: false,
        about: "gather order at texel centres; raw-patched kernels against ptxas's own",
        run: phase_basics,
    },
    Phase {
        name: "subtexel",
        patched_only: false,
        about: "1-ulp coordinate sweeps across texel boundaries: sub-texel precision and rounding",
        run: phase_subtexel,
    },
    Phase {
        name: "unorm",
        patched_only: false,
        about: "UNORM/SNORM 8 and 16, HALF -> f32 for every code; 8-bit integer reads",
        run: phase_unorm,
    },
    Phase {
        name: "components",
        patched_only: false,
        about: "components R, G, B, A of 1-, 2- and 4-channel textures",
        run: phase_components,
    },
    Phase {
        name: "address",
        patched_only: false,
        about:
            "address modes, border colours, coordinates outside [0, 1], unnormalized coordinates",
        run: phase_address,
    },
    Phase {
        name: "offsets",
        patched_only: false,
        about: "AOFFI through PTX and raw registers; PTP",
        run: phase_offsets,
    },
    Phase {
        name: "f16",
        patched_only: true,
        about: "F16.RN / F16.RZ packing and rounding",
        run: phase_f16,
    },
    Phase {
        name: "masks",
        patched_only: true,
        about: "write masks, Rd2 = RZ, eviction and NODEP",
        run: phase_masks,
    },
    Phase {
        name: "pred",
        patched_only: false,
        about: "predicate destination on a sparse (unmapped) texture",
        run: phase_pred,
    },
    Phase {
        name: "cube",
        patched_only: false,
        about: "cube maps: faces, edges, corners, ties, unnormalized directions, cube arrays",
        run: phase_cube,
    },
    Phase {
        name: "layers",
        patched_only: false,
        about: "array layer selection and clamping, through PTX and raw registers",
        run: phase_layers,
    },
    Phase {
        name: "dc",
        patched_only: false,
        about: "depth compare (.DC) with CUDA's sampler, which has no compare function",
        run: phase_dc,
    },
    Phase {
        name: "scr",
        patched_only: true,
        about: ".SCR set against clear",
        run: phase_scr,
    },
    Phase {
        name: "pitch",
        patched_only: false,
        about: "a texture over pitch-linear device memory (PITCH2D) against the memory-form model",
        run: phase_pitch,
    },
];

/// The risky variants, each a phase `risky:<variant>` of its own.
pub fn risky_phases() -> Vec<String> {
    patch::variants()
        .into_iter()
        .filter(|v| v.risky)
        .map(|v| format!("risky:{}", v.name))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Textures

/// What kind of array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// 2D.
    D2,
    /// 2D layered.
    Layered,
    /// Cube map (6 layers: +x, -x, +y, -y, +z, -z, CUDA's face order).
    Cube,
    /// Layered cube map.
    CubeLayered,
}

/// A texture to make.
#[derive(Clone, Debug, Serialize)]
pub struct TexSpec {
    /// A name for the results.
    pub name: String,
    /// Array kind.
    pub kind: Kind,
    /// Width, height in texels.
    pub w: usize,
    pub h: usize,
    /// Layers (cube: faces x cubes).
    pub layers: usize,
    /// CUarray_format.
    pub format: u32,
    /// Channels (1, 2, 4).
    pub channels: u32,
    /// Address mode for u and v (CUaddress_mode).
    pub addr: u32,
    /// Filter mode.
    pub filter: u32,
    /// CU_TRSF_* flags.
    pub flags: u32,
    /// Border colour.
    pub border: [f32; 4],
    /// Request CUDA_ARRAY3D_TEXTURE_GATHER ("the array will be used for texture gather", cuda.h;
    /// documented for 2D arrays only: for other kinds it is tried, then dropped if refused).
    pub gather_flag: bool,
    /// CUDA_ARRAY3D_SPARSE, left unmapped.
    pub sparse: bool,
    /// How the texels were filled, in words.
    pub content: String,
    /// The texel bytes, row-major, layer after layer.
    #[serde(skip)]
    pub data: Vec<u8>,
}

impl TexSpec {
    fn bytes_per_texel(&self) -> usize {
        let b = match self.format {
            cuda::FMT_U8 | cuda::FMT_S8 => 1,
            cuda::FMT_U16 | cuda::FMT_S16 | cuda::FMT_HALF => 2,
            _ => 4,
        };
        b * self.channels as usize
    }
}

/// A made texture.
pub struct Tex {
    /// The texture object.
    pub obj: TexObject,
    /// The array flags that were accepted.
    pub array_flags: u32,
    arr: Option<cuda::Array>,
}

/// A 1-channel R32F texture whose texel (i, j) of layer l holds 1 + i + w*j + w*h*l, so
/// that every gathered value names its texel (exact in f32 below 2^24 texels).
pub fn index_texture(name: &str, kind: Kind, w: usize, h: usize, layers: usize) -> TexSpec {
    let mut data = Vec::with_capacity(w * h * layers * 4);
    for l in 0..layers {
        for j in 0..h {
            for i in 0..w {
                data.extend_from_slice(&((1 + i + w * j + w * h * l) as f32).to_le_bytes());
            }
        }
    }
    TexSpec {
        name: name.into(),
        kind,
        w,
        h,
        layers,
        format: cuda::FMT_FLOAT,
        channels: 1,
        addr: cuda::ADDR_CLAMP,
        filter: cuda::FILTER_POINT,
        flags: cuda::TRSF_NORMALIZED_COORDINATES,
        border: [0.0; 4],
        gather_flag: true,
        sparse: false,
        content: "R32F index: texel (i, j) of layer l = 1 + i + w*j + w*h*l".into(),
        data,
    }
}

// ---------------------------------------------------------------------------------------------
// The context of a phase

/// Where the kernels of a run come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelSource {
    /// The committed sm_90 cubin (ptxas 11.8) with its layout and patched variants: the raw
    /// variants (PTP, F16, masks, `.SCR`, ...) run only from it, so only on SM90 GPUs.
    Sm90Cubin,
    /// A cubin of the portable PTX (`ptx::PORTABLE`) for the GPU at hand: what the driver's JIT
    /// compiler made of it, or what ptxas/nvcc built; only the `nat_*` kernels and the
    /// unpatched `raw` kernel run from it.
    File(std::path::PathBuf),
}

impl KernelSource {
    /// The `--kernels` argument that names it for a child process.
    pub fn arg(&self) -> String {
        match self {
            KernelSource::Sm90Cubin => "sm90".into(),
            KernelSource::File(p) => p.display().to_string(),
        }
    }
}

/// What the owner asks for with `run --kernels`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    /// The sm_90 cubin on an SM90 GPU (compute capability 9.0), the driver's JIT elsewhere.
    Auto,
    /// The committed sm_90 cubin.
    Sm90,
    /// The portable PTX compiled by the driver.
    Jit,
    /// A cubin built from the portable PTX with ptxas or nvcc.
    File(std::path::PathBuf),
}

impl std::str::FromStr for KernelChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "auto" => KernelChoice::Auto,
            "sm90" => KernelChoice::Sm90,
            "jit" => KernelChoice::Jit,
            "" => return Err("--kernels: auto, sm90, jit or a cubin file".into()),
            f => KernelChoice::File(f.into()),
        })
    }
}

/// What a phase works with.
pub struct Ctx {
    /// The driver.
    pub cuda: Cuda,
    /// The embedded layout, when the run uses the sm_90 cubin (patched variants need it).
    pub layout: Option<Layout>,
    /// The TLD4 words of the cubin the phases run (their SASS text for the records); `None`
    /// when tld4-cubin cannot read the cubin, which must not stop the run.
    forms: Option<crate::forms::CubinForms>,
    native: Module,
    patched: BTreeMap<String, (Module, Function)>,
    textures: Vec<Value>,
}

/// One batch of gathers and what came back.
#[derive(Serialize)]
struct Run {
    kernel: String,
    sass: String,
    texture: String,
    /// nat: c0..c3, off x, off y, dref; raw: A[4], B[4].
    queries: Vec<Vec<u32>>,
    /// nat: d0..d3, P (PTX's resident flag); raw: P word, C[0..4] after the TLD4.
    results: Vec<Vec<u32>>,
    /// Raw runs: queries whose A or B did not come back unchanged (0 when the patch kept them).
    #[serde(skip_serializing_if = "Option::is_none")]
    echo_mismatches: Option<usize>,
    /// Why the run gave no results (a driver error), if it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl Ctx {
    fn open(source: &KernelSource) -> Result<Self, String> {
        let cuda = Cuda::open()?;
        let (layout, image) = match source {
            KernelSource::Sm90Cubin => (Some(kernels::layout()?), kernels::CUBIN.to_vec()),
            KernelSource::File(p) => (
                None,
                std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?,
            ),
        };
        let forms = crate::forms::cubin_forms(&image).ok();
        let native = cuda
            .load_module(&image)
            .map_err(|e| format!("loading the cubin: {e}"))?;
        Ok(Ctx {
            cuda,
            layout,
            forms,
            native,
            patched: BTreeMap::new(),
            textures: Vec::new(),
        })
    }

    /// Makes a texture (array flags tried with the gather flag first when asked).
    pub fn texture(&mut self, s: &TexSpec) -> Result<Tex, String> {
        let base = match s.kind {
            Kind::D2 => 0,
            Kind::Layered => cuda::ARRAY_LAYERED,
            Kind::Cube => cuda::ARRAY_CUBEMAP,
            Kind::CubeLayered => cuda::ARRAY_CUBEMAP | cuda::ARRAY_LAYERED,
        } | if s.sparse { cuda::ARRAY_SPARSE } else { 0 };
        let depth = if s.kind == Kind::D2 { 0 } else { s.layers };
        let mut tries = vec![base];
        if s.gather_flag {
            tries.insert(0, base | cuda::ARRAY_TEXTURE_GATHER);
        }
        let mut errs = Vec::new();
        let mut made = None;
        for flags in tries {
            let d = Array3dDescriptor {
                width: s.w,
                height: s.h,
                depth,
                format: s.format,
                num_channels: s.channels,
                flags,
            };
            match self.cuda.array_create(&d) {
                Ok(a) => {
                    made = Some((a, flags));
                    break;
                }
                Err(e) => errs.push(format!("flags {flags:#x}: {e}")),
            }
        }
        let (arr, array_flags) =
            made.ok_or_else(|| format!("texture {}: {}", s.name, errs.join("; ")))?;
        if !s.sparse {
            let row = s.w * s.bytes_per_texel();
            self.cuda
                .array_fill(&arr, &s.data, row, s.h, s.layers.max(1))
                .map_err(|e| format!("texture {}: {e}", s.name))?;
        }
        let desc = TextureDesc {
            address_mode: [s.addr, s.addr, s.addr],
            filter_mode: s.filter,
            flags: s.flags,
            border_color: s.border,
            ..Default::default()
        };
        let obj = self
            .cuda
            .tex_object(&arr, &desc)
            .map_err(|e| format!("texture {}: {e}", s.name))?;
        let mut v = serde_json::to_value(s).unwrap();
        v["array_flags"] = json!(array_flags);
        v["array_create_refusals"] = json!(errs);
        self.textures.push(v);
        Ok(Tex {
            obj,
            array_flags,
            arr: Some(arr),
        })
    }

    /// Frees a texture.
    pub fn drop_texture(&mut self, mut t: Tex) -> Result<(), String> {
        self.cuda.tex_destroy(t.obj).map_err(|e| e.to_string())?;
        if let Some(a) = t.arr.take() {
            self.cuda.array_destroy(a).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn launch(
        &self,
        f: Function,
        tex: &Tex,
        q: &[u32],
        n: usize,
        out_words: usize,
    ) -> Result<Vec<u32>, String> {
        let qp = self.cuda.upload(q).map_err(|e| e.to_string())?;
        let op = self
            .cuda
            .alloc_filled(n * out_words, 0xdead_beef)
            .map_err(|e| e.to_string())?;
        let r = self
            .cuda
            .launch(f, tex.obj, qp, op, n as u32)
            .map_err(|e| e.to_string());
        let out = r.and_then(|_| {
            self.cuda
                .download(op, n * out_words)
                .map_err(|e| e.to_string())
        });
        let _ = self.cuda.free(qp);
        let _ = self.cuda.free(op);
        out
    }

    /// Runs a native kernel over query records (c0..c3, offx, offy, dref).
    pub fn nat(&self, kernel: &str, tex: &Tex, qs: &[[u32; 7]]) -> Result<Vec<[u32; 5]>, String> {
        let f = self
            .cuda
            .function(&self.native, kernel)
            .map_err(|e| e.to_string())?;
        let mut q = Vec::with_capacity(qs.len() * NAT_Q_WORDS);
        for r in qs {
            q.extend_from_slice(r);
            q.push(0);
        }
        let o = self.launch(f, tex, &q, qs.len(), NAT_R_WORDS)?;
        Ok(o.chunks_exact(NAT_R_WORDS)
            .map(|c| [c[0], c[1], c[2], c[3], c[4]])
            .collect())
    }

    /// Runs a raw variant over (A, B) records; C starts as [`SENTINELS`]. Returns (P word, C
    /// after) per query, and how many queries' A or B did not come back unchanged.
    pub fn raw(
        &mut self,
        variant: &str,
        tex: &Tex,
        qs: &[[u32; 8]],
    ) -> Result<(Vec<[u32; 5]>, usize), String> {
        let f = self.raw_function(variant)?;
        let mut q = Vec::with_capacity(qs.len() * RAW_Q_WORDS);
        for r in qs {
            q.extend_from_slice(r);
            q.extend_from_slice(&SENTINELS);
        }
        let o = self.launch(f, tex, &q, qs.len(), RAW_R_WORDS)?;
        let mut res = Vec::with_capacity(qs.len());
        let mut changed = 0;
        for (i, c) in o.chunks_exact(RAW_R_WORDS).enumerate() {
            changed += (c[12..20] != qs[i][..]) as usize;
            res.push([c[4], c[8], c[9], c[10], c[11]]);
        }
        Ok((res, changed))
    }

    fn raw_function(&mut self, variant: &str) -> Result<Function, String> {
        if let Some((_, f)) = self.patched.get(variant) {
            return Ok(*f);
        }
        let v = patch::variant(variant).ok_or_else(|| format!("no variant {variant}"))?;
        let layout = self
            .layout
            .as_ref()
            .ok_or_else(|| format!("{NOT_SM90}: variant {variant} not run"))?;
        let (img, _) = kernels::patched_cubin(layout, &v)?;
        let m = self
            .cuda
            .load_module(&img)
            .map_err(|e| format!("{variant}: {e}"))?;
        let f = self.cuda.function(&m, "raw").map_err(|e| e.to_string())?;
        self.patched.insert(variant.to_string(), (m, f));
        Ok(f)
    }

    fn sass_of(&self, kernel: &str) -> String {
        if let Some(v) = kernel.strip_prefix("raw:") {
            kernels::variant_rows(kernels::VARIANTS_TSV)
                .into_iter()
                .find(|r| r.0 == v)
                .map(|r| r.2)
                .unwrap_or_default()
        } else {
            self.forms
                .iter()
                .flat_map(|f| &f.tld4)
                .find(|t| t.kernel == kernel)
                .map(|t| t.text.clone())
                .unwrap_or_default()
        }
    }

    /// A native run recorded whole (a driver error is recorded in the run, not raised).
    fn nat_run(&self, kernel: &str, tex: &Tex, tex_name: &str, qs: &[[u32; 7]]) -> Run {
        let r = self.nat(kernel, tex, qs);
        Run {
            kernel: kernel.into(),
            sass: self.sass_of(kernel),
            texture: tex_name.into(),
            queries: qs.iter().map(|q| q.to_vec()).collect(),
            results: r
                .as_ref()
                .map(|r| r.iter().map(|x| x.to_vec()).collect())
                .unwrap_or_default(),
            echo_mismatches: None,
            error: r.err(),
        }
    }

    /// A raw run recorded whole (a driver error is recorded in the run, not raised).
    fn raw_run(&mut self, variant: &str, tex: &Tex, tex_name: &str, qs: &[[u32; 8]]) -> Run {
        let r = self.raw(variant, tex, qs);
        let k = format!("raw:{variant}");
        Run {
            sass: self.sass_of(&k),
            kernel: k,
            texture: tex_name.into(),
            queries: qs.iter().map(|q| q.to_vec()).collect(),
            results: r
                .as_ref()
                .map(|r| r.0.iter().map(|x| x.to_vec()).collect())
                .unwrap_or_default(),
            echo_mismatches: r.as_ref().ok().map(|r| r.1),
            error: r.err(),
        }
    }
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// A native query: coordinates (as f32 unless noted), offsets, depth reference.
fn nq(c: [u32; 4], off: (i32, i32), dref: f32) -> [u32; 7] {
    [
        c[0],
        c[1],
        c[2],
        c[3],
        off.0 as u32,
        off.1 as u32,
        dref.to_bits(),
    ]
}

fn nq2(u: f32, v: f32) -> [u32; 7] {
    nq([f(u), f(v), 0, 0], (0, 0), 0.0)
}

/// A raw query: Ra vector A, Rb vector B.
fn rq(a: [u32; 4], b: [u32; 4]) -> [u32; 8] {
    [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
}

fn runs_json(runs: Vec<Run>) -> Value {
    serde_json::to_value(runs).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Phases

fn phase_info(cx: &mut Ctx) -> Result<Value, String> {
    let c = &cx.cuda;
    let attrs = [
        ("compute_capability_major", cuda::ATTR_CC_MAJOR),
        ("compute_capability_minor", cuda::ATTR_CC_MINOR),
        ("multiprocessors", cuda::ATTR_MP_COUNT),
        ("sparse_cuda_array_supported", cuda::ATTR_SPARSE_ARRAY),
        ("max_texture2d_gather_width", cuda::ATTR_TEX2D_GATHER_WIDTH),
    ];
    let mut a = serde_json::Map::new();
    for (n, id) in attrs {
        a.insert(
            n.into(),
            c.attribute(id)
                .map(|v| json!(v))
                .unwrap_or_else(|e| json!(e.to_string())),
        );
    }
    let t = index_texture("idx4", Kind::D2, 4, 4, 1);
    let tex = cx.texture(&t)?;
    let run = cx.nat_run(
        "nat_2d_r",
        &tex,
        "idx4",
        &[nq2(0.5, 0.5), nq2(0.125, 0.125)],
    );
    cx.drop_texture(tex)?;
    Ok(json!({ "attributes": a, "smoke": run }))
}

fn phase_basics(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let t = index_texture("idx8", Kind::D2, 8, 8, 1);
    let tex = cx.texture(&t)?;
    let mut qs = Vec::new();
    for j in 0..8 {
        for i in 0..8 {
            // Texel centres and quarter points: u*8 - 0.5 = i + {0, 0.25}.
            qs.push(nq2((i as f32 + 0.5) / 8.0, (j as f32 + 0.75) / 8.0));
        }
    }
    for k in [
        "nat_2d_r",
        "nat_2d_g",
        "nat_2d_b",
        "nat_2d_a",
        "nat_2d_r_s32",
        "nat_2d_r_u32",
    ] {
        runs.push(cx.nat_run(k, &tex, "idx8", &qs));
    }
    // The same queries through raw registers, and PTX's AOFFI+DC against the raw copy of its word.
    let rqs: Vec<[u32; 8]> = qs
        .iter()
        .map(|q| rq([q[0], q[1], 0, 0], [0, 0, 0, 0]))
        .collect();
    runs.push(cx.raw_run("2d", &tex, "idx8", &rqs));
    let offs = [(0, 0), (1, 0), (0, 1), (-1, -1), (3, -2), (-8, 7)];
    let mut q2 = Vec::new();
    let mut r2 = Vec::new();
    for (n, q) in qs.iter().enumerate() {
        let o = offs[n % offs.len()];
        let dref = 0.5f32;
        q2.push(nq([q[0], q[1], 0, 0], o, dref));
        // ptxas packs the AOFFI register as x & 0x3f | (y << 8) & 0x3f00 (docs/sources.md).
        let packed = (o.0 as u32 & 0x3f) | ((o.1 as u32) << 8 & 0x3f00);
        r2.push(rq([q[0], q[1], 0, 0], [packed, f(dref), 0, 0]));
    }
    runs.push(cx.nat_run("nat_2d_r_aoffi_dc", &tex, "idx8", &q2));
    runs.push(cx.raw_run("same_2d_aoffi_dc", &tex, "idx8", &r2));
    // The unpatched raw kernel (a TLD4 that ptxas set up itself, from the first coordinate
    // a0 ^ (c0 & b3) with b3 = 0): Rb = {offset packed by ptxas from B[0], B[1]; dref B[2]}.
    let f_raw = cx
        .cuda
        .function(&cx.native, "raw")
        .map_err(|e| e.to_string())?;
    let mut q3 = Vec::new();
    for (n, q) in qs.iter().enumerate() {
        let o = offs[n % offs.len()];
        q3.extend_from_slice(&[q[0], q[1], 0, 0, o.0 as u32, o.1 as u32, f(0.5), 0]);
        q3.extend_from_slice(&SENTINELS);
    }
    let o3 = cx.launch(f_raw, &tex, &q3, qs.len(), RAW_R_WORDS);
    runs.push(Run {
        kernel: "raw (unpatched)".into(),
        sass: cx.sass_of("raw"),
        texture: "idx8".into(),
        queries: q3
            .chunks_exact(RAW_Q_WORDS)
            .map(|c| c[..8].to_vec())
            .collect(),
        // D, the TLD4's own destination here, then P: recorded as (P, D[0..4]).
        results: o3
            .as_ref()
            .map(|o| {
                o.chunks_exact(RAW_R_WORDS)
                    .map(|c| vec![c[4], c[0], c[1], c[2], c[3]])
                    .collect()
            })
            .unwrap_or_default(),
        echo_mismatches: None,
        error: o3.err(),
    });
    cx.drop_texture(tex)?;
    // Without the CUDA_ARRAY3D_TEXTURE_GATHER flag.
    let mut t2 = index_texture("idx8_nogatherflag", Kind::D2, 8, 8, 1);
    t2.gather_flag = false;
    let tex = cx.texture(&t2)?;
    runs.push(cx.nat_run("nat_2d_r", &tex, "idx8_nogatherflag", &qs));
    cx.drop_texture(tex)?;
    Ok(runs_json(runs))
}

/// Run-length encoding of a sweep: (first coordinate bits, last coordinate bits, result).
fn rle(coords: &[u32], res: &[[u32; 5]]) -> Vec<(u32, u32, [u32; 5])> {
    let mut out: Vec<(u32, u32, [u32; 5])> = Vec::new();
    for (c, r) in coords.iter().zip(res) {
        match out.last_mut() {
            Some(last) if last.2 == *r => last.1 = *c,
            _ => out.push((*c, *c, *r)),
        }
    }
    out
}

/// Coordinates around `centre` in steps of `stride` ulps, `n` steps each side (positive floats:
/// the bit pattern orders them).
fn ulp_sweep(centre: f32, n: u32, stride: u32) -> Vec<u32> {
    let c = centre.to_bits();
    (0..=2 * n).map(|k| c - n * stride + k * stride).collect()
}

fn phase_subtexel(cx: &mut Ctx) -> Result<Value, String> {
    // (w, h, axis, k list, normalized, filter): the i0 (or j0) transition from k-1 to k lies
    // near u*w - 0.5 = k (Vulkan's texel selection, i0 = floor(u*w - 0.5)).
    let p = cuda::FILTER_POINT;
    let l = cuda::FILTER_LINEAR;
    let sweeps: Vec<(usize, usize, char, Vec<usize>, bool, u32)> = vec![
        (16, 16, 'u', vec![1, 4, 8, 12, 15], true, p),
        (16, 16, 'v', vec![4, 8], true, p),
        (16, 16, 'u', vec![8], true, l),
        (16, 16, 'u', vec![4, 8], false, p),
        (4096, 4, 'u', vec![1, 1000, 2048, 4095], true, p),
        (65536, 2, 'u', vec![1, 30000, 65535], true, p),
        (3, 3, 'u', vec![1, 2], true, p),
        (1000, 2, 'u', vec![1, 500, 999], true, p),
    ];
    let mut out = Vec::new();
    for (w, h, axis, ks, normalized, filter) in sweeps {
        let mut t = index_texture(&format!("idx{w}x{h}"), Kind::D2, w, h, 1);
        t.filter = filter;
        if !normalized {
            t.flags &= !cuda::TRSF_NORMALIZED_COORDINATES;
        }
        let tex = cx.texture(&t)?;
        for &k in &ks {
            let size = if axis == 'u' { w } else { h };
            let scale = if normalized { size as f64 } else { 1.0 };
            let centre = ((k as f64 + 0.5) / scale) as f32;
            // A window of +-4/256 texel, at most 65536 steps each side.
            let window = 4.0 / 256.0 / scale;
            let ulp = (f32::from_bits(centre.to_bits() + 1) - centre) as f64;
            let steps = (window / ulp).ceil() as u32;
            let stride = steps.div_ceil(65536).max(1);
            let n = steps / stride;
            let coords = ulp_sweep(centre, n, stride);
            // The other coordinate at a texel centre + 1/4 texel, away from its own boundary.
            let other = if normalized {
                ((if axis == 'u' { h } else { w }) as f32 / 2.0 + 0.25)
                    / (if axis == 'u' { h } else { w }) as f32
            } else {
                (if axis == 'u' { h } else { w }) as f32 / 2.0 + 0.25
            };
            let qs: Vec<[u32; 7]> = coords
                .iter()
                .map(|&c| {
                    if axis == 'u' {
                        nq([c, f(other), 0, 0], (0, 0), 0.0)
                    } else {
                        nq([f(other), c, 0, 0], (0, 0), 0.0)
                    }
                })
                .collect();
            let res = cx.nat("nat_2d_r", &tex, &qs)?;
            out.push(json!({
                "texture": t.name, "w": w, "h": h, "axis": axis.to_string(), "k": k,
                "normalized": normalized, "filter": filter,
                "other_coordinate_bits": f(other), "centre_bits": centre.to_bits(),
                "stride_ulps": stride, "steps_each_side": n,
                "runs": rle(&coords, &res),
            }));
        }
        cx.drop_texture(tex)?;
    }
    Ok(json!({ "kernel": "nat_2d_r", "sass": cx.sass_of("nat_2d_r"), "sweeps": out }))
}

/// A texture of 2x2 blocks, block b (row-major, `bw` blocks per row) filled with code b, each
/// code `bytes` bytes little-endian; the query at each block's centre gathers four copies.
fn block_texture(
    name: &str,
    format: u32,
    bytes: usize,
    codes: usize,
    bw: usize,
    content: &str,
) -> (TexSpec, Vec<[u32; 7]>) {
    let bh = codes.div_ceil(bw);
    let (w, h) = (2 * bw, 2 * bh);
    let mut data = vec![0u8; w * h * bytes];
    for b in 0..codes {
        let (bx, by) = (b % bw, b / bw);
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let at = ((2 * by + dy) * w + 2 * bx + dx) * bytes;
            data[at..at + bytes].copy_from_slice(&(b as u32).to_le_bytes()[..bytes]);
        }
    }
    let qs = (0..codes)
        .map(|b| {
            nq2(
                (2 * (b % bw) + 1) as f32 / w as f32,
                (2 * (b / bw) + 1) as f32 / h as f32,
            )
        })
        .collect();
    let mut t = index_texture(name, Kind::D2, 1, 1, 1);
    t.w = w;
    t.h = h;
    t.format = format;
    t.data = data;
    t.content = content.into();
    (t, qs)
}

fn hex_words(v: &[u32]) -> String {
    v.iter().map(|x| format!("{x:08x}")).collect()
}

fn phase_unorm(cx: &mut Ctx) -> Result<Value, String> {
    let mut out = serde_json::Map::new();
    let cases: [(&str, u32, usize, usize, bool, &str); 9] = [
        ("unorm8", cuda::FMT_U8, 1, 256, false, "nat_2d_r"),
        ("snorm8", cuda::FMT_S8, 1, 256, false, "nat_2d_r"),
        ("uint8", cuda::FMT_U8, 1, 256, true, "nat_2d_r_u32"),
        ("sint8", cuda::FMT_S8, 1, 256, true, "nat_2d_r_s32"),
        ("unorm16", cuda::FMT_U16, 2, 65536, false, "nat_2d_r"),
        ("snorm16", cuda::FMT_S16, 2, 65536, false, "nat_2d_r"),
        ("half", cuda::FMT_HALF, 2, 65536, false, "nat_2d_r"),
        ("uint16", cuda::FMT_U16, 2, 65536, true, "nat_2d_r_u32"),
        ("sint16", cuda::FMT_S16, 2, 65536, true, "nat_2d_r_s32"),
    ];
    for (name, fmt, bytes, codes, int, kernel) in cases {
        let bw = if codes == 256 { 16 } else { 256 };
        let (mut t, qs) = block_texture(
            name,
            fmt,
            bytes,
            codes,
            bw,
            "2x2 blocks, block b (row-major) = code b",
        );
        if int {
            t.flags |= cuda::TRSF_READ_AS_INTEGER;
        }
        let tex = cx.texture(&t)?;
        let res = cx.nat(kernel, &tex, &qs)?;
        cx.drop_texture(tex)?;
        // Every block gathers four copies of one code: all four must agree.
        let disagree: Vec<usize> = res
            .iter()
            .enumerate()
            .filter(|(_, r)| !(r[0] == r[1] && r[1] == r[2] && r[2] == r[3]))
            .map(|(i, _)| i)
            .collect();
        let table: Vec<u32> = res.iter().map(|r| r[3]).collect();
        out.insert(
            name.into(),
            json!({ "kernel": kernel, "format": fmt, "read_as_integer": int, "codes": codes,
                    "table_hex": hex_words(&table), "blocks_with_differing_components": disagree }),
        );
    }
    Ok(Value::Object(out))
}

fn phase_components(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let qs = [nq2(0.5, 0.5), nq2(0.25, 0.75)];
    let kernels4 = ["nat_2d_r", "nat_2d_g", "nat_2d_b", "nat_2d_a"];
    for ch in [1u32, 2, 4] {
        let mut t = index_texture(&format!("f32x{ch}"), Kind::D2, 4, 4, 1);
        t.channels = ch;
        t.data.clear();
        for j in 0..4 {
            for i in 0..4 {
                for c in 0..ch as usize {
                    t.data
                        .extend_from_slice(&((1 + i + 4 * j + 100 * c) as f32).to_le_bytes());
                }
            }
        }
        t.content = "f32 channels: channel c of texel (i, j) = 1 + i + 4j + 100c".into();
        let tex = cx.texture(&t)?;
        for k in kernels4 {
            runs.push(cx.nat_run(k, &tex, &t.name, &qs));
        }
        cx.drop_texture(tex)?;
    }
    for (ch, int) in [(1u32, false), (4, false), (1, true), (2, true)] {
        let name = format!("u8x{ch}{}", if int { "_int" } else { "" });
        let mut t = index_texture(&name, Kind::D2, 4, 4, 1);
        t.format = cuda::FMT_U8;
        t.channels = ch;
        t.data = (0..16)
            .flat_map(|x| (0..ch).map(move |c| (x * 4 + c * 64 + 3) as u8))
            .collect();
        t.content = "u8 channels: channel c of texel x = i + 4j is 4x + 64c + 3".into();
        if int {
            t.flags |= cuda::TRSF_READ_AS_INTEGER;
        }
        let tex = cx.texture(&t)?;
        for k in kernels4 {
            runs.push(cx.nat_run(k, &tex, &name, &qs));
        }
        cx.drop_texture(tex)?;
    }
    Ok(runs_json(runs))
}

fn phase_address(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let coords = [
        -1.125f32, -0.6, -0.125, -0.01, 0.01, 0.125, 0.5, 0.99, 1.01, 1.125, 1.6, 2.125,
    ];
    let mut qs = Vec::new();
    for &v in &coords {
        for &u in &coords {
            qs.push(nq2(u, v));
        }
    }
    let border = [-1.5f32, -2.5, -3.5, -4.5];
    for (mode, name) in [
        (cuda::ADDR_WRAP, "wrap"),
        (cuda::ADDR_CLAMP, "clamp"),
        (cuda::ADDR_MIRROR, "mirror"),
        (cuda::ADDR_BORDER, "border"),
    ] {
        let mut t = index_texture(&format!("idx4_{name}"), Kind::D2, 4, 4, 1);
        t.addr = mode;
        t.border = border;
        let tex = cx.texture(&t)?;
        runs.push(cx.nat_run("nat_2d_r", &tex, &t.name, &qs));
        if mode == cuda::ADDR_BORDER {
            for k in ["nat_2d_g", "nat_2d_b", "nat_2d_a"] {
                runs.push(cx.nat_run(k, &tex, &t.name, &qs));
            }
        }
        cx.drop_texture(tex)?;
    }
    // Unnormalized coordinates (CUDA allows clamp and border only there).
    let xs = [-2.5f32, -0.5, 0.0, 0.25, 0.5, 1.75, 3.5, 4.0, 4.5, 6.0];
    let mut qu = Vec::new();
    for &y in &xs {
        for &x in &xs {
            qu.push(nq2(x, y));
        }
    }
    for (mode, name) in [(cuda::ADDR_CLAMP, "clamp"), (cuda::ADDR_BORDER, "border")] {
        let mut t = index_texture(&format!("idx4_unnorm_{name}"), Kind::D2, 4, 4, 1);
        t.addr = mode;
        t.border = border;
        t.flags &= !cuda::TRSF_NORMALIZED_COORDINATES;
        let tex = cx.texture(&t)?;
        runs.push(cx.nat_run("nat_2d_r", &tex, &t.name, &qu));
        cx.drop_texture(tex)?;
    }
    Ok(runs_json(runs))
}

/// Deterministic words (splitmix64, Vigna's constants).
fn splitmix(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

fn phase_offsets(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let t = index_texture("idx64", Kind::D2, 64, 64, 1);
    let tex = cx.texture(&t)?;
    // Footprint at i0 = j0 = 31 (u*64 - 0.5 = 31.75).
    let c = f(32.25 / 64.0);
    let mut qn = Vec::new();
    for o in -40..=40 {
        qn.push(nq([c, c, 0, 0], (o, 0), 0.0));
        qn.push(nq([c, c, 0, 0], (0, o), 0.0));
    }
    for (x, y) in [(5, -7), (-32, 31), (31, -32), (63, 64), (-33, 100)] {
        qn.push(nq([c, c, 0, 0], (x, y), 0.0));
    }
    runs.push(cx.nat_run("nat_2d_r_aoffi", &tex, "idx64", &qn));
    // The AOFFI register written raw: every byte value of x and of y, and high bits.
    let mut qa = Vec::new();
    for b in 0..256u32 {
        qa.push(rq([c, c, 0, 0], [b, 0, 0, 0]));
        qa.push(rq([c, c, 0, 0], [b << 8, 0, 0, 0]));
    }
    for hi in [
        0x0001_0000u32,
        0x00ff_0000,
        0xff00_0000,
        0xffff_0000,
        0x8000_0000,
    ] {
        qa.push(rq([c, c, 0, 0], [hi | 3 | 5 << 8, 0, 0, 0]));
    }
    runs.push(cx.raw_run("2d_aoffi", &tex, "idx64", &qa));
    // PTP: each byte of the two registers alone, then random registers.
    let mut qp = Vec::new();
    for reg in 0..2 {
        for byte in 0..4 {
            for val in [1u32, 2, 31, 32, 63, 64, 127, 128, 255] {
                let mut bv = [0u32; 4];
                bv[reg] = val << (8 * byte);
                qp.push(rq([c, c, 0, 0], bv));
            }
        }
    }
    for r in splitmix(5, 256).chunks_exact(2) {
        qp.push(rq([c, c, 0, 0], [r[0] as u32, r[1] as u32, 0, 0]));
    }
    runs.push(cx.raw_run("2d_ptp", &tex, "idx64", &qp));
    let qpd: Vec<[u32; 8]> = qp
        .iter()
        .take(80)
        .map(|q| rq([q[0], q[1], 0, 0], [q[4], q[5], f(100.0), 0]))
        .collect();
    runs.push(cx.raw_run("2d_ptp_dc", &tex, "idx64", &qpd));
    cx.drop_texture(tex)?;
    let ta = index_texture("idx64x3layers", Kind::Layered, 64, 64, 3);
    let tex = cx.texture(&ta)?;
    let qal: Vec<[u32; 8]> = qp
        .iter()
        .take(72)
        .map(|q| rq([1, c, c, 0], [q[4], q[5], 0, 0]))
        .collect();
    runs.push(cx.raw_run("a2d_ptp", &tex, "idx64x3layers", &qal));
    cx.drop_texture(tex)?;
    Ok(runs_json(runs))
}

/// f32 values for the F16 tests: ties, values between halves, overflow, NaN, infinities,
/// subnormal halves, signed values, then random ones.
pub fn f16_test_values(n: usize) -> Vec<f32> {
    let h = |bits: u32| f32::from_bits(bits);
    let mut v: Vec<f32> = vec![
        1.0,
        -1.0,
        0.0,
        -0.0,
        0.5,
        2.0,
        65504.0,
        -65504.0,
        65519.0,
        65520.0,
        65536.0,
        1e6,
        -1e6,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        h(0x7fc0_1234),
        h(0xffc0_0000),
        h(0x7f80_0001),
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        1.0 + 1.0 / 4096.0,
        1.0 + 3.0 / 4096.0,
        -(1.0 + 3.0 / 4096.0),
        2f32.powi(-14),
        2f32.powi(-15),
        2f32.powi(-24),
        2f32.powi(-25),
        2f32.powi(-26),
        3.0 * 2f32.powi(-26),
        -2f32.powi(-24),
        1e-10,
        -1e-10,
        0.1,
        0.2,
        0.3,
        1.0 / 3.0,
        -1.0 / 3.0,
        1000.1,
        2049.0,
        4097.0,
    ];
    for (i, r) in splitmix(16, n).into_iter().enumerate() {
        if v.len() >= n {
            break;
        }
        let x = r as u32;
        // Exponents mostly in and around half precision's range.
        let e = 103 + (x >> 24) % 42;
        v.push(f32::from_bits((x & 0x807f_ffff) | e << 23) * if i % 7 == 0 { -1.0 } else { 1.0 });
    }
    v.truncate(n);
    v
}

fn phase_f16(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    // 32x32 texels: 256 blocks of 2x2 distinct values; one query per block centre.
    let vals = f16_test_values(1024);
    let mut t = index_texture("f16vals", Kind::D2, 32, 32, 1);
    t.data.clear();
    for j in 0..32usize {
        for i in 0..32usize {
            let b = (j / 2) * 16 + i / 2;
            let slot = (j % 2) * 2 + i % 2;
            t.data.extend_from_slice(&vals[b * 4 + slot].to_le_bytes());
        }
    }
    t.content = "R32F: block b = (j/2)*16 + i/2 holds f16_test_values(1024)[4b .. 4b+4], slot (j%2)*2 + i%2".into();
    let tex = cx.texture(&t)?;
    let qs: Vec<[u32; 8]> = (0..256)
        .map(|b| {
            rq(
                [
                    f(((b % 16) * 2 + 1) as f32 / 32.0),
                    f(((b / 16) * 2 + 1) as f32 / 32.0),
                    0,
                    0,
                ],
                [0; 4],
            )
        })
        .collect();
    runs.push(cx.raw_run("2d", &tex, "f16vals", &qs));
    for v in patch::variants()
        .iter()
        .filter(|v| v.name.starts_with("f16") && !v.risky)
    {
        let n = if v.mask == 0xf { 256 } else { 32 };
        runs.push(cx.raw_run(&v.name, &tex, "f16vals", &qs[..n]));
    }
    cx.drop_texture(tex)?;
    // UNORM8 codes straight to F16.
    let (tu, qu) = block_texture(
        "unorm8_blocks",
        cuda::FMT_U8,
        1,
        256,
        16,
        "2x2 blocks, block b = code b",
    );
    let tex = cx.texture(&tu)?;
    let qr: Vec<[u32; 8]> = qu.iter().map(|q| rq([q[0], q[1], 0, 0], [0; 4])).collect();
    runs.push(cx.raw_run("f16rn_mf", &tex, "unorm8_blocks", &qr));
    runs.push(cx.raw_run("f16rz_mf", &tex, "unorm8_blocks", &qr));
    cx.drop_texture(tex)?;
    Ok(
        json!({ "values_f32_bits": vals.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), "runs": runs }),
    )
}

fn rgba_index_texture() -> TexSpec {
    let mut t = index_texture("rgba32f", Kind::D2, 4, 4, 1);
    t.channels = 4;
    t.data.clear();
    for j in 0..4 {
        for i in 0..4 {
            for c in 0..4 {
                t.data
                    .extend_from_slice(&((1 + i + 4 * j + 100 * c) as f32).to_le_bytes());
            }
        }
    }
    t.content = "RGBA32F: channel c of texel (i, j) = 1 + i + 4j + 100c".into();
    t
}

fn phase_masks(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let t = rgba_index_texture();
    let tex = cx.texture(&t)?;
    let qs = [
        rq([f(0.5), f(0.5), 0, 0], [0; 4]),
        rq([f(0.25), f(0.75), 0, 0], [0; 4]),
    ];
    let names: Vec<String> = patch::variants()
        .into_iter()
        .filter(|v| {
            !v.risky
                && (v.name.starts_with("mask_")
                    || v.name.starts_with("rd2rz")
                    || v.name.starts_with("ev_")
                    || v.name == "nodep"
                    || v.name.starts_with("2d"))
                && !v.name.contains("ptp")
                && !v.name.contains("aoffi")
                && !v.name.contains("dc")
        })
        .map(|v| v.name)
        .collect();
    for n in names {
        runs.push(cx.raw_run(&n, &tex, "rgba32f", &qs));
    }
    cx.drop_texture(tex)?;
    Ok(runs_json(runs))
}

fn phase_pred(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let qs = [nq2(0.5, 0.5), nq2(0.01, 0.99)];
    let rqs: Vec<[u32; 8]> = qs.iter().map(|q| rq([q[0], q[1], 0, 0], [0; 4])).collect();
    let mut notes = Vec::new();
    for sparse in [false, true] {
        let mut t = index_texture(
            if sparse {
                "sparse256_unmapped"
            } else {
                "dense256"
            },
            Kind::D2,
            256,
            256,
            1,
        );
        t.sparse = sparse;
        t.gather_flag = false;
        if sparse {
            t.content = "CUDA_ARRAY3D_SPARSE, no tile mapped".into();
        }
        let tex = match cx.texture(&t) {
            Ok(x) => x,
            Err(e) => {
                notes.push(e);
                continue;
            }
        };
        runs.push(cx.nat_run("nat_2d_r", &tex, &t.name, &qs));
        for v in ["2d", "pred_pt", "pred_p1"] {
            runs.push(cx.raw_run(v, &tex, &t.name, &rqs));
        }
        cx.drop_texture(tex)?;
    }
    Ok(
        json!({ "pred_store": cx.layout.as_ref().map(|l| l.raw.pred_store.clone()), "pred_stored_if_set": cx.layout.as_ref().map(|l| l.raw.pred_stored_if_set),
               "pred_stored_if_clear": cx.layout.as_ref().map(|l| l.raw.pred_stored_if_clear), "notes": notes, "runs": runs }),
    )
}

/// Directions for the cube tests: face centres, points near edges and corners, and ties.
pub fn cube_directions() -> Vec<[f32; 3]> {
    let mut v = Vec::new();
    for axis in 0..3 {
        for s in [1.0f32, -1.0] {
            let mut d = [0.3f32, -0.2, 0.1];
            d[axis] = s;
            v.push(d);
        }
    }
    for sx in [1.0f32, -1.0] {
        for sy in [1.0f32, -1.0] {
            for sz in [1.0f32, -1.0] {
                for delta in [0.0f32, 1.0 / 1024.0, 1.0 / 16.0, 0.125] {
                    let e = 1.0 - delta;
                    v.push([sx, sy * e, sz * e]);
                    v.push([sx * e, sy, sz * e]);
                    v.push([sx * e, sy * e, sz]);
                }
                // Near an edge, away from the corner.
                v.push([sx, sy * (1.0 - 1.0 / 64.0), sz * 0.3]);
                v.push([sx * 0.3, sy, sz * (1.0 - 1.0 / 64.0)]);
            }
        }
    }
    // Ties of the major axis.
    v.extend([
        [1.0, 1.0, 0.5],
        [0.5, 1.0, 1.0],
        [1.0, 0.5, 1.0],
        [1.0, 1.0, 1.0],
        [-1.0, -1.0, -1.0],
        [1.0, -1.0, 0.0],
    ]);
    v
}

fn phase_cube(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let dirs = cube_directions();
    for seamless in [true, false] {
        let name = if seamless { "cube8_seamless" } else { "cube8" };
        let mut t = index_texture(name, Kind::Cube, 8, 8, 6);
        if seamless {
            t.flags |= cuda::TRSF_SEAMLESS_CUBEMAP;
        }
        let tex = cx.texture(&t)?;
        let qn: Vec<[u32; 7]> = dirs
            .iter()
            .map(|d| nq([f(d[0]), f(d[1]), f(d[2]), 0], (0, 0), 0.0))
            .collect();
        runs.push(cx.nat_run("nat_cube_r", &tex, name, &qn));
        if seamless {
            runs.push(cx.nat_run("nat_cube_g", &tex, name, &qn));
            // Raw: the direction unnormalized, scaled by 1, 2, 1/2 and 1000 (ptxas divides by the
            // major axis first; the raw word shows what the unit does with other lengths).
            let mut qr = Vec::new();
            for s in [1.0f32, 2.0, 0.5, 1000.0] {
                for d in &dirs {
                    qr.push(rq([f(d[0] * s), f(d[1] * s), f(d[2] * s), 0], [0; 4]));
                }
            }
            runs.push(cx.raw_run("cube", &tex, name, &qr));
            runs.push(cx.raw_run("scr_cube", &tex, name, &qr));
        }
        cx.drop_texture(tex)?;
    }
    // Cube arrays: 3 cubes; layers in and out of range.
    let t = index_texture("cube8x3", Kind::CubeLayered, 8, 8, 18);
    let tex = cx.texture(&t)?;
    let some = &dirs[..6];
    let mut qn = Vec::new();
    let mut qr = Vec::new();
    for layer in [-1i32, 0, 1, 2, 3, 100, 65535, 65536] {
        for d in some {
            qn.push(nq([layer as u32, f(d[0]), f(d[1]), f(d[2])], (0, 0), 0.0));
            qr.push(rq([layer as u32, f(d[0]), f(d[1]), f(d[2])], [0; 4]));
        }
    }
    runs.push(cx.nat_run("nat_acube_r", &tex, "cube8x3", &qn));
    runs.push(cx.raw_run("acube", &tex, "cube8x3", &qr));
    cx.drop_texture(tex)?;
    Ok(json!({ "directions": dirs, "runs": runs }))
}

fn phase_layers(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let t = index_texture("idx8x4layers", Kind::Layered, 8, 8, 4);
    let tex = cx.texture(&t)?;
    let c = f(4.25 / 8.0);
    let ptx_layers: [i32; 12] = [
        i32::MIN,
        -70000,
        -1,
        0,
        1,
        2,
        3,
        4,
        5,
        65535,
        65536,
        i32::MAX,
    ];
    let qn: Vec<[u32; 7]> = ptx_layers
        .iter()
        .map(|&l| nq([l as u32, c, c, 0], (0, 0), 0.0))
        .collect();
    runs.push(cx.nat_run("nat_a2d_r", &tex, "idx8x4layers", &qn));
    let raw_layers: [u32; 18] = [
        0,
        1,
        2,
        3,
        4,
        5,
        0xffff,
        0x1_0000,
        0x1_0001,
        0x1_0003,
        0x1_ffff,
        0xffff_0001,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        0x3f80_0000,
        0x4000_0000,
        0x0002_0002,
    ];
    let qr: Vec<[u32; 8]> = raw_layers
        .iter()
        .map(|&l| rq([l, c, c, 0], [0; 4]))
        .collect();
    runs.push(cx.raw_run("a2d", &tex, "idx8x4layers", &qr));
    let qo: Vec<[u32; 7]> = [0i32, 2, 5]
        .iter()
        .map(|&l| nq([l as u32, c, c, 0], (1, -1), 0.0))
        .collect();
    runs.push(cx.nat_run("nat_a2d_r_aoffi", &tex, "idx8x4layers", &qo));
    cx.drop_texture(tex)?;
    Ok(json!({ "ptx_layers": ptx_layers, "raw_layers": raw_layers, "runs": runs }))
}

fn phase_dc(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let mut drefs: Vec<f32> = vec![-1.0, 0.0];
    drefs.extend((0..17).map(|k| 0.05 + 0.1 * k as f32));
    drefs.extend([2.0, f32::INFINITY, f32::NAN]);
    for filter in [cuda::FILTER_POINT, cuda::FILTER_LINEAR] {
        let name = if filter == cuda::FILTER_POINT {
            "depth4_point"
        } else {
            "depth4_linear"
        };
        let mut t = index_texture(name, Kind::D2, 4, 4, 1);
        t.filter = filter;
        t.data = (0..16)
            .flat_map(|x| (0.1 * x as f32).to_le_bytes())
            .collect();
        t.content = "R32F: texel x = i + 4j holds 0.1 * x".into();
        let tex = cx.texture(&t)?;
        let qn: Vec<[u32; 7]> = drefs
            .iter()
            .map(|&d| nq([f(0.5), f(0.5), 0, 0], (0, 0), d))
            .collect();
        runs.push(cx.nat_run("nat_2d_r_dc", &tex, name, &qn));
        runs.push(cx.nat_run("nat_2d_r", &tex, name, &qn));
        let qr: Vec<[u32; 8]> = drefs
            .iter()
            .map(|&d| rq([f(0.5), f(0.5), 0, 0], [f(d), 0, 0, 0]))
            .collect();
        runs.push(cx.raw_run("2d_dc", &tex, name, &qr));
        cx.drop_texture(tex)?;
    }
    Ok(
        json!({ "drefs_f32_bits": drefs.iter().map(|d| d.to_bits()).collect::<Vec<_>>(), "runs": runs }),
    )
}

/// A texture over pitch-linear device memory the probe fills (CUDA's PITCH2D resource, rows
/// padded with a sentinel), gathered by TLD4 and compared with tld4-textures' memory-form
/// model reading the same bytes ([`crate::pitch_model`]).
fn phase_pitch(cx: &mut Ctx) -> Result<Value, String> {
    use crate::pitch_model as pm;
    let align = cx
        .cuda
        .attribute(cuda::ATTR_TEXTURE_PITCH_ALIGNMENT)
        .map_err(|e| e.to_string())?
        .max(32) as u32;
    let row_alignment = align.next_multiple_of(32).max(128);
    let (bytes, pitch) = pm::image(row_alignment)?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let dev = cx.cuda.upload(&words).map_err(|e| e.to_string())?;
    let desc = TextureDesc {
        address_mode: [cuda::ADDR_CLAMP; 3],
        filter_mode: cuda::FILTER_POINT,
        flags: cuda::TRSF_NORMALIZED_COORDINATES,
        ..Default::default()
    };
    let obj = cx.cuda.tex_object_pitch2d(
        dev,
        cuda::FMT_FLOAT,
        1,
        pm::W as usize,
        pm::H as usize,
        pitch as usize,
        &desc,
    );
    let obj = match obj {
        Ok(o) => o,
        Err(e) => {
            let _ = cx.cuda.free(dev);
            return Ok(json!({ "error": e.to_string(), "device_address": dev, "pitch": pitch }));
        }
    };
    let tex = Tex {
        obj,
        array_flags: 0,
        arr: None,
    };
    let qs = pm::queries();
    let nqs: Vec<[u32; 7]> = qs.iter().map(|&(u, v)| nq2(u, v)).collect();
    let mut runs = Vec::new();
    let mut checks = Vec::new();
    for (kernel, component) in [("nat_2d_r", 0u8), ("nat_2d_g", 1)] {
        let run = cx.nat_run(kernel, &tex, "pitch2d_idx13x7", &nqs);
        let model = pm::expected(&bytes, row_alignment, dev, component, &qs)?;
        let bad = pm::mismatches(&run.results, &model);
        checks.push(json!({
            "kernel": kernel,
            "queries": qs.len(),
            "model": model,
            "mismatches": bad,
            "ran": run.error.is_none(),
        }));
        runs.push(run);
    }
    cx.drop_texture(tex)?;
    let _ = cx.cuda.free(dev);
    let mut v = runs_json(runs);
    v["pitch2d"] = json!({
        "device_address": dev,
        "pitch": pitch,
        "row_alignment": row_alignment,
        "device_pitch_alignment": align,
        "width": pm::W,
        "height": pm::H,
        "padding_sentinel": pm::PAD,
        "checks": checks,
    });
    Ok(v)
}

fn phase_scr(cx: &mut Ctx) -> Result<Value, String> {
    let t = index_texture("idx16", Kind::D2, 16, 16, 1);
    let tex = cx.texture(&t)?;
    // Random coordinates in [-0.25, 1.25), half of them within 2^-9 texel of a boundary.
    let r = splitmix(60, 4096);
    let qs: Vec<[u32; 8]> = r
        .chunks_exact(2)
        .enumerate()
        .map(|(i, p)| {
            let mut u = (p[0] >> 40) as f32 / (1u64 << 24) as f32 * 1.5 - 0.25;
            let mut v = (p[1] >> 40) as f32 / (1u64 << 24) as f32 * 1.5 - 0.25;
            if i % 2 == 0 {
                u = ((u * 16.0).round() + ((p[0] & 0xff) as f32 - 128.0) / 65536.0) / 16.0;
                v = ((v * 16.0).round() + ((p[1] & 0xff) as f32 - 128.0) / 65536.0) / 16.0;
            }
            rq([f(u), f(v), 0, 0], [0; 4])
        })
        .collect();
    let base = cx.raw("2d", &tex, &qs)?.0;
    let scr = cx.raw("scr", &tex, &qs)?.0;
    cx.drop_texture(tex)?;
    let diffs: Vec<Value> = qs
        .iter()
        .zip(base.iter().zip(&scr))
        .filter(|(_, (a, b))| a != b)
        .take(100)
        .map(|(q, (a, b))| json!({ "query": q, "scr_clear": a, "scr_set": b }))
        .collect();
    let ndiff = base.iter().zip(&scr).filter(|(a, b)| a != b).count();
    Ok(
        json!({ "texture": "idx16", "queries": qs.len(), "differing": ndiff, "first_differences": diffs,
               "sass_clear": cx.sass_of("raw:2d"), "sass_set": cx.sass_of("raw:scr") }),
    )
}

fn phase_risky(cx: &mut Ctx, variant: &str) -> Result<Value, String> {
    let (t, qs): (TexSpec, Vec<[u32; 8]>) = match variant {
        "risky_cube_aoffi" | "risky_cube_ptp" => (
            index_texture("cube8", Kind::Cube, 8, 8, 6),
            vec![rq(
                [f(1.0), f(0.3), f(-0.2), 0],
                [1 | 1 << 8, 0x0101_0101, 0, 0],
            )],
        ),
        "risky_f16rn_int" => {
            let mut t = index_texture("u8_int", Kind::D2, 4, 4, 1);
            t.format = cuda::FMT_U8;
            t.flags |= cuda::TRSF_READ_AS_INTEGER;
            t.data = (0..16).map(|x| x as u8 * 16 + 1).collect();
            (t, vec![rq([f(0.5), f(0.5), 0, 0], [0; 4])])
        }
        "risky_2d_on_array" => (
            index_texture("idx8x4layers", Kind::Layered, 8, 8, 4),
            vec![rq([f(0.5), f(0.5), 0, 0], [0; 4])],
        ),
        "risky_rd_odd_overlap" => (
            rgba_index_texture(),
            vec![rq([f(0.5), f(0.5), 0, 0], [0; 4])],
        ),
        _ => (
            index_texture("idx4", Kind::D2, 4, 4, 1),
            vec![rq([f(0.5), f(0.5), 0, 0], [0; 4])],
        ),
    };
    let tex = cx.texture(&t)?;
    let run = cx.raw_run(variant, &tex, &t.name, &qs);
    let _ = cx.drop_texture(tex);
    Ok(match &run.error {
        None => json!({ "outcome": "completed", "run": run }),
        Some(e) => json!({ "outcome": "error", "error": e, "run": run }),
    })
}

// ---------------------------------------------------------------------------------------------
// Processes

/// Runs one phase here and writes `phases/<name>.json`.
pub fn run_child(name: &str, out: &Path, source: &KernelSource) -> Result<(), String> {
    let dir = out.join("phases");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut cx = Ctx::open(source)?;
    let data = if let Some(v) = name.strip_prefix("risky:") {
        phase_risky(&mut cx, v)
    } else {
        let p = PHASES
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("no phase {name}"))?;
        (p.run)(&mut cx)
    };
    let (ok, data, error) = match data {
        Ok(d) => (true, d, Value::Null),
        Err(e) => (false, Value::Null, json!(e)),
    };
    let v = json!({
        "phase": name, "ok": ok, "error": error, "seconds": started.elapsed().as_secs_f64(),
        "textures": cx.textures, "data": data,
    });
    let file = dir.join(format!("{}.json", name.replace(':', "_")));
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).map_err(|e| e.to_string())?;
    if ok {
        Ok(())
    } else {
        Err(format!("phase {name} failed: {}", v["error"]))
    }
}

/// Days since 1970-01-01 -> (year, month, day) (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + (m <= 2) as i64, m, d)
}

/// The current UTC time, ISO 8601.
pub fn utc_now() -> String {
    let s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (y, m, d) = civil_from_days(s.div_euclid(86_400));
    let t = s.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

fn run_one(name: &str, out: &Path, source: &KernelSource, limit: Duration) -> Value {
    let started = Instant::now();
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return json!({ "phase": name, "outcome": "not started", "error": e.to_string() }),
    };
    let child = Command::new(exe)
        .args(["child", "--phase", name, "--out"])
        .arg(out)
        .arg("--kernels")
        .arg(source.arg())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return json!({ "phase": name, "outcome": "not started", "error": e.to_string() }),
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let tail: String = err
        .chars()
        .rev()
        .take(2000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    json!({
        "phase": name,
        "outcome": match status { Some(s) if s.success() => "ok".to_string(), Some(s) => format!("exit {s}"), None => format!("killed after {}s", limit.as_secs()) },
        "seconds": started.elapsed().as_secs_f64(),
        "stderr_tail": tail,
    })
}

/// The driver's JIT compilation of the portable PTX for the GPU at hand, written to
/// `OUT/kernels/tld4_probe.<arch>.jit.cubin`, with its TLD4 words (always done: it is the
/// "each architecture's forms" measurement, and the kernels of a JIT run).
fn jit_portable(cuda: &Cuda, out: &Path, cc: (i32, i32)) -> (Value, Option<std::path::PathBuf>) {
    let ptx = crate::ptx::ptx_source_for(&crate::ptx::PORTABLE);
    let dir = out.join("kernels");
    let arch = format!("sm_{}{}", cc.0, cc.1);
    match cuda.jit_ptx(&ptx) {
        Ok(j) => {
            let file = dir.join(format!("tld4_probe.{arch}.jit.cubin"));
            let written = std::fs::create_dir_all(&dir)
                .and_then(|_| std::fs::write(&file, &j.cubin))
                .map_err(|e| e.to_string());
            let forms = crate::forms::cubin_forms(&j.cubin);
            let v = json!({
                "ok": true,
                "file": file.strip_prefix(out).unwrap_or(&file).display().to_string(),
                "write_error": written.as_ref().err(),
                "cubin_fnv1a64": format!("{:016x}", crate::layout::fnv1a64(&j.cubin)),
                "info_log": j.info_log,
                "forms": forms.as_ref().ok(),
                "forms_error": forms.as_ref().err(),
            });
            let _ = cuda.unload(j.module);
            (v, written.ok().map(|_| file))
        }
        Err(e) => (json!({ "ok": false, "error": e.to_string() }), None),
    }
}

/// The whole run: checks the driver, JIT-compiles the portable PTX, picks the kernels, runs
/// every phase (or the chosen ones) in child processes, merges `hw_results.json`.
pub fn run_all(
    out: &Path,
    only: &[String],
    budget_s: u64,
    choice: &KernelChoice,
) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let cuda = Cuda::open()?;
    let cc = (
        cuda.attribute(cuda::ATTR_CC_MAJOR).unwrap_or(-1),
        cuda.attribute(cuda::ATTR_CC_MINOR).unwrap_or(-1),
    );
    let device = json!({
        "name": cuda.device_name().map_err(|e| e.to_string())?,
        "driver_api_version": cuda.driver_version().map_err(|e| e.to_string())?,
        "compute_capability": format!("{}.{}", cc.0, cc.1),
        "proc_driver_version": std::fs::read_to_string("/proc/driver/nvidia/version").unwrap_or_default().lines().next().unwrap_or("").to_string(),
    });
    let date = utc_now();
    eprintln!(
        "tld4-hw-probe: {} (compute capability {}.{}, driver API {}), {date}",
        device["name"], cc.0, cc.1, device["driver_api_version"]
    );
    let (jit, jit_file) = jit_portable(&cuda, out, cc);
    eprintln!(
        "  jit: {}",
        if jit["ok"] == true {
            "the driver compiled the portable PTX".to_string()
        } else {
            format!("failed: {}", jit["error"])
        }
    );
    let source = match choice {
        KernelChoice::Sm90 => KernelSource::Sm90Cubin,
        KernelChoice::Auto if cc == (9, 0) => KernelSource::Sm90Cubin,
        KernelChoice::Auto | KernelChoice::Jit => {
            KernelSource::File(jit_file.clone().ok_or_else(|| {
                format!(
                    "the driver could not compile the portable PTX: {}",
                    jit["error"]
                )
            })?)
        }
        KernelChoice::File(p) => KernelSource::File(p.clone()),
    };
    let (kernels_json, loaded) = match &source {
        KernelSource::Sm90Cubin => {
            let l = kernels::layout()?;
            (
                json!({ "source": "sm90_cubin", "ptxas": l.ptxas, "cubin_fnv1a64": l.cubin_fnv1a64, "raw_layout": l.raw }),
                kernels::CUBIN.to_vec(),
            )
        }
        KernelSource::File(p) => {
            let b = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let src = if Some(p) == jit_file.as_ref() {
                "jit"
            } else {
                "cubin"
            };
            (
                json!({ "source": src, "file": p.display().to_string(), "cubin_fnv1a64": format!("{:016x}", crate::layout::fnv1a64(&b)) }),
                b,
            )
        }
    };
    // Unreadable forms are recorded, not fatal: the gathers are the measurement.
    let loaded_forms = match crate::forms::cubin_forms(&loaded) {
        Ok(f) => serde_json::to_value(f).unwrap(),
        Err(e) => json!({ "error": e }),
    };
    let sm90 = source == KernelSource::Sm90Cubin;
    let mut names: Vec<String> = PHASES.iter().map(|p| p.name.to_string()).collect();
    if sm90 {
        names.extend(risky_phases());
    }
    if !only.is_empty() {
        names.retain(|n| only.contains(n));
    }
    let started = Instant::now();
    let mut children = Vec::new();
    for n in &names {
        if !sm90 && PHASES.iter().any(|p| p.name == n && p.patched_only) {
            children.push(json!({ "phase": n, "outcome": format!("skipped: {NOT_SM90}") }));
            continue;
        }
        if started.elapsed().as_secs() > budget_s {
            children.push(json!({ "phase": n, "outcome": "skipped: time budget spent" }));
            continue;
        }
        // Each phase gets its own limit, cut to what is left of the budget (at least 10 s), so
        // that the whole run ends within budget_s plus a little.
        let left = budget_s.saturating_sub(started.elapsed().as_secs()).max(10);
        let limit = Duration::from_secs((if n.starts_with("risky:") { 30 } else { 120 }).min(left));
        let r = run_one(n, out, &source, limit);
        eprintln!(
            "  {n}: {} ({:.1}s)",
            r["outcome"].as_str().unwrap_or("?"),
            r["seconds"].as_f64().unwrap_or(0.0)
        );
        children.push(r);
    }
    let mut phases = serde_json::Map::new();
    for n in &names {
        let file = out
            .join("phases")
            .join(format!("{}.json", n.replace(':', "_")));
        if let Ok(s) = std::fs::read_to_string(&file) {
            if let Ok(v) = serde_json::from_str::<Value>(&s) {
                phases.insert(n.clone(), v);
            }
        }
    }
    let mut probe = kernels_json;
    probe["sentinels"] = json!(SENTINELS);
    probe["portable_ptx_fnv1a64"] = json!(portable_ptx_hash());
    let all = json!({
        "schema": SCHEMA,
        "synthetic": false,
        "device": device,
        "date_utc": date,
        "probe": probe,
        "forms": { "loaded": loaded_forms, "jit": jit },
        "children": children,
        "phases": phases,
    });
    let file = out.join("hw_results.json");
    std::fs::write(&file, serde_json::to_string(&all).unwrap()).map_err(|e| e.to_string())?;
    eprintln!("tld4-hw-probe: results in {}", file.display());
    Ok(())
}

/// The FNV-1a hash of the portable PTX text, recorded with every run (golden data names the
/// kernels it measured).
pub fn portable_ptx_hash() -> String {
    format!(
        "{:016x}",
        crate::layout::fnv1a64(crate::ptx::ptx_source_for(&crate::ptx::PORTABLE).as_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_choices_parse_and_children_get_their_source() {
        assert_eq!("auto".parse::<KernelChoice>(), Ok(KernelChoice::Auto));
        assert_eq!("sm90".parse::<KernelChoice>(), Ok(KernelChoice::Sm90));
        assert_eq!("jit".parse::<KernelChoice>(), Ok(KernelChoice::Jit));
        assert_eq!(
            "out/k.cubin".parse::<KernelChoice>(),
            Ok(KernelChoice::File("out/k.cubin".into()))
        );
        assert!("".parse::<KernelChoice>().is_err());
        assert_eq!(KernelSource::Sm90Cubin.arg(), "sm90");
        assert_eq!(KernelSource::File("a/b.cubin".into()).arg(), "a/b.cubin");
        // Only the phases made of patched variants are skipped off SM90.
        let patched: Vec<&str> = PHASES
            .iter()
            .filter(|p| p.patched_only)
            .map(|p| p.name)
            .collect();
        assert_eq!(patched, ["f16", "masks", "scr"]);
    }

    #[test]
    fn the_portable_ptx_hash_is_the_committed_file_s() {
        let file = include_str!("../kernels/tld4_probe.portable.ptx");
        assert_eq!(
            portable_ptx_hash(),
            format!("{:016x}", crate::layout::fnv1a64(file.as_bytes()))
        );
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        // 2000-03-01 is day 11017; 2024-02-29 is day 19782.
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn sweeps_and_rle() {
        let s = ulp_sweep(0.5, 3, 2);
        assert_eq!(s.len(), 7);
        assert_eq!(s[3], 0.5f32.to_bits());
        assert_eq!(s[4] - s[3], 2);
        let r = rle(&[1, 2, 3, 4], &[[0; 5], [0; 5], [1, 0, 0, 0, 0], [0; 5]]);
        assert_eq!(
            r,
            vec![(1, 2, [0; 5]), (3, 3, [1, 0, 0, 0, 0]), (4, 4, [0; 5])]
        );
    }

    #[test]
    fn textures_hold_what_they_say() {
        let t = index_texture("x", Kind::Layered, 4, 2, 3);
        assert_eq!(t.data.len(), 4 * 2 * 3 * 4);
        // Texel (3, 1) of layer 2: 1 + 3 + 4 + 16 = 24.
        let at = ((2 * 2 + 1) * 4 + 3) * 4;
        assert_eq!(
            f32::from_le_bytes(t.data[at..at + 4].try_into().unwrap()),
            24.0
        );
        let (b, qs) = block_texture("b", cuda::FMT_U16, 2, 300, 16, "");
        assert_eq!((b.w, b.h), (32, 38));
        assert_eq!(qs.len(), 300);
        // Block 17 is (1, 1): texels (2..4, 2..4) hold 17.
        let at = (3 * 32 + 3) * 2;
        assert_eq!(
            u16::from_le_bytes(b.data[at..at + 2].try_into().unwrap()),
            17
        );
        assert_eq!(f32::from_bits(qs[17][0]), 3.0 / 32.0);
    }

    #[test]
    fn every_phase_variant_exists() {
        for v in [
            "2d",
            "2d_aoffi",
            "2d_ptp",
            "2d_ptp_dc",
            "a2d_ptp",
            "f16rn_mf",
            "f16rz_mf",
            "pred_pt",
            "pred_p1",
            "cube",
            "scr_cube",
            "acube",
            "a2d",
            "2d_dc",
            "scr",
            "same_2d_aoffi_dc",
        ] {
            assert!(patch::variant(v).is_some(), "{v}");
        }
        assert_eq!(risky_phases().len(), 6);
    }
}
