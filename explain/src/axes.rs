//! The u and v ticks of a 2D or array texture's sampled panel: the normalized coordinates
//! beside the texel indices, u above the ring of border texels (growing to the right), v left
//! of it (growing downwards: row 0, v = 0, is at the top), so the orientation the legend
//! states can be read off the picture.

use super::geometry::{Axis, Frac, Picture, Text, Tick, AXIS_RGB, CHAR_PX};

/// The length of a labelled tick and of an unlabelled one (at a texel edge), in pixels.
pub(super) const TICK_LONG: u32 = 6;
pub(super) const TICK_SHORT: u32 = 3;
/// The longest tick label, in characters (`0.25`, `3/16`): AXIS_LEFT holds it beside a tick.
const LABEL_CHARS: usize = 4;
/// The least gap between two labels of an axis, in pixels.
const LABEL_GAP: i64 = 2;

/// The distance from a panel's edge to its ticks' inner end: the ring of border texels (T
/// px), or the sampled layer's frame (6 px out) where texels are smaller, and 2 px.
pub(super) fn axis_gap(t: u32) -> i64 {
    t.max(6) as i64 + 2
}

/// Where the text of a label starts across its axis: the y of a u label's top, the x of a v
/// label's right end, for a panel at (ox, oy) with texels of `t` px.
pub(super) fn label_line(axis: Axis, ox: i64, oy: i64, t: u32) -> i64 {
    let out = axis_gap(t) + TICK_LONG as i64 + 1;
    match axis {
        Axis::U => oy - out - (CHAR_PX as i64 + 2),
        Axis::V => ox - out,
    }
}

/// A tick's label: 0 and 1; a decimal when exact in two places (0.5, 0.25, 0.2); else the
/// reduced fraction (1/3, 3/8); None when longer than [`LABEL_CHARS`].
pub(super) fn label(f: Frac) -> Option<String> {
    let g = gcd(f.num, f.den);
    let (n, d) = (f.num / g, f.den / g);
    let text = if n == 0 {
        "0".to_string()
    } else if n == d {
        "1".to_string()
    } else if 100 % d == 0 {
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

/// The values ticked on an axis of `n` texels, most important first: the texel edges k/n by
/// their reduced denominator (0 and 1, the middle, quarters, ...), then the middle of an odd
/// axis (1/2, no texel edge).
fn candidates(n: u32) -> Vec<Frac> {
    let mut all: Vec<Frac> = (0..=n).map(|k| Frac { num: k, den: n }).collect();
    if n % 2 == 1 {
        // The middle is no texel edge: ticked too (as 1/2 of 2n).
        all.push(Frac { num: n, den: 2 * n });
    }
    // Texel edges before the middle of an odd axis (which would crowd 1/3 and 2/3 out).
    let reduced = |f: &Frac| f.den / gcd(f.num, f.den);
    all.sort_by_key(|f| (f.den != n, reduced(f), f.num * 2 * n / f.den));
    all
}

/// The ticks and labels of the u and v axes of the panel at (ox, oy), w x h texels of `t` px:
/// a labelled tick where a label fits without touching another (labels are placed most
/// important first: 0, 1, 1/2, 1/4, ...), a short tick at every other texel edge when texels
/// are at least 4 px, a base line along each axis, and the axis' name past its end.
pub(super) fn axis_ticks(pic: &mut Picture, ox: i64, oy: i64, w: u32, h: u32, t: u32) {
    for (axis, n) in [(Axis::U, w), (Axis::V, h)] {
        let len = (n * t) as i64;
        let gap = axis_gap(t);
        let line = label_line(axis, ox, oy, t);
        // Labels placed so far, as intervals along the axis.
        let mut placed: Vec<(i64, i64)> = Vec::new();
        for f in candidates(n) {
            let at = (f.num as i64 * len) / f.den as i64;
            let text = label(f);
            // The label's extent along the axis: centred on the tick, LABEL_GAP px apart.
            let extent = |text: &str| -> (i64, i64) {
                let size = match axis {
                    Axis::U => text.len() as i64 * CHAR_PX as i64 + 2,
                    Axis::V => CHAR_PX as i64 + 2,
                };
                (at - size / 2, at - size / 2 + size)
            };
            let fits = |text: &str| {
                let (a, b) = extent(text);
                placed
                    .iter()
                    .all(|&(c, d)| b + LABEL_GAP <= c || d + LABEL_GAP <= a)
            };
            let text = text.filter(|s| fits(s));
            let long = text.is_some();
            if !long && (t < 4 || f.den != n) {
                continue;
            }
            let tick_len = if long { TICK_LONG } else { TICK_SHORT };
            pic.ticks.push(match axis {
                Axis::U => Tick {
                    axis,
                    value: Some(f),
                    x: ox + at,
                    y: oy - gap - tick_len as i64,
                    w: 1,
                    h: tick_len,
                },
                Axis::V => Tick {
                    axis,
                    value: Some(f),
                    x: ox - gap - tick_len as i64,
                    y: oy + at,
                    w: tick_len,
                    h: 1,
                },
            });
            if let Some(text) = text {
                let (a, b) = extent(&text);
                placed.push((a, b));
                let tw = text.len() as i64 * CHAR_PX as i64 + 2;
                let (x, y) = match axis {
                    Axis::U => (ox + a, line),
                    Axis::V => (line - tw, oy + a),
                };
                pic.texts.push(axis_text(x, y, text));
            }
        }
        // The base line, along the ticks' inner ends, and the axis' name past its end.
        let name_w = CHAR_PX as i64 + 2;
        let (base, name) = match axis {
            Axis::U => (
                Tick {
                    axis,
                    value: None,
                    x: ox,
                    y: oy - gap - 1,
                    w: len.max(1) as u32,
                    h: 1,
                },
                axis_text(
                    ox + len + placed.iter().map(|p| p.1 - len).max().unwrap_or(0).max(0) + 4,
                    line,
                    "u".into(),
                ),
            ),
            Axis::V => (
                Tick {
                    axis,
                    value: None,
                    x: ox - gap - 1,
                    y: oy,
                    w: 1,
                    h: len.max(1) as u32,
                },
                axis_text(
                    line - name_w,
                    oy + len + placed.iter().map(|p| p.1 - len).max().unwrap_or(0).max(0) + 4,
                    "v".into(),
                ),
            ),
        };
        pic.ticks.push(base);
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
        let f = |num, den| label(Frac { num, den });
        assert_eq!(f(0, 4).as_deref(), Some("0"));
        assert_eq!(f(4, 4).as_deref(), Some("1"));
        assert_eq!(f(2, 4).as_deref(), Some("0.5"));
        assert_eq!(f(1, 4).as_deref(), Some("0.25"));
        assert_eq!(f(3, 5).as_deref(), Some("0.6"));
        assert_eq!(f(1, 3).as_deref(), Some("1/3"));
        assert_eq!(f(3, 16).as_deref(), Some("3/16"));
        assert_eq!(f(11, 16), None);
        assert_eq!(f(1, 8).as_deref(), Some("1/8"));
    }

    #[test]
    fn candidates_put_the_ends_and_the_middle_first() {
        // (the middle of an odd axis comes after its texel edges)
        let first = |n: u32| -> Vec<(u32, u32)> {
            candidates(n)
                .into_iter()
                .take(3)
                .map(|f| (f.num, f.den))
                .collect()
        };
        assert_eq!(first(4), [(0, 4), (4, 4), (2, 4)]);
        assert_eq!(first(3), [(0, 3), (3, 3), (1, 3)]);
        assert_eq!(first(1), [(0, 1), (1, 1), (1, 2)]);
    }
}
