//! Langfuse trace exports read by their own fields (`{trace,
//! observations}`), not by OpenTelemetry attributes (that is
//! `langfuse-otel`): observations become spans for the OpenTelemetry
//! builder (`docs/traces.md`, "Langfuse").
//!
//! `input`, `output` and `metadata` are objects or JSON text; text that
//! starts like JSON must be strict JSON (a Python `repr`, a repeated key,
//! `NaN`… are errors), except a tool's own input and output, kept as the
//! recorded text ([`json_text`]).
//!
//! * `GENERATION`: an LLM call (tool definitions listed among its input
//!   messages as `role: tool` without a `tool_call_id` are dropped).
//!   `input` / `output` in the framework's own shape: a list of messages,
//!   `{messages: […]}`, or one message; OpenAI chat dicts, LangChain dicts
//!   and LangChain.js constructors, Anthropic content blocks, GenAI
//!   `parts` messages; an OpenAI Responses API response (`object:
//!   response`, its `output` items) and a list of Responses input items. A
//!   plain text input is one user message, a plain text output one
//!   assistant message. An input of any other shape is not captured (it
//!   only places turns); an output of any other shape, an output object
//!   with a key that may hold calls beside its messages, two places of an
//!   output that disagree, or a Responses item pactum does not read, is an
//!   error (it holds the calls). A missing output: not captured (the
//!   response is unobserved, never "").
//! * `toolCalls` / `toolCallNames` (Langfuse's own list of the calls it
//!   found in an observation's output) must be calls the output shows — a
//!   generation's own output, any other observation's the trace's
//!   generations — else an error; `toolDefinitions` names tools offered.
//! * `TOOL`, and any other observation but a generation or an agent that
//!   names a tool (its `metadata.attributes` say `gen_ai.tool.name`, or its
//!   name, without a `tool.` prefix, is a tool a generation called or was
//!   offered): a tool execution. Name: `gen_ai.tool.name` (a `TOOL`
//!   whose own one-word name names another tool is an error) else the
//!   observation's name; id: `gen_ai.tool.call.id`, else the output's
//!   `tool_call_id`; arguments: `input` (`x` for `{input: x}` when a
//!   requested call of that id, else name, has `x` as arguments); result:
//!   `output` (a LangChain tool message's `content`; its `status: error` is
//!   the call's error).
//! * `AGENT`: an agent invocation. `SPAN`, `CHAIN`, `EVENT`, `RETRIEVER`,
//!   `EMBEDDING`, `EVALUATOR`, `GUARDRAIL`: structure. Any other type, or
//!   none, is an error.
//!
//! What cuts a trace off ([`notes`]): an observation that has not ended,
//! a parent the export does not hold (unless it is the parent of the
//! trace's one topmost observation: the application's own span, never sent
//! to Langfuse), and a generic observation that may have run a tool no
//! generation shows ([`crate::convert::cut_off`]). A parent cycle is an
//! error.
//!
//! `level: ERROR` + `statusMessage` is the observation's error: an errored
//! tool is an errored call, still made. An error reported only inside a
//! tool's output payload (`"response_status": "Error"`) is the tool's
//! answer, not read as an error. The trace's `sessionId` groups traces.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use pactum_core::trace::ToolCall;

use serde_json::{json, Map, Value};

use crate::convert::{
    calls_of, cut_off, cycle_message, is_message, is_messages, json_text, kind, one_reading,
    parent_cycle, shown, tool_named, unknown_output_key, Node, Note, Notes, Part, Unparsed,
};
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

/// Why an observation failed: its `statusMessage` when its `level` is
/// `ERROR` (`level ERROR` when it gives none); `None` otherwise.
pub(crate) fn observation_error(o: &Value) -> Option<String> {
    match o.get("level").and_then(Value::as_str) {
        Some("ERROR") => Some(
            o.get("statusMessage")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or("level ERROR")
                .to_string(),
        ),
        _ => None,
    }
}

/// Whether a record is a Langfuse trace export.
pub(crate) fn sniff(v: &Value) -> bool {
    v.get("trace").is_some_and(Value::is_object)
        && v.get("observations").is_some_and(Value::is_array)
}

/// An observation's `input`, `output` or `metadata` (objects, or JSON
/// text: [`json_text`]), read at `{at}/{key}`; `null` when absent.
fn field(o: &Value, key: &str, at: &str, unparsed: Unparsed) -> Result<Value, Problem> {
    json_text(
        o.get(key).unwrap_or(&Value::Null),
        &format!("{at}/{key}"),
        unparsed,
    )
}

/// An observation's `metadata.attributes` (the span attributes of an
/// OpenTelemetry export), empty when there are none. Metadata that is not
/// strict JSON text, or attributes that are not an object, are errors: a
/// tool name in them would go unseen.
fn attributes(o: &Value, at: &str) -> Result<Map<String, Value>, Problem> {
    let md = field(o, "metadata", at, Unparsed::Refused)?;
    let aat = format!("{at}/metadata/attributes");
    let attrs = match md.get("attributes") {
        None | Some(Value::Null) => return Ok(Map::new()),
        Some(a) => json_text(a, &aat, Unparsed::Refused)?,
    };
    match attrs {
        Value::Object(m) => Ok(m),
        other => Err((
            aat,
            format!(
                "expected an object of span attributes, found {}",
                kind(&other)
            ),
        )),
    }
}

/// The messages of a generation's `input`; `None` when it is not a shape
/// pactum reads (the input is then not captured: it only places turns).
fn input_messages(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Array(items) if items.iter().all(is_message) => Some(items.clone()),
        Value::Array(items) => responses_input(items),
        Value::Object(o) => match o.get("messages") {
            Some(Value::Array(items)) if items.iter().all(is_message) => Some(items.clone()),
            _ if is_message(v) => Some(vec![v.clone()]),
            _ => None,
        },
        Value::String(s) => Some(vec![json!({"role": "user", "content": s})]),
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
/// for a shape pactum does not read (it holds the calls). An object is a
/// Responses API response, `{messages: [...]}` (no other key that may
/// hold calls), or one message; one message that also holds a `messages`
/// list records the output twice, and the two must agree.
fn generation_output(o: &Value, at: &str) -> Result<Option<Vec<Value>>, Problem> {
    let output = field(o, "output", at, Unparsed::Refused)?;
    let oat = format!("{at}/output");
    let unread = |output: &Value| {
        (
            oat.clone(),
            format!(
                "a generation output pactum cannot read ({}; expected messages, one message, text or a Responses API response)",
                kind(output)
            ),
        )
    };
    match &output {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(vec![json!({"role": "assistant", "content": s})])),
        Value::Object(m) if m.get("object").and_then(Value::as_str) == Some("response") => {
            responses_output(&output, &oat).map(Some)
        }
        Value::Array(items) if items.iter().all(is_message) => Ok(Some(items.clone())),
        Value::Array(items) => responses_input(items)
            .map(Some)
            .ok_or_else(|| unread(&output)),
        Value::Object(m) => {
            let mut places = Vec::new();
            match m.get("messages") {
                None => {}
                Some(Value::Array(items)) if items.iter().all(is_message) => {
                    places.push(("messages", items.clone()));
                }
                Some(other) => {
                    return Err((
                        format!("{oat}/messages"),
                        format!("expected an array of messages, found {}", kind(other)),
                    ))
                }
            }
            if is_message(&output) {
                let mut own = m.clone();
                own.remove("messages");
                places.push(("", vec![Value::Object(own)]));
            } else {
                unknown_output_key(m, &["messages"], &oat)?;
            }
            one_reading(places, &oat)?
                .map(Some)
                .ok_or_else(|| unread(&output))
        }
        _ => Err(unread(&output)),
    }
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

/// The tools an observation's `toolDefinitions` names: Langfuse's own
/// record of the tools its input offered, a map from name to definition.
/// Any other shape is an error: a tool offered there, and a span named
/// after it, would go unseen.
fn tool_definitions(o: &Value, at: &str) -> Result<Vec<String>, Problem> {
    let dat = format!("{at}/toolDefinitions");
    match json_text(
        o.get("toolDefinitions").unwrap_or(&Value::Null),
        &dat,
        Unparsed::Refused,
    )? {
        Value::Null => Ok(Vec::new()),
        Value::Object(m) => Ok(m.keys().filter(|k| !k.trim().is_empty()).cloned().collect()),
        other => Err((
            dat,
            format!(
                "expected an object of tool definitions by name, found {}",
                kind(&other)
            ),
        )),
    }
}

/// The names of the tools a generation's input offers: tool definitions
/// among its messages, and an OpenAI request's `tools`.
fn offered_in_input(input: &Value) -> Vec<String> {
    let name = |t: &Value| {
        t.pointer("/function/name")
            .or_else(|| t.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match input {
        Value::Array(items) => items
            .iter()
            .filter(|m| is_tool_definition(m))
            .filter_map(|m| m.get("content").and_then(name))
            .collect(),
        Value::Object(o) => o
            .get("tools")
            .and_then(Value::as_array)
            .map(|ts| ts.iter().filter_map(name).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The tools of the trace: those its generations called (for reading a
/// tool's `{input: …}` wrapper, and checking `toolCalls`), and the names
/// of those and of the tools offered (an observation named after one is
/// its execution): definitions in a generation's input, a Responses
/// response's `tools`, and any observation's `toolDefinitions`. What
/// cannot be read adds nothing here; reading the observation says why.
fn tools_of(obs: &[Value]) -> (Vec<ToolCall>, BTreeSet<String>) {
    let mut calls = Vec::new();
    let mut names = BTreeSet::new();
    for o in obs {
        names.extend(tool_definitions(o, "").unwrap_or_default());
        if o.get("type").and_then(Value::as_str) != Some("GENERATION") {
            continue;
        }
        if let Ok(input) = field(o, "input", "", Unparsed::Refused) {
            names.extend(offered_in_input(&input));
        }
        if let Ok(output) = field(o, "output", "", Unparsed::Refused) {
            if let Some(Value::Array(offered)) = output.get("tools") {
                names.extend(
                    offered
                        .iter()
                        .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string)),
                );
            }
        }
        if let Ok(Some(msgs)) = generation_output(o, "") {
            calls.extend(calls_of(&msgs).unwrap_or_default());
        }
    }
    names.extend(calls.iter().map(|c| c.name.clone()));
    (calls, names)
}

/// The tool an observation of type `ty` executes, if it is a tool
/// execution (never a generation or an agent): `gen_ai.tool.name`; else,
/// for a `TOOL`, its name; else its name when it names one of the trace's
/// `tools` ([`tool_named`]).
///
/// # Errors
/// An observation whose own name (one word, or `execute_tool` and one
/// word, any white space and case) and `gen_ai.tool.name` name two
/// tools: which one ran is not recorded.
fn tool_name(
    ty: &str,
    name: &str,
    md: &Map<String, Value>,
    tools: &BTreeSet<String>,
    at: &str,
) -> Result<Option<String>, Problem> {
    if matches!(ty, "GENERATION" | "AGENT") {
        return Ok(None);
    }
    if let Some(n) = md.get("gen_ai.tool.name").and_then(Value::as_str) {
        // A name that is one word names a tool (the GenAI span name
        // `execute_tool {gen_ai.tool.name}` names it after the prefix); a
        // longer one (`running tool: x`) describes the step.
        let words: Vec<&str> = name
            .split(|c: char| c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        let own = match words.as_slice() {
            [one] => Some(*one),
            [prefix, one] if prefix.eq_ignore_ascii_case("execute_tool") => Some(*one),
            _ => None,
        };
        // `tool.HelloTool` (koog) names `HelloTool` under a namespace.
        let last = |o: &str| o.rsplit(['.', '/', ':']).next().unwrap_or(o).to_string();
        if own.is_some_and(|o| o != n.trim() && last(o) != n.trim()) {
            return Err((
                format!("{at}/name"),
                format!(
                    "the {ty} observation is named `{}` and its attributes name the tool `{}`: which one ran is not recorded",
                    shown(name),
                    shown(n)
                ),
            ));
        }
        return Ok(Some(n.to_string()));
    }
    Ok(match ty {
        "TOOL" => Some(name.to_string()),
        _ => tool_named(name, tools),
    })
}

/// A call Langfuse lists among an observation's `toolCalls` /
/// `toolCallNames`.
struct Listed {
    name: String,
    id: Option<String>,
    /// Its arguments when they are a JSON object.
    arguments: Option<Value>,
    /// Where its name and its call sit.
    name_at: String,
    call_at: String,
}

/// The calls Langfuse lists for an observation: `toolCallNames[i]` names
/// `toolCalls[i]` (`{id, arguments, type, index}`, JSON text in an export,
/// or an object). Two lists of different lengths, a name that is not a
/// string, or a call that names another tool are errors.
fn listed_calls(o: &Value, at: &str) -> Result<Vec<Listed>, Problem> {
    let list = |key: &str| -> Result<Vec<Value>, Problem> {
        match o.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(other) => Err((
                format!("{at}/{key}"),
                format!("expected an array, found {}", kind(other)),
            )),
        }
    };
    let names = list("toolCallNames")?;
    let calls = list("toolCalls")?;
    if names.len() != calls.len() {
        return Err((
            format!("{at}/toolCallNames"),
            format!(
                "{} tool call name(s) for {} tool call(s) in `toolCalls`: which calls are they?",
                names.len(),
                calls.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(names.len());
    for (i, (n, c)) in names.iter().zip(&calls).enumerate() {
        let name_at = format!("{at}/toolCallNames/{i}");
        let call_at = format!("{at}/toolCalls/{i}");
        let name = match n {
            Value::String(s) if !s.trim().is_empty() => s.clone(),
            other => {
                return Err((
                    name_at,
                    format!("expected a tool name, found {}", kind(other)),
                ))
            }
        };
        let Value::Object(call) = json_text(c, &call_at, Unparsed::Refused)? else {
            return Err((
                call_at,
                format!("expected a call object, found {}", kind(c)),
            ));
        };
        let function = call.get("function");
        let own = function
            .and_then(|f| f.get("name"))
            .or_else(|| call.get("name"))
            .and_then(Value::as_str);
        if let Some(own) = own.filter(|own| *own != name) {
            return Err((
                call_at,
                format!(
                    "`toolCallNames` says `{}` and the call says `{}`: which tool was called?",
                    shown(&name),
                    shown(own)
                ),
            ));
        }
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let args = function
            .and_then(|f| f.get("arguments"))
            .or_else(|| call.get("arguments"))
            .or_else(|| call.get("args"))
            .or_else(|| call.get("input"));
        let arguments = pactum_core::chat::decode_arguments(args)
            .ok()
            .filter(Value::is_object);
        out.push(Listed {
            name,
            id,
            arguments,
            name_at,
            call_at,
        });
    }
    Ok(out)
}

/// Checks the calls Langfuse lists against the calls `shown` (what the
/// output reads as): each must be one of them, with the same name, the
/// same id where both have one, and the same arguments where both are
/// objects. Langfuse derives the list from the output, so a call it lists
/// that the output does not show means pactum reads the output otherwise
/// than the export does: which is it? (A call the output shows and the
/// list leaves out is read: Langfuse does not list every shape, and older
/// exports list nothing.)
fn check_listed(listed: &[Listed], shown_calls: &[ToolCall], whose: &str) -> Result<(), Problem> {
    let mut used = vec![false; shown_calls.len()];
    for l in listed {
        let same = |c: &ToolCall| {
            c.name == l.name
                && match (&l.id, &c.id) {
                    (Some(a), Some(b)) => a.trim() == b.trim(),
                    _ => true,
                }
        };
        let candidates: Vec<usize> = (0..shown_calls.len())
            .filter(|&j| !used[j] && same(&shown_calls[j]))
            .collect();
        if candidates.is_empty() {
            return Err((
                l.name_at.clone(),
                format!(
                    "Langfuse lists a call to `{}`{} that {whose} does not show: which is it?",
                    shown(&l.name),
                    l.id.as_deref()
                        .map(|i| format!(" (`{}`)", shown(i)))
                        .unwrap_or_default()
                ),
            ));
        }
        let args_agree = |j: &usize| match (&l.arguments, &shown_calls[*j].arguments) {
            (Some(a), b @ Value::Object(_)) => a == b,
            _ => true,
        };
        let Some(j) = candidates.into_iter().find(args_agree) else {
            return Err((
                l.call_at.clone(),
                format!(
                    "Langfuse lists the call to `{}` with other arguments than {whose} shows: which were they?",
                    shown(&l.name)
                ),
            ));
        };
        used[j] = true;
    }
    Ok(())
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

/// The parent cycle among the observations of one export, as an error of
/// the trace of its first observation.
fn cycle(obs: &[Value]) -> Option<(Option<String>, String, String)> {
    let links: BTreeMap<String, String> = obs
        .iter()
        .filter_map(|o| Some((id_str(o.get("id"))?, id_str(o.get("parentObservationId"))?)))
        .collect();
    let found = parent_cycle(&links)?;
    let i = obs
        .iter()
        .position(|o| id_str(o.get("id")).as_deref() == Some(found[0].as_str()))
        .unwrap_or_default();
    Some((
        id_str(obs.get(i).and_then(|o| o.get("traceId"))),
        format!("/observations/{i}/parentObservationId"),
        cycle_message("observation", &found),
    ))
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
    if let Some((tid, field, message)) = cycle(obs) {
        errors.push(err(tid.as_deref(), field, message));
    }
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
        match read(o, &at, &calls, &tools, session, line, trace_id.clone()) {
            Ok(span) => spans.push(span),
            Err((field, message)) => errors.push(err(tid, field, message)),
        }
    }
    (spans, errors)
}

/// One observation as a span.
fn read(
    o: &Value,
    at: &str,
    calls: &[ToolCall],
    tools: &BTreeSet<String>,
    session: Option<&str>,
    line: u64,
    trace_id: String,
) -> Result<Span, Problem> {
    let span_id = id_str(o.get("id"))
        .ok_or_else(|| (format!("{at}/id"), "missing or empty observation id".into()))?;
    let start = o
        .get("startTime")
        .and_then(Value::as_str)
        .and_then(rfc3339_utc)
        .ok_or_else(|| {
            (
                format!("{at}/startTime"),
                "missing, or not a UTC RFC 3339 time".to_string(),
            )
        })?;
    let end = match o.get("endTime") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_str().and_then(rfc3339_utc).ok_or_else(|| {
            (
                format!("{at}/endTime"),
                "not a UTC RFC 3339 time".to_string(),
            )
        })?),
    };
    let name = o
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let error = observation_error(o);
    let ty = obs_type(o, at)?;
    let md = attributes(o, at)?;
    tool_definitions(o, at)?;
    let listed = listed_calls(o, at)?;
    let mut attrs: BTreeMap<String, Value> = BTreeMap::new();
    let tool_name = tool_name(ty, &name, &md, tools, at)?;
    match ty {
        "GENERATION" => {
            attrs.insert("gen_ai.operation.name".into(), json!("chat"));
            let input = field(o, "input", at, Unparsed::Refused)?;
            if let Some(mut msgs) = input_messages(&input) {
                msgs.retain(|m| !is_tool_definition(m));
                set_messages(
                    &mut attrs,
                    msgs,
                    "gen_ai.input.messages",
                    CHAT_INPUT,
                    &format!("{at}/input"),
                )?;
            }
            let output = generation_output(o, at)?;
            if !listed.is_empty() {
                // Not readable: the builder says why.
                if let Some(own) = output.as_deref().map_or(Some(Vec::new()), calls_of) {
                    check_listed(&listed, &own, "the generation's output")?;
                }
            }
            if let Some(msgs) = output {
                set_messages(
                    &mut attrs,
                    msgs,
                    "gen_ai.output.messages",
                    CHAT_OUTPUT,
                    &format!("{at}/output"),
                )?;
            }
        }
        _ if tool_name.is_some() => {
            check_listed(&listed, calls, "no generation of the trace")?;
            attrs.insert("gen_ai.operation.name".into(), json!("execute_tool"));
            attrs.insert("gen_ai.tool.name".into(), json!(tool_name));
            // What the tool was given and returned, as recorded.
            let input = field(o, "input", at, Unparsed::Text)?;
            let output = field(o, "output", at, Unparsed::Text)?;
            // A LangChain tool message as the output: its content is the
            // result, its status says whether the call failed.
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
                    arguments(&input, name, id, calls),
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
            check_listed(&listed, calls, "no generation of the trace")?;
            attrs.insert("gen_ai.operation.name".into(), json!("invoke_agent"));
            attrs.insert("gen_ai.agent.name".into(), json!(name));
        }
        _ => check_listed(&listed, calls, "no generation of the trace")?,
    }
    if let Some(s) = session {
        attrs.insert("session.id".into(), json!(s));
    }
    Ok(Span {
        trace_id,
        span_id,
        parent: id_str(o.get("parentObservationId")),
        remote_parent: false,
        name,
        start,
        // An event is a point in time: it ends where it starts.
        end: end.or((ty == "EVENT").then_some(start)),
        error,
        attrs,
        events: Vec::new(),
        line,
    })
}

/// What the observations of a Langfuse file do not say, by trace ([`crate::convert::Note`]):
///
/// * an observation that has not ended (`endTime` null or absent; an
///   `EVENT` is a point in time): the recording stops before it finished;
/// * an observation naming a parent the export does not hold, unless it is
///   the trace's one topmost observation: an application's own span
///   around the trace (an HTTP server span) is often never sent to
///   Langfuse, but a parent missing below the top is part of the trace not
///   exported. (A cut-off that lost the root and left one observation on
///   top reads the same as a host span: that case is not told apart.);
/// * a generic observation (`SPAN`, `CHAIN`, `EVENT`) that may have run a
///   tool no generation shows ([`cut_off`]).
pub(crate) fn notes(path: &Path, framing: crate::Framing) -> Result<Notes, ImportError> {
    let mut notes = Notes::new();
    crate::each_record(path, framing, &mut |_, doc| {
        let Some(Value::Array(obs)) = doc.get("observations") else {
            return;
        };
        let (_, tools) = tools_of(obs);
        let mut nodes = Vec::new();
        for (i, o) in obs.iter().enumerate() {
            let (Some(id), Some(trace), Ok(ty)) = (
                id_str(o.get("id")),
                id_str(o.get("traceId")),
                obs_type(o, ""),
            ) else {
                continue;
            };
            let name = o
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let who = format!(
                "observation `{}` (`{}`, /observations/{i})",
                shown(&name),
                shown(&id)
            );
            if ty != "EVENT" && o.get("endTime").is_none_or(Value::is_null) {
                notes
                    .entry(trace.clone())
                    .or_default()
                    .push(Note::Incomplete(format!(
                    "{who} has not ended (no `endTime`): the recording stops before it finished"
                )));
            }
            let md = attributes(o, "").unwrap_or_default();
            let part = match ty {
                "GENERATION" => Part::Llm,
                "AGENT" => Part::Agent,
                // A conflict is reported where the observation is read.
                _ if !matches!(tool_name(ty, &name, &md, &tools, ""), Ok(None)) => Part::Tool,
                t if GENERIC.contains(&t) => Part::Generic,
                _ => Part::Other,
            };
            // Read as recorded: text that is not JSON is an input too.
            let input = field(o, "input", "", Unparsed::Text).unwrap_or(Value::Bool(true));
            let output = field(o, "output", "", Unparsed::Text).unwrap_or(Value::Bool(true));
            nodes.push(Node {
                id,
                parent: id_str(o.get("parentObservationId")),
                trace,
                part,
                io: !input.is_null() && !output.is_null() && !is_messages(&input),
                who,
            });
        }
        let held: BTreeSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
        let mut tops: BTreeMap<&str, usize> = BTreeMap::new();
        for n in &nodes {
            if n.parent.as_deref().is_none_or(|p| !held.contains(p)) {
                *tops.entry(n.trace.as_str()).or_default() += 1;
            }
        }
        for n in &nodes {
            let Some(p) = n.parent.as_deref().filter(|p| !held.contains(p)) else {
                continue;
            };
            if tops.get(n.trace.as_str()).copied().unwrap_or_default() > 1 {
                notes.entry(n.trace.clone()).or_default().push(Note::Incomplete(format!(
                    "{} names a parent observation `{}` the export does not hold, and is not the trace's one topmost observation: part of the trace was not exported",
                    n.who,
                    shown(p)
                )));
            }
        }
        for (trace, why) in cut_off(&nodes) {
            notes.entry(trace).or_default().push(Note::Incomplete(why));
        }
    })?;
    Ok(notes)
}
