//! `Memory.from_callback`: GPU memory read through a Python function, as a simulator's
//! memory model reads its own, with what it read kept across calls (tld4-gpu-memory's
//! `CallbackMemory`: textures whole, 32-byte sectors) until the owner says the bytes changed
//! (`invalidate`, `clear`): C's `tld4_memory_cache` for Python (docs/sources.md, Decisions:
//! the persistent callback cache).

use std::cell::{Cell, RefCell};

use numpy::PyUntypedArrayMethods;
use numpy::{dtype, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView};
use pyo3::PyTraverseError;

use tld4_gpu_memory::{CallbackMemory, Kept, ReadBytes};

use crate::errors::value_error;
use crate::turns::Turns;

/// The Python read function `read(address, size)` behind a callback memory.
pub struct PyRead {
    /// The function; None once the garbage collector cleared it (`Memory.__clear__`).
    func: RefCell<Option<Py<PyAny>>>,
    /// The first error a read gave in the running call (the function's own exception, or a
    /// wrong return's): later reads of the call fail without calling it, and the call
    /// raises it.
    pending: Cell<Option<PyErr>>,
}

impl ReadBytes for PyRead {
    fn read_bytes(&self, addr: u64, dst: &mut [u8]) -> bool {
        Python::attach(|py| {
            if let Some(e) = self.pending.take() {
                self.pending.set(Some(e));
                return false;
            }
            self.call(py, addr, dst).unwrap_or_else(|e| {
                self.pending.set(Some(e));
                false
            })
        })
    }
}

impl PyRead {
    /// Calls the function for the `dst.len()` bytes at `addr`: true with `dst` filled,
    /// false where it returned None (the bytes cannot be read).
    fn call(&self, py: Python<'_>, addr: u64, dst: &mut [u8]) -> PyResult<bool> {
        let func = self
            .func
            .borrow()
            .as_ref()
            .map(|f| f.clone_ref(py))
            .ok_or_else(|| {
                PyRuntimeError::new_err("the Memory's read callback was cleared (collected)")
            })?;
        let got = func.bind(py).call1((addr, dst.len()))?;
        if got.is_none() {
            return Ok(false);
        }
        copy_into(&got, addr, dst)?;
        Ok(true)
    }
}

/// Copies what a read function returned for the `dst.len()` bytes at `addr` into `dst`:
/// `bytes`, `bytearray`, `memoryview` or a `uint8` numpy array of exactly that many bytes
/// (`ValueError` for another length, `TypeError` for another type, both naming the read).
fn copy_into(got: &Bound<'_, PyAny>, addr: u64, dst: &mut [u8]) -> PyResult<()> {
    let n = dst.len();
    let what = || format!("Memory read callback: read({addr:#x}, {n})");
    let mut fill = |b: &[u8]| {
        if b.len() != n {
            return Err(value_error(format!(
                "{} returned {} bytes, not {n}",
                what(),
                b.len()
            )));
        }
        dst.copy_from_slice(b);
        Ok(())
    };
    if let Ok(b) = got.cast::<PyBytes>() {
        return fill(b.as_bytes());
    }
    if let Ok(b) = got.cast::<PyByteArray>() {
        return fill(&b.to_vec());
    }
    if let Ok(a) = got.cast::<PyUntypedArray>() {
        if !a.dtype().is_equiv_to(&dtype::<u8>(got.py())) {
            return Err(PyTypeError::new_err(format!(
                "{} returned a numpy array of dtype {}, not uint8",
                what(),
                a.dtype()
            )));
        }
        let a = a.cast::<PyArrayDyn<u8>>()?;
        if let Ok(s) = a.try_readonly().map_err(value_error)?.as_slice() {
            return fill(s);
        }
        // not contiguous: its bytes in C order, as bytes(array) gives them
    } else if !got.is_instance_of::<PyMemoryView>() {
        return Err(PyTypeError::new_err(format!(
            "{} returned {}; expected bytes, bytearray, memoryview, a uint8 numpy array, \
             or None (the bytes cannot be read)",
            what(),
            got.get_type().name()?
        )));
    }
    let b = got
        .py()
        .import("builtins")?
        .getattr("bytes")?
        .call1((got,))?;
    fill(b.cast::<PyBytes>()?.as_bytes())
}

/// A callback memory's read function and what it read, one call at a time.
pub struct CallbackImage {
    mem: Turns<CallbackMemory<PyRead>>,
}

impl CallbackImage {
    /// Nothing read yet.
    pub fn new(func: Py<PyAny>) -> Self {
        CallbackImage {
            mem: Turns::new(CallbackMemory::new(PyRead {
                func: RefCell::new(Some(func)),
                pending: Cell::new(None),
            })),
        }
    }

    /// Runs one call's `f` over the memory (its turn: another thread's call waits, one from
    /// inside the read function is a `RuntimeError`), first making room for a texture not
    /// kept yet; the read function's first error, where it gave one, in place of `f`'s
    /// result.
    pub fn with<T>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&CallbackMemory<PyRead>) -> T,
    ) -> PyResult<T> {
        let mut turn = self.mem.take(py, "the Memory")?;
        turn.make_room();
        let out = f(&turn);
        match turn.reader().pending.take() {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Drops what is kept of the `len` bytes at `addr` (`ValueError` past 2^64).
    pub fn invalidate(&self, py: Python<'_>, addr: u64, len: u64) -> PyResult<()> {
        if addr as u128 + len as u128 > 1u128 << 64 {
            return Err(value_error(format!(
                "invalidate: address {addr:#x} + length {len:#x} passes 2^64"
            )));
        }
        self.mem.take(py, "the Memory")?.invalidate(addr, len);
        Ok(())
    }

    /// Drops everything kept.
    pub fn clear(&self, py: Python<'_>) -> PyResult<()> {
        self.mem.take(py, "the Memory")?.clear();
        Ok(())
    }

    /// How many textures and sectors are kept.
    pub fn kept(&self, py: Python<'_>) -> PyResult<Kept> {
        Ok(self.mem.take(py, "the Memory")?.kept())
    }

    /// Visits the read function for the garbage collector (not while a call holds the
    /// memory: the memory is then in use, not garbage).
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(mem) = self.mem.peek() {
            if let Ok(func) = mem.reader().func.try_borrow() {
                visit.call(&*func)?;
            }
        }
        Ok(())
    }

    /// Lets the read function go (the garbage collector breaking a cycle through it).
    pub fn drop_function(&self) {
        let func = self
            .mem
            .peek()
            .and_then(|mem| mem.reader().func.try_borrow_mut().ok()?.take());
        drop(func);
    }
}
