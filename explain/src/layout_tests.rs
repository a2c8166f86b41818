//! The picture's layout, checked on the boxes it is drawn from and on the pixels drawn:
//! captions, the title, face names, labels, the key and the legend never overlap each other
//! or the texels and marks; a border texel shows the border colour; a clamped layer is said.

use super::geometry::{label_box, MarkStyle, Picture, CHAR_PX, FOOTPRINT_RGB};
use super::question::Question;
use super::{explain, Subject};

/// A drawn rectangle: left, top, width, height, and what it is (for messages).
#[derive(Debug, Clone)]
struct Rect {
    x: i64,
    y: i64,
    w: i64,
    h: i64,
    what: String,
}

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// The picture of `insn` on the question `q`, lane 0.
pub(super) fn picture_of(insn: &str, q: &Question) -> Picture {
    let e = explain(
        insn,
        tld4_decoder::Arch::Sm100,
        &Subject::Question(q),
        0,
        true,
    )
    .unwrap_or_else(|e| panic!("{insn}: {e}"));
    match e.picture {
        Ok(p) => p.0,
        Err(e) => panic!("{insn}: {e}\n{}", e),
    }
}

/// Every text run's box (boxed runs one pixel wider and taller, as drawn).
fn text_boxes(p: &Picture) -> Vec<Rect> {
    p.texts
        .iter()
        .map(|t| {
            // The glyphs start one pixel in (png::draw_text), so a run and its box take its
            // characters' width and height plus two.
            let c = (CHAR_PX * t.scale) as i64;
            Rect {
                x: t.x,
                y: t.y,
                w: t.text.chars().count() as i64 * c + 2,
                h: c + 2,
                what: format!("text {:?}", t.text),
            }
        })
        .collect()
}

/// Every texel square, footprint mark, key mark, panel cell, ghost, tick and the inset.
fn shape_boxes(p: &Picture) -> Vec<Rect> {
    let t = p.t as i64;
    let cells = p.cells.iter().map(|&(x, y, _)| Rect {
        x,
        y,
        w: t,
        h: t,
        what: format!("texel at ({x}, {y})"),
    });
    let marks = p.marks.iter().map(|m| Rect {
        x: m.x,
        y: m.y,
        w: m.size as i64,
        h: m.size as i64,
        what: format!("mark {}", m.k),
    });
    let key = p.key.iter().map(|k| Rect {
        x: k.x,
        y: k.y,
        w: 16,
        h: 16,
        what: "key mark".into(),
    });
    let swatches = p.swatches.iter().map(|w| Rect {
        x: w.x,
        y: w.y,
        w: w.w as i64,
        h: w.h as i64,
        what: "panel cell".into(),
    });
    let ghosts = p.ghosts.iter().map(|g| Rect {
        x: g.x,
        y: g.y,
        w: g.size as i64,
        h: g.size as i64,
        what: "ghost".into(),
    });
    let ticks = p.ticks.iter().map(|k| Rect {
        x: k.x,
        y: k.y,
        w: k.w as i64,
        h: k.h as i64,
        what: format!("tick {:?} {:?}", k.axis, k.value),
    });
    let inset = p.inset.iter().map(|i| Rect {
        x: i.x,
        y: i.y,
        w: i.size as i64,
        h: i.size as i64,
        what: "inset".into(),
    });
    cells
        .chain(marks)
        .chain(key)
        .chain(swatches)
        .chain(ghosts)
        .chain(ticks)
        .chain(inset)
        .collect()
}

/// Asserts that no two text runs overlap, that no text overlaps a texel, mark or panel cell
/// (except a face name on its own face's texels, clear of the marks, and a cell's text inside
/// its cell), that labels of distinct marks do not overlap, and that everything lies inside
/// the picture.
pub(super) fn assert_disjoint(p: &Picture, case: &str) {
    let texts = text_boxes(p);
    for (i, a) in texts.iter().enumerate() {
        for b in &texts[i + 1..] {
            assert!(!a.overlaps(b), "{case}: {a:?} overlaps {b:?}");
        }
    }
    let shapes = shape_boxes(p);
    for (a, t) in texts.iter().zip(&p.texts) {
        for b in &shapes {
            let face_on_texel = t.boxed && b.what.starts_with("texel");
            let in_its_cell = b.what == "panel cell"
                && a.x >= b.x
                && a.y >= b.y
                && a.x + a.w <= b.x + b.w
                && a.y + a.h <= b.y + b.h;
            assert!(
                face_on_texel || in_its_cell || !a.overlaps(b),
                "{case}: {a:?} overlaps {b:?}"
            );
        }
        assert!(
            a.x >= 0 && a.y >= 0 && a.x + a.w <= p.width as i64 && a.y + a.h <= p.height as i64,
            "{case}: {a:?} outside the {}x{} picture",
            p.width,
            p.height
        );
    }
    let labels: Vec<Rect> = p
        .marks
        .iter()
        .filter(|m| m.label > 0)
        .map(|m| {
            let (x, y, s) = label_box(m, m.label as i64);
            Rect {
                x,
                y,
                w: s,
                h: s,
                what: format!("label of mark {}", m.k),
            }
        })
        .collect();
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            assert!(!a.overlaps(b), "{case}: {a:?} overlaps {b:?}");
        }
    }
    for b in &shapes {
        assert!(
            b.x >= 0 && b.y >= 0 && b.x + b.w <= p.width as i64 && b.y + b.h <= p.height as i64,
            "{case}: {b:?} outside the {}x{} picture",
            p.width,
            p.height
        );
    }
}

/// A question on a `size` texture at `coord` with the address mode `address`.
pub(super) fn question(size: &str, coord: &str, address: &str) -> Question {
    Question {
        texture: Some(size.into()),
        coord: Some(coord.into()),
        address: Some(address.into()),
        ..Question::default()
    }
}

#[test]
fn border_texels_above_and_below_clear_the_captions_and_the_key() {
    // The footprint crosses the top edge (z, w in the ring above, under the caption) and,
    // in the second case, the bottom edge (x, y in the ring below, above the key).
    for (coord, offset) in [
        ("0.95,0.02", "1,-1"),
        ("0.5,0.99", "0,1"),
        ("0.02,0.5", "-1,0"),
    ] {
        let mut q = question("4x4", coord, "clamp_to_border");
        q.offset = Some(offset.into());
        let p = picture_of("TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D", &q);
        assert!(
            p.marks.iter().any(|m| m.style == MarkStyle::Hatched),
            "{coord}: the footprint reads the border"
        );
        assert_disjoint(&p, coord);
    }
}

#[test]
fn captions_of_small_array_layers_do_not_collide() {
    for size in ["1x1x8", "2x2x8", "3x1x5", "2x2x2"] {
        let mut q = question(size, "0.5,0.5", "clamp_to_edge");
        q.layer = Some("1".into());
        let p = picture_of("TLD4.R R8, R20, R24, UR4, ARRAY_2D", &q);
        let captions = p
            .texts
            .iter()
            .filter(|t| t.text.starts_with("layer"))
            .count();
        assert!(captions >= 2, "{size}: {captions} captions");
        assert_disjoint(&p, size);
    }
}

#[test]
fn cube_face_names_stay_clear_of_the_footprint() {
    // Directions whose footprint covers a corner texel of the face they hit, on faces of 2
    // and 4 texels: the face's name moves to a corner no mark covers.
    for size in ["2x2", "4x4"] {
        for coord in [
            "0.1,0.1,-1",
            "-0.9,0.9,-1",
            "1,0.9,0.9",
            "0.9,1,-0.9",
            "-1,-0.99,0.99",
        ] {
            let q = question(size, coord, "clamp_to_edge");
            let p = picture_of("TLD4.R R8, R20, R24, UR4, CUBE", &q);
            assert!(!p.marks.is_empty(), "{size} {coord}: no footprint");
            assert_disjoint(&p, &format!("{size} {coord}"));
        }
    }
}

#[test]
fn a_clamped_layer_is_said_in_the_legend() {
    let mut q = question("2x2x3", "0.5,0.5", "clamp_to_edge");
    q.layer = Some("9".into());
    let p = picture_of("TLD4.R R8, R20, R24, UR4, ARRAY_2D", &q);
    assert!(
        p.texts
            .iter()
            .any(|t| t.text == "layer 9 clamped to 2 (the last is 2)"),
        "{:?}",
        p.texts.iter().map(|t| &t.text).collect::<Vec<_>>()
    );
    assert!(p.texts.iter().any(|t| t.text == "layer 2 (sampled)"));
    assert_disjoint(&p, "layer 9");
}

#[test]
fn border_texels_show_the_border_colour_in_the_png() {
    // Opaque red border on an RGBA8 texture: the border texels' squares are red inside, with
    // hatching (white on red) and the footprint's outline.
    let mut q = question("4x4", "0.02,0.02", "clamp_to_border");
    q.format = Some("rgba8_unorm".into());
    q.border = Some("1,0,0,1".into());
    let pic = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    let border: Vec<_> = pic
        .marks
        .iter()
        .filter(|m| m.style == MarkStyle::Hatched)
        .collect();
    assert_eq!(
        border.len(),
        3,
        "x, z and w read the border at (0.02, 0.02)"
    );
    assert!(border.iter().all(|m| m.fill == Some([255, 0, 0])));
    let img = super::png::render(&pic);
    for m in border {
        let (x, y) = (m.x as u32, m.y as u32);
        let mut counts = std::collections::HashMap::new();
        for dy in 4..m.size - 4 {
            for dx in 4..m.size - 4 {
                *counts
                    .entry(img.get_pixel(x + dx, y + dy).0)
                    .or_insert(0u32) += 1;
            }
        }
        let red = counts.get(&[255, 0, 0]).copied().unwrap_or(0);
        let inside = (m.size - 8) * (m.size - 8);
        assert!(red * 2 > inside, "mark {}: {counts:?}", m.k);
        assert_eq!(
            counts.get(&FOOTPRINT_RGB),
            None,
            "mark {}: no magenta inside",
            m.k
        );
        assert_eq!(
            img.get_pixel(x + m.size / 2, y).0,
            FOOTPRINT_RGB,
            "its outline"
        );
    }
}

#[test]
fn text_boxes_are_where_the_png_draws_text() {
    // The boxes the layout test uses are the pixels the font draws into: every dark pixel of
    // the title band lies inside the title's box.
    let q = question("4x4", "0.5,0.5", "clamp_to_edge");
    let pic = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    let img = super::png::render(&pic);
    let title = text_boxes(&pic)
        .into_iter()
        .zip(&pic.texts)
        .find(|(_, t)| t.text.starts_with("TLD4.R"))
        .map(|(b, _)| b)
        .expect("a title");
    let mut dark = 0;
    for y in 0..title.y + title.h + 4 {
        for x in 0..pic.width as i64 {
            if img.get_pixel(x as u32, y as u32).0 == super::geometry::TEXT_RGB {
                dark += 1;
                let inside =
                    x >= title.x && x < title.x + title.w && y >= title.y && y < title.y + title.h;
                assert!(
                    inside,
                    "text pixel ({x}, {y}) outside the title's box {title:?}"
                );
            }
        }
    }
    assert!(dark > 100, "{dark} title pixels");
}

/// The panel cells' colours and texts, in gather order, and each cell's colour read back
/// from the PNG (its top-right corner, clear of the text).
fn cells(pic: &Picture) -> Vec<([u8; 3], String, [u8; 3])> {
    let img = super::png::render(pic);
    pic.swatches
        .iter()
        .map(|sw| {
            let text = pic
                .texts
                .iter()
                .find(|t| t.x == sw.x + 3 && t.y == sw.y + 3)
                .map(|t| t.text.clone())
                .unwrap_or_default();
            let px = img
                .get_pixel((sw.x + sw.w as i64 - 2) as u32, (sw.y + 1) as u32)
                .0;
            (sw.rgb, text, px)
        })
        .collect()
}

#[test]
fn the_depth_compare_panel_shows_each_depth_pass_or_fail() {
    // The index pattern's depth (component R) is the texel's x: at (0.3, 0.6) on 4x4 the
    // footprint is i = 0, 1 (1.2 - 0.5 = 0.7), so x and w compare depth 0, y and z depth 1;
    // with 0.5 <= depth only y and z pass.
    use super::panels::{FAIL_RGB, PASS_RGB};
    let mut q = question("4x4", "0.3,0.6", "clamp_to_edge");
    q.format = Some("d32_float".into());
    q.dref = Some("0.5".into());
    let pic = picture_of("TLD4.R.DC R10, R8, R20, R24, UR4, 2D", &q);
    let got = cells(&pic);
    let want = [
        (FAIL_RGB, "x depth 0 fail"),
        (PASS_RGB, "y depth 1 pass"),
        (PASS_RGB, "z depth 1 pass"),
        (FAIL_RGB, "w depth 0 fail"),
    ];
    assert_eq!(got.len(), 4, "{got:?}");
    for ((rgb, text, px), (want_rgb, want_text)) in got.iter().zip(want) {
        assert_eq!((*rgb, text.as_str(), *px), (want_rgb, want_text, want_rgb));
    }
    assert!(pic
        .texts
        .iter()
        .any(|t| t.text == "depth compare: passes when 0.5 <= depth"));
    assert_disjoint(&pic, "depth compare");
}

#[test]
fn the_f16_panel_shows_rn_and_rz_side_by_side() {
    // A border of 0.7 = 1.4 * 2^-1: the binary16 mantissa 0.4 * 1024 = 409.6, so RN gives
    // 0x3800 | 410 = 0x399a and RZ 0x3800 | 409 = 0x3999; texel (0, 0) of the index pattern
    // holds R = 0, the same under both.
    use super::panels::{DIFFERENT_RGB, SAME_RGB};
    let mut q = question("4x4", "0.02,0.02", "clamp_to_border");
    q.format = Some("r32_float".into());
    q.border = Some("0.7,0.7,0.7,0.7".into());
    let pic = picture_of("TLD4.R.F16.RZ R10, R8, R20, R24, UR4, 2D", &q);
    let got = cells(&pic);
    let want = [
        (DIFFERENT_RGB, "x RN 399a RZ 3999"),
        (SAME_RGB, "y RN 0000 RZ 0000"),
        (DIFFERENT_RGB, "z RN 399a RZ 3999"),
        (DIFFERENT_RGB, "w RN 399a RZ 3999"),
    ];
    assert_eq!(got.len(), 4, "{got:?}");
    for ((rgb, text, px), (want_rgb, want_text)) in got.iter().zip(want) {
        assert_eq!((*rgb, text.as_str(), *px), (want_rgb, want_text, want_rgb));
    }
    assert!(pic.texts.iter().any(|t| t.text.contains("RZ written")));
    assert_disjoint(&pic, "f16");
}

#[test]
fn the_key_names_what_the_hatching_stands_for() {
    // A seamless cube's hatched marks are corners; faces addressed one by one read the border
    // instead, and the key says so (filled, as border texels are).
    let key_of = |non_seamless: bool| {
        let mut q = question("4x4", "1,0.99,0.99", "clamp_to_border");
        q.non_seamless = non_seamless;
        let p = picture_of("TLD4.R R8, R20, R24, UR4, CUBE", &q);
        assert_disjoint(&p, &format!("non_seamless {non_seamless}"));
        let hatched = p
            .key
            .iter()
            .find(|k| k.style == MarkStyle::Hatched)
            .map(|k| k.fill)
            .expect("a hatched key");
        let words: Vec<String> = p.texts.iter().map(|t| t.text.clone()).collect();
        (hatched, words)
    };
    let (fill, words) = key_of(true);
    assert_eq!(fill, Some([200, 200, 200]));
    assert!(words.iter().any(|w| w == "border"), "{words:?}");
    assert!(
        words.iter().any(|w| w.starts_with("x (-1,0) border")),
        "{words:?}"
    );
    let (fill, words) = key_of(false);
    assert_eq!(fill, None);
    assert!(words.iter().any(|w| w == "corner"), "{words:?}");
}

#[test]
fn cube_face_tags_point_along_each_face_s_and_t() {
    // The sampled face is drawn as is (s right, t down). For the neighbour above it, the
    // texture unit's own edge rule (seamless_texel) says which of its axes runs to the right
    // along the shared edge: the tag's arrow for that axis must point right (or left, if the
    // axis decreases); likewise for the neighbour on the left, going down.
    use tld4_textures::cube::seamless_texel;
    use tld4_textures::trace::FACE_NAMES;
    let dirs = [
        "1,0.1,0.2",
        "-1,0.2,0.1",
        "0.1,1,0.2",
        "0.2,-1,0.1",
        "0.1,0.2,1",
        "0.2,0.1,-1",
    ];
    for (centre, coord) in dirs.iter().enumerate() {
        let q = question("4x4", coord, "clamp_to_edge");
        let p = picture_of("TLD4.R R8, R20, R24, UR4, CUBE", &q);
        assert_disjoint(&p, coord);
        let tag = |face: u32| {
            let name = FACE_NAMES[face as usize];
            p.texts
                .iter()
                .find(|t| t.boxed && t.text.starts_with(&format!("{name} ")))
                .map(|t| t.text.clone())
                .unwrap_or_else(|| panic!("{coord}: no tag for {name}"))
        };
        assert!(
            tag(centre as u32).ends_with(" s> tv"),
            "{coord}: {}",
            tag(centre as u32)
        );
        assert!(p
            .texts
            .iter()
            .any(|t| t.text.starts_with("axes: s and i grow to the right")));
        // (axis, step) of neighbour coordinates from texel a to texel b.
        let step = |a: (u32, i64, i64), b: (u32, i64, i64)| {
            assert_eq!(a.0, b.0);
            if a.1 != b.1 {
                ('s', b.1 - a.1)
            } else {
                ('t', b.2 - a.2)
            }
        };
        let c = centre as u32;
        let above = (
            seamless_texel(c, 0, -1, 4).unwrap(),
            seamless_texel(c, 1, -1, 4).unwrap(),
        );
        let (axis, d) = step(above.0, above.1);
        let want = format!("{axis}{}", if d > 0 { '>' } else { '<' });
        assert!(
            tag(above.0 .0).contains(&want),
            "{coord}: {} lacks {want}",
            tag(above.0 .0)
        );
        let left = (
            seamless_texel(c, -1, 0, 4).unwrap(),
            seamless_texel(c, -1, 1, 4).unwrap(),
        );
        let (axis, d) = step(left.0, left.1);
        let want = format!("{axis}{}", if d > 0 { 'v' } else { '^' });
        assert!(
            tag(left.0 .0).contains(&want),
            "{coord}: {} lacks {want}",
            tag(left.0 .0)
        );
    }
}

#[test]
fn the_legend_says_when_the_rounding_decided_the_texel() {
    // u*W = 0.62475 * 4 = 2.499: exact floor(2.499 - 0.5) = 1, but 2.499 * 256 = 639.74
    // rounds to 640 = 2.5 * 256, so the unit's i0 is 2. v = 0.5 decides nothing.
    let q = question("4x4", "0.62475,0.5", "clamp_to_edge");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    let lines: Vec<&str> = p.texts.iter().map(|t| t.text.as_str()).collect();
    assert!(
        lines.contains(&"the rounding decided: u*W = 2.499: exact i0 = 1, rounded 2"),
        "{lines:?}"
    );
    assert_disjoint(&p, "rounding");
    assert!(lines
        .contains(&"axes: i and u grow to the right, j and v downwards: texel (0,0) is top-left"));
    let q = question("4x4", "0.5,0.5", "clamp_to_edge");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    assert!(!p
        .texts
        .iter()
        .any(|t| t.text.starts_with("the rounding decided")));
}

/// The pixel at (x, y) of the picture drawn as a PNG.
pub(super) fn pixel_at(img: &super::raster::RgbImage, x: i64, y: i64) -> [u8; 3] {
    img.get_pixel(x as u32, y as u32).0
}

#[test]
fn offsets_and_address_modes_draw_their_arrows() {
    use super::geometry::OFFSET_ARROW_RGB;
    let legend = |p: &Picture| -> Vec<String> {
        p.texts
            .iter()
            .map(|t| t.text.clone())
            .filter(|t| t.starts_with("arrows:"))
            .collect()
    };
    // AOFFI (1, -1) at the centre of a 4x4 texture, clamped (nothing redirected): i0 = j0 = 1,
    // so w, unoffset at (1, 1), is read at (2, 0). Its arrow runs from (1, 1)'s centre to
    // (2, 0)'s; a quarter of the way it is still inside texel (1, 1), which no mark covers
    // (the marks are (2, 0), (3, 0), (2, 1), (3, 1)).
    let mut q = question("4x4", "0.5,0.5", "clamp_to_edge");
    q.offset = Some("1,-1".into());
    let p = picture_of("TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D", &q);
    let t = p.t as i64;
    let w = p.marks.iter().find(|m| m.k == 3).unwrap();
    let img = super::png::render(&p);
    assert_eq!(
        pixel_at(&img, w.x - t / 4, w.y + 5 * t / 4),
        OFFSET_ARROW_RGB
    );
    assert_eq!(
        legend(&p),
        ["arrows: blue = offset (from the unoffset texel)"]
    );
    assert_disjoint(&p, "aoffi arrows");
    // The same without offsets: no arrow, nothing drawn in the arrow colour, no legend line.
    let q = question("4x4", "0.5,0.5", "clamp_to_edge");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    assert!(p.arrows.is_empty());
    let img = super::png::render(&p);
    assert!(!img.pixels().any(|px| px.0 == OFFSET_ARROW_RGB));
    assert!(legend(&p).is_empty());
    // Repeat at u*W = 0.2: i0 = -1 wraps to 3, so x at (-1, 2) is read at (3, 2); its arrow
    // crosses the row from the ring left of the texture, over texel (1, 2)'s centre.
    let q = question("4x4", "0.05,0.5", "repeat");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    let x = p.marks.iter().find(|m| m.k == 0).unwrap();
    let img = super::png::render(&p);
    assert_eq!(
        pixel_at(&img, x.x - 2 * t + t / 2, x.y + t / 2),
        FOOTPRINT_RGB
    );
    assert_eq!(
        legend(&p),
        ["arrows: magenta = address mode (to the texel read)"]
    );
    // PTP reads texel k at (i0 + dx_k, j0 + dy_k): every arrow starts at (i0, j0).
    let mut q = question("8x8", "0.5,0.5", "clamp_to_edge");
    q.offsets = Some("1,0,-1,2,0,-3,2,2".into());
    let p = picture_of("TLD4.R.PTP R10, R8, R20, R24, UR4, 2D", &q);
    assert_eq!(p.arrows.len(), 4);
    let starts: std::collections::HashSet<_> = p.arrows.iter().map(|a| a.from).collect();
    assert_eq!(starts.len(), 1, "{:?}", p.arrows);
}

#[test]
fn texel_indices_label_the_columns_and_rows_where_the_ring_is_free() {
    // A gather in the middle reaches no ring cell: every column and row is numbered, i above
    // its column, j left of its row.
    let q = question("4x4", "0.5,0.5", "clamp_to_edge");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    let t = p.t as i64;
    let ox = p.cells.iter().map(|c| c.0).min().unwrap();
    let oy = p.cells.iter().map(|c| c.1).min().unwrap();
    let grey = |tx: &&super::geometry::Text| tx.rgb == [120, 120, 120];
    for n in 0..4i64 {
        let name = n.to_string();
        assert!(
            p.texts.iter().filter(grey).any(|tx| tx.text == name
                && tx.x >= ox + n * t
                && tx.x < ox + (n + 1) * t
                && tx.y >= oy - t
                && tx.y < oy),
            "i = {n} above its column"
        );
        assert!(
            p.texts.iter().filter(grey).any(|tx| tx.text == name
                && tx.y >= oy + n * t
                && tx.y < oy + (n + 1) * t
                && tx.x >= ox - t
                && tx.x < ox),
            "j = {n} left of its row"
        );
    }
    assert_disjoint(&p, "indices");
    assert!(p
        .texts
        .iter()
        .any(|tx| tx.text == "texel (i,j) spans u = i/W..(i+1)/W, v = j/H..(j+1)/H"));
    // Clamped to the border at u*W = 0.2: x and w read the border in the ring left of rows
    // 2 and 1, so those rows' j is left out; rows 0 and 3 keep theirs.
    let q = question("4x4", "0.05,0.5", "clamp_to_border");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    let left: Vec<String> = p
        .texts
        .iter()
        .filter(grey)
        .filter(|tx| tx.x < ox)
        .map(|tx| tx.text.clone())
        .collect();
    assert_eq!(left, ["0", "3"]);
    assert_disjoint(&p, "indices beside border texels");
}

#[test]
fn texel_values_sit_in_the_squares_the_footprint_leaves_free() {
    // Component A of the index pattern is the texel's number y*4 + x. At (1.2, 1.6) texels the
    // footprint covers (0..1, 1..2): those four values are the legend's, the others' are in
    // their squares, white on a box.
    let q = question("4x4", "0.3,0.4", "clamp_to_edge");
    let p = picture_of("TLD4.A R8, R20, R24, UR4, 2D", &q);
    let t = p.t as i64;
    let ox = p.cells.iter().map(|c| c.0).min().unwrap();
    let oy = p.cells.iter().map(|c| c.1).min().unwrap();
    let value_in = |x: i64, y: i64| {
        p.texts
            .iter()
            .filter(|tx| tx.boxed && tx.rgb == [255, 255, 255])
            .filter(|tx| {
                tx.x >= ox + x * t
                    && tx.x < ox + (x + 1) * t
                    && tx.y >= oy + y * t
                    && tx.y < oy + (y + 1) * t
            })
            .map(|tx| tx.text.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(value_in(2, 1), ["6.0"]);
    assert_eq!(value_in(3, 3), ["15.0"]);
    for (x, y) in [(0, 1), (1, 1), (0, 2), (1, 2)] {
        assert!(value_in(x, y).is_empty(), "({x}, {y}) is in the footprint");
    }
    assert_disjoint(&p, "values");
    // A value longer than its square (rgba8_unorm's 0.0039216...) is left out.
    let mut q = question("4x4", "0.5,0.5", "clamp_to_edge");
    q.format = Some("rgba8_unorm".into());
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    assert!(p
        .texts
        .iter()
        .filter(|tx| tx.boxed && tx.rgb == [255, 255, 255])
        .all(|tx| (tx.text.len() as i64 * CHAR_PX as i64 + 2) <= p.t as i64 - 4));
}

/// The SVG's ghost rectangles: (x, y, width, stroke colour), as written.
fn svg_ghosts(p: &Picture) -> Vec<(f64, f64, f64, String)> {
    let svg = super::svg::svg(p);
    let attr = |line: &str, name: &str| -> String {
        let at = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        line[at..].split('"').next().unwrap().to_string()
    };
    svg.lines()
        .filter(|l| l.contains(r#"class="ghost""#))
        .map(|l| {
            assert!(l.contains("stroke-dasharray"), "{l}");
            let num = |n: &str| attr(l, n).parse::<f64>().unwrap();
            (num("x"), num("y"), num("width"), attr(l, "stroke"))
        })
        .collect()
}

#[test]
fn redirected_and_offset_texels_leave_a_dashed_ghost_at_the_arrow_start() {
    use super::geometry::{GHOST_BAND, OFFSET_ARROW_RGB};
    use super::svg::hex_rgb;
    let dashed_at = |p: &Picture, cx: i64, cy: i64, rgb: [u8; 3]| {
        let img = super::png::render(p);
        let t = p.t as i64;
        // Along the top edge: some pixels in the colour (the dashes), some not (the gaps).
        let top: Vec<bool> = (2..t - 2)
            .map(|dx| pixel_at(&img, cx + dx, cy) == rgb)
            .collect();
        assert!(top.iter().any(|&b| b), "no dash at ({cx}, {cy})");
        assert!(top.iter().any(|&b| !b), "no gap at ({cx}, {cy})");
        let svg = svg_ghosts(p);
        let b = GHOST_BAND as f64;
        assert!(
            svg.iter().any(|(x, y, w, c)| *x == cx as f64 + b / 2.0
                && *y == cy as f64 + b / 2.0
                && *w == t as f64 - b
                && *c == hex_rgb(rgb)),
            "no SVG ghost at ({cx}, {cy}): {svg:?}"
        );
    };
    // AOFFI (1, -1) at the centre of a 4x4 texture: w, unoffset at (1, 1), is read at (2, 0);
    // (1, 1) is no footprint texel after the offset: its ghost is there, in blue.
    let mut q = question("4x4", "0.5,0.5", "clamp_to_edge");
    q.offset = Some("1,-1".into());
    let p = picture_of("TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D", &q);
    let t = p.t as i64;
    let w = p.marks.iter().find(|m| m.k == 3).unwrap();
    let (gx, gy) = (w.x - t, w.y + t);
    assert!(p.ghosts.iter().any(|g| (g.x, g.y) == (gx, gy)));
    dashed_at(&p, gx, gy, OFFSET_ARROW_RGB);
    assert_eq!(p.ghosts.len(), 4, "{:?}", p.ghosts);
    assert_disjoint(&p, "aoffi ghosts");
    // Repeat at u*W = 0.2: x at (-1, 2) is read at (3, 2): its ghost is in the ring left of
    // the texture, in the address mode's colour.
    let q = question("4x4", "0.05,0.5", "repeat");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    let x = p.marks.iter().find(|m| m.k == 0).unwrap();
    dashed_at(&p, x.x - 4 * t, x.y, FOOTPRINT_RGB);
    assert_disjoint(&p, "repeat ghosts");
    // Border on an array layer: the ghost is where the footprint lay before the redirection,
    // in the ring above the layer, clear of the captions.
    let mut q = question("4x4x3", "0.5,0.02", "clamp_to_edge");
    q.layer = Some("1".into());
    let p = picture_of("TLD4.R R8, R20, R24, UR4, ARRAY_2D", &q);
    assert!(!p.ghosts.is_empty(), "clamp on a layer: no ghost");
    for g in &p.ghosts {
        dashed_at(&p, g.x, g.y, g.rgb);
    }
    assert_disjoint(&p, "array clamp ghosts");
    // Nothing moved: no ghost, in the PNG or the SVG.
    let q = question("4x4", "0.5,0.5", "clamp_to_edge");
    let p = picture_of("TLD4.R R8, R20, R24, UR4, 2D", &q);
    assert!(p.ghosts.is_empty());
    assert!(svg_ghosts(&p).is_empty());
}
