//! A lane of a scenario whose textures are in GPU memory: the texture header and sampler its
//! handle reads (address, words, every field that is not 0, by the descriptor tables' names:
//! `tld4_gpu_memory::descriptor`), the texel layout, and the byte address of each footprint
//! texel of its path.

use std::fmt::Write as _;

use tld4_gpu_memory::descriptor::tic::{header_version, TEXHEAD_V2_BL, TEXHEAD_V2_PITCH};
use tld4_gpu_memory::descriptor::tsc::TEXSAMP;
use tld4_gpu_memory::descriptor::{field, DescField};
use tld4_gpu_memory::{HeaderLayout, MemoryTexels, SamplerState, TextureHeader};
use tld4_textures::layout::{sector_of, LayoutKind};
use tld4_textures::trace::{GatherTrace, TexelSite};
use tld4_textures::{Handle, Sampler};

use tld4_scenario::{texel_text, MemoryImage, BORDER_TEXT, CORNER_TEXT};

use super::GATHER_ORDER;

/// Prints the descriptors the handle reads and returns the texels (in memory: nothing is
/// read before the trace and the picture read what they use), the sampler and the header;
/// `Err` says why there are none (the reason is printed too).
pub(super) fn resolve<'m>(
    out: &mut String,
    m: &'m MemoryImage,
    h: Handle,
) -> Result<(MemoryTexels<'m>, Sampler, TextureHeader), String> {
    let pool = m.pool();
    let at = |a: Option<u64>| a.map_or("past 2^64".to_string(), |a| format!("{a:#x}"));
    let hi = h.header_index();
    let header_at = at(m.header_address(h));
    let words = pool.header_words(hi).map_err(|e| {
        let why = format!("texture header {hi} at {header_at} cannot be read: {e}");
        let _ = writeln!(out, "  {why}");
        why
    })?;
    // HEADER_VERSION sits at the same bits in both versions (clcd97tex.h)
    let version = field(TEXHEAD_V2_BL, "HEADER_VERSION").map_or(0, |f| f.get(&words));
    let (table, name) = if version == header_version::PITCH {
        (TEXHEAD_V2_PITCH, "TEXHEAD_V2_PITCH")
    } else {
        (TEXHEAD_V2_BL, "TEXHEAD_V2_BL")
    };
    let _ = writeln!(
        out,
        "  texture header {hi} at {header_at} ({name}; words {}):",
        words_text(&words)
    );
    fields(out, table, &words);
    let header = TextureHeader::decode(&words).map_err(|e| {
        let why = format!("texture header {hi}: {e}");
        let _ = writeln!(out, "  the header is refused: {e}");
        why
    })?;
    let si = h.sampler_index();
    let sampler_at = at(m.sampler_address(h));
    let swords = pool.sampler_words(si).map_err(|e| {
        let why = format!("sampler {si} at {sampler_at} cannot be read: {e}");
        let _ = writeln!(out, "  {why}");
        why
    })?;
    let _ = writeln!(
        out,
        "  sampler {si} at {sampler_at} (TEXSAMP; words {}):",
        words_text(&swords)
    );
    fields(out, TEXSAMP, &swords);
    let sampler = SamplerState::decode(&swords)
        .sampler_for(&header)
        .map_err(|e| {
            let why = format!("sampler {si}: {e}");
            let _ = writeln!(out, "  the sampler is refused: {e}");
            why
        })?;
    let texels = MemoryTexels::new(&m.memory, &header).map_err(|e| {
        let why = format!("the texels of texture header {hi}: {e}");
        let _ = writeln!(out, "  {why}");
        why
    })?;
    Ok((texels, sampler, header))
}

/// The words of a descriptor, word 0 first.
fn words_text(words: &[u32; 8]) -> String {
    let w: Vec<String> = words.iter().map(|w| format!("{w:#010x}")).collect();
    w.join(" ")
}

/// Every field of `table` whose raw value is not 0, in table order.
fn fields(out: &mut String, table: &[DescField], words: &[u32; 8]) {
    let _ = writeln!(
        out,
        "    {:<40} {:>8} {:>11}  meaning (fields not listed are 0)",
        "field", "bits", "raw"
    );
    for f in table {
        let v = f.get(words);
        if v != 0 {
            let _ = writeln!(
                out,
                "    {:<40} {:>8} {:>11}  {}",
                f.name,
                f.bits(),
                format!("{v:#x}"),
                f.meaning
            );
        }
    }
}

/// How the header lays the texels out.
pub(super) fn layout_line(out: &mut String, header: &TextureHeader) {
    let lay = tld4_gpu_memory::layout_of(header);
    let how = match (header.layout, lay.kind) {
        (HeaderLayout::Pitch { pitch }, _) => format!("pitch-linear, row y at y * {pitch} bytes"),
        (
            HeaderLayout::BlockLinear {
                gobs_per_block_height_log2: written,
            },
            LayoutKind::BlockLinear {
                block_height_log2, ..
            },
        ) => format!(
            "block-linear, blocks of {} GOB(s) down (GOBS_PER_BLOCK_HEIGHT {written}, clamped to {block_height_log2} for a height of {})",
            1u32 << block_height_log2,
            header.height
        ),
        _ => "block-linear".to_string(),
    };
    let _ = writeln!(
        out,
        "  texels: {how}; texel (0, 0) at {:#x}, {} bytes a texel, {} bytes a layer",
        lay.address, lay.texel_bytes, lay.layer_stride
    );
}

/// The byte address of each footprint texel of the path, and the sectors they fall in.
pub(super) fn texel_addresses(out: &mut String, header: &TextureHeader, t: &GatherTrace) {
    let lay = tld4_gpu_memory::layout_of(header);
    let _ = writeln!(out, "  texel addresses (footprint in gather order):");
    let mut sectors: Vec<u64> = Vec::new();
    for (k, tx) in t.texels.iter().enumerate() {
        let what = match tx.site {
            TexelSite::Texel { layer, x, y } => {
                let a = lay.texel_address(layer, x, y);
                if !sectors.contains(&sector_of(a)) {
                    sectors.push(sector_of(a));
                }
                texel_text(layer, x, y, a, lay.texel_bytes, header.kind.is_cube())
            }
            TexelSite::Border => BORDER_TEXT.to_string(),
            TexelSite::Corner => CORNER_TEXT.to_string(),
        };
        let (c, pos) = GATHER_ORDER[k];
        let _ = writeln!(out, "    {c} {pos}: {what}");
    }
    let s: Vec<String> = sectors.iter().map(|s| format!("{s:#x}")).collect();
    let _ = writeln!(
        out,
        "    sectors: {}",
        if s.is_empty() {
            "none".to_string()
        } else {
            s.join(" ")
        }
    );
}
