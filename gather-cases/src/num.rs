//! Numbers of the cases and scenario files, read from their decimal text so that an f32
//! field is rounded once (docs/sources.md, Decisions).

use std::fmt;

use serde::de;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A JSON number: an integer, a float (non-finite floats travel as the strings "NaN",
/// "inf" and "-inf"), or raw bits as a hex string (`"0x3f000000"`, the register-value form
/// of scenario files).
///
/// Numbers are read from their decimal text ([`Num::from_json_text`]), so an f32 field gets
/// the f32 nearest the decimal (Rust's `str::parse::<f32>` is correctly rounded), not the f32
/// nearest the f64 nearest it (docs/sources.md, Decisions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// An integer.
    Int(i64),
    /// A float: the f64 nearest the decimal, moved by one f64 ulp toward the f32 nearest the
    /// decimal where the two roundings disagree, so that `as f32` gives that f32.
    Float(f64),
    /// Raw bits: the field's bit pattern for texels, the f32 bits for coordinates.
    Bits(u32),
}

/// The forms a number takes, for error messages.
const NUM_FORMS: &str = "a number (7, -1, 0.5, 1e-3), \"NaN\", \"inf\", \"-inf\", or raw bits as 1 to 8 hex digits (\"0x3f000000\")";

/// A decimal's f32 and f64 values, from its text: the f64 nearest the decimal, unless the f32
/// nearest the f64 is not the f32 nearest the decimal (double rounding at an f32 midpoint),
/// in which case the f64 one ulp away toward the correct f32.
fn decimal_f64(text: &str) -> Option<f64> {
    let d: f64 = text.parse().ok()?;
    let f: f32 = text.parse().ok()?;
    if d.is_finite() && f.is_infinite() {
        return None;
    }
    if (d as f32).to_bits() == f.to_bits() || d.is_nan() {
        return Some(d);
    }
    // d sits on the midpoint between two f32: step one f64 ulp toward the right one.
    let toward = if (f as f64) > d { 1i64 } else { -1 };
    let step = |x: f64| {
        let b = x.to_bits() as i64;
        // positive numbers grow with their bits, negative ones shrink
        f64::from_bits((if x >= 0.0 { b + toward } else { b - toward }) as u64)
    };
    let n = if d == 0.0 { f as f64 } else { step(d) };
    Some(if (n as f32).to_bits() == f.to_bits() {
        n
    } else {
        f as f64
    })
}

impl Num {
    /// Reads a number from its JSON text (a number, or a string holding `NaN`, `inf`, `-inf`
    /// or raw bits `0x` + 1 to 8 hex digits). Integers must fit i64; decimals must fit f32
    /// (1e39 is an error, not infinity).
    pub fn from_json_text(text: &str) -> Result<Num, String> {
        let t = text.trim();
        if let Some(inner) = t.strip_prefix('"') {
            let s: String =
                serde_json::from_str(t).map_err(|_| format!("`{inner}`: expected {NUM_FORMS}"))?;
            return match s.as_str() {
                "NaN" | "nan" => Ok(Num::Float(f64::NAN)),
                "inf" | "+inf" | "Infinity" | "infinity" => Ok(Num::Float(f64::INFINITY)),
                "-inf" | "-Infinity" | "-infinity" => Ok(Num::Float(f64::NEG_INFINITY)),
                _ => match s.strip_prefix("0x") {
                    Some(h)
                        if !h.is_empty()
                            && h.len() <= 8
                            && h.bytes().all(|b| b.is_ascii_hexdigit()) =>
                    {
                        Ok(Num::Bits(
                            u32::from_str_radix(h, 16).map_err(|e| e.to_string())?,
                        ))
                    }
                    _ => Err(format!("`{s}` is not a number; expected {NUM_FORMS}")),
                },
            };
        }
        let is_number = t.starts_with(|c: char| c == '-' || c.is_ascii_digit());
        if !is_number {
            return Err(format!("`{t}` is not a number; expected {NUM_FORMS}"));
        }
        if t.contains(['.', 'e', 'E']) {
            return decimal_f64(t).map(Num::Float).ok_or_else(|| {
                format!("{t} is outside the f32 range (magnitude at most 3.4028235e38)")
            });
        }
        t.parse::<i64>()
            .map(Num::Int)
            .map_err(|_| format!("{t} does not fit a 64-bit integer; expected {NUM_FORMS}"))
    }

    /// As f32, correctly rounded from the decimal read (raw bits as f32 bits).
    pub fn as_f32(self) -> f32 {
        match self {
            Num::Int(i) => i as f32,
            Num::Float(f) => f as f32,
            Num::Bits(b) => f32::from_bits(b),
        }
    }

    /// As f64.
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
            Num::Bits(b) => f32::from_bits(b) as f64,
        }
    }

    /// As an integer, if it is one.
    pub fn as_int(self) -> Option<i64> {
        match self {
            Num::Int(i) => Some(i),
            Num::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
            Num::Bits(b) => Some(b as i64),
            Num::Float(_) => None,
        }
    }

    /// An f32, printed as the shortest decimal that reads back to it.
    pub fn from_f32(x: f32) -> Num {
        if x.is_finite() {
            // Rust prints the shortest round-trip decimal; the f64 nearest it prints the same way.
            Num::Float(x.to_string().parse::<f64>().unwrap_or(x as f64))
        } else {
            Num::Float(x as f64)
        }
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) if x.is_nan() => write!(f, "\"NaN\""),
            Num::Float(x) if x.is_infinite() => {
                write!(f, "\"{}inf\"", if *x < 0.0 { "-" } else { "" })
            }
            Num::Float(x) => write!(f, "{}", serde_json::Value::from(*x)),
            Num::Bits(b) => write!(f, "\"{b:#010x}\""),
        }
    }
}

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Num::Int(i) => s.serialize_i64(i),
            Num::Float(x) if x.is_nan() => s.serialize_str("NaN"),
            Num::Float(x) if x == f64::INFINITY => s.serialize_str("inf"),
            Num::Float(x) if x == f64::NEG_INFINITY => s.serialize_str("-inf"),
            Num::Float(x) => s.serialize_f64(x),
            Num::Bits(b) => s.serialize_str(&format!("{b:#010x}")),
        }
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // The number's own text, so that decimals are rounded once, to f32 (serde_json's
        // `raw_value`).
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        Num::from_json_text(raw.get()).map_err(de::Error::custom)
    }
}
