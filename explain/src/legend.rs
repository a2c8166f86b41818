//! The picture's words: the legend's lines (the sample point, the origin, each footprint
//! texel, the colour rule, the provenance tags) and where the key, the legend, the panels'
//! rows and the title go on the canvas.

use tld4_decoder::Tld4;
use tld4_textures::trace::{GatherTrace, TexelSite, FACE_NAMES};
use tld4_textures::{Format, ValueKind};

use super::geometry::{KeyMark, MarkStyle, Picture, Swatch, Text, CHAR_PX, MARGIN, TEXT_RGB};
use super::panels::{f16_rows, Cell, Row};
use super::show::{serde_name, short, show_value};
use super::GATHER_ORDER;

/// The legend's lines about the lane's gather: the sample point, i0 and j0 (with the AOFFI
/// offset), a clamped layer, and each footprint texel with its value.
pub(super) fn trace_lines(tr: &GatherTrace, cube: bool) -> Vec<String> {
    let mut legend = Vec::new();
    let vk = if tr.compare.is_some() {
        ValueKind::Float
    } else {
        tr.format.value_kind()
    };
    // (unnormalized coordinates are texels already: u, not u*W)
    let (u, v, texels) = match (cube, tr.normalized_coords) {
        (true, _) => ("s*W", "t*H", "texels"),
        (false, true) => ("u*W", "v*H", "texels"),
        (false, false) => ("u", "v", "texels, unnormalized"),
    };
    legend.push(format!(
        "sample point: {u} = {}, {v} = {} ({texels}){}",
        short(tr.u.texels),
        short(tr.v.texels),
        if let Some(c) = &tr.cube {
            format!(" on face {}", FACE_NAMES[c.face as usize % 6])
        } else {
            String::new()
        }
    ));
    legend.push(format!(
        "i0 = {}, j0 = {}{}",
        tr.u.origin,
        tr.v.origin,
        match tr.op.offsets {
            _ if tr.seamless => String::new(),
            tld4_textures::OffsetMode::Aoffi => {
                let (dx, dy) = tr.texels[3].offset.unwrap_or((0, 0));
                format!(", AOFFI ({dx},{dy})")
            }
            tld4_textures::OffsetMode::Ptp => ", PTP".to_string(),
            _ => String::new(),
        }
    ));
    // The address modes that placed the footprint (the clamp and the mirrored pictures of one
    // point differ here at least); a seamless cube's footprint crosses faces instead.
    legend.push(if cube && tr.seamless {
        "address: seamless cube (footprints cross to the neighbour faces)".to_string()
    } else {
        format!(
            "address u {}, v {}",
            serde_name(&tr.address[0]),
            serde_name(&tr.address[1])
        )
    });
    if let Some(l) = tr.layer.as_ref().filter(|l| l.given != l.used) {
        legend.push(format!(
            "{} {} clamped to {} (the last is {})",
            if cube { "cube" } else { "layer" },
            l.given,
            l.used,
            l.last
        ));
    }
    for (k, x) in tr.texels.iter().enumerate() {
        let site = match x.site {
            TexelSite::Texel {
                layer,
                x: tx,
                y: ty,
            } => {
                let on = if cube {
                    format!("{} ", FACE_NAMES[(layer % 6) as usize])
                } else {
                    String::new()
                };
                if x.wrapped {
                    format!(" -> {on}({tx},{ty})")
                } else {
                    String::new()
                }
            }
            TexelSite::Border => " border".to_string(),
            TexelSite::Corner => " corner".to_string(),
        };
        legend.push(format!(
            "{} ({},{}){site}: {}",
            GATHER_ORDER[k].0,
            x.position.0,
            x.position.1,
            show_value(tr.values[k], vk)
        ));
    }
    legend
}

/// The legend's line saying how texels are coloured: RGB, or the grey ramp of `range`.
pub(super) fn colour_rule(f: Format, insn: &Tld4, range: Option<(f64, f64)>) -> String {
    if f.components() >= 3 && !f.is_integer() && !f.is_depth() {
        "colour: the texel's RGB".to_string()
    } else {
        let what = if insn.depth_compare || f.is_depth() {
            "depth".to_string()
        } else {
            insn.component.name().to_string()
        };
        match range {
            Some((lo, hi)) => {
                format!("grey: {what}, black {} .. white {}", short(lo), short(hi))
            }
            None => format!("grey: {what} (the same in every texel)"),
        }
    }
}

/// The legend's provenance lines: what the picture rests on that is not measured
/// (explain/src/provenance.rs).
pub(super) fn provenance_lines(tr: &GatherTrace, insn: &Tld4, float_layer: bool) -> Vec<String> {
    let mut legend = Vec::new();
    let keys = [
        ("float_layer", float_layer),
        ("sub_texel", tr.u.fixed.is_some()),
        (
            "layer_clamp",
            tr.layer.as_ref().is_some_and(|l| l.given != l.used),
        ),
        (
            "border",
            tr.texels.iter().any(|x| x.site == TexelSite::Border),
        ),
        (
            "cube_corner",
            tr.texels.iter().any(|x| x.site == TexelSite::Corner),
        ),
        ("dc_component", tr.compare.is_some()),
        ("f16_packing", !f16_rows(tr, insn).is_empty()),
    ];
    for (key, shown) in keys {
        if shown {
            legend.push(super::provenance::legend(key));
        }
    }
    legend
}

/// What [`lay_out`] places under the panels.
pub(super) struct Words<'a> {
    /// The legend's lines.
    pub(super) legend: &'a [String],
    /// The depth-compare and F16 panels' rows.
    pub(super) rows: &'a [Row],
    /// The title.
    pub(super) title: String,
    /// The hatched key stands for border texels (2D and array kinds, cubes addressed face by
    /// face); else for cube corners (seamless cubes).
    pub(super) hatched_border: bool,
    /// The right edge of the panels (MARGIN + count * pitch), or of the rounding inset and
    /// its margin.
    pub(super) panels_w: u32,
    /// The y under the panels' ring of border texels, where the key starts.
    pub(super) top: i64,
}

/// Places the key, the legend, the panels' rows and the title, and sets the picture's size.
pub(super) fn lay_out(pic: &mut Picture, words: &Words<'_>) {
    let (legend, rows, border, panels_w) = (
        words.legend,
        words.rows,
        words.hatched_border,
        words.panels_w,
    );
    let (legend_scale, line_h) = (LEGEND_SCALE, LINE_H);
    let key_w = 40 * 16 + 4 * 48;
    let rows_w = rows
        .iter()
        .map(|r| match r {
            Row::Line(l) => l.len() as u32 * 8 * legend_scale,
            Row::Cells(c) => c.len() as u32 * (cell_width(c) + 8),
        })
        .max()
        .unwrap_or(0);
    let legend_w = legend
        .iter()
        .map(|l| l.len() as u32 * 8 * legend_scale)
        .max()
        .unwrap_or(0)
        .max(key_w)
        .max(rows_w)
        + 2 * MARGIN;
    let title = words.title.clone();
    let title_w = title.len() as u32 * 16 + 16;
    pic.width = panels_w.max(legend_w).max(title_w);
    let legend_y = words.top;
    let key_y = legend_y;
    key_row(pic, key_y, border);
    let mut y = key_y + line_h as i64 + 6;
    for l in legend {
        pic.texts.push(Text {
            x: MARGIN as i64,
            y,
            scale: legend_scale,
            text: l.clone(),
            rgb: TEXT_RGB,
            boxed: false,
        });
        y += line_h as i64;
    }
    let y = panel_rows(pic, rows, y);
    pic.height = y as u32 + 12;
    pic.texts.push(Text {
        x: 8,
        y: 8,
        scale: 2,
        text: title,
        rgb: TEXT_RGB,
        boxed: false,
    });
}

/// The legend's text scale and line height.
const LEGEND_SCALE: u32 = 2;
const LINE_H: u32 = 8 * LEGEND_SCALE + 6;

/// A panel cell's width: its row's longest text, and a margin.
fn cell_width(cells: &[Cell]) -> u32 {
    cells.iter().map(|c| c.text.len() as u32).max().unwrap_or(0) * CHAR_PX + 8
}

/// The key at y = `key_y`: solid, dashed, hatched (border texels when `border`, else cube
/// corners), sample point.
fn key_row(pic: &mut Picture, key_y: i64, border: bool) {
    let legend_scale = LEGEND_SCALE;
    let mut kx = MARGIN as i64;
    for (style, label) in [
        (MarkStyle::Solid, "read"),
        (MarkStyle::Dashed, "redirected"),
        (MarkStyle::Hatched, if border { "border" } else { "corner" }),
    ] {
        // The border key is filled as a border texel is (with a neutral grey).
        let fill = (style == MarkStyle::Hatched && border).then_some([200, 200, 200]);
        pic.key.push(KeyMark {
            x: kx,
            y: key_y,
            style,
            fill,
        });
        pic.texts.push(Text {
            x: kx + 24,
            y: key_y + 2,
            scale: legend_scale,
            text: label.to_string(),
            rgb: TEXT_RGB,
            boxed: false,
        });
        kx += 24 + label.len() as i64 * 16 + 24;
    }
    pic.key_sample = Some((kx + 8, key_y + 8));
    pic.texts.push(Text {
        x: kx + 24,
        y: key_y + 2,
        scale: legend_scale,
        text: "sample point".to_string(),
        rgb: TEXT_RGB,
        boxed: false,
    });
}

/// The depth-compare and F16 panels' rows from y on; returns the y under them.
fn panel_rows(pic: &mut Picture, rows: &[Row], mut y: i64) -> i64 {
    let (legend_scale, line_h) = (LEGEND_SCALE, LINE_H);
    for row in rows {
        match row {
            Row::Line(l) => {
                y += 6;
                pic.texts.push(Text {
                    x: MARGIN as i64,
                    y,
                    scale: legend_scale,
                    text: l.clone(),
                    rgb: TEXT_RGB,
                    boxed: false,
                });
                y += line_h as i64;
            }
            Row::Cells(cells) => {
                let cw = cell_width(cells);
                for (k, c) in cells.iter().enumerate() {
                    let x = MARGIN as i64 + k as i64 * (cw + 8) as i64;
                    pic.swatches.push(Swatch {
                        x,
                        y,
                        w: cw,
                        h: CHAR_PX + 8,
                        rgb: c.rgb,
                    });
                    pic.texts.push(Text {
                        x: x + 3,
                        y: y + 3,
                        scale: 1,
                        text: c.text.clone(),
                        rgb: TEXT_RGB,
                        boxed: false,
                    });
                }
                y += (CHAR_PX + 8 + 6) as i64;
            }
        }
    }
    y
}
