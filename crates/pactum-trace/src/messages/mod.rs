//! Provider message logs → traces: Anthropic Messages and Gemini
//! `generateContent` traffic recorded as VCR cassettes (YAML), and the
//! Claude Agent SDK's message stream (`docs/traces.md`, "Anthropic
//! Messages" and "Gemini contents").
//!
//! **Cassette → traces.** Each interaction is one request (the conversation
//! sent) and one reply. A later request that starts with every message of
//! the previous request and is longer continues the same conversation
//! (an agent loop re-sends its history each step), provided the previous
//! reply's tool calls are the ones it replays; otherwise it starts a new
//! conversation. Each conversation is one trace: its **last** request's
//! messages followed by its last reply. Earlier replies are in that request
//! as history, so no call is counted twice and none is dropped (a reply
//! replayed with other calls starts a new trace instead of being merged).
//! Metadata `grouped_by` says so, `interactions` lists the 1-based
//! interactions read.
//!
//! **Conversation → turns**: the chat-message rules of the `openai`
//! importer (`openai::build_turns`), so every call and result is decoded by
//! [`pactum_core::chat`].
//!
//! **Observability** (metadata `observed`): a recorded reply shows the
//! response and every call the model made (`tool_calls`); a reply that is
//! missing (an HTTP error, no body) leaves the response unobserved
//! (`None`), and the trace at `response_only`. Side effects never.
//! `--observability` can only lower the level.

use std::path::Path;

use pactum_core::chat;
use pactum_core::trace::{ObservabilityLevel, SourceRef, ToolCall, Trace};
use serde_json::{json, Map, Value};

use crate::convert::{kind, shown, Conv, RecordCtx};
use crate::openai::{self, OpenaiFields};
use crate::pointer::Pointer;
use crate::{Emitter, ImportError};

pub(crate) mod anthropic;
pub(crate) mod gemini;
pub(crate) mod langchain;

/// Whose API a recording holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Provider {
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
    /// Gemini `generateContent` (Google AI and Vertex AI).
    Gemini,
}

impl Provider {
    fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }
}

/// A problem inside the recording: the JSON pointer (from the document
/// root) and what is wrong.
pub(crate) type Problem = (String, String);

/// One interaction, as a provider module reads it.
#[derive(Debug, Clone)]
pub(crate) struct Exchange {
    /// The conversation sent, as chat messages (`role` + `content` or
    /// Gemini `parts`), the system instruction first.
    pub sent: Vec<Value>,
    /// Where the request's messages are, for errors.
    pub sent_at: String,
    /// How many messages of `sent` the request holds outside its messages
    /// array (the system instruction, prepended).
    pub sent_offset: usize,
    /// The reply as one assistant message; `None` when none was recorded.
    pub reply: Option<Value>,
    /// Why the call failed (an HTTP error, an error event): the trace's
    /// error when it is the conversation's last reply.
    pub failure: Option<String>,
    /// `stop_reason` / `finishReason`, as recorded.
    pub stop: Option<Value>,
    /// Reasoning blocks or parts the reply held (kept out of the response).
    pub thinking: usize,
}

/// The largest YAML file read (it is parsed whole).
const MAX_YAML_BYTES: u64 = crate::MAX_RECORD_BYTES as u64;

/// A YAML document as JSON: strings, numbers, booleans, null, sequences
/// and mappings with string keys. Aliases, non-string keys and
/// unrepresentable numbers are errors (at the pointer given).
pub(crate) fn yaml_json(y: &yaml_rust2::Yaml, at: &str) -> Result<Value, Problem> {
    use yaml_rust2::Yaml;
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => json!(i),
        Yaml::Real(s) => {
            let f: f64 = s
                .parse()
                .map_err(|_| (at.to_string(), format!("`{}` is not a number", shown(s))))?;
            serde_json::Number::from_f64(f)
                .map(Value::Number)
                .ok_or_else(|| (at.to_string(), format!("`{}` has no JSON number", shown(s))))?
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| yaml_json(v, &format!("{at}/{i}")))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    _ => return Err((at.to_string(), "a mapping key that is not a string".into())),
                };
                let inner = format!("{at}/{}", pactum_core::json::escape_pointer_token(&key));
                m.insert(key, yaml_json(v, &inner)?);
            }
            Value::Object(m)
        }
        Yaml::Alias(_) => {
            return Err((
                at.to_string(),
                "a YAML alias: pactum does not resolve aliases in recordings".into(),
            ))
        }
        Yaml::BadValue => return Err((at.to_string(), "an unreadable YAML value".into())),
    })
}

/// Reads a YAML file whole into JSON.
pub(crate) fn load_yaml(path: &Path) -> Result<(Value, String), ImportError> {
    let meta = std::fs::metadata(path).map_err(|source| ImportError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.len() > MAX_YAML_BYTES {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!(
                "a YAML file of {} bytes: pactum reads YAML recordings of at most {MAX_YAML_BYTES} bytes",
                meta.len()
            ),
        });
    }
    let bytes = std::fs::read(path).map_err(|source| ImportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| ImportError::Yaml {
        path: path.to_path_buf(),
        line: 1,
        message: format!("not UTF-8 ({e})"),
    })?;
    let docs = yaml_rust2::YamlLoader::load_from_str(&text).map_err(|e| ImportError::Yaml {
        path: path.to_path_buf(),
        line: u64::try_from(e.marker().line()).unwrap_or(1).max(1),
        message: e.info().to_string(),
    })?;
    let doc = match docs.as_slice() {
        [one] => one,
        [] => {
            return Err(ImportError::UnknownFormat {
                path: path.to_path_buf(),
                reason: "an empty YAML file".into(),
            })
        }
        _ => {
            return Err(ImportError::UnknownFormat {
                path: path.to_path_buf(),
                reason: format!(
                    "{} YAML documents in one file: a recording is one document",
                    docs.len()
                ),
            })
        }
    };
    let v = yaml_json(doc, "").map_err(|(at, message)| ImportError::Yaml {
        path: path.to_path_buf(),
        line: 1,
        message: format!("field `{at}`: {message}"),
    })?;
    Ok((v, text))
}

/// The 1-based lines where the top-level block sequence items of a YAML
/// text start (`- ` at column 0), for locating records.
fn item_lines(text: &str) -> Vec<u64> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("- ") || *l == "-")
        .map(|(i, _)| u64::try_from(i + 1).unwrap_or(u64::MAX))
        .collect()
}

/// What a YAML recording is, for auto-detection: the provider and why,
/// or why it is none.
pub(crate) fn sniff_yaml(doc: &Value) -> Result<(Provider, &'static str), String> {
    if let Some(Value::Array(items)) = doc.get("interactions") {
        let mut seen: Option<Provider> = None;
        for (i, it) in items.iter().enumerate() {
            let uri = it
                .pointer("/request/uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let p = if uri.contains("anthropic.com") || uri.ends_with("/v1/messages") {
                Provider::Anthropic
            } else if uri.contains(":generateContent") {
                Provider::Gemini
            } else {
                return Err(format!(
                    "a VCR cassette whose interaction {} calls `{}`, neither Anthropic Messages (`/v1/messages`) nor Gemini (`:generateContent`)",
                    i + 1,
                    shown(uri)
                ));
            };
            match seen {
                Some(s) if s != p => {
                    return Err(
                        "a VCR cassette holding both Anthropic and Gemini requests: say which with --format"
                            .into(),
                    )
                }
                _ => seen = Some(p),
            }
        }
        return match seen {
            Some(Provider::Anthropic) => Ok((
                Provider::Anthropic,
                "a VCR cassette of Anthropic Messages requests (`/v1/messages`)",
            )),
            Some(Provider::Gemini) => Ok((
                Provider::Gemini,
                "a VCR cassette of Gemini requests (`:generateContent`)",
            )),
            None => Err("a VCR cassette with no interaction".into()),
        };
    }
    if let Some(Value::Array(items)) = doc.get("messages") {
        if items.iter().any(|m| {
            matches!(
                m.get("type").and_then(Value::as_str),
                Some("assistant" | "result")
            )
        }) {
            return Ok((
                Provider::Anthropic,
                "a Claude Agent SDK message stream (`messages` of type system / assistant / user / result)",
            ));
        }
    }
    Err("a YAML file that is neither a VCR cassette (`interactions`) nor a Claude Agent SDK message stream (`messages`)".into())
}

/// Reads a YAML recording (cassette or Agent SDK stream) of `provider`
/// (`None`: detected) and emits its traces.
pub(crate) fn read_yaml<T>(
    path: &Path,
    provider: Option<Provider>,
    level_flag: Option<ObservabilityLevel>,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    let (doc, text) = load_yaml(path)?;
    let (provider, why) = match provider {
        Some(p) => (p, "--format"),
        None => sniff_yaml(&doc).map_err(|reason| ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason,
        })?,
    };
    let display = path.display().to_string();
    let name = crate::file_name(path);
    let lines = item_lines(&text);
    let ctx_at = |line: u64| RecordCtx {
        file: &display,
        file_name: &name,
        line,
        ordinal: None,
        line_framed: false,
        level_flag,
    };
    let line_of = |i: usize, n: usize| -> u64 {
        if lines.len() == n {
            lines[i]
        } else {
            1
        }
    };
    let outs: Vec<(u64, Conv)> = if let Some(Value::Array(items)) = doc.get("interactions") {
        cassette(items, provider, why, &ctx_at, &line_of)
    } else if let (Provider::Anthropic, Some(Value::Array(items))) = (provider, doc.get("messages"))
    {
        let line = line_of(0, items.len());
        let ctx = ctx_at(line);
        vec![(line, anthropic::agent_sdk(items, &ctx, why))]
    } else {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!(
                "no `interactions` (a VCR cassette){}",
                if provider == Provider::Anthropic {
                    " nor `messages` (a Claude Agent SDK stream)"
                } else {
                    ""
                }
            ),
        });
    };
    for (line, conv) in outs {
        if emit.conv(conv, &ctx_at(line))?.is_break() {
            break;
        }
    }
    Ok(())
}

/// The calls a message makes, for comparing a reply with its replay:
/// name and arguments (ids when both sides have one).
fn calls_of(m: &Value) -> Option<Vec<ToolCall>> {
    let o = m.as_object()?;
    chat::message_tools(o).ok().map(|t| t.calls)
}

fn same_calls(a: &[ToolCall], b: &[ToolCall]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.name == y.name
                && x.arguments == y.arguments
                && match (&x.id, &y.id) {
                    (Some(a), Some(b)) => a.trim() == b.trim(),
                    _ => true,
                }
        })
}

/// Whether `next` continues the conversation of `prev`.
fn continues(prev: &Exchange, next: &Exchange) -> bool {
    let n = prev.sent.len();
    if next.sent.len() <= n || next.sent[..n] != prev.sent[..] {
        return false;
    }
    match &prev.reply {
        None => true,
        Some(reply) => match (calls_of(reply), calls_of(&next.sent[n])) {
            (Some(a), Some(b)) => same_calls(&a, &b),
            _ => false,
        },
    }
}

/// The traces of a cassette, one per conversation.
fn cassette<'a>(
    items: &[Value],
    provider: Provider,
    why: &str,
    ctx_at: &dyn Fn(u64) -> RecordCtx<'a>,
    line_of: &dyn Fn(usize, usize) -> u64,
) -> Vec<(u64, Conv)> {
    let mut outs = Vec::new();
    // The current conversation: its first interaction and its latest.
    let mut chain: Option<(usize, usize, Exchange)> = None;
    let finish = |outs: &mut Vec<(u64, Conv)>, (first, last, ex): (usize, usize, Exchange)| {
        let line = line_of(first, items.len());
        let ctx = ctx_at(line);
        let conv = conversation_trace(ex, &ctx, provider, why, first, last);
        outs.push((line, conv));
    };
    for (i, it) in items.iter().enumerate() {
        let at = format!("/interactions/{i}");
        let read = match provider {
            Provider::Anthropic => anthropic::exchange(it, &at),
            Provider::Gemini => gemini::exchange(it, &at),
        };
        let ex = match read {
            Ok(ex) => ex,
            Err((field, message)) => {
                if let Some(c) = chain.take() {
                    finish(&mut outs, c);
                }
                let ctx = ctx_at(line_of(i, items.len()));
                outs.push((
                    ctx.line,
                    Conv::Error(
                        ctx.error(Some(&field), format!("interaction {}: {message}", i + 1)),
                    ),
                ));
                continue;
            }
        };
        chain = match chain.take() {
            Some((first, _, prev)) if continues(&prev, &ex) => Some((first, i, ex)),
            Some(c) => {
                finish(&mut outs, c);
                Some((i, i, ex))
            }
            None => Some((i, i, ex)),
        };
    }
    if let Some(c) = chain {
        finish(&mut outs, c);
    }
    outs
}

/// One conversation (a request and its reply) as a trace.
fn conversation_trace(
    ex: Exchange,
    ctx: &RecordCtx<'_>,
    provider: Provider,
    why: &str,
    first: usize,
    last: usize,
) -> Conv {
    let mut metadata = Map::new();
    metadata.insert("format".into(), json!(provider.name()));
    metadata.insert("detected_as".into(), json!(why));
    metadata.insert(
        "grouped_by".into(),
        json!("cassette conversation: each request re-sends the previous one's messages and reply; the last request and its reply are read"),
    );
    metadata.insert(
        "interactions".into(),
        json!(((first + 1)..=(last + 1)).collect::<Vec<_>>()),
    );
    if let Some(stop) = &ex.stop {
        metadata.insert("stop_reason".into(), stop.clone());
    }
    if ex.thinking > 0 {
        metadata.insert("reasoning_blocks".into(), json!(ex.thinking));
    }
    let id = format!("{}#{}", ctx.file_name, first + 1);
    let replied = ex.reply.is_some();
    let mut messages = ex.sent;
    messages.extend(ex.reply);
    messages.iter_mut().for_each(trim_ids);
    let reply_at = format!("/interactions/{last}/response");
    let n_sent = messages.len() - usize::from(replied);
    let sent_at = ex.sent_at;
    let offset = ex.sent_offset;
    let locate = |i: usize| -> String {
        if i >= n_sent {
            reply_at.clone()
        } else if i < offset {
            sent_at
                .replace("/messages", "/system")
                .replace("/contents", "/systemInstruction")
        } else {
            format!("{sent_at}/{}", i - offset)
        }
    };
    finish_trace(messages, &locate, ctx, id, metadata, replied, ex.failure)
}

/// Builds the trace of chat `messages` (`locate` gives the recording's
/// pointer of message `i`, for errors), with the level from the data (a reply shows calls
/// and response) lowered by the flag.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish_trace(
    messages: Vec<Value>,
    locate: &dyn Fn(usize) -> String,
    ctx: &RecordCtx<'_>,
    id: String,
    mut metadata: Map<String, Value>,
    replied: bool,
    failure: Option<String>,
) -> Conv {
    let fields = OpenaiFields {
        messages: Pointer::key("messages"),
        id: None,
        ended_by: Vec::new(),
        error_prefix: None,
        langchain: false,
    };
    let built = match openai::build_turns(messages, "", ctx, &fields) {
        Ok(b) => b,
        Err(mut e) => {
            // Point at the request's message, or at the reply.
            if let Some(f) = e.field.take() {
                let rest = f.trim_start_matches('/');
                let (idx, tail) = rest.split_once('/').unwrap_or((rest, ""));
                let tail = if tail.is_empty() {
                    String::new()
                } else {
                    format!("/{tail}")
                };
                e.field = Some(match idx.parse::<usize>() {
                    Ok(i) => format!("{}{tail}", locate(i)),
                    Err(_) => f,
                });
            }
            return Conv::Error(e);
        }
    };
    let data_level = if replied {
        ObservabilityLevel::ToolCalls
    } else {
        ObservabilityLevel::ResponseOnly
    };
    metadata.insert(
        "observed".into(),
        json!({"response": replied, "tool_calls": replied, "side_effects": false}),
    );
    let observability = match ctx.level_flag {
        None => data_level,
        Some(declared) => {
            metadata.insert("observability_declared".into(), json!(declared.as_str()));
            if declared > data_level {
                metadata.insert(
                    "observability_warning".into(),
                    json!(format!(
                        "declared {}, but the recording shows {}: {}",
                        declared.as_str(),
                        data_level.as_str(),
                        if replied {
                            "no side effects are recorded in model traffic"
                        } else {
                            "the last reply was not recorded"
                        }
                    )),
                );
            }
            declared.min(data_level)
        }
    };
    let mut turns = built.turns;
    if !replied {
        // What the model answered last is unknown, not empty.
        if let Some(t) = turns.last_mut() {
            t.response = None;
        }
    }
    Conv::Trace(Trace {
        id,
        observability,
        turns,
        metadata: Value::Object(metadata),
        error: failure,
        incomplete: built.incomplete,
        ended_by: None,
        source: Some(SourceRef {
            file: ctx.file.to_string(),
            line: ctx.line,
        }),
        offered_tools: None,
    })
}

/// Trims the call ids of a message's blocks or parts (`tool_use.id`,
/// `tool_result.tool_use_id`, `functionCall.id`, `functionResponse.id`):
/// a result joins its call by trimmed id, as OpenTelemetry tool spans do.
pub(crate) fn trim_ids(message: &mut Value) {
    for key in ["content", "parts"] {
        let Some(Value::Array(items)) = message.get_mut(key) else {
            continue;
        };
        for b in items.iter_mut() {
            for (outer, inner) in [
                (None, "id"),
                (None, "tool_use_id"),
                (Some("functionCall"), "id"),
                (Some("functionResponse"), "id"),
            ] {
                let target = match outer {
                    None => Some(&mut *b),
                    Some(o) => b.get_mut(o),
                };
                if let Some(Value::String(s)) = target.and_then(|t| t.get_mut(inner)) {
                    let t = s.trim();
                    if t.len() != s.len() {
                        *s = t.to_string();
                    }
                }
            }
        }
    }
}

/// A JSON body recorded as a string, parsed strictly (a repeated key is
/// an error).
pub(crate) fn json_body(s: &str, at: &str) -> Result<Value, Problem> {
    pactum_core::json::parse_strict(s.as_bytes())
        .map_err(|e| (at.to_string(), format!("expected a JSON body: {e}")))
}

/// A cassette interaction's request body (JSON) and response: status code
/// and body text (`None` when absent).
pub(crate) fn interaction_parts(
    it: &Value,
    at: &str,
) -> Result<(Value, Option<i64>, Option<String>), Problem> {
    let body_at = format!("{at}/request/body");
    let body = match it.pointer("/request/body") {
        Some(Value::String(s)) => json_body(s, &body_at)?,
        Some(Value::Object(o)) => match o.get("string") {
            Some(Value::String(s)) => json_body(s, &format!("{body_at}/string"))?,
            _ => Value::Object(o.clone()),
        },
        Some(other) => {
            return Err((
                body_at,
                format!(
                    "expected the request body as JSON text, found {}",
                    kind(other)
                ),
            ))
        }
        None => return Err((body_at, "no request body".into())),
    };
    let status = it.pointer("/response/status/code").and_then(Value::as_i64);
    let text = match it.pointer("/response/body/string") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err((
                format!("{at}/response/body/string"),
                format!("expected the response body as text, found {}", kind(other)),
            ))
        }
    };
    Ok((body, status, text))
}

/// The text of an HTTP error reply, for the trace's error.
pub(crate) fn http_failure(status: i64, body: Option<&str>) -> String {
    let detail = body
        .and_then(|b| serde_json::from_str::<Value>(b).ok())
        .and_then(|v| {
            v.pointer("/error/message")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default();
    if detail.is_empty() {
        format!("the API answered HTTP {status}")
    } else {
        format!("the API answered HTTP {status}: {}", shown(&detail))
    }
}
