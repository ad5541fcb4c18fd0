//! JSON Schema validation of a [`Document`] with located, human diagnostics.
//!
//! Every error `jsonschema` reports (`iter_errors`, so all of them) is
//! turned into a [`Diagnostic`] at the line and column of the offending key
//! or value, with a message written for the person editing the file. The
//! wording reads the schema itself: a subschema's `title` names the thing
//! ("unknown key `chek` in clause"), its `properties` are the candidates for
//! "did you mean", and `description`s become hints.

use std::collections::BTreeSet;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use pactum_core::json::escape_pointer_token;
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::document::{short, Document, Part};

/// Validates `doc` against the JSON Schema `schema` and returns one
/// diagnostic per problem (all of them, none when the document conforms).
///
/// Codes: `unknown-key`, `missing-key`, `wrong-type`, `bad-value`,
/// `out-of-range`, `empty`, `one-key`, `exclusive-keys`, `schema`; a schema
/// that does not compile gives one `invalid-schema` error.
pub fn validate(doc: &Document, schema: &Value) -> Vec<Diagnostic> {
    match jsonschema::validator_for(schema) {
        Ok(v) => validate_with(doc, &v, schema),
        Err(e) => vec![Diagnostic::error(
            "invalid-schema",
            &doc.path,
            0,
            0,
            format!("the schema used to check this file does not compile: {e}"),
        )],
    }
}

/// [`validate`] with a validator compiled once from `schema`.
pub(crate) fn validate_with(
    doc: &Document,
    validator: &Validator,
    schema: &Value,
) -> Vec<Diagnostic> {
    let errors: Vec<ValidationError<'_>> = validator.iter_errors(&doc.value).collect();
    // Objects with unknown keys: their "too many keys" errors are noise.
    let unknown_at: BTreeSet<(String, usize)> = errors
        .iter()
        .filter_map(|e| match e.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                Some((e.instance_path().as_str().to_string(), unexpected.len()))
            }
            _ => None,
        })
        .collect();
    // A value outside an enum is also of the wrong type when the enum is
    // of strings: the enum's message lists the choices, so it alone speaks.
    let enum_at: BTreeSet<String> = errors
        .iter()
        .filter(|e| matches!(e.kind(), ValidationErrorKind::Enum { .. }))
        .map(|e| e.instance_path().as_str().to_string())
        .collect();
    let mut out = Vec::new();
    for e in &errors {
        if matches!(e.kind(), ValidationErrorKind::Type { .. })
            && enum_at.contains(e.instance_path().as_str())
        {
            continue;
        }
        describe(doc, schema, e, &unknown_at, &mut out);
    }
    out
}

fn describe(
    doc: &Document,
    schema: &Value,
    e: &ValidationError<'_>,
    unknown_at: &BTreeSet<(String, usize)>,
    out: &mut Vec<Diagnostic>,
) {
    let inst = e.instance_path().as_str();
    let schema_path = e.schema_path().as_str();
    let sub_path = schema_path.rsplit_once('/').map_or("", |(p, _)| p);
    let sub = schema.pointer(sub_path).unwrap_or(&Value::Null);
    let title = sub
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("this mapping");
    let description = sub.get("description").and_then(Value::as_str);
    let field = field_name(inst);
    let instance = doc.value.pointer(inst).unwrap_or(&Value::Null);
    let d = match e.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let allowed: Vec<&str> = sub
                .get("properties")
                .and_then(Value::as_object)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            // A key valid one level down, inside a sibling written beside
            // it (`turns` beside `refusal`), belongs there: say so rather
            // than suggest a look-alike key of this mapping.
            let siblings: Vec<&str> = instance
                .as_object()
                .map(|m| {
                    m.keys()
                        .map(String::as_str)
                        .filter(|k| allowed.contains(k))
                        .collect()
                })
                .unwrap_or_default();
            for key in unexpected {
                let ptr = format!("{inst}/{}", escape_pointer_token(key));
                let owners: Vec<&str> = siblings
                    .iter()
                    .copied()
                    .filter(|sib| {
                        sub.pointer(&format!("/properties/{}", escape_pointer_token(sib)))
                            .is_some_and(|s| keys_of(schema, s, 0).iter().any(|k| k == key))
                    })
                    .collect();
                let hint = match (owners.first(), did_you_mean(key, &allowed)) {
                    (Some(owner), _) => format!(
                        "`{}` is a key of `{owner}`: write it inside, `{owner}: {{ …, {}: … }}`",
                        short(key),
                        short(key)
                    ),
                    (None, Some(s)) => format!("did you mean `{s}`?"),
                    (None, None) => format!("expected one of: {}", allowed.join(", ")),
                };
                out.push(
                    doc.error(
                        "unknown-key",
                        &ptr,
                        Part::Key,
                        format!("unknown key `{}` in {title}", short(key)),
                    )
                    .with_hint(hint),
                );
            }
            return;
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let d = doc.error(
                "missing-key",
                inst,
                Part::Value,
                format!("missing key `{name}` in {title}"),
            );
            match sub
                .pointer(&format!(
                    "/properties/{}/description",
                    escape_pointer_token(name)
                ))
                .and_then(Value::as_str)
            {
                Some(what) => d.with_hint(format!("`{name}`: {what}")),
                None => d,
            }
        }
        ValidationErrorKind::Type { .. } => {
            let expected = match sub.get("type") {
                Some(Value::String(t)) => type_name(t).to_string(),
                Some(Value::Array(ts)) => ts
                    .iter()
                    .filter_map(Value::as_str)
                    .map(type_name)
                    .collect::<Vec<_>>()
                    .join(" or "),
                _ => "another type".to_string(),
            };
            let d = doc.error(
                "wrong-type",
                inst,
                Part::Value,
                format!("{field} must be {expected}, found {}", found(instance)),
            );
            // A named definition describes itself; a bare property's
            // description reads better prefixed with its key.
            match (description, sub.get("title")) {
                (Some(h), Some(_)) => d.with_hint(h),
                (Some(h), None) if field.starts_with('`') => d.with_hint(format!("{field}: {h}")),
                _ => d,
            }
        }
        ValidationErrorKind::Enum { options } => {
            let names: Vec<String> = options
                .as_array()
                .map(|a| a.iter().map(plain).collect())
                .unwrap_or_default();
            let d = doc.error(
                "bad-value",
                inst,
                Part::Value,
                format!(
                    "{field} must be one of {}, found {}",
                    names.join(", "),
                    found_value(instance)
                ),
            );
            let candidates: Vec<&str> = names.iter().map(String::as_str).collect();
            match instance.as_str().and_then(|s| did_you_mean(s, &candidates)) {
                Some(s) => d.with_hint(format!("did you mean `{s}`?")),
                None => d,
            }
        }
        ValidationErrorKind::Constant { expected_value } => doc.error(
            "bad-value",
            inst,
            Part::Value,
            format!(
                "{field} must be {}, found {}",
                plain(expected_value),
                found_value(instance)
            ),
        ),
        ValidationErrorKind::Minimum { limit }
        | ValidationErrorKind::ExclusiveMinimum { limit } => doc.error(
            "out-of-range",
            inst,
            Part::Value,
            format!(
                "{field} must be at least {limit}, found {}",
                plain(instance)
            ),
        ),
        ValidationErrorKind::Maximum { limit }
        | ValidationErrorKind::ExclusiveMaximum { limit } => doc.error(
            "out-of-range",
            inst,
            Part::Value,
            format!("{field} must be at most {limit}, found {}", plain(instance)),
        ),
        ValidationErrorKind::MinLength { limit } => doc.error(
            "empty",
            inst,
            Part::Value,
            if *limit == 1 {
                format!("{field} must not be empty")
            } else {
                format!("{field} must be at least {limit} characters long")
            },
        ),
        ValidationErrorKind::MinItems { limit } => {
            let d = doc.error(
                "empty",
                inst,
                Part::Value,
                if *limit == 1 {
                    format!("{field} must list at least one item")
                } else {
                    format!("{field} must list at least {limit} items")
                },
            );
            match description {
                Some(h) => d.with_hint(h),
                None => d,
            }
        }
        ValidationErrorKind::MinProperties { .. } | ValidationErrorKind::MaxProperties { .. } => {
            let keys: Vec<String> = instance
                .as_object()
                .map(|m| m.keys().map(|k| format!("`{}`", short(k))).collect())
                .unwrap_or_default();
            let unknown = unknown_at
                .iter()
                .find(|(p, _)| p == inst)
                .map_or(0, |(_, n)| *n);
            let limit = match e.kind() {
                ValidationErrorKind::MaxProperties { limit } => Some(*limit),
                _ => None,
            };
            if limit.is_some_and(|l| keys.len().saturating_sub(unknown) as u64 <= l) {
                return;
            }
            let message = if keys.is_empty() {
                format!("{title} is empty: it needs exactly one key")
            } else {
                format!(
                    "{title} has {} keys ({}): it takes exactly one",
                    keys.len(),
                    keys.join(", ")
                )
            };
            let d = doc.error("one-key", inst, Part::Value, message);
            match description {
                Some(h) => d.with_hint(h),
                None => d,
            }
        }
        ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::OneOfMultipleValid { .. }
        | ValidationErrorKind::AnyOf { .. } => {
            let alternatives = exclusive_keys(sub, e.kind().keyword());
            let d = match (&alternatives, e.kind()) {
                (Some(keys), ValidationErrorKind::OneOfMultipleValid { .. }) => doc.error(
                    "exclusive-keys",
                    inst,
                    Part::Value,
                    format!(
                        "{title} takes only one of {}, found both",
                        keys.join(" or ")
                    ),
                ),
                (Some(keys), _) => doc.error(
                    "missing-key",
                    inst,
                    Part::Value,
                    format!("{title} needs one of {}", keys.join(" or ")),
                ),
                (None, _) => doc.error(
                    "schema",
                    inst,
                    Part::Value,
                    format!("{field} does not match any allowed form"),
                ),
            };
            match description {
                Some(h) => d.with_hint(h),
                None => d,
            }
        }
        _ => doc.error(
            "schema",
            inst,
            Part::Value,
            format!("{field}: {}", short(&e.to_string())),
        ),
    };
    out.push(d);
}

/// For `oneOf`/`anyOf` whose branches each only require one key, the keys.
fn exclusive_keys(sub: &Value, keyword: &str) -> Option<Vec<String>> {
    sub.get(keyword)?
        .as_array()?
        .iter()
        .map(|b| match b.get("required")?.as_array()?.as_slice() {
            [Value::String(k)] if b.as_object()?.len() == 1 => Some(format!("`{k}`")),
            _ => None,
        })
        .collect()
}

/// Names the node at `pointer` for a message: "`severity`", "item 2 of
/// `all`", "the file".
pub(crate) fn field_name(pointer: &str) -> String {
    // The validator's own instance paths: always pointers.
    let mut tokens = pactum_core::json::pointer_tokens(pointer).unwrap_or_default();
    let Some(last) = tokens.pop() else {
        return "the file".to_string();
    };
    match (last.parse::<usize>(), tokens.last()) {
        (Ok(i), Some(parent)) if !last.starts_with('+') => {
            format!("item {} of `{}`", i + 1, short(parent))
        }
        _ => format!("`{}`", short(&last)),
    }
}

fn type_name(t: &str) -> &str {
    match t {
        "object" => "a mapping",
        "array" => "a list",
        "string" => "a string",
        "integer" => "a whole number",
        "number" => "a number",
        "boolean" => "true or false",
        "null" => "null",
        other => other,
    }
}

/// Describes a found value with its type: "the string `x`", "a list".
fn found(v: &Value) -> String {
    match v {
        Value::Null => "nothing (null)".to_string(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("the number `{n}`"),
        Value::String(s) => format!("the string `{}`", short(s)),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "a mapping".to_string(),
    }
}

/// Describes a found value for "must be one of" messages.
fn found_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("`{}`", short(s)),
        other => found(other),
    }
}

/// A value as a person would write it in the file.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => short(s),
        other => short(&other.to_string()),
    }
}

/// The keys a mapping matching `sub` may hold: its `properties`, through
/// `$ref`s (into `root`) and `oneOf`/`anyOf`/`allOf` alternatives, a few
/// levels deep at most.
fn keys_of(root: &Value, sub: &Value, depth: u8) -> Vec<String> {
    if depth > 4 {
        return Vec::new();
    }
    let mut out: Vec<String> = sub
        .get("properties")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(target) = sub
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
    {
        out.extend(keys_of(root, target, depth + 1));
    }
    for alt in ["oneOf", "anyOf", "allOf"] {
        for s in sub.get(alt).and_then(Value::as_array).into_iter().flatten() {
            out.extend(keys_of(root, s, depth + 1));
        }
    }
    out
}

/// The closest candidate to `word`, if any is close enough to be a typo.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(&lower, c), *c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let keys = ["id", "text", "severity", "check", "judge"];
        assert_eq!(did_you_mean("chek", &keys), Some("check"));
        assert_eq!(did_you_mean("Severity", &keys), Some("severity"));
        assert_eq!(did_you_mean("sevrity", &keys), Some("severity"));
        assert_eq!(did_you_mean("judgement", &keys), Some("judge"));
        assert_eq!(did_you_mean("zzz", &keys), None);
        let kinds = ["tool_called", "tool_sequence", "contains", "icontains"];
        assert_eq!(did_you_mean("tool_caled", &kinds), Some("tool_called"));
        assert_eq!(did_you_mean("tool_call", &kinds), Some("tool_called"));
        assert_eq!(did_you_mean("icontain", &kinds), Some("icontains"));
    }

    #[test]
    fn field_names() {
        assert_eq!(field_name(""), "the file");
        assert_eq!(field_name("/severity"), "`severity`");
        assert_eq!(field_name("/required/0"), "item 1 of `required`");
        assert_eq!(field_name("/check/all/2"), "item 3 of `all`");
        assert_eq!(field_name("/args/~1to"), "`/to`");
        assert_eq!(field_name("/0"), "`0`");
    }
}
