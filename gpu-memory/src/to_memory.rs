//! Owned textures to the memory form: texel bytes laid out as a header describes, the
//! header and sampler words, and whole pool images (so every owned-texture test can also
//! run through memory).

use crate::descriptor::tic::{HeaderLayout, TextureHeader, FORMATS};
use crate::descriptor::tsc::SamplerState;
use crate::error::MemTexError;
use crate::layout::layout_of;
use crate::memory::{MemoryError, SparseMemory};
use tld4_textures::layout::GOB_BYTES;
use tld4_textures::Sampler;
use tld4_textures::Texture;

/// The layout to write texels in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayoutChoice {
    /// Pitch-linear, rows padded to a multiple of `row_alignment` bytes (a multiple of 32;
    /// 2-D textures only, as the pitch header has no depth).
    Pitch {
        /// Row alignment in bytes.
        row_alignment: u32,
    },
    /// Block-linear with `1 << gobs_per_block_height_log2` GOBs per block (0..=5; the
    /// hardware clamps it for short textures).
    BlockLinear {
        /// log2 GOBs per block down.
        gobs_per_block_height_log2: u8,
    },
}

/// An owned texture in memory form.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryForm {
    /// The header (its `address` is where `bytes` start).
    pub header: TextureHeader,
    /// The header's eight words.
    pub tic: [u32; 8],
    /// The sampler's eight words.
    pub tsc: [u32; 8],
    /// The texel bytes, every layer, from `header.address`.
    pub bytes: Vec<u8>,
}

/// Lay `texture` out at `address` (aligned to 512 bytes for block-linear, 32 for pitch) and
/// describe it and `sampler` in descriptor words. Errors: what the memory form cannot express
/// (a residency map; pitch arrays and cubes; block-linear 1- and 2-byte texels) as not
/// modeled, a misaligned address or bad row alignment as invalid.
pub fn to_memory(
    texture: &Texture,
    sampler: &Sampler,
    layout: LayoutChoice,
    address: u64,
) -> Result<MemoryForm, MemTexError> {
    if texture.residency().is_some() {
        return Err(MemTexError::Unrepresentable(
            "a residency map (the header has no sparse residency)",
        ));
    }
    let format = texture.format();
    let bpt = format.texel_bytes();
    let header_layout = match layout {
        LayoutChoice::Pitch { row_alignment } => {
            if row_alignment == 0 || row_alignment % 32 != 0 {
                return Err(MemTexError::Unrepresentable(
                    "a pitch row alignment that is not a multiple of 32",
                ));
            }
            let pitch =
                (texture.width() as u64 * bpt as u64).next_multiple_of(row_alignment as u64);
            HeaderLayout::Pitch {
                pitch: u32::try_from(pitch)
                    .map_err(|_| MemTexError::Unrepresentable("a pitch above 2^32 bytes"))?,
            }
        }
        LayoutChoice::BlockLinear {
            gobs_per_block_height_log2,
        } => HeaderLayout::BlockLinear {
            gobs_per_block_height_log2,
        },
    };
    let header = TextureHeader {
        layout: header_layout,
        address,
        kind: texture.kind(),
        format,
        width: texture.width(),
        height: texture.height(),
        depth: texture.layers(),
        swizzle: texture.swizzle(),
        normalized_coords: true,
        depth_texture: false,
        border_from_sampler: true,
        words: [0; 8],
    };
    debug_assert!(FORMATS.iter().any(|f| f.0 == format));
    let tic = header.encode()?;
    // decode what was encoded: the memory form is exactly what a driver would have written
    let header = TextureHeader::decode(&tic)?;
    let tsc = SamplerState::from_sampler(sampler).encode();
    let lay = layout_of(&header);
    let layers = texture.desc().storage_layers() as u32;
    let size = lay
        .layer_stride
        .checked_mul(layers as u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or(MemTexError::Unrepresentable(
            "a texture above the address space",
        ))?;
    let mut bytes = vec![0u8; size];
    let words = format.words();
    let eb = (bpt as usize) / words;
    for layer in 0..layers {
        for y in 0..texture.height() {
            for x in 0..texture.width() {
                let at = lay.texel_offset(layer, x, y) as usize;
                for e in 0..words {
                    let v = texture
                        .data()
                        .element(layer as usize, y as usize, x as usize, e)
                        .unwrap_or(0);
                    bytes[at + e * eb..at + (e + 1) * eb].copy_from_slice(&v.to_le_bytes()[..eb]);
                }
            }
        }
    }
    Ok(MemoryForm {
        header,
        tic,
        tsc,
        bytes,
    })
}

/// A memory image with a texture header pool, a sampler pool and texels: entry `i` of the
/// list is header `i` and sampler `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolImage {
    /// The memory: one region for the header pool, one for the sampler pool, one per texture.
    pub memory: SparseMemory,
    /// Address of header 0.
    pub header_pool: u64,
    /// Address of sampler 0.
    pub sampler_pool: u64,
}

/// Build a pool image at `base` (512-byte aligned): header pool, sampler pool, then each
/// texture's texels at the next 4 KiB boundary. An image that would pass the end of the
/// address space is refused ([`MemoryError::Overflow`] naming the part that passes it),
/// never wrapped to address 0.
pub fn pool_image(
    entries: &[(&Texture, &Sampler, LayoutChoice)],
    base: u64,
) -> Result<PoolImage, MemTexError> {
    const ALIGN: u64 = 4096;
    // `len` bytes at `at`, then the next multiple of `align`: None past 2^64.
    let after = |at: u64, len: u64, align: u64| {
        at.checked_add(len)
            .and_then(|e| e.checked_next_multiple_of(align))
            .ok_or(MemoryError::Overflow {
                addr: at,
                len: len as usize,
            })
    };
    let bytes_of = |n: usize| {
        n.checked_mul(32).ok_or(MemTexError::Unrepresentable(
            "a pool of more than 2^59 entries",
        ))
    };
    let n = bytes_of(entries.len())? as u64;
    let header_pool = base;
    let sampler_pool = after(header_pool, n, GOB_BYTES)?;
    // where the next texture's texels go: an error only if a texture needs it
    let mut next = after(sampler_pool, n, ALIGN);
    let mut headers = Vec::with_capacity(n as usize);
    let mut samplers = Vec::with_capacity(n as usize);
    let mut memory = SparseMemory::new();
    for (tex, smp, layout) in entries {
        let at = next?;
        let form = to_memory(tex, smp, *layout, at)?;
        headers.extend(form.tic.iter().flat_map(|w| w.to_le_bytes()));
        samplers.extend(form.tsc.iter().flat_map(|w| w.to_le_bytes()));
        let len = form.bytes.len() as u64;
        memory
            .map(at, form.bytes)
            .map_err(|_| MemoryError::Overflow {
                addr: at,
                len: len as usize,
            })?;
        next = after(at, len.max(1), ALIGN);
    }
    for (at, bytes) in [(header_pool, headers), (sampler_pool, samplers)] {
        let len = bytes.len();
        memory
            .map(at, bytes)
            .map_err(|_| MemoryError::Overflow { addr: at, len })?;
    }
    Ok(PoolImage {
        memory,
        header_pool,
        sampler_pool,
    })
}
