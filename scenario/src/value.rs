//! Register values, lane selectors, register names and tolerances: the forms a scenario
//! writes, each read strictly (no signs, no leading zeros, no silent conversions) with an
//! error that names the valid forms (docs/sources.md, Decisions).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use tld4_emu::WARP_SIZE;
use tld4_textures::Handle;

use crate::error::{err, ScenarioError};

/// The forms of a register value, for error messages.
pub const VALUE_FORMS: &str = "a float (0.5; a JSON number with a fraction or exponent, within the f32 range), an integer -2147483648..4294967295 (7, -1), a hex string of 1 to 8 digits (\"0x3f800000\"), \"inf\", \"-inf\", \"nan\" or a handle name";

/// The forms of a lane selector, for error messages.
pub const LANE_FORMS: &str =
    "\"all\", a lane number 0..31, \"A-B\" (A <= B), or a comma list of those (\"0-3,31\")";

/// A decimal number with no sign and no leading zero, at most `max`.
fn decimal(s: &str, max: u32) -> Option<u32> {
    let plain =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if !plain || s.len() > 10 {
        return None;
    }
    s.parse::<u64>()
        .ok()
        .filter(|&n| n <= max as u64)
        .map(|n| n as u32)
}

/// A set of lanes of the warp (bit `l` for lane `l`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lanes(pub u32);

impl Lanes {
    /// Every lane.
    pub const ALL: Lanes = Lanes(u32::MAX);

    /// Lane `n` (0..31).
    pub fn one(n: usize) -> Result<Lanes, ScenarioError> {
        Lanes::range(n, n)
    }

    /// Lanes `a..=b` (`a <= b <= 31`).
    pub fn range(a: usize, b: usize) -> Result<Lanes, ScenarioError> {
        if a > b || b >= WARP_SIZE {
            return Err(err(
                "lanes",
                format!("{a}-{b} is not a lane range; expected {LANE_FORMS}"),
            ));
        }
        Ok(Lanes((u32::MAX >> (31 - b)) & (u32::MAX << a)))
    }

    /// Parses a selector: `all`, `N`, `A-B`, or a comma list of those.
    pub fn parse(s: &str) -> Result<Lanes, ScenarioError> {
        let bad = || {
            err(
                "lanes",
                format!("`{s}` is not a lane selector; expected {LANE_FORMS}"),
            )
        };
        let mut mask = 0u32;
        for part in s.split(',').map(str::trim) {
            if part == "all" {
                mask = u32::MAX;
                continue;
            }
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let a = decimal(a.trim(), 31).ok_or_else(bad)?;
            let b = decimal(b.trim(), 31).ok_or_else(bad)?;
            mask |= Lanes::range(a as usize, b as usize).map_err(|_| bad())?.0;
        }
        Ok(Lanes(mask))
    }

    /// The lanes in the set, in order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..WARP_SIZE).filter(move |l| self.0 >> l & 1 != 0)
    }
}

/// A register or predicate of a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Loc {
    /// R0..R254.
    Reg(u8),
    /// P0..P6.
    Pred(u8),
}

impl Loc {
    /// Reads `R0`..`R254` or `P0`..`P6` (decimal, no sign, no leading zero).
    pub fn parse(name: &str) -> Result<Loc, ScenarioError> {
        if let Some(n) = name.strip_prefix('R').and_then(|s| decimal(s, 254)) {
            return Ok(Loc::Reg(n as u8));
        }
        if let Some(n) = name.strip_prefix('P').and_then(|s| decimal(s, 6)) {
            return Ok(Loc::Pred(n as u8));
        }
        Err(err(
            "",
            format!("`{name}` is not a register R0..R254 or predicate P0..P6 (decimal, no sign or leading zero)"),
        ))
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loc::Reg(r) => write!(f, "R{r}"),
            Loc::Pred(p) => write!(f, "P{p}"),
        }
    }
}

/// Reads a uniform register name `UR0`..`UR254`.
pub fn uniform_register(name: &str) -> Result<u8, ScenarioError> {
    name.strip_prefix("UR")
        .and_then(|s| decimal(s, 254))
        .map(|n| n as u8)
        .ok_or_else(|| {
            err("", format!("`{name}` is not a uniform register UR0..UR254 (decimal, no sign or leading zero)"))
        })
}

/// A register's 32 bits, given as a float or as bits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RegValue {
    /// An f32 (its bits are written).
    Float(f32),
    /// Raw bits (integers, hex, handles).
    Bits(u32),
}

impl RegValue {
    /// The register's bits.
    pub fn bits(self) -> u32 {
        match self {
            RegValue::Float(x) => x.to_bits(),
            RegValue::Bits(b) => b,
        }
    }
}

impl From<f32> for RegValue {
    fn from(x: f32) -> Self {
        RegValue::Float(x)
    }
}
impl From<u32> for RegValue {
    fn from(b: u32) -> Self {
        RegValue::Bits(b)
    }
}
impl From<i32> for RegValue {
    fn from(i: i32) -> Self {
        RegValue::Bits(i as u32)
    }
}
impl From<Handle> for RegValue {
    fn from(h: Handle) -> Self {
        RegValue::Bits(h.0)
    }
}

/// An expected value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expected {
    /// A float result: compared with the tolerance.
    Float(f32),
    /// Exact bits (integers, hex, handles).
    Bits(u32),
    /// A predicate.
    Pred(bool),
}

impl From<RegValue> for Expected {
    fn from(v: RegValue) -> Self {
        match v {
            RegValue::Float(x) => Expected::Float(x),
            RegValue::Bits(b) => Expected::Bits(b),
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Float(x) => write!(f, "{x:?}"),
            Expected::Bits(b) => write!(f, "{b:#010x}"),
            Expected::Pred(p) => write!(f, "{p}"),
        }
    }
}

/// Whether `name` may name a handle: a letter or `_`, then letters, digits, `_`, `.`, `-`;
/// not a value's spelling (`inf`, `nan`, `NaN`), so every handle name is reachable.
pub fn valid_handle_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && !matches!(name, "inf" | "nan" | "NaN")
}

/// A register value from its JSON text (numbers are read from the decimal, rounded once to
/// f32); `handles` resolves handle names.
pub fn reg_value_text(
    text: &str,
    handles: &BTreeMap<String, u32>,
    path: &str,
) -> Result<RegValue, ScenarioError> {
    let t = text.trim();
    if t.starts_with('"') {
        let s: String = serde_json::from_str(t).map_err(|e| err(path, e))?;
        if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            return if !h.is_empty() && h.len() <= 8 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
                u32::from_str_radix(h, 16)
                    .map(RegValue::Bits)
                    .map_err(|e| err(path, e))
            } else {
                Err(err(
                    path,
                    format!("`{s}` is not 1 to 8 hex digits after 0x; expected {VALUE_FORMS}"),
                ))
            };
        }
        return match s.as_str() {
            "inf" => Ok(RegValue::Float(f32::INFINITY)),
            "-inf" => Ok(RegValue::Float(f32::NEG_INFINITY)),
            "nan" | "NaN" => Ok(RegValue::Float(f32::NAN)),
            name => handles
                .get(name)
                .map(|&h| RegValue::Bits(h))
                .ok_or_else(|| {
                    err(
                        path,
                        format!("`{name}` is not a value or a handle name; expected {VALUE_FORMS}"),
                    )
                }),
        };
    }
    if !t.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return Err(err(path, format!("`{t}`: expected {VALUE_FORMS}")));
    }
    if t.contains(['.', 'e', 'E']) {
        let x: f32 = t
            .parse()
            .map_err(|_| err(path, format!("`{t}`: expected {VALUE_FORMS}")))?;
        if x.is_infinite() {
            return Err(err(path, format!("{t} is outside the f32 range (magnitude at most 3.4028235e38); write \"inf\" for infinity")));
        }
        return Ok(RegValue::Float(x));
    }
    match t.parse::<i64>() {
        Ok(i) if (i32::MIN as i64..=u32::MAX as i64).contains(&i) => Ok(RegValue::Bits(i as u32)),
        _ => Err(err(
            path,
            format!("{t} does not fit in 32 bits (-2147483648..4294967295)"),
        )),
    }
}

/// A predicate value from its JSON text: `true` or `false`.
pub fn pred_value_text(text: &str, path: &str) -> Result<bool, ScenarioError> {
    match text.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(err(
            path,
            format!("`{other}`: expected true or false for a predicate"),
        )),
    }
}

/// A lane selector from its JSON text: a lane number or a selector string.
pub fn lanes_text(text: &str, path: &str) -> Result<Lanes, ScenarioError> {
    let t = text.trim();
    if let Some(n) = decimal(t, 31) {
        return Ok(Lanes(1 << n));
    }
    match serde_json::from_str::<String>(t) {
        Ok(s) => Lanes::parse(&s).map_err(|e| e.at(path)),
        Err(_) => Err(err(
            path,
            format!("`{t}` is not a lane selector; expected {LANE_FORMS}"),
        )),
    }
}

/// How close a float result must be to its expected value. Exact when absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, try_from = "ToleranceDoc")]
pub struct Tolerance {
    /// Largest absolute difference (finite, at least 0).
    pub abs: f64,
    /// Largest distance in f32 units in the last place.
    pub ulps: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToleranceDoc {
    #[serde(default)]
    abs: f64,
    #[serde(default)]
    ulps: u64,
}

impl TryFrom<ToleranceDoc> for Tolerance {
    type Error = String;
    fn try_from(d: ToleranceDoc) -> Result<Self, String> {
        Tolerance::new(d.abs, d.ulps).map_err(|e| e.message)
    }
}

impl Tolerance {
    /// Exact comparison.
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, ulps: 0 };

    /// A tolerance; `abs` must be finite and at least 0.
    pub fn new(abs: f64, ulps: u64) -> Result<Tolerance, ScenarioError> {
        if !(abs.is_finite() && abs >= 0.0) {
            return Err(err(
                "tolerance.abs",
                format!("{abs} is not a tolerance: expected a finite number >= 0"),
            ));
        }
        Ok(Tolerance { abs, ulps })
    }

    /// Within `n` ulps.
    pub const fn ulps(n: u64) -> Tolerance {
        Tolerance { abs: 0.0, ulps: n }
    }
}

/// Distance between two f32 values in units in the last place (0 for equal values and
/// between 0.0 and -0.0; u64::MAX when exactly one is NaN).
pub fn ulps(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 {
            b
        } else {
            0x8000_0000 - b
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Whether the register bits `got_bits` (or predicate `got_pred`) meet `expected`.
pub fn matches(expected: Expected, tol: Tolerance, got_bits: u32, got_pred: bool) -> bool {
    match expected {
        Expected::Bits(b) => b == got_bits,
        Expected::Pred(p) => p == got_pred,
        Expected::Float(x) => {
            let g = f32::from_bits(got_bits);
            g.to_bits() == x.to_bits()
                || ulps(g, x) <= tol.ulps
                || (x.is_finite() && g.is_finite() && ((g as f64) - (x as f64)).abs() <= tol.abs)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_selectors_are_strict() {
        assert_eq!(Lanes::parse("all").unwrap(), Lanes::ALL);
        assert_eq!(Lanes::parse("0-3,31").unwrap(), Lanes(0x8000_000f));
        assert_eq!(lanes_text("5", "p").unwrap(), Lanes(1 << 5));
        assert_eq!(Lanes::range(0, 31).unwrap(), Lanes::ALL);
        for bad in [
            "32", "3-1", "x", "1-40", "", "+1", "00-01", "01", " 1-", "-1",
        ] {
            assert!(Lanes::parse(bad).is_err(), "{bad}");
        }
        for bad in ["32", "-1", "1.0", "true", "\"+1\"", "\"00-01\""] {
            let e = lanes_text(bad, "lanes[0].lanes").unwrap_err();
            assert_eq!(e.path, "lanes[0].lanes", "{bad}");
            assert!(e.message.contains("\"all\""), "{e}");
        }
    }

    #[test]
    fn register_names_are_strict() {
        assert_eq!(Loc::parse("R0").unwrap(), Loc::Reg(0));
        assert_eq!(Loc::parse("R254").unwrap(), Loc::Reg(254));
        assert_eq!(Loc::parse("P6").unwrap(), Loc::Pred(6));
        for bad in ["R+5", "R05", "R255", "P7", "P+1", "r1", "R", "R1x"] {
            assert!(Loc::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(uniform_register("UR4").unwrap(), 4);
        for bad in ["UR04", "UR+4", "UR255", "U4"] {
            assert!(uniform_register(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn register_values() {
        let h = BTreeMap::from([("tex".to_string(), 0x0010_0002u32)]);
        let v = |j: &str| reg_value_text(j, &h, "p");
        assert_eq!(v("0.5").unwrap(), RegValue::Float(0.5));
        assert_eq!(v("1.0").unwrap(), RegValue::Float(1.0));
        assert_eq!(v("1").unwrap(), RegValue::Bits(1));
        assert_eq!(v("-1").unwrap(), RegValue::Bits(u32::MAX));
        assert_eq!(v("\"0x3f800000\"").unwrap(), RegValue::Bits(0x3f80_0000));
        assert_eq!(v("\"tex\"").unwrap(), RegValue::Bits(0x0010_0002));
        for bad in [
            "4294967296",
            "-2147483649",
            "18446744073709551616",
            "1e39",
            "\"0x+ff\"",
            "\"0x\"",
            "\"0x123456789\"",
            "\"nope\"",
            "[1]",
            "true",
            "null",
        ] {
            let e = v(bad).unwrap_err();
            assert_eq!(e.path, "p", "{bad}");
        }
        assert!(v("\"nope\"")
            .unwrap_err()
            .message
            .contains("\"0x3f800000\""));
    }

    #[test]
    fn handle_names_must_not_look_like_values() {
        for ok in ["albedo", "_t", "tex.0", "a-b"] {
            assert!(valid_handle_name(ok), "{ok}");
        }
        for bad in ["inf", "nan", "NaN", "0x5", "-inf", "5", "", "a b"] {
            assert!(!valid_handle_name(bad), "{bad}");
        }
    }

    #[test]
    fn tolerances_are_not_negative() {
        assert!(Tolerance::new(-1e-6, 0).is_err());
        assert!(Tolerance::new(f64::NAN, 0).is_err());
        assert!(serde_json::from_str::<Tolerance>(r#"{"abs": -0.5}"#).is_err());
        assert_eq!(
            serde_json::from_str::<Tolerance>(r#"{"ulps": 2}"#).unwrap(),
            Tolerance::ulps(2)
        );
    }

    #[test]
    fn ulps_count_representable_steps() {
        assert_eq!(ulps(1.0, 1.0), 0);
        assert_eq!(ulps(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulps(-0.0, 0.0), 0);
        assert_eq!(ulps(f32::from_bits(1), -f32::from_bits(1)), 2);
        assert_eq!(ulps(f32::NAN, 1.0), u64::MAX);
    }
}
