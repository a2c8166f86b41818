//! What the picture adds to the texels and marks so that it explains itself: the arrows of
//! offsets and address modes, and the texel indices in the ring around the texture.

use tld4_textures::trace::{GatherTrace, TexelSite};

use super::geometry::{Arrow, Ghost, Picture, Text, CHAR_PX, FOOTPRINT_RGB, OFFSET_ARROW_RGB};
use super::picture::Panels;

/// The footprint's arrows on a 2D or array texture (a cube's unfolding already puts a texel
/// read across an edge where the footprint reached): for an offset texel, from where it lay
/// without the offset to where the offset put it (AOFFI moves the 2x2 footprint; PTP reads
/// texel k at (i0 + dx_k, j0 + dy_k): Vulkan's ConstOffsets rule, `stages::footprint` of
/// tld4-textures); for a texel an address mode redirected, from there to the texel read. A
/// position outside the texture is drawn in the one-texel ring around it (as border texels
/// are). Each arrow's start gets a ghost: the square the texel had there, outlined dashed.
pub(super) fn footprint_arrows(pic: &mut Picture, panels: &Panels, tr: &GatherTrace) {
    if tr.cube.is_some() {
        return;
    }
    let Some((px, py)) = panels.place(tr.storage_layer, 0, 0) else {
        return;
    };
    let (w, h, t) = (panels.w, panels.h, panels.t as i64);
    let centre = |i: i64, j: i64| {
        (
            px + i.clamp(-1, w as i64) * t + t / 2,
            py + j.clamp(-1, h as i64) * t + t / 2,
        )
    };
    for x in &tr.texels {
        let (i, j) = x.position;
        if let Some((dx, dy)) = x.offset.filter(|&o| o != (0, 0)) {
            pic.arrows.push(Arrow {
                from: centre(i - dx, j - dy),
                to: centre(i, j),
                rgb: OFFSET_ARROW_RGB,
            });
        }
        if let TexelSite::Texel {
            layer,
            x: tx,
            y: ty,
        } = x.site
        {
            if x.wrapped && layer == tr.storage_layer {
                pic.arrows.push(Arrow {
                    from: centre(i, j),
                    to: centre(tx as i64, ty as i64),
                    rgb: FOOTPRINT_RGB,
                });
            }
        }
    }
    pic.arrows.retain(|a| a.from != a.to);
    for a in &pic.arrows {
        let ghost = Ghost {
            x: a.from.0 - t / 2,
            y: a.from.1 - t / 2,
            size: panels.t,
            rgb: a.rgb,
        };
        if !pic.ghosts.contains(&ghost) {
            pic.ghosts.push(ghost);
        }
    }
}

/// The texel indices on a 2D or array texture's sampled panel: i in the ring above each
/// column, j in the ring left of each row, in grey, where no mark, arrow end or the sample
/// point is (a cube's ring is its neighbour faces, named by their tags). Returns a note when
/// the texels are too small for their numbers.
pub(super) fn axis_indices(pic: &mut Picture, panels: &Panels, tr: &GatherTrace) -> Option<String> {
    if tr.cube.is_some() {
        return None;
    }
    let (px, py) = panels.place(tr.storage_layer, 0, 0)?;
    let (w, h, t) = (panels.w as i64, panels.h as i64, panels.t as i64);
    let digits = (w.max(h) - 1).to_string().len() as i64;
    if (digits * CHAR_PX as i64 + 2) > t - 4 {
        return Some("texel indices left out: the texels are too small for their numbers".into());
    }
    let free = |cx: i64, cy: i64| {
        let inside = |(x, y): (i64, i64)| x >= cx && x < cx + t && y >= cy && y < cy + t;
        let marked = pic.marks.iter().any(|m| {
            let s = m.size as i64;
            m.x < cx + t && cx < m.x + s && m.y < cy + t && cy < m.y + s
        });
        let arrow = pic.arrows.iter().any(|a| inside(a.from) || inside(a.to));
        let sample = pic
            .sample
            .is_some_and(|(x, y)| inside((x.floor() as i64, y.floor() as i64)));
        !marked && !arrow && !sample
    };
    let mut add = |cx: i64, cy: i64, n: i64| {
        if free(cx, cy) {
            let text = n.to_string();
            let tw = text.len() as i64 * CHAR_PX as i64 + 2;
            pic.texts.push(Text {
                x: cx + (t - tw) / 2,
                y: cy + (t - CHAR_PX as i64 - 2) / 2,
                scale: 1,
                text,
                rgb: [120, 120, 120],
                boxed: false,
            });
        }
    };
    for i in 0..w {
        add(px + i * t, py - t, i);
    }
    for j in 0..h {
        add(px - t, py + j * t, j);
    }
    None
}

/// The texel values on a 2D or array texture's sampled panel: each texel's gathered component
/// (as explain prints it: `value(x, y)`), white on a dark box along the bottom of its square,
/// where it fits (at most the square's width less 4 px) and no mark, arrow or the sample point
/// is (the
/// footprint's values are in the legend; a value too long for its square is left out).
pub(super) fn cell_values(
    pic: &mut Picture,
    panels: &Panels,
    tr: &GatherTrace,
    value: impl Fn(u32, u32) -> String,
) {
    if tr.cube.is_some() {
        return;
    }
    let Some((px, py)) = panels.place(tr.storage_layer, 0, 0) else {
        return;
    };
    let t = panels.t as i64;
    let c = CHAR_PX as i64;
    let arrow_pixels: Vec<(i64, i64)> = pic.arrows.iter().flat_map(|a| a.pixels()).collect();
    for y in 0..panels.h {
        for x in 0..panels.w {
            let (cx, cy) = (px + x as i64 * t, py + y as i64 * t);
            let text = value(x, y);
            let tw = text.chars().count() as i64 * c + 2;
            if tw > t - 4 || c + 2 > t / 3 {
                continue;
            }
            let marked = pic.marks.iter().any(|m| {
                let s = m.size as i64;
                m.x < cx + t && cx < m.x + s && m.y < cy + t && cy < m.y + s
            });
            let sample = pic.sample.is_some_and(|(sx, sy)| {
                sx >= (cx - 8) as f64
                    && sx < (cx + t + 8) as f64
                    && sy >= (cy - 8) as f64
                    && sy < (cy + t + 8) as f64
            });
            let (bx, by) = (cx + (t - tw) / 2, cy + t - c - 4);
            let crossed = arrow_pixels
                .iter()
                .any(|&(x, y)| x >= bx && x < bx + tw && y >= by && y < by + c + 2);
            let ghosted = pic.ghosts.iter().any(|g| (g.x, g.y) == (cx, cy));
            if marked || sample || crossed || ghosted {
                continue;
            }
            pic.texts.push(Text {
                x: bx,
                y: by,
                scale: 1,
                text,
                rgb: [255, 255, 255],
                boxed: true,
            });
        }
    }
}
