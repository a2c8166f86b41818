//! `Warp`: a warp's registers as numpy arrays the executor reads and writes in place (no
//! copy in or out), through the emulator's `RegisterFile` contract.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;

use tld4_emu::{RegisterFile, WARP_SIZE};

use crate::errors::value_error;

/// General registers R0..R254 (RZ is not stored).
pub const REGS: usize = 255;
/// Predicates P0..P6 (PT is not stored).
pub const PREDS: usize = 7;

/// A warp of 32 lanes: `regs` a writable (255, 32) `uint32` numpy array (register r of
/// lane l at `regs[r, l]`; write floats with `regs.view(numpy.float32)`), `uregs` (255,)
/// `uint32`, `preds` (7, 32) `bool`, `active_mask` (bit l: lane l active; all 32 by default)
/// and `regs_per_thread` (255 by default). The arrays are the warp's storage: executing
/// writes into them, and what you write into them is what the instruction reads.
#[pyclass(module = "tld4")]
pub struct Warp {
    regs: Py<PyArray2<u32>>,
    uregs: Py<PyArray1<u32>>,
    preds: Py<PyArray2<bool>>,
    /// Bit `l` set: lane `l` is active.
    #[pyo3(get, set)]
    pub active_mask: u32,
    /// Registers a thread has (an operand at or past it faults); at most 255.
    #[pyo3(get)]
    pub regs_per_thread: u16,
}

#[pymethods]
impl Warp {
    #[new]
    #[pyo3(signature = (active_mask = 0xffff_ffff, regs_per_thread = 255))]
    fn new(py: Python<'_>, active_mask: u32, regs_per_thread: u16) -> PyResult<Self> {
        let mut w = Warp {
            regs: PyArray2::<u32>::zeros(py, [REGS, WARP_SIZE], false).unbind(),
            uregs: PyArray1::<u32>::zeros(py, REGS, false).unbind(),
            preds: PyArray2::<bool>::zeros(py, [PREDS, WARP_SIZE], false).unbind(),
            active_mask,
            regs_per_thread: 255,
        };
        w.set_regs_per_thread(regs_per_thread)?;
        Ok(w)
    }

    /// The general registers: a writable (255, 32) `uint32` view, `regs[r, lane]`.
    #[getter]
    fn regs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u32>> {
        self.regs.bind(py).clone()
    }

    /// The uniform registers UR0..UR254: a writable (255,) `uint32` view.
    #[getter]
    fn uregs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.uregs.bind(py).clone()
    }

    /// The predicates P0..P6: a writable (7, 32) `bool` view, `preds[p, lane]`.
    #[getter]
    fn preds<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        self.preds.bind(py).clone()
    }

    #[setter]
    fn set_regs_per_thread(&mut self, n: u16) -> PyResult<()> {
        if n > 255 {
            return Err(value_error(format!(
                "regs_per_thread: {n} is more than the 255 registers a thread can have"
            )));
        }
        self.regs_per_thread = n;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "tld4.Warp(active_mask={:#010x}, regs_per_thread={})",
            self.active_mask, self.regs_per_thread
        )
    }
}

/// The warp's arrays, borrowed for one execution.
pub struct Regs<'a> {
    regs: &'a mut [u32],
    uregs: &'a [u32],
    preds: &'a mut [bool],
    active: u32,
    nregs: u16,
}

impl Warp {
    /// Runs `f` on the warp's storage, the arrays borrowed (read-write) for its duration.
    pub fn with_regs<T>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Regs<'_>) -> T + Send,
    ) -> PyResult<T>
    where
        T: Send,
    {
        let regs = self.regs.bind(py);
        let uregs = self.uregs.bind(py);
        let preds = self.preds.bind(py);
        let mut r = regs.try_readwrite().map_err(value_error)?;
        let u = uregs.try_readonly().map_err(value_error)?;
        let mut p = preds.try_readwrite().map_err(value_error)?;
        let regs = r.as_slice_mut().map_err(value_error)?;
        let uregs = u.as_slice().map_err(value_error)?;
        let preds = p.as_slice_mut().map_err(value_error)?;
        let (active, nregs) = (self.active_mask, self.regs_per_thread);
        Ok(py.detach(move || {
            let mut view = Regs {
                regs,
                uregs,
                preds,
                active,
                nregs,
            };
            f(&mut view)
        }))
    }
}

impl RegisterFile for Regs<'_> {
    #[inline(always)]
    fn reg(&self, lane: usize, r: u8) -> u32 {
        self.regs[r as usize * WARP_SIZE + lane]
    }
    #[inline(always)]
    fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        self.regs[r as usize * WARP_SIZE + lane] = value;
    }
    #[inline(always)]
    fn pred(&self, lane: usize, p: u8) -> bool {
        self.preds[p as usize * WARP_SIZE + lane]
    }
    #[inline(always)]
    fn set_pred(&mut self, lane: usize, p: u8, value: bool) {
        self.preds[p as usize * WARP_SIZE + lane] = value;
    }
    #[inline(always)]
    fn ureg(&self, u: u8) -> u32 {
        self.uregs.get(u as usize).copied().unwrap_or(0)
    }
    #[inline(always)]
    fn active_mask(&self) -> u32 {
        self.active
    }
    #[inline(always)]
    fn regs_per_thread(&self) -> u16 {
        self.nregs
    }
    #[inline(always)]
    fn reg_row(&self, r: u8) -> Option<&[u32; WARP_SIZE]> {
        let at = r as usize * WARP_SIZE;
        self.regs.get(at..at + WARP_SIZE)?.try_into().ok()
    }
}
