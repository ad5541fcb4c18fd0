//! Gemini `generateContent`: a request `{contents: [{role: user|model,
//! parts}], systemInstruction, tools}` and its reply
//! (`candidates[0].content.parts`, `finishReason`; a reply of several
//! candidates is refused), Google AI and Vertex
//! AI alike (`docs/traces.md`, "Gemini contents").
//!
//! Parts read: `text`, `functionCall {name, args, id?}` (calls),
//! `functionResponse {name, response, id?}` (results), `inlineData` /
//! `fileData` (input, no text); `thought: true` parts and
//! `thoughtSignature` are reasoning, kept out of the response (counted in
//! metadata `reasoning_blocks`). Any other part key is an error naming it.
//! Calls carry no id: a `functionResponse` answers the first unanswered
//! call of its name in the model turn before it; one that answers no call
//! marks the trace incomplete, never a silent pairing.

use serde_json::{json, Value};

use super::{http_failure, interaction_parts, json_body, Exchange, Problem};
use crate::convert::{kind, shown};

const PART_KEYS: [&str; 10] = [
    "text",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
    "thought",
    "thoughtSignature",
    "thought_signature",
    "videoMetadata",
    "partMetadata",
];

/// Checks a message's `parts`; returns how many are reasoning.
fn check_parts(parts: Option<&Value>, at: &str) -> Result<usize, Problem> {
    let parts = match parts {
        Some(Value::Array(p)) => p,
        None | Some(Value::Null) => return Ok(0),
        Some(other) => {
            return Err((
                at.to_string(),
                format!("expected an array of parts, found {}", kind(other)),
            ))
        }
    };
    let mut reasoning = 0;
    for (i, p) in parts.iter().enumerate() {
        let Some(o) = p.as_object() else {
            return Err((
                format!("{at}/{i}"),
                format!("expected a part object, found {}", kind(p)),
            ));
        };
        if let Some(k) = o.keys().find(|k| !PART_KEYS.contains(&k.as_str())) {
            return Err((
                format!("{at}/{i}/{}", pactum_core::json::escape_pointer_token(k)),
                format!(
                    "unknown part key `{}` (pactum reads text, functionCall, functionResponse, inlineData, fileData, thought and thoughtSignature)",
                    shown(k)
                ),
            ));
        }
        if o.get("thought") == Some(&Value::Bool(true)) {
            reasoning += 1;
        }
    }
    Ok(reasoning)
}

/// A `{role, parts}` content as a chat message: `user` (and the older
/// `function` / `tool` roles, which hold `functionResponse` parts) and
/// `model`.
fn content_message(c: &Value, at: &str, reply: bool) -> Result<(Value, usize), Problem> {
    let Some(o) = c.as_object() else {
        return Err((
            at.to_string(),
            format!("expected a content object, found {}", kind(c)),
        ));
    };
    let role = match o.get("role").and_then(Value::as_str) {
        Some("model") => "model",
        Some("user" | "function" | "tool") if !reply => "user",
        None if reply => "model",
        Some(other) => {
            return Err((
                format!("{at}/role"),
                format!("unknown role `{}`: expected user or model", shown(other)),
            ))
        }
        None => return Err((format!("{at}/role"), "missing role".into())),
    };
    let reasoning = check_parts(o.get("parts"), &format!("{at}/parts"))?;
    let parts = o.get("parts").cloned().unwrap_or(Value::Null);
    Ok((json!({"role": role, "parts": parts}), reasoning))
}

/// One cassette interaction.
pub(crate) fn exchange(it: &Value, at: &str) -> Result<Exchange, Problem> {
    let (body, status, text) = interaction_parts(it, at)?;
    let body_at = format!("{at}/request/body");
    let Some(obj) = body.as_object() else {
        return Err((
            body_at,
            format!("expected a request object, found {}", kind(&body)),
        ));
    };
    let mut sent = Vec::new();
    let mut sent_offset = 0;
    match obj
        .get("systemInstruction")
        .or_else(|| obj.get("system_instruction"))
    {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            sent.push(json!({"role": "system", "content": s}));
            sent_offset = 1;
        }
        Some(Value::Object(si)) => {
            check_parts(
                si.get("parts"),
                &format!("{body_at}/systemInstruction/parts"),
            )?;
            sent.push(
                json!({"role": "system", "parts": si.get("parts").cloned().unwrap_or(Value::Null)}),
            );
            sent_offset = 1;
        }
        Some(other) => {
            return Err((
                format!("{body_at}/systemInstruction"),
                format!("expected a content object, found {}", kind(other)),
            ))
        }
    }
    let contents = match obj.get("contents") {
        Some(Value::Array(c)) => c,
        Some(other) => {
            return Err((
                format!("{body_at}/contents"),
                format!("expected an array of contents, found {}", kind(other)),
            ))
        }
        None => {
            return Err((
                format!("{body_at}/contents"),
                "no `contents`: not a Gemini generateContent request".into(),
            ))
        }
    };
    for (i, c) in contents.iter().enumerate() {
        let (m, _) = content_message(c, &format!("{body_at}/contents/{i}"), false)?;
        sent.push(m);
    }
    let mut ex = Exchange {
        sent,
        sent_at: format!("{body_at}/contents"),
        sent_offset,
        reply: None,
        failure: None,
        stop: None,
        thinking: 0,
    };
    if let Some(code) = status.filter(|c| !(200..300).contains(c)) {
        ex.failure = Some(http_failure(code, text.as_deref()));
        return Ok(ex);
    }
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(ex);
    };
    let rat = format!("{at}/response/body/string");
    let v = json_body(&text, &rat)?;
    if let Some(e) = v.get("error") {
        ex.failure = Some(format!(
            "the API answered an error: {}",
            shown(
                e.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
            )
        ));
        return Ok(ex);
    }
    let candidates = match v.get("candidates") {
        Some(Value::Array(c)) => c.as_slice(),
        None | Some(Value::Null) => &[],
        Some(other) => {
            return Err((
                format!("{rat}/candidates"),
                format!("expected an array, found {}", kind(other)),
            ))
        }
    };
    if candidates.len() > 1 {
        return Err((
            format!("{rat}/candidates"),
            format!(
                "{} candidates: which one the application acted on is not recorded, and reading one would drop the others' calls",
                candidates.len()
            ),
        ));
    }
    let Some(first) = candidates.first() else {
        if let Some(reason) = v.pointer("/promptFeedback/blockReason") {
            ex.failure = Some(format!(
                "the prompt was blocked ({})",
                shown(&reason.to_string())
            ));
        }
        return Ok(ex);
    };
    ex.stop = first.get("finishReason").cloned();
    match first.get("content") {
        None | Some(Value::Null) => {}
        Some(c) => {
            let (m, reasoning) = content_message(c, &format!("{rat}/candidates/0/content"), true)?;
            ex.reply = Some(m);
            ex.thinking = reasoning;
        }
    }
    Ok(ex)
}
