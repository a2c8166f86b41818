//! `Memory`: textures in GPU memory (a byte image with its texture header and sampler pools),
//! and the descriptor encoders that write them as a driver does.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use tld4_gpu_memory::descriptor::tsc::SamplerState;
use tld4_gpu_memory::{
    pool_image, to_memory, FlatMemory, LayoutChoice, Range, RangesMemory, SparseMemory,
};

use crate::errors::value_error;
use crate::texture::{Sampler, Texture};

/// The bytes behind a `Memory`.
pub enum Image {
    /// One range from a base address.
    Flat(FlatMemory),
    /// Separate regions (as `Memory.from_textures` lays them out).
    Sparse(SparseMemory),
}

impl Image {
    /// As the texture unit reads memory.
    pub fn as_memory(&self) -> &dyn tld4_gpu_memory::Memory {
        match self {
            Image::Flat(m) => m,
            Image::Sparse(m) => m,
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

    /// The mapped regions, as (address, bytes).
    fn regions<'py>(&self, py: Python<'py>) -> Vec<(u64, Bound<'py, PyBytes>)> {
        match &self.image {
            Image::Flat(m) => vec![(m.base, PyBytes::new(py, &m.bytes))],
            Image::Sparse(m) => m.regions().map(|(a, b)| (a, PyBytes::new(py, b))).collect(),
        }
    }

    /// `n` bytes at `address`; `ValueError` where they are not all mapped.
    fn read<'py>(&self, py: Python<'py>, address: u64, n: usize) -> PyResult<Bound<'py, PyBytes>> {
        let mut buf = vec![0u8; n];
        self.image
            .as_memory()
            .read(address, &mut buf)
            .map_err(value_error)?;
        Ok(PyBytes::new(py, &buf))
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
