//! The picture drawn as a PNG.

use super::geometry::{
    ghost_at, hatch_rgb, label_box, on_edge, on_ring, outline_at, Axis, Inset, KeyMark, MarkStyle,
    Picture, AXIS_RGB, BACKGROUND_RGB, FOOTPRINT_RGB, GRID_RGB, INSET_DISC, INSET_RING,
    SAMPLED_FRAME_RGB, SAMPLE_RGB, UNROUNDED_RGB, UNROUNDED_RING,
};
use super::raster::{Rgb, RgbImage};
use super::GATHER_ORDER;

/// Draws the picture into an RGB image.
pub(super) fn render(pic: &Picture) -> RgbImage {
    let mut img = RgbImage::from_pixel(pic.width, pic.height, Rgb(BACKGROUND_RGB));
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
    axes_png(&mut img, pic);
    let samples = pic
        .sample
        .map(|(x, y)| (x.floor() as i64, y.floor() as i64))
        .into_iter()
        .chain(pic.key_sample);
    for (cx, cy) in samples {
        disc(&mut img, cx, cy, 5);
    }
    for tx in pic.texts.iter().filter(|t| !t.boxed) {
        draw_text(&mut img, tx.x, tx.y, tx.scale, &tx.text, tx.rgb, None);
    }
    img
}

/// The ticks of the u and v axes, the rounding inset and the faint unrounded point (under the
/// sample disc).
fn axes_png(img: &mut RgbImage, pic: &Picture) {
    for tk in &pic.ticks {
        for dy in 0..tk.h as i64 {
            for dx in 0..tk.w as i64 {
                put(img, tk.x + dx, tk.y + dy, AXIS_RGB);
            }
        }
    }
    if let Some(inset) = &pic.inset {
        draw_inset(img, inset);
    }
    // The exact point, faint and hollow, under the sample disc.
    if let Some((ux, uy)) = pic.unrounded {
        hollow(img, ux, uy, UNROUNDED_RING, UNROUNDED_RGB);
    }
}

/// Sets pixel (x, y) where it lies inside the image.
fn put(img: &mut RgbImage, x: i64, y: i64, rgb: [u8; 3]) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        img.put_pixel(x as u32, y as u32, Rgb(rgb));
    }
}

/// A sample disc of radius `r` at (cx, cy), in the sample colour with a black rim.
fn disc(img: &mut RgbImage, cx: i64, cy: i64, r: i64) {
    let rim = (r as f64 + 1.5).powi(2) as i64;
    for dy in -r - 2..=r + 2 {
        for dx in -r - 2..=r + 2 {
            let d2 = dx * dx + dy * dy;
            if d2 <= r * r {
                put(img, cx + dx, cy + dy, SAMPLE_RGB);
            } else if d2 <= rim {
                put(img, cx + dx, cy + dy, [0, 0, 0]);
            }
        }
    }
}

/// A hollow disc of radii `ring` around the point (x, y) (pixel centres at +0.5).
fn hollow(img: &mut RgbImage, x: f64, y: f64, ring: (f64, f64), rgb: [u8; 3]) {
    let r = ring.1.ceil() as i64 + 1;
    let (cx, cy) = (x.floor() as i64, y.floor() as i64);
    for py in cy - r..=cy + r {
        for px in cx - r..=cx + r {
            if on_ring(px as f64 + 0.5 - x, py as f64 + 0.5 - y, ring) {
                put(img, px, py, rgb);
            }
        }
    }
}

/// The rounding inset: a frame, the lattice (light lines, a dot at each point), the
/// texel-centre lines that decided, the exact point hollow and the rounded one filled.
fn draw_inset(img: &mut RgbImage, inset: &Inset) {
    let (x, y, size) = (inset.x, inset.y, inset.size as i64);
    for d in 0..size {
        for (px, py) in [
            (x + d, y),
            (x + d, y + size - 1),
            (x, y + d),
            (x + size - 1, y + d),
        ] {
            put(img, px, py, [90, 90, 90]);
        }
    }
    let half = size / 2;
    let step = inset.step as i64;
    let reach = inset.reach();
    for k in -reach..=reach {
        for d in 1..size - 1 {
            put(img, x + half + k * step, y + d, [215, 215, 215]);
            put(img, x + d, y + half + k * step, [215, 215, 215]);
        }
    }
    for i in -reach..=reach {
        for j in -reach..=reach {
            for (dx, dy) in [
                (-1, -1),
                (0, -1),
                (-1, 0),
                (0, 0),
                (1, 0),
                (0, 1),
                (1, 1),
                (-1, 1),
                (1, -1),
            ] {
                put(
                    img,
                    x + half + i * step + dx,
                    y + half + j * step + dy,
                    [120, 120, 120],
                );
            }
        }
    }
    for &(axis, c) in &inset.lines {
        let (lx, ly) = inset.pixel(c, c);
        for d in 1..size - 1 {
            for w in 0..2 {
                match axis {
                    Axis::U => put(img, lx.floor() as i64 - 1 + w, y + d, FOOTPRINT_RGB),
                    Axis::V => put(img, x + d, ly.floor() as i64 - 1 + w, FOOTPRINT_RGB),
                }
            }
        }
    }
    let (ex, ey) = inset.pixel(inset.exact.0, inset.exact.1);
    hollow(img, ex, ey, INSET_RING, UNROUNDED_RGB);
    disc(img, x + half, y + half, INSET_DISC);
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
