//! Strict JSON for untrusted answers (SPEC §4, §3.2): a document with a
//! key repeated in one object is refused, never read last-wins.
//!
//! `serde_json` keeps the last of two equal keys, so an agent answering
//! `{"tool_calls": [refund], "tool_calls": []}` would read as "no tool
//! calls" and a contract prohibiting the refund would pass. A repeated key
//! is ambiguous; ambiguity must never read as evidence of absence.
//!
//! [`parse_strict`] runs `serde_json`'s own parser (syntax, escapes,
//! numbers, its recursion limit) with a visitor that builds the same
//! [`Value`] `serde_json::from_slice` would, key order kept, and stops at
//! the first key an object repeats, naming it and where it is.
//!
//! JSON pointers (RFC 6901) are built and read here too:
//! [`escape_pointer_token`] turns a key into a segment,
//! [`unescape_pointer_token`] and [`pointer_tokens`] read them back.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::text::one_line;

/// Escapes one JSON pointer reference token (RFC 6901 §3): `~` → `~0`,
/// then `/` → `~1`, so `a/b~c` becomes `a~1b~0c`. The one place pactum
/// turns an object key into a pointer segment; prefix it with `/` to build
/// a pointer.
pub fn escape_pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Why a string is not a JSON pointer (RFC 6901).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PointerError {
    /// Neither empty nor starting with `/`.
    #[error("a pointer is empty or starts with `/`")]
    NoLeadingSlash,
    /// A `~` followed by anything but `0` or `1` (or by nothing).
    #[error("`~` must be followed by `0` or `1` (write `~0` for `~` and `~1` for `/`)")]
    BadEscape,
}

/// Unescapes one JSON pointer reference token (RFC 6901 §4), the inverse
/// of [`escape_pointer_token`]: `~1` → `/`, `~0` → `~`, so `a~1b~0c` is
/// `a/b~c` and `~01` is `~1` (never `/`). The one place pactum reads a
/// pointer segment back into an object key.
///
/// # Errors
/// [`PointerError::BadEscape`] for a `~` not followed by `0` or `1`: such
/// a token names no key, and reading it as one (or as its literal text)
/// would look in the wrong place.
pub fn unescape_pointer_token(token: &str) -> Result<String, PointerError> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return Err(PointerError::BadEscape),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// The reference tokens of a JSON pointer (RFC 6901 §3), each unescaped by
/// [`unescape_pointer_token`]: `""` (the whole document) has none, `/` has
/// one empty token, `/a~1b/0` has `a/b` and `0`.
///
/// # Errors
/// [`PointerError::NoLeadingSlash`] for a non-empty pointer not starting
/// with `/`; [`PointerError::BadEscape`] as [`unescape_pointer_token`].
pub fn pointer_tokens(pointer: &str) -> Result<Vec<String>, PointerError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(PointerError::NoLeadingSlash);
    };
    rest.split('/').map(unescape_pointer_token).collect()
}

/// Characters of a key, or of a JSON pointer, shown in an error message.
const SHOWN_CHARS: usize = 120;

/// Why [`parse_strict`] refused a document.
#[derive(Debug, thiserror::Error)]
pub enum StrictJsonError {
    /// Not one JSON value: `serde_json`'s error (syntax, trailing
    /// characters, invalid UTF-8, nesting deeper than its limit…), with
    /// its line and column.
    #[error("{0}")]
    Syntax(serde_json::Error),
    /// An object repeats a key (compared after unescaping: `"a"` and
    /// `"\u0061"` are the same key).
    #[error(
        "duplicate key `{}` at `{}`, line {line} column {column}",
        one_line(key, SHOWN_CHARS),
        one_line(pointer, SHOWN_CHARS)
    )]
    DuplicateKey {
        /// The repeated key, unescaped. Untrusted: bound it before
        /// showing it (the `Display` output does).
        key: String,
        /// Where the second occurrence is, as a JSON pointer (RFC 6901) to
        /// the member: `/tool_calls` for a top-level key,
        /// `/tool_calls/0/arguments/amount` for a nested one.
        pointer: String,
        /// 1-based line where parsing stopped (just after the key).
        line: usize,
        /// 1-based column where parsing stopped.
        column: usize,
    },
}

impl StrictJsonError {
    /// `Some(what)` when the document was refused by one of the parser's
    /// own limits rather than for its syntax: nesting deeper than 128
    /// levels, or a number outside the `f64` range (`1e400`). Such a
    /// document may well be valid JSON; whoever reads the refusal must not
    /// take it for "not JSON".
    pub fn parser_limit(&self) -> Option<&'static str> {
        let StrictJsonError::Syntax(e) = self else {
            return None;
        };
        // serde_json does not expose its error codes; their texts are
        // stable and pinned by a test below.
        let text = e.to_string();
        if text.starts_with("recursion limit exceeded") {
            Some("nesting deeper than the JSON parser's limit of 128 levels")
        } else if text.starts_with("number out of range") {
            Some("a number outside the range the JSON parser can represent")
        } else if text.starts_with("lone leading surrogate")
            || text.starts_with("unexpected end of hex escape")
            || text.starts_with("invalid unicode code point")
        {
            // `"\ud800"` is JSON by its grammar (RFC 8259 §8.2) but no
            // Unicode string: the parser cannot hold it. serde_json reports
            // a lone leading surrogate as the end of a hex escape, so a
            // truncated `\u12` reads undetermined too, never "not JSON".
            Some("a lone UTF-16 surrogate escape, which the JSON parser cannot represent")
        } else {
            None
        }
    }

    /// The 1-based line where the problem was found.
    pub fn line(&self) -> usize {
        match self {
            StrictJsonError::Syntax(e) => e.line(),
            StrictJsonError::DuplicateKey { line, .. } => *line,
        }
    }

    /// The 1-based column where the problem was found.
    pub fn column(&self) -> usize {
        match self {
            StrictJsonError::Syntax(e) => e.column(),
            StrictJsonError::DuplicateKey { column, .. } => *column,
        }
    }
}

/// Parses `input` (a `&str`, a `String` or bytes, which must be UTF-8) as
/// exactly one JSON value, as `serde_json::from_slice::<Value>` would —
/// same syntax, same numbers, object keys in document order — except that
/// an object with a repeated key, at any depth, is refused (SPEC §4: an
/// ambiguous answer is not read as either of its values).
///
/// Pure; never panics; nesting is bounded by `serde_json`'s recursion
/// limit (128), so hostile input cannot exhaust the stack.
///
/// # Errors
/// [`StrictJsonError::DuplicateKey`] for the first repeated key found
/// (document order); [`StrictJsonError::Syntax`] for anything that is not
/// one JSON value.
pub fn parse_strict<T: AsRef<[u8]> + ?Sized>(input: &T) -> Result<Value, StrictJsonError> {
    let mut found = None;
    let mut de = serde_json::Deserializer::from_slice(input.as_ref());
    let parsed = Strict { found: &mut found }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|e| match found {
        Some(d) => StrictJsonError::DuplicateKey {
            pointer: d.pointer(),
            key: d.key,
            line: e.line(),
            column: e.column(),
        },
        None => StrictJsonError::Syntax(e),
    })
}

/// For `#[serde(deserialize_with = "…")]` on a `Value` field of a typed
/// record: reads the field as [`parse_strict`] reads a document, so a key
/// repeated inside it is an error (naming the key and its pointer within
/// the field) instead of last-wins. Derived structs already refuse their
/// own repeated fields; free-form members (arguments, metadata) do not.
///
/// # Errors
/// The deserializer's error, or a custom one naming the repeated key.
pub fn deserialize_strict<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    let mut found = None;
    let parsed = Strict { found: &mut found }.deserialize(d);
    parsed.map_err(|e| match found {
        Some(dup) => de::Error::custom(format!(
            "duplicate key `{}` at `{}`: a key repeated in one object is ambiguous",
            one_line(&dup.key, SHOWN_CHARS),
            one_line(&dup.pointer(), SHOWN_CHARS)
        )),
        None => e,
    })
}

/// As [`deserialize_strict`], for an optional member: `null` is `None`.
///
/// # Errors
/// Those of [`deserialize_strict`].
pub fn deserialize_strict_option<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Value>, D::Error> {
    deserialize_strict(d).map(|v| (!v.is_null()).then_some(v))
}

/// The repeated key, and the path down to it, collected innermost first
/// while the error unwinds (so nothing is tracked on the happy path).
struct Duplicate {
    key: String,
    reversed: Vec<String>,
}

impl Duplicate {
    /// RFC 6901: `~` is `~0`, `/` is `~1`.
    fn pointer(&self) -> String {
        self.reversed
            .iter()
            .rev()
            .fold(String::new(), |mut out, s| {
                out.push('/');
                out.push_str(&escape_pointer_token(s));
                out
            })
    }
}

/// Builds one [`Value`], refusing repeated keys. Holds where to record the
/// duplicate found, if any.
struct Strict<'s> {
    found: &'s mut Option<Duplicate>,
}

impl Strict<'_> {
    /// Adds `segment` to the path of a duplicate found below it.
    fn locate(&mut self, segment: impl FnOnce() -> String) {
        if let Some(d) = self.found.as_mut() {
            d.reversed.push(segment());
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

// Scalars as serde_json's own `Value` visitor reads them.
impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Number::from_i128(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Number::from_u128(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let next = seq.next_element_seed(Strict {
                found: &mut *self.found,
            });
            match next {
                Ok(Some(v)) => out.push(v),
                Ok(None) => return Ok(Value::Array(out)),
                Err(e) => {
                    let i = out.len();
                    self.locate(|| i.to_string());
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // One lookup a key: the slot is kept while its value is read.
            let slot = match out.entry(key) {
                serde_json::map::Entry::Vacant(slot) => slot,
                serde_json::map::Entry::Occupied(taken) => {
                    let key = taken.key().clone();
                    *self.found = Some(Duplicate {
                        reversed: vec![key.clone()],
                        key,
                    });
                    // The message is replaced by `DuplicateKey`; serde_json
                    // adds the position.
                    return Err(de::Error::custom("duplicate key"));
                }
            };
            let value = map.next_value_seed(Strict {
                found: &mut *self.found,
            });
            match value {
                Ok(v) => {
                    slot.insert(v);
                }
                Err(e) => {
                    let key = slot.key().clone();
                    self.locate(|| key);
                    return Err(e);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// A field of a JSON object, by its key: the value at `key` when this is
/// an object holding it, as [`Map::get`] and [`Value::get`] answer. On a
/// small object (most of a chat log's: a message, a call, a content
/// block) each key is compared in turn, which costs less than the map's
/// hash of the key.
pub trait Field {
    /// The value at `key`, when this is an object holding it.
    fn field(&self, key: &str) -> Option<&Value>;
}

/// Objects of at most this many keys are searched key by key ([`Field`]).
const SMALL_OBJECT: usize = 8;

impl Field for Map<String, Value> {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= SMALL_OBJECT {
            self.iter().find_map(|(k, v)| (k == key).then_some(v))
        } else {
            self.get(key)
        }
    }
}

impl Field for Value {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|o| o.field(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn parser_limits_are_told_apart_from_syntax() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for (text, limit) in [
            (deep.as_str(), true),
            ("[1e400]", true),
            ("-1e999", true),
            ("[1e300]", false),
            ("[1,]", false),
            ("NaN", false),
            ("{\"a\":1,\"a\":2}", false),
            ("\"\\ud800\"", true),
            ("{\"ssn\": \"\\udc00 123-45-6789\"}", true),
            ("\"\\ud83d\\ude00\"", false),
        ] {
            match parse_strict(text) {
                Ok(v) => assert!(!limit, "{text} parsed: {v}"),
                Err(e) => assert_eq!(e.parser_limit().is_some(), limit, "{text}: {e}"),
            }
        }
    }

    #[test]
    fn pointer_tokens_escape_tilde_before_slash() {
        for (key, token) in [
            ("", ""),
            ("plain", "plain"),
            ("a/b", "a~1b"),
            ("a~b", "a~0b"),
            ("a/b~c", "a~1b~0c"),
            ("~1", "~01"),
            ("/~", "~1~0"),
            ("x~~//", "x~0~0~1~1"),
        ] {
            assert_eq!(escape_pointer_token(key), token, "{key}");
            // serde_json resolves the pointer built from it to the key.
            let v = json!({ key: true });
            assert_eq!(v.pointer(&format!("/{token}")), Some(&json!(true)), "{key}");
        }
    }

    #[test]
    fn pointer_tokens_unescape_slash_before_tilde() {
        for (pointer, tokens) in [
            ("", vec![]),
            ("/", vec![""]),
            ("//", vec!["", ""]),
            ("/a", vec!["a"]),
            ("/a~1b~0c/0", vec!["a/b~c", "0"]),
            ("/~01", vec!["~1"]),
            ("/~10", vec!["/0"]),
            ("/~0~0~1~1", vec!["~~//"]),
        ] {
            let owned: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
            assert_eq!(pointer_tokens(pointer), Ok(owned), "{pointer}");
            // The same pointer serde_json resolves.
            if let [only] = tokens.as_slice() {
                let v = json!({ *only: true });
                assert_eq!(v.pointer(pointer), Some(&json!(true)), "{pointer}");
            }
        }
        for (bad, why) in [
            ("a", PointerError::NoLeadingSlash),
            ("a/b", PointerError::NoLeadingSlash),
            ("~0", PointerError::NoLeadingSlash),
            ("/a~", PointerError::BadEscape),
            ("/a~2", PointerError::BadEscape),
            ("/~x/b", PointerError::BadEscape),
            ("/ok/~", PointerError::BadEscape),
        ] {
            assert_eq!(pointer_tokens(bad), Err(why), "{bad}");
        }
    }

    proptest::proptest! {
        /// Unescaping inverts escaping for every key, and a pointer built
        /// from escaped keys gives the keys back.
        #[test]
        fn unescape_inverts_escape(keys in proptest::collection::vec("[a-z~/01]{0,6}", 0..4)) {
            for k in &keys {
                proptest::prop_assert_eq!(unescape_pointer_token(&escape_pointer_token(k)), Ok(k.clone()));
            }
            let pointer: String = keys.iter().map(|k| format!("/{}", escape_pointer_token(k))).collect();
            proptest::prop_assert_eq!(pointer_tokens(&pointer), Ok(keys));
        }
    }

    fn duplicate(text: &str) -> (String, String) {
        match parse_strict(text) {
            Err(StrictJsonError::DuplicateKey { key, pointer, .. }) => (key, pointer),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn a_repeated_key_is_refused_at_any_depth_naming_it_and_where() {
        for (text, key, pointer) in [
            (
                r#"{"response":"ok","tool_calls":[{"name":"refund","arguments":{"amount":5000}}],"tool_calls":[]}"#,
                "tool_calls",
                "/tool_calls",
            ),
            (
                r#"{"response":"ok","tool_calls":[{"name":"refund","name":"lookup"}]}"#,
                "name",
                "/tool_calls/0/name",
            ),
            (
                r#"{"tool_calls":[{"name":"f"},{"name":"refund","arguments":{"amount":5000,"amount":1}}]}"#,
                "amount",
                "/tool_calls/1/arguments/amount",
            ),
            (
                r#"{"tool_calls":[{"name":"refund","arguments":{"amount":5000},"arguments":{}}]}"#,
                "arguments",
                "/tool_calls/0/arguments",
            ),
            // Keys are compared unescaped.
            (r#"{"a":1,"\u0061":2}"#, "a", "/a"),
            // RFC 6901 escaping of `~` and `/` in the pointer.
            (r#"{"x/y":{"~k":[{},{"":0,"":1}]}}"#, "", "/x~1y/~0k/1/"),
            (r#"[[{"k":null,"k":null}]]"#, "k", "/0/0/k"),
        ] {
            assert_eq!(
                duplicate(text),
                (key.to_string(), pointer.to_string()),
                "{text}"
            );
        }
        let err = parse_strict("{\n  \"verdict\": \"violated\",\n  \"verdict\": \"satisfied\"\n}")
            .expect_err("duplicate");
        assert_eq!(
            err.to_string(),
            "duplicate key `verdict` at `/verdict`, line 3 column 11"
        );
        assert_eq!((err.line(), err.column()), (3, 11));
    }

    #[test]
    fn everything_else_reads_as_serde_json_reads_it() {
        for text in [
            r#"{"b":1,"a":[1,-2,3.5,1e300,18446744073709551615,-9223372036854775808],"c":{"b":null,"a":true}}"#,
            r#"{"same":{"k":1},"other":{"k":2},"list":[{"k":1},{"k":1}]}"#,
            "\"\\ud83d\\ude00 and \\u0000\"",
            "  7  ",
            "[]",
            "{}",
        ] {
            let want: Value = serde_json::from_str(text).expect("json");
            let got = parse_strict(text).expect("strict");
            assert_eq!(got, want, "{text}");
            // Key order is kept (Map equality ignores it).
            assert_eq!(got.to_string(), want.to_string(), "{text}");
        }
        for bad in ["", "{", "{\"a\":1} x", "[1,]", "{\"a\" 1}", "\u{feff}{}"] {
            assert!(
                matches!(parse_strict(bad), Err(StrictJsonError::Syntax(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            parse_strict(&b"{\"a\":\"\xff\"}"[..]),
            Err(StrictJsonError::Syntax(_))
        ));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(
            parse_strict(&deep),
            Err(StrictJsonError::Syntax(_))
        ));
        let deep = "{\"a\":".repeat(100_000);
        assert!(matches!(
            parse_strict(&deep),
            Err(StrictJsonError::Syntax(_))
        ));
        // Within serde_json's limit, a duplicate deep down is still found.
        let text = format!("{}{{\"k\":1,\"k\":2}}{}", "[".repeat(100), "]".repeat(100));
        let (key, pointer) = duplicate(&text);
        assert_eq!(key, "k");
        assert_eq!(pointer, format!("{}/k", "/0".repeat(100)));
    }

    /// Any JSON value; objects built from maps, so no key repeats. Floats
    /// are multiples of 1/1024, which print and parse back exactly.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<i32>().prop_map(|n| Value::from(f64::from(n) / 1024.0)),
            ".{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a-c~/\"]{0,3}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// One step down to where the repeated key is written.
    #[derive(Debug, Clone)]
    enum Step {
        /// Under this key, after `before`.
        Key(String, Value),
        /// At this index of an array of nulls.
        Index(usize),
    }

    proptest! {
        /// Whatever the value, its text parses back to it, key order
        /// included, and exactly as serde_json reads it.
        #[test]
        fn values_without_a_repeated_key_round_trip(v in value()) {
            let text = serde_json::to_string(&v).expect("serialises");
            let got = parse_strict(&text).expect("no duplicates");
            prop_assert_eq!(&got, &v);
            prop_assert_eq!(got.to_string(), text.clone());
            let pretty = serde_json::to_string_pretty(&v).expect("serialises");
            prop_assert_eq!(parse_strict(&pretty).expect("pretty").to_string(), text);
        }

        /// Arbitrary floats read as serde_json reads them.
        #[test]
        fn numbers_read_as_serde_json_reads_them(f in any::<f64>(), i in any::<i64>()) {
            let text = format!("[{f:e},{f},{i}]");
            if let Ok(want) = serde_json::from_str::<Value>(&text) {
                prop_assert_eq!(parse_strict(&text).expect("json").to_string(), want.to_string());
            }
        }

        /// A key written twice in one object, wherever that object is, is
        /// refused, naming the key and the pointer down to it.
        #[test]
        fn a_repeated_key_anywhere_is_refused(
            steps in proptest::collection::vec(
                prop_oneof![
                    ("[a-c~/]{0,3}", value()).prop_map(|(k, v)| Step::Key(k, v)),
                    (0usize..3).prop_map(Step::Index),
                ],
                0..4,
            ),
            key in "[a-c~/\"\\\\]{0,3}",
            first in value(),
            second in value(),
            between in proptest::collection::btree_map("[d-f]{1,2}", value(), 0..3),
        ) {
            let k = serde_json::to_string(&key).expect("key");
            let mut text = format!("{{{k}:{first}");
            for (other, v) in &between {
                text.push_str(&format!(",{}:{v}", serde_json::to_string(other).expect("key")));
            }
            text.push_str(&format!(",{k}:{second}}}"));
            let mut pointer = String::new();
            for step in steps.iter().rev() {
                text = match step {
                    Step::Key(name, before) => {
                        // A sibling first, unless it would repeat the key.
                        let name_json = serde_json::to_string(name).expect("key");
                        let sibling = format!("{}:{before},", serde_json::to_string(&format!("{name}!")).expect("key"));
                        format!("{{{sibling}{name_json}:{text}}}")
                    }
                    Step::Index(i) => format!("[{}{text}]", "null,".repeat(*i)),
                };
            }
            for step in &steps {
                pointer.push('/');
                pointer.push_str(&match step {
                    Step::Key(name, _) => escape_pointer_token(name),
                    Step::Index(i) => i.to_string(),
                });
            }
            pointer.push('/');
            pointer.push_str(&escape_pointer_token(&key));
            match parse_strict(&text) {
                Err(StrictJsonError::DuplicateKey { key: got, pointer: at, .. }) => {
                    prop_assert_eq!(got, key);
                    prop_assert_eq!(at, pointer);
                }
                other => prop_assert!(false, "{}: {:?}", text, other),
            }
            // serde_json alone reads it, last-wins: the hazard refused.
            prop_assert!(serde_json::from_str::<Value>(&text).is_ok());
        }
    }

    #[test]
    fn messages_are_bounded_one_line() {
        let key = format!("{}\u{1b}[2J\n{}", "k".repeat(500), "x");
        let text = format!(
            "{{{k}:1,{k}:2}}",
            k = serde_json::to_string(&key).expect("key")
        );
        let msg = parse_strict(&text).expect_err("dup").to_string();
        assert!(!msg.contains('\u{1b}') && !msg.contains('\n'), "{msg}");
        assert!(msg.chars().count() < 400, "{msg}");
        assert_eq!(json!(1), parse_strict("1").expect("one"));
    }

    proptest::proptest! {
        /// [`Field::field`] answers as the map's own look-up, on small
        /// and large objects, and on values that are no object.
        #[test]
        fn a_field_is_what_the_map_holds_at_its_key(
            keys in proptest::collection::vec("[a-c]{0,2}", 0..14),
            key in "[a-c]{0,2}",
        ) {
            let o: Map<String, Value> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), Value::from(i)))
                .collect();
            proptest::prop_assert_eq!(o.field(&key), o.get(&key));
            let v = Value::Object(o.clone());
            proptest::prop_assert_eq!(v.field(&key), v.get(&key));
            let list = Value::Array(o.values().cloned().collect());
            proptest::prop_assert_eq!(list.field(&key), None);
        }
    }
}
