//! OpenAI chat-messages conversations → traces. The same importer reads
//! the message layouts other vendors log in (Anthropic content blocks,
//! Gemini `contents` with `parts`, LangChain message dumps); every tool call
//! and tool result in them is decoded by [`pactum_core::chat`].
//!
//! Turn segmentation (documented in `docs/traces.md`):
//! * a turn starts at each run of `system`/`developer`/`user` messages;
//!   assistant messages before any of them form a turn with empty input. A
//!   user message that holds only tool results (Anthropic `tool_result`
//!   blocks, Gemini `functionResponse` parts) answers calls: it starts no
//!   turn;
//! * every assistant message until the next user/system message belongs
//!   to that turn: its texts are joined with a blank line into `response`
//!   (`None` when no assistant message of the turn had text; a message with
//!   null content that called tools counts as an empty text), its tool
//!   calls are appended in order;
//! * a tool result answers a call of the latest assistant message: by id
//!   (an id not among them is looked up among all earlier calls), Gemini's
//!   by name and order, one without either by order. A result that answers
//!   no call, or a call already answered, marks the trace `incomplete`: it
//!   proves a call the recording does not show.
//! * a conversation whose last message is a tool result was cut off before
//!   the target's next step: the trace is marked `incomplete`;
//! * unless that last message is an end marker the user named
//!   (`--ended-by`: a user message containing a text, the result of a
//!   named tool): the trace is then `ended_by` it, recorded to its end;
//! * with `--tool-error-prefix`, a result recorded as text starting with
//!   the prefix is the call's error.

use std::collections::HashSet;

use pactum_core::chat::{self, kind, Answers, ToolResult};
use pactum_core::json::Field;
use pactum_core::trace::{Message, Role, ToolCall, Trace, Turn};
use serde_json::{Map, Value};

use crate::convert::{shown, Conv, RecordCtx};
use crate::error::RecordError;
use crate::pointer::Pointer;
use crate::EndMarker;

/// Where to look in each record.
#[derive(Debug, Clone)]
pub(crate) struct OpenaiFields {
    /// The messages array.
    pub messages: Pointer,
    /// `--id-field`, when given.
    pub id: Option<Pointer>,
    /// `--ended-by`: the messages that end a conversation.
    pub ended_by: Vec<EndMarker>,
    /// `--tool-error-prefix`: a text result starting with it is an error.
    pub error_prefix: Option<String>,
    /// `--format langchain`: every message without `role` is a LangChain
    /// message. Otherwise only LangChain.js constructors are normalised.
    pub langchain: bool,
}

/// Where a record holds a conversation — an array of messages (objects
/// with a string `role`, LangChain messages) or tool calls (`tool_calls`,
/// `function_call`, `invalid_tool_calls` holding an array or an object;
/// a `tool_use` / `tool_call` / `function_call` block; a Gemini
/// `functionCall`) — and which: such a record is no summary line. `at` is
/// the pointer of `v`.
fn conversation_inside(v: &Value, at: &mut String) -> Option<(String, &'static str)> {
    fn is_message(m: &Value) -> bool {
        m.field("role").is_some_and(Value::is_string)
            || (m.field("lc").is_some() && m.field("kwargs").is_some())
            || (m.field("content").is_some()
                && m.field("type").and_then(Value::as_str).is_some_and(|t| {
                    matches!(t, "human" | "ai" | "system" | "tool" | "function" | "chat")
                }))
    }
    match v {
        Value::Array(items) => {
            if !items.is_empty() && items.iter().all(is_message) {
                return Some((at.clone(), "messages"));
            }
            for (i, x) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                let found = conversation_inside(x, at);
                at.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        Value::Object(o) => {
            let block = o.field("type").and_then(Value::as_str).is_some_and(|t| {
                matches!(
                    t,
                    "tool_use" | "server_tool_use" | "mcp_tool_use" | "tool_call" | "function_call"
                )
            });
            if block || o.field("functionCall").is_some_and(Value::is_object) {
                return Some((at.clone(), "a tool call"));
            }
            for (k, x) in o {
                let len = at.len();
                at.push('/');
                at.push_str(&pactum_core::json::escape_pointer_token(k));
                let calls = matches!(
                    k.as_str(),
                    "tool_calls" | "function_call" | "invalid_tool_calls"
                ) && (x.is_array() || x.is_object());
                let found = if calls {
                    Some((at.clone(), "tool calls"))
                } else {
                    conversation_inside(x, at)
                };
                at.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        _ => None,
    }
}

/// Where a record with no conversation holds more than a summary line
/// may: a summary (AgentDojo's `{"metadata": {"benchmark": …, "accuracy":
/// …}}`) is plain values — numbers, booleans, null, text that is not JSON
/// (`{…}` or `[…]`, invisible characters before it included), arrays of
/// those — at its top or in its `metadata` object, under keys that name
/// no message or call (`role`, `function_call`, `tool`, `action`… holding
/// text; `gen_ai.*`, `llm.*`, `openinference.*` keys), and declares no
/// `observability`. Anything else may hide a call in a shape no reader
/// knows: it is never skipped. `None` for a summary.
fn beyond_summary(record: &Value) -> Option<String> {
    fn plain(v: &Value) -> bool {
        match v {
            Value::String(s) => {
                let t = s.trim_start_matches(|c: char| {
                    c.is_whitespace() || pactum_core::text::shown_as_code_point(c)
                });
                !(t.starts_with('{') || t.starts_with('['))
            }
            Value::Array(items) => items
                .iter()
                .all(|x| !x.is_array() && !x.is_object() && plain(x)),
            Value::Object(_) => false,
            _ => true,
        }
    }
    /// A key that names a message or a call when it holds text, or a
    /// span attribute of a convention pactum reads.
    fn telling(k: &str, v: &Value) -> bool {
        let lower = k.to_ascii_lowercase();
        ["gen_ai.", "llm.", "openinference.", "tool_call.", "tool."]
            .iter()
            .any(|p| lower.starts_with(p))
            || (v.is_string()
                && matches!(
                    lower.as_str(),
                    "role"
                        | "function_call"
                        | "function"
                        | "tool_call"
                        | "tool_calls"
                        | "tool"
                        | "tool_name"
                        | "action"
                        | "content"
                ))
    }
    let o = record.as_object()?;
    if o.contains_key("observability") {
        return Some("/observability".into());
    }
    for (k, v) in o {
        let at = format!("/{}", pactum_core::json::escape_pointer_token(k));
        match v {
            Value::Object(inner) if k == "metadata" => {
                for (k2, v2) in inner {
                    if !plain(v2) || telling(k2, v2) {
                        return Some(format!(
                            "{at}/{}",
                            pactum_core::json::escape_pointer_token(k2)
                        ));
                    }
                }
            }
            v if !plain(v) || telling(k, v) => return Some(at),
            _ => {}
        }
    }
    None
}

/// Converts one record.
pub(crate) fn convert(bytes: &[u8], ctx: &RecordCtx<'_>, fields: &OpenaiFields) -> Conv {
    let mut record: Value = match ctx.strict_value(bytes) {
        Ok(v) => v,
        Err(e) => return Conv::Error(e),
    };
    let at = fields.messages.as_str();
    match fields.messages.get(&record) {
        Some(Value::Array(_)) => {}
        Some(other) => {
            return Conv::Error(ctx.error(
                Some(at),
                format!("expected an array of messages, found {}", kind(other)),
            ))
        }
        None if record.is_object() => {
            if let Some(format) = crate::record_format(&record) {
                return Conv::Error(ctx.error(
                    None,
                    format!(
                        "a record in another trace format ({format}) in a file of chat conversations: one file holds one format (split it, or pass --format)"
                    ),
                ));
            }
            if let Some((field, what)) = conversation_inside(&record, &mut String::new()) {
                return Conv::Error(ctx.error(
                    Some(&field),
                    format!(
                        "no messages array at `{at}`, but the record holds {what} here: it is no summary line (--messages-field says where the messages are)"
                    ),
                ));
            }
            if let Some(field) = beyond_summary(&record) {
                return Conv::Error(ctx.error(
                    Some(&field),
                    format!(
                        "no messages array at `{at}`, and the record holds more than a summary line's plain values here: it is not skipped (--messages-field says where the messages are)"
                    ),
                ));
            }
            return Conv::Skip(format!(
                "line {}: no messages array at `{at}` (a summary or header record; --messages-field says where the messages are)",
                ctx.line
            ));
        }
        None => {
            return Conv::Error(ctx.error(
                None,
                format!("expected a conversation object, found {}", kind(&record)),
            ))
        }
    }
    let level = match record.field("observability") {
        None | Some(Value::Null) => ctx.level_flag,
        Some(Value::String(s)) => match pactum_core::ObservabilityLevel::parse(s) {
            Some(level) => Some(level),
            None => {
                return Conv::Error(ctx.error(
                    Some("/observability"),
                    format!(
                    "unknown observability level `{}`: expected response_only, tool_calls or full",
                    shown(s)
                ),
                ))
            }
        },
        Some(other) => {
            return Conv::Error(ctx.error(
                Some("/observability"),
                format!(
                    "expected a string (response_only, tool_calls or full), found {}",
                    kind(other)
                ),
            ))
        }
    };
    let Some(observability) = level else {
        return Conv::NoLevel;
    };
    let id = match ctx.trace_id(&record, fields.id.as_ref().map(|p| (p, "--id-field"))) {
        Ok(id) => id,
        Err(e) => return Conv::Error(e),
    };
    let Some(Value::Array(messages)) = fields.messages.take(&mut record) else {
        return Conv::Error(ctx.error(Some(at), "expected an array of messages"));
    };
    // LangChain.js serialises messages as constructors; with `--format
    // langchain`, LangChain dicts too: both become `{role, …}`.
    let mut normalised = Vec::with_capacity(messages.len());
    for (i, m) in messages.into_iter().enumerate() {
        let constructor = m.field("lc").is_some()
            && m.field("type").and_then(Value::as_str) == Some("constructor");
        if constructor || (fields.langchain && m.field("role").is_none()) {
            match crate::messages::langchain::to_role_message(&m, &format!("{at}/{i}")) {
                Ok(v) => normalised.push(v),
                Err((field, msg)) => return Conv::Error(ctx.error(Some(&field), msg)),
            }
        } else {
            normalised.push(m);
        }
    }
    let messages = normalised;
    let built = match build_turns(messages, at, ctx, fields) {
        Ok(built) => built,
        Err(e) => return Conv::Error(e),
    };
    Conv::Trace(Trace {
        id,
        observability,
        turns: built.turns,
        metadata: record,
        error: None,
        incomplete: built.incomplete,
        ended_by: built.ended_by,
        source: Some(ctx.source()),
        offered_tools: None,
    })
}

/// The turn being built and the calls tool results may answer.
#[derive(Default)]
struct Builder {
    turns: Vec<Turn>,
    /// Texts of the current turn's assistant messages (non-null ones).
    texts: Vec<String>,
    /// The current turn already has assistant output.
    has_output: bool,
    /// Calls of the latest assistant message: (turn index, call index).
    group: Vec<(usize, usize)>,
    /// Calls a result has answered.
    answered: HashSet<(usize, usize)>,
    /// Why the recording is incomplete, when a result proves a call it
    /// does not show.
    unshown: Option<&'static str>,
}

impl Builder {
    fn flush_texts(&mut self) {
        let texts = std::mem::take(&mut self.texts);
        if let Some(turn) = self.turns.last_mut() {
            turn.response = chat::join_texts(texts);
        }
    }

    fn start_turn(&mut self) {
        self.flush_texts();
        self.turns.push(Turn::default());
        self.has_output = false;
    }

    fn current(&mut self) -> &mut Turn {
        if self.turns.is_empty() {
            self.turns.push(Turn::default());
        }
        let last = self.turns.len() - 1;
        &mut self.turns[last]
    }

    fn call(&self, (t, c): (usize, usize)) -> Option<&ToolCall> {
        self.turns.get(t).and_then(|turn| turn.tool_calls.get(c))
    }

    /// The first unanswered call of the latest assistant message that
    /// `fits`.
    fn next_in_group(&self, fits: impl Fn(&ToolCall) -> bool) -> Option<(usize, usize)> {
        self.group
            .iter()
            .copied()
            .find(|k| !self.answered.contains(k) && self.call(*k).is_some_and(&fits))
    }

    /// The call `answers` names: in the latest assistant message first; an
    /// id not found there is looked up among every earlier call, and must
    /// name exactly one; an id no call has answers the latest message's
    /// calls that have none, by order.
    fn target(&self, answers: &Answers) -> Option<(usize, usize)> {
        match answers {
            Answers::Next => self.next_in_group(|_| true),
            Answers::Name(name) => self.next_in_group(|c| &c.name == name),
            Answers::Id(id) => self
                .next_in_group(|c| c.id.as_deref() == Some(id.as_str()))
                .or_else(|| {
                    let mut all = self.turns.iter().enumerate().flat_map(|(t, turn)| {
                        turn.tool_calls
                            .iter()
                            .enumerate()
                            .filter(|(_, c)| c.id.as_deref() == Some(id.as_str()))
                            .map(move |(c, _)| (t, c))
                    });
                    match (all.next(), all.next()) {
                        (Some(only), None) => Some(only),
                        (Some(_), Some(_)) => None,
                        // No call has that id: an exporter that kept ids on
                        // results only; the calls without one, by order.
                        (None, _) => self.next_in_group(|c| c.id.is_none()),
                    }
                }),
        }
    }

    /// Attaches a result to the call it answers, and returns that call. A
    /// result that answers no recorded call, or a call already answered,
    /// proves a call the recording does not show: it is not dropped
    /// silently, the trace is marked incomplete. With an error prefix, a
    /// text result that starts with it and states no other error is the
    /// call's error (the text, whole).
    fn attach(&mut self, r: ToolResult, error_prefix: Option<&str>) -> Option<&ToolCall> {
        let Some(key) = self.target(&r.answers) else {
            self.unshown
                .get_or_insert("a tool result answers a call the recording does not show");
            return None;
        };
        if !self.answered.insert(key) {
            self.unshown.get_or_insert(
                "two tool results answer one call: the recording does not show every call",
            );
            return None;
        }
        let call = self
            .turns
            .get_mut(key.0)
            .and_then(|turn| turn.tool_calls.get_mut(key.1))?;
        let told = match (&r.error, &r.result, error_prefix) {
            (None, Some(Value::String(text)), Some(prefix)) if text.starts_with(prefix) => {
                Some(text.clone())
            }
            _ => None,
        };
        call.result = r.result;
        call.error = r.error.or(told);
        Some(call)
    }
}

/// What a message is, by its `role` (or, in LangChain dumps, its `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    System,
    User,
    Assistant,
    Tool,
}

fn speaker(m: &Map<String, Value>, at: &str, ctx: &RecordCtx<'_>) -> Result<Speaker, RecordError> {
    let (key, name) = match (m.field("role"), m.field("type")) {
        (Some(Value::String(r)), _) => ("role", r.as_str()),
        (Some(other), _) => {
            return Err(ctx.error(
                Some(&format!("{at}/role")),
                format!("expected a string, found {}", kind(other)),
            ))
        }
        // A LangChain message dump names its speaker in `type`.
        (None, Some(Value::String(t))) => ("type", t.as_str()),
        (None, _) => return Err(ctx.error(Some(&format!("{at}/role")), "missing role")),
    };
    Ok(match name {
        "system" | "developer" => Speaker::System,
        "user" | "human" => Speaker::User,
        "assistant" | "ai" | "model" => Speaker::Assistant,
        "tool" | "function" => Speaker::Tool,
        other => {
            return Err(ctx.error(
                Some(&format!("{at}/{key}")),
                format!(
                    "unknown role `{}`: expected system, developer, user, assistant, tool or function (also human, ai, model)",
                    shown(other)
                ),
            ))
        }
    })
}

/// The text of a message: its `content`, and the text of Gemini `parts`.
fn message_text(
    m: &Map<String, Value>,
    at: &str,
    ctx: &RecordCtx<'_>,
) -> Result<Option<String>, RecordError> {
    let mut texts = Vec::new();
    for key in ["content", "parts"] {
        if let Some(text) = chat::content_text(m.field(key))
            .map_err(|msg| ctx.error(Some(&format!("{at}/{key}")), msg))?
        {
            texts.push(text);
        }
    }
    Ok(chat::join_texts(texts))
}

pub(crate) fn build_turns(
    messages: Vec<Value>,
    base: &str,
    ctx: &RecordCtx<'_>,
    fields: &OpenaiFields,
) -> Result<Built, RecordError> {
    let mut b = Builder::default();
    let prefix = fields.error_prefix.as_deref();
    // In the chat protocol a tool result is always followed by the
    // assistant's next step; a conversation that ends on one was cut off.
    let mut ends_on_result = false;
    // The end marker the latest message is, when it is one; any later
    // message clears it, so only the conversation's last message counts.
    let mut marker: Option<String> = None;
    for (i, m) in messages.into_iter().enumerate() {
        let at = format!("{base}/{i}");
        let Value::Object(m) = m else {
            return Err(ctx.error(
                Some(&at),
                format!("expected a message object, found {}", kind(&m)),
            ));
        };
        let decode_error =
            |e: chat::CallError| ctx.error(Some(&format!("{at}{}", e.pointer)), e.message);
        let who = speaker(&m, &at, ctx)?;
        marker = None;
        if who == Speaker::Tool {
            let r = chat::tool_message(&m).map_err(decode_error)?;
            let call = b.attach(r, prefix);
            marker = call.and_then(|c| tool_marker(c, &fields.ended_by, &at));
            ends_on_result = true;
            continue;
        }
        let tools = chat::message_tools(&m).map_err(decode_error)?;
        let text = message_text(&m, &at, ctx)?;
        let has_results = !tools.results.is_empty();
        // Results in a user message end the conversation only when every
        // one of them is a marker.
        let mut result_markers: Vec<Option<String>> = Vec::new();
        for r in tools.results {
            let call = b.attach(r, prefix);
            result_markers.push(call.and_then(|c| tool_marker(c, &fields.ended_by, &at)));
        }
        match who {
            Speaker::System | Speaker::User => {
                if let Some(c) = tools.calls.first() {
                    return Err(ctx.error(
                        Some(&at),
                        format!(
                            "a {} message holds a tool call (`{}`): only the target's (assistant) messages make calls",
                            if who == Speaker::User { "user" } else { "system" },
                            shown(&c.name)
                        ),
                    ));
                }
                // Results with no words answer calls; they start no turn.
                if has_results && text.is_none() {
                    if result_markers.iter().all(Option::is_some) {
                        marker = result_markers.into_iter().flatten().next();
                    }
                    ends_on_result = true;
                    continue;
                }
                ends_on_result = false;
                if who == Speaker::User {
                    marker = text
                        .as_deref()
                        .and_then(|t| user_marker(t, &fields.ended_by, &at));
                }
                if b.has_output || b.turns.is_empty() {
                    b.start_turn();
                }
                let role = if who == Speaker::User {
                    Role::User
                } else {
                    Role::System
                };
                b.current().input.push(Message {
                    role,
                    content: text.unwrap_or_default(),
                });
            }
            Speaker::Assistant | Speaker::Tool => {
                ends_on_result = false;
                b.current();
                b.has_output = true;
                let had_text = text.is_some();
                if let Some(text) = text {
                    b.texts.push(text);
                }
                if let Some(Value::String(refusal)) = m.field("refusal") {
                    b.texts.push(refusal.clone());
                }
                let calls = tools.calls;
                // A message that only called tools said nothing in words: an
                // empty text, not a missing one, so response-text checks
                // answer N there, not U.
                if !had_text && !calls.is_empty() {
                    b.texts.push(String::new());
                }
                let turn_index = b.turns.len() - 1;
                let turn = b.current();
                let first = turn.tool_calls.len();
                turn.tool_calls.extend(calls);
                let last = turn.tool_calls.len();
                b.group = (first..last).map(|c| (turn_index, c)).collect();
            }
        }
    }
    b.flush_texts();
    // A conversation that ends on tool calls without results is not
    // marked: its last step is recorded (the calls count as made), and an
    // agent loop that stopped there took no further step. One that ends on
    // a result did take a next step, which the recording lost.
    // An end marker says the conversation ended there, and nothing more:
    // a result proving an unshown call still makes the recording
    // incomplete.
    let incomplete = if let Some(why) = b.unshown {
        Some(why.to_string())
    } else if ends_on_result && marker.is_none() {
        Some("it ends on a tool result the target never answered".to_string())
    } else {
        None
    };
    Ok(Built {
        turns: b.turns,
        incomplete,
        ended_by: marker,
    })
}

/// What `ended_by` says when the result of `call`, in the message at
/// `at`, is a `tool:` marker: a call to that tool which did not end in an
/// error.
fn tool_marker(call: &ToolCall, markers: &[EndMarker], at: &str) -> Option<String> {
    if call.error.is_some() {
        return None;
    }
    markers.iter().find_map(|m| match m {
        EndMarker::Tool(name) if *name == call.name => Some(format!(
            "the last message ({at}) is the result of `{}` (--ended-by {})",
            shown(name),
            shown(&m.to_string())
        )),
        _ => None,
    })
}

/// What `ended_by` says when the text of the user message at `at` holds a
/// `user:` marker.
fn user_marker(text: &str, markers: &[EndMarker], at: &str) -> Option<String> {
    markers.iter().find_map(|m| match m {
        EndMarker::User(t) if text.contains(t.as_str()) => Some(format!(
            "the last message ({at}) is the user's and contains `{}` (--ended-by {})",
            shown(t),
            shown(&m.to_string())
        )),
        _ => None,
    })
}

/// The turns of one conversation, whether its recording stopped before
/// the target finished, and the end marker it ended by.
pub(crate) struct Built {
    pub turns: Vec<Turn>,
    pub incomplete: Option<String>,
    pub ended_by: Option<String>,
}
