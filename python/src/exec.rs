//! `Pool`, `Exec`: an instruction executed for a `Warp` against owned textures or textures in
//! GPU memory (`Memory`).

use numpy::PyArray2;
use pyo3::prelude::*;

use tld4_emu::{
    ExecConfig, LaneTexels, MemoryExecError, MemoryPool, TexelAddress, Tld4Exec,
    WarpFault as RustFault, WARP_SIZE,
};
use tld4_gather_cases::PrecisionSpec;
use tld4_textures::{Handle, TexturePool};

use crate::decode::Instruction;
use crate::errors::{value_error, warp_fault};
use crate::memory::{Memory, Reader};
use crate::names::from_py;
use crate::texture::{Sampler, Texture};
use crate::warp::{Regs, Warp};

/// A texture pool: texture headers and samplers by index, as a handle names them.
#[pyclass(module = "tld4")]
pub struct Pool {
    pub inner: TexturePool,
}

#[pymethods]
impl Pool {
    #[new]
    fn new() -> Self {
        Pool {
            inner: TexturePool::new(),
        }
    }

    /// Puts `texture` at header index `index` (0..2^20-1).
    fn set_texture(&mut self, index: &Bound<'_, PyAny>, texture: &Texture) -> PyResult<()> {
        let index: u32 = crate::errors::int_arg(index, "index")?;
        self.inner
            .set_texture(index, (*texture.inner).clone())
            .map_err(value_error)
    }

    /// Puts `sampler` at sampler index `index` (0..4095).
    fn set_sampler(&mut self, index: &Bound<'_, PyAny>, sampler: &Sampler) -> PyResult<()> {
        let index: u32 = crate::errors::int_arg(index, "index")?;
        self.inner
            .set_sampler(index, sampler.inner)
            .map_err(value_error)
    }

    /// The 32-bit handle of header `texture` and sampler `sampler` (bits 19:0 and 31:20),
    /// to put in the register the instruction reads it from.
    #[staticmethod]
    fn handle(texture: u32, sampler: u32) -> PyResult<u32> {
        Handle::new(texture, sampler)
            .map(|h| h.0)
            .map_err(value_error)
    }
}

/// The Python exception of a Rust warp fault.
pub fn fault_error(py: Python<'_>, f: &RustFault) -> PyErr {
    warp_fault(py, f.kind().name(), f.lane(), f.to_string())
}

/// Where a memory's texture header and sampler pools start.
#[derive(Clone, Copy)]
struct Pools {
    header: u64,
    sampler: u64,
}

/// Executes `exec` for `regs` against the textures in `mem`: the executed lanes and each
/// lane's texel addresses.
fn run_memory(
    exec: &Tld4Exec,
    regs: &mut Regs<'_>,
    mem: &dyn tld4_gpu_memory::Memory,
    pools: Pools,
) -> Result<(u32, [LaneTexels; WARP_SIZE]), MemoryExecError> {
    let pool = MemoryPool::new(mem, pools.header, pools.sampler);
    let mut texels = [LaneTexels::default(); WARP_SIZE];
    exec.execute_memory(regs, &pool, Some(&mut texels))
        .map(|r| (r.executed, texels))
}

/// A decoded instruction prepared for execution (SM100 family words).
///
/// `Exec(instruction, config=None)`: `config` a dict with `require_aligned_pairs` (bool)
/// and `precision` (as in the JSON files).
#[pyclass(module = "tld4", frozen)]
pub struct Exec {
    inner: Tld4Exec,
}

#[pymethods]
impl Exec {
    #[new]
    #[pyo3(signature = (instruction, config = None))]
    fn new(instruction: &Instruction, config: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        // The executor models SM100's TLD4 (tld4-emu); other families' words are decoded
        // and printed, not executed.
        if instruction.insn.arch.family() != tld4_decoder::Family::Sm100 {
            return Err(value_error(format!(
                "Exec runs SM100-family words (sm_100, sm_101, sm_103, sm_110); this one was decoded for {}",
                instruction.insn.arch.name()
            )));
        }
        let mut c = ExecConfig::default();
        if let Some(cfg) = config {
            let d = cfg.cast::<pyo3::types::PyDict>()?;
            for (k, v) in d.iter() {
                let key: String = k.extract()?;
                match key.as_str() {
                    "require_aligned_pairs" => c.require_aligned_pairs = v.extract()?,
                    "precision" => {
                        c.precision = from_py::<PrecisionSpec>(&v, "config.precision")?.precision()
                    }
                    other => {
                        return Err(value_error(format!(
                            "config: unknown key `{other}`: require_aligned_pairs, precision"
                        )))
                    }
                }
            }
        }
        Ok(Exec {
            inner: Tld4Exec::new(instruction.tld4(), c),
        })
    }

    /// Executes the instruction for `warp` against `pool`: reads the sources, gathers, writes
    /// the destinations into the warp's arrays. Returns the mask of executed lanes; raises
    /// `WarpFault` (nothing written) with `.kind` the fault's name. Runs without the GIL.
    fn execute(&self, py: Python<'_>, warp: &Warp, pool: &Pool) -> PyResult<u32> {
        let exec = &self.inner;
        let pool = &pool.inner;
        warp.with_regs(py, |regs| exec.execute(regs, pool))?
            .map(|r| r.executed)
            .map_err(|f| fault_error(py, &f))
    }

    /// Executes as `execute` does and returns (executed lanes, non-resident lanes): bit `l` of
    /// the second mask is set where lane `l`'s footprint touched a non-resident tile of a
    /// sparse texture (`Texture(..., residency=...)`); those lanes read zeros, and a sparse
    /// TLD4 (a predicate destination, `TLD4.R P0, ...`) also sets that predicate in
    /// `warp.preds` (docs/sources.md, Decisions: sparse residency).
    fn execute_report(&self, py: Python<'_>, warp: &Warp, pool: &Pool) -> PyResult<(u32, u32)> {
        let exec = &self.inner;
        let pool = &pool.inner;
        warp.with_regs(py, |regs| exec.execute(regs, pool))?
            .map(|r| (r.executed, r.nonresident))
            .map_err(|f| fault_error(py, &f))
    }

    /// Executes against textures in GPU memory (`memory`'s header and sampler pools). Returns
    /// (executed lanes, texel addresses): a (32, 4) `uint64` array, the byte address of each
    /// lane's four texels in gather order, 0 where no texel was read (border, cube corner,
    /// lane not executed). Raises `WarpFault` as `execute` does.
    fn execute_memory<'py>(
        &self,
        py: Python<'py>,
        warp: &Warp,
        memory: &Memory,
    ) -> PyResult<(u32, Bound<'py, PyArray2<u64>>)> {
        let exec = &self.inner;
        let pools = Pools {
            header: memory.header_pool,
            sampler: memory.sampler_pool,
        };
        let r = match memory.image.reader() {
            Reader::Owned(mem) => warp.with_regs(py, |regs| run_memory(exec, regs, mem, pools))?,
            // (the function is Python: the GIL held throughout)
            Reader::Callback(c) => c.with(py, |mem| {
                warp.with_regs_held(py, |regs| run_memory(exec, regs, mem, pools))
            })??,
        };
        match r {
            Ok((executed, texels)) => {
                let rows: Vec<Vec<u64>> = texels
                    .iter()
                    .map(|l| {
                        l.texels
                            .iter()
                            .map(|t| match *t {
                                TexelAddress::Texel { address, .. } => address,
                                _ => 0,
                            })
                            .collect()
                    })
                    .collect();
                let arr = PyArray2::from_vec2(py, &rows).map_err(value_error)?;
                Ok((executed, arr))
            }
            Err(e) => Err(warp_fault(py, e.kind().name(), e.lane(), e.to_string())),
        }
    }

    /// The instruction's text.
    fn __repr__(&self) -> String {
        format!("tld4.Exec({:?})", self.inner.insn().text())
    }
}
