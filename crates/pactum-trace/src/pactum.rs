//! pactum's own trace format: exactly the serde shape of
//! [`pactum_core::trace::Trace`], read strictly. Unknown keys are errors
//! (a misspelt `tool_calls` would otherwise drop every call, and an absent
//! call reads as compliance). `schemas/trace.schema.json` describes the same
//! shape; a test keeps the two together.

use pactum_core::trace::{
    Message, ObservabilityLevel, Role, SideEffect, SourceRef, ToolCall, Trace, Turn, Usage,
};
use serde::Deserialize;
use serde_json::Value;

use crate::convert::{Conv, RecordCtx};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrace {
    id: String,
    #[serde(default)]
    observability: Option<ObservabilityLevel>,
    #[serde(default)]
    turns: Vec<RawTurn>,
    #[serde(default, deserialize_with = "pactum_core::json::deserialize_strict")]
    metadata: Value,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    incomplete: Option<String>,
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
    #[serde(default)]
    tool_calls: Vec<RawToolCall>,
    #[serde(default)]
    side_effects: Vec<RawSideEffect>,
    #[serde(default)]
    latency_ms: Option<u64>,
    #[serde(default)]
    usage: Option<RawUsage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMessage {
    role: Role,
    content: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default, deserialize_with = "pactum_core::json::deserialize_strict")]
    arguments: Value,
    #[serde(
        default,
        deserialize_with = "pactum_core::json::deserialize_strict_option"
    )]
    result: Option<Value>,
    #[serde(default)]
    error: Option<String>,
}

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
    if let Some(b) = first.filter(|b| *b != b'{') {
        let found = match b {
            b'[' => "an array",
            b'"' => "a string",
            b't' | b'f' => "a boolean",
            b'n' => "null",
            b'-' | b'0'..=b'9' => "a number",
            _ => "something that is not JSON",
        };
        return Conv::Error(ctx.error(None, format!("expected a trace object, found {found}")));
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
    Conv::Trace(Trace {
        id: raw.id,
        observability,
        turns: raw.turns.into_iter().map(turn).collect(),
        metadata: raw.metadata,
        error: raw.error,
        incomplete: raw.incomplete,
        source: Some(SourceRef {
            file: ctx.file.to_string(),
            line: ctx.line,
        }),
    })
}

fn turn(t: RawTurn) -> Turn {
    Turn {
        input: t
            .input
            .into_iter()
            .map(|m| Message {
                role: m.role,
                content: m.content,
            })
            .collect(),
        response: t.response,
        tool_calls: t
            .tool_calls
            .into_iter()
            .map(|c| ToolCall {
                id: c.id,
                name: c.name,
                arguments: c.arguments,
                result: c.result,
                error: c.error,
            })
            .collect(),
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
    }
}
