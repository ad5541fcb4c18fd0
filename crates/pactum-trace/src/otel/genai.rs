//! What one span says, by the conventions pactum reads (see
//! `docs/traces.md`, "OpenTelemetry"): an LLM call (its input and output
//! messages, when content was captured), a tool execution, an agent, or
//! nothing pactum reads. Every message is decoded by
//! [`pactum_core::chat`]; nothing here builds a tool call from JSON.
//!
//! Content, in every convention present (they must agree, see [`agree`]):
//!
//! | convention | input | output |
//! |---|---|---|
//! | GenAI (current) | `gen_ai.input.messages` | `gen_ai.output.messages` |
//! | OpenInference | `llm.input_messages.{i}.message.*` | `llm.output_messages.{i}.message.*` |
//! | GenAI (old, flattened) | `gen_ai.prompt.{i}.*` | `gen_ai.completion.{i}.*` |
//! | GenAI (old, events) | `gen_ai.{system,user,assistant,tool}.message` events | `gen_ai.choice` events |

use std::collections::BTreeMap;

use pactum_core::chat::{self, kind, ToolResult};
use pactum_core::trace::ToolCall;
use serde_json::{Map, Value};

use super::span::Span;
use crate::convert::shown;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Who {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of an LLM call's input or output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Msg {
    pub who: Who,
    pub text: Option<String>,
    pub calls: Vec<ToolCall>,
    pub results: Vec<ToolResult>,
    /// The finish reason recorded with it (`finish_reason`), if any.
    pub finish: Option<String>,
}

/// An LLM call's messages: `None` where content was not captured.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Llm {
    pub input: Option<Vec<Msg>>,
    pub output: Option<Vec<Msg>>,
}

/// What a span is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Llm(Llm),
    /// A tool execution: the call as the span records it (arguments and
    /// result when recorded, the span's error).
    Tool(ToolCall),
    /// An agent invocation, by name.
    Agent(String),
    Other,
}

/// A problem with a span: the attribute (or event) and what is wrong.
pub(crate) type Problem = (String, String);

fn problem(field: impl Into<String>, message: impl Into<String>) -> Problem {
    (field.into(), message.into())
}

fn str_attr<'a>(s: &'a Span, k: &str) -> Option<&'a str> {
    s.attrs.get(k).and_then(Value::as_str)
}

/// Tool executions recorded in conventions pactum does not read: the
/// attribute, and the value that marks a tool (`None`: any value; a value
/// is compared trimmed, in any case). Such a span is refused, never passed
/// over: its call would go unseen.
pub(crate) const UNREAD_TOOLS: [(&str, Option<&str>, &str); 11] = [
    (
        "ai.toolCall.name",
        None,
        "the Vercel AI SDK's `ai.toolCall`",
    ),
    (
        "ai.toolCall.args",
        None,
        "the Vercel AI SDK's `ai.toolCall`",
    ),
    ("ai.toolCall.id", None, "the Vercel AI SDK's `ai.toolCall`"),
    (
        "ai.operationId",
        Some("ai.toolCall"),
        "the Vercel AI SDK's `ai.toolCall`",
    ),
    ("langsmith.span.kind", Some("tool"), "LangSmith's"),
    ("agentops.span.kind", Some("tool"), "AgentOps'"),
    ("crewai.tool.name", None, "CrewAI's"),
    (
        "tool_arguments",
        None,
        "Logfire's (pydantic-ai) `running tool`",
    ),
    (
        "tool_response",
        None,
        "Logfire's (pydantic-ai) `running tool`",
    ),
    (
        "langfuse.observation.type",
        Some("tool"),
        "the Langfuse SDK's",
    ),
    ("mlflow.spanType", Some("tool"), "MLflow's"),
];

/// A convention's kind value as written for comparison: trimmed, in lower
/// case (`EXECUTE_TOOL`, `Tool`, ` TOOL` are the values they spell).
fn kind_value(v: &str) -> String {
    v.trim().to_ascii_lowercase()
}

/// What each convention present on a span says it is: (attribute, value,
/// whether that means a tool execution, an LLM call or an agent).
fn sayings(s: &Span) -> Vec<(&'static str, &str, Says)> {
    let mut out = Vec::new();
    if let Some(op) = str_attr(s, "gen_ai.operation.name") {
        let says = match kind_value(op).as_str() {
            "execute_tool" => Says::Tool,
            "chat" | "text_completion" | "generate_content" => Says::Llm,
            "invoke_agent" | "create_agent" => Says::Agent,
            _ => Says::Other,
        };
        out.push(("gen_ai.operation.name", op, says));
    }
    if let Some(k) = str_attr(s, "openinference.span.kind") {
        let says = match kind_value(k).as_str() {
            "tool" => Says::Tool,
            "llm" => Says::Llm,
            "agent" => Says::Agent,
            _ => Says::Other,
        };
        out.push(("openinference.span.kind", k, says));
    }
    if let Some(k) = str_attr(s, "traceloop.span.kind") {
        let says = match kind_value(k).as_str() {
            "tool" => Says::Tool,
            _ => Says::Other,
        };
        out.push(("traceloop.span.kind", k, says));
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Says {
    Tool,
    Llm,
    Agent,
    Other,
}

/// Classifies a span and reads its content.
///
/// A tool execution is a span that a convention says is one
/// (`gen_ai.operation.name: execute_tool`, `openinference.span.kind:
/// TOOL`, Traceloop's `traceloop.span.kind: tool`), or that names a tool
/// (`gen_ai.tool.name`) and says nothing else. A span that names a tool and
/// says it is something else, that two conventions call a tool and an LLM
/// call or agent, or that is a tool execution of a convention pactum does
/// not read, is an error: which it is cannot be told, and a call passed
/// over reads as no call.
pub(crate) fn classify(s: &Span) -> Result<Kind, Problem> {
    let says = sayings(s);
    let tool_by = says.iter().find(|x| x.2 == Says::Tool);
    let other_by = says
        .iter()
        .find(|x| matches!(x.2, Says::Llm | Says::Agent))
        .or_else(|| says.iter().find(|x| x.2 == Says::Other));
    let named = s.attrs.contains_key("gen_ai.tool.name");
    match (tool_by, other_by) {
        (Some(t), Some(o)) if o.2 != Says::Other => {
            return Err(problem(
                o.0,
                format!(
                "`{}: {}` says the span is a tool execution, `{}: {}` that it is not: which is it?",
                t.0,
                shown(t.1),
                o.0,
                shown(o.1)
            ),
            ))
        }
        (Some(_), _) => return tool(s).map(Kind::Tool),
        (None, None) if named => return tool(s).map(Kind::Tool),
        (None, Some(o)) if named => {
            return Err(problem(
                "gen_ai.tool.name",
                format!(
                "the span names a tool, but `{}: {}` says it is not a tool execution: which is it?",
                o.0,
                shown(o.1)
            ),
            ))
        }
        _ => {}
    }
    for (key, value, what) in UNREAD_TOOLS {
        let hit = match (s.attrs.get(key), value) {
            (Some(_), None) => true,
            (Some(Value::String(v)), Some(want)) => {
                v.trim().trim_matches('"').trim().eq_ignore_ascii_case(want)
            }
            _ => false,
        };
        if hit {
            return Err(problem(
                key,
                format!(
                    "a tool execution recorded in {what} convention, which pactum does not read: its call would go unseen (record GenAI `execute_tool` or OpenInference `TOOL` spans)"
                ),
            ));
        }
    }
    if let Some(k) = s.attrs.keys().find(|k| {
        k.chars().any(|c| c.is_ascii_uppercase())
            && !UNREAD_TOOLS.iter().any(|(u, _, _)| u == k)
            && super::span::kept(&k.to_ascii_lowercase())
    }) {
        return Err(problem(
            k.as_str(),
            format!(
                "`{}` is written in another case than the convention's (`{}`): pactum reads the convention's keys as written, and passing this one over could hide a call",
                shown(k),
                shown(&k.to_ascii_lowercase())
            ),
        ));
    }
    let logfire_tool = str_attr(s, "logfire.msg").is_some_and(|m| {
        m.trim_start()
            .to_ascii_lowercase()
            .starts_with("running tool")
    });
    if logfire_tool {
        return Err(problem(
            "logfire.msg",
            "a tool execution recorded in Logfire's (pydantic-ai) `running tool` convention, which pactum does not read: its call would go unseen (record GenAI `execute_tool` spans)",
        ));
    }
    let op = str_attr(s, "gen_ai.operation.name").map(kind_value);
    let op = op.as_deref();
    let oi = str_attr(s, "openinference.span.kind").map(|k| kind_value(k).to_ascii_uppercase());
    let has = |p: &str| s.attrs.keys().any(|k| k.starts_with(p));
    let content = s.attrs.contains_key("gen_ai.output.messages")
        || s.attrs.contains_key("gen_ai.input.messages")
        || has("llm.output_messages.")
        || has("llm.input_messages.")
        || has("gen_ai.completion.")
        || has("gen_ai.prompt.")
        || s.attrs.contains_key("gen_ai.completion")
        || s.events.iter().any(|e| {
            e.name == "gen_ai.choice" || e.name == DETAILS_EVENT || is_input_event(&e.name)
        });
    let llm_op = matches!(op, Some("chat" | "text_completion" | "generate_content"));
    if content || llm_op || oi.as_deref() == Some("LLM") {
        return Ok(Kind::Llm(Llm {
            input: input(s)?,
            output: output(s)?,
        }));
    }
    if matches!(op, Some("invoke_agent" | "create_agent")) || oi.as_deref() == Some("AGENT") {
        let name = str_attr(s, "gen_ai.agent.name")
            .or_else(|| str_attr(s, "agent.name"))
            .unwrap_or(&s.name);
        return Ok(Kind::Agent(name.to_string()));
    }
    if let Some(problem) = unplaced_tool(s) {
        return Err(problem);
    }
    Ok(Kind::Other)
}

/// A tool execution's mark on a span that no convention places as one:
/// an attribute of a tool call (`gen_ai.tool.call.id`, `tool_call.id`,
/// `tool.name`…) without the name pactum reads a tool by, or an event
/// carrying one. Something ran that pactum cannot read: refused, in every
/// trace, never passed over.
fn unplaced_tool(s: &Span) -> Option<Problem> {
    let tool_key = |k: &str| {
        (k.starts_with("gen_ai.tool.") && k != "gen_ai.tool.definitions")
            || k.starts_with("tool.")
            || k.starts_with("tool_call.")
    };
    if let Some(k) = s.attrs.keys().find(|k| tool_key(k)) {
        return Some(problem(
            k.as_str(),
            format!(
                "the span carries `{}`, an attribute of a tool execution, but no convention pactum reads says it is one (GenAI `gen_ai.operation.name: execute_tool` with `gen_ai.tool.name`, OpenInference `TOOL`, Traceloop `tool`): its call would go unseen",
                shown(k)
            ),
        ));
    }
    s.events.iter().find_map(|e| {
        let k = e.attrs.keys().find(|k| tool_key(k) || k.starts_with("gen_ai."))?;
        (!e.name.starts_with("gen_ai.") && e.name != "exception").then(|| {
            problem(
                format!("events/{}", e.name),
                format!(
                    "its event `{}` carries `{}`, which pactum reads only on the span or a `gen_ai.` event: what it records would go unseen",
                    shown(&e.name),
                    shown(k)
                ),
            )
        })
    })
}

/// The first attribute (or event) of a GenAI, OpenInference, Traceloop or
/// other LLM convention the span carries, if any: a trace whose spans carry
/// one but that holds no LLM or tool span pactum reads is refused, not
/// skipped (something ran that pactum cannot see).
pub(crate) fn genai_marker(s: &Span) -> Option<&str> {
    const PREFIXES: [&str; 6] = [
        "gen_ai.",
        "llm.",
        "openinference.",
        "tool.",
        "tool_call.",
        "traceloop.",
    ];
    s.attrs
        .keys()
        .find(|k| {
            PREFIXES.iter().any(|p| k.starts_with(p)) || UNREAD_TOOLS.iter().any(|(m, _, _)| m == k)
        })
        .map(String::as_str)
        .or_else(|| {
            s.events
                .iter()
                .find(|e| e.name.starts_with("gen_ai."))
                .map(|e| e.name.as_str())
        })
        .or_else(|| {
            s.attrs
                .get(super::span::RESOURCE_MARK)
                .and_then(Value::as_str)
        })
}

fn is_input_event(name: &str) -> bool {
    matches!(
        name,
        "gen_ai.system.message"
            | "gen_ai.user.message"
            | "gen_ai.assistant.message"
            | "gen_ai.tool.message"
    )
}

/// A tool span as a call: its name from `gen_ai.tool.name`, `tool.name`
/// or Traceloop's `traceloop.entity.name` (those present must agree), id
/// `gen_ai.tool.call.id` (or `tool_call.id`), arguments from
/// `gen_ai.tool.call.arguments` (or `input.value`, Traceloop's
/// `traceloop.entity.input`, ADK's `gcp.vertex.agent.tool_call_args`),
/// result from `gen_ai.tool.call.result` (or `output.value`,
/// `traceloop.entity.output`, `gcp.vertex.agent.tool_response`); errored
/// when the span ended in error, has `error.type`, or an `exception` event.
fn tool(s: &Span) -> Result<ToolCall, Problem> {
    let first = |keys: &[&'static str]| -> Option<(&'static str, &Value)> {
        keys.iter()
            .find_map(|k| s.attrs.get(*k).filter(|v| !v.is_null()).map(|v| (*k, v)))
    };
    const NAMES: [&str; 3] = ["gen_ai.tool.name", "tool.name", "traceloop.entity.name"];
    let (name_key, name) = first(&NAMES).ok_or_else(|| {
        problem(
            "gen_ai.tool.name",
            "a tool span without `gen_ai.tool.name` (or `tool.name`, `traceloop.entity.name`): which tool ran is not recorded",
        )
    })?;
    if let Some(k) = NAMES
        .iter()
        .find(|k| s.attrs.get(**k).is_some_and(|v| !v.is_null() && v != name))
    {
        return Err(problem(
            *k,
            format!("`{name_key}` and `{k}` name different tools: which one ran?"),
        ));
    }
    let mut call = Map::new();
    call.insert("name".into(), name.clone());
    if let Some((_, id)) = first(&["gen_ai.tool.call.id", "tool_call.id"]) {
        call.insert("id".into(), id.clone());
    }
    let args_key = first(&[
        "gen_ai.tool.call.arguments",
        "input.value",
        "traceloop.entity.input",
        "gcp.vertex.agent.tool_call_args",
    ]);
    // Python instrumentations record the tool function's bound parameters,
    // not the arguments the model gave.
    let binding = args_key
        .filter(|(k, _)| matches!(*k, "input.value" | "traceloop.entity.input"))
        .and_then(|(_, a)| python_binding(a));
    match (&binding, args_key) {
        (Some(Binding::Keywords(kw)), _) => {
            call.insert("arguments".into(), kw.clone());
        }
        (Some(Binding::Unread(_)), _) | (None, None) => {}
        (None, Some((_, a))) => {
            call.insert("arguments".into(), a.clone());
        }
    }
    let mut decoded = chat::decode_call(&Value::Object(call)).map_err(|e| {
        let field = match e.pointer.as_str() {
            "/arguments" => args_key.map_or(name_key, |(k, _)| k).to_string(),
            "/name" => name_key.to_string(),
            _ => "gen_ai.tool.call.id".to_string(),
        };
        problem(field, e.message)
    })?;
    if let Some(Binding::Unread(text)) = binding {
        decoded.arguments = Value::String(text);
    }
    if let Some(id) = &mut decoded.id {
        *id = id.trim().to_string();
    }
    decoded.result = first(&[
        "gen_ai.tool.call.result",
        "output.value",
        "traceloop.entity.output",
        "gcp.vertex.agent.tool_response",
    ])
    .map(|(_, v)| v.clone());
    decoded.error = s
        .error
        .clone()
        .or_else(|| str_attr(s, "error.type").map(str::to_string))
        .or_else(|| {
            s.events.iter().find(|e| e.name == "exception").map(|e| {
                e.attrs
                    .get("exception.message")
                    .or_else(|| e.attrs.get("exception.type"))
                    .and_then(Value::as_str)
                    .unwrap_or("exception")
                    .to_string()
            })
        });
    Ok(decoded)
}

/// A Python tool function's bound parameters, as Traceloop
/// (`{"args": [...], "kwargs": {...}}`) and smolagents (also
/// `sanitize_inputs_outputs`) record a tool's input.
enum Binding {
    /// No positional argument: the keyword arguments are the call's.
    Keywords(Value),
    /// A positional argument, or `kwargs` without `args`: which parameter a
    /// value fills (or whether `kwargs` is itself a parameter) is not
    /// recorded, so the arguments are the recorded text, unread.
    Unread(String),
}

/// The binding a recorded tool input is, if it is one: an object (or its
/// JSON text) with `args` or `kwargs`. It is read ([`Binding::Keywords`])
/// only with no key but `args`, `kwargs` and smolagents'
/// `sanitize_inputs_outputs` / `sanitize_inputs_and_outputs`.
fn python_binding(v: &Value) -> Option<Binding> {
    let parsed;
    let obj = match v {
        Value::Object(m) => m,
        Value::String(t) => {
            parsed = pactum_core::json::parse_strict(t.as_bytes()).ok()?;
            parsed.as_object()?
        }
        _ => return None,
    };
    let binding_key = |k: &str| {
        matches!(
            k,
            "args" | "kwargs" | "sanitize_inputs_outputs" | "sanitize_inputs_and_outputs"
        )
    };
    // `args` or `kwargs` make it a binding: read only when it is exactly
    // one (no other key, `args` empty, `kwargs` an object that is not a
    // binding itself); any other shape is unread, never taken for the
    // arguments themselves.
    if !obj.contains_key("kwargs") && !obj.contains_key("args") {
        return None;
    }
    let nested = |kw: &Map<String, Value>| kw.contains_key("kwargs") || kw.contains_key("args");
    match (obj.get("args"), obj.get("kwargs")) {
        (Some(Value::Array(a)), Some(kw @ Value::Object(m)))
            if a.is_empty() && !nested(m) && obj.keys().all(|k| binding_key(k)) =>
        {
            Some(Binding::Keywords(kw.clone()))
        }
        _ => Some(Binding::Unread(match v {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        })),
    }
}

fn who(role: &str, field: &str) -> Result<Who, Problem> {
    Ok(match role {
        "system" | "developer" => Who::System,
        "user" | "human" => Who::User,
        "assistant" | "model" | "ai" => Who::Assistant,
        "tool" | "function" => Who::Tool,
        other => {
            return Err(problem(
                field,
                format!(
                    "unknown role `{}`: expected system, developer, user, assistant, tool or function (also human, ai, model)",
                    shown(other)
                ),
            ))
        }
    })
}

/// A JSON value that may be a JSON-encoded string (attributes are strings).
fn json_of(v: &Value, field: &str) -> Result<Value, Problem> {
    match v {
        Value::String(s) => pactum_core::json::parse_strict(s.as_bytes())
            .map_err(|e| problem(field, format!("expected JSON: {e}"))),
        other => Ok(other.clone()),
    }
}

/// A message in the OpenAI chat shape (also what the flattened and
/// OpenInference keys become), decoded by [`chat`].
fn openai_msg(v: &Value, field: &str) -> Result<Msg, Problem> {
    let Value::Object(m) = v else {
        return Err(problem(
            field,
            format!("expected a message object, found {}", kind(v)),
        ));
    };
    let role = match m.get("role") {
        Some(Value::String(r)) => r.as_str(),
        Some(o) => {
            return Err(problem(
                field,
                format!("`role`: expected a string, found {}", kind(o)),
            ))
        }
        None => return Err(problem(field, "a message without `role`")),
    };
    let w = who(role, field)?;
    let at = |e: chat::CallError| problem(field, e.to_string());
    if w == Who::Tool {
        let r = chat::tool_message(m).map_err(at)?;
        return Ok(Msg {
            who: w,
            text: None,
            calls: Vec::new(),
            results: vec![r],
            finish: None,
        });
    }
    let tools = chat::message_tools(m).map_err(at)?;
    let text = chat::content_text(m.get("content")).map_err(|e| problem(field, e))?;
    Ok(Msg {
        who: w,
        text,
        calls: tools.calls,
        results: tools.results,
        finish: finish_reason(m),
    })
}

/// A current GenAI message: `{role, parts: [{type: text, content} |
/// {type: tool_call, …} | {type: tool_call_response, …} | …], …}`.
fn genai_msg(v: &Value, field: &str) -> Result<Msg, Problem> {
    let Value::Object(m) = v else {
        return Err(problem(
            field,
            format!("expected a message object, found {}", kind(v)),
        ));
    };
    let role = m
        .get("role")
        .and_then(Value::as_str)
        .ok_or_else(|| problem(field, "a message without a string `role`"))?;
    let w = who(role, field)?;
    let parts = match m.get("parts") {
        Some(Value::Array(p)) => p,
        Some(o) => {
            return Err(problem(
                field,
                format!("`parts`: expected an array, found {}", kind(o)),
            ))
        }
        None => return Err(problem(field, "a message without `parts`")),
    };
    let mut texts = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if p.get("type").and_then(Value::as_str) == Some("text") {
            match p.get("content") {
                Some(Value::String(s)) => texts.push(s.clone()),
                other => {
                    return Err(problem(
                        field,
                        format!(
                            "`parts/{i}/content`: expected the text as a string, found {}",
                            other.map_or("nothing", kind)
                        ),
                    ))
                }
            }
        }
    }
    let mut only = Map::new();
    only.insert("parts".into(), Value::Array(parts.clone()));
    let tools = chat::message_tools(&only).map_err(|e| problem(field, e.to_string()))?;
    Ok(Msg {
        who: w,
        text: chat::join_texts(texts),
        calls: tools.calls,
        results: tools.results,
        finish: finish_reason(m),
    })
}

fn genai_list(v: &Value, field: &str) -> Result<Vec<Msg>, Problem> {
    match json_of(v, field)? {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, m)| genai_msg(m, &format!("{field}[{i}]")))
            .collect(),
        other => Err(problem(
            field,
            format!("expected an array of messages, found {}", kind(&other)),
        )),
    }
}

enum Node {
    Leaf(Value),
    Branch(BTreeMap<String, Node>),
}

/// The attributes under `prefix` (`gen_ai.prompt.`) as one JSON tree:
/// `gen_ai.prompt.0.tool_calls.1.name` → `[{tool_calls: [_, {name}]}]`.
/// Numeric segments are array indices and must run 0, 1, 2, … without a
/// gap (a missing index is a message the span lost); a key that is both a
/// value and a prefix is an error. `None` when no key has the prefix.
fn unflatten(attrs: &BTreeMap<String, Value>, prefix: &str) -> Result<Option<Value>, Problem> {
    let mut root: BTreeMap<String, Node> = BTreeMap::new();
    let mut any = false;
    for (k, v) in attrs.range(prefix.to_string()..) {
        let Some(rest) = k.strip_prefix(prefix) else {
            break;
        };
        any = true;
        let segs: Vec<&str> = rest.split('.').collect();
        let mut cur = &mut root;
        for (i, seg) in segs.iter().enumerate() {
            if i + 1 == segs.len() {
                if cur
                    .insert((*seg).to_string(), Node::Leaf(v.clone()))
                    .is_some()
                {
                    return Err(problem(
                        k,
                        "the key is both a value and a prefix of other keys",
                    ));
                }
            } else {
                let e = cur
                    .entry((*seg).to_string())
                    .or_insert_with(|| Node::Branch(BTreeMap::new()));
                match e {
                    Node::Branch(b) => cur = b,
                    Node::Leaf(_) => {
                        return Err(problem(
                            k,
                            "the key is both a value and a prefix of other keys",
                        ))
                    }
                }
            }
        }
    }
    if !any {
        return Ok(None);
    }
    to_value(root, prefix.trim_end_matches('.')).map(Some)
}

fn to_value(m: BTreeMap<String, Node>, at: &str) -> Result<Value, Problem> {
    let numeric = m.keys().filter(|k| k.parse::<usize>().is_ok()).count();
    if numeric > 0 && numeric < m.len() {
        return Err(problem(at, "mixes numbered and named keys"));
    }
    let conv = |k: &str, n: Node| -> Result<Value, Problem> {
        match n {
            Node::Leaf(v) => Ok(v),
            Node::Branch(b) => to_value(b, &format!("{at}.{k}")),
        }
    };
    if numeric > 0 {
        let mut items: Vec<(usize, Node)> = Vec::new();
        for (k, n) in m {
            let i: usize = k.parse().map_err(|_| problem(at, "bad index"))?;
            items.push((i, n));
        }
        items.sort_by_key(|(i, _)| *i);
        let mut out = Vec::new();
        for (expect, (i, n)) in items.into_iter().enumerate() {
            if i != expect {
                return Err(problem(
                    format!("{at}.{expect}"),
                    "missing: the numbered keys have a gap (a message or call the span lost)",
                ));
            }
            out.push(conv(&i.to_string(), n)?);
        }
        Ok(Value::Array(out))
    } else {
        let mut out = Map::new();
        for (k, n) in m {
            let v = conv(&k, n)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// OpenInference `{message: {role, content, contents, tool_calls,
/// tool_call_id, name}}` as an OpenAI message.
fn openinference_msg(v: &Value, field: &str) -> Result<Msg, Problem> {
    let m = v
        .get("message")
        .and_then(Value::as_object)
        .ok_or_else(|| problem(field, "expected `message.*` keys"))?;
    let mut out = Map::new();
    for (k, x) in m {
        match k.as_str() {
            "role" | "tool_call_id" | "name" => {
                out.insert(k.clone(), x.clone());
            }
            "content" => {
                out.insert("content".into(), x.clone());
            }
            "contents" => {
                let Value::Array(items) = x else {
                    return Err(problem(
                        format!("{field}.message.contents"),
                        "expected numbered keys",
                    ));
                };
                let mut parts = Vec::new();
                for (j, it) in items.iter().enumerate() {
                    let c = it.get("message_content").unwrap_or(it);
                    match c.get("type").and_then(Value::as_str) {
                        Some("text") => parts.push(serde_json::json!({"type": "text", "text": c.get("text").cloned().unwrap_or(Value::Null)})),
                        // An image holds no text and no call.
                        Some("image") if c.get("text").is_none() => {}
                        other => {
                            return Err(problem(
                                format!("{field}.message.contents.{j}.message_content.type"),
                                format!(
                                    "{}: pactum reads `text` and `image` contents, and another may hold a call or the text",
                                    other.map_or("no type".to_string(), |t| format!("type `{}`", shown(t)))
                                ),
                            ))
                        }
                    }
                }
                if out.contains_key("content") {
                    return Err(problem(
                        format!("{field}.message.contents"),
                        "both `content` and `contents`: ambiguous",
                    ));
                }
                out.insert("content".into(), Value::Array(parts));
            }
            "tool_calls" => {
                let Value::Array(items) = x else {
                    return Err(problem(
                        format!("{field}.message.tool_calls"),
                        "expected numbered keys",
                    ));
                };
                let mut calls = Vec::new();
                for (j, it) in items.iter().enumerate() {
                    let at = format!("{field}.message.tool_calls.{j}");
                    let tc = it
                        .get("tool_call")
                        .and_then(Value::as_object)
                        .ok_or_else(|| problem(&at, "expected `tool_call.*` keys"))?;
                    let mut call = Map::new();
                    for (ck, cv) in tc {
                        match ck.as_str() {
                            "id" => {
                                call.insert("id".into(), cv.clone());
                            }
                            "function" => {
                                call.insert("function".into(), cv.clone());
                            }
                            other => {
                                return Err(problem(format!("{at}.tool_call.{other}"), "an unknown key of a tool call: pactum reads `id` and `function.{name,arguments}`"))
                            }
                        }
                    }
                    call.insert("type".into(), Value::String("function".into()));
                    calls.push(Value::Object(call));
                }
                out.insert("tool_calls".into(), Value::Array(calls));
            }
            other if chat::is_call_like(other) => {
                return Err(problem(
                    format!("{field}.message.{other}"),
                    "a key that looks like a tool call, which pactum does not read",
                ));
            }
            _ => {}
        }
    }
    openai_msg(&Value::Object(out), field)
}

fn list_of(
    v: Value,
    field: &str,
    f: fn(&Value, &str) -> Result<Msg, Problem>,
) -> Result<Vec<Msg>, Problem> {
    let Value::Array(items) = v else {
        return Err(problem(field, "expected numbered keys"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, m)| f(m, &format!("{field}.{i}")))
        .collect()
}

/// What each convention present on a span records for one side of its call
/// (input or output): where it sits, and its messages.
type Readings = Vec<(&'static str, Vec<Msg>)>;

fn input(s: &Span) -> Result<Option<Vec<Msg>>, Problem> {
    let mut found: Readings = Vec::new();
    if let Some(v) = s.attrs.get(crate::langsmith::CHAT_INPUT) {
        found.push((
            "inputs.messages",
            list_of(v.clone(), "inputs.messages", openai_msg)?,
        ));
    }
    if let Some(v) = s.attrs.get("gen_ai.input.messages") {
        found.push((
            "gen_ai.input.messages",
            genai_list(v, "gen_ai.input.messages")?,
        ));
    }
    if let Some(v) = unflatten(&s.attrs, "llm.input_messages.")? {
        found.push((
            "llm.input_messages",
            list_of(v, "llm.input_messages", openinference_msg)?,
        ));
    }
    if let Some(v) = unflatten(&s.attrs, "gen_ai.prompt.")? {
        found.push(("gen_ai.prompt", list_of(v, "gen_ai.prompt", openai_msg)?));
    }
    if let Some(msgs) = details_event(s, "gen_ai.input.messages")? {
        found.push((DETAILS_EVENT, msgs));
    }
    let mut msgs = Vec::new();
    for (i, e) in s.events.iter().enumerate() {
        if !is_input_event(&e.name) {
            continue;
        }
        let field = format!("event {i} `{}`", e.name);
        let role = e
            .name
            .trim_start_matches("gen_ai.")
            .trim_end_matches(".message");
        let mut body = event_body(e, &field)?;
        body.insert("role".into(), Value::String(role.into()));
        if role == "tool" {
            if let Some(id) = body.remove("id") {
                body.insert("tool_call_id".into(), id);
            }
        }
        msgs.push(openai_msg(&Value::Object(body), &field)?);
    }
    if !msgs.is_empty() {
        found.push(("gen_ai.*.message events", msgs));
    }
    agree(found)
}

/// The one message list the conventions on a span record. Each convention
/// is another place of the same messages (an instrumentation emitting two
/// conventions at once): they must agree, message by message, and each
/// fills what another left out. Reading only the first would drop a call
/// the second records.
fn agree(found: Readings) -> Result<Option<Vec<Msg>>, Problem> {
    let mut it = found.into_iter();
    let Some((first, mut merged)) = it.next() else {
        return Ok(None);
    };
    for (other, msgs) in it {
        merged = same_messages(first, merged, other, msgs)?;
    }
    Ok(Some(merged))
}

fn who_name(w: Who) -> &'static str {
    match w {
        Who::System => "system",
        Who::User => "user",
        Who::Assistant => "assistant",
        Who::Tool => "tool",
    }
}

fn same_messages(
    a_at: &str,
    a: Vec<Msg>,
    b_at: &'static str,
    b: Vec<Msg>,
) -> Result<Vec<Msg>, Problem> {
    let differ = |what: String| {
        problem(
            b_at,
            format!("`{a_at}` and `{b_at}` record the same messages of one call and disagree: {what}; which is it?"),
        )
    };
    if a.len() != b.len() {
        return Err(differ(format!(
            "{} message(s) against {}",
            a.len(),
            b.len()
        )));
    }
    let mut out = Vec::with_capacity(a.len());
    for (i, (x, y)) in a.into_iter().zip(b).enumerate() {
        if x.who != y.who {
            return Err(differ(format!(
                "message {i} is the {}'s in one, the {}'s in the other",
                who_name(x.who),
                who_name(y.who)
            )));
        }
        let text = match (x.text, y.text) {
            (Some(p), Some(q)) if p.trim() != q.trim() => {
                return Err(differ(format!(
                    "message {i} says `{}` in one and `{}` in the other",
                    shown(&p),
                    shown(&q)
                )))
            }
            (p, q) => p.or(q),
        };
        if x.calls.len() != y.calls.len() {
            return Err(differ(format!(
                "message {i} makes {} tool call(s) in one and {} in the other",
                x.calls.len(),
                y.calls.len()
            )));
        }
        let mut calls = Vec::with_capacity(x.calls.len());
        for (j, (mut c, d)) in x.calls.into_iter().zip(y.calls).enumerate() {
            let ids_differ = matches!((&c.id, &d.id), (Some(p), Some(q)) if p.trim() != q.trim());
            let args_differ =
                !c.arguments.is_null() && !d.arguments.is_null() && c.arguments != d.arguments;
            if c.name != d.name || ids_differ || args_differ {
                return Err(differ(format!(
                    "call {j} of message {i} is `{}` in one and `{}` in the other{}",
                    shown(&c.name),
                    shown(&d.name),
                    if c.name == d.name {
                        " with other ids or arguments"
                    } else {
                        ""
                    }
                )));
            }
            if c.id.is_none() {
                c.id = d.id;
            }
            if c.arguments.is_null() {
                c.arguments = d.arguments;
            }
            if c.result.is_none() {
                c.result = d.result;
            }
            if c.error.is_none() {
                c.error = d.error;
            }
            calls.push(c);
        }
        if x.results.len() != y.results.len() {
            return Err(differ(format!(
                "message {i} holds {} tool result(s) in one and {} in the other",
                x.results.len(),
                y.results.len()
            )));
        }
        let mut results = Vec::with_capacity(x.results.len());
        for (j, (mut r, q)) in x.results.into_iter().zip(y.results).enumerate() {
            if let (chat::Answers::Id(p), chat::Answers::Id(o)) = (&r.answers, &q.answers) {
                if p.trim() != o.trim() {
                    return Err(differ(format!(
                        "result {j} of message {i} answers `{}` in one and `{}` in the other",
                        shown(p),
                        shown(o)
                    )));
                }
            }
            if !matches!(r.answers, chat::Answers::Id(_)) {
                r.answers = q.answers;
            }
            if r.result.is_none() {
                r.result = q.result;
            }
            if r.error.is_none() {
                r.error = q.error;
            }
            results.push(r);
        }
        out.push(Msg {
            who: x.who,
            text,
            calls,
            results,
            // Either place's reason: a tool-call reason in one is enough
            // to expect calls.
            finish: match (x.finish, y.finish) {
                (Some(p), _) if asks_for_tools(&p) => Some(p),
                (p, q) => q.or(p),
            },
        });
    }
    Ok(out)
}

/// The GenAI event (semantic conventions 1.37 and later) that records a
/// call's messages in place of the span's attributes.
pub(crate) const DETAILS_EVENT: &str = "gen_ai.client.inference.operation.details";

/// The messages `key` (`gen_ai.input.messages`, `gen_ai.output.messages`)
/// of the span's [`DETAILS_EVENT`]s: one more place of them, which must
/// agree with the others. Two such events recording the key are refused.
fn details_event(s: &Span, key: &str) -> Result<Option<Vec<Msg>>, Problem> {
    let mut found = None;
    for (i, e) in s.events.iter().enumerate() {
        if e.name != DETAILS_EVENT {
            continue;
        }
        let Some(v) = e.attrs.get(key) else { continue };
        let field = format!("event {i} `{DETAILS_EVENT}` `{key}`");
        if found.is_some() {
            return Err(problem(
                field,
                format!("a second `{DETAILS_EVENT}` event recording `{key}`: which is the call's?"),
            ));
        }
        found = Some(genai_list(v, &field)?);
    }
    Ok(found)
}

/// `gen_ai.completion` written as one JSON attribute (LangSmith's
/// OpenTelemetry export): an OpenAI response (`{"choices": [{"message"}]}`)
/// or a list of messages; any other shape is refused.
fn whole_completion(v: &Value) -> Result<Vec<Msg>, Problem> {
    const F: &str = "gen_ai.completion";
    match json_of(v, F)? {
        Value::Object(m) => match m.get("choices") {
            Some(Value::Array(choices)) => choices
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let at = format!("{F}.choices.{i}");
                    let msg = c
                        .get("message")
                        .ok_or_else(|| problem(&at, "a choice without `message`"))?;
                    let mut out = openai_msg(msg, &at)?;
                    if out.finish.is_none() {
                        out.finish = c.as_object().and_then(finish_reason);
                    }
                    Ok(out)
                })
                .collect(),
            _ => Err(problem(
                F,
                "an object without `choices`: pactum reads an OpenAI response or a list of messages here",
            )),
        },
        items @ Value::Array(_) => list_of(items, F, openai_msg),
        other => Err(problem(
            F,
            format!("expected JSON of a response or of messages, found {}", kind(&other)),
        )),
    }
}

/// An event's body: `gen_ai.event.content` (JSON) when present, else its
/// attributes; `tool_calls` and `message` given as JSON text are decoded.
/// An event holding `gen_ai.event.content` and other attributes records
/// its body in two places: refused, since pactum would read one only.
fn event_body(e: &super::span::Event, field: &str) -> Result<Map<String, Value>, Problem> {
    if e.attrs.contains_key("gen_ai.event.content") {
        if let Some(k) = e.attrs.keys().find(|k| !k.starts_with("gen_ai.")) {
            return Err(problem(
                field,
                format!(
                    "both `gen_ai.event.content` and `{}`: the event records its body in two places",
                    shown(k)
                ),
            ));
        }
    }
    let mut body: Map<String, Value> = match e.attrs.get("gen_ai.event.content") {
        Some(v) => match json_of(v, field)? {
            Value::Object(m) => m,
            other => {
                return Err(problem(
                    field,
                    format!(
                        "`gen_ai.event.content`: expected an object, found {}",
                        kind(&other)
                    ),
                ))
            }
        },
        None => e
            .attrs
            .iter()
            .filter(|(k, _)| !k.starts_with("gen_ai."))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    };
    for k in ["tool_calls", "message"] {
        if let Some(Value::String(s)) = body.get(k) {
            let v = json_of(&Value::String(s.clone()), &format!("{field} `{k}`"))?;
            body.insert(k.into(), v);
        }
    }
    Ok(body)
}

fn output(s: &Span) -> Result<Option<Vec<Msg>>, Problem> {
    let mut found: Readings = Vec::new();
    if let Some(v) = s.attrs.get(crate::langsmith::CHAT_OUTPUT) {
        found.push(("outputs", list_of(v.clone(), "outputs", openai_msg)?));
    }
    if let Some(v) = s.attrs.get("gen_ai.output.messages") {
        found.push((
            "gen_ai.output.messages",
            genai_list(v, "gen_ai.output.messages")?,
        ));
    }
    if let Some(v) = unflatten(&s.attrs, "llm.output_messages.")? {
        found.push((
            "llm.output_messages",
            list_of(v, "llm.output_messages", openinference_msg)?,
        ));
    }
    if let Some(v) = unflatten(&s.attrs, "gen_ai.completion.")? {
        found.push((
            "gen_ai.completion",
            list_of(v, "gen_ai.completion", openai_msg)?,
        ));
    }
    if let Some(v) = s.attrs.get("gen_ai.completion") {
        found.push(("gen_ai.completion", whole_completion(v)?));
    }
    if let Some(msgs) = details_event(s, "gen_ai.output.messages")? {
        found.push((DETAILS_EVENT, msgs));
    }
    let mut msgs = Vec::new();
    for (i, e) in s.events.iter().enumerate() {
        if e.name != "gen_ai.choice" {
            continue;
        }
        let field = format!("event {i} `gen_ai.choice`");
        let body = event_body(e, &field)?;
        let mut m = match body.get("message") {
            Some(Value::Object(m)) => m.clone(),
            Some(o) => {
                return Err(problem(
                    field,
                    format!("`message`: expected an object, found {}", kind(o)),
                ))
            }
            None => return Err(problem(field, "a `gen_ai.choice` event without `message`")),
        };
        m.entry("role")
            .or_insert_with(|| Value::String("assistant".into()));
        let mut msg = openai_msg(&Value::Object(m), &field)?;
        if msg.finish.is_none() {
            msg.finish = finish_reason(&body);
        }
        msgs.push(msg);
    }
    if !msgs.is_empty() {
        found.push(("gen_ai.choice events", msgs));
    }
    let Some(msgs) = agree(found)? else {
        return Ok(None);
    };
    // An empty list records no message at all; a model that stopped to call
    // tools (`finish_reason: tool_calls`, here or in the span's
    // `gen_ai.response.finish_reasons`) with no call recorded was captured
    // in part. Either way what it asked for is unknown: not captured, so
    // neither "said nothing" nor "called nothing" is read from it.
    //
    // The span's reasons sit under the plural key or the singular one, as
    // an array, JSON text or a Python tuple's text (`('tool_calls',)`).
    let span_reasons: Vec<String> = [
        "gen_ai.response.finish_reasons",
        "gen_ai.response.finish_reason",
    ]
    .iter()
    .filter_map(|k| s.attrs.get(*k))
    .flat_map(reasons_of)
    .collect();
    let span_asks = span_reasons.iter().any(|r| asks_for_tools(r));
    // A message with nothing in it (`parts: []`) is as empty as no list,
    // and a message that stopped to call tools with none recorded was
    // captured in part: either way, not captured.
    let partial = msgs.iter().any(|m| {
        (m.text.is_none() && m.calls.is_empty() && m.results.is_empty())
            || (m.calls.is_empty() && m.finish.as_deref().is_some_and(asks_for_tools))
    });
    let said_nothing = msgs
        .iter()
        .all(|m| m.calls.is_empty() && m.text.as_deref().is_none_or(|t| t.trim().is_empty()));
    // An output that said nothing and called nothing, with a reason that
    // is not one pactum knows ends a turn, may be a call in another
    // spelling: not read as "called nothing".
    let unknown_reason = said_nothing
        && span_reasons
            .iter()
            .map(String::as_str)
            .chain(msgs.iter().filter_map(|m| m.finish.as_deref()))
            .any(|r| !ends_turn(r));
    if msgs.is_empty()
        || partial
        || unknown_reason
        || (span_asks && msgs.iter().all(|m| m.calls.is_empty()))
    {
        return Ok(None);
    }
    Ok(Some(msgs))
}

/// The finish reasons a value records: a string (JSON text of an array,
/// a Python tuple's or list's text, or one reason), or an array of them.
fn reasons_of(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) => items.iter().flat_map(reasons_of).collect(),
        Value::String(t) => match serde_json::from_str::<Vec<String>>(t) {
            Ok(items) => items,
            Err(_) => t
                .trim()
                .trim_start_matches(['(', '['])
                .trim_end_matches([')', ']'])
                .split(',')
                .map(|r| r.trim().trim_matches(['\'', '"']).trim().to_string())
                .filter(|r| !r.is_empty())
                .collect(),
        },
        // Not a reason pactum reads: kept as text, so it counts as unknown.
        other => vec![other.to_string()],
    }
}

/// Whether a finish reason is one that ends a turn without a tool call
/// (OpenAI, Anthropic, Gemini, Bedrock spellings, any case).
fn ends_turn(reason: &str) -> bool {
    matches!(
        reason
            .trim()
            .to_ascii_lowercase()
            .replace('-', "_")
            .as_str(),
        "stop"
            | "end_turn"
            | "length"
            | "max_tokens"
            | "content_filter"
            | "stop_sequence"
            | "eos"
            | "end"
            | "complete"
            | "safety"
            | "recitation"
            | "finish_reason_unspecified"
            | "guardrail_intervened"
    )
}

/// A message's `finish_reason`: a string, or of an array the first that
/// asks for tools, else the first; any other value as its text (an
/// unknown reason).
fn finish_reason(m: &Map<String, Value>) -> Option<String> {
    let v = m.get("finish_reason").filter(|v| !v.is_null())?;
    let reasons = reasons_of(v);
    reasons
        .iter()
        .find(|r| asks_for_tools(r))
        .or_else(|| reasons.first())
        .cloned()
}

/// Whether a finish reason says the model stopped to call tools (OpenAI
/// `tool_calls`, legacy `function_call`, Anthropic `tool_use`).
/// Hyphens are read as underscores (the Vercel AI SDK's `tool-calls`).
fn asks_for_tools(reason: &str) -> bool {
    matches!(
        reason
            .trim()
            .to_ascii_lowercase()
            .replace('-', "_")
            .as_str(),
        "tool_calls" | "tool_call" | "function_call" | "function_calls" | "tool_use"
    )
}
