//! The bridge to what a learner knows: which PTX, GLSL, SPIR-V and CUDA gathers give this
//! TLD4 (docs/gather-bridge.md holds the table and its evidence: the PTX forms ptxas 13.5 was
//! measured on, docs/sources.md, What ptxas emits), and which operand of the SASS line is
//! which.

use std::fmt::Write as _;

use tld4_decoder::{F16Mode, HandleForm, OffsetMode, Tld4};

use super::instruction::reg;

/// The PTX `tld4` that ptxas turns into this TLD4, or why there is none: PTX offers the
/// components, the 2d/a2d/cube/acube dimensions, one offset and a depth reference, and no
/// per-texel offsets (PTP) or F16 results (docs/sources.md, What ptxas emits).
pub fn ptx_form(insn: &Tld4) -> Result<String, &'static str> {
    if insn.dimension.is_invalid() {
        return Err("the dimension is INVALID");
    }
    if insn.f16_mode != F16Mode::None {
        return Err("PTX tld4 has no F16 results: this TLD4 exists only as a raw word");
    }
    if insn.offset_mode == OffsetMode::Ptp {
        return Err("PTX tld4 has no per-texel offsets (PTP): this TLD4 exists only as a raw word");
    }
    if insn.offset_mode != OffsetMode::None && insn.dimension.is_cube() {
        return Err("PTX tld4 takes no offset on cube textures");
    }
    let (dim, coords) = match (insn.dimension.is_array(), insn.dimension.is_cube()) {
        (false, false) => ("2d", "{u, v}"),
        (true, false) => ("a2d", "{layer, u, v, v}"),
        (false, true) => ("cube", "{x, y, z, z}"),
        (true, true) => ("acube", "{layer, x, y, z}"),
    };
    let mut s = format!(
        "tld4.{}.{dim}.v4.f32.f32 {{x, y, z, w}}, [tex, {coords}]",
        insn.component.name().to_lowercase()
    );
    if insn.offset_mode == OffsetMode::Aoffi {
        s.push_str(", {dx, dy}");
    }
    if insn.depth_compare {
        s.push_str(", dref");
    }
    Ok(s)
}

/// The GLSL call (GLSL 4.60 "Texture Gather Functions"), where one exists.
fn glsl_form(insn: &Tld4) -> Option<String> {
    if insn.dimension.is_invalid() || insn.f16_mode != F16Mode::None {
        return None;
    }
    let cube = insn.dimension.is_cube();
    if cube && insn.offset_mode != OffsetMode::None {
        return None;
    }
    let sampler = match (insn.dimension.is_array(), cube) {
        (false, false) => "sampler2D",
        (true, false) => "sampler2DArray",
        (false, true) => "samplerCube",
        (true, true) => "samplerCubeArray",
    };
    let p = if cube {
        if insn.dimension.is_array() {
            "vec4(dir, layer)"
        } else {
            "dir"
        }
    } else if insn.dimension.is_array() {
        "vec3(uv, layer)"
    } else {
        "uv"
    };
    let (name, offset) = match insn.offset_mode {
        OffsetMode::Aoffi => ("textureGatherOffset", ", offset"),
        OffsetMode::Ptp => ("textureGatherOffsets", ", offsets[4]"),
        _ => ("textureGather", ""),
    };
    Some(if insn.depth_compare {
        format!("{name}({sampler}Shadow s, {p}, ref{offset})")
    } else {
        format!("{name}({sampler} s, {p}{offset}, {})", insn.component.raw())
    })
}

/// The bridge section of `tld4 explain`.
pub(super) fn bridge(out: &mut String, insn: &Tld4) {
    let _ = writeln!(
        out,
        "in other languages (docs/gather-bridge.md; the four texels are those LINEAR filtering blends):"
    );
    match ptx_form(insn) {
        Ok(p) => {
            let _ = writeln!(out, "  PTX:    {p}");
        }
        Err(why) => {
            let _ = writeln!(out, "  PTX:    none ({why})");
        }
    }
    if let Some(g) = glsl_form(insn) {
        let _ = writeln!(out, "  GLSL:   {g}");
        let op = if insn.depth_compare {
            "OpImageDrefGather"
        } else {
            "OpImageGather"
        };
        let operand = match insn.offset_mode {
            OffsetMode::Aoffi => " with a ConstOffset or Offset operand",
            OffsetMode::Ptp => " with a ConstOffsets operand",
            _ => "",
        };
        let _ = writeln!(out, "  SPIR-V: {op}{operand}");
    } else {
        let _ = writeln!(out, "  GLSL:   none");
    }
    if insn.dimension.name() == "2D"
        && insn.offset_mode == OffsetMode::None
        && !insn.depth_compare
        && insn.f16_mode == F16Mode::None
    {
        let _ = writeln!(
            out,
            "  CUDA:   tex2Dgather<float4>(tex, u, v, {})",
            insn.component.raw()
        );
    }
    // The operand map, in the order nvdisasm prints the operands.
    let mut map = Vec::new();
    if !insn.pred_dst.is_pt() {
        map.push(format!(
            "P{} = the predicate destination (set when a texel was not resident)",
            insn.pred_dst.0
        ));
    }
    map.push(format!("{} = Rd2 (receives z, w)", reg(insn.rd2.0)));
    map.push(format!("{} = Rd (receives x, y)", reg(insn.rd.0)));
    map.push(format!("{} = Ra (the coordinates)", reg(insn.ra.0)));
    // nvdisasm prints Rb unless it is RZ; the form decides what it holds.
    let rb = insn.rb_layout();
    let mut holds = Vec::new();
    if rb.handle {
        holds.push("the handle");
    }
    match rb.offsets {
        1 => holds.push("the AOFFI offset"),
        2 => holds.push("the PTP offsets"),
        _ => {}
    }
    if rb.depth_ref {
        holds.push("the depth reference");
    }
    if !insn.rb.is_rz() || !holds.is_empty() {
        let what = if holds.is_empty() {
            "not read by this form".to_string()
        } else {
            holds.join(", then ")
        };
        map.push(format!("{} = Rb ({what})", reg(insn.rb.0)));
    }
    if insn.form == HandleForm::Uniform {
        map.push(format!("UR{} = the texture handle", insn.ur.0));
    }
    map.push(format!("{} = the dimension", insn.dimension.name()));
    let _ = writeln!(out, "  the SASS line's operands: {}", map.join(", "));
}
