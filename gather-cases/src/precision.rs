//! The `precision` key of a case: a named model or the fixed-point parameters, checked as
//! they are read.

use super::*;

/// The precision key: `"exact"`, `"default"` or the fixed-point parameters
/// (`fraction_bits` 0..=[`MAX_FRACTION_BITS`], checked when read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum PrecisionSpec {
    /// `"exact"`.
    Named(PrecisionName),
    /// Fixed point.
    Fixed {
        /// Fractional bits, 0..=20.
        fraction_bits: u8,
        /// Rounding (default nearest_even).
        #[serde(default)]
        rounding: Rounding,
    },
}

/// The most fractional bits a fixed-point precision model takes: the model's own limit,
/// [`Precision::MAX_FRACTION_BITS`].
pub const MAX_FRACTION_BITS: u8 = Precision::MAX_FRACTION_BITS;

const PRECISION_FORMS: &str =
    "\"exact\", \"default\" or {\"fraction_bits\": 0..=20, \"rounding\": \"nearest_even\" | \"toward_zero\" | \"floor\"}";

/// Fractional bits, checked to be 0..=[`MAX_FRACTION_BITS`] as they are read.
struct FractionBits(u8);

impl<'de> Deserialize<'de> for FractionBits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = Num::deserialize(d)?;
        match n.as_int() {
            Some(b) if (0..=MAX_FRACTION_BITS as i64).contains(&b) => Ok(FractionBits(b as u8)),
            _ => Err(de::Error::custom(format!(
                "{n} fractional bits: expected an integer 0..={MAX_FRACTION_BITS}"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for PrecisionSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PrecisionSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(PRECISION_FORMS)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PrecisionSpec, E> {
                PrecisionName::deserialize(de::value::StrDeserializer::<E>::new(v))
                    .map(PrecisionSpec::Named)
                    .map_err(|_| {
                        E::custom(format!(
                            "`{v}` is not a precision; expected {PRECISION_FORMS}"
                        ))
                    })
            }
            fn visit_map<A: de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<PrecisionSpec, A::Error> {
                let mut bits: Option<u8> = None;
                let mut rounding: Option<Rounding> = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "fraction_bits" if bits.is_none() => {
                            bits = Some(map.next_value::<FractionBits>()?.0)
                        }
                        "rounding" if rounding.is_none() => rounding = Some(map.next_value()?),
                        "fraction_bits" | "rounding" => {
                            return Err(de::Error::custom(format!("duplicate key `{key}`")))
                        }
                        other => {
                            return Err(de::Error::custom(format!(
                                "unknown precision key `{other}`; expected {PRECISION_FORMS}"
                            )))
                        }
                    }
                }
                let fraction_bits = bits.ok_or_else(|| {
                    de::Error::custom(format!(
                        "missing `fraction_bits`; expected {PRECISION_FORMS}"
                    ))
                })?;
                Ok(PrecisionSpec::Fixed {
                    fraction_bits,
                    rounding: rounding.unwrap_or_default(),
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// The named precision models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrecisionName {
    /// [`Precision::Exact`].
    Exact,
    /// [`Precision::default`].
    Default,
}

impl PrecisionSpec {
    /// The model.
    pub fn precision(&self) -> Precision {
        match *self {
            PrecisionSpec::Named(PrecisionName::Exact) => Precision::Exact,
            PrecisionSpec::Named(PrecisionName::Default) => Precision::default(),
            PrecisionSpec::Fixed {
                fraction_bits,
                rounding,
            } => Precision::Fixed {
                fraction_bits,
                rounding,
            },
        }
    }
}
