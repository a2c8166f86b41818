//! `Warp`: a warp's registers as numpy arrays the executor reads and writes in place (no
//! copy in or out), through the emulator's `RegisterFile` contract.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;

use tld4_emu::{RegisterFile, WARP_SIZE};

use crate::errors::value_error;
use crate::turns::Turns;

/// General registers R0..R254 (RZ is not stored).
pub const REGS: usize = 255;
/// Predicates P0..P6 (PT is not stored).
pub const PREDS: usize = 7;

/// A warp of 32 lanes: `regs` a writable (255, 32) `uint32` numpy array (register r of
/// lane l at `regs[r, l]`; write floats with `regs.view(numpy.float32)`), `uregs` (255,)
/// `uint32`, `preds` (7, 32) `bool`, `active_mask` (bit l: lane l active; all 32 by default)
/// and `regs_per_thread` (255 by default). The arrays are views of the warp's storage:
/// executing writes into it, and what you write into them is what the instruction reads.
/// Their shape cannot change the storage (`resize` of a view fails; a view reshaped in place
/// is only that view), and an execution checks the storage's shape before reading it.
/// Executions of one warp from several threads take turns.
#[pyclass(module = "tld4")]
pub struct Warp {
    regs: Py<PyArray2<u32>>,
    uregs: Py<PyArray1<u32>>,
    preds: Py<PyArray2<bool>>,
    /// Bit `l` set: lane `l` is active.
    pub active_mask: u32,
    /// Registers a thread has (an operand at or past it faults); at most 255.
    #[pyo3(get)]
    pub regs_per_thread: u16,
    /// Held while an execution holds the arrays: another thread's waits its turn.
    busy: Turns<()>,
}

/// `value` as a 32-bit lane mask, or a `ValueError` naming the argument.
fn mask_of(value: &Bound<'_, PyAny>) -> PyResult<u32> {
    let v: i128 = value
        .extract()
        .map_err(|_| value_error("active_mask: expected an int (bit l: lane l active)"))?;
    u32::try_from(v).map_err(|_| {
        value_error(format!(
            "active_mask: {v} is not a 32-bit lane mask (0 to 0xffffffff)"
        ))
    })
}

#[pymethods]
impl Warp {
    #[new]
    #[pyo3(signature = (active_mask = None, regs_per_thread = None))]
    fn new(
        py: Python<'_>,
        active_mask: Option<&Bound<'_, PyAny>>,
        regs_per_thread: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut w = Warp {
            regs: PyArray2::<u32>::zeros(py, [REGS, WARP_SIZE], false).unbind(),
            uregs: PyArray1::<u32>::zeros(py, REGS, false).unbind(),
            preds: PyArray2::<bool>::zeros(py, [PREDS, WARP_SIZE], false).unbind(),
            active_mask: active_mask.map_or(Ok(0xffff_ffff), mask_of)?,
            regs_per_thread: 255,
            busy: Turns::new(()),
        };
        if let Some(n) = regs_per_thread {
            w.set_regs_per_thread(n)?;
        }
        Ok(w)
    }

    /// The general registers: a writable (255, 32) `uint32` view, `regs[r, lane]`.
    #[getter]
    fn regs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.regs.bind(py).call_method0("view")
    }

    /// The uniform registers UR0..UR254: a writable (255,) `uint32` view.
    #[getter]
    fn uregs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.uregs.bind(py).call_method0("view")
    }

    /// The predicates P0..P6: a writable (7, 32) `bool` view, `preds[p, lane]`.
    #[getter]
    fn preds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.preds.bind(py).call_method0("view")
    }

    /// Bit `l` set: lane `l` is active.
    #[getter]
    fn active_mask(&self) -> u32 {
        self.active_mask
    }

    #[setter]
    fn set_active_mask(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.active_mask = mask_of(value)?;
        Ok(())
    }

    #[setter]
    fn set_regs_per_thread(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let n: i128 = value
            .extract()
            .map_err(|_| value_error("regs_per_thread: expected an int (0 to 255)"))?;
        if !(0..=255).contains(&n) {
            return Err(value_error(format!(
                "regs_per_thread: {n} is not a register count (0 to the 255 registers a thread can have)"
            )));
        }
        self.regs_per_thread = n as u16;
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
    /// Runs `f` on the warp's storage without the GIL, the arrays borrowed (read-write) for
    /// its duration.
    pub fn with_regs<T>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Regs<'_>) -> T + Send,
    ) -> PyResult<T>
    where
        T: Send,
    {
        self.with_storage(py, |mut view| py.detach(move || f(&mut view)))
    }

    /// Runs `f` on the warp's storage as [`with_regs`](Self::with_regs) does, with the GIL
    /// held throughout (for an `f` that calls Python: a callback memory's reads).
    pub fn with_regs_held<T>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Regs<'_>) -> T,
    ) -> PyResult<T> {
        self.with_storage(py, |mut view| f(&mut view))
    }

    /// Runs `run` on the warp's storage, borrowed (read-write) for its duration: one
    /// execution at a time (another thread's waits without the GIL; this thread's own, from
    /// a read callback, is a `RuntimeError`).
    fn with_storage<T>(&self, py: Python<'_>, run: impl FnOnce(Regs<'_>) -> T) -> PyResult<T> {
        let _turn = self.busy.take(py, "the Warp")?;
        let regs = self.regs.bind(py);
        let uregs = self.uregs.bind(py);
        let preds = self.preds.bind(py);
        // The storage's shape, checked before anything is read: never a panic, never a
        // register read as 0 past a shrunk array.
        for (name, shape, want) in [
            ("regs", regs.shape().to_vec(), vec![REGS, WARP_SIZE]),
            ("uregs", uregs.shape().to_vec(), vec![REGS]),
            ("preds", preds.shape().to_vec(), vec![PREDS, WARP_SIZE]),
        ] {
            if shape != want {
                return Err(value_error(format!(
                    "Warp.{name}: the storage has shape {shape:?}, not {want:?}"
                )));
            }
        }
        let mut r = regs.try_readwrite().map_err(value_error)?;
        let u = uregs.try_readonly().map_err(value_error)?;
        let mut p = preds.try_readwrite().map_err(value_error)?;
        let regs = r.as_slice_mut().map_err(value_error)?;
        let uregs = u.as_slice().map_err(value_error)?;
        let preds = p.as_slice_mut().map_err(value_error)?;
        Ok(run(Regs {
            regs,
            uregs,
            preds,
            active: self.active_mask,
            nregs: self.regs_per_thread,
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
