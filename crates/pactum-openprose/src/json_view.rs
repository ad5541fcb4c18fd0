//! How an output reads as JSON, decided once for every measure: one
//! strict JSON value, text that looks like JSON but that pactum does not
//! decode exactly, or Markdown text. For a JSON value, the decoded text a
//! text measure reads: its string values, never its keys.

use serde_json::Value;

use crate::rendered::{self, render};

/// How an output reads.
#[derive(Debug)]
pub(crate) enum View {
    /// One strict JSON value, no key repeated anywhere
    /// ([`crate::check::as_json`]).
    Json(Value),
    /// Text a JSON or near-JSON reader reads as structured values that
    /// pactum does not decode exactly (a repeated key, several values,
    /// a Python list): what it is, for a rationale.
    JsonLike(&'static str),
    /// Markdown text.
    Text,
}

/// Reads `content` (the whole output) as [`View`].
pub(crate) fn view(content: &str) -> View {
    if let Some(v) = crate::check::as_json(content) {
        return View::Json(v);
    }
    json_like(content).map_or(View::Text, View::JsonLike)
}

/// Why `content` reads as structured values pactum does not decode
/// exactly, if it does: a JSON value with a repeated key (every parser
/// keeps the last value), several JSON values (one per line or parted by
/// commas, scalars too), text in braces that is no JSON, or a bracketed,
/// comma-parted sequence of any quoting (`['a', 'b']`, `[a, b]`,
/// `("a", "b")`, a trailing comma).
fn json_like(content: &str) -> Option<&'static str> {
    let t = content.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|r| r.strip_suffix("```"))
        .unwrap_or(t)
        .trim();
    if t.is_empty() || pactum_core::json::parse_strict(t).is_ok() {
        return None;
    }
    if serde_json::from_str::<Value>(t).is_ok() {
        return Some(
            "is JSON with a key repeated in one object (every reader keeps its last value only)",
        );
    }
    if several_values(t) {
        return Some("holds several JSON values (one per line or parted by commas)");
    }
    let first = t.chars().next()?;
    let after_bracket = t[first.len_utf8()..].trim_start();
    match first {
        '{' => Some("opens like a JSON object but is no strict JSON value"),
        '[' if after_bracket.starts_with(['"', '\'', '{', '[']) => {
            Some("opens like a JSON array but is no strict JSON value")
        }
        _ if bracketed(t) => Some(
            "is a bracketed, comma-parted sequence that is no strict JSON (a Python list or tuple, a YAML flow sequence)",
        ),
        _ => None,
    }
}

/// Whether `content` (a whole output, or one fenced block's body) reads
/// as structured values pactum does not decode exactly: JSON with a
/// repeated key, several values, a bracketed sequence that is no JSON.
pub(crate) fn near_json(content: &str) -> bool {
    json_like(content).is_some()
}

/// Whether one line of text is values in sequence: two or more JSON
/// values parted by commas or spaces (`"a", "b"`, `1, 2`), or a
/// bracketed, comma-parted sequence ([`bracketed`]).
pub(crate) fn sequence(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && (several_values(t) || bracketed(t))
}

/// Whether `t` is `[…]` holding a comma (`['a', 'b']`, `[a, b]`, a
/// trailing comma), or `(…)` holding two or more quoted strings or
/// numbers ([`tuple`]).
fn bracketed(t: &str) -> bool {
    let inner = |open: char, close: char| t.strip_prefix(open).and_then(|r| r.strip_suffix(close));
    inner('[', ']').is_some_and(|i| i.contains(',')) || inner('(', ')').is_some_and(tuple)
}

/// Whether `t` is two or more JSON values one after another, parted by
/// white space or one comma each, and nothing else.
fn several_values(t: &str) -> bool {
    let mut rest = t;
    let mut n = 0;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return n >= 2;
        }
        if n > 0 {
            if let Some(r) = rest.strip_prefix(',') {
                rest = r.trim_start();
            }
        }
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match values.next() {
            Some(Ok(_)) => {
                rest = &rest[values.byte_offset()..];
                n += 1;
            }
            _ => return false,
        }
    }
}

/// Whether `inner` (inside parentheses) is two or more comma-parted
/// quoted strings or numbers: a tuple, not a parenthetical remark.
fn tuple(inner: &str) -> bool {
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    let value = |p: &str| {
        (p.len() >= 2
            && ((p.starts_with('"') && p.ends_with('"'))
                || (p.starts_with('\'') && p.ends_with('\''))))
            || p.parse::<f64>().is_ok()
    };
    parts.len() >= 2
        && parts
            .iter()
            .enumerate()
            .all(|(i, p)| value(p) || (p.is_empty() && i == parts.len() - 1))
}

/// The string values of `v`, decoded, in document order: not its keys,
/// nor numbers, booleans and `null`.
pub(crate) fn strings(v: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    walk(v, None, &mut |_, s| out.push(s));
    out
}

/// `v`'s string values ([`strings`]), one paragraph each: the text a
/// reader of the JSON reads as what the output says.
pub(crate) fn said(v: &Value) -> String {
    strings(v).join("\n\n")
}

/// Whether a string value reads as metadata rather than prose, in a
/// script written with spaces (where one word may be a sentence): at
/// most three words parted by white space (an id, a code, a timestamp, a
/// model name, a status or language code: `a1b2c3`,
/// `2026-12-01T10:00:00Z`, `gpt-4o`, `Claude 3.5 Sonnet`, `completed`,
/// `en-US`), or no word of small letters only (a date or a name: `Mon,
/// 01 Dec 2026 10:00:00 GMT`). Like a number or a boolean, it may be an
/// answer, but it is no text of the service's own that a copy rule could
/// weigh.
pub(crate) fn token_like(s: &str) -> bool {
    let t = s.trim();
    let lower_word = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        w.chars().count() >= 2 && w.chars().all(char::is_lowercase)
    };
    !t.is_empty()
        && !t.chars().any(rendered::unspaced_script)
        && (t.split_whitespace().count() <= 3 || !t.split_whitespace().any(lower_word))
}

/// The prose of `v` beside metadata: its string values that are not
/// [`token_like`] (blank ones aside), one paragraph each, when it holds
/// both kinds. `None` when it holds only one kind: then every string
/// value is what it says ([`said`]).
pub(crate) fn prose_beside_tokens(v: &Value) -> Option<String> {
    let (mut prose, mut tokens) = (Vec::new(), false);
    walk(v, None, &mut |_, s| {
        if pactum_core::text::is_blank(s) {
            return;
        }
        if token_like(s) {
            tokens = true;
        } else {
            prose.push(s);
        }
    });
    (tokens && !prose.is_empty()).then(|| prose.join("\n\n"))
}

/// `v`'s string values one paragraph each, each after the key it is
/// under and a colon (`excluded: Daikin`): what a value says read with
/// the name that frames it.
pub(crate) fn keyed(v: &Value) -> String {
    let mut out = Vec::new();
    walk(v, None, &mut |k, s| {
        out.push(match k {
            Some(k) => format!("{k}: {s}"),
            None => s.to_string(),
        });
    });
    out.join("\n\n")
}

/// What `v` writes besides its string values: its keys, numbers and
/// booleans, one paragraph each. Written, but said by no value.
pub(crate) fn structure(v: &Value) -> String {
    let mut out: Vec<String> = Vec::new();
    fn go(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    out.push(k.clone());
                    go(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| go(x, out)),
            Value::Number(n) => out.push(n.to_string()),
            Value::Bool(b) => out.push(b.to_string()),
            Value::String(_) | Value::Null => {}
        }
    }
    go(v, &mut out);
    out.join("\n\n")
}

/// Calls `f` with each string value of `v` and the key it is under (an
/// array's elements under the array's key).
fn walk<'a>(v: &'a Value, key: Option<&'a str>, f: &mut impl FnMut(Option<&'a str>, &'a str)) {
    match v {
        Value::String(s) => f(key, s),
        Value::Array(a) => a.iter().for_each(|x| walk(x, key, f)),
        Value::Object(o) => o.iter().for_each(|(k, x)| walk(x, Some(k), f)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Whether the object `v` leaves a field empty (`""`, blank, `null`,
/// `{}`, in it or in an object under it)
/// while every string value it fills is metadata ([`token_like`]: an id,
/// a model name, a status word): `{"summary": "", "model": "gpt-4o",
/// "status": "completed"}` is the envelope of an answer that is not
/// there, not the answer.
pub(crate) fn empty_beside_metadata(v: &Value) -> bool {
    // Objects only, down from the top: an array's element left blank
    // is an item missing a field, which `each` reads.
    fn empty_field(v: &Value) -> bool {
        match v {
            Value::Object(o) => o.values().any(|x| match x {
                Value::Null => true,
                Value::String(s) => pactum_core::text::is_blank(s),
                Value::Object(m) => m.is_empty() || empty_field(x),
                Value::Array(_) | Value::Bool(_) | Value::Number(_) => false,
            }),
            _ => false,
        }
    }
    let mut filled = true;
    walk(v, None, &mut |_, s| {
        if !pactum_core::text::is_blank(s) && !token_like(s) {
            filled = false;
        }
    });
    filled && empty_field(v)
}

/// Whether `v` holds nothing but placeholders: no number or boolean, and
/// [`placeholder_strings`].
pub(crate) fn placeholders_only(v: &Value) -> bool {
    !scalars(v) && placeholder_strings(v)
}

/// Whether `v` holds a number or a boolean.
pub(crate) fn scalars(v: &Value) -> bool {
    match v {
        Value::Bool(_) | Value::Number(_) => true,
        Value::Array(a) => a.iter().any(scalars),
        Value::Object(o) => o.values().any(scalars),
        Value::String(_) | Value::Null => false,
    }
}

/// Whether every string value of `v` is blank or a placeholder
/// ([`rendered::placeholder_value`], its own key too), one at least.
pub(crate) fn placeholder_strings(v: &Value) -> bool {
    let (mut any, mut all) = (false, true);
    walk(v, None, &mut |k, s| {
        if pactum_core::text::is_blank(s) {
            return;
        }
        any = true;
        all &= rendered::placeholder_value(s, k);
    });
    any && all
}

/// Whether a string value of `v` holds Markdown structure a renderer
/// would show: a table, a heading, a list item or several paragraphs
/// (or their HTML).
pub(crate) fn holds_markdown(v: &Value) -> bool {
    strings(v).into_iter().any(|s| {
        let r = render(s);
        !r.tables.is_empty()
            || !r.headings.is_empty()
            || !r.items.is_empty()
            || r.paragraphs.len() > 1
            || r.html_headings > 0
            || rendered::html_rows(&r)
            || rendered::html_items(&r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn like(t: &str) -> bool {
        matches!(view(t), View::JsonLike(_))
    }

    #[test]
    fn what_looks_like_json() {
        for t in [
            "\"a\"\n\"b\"",
            "1\n2",
            "true false",
            "\"a\", \"b\"",
            "{\"a\":1}\n{\"a\":2}",
            "{\"a\":1,\"a\":2}",
            "['a', 'b']",
            "[a, b]",
            "[\"a\", \"b\",]",
            "(\"a\", \"b\")",
            "(1, 2)",
            "{a: 1}",
            "[\"a\", \"b\"",
        ] {
            assert!(like(t), "{t}");
        }
        for t in [
            "[Summary]",
            "(blank)",
            "(see below, and above)",
            "[Daikin](https://www.daikin.com/) leads, then Vaillant.",
            "2024 was a good year, 2025 too.",
            "\"Hello,\" she said.",
            "Daikin, Vaillant",
        ] {
            assert!(matches!(view(t), View::Text), "{t}");
        }
        assert!(matches!(view("[\"a\"]"), View::Json(_)));
    }

    #[test]
    fn short_values_are_metadata_beside_prose() {
        for t in [
            "a1b2c3",
            "2026-12-01T10:00:00Z",
            "gpt-4o",
            "completed",
            "en",
            "in progress",
            "Claude 3.5 Sonnet",
            "Mon, 01 Dec 2026 10:00:00 GMT",
        ] {
            assert!(token_like(t), "{t}");
        }
        for t in ["", "  ", "Costs fell by a fifth", "固态电池的成本下降了"] {
            assert!(!token_like(t), "{t}");
        }
        let v: Value =
            serde_json::from_str(r#"{"summary":"Costs fell by a fifth","model":"gpt-4o","n":1}"#)
                .unwrap();
        assert_eq!(
            prose_beside_tokens(&v).as_deref(),
            Some("Costs fell by a fifth")
        );
        let v: Value = serde_json::from_str(r#"{"summary":"Costs fell by a fifth"}"#).unwrap();
        assert_eq!(prose_beside_tokens(&v), None);
    }

    #[test]
    fn said_is_values_only() {
        let v: Value =
            serde_json::from_str(r#"{"k":"a\/b","n":1,"o":{"x":["c",true,null]}}"#).unwrap();
        assert_eq!(said(&v), "a/b\n\nc");
        assert_eq!(structure(&v), "k\n\nn\n\n1\n\no\n\nx\n\ntrue");
        assert!(placeholders_only(
            &serde_json::from_str(r#"{"title":"Title","b":"(blank)","c":["<string>"]}"#).unwrap()
        ));
        assert!(!placeholders_only(
            &serde_json::from_str(r#"{"title":"Daikin"}"#).unwrap()
        ));
    }
}
