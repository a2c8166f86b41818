//! The instruction alone: its fields, operands, destinations, modifiers and static faults.

use std::fmt::Write as _;

use tld4_decoder::{Dimension, F16Mode, HandleForm, OffsetMode, Tld4};
use tld4_emu::pack::{write_plan, NO_COMPONENT};
use tld4_emu::{OutputMode, WarpFault};

use super::GATHER_ORDER;

/// A register name (RZ for 255).
pub(super) fn reg(r: u8) -> String {
    if r == 255 {
        "RZ".into()
    } else {
        format!("R{r}")
    }
}

/// Register `base + k`, as the operand vector names it.
pub(super) fn reg_at(base: u8, k: u8) -> String {
    reg(base.wrapping_add(k))
}

/// The instruction alone: fields, operands, destinations, modifiers, faults.
pub fn explain_instruction(out: &mut String, insn: &Tld4, word: u128, fault: Option<WarpFault>) {
    let _ = writeln!(out, "instruction: {insn}");
    let _ = writeln!(
        out,
        "word: {word:032x} (high half first; nvdisasm -hex shows /* {:#018x} */ /* {:#018x} */)",
        word as u64,
        (word >> 64) as u64
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "fields (bits hi:lo of the 128-bit word, from bit 0 of the low half; effect: what the field changes):"
    );
    let _ = writeln!(
        out,
        "  {:<16} {:>7}  {:>7}  {:<8}  meaning",
        "field", "bits", "raw", "effect"
    );
    for (spec, raw, meaning) in insn.field_values() {
        let _ = writeln!(
            out,
            "  {:<16} {:>7}  {:>#7x}  {:<8}  {meaning}",
            spec.name,
            spec.bits(),
            raw,
            spec.effect.name()
        );
    }
    let _ = writeln!(out);
    operands(out, insn);
    let _ = writeln!(out);
    destinations(out, insn);
    let _ = writeln!(out);
    modifiers(out, insn);
    let _ = writeln!(out);
    let _ = writeln!(out, "faults the instruction alone raises:");
    match fault {
        None => {
            let _ = writeln!(out, "  none");
        }
        Some(f) => {
            let _ = writeln!(
                out,
                "  {f}\n  This is a warp exception: it is raised whenever the instruction issues, even with no lane \
                 executing, and nothing is written."
            );
        }
    }
    let _ = writeln!(out);
    super::bridge::bridge(out, insn);
}

/// The Ra and Rb operand vectors and the handle (ptxas output; NAK for the register-handle
/// form; docs/sources.md), from the decoder's `ra_layout`/`rb_layout`.
pub(super) fn operands(out: &mut String, insn: &Tld4) {
    let _ = writeln!(out, "operands (what each source register holds):");
    let _ = writeln!(out, "    {}", super::provenance::tag("operands"));
    if insn.form == HandleForm::Register {
        let _ = writeln!(out, "    {}", super::provenance::tag("register_handle"));
    }
    let ra = insn.ra_layout();
    let mut parts = Vec::new();
    let mut k = 0u8;
    if ra.layer {
        parts.push(format!(
            "{}: layer (unsigned 16-bit integer, bits 15:0; clamped to the last layer)",
            reg_at(insn.ra.0, k)
        ));
        k += 1;
    }
    let names: &[&str] = if ra.coords == 3 {
        &["x", "y", "z"]
    } else {
        &["u", "v"]
    };
    for n in names {
        parts.push(format!("{}: {n} (f32)", reg_at(insn.ra.0, k)));
        k += 1;
    }
    let what = if insn.dimension.is_cube() {
        " - a direction; the unit projects it onto a face itself, so it need not be normalized"
    } else if insn.dimension.is_invalid() {
        " - the dimension is INVALID: the instruction cannot execute"
    } else {
        " - normalized coordinates, 0..1 across the texture"
    };
    let _ = writeln!(
        out,
        "  Ra = {} ({} register{}): {}{what}",
        reg(insn.ra.0),
        ra.len(),
        if ra.len() == 1 { "" } else { "s" },
        parts.join(", ")
    );
    let rb = insn.rb_layout();
    if rb.is_empty() {
        let _ = writeln!(
            out,
            "  Rb = {}: not read (this form has no handle, offsets or depth reference in Rb)",
            reg(insn.rb.0)
        );
    } else {
        let mut parts = Vec::new();
        let mut k = 0u8;
        if rb.handle {
            parts.push(format!(
                "{}: texture handle (per lane; header index bits 19:0, sampler index bits 31:20)",
                reg_at(insn.rb.0, k)
            ));
            k += 1;
        }
        match insn.offset_mode {
            OffsetMode::Aoffi => {
                parts.push(format!(
                    "{}: AOFFI offsets, x in bits 5:0, y in bits 13:8 (6-bit signed, -32..31)",
                    reg_at(insn.rb.0, k)
                ));
                k += 1;
            }
            OffsetMode::Ptp => {
                parts.push(format!(
                    "{}: PTP offsets of x and y, bytes {{x.dx, x.dy, y.dx, y.dy}}",
                    reg_at(insn.rb.0, k)
                ));
                parts.push(format!(
                    "{}: PTP offsets of z and w, bytes {{z.dx, z.dy, w.dx, w.dy}} (6-bit signed each)",
                    reg_at(insn.rb.0, k + 1)
                ));
                k += 2;
            }
            _ => {}
        }
        if rb.depth_ref {
            parts.push(format!("{}: depth reference (f32)", reg_at(insn.rb.0, k)));
        }
        let _ = writeln!(
            out,
            "  Rb = {} ({} register{}): {}",
            reg(insn.rb.0),
            rb.len(),
            if rb.len() == 1 { "" } else { "s" },
            parts.join("; ")
        );
    }
    match insn.form {
        HandleForm::Uniform => {
            let _ = writeln!(
                out,
                "  handle: {} (uniform register, one handle for the whole warp: header index bits 19:0, sampler index bits 31:20)",
                if insn.ur.is_urz() {
                    "URZ (reads 0: header 0, sampler 0)".to_string()
                } else {
                    format!("UR{}", insn.ur.0)
                }
            );
        }
        HandleForm::Register => {
            let _ = writeln!(
                out,
                "  handle: {} (the first Rb register, one per lane; the UR field, UR{}, is not used by form 0xd64)",
                reg(insn.rb.0),
                insn.ur.0
            );
        }
    }
}

/// The output mode of the F16 field.
pub(super) fn output_mode(insn: &Tld4) -> OutputMode {
    match insn.f16_mode {
        F16Mode::Rn => OutputMode::F16Rn,
        F16Mode::Rz => OutputMode::F16Rz,
        _ => OutputMode::F32,
    }
}

/// Where each result lands (ptxas output and NAK for the mask; the F16 layout is the
/// project's unmeasured decision, docs/sources.md), from `write_plan`.
pub(super) fn destinations(out: &mut String, insn: &Tld4) {
    let mode = output_mode(insn);
    let mask = insn.write_mask.0;
    let enabled: Vec<&str> = (0..4)
        .filter(|&c| mask >> c & 1 != 0)
        .map(|c| GATHER_ORDER[c].0)
        .collect();
    let _ = writeln!(
        out,
        "destinations (write mask {mask:#x}: bits R, G, B, A select results x, y, z, w; {}):",
        match mode {
            OutputMode::F32 => "32-bit results, one a register, Rd, Rd+1, then Rd2, Rd2+1",
            OutputMode::F16Rn =>
                "F16.RN: two binary16 halves a register, lower result in bits 15:0, Rd then Rd2",
            OutputMode::F16Rz =>
                "F16.RZ: two binary16 halves a register, lower result in bits 15:0, Rd then Rd2",
        }
    );
    if enabled.is_empty() {
        let _ = writeln!(out, "  nothing is written (mask 0)");
    }
    let plan = write_plan(mask, mode);
    for &(dest, comps) in &plan.slots[..plan.len as usize] {
        let (base, name) = if dest < 2 {
            (insn.rd.0, "Rd")
        } else {
            (insn.rd2.0, "Rd2")
        };
        let what = |c: u8| {
            if c == NO_COMPONENT {
                "0".to_string()
            } else {
                format!(
                    "{} {}",
                    GATHER_ORDER[c as usize].0, GATHER_ORDER[c as usize].1
                )
            }
        };
        let content = match mode {
            OutputMode::F32 => what(comps[0]),
            _ => format!(
                "{} in bits 15:0, {} in bits 31:16",
                what(comps[0]),
                what(comps[1])
            ),
        };
        if base == 255 {
            let _ = writeln!(out, "  {content}: discarded ({name} = RZ)");
        } else {
            let _ = writeln!(out, "  {} <- {content}", reg_at(base, dest & 1));
        }
    }
    let two = match mode {
        OutputMode::F32 => enabled.len() <= 2,
        _ => enabled.len() <= 2,
    };
    if two && !insn.rd2.is_rz() && !enabled.is_empty() {
        let _ = writeln!(
            out,
            "  Rd2 = {}: left untouched (two or fewer results go to Rd)",
            reg(insn.rd2.0)
        );
    }
    if insn.pred_dst.is_pt() {
        let _ = writeln!(
            out,
            "  predicate destination PT: the residency flag is discarded"
        );
    } else {
        let _ = writeln!(
            out,
            "  P{} <- true when the footprint touched a non-resident tile (then every result is 0), else false",
            insn.pred_dst.0
        );
    }
}

/// Which modifiers change values and which are hints (emu's module doc; docs/sources.md).
pub(super) fn modifiers(out: &mut String, insn: &Tld4) {
    let _ = writeln!(out, "modifiers that change values:");
    let dim = match insn.dimension {
        Dimension::Tex2D => "2D: a 2D texture, Ra = (u, v)".to_string(),
        Dimension::Array2D => "ARRAY_2D: a 2D array texture, Ra = (layer, u, v)".to_string(),
        Dimension::Cube => {
            "CUBE: a cube map, Ra = (x, y, z); the footprint crosses face edges".to_string()
        }
        Dimension::ArrayCube => "ARRAY_CUBE: a cube-map array, Ra = (layer, x, y, z)".to_string(),
        d => format!("{}: no such dimension (the instruction faults)", d.name()),
    };
    let _ = writeln!(out, "  dimension {dim}");
    let comp = insn.component.name();
    if insn.depth_compare {
        let _ = writeln!(
            out,
            "  component {comp}: printed, but with .DC the texel's depth (first component) is compared instead"
        );
    } else {
        let _ = writeln!(
            out,
            "  component {comp}: each of the four texels contributes its {comp} (after the texture's swizzle)"
        );
    }
    let _ = writeln!(
        out,
        "  offsets {}",
        match insn.offset_mode {
            OffsetMode::None => "none: the footprint is the 2x2 block at (i0, j0)",
            OffsetMode::Aoffi =>
                ".AOFFI: one (dx, dy) moves the whole 2x2 footprint by whole texels",
            OffsetMode::Ptp => ".PTP: each texel k is read at (i0 + dx_k, j0 + dy_k)",
            OffsetMode::Invalid3 => ".INVALID3: no such offset mode (the instruction faults)",
        }
    );
    let _ = writeln!(
        out,
        "  depth compare {}",
        if insn.depth_compare {
            ".DC: each texel's depth is compared with the reference (the sampler's function): results 0.0 or 1.0"
        } else {
            "off: texel values are returned"
        }
    );
    let _ = writeln!(
        out,
        "  output {}",
        match insn.f16_mode {
            F16Mode::None => "32-bit",
            F16Mode::Rn => ".F16.RN: each result rounded to binary16, to nearest even",
            F16Mode::Rz => ".F16.RZ: each result rounded to binary16, toward zero",
            F16Mode::Invalid3 => ".INVALID3: no such output mode (the instruction faults)",
        }
    );
    let _ = writeln!(out, "modifiers and fields that change no value (hints):");
    let onoff = |b: bool| if b { "set" } else { "clear" };
    let _ = writeln!(
        out,
        "  .SCR {} (ptxas 13.5 sets it in some kernels and leaves it clear in others; its effect is unknown and modeled as none)",
        onoff(insn.scr)
    );
    let _ = writeln!(out, "    {}", super::provenance::tag("scr"));
    let _ = writeln!(
        out,
        "  eviction priority {} (a cache hint)",
        if insn.eviction.name().is_empty() {
            "default"
        } else {
            insn.eviction.name()
        }
    );
    let _ = writeln!(out, "  .NODEP {} (a scheduling hint)", onoff(insn.nodep));
    let _ = writeln!(
        out,
        "  scheduling: usched_info {:#x}, dst_wr_sb {}, src_rel_sb {}, req_bit_set {:#x}, batch_t {}, pm_pred {}",
        insn.usched_info,
        insn.dst_wr_sb,
        insn.src_rel_sb,
        insn.req_bit_set,
        insn.batch_t,
        insn.pm_pred
    );
    let _ = writeln!(
        out,
        "  bits without effect: 59:48 = {:#x}, 89 = {}, 101:92 = {:#x}, 104 = {}, 127:125 = {:#x}",
        insn.ignored_48_59,
        insn.ignored_89 as u8,
        insn.ignored_92_101,
        insn.ignored_104 as u8,
        insn.ignored_125_127
    );
}
