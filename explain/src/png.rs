//! The picture drawn as a PNG.

use super::geometry::{
    ghost_at, hatch_rgb, label_box, on_edge, outline_at, KeyMark, MarkStyle, Picture,
    BACKGROUND_RGB, FOOTPRINT_RGB, GRID_RGB, SAMPLED_FRAME_RGB, SAMPLE_RGB,
};
use super::raster::{Rgb, RgbImage};
use super::GATHER_ORDER;

/// Draws the picture into an RGB image.
pub(super) fn render(pic: &Picture) -> RgbImage {
    let mut img = RgbImage::from_pixel(pic.width, pic.height, Rgb(BACKGROUND_RGB));
    let put = |img: &mut RgbImage, x: i64, y: i64, rgb: [u8; 3]| {
        if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
            img.put_pixel(x as u32, y as u32, Rgb(rgb));
        }
    };
    let t = pic.t as i64;
    for &(x, y, rgb) in &pic.cells {
        for dy in 0..t {
            for dx in 0..t {
                let grid = t >= 6 && (dx == 0 || dy == 0);
                put(&mut img, x + dx, y + dy, if grid { GRID_RGB } else { rgb });
            }
        }
    }
    for &(x, y, w, h) in &pic.frames {
        let (w, h) = (w as i64, h as i64);
        for d in 3..6 {
            for i in -d..w + d {
                put(&mut img, x + i, y - d, SAMPLED_FRAME_RGB);
                put(&mut img, x + i, y + h - 1 + d, SAMPLED_FRAME_RGB);
            }
            for j in -d..h + d {
                put(&mut img, x - d, y + j, SAMPLED_FRAME_RGB);
                put(&mut img, x + w - 1 + d, y + j, SAMPLED_FRAME_RGB);
            }
        }
    }
    // A mark: its outline in the footprint colour; a filled mark (a border texel) shows its
    // fill inside, hatched in a colour that keeps the fill visible.
    for sw in &pic.swatches {
        for dy in 0..sw.h as i64 {
            for dx in 0..sw.w as i64 {
                put(&mut img, sw.x + dx, sw.y + dy, sw.rgb);
            }
        }
    }
    let draw_mark =
        |img: &mut RgbImage, x: i64, y: i64, size: u32, style: MarkStyle, fill: Option<[u8; 3]>| {
            for dy in 0..size {
                for dx in 0..size {
                    let edge = on_edge(dx, dy, size);
                    let rgb = match (outline_at(style, dx, dy, size), fill) {
                        (true, Some(f)) if !edge => hatch_rgb(f),
                        (true, _) => FOOTPRINT_RGB,
                        (false, Some(f)) if !edge => f,
                        (false, _) => continue,
                    };
                    put(img, x + dx as i64, y + dy as i64, rgb);
                }
            }
        };
    // Face names first: the footprint goes over them.
    for tx in pic.texts.iter().filter(|t| t.boxed) {
        draw_text(
            &mut img,
            tx.x,
            tx.y,
            tx.scale,
            &tx.text,
            tx.rgb,
            Some([40, 40, 40]),
        );
    }
    // Ghosts, then arrows, under the marks: a mark's outline stays whole where they meet it.
    for g in &pic.ghosts {
        for dy in 0..g.size {
            for dx in 0..g.size {
                if ghost_at(dx, dy, g.size) {
                    put(&mut img, g.x + dx as i64, g.y + dy as i64, g.rgb);
                }
            }
        }
    }
    for a in &pic.arrows {
        for (x, y) in a.pixels() {
            put(&mut img, x, y, a.rgb);
        }
    }
    for m in &pic.marks {
        draw_mark(&mut img, m.x, m.y, m.size, m.style, m.fill);
    }
    // Labels, after every outline, so that no outline covers a label.
    for m in &pic.marks {
        let ls = m.label;
        if ls > 0 {
            let (lx, ly, _) = label_box(m, ls as i64);
            draw_text(
                &mut img,
                lx,
                ly,
                ls,
                GATHER_ORDER[m.k].0,
                [0, 0, 0],
                Some([255, 255, 255]),
            );
        }
    }
    for &KeyMark { x, y, style, fill } in &pic.key {
        for dy in 0..16 {
            for dx in 0..16 {
                put(&mut img, x + dx, y + dy, [200, 200, 200]);
            }
        }
        draw_mark(&mut img, x, y, 16, style, fill);
    }
    let samples = pic
        .sample
        .map(|(x, y)| (x.floor() as i64, y.floor() as i64))
        .into_iter()
        .chain(pic.key_sample);
    for (cx, cy) in samples {
        for dy in -7i64..=7 {
            for dx in -7i64..=7 {
                let d2 = dx * dx + dy * dy;
                if d2 <= 25 {
                    put(&mut img, cx + dx, cy + dy, SAMPLE_RGB);
                } else if d2 <= 42 {
                    put(&mut img, cx + dx, cy + dy, [0, 0, 0]);
                }
            }
        }
    }
    for tx in pic.texts.iter().filter(|t| !t.boxed) {
        draw_text(&mut img, tx.x, tx.y, tx.scale, &tx.text, tx.rgb, None);
    }
    img
}

/// Draws `text` with the font8x8 bitmap font at `scale`, optionally on a box 1 px wider.
pub(super) fn draw_text(
    img: &mut RgbImage,
    x: i64,
    y: i64,
    scale: u32,
    text: &str,
    rgb: [u8; 3],
    back: Option<[u8; 3]>,
) {
    use font8x8::UnicodeFonts;
    let s = scale.max(1) as i64;
    let mut put = |px: i64, py: i64, c: [u8; 3]| {
        if px >= 0 && py >= 0 && (px as u32) < img.width() && (py as u32) < img.height() {
            img.put_pixel(px as u32, py as u32, Rgb(c));
        }
    };
    let n = text.chars().count() as i64;
    if let Some(b) = back {
        for py in y..y + 8 * s + 2 {
            for px in x..x + n * 8 * s + 2 {
                put(px, py, b);
            }
        }
    }
    for (i, ch) in text.chars().enumerate() {
        let glyph = font8x8::BASIC_FONTS
            .get(ch)
            .or_else(|| font8x8::BASIC_FONTS.get('?'))
            .unwrap_or([0; 8]);
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8 {
                if bits >> col & 1 != 0 {
                    for dy in 0..s {
                        for dx in 0..s {
                            put(
                                x + 1 + (i as i64 * 8 + col) * s + dx,
                                y + 1 + row as i64 * s + dy,
                                rgb,
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The picture encoded as PNG.
pub(super) fn png_bytes(pic: &Picture) -> Result<Vec<u8>, ::png::EncodingError> {
    render(pic).encode_png()
}
