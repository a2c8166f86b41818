//! The picture drawn as SVG, in the same geometry as the PNG.

use std::fmt::Write as _;

use super::geometry::{
    hatch_rgb, label_box, Axis, Inset, KeyMark, MarkStyle, Picture, AXIS_RGB, BACKGROUND_RGB,
    FOOTPRINT_RGB, GHOST_BAND, GHOST_DASH, GRID_RGB, INSET_DISC, INSET_RING, OUTLINE,
    SAMPLED_FRAME_RGB, SAMPLE_RGB, UNROUNDED_RGB, UNROUNDED_RING,
};
use super::GATHER_ORDER;

pub(super) fn hex_rgb(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

pub(super) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The picture as SVG, in the same geometry as the PNG.
pub(super) fn svg(pic: &Picture) -> String {
    let mut s = String::new();
    let t = pic.t as i64;
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" font-family="monospace">"#,
        pic.width, pic.height, pic.width, pic.height
    );
    let _ = writeln!(
        s,
        r#"<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="8" fill="{}"/></pattern><pattern id="hatch-black" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="8" fill="black"/></pattern><pattern id="hatch-white" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="8" fill="white"/></pattern></defs>"#,
        hex_rgb(FOOTPRINT_RGB)
    );
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="{}"/>"#,
        hex_rgb(BACKGROUND_RGB)
    );
    for &(x, y, rgb) in &pic.cells {
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{t}" height="{t}" fill="{}" stroke="{}" stroke-width="1"/>"#,
            hex_rgb(rgb),
            hex_rgb(GRID_RGB)
        );
    }
    for &(x, y, w, h) in &pic.frames {
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="3"/>"#,
            x - 4,
            y - 4,
            w + 8,
            h + 8,
            hex_rgb(SAMPLED_FRAME_RGB)
        );
    }
    for sw in &pic.swatches {
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            sw.x,
            sw.y,
            sw.w,
            sw.h,
            hex_rgb(sw.rgb)
        );
    }
    // Ghosts and arrows under the marks, as in the PNG.
    for g in &pic.ghosts {
        let b = GHOST_BAND as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="{b}" stroke-dasharray="{} {}" class="ghost"/>"#,
            g.x as f64 + b / 2.0,
            g.y as f64 + b / 2.0,
            g.size as f64 - b,
            g.size as f64 - b,
            hex_rgb(g.rgb),
            GHOST_DASH.0,
            GHOST_DASH.1
        );
    }
    for a in &pic.arrows {
        for st in a.strokes() {
            let _ = writeln!(
                s,
                r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="2"/>"#,
                st.from.0,
                st.from.1,
                st.to.0,
                st.to.1,
                hex_rgb(a.rgb)
            );
        }
    }
    for m in &pic.marks {
        mark(&mut s, m.x, m.y, m.size as i64, m.style, m.fill);
    }
    for m in &pic.marks {
        if m.label == 0 {
            continue;
        }
        let ls = m.label as i64;
        let (lx, ly, size) = label_box(m, ls);
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="{ly}" width="{size}" height="{size}" fill="white"/><text x="{}" y="{}" font-size="{}" text-anchor="middle">{}</text>"#,
            lx + size / 2,
            ly + size - 2 * ls,
            10 * ls,
            GATHER_ORDER[m.k].0
        );
    }
    for &KeyMark { x, y, style, fill } in &pic.key {
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="16" height="16" fill="rgb(200,200,200)"/>"#
        );
        mark(&mut s, x, y, 16, style, fill);
    }
    axes_svg(&mut s, pic);
    for (sx, sy) in pic
        .sample
        .into_iter()
        .chain(pic.key_sample.map(|(x, y)| (x as f64, y as f64)))
    {
        let _ = writeln!(
            s,
            r#"<circle cx="{sx}" cy="{sy}" r="5.5" fill="{}" stroke="black" stroke-width="1.5"/>"#,
            hex_rgb(SAMPLE_RGB)
        );
    }
    texts_svg(&mut s, pic);
    s.push_str("</svg>\n");
    s
}

/// A footprint (or key) mark of `size` px at (x, y): its fill (a border texel), hatching
/// (border texels, cube corners) and outline, dashed for a redirected texel.
fn mark(s: &mut String, x: i64, y: i64, size: i64, style: MarkStyle, fill: Option<[u8; 3]>) {
    let b = OUTLINE as f64;
    if let Some(f) = fill {
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="{}"/>"#,
            hex_rgb(f)
        );
    }
    if style == MarkStyle::Hatched {
        let hatch = match fill.map(hatch_rgb) {
            None => "hatch",
            Some([0, 0, 0]) => "hatch-black",
            Some(_) => "hatch-white",
        };
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="url(#{hatch})"/>"#
        );
    }
    let dash = if style == MarkStyle::Dashed {
        r#" stroke-dasharray="6 4""#
    } else {
        ""
    };
    let _ = writeln!(
        s,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="{b}"{dash}/>"#,
        x as f64 + b / 2.0,
        y as f64 + b / 2.0,
        size as f64 - b,
        size as f64 - b,
        hex_rgb(FOOTPRINT_RGB)
    );
}

/// The ticks of the u and v axes (each with its axis and value), the rounding inset and the
/// faint unrounded point (under the sample disc).
fn axes_svg(s: &mut String, pic: &Picture) {
    for tk in &pic.ticks {
        let axis = match tk.axis {
            Axis::U => "u",
            Axis::V => "v",
        };
        // A tick carries its value (as labelled, or num/den); the base line has none.
        let (class, value) = match tk.value {
            Some(f) => (
                "tick",
                format!(
                    r#" data-value="{}""#,
                    tk.label
                        .clone()
                        .unwrap_or_else(|| format!("{}/{}", f.num, f.den))
                ),
            ),
            None => ("axis", String::new()),
        };
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}" class="{class}" data-axis="{axis}"{value}/>"#,
            tk.x,
            tk.y,
            tk.w,
            tk.h,
            hex_rgb(AXIS_RGB)
        );
    }
    if let Some(inset) = &pic.inset {
        inset_svg(s, inset);
    }
    if let Some((ux, uy)) = pic.unrounded {
        let _ = writeln!(
            s,
            r#"<circle cx="{ux}" cy="{uy}" r="{}" fill="none" stroke="{}" stroke-width="{}" class="unrounded"/>"#,
            (UNROUNDED_RING.0 + UNROUNDED_RING.1) / 2.0,
            hex_rgb(UNROUNDED_RGB),
            UNROUNDED_RING.1 - UNROUNDED_RING.0
        );
    }
}

/// The text runs (a face name on its dark box).
fn texts_svg(s: &mut String, pic: &Picture) {
    for tx in &pic.texts {
        let size = 8 * tx.scale.max(1) as i64;
        if tx.boxed {
            let _ = writeln!(
                s,
                r#"<rect x="{}" y="{}" width="{}" height="{}" fill="rgb(40,40,40)"/>"#,
                tx.x,
                tx.y,
                tx.text.chars().count() as i64 * size + 2,
                size + 2
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="{}" fill="{}">{}</text>"#,
            tx.x + 1,
            tx.y + size,
            size + size / 4,
            hex_rgb(tx.rgb),
            xml_escape(&tx.text)
        );
    }
}

/// The rounding inset as an SVG group, in the PNG's geometry.
fn inset_svg(s: &mut String, inset: &Inset) {
    let (x, y, size) = (inset.x, inset.y, inset.size as i64);
    let half = size / 2;
    let step = inset.step as i64;
    let reach = inset.reach();
    let _ = writeln!(
        s,
        r#"<g class="inset"><rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="rgb(90,90,90)" stroke-width="1"/>"#,
        x as f64 + 0.5,
        y as f64 + 0.5,
        size - 1,
        size - 1
    );
    for k in -reach..=reach {
        let at = half + k * step;
        let _ = writeln!(
            s,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="rgb(215,215,215)"/><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="rgb(215,215,215)"/>"#,
            x + at,
            y + 1,
            x + at,
            y + size - 1,
            x + 1,
            y + at,
            x + size - 1,
            y + at
        );
    }
    for i in -reach..=reach {
        for j in -reach..=reach {
            let _ = writeln!(
                s,
                r#"<circle cx="{}" cy="{}" r="1.5" fill="rgb(120,120,120)" class="lattice"/>"#,
                x + half + i * step,
                y + half + j * step
            );
        }
    }
    for &(axis, c) in &inset.lines {
        let (lx, ly) = inset.pixel(c, c);
        let (x1, y1, x2, y2, name) = match axis {
            Axis::U => (lx, (y + 1) as f64, lx, (y + size - 1) as f64, "u"),
            Axis::V => ((x + 1) as f64, ly, (x + size - 1) as f64, ly, "v"),
        };
        let _ = writeln!(
            s,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{}" stroke-width="2" class="centre-line" data-axis="{name}"/>"#,
            hex_rgb(FOOTPRINT_RGB)
        );
    }
    let (ex, ey) = inset.pixel(inset.exact.0, inset.exact.1);
    let _ = writeln!(
        s,
        r#"<circle cx="{ex}" cy="{ey}" r="{}" fill="none" stroke="{}" stroke-width="{}" class="unrounded"/>"#,
        (INSET_RING.0 + INSET_RING.1) / 2.0,
        hex_rgb(UNROUNDED_RGB),
        INSET_RING.1 - INSET_RING.0
    );
    let _ = writeln!(
        s,
        r#"<circle cx="{}" cy="{}" r="{}" fill="{}" stroke="black" stroke-width="1.5" class="rounded"/></g>"#,
        x + half,
        y + half,
        INSET_DISC as f64 + 0.5,
        hex_rgb(SAMPLE_RGB)
    );
}
