//! The rounding inset: when the sub-texel rounding decided the footprint (the exact i0 or j0
//! differs from the one the unit uses), a magnified view beside the panels of the 1/256-texel
//! lattice around the sample point, as the teaching page's inset draws it
//! (`src/serve/page/app.js`, renderZoom): the exact u * W, v * H as a faint hollow disc, the
//! lattice point it was rounded to filled, and the texel-centre line between them that decided
//! i0 (or j0). The rounding itself is an open question (docs/sources.md, Open questions).

use tld4_textures::trace::{AxisTrace, GatherTrace};

use super::geometry::{Axis, Inset, Picture, Text, CHAR_PX, INSET_REACH, INSET_STEP, TEXT_RGB};
use super::show::short;

/// The line height of the inset's words, under its box.
const LINE: i64 = CHAR_PX as i64 + 4;

/// The texel-centre line that decided an axis' origin: the rounding put the point on one
/// side of c + 0.5 and exact arithmetic on the other, c the larger of the two origins + 1
/// (i0 = floor(x - 0.5) changes from c - 1 to c at x = c + 0.5).
pub(super) fn deciding_line(a: &AxisTrace) -> Option<f64> {
    a.rounding_decided()
        .then(|| a.origin.max(a.exact_origin) as f64 + 0.5)
}

/// Adds the inset with its top-left corner at (x, y) when the rounding decided i0 or j0 (and
/// both axes were rounded to a lattice); returns the y under its words.
pub(super) fn rounding_inset(
    pic: &mut Picture,
    tr: &GatherTrace,
    x: i64,
    y: i64,
    cube: bool,
) -> Option<i64> {
    let (Some((nu, bits, _)), Some((nv, bits_v, _))) = (tr.u.fixed, tr.v.fixed) else {
        return None;
    };
    let lines: Vec<(Axis, f64)> = [(Axis::U, &tr.u), (Axis::V, &tr.v)]
        .into_iter()
        .filter_map(|(axis, a)| deciding_line(a).map(|c| (axis, c)))
        .collect();
    if lines.is_empty() || bits != bits_v || !tr.u.texels.is_finite() || !tr.v.texels.is_finite() {
        return None;
    }
    let size = (2 * INSET_REACH + 1) * INSET_STEP;
    pic.inset = Some(Inset {
        x,
        y,
        size,
        step: INSET_STEP,
        bits,
        centre: (nu, nv),
        exact: (tr.u.texels, tr.v.texels),
        lines: lines.clone(),
    });
    let (un, vn) = if cube { ("s*W", "t*H") } else { ("u*W", "v*H") };
    let mut words = vec![
        format!("zoom: 1/{}-texel lattice", 1u64 << bits),
        format!("hollow: exact {un}, {vn}"),
        "filled: rounded (used)".to_string(),
    ];
    for (axis, c) in lines {
        let (name, origin) = match axis {
            Axis::U => (un, "i0"),
            Axis::V => (vn, "j0"),
        };
        let k = c.floor() as i64;
        words.push(format!(
            "line {name} = {}: {origin} {}|{k}",
            short(c),
            k - 1
        ));
    }
    let mut ty = y + size as i64 + 4;
    for text in words {
        pic.texts.push(Text {
            x,
            y: ty,
            scale: 1,
            text,
            rgb: TEXT_RGB,
            boxed: false,
        });
        ty += LINE;
    }
    Some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tld4_textures::Rounding;

    fn axis(texels: f64, fixed: i64, exact_origin: i64, origin: i64) -> AxisTrace {
        AxisTrace {
            coord: texels / 4.0,
            size: 4,
            scale: 4,
            texels,
            fixed: Some((fixed, 8, Rounding::NearestEven)),
            exact_origin,
            origin,
        }
    }

    #[test]
    fn the_deciding_line_lies_between_the_exact_and_the_rounded_point() {
        // 2.499 rounds up to 640/256 = 2.5: i0 goes from 1 to 2 at 2.5.
        assert_eq!(deciding_line(&axis(2.499, 640, 1, 2)), Some(2.5));
        // Nothing decided: no line.
        assert_eq!(deciding_line(&axis(2.0, 512, 1, 1)), None);
    }
}
