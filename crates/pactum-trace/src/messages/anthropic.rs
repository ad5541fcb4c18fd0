//! Anthropic Messages: a request `{system?, messages: [{role, content:
//! string | blocks}]}` and its reply (`content` blocks, `stop_reason`),
//! as JSON or as a server-sent event stream; and the Claude Agent SDK's
//! message stream (`docs/traces.md`, "Anthropic Messages").
//!
//! Blocks read: `text`, `tool_use` / `server_tool_use` / `mcp_tool_use`
//! (calls), `*tool_result` (results: `is_error: true` makes the call
//! errored, still made), `image` / `document` (input, no text);
//! `thinking` / `redacted_thinking` are reasoning, kept out of the
//! response and counted in metadata `reasoning_blocks`. Any other block
//! type is an error naming it. A stream holds one message: a second
//! `message_start`, a block started twice, a delta after its block
//! stopped, or an event after `message_stop` is an error.

use serde_json::{json, Map, Value};

use super::{http_failure, interaction_parts, json_body, Exchange, Problem};
use crate::convert::{kind, shown, Conv, RecordCtx};

/// Block types that carry no call and no response text pactum reads.
const PLAIN: [&str; 4] = ["text", "image", "document", "search_result"];
const REASONING: [&str; 2] = ["thinking", "redacted_thinking"];

/// Checks a message's `content` (a string or blocks): every block has a
/// known type. Returns how many reasoning blocks it holds.
pub(crate) fn check_content(content: Option<&Value>, at: &str) -> Result<usize, Problem> {
    let blocks = match content {
        None | Some(Value::Null | Value::String(_)) => return Ok(0),
        Some(Value::Array(b)) => b,
        Some(other) => {
            return Err((
                at.to_string(),
                format!(
                    "expected a string or an array of content blocks, found {}",
                    kind(other)
                ),
            ))
        }
    };
    let mut reasoning = 0;
    for (i, b) in blocks.iter().enumerate() {
        let ty = match b.get("type") {
            Some(Value::String(t)) => t.as_str(),
            _ => {
                return Err((
                    format!("{at}/{i}/type"),
                    "a content block without a string `type`".into(),
                ))
            }
        };
        if REASONING.contains(&ty) {
            reasoning += 1;
        } else if !(PLAIN.contains(&ty) || ty.ends_with("tool_use") || ty.ends_with("tool_result"))
        {
            return Err((
                format!("{at}/{i}/type"),
                format!(
                    "unknown content block type `{}` (pactum reads text, image, document, tool_use, server_tool_use, mcp_tool_use, *tool_result, thinking and redacted_thinking)",
                    shown(ty)
                ),
            ));
        }
    }
    Ok(reasoning)
}

/// The request's conversation: the system prompt (a string or text
/// blocks) first, then the messages.
fn sent(body: &Value, at: &str) -> Result<(Vec<Value>, usize), Problem> {
    let Some(obj) = body.as_object() else {
        return Err((
            at.to_string(),
            format!("expected a request object, found {}", kind(body)),
        ));
    };
    let mut out = Vec::new();
    let mut offset = 0;
    match obj.get("system") {
        None | Some(Value::Null) => {}
        Some(s @ (Value::String(_) | Value::Array(_))) => {
            check_content(Some(s), &format!("{at}/system"))?;
            out.push(json!({"role": "system", "content": s}));
            offset = 1;
        }
        Some(other) => {
            return Err((
                format!("{at}/system"),
                format!("expected a string or text blocks, found {}", kind(other)),
            ))
        }
    }
    let msgs = match obj.get("messages") {
        Some(Value::Array(m)) => m,
        Some(other) => {
            return Err((
                format!("{at}/messages"),
                format!("expected an array of messages, found {}", kind(other)),
            ))
        }
        None => {
            return Err((
                format!("{at}/messages"),
                "no `messages`: not an Anthropic Messages request".into(),
            ))
        }
    };
    for (i, m) in msgs.iter().enumerate() {
        let mat = format!("{at}/messages/{i}");
        match m.get("role").and_then(Value::as_str) {
            Some("user" | "assistant") => {}
            Some(other) => {
                return Err((
                    format!("{mat}/role"),
                    format!(
                        "unknown role `{}`: expected user or assistant",
                        shown(other)
                    ),
                ))
            }
            None => return Err((format!("{mat}/role"), "missing role".into())),
        }
        check_content(m.get("content"), &format!("{mat}/content"))?;
        out.push(m.clone());
    }
    Ok((out, offset))
}

/// A reply (`{type: message, role: assistant, content, stop_reason}`) as
/// an assistant message (`None` without `content`), its stop reason and
/// reasoning count.
fn reply_message(v: &Value, at: &str) -> Result<(Option<Value>, Option<Value>, usize), Problem> {
    if v.get("role").and_then(Value::as_str) != Some("assistant") {
        return Err((
            format!("{at}/role"),
            "expected the reply of the assistant (`role: assistant`)".into(),
        ));
    }
    let content = v.get("content");
    let thinking = check_content(content, &format!("{at}/content"))?;
    let stop = v.get("stop_reason").filter(|s| !s.is_null()).cloned();
    // A reply whose content was not recorded (a redacting recorder): what
    // the model said and called is unknown, not empty.
    let reply = match content {
        None | Some(Value::Null) => None,
        Some(c) => Some(json!({"role": "assistant", "content": c.clone()})),
    };
    Ok((reply, stop, thinking))
}

/// A streamed reply (server-sent events): blocks assembled from
/// `content_block_start` and their deltas, tool inputs from the
/// concatenated `input_json_delta.partial_json` fragments (kept as the
/// recorded text when they do not form JSON). Returns the reply (or the
/// error event's message). One stream is one message: a second
/// `message_start`, a block started twice, a delta after its block
/// stopped and any event after `message_stop` are errors (which reply the
/// application read is not guessed); blocks `message_start` already
/// holds come first.
#[allow(clippy::type_complexity)]
fn sse(
    text: &str,
    at: &str,
) -> Result<(Option<Value>, Option<Value>, usize, Option<String>), Problem> {
    let mut blocks: Vec<Option<Map<String, Value>>> = Vec::new();
    let mut partial: Vec<String> = Vec::new();
    let mut stopped: Vec<bool> = Vec::new();
    let mut stop = None;
    let mut failure = None;
    let mut started = false;
    let mut ended = false;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("event:") {
            continue;
        }
        let lat = format!("{at} (event stream line {})", n + 1);
        let Some(data) = line.strip_prefix("data:") else {
            return Err((lat, format!("unexpected line `{}`", shown(line))));
        };
        let ev = json_body(data.trim(), &lat)?;
        let ty = ev.get("type").and_then(Value::as_str).unwrap_or_default();
        if ty == "message_start" && started {
            return Err((
                lat,
                "a second `message_start`: the stream holds two messages, and which one the application read is not recorded".into(),
            ));
        }
        if ended {
            return Err((
                lat,
                format!(
                    "a `{}` event after `message_stop`: the stream holds more than the one message it ended",
                    shown(ty)
                ),
            ));
        }
        if !started && !matches!(ty, "message_start" | "ping" | "error") {
            return Err((
                lat,
                format!("a `{}` event before `message_start`", shown(ty)),
            ));
        }
        let index = || -> Result<usize, Problem> {
            ev.get("index")
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .filter(|i| *i < 10_000)
                .ok_or_else(|| (lat.clone(), "an event without a usable `index`".into()))
        };
        match ty {
            "message_start" => {
                started = true;
                match ev.pointer("/message/content") {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(c)) => {
                        for (i, b) in c.iter().enumerate() {
                            let Value::Object(b) = b else {
                                return Err((
                                    lat,
                                    format!("`message.content` {i}: expected a content block object, found {}", kind(b)),
                                ));
                            };
                            blocks.push(Some(b.clone()));
                            partial.push(String::new());
                            stopped.push(true);
                        }
                    }
                    Some(other) => {
                        return Err((
                            lat,
                            format!(
                                "`message.content`: expected an array of content blocks, found {}",
                                kind(other)
                            ),
                        ))
                    }
                }
            }
            "content_block_start" => {
                let i = index()?;
                let Some(Value::Object(b)) = ev.get("content_block") else {
                    return Err((lat, "`content_block_start` without a block".into()));
                };
                if blocks.len() <= i {
                    blocks.resize(i + 1, None);
                    partial.resize(i + 1, String::new());
                    stopped.resize(i + 1, false);
                }
                if blocks[i].is_some() {
                    return Err((
                        lat,
                        format!("content block {i} starts again: which of the two the reply holds is not guessed"),
                    ));
                }
                blocks[i] = Some(b.clone());
            }
            "content_block_delta" => {
                let i = index()?;
                let Some(Some(b)) = blocks.get_mut(i) else {
                    return Err((lat, format!("a delta for block {i}, which never started")));
                };
                if stopped[i] {
                    return Err((
                        lat,
                        format!("a delta for block {i} after its `content_block_stop`"),
                    ));
                }
                let delta = ev.get("delta").cloned().unwrap_or(Value::Null);
                let piece = |k: &str| -> Result<String, Problem> {
                    delta
                        .get(k)
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| (lat.clone(), format!("a delta without `{k}`")))
                };
                match delta
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                {
                    "text_delta" => append(b, "text", &piece("text")?),
                    "thinking_delta" => append(b, "thinking", &piece("thinking")?),
                    "input_json_delta" => partial[i].push_str(&piece("partial_json")?),
                    "signature_delta" | "citations_delta" => {}
                    other => return Err((lat, format!("unknown delta type `{}`", shown(other)))),
                }
            }
            "content_block_stop" => {
                let i = index()?;
                match (blocks.get(i), stopped.get_mut(i)) {
                    (Some(Some(_)), Some(s)) if !*s => *s = true,
                    _ => {
                        return Err((
                            lat,
                            format!("`content_block_stop` for block {i}, which is not open"),
                        ))
                    }
                }
            }
            "message_delta" => {
                stop = ev
                    .pointer("/delta/stop_reason")
                    .filter(|s| !s.is_null())
                    .cloned();
            }
            "message_stop" => ended = true,
            "ping" => {}
            "error" => {
                failure = Some(
                    ev.pointer("/error/message")
                        .and_then(Value::as_str)
                        .unwrap_or("the stream ended in an error event")
                        .to_string(),
                );
            }
            other => {
                return Err((lat, format!("unknown event type `{}`", shown(other))));
            }
        }
    }
    if !started {
        return Ok((None, None, 0, failure));
    }
    let mut content = Vec::new();
    for (i, b) in blocks.into_iter().enumerate() {
        let Some(mut b) = b else {
            return Err((at.to_string(), format!("content block {i} never started")));
        };
        let text = std::mem::take(&mut partial[i]);
        if !text.is_empty() {
            let input = match pactum_core::json::parse_strict(text.as_bytes()) {
                Ok(v @ Value::Object(_)) => v,
                // Kept as recorded: argument checks on it are undetermined.
                _ => Value::String(text),
            };
            b.insert("input".into(), input);
        }
        content.push(Value::Object(b));
    }
    let content = Value::Array(content);
    let thinking = check_content(Some(&content), &format!("{at}/content"))?;
    Ok((
        Some(json!({"role": "assistant", "content": content})),
        stop,
        thinking,
        failure,
    ))
}

fn append(b: &mut Map<String, Value>, key: &str, piece: &str) {
    let cur = b.get(key).and_then(Value::as_str).unwrap_or_default();
    let joined = format!("{cur}{piece}");
    b.insert(key.to_string(), Value::String(joined));
}

/// One cassette interaction.
pub(crate) fn exchange(it: &Value, at: &str) -> Result<Exchange, Problem> {
    let (body, status, text) = interaction_parts(it, at)?;
    let sent_at = format!("{at}/request/body");
    let (sent, sent_offset) = sent(&body, &sent_at)?;
    let body_at = format!("{at}/response/body/string");
    let mut ex = Exchange {
        sent,
        sent_at: format!("{sent_at}/messages"),
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
    let t = text.trim_start();
    if t.starts_with("event:") || t.starts_with("data:") {
        let (reply, stop, thinking, failure) = sse(&text, &body_at)?;
        ex.reply = reply;
        ex.stop = stop;
        ex.thinking = thinking;
        ex.failure = failure;
        return Ok(ex);
    }
    let v = json_body(&text, &body_at)?;
    if v.get("type").and_then(Value::as_str) == Some("error") {
        ex.failure = Some(format!(
            "the API answered an error: {}",
            shown(
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
            )
        ));
        return Ok(ex);
    }
    let (reply, stop, thinking) = reply_message(&v, &body_at)?;
    ex.reply = reply;
    ex.stop = stop;
    ex.thinking = thinking;
    Ok(ex)
}

/// A Claude Agent SDK message stream (`messages:` of `type` system /
/// assistant / user / result, plus the SDK's `control_response`): one
/// trace. `assistant` and `user` messages carry an Anthropic message under
/// `message`; the final `result` says whether the run failed
/// (`is_error`). A message of a subagent (`parent_tool_use_id` set) is
/// refused: its turns would mix with the main agent's.
pub(crate) fn agent_sdk(items: &[Value], ctx: &RecordCtx<'_>, why: &str) -> Conv {
    let mut messages = Vec::new();
    let mut pointers = Vec::new();
    let mut reasoning = 0;
    let mut replied = false;
    let mut failure = None;
    let mut session = None;
    let mut result_meta = Map::new();
    for (i, m) in items.iter().enumerate() {
        let at = format!("/messages/{i}");
        let err = |field: String, msg: String| Conv::Error(ctx.error(Some(&field), msg));
        let ty = m.get("type").and_then(Value::as_str).unwrap_or_default();
        if let Some(s) = m.get("session_id").and_then(Value::as_str) {
            session.get_or_insert_with(|| s.to_string());
        }
        match m.get("parent_tool_use_id") {
            None | Some(Value::Null) => {}
            Some(_) => {
                return err(
                    format!("{at}/parent_tool_use_id"),
                    "a subagent's message (`parent_tool_use_id` set): pactum does not read subagent streams".into(),
                )
            }
        }
        match ty {
            "system" | "control_response" | "control_request" => {}
            "assistant" | "user" => {
                let Some(msg) = m.get("message").and_then(Value::as_object) else {
                    return err(format!("{at}/message"), "expected a message object".into());
                };
                let role = if ty == "assistant" { "assistant" } else { "user" };
                match check_content(msg.get("content"), &format!("{at}/message/content")) {
                    Ok(n) => reasoning += n,
                    Err((f, e)) => return err(f, e),
                }
                if ty == "assistant" {
                    replied = true;
                }
                messages.push(json!({"role": role, "content": msg.get("content").cloned().unwrap_or(Value::Null)}));
                pointers.push(format!("{at}/message"));
            }
            "result" => {
                for k in ["subtype", "is_error", "num_turns", "stop_reason"] {
                    if let Some(v) = m.get(k) {
                        result_meta.insert(k.to_string(), v.clone());
                    }
                }
                match m.get("is_error") {
                    Some(Value::Bool(true)) => {
                        failure = Some(format!(
                            "the agent run ended in an error ({})",
                            shown(
                                m.get("subtype")
                                    .and_then(Value::as_str)
                                    .unwrap_or("no subtype")
                            )
                        ));
                    }
                    None | Some(Value::Bool(false)) => {}
                    Some(other) => {
                        return err(
                            format!("{at}/is_error"),
                            format!("expected a boolean, found {}", kind(other)),
                        )
                    }
                }
            }
            other => {
                return err(
                    format!("{at}/type"),
                    format!(
                        "unknown message type `{}` (pactum reads system, assistant, user, result and control_response)",
                        shown(other)
                    ),
                )
            }
        }
    }
    let mut metadata = Map::new();
    metadata.insert("format".into(), json!("anthropic"));
    metadata.insert("detected_as".into(), json!(why));
    metadata.insert(
        "grouped_by".into(),
        json!("Claude Agent SDK stream: the whole file is one run"),
    );
    if !result_meta.is_empty() {
        metadata.insert("result".into(), Value::Object(result_meta));
    }
    if reasoning > 0 {
        metadata.insert("reasoning_blocks".into(), json!(reasoning));
    }
    messages.iter_mut().for_each(super::trim_ids);
    let id = session.unwrap_or_else(|| ctx.fallback_id());
    let locate = |i: usize| pointers.get(i).cloned().unwrap_or_default();
    super::finish_trace(messages, &locate, ctx, id, metadata, replied, failure)
}
