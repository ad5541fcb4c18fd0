//! LangChain messages as chat messages (`docs/traces.md`, "LangChain
//! messages"): the Python dict form `{type: human|ai|tool|system|chat|
//! function, content, tool_calls, invalid_tool_calls, tool_call_id, …}`
//! and the LangChain.js serialised form `{lc: 1, type: "constructor", id:
//! [..., "AIMessage"], kwargs: {…}}` become `{role, …}` messages that
//! [`pactum_core::chat`] decodes (OpenAI chat dicts pass unchanged).
//! `invalid_tool_calls` are kept: the decoder reads each as a call that was
//! made and errored. An unknown message type or class is an error.

use serde_json::{Map, Value};

use super::Problem;
use crate::convert::{kind, shown};

/// The role of a LangChain.js message class.
fn class_role(class: &str) -> Option<&'static str> {
    Some(match class.trim_end_matches("Chunk") {
        "HumanMessage" => "user",
        "AIMessage" => "assistant",
        "SystemMessage" => "system",
        "ToolMessage" => "tool",
        "FunctionMessage" => "function",
        "ChatMessage" => "",
        _ => return None,
    })
}

/// The role of a Python LangChain message `type`.
fn type_role(t: &str) -> Option<&'static str> {
    Some(match t {
        "human" => "user",
        "ai" => "assistant",
        "system" => "system",
        "tool" => "tool",
        "function" => "function",
        "chat" => "",
        // Streaming chunks name their class.
        "AIMessageChunk" => "assistant",
        "HumanMessageChunk" => "user",
        "ToolMessageChunk" => "tool",
        "SystemMessageChunk" => "system",
        _ => return None,
    })
}

/// Keys of a LangChain message that are bookkeeping, dropped so that the
/// chat decoder does not see them (`id` is the message's, not a call's).
const BOOKKEEPING: [&str; 6] = [
    "id",
    "name",
    "example",
    "response_metadata",
    "usage_metadata",
    "lc_attributes",
];

/// One message as a chat message with `role`.
pub(crate) fn to_role_message(v: &Value, at: &str) -> Result<Value, Problem> {
    let Some(o) = v.as_object() else {
        return Err((
            at.to_string(),
            format!("expected a message object, found {}", kind(v)),
        ));
    };
    if o.contains_key("role") {
        return Ok(v.clone());
    }
    let (fields, role): (&Map<String, Value>, &str) = if o.get("lc").is_some()
        && o.get("type").and_then(Value::as_str) == Some("constructor")
    {
        let class = o
            .get("id")
            .and_then(Value::as_array)
            .and_then(|p| p.last())
            .and_then(Value::as_str)
            .unwrap_or_default();
        let role = class_role(class).ok_or_else(|| {
                (
                    format!("{at}/id"),
                    format!(
                        "unknown LangChain.js message class `{}` (pactum reads HumanMessage, AIMessage, SystemMessage, ToolMessage, FunctionMessage, ChatMessage and their chunks)",
                        shown(class)
                    ),
                )
            })?;
        let Some(Value::Object(kw)) = o.get("kwargs") else {
            return Err((
                format!("{at}/kwargs"),
                "a serialised message without `kwargs`".into(),
            ));
        };
        (kw, role)
    } else {
        let t = match o.get("type") {
            Some(Value::String(t)) => t.as_str(),
            _ => {
                return Err((
                    format!("{at}/type"),
                    "a message with neither `role` nor a LangChain `type`".into(),
                ))
            }
        };
        let role = type_role(t).ok_or_else(|| {
                (
                    format!("{at}/type"),
                    format!(
                        "unknown LangChain message type `{}` (pactum reads human, ai, system, tool, function and chat)",
                        shown(t)
                    ),
                )
            })?;
        // The dict may nest its fields under `data` (`messages_to_dict`).
        match o.get("data") {
            Some(Value::Object(d)) => (d, role),
            _ => (o, role),
        }
    };
    let mut out = Map::new();
    let role = if role.is_empty() {
        match fields.get("role") {
            Some(Value::String(r)) => r.clone(),
            _ => {
                return Err((
                    format!("{at}/role"),
                    "a ChatMessage without a string `role`".into(),
                ))
            }
        }
    } else {
        role.to_string()
    };
    out.insert("role".into(), Value::String(role));
    for (k, val) in fields {
        if k == "type" || k == "role" || BOOKKEEPING.contains(&k.as_str()) {
            continue;
        }
        // A chunk's partial calls, when the assembled `tool_calls` are
        // there: the same calls.
        if k == "tool_call_chunks" && fields.contains_key("tool_calls") {
            continue;
        }
        // Empty containers say nothing; the decoder would read them the
        // same, but `additional_kwargs: {}` beside `tool_calls` is common.
        out.insert(k.clone(), val.clone());
    }
    Ok(Value::Object(out))
}

/// A list of messages (or a JSON text holding one) as chat messages.
pub(crate) fn chat_list(v: &Value, at: &str) -> Result<Vec<Value>, Problem> {
    let decoded;
    let v = match v {
        Value::String(s) => {
            decoded = super::json_body(s, at)?;
            &decoded
        }
        other => other,
    };
    match v {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, m)| to_role_message(m, &format!("{at}/{i}")))
            .collect(),
        other => Err((
            at.to_string(),
            format!("expected an array of messages, found {}", kind(other)),
        )),
    }
}
