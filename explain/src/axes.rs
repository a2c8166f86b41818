//! The u and v ticks of a 2D or array texture's sampled panel: the normalized coordinates
//! beside the texel indices, u above the ring of border texels (growing to the right), v left
//! of it (growing downwards: row 0, v = 0, is at the top), so the orientation the legend
//! states can be read off the picture; on a cube, s and t of the sampled face, above and left
//! of the unfolding.

use super::geometry::{Axis, Frac, Picture, Text, Tick, AXIS_RGB, CHAR_PX};

/// The length of a labelled tick and of an unlabelled one (at a texel edge), in pixels.
pub(super) const TICK_LONG: u32 = 6;
pub(super) const TICK_SHORT: u32 = 3;
/// The longest tick label, in characters (`0.25`, `3/16`): AXIS_LEFT holds it beside a tick.
const LABEL_CHARS: usize = 4;
/// The least gap between two labels of an axis, in pixels.
const LABEL_GAP: i64 = 6;

/// The distance from a panel's edge to its ticks' inner end: the ring of border texels (T
/// px), or the sampled layer's frame (6 px out) where texels are smaller, and 2 px.
pub(super) fn axis_gap(t: u32) -> i64 {
    t.max(6) as i64 + 2
}

/// Where the text of a label starts across its axis: the y of a u label's top, the x of a v
/// label's right end, for a panel whose left edge is `ox` and top edge `oy`, with texels of
/// `t` px.
pub(super) fn label_line(axis: Axis, ox: i64, oy: i64, t: u32) -> i64 {
    let out = axis_gap(t) + TICK_LONG as i64 + 1;
    match axis {
        Axis::U => oy - out - (CHAR_PX as i64 + 2),
        Axis::V => ox - out,
    }
}

/// A tick's label: 0 and 1; else a decimal (`decimal`: the set's denominator divides 100, so
/// each is exact in two places: 0.5, 0.25, 0.2) or the reduced fraction (1/3, 3/8); None when
/// longer than [`LABEL_CHARS`].
pub(super) fn label(f: Frac, decimal: bool) -> Option<String> {
    let g = gcd(f.num, f.den);
    let (n, d) = (f.num / g, f.den / g);
    let text = if n == 0 {
        "0".to_string()
    } else if n == d {
        "1".to_string()
    } else if decimal {
        let hundredths = format!("{:02}", n * 100 / d);
        format!("0.{}", hundredths.trim_end_matches('0'))
    } else {
        format!("{n}/{d}")
    };
    (text.len() <= LABEL_CHARS).then_some(text)
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

/// A labelled value of an axis: the fraction, its label, its pixel along the axis.
struct Labelled {
    f: Frac,
    text: String,
    at: i64,
}

/// The labels of an axis `len` px long of `n` texels: the values k/m, k = 0..m, for the m
/// among n (each texel edge), 4, 2 and 1 whose labels all fit, each at least LABEL_GAP px
/// from the next (measured as written across, on both axes, so that a square texture gets the
/// same labels on both), the most labels winning (the texel edges on a tie); 0 alone where
/// not even 0 and 1 fit.
fn labels(n: u32, len: i64) -> Vec<Labelled> {
    let width = |s: &str| s.len() as i64 * CHAR_PX as i64 + 2;
    let mut best: Vec<Labelled> = Vec::new();
    for m in [n, 4, 2, 1] {
        let decimal = 100 % m == 0;
        let set: Option<Vec<Labelled>> = (0..=m)
            .map(|k| {
                let f = Frac { num: k, den: m };
                label(f, decimal).map(|text| Labelled {
                    f,
                    text,
                    at: k as i64 * len / m as i64,
                })
            })
            .collect();
        let Some(set) = set else {
            continue;
        };
        let fits = set.windows(2).all(|p| {
            p[0].at + width(&p[0].text) / 2 + LABEL_GAP <= p[1].at - width(&p[1].text) / 2
        });
        if fits && set.len() > best.len() {
            best = set;
        }
    }
    if best.is_empty() {
        best.push(Labelled {
            f: Frac { num: 0, den: 1 },
            text: "0".into(),
            at: 0,
        });
    }
    best
}

/// Where an axis pair is drawn: the texture (or the sampled cube face) has its top-left
/// corner at (ox, oy), w x h texels of `t` px; the u ticks sit above the panel's top edge
/// `top`, the v ticks left of its left edge `left` (the texture's own edges; a cube's 3x3
/// unfolding's, the ticks over its middle column and row, the sampled face).
pub(super) struct AxisPlace {
    pub(super) ox: i64,
    pub(super) oy: i64,
    pub(super) top: i64,
    pub(super) left: i64,
    pub(super) w: u32,
    pub(super) h: u32,
    pub(super) t: u32,
    /// The axes' names: s and t on a cube face, else u and v.
    pub(super) cube: bool,
}

/// The ticks and labels of the u and v axes placed at `at`: a labelled tick at each of
/// [`labels`], a short tick at every other texel edge when texels are at least 4 px, a base
/// line along each axis, and the axis' name past its end.
pub(super) fn axis_ticks(pic: &mut Picture, place: &AxisPlace) {
    let &AxisPlace {
        ox,
        oy,
        top,
        left,
        w,
        h,
        t,
        cube,
    } = place;
    let names = if cube { ["s", "t"] } else { ["u", "v"] };
    for (axis, n) in [(Axis::U, w), (Axis::V, h)] {
        let len = (n * t) as i64;
        let gap = axis_gap(t);
        let line = label_line(axis, left, top, t);
        let labelled = labels(n, len);
        let mut ticks: Vec<(Frac, i64, Option<String>)> = labelled
            .iter()
            .map(|l| (l.f, l.at, Some(l.text.clone())))
            .collect();
        if t >= 4 {
            for k in 0..=n {
                let at = (k * t) as i64;
                if !labelled.iter().any(|l| l.at == at) {
                    ticks.push((Frac { num: k, den: n }, at, None));
                }
            }
        }
        let mut overhang = 0;
        for (f, at, text) in ticks {
            let tick_len = if text.is_some() {
                TICK_LONG
            } else {
                TICK_SHORT
            };
            let (x, y, tw, th) = match axis {
                Axis::U => (ox + at, top - gap - tick_len as i64, 1, tick_len),
                Axis::V => (left - gap - tick_len as i64, oy + at, tick_len, 1),
            };
            pic.ticks.push(Tick {
                axis,
                value: Some(f),
                label: text.clone(),
                x,
                y,
                w: tw,
                h: th,
            });
            if let Some(text) = text {
                let width = text.len() as i64 * CHAR_PX as i64 + 2;
                let (x, y) = match axis {
                    Axis::U => (ox + at - width / 2, line),
                    Axis::V => (line - width, oy + at - (CHAR_PX as i64 + 2) / 2),
                };
                overhang = overhang.max(match axis {
                    Axis::U => x + width - ox - len,
                    Axis::V => y + CHAR_PX as i64 + 2 - oy - len,
                });
                pic.texts.push(axis_text(x, y, text));
            }
        }
        // The base line, along the ticks' inner ends, and the axis' name past its end.
        let name_w = CHAR_PX as i64 + 2;
        let past = len + overhang.max(0) + 4;
        let (base, name) = match axis {
            Axis::U => (
                (ox, top - gap - 1, len.max(1) as u32, 1),
                axis_text(ox + past, line, names[0].into()),
            ),
            Axis::V => (
                (left - gap - 1, oy, 1, len.max(1) as u32),
                axis_text(line - name_w, oy + past, names[1].into()),
            ),
        };
        pic.ticks.push(Tick {
            axis,
            value: None,
            label: None,
            x: base.0,
            y: base.1,
            w: base.2,
            h: base.3,
        });
        pic.texts.push(name);
    }
}

fn axis_text(x: i64, y: i64, text: String) -> Text {
    Text {
        x,
        y,
        scale: 1,
        text,
        rgb: AXIS_RGB,
        boxed: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_exact_and_short() {
        let f = |num, den, decimal| label(Frac { num, den }, decimal);
        assert_eq!(f(0, 4, true).as_deref(), Some("0"));
        assert_eq!(f(4, 4, true).as_deref(), Some("1"));
        assert_eq!(f(2, 4, true).as_deref(), Some("0.5"));
        assert_eq!(f(1, 4, true).as_deref(), Some("0.25"));
        assert_eq!(f(3, 5, true).as_deref(), Some("0.6"));
        assert_eq!(f(1, 3, false).as_deref(), Some("1/3"));
        assert_eq!(f(2, 8, false).as_deref(), Some("1/4"));
        assert_eq!(f(3, 16, false).as_deref(), Some("3/16"));
        assert_eq!(f(11, 16, false), None);
    }

    #[test]
    fn each_axis_gets_one_set_of_labels_that_fits() {
        let texts = |n: u32, len: i64| -> Vec<String> {
            labels(n, len).into_iter().map(|l| l.text).collect()
        };
        // Few texels: each texel edge.
        assert_eq!(texts(4, 160), ["0", "0.25", "0.5", "0.75", "1"]);
        assert_eq!(texts(3, 120), ["0", "1/3", "2/3", "1"]);
        assert_eq!(
            texts(8, 320),
            ["0", "1/8", "1/4", "3/8", "1/2", "5/8", "3/4", "7/8", "1"]
        );
        // Many: quarters, halves, the ends, 0 alone.
        assert_eq!(texts(16, 480), ["0", "0.25", "0.5", "0.75", "1"]);
        assert_eq!(texts(2, 80), ["0", "0.5", "1"]);
        assert_eq!(texts(1, 40), ["0", "1"]);
        assert_eq!(texts(1, 1), ["0"]);
    }
}
