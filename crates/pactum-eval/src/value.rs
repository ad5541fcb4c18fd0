//! Value matchers: one [`ValueMatch`] compiled once (its regexes built),
//! shared by tool-call `args`, side-effect `details`, `field`, a contract's
//! `select` and expectations rules. Also the JSON helpers every predicate
//! uses: numeric-aware equality and the string leaves of a JSON value.

use std::borrow::Cow;

use pactum_core::contract::ValueMatch;
use regex::{Regex, RegexBuilder};
use serde_json::Value;

use crate::error::{EvalError, Site};

/// A [`ValueMatch`] ready to test values. Every condition given must hold.
///
/// Semantics (documented for users in `docs/predicates.md`):
/// * `equals`: JSON equality, numbers by value (`1 == 1.0`), recursively.
/// * `contains`: a string contains the text (a non-string needle is looked
///   for as its JSON text); an array has an element equal to it or (both
///   strings) containing it; an object has a member value equal to it.
///   Numbers, booleans and null contain nothing.
/// * `icontains`: Unicode case-insensitive substring of a string; an array
///   matches when an element does; any other value is matched as its JSON
///   text.
/// * `regex`: like `icontains`, with a pattern (unanchored).
/// * `one_of`: equals one of the listed values.
/// * `exists`: `true` when the value is present and not null; `false` when
///   it is absent or null.
///
/// A missing value (a pointer that does not resolve) fails every condition
/// except `exists: false`. An empty matcher holds for every value, present
/// or not (the contract lint warns about it).
#[derive(Debug, Clone)]
pub struct CompiledValueMatch {
    spec: ValueMatch,
    icontains: Option<Regex>,
    regex: Option<Regex>,
}

impl CompiledValueMatch {
    /// Compiles a matcher on its own.
    ///
    /// # Errors
    /// [`EvalError::InvalidRegex`] when `regex` does not compile (pointer
    /// `/regex`).
    pub fn compile(spec: ValueMatch) -> Result<Self, EvalError> {
        Self::compile_at(spec, &Site::root(None, ""))
    }

    pub(crate) fn compile_at(spec: ValueMatch, site: &Site) -> Result<Self, EvalError> {
        let icontains = match &spec.icontains {
            Some(text) => Some(
                insensitive_literal(text)
                    .map_err(|e| site.child("icontains").regex_error(text, e))?,
            ),
            None => None,
        };
        let regex = match &spec.regex {
            Some(p) => Some(Regex::new(p).map_err(|e| site.child("regex").regex_error(p, e))?),
            None => None,
        };
        Ok(CompiledValueMatch {
            spec,
            icontains,
            regex,
        })
    }

    /// The matcher as written.
    pub fn spec(&self) -> &ValueMatch {
        &self.spec
    }

    /// A short human description, e.g. `equals "x" and exists`.
    pub fn describe(&self) -> String {
        self.spec.describe()
    }

    /// Whether `value` (`None` = the pointer did not resolve) meets every
    /// condition.
    pub fn matches(&self, value: Option<&Value>) -> bool {
        let s = &self.spec;
        let Some(v) = value else {
            return s.equals.is_none()
                && s.contains.is_none()
                && s.icontains.is_none()
                && s.regex.is_none()
                && s.one_of.is_none()
                && s.exists != Some(true);
        };
        if let Some(want) = s.exists {
            if want == v.is_null() {
                return false;
            }
        }
        if let Some(x) = &s.equals {
            if !json_eq(v, x) {
                return false;
            }
        }
        if let Some(x) = &s.contains {
            if !json_contains(v, x) {
                return false;
            }
        }
        if let Some(re) = &self.icontains {
            if !text_matches(v, re) {
                return false;
            }
        }
        if let Some(re) = &self.regex {
            if !text_matches(v, re) {
                return false;
            }
        }
        if let Some(list) = &s.one_of {
            if !list.iter().any(|x| json_eq(v, x)) {
                return false;
            }
        }
        true
    }
}

/// A regex that finds `text` literally, Unicode case-insensitively (simple
/// case folding, so match offsets stay in the original text).
pub(crate) fn insensitive_literal(text: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(&regex::escape(text))
        .case_insensitive(true)
        .build()
}

/// JSON equality where numbers compare by value (`1 == 1.0`), recursively
/// through arrays and objects (member order ignored).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// Numbers by value, exactly: an integer equals a float only when the
/// float is integral and is that very integer. Converting the integer to
/// `f64` instead would round (2^53 + 1 reads as 2^53), and a matcher would
/// see an amount the call never carried.
fn number_eq(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    fn int(n: &serde_json::Number) -> Option<i128> {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    }
    /// A float that is an integer in i128 range, as that integer.
    fn integral(f: f64) -> Option<i128> {
        // 2^127 is exact in f64; every integral f64 below it fits in i128.
        const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
        (f.fract() == 0.0 && f.abs() < LIMIT).then_some(f as i128)
    }
    match (int(x), int(y)) {
        (Some(a), Some(b)) => a == b,
        (Some(a), None) => y.as_f64().and_then(integral) == Some(a),
        (None, Some(b)) => x.as_f64().and_then(integral) == Some(b),
        (None, None) => matches!((x.as_f64(), y.as_f64()), (Some(a), Some(b)) if a == b),
    }
}

fn json_contains(v: &Value, needle: &Value) -> bool {
    match v {
        Value::String(s) => match needle {
            Value::String(n) => s.contains(n.as_str()),
            other => s.contains(other.to_string().as_str()),
        },
        Value::Array(items) => items.iter().any(|e| {
            json_eq(e, needle)
                || matches!((e, needle), (Value::String(e), Value::String(n)) if e.contains(n.as_str()))
        }),
        Value::Object(members) => members.values().any(|e| json_eq(e, needle)),
        _ => false,
    }
}

fn text_matches(v: &Value, re: &Regex) -> bool {
    match v {
        Value::String(s) => re.is_match(s),
        Value::Array(items) => items.iter().any(|e| text_matches(e, re)),
        other => re.is_match(&other.to_string()),
    }
}

/// The text leaves of a JSON value, in document order: every string as
/// itself, every other scalar (number, boolean, null) as its JSON text.
/// A string that holds JSON text is one leaf: it is not re-parsed.
pub(crate) fn leaves<'a>(v: &'a Value, out: &mut Vec<Cow<'a, str>>) {
    match v {
        Value::String(s) => out.push(Cow::Borrowed(s)),
        Value::Array(items) => items.iter().for_each(|e| leaves(e, out)),
        Value::Object(members) => members.values().for_each(|e| leaves(e, out)),
        other => out.push(Cow::Owned(other.to_string())),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vm(j: Value) -> CompiledValueMatch {
        let spec: ValueMatch = serde_json::from_value(j).unwrap();
        CompiledValueMatch::compile(spec).unwrap()
    }

    /// One row per (matcher, value): the expected answer. `None` = missing.
    #[test]
    fn truth_table() {
        let rows: Vec<(Value, Option<Value>, bool)> = vec![
            // equals, numbers by value, recursive, bare scalar shorthand
            (json!({"equals": 1}), Some(json!(1.0)), true),
            (json!(1), Some(json!(1)), true),
            (json!(1), Some(json!(2)), false),
            (json!(1), Some(json!("1")), false),
            (
                json!({"equals": [1, {"a": 2.0}]}),
                Some(json!([1.0, {"a": 2}])),
                true,
            ),
            (
                json!({"equals": {"a": 1, "b": 2}}),
                Some(json!({"b": 2, "a": 1})),
                true,
            ),
            (
                json!({"equals": {"a": 1}}),
                Some(json!({"a": 1, "b": 2})),
                false,
            ),
            (
                json!({"equals": -1}),
                Some(json!(18446744073709551615u64)),
                false,
            ),
            (json!({"equals": null}), Some(json!(null)), true),
            // exactly, never through a rounding f64: 2^53 + 1 is not 2^53
            (
                json!({"equals": 9_007_199_254_740_992.0}),
                Some(json!(9_007_199_254_740_993u64)),
                false,
            ),
            (
                json!({"equals": 9_007_199_254_740_993u64}),
                Some(json!(9_007_199_254_740_992.0)),
                false,
            ),
            (
                json!({"equals": 9_007_199_254_740_992u64}),
                Some(json!(9_007_199_254_740_992.0)),
                true,
            ),
            (
                json!({"equals": 18_446_744_073_709_551_615u64}),
                Some(json!(18_446_744_073_709_551_616.0)),
                false,
            ),
            (
                json!({"one_of": [-9_223_372_036_854_775_808i64]}),
                Some(json!(-9_223_372_036_854_775_808.0)),
                true,
            ),
            (json!({"equals": 0.5}), Some(json!(0)), false),
            (json!({"equals": 0}), Some(json!(-0.0)), true),
            (json!({"equals": 1e300}), Some(json!(1e300)), true),
            (json!({"contains": 2}), Some(json!([2.5, 2.0])), true),
            (json!("x"), None, false),
            // contains
            (json!({"contains": "ell"}), Some(json!("hello")), true),
            (json!({"contains": "ELL"}), Some(json!("hello")), false),
            (json!({"contains": 5}), Some(json!("a5b")), true),
            (json!({"contains": "b"}), Some(json!(["a", "abc"])), true),
            (json!({"contains": 2}), Some(json!([1, 2.0])), true),
            (json!({"contains": 3}), Some(json!([1, 2])), false),
            (json!({"contains": 2}), Some(json!({"k": 2})), true),
            (json!({"contains": "k"}), Some(json!({"k": 2})), false),
            (json!({"contains": 1}), Some(json!(1)), false),
            (json!({"contains": "a"}), None, false),
            // icontains: Unicode case-insensitive
            (
                json!({"icontains": "ÉCOLE"}),
                Some(json!("une école")),
                true,
            ),
            (json!({"icontains": "x"}), Some(json!(["A", "bX"])), true),
            (json!({"icontains": "tru"}), Some(json!(true)), true),
            (json!({"icontains": "z"}), Some(json!({"a": "z"})), true),
            (json!({"icontains": "q"}), Some(json!("abc")), false),
            // regex: strings, array elements, JSON text of the rest
            (json!({"regex": "^US\\d+$"}), Some(json!("US133")), true),
            (json!({"regex": "^US\\d+$"}), Some(json!("xUS133")), false),
            (json!({"regex": "^b"}), Some(json!(["a", "bc"])), true),
            (json!({"regex": "^12\\.5$"}), Some(json!(12.5)), true),
            (json!({"regex": "."}), None, false),
            // one_of
            (json!({"one_of": ["a", 2]}), Some(json!(2.0)), true),
            (json!({"one_of": ["a", 2]}), Some(json!("b")), false),
            (json!({"one_of": []}), Some(json!("b")), false),
            // exists
            (json!({"exists": true}), Some(json!(0)), true),
            (json!({"exists": true}), Some(json!(null)), false),
            (json!({"exists": true}), None, false),
            (json!({"exists": false}), None, true),
            (json!({"exists": false}), Some(json!(null)), true),
            (json!({"exists": false}), Some(json!("")), false),
            // every condition must hold
            (
                json!({"contains": "a", "regex": "z$"}),
                Some(json!("abz")),
                true,
            ),
            (
                json!({"contains": "a", "regex": "z$"}),
                Some(json!("abzq")),
                false,
            ),
            (json!({"exists": false, "equals": 1}), None, false),
            // the empty matcher holds for anything
            (json!({}), None, true),
            (json!({}), Some(json!([1])), true),
        ];
        for (i, (m, v, want)) in rows.into_iter().enumerate() {
            let got = vm(m.clone()).matches(v.as_ref());
            assert_eq!(got, want, "row {i}: {m} on {v:?}");
        }
    }

    #[test]
    fn bad_regex_names_its_pointer() {
        let spec: ValueMatch = serde_json::from_value(json!({"regex": "("})).unwrap();
        let e = CompiledValueMatch::compile(spec).unwrap_err();
        assert_eq!(e.pointer(), "/regex");
    }

    #[test]
    fn leaves_in_document_order_without_reparsing() {
        let v = json!({"a": "x", "b": [1, true, null, {"c": "{\"d\": 1}"}]});
        let mut out = Vec::new();
        leaves(&v, &mut out);
        assert_eq!(out, vec!["x", "1", "true", "null", "{\"d\": 1}"]);
    }
}
