//! JSON Schema for the `json_schema` predicate: how a schema is compiled
//! (one set of options, used by the contract reader too) and how a
//! validation result becomes an outcome.
//!
//! The validator can give up: a `pattern` whose backtracking engine hits
//! its limit, a regex engine failure, a `$ref` it cannot resolve while
//! validating. Such an error says nothing about the response, so it is
//! never read as "does not conform" (`N`): the turn is undetermined, with
//! the engine's reason (SPEC §1.2; docs/predicates.md, "Limits").

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use pactum_core::text::one_line;
use serde_json::Value;

/// Compiles `schema` the one way pactum compiles every `json_schema`
/// schema: the draft from `$schema` (default 2020-12); `format` asserted
/// for the formats JSON Schema defines (`date-time`, `email`, `ipv4`,
/// `uri`…); an unknown `format` refused, since it could never be checked;
/// references to other files or URLs never fetched.
///
/// # Errors
/// The compiler's error (its `instance_path` points into the schema): the
/// schema is invalid, uses an unknown format, or refers to a schema that
/// cannot be resolved.
pub fn compile_json_schema(schema: &Value) -> Result<Validator, ValidationError<'static>> {
    jsonschema::options()
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false)
        .build(schema)
}

/// What validating one instance says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Conformance {
    /// Valid.
    Conforms,
    /// Invalid: the first error, `at /pointer: message`.
    DoesNotConform(String),
    /// The validator gave up (an engine limit or failure): why.
    GaveUp(String),
}

/// Validates `value`: an error that is the engine giving up wins over
/// every other error, since the validator then reports only what held
/// under each outcome it could not compute, and nothing else is known.
pub(crate) fn conformance(validator: &Validator, value: &Value) -> Conformance {
    let mut first = None;
    for err in validator.iter_errors(value) {
        if let Some(why) = gave_up(&err) {
            return Conformance::GaveUp(why);
        }
        if first.is_none() {
            let at = err.instance_path().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            first = Some(format!("at {at}: {}", one_line(&err.to_string(), 200)));
        }
    }
    first.map_or(Conformance::Conforms, Conformance::DoesNotConform)
}

/// `Some(reason)` when `err`, or an error nested in it (`anyOf`, `oneOf`,
/// `propertyNames`), is the validator giving up rather than a verdict on
/// the value.
fn gave_up(err: &ValidationError<'_>) -> Option<String> {
    let at = || {
        let s = err.schema_path().to_string();
        if s.is_empty() {
            "/".to_string()
        } else {
            s
        }
    };
    match err.kind() {
        ValidationErrorKind::BacktrackLimitExceeded { .. } => Some(format!(
            "the schema's regex engine hit its backtracking limit at schema {}: {}",
            at(),
            one_line(&err.to_string(), 200)
        )),
        ValidationErrorKind::RegexEngineFailure { .. } => Some(format!(
            "the schema's regex engine failed at schema {}: {}",
            at(),
            one_line(&err.to_string(), 200)
        )),
        ValidationErrorKind::Referencing(_) => Some(format!(
            "the validator could not resolve a reference at schema {}: {}",
            at(),
            one_line(&err.to_string(), 200)
        )),
        ValidationErrorKind::AnyOf { context }
        | ValidationErrorKind::OneOfNotValid { context }
        | ValidationErrorKind::OneOfMultipleValid { context } => {
            context.iter().flatten().find_map(|e| gave_up(e))
        }
        ValidationErrorKind::PropertyNames { error } => gave_up(error),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pattern the backtracking engine (a backreference needs it) cannot
    /// finish on a long run of `a`s: nested stars before `\1`.
    const EVIL: &str = r"(a*)*\1c";

    #[test]
    fn an_unfinished_pattern_is_giving_up_never_a_verdict() {
        let long = format!("{}b", "a".repeat(40));
        for schema in [
            json!({"type": "string", "pattern": EVIL}),
            json!({"not": {"type": "string", "pattern": EVIL}}),
            json!({"anyOf": [{"type": "string", "pattern": EVIL}, {"type": "number"}]}),
            json!({"oneOf": [{"pattern": EVIL}, {"const": 1}]}),
            json!({"type": "object", "propertyNames": {"pattern": EVIL}}),
            json!({"if": {"pattern": EVIL}, "then": {"const": 1}, "else": true}),
        ] {
            let v = compile_json_schema(&schema).unwrap();
            let value = if schema.get("propertyNames").is_some() {
                json!({ long.clone(): 1 })
            } else {
                json!(long.clone())
            };
            match conformance(&v, &value) {
                Conformance::GaveUp(why) => {
                    assert!(why.contains("backtracking limit"), "{schema}: {why}");
                }
                other => panic!("{schema}: {other:?}"),
            }
        }
        // Short inputs are decided.
        let v = compile_json_schema(&json!({"type": "string", "pattern": EVIL})).unwrap();
        assert_eq!(conformance(&v, &json!("aac")), Conformance::Conforms);
        assert!(matches!(
            conformance(&v, &json!("aab")),
            Conformance::DoesNotConform(_)
        ));
    }

    #[test]
    fn formats_are_asserted_and_unknown_formats_refused() {
        let v = compile_json_schema(&json!({"type": "string", "format": "email"})).unwrap();
        assert_eq!(
            conformance(&v, &json!("a@example.com")),
            Conformance::Conforms
        );
        assert!(matches!(
            conformance(&v, &json!("not an address")),
            Conformance::DoesNotConform(_)
        ));
        let e = compile_json_schema(&json!({"type": "string", "format": "e-mail"})).unwrap_err();
        assert!(e.to_string().contains("e-mail"), "{e}");
    }

    #[test]
    fn remote_references_are_never_fetched() {
        let e = compile_json_schema(&json!({"$ref": "https://example.com/s.json"})).unwrap_err();
        assert!(!e.to_string().is_empty());
    }

    #[test]
    fn a_real_error_names_where() {
        let v = compile_json_schema(&json!({"type": "object",
            "properties": {"a": {"type": "integer"}}}))
        .unwrap();
        assert_eq!(
            conformance(&v, &json!({"a": "x"})),
            Conformance::DoesNotConform("at /a: \"x\" is not of type \"integer\"".into())
        );
    }
}
