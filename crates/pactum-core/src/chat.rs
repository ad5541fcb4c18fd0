//! Chat messages as logs and live answers record them (SPEC §2, §3.2, §4):
//! the text of a message's content, and the tool calls and tool results a
//! message carries, in every shape pactum reads. Every trace importer and
//! every target decodes through here; nothing else builds a [`ToolCall`]
//! from JSON.
//!
//! **Fail closed.** A call is read with its name, its arguments, its id and,
//! where the shape has them, its result and error — or it is a
//! [`CallError`] naming the field. Never `{}` for arguments pactum could not
//! read, never a dropped call: a missing call reads as compliance.
//!
//! **Arguments** ([`decode_arguments`]) come out as one of three things,
//! which [`ToolCall::readable_arguments`] tells apart:
//!
//! | recorded | `arguments` | argument matchers |
//! |---|---|---|
//! | an object, or a string holding a JSON object (OpenAI), decoded strictly; a blank string (no arguments) is `{}` | that object | read it |
//! | a string that is not a JSON object (not JSON, truncated, a bare number) | the string, as recorded | undetermined, unless the condition is on the whole text (pointer `""`) |
//! | nothing: the key absent, or `null` | `null` | undetermined |
//!
//! A key repeated in one object — in the call, or in a JSON-encoded
//! argument string — is an error, never read last-wins
//! ([`crate::json::parse_strict`]). Any other type of arguments (an array,
//! a number, a boolean) is an error.
//!
//! **Call shapes** ([`decode_call`]; the keys each accepts, any other key
//! is an error — a call object with a key pactum does not know may carry
//! what it would miss):
//!
//! | shape | keys |
//! |---|---|
//! | pactum, `http`, `exec`, flattened OpenAI, legacy `function_call`, Llama | `name`, one of `arguments` / `args` / `input` / `parameters`, `id`, `result`, `error`, `type: "function"` |
//! | OpenAI | `id`, `type: "function"`, `index`, `function: {name, arguments \| args \| input \| parameters, index}` |
//! | OpenAI custom tool | `id`, `type: "custom"`, `index`, `custom: {name, input}` |
//! | AgentDojo | `function` (the name, a string), `args`, `id`, `placeholder_args` |
//! | LangChain, OpenTelemetry GenAI | `type: "tool_call"`, `name`, `args` or `arguments`, `id` |
//! | LangChain invalid call | `type: "invalid_tool_call"`, `name`, `args`, `id`, `error`: a call the framework could not parse still counts as made, errored |
//! | Anthropic | `type: "tool_use"` (`server_tool_use`, `mcp_tool_use`), `id`, `name`, `input`, `caller`, `cache_control`, `server_name` |
//! | OpenAI Responses | `type: "function_call"`, `call_id` (the id results name), `id`, `name`, `arguments`, `status` |
//! | Gemini part | `functionCall` (or `function_call`): `{name, args, id}`, beside `thoughtSignature` / `thought_signature` / `thought` |
//!
//! **Result shapes** ([`decode_result`]): Anthropic `*tool_result` blocks
//! (`tool_use_id`, `content`, `is_error`), Gemini `functionResponse` parts
//! (`name`, `response`, `id`; no id: answered by name and order; a
//! `response` with `error`, or with `status: "error"`, is the call's error),
//! OpenTelemetry `tool_call_response` (`id`, `response` or `result`),
//! OpenAI Responses `function_call_output` (`call_id`, `output`). Tool
//! *messages* (`role: tool`) are [`tool_message`].
//!
//! **Containers** ([`message_tools`]): a message's `tool_calls`,
//! `function_call`, `invalid_tool_calls`, `additional_kwargs.tool_calls` /
//! `.function_call`, the blocks of an array `content`, and Gemini `parts`.
//! A key, block type or part key that looks like a tool call (it names a
//! tool, a function, a call or code execution) but is none of these is an
//! error. When one message states its calls in several containers
//! (LangChain keeps `tool_calls` beside `additional_kwargs.tool_calls`, or
//! beside Anthropic `tool_use` blocks), they must be the same calls — read
//! once — or the message is ambiguous, an error.

use serde_json::{Map, Value};

use crate::json::{escape_pointer_token, parse_strict, Field, StrictJsonError};
use crate::text::one_line;
use crate::trace::ToolCall;

/// Characters of input text (a key, a type) an error message repeats.
const SHOWN: usize = 80;

/// How many times a JSON-encoded string is decoded when it encodes a
/// string again (double encoding).
const MAX_ENCODINGS: usize = 4;

/// Why a call, a result or a message could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.shown())]
pub struct CallError {
    /// Where, as a JSON pointer (RFC 6901) relative to the value decoded:
    /// `""` for the value itself, `/function/arguments` inside it.
    pub pointer: String,
    /// What is wrong: a lowercase fragment. Input text in it is bounded and
    /// on one line.
    pub message: String,
}

impl CallError {
    fn at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        CallError {
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// The same error, found inside the value at `prefix` (a JSON pointer).
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Self {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }

    fn shown(&self) -> String {
        if self.pointer.is_empty() {
            self.message.clone()
        } else {
            format!("`{}`: {}", self.pointer, self.message)
        }
    }
}

/// Which call a result answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answers {
    /// The call with this id.
    Id(String),
    /// The first unanswered call of this name (Gemini, which has no ids):
    /// by name, then order.
    Name(String),
    /// The next unanswered call, by order (a tool message without an id,
    /// as AgentDojo records them).
    Next,
}

/// A tool result, not yet attached to its call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The call it answers.
    pub answers: Answers,
    /// What the tool returned, when recorded.
    pub result: Option<Value>,
    /// The error the call ended in, when it did.
    pub error: Option<String>,
}

/// The tool calls and tool results one message carries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MessageTools {
    /// The calls, in order. A result in the same message (Anthropic server
    /// tools) is already attached to its call.
    pub calls: Vec<ToolCall>,
    /// Results that answer calls of earlier messages, in order.
    pub results: Vec<ToolResult>,
}

/// What kind of JSON value `v` is, for messages ("found an array").
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Whether a key, a block `type` or a part key names something that
/// carries a tool call or its result: a tool, a function, a call, or code
/// execution. Such a thing that pactum does not read is an error, never
/// skipped.
pub fn is_call_like(name: &str) -> bool {
    // Read for every key of every message: compared in place, not lowered
    // into a new string.
    const WORDS: [&[u8]; 6] = [
        b"tool",
        b"function",
        b"call",
        b"executable",
        b"code_execution",
        b"codeexecution",
    ];
    let b = name.as_bytes();
    WORDS
        .iter()
        .any(|w| b.windows(w.len()).any(|at| at.eq_ignore_ascii_case(w)))
}

/// Decodes a call's arguments as recorded (see the module docs): `None`
/// (the key is absent) and `null` are not recorded (`null`); an object is
/// kept; a string is decoded when it holds a JSON object (also when that
/// object was JSON-encoded twice), is `{}` when blank, and is kept as the
/// recorded string otherwise.
///
/// # Errors
/// A [`CallError`] at `""` when a JSON-encoded string repeats a key in one
/// object (ambiguous), or when the arguments are an array, a number or a
/// boolean.
pub fn decode_arguments(v: Option<&Value>) -> Result<Value, CallError> {
    match v {
        None | Some(Value::Null) => Ok(Value::Null),
        Some(Value::Object(m)) => Ok(Value::Object(m.clone())),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Value::Object(Map::new())),
        Some(Value::String(s)) => decode_text(s),
        Some(other) => Err(CallError::at(
            "",
            format!(
                "expected an object or a JSON-encoded string of arguments, found {}",
                kind(other)
            ),
        )),
    }
}

/// Argument text: the object it encodes (decoding again while it encodes a
/// string), else the text itself.
fn decode_text(s: &str) -> Result<Value, CallError> {
    let mut text = s.to_string();
    for _ in 0..MAX_ENCODINGS {
        match parse_strict(&text) {
            Ok(Value::Object(m)) => return Ok(Value::Object(m)),
            Ok(Value::String(inner)) => text = inner,
            Ok(_) | Err(StrictJsonError::Syntax(_)) => break,
            Err(e @ StrictJsonError::DuplicateKey { .. }) => {
                return Err(CallError::at(
                    "",
                    format!("the arguments (a JSON-encoded string) have a {e}"),
                ))
            }
        }
    }
    Ok(Value::String(s.to_string()))
}

/// The decoding rule a shape follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `{name, arguments, id, result, error}` and its synonyms.
    Flat,
    /// OpenAI `{id, type, function: {name, arguments}}`.
    OpenaiNested,
    /// OpenAI `{id, type: custom, custom: {name, input}}`.
    OpenaiCustom,
    /// AgentDojo `{function: NAME, args, id}`.
    AgentDojo,
    /// LangChain / OpenTelemetry `{type: tool_call, name, args, id}`.
    LangChain,
    /// LangChain `{type: invalid_tool_call, name, args, id, error}`.
    LangChainInvalid,
    /// Anthropic `{type: tool_use, id, name, input}`.
    Anthropic,
    /// OpenAI Responses `{type: function_call, call_id, name, arguments}`.
    Responses,
    /// The inside of a Gemini `functionCall`: `{name, args, id}`.
    Gemini,
}

/// Keys that may hold a call's arguments, by shape.
const FLAT_ARGS: &[&str] = &["arguments", "args", "input", "parameters"];

impl Shape {
    /// What the shape is called in error messages.
    fn label(self) -> &'static str {
        match self {
            Shape::Flat => "a tool call",
            Shape::OpenaiNested => "an OpenAI tool call",
            Shape::OpenaiCustom => "an OpenAI custom tool call",
            Shape::AgentDojo => "an AgentDojo function call",
            Shape::LangChain => "a `tool_call`",
            Shape::LangChainInvalid => "an `invalid_tool_call`",
            Shape::Anthropic => "a `tool_use` block",
            Shape::Responses => "a `function_call` item",
            Shape::Gemini => "a Gemini `functionCall`",
        }
    }

    /// Every key the shape's object may have.
    fn keys(self) -> &'static [&'static str] {
        match self {
            Shape::Flat => &[
                "name",
                "arguments",
                "args",
                "input",
                "parameters",
                "id",
                "result",
                "error",
                "type",
            ],
            Shape::OpenaiNested => &["id", "type", "function", "index"],
            Shape::OpenaiCustom => &["id", "type", "custom", "index"],
            Shape::AgentDojo => &["function", "args", "id", "placeholder_args"],
            Shape::LangChain => &["type", "name", "args", "arguments", "id"],
            Shape::LangChainInvalid => &["type", "name", "args", "id", "error"],
            Shape::Anthropic => &[
                "type",
                "id",
                "name",
                "input",
                "caller",
                "cache_control",
                "server_name",
            ],
            Shape::Responses => &["type", "id", "call_id", "name", "arguments", "status"],
            Shape::Gemini => &["name", "args", "id"],
        }
    }

    /// The keys that may hold the arguments (at most one may be present).
    fn argument_keys(self) -> &'static [&'static str] {
        match self {
            Shape::Flat | Shape::OpenaiNested => FLAT_ARGS,
            Shape::OpenaiCustom | Shape::Anthropic => &["input"],
            Shape::AgentDojo | Shape::LangChainInvalid | Shape::Gemini => &["args"],
            Shape::LangChain => &["args", "arguments"],
            Shape::Responses => &["arguments"],
        }
    }
}

/// Refuses any key of `m` outside `allowed`; `what` names `m` in the
/// error (made only then: this runs for every call of every record).
fn known_keys<W: std::fmt::Display>(
    m: &Map<String, Value>,
    allowed: &[&str],
    what: impl FnOnce() -> W,
) -> Result<(), CallError> {
    match m.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err(CallError::at(
            format!("/{}", escape_pointer_token(k)),
            format!(
                "unknown key `{}` in {} (expected: {}): pactum does not read it, and it may hold what a check needs",
                one_line(k, SHOWN),
                what(),
                allowed.join(", ")
            ),
        )),
    }
}

/// A required, non-blank name.
fn name_at(m: &Map<String, Value>, key: &str) -> Result<String, CallError> {
    let at = || format!("/{key}");
    match m.field(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(CallError::at(
            at(),
            "the tool name is empty: a call to an unknown tool cannot be checked",
        )),
        Some(other) => Err(CallError::at(
            at(),
            format!("expected the tool name (a string), found {}", kind(other)),
        )),
        None => Err(CallError::at(at(), "missing tool name")),
    }
}

/// An optional id: a non-empty string or a number; empty and `null` are
/// none (AgentDojo records `""`).
fn id_at(m: &Map<String, Value>, key: &str) -> Result<Option<String>, CallError> {
    match m.field(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok((!s.is_empty()).then(|| s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(CallError::at(
            format!("/{key}"),
            format!(
                "expected an id (a string or a number), found {}",
                kind(other)
            ),
        )),
    }
}

/// An error text: a string, or an object's JSON text; `null` is none.
fn error_at(m: &Map<String, Value>, key: &str) -> Result<Option<String>, CallError> {
    match m.field(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v @ Value::Object(_)) => Ok(Some(v.to_string())),
        Some(other) => Err(CallError::at(
            format!("/{key}"),
            format!(
                "expected an error message (a string or an object), found {}",
                kind(other)
            ),
        )),
    }
}

/// The arguments of `m` under `shape`: at most one argument key.
fn arguments_of(m: &Map<String, Value>, shape: Shape) -> Result<Value, CallError> {
    let present: Vec<&str> = shape
        .argument_keys()
        .iter()
        .copied()
        .filter(|k| m.contains_key(*k))
        .collect();
    match present.as_slice() {
        [] => Ok(Value::Null),
        [one] => decode_arguments(m.get(*one)).map_err(|e| e.under(&format!("/{one}"))),
        [first, second, ..] => Err(CallError::at(
            format!("/{second}"),
            format!(
                "both `{first}` and `{second}` hold arguments: ambiguous (which did the tool receive?)"
            ),
        )),
    }
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, CallError> {
    v.as_object()
        .ok_or_else(|| CallError::at("", format!("expected {what}, found {}", kind(v))))
}

/// Decodes one call object in `shape` (keys already known to fit it).
fn decode_in(m: &Map<String, Value>, shape: Shape) -> Result<ToolCall, CallError> {
    known_keys(m, shape.keys(), || shape.label())?;
    let mut call = ToolCall {
        id: id_at(m, "id")?,
        name: String::new(),
        arguments: Value::Null,
        result: None,
        error: None,
    };
    match shape {
        Shape::OpenaiNested | Shape::OpenaiCustom => {
            let key = if shape == Shape::OpenaiNested {
                "function"
            } else {
                "custom"
            };
            let inner = m
                .field(key)
                .ok_or_else(|| CallError::at(format!("/{key}"), "missing"))?;
            let inner = object(inner, "an object").map_err(|e| e.under(&format!("/{key}")))?;
            let (keys, args): (&[&str], Shape) = if shape == Shape::OpenaiNested {
                (
                    &["name", "arguments", "args", "input", "parameters", "index"],
                    Shape::Flat,
                )
            } else {
                (&["name", "input"], Shape::OpenaiCustom)
            };
            let at = || format!("/{key}");
            known_keys(inner, keys, || format!("the `{key}` of {}", shape.label()))
                .map_err(|e| e.under(&at()))?;
            call.name = name_at(inner, "name").map_err(|e| e.under(&at()))?;
            call.arguments = arguments_of(inner, args).map_err(|e| e.under(&at()))?;
        }
        Shape::AgentDojo => {
            call.name = name_at(m, "function")?;
            call.arguments = arguments_of(m, shape)?;
        }
        Shape::Responses => {
            call.name = name_at(m, "name")?;
            call.arguments = arguments_of(m, shape)?;
            // Results name `call_id`; `id` is the item's own id.
            if let Some(id) = id_at(m, "call_id")? {
                call.id = Some(id);
            }
        }
        Shape::LangChainInvalid => {
            call.name = name_at(m, "name")?;
            call.arguments = arguments_of(m, shape)?;
            call.error = Some(error_at(m, "error")?.unwrap_or_else(|| {
                "an invalid tool call: its arguments could not be parsed".to_string()
            }));
        }
        Shape::Flat => {
            call.name = name_at(m, "name")?;
            call.arguments = arguments_of(m, shape)?;
            call.result = m.field("result").filter(|v| !v.is_null()).cloned();
            call.error = error_at(m, "error")?;
        }
        Shape::LangChain | Shape::Anthropic | Shape::Gemini => {
            call.name = name_at(m, "name")?;
            call.arguments = arguments_of(m, shape)?;
        }
    }
    Ok(call)
}

/// The keys a Gemini part may carry beside its `functionCall`.
const GEMINI_PART_KEYS: &[&str] = &["thoughtSignature", "thought_signature", "thought"];

/// The Gemini part key `m` wraps (`functionCall` or `function_call`) when
/// `m` is a part, not a call itself.
fn gemini_wrapper<'a>(m: &Map<String, Value>, keys: [&'a str; 2]) -> Option<&'a str> {
    if m.contains_key("name") || m.contains_key("type") {
        return None;
    }
    keys.into_iter()
        .find(|k| m.get(*k).is_some_and(Value::is_object))
}

/// Decodes one tool call in any shape the module docs list.
///
/// # Errors
/// A [`CallError`] naming the field (relative to `v`) when `v` is not an
/// object, has an unknown `type` or key, has no usable name, has arguments
/// [`decode_arguments`] refuses, or has a badly typed id or error.
pub fn decode_call(v: &Value) -> Result<ToolCall, CallError> {
    let call = decode_one(v)?;
    if PARALLEL_WRAPPERS.contains(&call.name.as_str()) {
        // The calls it carries are the ones the target made; reading the
        // wrapper as one call named after it would hide them.
        return Err(CallError::at(
            "",
            format!(
                "`{}` wraps several tool calls (its `tool_uses`), which pactum does not unpack: record each call on its own",
                call.name
            ),
        ));
    }
    Ok(call)
}

/// Tool names that are not tools but wrappers of several calls: OpenAI's
/// parallel-call wrapper, written by some models as a call.
const PARALLEL_WRAPPERS: [&str; 2] = [
    "multi_tool_use.parallel",
    "functions.multi_tool_use.parallel",
];

fn decode_one(v: &Value) -> Result<ToolCall, CallError> {
    let m = object(v, "a tool call object")?;
    if let Some(key) = gemini_wrapper(m, ["functionCall", "function_call"]) {
        let mut allowed = vec![key];
        allowed.extend_from_slice(GEMINI_PART_KEYS);
        known_keys(m, &allowed, || "a Gemini part")?;
        let inner = m
            .field(key)
            .and_then(Value::as_object)
            .ok_or_else(|| CallError::at(format!("/{key}"), "expected an object"))?;
        return decode_in(inner, Shape::Gemini).map_err(|e| e.under(&format!("/{key}")));
    }
    let ty = match m.field("type") {
        None => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(other) => {
            return Err(CallError::at(
                "/type",
                format!("expected a string, found {}", kind(other)),
            ))
        }
    };
    let shape = match (ty, m.field("function")) {
        (None | Some("function"), Some(Value::Object(_))) => Shape::OpenaiNested,
        (None, Some(Value::String(_))) => Shape::AgentDojo,
        (None | Some("function"), Some(other)) => {
            return Err(CallError::at(
                "/function",
                format!(
                    "expected an object (OpenAI `{{name, arguments}}`) or a string (an AgentDojo function name), found {}",
                    kind(other)
                ),
            ))
        }
        (None | Some("function"), None) => Shape::Flat,
        (Some("custom"), _) => Shape::OpenaiCustom,
        (Some("tool_call"), _) => Shape::LangChain,
        (Some("invalid_tool_call"), _) => Shape::LangChainInvalid,
        (Some("tool_use" | "server_tool_use" | "mcp_tool_use"), _) => Shape::Anthropic,
        (Some("function_call"), _) => Shape::Responses,
        (Some(other), _) => {
            return Err(CallError::at(
                "/type",
                format!(
                    "unknown tool call type `{}` (pactum reads function, custom, tool_call, invalid_tool_call, tool_use, server_tool_use, mcp_tool_use and function_call)",
                    one_line(other, SHOWN)
                ),
            ))
        }
    };
    decode_in(m, shape)
}

/// The text of a message `content`: a string; `null` or absent (`None`);
/// or an array of content parts whose text pieces (`{"type": "text",
/// "text": …}`, `{"type": "refusal", "refusal": …}`, or bare strings) are
/// joined with a blank line. Other parts (images, audio, thinking, Gemini
/// thoughts, and the tool calls and results [`message_tools`] reads) add
/// no text.
///
/// # Errors
/// A message fragment for any other type of content.
pub fn content_text(v: Option<&Value>) -> Result<Option<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Array(parts)) => {
            let mut texts: Vec<String> = Vec::new();
            for part in parts {
                match part {
                    Value::String(s) => texts.push(s.clone()),
                    // A Gemini thought is the model's reasoning, not its answer.
                    Value::Object(o) if o.field("thought") == Some(&Value::Bool(true)) => {}
                    Value::Object(o) => {
                        let key = match o.field("type").and_then(Value::as_str) {
                            Some("refusal") => "refusal",
                            _ => "text",
                        };
                        if let Some(Value::String(s)) = o.field(key) {
                            texts.push(s.clone());
                        }
                    }
                    _ => {}
                }
            }
            Ok(join_texts(texts))
        }
        Some(other) => Err(format!(
            "expected a string, null or an array of content parts, found {}",
            kind(other)
        )),
    }
}

/// `None` when there is no text at all; otherwise the non-empty texts
/// joined with a blank line (`Some("")` when every text was empty).
pub fn join_texts(texts: Vec<String>) -> Option<String> {
    if texts.is_empty() {
        return None;
    }
    let kept: Vec<String> = texts.into_iter().filter(|t| !t.is_empty()).collect();
    Some(kept.join("\n\n"))
}

/// A result's content: text when every part is text (joined), else the
/// value as recorded.
fn result_content(v: &Value) -> Value {
    match v {
        Value::Array(parts)
            if parts.iter().all(|p| {
                p.is_string() || p.field("type").and_then(Value::as_str) == Some("text")
            }) =>
        {
            content_text(Some(v))
                .ok()
                .flatten()
                .map_or(Value::Null, Value::String)
        }
        other => other.clone(),
    }
}

/// The text of a result, for an error message built from it.
fn result_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Decodes one tool result block or part (see the module docs).
///
/// # Errors
/// A [`CallError`] for an unknown shape or key, a missing or empty call
/// reference, or a badly typed field.
pub fn decode_result(v: &Value) -> Result<ToolResult, CallError> {
    let m = object(v, "a tool result object")?;
    if let Some(key) = gemini_wrapper(m, ["functionResponse", "function_response"]) {
        let mut allowed = vec![key];
        allowed.extend_from_slice(GEMINI_PART_KEYS);
        known_keys(m, &allowed, || "a Gemini part")?;
        let at = format!("/{key}");
        let inner = m
            .field(key)
            .and_then(Value::as_object)
            .ok_or_else(|| CallError::at(at.clone(), "expected an object"))?;
        known_keys(inner, &["name", "response", "id"], || {
            "a Gemini `functionResponse`"
        })
        .map_err(|e| e.under(&at))?;
        let name = name_at(inner, "name").map_err(|e| e.under(&at))?;
        let answers = match id_at(inner, "id").map_err(|e| e.under(&at))? {
            Some(id) => Answers::Id(id),
            None => Answers::Name(name),
        };
        let response = inner.field("response").filter(|r| !r.is_null()).cloned();
        // Gemini's convention: `{"error": …}` reports a failed call; so
        // does ADK's `{"status": "error", "error_message": …}` (the tool
        // said it failed; its message is the error).
        let error = match response.as_ref().and_then(|r| r.field("error")) {
            None | Some(Value::Null) => response
                .as_ref()
                .filter(|r| r.field("status").and_then(Value::as_str) == Some("error"))
                .map(|r| match r.field("error_message") {
                    Some(Value::String(s)) if !s.is_empty() => s.clone(),
                    _ => "the tool reported `status: error`".to_string(),
                }),
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        return Ok(ToolResult {
            answers,
            result: response,
            error,
        });
    }
    let ty = m.field("type").and_then(Value::as_str).unwrap_or_default();
    let (keys, id_key, content_key): (&[&str], &str, &[&str]) = if ty.ends_with("tool_result") {
        (
            &[
                "type",
                "tool_use_id",
                "content",
                "is_error",
                "cache_control",
            ],
            "tool_use_id",
            &["content"],
        )
    } else if ty == "tool_call_response" {
        (
            &["type", "id", "response", "result", "name"],
            "id",
            &["response", "result"],
        )
    } else if ty == "function_call_output" {
        (
            &["type", "call_id", "output", "id", "status"],
            "call_id",
            &["output"],
        )
    } else {
        return Err(CallError::at(
            "/type",
            format!(
                "unknown tool result type `{}` (pactum reads *tool_result, tool_call_response, function_call_output and Gemini functionResponse parts)",
                one_line(ty, SHOWN)
            ),
        ));
    };
    known_keys(m, keys, || format!("a `{}` block", one_line(ty, SHOWN)))?;
    let Some(id) = id_at(m, id_key)? else {
        return Err(CallError::at(
            format!("/{id_key}"),
            "missing: a result that names no call cannot be attached to one",
        ));
    };
    let present: Vec<&str> = content_key
        .iter()
        .copied()
        .filter(|k| m.contains_key(*k))
        .collect();
    if let [first, second, ..] = present.as_slice() {
        return Err(CallError::at(
            format!("/{second}"),
            format!("both `{first}` and `{second}` hold the result: ambiguous"),
        ));
    }
    let content = present
        .first()
        .and_then(|k| m.get(*k))
        .filter(|v| !v.is_null())
        .map(result_content);
    let is_error = match m.field("is_error") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(other) => {
            return Err(CallError::at(
                "/is_error",
                format!("expected a boolean, found {}", kind(other)),
            ))
        }
    };
    Ok(if is_error {
        ToolResult {
            answers: Answers::Id(id),
            error: Some(
                result_text(content.as_ref())
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| "the tool reported an error".to_string()),
            ),
            result: None,
        }
    } else {
        ToolResult {
            answers: Answers::Id(id),
            result: content,
            error: None,
        }
    })
}

/// Decodes a tool *message* — OpenAI `role: tool` (or legacy `function`),
/// LangChain `type: tool` — into the result it carries: `tool_call_id`
/// names the call (absent, `null` or empty: the next unanswered one, by
/// order); `content` is the result (text parts joined); `error` (AgentDojo:
/// a string) or LangChain `status: "error"` makes it an error.
///
/// # Errors
/// A [`CallError`] for a badly typed `tool_call_id`, `content`, `error` or
/// `status`.
pub fn tool_message(m: &Map<String, Value>) -> Result<ToolResult, CallError> {
    let answers = match m.field("tool_call_id") {
        None | Some(Value::Null) => Answers::Next,
        Some(Value::String(s)) if s.is_empty() => Answers::Next,
        Some(Value::String(s)) => Answers::Id(s.clone()),
        Some(Value::Number(n)) => Answers::Id(n.to_string()),
        Some(other) => {
            return Err(CallError::at(
                "/tool_call_id",
                format!("expected a string, found {}", kind(other)),
            ))
        }
    };
    let result = match m.field("content") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Array(_)) => content_text(Some(v))
            .map_err(|msg| CallError::at("/content", msg))?
            .map(Value::String),
        Some(v) => Some(v.clone()),
    };
    let mut error = match m.field("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    match m.field("status") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s == "error" => {
            if error.is_none() {
                error = Some(
                    result_text(result.as_ref())
                        .filter(|t| !t.is_empty())
                        .unwrap_or_else(|| "the tool reported an error".to_string()),
                );
            }
        }
        Some(Value::String(s)) if s == "success" => {}
        Some(other) => {
            return Err(CallError::at(
                "/status",
                format!(
                    "expected `success` or `error`, found {}",
                    one_line(&other.to_string(), SHOWN)
                ),
            ))
        }
    }
    Ok(ToolResult {
        answers,
        result,
        error,
    })
}

/// Message keys that are read here or that only look like calls.
const MESSAGE_KEYS: &[&str] = &[
    "tool_calls",
    "function_call",
    "invalid_tool_calls",
    "additional_kwargs",
    "content",
    "parts",
    // A tool message's reference to its call; harmless elsewhere.
    "tool_call_id",
];

/// Keys of `additional_kwargs` (LangChain) read here.
const KWARGS_KEYS: &[&str] = &["tool_calls", "function_call"];

/// Calls found in one container of a message, with where it is.
struct Found {
    at: String,
    calls: Vec<ToolCall>,
}

/// The items of an optional array member, decoded as calls.
fn call_list(
    m: &Map<String, Value>,
    key: &str,
    base: &str,
    decode: fn(&Value) -> Result<ToolCall, CallError>,
) -> Result<Vec<ToolCall>, CallError> {
    let at = || format!("{base}/{key}");
    match m.field(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, c)| decode(c).map_err(|e| e.under(&format!("{}/{i}", at()))))
            .collect(),
        Some(other) => Err(CallError::at(
            at(),
            format!("expected an array of tool calls, found {}", kind(other)),
        )),
    }
}

/// A legacy `function_call` member: one call object.
fn function_call(m: &Map<String, Value>, base: &str) -> Result<Vec<ToolCall>, CallError> {
    let at = || format!("{base}/function_call");
    match m.field("function_call") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(c @ Value::Object(_)) => Ok(vec![decode_call(c).map_err(|e| e.under(&at()))?]),
        Some(other) => Err(CallError::at(
            at(),
            format!("expected a function call object, found {}", kind(other)),
        )),
    }
}

/// A LangChain invalid call, `type` optional.
fn invalid_call(v: &Value) -> Result<ToolCall, CallError> {
    let m = object(v, "a tool call object")?;
    decode_in(m, Shape::LangChainInvalid)
}

/// Whether a content block or part carries a call or a result.
enum Block {
    Call,
    Result,
    Other,
}

fn classify(part: &Value) -> Block {
    let Some(o) = part.as_object() else {
        return Block::Other;
    };
    let ty = o.field("type").and_then(Value::as_str);
    if let Some(ty) = ty {
        if ty.ends_with("tool_result")
            || matches!(ty, "tool_call_response" | "function_call_output")
        {
            return Block::Result;
        }
        if is_call_like(ty) {
            return Block::Call;
        }
    }
    if ["functionResponse", "function_response"]
        .iter()
        .any(|k| o.contains_key(*k))
    {
        return Block::Result;
    }
    if o.keys().any(|k| is_call_like(k)) {
        return Block::Call;
    }
    Block::Other
}

/// The calls and results in an array of blocks or parts.
fn blocks(
    m: &Map<String, Value>,
    key: &str,
    base: &str,
    calls: &mut Vec<ToolCall>,
    results: &mut Vec<ToolResult>,
) -> Result<(), CallError> {
    let Some(Value::Array(items)) = m.field(key) else {
        return Ok(());
    };
    for (i, part) in items.iter().enumerate() {
        let at = format!("{base}/{key}/{i}");
        match classify(part) {
            Block::Call => calls.push(decode_call(part).map_err(|e| e.under(&at))?),
            Block::Result => results.push(decode_result(part).map_err(|e| e.under(&at))?),
            Block::Other => {}
        }
    }
    Ok(())
}

/// Whether two lists hold the same calls, in any order: equal names and
/// arguments, one for one. Ids are not compared: LangChain invents ids
/// for calls its source recorded without one.
fn same_calls(a: &[ToolCall], b: &[ToolCall]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let hit = b
            .iter()
            .enumerate()
            .position(|(j, y)| !used[j] && y.name == x.name && y.arguments == x.arguments);
        hit.map(|j| used[j] = true).is_some()
    })
}

/// Every tool call and tool result a chat message carries, in every
/// container the module docs list, in order. A result answering a call of
/// the same message (Anthropic server tools) is attached to it; the others
/// are returned for the caller to attach to earlier calls.
///
/// `m` is the whole message (role, content and all); keys that hold
/// neither calls nor results are not looked at, unless they look like they
/// do ([`is_call_like`]).
///
/// # Errors
/// A [`CallError`] (pointer relative to the message) for a call or result
/// [`decode_call`] / [`decode_result`] refuses, a call-like key pactum does
/// not read, a container of the wrong type, or containers that state
/// different calls.
pub fn message_tools(m: &Map<String, Value>) -> Result<MessageTools, CallError> {
    if let Some(k) = m
        .keys()
        .find(|k| is_call_like(k) && !MESSAGE_KEYS.contains(&k.as_str()))
    {
        return Err(CallError::at(
            format!("/{}", escape_pointer_token(k)),
            format!(
                "unknown key `{}` in a message: pactum reads tool calls from `tool_calls`, `function_call`, `invalid_tool_calls`, `additional_kwargs`, content blocks and Gemini parts; a call it cannot read would look like no call",
                one_line(k, SHOWN)
            ),
        ));
    }
    let mut found = Vec::new();
    let mut top = call_list(m, "tool_calls", "", decode_call)?;
    top.extend(function_call(m, "")?);
    top.extend(call_list(m, "invalid_tool_calls", "", invalid_call)?);
    found.push(Found {
        at: "/tool_calls".into(),
        calls: top,
    });
    match m.field("additional_kwargs") {
        None | Some(Value::Null) => {}
        Some(Value::Object(kw)) => {
            let base = "/additional_kwargs";
            if let Some(k) = kw
                .keys()
                .find(|k| is_call_like(k) && !KWARGS_KEYS.contains(&k.as_str()))
            {
                return Err(CallError::at(
                    format!("{base}/{}", escape_pointer_token(k)),
                    format!(
                        "unknown key `{}` in `additional_kwargs`: pactum reads `tool_calls` and `function_call` there",
                        one_line(k, SHOWN)
                    ),
                ));
            }
            let mut calls = call_list(kw, "tool_calls", base, decode_call)?;
            calls.extend(function_call(kw, base)?);
            found.push(Found {
                at: format!("{base}/tool_calls"),
                calls,
            });
        }
        Some(other) => {
            return Err(CallError::at(
                "/additional_kwargs",
                format!("expected an object, found {}", kind(other)),
            ))
        }
    }
    let mut results = Vec::new();
    for key in ["content", "parts"] {
        let mut calls = Vec::new();
        blocks(m, key, "", &mut calls, &mut results)?;
        found.push(Found {
            at: format!("/{key}"),
            calls,
        });
    }
    let mut stated = found.into_iter().filter(|f| !f.calls.is_empty());
    let Some(first) = stated.next() else {
        return Ok(MessageTools {
            calls: Vec::new(),
            results,
        });
    };
    for other in stated {
        if !same_calls(&first.calls, &other.calls) {
            return Err(CallError::at(
                other.at.clone(),
                format!(
                    "states {} tool call(s) that differ from the {} at `{}`: ambiguous (which calls did the target make?)",
                    other.calls.len(),
                    first.calls.len(),
                    first.at
                ),
            ));
        }
    }
    let mut calls = first.calls;
    // Results of this message's own calls (server tools) attach here.
    let mut rest = Vec::new();
    for r in results {
        let own = match &r.answers {
            Answers::Id(id) => calls.iter_mut().find(|c| {
                c.id.as_deref() == Some(id.as_str()) && c.result.is_none() && c.error.is_none()
            }),
            _ => None,
        };
        match own {
            Some(call) => {
                call.result = r.result;
                call.error = r.error;
            }
            None => rest.push(r),
        }
    }
    Ok(MessageTools {
        calls,
        results: rest,
    })
}

#[cfg(test)]
#[path = "chat/tests.rs"]
mod tests;
