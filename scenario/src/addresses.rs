//! Texel addresses: for each executed lane of a scenario whose textures are in memory, where
//! each of the four footprint texels was read (`tld4 run --addresses`).
//!
//! The format, one line per footprint texel, then one line of sectors per lane (stable:
//! tests and scripts grep it; docs/scenarios.md documents it):
//!
//! ```text
//! addr lane 3 x (i0,j1): texel (0, 1) layer 0 at 0x11040 (4 bytes), sector 0x11040
//! addr lane 3 y (i1,j1): border colour, no memory read
//! addr lane 3 w (i0,j0): cube corner, no memory read
//! addr lane 3 sectors: 0x11040 0x11000
//! ```
//!
//! Cube kinds add the face and cube of the storage layer (`layer 7 (cube 1 face -X)`). Every
//! line is what the executor recorded while it gathered ([`Scenario::execute_with_texels`]):
//! the addresses, borders and corners, and the sectors; the texel coordinates are the
//! recorded addresses read back through the header's layout
//! ([`Layout::texel_at`](tld4_textures::layout::Layout::texel_at)), not a second gather.

use tld4_emu::{TexelAddress, WARP_SIZE};
use tld4_gpu_memory::{layout_of, MemoryPool};
use tld4_textures::layout::Layout;
use tld4_textures::trace::FACE_NAMES;
use tld4_textures::{Handle, LaneTexels};

use crate::arch::ArchScenario;
use crate::builder::{Executed, Scenario};
use crate::error::{err, ScenarioError};
use crate::memory::MemoryImage;
use crate::report::fault_kind;

/// Gather-order names of the four texels (Vulkan "Texel Gathering": x, y, z, w = (i0,j1),
/// (i1,j1), (i1,j0), (i0,j0)).
const ORDER: [&str; 4] = ["x (i0,j1)", "y (i1,j1)", "z (i1,j0)", "w (i0,j0)"];

/// The address lines of every executed lane (see the module doc), after one line saying
/// where the textures are. A warp that faults gives one line naming the fault. Errors: a
/// scenario with owned textures, whose texels have no addresses (convert it first with
/// [`Scenario::to_memory_form`]).
pub fn address_lines(s: &Scenario) -> Result<Vec<String>, ScenarioError> {
    let m = s.memory().ok_or_else(owned)?;
    let run = s.execute_with_texels().map_err(|e| Fault {
        kind: fault_kind(&e),
        text: e.to_string(),
    });
    lines_of(m, &m.pool(), run, |lane| {
        Some(s.exec.lane_handle(&s.warp, lane))
    })
}

/// [`address_lines`] for a scenario of an architecture ([`ArchScenario`]): its executor's
/// one execution (constant banks, its GPU class's descriptor layouts) records the
/// addresses, and each lane's header is read back in the class's layout. Errors: owned
/// textures (convert first with [`ArchScenario::to_memory_form`]).
pub fn arch_address_lines(a: &ArchScenario) -> Result<Vec<String>, ScenarioError> {
    let (Some(m), Some(pool)) = (a.scenario.memory(), a.memory_pool()) else {
        return Err(owned());
    };
    let run = a.execute_with_texels().map_err(|e| Fault {
        kind: e.kind_name(),
        text: e.to_string(),
    });
    // (each lane's handle as the executor reads it: `None` where it faulted first)
    let handles = a.exec.lane_handles(&a.scenario.warp, &a.constants).ok();
    lines_of(m, &pool, run, |lane| {
        handles.as_ref().map(|h| h.handles[lane])
    })
}

/// A warp's fault: its kind's name and its message.
struct Fault {
    kind: &'static str,
    text: String,
}

/// One execution with each lane's recorded texels, or its fault.
type Recorded = Result<(Executed, Box<[LaneTexels; WARP_SIZE]>), Fault>;

/// The error for owned textures, which have no addresses.
fn owned() -> ScenarioError {
    err(
        "",
        "owned textures have no addresses: convert the scenario to its memory form first (Scenario::to_memory_form; tld4 run --addresses does)",
    )
}

/// The lines of one execution `run` (or its fault's kind and text) of textures in `m`, read
/// through `pool`; `handle` gives each executed lane's texture handle.
fn lines_of(
    m: &MemoryImage,
    pool: &MemoryPool<'_>,
    run: Recorded,
    handle: impl Fn(usize) -> Option<u32>,
) -> Result<Vec<String>, ScenarioError> {
    let mut lines = vec![format!(
        "addresses: texture header pool {:#x}, sampler pool {:#x}; per lane the footprint texels in gather order, their byte addresses and 32-byte sectors",
        m.header_pool, m.sampler_pool
    )];
    let (run, texels) = match run {
        Ok(r) => r,
        Err(Fault { kind, text }) => {
            lines.push(format!("addr none: the warp faults ({kind}): {text}"));
            return Ok(lines);
        }
    };
    // (the handle's texture header once per handle: its layout says which texel each
    // recorded address is)
    let mut cached: Option<(u32, Option<(Layout, bool)>)> = None;
    for lane in (0..WARP_SIZE).filter(|&l| run.executed(l)) {
        // (an executed lane's handle was read by the executor, so it reads again)
        let Some(handle) = handle(lane) else { continue };
        if cached.as_ref().is_none_or(|(h, _)| *h != handle) {
            // the executor resolved this handle without error, so it resolves again
            let layout = match pool.resolve(Handle(handle)) {
                Ok((header, _)) => Some((layout_of(&header), header.kind.is_cube())),
                Err(e) => {
                    lines.push(format!("addr lane {lane}: handle {handle:#010x}: {e}"));
                    None
                }
            };
            cached = Some((handle, layout));
        }
        let Some((_, Some((layout, cube)))) = &cached else {
            continue;
        };
        lane_lines(&mut lines, lane, layout, &texels[lane], *cube);
    }
    Ok(lines)
}

/// A border texel, in the address lines.
pub const BORDER_TEXT: &str = "border colour, no memory read";
/// A cube corner, in the address lines.
pub const CORNER_TEXT: &str = "cube corner, no memory read";

/// A texel read from memory, in the address lines (and `tld4 explain`'s): coordinates,
/// storage layer (with its cube and face for cube kinds), address, size and sector.
pub fn texel_text(layer: u32, x: u32, y: u32, address: u64, bytes: u32, cube: bool) -> String {
    let place = if cube {
        format!(
            " (cube {} face {})",
            layer / 6,
            FACE_NAMES[layer as usize % 6]
        )
    } else {
        String::new()
    };
    format!(
        "texel ({x}, {y}) layer {layer}{place} at {address:#x} ({bytes} bytes), sector {:#x}",
        tld4_textures::layout::sector_of(address)
    )
}

/// One lane's lines: each recorded texel, named by the layout.
fn lane_lines(out: &mut Vec<String>, lane: usize, layout: &Layout, rec: &LaneTexels, cube: bool) {
    for (k, addr) in rec.texels.iter().enumerate() {
        let what = match *addr {
            TexelAddress::Texel { address, bytes } => match layout.texel_at(address) {
                Some((layer, x, y)) => texel_text(layer, x, y, address, bytes, cube),
                // recorded, but no texel of the header's layout: shown, not hidden
                None => format!("{address:#x} ({bytes} bytes), not a texel of the header's layout"),
            },
            TexelAddress::Border => BORDER_TEXT.into(),
            TexelAddress::Corner => CORNER_TEXT.into(),
            TexelAddress::None => "nothing recorded".into(),
        };
        out.push(format!("addr lane {lane} {}: {what}", ORDER[k]));
    }
    let sectors: Vec<String> = rec
        .sectors()
        .iter()
        .flatten()
        .map(|s| format!("{s:#x}"))
        .collect();
    out.push(format!(
        "addr lane {lane} sectors: {}",
        if sectors.is_empty() {
            "none".to_string()
        } else {
            sectors.join(" ")
        }
    ));
}
