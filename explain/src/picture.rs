//! What the picture shows: the texels' colours, the panels, the footprint marks, the
//! sample point and the legend, in the geometry of `geometry`.

use tld4_decoder::Tld4;
use tld4_textures::trace::{
    texel_components_in, texel_depth_in, texel_selected_in, GatherTrace, TexelSite, FACE_NAMES,
};
use tld4_textures::{BorderColor, Class, TexelSource, ValueKind};

use super::geometry::{
    assign_labels, panel_pitch, texel_px, Mark, MarkStyle, Picture, Swatch, Text, CAPTION, CHAR_PX,
    CROSS, MARGIN, MAX_CUBES, MAX_PANELS, PANEL_TOP, TEXT_RGB, TITLE,
};
use super::panels::{depth_rows, f16_rows, Cell, Row};
use super::show::{serde_name, short, show_value};
use super::GATHER_ORDER;

/// The display colour of every texel of a storage layer's (x, y): RGB from the converted
/// components for formats with three or more non-integer components (sRGB formats show
/// their stored codes), else a grey ramp of the gathered component (the depth with .DC).
#[allow(clippy::type_complexity)]
pub(super) fn colours<S: TexelSource + ?Sized>(
    texture: &S,
    component: u8,
    compare: bool,
    layers: &[u32],
) -> (Vec<Vec<[u8; 3]>>, Option<(f64, f64)>) {
    let shape = texture.shape();
    let f = shape.format;
    let (w, h) = (shape.width as usize, shape.height as usize);
    let rgb = f.components() >= 3 && !f.is_integer() && !f.is_depth();
    let value = |l: usize, x: usize, y: usize| -> f64 {
        if compare || f.is_depth() {
            texel_depth_in(texture, l as u32, x as u32, y as u32).map_or(0.0, |d| d as f64)
        } else {
            let v =
                texel_selected_in(texture, component, l as u32, x as u32, y as u32).unwrap_or(0);
            match f.value_kind() {
                ValueKind::Uint => v as f64,
                ValueKind::Sint => v as i32 as f64,
                _ => f32::from_bits(v) as f64,
            }
        }
    };
    // The grey ramp's range: 0..1 (UNORM), -1..1 (SNORM), else the values' own range.
    let (lo, hi) = match f.class(0) {
        Class::Unorm | Class::Srgb if !rgb => (0.0, 1.0),
        Class::Snorm => (-1.0, 1.0),
        _ => {
            let mut lo = f64::INFINITY;
            let mut hi = f64::NEG_INFINITY;
            for &l in layers {
                for y in 0..h {
                    for x in 0..w {
                        let v = value(l as usize, x, y);
                        if v.is_finite() {
                            lo = lo.min(v);
                            hi = hi.max(v);
                        }
                    }
                }
            }
            (lo, hi)
        }
    };
    let grey = |v: f64| -> u8 {
        if hi <= lo || hi.is_nan() || lo.is_nan() || !v.is_finite() {
            128
        } else {
            (((v - lo) / (hi - lo)).clamp(0.0, 1.0) * 255.0).round() as u8
        }
    };
    let cells = layers
        .iter()
        .map(|&l| {
            let l = l as usize;
            let mut row = Vec::with_capacity(w * h);
            for y in 0..h {
                for x in 0..w {
                    let c = if rgb {
                        let (raw, conv) =
                            texel_components_in(texture, l as u32, x as u32, y as u32)
                                .unwrap_or_default();
                        if f.class(0) == Class::Srgb {
                            [raw[0] as u8, raw[1] as u8, raw[2] as u8]
                        } else {
                            let ch = |c: usize| {
                                let v = f32::from_bits(conv[c]) as f64;
                                if v.is_finite() {
                                    (v.clamp(0.0, 1.0) * 255.0).round() as u8
                                } else {
                                    0
                                }
                            };
                            [ch(0), ch(1), ch(2)]
                        }
                    } else {
                        let g = grey(value(l, x, y));
                        [g, g, g]
                    };
                    row.push(c);
                }
            }
            row
        })
        .collect();
    (cells, (hi > lo).then_some((lo, hi)))
}

/// The colour a border texel is drawn in: the border colour as [`colours`] colours texels
/// (its RGB for colour formats, else the gathered value, or the border's depth with depth
/// compare, on the same grey ramp `range`).
fn border_rgb(
    border: &BorderColor,
    tr: &GatherTrace,
    value: u32,
    range: Option<(f64, f64)>,
) -> [u8; 3] {
    let f = tr.format;
    let compare = tr.compare.is_some();
    let channel = |bits: u32| {
        let v = f32::from_bits(bits) as f64;
        if v.is_finite() {
            (v.clamp(0.0, 1.0) * 255.0).round() as u8
        } else {
            0
        }
    };
    if f.components() >= 3 && !f.is_integer() && !f.is_depth() && !compare {
        return [
            channel(border.words[0]),
            channel(border.words[1]),
            channel(border.words[2]),
        ];
    }
    let v = if compare {
        f32::from_bits(border.words[0]) as f64
    } else {
        match f.value_kind() {
            ValueKind::Uint => value as f64,
            ValueKind::Sint => value as i32 as f64,
            _ => f32::from_bits(value) as f64,
        }
    };
    let g = match range {
        Some((lo, hi)) if v.is_finite() => {
            (((v - lo) / (hi - lo)).clamp(0.0, 1.0) * 255.0).round() as u8
        }
        _ => 128,
    };
    [g, g, g]
}

/// Builds the picture of `texture` (header index `header`), with the lane's footprint.
pub(super) fn picture<S: TexelSource + ?Sized>(
    texture: &S,
    header: u32,
    border: &BorderColor,
    trace: Option<&GatherTrace>,
    insn: &Tld4,
    lane: usize,
) -> Picture {
    let shape = texture.shape();
    let (w, h) = (shape.width, shape.height);
    let kind = shape.kind;
    let cube = kind.is_cube();
    let t = texel_px(w.max(h));
    let layers = shape.layers;
    // The sampled layer (or cube), and the window of panels drawn.
    let sampled = trace.map_or(0, |tr| {
        if cube {
            tr.storage_layer / 6
        } else {
            tr.storage_layer
        }
    });
    let count = layers.min(if cube { MAX_CUBES } else { MAX_PANELS });
    let first = sampled.saturating_sub(count / 2).min(layers - count);
    let panels: Vec<u32> = (first..first + count).collect();
    let (pw, ph) = if cube {
        (4 * w * t, 3 * h * t)
    } else {
        (w * t, h * t)
    };
    // Each panel's caption; the panels are spaced so that no caption runs into the next.
    let captions: Vec<String> = panels
        .iter()
        .map(|&panel| {
            let name = if kind.is_array() {
                format!("{} {panel}", if cube { "cube" } else { "layer" })
            } else {
                format!(
                    "texture {header}: {} {} {w}x{h}",
                    serde_name(&kind),
                    shape.format.name()
                )
            };
            if panel == sampled && trace.is_some() && kind.is_array() {
                format!("{name} (sampled)")
            } else {
                name
            }
        })
        .collect();
    let widest = captions.iter().map(|c| c.len() as u32).max().unwrap_or(0);
    let pitch = panel_pitch(pw, widest);
    let ox = |p: u32| (MARGIN + p * pitch) as i64;
    let oy = PANEL_TOP as i64;
    // Texel position of (storage layer, x, y) in pixels.
    let place = |layer: u32, x: i64, y: i64| -> Option<(i64, i64)> {
        let (panel, face) = if cube {
            (layer / 6, layer % 6)
        } else {
            (layer, 0)
        };
        let p = panels.iter().position(|&q| q == panel)? as u32;
        let (cx, cy) = if cube { CROSS[face as usize] } else { (0, 0) };
        Some((
            ox(p) + (cx as i64 * w as i64 + x) * t as i64,
            oy + (cy as i64 * w as i64 + y) * t as i64,
        ))
    };
    let component = insn.component.raw() as u8;
    let storage: Vec<u32> = panels
        .iter()
        .flat_map(|&p| {
            if cube {
                (p * 6..p * 6 + 6).collect::<Vec<_>>()
            } else {
                vec![p]
            }
        })
        .collect();
    let (col, range) = colours(texture, component, insn.depth_compare, &storage);
    let mut pic = Picture {
        width: 0,
        height: 0,
        t,
        cells: Vec::new(),
        frames: Vec::new(),
        marks: Vec::new(),
        sample: None,
        texts: Vec::new(),
        key: Vec::new(),
        key_sample: None,
        swatches: Vec::new(),
        notes: Vec::new(),
    };
    // Texels in memory are read where drawn: say how many of the drawn ones are unmapped.
    let unreadable = storage
        .iter()
        .flat_map(|&l| (0..h).flat_map(move |y| (0..w).map(move |x| (l, x, y))))
        .filter(|&(l, x, y)| texture.element(l, x, y, 0).is_err())
        .count();
    if unreadable > 0 {
        pic.notes.push(format!(
            "{unreadable} drawn texel(s) cannot be read from memory (unmapped): drawn as 0"
        ));
    }
    for (li, &l) in storage.iter().enumerate() {
        for y in 0..h {
            for x in 0..w {
                if let Some((px, py)) = place(l, x as i64, y as i64) {
                    pic.cells.push((px, py, col[li][(y * w + x) as usize]));
                }
            }
        }
    }
    // Captions and the sampled panel's frame.
    for (p, &panel) in panels.iter().enumerate() {
        let sampled_here = panel == sampled && trace.is_some();
        pic.texts.push(Text {
            x: ox(p as u32),
            y: TITLE as i64 + 2,
            scale: 1,
            text: captions[p].clone(),
            rgb: TEXT_RGB,
            boxed: false,
        });
        if sampled_here && kind.is_array() {
            pic.frames.push((ox(p as u32), oy, pw, ph));
        }
    }
    // The footprint and the sample point.
    let mut legend: Vec<String> = Vec::new();
    if let Some(tr) = trace {
        let face = tr.cube.map_or(0, |c| c.face);
        let (cx, cy) = if cube { CROSS[face as usize] } else { (0, 0) };
        let base_layer = tr.storage_layer;
        let ring = |i: i64, n: u32| i.clamp(-1, n as i64);
        for (k, x) in tr.texels.iter().enumerate() {
            let mut size = t;
            let mut fill = None;
            let (px, py, style) = match x.site {
                TexelSite::Texel {
                    layer,
                    x: tx,
                    y: ty,
                } => match place(layer, tx as i64, ty as i64) {
                    Some((px, py)) => (
                        px,
                        py,
                        if x.wrapped {
                            MarkStyle::Dashed
                        } else {
                            MarkStyle::Solid
                        },
                    ),
                    None => continue,
                },
                TexelSite::Corner => {
                    // No face holds it: a half-size hatched square on the face's corner.
                    let Some((px, py)) = place(base_layer, 0, 0) else {
                        continue;
                    };
                    size = t / 2;
                    let at = |i: i64| if i < 0 { 0 } else { (w * t) as i64 };
                    (
                        px + at(x.position.0) - (t / 4) as i64,
                        py + at(x.position.1) - (t / 4) as i64,
                        MarkStyle::Hatched,
                    )
                }
                TexelSite::Border => {
                    // Outside the texture: in the ring of texels around it.
                    let Some((px, py)) = place(base_layer, 0, 0) else {
                        continue;
                    };
                    fill = Some(border_rgb(border, tr, x.value, range));
                    (
                        px + ring(x.position.0, w) * t as i64,
                        py + ring(x.position.1, h) * t as i64,
                        MarkStyle::Hatched,
                    )
                }
            };
            pic.marks.push(Mark {
                x: px,
                y: py,
                size,
                k,
                style,
                fill,
                label: 0,
            });
        }
        assign_labels(&mut pic.marks);
        if tr.u.texels.is_nan() || tr.v.texels.is_nan() {
            // A NaN coordinate has no place on the texture: no disc is drawn.
            let note = format!(
                "no sample point drawn: {} = {}, {} = {} (a NaN coordinate has no place on the texture)",
                if cube { "s*W" } else { "u*W" },
                tr.u.texels,
                if cube { "t*H" } else { "v*H" },
                tr.v.texels
            );
            legend.push(note.clone());
            pic.notes.push(note);
        } else if let Some(p) = panels.iter().position(|&q| q == sampled) {
            let ring_px = t as f64;
            // The point the unit uses: after the sub-texel rounding, which decides i0 and j0.
            let used = |a: &tld4_textures::trace::AxisTrace| match a.fixed {
                Some((n, bits, _)) => n as f64 / (1u64 << bits) as f64,
                None => a.texels,
            };
            let sx = (used(&tr.u) * t as f64).clamp(-ring_px, (pw.min(w * t)) as f64 + ring_px);
            let sy = (used(&tr.v) * t as f64).clamp(-ring_px, (ph.min(h * t)) as f64 + ring_px);
            pic.sample = Some((
                ox(p as u32) as f64 + (cx * w * t) as f64 + sx,
                oy as f64 + (cy * h * t) as f64 + sy,
            ));
        }
        let vk = if tr.compare.is_some() {
            ValueKind::Float
        } else {
            tr.format.value_kind()
        };
        legend.push(format!(
            "sample point: {} = {}, {} = {} (texels){}",
            if cube { "s*W" } else { "u*W" },
            short(tr.u.texels),
            if cube { "t*H" } else { "v*H" },
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
    }
    // Face names, each in the first corner of its face that no footprint mark covers (a
    // name under a mark's label could not be read).
    if cube {
        let tag_w = 2 * CHAR_PX as i64 + 2;
        let tag_h = CHAR_PX as i64 + 2;
        for p in 0..panels.len() as u32 {
            for (f, &(cx, cy)) in CROSS.iter().enumerate() {
                let (fx, fy) = (ox(p) + (cx * w * t) as i64, oy + (cy * h * t) as i64);
                let side = (w * t) as i64;
                let inside = [
                    (fx + 2, fy + 2),
                    (fx + side - tag_w - 2, fy + 2),
                    (fx + 2, fy + side - tag_h - 2),
                    (fx + side - tag_w - 2, fy + side - tag_h - 2),
                ];
                // Beside the face (above, below, left, right), where no texel is drawn.
                let outside = [
                    (fx + 2, fy - tag_h - 2),
                    (fx + 2, fy + side + 2),
                    (fx - tag_w - 2, fy + 2),
                    (fx + side + 2, fy + 2),
                ];
                let clear = |x: i64, y: i64, bx: i64, by: i64, bs: i64| {
                    x + tag_w <= bx || bx + bs <= x || y + tag_h <= by || by + bs <= y
                };
                let off_marks = |x: i64, y: i64| {
                    pic.marks
                        .iter()
                        .all(|m| clear(x, y, m.x, m.y, m.size as i64))
                };
                let off_cells = |x: i64, y: i64| {
                    y >= (TITLE + CAPTION) as i64
                        && pic
                            .cells
                            .iter()
                            .all(|&(cx, cy, _)| clear(x, y, cx, cy, t as i64))
                };
                let (x, y) = inside
                    .iter()
                    .copied()
                    .find(|&(x, y)| off_marks(x, y))
                    .or_else(|| {
                        outside
                            .iter()
                            .copied()
                            .find(|&(x, y)| off_marks(x, y) && off_cells(x, y))
                    })
                    .unwrap_or(inside[0]);
                pic.texts.push(Text {
                    x,
                    y,
                    scale: 1,
                    text: FACE_NAMES[f].to_string(),
                    rgb: [255, 255, 255],
                    boxed: true,
                });
            }
        }
    }
    let colour_rule = {
        let f = shape.format;
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
    };
    legend.push(colour_rule);
    // What the picture rests on that is not measured (explain/src/provenance.rs).
    if let Some(tr) = trace {
        let keys = [
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
    }
    // Layout of the canvas.
    let panels_w = MARGIN + panels.len() as u32 * pitch;
    let legend_scale = 2;
    let line_h = 8 * legend_scale + 6;
    let key_w = 40 * 16 + 4 * 48;
    // The depth-compare and F16 panels, under the legend.
    let rows: Vec<Row> = trace
        .map(|tr| [depth_rows(tr), f16_rows(tr, insn)].concat())
        .unwrap_or_default();
    let cell_w =
        |cells: &[Cell]| cells.iter().map(|c| c.text.len() as u32).max().unwrap_or(0) * CHAR_PX + 8;
    let rows_w = rows
        .iter()
        .map(|r| match r {
            Row::Line(l) => l.len() as u32 * 8 * legend_scale,
            Row::Cells(c) => c.len() as u32 * (cell_w(c) + 8),
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
    let title = format!(
        "{}  lane {lane}, texture {header}",
        insn.text().trim_end_matches(" ;")
    );
    let title_w = title.len() as u32 * 16 + 16;
    pic.width = panels_w.max(legend_w).max(title_w);
    let legend_y = oy + ph as i64 + MARGIN as i64;
    // Key: solid, dashed, hatched, sample point.
    let key_y = legend_y;
    let mut kx = MARGIN as i64;
    for (style, label) in [
        (MarkStyle::Solid, "read"),
        (MarkStyle::Dashed, "redirected"),
        (MarkStyle::Hatched, if cube { "corner" } else { "border" }),
    ] {
        // The border key is filled as a border texel is (with a neutral grey).
        let fill = (style == MarkStyle::Hatched && !cube).then_some([200, 200, 200]);
        pic.key.push((kx, key_y, style, fill));
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
    let mut y = key_y + line_h as i64 + 6;
    if trace.is_none() {
        legend.insert(0, "no footprint: the lane does not gather".to_string());
    }
    for l in &legend {
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
    for row in &rows {
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
                let cw = cell_w(cells);
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
    pic.height = y as u32 + 12;
    pic.texts.push(Text {
        x: 8,
        y: 8,
        scale: 2,
        text: title,
        rgb: TEXT_RGB,
        boxed: false,
    });
    pic
}
