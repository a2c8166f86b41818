//! The picture's geometry: sizes, colours, marks and text runs, in pixels.
//!
//! Layout (pixels; the tests compute positions from these):
//! - a title band TITLE px high at the top, then a caption band CAPTION px high holding each
//!   panel's caption (at y = TITLE + 2), then AXIS_ABOVE px for the u ticks and RING px for a
//!   ring of border texels (T <= RING) above every panel: panels start at y = PANEL_TOP;
//! - each texel is a T x T square, T = texel_px(max(width, height));
//! - panels side by side: panel p's top-left corner is (MARGIN + p * P, PANEL_TOP), with the
//!   pitch P = [`panel_pitch`] (PW + MARGIN, or wider where a caption is wider than its panel),
//!   PW = W * T (a cube: 3 * W * T wide, 3 * W * T high); MARGIN = AXIS_LEFT + RING leaves
//!   room left of a panel for its ring and the v ticks' labels;
//! - texel (x, y) of a 2D or array panel is the square at (ox + x * T, oy + y * T); a cube
//!   panel is 3W x 3H texels: the sampled face in the middle (its texel (x, y) at
//!   (ox + (W + x) * T, oy + (H + y) * T)) and its four neighbours around it, each turned so
//!   the shared edge touches ([`unfold`]); the opposite face is not drawn;
//! - the sample point (u * W, v * H) in texels, after the sub-texel rounding, is the pixel
//!   (ox + u * W * T, oy + v * H * T);
//! - the u and v ticks (`axes`) of a 2D or array texture's sampled panel: u = a at
//!   x = ox + a * W * T, just above its ring (the tick's lower end [`axis_gap`] px above
//!   oy - T), v = b at y = oy + b * H * T, just left of its ring;
//! - the legend starts at oy + PH + UNDER (below the ring of border texels under a panel),
//!   or under the rounding inset (`inset`) when it reaches lower.

/// Title band height.
pub const TITLE: u32 = 32;
/// The largest texel, hence the widest ring of border texels around a panel.
pub const RING: u32 = 40;
/// Room above a panel's ring for the u ticks and their labels.
pub const AXIS_ABOVE: u32 = 24;
/// Room left of a panel's ring for the v ticks and their labels (4 characters).
pub const AXIS_LEFT: u32 = 48;
/// Margin left of each panel and under it (its ring of border texels, and the v ticks).
pub const MARGIN: u32 = AXIS_LEFT + RING;
/// Room under a panel before the legend: its ring of border texels and a gap.
pub const UNDER: u32 = RING + 8;
/// The caption band under the title.
pub const CAPTION: u32 = 12;
/// The y of every panel's top-left corner.
pub const PANEL_TOP: u32 = TITLE + CAPTION + AXIS_ABOVE + RING;
/// Pixels a character of scale-1 text takes (the 8x8 font).
pub const CHAR_PX: u32 = 8;

/// The distance between panels' left edges: the panel's width `pw` or its widest caption of
/// `caption_chars` characters (and a gap), whichever is wider, plus MARGIN.
pub fn panel_pitch(pw: u32, caption_chars: u32) -> u32 {
    pw.max(caption_chars * CHAR_PX + CHAR_PX) + MARGIN
}
/// Footprint outline band width (inside the texel square).
pub const OUTLINE: u32 = 3;
/// Outline colour of footprint texels.
pub const FOOTPRINT_RGB: [u8; 3] = [255, 0, 255];
/// The sample point's colour (a disc of radius 5 with a black rim).
pub const SAMPLE_RGB: [u8; 3] = [0, 255, 255];
/// The frame around the sampled layer or cube.
pub const SAMPLED_FRAME_RGB: [u8; 3] = [255, 210, 0];
/// An arrow from where an offset left a texel unmoved to where the offset put it (AOFFI,
/// PTP).
pub const OFFSET_ARROW_RGB: [u8; 3] = [0, 0, 170];
/// Background.
pub const BACKGROUND_RGB: [u8; 3] = [250, 250, 250];
/// Grid lines between texels.
pub const GRID_RGB: [u8; 3] = [90, 90, 90];
/// Legend and caption text.
pub const TEXT_RGB: [u8; 3] = [20, 20, 20];
/// Where texel (i, j) of `face`'s plane, extended one face size beyond each edge, lies on
/// the cube (`size` x `size` faces): the face itself, or the neighbour across the edge it is
/// past, `d` texels in from the shared edge, turned as the texture unit joins them
/// (`tld4_textures::cube::seamless_texel`, Vulkan "Cube Map Edge Handling", gives the texel
/// at d = 0 and the edge's direction; the depth axis is the neighbour's other axis); None past
/// two edges (no face lies there) or farther than one face.
pub(super) fn unfold(face: u32, i: i64, j: i64, size: i64) -> Option<(u32, i64, i64)> {
    use tld4_textures::cube::seamless_texel;
    let inside = |k: i64| (0..size).contains(&k);
    if inside(i) && inside(j) {
        return Some((face, i, j));
    }
    if !inside(i) && !inside(j) {
        return None;
    }
    // How far past the edge, and the position one texel past it.
    let depth = |k: i64| if k < 0 { -1 - k } else { k - size };
    let ring = |k: i64| if k < 0 { -1 } else { size };
    let (d, i0, j0) = if inside(i) {
        (depth(j), i, ring(j))
    } else {
        (depth(i), ring(i), j)
    };
    if d >= size {
        return None;
    }
    let (nf, x, y) = seamless_texel(face, i0, j0, size)?;
    if d == 0 {
        return Some((nf, x, y));
    }
    // The neighbour's axis along the shared edge changes with the position along it; the
    // other one (0 or size - 1 at the edge) goes inward. d > 0 needs size > 1.
    let (i1, j1) = if inside(i) {
        (if i + 1 < size { i + 1 } else { i - 1 }, j0)
    } else {
        (i0, if j + 1 < size { j + 1 } else { j - 1 })
    };
    let (_, x1, _) = seamless_texel(face, i1, j1, size)?;
    let inward = |v: i64| if v == 0 { d } else { v - d };
    Some(if x1 == x {
        (nf, inward(x), y)
    } else {
        (nf, x, inward(y))
    })
}

/// The most array layers (or cubes) drawn: a window around the sampled one.
pub const MAX_PANELS: u32 = 8;
/// The most cubes of a cube array drawn.
pub const MAX_CUBES: u32 = 4;
/// The largest texture side drawn (a larger texture is refused with an error).
pub const MAX_DRAWN: u32 = 256;

/// Texel size in pixels for a texture whose larger side is `n` texels: 40 (RING) up to 12
/// texels, else 480 / n, at least 1.
pub fn texel_px(n: u32) -> u32 {
    if n <= 12 {
        RING
    } else {
        (480 / n).max(1)
    }
}

/// How a footprint texel is outlined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkStyle {
    /// Read where the footprint put it: a solid outline.
    Solid,
    /// Moved by wrapping or a cube face hop: a dashed outline.
    Dashed,
    /// The border colour or a cube corner (no texel): hatched, drawn outside the texture.
    Hatched,
}

/// A ghost: the square (top-left `x`, `y`, `size` px) where the footprint put a texel before
/// an offset or an address mode moved it, outlined dashed in `rgb` (its arrow's colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ghost {
    pub(super) x: i64,
    pub(super) y: i64,
    pub(super) size: u32,
    pub(super) rgb: [u8; 3],
}

/// The ghost outline's width in pixels, and its dashes (on, then off, along each edge).
pub(super) const GHOST_BAND: u32 = 2;
pub(super) const GHOST_DASH: (u32, u32) = (4, 4);

/// True where pixel (dx, dy) of a ghost of `size` px lies on a dash of its outline.
pub(super) fn ghost_at(dx: u32, dy: u32, size: u32) -> bool {
    let b = GHOST_BAND.min(size / 4).max(1);
    let horizontal = dy < b || dy >= size - b;
    let vertical = dx < b || dx >= size - b;
    if !horizontal && !vertical {
        return false;
    }
    let along = if horizontal { dx } else { dy };
    along % (GHOST_DASH.0 + GHOST_DASH.1) < GHOST_DASH.0
}

/// An arrow between two pixel positions, its head at `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Arrow {
    pub(super) from: (i64, i64),
    pub(super) to: (i64, i64),
    pub(super) rgb: [u8; 3],
}

impl Arrow {
    /// The arrow's strokes, each from one point to another: the shaft, then the head's two
    /// 9 px strokes at 30 degrees either side of it. None for an arrow shorter than 1 px.
    pub(super) fn strokes(&self) -> Vec<Stroke> {
        let (fx, fy) = (self.from.0 as f64, self.from.1 as f64);
        let (tx, ty) = (self.to.0 as f64, self.to.1 as f64);
        let len = ((tx - fx).powi(2) + (ty - fy).powi(2)).sqrt();
        if len < 1.0 {
            return Vec::new();
        }
        let (ux, uy) = ((tx - fx) / len, (ty - fy) / len);
        let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
        let mut out = vec![Stroke {
            from: (fx, fy),
            to: (tx, ty),
        }];
        for side in [-1.0, 1.0] {
            // The shaft's direction turned by +-30 degrees, pointing back from the head.
            let (bx, by) = (-(ux * c - side * uy * s), -(side * ux * s + uy * c));
            out.push(Stroke {
                from: (tx, ty),
                to: (tx + 9.0 * bx, ty + 9.0 * by),
            });
        }
        out
    }

    /// The pixels of the arrow's strokes, 2 px wide.
    pub(super) fn pixels(&self) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        for Stroke {
            from: (ax, ay),
            to: (bx, by),
        } in self.strokes()
        {
            let n = ((bx - ax).abs().max((by - ay).abs()).ceil() as i64).max(1);
            for k in 0..=n {
                let f = k as f64 / n as f64;
                let (x, y) = (ax + (bx - ax) * f, ay + (by - ay) * f);
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    out.push((x.floor() as i64 + dx, y.floor() as i64 + dy));
                }
            }
        }
        out
    }
}

/// A straight stroke of an [`Arrow`], in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Stroke {
    pub(super) from: (f64, f64),
    pub(super) to: (f64, f64),
}

/// A footprint texel mark.
#[derive(Clone, Debug)]
pub(super) struct Mark {
    pub(super) x: i64,
    pub(super) y: i64,
    pub(super) size: u32,
    pub(super) k: usize,
    pub(super) style: MarkStyle,
    /// The colour inside the mark, for a border texel (the border colour as the texels are
    /// coloured); None leaves what is under it.
    pub(super) fill: Option<[u8; 3]>,
    /// The label's scale ([`assign_labels`]; 0: no label).
    pub(super) label: u32,
}

/// Gives each mark the largest label scale, up to [`label_scale`] of its size, whose label box
/// overlaps no earlier mark's label: marks on one square (all four texels clamped to one, or
/// two offsets reaching one border texel) have their labels side by side, smaller where
/// needed, and none where none fits.
pub(super) fn assign_labels(marks: &mut [Mark]) {
    let mut placed: Vec<(i64, i64, i64)> = Vec::new();
    for m in marks.iter_mut() {
        m.label = (1..=label_scale(m.size))
            .rev()
            .find(|&ls| {
                let (x, y, s) = label_box(m, ls as i64);
                placed
                    .iter()
                    .all(|&(px, py, ps)| x + s <= px || px + ps <= x || y + s <= py || py + ps <= y)
            })
            .unwrap_or(0);
        if m.label > 0 {
            placed.push(label_box(m, m.label as i64));
        }
    }
}

/// Where a mark's label goes: its top-left corner and side, inside the mark's corner given
/// by [`label_corner`], clear of the outline.
pub(super) fn label_box(m: &Mark, label_scale: i64) -> (i64, i64, i64) {
    let (right, bottom) = label_corner(m.k);
    let size = 8 * label_scale + 2;
    let inset = OUTLINE as i64 + 1;
    let ms = m.size as i64;
    let lx = if right {
        m.x + ms - inset - size
    } else {
        m.x + inset
    };
    let ly = if bottom {
        m.y + ms - inset - size
    } else {
        m.y + inset
    };
    (lx, ly, size)
}

/// A text run.
#[derive(Clone, Debug)]
pub(super) struct Text {
    pub(super) x: i64,
    pub(super) y: i64,
    pub(super) scale: u32,
    pub(super) text: String,
    pub(super) rgb: [u8; 3],
    pub(super) boxed: bool,
}

/// A filled rectangle of a panel (a depth compared, an F16 half), drawn under its text.
#[derive(Clone, Debug)]
pub(super) struct Swatch {
    pub(super) x: i64,
    pub(super) y: i64,
    pub(super) w: u32,
    pub(super) h: u32,
    pub(super) rgb: [u8; 3],
}

/// A mark of the key (16 px square): its top-left corner, style and fill (as [`Mark::fill`]).
#[derive(Clone, Debug)]
pub(super) struct KeyMark {
    pub(super) x: i64,
    pub(super) y: i64,
    pub(super) style: MarkStyle,
    pub(super) fill: Option<[u8; 3]>,
}

/// Everything drawn, in pixels.
pub(super) struct Picture {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) t: u32,
    pub(super) cells: Vec<(i64, i64, [u8; 3])>,
    pub(super) frames: Vec<(i64, i64, u32, u32)>,
    pub(super) marks: Vec<Mark>,
    pub(super) sample: Option<(f64, f64)>,
    pub(super) texts: Vec<Text>,
    /// The key's marks.
    pub(super) key: Vec<KeyMark>,
    pub(super) key_sample: Option<(i64, i64)>,
    /// The panels' cells (depth compare, F16 halves), under the legend.
    pub(super) swatches: Vec<Swatch>,
    /// Arrows: an offset's move ([`OFFSET_ARROW_RGB`]) and an address mode's redirection
    /// ([`FOOTPRINT_RGB`]), from texel centre to texel centre.
    pub(super) arrows: Vec<Arrow>,
    /// Ghosts: where the footprint put a texel before an offset moved it or an address mode
    /// redirected it (at an arrow's start), drawn as a dashed outline in the arrow's colour.
    pub(super) ghosts: Vec<Ghost>,
    /// What the picture leaves out and why (printed with the `picture:` lines).
    pub(super) notes: Vec<String>,
    /// The u and v ticks of the sampled 2D or array panel (`axes`).
    pub(super) ticks: Vec<Tick>,
    /// The exact, unrounded sample point (u * W, v * H before the sub-texel rounding), in
    /// pixels, when the rounding decided the footprint: drawn faint and hollow.
    pub(super) unrounded: Option<(f64, f64)>,
    /// The magnified inset around the sample point, when the rounding decided the footprint.
    pub(super) inset: Option<Inset>,
}

/// Which normalized coordinate a tick measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Axis {
    /// u (s on a cube face): across, growing to the right.
    U,
    /// v (t): down, growing downwards (row 0 at the top).
    V,
}

/// A fraction num / den of the texture's width or height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Frac {
    pub(super) num: u32,
    pub(super) den: u32,
}

/// A filled rectangle of an axis: a tick at `value` (u or v = value), or the axis' base line
/// (`value` None).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Tick {
    pub(super) axis: Axis,
    pub(super) value: Option<Frac>,
    /// The label written beside a long tick (None: a short tick, or the base line).
    pub(super) label: Option<String>,
    pub(super) x: i64,
    pub(super) y: i64,
    pub(super) w: u32,
    pub(super) h: u32,
}

/// The colour of the u and v ticks, their labels and the axis lines.
pub const AXIS_RGB: [u8; 3] = [30, 100, 160];
/// The faint hollow disc of the unrounded sample point.
pub(super) const UNROUNDED_RGB: [u8; 3] = [120, 200, 200];
/// The hollow disc's inner and outer radius in a panel (around the sample disc's rim).
pub(super) const UNROUNDED_RING: (f64, f64) = (8.0, 10.0);

/// True where a pixel whose centre lies (dx, dy) from a hollow disc's centre is on the disc
/// of radii `ring` (inner, outer).
pub(super) fn on_ring(dx: f64, dy: f64, ring: (f64, f64)) -> bool {
    let d = (dx * dx + dy * dy).sqrt();
    d >= ring.0 && d <= ring.1
}

/// The magnified inset around the sample point: the 1/2^bits-texel lattice the sub-texel
/// rounding snaps to, `step` px a lattice step, centred on the rounded point (lattice point
/// `centre`), with the exact point and the texel-centre lines that decided i0 or j0.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Inset {
    /// The box's top-left corner and side.
    pub(super) x: i64,
    pub(super) y: i64,
    pub(super) size: u32,
    /// Pixels per lattice step.
    pub(super) step: u32,
    /// The lattice's fractional bits (a step is 2^-bits texel).
    pub(super) bits: u32,
    /// The rounded point, in lattice steps (the fixed-point values n_u, n_v).
    pub(super) centre: (i64, i64),
    /// The exact point u * W, v * H, in texels.
    pub(super) exact: (f64, f64),
    /// The texel-centre lines that decided the origin: (axis, position in texels).
    pub(super) lines: Vec<(Axis, f64)>,
}

impl Inset {
    /// The pixel of the point (a, b) in texels (u * W, v * H).
    pub(super) fn pixel(&self, a: f64, b: f64) -> (f64, f64) {
        let scale = (1u64 << self.bits) as f64;
        let half = self.size as f64 / 2.0;
        let step = self.step as f64;
        (
            self.x as f64 + half + (a * scale - self.centre.0 as f64) * step,
            self.y as f64 + half + (b * scale - self.centre.1 as f64) * step,
        )
    }

    /// The lattice steps drawn either side of the centre.
    pub(super) fn reach(&self) -> i64 {
        (self.size / self.step / 2) as i64
    }
}

/// The inset's lattice step in pixels, and the steps drawn either side of the rounded point
/// (the exact point is at most half a step from it).
pub(super) const INSET_STEP: u32 = 48;
pub(super) const INSET_REACH: u32 = 2;
/// The inset's hollow exact point (radii) and the rounded point's filled disc (radius).
pub(super) const INSET_RING: (f64, f64) = (4.0, 6.0);
pub(super) const INSET_DISC: i64 = 4;

impl Picture {
    /// Nothing drawn yet, with texels of `t` px.
    pub(super) fn empty(t: u32) -> Self {
        Picture {
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
            arrows: Vec::new(),
            ghosts: Vec::new(),
            notes: Vec::new(),
            ticks: Vec::new(),
            unrounded: None,
            inset: None,
        }
    }
}

/// True where pixel (dx, dy) of a T x T mark lies on its outline band.
pub(super) fn on_edge(dx: u32, dy: u32, t: u32) -> bool {
    let band = OUTLINE.min(t / 4).max(1);
    dx < band || dy < band || dx >= t - band || dy >= t - band
}

/// The hatching's colour over a border texel filled with `fill`: black on light colours,
/// white on dark ones, so the border colour stays visible under it.
pub(super) fn hatch_rgb(fill: [u8; 3]) -> [u8; 3] {
    let luma = 299 * fill[0] as u32 + 587 * fill[1] as u32 + 114 * fill[2] as u32;
    if luma > 140_000 {
        [0, 0, 0]
    } else {
        [255, 255, 255]
    }
}

/// True where a mark's outline covers pixel (dx, dy) of its T x T square.
pub(super) fn outline_at(style: MarkStyle, dx: u32, dy: u32, t: u32) -> bool {
    let band = OUTLINE.min(t / 4).max(1);
    if !on_edge(dx, dy, t) {
        return style == MarkStyle::Hatched && (dx + dy) % 8 < 2;
    }
    match style {
        MarkStyle::Solid | MarkStyle::Hatched => true,
        // Dashes of 6 px on, 4 px off, along each edge from the square's corners.
        MarkStyle::Dashed => {
            let along = if dy < band || dy >= t - band { dx } else { dy };
            along % 10 < 6
        }
    }
}

/// The label's corner for result k: x bottom-left, y bottom-right, z top-right, w top-left,
/// as the footprint places them (j grows downwards).
pub(super) fn label_corner(k: usize) -> (bool, bool) {
    // (right, bottom)
    match k {
        0 => (false, true),
        1 => (true, true),
        2 => (true, false),
        _ => (false, false),
    }
}

/// The label scale for texel size t (0: no label).
pub(super) fn label_scale(t: u32) -> u32 {
    if t >= 32 {
        2
    } else if t >= 14 {
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outlines_and_dashes() {
        assert!(outline_at(MarkStyle::Solid, 0, 20, 40));
        assert!(outline_at(MarkStyle::Solid, 20, 39, 40));
        assert!(!outline_at(MarkStyle::Solid, 20, 20, 40));
        assert!(outline_at(MarkStyle::Dashed, 5, 0, 40));
        assert!(!outline_at(MarkStyle::Dashed, 7, 0, 40));
        assert!(outline_at(MarkStyle::Hatched, 20, 20, 40));
    }

    #[test]
    fn the_unfolding_joins_each_neighbour_as_the_texture_unit_does() {
        use std::collections::HashSet;
        use tld4_textures::cube::seamless_texel;
        // Texels A and B touch on the cube when B is one step from A, on A's face or across
        // its edge (the texture unit's own rule).
        let touch = |a: (u32, i64, i64), b: (u32, i64, i64), n: i64| {
            [(1, 0), (-1, 0), (0, 1), (0, -1)]
                .iter()
                .any(|&(dx, dy)| seamless_texel(a.0, a.1 + dx, a.2 + dy, n) == Some(b))
        };
        for n in 1..=5i64 {
            for face in 0..6u32 {
                let mut seen = HashSet::new();
                for j in -n..2 * n {
                    for i in -n..2 * n {
                        let Some(a) = unfold(face, i, j, n) else {
                            continue;
                        };
                        assert!(seen.insert(a), "n {n} face {face}: {a:?} drawn twice");
                        // The first ring is the texture unit's rule itself.
                        let ring = |k: i64| k == -1 || k == n;
                        if ring(i) || ring(j) {
                            assert_eq!(Some(a), seamless_texel(face, i, j, n));
                        }
                        for (di, dj) in [(1, 0), (0, 1)] {
                            if let Some(b) = unfold(face, i + di, j + dj, n) {
                                assert!(
                                    touch(a, b, n),
                                    "n {n} face {face}: ({i},{j}) {a:?} and its neighbour {b:?} do not touch"
                                );
                            }
                        }
                    }
                }
                // The face and its four neighbours, whole; the opposite face not at all.
                assert_eq!(seen.len() as i64, 5 * n * n, "n {n} face {face}");
                assert!(seen.iter().all(|&(f, _, _)| f != face ^ 1));
            }
        }
    }
}
