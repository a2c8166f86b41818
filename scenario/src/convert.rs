//! Owned textures to the memory form: a scenario's texture pool laid out in a memory image
//! (headers, samplers, texels), as a model ([`Scenario::to_memory_form`]) and as a scenario
//! file ([`to_memory_json`], `tld4 to-memory`). Handles, registers, the instruction and the
//! expectations are kept; what the memory form cannot express is an error naming it.

use std::io::Write;
use std::path::Path;

use tld4_gpu_memory::descriptor::tsc::SamplerState;
use tld4_gpu_memory::{to_memory, LayoutChoice, SparseMemory};
use tld4_textures::layout::GOB_BYTES;
use tld4_textures::{Sampler, TextureKind, TexturePool};

use crate::builder::{Scenario, Textures};
use crate::error::{err, ScenarioError};
use crate::json::{load_in, top_level_entries};
use crate::memory::{write_hex, MemoryImage};

/// Where `tld4 to-memory` puts header 0 unless told otherwise (`--base`): a choice, any
/// address works (docs/sources.md, Decisions).
pub const DEFAULT_BASE: u64 = 0x10000;

/// Texel storage starts at a multiple of this: 4 KiB, a page, a choice
/// (docs/sources.md, Decisions); block-linear headers need 512 bytes, pitch headers 32
/// (the address fields ADDRESS_BITS31TO9 and ADDRESS_BITS31TO5: docs/sources.md, Descriptors).
pub const TEXEL_ALIGN: u64 = 4096;

/// The pitch layout `tld4 to-memory --layout pitch` writes, a choice (docs/sources.md, Decisions):
/// rows padded to 32 bytes, the pitch header's granularity (`PITCH_BITS21TO5`;
/// docs/sources.md, Descriptors).
pub const PITCH: LayoutChoice = LayoutChoice::Pitch { row_alignment: 32 };

/// The block-linear layout `tld4 to-memory --layout block-linear` writes, a choice
/// (docs/sources.md, Decisions): 16 GOBs a block (log2 4), which the hardware clamps for
/// short textures (docs/sources.md, Block-linear layout); texels read the same at any height.
pub const BLOCK_LINEAR: LayoutChoice = LayoutChoice::BlockLinear {
    gobs_per_block_height_log2: 4,
};

/// The layout names of the command line: `pitch`, `block-linear`.
pub fn layout_by_name(name: &str) -> Result<LayoutChoice, ScenarioError> {
    match name {
        "pitch" => Ok(PITCH),
        "block-linear" => Ok(BLOCK_LINEAR),
        _ => Err(err(
            "layout",
            format!("`{name}` is not a layout: pitch or block-linear"),
        )),
    }
}

/// Lays out an owned pool in memory at `base` (a choice: docs/sources.md, Decisions):
/// texture header i at `base + 32 * i`, the
/// sampler pool after the headers at the next 512-byte boundary (sampler j at
/// `sampler_pool + 32 * j`), then each texture's texels at the next [`TEXEL_ALIGN`]
/// boundary, in header order. Errors name the texture (`textures[i]`): a residency map, a
/// pitch layout for an array or cube (a pitch header describes one 2-D image), a
/// block-linear layout for 1- or 2-byte texels (not modeled), an image past 2^64.
pub fn memory_image(
    pool: &TexturePool,
    layout: LayoutChoice,
    base: u64,
) -> Result<MemoryImage, ScenarioError> {
    let past = |what: &str| {
        err(what, "the memory image passes the end of the 64-bit address space; give a lower base address")
    };
    let n = pool.texture_count() as u64;
    let m = pool.sampler_count() as u64;
    let header_pool = base;
    let sampler_pool = header_pool
        .checked_add(32 * n)
        .and_then(|e| e.checked_next_multiple_of(GOB_BYTES))
        .ok_or_else(|| past("base"))?;
    let mut next = sampler_pool
        .checked_add(32 * m)
        .and_then(|e| e.checked_next_multiple_of(TEXEL_ALIGN))
        .ok_or_else(|| past("base"))?;
    let mut headers = Vec::with_capacity(32 * n as usize);
    let mut memory = SparseMemory::new();
    let default_sampler = Sampler::default();
    for (k, (index, tex)) in pool.textures().enumerate() {
        let path = format!("textures[{index}]");
        if index as usize != k {
            return Err(err(&path, "texture headers with gaps have no memory form here (the converter writes a dense header pool)"));
        }
        if matches!(layout, LayoutChoice::Pitch { .. }) && tex.kind() != TextureKind::Tex2D {
            return Err(err(&path, format!("a {} texture has no pitch-linear form: a pitch header describes one 2-D image (no depth field); use the block-linear layout", kind_name(tex.kind()))));
        }
        if tex.residency().is_some() {
            return Err(err(&path, "a residency map has no memory form: the texture header has no sparse residency, so the scenario cannot be converted"));
        }
        let form = to_memory(tex, &default_sampler, layout, next)
            .map_err(|e| err(&path, format!("no memory form: {e}")))?;
        headers.extend(form.tic.iter().flat_map(|w| w.to_le_bytes()));
        let len = form.bytes.len() as u64;
        memory.map(next, form.bytes).map_err(|_| past(&path))?;
        next = next
            .checked_add(len.max(1))
            .and_then(|e| e.checked_next_multiple_of(TEXEL_ALIGN))
            .ok_or_else(|| past(&path))?;
    }
    let mut samplers = Vec::with_capacity(32 * m as usize);
    for (k, (index, s)) in pool.samplers().enumerate() {
        if index as usize != k {
            return Err(err(format!("samplers[{index}]"), "samplers with gaps have no memory form here (the converter writes a dense sampler pool)"));
        }
        samplers.extend(
            SamplerState::from_sampler(s)
                .words
                .iter()
                .flat_map(|w| w.to_le_bytes()),
        );
    }
    for (at, bytes) in [(header_pool, headers), (sampler_pool, samplers)] {
        if !bytes.is_empty() {
            memory.map(at, bytes).map_err(|_| past("base"))?;
        }
    }
    Ok(MemoryImage {
        memory,
        header_pool,
        sampler_pool,
    })
}

fn kind_name(kind: TextureKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{kind:?}"))
}

impl Scenario {
    /// The same scenario with its owned textures and samplers laid out in memory
    /// ([`memory_image`]): the same handles, warp, instruction and expectations, and the
    /// same results lane by lane. A scenario already in memory form is returned unchanged.
    pub fn to_memory_form(
        &self,
        layout: LayoutChoice,
        base: u64,
    ) -> Result<Scenario, ScenarioError> {
        let pool = match &self.textures {
            Textures::Owned(p) => p,
            Textures::Memory(_) => return Ok(self.clone()),
        };
        // every field but the owned textures, which are not copied (they may be large)
        Ok(Scenario {
            insn: self.insn,
            word: self.word,
            exec: self.exec.clone(),
            warp: self.warp.clone(),
            textures: Textures::Memory(memory_image(pool, layout, base)?),
            handles: self.handles.clone(),
            expect: self.expect.clone(),
            expect_fault: self.expect_fault,
            has_expect: self.has_expect,
        })
    }
}

/// A scenario file in its memory form, ready to be written ([`MemoryJson::write_to`]): the
/// file's own keys in its own order and spelling, with `textures` replaced by `memory` (one
/// region for the header pool, one for the sampler pool, one per texture, bytes as hex),
/// `texture_header_pool` and `sampler_pool`, and `samplers` left out.
#[derive(Debug)]
pub struct MemoryJson {
    /// The file's top-level keys and their values as written.
    entries: Vec<(String, Box<serde_json::value::RawValue>)>,
    /// The memory image that replaces `textures` and `samplers`.
    image: MemoryImage,
}

impl MemoryJson {
    /// Writes the document to `w`, streaming the hex of each region (nothing the size of
    /// the output is built in memory: give `w` a buffer).
    pub fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()> {
        w.write_all(b"{\n")?;
        let mut first = true;
        let mut key = |w: &mut dyn Write, key: &str| -> std::io::Result<()> {
            if !first {
                w.write_all(b",\n")?;
            }
            first = false;
            // a key is a JSON string: written as serde_json writes strings
            let k = serde_json::to_string(key).unwrap_or_default();
            write!(w, "  {k}: ")
        };
        for (name, value) in &self.entries {
            match name.as_str() {
                "textures" => {
                    key(w, "memory")?;
                    w.write_all(b"[\n")?;
                    for (k, (at, bytes)) in self.image.memory.regions().enumerate() {
                        if k > 0 {
                            w.write_all(b",\n")?;
                        }
                        write!(w, "    {{\"address\": \"{at:#x}\", \"hex\": \"")?;
                        write_hex(w, bytes)?;
                        w.write_all(b"\"}")?;
                    }
                    w.write_all(b"\n  ]")?;
                    key(w, "texture_header_pool")?;
                    write!(w, "\"{:#x}\"", self.image.header_pool)?;
                    key(w, "sampler_pool")?;
                    write!(w, "\"{:#x}\"", self.image.sampler_pool)?;
                }
                "samplers" => {}
                _ => {
                    key(w, name)?;
                    w.write_all(value.get().as_bytes())?;
                }
            }
        }
        w.write_all(b"\n}\n")
    }
}

/// A scenario file in its memory form ([`MemoryJson`]). `dir` is the file's directory (as
/// for [`load_in`]); relative file names in the other keys are kept as written. Errors:
/// those of loading the file, a file already in memory form, and what has no memory form
/// ([`memory_image`]).
pub fn memory_json(
    text: &str,
    dir: &Path,
    layout: LayoutChoice,
    base: u64,
) -> Result<MemoryJson, ScenarioError> {
    let s = load_in(text, dir)?;
    let Textures::Owned(pool) = &s.textures else {
        return Err(err("memory", "the scenario is already in memory form"));
    };
    let image = memory_image(pool, layout, base)?;
    // the owned textures are no longer needed: free them before the output is written
    drop(s);
    Ok(MemoryJson {
        entries: top_level_entries(text)?,
        image,
    })
}

/// [`memory_json`] as a string (for a large texture, prefer [`MemoryJson::write_to`] into a
/// buffered writer: the text is about 2.25 times the texel bytes).
pub fn to_memory_json(
    text: &str,
    dir: &Path,
    layout: LayoutChoice,
    base: u64,
) -> Result<String, ScenarioError> {
    let doc = memory_json(text, dir, layout, base)?;
    let mut out = Vec::new();
    doc.write_to(&mut out).map_err(|e| err("", e))?;
    String::from_utf8(out).map_err(|e| err("", e))
}
