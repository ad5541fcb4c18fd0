//! OpenAI chat-messages conversations → traces.
//!
//! Turn segmentation (documented in `docs/traces.md`):
//! * a turn starts at each run of `system`/`developer`/`user` messages;
//!   assistant messages before any of them form a turn with empty input;
//! * every `assistant` message until the next user/system message belongs
//!   to that turn: its texts are joined with a blank line into `response`
//!   (`None` when no assistant message of the turn had text; a message with
//!   null content that called tools counts as an empty text), its tool
//!   calls (`tool_calls[]`, or the legacy `function_call`) are appended in
//!   order;
//! * a `tool` (or legacy `function`) message answers a call of the latest
//!   assistant message: by `tool_call_id` when that message's call ids are
//!   all non-empty and distinct, else by order (the n-th tool message after
//!   an assistant message answers its n-th call). An id not found among
//!   the latest calls is looked up among all earlier calls of the trace.
//!   A non-null `error` sets the call's error. A tool message that answers
//!   no call is dropped: it cannot be evidence of a call the target made.
//! * a conversation whose last message is a tool result was cut off before
//!   the target's next step: the trace is marked `incomplete`.

use pactum_core::trace::{Message, Role, ToolCall, Trace, Turn};
use serde_json::{Map, Value};

use crate::convert::{content_text, join_texts, kind, shown, Conv, RecordCtx};
use crate::error::RecordError;
use crate::pointer::Pointer;

/// Where to look in each record.
#[derive(Debug, Clone)]
pub(crate) struct OpenaiFields {
    /// The messages array.
    pub messages: Pointer,
    /// `--id-field`, when given.
    pub id: Option<Pointer>,
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
            return Conv::Error(ctx.error(Some(at), format!("expected an array of messages, found {}", kind(other))))
        }
        None if record.is_object() => {
            return Conv::Skip(format!(
                "line {}: no messages array at `{at}` (a summary or header record; --messages-field says where the messages are)",
                ctx.line
            ))
        }
        None => return Conv::Error(ctx.error(None, format!("expected a conversation object, found {}", kind(&record)))),
    }
    let level = match record.get("observability") {
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
    let built = match build_turns(messages, at, ctx) {
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
        source: Some(ctx.source()),
    })
}

/// The turn being built and the calls tool messages may answer.
#[derive(Default)]
struct Builder {
    turns: Vec<Turn>,
    /// Texts of the current turn's assistant messages (non-null ones).
    texts: Vec<String>,
    /// The current turn already has assistant output.
    has_output: bool,
    /// Calls of the latest assistant message: (turn index, call index).
    group: Vec<(usize, usize)>,
    /// Whether `group` is answered by id.
    by_id: bool,
    /// Tool messages seen since the latest assistant message.
    answered: usize,
}

impl Builder {
    fn flush_texts(&mut self) {
        let texts = std::mem::take(&mut self.texts);
        if let Some(turn) = self.turns.last_mut() {
            turn.response = join_texts(texts);
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

    /// The call a tool message answers.
    fn target(&self, tool_call_id: Option<&str>) -> Option<(usize, usize)> {
        if let (true, Some(id)) = (self.by_id, tool_call_id) {
            let has = |&(t, c): &(usize, usize)| {
                self.call(t, c).and_then(|call| call.id.as_deref()) == Some(id)
            };
            if let Some(found) = self.group.iter().copied().find(has) {
                return Some(found);
            }
            let mut all = self.turns.iter().enumerate().flat_map(|(t, turn)| {
                turn.tool_calls
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.id.as_deref() == Some(id))
                    .map(move |(c, _)| (t, c))
            });
            return match (all.next(), all.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            };
        }
        self.group.get(self.answered).copied()
    }

    fn call(&self, t: usize, c: usize) -> Option<&ToolCall> {
        self.turns.get(t).and_then(|turn| turn.tool_calls.get(c))
    }
}

fn build_turns(
    messages: Vec<Value>,
    base: &str,
    ctx: &RecordCtx<'_>,
) -> Result<Built, RecordError> {
    let mut b = Builder::default();
    let mut orphan = false;
    // In the chat protocol a tool result is always followed by the
    // assistant's next step; a conversation that ends on one was cut off.
    let ends_on_tool = matches!(
        messages
            .last()
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str),
        Some("tool" | "function")
    );
    for (i, m) in messages.into_iter().enumerate() {
        let at = format!("{base}/{i}");
        let Value::Object(mut m) = m else {
            return Err(ctx.error(
                Some(&at),
                format!("expected a message object, found {}", kind(&m)),
            ));
        };
        // A key that looks like tool calls but is not one this importer
        // reads (a misspelling, another vendor's name) must not silently
        // drop calls.
        let is_tool_message = matches!(
            m.get("role").and_then(Value::as_str),
            Some("tool" | "function")
        );
        if let Some(k) = m.keys().find(|k| {
            (k.contains("tool") || k.contains("function"))
                && !matches!(k.as_str(), "tool_calls" | "tool_call_id" | "function_call")
                // AgentDojo's tool messages repeat the call they answer.
                && !(is_tool_message && k.as_str() == "tool_call")
        }) {
            return Err(ctx.error(
                Some(&format!("{at}/{k}")),
                format!(
                    "unknown key `{}` in a message: pactum reads tool calls only from `tool_calls` (and legacy `function_call`); a call it cannot read would look like no call",
                    shown(k)
                ),
            ));
        }
        let role = match m.remove("role") {
            Some(Value::String(s)) => s,
            Some(other) => {
                return Err(ctx.error(
                    Some(&format!("{at}/role")),
                    format!("expected a string, found {}", kind(&other)),
                ))
            }
            None => return Err(ctx.error(Some(&format!("{at}/role")), "missing role")),
        };
        let content = |m: &mut Map<String, Value>| {
            content_text(m.remove("content"))
                .map_err(|msg| ctx.error(Some(&format!("{at}/content")), msg))
        };
        match role.as_str() {
            "system" | "developer" | "user" => {
                if b.has_output || b.turns.is_empty() {
                    b.start_turn();
                }
                let text = content(&mut m)?.unwrap_or_default();
                let role = if role == "user" { Role::User } else { Role::System };
                b.current().input.push(Message { role, content: text });
            }
            "assistant" => {
                b.current();
                b.has_output = true;
                let text = content(&mut m)?;
                let had_text = text.is_some();
                if let Some(text) = text {
                    b.texts.push(text);
                }
                if let Some(Value::String(refusal)) = m.remove("refusal") {
                    b.texts.push(refusal);
                }
                let mut calls = Vec::new();
                match m.remove("tool_calls") {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(list)) => {
                        for (j, c) in list.into_iter().enumerate() {
                            calls.push(tool_call(c, &format!("{at}/tool_calls/{j}"), ctx)?);
                        }
                    }
                    Some(other) => {
                        return Err(ctx.error(
                            Some(&format!("{at}/tool_calls")),
                            format!("expected an array of tool calls, found {}", kind(&other)),
                        ))
                    }
                }
                match m.remove("function_call") {
                    None | Some(Value::Null) => {}
                    Some(c) => calls.push(tool_call(c, &format!("{at}/function_call"), ctx)?),
                }
                // A message that only called tools said nothing in words: an
                // empty text, not a missing one, so response-text checks
                // answer N there, not U.
                if !had_text && !calls.is_empty() {
                    b.texts.push(String::new());
                }
                let mut ids: Vec<Option<&str>> = calls.iter().map(|c| c.id.as_deref()).collect();
                ids.sort_unstable();
                b.by_id = ids.iter().all(Option::is_some) && ids.windows(2).all(|w| w[0] != w[1]);
                let turn_index = b.turns.len() - 1;
                let turn = b.current();
                let first = turn.tool_calls.len();
                turn.tool_calls.extend(calls);
                let last = turn.tool_calls.len();
                b.group = (first..last).map(|c| (turn_index, c)).collect();
                b.answered = 0;
            }
            "tool" | "function" => {
                let id = match m.get("tool_call_id") {
                    Some(Value::String(s)) if !s.is_empty() => Some(s.as_str()),
                    _ => None,
                };
                let target = b.target(id);
                b.answered += 1;
                let result = match m.remove("content") {
                    None | Some(Value::Null) => None,
                    Some(Value::Array(parts)) => content_text(Some(Value::Array(parts)))
                        .map_err(|msg| ctx.error(Some(&format!("{at}/content")), msg))?
                        .map(Value::String),
                    Some(v) => Some(v),
                };
                let error = match m.remove("error") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s),
                    Some(other) => Some(other.to_string()),
                };
                match target.and_then(|(t, c)| {
                    b.turns.get_mut(t).and_then(|turn| turn.tool_calls.get_mut(c))
                }) {
                    Some(call) => {
                        if call.result.is_none() && call.error.is_none() {
                            call.result = result;
                            call.error = error;
                        }
                    }
                    // A result proves a call the recording does not show.
                    None => orphan = true,
                }
            }
            other => {
                return Err(ctx.error(
                    Some(&format!("{at}/role")),
                    format!(
                        "unknown role `{}`: expected system, developer, user, assistant, tool or function",
                        shown(other)
                    ),
                ))
            }
        }
    }
    b.flush_texts();
    // A conversation that ends on tool calls without results is not
    // marked: its last step is recorded (the calls count as made), and an
    // agent loop that stopped there took no further step. One that ends on
    // a result did take a next step, which the recording lost.
    let incomplete = if orphan {
        Some("a tool result answers a call the recording does not show".to_string())
    } else if ends_on_tool {
        Some("it ends on a tool result the target never answered".to_string())
    } else {
        None
    };
    Ok(Built {
        turns: b.turns,
        incomplete,
    })
}

/// The turns of one conversation, and whether its recording stopped before
/// the target finished.
struct Built {
    turns: Vec<Turn>,
    incomplete: Option<String>,
}

/// One entry of `tool_calls` (`{id, type, function: {name, arguments}}`,
/// or flattened `{id, name, arguments}`), or a legacy `function_call`.
/// String arguments are parsed as JSON, kept as the raw string when they do
/// not parse; an absent or blank argument string is `{}`.
fn tool_call(v: Value, at: &str, ctx: &RecordCtx<'_>) -> Result<ToolCall, RecordError> {
    let Value::Object(mut obj) = v else {
        return Err(ctx.error(
            Some(at),
            format!("expected a tool call object, found {}", kind(&v)),
        ));
    };
    let id = match obj.remove("id") {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    };
    let (mut func, fat) = match obj.remove("function") {
        Some(Value::Object(f)) => (f, format!("{at}/function")),
        None | Some(Value::Null) => (obj, at.to_string()),
        Some(other) => {
            return Err(ctx.error(
                Some(&format!("{at}/function")),
                format!("expected an object, found {}", kind(&other)),
            ))
        }
    };
    let name = match func.remove("name") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(ctx.error(
                Some(&format!("{fat}/name")),
                format!("expected a string, found {}", kind(&other)),
            ))
        }
        None => return Err(ctx.error(Some(&format!("{fat}/name")), "missing tool name")),
    };
    let arguments = match func.remove("arguments") {
        None => Value::Object(Map::new()),
        Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Map::new()),
        // Unreadable or ambiguous (a repeated key) arguments stay text:
        // argument matchers then answer undetermined, never a guess.
        Some(Value::String(s)) => pactum_core::json::parse_strict(&s).unwrap_or(Value::String(s)),
        Some(v) => v,
    };
    Ok(ToolCall {
        id,
        name,
        arguments,
        result: None,
        error: None,
    })
}
