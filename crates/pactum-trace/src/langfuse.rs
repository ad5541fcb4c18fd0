//! Langfuse trace exports read by their own fields (`{trace,
//! observations}`), not by OpenTelemetry attributes (that is
//! `langfuse-otel`): observations become spans for the OpenTelemetry
//! builder (`docs/traces.md`, "Langfuse").
//!
//! * `GENERATION`: an LLM call (tool definitions listed among its input
//!   messages as `role: tool` without a `tool_call_id` are dropped). `input` / `output` (objects, or JSON text)
//!   in the framework's own shape: a list of messages, `{messages: […]}`,
//!   or one message; OpenAI chat dicts, LangChain dicts and LangChain.js
//!   constructors, Anthropic content blocks, GenAI `parts` messages; an
//!   OpenAI Responses API response (`object: response`, its `output`
//!   items) and a list of Responses input items. A plain text input is one
//!   user message, a plain text output one assistant message. An input of
//!   any other shape is not captured (it only places turns); an output of
//!   any other shape, or a Responses item pactum does not read, is an error
//!   (it holds the calls). A missing output: not captured (the response is
//!   unobserved, never "").
//! * `TOOL`, and any other observation but a generation or an agent that
//!   names a tool (its `metadata.attributes` say `gen_ai.tool.name`, or its
//!   name, without a `tool.` prefix, is a tool a generation called or was
//!   offered): a tool execution. Name: `gen_ai.tool.name` else the
//!   observation's name; id: `gen_ai.tool.call.id`, else the output's
//!   `tool_call_id`; arguments: `input` (`x` for `{input: x}` when a
//!   requested call of that id, else name, has `x` as arguments); result:
//!   `output` (a LangChain tool message's `content`; its `status: error` is
//!   the call's error).
//! * `AGENT`: an agent invocation. `SPAN`, `CHAIN`, `EVENT`, `RETRIEVER`,
//!   `EMBEDDING`, `EVALUATOR`, `GUARDRAIL`: structure. A generic one
//!   (`SPAN`, `CHAIN`, `EVENT`) that recorded an input (not messages) and
//!   an output, has no child observation and is not inside a tool
//!   execution may have run a tool no generation shows: its trace is
//!   incomplete ([`notes`]). Any other type, or none, is an error.
//!
//! `level: ERROR` + `statusMessage` is the observation's error: an errored
//! tool is an errored call, still made. An error reported only inside a
//! tool's output payload (`"response_status": "Error"`) is the tool's
//! answer, not read as an error. The trace's `sessionId` groups traces.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use pactum_core::trace::ToolCall;

use serde_json::{json, Map, Value};

use crate::convert::{kind, shown, Note, Notes};
use crate::langsmith::{CHAT_INPUT, CHAT_OUTPUT};
use crate::messages::{langchain, Problem};
use crate::otel::span::{err, id_str, rfc3339_utc, Found, Span};
use crate::ImportError;

/// The observation types Langfuse writes. Any other is an error: it may be
/// a tool execution pactum would miss.
const TYPES: [&str; 10] = [
    "GENERATION",
    "TOOL",
    "AGENT",
    "SPAN",
    "CHAIN",
    "EVENT",
    "RETRIEVER",
    "EMBEDDING",
    "EVALUATOR",
    "GUARDRAIL",
];

/// The types that say nothing of what ran (see [`notes`]).
const GENERIC: [&str; 3] = ["SPAN", "CHAIN", "EVENT"];

/// An observation's type, or why it cannot be read.
fn obs_type(o: &Value, at: &str) -> Result<&'static str, Problem> {
    match o.get("type") {
        Some(Value::String(t)) => TYPES.iter().find(|k| **k == t).copied().ok_or_else(|| {
            (
                format!("{at}/type"),
                format!(
                    "unknown observation type `{}` (pactum reads {}): it may be a tool execution pactum would miss",
                    shown(t),
                    TYPES.join(", ")
                ),
            )
        }),
        other => Err((
            format!("{at}/type"),
            format!(
                "expected the observation type (a string), found {}",
                other.map_or("nothing", kind)
            ),
        )),
    }
}

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
        Value::Array(items) => responses_input(items),
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

/// A generation's output as messages: `None` when not recorded; an error
/// for a shape pactum does not read (it holds the calls).
fn generation_output(o: &Value, at: &str) -> Result<Option<Vec<Value>>, Problem> {
    let output = field(o.get("output"));
    if output.is_null() {
        return Ok(None);
    }
    if output.get("object").and_then(Value::as_str) == Some("response") {
        return responses_output(&output, at).map(Some);
    }
    messages_of(&output, "assistant").map(Some).ok_or_else(|| {
        (
            at.to_string(),
            format!(
                "a generation output pactum cannot read ({}; expected messages, one message, text or a Responses API response)",
                kind(&output)
            ),
        )
    })
}

/// A Responses API response (`{object: "response", status, output:
/// [items]}`) as one assistant message: `message` items give its text
/// (`output_text`, `refusal`), `function_call` items its calls (read by
/// the one decoder), `reasoning` items nothing. Any other item (a hosted
/// tool's call) is an error, and so is a response that did not complete.
fn responses_output(r: &Value, at: &str) -> Result<Vec<Value>, Problem> {
    match r.get("status") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s == "completed" => {}
        Some(other) => {
            return Err((
                format!("{at}/status"),
                format!(
                    "a Responses API response whose status is {}: what it would have done is not recorded",
                    shown(&other.to_string())
                ),
            ))
        }
    }
    let Some(Value::Array(items)) = r.get("output") else {
        return Err((
            format!("{at}/output"),
            "a Responses API response without an `output` array".into(),
        ));
    };
    let mut content = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let iat = format!("{at}/output/{i}");
        match it.get("type").and_then(Value::as_str) {
            Some("message") => {
                if it.get("role").and_then(Value::as_str) != Some("assistant") {
                    return Err((
                        format!("{iat}/role"),
                        "a Responses output message that is not the assistant's".into(),
                    ));
                }
                let parts = match it.get("content") {
                    Some(Value::Array(p)) => p,
                    other => {
                        return Err((
                            format!("{iat}/content"),
                            format!(
                                "expected an array of content parts, found {}",
                                other.map_or("nothing", kind)
                            ),
                        ))
                    }
                };
                for (j, p) in parts.iter().enumerate() {
                    match (p.get("type").and_then(Value::as_str), p.get("text"), p.get("refusal")) {
                        (Some("output_text"), Some(Value::String(t)), _) => {
                            content.push(json!({"type": "text", "text": t}));
                        }
                        (Some("refusal"), _, Some(Value::String(t))) => {
                            content.push(json!({"type": "refusal", "refusal": t}));
                        }
                        (ty, _, _) => {
                            return Err((
                                format!("{iat}/content/{j}/type"),
                                format!(
                                    "a Responses content part `{}` pactum does not read (it reads output_text and refusal)",
                                    shown(ty.unwrap_or_default())
                                ),
                            ))
                        }
                    }
                }
            }
            Some("function_call") => content.push(it.clone()),
            Some("reasoning") => {}
            ty => {
                return Err((
                    format!("{iat}/type"),
                    format!(
                        "a Responses output item `{}` pactum does not read (it reads message, function_call and reasoning): a hosted tool's call would be missed",
                        shown(ty.unwrap_or_default())
                    ),
                ))
            }
        }
    }
    Ok(vec![json!({"role": "assistant", "content": content})])
}

/// A list of Responses API input items as chat messages: messages
/// (`{role, content}`), `function_call` (a replayed call),
/// `function_call_output` (its result); `reasoning` adds nothing. `None`
/// when an item is none of these: the input is then not captured.
fn responses_input(items: &[Value]) -> Option<Vec<Value>> {
    let mut msgs = Vec::new();
    for it in items {
        match it.get("type").and_then(Value::as_str) {
            None | Some("message") if it.get("role").is_some_and(Value::is_string) => {
                msgs.push(json!({"role": it["role"], "content": it.get("content").cloned().unwrap_or(Value::Null)}));
            }
            Some("function_call") => {
                msgs.push(json!({"role": "assistant", "content": null, "tool_calls": [it]}));
            }
            Some("function_call_output") => {
                msgs.push(json!({"role": "tool", "tool_call_id": it.get("call_id")?, "content": it.get("output")?}));
            }
            Some("reasoning") => {}
            _ => return None,
        }
    }
    Some(msgs)
}

/// The tools of the trace: those its generations called (for reading a
/// tool's `{input: …}` wrapper), and the names of those and of the tools
/// they were offered (an observation named after one is its execution).
fn tools_of(obs: &[Value]) -> (Vec<ToolCall>, BTreeSet<String>) {
    let mut calls = Vec::new();
    let mut names = BTreeSet::new();
    for o in obs {
        if o.get("type").and_then(Value::as_str) != Some("GENERATION") {
            continue;
        }
        if let Value::Array(items) = field(o.get("input")) {
            names.extend(
                items
                    .iter()
                    .filter(|m| is_tool_definition(m))
                    .filter_map(|m| {
                        m.pointer("/content/function/name")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    }),
            );
        }
        let output = field(o.get("output"));
        if let Some(Value::Array(offered)) = output.get("tools") {
            names.extend(
                offered
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string)),
            );
        }
        let Ok(Some(msgs)) = generation_output(o, "") else {
            continue;
        };
        for m in msgs {
            let Ok(Value::Object(mut m)) = langchain::to_role_message(&m, "") else {
                continue;
            };
            m.remove("role");
            if let Ok(t) = pactum_core::chat::message_tools(&m) {
                calls.extend(t.calls);
            }
        }
    }
    names.extend(calls.iter().map(|c| c.name.clone()));
    (calls, names)
}

/// The tool an observation of type `ty` executes, if it is a tool
/// execution (never a generation or an agent): `gen_ai.tool.name`; else,
/// for a `TOOL`, its name; else its name (without a `tool.` prefix) when
/// that is one of the trace's `tools`.
fn tool_name(
    ty: &str,
    name: &str,
    md: &Map<String, Value>,
    tools: &BTreeSet<String>,
) -> Option<String> {
    if matches!(ty, "GENERATION" | "AGENT") {
        return None;
    }
    if let Some(n) = md.get("gen_ai.tool.name").and_then(Value::as_str) {
        return Some(n.to_string());
    }
    match ty {
        "TOOL" => Some(name.to_string()),
        _ => {
            let bare = name.strip_prefix("tool.").unwrap_or(name);
            tools.contains(bare).then(|| bare.to_string())
        }
    }
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
    let (calls, tools) = tools_of(obs);
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
        let ty = match obs_type(o, &at) {
            Ok(t) => t,
            Err((f, m)) => {
                errors.push(err(tid, f, m));
                continue;
            }
        };
        let md = attributes(o);
        let mut attrs: BTreeMap<String, Value> = BTreeMap::new();
        let tool_name = tool_name(ty, &name, &md, &tools);
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
                match generation_output(o, &format!("{at}/output")) {
                    Ok(None) => {}
                    Err((f, m)) => {
                        errors.push(err(tid, f, m));
                        continue;
                    }
                    Ok(Some(msgs)) => {
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
            }
            _ if tool_name.is_some() => {
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
            remote_parent: false,
            name,
            start,
            // An event is a point in time: it ends where it starts.
            end: o
                .get("endTime")
                .and_then(Value::as_str)
                .and_then(rfc3339_utc)
                .or((ty == "EVENT").then_some(start)),
            error,
            attrs,
            events: Vec::new(),
            line,
        });
    }
    (spans, errors)
}

/// Whether a value is messages: a list of them, `{messages: [...]}`, or
/// one message.
fn is_messages(v: &Value) -> bool {
    match v {
        Value::Array(items) => !items.is_empty() && items.iter().all(is_message),
        Value::Object(o) => {
            is_message(v)
                || o.get("messages")
                    .and_then(Value::as_array)
                    .is_some_and(|m| m.iter().all(is_message))
        }
        _ => false,
    }
}

/// What the observations of a Langfuse file do not say, by trace: a
/// generic observation (`SPAN`, `CHAIN`, `EVENT`) that recorded an input
/// that is not messages and an output, with no child observation, not
/// inside a tool execution and not itself one, may have run a tool no
/// generation shows (a function traced with `@observe()`): its trace is
/// incomplete, so an absent call proves nothing. Inner observations are
/// structure: what ran inside them shows as their children.
pub(crate) fn notes(path: &Path, framing: crate::Framing) -> Result<Notes, ImportError> {
    let mut notes = Notes::new();
    crate::each_record(path, framing, &mut |_, doc| {
        let Some(Value::Array(obs)) = doc.get("observations") else {
            return;
        };
        let (_, tools) = tools_of(obs);
        let name_of = |o: &Value| {
            o.get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let is_tool: HashMap<String, bool> = obs
            .iter()
            .filter_map(|o| {
                let ty = obs_type(o, "").ok()?;
                let tool = tool_name(ty, &name_of(o), &attributes(o), &tools).is_some();
                Some((id_str(o.get("id"))?, tool))
            })
            .collect();
        let parent: HashMap<String, String> = obs
            .iter()
            .filter_map(|o| Some((id_str(o.get("id"))?, id_str(o.get("parentObservationId"))?)))
            .collect();
        let parents: BTreeSet<&String> = parent.values().collect();
        for (i, o) in obs.iter().enumerate() {
            let (Some(id), Some(trace)) = (id_str(o.get("id")), id_str(o.get("traceId"))) else {
                continue;
            };
            let generic = obs_type(o, "").is_ok_and(|t| GENERIC.contains(&t));
            if !generic || parents.contains(&id) || is_tool.get(&id) != Some(&false) {
                continue;
            }
            let input = field(o.get("input"));
            if input.is_null() || field(o.get("output")).is_null() || is_messages(&input) {
                continue;
            }
            // Inside a tool execution: part of that tool's work.
            let mut up = parent.get(&id);
            let mut steps = 0;
            let mut in_tool = false;
            while let Some(p) = up {
                if is_tool.get(p) == Some(&true) {
                    in_tool = true;
                    break;
                }
                steps += 1;
                if steps > obs.len() {
                    break;
                }
                up = parent.get(p);
            }
            if in_tool {
                continue;
            }
            notes.entry(trace).or_default().push(Note::Incomplete(format!(
                "observation `{}` (`{}`, /observations/{i}) recorded an input and an output but is neither a generation nor a tool execution pactum can name: it may have run a tool no generation shows",
                shown(&name_of(o)),
                shown(&id)
            )));
        }
    })?;
    Ok(notes)
}
