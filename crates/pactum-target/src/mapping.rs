//! The parts of a target's answer, read from JSON: the http target's
//! response mapping (JSONPath, RFC 9535) and the tool-call and side-effect
//! shapes shared with the exec protocol.
//!
//! Rules (documented in `docs/targets.md`):
//! * `text` is required: a path that matches nothing is a protocol error
//!   (a wrong mapping, or an error body, must never read as "the target
//!   said nothing"); a match of `null` is "no text"; a string is the text;
//!   anything else is a protocol error.
//! * `tool_calls`, `side_effects`, `conversation_id` are optional: a path
//!   that matches nothing, or `null`, means none (APIs often omit empty
//!   lists). A match of the wrong type is a protocol error.
//! * The first match of a path counts.

use pactum_core::text::one_line;
use pactum_core::trace::{SideEffect, ToolCall};
use serde_json::{Map, Value};
use serde_json_path::JsonPath;

use crate::error::TargetError;
use pactum_suite::ResponseMap;

/// What a mapping read from one answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Mapped {
    pub text: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub side_effects: Vec<SideEffect>,
    pub conversation_id: Option<String>,
}

#[derive(Debug, Clone)]
struct Path {
    source: String,
    path: JsonPath,
}

/// A compiled [`ResponseMap`].
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    text: Path,
    tool_calls: Option<Path>,
    side_effects: Option<Path>,
    conversation_id: Option<Path>,
}

fn compile(target: &str, field: &str, source: &str) -> Result<Path, TargetError> {
    JsonPath::parse(source)
        .map(|path| Path {
            source: source.to_string(),
            path,
        })
        .map_err(|e| TargetError::Config {
            target: target.to_string(),
            field: format!("response.{field}"),
            reason: format!(
                "`{}` is not a JSONPath: {}",
                one_line(source, 120),
                one_line(&e.to_string(), 200)
            ),
        })
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Mapping {
    /// Compiles every path of `map`.
    ///
    /// # Errors
    /// [`TargetError::Config`] naming `response.FIELD` for a path that does
    /// not parse.
    pub(crate) fn new(target: &str, map: &ResponseMap) -> Result<Self, TargetError> {
        let opt = |field: &str, p: &Option<String>| {
            p.as_deref().map(|s| compile(target, field, s)).transpose()
        };
        Ok(Mapping {
            text: compile(target, "text", &map.text)?,
            tool_calls: opt("tool_calls", &map.tool_calls)?,
            side_effects: opt("side_effects", &map.side_effects)?,
            conversation_id: opt("conversation_id", &map.conversation_id)?,
        })
    }

    /// Whether a tool-call path is configured.
    pub(crate) fn has_tool_calls(&self) -> bool {
        self.tool_calls.is_some()
    }

    /// Whether a side-effect path is configured.
    pub(crate) fn has_side_effects(&self) -> bool {
        self.side_effects.is_some()
    }

    /// Reads the answer's parts from `body`.
    ///
    /// # Errors
    /// A fragment naming the mapping field and path, with a bounded excerpt.
    pub(crate) fn apply(&self, body: &Value) -> Result<Mapped, String> {
        let first = |p: &Path| p.path.query(body).first().cloned();
        let text = match first(&self.text) {
            None => {
                return Err(format!(
                    "response.text `{}` matches nothing in the answer `{}`",
                    one_line(&self.text.source, 120),
                    one_line(&body.to_string(), 200)
                ))
            }
            Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                return Err(format!(
                    "response.text `{}` matched {}, not a string or null",
                    one_line(&self.text.source, 120),
                    type_name(&other)
                ))
            }
        };
        let tool_calls = match self.tool_calls.as_ref().and_then(first) {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => tool_calls(&v, "response.tool_calls")?,
        };
        let side_effects = match self.side_effects.as_ref().and_then(first) {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => side_effects(&v, "response.side_effects")?,
        };
        let conversation_id = match self.conversation_id.as_ref().and_then(first) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(other) => {
                return Err(format!(
                    "response.conversation_id matched {}, not a string, a number or null",
                    type_name(&other)
                ))
            }
        };
        Ok(Mapped {
            text,
            tool_calls,
            side_effects,
            conversation_id,
        })
    }
}

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{at} is {}, not an object", type_name(v)))
}

fn array<'a>(v: &'a Value, at: &str) -> Result<&'a Vec<Value>, String> {
    v.as_array()
        .ok_or_else(|| format!("{at} is {}, not an array", type_name(v)))
}

fn required_string(m: &Map<String, Value>, key: &str, at: &str) -> Result<String, String> {
    match m.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(format!("{at}.{key} is empty")),
        Some(v) => Err(format!("{at}.{key} is {}, not a string", type_name(v))),
        None => Err(format!("{at}.{key} is missing")),
    }
}

/// An array of `{name, arguments?, result?, error?, id?}` as tool calls.
/// Arguments that are a string holding JSON are parsed (as pactum-llm does
/// with OpenAI's JSON-encoded arguments); missing or null arguments are
/// `{}`. Other keys are ignored.
pub(crate) fn tool_calls(v: &Value, at: &str) -> Result<Vec<ToolCall>, String> {
    let items = array(v, at)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let m = object(item, &at)?;
        let name = required_string(m, "name", &at)?;
        let arguments = match m.get("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::String(s.clone())),
            Some(v) => v.clone(),
        };
        let result = match m.get("result") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.clone()),
        };
        let error = match m.get("error") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => Some(v.to_string()),
        };
        let id = match m.get("id") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => Some(v.to_string()),
        };
        out.push(ToolCall {
            id,
            name,
            arguments,
            result,
            error,
        });
    }
    Ok(out)
}

/// An array of `{kind, details?}` as side effects (missing details are
/// `null`). Other keys are ignored.
pub(crate) fn side_effects(v: &Value, at: &str) -> Result<Vec<SideEffect>, String> {
    let items = array(v, at)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let m = object(item, &at)?;
        out.push(SideEffect {
            kind: required_string(m, "kind", &at)?,
            details: m.get("details").cloned().unwrap_or(Value::Null),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(text: &str) -> ResponseMap {
        ResponseMap {
            text: text.into(),
            tool_calls: Some("$.calls".into()),
            side_effects: Some("$.effects".into()),
            conversation_id: Some("$.conversation.id".into()),
        }
    }

    #[test]
    fn every_part_is_read_from_its_first_match() {
        let m = Mapping::new("t", &map("$.output[*].text")).expect("compiles");
        let got = m
            .apply(&json!({
                "output": [{"text": "first"}, {"text": "second"}],
                "calls": [
                    {"name": "refund", "arguments": "{\"order\": \"A1\"}", "result": {"ok": true}, "id": 7, "type": "function"},
                    {"name": "lookup", "arguments": "not json", "error": "timeout"},
                    {"name": "noop"}
                ],
                "effects": [{"kind": "email_sent", "details": {"to": "a@b"}}, {"kind": "log"}],
                "conversation": {"id": 42}
            }))
            .expect("maps");
        assert_eq!(got.text.as_deref(), Some("first"));
        assert_eq!(
            got.tool_calls,
            vec![
                ToolCall {
                    id: Some("7".into()),
                    name: "refund".into(),
                    arguments: json!({"order": "A1"}),
                    result: Some(json!({"ok": true})),
                    error: None
                },
                ToolCall {
                    id: None,
                    name: "lookup".into(),
                    arguments: json!("not json"),
                    result: None,
                    error: Some("timeout".into())
                },
                ToolCall {
                    id: None,
                    name: "noop".into(),
                    arguments: json!({}),
                    result: None,
                    error: None
                },
            ]
        );
        assert_eq!(
            got.side_effects,
            vec![
                SideEffect {
                    kind: "email_sent".into(),
                    details: json!({"to": "a@b"})
                },
                SideEffect {
                    kind: "log".into(),
                    details: Value::Null
                }
            ]
        );
        assert_eq!(got.conversation_id.as_deref(), Some("42"));
    }

    #[test]
    fn text_is_required_but_optional_parts_may_be_absent() {
        let m = Mapping::new("t", &map("$.text")).expect("compiles");
        let none = m.apply(&json!({"text": null})).expect("null text");
        assert_eq!(none, Mapped::default());
        let err = m.apply(&json!({"txt": "hi"})).expect_err("no match");
        assert!(
            err.contains("response.text `$.text` matches nothing"),
            "{err}"
        );
        assert!(err.contains("\"txt\""), "{err}");
        for (body, why) in [
            (json!({"text": 5}), "matched a number"),
            (json!({"text": ["a"]}), "matched an array"),
            (
                json!({"text": "a", "calls": {"name": "x"}}),
                "response.tool_calls is an object",
            ),
            (
                json!({"text": "a", "calls": [{"arguments": {}}]}),
                "response.tool_calls[0].name is missing",
            ),
            (
                json!({"text": "a", "calls": [{"name": ""}]}),
                "response.tool_calls[0].name is empty",
            ),
            (
                json!({"text": "a", "calls": ["x"]}),
                "response.tool_calls[0] is a string",
            ),
            (
                json!({"text": "a", "effects": [{"kind": 1}]}),
                "response.side_effects[0].kind is a number",
            ),
            (
                json!({"text": "a", "conversation": {"id": [1]}}),
                "response.conversation_id matched an array",
            ),
        ] {
            let err = m.apply(&body).expect_err(why);
            assert!(err.contains(why), "{why}: {err}");
        }
    }

    #[test]
    fn bad_paths_are_config_errors_naming_the_field() {
        let mut bad = map("$.text");
        bad.side_effects = Some("$[".into());
        match Mapping::new("t", &bad) {
            Err(TargetError::Config { field, .. }) => assert_eq!(field, "response.side_effects"),
            other => panic!("{other:?}"),
        }
        match Mapping::new("t", &map("text")) {
            Err(TargetError::Config { field, .. }) => assert_eq!(field, "response.text"),
            other => panic!("{other:?}"),
        }
    }
}
