//! How values, swizzles, compare functions and cube axes are written in the text.

use tld4_textures::{Class, CompareOp, Format, Rounding, Source, Swizzle, ValueKind};

/// A serde snake_case name (formats, kinds, address modes).
pub(super) fn serde_name<T: serde::Serialize + std::fmt::Debug>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|j| j.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{v:?}"))
}

/// A result or converted value: integer for UINT/SINT, else f32.
pub(super) fn show_value(bits: u32, kind: ValueKind) -> String {
    match kind {
        ValueKind::Uint => format!("{bits}"),
        ValueKind::Sint => format!("{}", bits as i32),
        _ => format!("{:?}", f32::from_bits(bits)),
    }
}

/// A converted component of `format`.
pub(super) fn show_component(bits: u32, format: Format, c: usize) -> String {
    match format.class(c) {
        Class::Uint => format!("{bits}"),
        Class::Sint => format!("{}", bits as i32),
        _ => format!("{:?}", f32::from_bits(bits)),
    }
}

/// Raw fields: integers, or hex for 16/32-bit float fields.
pub(super) fn show_raw(raw: &[u32; 4], format: Format) -> String {
    let parts: Vec<String> = (0..format.fields())
        .map(|i| {
            let bits = format.field_bits(i);
            if i < format.components() && format.class(i) == Class::Float && bits >= 16 {
                format!("{:#0w$x}", raw[i], w = bits as usize / 4 + 2)
            } else if format.field_is_signed(i) {
                let sh = 32 - bits;
                format!("{}", ((raw[i] << sh) as i32) >> sh)
            } else {
                format!("{}", raw[i])
            }
        })
        .collect();
    format!("({})", parts.join(", "))
}

pub(super) fn show_converted(conv: &[u32; 4], format: Format) -> String {
    let parts: Vec<String> = (0..format.components())
        .map(|c| show_component(conv[c], format, c))
        .collect();
    format!("({})", parts.join(", "))
}

/// Component names for a format's converted components.
pub(super) const RGBA: [&str; 4] = ["R", "G", "B", "A"];

pub(super) fn source_name(s: Source) -> &'static str {
    match s {
        Source::R => "R",
        Source::G => "G",
        Source::B => "B",
        Source::A => "A",
        Source::Zero => "ZERO",
        Source::One => "ONE",
    }
}

pub(super) fn swizzle_text(s: Swizzle) -> String {
    if s == Swizzle::IDENTITY {
        "identity (R, G, B, A)".into()
    } else {
        format!(
            "({})",
            s.0.iter()
                .map(|&x| source_name(x))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

pub(super) fn compare_symbol(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Never => "never",
        CompareOp::Less => "<",
        CompareOp::Equal => "==",
        CompareOp::LessOrEqual => "<=",
        CompareOp::Greater => ">",
        CompareOp::NotEqual => "!=",
        CompareOp::GreaterOrEqual => ">=",
        CompareOp::Always => "always",
    }
}

/// Vulkan "Cube Map Face Selection and Transformations": (major axis index, sign of sc's
/// source, sc's axis, sign of tc's source, tc's axis) per face in storage order; a unit test
/// checks that it reproduces `tld4_textures::cube::project`.
pub(super) const CUBE_TABLE: [(usize, f64, usize, f64, usize); 6] = [
    (0, -1.0, 2, -1.0, 1), // +X: sc = -z, tc = -y
    (0, 1.0, 2, -1.0, 1),  // -X: sc = +z, tc = -y
    (1, 1.0, 0, 1.0, 2),   // +Y: sc = +x, tc = +z
    (1, 1.0, 0, -1.0, 2),  // -Y: sc = +x, tc = -z
    (2, 1.0, 0, -1.0, 1),  // +Z: sc = +x, tc = -y
    (2, -1.0, 0, -1.0, 1), // -Z: sc = -x, tc = -y
];

pub(super) const AXES: [&str; 3] = ["x", "y", "z"];

pub(super) fn signed_axis(sign: f64, axis: usize) -> String {
    format!("{}{}", if sign < 0.0 { "-" } else { "+" }, AXES[axis])
}

/// Describes a fixed-point rounding mode.
pub(super) fn rounding_name(r: Rounding) -> &'static str {
    match r {
        Rounding::NearestEven => "round to nearest even",
        Rounding::TowardZero => "truncate toward zero",
        Rounding::Floor => "round down",
    }
}

/// A number in a few digits, for the legend.
pub(super) fn short(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cube_table_reproduces_project() {
        let dirs = [
            [1.0f32, 0.5, -0.25],
            [-1.0, 0.25, 0.5],
            [0.3, 1.0, -0.7],
            [0.3, -1.0, 0.7],
            [0.2, -0.4, 1.0],
            [-0.6, 0.1, -1.0],
            [0.9, -0.95, 0.2],
            [-0.5, 0.5, 0.49],
        ];
        for d in dirs {
            let (face, s, t) = tld4_textures::cube::project(d[0], d[1], d[2]);
            let (axis, ss, sa, ts, ta) = CUBE_TABLE[face as usize];
            let ma = (d[axis] as f64).abs();
            let s2 = (ss * d[sa] as f64 / ma + 1.0) * 0.5;
            let t2 = (ts * d[ta] as f64 / ma + 1.0) * 0.5;
            assert_eq!((s, t), (s2, t2), "{d:?} face {face}");
        }
    }
}
