//! Digests: SHA-256 over canonical JSON (RFC 8785), written `sha256:<hex>`.
//! The same value always gives the same digest, whatever map order or
//! number spelling it was read with.

use serde::Serialize;
use sha2::{Digest as _, Sha256};

mod jcs;

/// Canonical JSON (RFC 8785) of a serialisable value.
///
/// # Panics
/// Never for pactum's own types; a value that cannot be serialised to JSON
/// (a map with non-string keys, a NaN float) is a bug in the caller and
/// yields the canonical form of `null` instead of panicking.
pub fn canonical_json<T: Serialize>(value: &T) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, jcs::Jcs::default());
    match value.serialize(&mut ser) {
        Ok(()) => String::from_utf8(out).unwrap_or_else(|_| "null".to_string()),
        Err(_) => "null".to_string(),
    }
}

/// `sha256:<hex>` of arbitrary bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!("sha256:{}", hex::encode(digest))
}

/// `sha256:<hex>` of the canonical JSON of `value`.
pub fn digest_of<T: Serialize>(value: &T) -> String {
    sha256_hex(canonical_json(value).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_and_number_spelling_do_not_matter() {
        let a: serde_json::Value = serde_json::from_str(r#"{"b":1,"a":[1.0,"x"]}"#).unwrap();
        let b: serde_json::Value = serde_json::from_str(r#"{"a":[1,"x"],"b":1.0}"#).unwrap();
        assert_eq!(canonical_json(&a), r#"{"a":[1,"x"],"b":1}"#);
        assert_eq!(digest_of(&a), digest_of(&b));
        assert!(digest_of(&a).starts_with("sha256:"));
        assert_eq!(digest_of(&a).len(), 7 + 64);
    }

    /// Keys and strings from the corners of RFC 8785: escapes, controls,
    /// characters where UTF-8 and UTF-16 orders part, surrogate pairs.
    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let pieces = prop::sample::select(vec![
            "",
            "a",
            "b",
            "ab",
            "A",
            " ",
            "!",
            "\"",
            "\\",
            "/",
            "\u{0}",
            "\u{1f}",
            "\n",
            "\t",
            "\u{7f}",
            "é",
            "\u{2028}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{fb33}",
            "\u{ffff}",
            "😀",
            "\u{10000}",
            "\u{10ffff}",
            "1",
            "-",
        ]);
        prop::collection::vec(pieces, 0..4).prop_map(|v| v.concat())
    }

    fn value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            prop::sample::select(vec![
                0.0,
                -0.0,
                1e21,
                1e-7,
                123e-20,
                5e-324,
                1.7976931348623157e308,
                0.1,
                100.0
            ])
            .prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn canonical_json_is_that_of_serde_json_canonicalizer(v in value()) {
            let theirs = serde_json_canonicalizer::to_string(&v).unwrap_or_else(|_| "null".into());
            proptest::prop_assert_eq!(canonical_json(&v), theirs);
        }
    }

    #[test]
    fn numbers_of_every_type_and_a_key_written_twice_are_as_the_library_writes_them() {
        #[derive(Serialize)]
        struct Numbers {
            a: i8,
            b: u16,
            c: i32,
            d: u64,
            e: i128,
            f: u128,
            g: f32,
            h: f64,
            i: char,
            j: Option<u8>,
            k: (),
            l: [u8; 2],
        }
        let n = Numbers {
            a: -7,
            b: 65535,
            c: i32::MIN,
            d: u64::MAX,
            e: i128::MIN,
            f: u128::MAX,
            g: 0.1,
            h: f64::NAN,
            i: '\u{1}',
            j: None,
            k: (),
            l: [0, 255],
        };
        let theirs = serde_json_canonicalizer::to_string(&n).expect("serialises");
        assert_eq!(canonical_json(&n), theirs);
        // Integer keys, and one key written twice: no canonical form.
        let keys: std::collections::BTreeMap<i64, u8> = [(10, 1), (9, 2)].into();
        assert_eq!(
            canonical_json(&keys),
            serde_json_canonicalizer::to_string(&keys).expect("ok")
        );
        struct Twice;
        impl Serialize for Twice {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("a", &1)?;
                m.serialize_entry("b", &[serde_json::json!({"x": 1, "x\u{0}": 2})])?;
                m.serialize_entry("\u{61}", &2)?;
                m.end()
            }
        }
        assert!(serde_json_canonicalizer::to_string(&Twice).is_err());
        assert_eq!(canonical_json(&Twice), "null");
    }
}
