//! A float that survives JSON: finite values are numbers, NaN and ±inf are the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"` (the encoding MLflow uses on its wire).

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// An `f64` whose NaN and ±inf round-trip through JSON.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct F64(pub f64);

impl Serialize for F64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.is_nan() {
            s.serialize_str("NaN")
        } else if v == f64::INFINITY {
            s.serialize_str("Infinity")
        } else if v == f64::NEG_INFINITY {
            s.serialize_str("-Infinity")
        } else {
            s.serialize_f64(v)
        }
    }
}

impl<'de> Deserialize<'de> for F64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = F64;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number or one of \"NaN\", \"Infinity\", \"-Infinity\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<F64, E> {
                Ok(F64(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<F64, E> {
                Ok(F64(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<F64, E> {
                Ok(F64(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<F64, E> {
                match v {
                    "NaN" => Ok(F64(f64::NAN)),
                    "Infinity" => Ok(F64(f64::INFINITY)),
                    "-Infinity" => Ok(F64(f64::NEG_INFINITY)),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::F64;

    #[test]
    fn non_finite_values_round_trip() {
        for v in [1.5, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e308] {
            let s = serde_json::to_string(&F64(v)).unwrap();
            assert_eq!(serde_json::from_str::<F64>(&s).unwrap().0, v, "{s}");
        }
        let s = serde_json::to_string(&F64(f64::NAN)).unwrap();
        assert_eq!(s, "\"NaN\"");
        assert!(serde_json::from_str::<F64>(&s).unwrap().0.is_nan());
        assert!(serde_json::from_str::<F64>("\"nan\"").is_err());
    }
}
