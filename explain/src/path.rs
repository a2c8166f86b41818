//! One lane's gather path through the texture unit, as text, from its trace.

use std::fmt::Write as _;

use tld4_decoder::Tld4;
use tld4_textures::trace::{GatherTrace, Selection, TexelSite, TexelValue, FACE_NAMES};
use tld4_textures::{CompareOp, Source, ValueKind};

use super::provenance::tag;
use super::show::{
    compare_symbol, rounding_name, serde_name, show_converted, show_raw, show_value, signed_axis,
    source_name, AXES, CUBE_TABLE, RGBA,
};
use super::GATHER_ORDER;

/// The gather path of a trace, as text.
pub(super) fn path(out: &mut String, t: &GatherTrace, insn: &Tld4) {
    let q = &t.query;
    // Address.
    if let Some(c) = &t.cube {
        let d = c.direction;
        let (axis, ssign, saxis, tsign, taxis) = CUBE_TABLE[c.face as usize % 6];
        let ma = (d[axis] as f64).abs();
        let _ = writeln!(
            out,
            "  direction (x, y, z) = ({:?}, {:?}, {:?}): major axis {} (|{}| = {} is the largest; ties go z, then y, then x)",
            d[0], d[1], d[2], AXES[axis], AXES[axis], ma
        );
        let _ = writeln!(
            out,
            "  face {} ({}): sc = {} = {:?}, tc = {} = {:?}, |ma| = {ma}",
            FACE_NAMES[c.face as usize % 6],
            c.face,
            signed_axis(ssign, saxis),
            ssign as f32 * d[saxis],
            signed_axis(tsign, taxis),
            tsign as f32 * d[taxis],
        );
        let _ = writeln!(
            out,
            "  face coordinates: s = (sc / |ma| + 1) / 2 = {}, t = (tc / |ma| + 1) / 2 = {}",
            c.s, c.t
        );
    } else if t.normalized_coords {
        let _ = writeln!(
            out,
            "  coordinate: (u, v) = ({:?}, {:?})",
            q.coords[0], q.coords[1]
        );
    } else {
        let _ = writeln!(
            out,
            "  coordinate: (u, v) = ({:?}, {:?}) in texels: unnormalized coordinates (the sampler's, or the texture header's NORMALIZED_COORDS clear), not scaled by the size",
            q.coords[0], q.coords[1]
        );
        let _ = writeln!(out, "    {}", tag("unnormalized"));
    }
    if let Some(l) = &t.layer {
        let what = if t.kind.is_cube() { "cube" } else { "layer" };
        if l.given == l.used {
            let _ = writeln!(out, "  {what} {} (of 0..{})", l.used, l.last);
        } else {
            let _ = writeln!(
                out,
                "  {what} {} is past the last one: clamped to {}",
                l.given, l.used
            );
            let _ = writeln!(out, "    {}", tag("layer_clamp"));
        }
        if t.kind.is_cube() {
            let _ = writeln!(
                out,
                "  storage layer = cube * 6 + face = {}",
                t.storage_layer
            );
        }
    }
    // Footprint origin, axis by axis.
    for (a, name, dim, o) in [(&t.u, "u", "W", "i0"), (&t.v, "v", "H", "j0")] {
        let coord = if t.kind.is_cube() {
            if name == "u" {
                "s"
            } else {
                "t"
            }
        } else {
            name
        };
        let mut line = if t.normalized_coords {
            format!("  {coord}*{dim} = {} * {} = {}", a.coord, a.size, a.texels)
        } else {
            format!(
                "  {coord} = {} texels ({dim} = {}, not applied)",
                a.texels, a.size
            )
        };
        match a.fixed {
            Some((n, bits, r)) => {
                let _ = write!(
                    line,
                    "; fixed point ({bits} fractional bits, {}): {n} / 2^{bits} = {}; {o} = floor({} - 0.5) = {}",
                    rounding_name(r),
                    n as f64 / (1u64 << bits) as f64,
                    n as f64 / (1u64 << bits) as f64,
                    a.origin
                );
            }
            None => {
                let _ = write!(
                    line,
                    "; exact (no fixed point): {o} = floor({} - 0.5) = {}",
                    a.texels, a.origin
                );
            }
        }
        let _ = writeln!(out, "{line}");
        if a.rounding_decided() {
            let _ = writeln!(
                out,
                "    the rounding decided the texel: exact floor({} - 0.5) = {}, the fixed-point value gives {o} = {}",
                if t.normalized_coords { format!("{coord}*{dim}") } else { coord.to_string() },
                a.exact_origin,
                a.origin
            );
        }
    }
    if t.u.fixed.is_some() {
        let _ = writeln!(out, "    {}", tag("sub_texel"));
    }
    // Offsets.
    match (t.op.offsets, t.seamless) {
        (tld4_textures::OffsetMode::Aoffi, false) => {
            let (dx, dy) = t.texels[3].offset.unwrap_or((0, 0));
            let _ = writeln!(
                out,
                "  AOFFI offset (dx, dy) = ({dx}, {dy}): the footprint starts at ({}, {})",
                t.u.origin + dx,
                t.v.origin + dy
            );
        }
        (tld4_textures::OffsetMode::Ptp, false) => {
            let offs: Vec<String> = t
                .texels
                .iter()
                .enumerate()
                .map(|(k, x)| {
                    let (dx, dy) = x.offset.unwrap_or((0, 0));
                    format!("{} ({dx}, {dy})", GATHER_ORDER[k].0)
                })
                .collect();
            let _ = writeln!(
                out,
                "  PTP offsets: {}; texel k is read at (i0 + dx_k, j0 + dy_k)",
                offs.join(", ")
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "  no offsets: the footprint is i0..i0+1 = {}..{}, j0..j0+1 = {}..{}",
                t.u.origin,
                t.u.origin + 1,
                t.v.origin,
                t.v.origin + 1
            );
        }
    }
    // Selection.
    let f = t.format;
    match t.selection {
        Selection::Depth => {
            let _ = writeln!(
                out,
                "  .DC: the texel's depth (component R of {}) is compared; the component field and the swizzle are not used",
                f.name()
            );
            let _ = writeln!(out, "    {}", tag("dc_component"));
        }
        Selection::Component(c) => {
            let _ = writeln!(
                out,
                "  swizzle: component {} reads the texel's {}{}",
                insn.component.name(),
                RGBA[c.min(3)],
                if RGBA[c.min(3)] == insn.component.name() {
                    " (unchanged)"
                } else {
                    ""
                }
            );
        }
        Selection::Constant(v) => {
            let why = match t.swizzle_source {
                Source::Zero => "the swizzle says ZERO".to_string(),
                Source::One => "the swizzle says ONE".to_string(),
                s => format!(
                    "{} has no {}: missing components read 0, 0, 0, 1",
                    f.name(),
                    source_name(s)
                ),
            };
            let _ = writeln!(
                out,
                "  swizzle: component {} is the constant {} ({why})",
                insn.component.name(),
                show_value(
                    v,
                    if f.is_integer() {
                        f.value_kind()
                    } else {
                        ValueKind::Float
                    }
                )
            );
        }
    }
    if let Some(c) = &t.compare {
        let clamp = if c.clamps {
            if c.used != c.dref || c.dref.is_nan() {
                format!(
                    ", clamped to [0, 1] for the UNORM depth format: {:?}",
                    c.used
                )
            } else {
                " (inside [0, 1]: the UNORM clamp changes nothing)".to_string()
            }
        } else {
            " (float depth: not clamped)".to_string()
        };
        let _ = writeln!(
            out,
            "  compare function {} (dref {} depth): dref = {:?}{clamp}",
            serde_name(&c.op),
            compare_symbol(c.op),
            c.dref
        );
    }
    // Texels.
    let vk = if t.compare.is_some() {
        ValueKind::Float
    } else {
        f.value_kind()
    };
    let comp = insn.component.name();
    let ptp = t.op.offsets == tld4_textures::OffsetMode::Ptp && !t.seamless;
    if ptp {
        let _ = writeln!(
            out,
            "  footprint in gather order x, y, z, w, texel k at (i0 + dx_k, j0 + dy_k):"
        );
    } else {
        let _ = writeln!(
            out,
            "  footprint in gather order x, y, z, w = (i0,j1), (i1,j1), (i1,j0), (i0,j0):"
        );
    }
    for (k, x) in t.texels.iter().enumerate() {
        let (name, place) = GATHER_ORDER[k];
        let place = if ptp { "" } else { place };
        let mut line = format!(
            "    {name}{}{place} = ({}, {}): ",
            if ptp { "" } else { " " },
            x.position.0,
            x.position.1
        );
        match x.site {
            TexelSite::Texel {
                layer,
                x: tx,
                y: ty,
            } => {
                let on = if t.kind.is_cube() {
                    format!("face {} ", FACE_NAMES[(layer % 6) as usize])
                } else if t.kind.is_array() {
                    format!("layer {layer} ")
                } else {
                    String::new()
                };
                if x.wrapped {
                    if t.kind.is_cube() && layer != t.storage_layer {
                        let _ = write!(line, "across the edge, on {on}texel ({tx}, {ty})");
                    } else {
                        let modes = [t.address[0], t.address[1]];
                        let moved: Vec<String> = [
                            (x.position.0 != tx as i64, "u", modes[0]),
                            (x.position.1 != ty as i64, "v", modes[1]),
                        ]
                        .iter()
                        .filter(|m| m.0)
                        .map(|m| format!("{} {}", m.1, serde_name(&m.2)))
                        .collect();
                        let _ = write!(
                            line,
                            "redirected by {} to {on}texel ({tx}, {ty})",
                            moved.join(", ")
                        );
                    }
                } else {
                    let _ = write!(line, "{on}texel ({tx}, {ty})");
                }
                if let (Some(raw), Some(conv)) = (x.raw, x.converted) {
                    let _ = write!(
                        line,
                        ", raw {} = {}",
                        show_raw(&raw, f),
                        show_converted(&conv, f)
                    );
                }
                if let Some(e) = x.read_error {
                    // a texel in memory that cannot be read: the gather faults here
                    let _ = write!(line, ", cannot be read ({e}): the gather faults");
                    out.push_str(&line);
                    out.push('\n');
                    continue;
                }
                match x.how {
                    TexelValue::Fetched => {
                        let _ = write!(line, " -> {comp} = {}", show_value(x.value, vk));
                    }
                    TexelValue::Constant => {
                        let _ = write!(line, " -> {comp} = {} (constant)", show_value(x.value, vk));
                    }
                    TexelValue::Compared { depth } => {
                        let c = t.compare.map(|c| c.op).unwrap_or(CompareOp::Never);
                        let _ = write!(
                            line,
                            " -> {:?} {} {:?} is {} -> {}",
                            t.compare.map_or(q.dref, |c| c.used),
                            compare_symbol(c),
                            depth,
                            f32::from_bits(x.value) == 1.0,
                            show_value(x.value, vk)
                        );
                    }
                    _ => {}
                }
                if !x.resident {
                    let _ = write!(line, " [tile not resident]");
                }
            }
            TexelSite::Border => {
                // The axis (or axes) whose address mode gives no texel (`wrap`).
                let outside: Vec<String> = [
                    (x.position.0, t.size[0], "i", "u", t.address[0]),
                    (x.position.1, t.size[1], "j", "v", t.address[1]),
                ]
                .iter()
                .filter(|a| tld4_textures::wrap(a.0, a.1 as i64, a.4).is_none())
                .map(|a| {
                    format!(
                        "{} = {} is outside 0..{} and {} is {}",
                        a.2,
                        a.0,
                        a.1 - 1,
                        a.3,
                        serde_name(&a.4)
                    )
                })
                .collect();
                let _ = write!(line, "{}: the border colour", outside.join("; "));
                match x.how {
                    TexelValue::Compared { depth } => {
                        let c = t.compare.map(|c| c.op).unwrap_or(CompareOp::Never);
                        let _ = write!(
                            line,
                            ", depth {:?} -> {:?} {} {:?} is {} -> {}",
                            depth,
                            t.compare.map_or(q.dref, |c| c.used),
                            compare_symbol(c),
                            depth,
                            f32::from_bits(x.value) == 1.0,
                            show_value(x.value, vk)
                        );
                    }
                    _ => {
                        let _ = write!(
                            line,
                            " -> {comp} = {} (the border word, not swizzled)",
                            show_value(x.value, vk)
                        );
                    }
                }
            }
            TexelSite::Corner => {
                let rule = if t.format.is_integer() && t.compare.is_none() {
                    format!("a copy of {} in the same column", GATHER_ORDER[3 - k].0)
                } else if matches!(t.selection, Selection::Constant(_)) {
                    "the swizzle constant".to_string()
                } else {
                    let others: Vec<&str> = (0..4)
                        .filter(|&o| o != k)
                        .map(|o| GATHER_ORDER[o].0)
                        .collect();
                    format!(
                        "the average of {}, as ((w + z) + (x + y)) * (1/3) in f32 with {} = 0",
                        others.join(", "),
                        GATHER_ORDER[k].0
                    )
                };
                let _ = write!(
                    line,
                    "a cube corner, on no face: {rule} -> {}",
                    show_value(x.value, vk)
                );
            }
        }
        let _ = writeln!(out, "{line}");
    }
    // (the order and the address modes that placed the four texels: lavapipe, docs/sources.md)
    let _ = writeln!(out, "    {}", tag("gather_order"));
    if t.texels.iter().any(|x| x.site == TexelSite::Border) {
        let _ = writeln!(out, "    {}", tag("border"));
    }
    if t.texels.iter().any(|x| x.site == TexelSite::Corner) {
        let _ = writeln!(out, "    {}", tag("cube_corner"));
    }
    if !t.resident {
        let _ = writeln!(
            out,
            "  a texel lies in a non-resident tile: every result is 0 and the predicate destination is set"
        );
    }
    let shown: Vec<String> = t.values.iter().map(|&v| show_value(v, vk)).collect();
    let bits: Vec<String> = t.values.iter().map(|v| format!("{v:#010x}")).collect();
    let _ = writeln!(
        out,
        "  results (x, y, z, w) = ({}) = ({})",
        shown.join(", "),
        bits.join(", ")
    );
}
