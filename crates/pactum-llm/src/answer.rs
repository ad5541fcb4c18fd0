//! Reading a model's answer that must be exactly one JSON object: the
//! judge's (SPEC §3.4) and the interpreter's (SPEC §3.6), and asking again
//! after a malformed one.
//!
//! The WHOLE content must be the object; only one surrounding Markdown code
//! fence may be stripped. Nothing else is searched, so an object the target
//! wrote and the model quoted inside prose is never picked up.

use pactum_core::text::{one_line, truncate_chars};
use serde::de::DeserializeOwned;

use crate::client::{ChatMessage, ChatRequest};

/// Longest earlier answer repeated back to a model when asking it to
/// correct a malformed one, in characters.
pub const ECHO_MAX_CHARS: usize = 4_000;

/// Why a model's answer is not the JSON object asked for. Each message is
/// a bounded fragment; callers retry with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The answer was empty (or only whitespace, or an empty fence).
    #[error("the answer is empty")]
    Empty,
    /// The answer is not exactly one JSON value (prose around it, several
    /// values, truncated output…).
    #[error("the answer is not one JSON object (line {line}, column {column}): {detail}")]
    NotJson {
        /// 1-based line of the problem in the answer (fence stripped).
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser said.
        detail: String,
    },
    /// The answer is JSON but not the required object: a missing, unknown
    /// or duplicate field, a wrong type, a value out of range.
    #[error("the answer does not follow the answer schema: {detail}")]
    Schema {
        /// What was wrong.
        detail: String,
    },
}

/// Strips one Markdown code fence (```` ``` ```` or ```` ```json ````)
/// around the whole answer; anything else is returned trimmed, unchanged.
pub fn strip_code_fence(s: &str) -> &str {
    let t = s.trim();
    let Some(body) = t.strip_prefix("```").and_then(|r| r.strip_suffix("```")) else {
        return t;
    };
    let Some((info, inner)) = body.split_once('\n') else {
        return t;
    };
    let info = info.trim();
    if (info.is_empty() || info.eq_ignore_ascii_case("json")) && !inner.contains("```") {
        inner.trim()
    } else {
        t
    }
}

/// Reads `content` as exactly one `T` (a `deny_unknown_fields` struct of
/// the answer schema), after [`strip_code_fence`]. `T` must hold no
/// `serde_json::Value`: serde's derived structs refuse a repeated field
/// (`"verdict"` twice is a [`AnswerError::Schema`] error, never read
/// last-wins; SPEC §3.4, §4), but a `Value` inside would not.
///
/// # Errors
/// [`AnswerError::Empty`] for nothing; [`AnswerError::Schema`] for JSON of
/// the wrong shape (serde's data errors); [`AnswerError::NotJson`] for the
/// rest.
pub fn parse_json_object<T: DeserializeOwned>(content: &str) -> Result<T, AnswerError> {
    let body = strip_code_fence(content);
    if body.is_empty() {
        return Err(AnswerError::Empty);
    }
    serde_json::from_str(body).map_err(|e| {
        let detail = one_line(&e.to_string(), 200);
        match e.classify() {
            serde_json::error::Category::Data => AnswerError::Schema { detail },
            _ => AnswerError::NotJson {
                line: e.line(),
                column: e.column(),
                detail,
            },
        }
    })
}

/// A `confidence` field (judge, SPEC §3.4; interpreter, SPEC §3.6): a
/// number in 0–100, rounded **down** to an integer. The prompts ask for an
/// integer; a fraction is tolerated rather than retried, but never raised:
/// 49.6 is 49, so it cannot cross a threshold of 50 the model did not
/// reach.
///
/// # Errors
/// [`AnswerError::Schema`] for a number outside 0–100.
pub fn confidence(n: &serde_json::Number) -> Result<u8, AnswerError> {
    match n.as_f64() {
        // In range, so the floor fits a u8 exactly.
        Some(c) if (0.0..=100.0).contains(&c) => Ok(c.floor() as u8),
        _ => Err(AnswerError::Schema {
            detail: format!("confidence {n} is outside 0–100"),
        }),
    }
}

/// The follow-up request after a malformed answer: the original
/// conversation `base`, the bad answer (bounded to [`ECHO_MAX_CHARS`]), and
/// what was wrong with it (`why`), asking again for exactly one JSON object
/// "with `fields`" and nothing else.
pub fn correction_request(base: &ChatRequest, bad: &str, why: &str, fields: &str) -> ChatRequest {
    let mut req = base.clone();
    req.messages
        .push(ChatMessage::assistant(truncate_chars(bad, ECHO_MAX_CHARS)));
    req.messages.push(ChatMessage::user(format!(
        "Your previous answer could not be used: {why}. Answer again with exactly one JSON \
         object with {fields}, and nothing else."
    )));
    req
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct A {
        a: u8,
    }

    #[test]
    fn one_fence_may_be_stripped_and_nothing_else() {
        assert_eq!(strip_code_fence("  {}  "), "{}");
        assert_eq!(strip_code_fence("```json\n{}\n```"), "{}");
        assert_eq!(strip_code_fence("```JSON\n{}\n```"), "{}");
        assert_eq!(strip_code_fence("```\n{}\n```"), "{}");
        assert_eq!(strip_code_fence("```yaml\n{}\n```"), "```yaml\n{}\n```");
        assert_eq!(strip_code_fence("```{}```"), "```{}```");
        assert_eq!(
            strip_code_fence("```\n{}\n```\n```\n{}\n```"),
            "```\n{}\n```\n```\n{}\n```"
        );
    }

    #[test]
    fn the_whole_content_is_the_object() {
        assert_eq!(
            parse_json_object::<A>("```json\n{\"a\": 1}\n```"),
            Ok(A { a: 1 })
        );
        assert_eq!(parse_json_object::<A>(" \n "), Err(AnswerError::Empty));
        assert_eq!(
            parse_json_object::<A>("```\n\n```"),
            Err(AnswerError::Empty)
        );
        for prose in [
            "Sure: {\"a\": 1}",
            "{\"a\": 1} done",
            "{\"a\": 1}{\"a\": 1}",
            "{\"a\"",
        ] {
            assert!(
                matches!(
                    parse_json_object::<A>(prose),
                    Err(AnswerError::NotJson { .. })
                ),
                "{prose}"
            );
        }
        // A repeated field (a judge's `verdict` twice) is refused, never
        // read last-wins: the answer structs are derived, and serde's
        // derived visitor refuses a duplicate field.
        assert_eq!(
            parse_json_object::<A>("{\"a\": 1, \"a\": 2}"),
            Err(AnswerError::Schema {
                detail: "duplicate field `a` at line 1 column 12".into()
            })
        );
        for wrong in ["{\"a\": 1, \"b\": 2}", "{}", "{\"a\": \"x\"}", "[]"] {
            assert!(
                matches!(
                    parse_json_object::<A>(wrong),
                    Err(AnswerError::Schema { .. })
                ),
                "{wrong}"
            );
        }
    }

    #[test]
    fn confidences_are_0_to_100_rounded_down() {
        let n = |v: serde_json::Value| v.as_number().cloned().expect("number");
        assert_eq!(confidence(&n(serde_json::json!(0))), Ok(0));
        // Never raised: 49.6 must not pass a threshold of 50.
        assert_eq!(confidence(&n(serde_json::json!(49.6))), Ok(49));
        assert_eq!(confidence(&n(serde_json::json!(99.6))), Ok(99));
        assert_eq!(confidence(&n(serde_json::json!(0.4))), Ok(0));
        assert_eq!(confidence(&n(serde_json::json!(100.0))), Ok(100));
        assert_eq!(confidence(&n(serde_json::json!(100))), Ok(100));
        assert!(confidence(&n(serde_json::json!(101))).is_err());
        assert!(confidence(&n(serde_json::json!(-1))).is_err());
    }
}
