//! Spans as pactum keeps them: OTLP JSON and Jaeger JSON documents cut into
//! [`Span`]s holding only what the GenAI and OpenInference readers use
//! (see [`kept`]), so an open trace costs its spans' content attributes,
//! not every HTTP header a span recorded.

use std::collections::BTreeMap;

use pactum_core::chat::kind;
use serde_json::{Map, Value};

/// One span event (OTLP `events[]`, Jaeger `logs[]`), kept when its name
/// starts with `gen_ai.` or is `exception`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    /// The event name (Jaeger: the `event` field).
    pub name: String,
    /// Its attributes, as JSON values.
    pub attrs: BTreeMap<String, Value>,
}

/// One span, reduced to what pactum reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Span {
    /// The trace id, as written (hex).
    pub trace_id: String,
    /// The span id.
    pub span_id: String,
    /// The parent span id; `None` for a root.
    pub parent: Option<String>,
    /// Whether the parent lives in another process: the span is the entry
    /// of a remote call (kind SERVER or CONSUMER), or OTLP's `flags` say
    /// the parent is remote. Such a parent is absent from the export by
    /// design, and its absence says nothing of a cut-off trace.
    pub remote_parent: bool,
    /// The span name (Jaeger: `operationName`).
    pub name: String,
    /// Start, nanoseconds since the Unix epoch.
    pub start: u64,
    /// End, nanoseconds; `None` when the span has not ended.
    pub end: Option<u64>,
    /// The status message when the span ended in error (status ERROR,
    /// Jaeger `error: true` / `otel.status_code: ERROR`).
    pub error: Option<String>,
    /// The kept attributes ([`kept`]).
    pub attrs: BTreeMap<String, Value>,
    /// The kept events.
    pub events: Vec<Event>,
    /// 1-based line of the document (or JSONL line) the span came from.
    pub line: u64,
}

/// Whether an attribute is kept: the GenAI, OpenInference and session
/// keys, the ADK and Traceloop tool keys, and the attributes other
/// conventions mark a tool execution with (such a span is refused, so the
/// mark must survive); everything else (HTTP, resources, the tool schemas a
/// request offered) is dropped on reading.
pub(crate) fn kept(key: &str) -> bool {
    if key.starts_with("llm.request.functions.") || key.starts_with("llm.tools.") {
        return false;
    }
    if super::genai::UNREAD_TOOLS.iter().any(|(k, _, _)| *k == key) {
        return true;
    }
    // A convention's key written in another case is kept so that reading
    // can refuse it (`GEN_AI.TOOL.NAME`).
    let lower = key.to_ascii_lowercase();
    if lower != key {
        return kept(&lower);
    }
    [
        "gen_ai.",
        "llm.",
        "tool.",
        "tool_call.",
        "openinference.",
        "input.",
        "output.",
        "agent.",
        "exception.",
    ]
    .iter()
    .any(|p| key.starts_with(p))
        || matches!(
            key,
            "session.id"
                | "error.type"
                | "gcp.vertex.agent.tool_call_args"
                | "gcp.vertex.agent.tool_response"
                | "traceloop.span.kind"
                | "traceloop.entity.name"
                | "traceloop.entity.input"
                | "traceloop.entity.output"
                | "langfuse.observation.type"
                | "mlflow.spanType"
                | "logfire.msg"
        )
}

/// A span that could not be read: the error, and the trace it belongs to
/// when its trace id was readable (the whole trace is then refused: a
/// trace with an unreadable span cannot be graded).
#[derive(Debug, Clone)]
pub(crate) struct SpanError {
    /// The span's trace id, when known.
    pub trace_id: Option<String>,
    /// JSON pointer inside the document.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

pub(crate) type Found = (Vec<Span>, Vec<SpanError>);

/// The attribute pactum sets on a span that says it lost attributes or
/// events (OTLP `droppedAttributesCount`, `droppedEventsCount`, an event's
/// `droppedAttributesCount`): what was lost, in words. Never read from a
/// file: `pactum.` keys are not kept ([`kept`]).
pub(crate) const LOST: &str = "pactum.span.lost";

/// The first `gen_ai.*` attribute of a span's resource, if any: a trace
/// of spans pactum cannot read whose resource says GenAI is refused, not
/// skipped. Never read from a file, like [`LOST`].
pub(crate) const RESOURCE_MARK: &str = "pactum.resource.genai";

/// A `dropped*Count`: absent or 0 is nothing lost; a number (or decimal
/// string) above 0 is how many; anything else is an error, never read as
/// nothing.
fn dropped(v: Option<&Value>, at: &str) -> Result<u64, (String, String)> {
    match v {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) if n.is_u64() => Ok(n.as_u64().unwrap_or(0)),
        Some(Value::String(t)) if t.parse::<u64>().is_ok() => Ok(t.parse().unwrap_or(0)),
        Some(o) => Err((
            at.to_string(),
            format!(
                "expected a count (a non-negative integer), found {}",
                kind(o)
            ),
        )),
    }
}

pub(crate) fn err(trace_id: Option<&str>, field: String, message: impl Into<String>) -> SpanError {
    SpanError {
        trace_id: trace_id.map(str::to_string),
        field,
        message: message.into(),
    }
}

/// An OTLP `AnyValue` (`{stringValue|intValue|doubleValue|boolValue|
/// arrayValue|kvlistValue|bytesValue}`) as JSON; `{}` (an empty value) is
/// `null`. `intValue` may be a string (the OTLP JSON mapping of int64).
fn any_value(v: &Value, at: &str) -> Result<Value, (String, String)> {
    let Value::Object(m) = v else {
        return Err((
            at.into(),
            format!("expected an OTLP AnyValue object, found {}", kind(v)),
        ));
    };
    if m.is_empty() {
        return Ok(Value::Null);
    }
    if m.len() > 1 {
        return Err((at.into(), "an OTLP AnyValue holds exactly one of stringValue, intValue, doubleValue, boolValue, arrayValue, kvlistValue, bytesValue".into()));
    }
    let (k, x) = m
        .iter()
        .next()
        .ok_or_else(|| (at.to_string(), "empty".to_string()))?;
    let here = format!("{at}/{k}");
    match (k.as_str(), x) {
        ("stringValue" | "bytesValue", Value::String(_)) => Ok(x.clone()),
        ("boolValue", Value::Bool(_)) => Ok(x.clone()),
        ("intValue", Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(x.clone()),
        ("intValue", Value::String(s)) => s
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| (here, "expected an integer (an int64 as a string)".into())),
        ("doubleValue", Value::Number(_)) => Ok(x.clone()),
        ("doubleValue", Value::String(s)) => match s.as_str() {
            "NaN" | "Infinity" | "-Infinity" => Ok(x.clone()),
            _ => s
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or((here, "expected a number".into())),
        },
        ("arrayValue", Value::Object(a)) => match a.get("values") {
            None | Some(Value::Null) => Ok(Value::Array(Vec::new())),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, it)| any_value(it, &format!("{here}/values/{i}")))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            Some(o) => Err((
                format!("{here}/values"),
                format!("expected an array, found {}", kind(o)),
            )),
        },
        ("kvlistValue", Value::Object(a)) => match a.get("values") {
            None | Some(Value::Null) => Ok(Value::Object(Map::new())),
            Some(Value::Array(items)) => {
                let map = key_values(items, &format!("{here}/values"))?;
                Ok(Value::Object(map.into_iter().collect()))
            }
            Some(o) => Err((
                format!("{here}/values"),
                format!("expected an array, found {}", kind(o)),
            )),
        },
        (
            "stringValue" | "bytesValue" | "boolValue" | "intValue" | "doubleValue" | "arrayValue"
            | "kvlistValue",
            other,
        ) => Err((here, format!("unexpected {} for `{k}`", kind(other)))),
        (other, _) => Err((
            here,
            format!(
                "unknown OTLP AnyValue key `{}`",
                crate::convert::shown(other)
            ),
        )),
    }
}

/// OTLP `[{key, value: AnyValue}]` as a map; a key given twice is an
/// error (which value would count?).
fn key_values(items: &[Value], at: &str) -> Result<BTreeMap<String, Value>, (String, String)> {
    let mut out = BTreeMap::new();
    for (i, it) in items.iter().enumerate() {
        let here = format!("{at}/{i}");
        let Some(key) = it.get("key").and_then(Value::as_str) else {
            return Err((format!("{here}/key"), "expected a string key".into()));
        };
        let value = match it.get("value") {
            None | Some(Value::Null) => Value::Null,
            Some(v) => any_value(v, &format!("{here}/value"))?,
        };
        if out.insert(key.to_string(), value).is_some() {
            return Err((
                format!("{here}/key"),
                format!(
                    "attribute `{}` is given twice: ambiguous",
                    crate::convert::shown(key)
                ),
            ));
        }
    }
    Ok(out)
}

/// A tool execution's attribute on an event not named `gen_ai.*`.
fn kept_event_mark(k: &str) -> bool {
    k.starts_with("tool.") || k.starts_with("tool_call.")
}

fn kept_only(m: BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    m.into_iter().filter(|(k, _)| kept(k)).collect()
}

/// A time in nanoseconds: a number or a decimal string.
fn nanos(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

pub(crate) fn id_str(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_ascii_lowercase()),
        _ => None,
    }
}

/// Whether a value is an OTLP document (`resourceSpans`, or Tempo's
/// `batches`) or a Jaeger one (`data[]` of `{traceID, spans}`).
pub(crate) fn sniff(v: &Value) -> Option<super::OtelKind> {
    let m = v.as_object()?;
    if m.contains_key("resourceSpans") || m.contains_key("batches") {
        return Some(super::OtelKind::Otlp);
    }
    if let Some(Value::Array(d)) = m.get("data") {
        if d.first()
            .and_then(Value::as_object)
            .is_some_and(|t| t.contains_key("spans") && t.contains_key("traceID"))
        {
            return Some(super::OtelKind::Jaeger);
        }
    }
    if is_langfuse_openinference(v) {
        return Some(super::OtelKind::LangfuseOtel);
    }
    None
}

/// The spans of one OTLP JSON document: `resourceSpans[].scopeSpans[].spans[]`
/// (or the pre-1.0 `batches` / `instrumentationLibrarySpans`).
pub(crate) fn otlp(doc: &Value, line: u64) -> Found {
    let mut spans = Vec::new();
    let mut errors = Vec::new();
    let Some(m) = doc.as_object() else {
        errors.push(err(
            None,
            String::new(),
            format!("expected an OTLP document object, found {}", kind(doc)),
        ));
        return (spans, errors);
    };
    let (key, rs) = match (m.get("resourceSpans"), m.get("batches")) {
        (Some(_), Some(_)) => {
            errors.push(err(
                None,
                "/batches".into(),
                "both `resourceSpans` and `batches`: ambiguous",
            ));
            return (spans, errors);
        }
        (Some(r), None) => ("resourceSpans", r),
        (None, Some(b)) => ("batches", b),
        (None, None) => {
            errors.push(err(
                None,
                String::new(),
                "no `resourceSpans` (or `batches`): not an OTLP trace document",
            ));
            return (spans, errors);
        }
    };
    let Value::Array(rs) = rs else {
        errors.push(err(
            None,
            format!("/{key}"),
            format!("expected an array, found {}", kind(rs)),
        ));
        return (spans, errors);
    };
    for (i, r) in rs.iter().enumerate() {
        let at = format!("/{key}/{i}");
        // A resource that lost attributes may have lost what said which
        // process ran the spans: every span of it is incomplete.
        let resource_lost = match r.get("resource").map(|res| {
            if res.get("dropped_attributes_count").is_some() {
                return Err(err(
                    None,
                    format!("{at}/resource/dropped_attributes_count"),
                    "`dropped_attributes_count`: pactum reads OTLP/JSON's lowerCamelCase field names (`droppedAttributesCount`)",
                ));
            }
            dropped(
                res.get("droppedAttributesCount"),
                &format!("{at}/resource/droppedAttributesCount"),
            )
            .map_err(|(f, m)| err(None, f, m))
        }) {
            None => 0,
            Some(Ok(n)) => n,
            Some(Err(e)) => {
                errors.push(e);
                continue;
            }
        };
        let resource_mark = r
            .pointer("/resource/attributes")
            .and_then(Value::as_array)
            .and_then(|a| {
                a.iter().find_map(|kv| {
                    kv.get("key")
                        .and_then(Value::as_str)
                        .filter(|k| k.to_ascii_lowercase().starts_with("gen_ai."))
                })
            })
            .map(str::to_string);
        let scopes = match (r.get("scopeSpans"), r.get("instrumentationLibrarySpans")) {
            (Some(_), Some(_)) => {
                errors.push(err(
                    None,
                    at,
                    "both `scopeSpans` and `instrumentationLibrarySpans`: ambiguous",
                ));
                continue;
            }
            (Some(s), None) => ("scopeSpans", s),
            (None, Some(s)) => ("instrumentationLibrarySpans", s),
            (None, None) => continue,
        };
        let Value::Array(list) = scopes.1 else {
            errors.push(err(None, format!("{at}/{}", scopes.0), "expected an array"));
            continue;
        };
        for (j, s) in list.iter().enumerate() {
            let at = format!("{at}/{}/{j}", scopes.0);
            let items = match s.get("spans") {
                None | Some(Value::Null) => continue,
                Some(Value::Array(items)) => items,
                Some(o) => {
                    errors.push(err(
                        None,
                        format!("{at}/spans"),
                        format!("expected an array, found {}", kind(o)),
                    ));
                    continue;
                }
            };
            for (k, sp) in items.iter().enumerate() {
                match otlp_span(sp, &format!("{at}/spans/{k}"), line) {
                    Ok(mut s) => {
                        if let Some(k) = &resource_mark {
                            s.attrs.insert(
                                RESOURCE_MARK.into(),
                                Value::String(format!("resource {k}")),
                            );
                        }
                        if resource_lost > 0 {
                            let note = format!(
                                "{resource_lost} attribute(s) of its resource (`resource/droppedAttributesCount`)"
                            );
                            let why = match s.attrs.get(LOST).and_then(Value::as_str) {
                                Some(w) => format!("{w}, {note}"),
                                None => note,
                            };
                            s.attrs.insert(LOST.into(), Value::String(why));
                        }
                        spans.push(s)
                    }
                    Err(e) => errors.push(e),
                }
            }
        }
    }
    (spans, errors)
}

/// A span's and its events' fields in their proto spelling.
const SNAKE_FIELDS: [&str; 10] = [
    "trace_id",
    "span_id",
    "parent_span_id",
    "trace_state",
    "start_time_unix_nano",
    "end_time_unix_nano",
    "dropped_attributes_count",
    "dropped_events_count",
    "dropped_links_count",
    "time_unix_nano",
];

/// `snake_case` as `lowerCamelCase`.
fn camel(k: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in k.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// An OTLP id as hex: `bytes` bytes (a trace id 16, a span id 8), not all
/// zero (invalid in OTLP). Another length is refused, never padded or cut:
/// ids of the wrong size would join spans of different traces.
fn otlp_id(
    v: Option<&Value>,
    bytes: usize,
    at: String,
    tid: Option<&str>,
    what: &str,
) -> Result<String, SpanError> {
    if let Some(o) = v.filter(|v| !v.is_string() && !v.is_null()) {
        return Err(err(
            tid,
            at,
            format!("a {what} is a string of hex digits, found {}", kind(o)),
        ));
    }
    if let Some(Value::String(raw)) = v {
        if raw.trim() != raw && !raw.trim().is_empty() {
            return Err(err(
                tid,
                at,
                format!(
                    "a {what} with spaces around it (`{}`): ids are written as hex digits only",
                    crate::convert::shown(raw)
                ),
            ));
        }
    }
    let id = id_str(v).ok_or_else(|| err(tid, at.clone(), format!("missing or empty {what}")))?;
    if id.len() != bytes * 2 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(err(
            tid,
            at,
            format!(
                "a {what} is {bytes} bytes, written as {} hex digits: found `{}`",
                bytes * 2,
                crate::convert::shown(&id)
            ),
        ));
    }
    if id.bytes().all(|b| b == b'0') {
        return Err(err(tid, at, format!("an all-zero {what} is invalid")));
    }
    Ok(id)
}

fn otlp_span(sp: &Value, at: &str, line: u64) -> Result<Span, SpanError> {
    let trace_id = otlp_id(
        sp.get("traceId"),
        16,
        format!("{at}/traceId"),
        None,
        "trace id",
    )?;
    let tid = Some(trace_id.as_str());
    // Proto field names are another spelling OTLP/JSON readers may meet;
    // pactum reads the lowerCamelCase ones, so one of these passed over
    // (a parent, a dropped count) would change what the span says.
    if let Some(k) = SNAKE_FIELDS.iter().find(|k| sp.get(**k).is_some()) {
        return Err(err(
            tid,
            format!("{at}/{k}"),
            format!(
                "`{k}`: pactum reads OTLP/JSON's lowerCamelCase field names (`{}`)",
                camel(k)
            ),
        ));
    }
    let span_id = otlp_id(sp.get("spanId"), 8, format!("{at}/spanId"), tid, "span id")?;
    // Only an absent, null or empty `parentSpanId` makes a root; anything
    // else (blank, a number, an object) must be an id, or the span is
    // refused: read as a root, it would hide a cut-off.
    let parent = match sp.get("parentSpanId") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p.is_empty() => None,
        Some(_) => Some(otlp_id(
            sp.get("parentSpanId"),
            8,
            format!("{at}/parentSpanId"),
            tid,
            "parent span id",
        )?),
    };
    let name = match sp.get("name") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(o) => {
            return Err(err(
                tid,
                format!("{at}/name"),
                format!("expected a string, found {}", kind(o)),
            ))
        }
    };
    let start = nanos(sp.get("startTimeUnixNano")).ok_or_else(|| {
        err(
            tid,
            format!("{at}/startTimeUnixNano"),
            "missing or unreadable start time",
        )
    })?;
    let end = nanos(sp.get("endTimeUnixNano")).filter(|e| *e > 0);
    let attrs = match sp.get("attributes") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Array(a)) => {
            key_values(a, &format!("{at}/attributes")).map_err(|(f, m)| err(tid, f, m))?
        }
        Some(o) => {
            return Err(err(
                tid,
                format!("{at}/attributes"),
                format!("expected an array, found {}", kind(o)),
            ))
        }
    };
    // The SDKs cap a span's attributes and events (128 by default) and
    // OpenLLMetry writes the calls last: what was dropped may be the calls.
    let mut lost = Vec::new();
    let count = |k: &str, at: &str| {
        dropped(sp.get(k), &format!("{at}/{k}")).map_err(|(f, m)| err(tid, f, m))
    };
    match count("droppedAttributesCount", at)? {
        0 => {}
        n => lost.push(format!("{n} attribute(s) (`droppedAttributesCount`)")),
    }
    match count("droppedEventsCount", at)? {
        0 => {}
        n => lost.push(format!("{n} event(s) (`droppedEventsCount`)")),
    }
    let mut events = Vec::new();
    if let Some(Value::Array(evs)) = sp.get("events") {
        for (i, e) in evs.iter().enumerate() {
            let name = e.get("name").and_then(Value::as_str).unwrap_or_default();
            if let Some(k) = SNAKE_FIELDS.iter().find(|k| e.get(**k).is_some()) {
                return Err(err(
                    tid,
                    format!("{at}/events/{i}/{k}"),
                    format!(
                        "`{k}`: pactum reads OTLP/JSON's lowerCamelCase field names (`{}`)",
                        camel(k)
                    ),
                ));
            }
            let here = format!("{at}/events/{i}/droppedAttributesCount");
            match dropped(e.get("droppedAttributesCount"), &here)
                .map_err(|(f, m)| err(tid, f, m))?
            {
                0 => {}
                n => lost.push(format!(
                    "{n} attribute(s) of its event `{}` (`events/{i}/droppedAttributesCount`)",
                    crate::convert::shown(name)
                )),
            }
            let attrs = match e.get("attributes") {
                None | Some(Value::Null) => BTreeMap::new(),
                Some(Value::Array(a)) => key_values(a, &format!("{at}/events/{i}/attributes"))
                    .map_err(|(f, m)| err(tid, f, m))?,
                Some(o) => {
                    return Err(err(
                        tid,
                        format!("{at}/events/{i}/attributes"),
                        format!("expected an array, found {}", kind(o)),
                    ))
                }
            };
            // Another event is kept only when it carries a convention's
            // attribute, so that reading can refuse it.
            if !(name.starts_with("gen_ai.")
                || name == "exception"
                || attrs
                    .keys()
                    .any(|k| k.starts_with("gen_ai.") || kept_event_mark(k)))
            {
                continue;
            }
            events.push(Event {
                name: name.to_string(),
                attrs,
            });
        }
    }
    let error = match sp.get("status").and_then(|s| s.get("code")) {
        None | Some(Value::Null) => None,
        Some(c) => match c {
            Value::Number(n) if n.as_u64() == Some(0) || n.as_u64() == Some(1) => None,
            Value::String(s) if s == "STATUS_CODE_UNSET" || s == "STATUS_CODE_OK" => None,
            Value::Number(n) if n.as_u64() == Some(2) => Some(()),
            Value::String(s) if s == "STATUS_CODE_ERROR" => Some(()),
            other => {
                return Err(err(
                    tid,
                    format!("{at}/status/code"),
                    format!(
                        "unknown status code {}: expected 0, 1, 2 or STATUS_CODE_*",
                        crate::convert::shown(&other.to_string())
                    ),
                ))
            }
        },
    }
    .map(|()| {
        sp.get("status")
            .and_then(|s| s.get("message"))
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .unwrap_or("status ERROR")
            .to_string()
    });
    let mut attrs = kept_only(attrs);
    if !lost.is_empty() {
        attrs.insert(LOST.into(), Value::String(lost.join(", ")));
    }
    let remote_parent = otlp_remote_parent(sp, at, tid)?;
    Ok(Span {
        trace_id,
        span_id,
        parent,
        remote_parent,
        name,
        start,
        end,
        error,
        attrs,
        events,
        line,
    })
}

/// OTLP's `flags` bits 8 and 9: whether the parent's locality is known,
/// and whether it is remote.
const FLAG_HAS_IS_REMOTE: u64 = 0x100;
const FLAG_IS_REMOTE: u64 = 0x200;

/// Whether an OTLP span's parent is remote: its `flags` say so when they
/// know (bit 8 set, bit 9 the answer); else its kind does (SERVER and
/// CONSUMER spans are the entries of calls from another process).
///
/// `flags` is a `fixed32`: an integer from 0 to 2³²−1 (a decimal string
/// too, as JSON encoders may write integers); anything else is an error
/// naming the field, never ignored (ignored, it would let the kind decide).
fn otlp_remote_parent(sp: &Value, at: &str, tid: Option<&str>) -> Result<bool, SpanError> {
    let flags = match sp.get("flags") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let n = match v {
                Value::Number(n) => n.as_u64(),
                Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                    s.parse::<u64>().ok()
                }
                _ => None,
            };
            match n.filter(|n| *n <= u64::from(u32::MAX)) {
                Some(n) => Some(n),
                None => {
                    return Err(err(
                        tid,
                        format!("{at}/flags"),
                        format!(
                            "`flags` is a 32-bit unsigned integer, found {}",
                            crate::convert::shown(&v.to_string())
                        ),
                    ))
                }
            }
        }
    };
    if let Some(f) = flags.filter(|f| f & FLAG_HAS_IS_REMOTE != 0) {
        return Ok(f & FLAG_IS_REMOTE != 0);
    }
    Ok(match sp.get("kind") {
        Some(Value::Number(n)) => matches!(n.as_u64(), Some(2 | 5)),
        Some(Value::String(k)) => matches!(k.as_str(), "SPAN_KIND_SERVER" | "SPAN_KIND_CONSUMER"),
        _ => false,
    })
}

/// A Jaeger span's parent: its `CHILD_OF` reference, else (as Jaeger's
/// own model reads it) its first `FOLLOWS_FROM` reference, else the
/// deprecated `parentSpanID` field (empty or all zeros: none); the two
/// places must agree. Another `refType`, a reference without a span id, or
/// two `CHILD_OF` references are errors naming the field: read as a root,
/// the span would hide a cut-off.
fn jaeger_parent(sp: &Value, at: &str, tid: Option<&str>) -> Result<Option<String>, SpanError> {
    let (mut child_of, mut follows) = (None, None);
    match sp.get("references") {
        None | Some(Value::Null) => {}
        Some(Value::Array(refs)) => {
            for (i, r) in refs.iter().enumerate() {
                let here = format!("{at}/references/{i}");
                let id = || {
                    id_str(r.get("spanID")).ok_or_else(|| {
                        err(
                            tid,
                            format!("{here}/spanID"),
                            "a reference without a span id: which span is the parent?",
                        )
                    })
                };
                match r.get("refType").and_then(Value::as_str) {
                    Some("CHILD_OF") => {
                        if child_of.is_some() {
                            return Err(err(
                                tid,
                                here,
                                "two CHILD_OF references: which is the parent?",
                            ));
                        }
                        child_of = Some(id()?);
                    }
                    Some("FOLLOWS_FROM") => {
                        let id = id()?;
                        follows.get_or_insert(id);
                    }
                    other => {
                        return Err(err(
                            tid,
                            format!("{here}/refType"),
                            format!(
                                "unknown reference type {}: expected CHILD_OF or FOLLOWS_FROM",
                                other.map_or("(none)".to_string(), crate::convert::shown)
                            ),
                        ))
                    }
                }
            }
        }
        Some(o) => {
            return Err(err(
                tid,
                format!("{at}/references"),
                format!("expected an array, found {}", kind(o)),
            ))
        }
    }
    let by_ref = child_of.or(follows);
    let old = match sp.get("parentSpanID") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p.trim().bytes().all(|b| b == b'0') => None,
        Some(v) => Some(id_str(Some(v)).ok_or_else(|| {
            err(
                tid,
                format!("{at}/parentSpanID"),
                format!("expected a span id, found {}", kind(v)),
            )
        })?),
    };
    match (by_ref, old) {
        (Some(a), Some(b)) if a != b => Err(err(
            tid,
            format!("{at}/parentSpanID"),
            format!(
                "names the parent `{}` and the references `{}`: which is it?",
                crate::convert::shown(&b),
                crate::convert::shown(&a)
            ),
        )),
        (a, b) => Ok(a.or(b)),
    }
}

/// A Jaeger tag (`{key, type, value}`) value, checked against its type.
fn jaeger_tags(tags: &[Value], at: &str) -> Result<BTreeMap<String, Value>, (String, String)> {
    let mut out = BTreeMap::new();
    for (i, t) in tags.iter().enumerate() {
        let here = format!("{at}/{i}");
        let Some(key) = t.get("key").and_then(Value::as_str) else {
            return Err((format!("{here}/key"), "expected a string key".into()));
        };
        let value = t.get("value").cloned().unwrap_or(Value::Null);
        let ok = match t.get("type").and_then(Value::as_str) {
            None => true,
            Some("string" | "binary") => value.is_string(),
            Some("bool") => value.is_boolean(),
            Some("int64") => value.is_i64() || value.is_u64(),
            Some("float64") => value.is_number(),
            Some(other) => {
                return Err((
                    format!("{here}/type"),
                    format!("unknown Jaeger tag type `{}`", crate::convert::shown(other)),
                ))
            }
        };
        if !ok {
            return Err((
                format!("{here}/value"),
                format!("{} does not match the tag's type", kind(&value)),
            ));
        }
        if out.insert(key.to_string(), value).is_some() {
            return Err((
                format!("{here}/key"),
                format!(
                    "tag `{}` is given twice: ambiguous",
                    crate::convert::shown(key)
                ),
            ));
        }
    }
    Ok(out)
}

/// The spans of one Jaeger JSON document (`data[].spans[]`).
pub(crate) fn jaeger(doc: &Value, line: u64) -> Found {
    let mut spans = Vec::new();
    let mut errors = Vec::new();
    let Some(Value::Array(data)) = doc.get("data") else {
        errors.push(err(
            None,
            "/data".into(),
            "no `data` array: not a Jaeger trace document",
        ));
        return (spans, errors);
    };
    for (i, t) in data.iter().enumerate() {
        let at = format!("/data/{i}");
        let Some(Value::Array(list)) = t.get("spans") else {
            errors.push(err(
                None,
                format!("{at}/spans"),
                "expected an array of spans",
            ));
            continue;
        };
        for (k, sp) in list.iter().enumerate() {
            match jaeger_span(sp, &format!("{at}/spans/{k}"), line) {
                Ok(s) => spans.push(s),
                Err(e) => errors.push(e),
            }
        }
    }
    (spans, errors)
}

/// A Jaeger id: hex digits, at most `max` of them (Jaeger drops leading
/// zeros), not all zero; anything else is an error naming the field.
fn jaeger_id(
    v: Option<&Value>,
    max: usize,
    at: String,
    tid: Option<&str>,
    what: &str,
) -> Result<String, SpanError> {
    let id = id_str(v).ok_or_else(|| err(tid, at.clone(), format!("missing or empty {what}")))?;
    if id.len() > max || !id.bytes().all(|b| b.is_ascii_hexdigit()) || id.bytes().all(|b| b == b'0')
    {
        return Err(err(
            tid,
            at,
            format!(
                "a {what} is up to {max} hex digits, not all zero: found `{}`",
                crate::convert::shown(&id)
            ),
        ));
    }
    Ok(id)
}

fn jaeger_span(sp: &Value, at: &str, line: u64) -> Result<Span, SpanError> {
    let trace_id = jaeger_id(
        sp.get("traceID"),
        32,
        format!("{at}/traceID"),
        None,
        "trace id",
    )?;
    let tid = Some(trace_id.as_str());
    let span_id = jaeger_id(sp.get("spanID"), 16, format!("{at}/spanID"), tid, "span id")?;
    let name = sp
        .get("operationName")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let start_us = nanos(sp.get("startTime")).ok_or_else(|| {
        err(
            tid,
            format!("{at}/startTime"),
            "missing or unreadable start time",
        )
    })?;
    let duration = nanos(sp.get("duration"));
    let parent = jaeger_parent(sp, at, tid)?;
    let mut attrs = match sp.get("tags") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Array(a)) => {
            jaeger_tags(a, &format!("{at}/tags")).map_err(|(f, m)| err(tid, f, m))?
        }
        Some(o) => {
            return Err(err(
                tid,
                format!("{at}/tags"),
                format!("expected an array, found {}", kind(o)),
            ))
        }
    };
    let error = match (
        attrs.get("error"),
        attrs.get("otel.status_code").and_then(Value::as_str),
    ) {
        (Some(Value::Bool(true)), _) | (_, Some("ERROR")) => Some(
            attrs
                .get("otel.status_description")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or("status ERROR")
                .to_string(),
        ),
        (Some(Value::String(s)), _) if s == "true" => Some("status ERROR".to_string()),
        _ => None,
    };
    let remote_parent = matches!(
        attrs.get("span.kind").and_then(Value::as_str),
        Some("server" | "consumer")
    );
    attrs = kept_only(attrs);
    let mut events = Vec::new();
    if let Some(Value::Array(logs)) = sp.get("logs") {
        for (i, l) in logs.iter().enumerate() {
            let Some(Value::Array(fields)) = l.get("fields") else {
                continue;
            };
            let mut f = jaeger_tags(fields, &format!("{at}/logs/{i}/fields"))
                .map_err(|(fl, m)| err(tid, fl, m))?;
            let name = match f.remove("event") {
                Some(Value::String(s)) => s,
                _ => continue,
            };
            if name.starts_with("gen_ai.")
                || name == "exception"
                || f.keys()
                    .any(|k| k.starts_with("gen_ai.") || kept_event_mark(k))
            {
                events.push(Event { name, attrs: f });
            }
        }
    }
    Ok(Span {
        trace_id,
        span_id,
        parent,
        remote_parent,
        name,
        start: start_us.saturating_mul(1000),
        end: duration.map(|d| start_us.saturating_add(d).saturating_mul(1000)),
        error,
        attrs,
        events,
        line,
    })
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+00:00)` as nanoseconds since the
/// epoch; `None` for anything else (other offsets included: not guessed).
pub(crate) fn rfc3339_utc(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<u64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let rest = &s[19..];
    let (frac, tz) = match rest.strip_prefix('.') {
        Some(r) => {
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            (&r[..n], &r[n..])
        }
        None => ("", rest),
    };
    if tz != "Z" && tz != "+00:00" {
        return None;
    }
    let mut nanos_frac = 0u64;
    for (i, c) in frac.bytes().take(9).enumerate() {
        nanos_frac += u64::from(c - b'0') * 10u64.pow(8 - i as u32);
    }
    // Days from civil (Howard Hinnant's algorithm), years from 1970 on.
    let (y, mo) = if mo <= 2 {
        (y.checked_sub(1)?, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    let secs = days * 86_400 + h * 3_600 + mi * 60 + se;
    secs.checked_mul(1_000_000_000)?.checked_add(nanos_frac)
}

/// Whether a record is a Langfuse trace export (`{trace, observations}`)
/// whose observations kept their OpenInference span attributes
/// (`metadata.attributes` with `openinference.span.kind`).
pub(crate) fn is_langfuse_openinference(v: &Value) -> bool {
    let Some(Value::Array(obs)) = v.get("observations") else {
        return false;
    };
    v.get("trace").is_some_and(Value::is_object)
        && obs.iter().any(|o| {
            langfuse_attributes(o).is_some_and(|a| a.contains_key("openinference.span.kind"))
        })
}

/// An observation's `metadata.attributes` (metadata may be JSON text).
fn langfuse_attributes(o: &Value) -> Option<Map<String, Value>> {
    let md = match o.get("metadata")? {
        Value::String(s) => serde_json::from_str::<Value>(s).ok()?,
        other => other.clone(),
    };
    match md.get("attributes")? {
        Value::Object(m) => Some(m.clone()),
        Value::String(s) => serde_json::from_str::<Map<String, Value>>(s).ok(),
        _ => None,
    }
}

/// The spans of a Langfuse trace export whose observations kept their
/// OpenTelemetry attributes: each observation is a span (`id`, `traceId`,
/// `parentObservationId`, `startTime`, `endTime`, `level: ERROR` +
/// `statusMessage` as the error), its attributes those under
/// `metadata.attributes`. The trace's `sessionId` is the session
/// (`session.id`) when no span names one.
///
/// An observation whose attributes do not say it is an LLM call, a tool
/// execution or an agent (none, or only a wrapper's) is read by its own
/// fields, as `--format langfuse` reads it (`crate::langfuse`): a Langfuse
/// SDK `TOOL` observation beside OpenInference spans is a tool execution,
/// and one that reading refuses is an error, never passed over.
pub(crate) fn langfuse(doc: &Value, line: u64) -> Found {
    use super::genai::{classify, Kind};
    let (spans, mut errors) = langfuse_by_attributes(doc, line);
    if spans.is_empty() {
        return (Vec::new(), errors);
    }
    let (native, native_errors) = crate::langfuse::spans(doc, line);
    let mut by_id: BTreeMap<(String, String), std::collections::VecDeque<Span>> = BTreeMap::new();
    for n in native {
        by_id
            .entry((n.trace_id.clone(), n.span_id.clone()))
            .or_default()
            .push_back(n);
    }
    // Its errors, by the observation they are about.
    let mut refused: BTreeMap<usize, Vec<SpanError>> = BTreeMap::new();
    for e in native_errors {
        let index = e
            .field
            .strip_prefix("/observations/")
            .map(|r| r.split('/').next().unwrap_or_default())
            .and_then(|i| i.parse::<usize>().ok());
        match index {
            Some(i) => refused.entry(i).or_default().push(e),
            // Not about one observation: the export as a whole.
            None => errors.push(e),
        }
    }
    let mut out = Vec::with_capacity(spans.len());
    for (i, s) in spans {
        let own = by_id
            .get_mut(&(s.trace_id.clone(), s.span_id.clone()))
            .and_then(std::collections::VecDeque::pop_front);
        let by_attrs = classify(&s);
        let read = |n: &Span| classify(n).ok();
        let conflict = |why: &str| {
            err(
                Some(&s.trace_id),
                format!("/observations/{i}/type"),
                format!("{why}: which is it?"),
            )
        };
        match (by_attrs, own) {
            (Ok(Kind::Other), own) => match refused.remove(&i) {
                Some(es) => errors.extend(es),
                None => match own {
                    // Kept even when it cannot be classified: the builder
                    // then refuses the trace, naming why.
                    Some(mut n) if !matches!(read(&n), Some(Kind::Other)) => {
                        // Grouping keys its attributes carry still group it.
                        for k in ["gen_ai.conversation.id", "session.id"] {
                            if let Some(v) = s.attrs.get(k) {
                                n.attrs.insert(k.into(), v.clone());
                            }
                        }
                        out.push(n);
                    }
                    _ => out.push(s),
                },
            },
            // The attributes say what it is; its own record (type, name,
            // output) is one more place of it and may not say otherwise,
            // nor may it be one that reading refuses.
            (Ok(by), own) => {
                let own_type = doc
                    .pointer(&format!("/observations/{i}/type"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                // A TOOL observation ran a tool, however its own record
                // reads: attributes that say otherwise are a conflict even
                // when that record is refused (a TOOL without a name).
                if own_type == "TOOL" && !matches!(by, Kind::Tool(_)) {
                    errors.push(conflict(
                        "a TOOL observation whose attributes say it is an LLM call or an agent",
                    ));
                    continue;
                }
                let refused_own = refused.remove(&i);
                let mine = match &own {
                    None => None,
                    Some(n) => match classify(n) {
                        Ok(k) => Some(k),
                        Err((field, msg)) => {
                            errors.push(err(
                                Some(&s.trace_id),
                                format!("/observations/{i} ({field})"),
                                msg,
                            ));
                            continue;
                        }
                    },
                };
                // A tool by its attributes whose own record is refused:
                // which tool it was, or what it did, cannot be told.
                if let (Kind::Tool(_), Some(es)) = (&by, refused_own) {
                    errors.extend(es);
                    continue;
                }
                match (by, mine, own) {
                    (Kind::Llm(_) | Kind::Agent(_), Some(Kind::Tool(_)), _) => errors.push(conflict(
                        "a TOOL observation whose attributes say it is an LLM call or an agent",
                    )),
                    (Kind::Tool(_), Some(Kind::Llm(_) | Kind::Agent(_)), _) => errors.push(conflict(
                        "an LLM call or agent observation whose attributes say it is a tool execution",
                    )),
                    (Kind::Tool(a), Some(Kind::Tool(b)), _) if a.name != b.name => {
                        errors.push(conflict(&format!(
                            "a TOOL observation named `{}` whose attributes name the tool `{}`",
                            crate::convert::shown(&b.name),
                            crate::convert::shown(&a.name)
                        )));
                    }
                    // A tool by its attributes that left out its arguments
                    // or result: its own `input` / `output` give them, as
                    // one more place of the same call.
                    (Kind::Tool(a), Some(Kind::Tool(_)), Some(n)) => {
                        let mut s = s;
                        for (missing, key) in [
                            (a.arguments.is_null(), "gen_ai.tool.call.arguments"),
                            (a.result.is_none(), "gen_ai.tool.call.result"),
                        ] {
                            if let (true, Some(v)) = (missing, n.attrs.get(key)) {
                                s.attrs.insert(key.into(), v.clone());
                            }
                        }
                        out.push(s);
                    }
                    (Kind::Llm(a), Some(Kind::Llm(b)), _)
                        if calls_of(a.output.as_deref()) != calls_of(b.output.as_deref())
                            && a.output.is_some()
                            && b.output.is_some() =>
                    {
                        errors.push(conflict(
                            "a GENERATION observation whose own output records other calls than its attributes",
                        ));
                    }
                    _ => out.push(s),
                }
            }
            _ => out.push(s),
        }
    }
    (out, errors)
}

/// The names of the calls an output records, in order.
fn calls_of(out: Option<&[super::genai::Msg]>) -> Vec<String> {
    out.unwrap_or_default()
        .iter()
        .flat_map(|m| m.calls.iter().map(|c| c.name.clone()))
        .collect()
}

/// [`langfuse`] by attributes alone: each span with its observation's index.
fn langfuse_by_attributes(doc: &Value, line: u64) -> (Vec<(usize, Span)>, Vec<SpanError>) {
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
        let end = o
            .get("endTime")
            .and_then(Value::as_str)
            .and_then(rfc3339_utc);
        let error = crate::langfuse::observation_error(o);
        let mut attrs: BTreeMap<String, Value> = match o.get("metadata") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(_) => match langfuse_attributes(o) {
                Some(m) => m.into_iter().filter(|(k, _)| kept(k)).collect(),
                None => BTreeMap::new(),
            },
        };
        if let Some(s) = session {
            attrs
                .entry("session.id".into())
                .or_insert_with(|| Value::String(s.to_string()));
        }
        spans.push((
            i,
            Span {
                trace_id,
                span_id,
                parent: id_str(o.get("parentObservationId")),
                remote_parent: false,
                name: o
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                start,
                end,
                error,
                attrs,
                events: Vec::new(),
                line,
            },
        ));
    }
    (spans, errors)
}

#[cfg(test)]
mod tests {
    use super::rfc3339_utc;

    #[test]
    fn utc_times() {
        assert_eq!(rfc3339_utc("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            rfc3339_utc("2025-09-30T09:03:59.962Z"),
            Some(1_759_223_039_962_000_000)
        );
        assert_eq!(rfc3339_utc("2025-09-30T09:03:59+02:00"), None);
        assert_eq!(rfc3339_utc("2025-13-30T09:03:59Z"), None);
    }
}
