//! The u and v ticks and the rounding inset, checked where the geometry puts them: on the
//! picture's boxes, in the PNG's pixels and as SVG elements, with the expected positions
//! computed here from the question and the layout constants (not read from the drawing).

use super::geometry::{
    panel_pitch, texel_px, Axis, Picture, AXIS_RGB, CHAR_PX, FOOTPRINT_RGB, INSET_REACH,
    INSET_STEP, MARGIN, PANEL_TOP, SAMPLE_RGB, UNROUNDED_RGB,
};
use super::layout_tests::{assert_disjoint, picture_of, pixel_at, question};

/// The SVG elements of `class`: each one's attributes as (name, value) pairs.
fn svg_elements(p: &Picture, class: &str) -> Vec<Vec<(String, String)>> {
    let svg = super::svg::svg(p);
    let mut out = Vec::new();
    for part in svg
        .split('<')
        .filter(|e| e.contains(&format!("class=\"{class}\"")))
    {
        let mut attrs = Vec::new();
        for a in part.split_whitespace().skip(1) {
            if let Some((name, value)) = a.split_once('=') {
                let value = value.trim_end_matches("/>").trim_end_matches('>');
                attrs.push((name.to_string(), value.trim_matches('"').to_string()));
            }
        }
        out.push(attrs);
    }
    out
}

fn attr<'a>(e: &'a [(String, String)], name: &str) -> &'a str {
    e.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no {name} in {e:?}"))
}

fn num(e: &[(String, String)], name: &str) -> f64 {
    attr(e, name).parse().unwrap()
}

/// Where a texture is drawn: its top-left corner (ox, oy), its size in texels, and the
/// panel's left and top edges (the texture's own, or a cube unfolding's).
struct Place {
    ox: i64,
    oy: i64,
    w: u32,
    h: u32,
    left: i64,
    top: i64,
}

/// A 2D texture's place: at (MARGIN, PANEL_TOP), its own edges.
fn flat(w: u32, h: u32) -> Place {
    let (ox, oy) = (MARGIN as i64, PANEL_TOP as i64);
    Place {
        ox,
        oy,
        w,
        h,
        left: ox,
        top: oy,
    }
}

/// Checks the labelled ticks of `values` (u = value at ox + value * W * T, v = value at
/// oy + value * H * T) of the texture at `at`: the label's text centred on the tick, the tick
/// in the PNG (its outer end `long` px from its inner end, the ring's T px (at least 6) and 2
/// from the panel's edge), the SVG rectangle, all clear of the ring of border texels.
fn check_ticks(p: &Picture, case: &str, at: &Place, values: &[&str]) {
    let &Place {
        ox,
        oy,
        w,
        h,
        left,
        top,
    } = at;
    let t = texel_px(w.max(h)) as i64;
    let gap = t.max(6) + 2;
    let long = super::axes::TICK_LONG as i64;
    let img = super::png::render(p);
    for (axis, n, name) in [(Axis::U, w as i64, "u"), (Axis::V, h as i64, "v")] {
        let svg: Vec<_> = svg_elements(p, "tick")
            .into_iter()
            .filter(|e| attr(e, "data-axis") == name)
            .collect();
        for &value in values {
            let (a, b) = match value.split_once('/') {
                Some((a, b)) => (a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap()),
                None => (value.parse::<f64>().unwrap(), 1.0),
            };
            let at = ((a / b) * (n * t) as f64).floor() as i64;
            // The tick: `long` px, its inner end `gap` px outside the panel.
            let (inner, outer) = match axis {
                Axis::U => ((ox + at, top - gap - 1), (ox + at, top - gap - long)),
                Axis::V => ((left - gap - 1, oy + at), (left - gap - long, oy + at)),
            };
            for (x, y) in [inner, outer] {
                assert_eq!(
                    pixel_at(&img, x, y),
                    AXIS_RGB,
                    "{case}: {name} = {value} at ({x}, {y})"
                );
            }
            // Its label, centred on it, outside the tick.
            let found = p.texts.iter().any(|tx| {
                let tw = tx.text.len() as i64 * CHAR_PX as i64 + 2;
                tx.rgb == AXIS_RGB
                    && tx.text == value
                    && match axis {
                        Axis::U => (tx.x + tw / 2 - (ox + at)).abs() <= 1 && tx.y + 10 < outer.1,
                        Axis::V => (tx.y + 5 - (oy + at)).abs() <= 1 && tx.x + tw < outer.0,
                    }
            });
            assert!(found, "{case}: no label {value} on {name}");
            let (x, y) = match axis {
                Axis::U => (ox + at, top - gap - long),
                Axis::V => (left - gap - long, oy + at),
            };
            assert!(
                svg.iter().any(|e| attr(e, "data-value") == value
                    && num(e, "x") == x as f64
                    && num(e, "y") == y as f64),
                "{case}: no SVG tick {name} = {value} at ({x}, {y}): {svg:?}"
            );
        }
    }
    // Every tick lies outside the ring of border texels around the panel.
    for k in &p.ticks {
        match k.axis {
            Axis::U => assert!(k.y + k.h as i64 <= top - t, "{case}: {k:?} in the ring"),
            Axis::V => assert!(k.x + k.w as i64 <= left - t, "{case}: {k:?} in the ring"),
        }
    }
}

#[test]
fn u_and_v_ticks_sit_outside_the_ring_at_every_size() {
    // (size, labels expected on both axes). A 4x4 texture has a label at each texel edge; a
    // 1x1 one 0 and 1 (0.5 would crowd them in its 40 px); a 3x3 one its texel edges; a
    // 16x16 one (30 px texels, too close for 3/16) and a 256x256 one (1 px texels: no index
    // labels) 0, 0.25, 0.5, 0.75 and 1.
    let cases: [(&str, u32, u32, &[&str]); 5] = [
        ("4x4", 4, 4, &["0", "0.25", "0.5", "0.75", "1"]),
        ("1x1", 1, 1, &["0", "1"]),
        ("3x3", 3, 3, &["0", "1/3", "2/3", "1"]),
        ("16x16", 16, 16, &["0", "0.25", "0.5", "0.75", "1"]),
        ("256x256", 256, 256, &["0", "0.25", "0.5", "0.75", "1"]),
    ];
    for (size, w, h, values) in cases {
        let q = question(size, "0.5,0.5", "clamp_to_edge");
        let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
        check_ticks(&p, size, &flat(w, h), values);
        assert_disjoint(&p, size);
    }
    // A texture 256 texels tall and 1 wide (1 px texels): u has 0 and 1 only if they fit
    // apart, v all five; nothing overlaps.
    let q = question("1x256", "0.5,0.5", "clamp_to_edge");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    let u_labels = p
        .texts
        .iter()
        .filter(|t| t.rgb == AXIS_RGB && t.y < PANEL_TOP as i64 - 8)
        .count();
    assert!(u_labels >= 2, "the u=0 label and the axis name");
    check_ticks(&p, "1x256", &flat(1, 256), &["0"]);
    assert_disjoint(&p, "1x256");
}

#[test]
fn ticks_go_on_the_sampled_layer_and_clear_border_texels_and_indices() {
    // Layer 5 of 8 (2x2 texels): the ticks are on its panel, whose corner is the pitch of the
    // widest caption along; the footprint on the border puts marks in the ring above and left,
    // which the ticks clear.
    let mut q = question("2x2x8", "0.02,0.02", "clamp_to_border");
    q.layer = Some("5".into());
    let p = picture_of("TLD4.R R8, R20, R24, UR4, ARRAY_2D", &q);
    let widest = p
        .texts
        .iter()
        .filter(|t| t.text.starts_with("layer "))
        .map(|t| t.text.len() as u32)
        .max()
        .unwrap();
    let pitch = panel_pitch(2 * texel_px(2), widest) as i64;
    let ox = MARGIN as i64 + 5 * pitch;
    let oy = PANEL_TOP as i64;
    let place = Place {
        ox,
        oy,
        w: 2,
        h: 2,
        left: ox,
        top: oy,
    };
    check_ticks(&p, "layer 5", &place, &["0", "0.5", "1"]);
    // Clear of the previous layer's panel and its ring (PW = 2 T, then T).
    let previous = ox - pitch + 3 * texel_px(2) as i64;
    assert!(p.ticks.iter().all(|k| k.x >= previous));
    assert!(p
        .texts
        .iter()
        .filter(|t| t.rgb == AXIS_RGB)
        .all(|t| t.x >= previous));
    assert_disjoint(&p, "layer 5");
    // The orientation: v = 0 is the top row's edge, v = 1 the bottom's (v grows down).
    let v = |value: &str| {
        p.ticks
            .iter()
            .find(|k| k.axis == Axis::V && k.label.as_deref() == Some(value))
            .map(|k| k.y)
            .unwrap()
    };
    assert!(v("0") < v("1"));
    assert!(p.texts.iter().any(|t| t
        .text
        .starts_with("axes: i and u grow to the right, j and v downwards")));
}

#[test]
fn a_cube_gets_s_and_t_ticks_over_its_sampled_face() {
    // The sampled face sits in the middle of the 3x3 unfolding: its s ticks above the
    // unfolding's top edge, over the middle column, its t ticks left of it, beside the middle
    // row; the face names stay clear of them (assert_disjoint).
    for coord in ["1,0.1,0.2", "0.2,-1,0.1", "0.1,0.1,-1", "1,0.99,0.99"] {
        let q = question("4x4", coord, "clamp_to_edge");
        let p = picture_of("TLD4.R R8, R20, R24, UR4, CUBE", &q);
        let t = texel_px(4) as i64;
        let (left, top) = (MARGIN as i64, PANEL_TOP as i64);
        let place = Place {
            ox: left + 4 * t,
            oy: top + 4 * t,
            w: 4,
            h: 4,
            left,
            top,
        };
        check_ticks(&p, coord, &place, &["0", "0.25", "0.5", "0.75", "1"]);
        for name in ["s", "t"] {
            assert!(
                p.texts
                    .iter()
                    .any(|tx| tx.rgb == AXIS_RGB && tx.text == name),
                "{coord}: no axis {name}"
            );
        }
        assert_disjoint(&p, coord);
    }
}

/// u*W, its 8-bit fixed-point value (round to nearest even) and the deciding line, from a
/// normalized coordinate on an axis of `n` texels (the unit takes the f32 coordinate).
fn fixed(coord: f32, n: u32) -> (f64, i64) {
    let texels = coord as f64 * n as f64;
    (texels, (texels * 256.0).round_ties_even() as i64)
}

#[test]
fn the_rounding_inset_shows_the_exact_and_the_rounded_point() {
    // u*W = 0.62475 * 4 = 2.499: exact i0 = floor(1.999) = 1, rounded 640/256 = 2.5, i0 = 2;
    // the texel-centre line u*W = 2.5 lies between them. v*H = 2 decides nothing.
    for (coord, axis) in [("0.62475,0.5", Axis::U), ("0.5,0.62475", Axis::V)] {
        let q = question("4x4", coord, "clamp_to_edge");
        let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
        let (u, v) = coord.split_once(',').unwrap();
        let (eu, nu) = fixed(u.parse().unwrap(), 4);
        let (ev, nv) = fixed(v.parse().unwrap(), 4);
        let inset = p.inset.clone().expect("an inset");
        assert_eq!(inset.centre, (nu, nv));
        assert_eq!(inset.exact, (eu, ev));
        assert_eq!(inset.lines, [(axis, 2.5)]);
        // The inset right of the panel, one pitch along (the caption is wider than the
        // panel), level with it.
        let t = texel_px(4) as i64;
        let caption = p
            .texts
            .iter()
            .find(|tx| tx.text.starts_with("texture 0: "))
            .map(|tx| tx.text.len() as u32)
            .unwrap();
        let pitch = panel_pitch(4 * t as u32, caption) as i64;
        assert_eq!(
            (inset.x, inset.y),
            (MARGIN as i64 + pitch, PANEL_TOP as i64)
        );
        assert!(inset.x >= MARGIN as i64 + 5 * t, "{coord}: {inset:?}");
        // The rounded point in the middle of the box, the exact one (e - n/256) lattice
        // steps from it; the deciding line 2.5 * 256 - n steps from it.
        let size = ((2 * INSET_REACH + 1) * INSET_STEP) as f64;
        let (cx, cy) = (inset.x as f64 + size / 2.0, inset.y as f64 + size / 2.0);
        let step = INSET_STEP as f64;
        let ex = cx + (eu * 256.0 - nu as f64) * step;
        let ey = cy + (ev * 256.0 - nv as f64) * step;
        let (dx, dy) = (ex - cx, ey - cy);
        assert!(dx.hypot(dy) > 10.0, "{coord}: the two points apart");
        let img = super::png::render(&p);
        assert_eq!(pixel_at(&img, cx as i64, cy as i64), SAMPLE_RGB, "{coord}");
        // The hollow exact disc: its ring 5 px out, on the side away from the rounded point,
        // and nothing of it at its centre.
        let away = |d: f64| if d == 0.0 { 0.0 } else { d.signum() };
        let (rx, ry) = (ex + 5.0 * away(dx), ey + 5.0 * away(dy));
        assert_eq!(
            pixel_at(&img, rx.floor() as i64, ry.floor() as i64),
            UNROUNDED_RGB,
            "{coord}: the exact point's ring"
        );
        assert_ne!(
            pixel_at(&img, ex.floor() as i64, ey.floor() as i64),
            UNROUNDED_RGB
        );
        // The deciding line, through the rounded point (2.5 * 256 = 640 = n), magenta.
        let line = match axis {
            Axis::U => (cx as i64, inset.y + 10),
            Axis::V => (inset.x + 10, cy as i64),
        };
        assert_eq!(pixel_at(&img, line.0, line.1), FOOTPRINT_RGB, "{coord}");
        // A lattice point one step from the rounded one on each axis.
        let s = INSET_STEP as i64;
        assert_eq!(
            pixel_at(&img, cx as i64 + s, cy as i64 + s),
            [120, 120, 120]
        );
        // The SVG: both points at the same places, and the main panel's faint exact point.
        let svg = svg_elements(&p, "unrounded");
        assert_eq!(svg.len(), 2, "{coord}: {svg:?}");
        assert!(svg
            .iter()
            .any(|e| (num(e, "cx") - ex).abs() < 1e-9 && (num(e, "cy") - ey).abs() < 1e-9));
        let (px, py) = (
            MARGIN as f64 + eu * t as f64,
            PANEL_TOP as f64 + ev * t as f64,
        );
        assert!(svg
            .iter()
            .any(|e| (num(e, "cx") - px).abs() < 1e-9 && (num(e, "cy") - py).abs() < 1e-9));
        let rounded = svg_elements(&p, "rounded");
        assert_eq!((num(&rounded[0], "cx"), num(&rounded[0], "cy")), (cx, cy));
        // In the PNG the main panel's faint ring shows 9 px out from the exact point.
        assert_eq!(
            pixel_at(&img, (px + 9.0).floor() as i64, py.floor() as i64),
            UNROUNDED_RGB
        );
        assert_disjoint(&p, coord);
    }
    // On a cube face: direction (1, 0, -0.2495) hits +X at s = (1 + 0.2495) / 2 = 0.62475,
    // s*W = 2.499 again (rounded to 640/256), t = 0.5 (t*H = 2 = 512/256).
    let q = question("4x4", "1,0,-0.2495", "clamp_to_edge");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, CUBE", &q);
    let inset = p.inset.clone().expect("a cube's inset");
    assert_eq!(inset.centre, (640, 512));
    assert_eq!(inset.lines, [(Axis::U, 2.5)]);
    assert!(p.texts.iter().any(|t| t.text == "line s*W = 2.5: i0 1|2"));
    assert_disjoint(&p, "cube rounding");
    // The rounding decided nothing: no inset, no faint point, in the PNG or the SVG.
    let q = question("4x4", "0.6,0.5", "clamp_to_edge");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    assert!(p.inset.is_none() && p.unrounded.is_none());
    assert!(svg_elements(&p, "inset").is_empty());
    assert!(svg_elements(&p, "unrounded").is_empty());
    assert!(!super::png::render(&p)
        .pixels()
        .any(|px| px.0 == UNROUNDED_RGB));
}
