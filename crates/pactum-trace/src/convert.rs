//! What every record converter shares: where the record is, the id rule,
//! and JSON error reporting. Message content and tool calls are decoded by
//! [`pactum_core::chat`].

pub(crate) use pactum_core::chat::kind;
use std::collections::BTreeMap;

use pactum_core::trace::{ObservabilityLevel, SourceRef, Trace};
use serde_json::error::Category;
use serde_json::Value;

use crate::error::{quote, serde_message, RecordError};
use crate::pointer::Pointer;

/// The outcome of converting one record.
#[derive(Debug)]
pub(crate) enum Conv {
    /// A trace, before `withhold` is applied.
    Trace(Trace),
    /// A record that holds no trace; the reason names its line.
    Skip(String),
    /// A record that could not be read.
    Error(RecordError),
    /// The record gives no observability level and no flag does.
    NoLevel,
}

/// What a scan of a whole file found about one trace beyond what its
/// spans say (a LangSmith run cut off or placed in two traces, a Langfuse
/// observation pactum cannot classify), applied once the trace is built.
#[derive(Debug, Clone)]
pub(crate) enum Note {
    /// The recording stops before the target finished: why.
    Incomplete(String),
    /// The trace cannot be graded.
    Error(RecordError),
}

/// Notes by OpenTelemetry trace id (a built trace lists its ids in
/// metadata `otel_trace_ids`), in the order found.
pub(crate) type Notes = BTreeMap<String, Vec<Note>>;

/// The trace with the notes of its OpenTelemetry traces applied: the first
/// error refuses it; else the first reason it is incomplete, unless the
/// builder found one already.
pub(crate) fn apply_notes(notes: &Notes, mut trace: Trace) -> Conv {
    let ids: Vec<&str> = match trace.metadata.get("otel_trace_ids") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mine: Vec<&Note> = ids
        .iter()
        .filter_map(|id| notes.get(*id))
        .flatten()
        .collect();
    if let Some(e) = mine.iter().find_map(|n| match n {
        Note::Error(e) => Some(e.clone()),
        Note::Incomplete(_) => None,
    }) {
        return Conv::Error(e);
    }
    if trace.incomplete.is_none() {
        trace.incomplete = mine.iter().find_map(|n| match n {
            Note::Incomplete(why) => Some(why.clone()),
            Note::Error(_) => None,
        });
    }
    Conv::Trace(trace)
}

/// Where one record sits, and what it inherits from the options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordCtx<'a> {
    /// The file path as given.
    pub file: &'a str,
    /// The file's name (last component), for fallback ids.
    pub file_name: &'a str,
    /// 1-based line where the record starts.
    pub line: u64,
    /// 1-based position in its JSON array, for array elements.
    pub ordinal: Option<u64>,
    /// The record is a whole line (JSONL), so parser columns are line columns.
    pub line_framed: bool,
    /// The `--observability` flag.
    pub level_flag: Option<ObservabilityLevel>,
}

impl RecordCtx<'_> {
    /// A record error at the record's line.
    pub(crate) fn error(&self, field: Option<&str>, message: impl AsRef<str>) -> RecordError {
        RecordError::new(self.file, self.line, field.map(str::to_string), message)
    }

    /// The record's bytes as one JSON value, refusing a key repeated in
    /// one object (SPEC §4): `serde_json` would keep the last, so
    /// `{"messages": [attack], "messages": []}` would read as a harmless
    /// record. The error names the repeated key's JSON pointer.
    pub(crate) fn strict_value(&self, bytes: &[u8]) -> Result<Value, RecordError> {
        match pactum_core::json::parse_strict(bytes) {
            Ok(v) => Ok(v),
            Err(pactum_core::json::StrictJsonError::Syntax(e)) => Err(self.json_error(&e, None)),
            Err(e @ pactum_core::json::StrictJsonError::DuplicateKey { .. }) => {
                let rel = u64::try_from(e.line()).unwrap_or(1).saturating_sub(1);
                let pointer = match &e {
                    pactum_core::json::StrictJsonError::DuplicateKey { pointer, .. } => {
                        Some(pointer.clone())
                    }
                    _ => None,
                };
                Err(RecordError::new(
                    self.file,
                    self.line + rel,
                    pointer,
                    format!("the record is ambiguous: {e}"),
                ))
            }
        }
    }

    /// A record error for a serde_json failure inside the record's bytes,
    /// at the line the parser stopped on, naming the field when known.
    pub(crate) fn json_error(
        &self,
        e: &serde_json::Error,
        path: Option<&serde_path_to_error::Path>,
    ) -> RecordError {
        let rel = u64::try_from(e.line()).unwrap_or(1).saturating_sub(1);
        let line = self.line + rel;
        let msg = serde_message(e);
        match e.classify() {
            Category::Data => {
                let field = path.and_then(pointer_of);
                RecordError::new(self.file, line, field, msg)
            }
            Category::Syntax | Category::Eof | Category::Io => {
                let column = if rel > 0 || self.line_framed {
                    format!(" (column {})", e.column())
                } else {
                    String::new()
                };
                RecordError::new(
                    self.file,
                    line,
                    None,
                    format!("invalid JSON: {msg}{column}"),
                )
            }
        }
    }

    /// `{file name}#{n}` for the n-th element of a JSON array, else
    /// `{file name}:{line}`.
    pub(crate) fn fallback_id(&self) -> String {
        match self.ordinal {
            Some(n) => format!("{}#{n}", self.file_name),
            None => format!("{}:{}", self.file_name, self.line),
        }
    }

    /// Where the trace was read from.
    pub(crate) fn source(&self) -> SourceRef {
        SourceRef {
            file: self.file.to_string(),
            line: self.line,
        }
    }

    /// The trace id of a JSON record: the value at `explicit` (given by a
    /// flag; an error when absent or unusable), else the record's `id`
    /// member when it is a non-empty string or a number, else
    /// [`Self::fallback_id`].
    pub(crate) fn trace_id(
        &self,
        record: &Value,
        explicit: Option<(&Pointer, &str)>,
    ) -> Result<String, RecordError> {
        if let Some((p, flag)) = explicit {
            return match p.get(record) {
                Some(v) => id_text(v).ok_or_else(|| {
                    self.error(
                        Some(p.as_str()),
                        format!("expected a non-empty string or a number for the trace id ({flag}), found {}", kind(v)),
                    )
                }),
                None => Err(self.error(Some(p.as_str()), format!("no trace id here ({flag})"))),
            };
        }
        Ok(record
            .get("id")
            .and_then(id_text)
            .unwrap_or_else(|| self.fallback_id()))
    }
}

/// A usable id: a non-empty string, or a number's JSON spelling.
pub(crate) fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A JSON pointer for a serde path; `None` for the record itself.
fn pointer_of(path: &serde_path_to_error::Path) -> Option<String> {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        out.push('/');
        match seg {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } => out.push_str(&pactum_core::json::escape_pointer_token(key)),
            Segment::Enum { variant } => out.push_str(variant),
            Segment::Unknown => out.push('?'),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A value from the file, bounded and cleaned for a message.
pub(crate) fn shown(s: &str) -> String {
    quote(s)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn id_rules() {
        let ctx = RecordCtx {
            file: "dir/f.jsonl",
            file_name: "f.jsonl",
            line: 7,
            ordinal: None,
            line_framed: true,
            level_flag: None,
        };
        assert_eq!(ctx.trace_id(&json!({"id": "x"}), None).unwrap(), "x");
        assert_eq!(ctx.trace_id(&json!({"id": 12}), None).unwrap(), "12");
        assert_eq!(ctx.trace_id(&json!({"id": ""}), None).unwrap(), "f.jsonl:7");
        assert_eq!(
            ctx.trace_id(&json!({"id": null}), None).unwrap(),
            "f.jsonl:7"
        );
        let arr = RecordCtx {
            ordinal: Some(3),
            ..ctx
        };
        assert_eq!(arr.trace_id(&json!({}), None).unwrap(), "f.jsonl#3");
        let p = Pointer::parse("--id-field", "/a/b").unwrap();
        let flag = Some((&p, "--id-field"));
        assert_eq!(
            ctx.trace_id(&json!({"a": {"b": 5}, "id": "no"}), flag)
                .unwrap(),
            "5"
        );
        assert_eq!(
            ctx.trace_id(&json!({"id": "x"}), flag)
                .unwrap_err()
                .to_string(),
            "dir/f.jsonl:7: field `/a/b`: no trace id here (--id-field)"
        );
        assert_eq!(
            ctx.trace_id(&json!({"a": {"b": [1]}}), flag).unwrap_err().to_string(),
            "dir/f.jsonl:7: field `/a/b`: expected a non-empty string or a number for the trace id (--id-field), found an array"
        );
    }
}
