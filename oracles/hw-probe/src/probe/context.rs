//! What a phase works with (`Ctx`): the driver, the kernels of the run (the sm_90 cubin with its
//! patched variants, or a cubin of the portable PTX), the textures made, and each batch of
//! gathers recorded whole (`Run`).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::cuda::{self, Array3dDescriptor, Cuda, Function, Module, TextureDesc};
use crate::kernels;
use crate::layout::Layout;
use crate::patch;
use crate::ptx::{NAT_Q_WORDS, NAT_R_WORDS, RAW_Q_WORDS, RAW_R_WORDS};

use super::texture::{Kind, Tex, TexSpec};
use super::{NOT_SM90, SENTINELS};

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

/// What a phase works with.
pub struct Ctx {
    /// The driver.
    pub cuda: Cuda,
    /// The embedded layout, when the run uses the sm_90 cubin (patched variants need it).
    pub layout: Option<Layout>,
    /// The TLD4 words of the cubin the phases run (their SASS text for the records); `None`
    /// when tld4-cubin cannot read the cubin, which must not stop the run.
    forms: Option<crate::forms::CubinForms>,
    pub(crate) native: Module,
    patched: BTreeMap<String, (Module, Function)>,
    pub(crate) textures: Vec<Value>,
}

/// One batch of gathers and what came back.
#[derive(Serialize)]
pub(crate) struct Run {
    pub(crate) kernel: String,
    pub(crate) sass: String,
    pub(crate) texture: String,
    /// nat: c0..c3, off x, off y, dref; raw: A[4], B[4].
    pub(crate) queries: Vec<Vec<u32>>,
    /// nat: d0..d3, P (PTX's resident flag); raw: P word, C[0..4] after the TLD4.
    pub(crate) results: Vec<Vec<u32>>,
    /// Raw runs: queries whose A or B did not come back unchanged (0 when the patch kept them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) echo_mismatches: Option<usize>,
    /// Why the run gave no results (a driver error), if it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

impl Ctx {
    pub(crate) fn open(source: &KernelSource) -> Result<Self, String> {
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

    pub(crate) fn launch(
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

    pub(crate) fn sass_of(&self, kernel: &str) -> String {
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
    pub(crate) fn nat_run(&self, kernel: &str, tex: &Tex, tex_name: &str, qs: &[[u32; 7]]) -> Run {
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
    pub(crate) fn raw_run(
        &mut self,
        variant: &str,
        tex: &Tex,
        tex_name: &str,
        qs: &[[u32; 8]],
    ) -> Run {
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

pub(crate) fn runs_json(runs: Vec<Run>) -> Value {
    serde_json::to_value(runs).unwrap()
}
