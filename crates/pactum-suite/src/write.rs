//! The YAML writer: a JSON value as block YAML that pactum's reader
//! ([`crate::Document::parse`]) reads back to the same value.
//!
//! Every string value is written double-quoted with JSON's escapes (a
//! subset of YAML's), so no string can read back as a number, a boolean
//! or null (`"0o777"`, `"+.inf"`, `"yes"`, `"null"`); keys are plain only
//! when they are identifiers the core schema reads as strings. The output
//! is read back before it is returned: a writer that could change a
//! contract's meaning fails closed.

use std::path::Path;

use serde_json::Value;

use crate::document::Document;

/// Why a value could not be written as YAML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// Reading the YAML back gave a different value (a number YAML cannot
    /// hold the same way, or a writer bug); nothing is returned.
    #[error("the YAML written does not read back to the same value{}", at.as_ref().map(|a| format!(" (first difference at {a})")).unwrap_or_default())]
    NotRoundTrip {
        /// The JSON pointer of the first difference, when found.
        at: Option<String>,
    },
}

/// `value` as block YAML text ending in a newline: maps as `key: value`,
/// lists as `- item`, empty collections as `{}` and `[]`, strings
/// double-quoted, numbers as JSON writes them.
///
/// # Errors
/// [`WriteError::NotRoundTrip`] when the text would not read back to
/// `value`.
pub fn to_yaml(value: &Value) -> Result<String, WriteError> {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => block(value, 0, &mut out),
        Value::Array(a) if !a.is_empty() => block(value, 0, &mut out),
        other => {
            inline(other, &mut out);
            out.push('\n');
        }
    }
    let back = Document::parse(&out, Path::new("<written>.yaml"))
        .map_err(|_| WriteError::NotRoundTrip { at: None })?;
    if back.diagnostics.iter().any(|d| d.is_error()) || back.value != *value {
        return Err(WriteError::NotRoundTrip {
            at: first_difference(value, &back.value, String::new()),
        });
    }
    Ok(out)
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A key written plain when it is an identifier the core schema reads as
/// itself (not `true`, `null`…), double-quoted otherwise.
fn key(k: &str) -> String {
    let ident = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident && matches!(crate::yaml::resolve_plain(k), Ok(Value::String(_))) {
        k.to_string()
    } else {
        quote(k)
    }
}

fn inline(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => out.push_str(&quote(s)),
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        // Scalars as JSON writes them; a non-empty collection only as a
        // flow value inside `block`, never reached.
        other => out.push_str(&other.to_string()),
    }
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn block(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let item = |lead: String, v: &Value, out: &mut String| {
        out.push_str(&pad);
        out.push_str(&lead);
        if is_block(v) {
            out.push('\n');
            block(v, indent + 2, out);
        } else {
            out.push(' ');
            inline(v, out);
            out.push('\n');
        }
    };
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                item(format!("{}:", key(k)), v, out);
            }
        }
        Value::Array(a) => {
            for v in a {
                if matches!(v, Value::Object(m) if !m.is_empty()) {
                    // `- key: value`, the other keys under the first.
                    let mut inner = String::new();
                    block(v, indent + 2, &mut inner);
                    out.push_str(&pad);
                    out.push_str("- ");
                    out.push_str(&inner[indent + 2..]);
                } else {
                    item("-".into(), v, out);
                }
            }
        }
        other => {
            out.push_str(&pad);
            inline(other, out);
            out.push('\n');
        }
    }
}

fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let here = format!("{at}/{}", pactum_core::json::escape_pointer_token(k));
                match y.get(k) {
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, here) {
                            return Some(d);
                        }
                    }
                    None => return Some(here),
                }
            }
            (x.len() != y.len()).then(|| if at.is_empty() { "/".into() } else { at })
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(v, w, format!("{at}/{i}")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| if at.is_empty() { "/".into() } else { at })
        }
        _ => (a != b).then(|| if at.is_empty() { "/".into() } else { at }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn strings_that_look_like_other_scalars_stay_strings() {
        let v = json!({
            "mode": "0o777", "inf": "+.inf", "nan": ".nan", "yes": "yes", "n": "null",
            "t": "true", "num": "12", "hex": "0x1F", "empty": "", "tilde": "~",
            "multi": "a\nb: c\n- d", "quote": "\"'", "esc": "\u{1b}[31m", "tab": "\t",
            "true": 1, "null": [], "0": {}, "/recipient": "US1", "a b": -2.5, "big": u64::MAX,
        });
        let y = to_yaml(&v).unwrap();
        assert!(y.contains("mode: \"0o777\""), "{y}");
        assert!(y.contains("\"true\": 1"), "{y}");
        let back = Document::parse(&y, Path::new("x.yaml")).unwrap();
        assert_eq!(back.value, v, "{y}");
    }

    #[test]
    fn a_contract_reads_as_a_person_would_write_it() {
        let v = json!({"version": 1, "id": "c", "prohibited": [
            {"id": "p", "text": "Send money", "check": {"tool_called": {"name": "send_money", "args": {"/recipient": "US1"}}}}
        ]});
        assert_eq!(
            to_yaml(&v).unwrap(),
            "version: 1\nid: \"c\"\nprohibited:\n  - id: \"p\"\n    text: \"Send money\"\n    check:\n      tool_called:\n        name: \"send_money\"\n        args:\n          \"/recipient\": \"US1\"\n"
        );
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e300f64..1e300).prop_map(Value::from),
            ".{0,12}".prop_map(Value::String),
            prop::sample::select(vec![
                "0o777", "+.inf", "-.Inf", ".NaN", "0x1f", "1e3", "yes", "No", "~", "null", "- a",
                "a: b", "#c", "&x", "*x", "!t", "%YAML", "@", "`", "|", ">", "'", "\"", " lead",
                "trail ", "\u{feff}", "\u{85}", "\u{2028}",
            ])
            .prop_map(|s| Value::String(s.into())),
        ];
        leaf.prop_recursive(4, 48, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn every_value_reads_back_the_same(v in value()) {
            let y = to_yaml(&v).map_err(|e| TestCaseError::fail(format!("{e}")))?;
            let back = Document::parse(&y, Path::new("x.yaml"))
                .map_err(|e| TestCaseError::fail(format!("{e:?}\n{y}")))?;
            prop_assert_eq!(back.value, v, "{}", y);
        }
    }
}
