//! pactum's own trace format: the serde shape of
//! [`pactum_core::trace::Trace`], read strictly. Unknown keys are errors
//! (a misspelt `tool_calls` would otherwise drop every call, and an absent
//! call reads as compliance). Each tool call is decoded by
//! [`pactum_core::chat::decode_call`], as every importer and target decodes
//! one: JSON-encoded arguments are decoded, and a call in another vendor's
//! shape is read, never half-read. `schemas/trace.schema.json` describes the
//! same shape; a test keeps the two together.

use pactum_core::chat::{decode_call, kind};
use std::collections::BTreeSet;

use pactum_core::trace::{
    Channel, Message, ObservabilityLevel, Role, SideEffect, SourceRef, ToolCall, Trace, Turn, Usage,
};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::convert::{Conv, RecordCtx};
use crate::error::RecordError;

/// `observability` as a name: serde's own enum reading calls a number
/// there "invalid JSON", which names neither the field nor the choices.
fn level<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ObservabilityLevel>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(s) => ObservabilityLevel::parse(&s).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown observability level `{}`: expected response_only, tool_calls or full",
                crate::convert::shown(&s)
            ))
        }),
        other => Err(serde::de::Error::custom(format!(
            "expected an observability level (response_only, tool_calls or full), found {}",
            kind(&other)
        ))),
    }
}

/// A message `role`, by name (see [`level`]).
fn role<'de, D: Deserializer<'de>>(d: D) -> Result<Role, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) if s == "system" => Ok(Role::System),
        Value::String(s) if s == "user" => Ok(Role::User),
        Value::String(s) => Err(serde::de::Error::custom(format!(
            "unknown role `{}`: expected system or user (the target's own words are the turn's response)",
            crate::convert::shown(&s)
        ))),
        other => Err(serde::de::Error::custom(format!(
            "expected a role (system or user), found {}",
            kind(&other)
        ))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrace {
    id: String,
    #[serde(default, deserialize_with = "level")]
    observability: Option<ObservabilityLevel>,
    #[serde(default)]
    turns: Vec<RawTurn>,
    #[serde(default, deserialize_with = "pactum_core::json::deserialize_strict")]
    metadata: Value,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    incomplete: Option<String>,
    #[serde(default)]
    ended_by: Option<String>,
    /// The tools the target was offered; absent or `null`: not recorded.
    #[serde(default)]
    offered_tools: Option<Vec<String>>,
    /// Accepted so that pactum's own output reads back; replaced by where
    /// the trace was actually read from.
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<RawSource>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RawSource {
    file: String,
    line: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTurn {
    #[serde(default)]
    input: Vec<RawMessage>,
    #[serde(default)]
    response: Option<String>,
    /// Each decoded by [`decode_call`] after the whole record is read.
    #[serde(default)]
    tool_calls: Vec<ToolCallValue>,
    #[serde(default)]
    side_effects: Vec<RawSideEffect>,
    #[serde(default)]
    latency_ms: Option<u64>,
    #[serde(default)]
    usage: Option<RawUsage>,
    /// The channels pactum redacted a secret from (by name).
    #[serde(default)]
    redacted: BTreeSet<Channel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMessage {
    #[serde(deserialize_with = "role")]
    role: Role,
    content: String,
}

/// One tool call as written, any JSON, read strictly (a key repeated in
/// it is an error).
#[derive(Deserialize)]
#[serde(transparent)]
struct ToolCallValue(#[serde(deserialize_with = "pactum_core::json::deserialize_strict")] Value);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSideEffect {
    kind: String,
    #[serde(default, deserialize_with = "pactum_core::json::deserialize_strict")]
    details: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// Reads one pactum-format record from its bytes.
pub(crate) fn convert(bytes: &[u8], ctx: &RecordCtx<'_>) -> Conv {
    // Say what a non-object record is, rather than serde's internal names.
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if first.is_some_and(|b| b != b'{') {
        // Parsed to tell `null` from `nope`: a first byte is not a value.
        let message = match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(v) => {
                let found = match v {
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Bool(_) => "a boolean",
                    serde_json::Value::Null => "null",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Object(_) => "an object",
                };
                format!("expected a trace object, found {found}")
            }
            Err(e) => format!("invalid JSON: {e}"),
        };
        return Conv::Error(ctx.error(None, message));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let raw: RawTrace = match serde_path_to_error::deserialize(&mut de) {
        Ok(raw) => raw,
        Err(e) => return Conv::Error(ctx.json_error(e.inner(), Some(e.path()))),
    };
    if let Err(e) = de.end() {
        return Conv::Error(ctx.json_error(&e, None));
    }
    let Some(observability) = raw.observability.or(ctx.level_flag) else {
        return Conv::NoLevel;
    };
    let mut turns = Vec::with_capacity(raw.turns.len());
    for (i, t) in raw.turns.into_iter().enumerate() {
        match turn(t, i, ctx) {
            Ok(t) => turns.push(t),
            Err(e) => return Conv::Error(e),
        }
    }
    Conv::Trace(Trace {
        id: raw.id,
        observability,
        turns,
        metadata: raw.metadata,
        error: raw.error,
        incomplete: raw.incomplete,
        ended_by: raw.ended_by,
        source: Some(SourceRef {
            file: ctx.file.to_string(),
            line: ctx.line,
        }),
        offered_tools: raw.offered_tools.map(|o| o.into_iter().collect()),
    })
}

fn turn(t: RawTurn, index: usize, ctx: &RecordCtx<'_>) -> Result<Turn, RecordError> {
    let mut tool_calls = Vec::with_capacity(t.tool_calls.len());
    for (j, ToolCallValue(c)) in t.tool_calls.iter().enumerate() {
        let call: ToolCall = decode_call(c).map_err(|e| {
            ctx.error(
                Some(&format!("/turns/{index}/tool_calls/{j}{}", e.pointer)),
                e.message,
            )
        })?;
        tool_calls.push(call);
    }
    Ok(Turn {
        input: t
            .input
            .into_iter()
            .map(|m| Message {
                role: m.role,
                content: m.content,
            })
            .collect(),
        response: t.response,
        tool_calls,
        side_effects: t
            .side_effects
            .into_iter()
            .map(|s| SideEffect {
                kind: s.kind,
                details: s.details,
            })
            .collect(),
        latency_ms: t.latency_ms,
        usage: t.usage.map(|u| Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
        }),
        redacted: t.redacted,
    })
}
