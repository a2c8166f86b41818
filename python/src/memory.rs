//! `Memory`: textures in GPU memory (a byte image with its texture header and sampler pools),
//! and the descriptor encoders that write them as a driver does.

use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::PyTraverseError;

use tld4_gpu_memory::descriptor::tsc::SamplerState;
use tld4_gpu_memory::Memory as _;
use tld4_gpu_memory::{
    pool_image, to_memory, FlatMemory, LayoutChoice, Range, RangesMemory, SparseMemory,
};

use crate::callback::CallbackImage;
use crate::errors::{int_arg, value_error};
use crate::texture::{Sampler, Texture};

/// The bytes behind a `Memory`.
pub enum Image {
    /// One range from a base address.
    Flat(FlatMemory),
    /// Separate regions (as `Memory.from_textures` lays them out).
    Sparse(SparseMemory),
    /// Read through a Python function, what it read kept (`Memory.from_callback`).
    Callback(CallbackImage),
}

/// How the texture unit reads an [`Image`].
pub enum Reader<'a> {
    /// Bytes held here, read in place (on any thread).
    Owned(&'a (dyn tld4_gpu_memory::Memory + Sync)),
    /// Through the Python function, with the GIL.
    Callback(&'a CallbackImage),
}

impl Image {
    /// How the texture unit reads it.
    pub fn reader(&self) -> Reader<'_> {
        match self {
            Image::Flat(m) => Reader::Owned(m),
            Image::Sparse(m) => Reader::Owned(m),
            Image::Callback(c) => Reader::Callback(c),
        }
    }

    /// The callback memory, for one that is.
    fn callback(&self) -> PyResult<&CallbackImage> {
        match self {
            Image::Callback(c) => Ok(c),
            _ => Err(pyo3::exceptions::PyTypeError::new_err(
                "not a callback memory (Memory.from_callback): its bytes are held, not kept",
            )),
        }
    }
}

/// A layout by its command-line name: `pitch` or `block-linear` (`block_linear` too).
/// The bytes of a bytes-like object, as Python's `bytes(data)` gives them (copied once).
pub(crate) fn bytes_of(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let b = data
        .py()
        .import("builtins")?
        .getattr("bytes")?
        .call1((data,))?;
    Ok(b.cast::<PyBytes>()?.as_bytes().to_vec())
}

fn layout_of(name: &str) -> PyResult<LayoutChoice> {
    tld4_scenario::layout_by_name(&name.replace('_', "-")).map_err(|e| value_error(e.message))
}

/// GPU memory holding texture headers, samplers and texels.
///
/// `Memory(data, base, header_pool, sampler_pool)`: `data` a bytes-like image mapped at
/// address `base`; header `i` is read at `header_pool + 32 * i`, sampler `j` at
/// `sampler_pool + 32 * j` (the descriptors' layouts are `texture_descriptors`').
#[pyclass(module = "tld4", frozen)]
pub struct Memory {
    pub image: Image,
    /// Address of texture header 0.
    #[pyo3(get)]
    pub header_pool: u64,
    /// Address of sampler 0.
    #[pyo3(get)]
    pub sampler_pool: u64,
}

#[pymethods]
impl Memory {
    #[new]
    fn new(
        data: &Bound<'_, PyAny>,
        base: u64,
        header_pool: u64,
        sampler_pool: u64,
    ) -> PyResult<Self> {
        let bytes = bytes_of(data)?;
        Ok(Memory {
            image: Image::Flat(FlatMemory::new(base, bytes)),
            header_pool,
            sampler_pool,
        })
    }

    /// Lays out textures and samplers as a driver does, from `base`: header `i` and sampler
    /// `i` describe `entries[i]`, a (texture, sampler) pair; texels in `layout`
    /// (`"block-linear"`, or `"pitch"` for 2-D textures). Without `layout`, each texture is
    /// block-linear where the model lays its texels out so (4-, 8- and 16-byte texels) and
    /// pitch otherwise (1- and 2-byte formats, 2-D: docs/python.md).
    #[staticmethod]
    #[pyo3(signature = (entries, base = 0x10000, layout = None))]
    fn from_textures(
        entries: Vec<(PyRef<'_, Texture>, PyRef<'_, Sampler>)>,
        base: u64,
        layout: Option<&str>,
    ) -> PyResult<Self> {
        let chosen = layout.map(layout_of).transpose()?;
        let list = entries
            .iter()
            .map(|(t, s)| {
                let l = match chosen {
                    Some(l) => l,
                    None if t.inner.format().texel_bytes() >= 4 => layout_of("block-linear")?,
                    None => layout_of("pitch")?,
                };
                Ok((&*t.inner, &s.inner, l))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let image = pool_image(&list, base).map_err(value_error)?;
        Ok(Memory {
            image: Image::Sparse(image.memory),
            header_pool: image.header_pool,
            sampler_pool: image.sampler_pool,
        })
    }

    /// Memory made of many ranges, as a simulator holds its sparse GPU memory: `ranges` a
    /// list of `(address, data)` (each `data` bytes-like, copied), sorted by address, none
    /// overlapping the one before, none past 2^64 (`ValueError` naming the range's index
    /// otherwise); header `i` at `header_pool + 32 * i`, sampler `j` at `sampler_pool + 32
    /// * j`. A texture lying in one range is read in place, as from one flat range.
    #[staticmethod]
    fn from_ranges(
        ranges: Vec<(u64, Bound<'_, PyAny>)>,
        header_pool: u64,
        sampler_pool: u64,
    ) -> PyResult<Self> {
        let mut copies = Vec::with_capacity(ranges.len());
        for (address, data) in &ranges {
            copies.push((*address, bytes_of(data)?));
        }
        // the one check of a list of ranges (the C ABI's too)
        RangesMemory::new(
            copies
                .iter()
                .map(|(address, bytes)| Range {
                    address: *address,
                    bytes,
                })
                .collect(),
        )
        .map_err(value_error)?;
        let mut memory = SparseMemory::new();
        for (address, bytes) in copies.into_iter().filter(|(_, b)| !b.is_empty()) {
            memory.map(address, bytes).map_err(value_error)?;
        }
        Ok(Memory {
            image: Image::Sparse(memory),
            header_pool,
            sampler_pool,
        })
    }

    /// Memory read through `read(address, size)`, a function returning the `size` bytes at
    /// `address` (`bytes`, `bytearray`, `memoryview` or a `uint8` numpy array), or None
    /// where they cannot be read (then read as unmapped memory is); header `i` at
    /// `header_pool + 32 * i`, sampler `j` at `sampler_pool + 32 * j`. It is asked for whole
    /// textures and 32-byte sectors, and what it returned is kept across calls until
    /// `invalidate` or `clear`: kept bytes must not change meanwhile. An exception `read`
    /// raises ends the call that read (`Exec.execute_memory`, `read`) with that exception; a
    /// return of another type or length is a `TypeError` or `ValueError` naming the read.
    /// `read` runs with the GIL held and may not use this memory (`RuntimeError`); calls from
    /// several threads take turns (docs/python.md).
    #[staticmethod]
    fn from_callback(
        read: Bound<'_, PyAny>,
        header_pool: u64,
        sampler_pool: u64,
    ) -> PyResult<Self> {
        if !read.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "read: expected a function read(address, size), got {}",
                read.get_type().name()?
            )));
        }
        Ok(Memory {
            image: Image::Callback(CallbackImage::new(read.unbind())),
            header_pool,
            sampler_pool,
        })
    }

    /// A callback memory: drops what it keeps of the `length` bytes at `address` (every
    /// texture or sector overlapping them), to be read again when next needed. Call it
    /// after those bytes changed, before the next call reading them.
    fn invalidate(
        &self,
        py: Python<'_>,
        address: &Bound<'_, PyAny>,
        length: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (address, length) = (int_arg(address, "address")?, int_arg(length, "length")?);
        self.image.callback()?.invalidate(py, address, length)
    }

    /// A callback memory: drops everything it keeps.
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        self.image.callback()?.clear(py)
    }

    /// A callback memory: how many (textures, 32-byte sectors) it keeps (at most 4 and 64).
    fn kept(&self, py: Python<'_>) -> PyResult<(usize, usize)> {
        let kept = self.image.callback()?.kept(py)?;
        Ok((kept.views, kept.sectors))
    }

    /// The mapped regions, as (address, bytes) (`TypeError` for a callback memory, whose
    /// regions are its function's).
    fn regions<'py>(&self, py: Python<'py>) -> PyResult<Vec<(u64, Bound<'py, PyBytes>)>> {
        Ok(match &self.image {
            Image::Flat(m) => vec![(m.base, PyBytes::new(py, &m.bytes))],
            Image::Sparse(m) => m.regions().map(|(a, b)| (a, PyBytes::new(py, b))).collect(),
            Image::Callback(_) => {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "a callback memory has no list of regions: its bytes are its function's",
                ))
            }
        })
    }

    /// `n` bytes at `address`; `ValueError` where they are not all mapped.
    fn read<'py>(&self, py: Python<'py>, address: u64, n: usize) -> PyResult<Bound<'py, PyBytes>> {
        let mut buf = vec![0u8; n];
        match self.image.reader() {
            Reader::Owned(m) => m.read(address, &mut buf),
            Reader::Callback(c) => c.with(py, |m| m.read(address, &mut buf))?,
        }
        .map_err(value_error)?;
        Ok(PyBytes::new(py, &buf))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        match &self.image {
            Image::Callback(c) => c.traverse(&visit),
            _ => Ok(()),
        }
    }

    fn __clear__(&self) {
        if let Image::Callback(c) = &self.image {
            c.drop_function();
        }
    }
}

/// A texture and sampler in memory form, as a driver writes them: `(header, sampler,
/// texels)`, the 32-byte texture header (TIC), the 32-byte sampler (TSC) and the texel bytes
/// that start at `address` (block-linear textures: 512-byte aligned; pitch: 32).
#[pyfunction]
#[pyo3(signature = (texture, sampler, address, layout = "block-linear"))]
pub fn texture_descriptors<'py>(
    py: Python<'py>,
    texture: &Texture,
    sampler: &Sampler,
    address: u64,
    layout: &str,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let form = to_memory(&texture.inner, &sampler.inner, layout_of(layout)?, address)
        .map_err(value_error)?;
    let words = |w: &[u32; 8]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    Ok((
        PyBytes::new(py, &words(&form.tic)),
        PyBytes::new(py, &words(&form.tsc)),
        PyBytes::new(py, &form.bytes),
    ))
}

/// The 32-byte sampler descriptor (TSC) of `sampler`, as a driver writes it.
#[pyfunction]
pub fn sampler_descriptor<'py>(py: Python<'py>, sampler: &Sampler) -> Bound<'py, PyBytes> {
    let w = SamplerState::from_sampler(&sampler.inner).encode();
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    PyBytes::new(py, &bytes)
}
