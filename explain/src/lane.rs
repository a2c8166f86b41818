//! One lane of a scenario: whether it executes, the registers it reads, its faults, its
//! writes, and the check against the emulator.

use std::fmt::Write as _;

use tld4_decoder::HandleForm;
use tld4_emu::pack::{f16_rn, f16_rz, planned_value, write_plan, NO_COMPONENT};
use tld4_emu::{gather_op, MemoryExecError, OutputMode, WarpState};
use tld4_gpu_memory::TextureHeader;
use tld4_textures::trace::{self, GatherTrace};
use tld4_textures::{GatherQuery, Handle, Precision, Sampler, TexelSource, ValueKind};

use tld4_scenario as scenario;

use super::instruction::{output_mode, reg};
use super::memory;
use super::path::path;
use super::show::{serde_name, show_value, swizzle_text};
use super::source::LaneTexels;
use super::GATHER_ORDER;

/// What the lane explanation produced, for the picture.
pub struct LaneOutcome<'s> {
    /// The texels and sampler the lane's handle names, when it resolves, with the header and
    /// sampler indices.
    pub texture: Option<(LaneTexels<'s>, Sampler, u32, u32)>,
    /// The lane's trace, when it gathers.
    pub trace: Option<GatherTrace>,
    /// False when the lane's predicted writes differ from the emulator's.
    pub consistent: bool,
    /// Why the lane has no texture to draw, when it has none.
    pub no_texture: Option<String>,
}

/// The lane's fault, if the warp's fault concerns it.
pub(super) fn fault_lane(f: &MemoryExecError) -> Option<u8> {
    f.lane()
}

/// The lane's path through the texture unit.
pub fn explain_lane<'s>(
    out: &mut String,
    s: &'s scenario::Scenario,
    precision: Precision,
    lane: usize,
    source: &str,
) -> LaneOutcome<'s> {
    let insn = &s.insn;
    let mut outcome = LaneOutcome {
        texture: None,
        trace: None,
        consistent: true,
        no_texture: None,
    };
    let _ = writeln!(out, "lane {lane} of {source}:");
    // Run the warp as `tld4 run` would, on a copy.
    let (after, result): (WarpState, Result<(), MemoryExecError>) = match s.execute() {
        Ok(run) => (run.warp, Ok(())),
        Err(e) => (s.warp.clone(), Err(e)),
    };
    if let Err(why) = executes(out, s, lane) {
        outcome.no_texture = Some(why);
        return outcome;
    }
    // With a per-lane handle (0xd64), a fault of another lane leaves this lane's path to show;
    // with the warp's one uniform handle, the fault is every lane's.
    let other_fault = match &result {
        Err(f)
            if insn.form == HandleForm::Register
                && fault_lane(f).is_some_and(|l| l as usize != lane) =>
        {
            Some(f.clone())
        }
        _ => None,
    };
    let own_fault = match &result {
        Err(f) if other_fault.is_none() => Some(f.clone()),
        _ => None,
    };
    let resolved = resolve(out, s, lane, &mut outcome);
    let q = registers_read(out, s, lane);
    if let Some(f) = &own_fault {
        // A fault of the uniform handle names the lowest executing lane (docs/sources.md, Decisions).
        let why = match fault_lane(f) {
            Some(l) if l as usize != lane => {
                " (the handle is the warp's: the fault names the lowest executing lane)"
            }
            _ => "",
        };
        let _ = writeln!(
            out,
            "  fault: {f}{why}\n  the warp raises this exception: nothing is written in any lane"
        );
        if outcome.texture.is_none() {
            outcome.no_texture = Some(format!("lane {lane} faults: {f}"));
        }
        return outcome;
    }
    if let Some(f) = &other_fault {
        let _ = writeln!(
            out,
            "  note: the warp faults in another lane ({f}), so nothing is written; this lane's path would be:"
        );
    }
    let Some(Resolved {
        texels,
        sampler,
        header,
    }) = &resolved
    else {
        if outcome.no_texture.is_none() {
            let _ = writeln!(
                out,
                "  the handle names no texture and sampler of the scenario"
            );
            outcome.no_texture = Some(format!(
                "lane {lane}'s handle names no texture and sampler of the scenario"
            ));
        }
        return outcome;
    };
    let Some(op) = gather_op(insn) else {
        return outcome;
    };
    // (owned textures: the fast path's own checks, storage included)
    let traced = match texels {
        LaneTexels::Owned(tex) => trace::trace(tex, sampler, &op, precision, &q),
        LaneTexels::Memory(_) => trace::trace_in(texels, sampler, &op, precision, &q),
    };
    let t = match traced {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(out, "  the texture unit refuses: {e}");
            return outcome;
        }
    };
    path(out, &t, insn);
    if let Some(hd) = header {
        memory::texel_addresses(out, hd, &t);
    }
    let mode = output_mode(insn);
    if mode != OutputMode::F32 {
        f16_lines(out, s, &t);
    }
    let writes = lane_writes(s, &t, mode);
    let last = print_writes(out, s, &t, &writes, other_fault.is_some());
    if other_fault.is_none() && !matches_emulator(out, s, lane, &t, &last, &after) {
        outcome.consistent = false;
    }
    outcome.trace = Some(t);
    outcome
}

/// Whether the lane executes (no static fault, active, guard true), said in a line; `Err`
/// says why not, for the picture.
fn executes(out: &mut String, s: &scenario::Scenario, lane: usize) -> Result<(), String> {
    let (insn, warp) = (&s.insn, &s.warp);
    if let Some(f) = s.exec.static_fault(warp.regs_per_thread) {
        let _ = writeln!(
            out,
            "  the instruction faults before any lane runs: {f}\n  nothing is read or written in any lane"
        );
        return Err(format!(
            "lane {lane} does not execute: the instruction faults before any lane runs ({f})"
        ));
    }
    let active = warp.active_mask >> lane & 1 != 0;
    let g = insn.guard_pred;
    let guard = if g.is_pt() {
        !insn.guard_negated
    } else {
        warp.pred(lane, g.0) != insn.guard_negated
    };
    let guard_text = if g.is_pt() {
        format!("guard {}PT", if insn.guard_negated { "!" } else { "" })
    } else {
        format!(
            "guard @{}P{}: P{} = {} in this lane",
            if insn.guard_negated { "!" } else { "" },
            g.0,
            g.0,
            warp.pred(lane, g.0)
        )
    };
    if !active {
        let _ = writeln!(
            out,
            "  does not execute: the lane is inactive (bit {lane} of the active mask {:#010x} is clear); it reads and writes nothing",
            warp.active_mask
        );
        return Err(format!(
            "lane {lane} does not execute: it is inactive (bit {lane} of the active mask {:#010x} is clear)",
            warp.active_mask
        ));
    }
    if !guard {
        let _ = writeln!(
            out,
            "  does not execute: {guard_text}, so the guard is false; it reads and writes nothing"
        );
        return Err(format!(
            "lane {lane} does not execute: {guard_text}, so the guard is false"
        ));
    }
    let _ = writeln!(
        out,
        "  executes: active (bit {lane} of the active mask {:#010x}), {guard_text}",
        warp.active_mask
    );
    Ok(())
}

/// The texels and sampler a lane's handle names, with the texture header where they are in
/// memory.
struct Resolved<'s> {
    texels: LaneTexels<'s>,
    sampler: Sampler,
    header: Option<TextureHeader>,
}

/// The lane's handle, the texture and sampler it names (owned textures resolve in the pool;
/// textures in memory are read, and their descriptors shown, first), said in lines; the
/// texture goes to `outcome` for the picture.
fn resolve<'s>(
    out: &mut String,
    s: &'s scenario::Scenario,
    lane: usize,
    outcome: &mut LaneOutcome<'s>,
) -> Option<Resolved<'s>> {
    let insn = &s.insn;
    // (the handle as the executor reads it: the uniform register, URZ reading 0, or Rb)
    let handle = s.exec.lane_handle(&s.warp, lane);
    let hname = match insn.form {
        HandleForm::Uniform if insn.ur.is_urz() => "URZ".to_string(),
        HandleForm::Uniform => format!("UR{}", insn.ur.0),
        HandleForm::Register => reg(insn.rb.0),
    };
    let h = Handle(handle);
    let _ = writeln!(
        out,
        "  handle: {hname} = {handle:#010x}: texture header {} (bits 19:0), sampler {} (bits 31:20)",
        h.header_index(),
        h.sampler_index()
    );
    let resolved = match (s.pool(), s.memory()) {
        (Some(pool), _) => pool.resolve(h).ok().map(|(t, smp)| Resolved {
            texels: LaneTexels::Owned(t),
            sampler: *smp,
            header: None,
        }),
        (None, Some(m)) => match memory::resolve(out, m, h) {
            Ok((t, sampler, hd)) => Some(Resolved {
                texels: LaneTexels::Memory(t),
                sampler,
                header: Some(hd),
            }),
            Err(why) => {
                outcome.no_texture = Some(format!("lane {lane}: {why}"));
                None
            }
        },
        (None, None) => None,
    };
    if let Some(r) = &resolved {
        texture_lines(out, h, &r.texels, &r.sampler);
        if let Some(hd) = &r.header {
            memory::layout_line(out, hd);
        }
        outcome.texture = Some((r.texels, r.sampler, h.header_index(), h.sampler_index()));
    }
    resolved
}

/// The texture's kind, format, size and swizzle, and the sampler's settings.
fn texture_lines(out: &mut String, h: Handle, t: &LaneTexels<'_>, smp: &Sampler) {
    let d = t.shape();
    let layers = if d.kind.is_array() {
        format!(
            ", {} {}",
            d.layers,
            match (d.kind.is_cube(), d.layers) {
                (true, 1) => "cube",
                (true, _) => "cubes",
                (false, 1) => "layer",
                (false, _) => "layers",
            }
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  texture {}: {} {} {}x{}{layers}, swizzle {}",
        h.header_index(),
        serde_name(&d.kind),
        d.format.name(),
        d.width,
        d.height,
        swizzle_text(d.swizzle)
    );
    let border: Vec<String> = smp.border.words.iter().map(|w| format!("{w:#x}")).collect();
    let _ = writeln!(
        out,
        "  sampler {}: address u {}, v {}, border words ({}), compare {}{}",
        h.sampler_index(),
        serde_name(&smp.address_u),
        serde_name(&smp.address_v),
        border.join(", "),
        smp.compare.map_or("off".to_string(), |c| serde_name(&c)),
        if d.kind.is_cube() {
            if smp.seamless_cube {
                ", seamless cube edges"
            } else {
                ", cube faces addressed one by one (not seamless)"
            }
        } else {
            ""
        }
    );
}

/// The registers the lane reads, each with what it holds, and the query they make: the
/// executor's own ([`tld4_emu::Tld4Exec::lane_query`]; the layout is ptxas output and NAK's,
/// docs/sources.md, What ptxas emits).
fn registers_read(out: &mut String, s: &scenario::Scenario, lane: usize) -> GatherQuery {
    let insn = &s.insn;
    let _ = writeln!(out, "  registers read:");
    let regs = s.warp.lane_regs(lane);
    let q = s.exec.lane_query(&s.warp, lane);
    let (ra, rb) = (insn.ra_layout(), insn.rb_layout());
    let line = |out: &mut String, r: usize, what: String| {
        let _ = writeln!(
            out,
            "    {:<5} = {:#010x}  {what}",
            reg(r as u8),
            regs[r & 255]
        );
    };
    let mut at = insn.ra.0 as usize;
    if ra.layer {
        line(out, at, format!("layer: bits 15:0 = {}", q.layer));
        if let Some(w) = layer_warning(regs[at & 255], q.layer) {
            let _ = writeln!(out, "    warning: {} {w}", reg(at as u8));
        }
        at += 1;
    }
    let names: &[&str] = if ra.coords == 3 {
        &["x", "y", "z"]
    } else {
        &["u", "v"]
    };
    for (k, n) in names.iter().enumerate() {
        line(out, at + k, format!("{n} = {:?}", q.coords[k]));
    }
    let rb0 = insn.rb.0 as usize;
    if rb.handle {
        line(out, rb0, "texture handle".into());
    }
    let o = rb0 + rb.offsets_at() as usize;
    match rb.offsets {
        1 => line(
            out,
            o,
            format!(
                "AOFFI: dx = {} (bits 5:0 = {:#04x}), dy = {} (bits 13:8 = {:#04x})",
                q.offsets[0][0],
                regs[o & 255] & 0x3f,
                q.offsets[0][1],
                regs[o & 255] >> 8 & 0x3f
            ),
        ),
        2 => {
            let p = q.offsets;
            line(
                out,
                o,
                format!(
                    "PTP: x ({}, {}), y ({}, {})",
                    p[0][0], p[0][1], p[1][0], p[1][1]
                ),
            );
            line(
                out,
                o + 1,
                format!(
                    "PTP: z ({}, {}), w ({}, {})",
                    p[2][0], p[2][1], p[3][0], p[3][1]
                ),
            );
        }
        _ => {}
    }
    if rb.depth_ref {
        let r = rb0 + rb.depth_ref_at() as usize;
        line(out, r, format!("depth reference = {:?}", q.dref));
    }
    q
}

/// Each written component rounded to binary16 both ways, and whether the mode matters.
fn f16_lines(out: &mut String, s: &scenario::Scenario, t: &GatherTrace) {
    let insn = &s.insn;
    let _ = writeln!(
        out,
        "  F16 rounding (f32 -> binary16 bits; {} is used):",
        insn.f16_mode.name()
    );
    let _ = writeln!(out, "    {}", super::provenance::tag("f16_rounding"));
    let _ = writeln!(out, "    {}", super::provenance::tag("f16_packing"));
    for (k, &v) in t.values.iter().enumerate() {
        if insn.write_mask.0 >> k & 1 == 0 {
            continue;
        }
        let x = f32::from_bits(v);
        let (rn, rz) = (f16_rn(x), f16_rz(x));
        let hv = |b: u16| half::f16::from_bits(b).to_f32();
        let _ = writeln!(
            out,
            "    {}: {:?} -> RN {rn:#06x} ({:?}), RZ {rz:#06x} ({:?}){}",
            GATHER_ORDER[k].0,
            x,
            hv(rn),
            hv(rz),
            if rn == rz {
                ""
            } else {
                ": the rounding mode matters"
            }
        );
    }
}

/// The lane's register writes in order (register, value, the components it holds), RZ
/// destinations left out, as the executor's write plan lays them out.
fn lane_writes(
    s: &scenario::Scenario,
    t: &GatherTrace,
    mode: OutputMode,
) -> Vec<(u8, u32, String)> {
    let insn = &s.insn;
    let plan = write_plan(insn.write_mask.0, mode);
    let mut writes = Vec::new();
    for &(dest, comps) in &plan.slots[..plan.len as usize] {
        let base = if dest < 2 { insn.rd } else { insn.rd2 };
        if base.is_rz() {
            continue;
        }
        let r = base.0.wrapping_add(dest & 1);
        let v = planned_value(&t.values, comps, mode);
        let names: Vec<&str> = comps
            .iter()
            .filter(|&&c| c != NO_COMPONENT)
            .map(|&c| GATHER_ORDER[c as usize].0)
            .collect();
        writes.push((r, v, names.join(" | ")));
    }
    writes
}

/// Prints the writes (and the predicate destination, and how overlapping destinations end);
/// returns each register's final value.
fn print_writes(
    out: &mut String,
    s: &scenario::Scenario,
    t: &GatherTrace,
    writes: &[(u8, u32, String)],
    would: bool,
) -> Vec<(u8, u32)> {
    let insn = &s.insn;
    let mode = output_mode(insn);
    let vk = if t.compare.is_some() {
        ValueKind::Float
    } else {
        t.format.value_kind()
    };
    let verb = if would { "would write" } else { "writes" };
    if writes.is_empty() && insn.pred_dst.is_pt() {
        let _ = writeln!(
            out,
            "  {verb} nothing (mask and destinations discard every result)"
        );
    } else {
        let _ = writeln!(out, "  {verb}:");
    }
    for (r, v, names) in writes {
        let shown = match mode {
            OutputMode::F32 => show_value(*v, vk),
            _ => {
                let h = |b: u32| half::f16::from_bits(b as u16).to_f32();
                format!("halves {:?}, {:?}", h(v & 0xffff), h(v >> 16))
            }
        };
        let _ = writeln!(out, "    {:<5} = {v:#010x}  {names} = {shown}", reg(*r));
    }
    if !insn.pred_dst.is_pt() {
        let _ = writeln!(
            out,
            "    P{}    = {}  ({})",
            insn.pred_dst.0,
            !t.resident,
            if t.resident {
                "every texel resident"
            } else {
                "a texel was not resident"
            }
        );
    }
    // Overlapping destinations: the writes land in order, and a later one wins.
    let last = final_writes(writes);
    if last.len() < writes.len() {
        let shown: Vec<String> = last
            .iter()
            .map(|&(r, v)| format!("{} = {v:#010x}", reg(r)))
            .collect();
        let _ = writeln!(
            out,
            "  the destinations overlap: writes land in the order Rd, Rd+1, Rd2, Rd2+1 and a later write wins, so the registers end as {}",
            shown.join(", ")
        );
    }
    last
}

/// Whether the emulator (`tld4 run`, whose warp is `after`) wrote what the explanation
/// predicts in this lane, said in a line.
fn matches_emulator(
    out: &mut String,
    s: &scenario::Scenario,
    lane: usize,
    t: &GatherTrace,
    last: &[(u8, u32)],
    after: &WarpState,
) -> bool {
    let insn = &s.insn;
    let mut same = true;
    for &(r, v) in last {
        same &= after.reg(lane, r) == v;
    }
    if !insn.pred_dst.is_pt() {
        same &= after.pred(lane, insn.pred_dst.0) != t.resident;
    }
    if same {
        let _ = writeln!(
            out,
            "  check: the emulator (tld4 run) writes the same values in lane {lane}"
        );
        return true;
    }
    let mut got: Vec<String> = last
        .iter()
        .map(|&(r, _)| format!("{} = {:#010x}", reg(r), after.reg(lane, r)))
        .collect();
    if !insn.pred_dst.is_pt() {
        got.push(format!(
            "P{} = {}",
            insn.pred_dst.0,
            after.pred(lane, insn.pred_dst.0)
        ));
    }
    let _ = writeln!(
        out,
        "  MISMATCH: the emulator writes {} in lane {lane}",
        got.join(", ")
    );
    false
}

/// Each register a lane's writes leave behind, once, with the value of the last write to it
/// (the writes land in the order Rd, Rd+1, Rd2, Rd2+1, so a later one wins where the pairs
/// overlap: docs/sources.md, Decisions), in the order the registers are first written.
pub(super) fn final_writes(writes: &[(u8, u32, String)]) -> Vec<(u8, u32)> {
    let mut last: Vec<(u8, u32)> = Vec::with_capacity(writes.len());
    for &(r, v, _) in writes {
        match last.iter_mut().find(|(q, _)| *q == r) {
            Some(slot) => slot.1 = v,
            None => last.push((r, v)),
        }
    }
    last
}

/// A warning when a layer register holds what cannot be a layer that ptxas wrote: ptxas clamps
/// the layer to 0..0xffff before the instruction (docs/sources.md, What ptxas emits), so bits
/// 31:16 are clear in every layer it passes, and the unit reads bits 15:0 only.
///
/// The heuristic (a guess, for the warning only; the layer the unit reads is unaffected): any
/// value with bits 31:16 set is flagged; when those bits read as an f32 that is a normal
/// number (exponent field 1..254), as every float from 2^-126 up, 0.5, 1.0 or 2.0 included,
/// is, the warning says so, because a float stored where the integer layer belongs is the
/// likely mistake (`"R20": 2.0` is 0x40000000, whose bits 15:0 select layer 0).
pub(super) fn layer_warning(bits: u32, used: u32) -> Option<String> {
    if bits >> 16 == 0 {
        return None;
    }
    let f = f32::from_bits(bits);
    let float = if f.is_normal() {
        format!(" - it is the bit pattern of the f32 {f:?}; the layer is an integer, not a float")
    } else {
        String::new()
    };
    Some(format!(
        "= {bits:#010x} has bits 31:16 set, which the unit ignores (it reads layer {used} from bits 15:0; ptxas clamps a layer to 0..65535){float}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_writes_win_and_each_register_is_listed_once() {
        let w = |r: u8, v: u32| (r, v, String::new());
        // TLD4.G R11, R10: Rd = R10, R11, then Rd2 = R11, R12.
        let writes = [w(10, 1), w(11, 2), w(11, 3), w(12, 4)];
        assert_eq!(final_writes(&writes), vec![(10, 1), (11, 3), (12, 4)]);
        // Rd = Rd2 = R10: the Rd2 pair overwrites both.
        let writes = [w(10, 1), w(11, 2), w(10, 3), w(11, 4)];
        assert_eq!(final_writes(&writes), vec![(10, 3), (11, 4)]);
        let writes = [w(8, 1), w(9, 2)];
        assert_eq!(final_writes(&writes), vec![(8, 1), (9, 2)]);
    }

    #[test]
    fn layer_warnings_flag_high_bits_and_name_floats() {
        assert_eq!(layer_warning(3, 3), None);
        assert_eq!(layer_warning(0xffff, 0xffff), None);
        let w = layer_warning(2.0f32.to_bits(), 0).unwrap();
        assert!(
            w.contains("0x40000000") && w.contains("f32 2.0") && w.contains("layer 0"),
            "{w}"
        );
        let w = layer_warning(1.0f32.to_bits(), 0).unwrap();
        assert!(w.contains("f32 1.0"), "{w}");
        // -1 is no float (its f32 reading is a NaN), but its high bits are still dropped.
        let w = layer_warning(u32::MAX, 0xffff).unwrap();
        assert!(w.contains("bits 31:16") && !w.contains("f32"), "{w}");
    }
}
