//! What the picture shows: the texels' colours, the panels, the footprint marks, the
//! sample point and the legend, in the geometry of `geometry`.

use std::collections::HashMap;

use tld4_decoder::{without_closing, Tld4};
use tld4_textures::trace::{
    texel_components_in, texel_depth_in, texel_selected_in, GatherTrace, TexelSite, FACE_NAMES,
};
use tld4_textures::{BorderColor, Class, TexelSource, ValueKind};

use super::annotate::{axis_indices, cell_values, footprint_arrows};
use super::axes::{axis_ticks, AxisPlace};
use super::geometry::{
    assign_labels, panel_pitch, texel_px, unfold, Mark, MarkStyle, Picture, Text, AXIS_RGB,
    CAPTION, CHAR_PX, FOOTPRINT_RGB, MARGIN, MAX_CUBES, MAX_PANELS, OFFSET_ARROW_RGB, PANEL_TOP,
    TEXT_RGB, TITLE, UNDER,
};
use super::inset::rounding_inset;
use super::legend::{colour_rule, lay_out, provenance_lines, trace_lines, Words};
use super::panels::{depth_rows, f16_rows, Row};
use super::show::{serde_name, short, show_value};

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

/// Where the panels (layers, or cubes unfolded around the sampled face) and their texels are
/// drawn.
pub(super) struct Panels {
    /// The texture's width and height (a cube face's).
    pub(super) w: u32,
    pub(super) h: u32,
    /// The texel size in pixels.
    pub(super) t: u32,
    /// Cube kinds: each panel is the sampled face with its four neighbours ([`unfold`]).
    cube: bool,
    /// The layers (or cubes) drawn, in order.
    list: Vec<u32>,
    /// A panel's width and height in pixels.
    pw: u32,
    ph: u32,
    /// The distance between panels' left edges.
    pitch: u32,
    /// Cube kinds: where each drawn texel (face, x, y) sits in a panel, in texels from its
    /// top-left corner.
    unfolded: HashMap<(u32, i64, i64), (i64, i64)>,
}

impl Panels {
    /// The panels of `list` for a w x h texture, with texels of t px; for cube kinds the
    /// faces are unfolded around face `centre`.
    fn new(w: u32, h: u32, t: u32, cube: bool, centre: u32, list: Vec<u32>, widest: u32) -> Self {
        let (pw, ph) = if cube {
            (3 * w * t, 3 * h * t)
        } else {
            (w * t, h * t)
        };
        let mut unfolded = HashMap::new();
        if cube {
            let n = w as i64;
            for j in -n..2 * n {
                for i in -n..2 * n {
                    if let Some(at) = unfold(centre, i, j, n) {
                        unfolded.insert(at, (i + n, j + n));
                    }
                }
            }
        }
        Panels {
            w,
            h,
            t,
            cube,
            list,
            pw,
            ph,
            pitch: panel_pitch(pw, widest),
            unfolded,
        }
    }

    /// The storage layers drawn: each panel's layer, or its cube's six faces.
    fn storage_layers(&self) -> Vec<u32> {
        self.list
            .iter()
            .flat_map(|&p| {
                if self.cube {
                    (p * 6..p * 6 + 6).collect::<Vec<_>>()
                } else {
                    vec![p]
                }
            })
            .collect()
    }

    /// Panel p's left edge.
    fn ox(&self, p: u32) -> i64 {
        (MARGIN + p * self.pitch) as i64
    }

    /// Every panel's top edge.
    fn oy(&self) -> i64 {
        PANEL_TOP as i64
    }

    /// The top-left pixel of texel (x, y) of face `face` (0 for non-cube kinds) of panel p,
    /// if the face is drawn; a cube face's (x, y) may lie past its edges (the ring around the
    /// sampled face), placed from its texel (0, 0).
    fn face_texel(&self, p: u32, face: u32, x: i64, y: i64) -> Option<(i64, i64)> {
        let t = self.t as i64;
        let (cx, cy) = if self.cube {
            let &(i, j) = self.unfolded.get(&(face, 0, 0))?;
            let (ix, jx) = self
                .unfolded
                .get(&(face, x, y))
                .copied()
                .unwrap_or((i + x, j + y));
            (ix, jx)
        } else {
            (x, y)
        };
        Some((self.ox(p) + cx * t, self.oy() + cy * t))
    }

    /// The top-left pixel of face `face`'s square in panel p (turned or not), if it is drawn.
    fn face_cell(&self, p: u32, face: u32) -> Option<(i64, i64)> {
        let last = self.w as i64 - 1;
        let corners = [(0, 0), (last, 0), (0, last), (last, last)]
            .map(|(x, y)| self.face_texel(p, face, x, y));
        let x = corners.iter().flatten().map(|c| c.0).min()?;
        let y = corners.iter().flatten().map(|c| c.1).min()?;
        Some((x, y))
    }

    /// Where face `face`'s texel x and y grow in panel p, as arrows (`>`, `<`, `v`, `^`); None
    /// for faces of one texel (no direction to read) or faces not drawn.
    fn axes(&self, p: u32, face: u32) -> Option<(char, char)> {
        let arrow = |from: (i64, i64), to: (i64, i64)| match (to.0 - from.0).signum() {
            1 => '>',
            -1 => '<',
            _ if to.1 > from.1 => 'v',
            _ => '^',
        };
        let o = self.face_texel(p, face, 0, 0)?;
        if self.w < 2 {
            return None;
        }
        let sx = self.face_texel(p, face, 1, 0)?;
        let ty = self.face_texel(p, face, 0, 1)?;
        Some((arrow(o, sx), arrow(o, ty)))
    }

    /// The top-left pixel of texel (x, y) of storage layer `layer`, if it is drawn.
    pub(super) fn place(&self, layer: u32, x: i64, y: i64) -> Option<(i64, i64)> {
        let (panel, face) = if self.cube {
            (layer / 6, layer % 6)
        } else {
            (layer, 0)
        };
        let p = self.list.iter().position(|&q| q == panel)? as u32;
        self.face_texel(p, face, x, y)
    }
}

/// Builds the picture of `texture` (header index `header`), with the lane's footprint.
pub(super) fn picture<S: TexelSource + ?Sized>(
    texture: &S,
    header: u32,
    border: &BorderColor,
    trace: Option<&GatherTrace>,
    insn: &Tld4,
    lane: usize,
    float_layer: Option<&str>,
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
    let list: Vec<u32> = (first..first + count).collect();
    // Each panel's caption; the panels are spaced so that no caption runs into the next.
    let captions = captions(&shape, header, &list, trace.map(|_| sampled));
    let widest = captions.iter().map(|c| c.len() as u32).max().unwrap_or(0);
    // Cubes are unfolded around the sampled face (+X without a footprint).
    let centre = trace.and_then(|tr| tr.cube).map_or(0, |c| c.face % 6);
    let panels = Panels::new(w, h, t, cube, centre, list, widest);
    let ph = panels.ph;
    let component = insn.component.raw() as u8;
    let storage = panels.storage_layers();
    let (col, range) = colours(texture, component, insn.depth_compare, &storage);
    let mut pic = Picture::empty(t);
    draw_texels(&mut pic, texture, &panels, &storage, &col);
    // Captions and the sampled layer's (or cube's) frame.
    let framed = (kind.is_array() && trace.is_some()).then_some(sampled);
    caption_texts(&mut pic, &panels, captions, framed);
    // The footprint and the sample point.
    let mut legend: Vec<String> = Vec::new();
    if let Some(tr) = trace {
        footprint_marks(&mut pic, &panels, tr, border, range);
        footprint_arrows(&mut pic, &panels, tr);
        assign_labels(&mut pic.marks);
        if let Some(note) = sample_point(&mut pic, &panels, tr, sampled) {
            legend.push(note);
        }
        if let Some(note) = axis_indices(&mut pic, &panels, tr) {
            pic.notes.push(note);
        }
        let vk = if insn.depth_compare {
            ValueKind::Float
        } else {
            shape.format.value_kind()
        };
        let value = |x: u32, y: u32| {
            texel_selected_in(texture, component, tr.storage_layer, x, y)
                .map_or("?".into(), |v| show_value(v, vk))
        };
        cell_values(&mut pic, &panels, tr, value);
        legend.extend(trace_lines(tr, cube));
        legend.extend(float_layer.map(str::to_string));
        legend.extend(unrounded_line(tr, cube));
    }
    // The u/v (s/t) ticks of the sampled panel (its sampled face), then a cube's face names,
    // clear of them.
    sampled_axes(&mut pic, &panels, sampled);
    if cube {
        face_tags(&mut pic, &panels);
    }
    // The rounding inset, right of the panels, when the rounding decided the footprint.
    let panels_w = MARGIN + panels.list.len() as u32 * panels.pitch;
    let inset_bottom =
        trace.and_then(|tr| rounding_inset(&mut pic, tr, panels_w as i64, panels.oy(), cube));
    legend.extend(layout_lines(&pic, cube));
    legend.push(colour_rule(shape.format, insn, range));
    if let Some(tr) = trace {
        legend.extend(provenance_lines(tr, insn, float_layer.is_some()));
    }
    // The depth-compare and F16 panels, under the legend.
    let rows: Vec<Row> = trace
        .map(|tr| [depth_rows(tr), f16_rows(tr, insn)].concat())
        .unwrap_or_default();
    if trace.is_none() {
        legend.insert(0, "no footprint: the lane does not gather".to_string());
    }
    let words = Words {
        legend: &legend,
        rows: &rows,
        title: format!(
            "{}  lane {lane}, texture {header}",
            without_closing(&insn.text())
        ),
        hatched_border: !cube || trace.is_some_and(|tr| !tr.seamless),
        panels_w: pic
            .inset
            .as_ref()
            .map_or(panels_w, |i| (i.x as u32 + i.size + MARGIN).max(panels_w)),
        top: (panels.oy() + ph as i64 + UNDER as i64).max(inset_bottom.unwrap_or(0) + 12),
    };
    lay_out(&mut pic, &words);
    pic
}

/// Each panel's caption above it, and the frame around the panel of layer (or cube) `framed`.
fn caption_texts(pic: &mut Picture, panels: &Panels, captions: Vec<String>, framed: Option<u32>) {
    for (p, caption) in captions.into_iter().enumerate() {
        pic.texts.push(Text {
            x: panels.ox(p as u32),
            y: TITLE as i64 + 2,
            scale: 1,
            text: caption,
            rgb: TEXT_RGB,
            boxed: false,
        });
        if framed == Some(panels.list[p]) {
            pic.frames
                .push((panels.ox(p as u32), panels.oy(), panels.pw, panels.ph));
        }
    }
}

/// The u/v ticks of the sampled panel (a cube's: s/t of its sampled face, in the middle of the
/// unfolding, the ticks above and left of the whole panel).
fn sampled_axes(pic: &mut Picture, panels: &Panels, sampled: u32) {
    let Some(p) = panels.list.iter().position(|&q| q == sampled) else {
        return;
    };
    let (w, h, t, cube) = (panels.w, panels.h, panels.t, panels.cube);
    let (ox, oy) = (panels.ox(p as u32), panels.oy());
    let (fx, fy) = if cube {
        (ox + (w * t) as i64, oy + (h * t) as i64)
    } else {
        (ox, oy)
    };
    let place = AxisPlace {
        ox: fx,
        oy: fy,
        top: oy,
        left: ox,
        w,
        h,
        t,
        cube,
    };
    axis_ticks(pic, &place);
}

/// The legend's lines on how to read the picture: the axes, the u/v extent of a texel, the
/// arrows and their ghosts (when drawn).
fn layout_lines(pic: &Picture, cube: bool) -> Vec<String> {
    let mut out = Vec::new();
    out.push(if cube {
        "axes: s and i grow to the right, t and j down on the sampled face; others: see tags".into()
    } else {
        "axes: i and u grow to the right, j and v downwards: texel (0,0) is top-left".into()
    });
    if !cube {
        // (the u/v scale: the indices in the ring are texels, the coordinate is normalized)
        out.push("texel (i,j) spans u = i/W..(i+1)/W, v = j/H..(j+1)/H".into());
    }
    let offset_arrows = pic.arrows.iter().any(|a| a.rgb == OFFSET_ARROW_RGB);
    let mode_arrows = pic.arrows.iter().any(|a| a.rgb == FOOTPRINT_RGB);
    if offset_arrows || mode_arrows {
        out.push(
            match (offset_arrows, mode_arrows) {
                (true, true) => "arrows: blue = offset, magenta = address mode",
                (true, false) => "arrows: blue = offset (from the unoffset texel)",
                _ => "arrows: magenta = address mode (to the texel read)",
            }
            .into(),
        );
        out.push("dashed squares: where the texels lay before (the arrows' starts)".into());
    }
    out
}

/// Each panel's caption: the texture (a 2D or cube texture) or its layer or cube, the sampled
/// one marked (`sampled`: the lane's layer or cube, when it gathers).
fn captions(
    shape: &tld4_textures::Shape,
    header: u32,
    list: &[u32],
    sampled: Option<u32>,
) -> Vec<String> {
    let kind = shape.kind;
    let cube = kind.is_cube();
    let (w, h) = (shape.width, shape.height);
    list.iter()
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
            if sampled == Some(panel) && kind.is_array() {
                format!("{name} (sampled)")
            } else {
                name
            }
        })
        .collect()
}

/// The texels of the storage layers drawn (`col`: their colours, layer by layer), and a note
/// for those in memory that cannot be read.
fn draw_texels<S: TexelSource + ?Sized>(
    pic: &mut Picture,
    texture: &S,
    panels: &Panels,
    storage: &[u32],
    col: &[Vec<[u8; 3]>],
) {
    let (w, h) = (panels.w, panels.h);
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
                if let Some((px, py)) = panels.place(l, x as i64, y as i64) {
                    pic.cells.push((px, py, col[li][(y * w + x) as usize]));
                }
            }
        }
    }
}

/// The footprint's marks: each texel where it is read (dashed when redirected), a border
/// texel in the ring around the sampled face (filled with the border colour), a cube corner
/// as half a texel on the face's corner.
fn footprint_marks(
    pic: &mut Picture,
    panels: &Panels,
    tr: &GatherTrace,
    border: &BorderColor,
    range: Option<(f64, f64)>,
) {
    let (w, h, t) = (panels.w, panels.h, panels.t);
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
            } => match panels.place(layer, tx as i64, ty as i64) {
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
                let Some((px, py)) = panels.place(base_layer, 0, 0) else {
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
                let Some((px, py)) = panels.place(base_layer, 0, 0) else {
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
}

/// Places the sample point (after the sub-texel rounding) on the sampled face; for a NaN
/// coordinate, which has no place, returns the note saying so instead.
fn sample_point(
    pic: &mut Picture,
    panels: &Panels,
    tr: &GatherTrace,
    sampled: u32,
) -> Option<String> {
    let (w, h, t, cube) = (panels.w, panels.h, panels.t, panels.cube);
    if tr.u.texels.is_nan() || tr.v.texels.is_nan() {
        // A NaN coordinate has no place on the texture: no disc is drawn.
        let note = format!(
            "no sample point drawn: {} = {}, {} = {} (a NaN coordinate has no place on the texture)",
            if cube { "s*W" } else { "u*W" },
            tr.u.texels,
            if cube { "t*H" } else { "v*H" },
            tr.v.texels
        );
        pic.notes.push(note.clone());
        return Some(note);
    }
    if let Some(p) = panels.list.iter().position(|&q| q == sampled) {
        let ring_px = t as f64;
        // The point the unit uses: after the sub-texel rounding, which decides i0 and j0.
        let used = |a: &tld4_textures::trace::AxisTrace| match a.fixed {
            Some((n, bits, _)) => n as f64 / (1u64 << bits) as f64,
            None => a.texels,
        };
        let sx = (used(&tr.u) * t as f64).clamp(-ring_px, (panels.pw.min(w * t)) as f64 + ring_px);
        let sy = (used(&tr.v) * t as f64).clamp(-ring_px, (panels.ph.min(h * t)) as f64 + ring_px);
        let face = tr.cube.map_or(0, |c| c.face);
        let (fx, fy) = panels.face_texel(p as u32, face, 0, 0)?;
        pic.sample = Some((fx as f64 + sx, fy as f64 + sy));
        // The exact point, faint, where the rounding decided the footprint (a fraction of a
        // pixel away: visible in the SVG when zoomed; the inset magnifies it).
        if tr.u.rounding_decided() || tr.v.rounding_decided() {
            let ex =
                (tr.u.texels * t as f64).clamp(-ring_px, (panels.pw.min(w * t)) as f64 + ring_px);
            let ey =
                (tr.v.texels * t as f64).clamp(-ring_px, (panels.ph.min(h * t)) as f64 + ring_px);
            pic.unrounded = Some((fx as f64 + ex, fy as f64 + ey));
        }
    }
    None
}

/// The legend's line for the sub-texel rounding when it chose another texel than exact
/// arithmetic would (the disc is drawn where the unit puts the point, a fraction of a pixel
/// from the exact one, drawn faint; the inset magnifies both): both origins, on each axis
/// concerned.
fn unrounded_line(tr: &GatherTrace, cube: bool) -> Option<String> {
    let axes = [
        (if cube { "s*W" } else { "u*W" }, "i0", &tr.u),
        (if cube { "t*H" } else { "v*H" }, "j0", &tr.v),
    ];
    let moved: Vec<String> = axes
        .iter()
        .filter(|(_, _, a)| a.rounding_decided())
        .map(|(name, origin, a)| {
            format!(
                "{name} = {}: exact {origin} = {}, rounded {}",
                short(a.texels),
                a.exact_origin,
                a.origin
            )
        })
        .collect();
    (!moved.is_empty()).then(|| format!("the rounding decided: {}", moved.join("; ")))
}

/// Face names, each in the first corner of its face that no footprint mark covers (a name
/// under a mark's label could not be read), else beside the face where no texel is drawn.
fn face_tags(pic: &mut Picture, panels: &Panels) {
    let (w, t) = (panels.w, panels.t);
    let tag_h = CHAR_PX as i64 + 2;
    for p in 0..panels.list.len() as u32 {
        for f in 0..6u32 {
            let Some((fx, fy)) = panels.face_cell(p, f) else {
                continue;
            };
            // The name, and where the face's s and t (its texel x and y) grow in the unfolding.
            let text = match panels.axes(p, f) {
                Some((s_arrow, t_arrow)) => {
                    format!("{} s{s_arrow} t{t_arrow}", FACE_NAMES[f as usize])
                }
                None => FACE_NAMES[f as usize].to_string(),
            };
            let tag_w = text.len() as i64 * CHAR_PX as i64 + 2;
            let side = (w * t) as i64;
            // In a corner of the face, where the tag fits.
            let fits = tag_w + 4 <= side && tag_h + 4 <= side;
            let inside: Vec<(i64, i64)> = [
                (fx + 2, fy + 2),
                (fx + side - tag_w - 2, fy + 2),
                (fx + 2, fy + side - tag_h - 2),
                (fx + side - tag_w - 2, fy + side - tag_h - 2),
            ]
            .into_iter()
            .filter(|_| fits)
            .collect();
            // Beside the face (above, below, left, right, then off its corners), where no
            // texel is drawn.
            let outside = [
                (fx + 2, fy - tag_h - 2),
                (fx + 2, fy + side + 2),
                (fx - tag_w - 2, fy + 2),
                (fx + side + 2, fy + 2),
                (fx - tag_w - 2, fy - tag_h - 2),
                (fx + side + 2, fy - tag_h - 2),
                (fx - tag_w - 2, fy + side + 2),
                (fx + side + 2, fy + side + 2),
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
            // Clear of the other tags placed so far, and of the ticks and their labels.
            let off_tags = |x: i64, y: i64| {
                pic.texts
                    .iter()
                    .filter(|t| t.boxed || t.rgb == AXIS_RGB)
                    .all(|t| {
                        let tw = t.text.len() as i64 * CHAR_PX as i64 + 2;
                        x + tag_w <= t.x || t.x + tw <= x || y + tag_h <= t.y || t.y + tag_h <= y
                    })
                    && pic.ticks.iter().all(|k| {
                        x + tag_w <= k.x
                            || k.x + k.w as i64 <= x
                            || y + tag_h <= k.y
                            || k.y + k.h as i64 <= y
                    })
            };
            let (x, y) = inside
                .iter()
                .copied()
                .find(|&(x, y)| off_marks(x, y) && off_tags(x, y))
                .or_else(|| {
                    outside
                        .iter()
                        .copied()
                        .find(|&(x, y)| off_marks(x, y) && off_cells(x, y) && off_tags(x, y))
                })
                .unwrap_or((fx + 2, fy + 2));
            pic.texts.push(Text {
                x,
                y,
                scale: 1,
                text,
                rgb: [255, 255, 255],
                boxed: true,
            });
        }
    }
}
