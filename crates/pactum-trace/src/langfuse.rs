//! Langfuse trace exports read by their own fields (`{trace,
//! observations}`), not by OpenTelemetry attributes (that is
//! `langfuse-otel`): observations become spans for the OpenTelemetry
//! builder (`docs/traces.md`, "Langfuse").
//!
//! * `GENERATION`: an LLM call (tool definitions listed among its input
//!   messages as `role: tool` without a `tool_call_id` are dropped). `input` / `output` (objects, or JSON text)
//!   in the framework's own shape: a list of messages, `{messages: […]}`,
//!   or one message; OpenAI chat dicts, LangChain dicts and LangChain.js
//!   constructors, Anthropic content blocks, GenAI `parts` messages. A
//!   plain text input is one user message, a plain text output one
//!   assistant message. An input of any other shape is not captured (it
//!   only places turns); an output of any other shape is an error (it holds
//!   the calls). A missing output: not captured (the response is
//!   unobserved, never "").
//! * `TOOL`, and a `SPAN` that names a tool (its `metadata.attributes`
//!   say `gen_ai.tool.name`, or its name, without a `tool.` prefix, is a
//!   tool a generation called): a tool execution. Name: `gen_ai.tool.name`
//!   else the observation's name; id: `gen_ai.tool.call.id`, else the
//!   output's `tool_call_id`; arguments: `input` (`x` for `{input: x}` when
//!   a requested call of that id, else name, has `x` as arguments); result: `output` (a LangChain tool message's
//!   `content`; its `status: error` is the call's error).
//! * `AGENT`: an agent invocation; anything else: structure only.
//!
//! `level: ERROR` + `statusMessage` is the observation's error: an errored
//! tool is an errored call, still made. An error reported only inside a
//! tool's output payload (`"response_status": "Error"`) is the tool's
//! answer, not read as an error. The trace's `sessionId` groups traces.

use std::collections::{BTreeMap, BTreeSet};

use pactum_core::trace::ToolCall;

use serde_json::{json, Map, Value};

use crate::convert::kind;
use crate::langsmith::{CHAT_INPUT, CHAT_OUTPUT};
use crate::messages::langchain;
use crate::otel::span::{err, id_str, rfc3339_utc, Found, Span};

/// Whether a record is a Langfuse trace export.
pub(crate) fn sniff(v: &Value) -> bool {
    v.get("trace").is_some_and(Value::is_object)
        && v.get("observations").is_some_and(Value::is_array)
}

/// A field that may be JSON text: decoded when it is (strictly), kept as
/// text otherwise.
fn field(v: Option<&Value>) -> Value {
    match v {
        None => Value::Null,
        Some(Value::String(s)) => {
            let t = s.trim_start();
            if t.starts_with(['{', '[', '"']) {
                pactum_core::json::parse_strict(s.as_bytes())
                    .unwrap_or_else(|_| Value::String(s.clone()))
            } else {
                Value::String(s.clone())
            }
        }
        Some(other) => other.clone(),
    }
}

fn attributes(o: &Value) -> Map<String, Value> {
    match field(o.get("metadata")).get("attributes") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    }
}

/// Whether a message is one (has a role, a LangChain type, or is a
/// LangChain.js constructor).
fn is_message(v: &Value) -> bool {
    v.get("role").is_some_and(Value::is_string)
        || v.get("lc").is_some()
        || v.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| matches!(t, "human" | "ai" | "system" | "tool" | "function" | "chat"))
}

/// The messages a generation's `input` or `output` holds; `None` when it
/// is not a shape pactum reads.
fn messages_of(v: &Value, default_role: &str) -> Option<Vec<Value>> {
    match v {
        Value::Array(items) if items.iter().all(is_message) => Some(items.clone()),
        Value::Object(o) => match o.get("messages") {
            Some(Value::Array(items)) if items.iter().all(is_message) => Some(items.clone()),
            _ if is_message(v) => Some(vec![v.clone()]),
            _ => None,
        },
        Value::String(s) => Some(vec![json!({"role": default_role, "content": s})]),
        _ => None,
    }
}

/// Sets the attributes of a generation's messages: GenAI `parts`
/// messages as `gen_ai.*.messages`, every other shape (normalised to
/// `role`) as pactum's chat attribute.
fn set_messages(
    attrs: &mut BTreeMap<String, Value>,
    msgs: Vec<Value>,
    genai_key: &str,
    chat_key: &str,
    at: &str,
) -> Result<(), (String, String)> {
    let genai = msgs.iter().all(|m| {
        m.get("parts").is_some_and(Value::is_array)
            && m.get("parts")
                .and_then(Value::as_array)
                .is_some_and(|p| p.iter().all(|x| x.get("type").is_some()))
    });
    if genai {
        attrs.insert(genai_key.into(), Value::Array(msgs));
    } else {
        let list = langchain::chat_list(&Value::Array(msgs), at)?;
        attrs.insert(chat_key.into(), Value::Array(list));
    }
    Ok(())
}

/// A tool definition Langfuse's LangChain handler lists among a
/// generation's input messages (`{role: tool, content: {type: function,
/// function: {name, parameters, …}}}`, no `tool_call_id`): what the model
/// was offered, not a tool result.
fn is_tool_definition(m: &Value) -> bool {
    m.get("role").and_then(Value::as_str) == Some("tool")
        && m.get("tool_call_id").is_none()
        && m.get("content")
            .and_then(|c| c.get("type"))
            .and_then(Value::as_str)
            == Some("function")
        && m.pointer("/content/function/name").is_some()
}

/// The calls generations of the trace requested (for SPANs named after a
/// tool, and for reading a tool's `{input: …}` wrapper).
fn requested(obs: &[Value]) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    for o in obs {
        if o.get("type").and_then(Value::as_str) != Some("GENERATION") {
            continue;
        }
        let Some(msgs) = messages_of(&field(o.get("output")), "assistant") else {
            continue;
        };
        for m in msgs {
            let Ok(Value::Object(m)) = langchain::to_role_message(&m, "") else {
                continue;
            };
            let mut m = m;
            m.remove("role");
            if let Ok(t) = pactum_core::chat::message_tools(&m) {
                calls.extend(t.calls);
            }
        }
    }
    calls
}

/// A tool observation's arguments: its `input`, or `x` when the input is
/// `{input: x}` and a call the generations requested (same id, else same
/// name) has exactly `x` as its arguments: the wrapper some integrations
/// add, unwrapped only when the recording shows it is one.
fn arguments(input: &Value, name: &str, id: Option<&str>, calls: &[ToolCall]) -> Value {
    let Some(inner) = input
        .as_object()
        .filter(|m| m.len() == 1)
        .and_then(|m| m.get("input"))
    else {
        return input.clone();
    };
    let same = calls.iter().any(|c| {
        let who = match (id, c.id.as_deref()) {
            (Some(a), Some(b)) => a.trim() == b.trim(),
            _ => c.name == name,
        };
        who && c.arguments == *inner
    });
    if same {
        inner.clone()
    } else {
        input.clone()
    }
}

/// The spans of one Langfuse export.
pub(crate) fn spans(doc: &Value, line: u64) -> Found {
    let mut spans = Vec::new();
    let mut errors = Vec::new();
    let Some(Value::Array(obs)) = doc.get("observations") else {
        errors.push(err(
            None,
            "/observations".into(),
            "no `observations` array: not a Langfuse trace export",
        ));
        return (spans, errors);
    };
    let session = doc
        .get("trace")
        .and_then(|t| t.get("sessionId"))
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty());
    let calls = requested(obs);
    let tools: BTreeSet<String> = calls.iter().map(|c| c.name.clone()).collect();
    for (i, o) in obs.iter().enumerate() {
        let at = format!("/observations/{i}");
        let Some(trace_id) = id_str(o.get("traceId")) else {
            errors.push(err(
                None,
                format!("{at}/traceId"),
                "missing or empty trace id",
            ));
            continue;
        };
        let tid = Some(trace_id.as_str());
        let Some(span_id) = id_str(o.get("id")) else {
            errors.push(err(
                tid,
                format!("{at}/id"),
                "missing or empty observation id",
            ));
            continue;
        };
        let Some(start) = o
            .get("startTime")
            .and_then(Value::as_str)
            .and_then(rfc3339_utc)
        else {
            errors.push(err(
                tid,
                format!("{at}/startTime"),
                "missing, or not a UTC RFC 3339 time",
            ));
            continue;
        };
        let name = o
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let error = match o.get("level").and_then(Value::as_str) {
            Some("ERROR") => Some(
                o.get("statusMessage")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .unwrap_or("level ERROR")
                    .to_string(),
            ),
            _ => None,
        };
        let ty = o.get("type").and_then(Value::as_str).unwrap_or_default();
        let md = attributes(o);
        let mut attrs: BTreeMap<String, Value> = BTreeMap::new();
        let tool_name = md
            .get("gen_ai.tool.name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| {
                let bare = name.strip_prefix("tool.").unwrap_or(&name);
                (ty == "TOOL" || tools.contains(bare)).then(|| {
                    if ty == "TOOL" {
                        name.clone()
                    } else {
                        bare.to_string()
                    }
                })
            });
        match ty {
            "GENERATION" => {
                attrs.insert("gen_ai.operation.name".into(), json!("chat"));
                let input = field(o.get("input"));
                if let Some(mut msgs) = messages_of(&input, "user") {
                    msgs.retain(|m| !is_tool_definition(m));
                    if let Err((f, m)) = set_messages(
                        &mut attrs,
                        msgs,
                        "gen_ai.input.messages",
                        CHAT_INPUT,
                        &format!("{at}/input"),
                    ) {
                        errors.push(err(tid, f, m));
                        continue;
                    }
                }
                let output = field(o.get("output"));
                if !output.is_null() {
                    let Some(msgs) = messages_of(&output, "assistant") else {
                        errors.push(err(
                            tid,
                            format!("{at}/output"),
                            format!(
                                "a generation output pactum cannot read ({}; expected messages, one message or text)",
                                kind(&output)
                            ),
                        ));
                        continue;
                    };
                    if let Err((f, m)) = set_messages(
                        &mut attrs,
                        msgs,
                        "gen_ai.output.messages",
                        CHAT_OUTPUT,
                        &format!("{at}/output"),
                    ) {
                        errors.push(err(tid, f, m));
                        continue;
                    }
                }
            }
            "TOOL" | "SPAN" if tool_name.is_some() => {
                attrs.insert("gen_ai.operation.name".into(), json!("execute_tool"));
                attrs.insert("gen_ai.tool.name".into(), json!(tool_name));
                let input = field(o.get("input"));
                let output = field(o.get("output"));
                // A LangChain tool message as the output: its content is
                // the result, its status says whether the call failed.
                let lc_tool = output.get("type").and_then(Value::as_str) == Some("tool");
                let call_id = md
                    .get("gen_ai.tool.call.id")
                    .cloned()
                    .or_else(|| output.get("tool_call_id").cloned())
                    .filter(|v| !v.is_null());
                if let Some(cid) = call_id {
                    attrs.insert("gen_ai.tool.call.id".into(), cid);
                }
                if !input.is_null() {
                    let id = attrs.get("gen_ai.tool.call.id").and_then(Value::as_str);
                    let name = tool_name.as_deref().unwrap_or_default();
                    attrs.insert(
                        "gen_ai.tool.call.arguments".into(),
                        arguments(&input, name, id, &calls),
                    );
                }
                let result = if lc_tool {
                    output.get("content").cloned().unwrap_or(Value::Null)
                } else {
                    output.clone()
                };
                if !result.is_null() {
                    attrs.insert("gen_ai.tool.call.result".into(), result.clone());
                }
                if lc_tool && output.get("status").and_then(Value::as_str) == Some("error") {
                    attrs.insert(
                        "error.type".into(),
                        json!(match &result {
                            Value::String(s) if !s.is_empty() => s.clone(),
                            _ => "the tool message says status: error".to_string(),
                        }),
                    );
                }
            }
            "AGENT" => {
                attrs.insert("gen_ai.operation.name".into(), json!("invoke_agent"));
                attrs.insert("gen_ai.agent.name".into(), json!(name));
            }
            _ => {}
        }
        if let Some(s) = session {
            attrs.insert("session.id".into(), json!(s));
        }
        spans.push(Span {
            trace_id,
            span_id,
            parent: id_str(o.get("parentObservationId")),
            name,
            start,
            end: o
                .get("endTime")
                .and_then(Value::as_str)
                .and_then(rfc3339_utc),
            error,
            attrs,
            events: Vec::new(),
            line,
        });
    }
    (spans, errors)
}
