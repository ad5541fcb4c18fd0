//! OpenAI Agents SDK trace exports → pactum traces
//! (`docs/traces.md`, "OpenAI Agents SDK").
//!
//! The SDK's exporter POSTs batches `{"data": [record, …]}`; a file holds
//! one batch per line (JSONL) or one JSON document of them. A record is a
//! `trace` (`id`, `workflow_name`, `group_id`, `metadata`) or a
//! `trace.span` (`id`, `trace_id`, `parent_id`, `started_at`, `ended_at`,
//! `span_data`, `error`). A trace may be split over batches and spans come
//! in the order they ended (children first), so the whole file is read
//! before any trace is built; at most [`crate::MAX_SPANS`] spans per file.
//!
//! * **Grouping.** SDK traces with the same `group_id` are one pactum
//!   trace (a conversation); without one, the SDK trace is (metadata
//!   `grouped_by`). Each SDK trace (one `Runner.run`) is one turn, in
//!   the order of its first span.
//! * **Tool calls.** `function` spans, in start order: `input` (the
//!   arguments, a JSON string) through the one decoder
//!   ([`pactum_core::chat::decode_call`]), `output` kept as recorded (often
//!   a Python `repr`: never parsed), the span's `error` the call's error.
//!   A `generation` span's output messages state calls too: a function
//!   span runs the first unjoined call of its name (the SDK records no
//!   call id on function spans).
//! * **Responses.** Only `generation` spans carry the model's text; a
//!   `response` span carries only `response_id` (the Responses API text is
//!   not exported), so a turn with one has no response (`None`):
//!   unobserved, never "said nothing".
//! * **Observability** (metadata `observed`): tool calls are observed
//!   when every model step's output was captured, or when every agent of
//!   the trace lists its tools and none is a hosted tool (web search, file
//!   search, computer, code interpreter, image generation, hosted MCP,
//!   local shell), whose calls happen inside the model response and make
//!   no `function` span. Side effects never.
//! * **Cut off.** A span naming a parent the export does not hold, a trace
//!   without a root span, a span that has not ended, or a tripped
//!   guardrail (the run was stopped there) make the trace `incomplete`.
//!   A non-function span in error sets the trace's `error`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::ControlFlow;
use std::path::Path;

use pactum_core::chat::{self, kind};
use pactum_core::trace::{Message, ObservabilityLevel, Role, SourceRef, ToolCall, Trace, Turn};
use serde_json::{json, Map, Value};

use crate::convert::{shown, Conv, RecordCtx};
use crate::error::RecordError;
use crate::framing::Frame;
use crate::{Emitter, Framing, ImportError, MAX_SPANS};

/// Tool names of the SDK's hosted tools: their calls run inside the model
/// response and leave no `function` span.
const HOSTED_TOOLS: &[&str] = &[
    "web_search",
    "web_search_preview",
    "file_search",
    "computer_use_preview",
    "computer",
    "code_interpreter",
    "image_generation",
    "hosted_mcp",
    "local_shell",
];

/// Whether a record is an Agents SDK export batch: `{"data": [{"object":
/// "trace" | "trace.span", …}, …]}`.
pub(crate) fn sniff(v: &Value) -> bool {
    let Some(Value::Array(d)) = v.get("data") else {
        return false;
    };
    d.first()
        .and_then(|r| r.get("object"))
        .and_then(Value::as_str)
        .is_some_and(|o| o == "trace" || o == "trace.span")
}

/// A `trace` record.
#[derive(Debug, Clone)]
struct TraceRec {
    workflow_name: Value,
    group_id: Option<String>,
    metadata: Value,
}

/// What a span is.
#[derive(Debug, Clone)]
enum Kind {
    Function(ToolCall),
    Agent {
        name: String,
        tools: Option<Vec<String>>,
        handoffs: Value,
        output_type: Value,
    },
    Handoff {
        from: Value,
        to: Value,
    },
    Guardrail {
        name: String,
        triggered: bool,
    },
    Generation {
        input: Option<Vec<Value>>,
        output: Option<Vec<Value>>,
        model: Value,
    },
    Response {
        response_id: Value,
    },
    Custom {
        name: Value,
    },
    McpTools {
        server: Value,
        tools: Vec<String>,
    },
}

#[derive(Debug, Clone)]
struct SdkSpan {
    id: String,
    trace_id: String,
    parent: Option<String>,
    start: u64,
    ended: bool,
    error: Option<String>,
    kind: Kind,
    line: u64,
}

/// Reads every record of the file, then builds and emits its traces in the
/// order of their first span's start (then id).
pub(crate) fn read<T>(
    path: &Path,
    framing: Framing,
    level_flag: Option<ObservabilityLevel>,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    let display = path.display().to_string();
    let name = crate::file_name(path);
    let mut traces: BTreeMap<String, (TraceRec, u64)> = BTreeMap::new();
    let mut spans: BTreeMap<String, Vec<SdkSpan>> = BTreeMap::new();
    let mut bad: BTreeMap<String, Vec<RecordError>> = BTreeMap::new();
    let mut early: Vec<RecordError> = Vec::new();
    let mut total = 0usize;
    let mut over: Option<u64> = None;
    crate::for_each_frame(path, framing, None, &mut |frame| {
        let (line, bytes) = match frame {
            Frame::Record { line, bytes, .. } => (line, bytes),
            Frame::Broken { line, message } => {
                early.push(RecordError::new(&display, line, None, message));
                return ControlFlow::Continue(());
            }
        };
        let ctx = RecordCtx {
            file: &display,
            file_name: &name,
            line,
            ordinal: None,
            line_framed: framing == Framing::Lines,
            level_flag,
        };
        let doc = match ctx.strict_value(bytes) {
            Ok(v) => v,
            Err(e) => {
                early.push(e);
                return ControlFlow::Continue(());
            }
        };
        let records = match batch(&doc) {
            Ok(r) => r,
            Err((field, msg)) => {
                early.push(ctx.error(Some(&field), msg));
                return ControlFlow::Continue(());
            }
        };
        for (i, r) in records.iter().enumerate() {
            let at = format!("/data/{i}");
            match record(r, &at, line) {
                Ok(Rec::Trace(id, t)) => {
                    if traces.insert(id.clone(), (t, line)).is_some() {
                        bad.entry(id.clone()).or_default().push(ctx.error(
                            Some(&at),
                            format!("trace `{}` is recorded twice: which record holds its group and metadata?", shown(&id)),
                        ));
                    }
                }
                Ok(Rec::Span(s)) => {
                    total += 1;
                    if total > MAX_SPANS {
                        over = Some(line);
                        return ControlFlow::Break(());
                    }
                    spans.entry(s.trace_id.clone()).or_default().push(*s);
                }
                Err((trace_id, field, msg)) => {
                    let e = ctx.error(Some(&field), msg);
                    match trace_id {
                        Some(t) => bad.entry(t).or_default().push(e),
                        None => early.push(e),
                    }
                }
            }
        }
        ControlFlow::Continue(())
    })?;
    if let Some(line) = over {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!(
                "it holds more than {MAX_SPANS} spans (line {line}), the most pactum holds for one file; split it"
            ),
        });
    }
    for e in early {
        if emit.error(e).is_break() {
            return Ok(());
        }
    }
    // Groups: the trace record's group id, else the trace id.
    let mut ids: BTreeSet<String> = spans.keys().cloned().collect();
    ids.extend(traces.keys().cloned());
    // A trace whose only records were unreadable still reports them.
    ids.extend(bad.keys().cloned());
    let mut groups: BTreeMap<(String, &'static str), Vec<String>> = BTreeMap::new();
    for id in ids {
        let key = match traces.get(&id).and_then(|(t, _)| t.group_id.clone()) {
            Some(g) => (g, "group_id"),
            None => (id.clone(), "trace_id"),
        };
        groups.entry(key).or_default().push(id);
    }
    let mut outs: Vec<(u64, String, Out)> = Vec::new();
    for ((key, by), members) in groups {
        let errors: Vec<RecordError> = members
            .iter()
            .flat_map(|m| bad.remove(m).unwrap_or_default())
            .collect();
        let start = members
            .iter()
            .flat_map(|m| spans.get(m).into_iter().flatten().map(|s| s.start))
            .min()
            .unwrap_or(0);
        if !errors.is_empty() {
            for e in errors {
                outs.push((start, key.clone(), Out::Error(e)));
            }
            continue;
        }
        let out = build(&key, by, &members, &traces, &spans, &display, level_flag);
        outs.push((start, key, out));
    }
    outs.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    for (_, _, out) in outs {
        let flow = match out {
            Out::Trace(t) => {
                let line = t.source.as_ref().map_or(1, |s| s.line);
                let ctx = RecordCtx {
                    file: &display,
                    file_name: &name,
                    line,
                    ordinal: None,
                    line_framed: framing == Framing::Lines,
                    level_flag,
                };
                emit.conv(Conv::Trace(*t), &ctx)?
            }
            Out::Skip { line, reason } => emit.deliver(crate::Ready::Skip { line, reason })?,
            Out::Error(e) => emit.error(e),
        };
        if flow.is_break() {
            break;
        }
    }
    Ok(())
}

enum Out {
    Trace(Box<Trace>),
    Skip { line: u64, reason: String },
    Error(RecordError),
}

/// The records of one batch.
fn batch(doc: &Value) -> Result<&Vec<Value>, (String, String)> {
    let Some(m) = doc.as_object() else {
        return Err((
            String::new(),
            format!(
                "expected an export batch object `{{\"data\": […]}}`, found {}",
                kind(doc)
            ),
        ));
    };
    if let Some(k) = m.keys().find(|k| *k != "data") {
        return Err((
            format!("/{}", pactum_core::json::escape_pointer_token(k)),
            format!(
                "unknown key `{}` in an Agents SDK export batch (expected only `data`)",
                shown(k)
            ),
        ));
    }
    match m.get("data") {
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err((
            "/data".into(),
            format!("expected an array of records, found {}", kind(other)),
        )),
        None => Err(("/data".into(), "missing".into())),
    }
}

enum Rec {
    Trace(String, TraceRec),
    Span(Box<SdkSpan>),
}

type RecErr = (Option<String>, String, String);

fn str_at<'a>(m: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a str, (String, String)> {
    match m.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(other) => Err((
            format!("{at}/{key}"),
            format!("expected a non-empty string, found {}", kind(other)),
        )),
        None => Err((format!("{at}/{key}"), "missing".into())),
    }
}

fn opt_str(
    m: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<String>, (String, String)> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err((
            format!("{at}/{key}"),
            format!("expected a string or null, found {}", kind(other)),
        )),
    }
}

fn known(
    m: &Map<String, Value>,
    allowed: &[&str],
    what: &str,
    at: &str,
) -> Result<(), (String, String)> {
    match m.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err((
            format!("{at}/{}", pactum_core::json::escape_pointer_token(k)),
            format!(
                "unknown key `{}` in {what} (expected: {}): pactum does not read it, and it may hold what a check needs",
                shown(k),
                allowed.join(", ")
            ),
        )),
    }
}

fn record(r: &Value, at: &str, line: u64) -> Result<Rec, RecErr> {
    let Some(m) = r.as_object() else {
        return Err((
            None,
            at.into(),
            format!("expected a record object, found {}", kind(r)),
        ));
    };
    let object = m.get("object").and_then(Value::as_str).unwrap_or_default();
    match object {
        "trace" => {
            let id = str_at(m, "id", at)
                .map_err(|(f, e)| (None, f, e))?
                .to_string();
            let tid = Some(id.clone());
            known(
                m,
                &["object", "id", "workflow_name", "group_id", "metadata"],
                "a `trace` record",
                at,
            )
            .map_err(|(f, e)| (tid.clone(), f, e))?;
            let group_id = opt_str(m, "group_id", at).map_err(|(f, e)| (tid.clone(), f, e))?;
            Ok(Rec::Trace(
                id,
                TraceRec {
                    workflow_name: m.get("workflow_name").cloned().unwrap_or(Value::Null),
                    group_id,
                    metadata: m.get("metadata").cloned().unwrap_or(Value::Null),
                },
            ))
        }
        "trace.span" => {
            let trace_id = str_at(m, "trace_id", at)
                .map_err(|(f, e)| (None, f, e))?
                .to_string();
            let tid = Some(trace_id.clone());
            span(m, at, line, trace_id).map_err(|(f, e)| (tid, f, e))
        }
        _ => Err((
            None,
            format!("{at}/object"),
            format!(
                "unknown record `{}`: an Agents SDK export holds `trace` and `trace.span` records",
                shown(&m.get("object").map(Value::to_string).unwrap_or_default())
            ),
        )),
    }
}

fn time_at(m: &Map<String, Value>, key: &str, at: &str) -> Result<Option<u64>, (String, String)> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => crate::otel::span::rfc3339_utc(s).map(Some).ok_or_else(|| {
            (
                format!("{at}/{key}"),
                format!(
                    "`{}` is not a UTC ISO 8601 time (`…Z` or `…+00:00`): the order of the spans is not guessed",
                    shown(s)
                ),
            )
        }),
        Some(other) => Err((
            format!("{at}/{key}"),
            format!("expected an ISO 8601 time, found {}", kind(other)),
        )),
    }
}

fn span(
    m: &Map<String, Value>,
    at: &str,
    line: u64,
    trace_id: String,
) -> Result<Rec, (String, String)> {
    known(
        m,
        &[
            "object",
            "id",
            "trace_id",
            "parent_id",
            "started_at",
            "ended_at",
            "span_data",
            "error",
        ],
        "a `trace.span` record",
        at,
    )?;
    let id = str_at(m, "id", at)?.to_string();
    let parent = opt_str(m, "parent_id", at)?;
    let Some(start) = time_at(m, "started_at", at)? else {
        return Err((
            format!("{at}/started_at"),
            "missing: the span cannot be ordered".into(),
        ));
    };
    let ended = time_at(m, "ended_at", at)?.is_some();
    let error = match m.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::Object(e)) => {
            let msg = e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the span ended in an error");
            Some(match e.get("data") {
                None | Some(Value::Null) => msg.to_string(),
                Some(d) => format!("{msg} ({d})"),
            })
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err((
                format!("{at}/error"),
                format!(
                    "expected null or an error object {{message, data}}, found {}",
                    kind(other)
                ),
            ))
        }
    };
    let sd_at = format!("{at}/span_data");
    let Some(Value::Object(sd)) = m.get("span_data") else {
        return Err((sd_at, "missing or not an object".into()));
    };
    let ty = sd.get("type").and_then(Value::as_str).unwrap_or_default();
    let kind = match ty {
        "function" => {
            known(sd, &["type", "name", "input", "output", "mcp_data"], "a `function` span", &sd_at)?;
            let mut c = json!({});
            if let Some(name) = sd.get("name") {
                c["name"] = name.clone();
            }
            if let Some(input) = sd.get("input") {
                c["arguments"] = input.clone();
            }
            let mut call = chat::decode_call(&c).map_err(|e| {
                let field = match e.pointer.as_str() {
                    "/arguments" => "/input".to_string(),
                    p => p.to_string(),
                };
                (format!("{sd_at}{field}"), e.message)
            })?;
            call.result = sd.get("output").filter(|v| !v.is_null()).cloned();
            call.error.clone_from(&error);
            Kind::Function(call)
        }
        "agent" => {
            known(sd, &["type", "name", "handoffs", "tools", "output_type"], "an `agent` span", &sd_at)?;
            let name = str_at(sd, "name", &sd_at)?.to_string();
            let tools = match sd.get("tools") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .enumerate()
                        .map(|(i, t)| {
                            t.as_str().map(str::to_string).ok_or_else(|| {
                                (format!("{sd_at}/tools/{i}"), format!("expected a tool name, found {}", kind(t)))
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                Some(other) => {
                    return Err((format!("{sd_at}/tools"), format!("expected an array of tool names, found {}", kind(other))))
                }
            };
            Kind::Agent {
                name,
                tools,
                handoffs: sd.get("handoffs").cloned().unwrap_or(Value::Null),
                output_type: sd.get("output_type").cloned().unwrap_or(Value::Null),
            }
        }
        "handoff" => {
            known(sd, &["type", "from_agent", "to_agent"], "a `handoff` span", &sd_at)?;
            Kind::Handoff {
                from: sd.get("from_agent").cloned().unwrap_or(Value::Null),
                to: sd.get("to_agent").cloned().unwrap_or(Value::Null),
            }
        }
        "guardrail" => {
            known(sd, &["type", "name", "triggered"], "a `guardrail` span", &sd_at)?;
            let triggered = match sd.get("triggered") {
                Some(Value::Bool(b)) => *b,
                other => {
                    return Err((
                        format!("{sd_at}/triggered"),
                        format!(
                            "expected a boolean, found {}: whether the guardrail stopped the run is not guessed",
                            other.map_or("nothing", kind)
                        ),
                    ))
                }
            };
            Kind::Guardrail {
                name: str_at(sd, "name", &sd_at)?.to_string(),
                triggered,
            }
        }
        "generation" => {
            known(
                sd,
                &["type", "input", "output", "model", "model_config", "usage"],
                "a `generation` span",
                &sd_at,
            )?;
            let list = |key: &str| -> Result<Option<Vec<Value>>, (String, String)> {
                match sd.get(key) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::Array(a)) => Ok(Some(a.clone())),
                    Some(other) => Err((
                        format!("{sd_at}/{key}"),
                        format!("expected an array of messages, found {}", kind(other)),
                    )),
                }
            };
            Kind::Generation {
                input: list("input")?,
                output: list("output")?,
                model: sd.get("model").cloned().unwrap_or(Value::Null),
            }
        }
        "response" => {
            known(sd, &["type", "response_id"], "a `response` span", &sd_at)?;
            Kind::Response {
                response_id: sd.get("response_id").cloned().unwrap_or(Value::Null),
            }
        }
        "custom" => {
            known(sd, &["type", "name", "data"], "a `custom` span", &sd_at)?;
            Kind::Custom {
                name: sd.get("name").cloned().unwrap_or(Value::Null),
            }
        }
        "mcp_tools" => {
            known(sd, &["type", "server", "result"], "an `mcp_tools` span", &sd_at)?;
            let tools = match sd.get("result") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect(),
                Some(other) => {
                    return Err((format!("{sd_at}/result"), format!("expected an array of tool names, found {}", kind(other))))
                }
            };
            Kind::McpTools {
                server: sd.get("server").cloned().unwrap_or(Value::Null),
                tools,
            }
        }
        other => {
            return Err((
                format!("{sd_at}/type"),
                format!(
                    "unknown span type `{}` (pactum reads function, agent, handoff, guardrail, generation, response, custom and mcp_tools): it may hold a call or text a check needs",
                    shown(other)
                ),
            ))
        }
    };
    Ok(Rec::Span(Box::new(SdkSpan {
        id,
        trace_id,
        parent,
        start,
        ended,
        error,
        kind,
        line,
    })))
}

/// Builds one pactum trace from the SDK traces of one group.
#[allow(clippy::too_many_lines)]
fn build(
    key: &str,
    by: &'static str,
    members: &[String],
    traces: &BTreeMap<String, (TraceRec, u64)>,
    spans: &BTreeMap<String, Vec<SdkSpan>>,
    file: &str,
    level_flag: Option<ObservabilityLevel>,
) -> Out {
    // SDK traces in the order of their first span.
    let mut order: Vec<(u64, &String, Vec<&SdkSpan>)> = members
        .iter()
        .filter_map(|m| {
            let mut ss: Vec<&SdkSpan> = spans.get(m)?.iter().collect();
            ss.sort_by(|a, b| (a.start, &a.id).cmp(&(b.start, &b.id)));
            Some((ss[0].start, m, ss))
        })
        .collect();
    order.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let line = members
        .iter()
        .filter_map(|m| {
            let t = traces.get(m).map(|(_, l)| *l);
            let s = spans.get(m).and_then(|ss| ss.iter().map(|s| s.line).min());
            t.into_iter().chain(s).min()
        })
        .min()
        .unwrap_or(1);
    if order.is_empty() {
        return Out::Skip {
            line,
            reason: format!(
                "line {line}: trace `{}` has a trace record but no span in this file: nothing to grade",
                shown(key)
            ),
        };
    }
    let mut turns = Vec::new();
    let mut agents = Vec::new();
    let mut handoffs = Vec::new();
    let mut guardrails = Vec::new();
    let mut other_spans = Vec::new();
    let mut offered: BTreeSet<String> = BTreeSet::new();
    let mut every_agent_lists_tools = true;
    let mut hosted: Option<String> = None;
    let mut error: Option<String> = None;
    let mut incomplete: Option<String> = None;
    let (mut steps, mut captured, mut functions) = (0u64, 0u64, 0u64);
    let mut agent_count = 0u64;
    let mut response_ids = Vec::new();
    let mut models = BTreeSet::new();
    let mut workflows = Vec::new();
    for (_, tid, ss) in &order {
        if let Some((t, _)) = traces.get(*tid) {
            workflows.push(
                json!({"trace_id": tid, "workflow_name": t.workflow_name, "metadata": t.metadata}),
            );
        } else {
            workflows.push(json!({"trace_id": tid, "workflow_name": null, "metadata": null, "trace_record": false}));
        }
        let ids: HashMap<&str, &SdkSpan> = ss.iter().map(|s| (s.id.as_str(), *s)).collect();
        if ids.len() != ss.len() {
            // A batch sent twice would count its calls twice.
            let mut seen = BTreeSet::new();
            let dup = ss.iter().find(|s| !seen.insert(s.id.as_str()));
            if let Some(d) = dup {
                return Out::Error(RecordError::new(
                    file,
                    d.line,
                    None,
                    format!(
                        "span `{}` of trace `{}` is recorded twice: its calls would count twice",
                        shown(&d.id),
                        shown(tid)
                    ),
                ));
            }
        }
        if !ss.iter().any(|s| s.parent.is_none()) {
            incomplete.get_or_insert_with(|| {
                format!(
                    "SDK trace `{}` has no root span in the export: part of it was not exported",
                    shown(tid)
                )
            });
        }
        let mut turn = Turn::default();
        let mut texts: Vec<String> = Vec::new();
        let mut unobserved = false;
        let mut any_step = false;
        let mut joined: Vec<bool> = Vec::new();
        for s in ss {
            if let Some(p) = &s.parent {
                if !ids.contains_key(p.as_str()) {
                    incomplete.get_or_insert_with(|| {
                        format!(
                            "span `{}` names a parent span `{}` the export does not hold: part of the trace was not exported",
                            shown(&s.id),
                            shown(p)
                        )
                    });
                }
            }
            if !s.ended {
                incomplete.get_or_insert_with(|| format!("span `{}` has not ended", shown(&s.id)));
            }
            if let (Some(e), false) = (&s.error, matches!(s.kind, Kind::Function(_))) {
                error.get_or_insert_with(|| {
                    format!("span `{}` ended in an error: {}", shown(&s.id), shown(e))
                });
            }
            let agent_of = |s: &SdkSpan| -> Value {
                let mut p = s.parent.as_deref();
                let mut steps = 0;
                while let Some(id) = p {
                    let Some(sp) = ids.get(id) else { break };
                    if let Kind::Agent { name, .. } = &sp.kind {
                        return json!(name);
                    }
                    p = sp.parent.as_deref();
                    steps += 1;
                    if steps > ss.len() {
                        break;
                    }
                }
                Value::Null
            };
            match &s.kind {
                Kind::Function(call) => {
                    functions += 1;
                    let hit = turn
                        .tool_calls
                        .iter()
                        .enumerate()
                        .position(|(i, c)| !joined[i] && c.name == call.name);
                    match hit {
                        Some(i) => {
                            joined[i] = true;
                            let existing = &mut turn.tool_calls[i];
                            if existing.arguments.is_null() {
                                existing.arguments = call.arguments.clone();
                            } else if existing.readable_arguments().is_some()
                                && call.readable_arguments().is_some()
                                && existing.arguments != call.arguments
                            {
                                error.get_or_insert_with(|| format!(
                                    "tool call `{}`: the arguments in the model's output differ from those of its function span `{}`",
                                    shown(&call.name),
                                    shown(&s.id)
                                ));
                            }
                            existing.result.clone_from(&call.result);
                            existing.error.clone_from(&call.error);
                        }
                        None => {
                            turn.tool_calls.push(call.clone());
                            joined.push(true);
                        }
                    }
                }
                Kind::Generation {
                    input,
                    output,
                    model,
                } => {
                    if let Value::String(m) = model {
                        models.insert(m.clone());
                    }
                    steps += 1;
                    any_step = true;
                    if turn.input.is_empty() {
                        if let Some(input) = input {
                            turn.input = trailing_input(input);
                        }
                    }
                    match output {
                        None => unobserved = true,
                        Some(msgs) => {
                            captured += 1;
                            let mut step_texts = Vec::new();
                            for (i, m) in msgs.iter().enumerate() {
                                let at = format!("/span_data/output/{i}");
                                let Some(o) = m.as_object() else {
                                    return Out::Error(RecordError::new(
                                        file,
                                        s.line,
                                        Some(at),
                                        format!(
                                            "span `{}`: expected a message object, found {}",
                                            shown(&s.id),
                                            kind(m)
                                        ),
                                    ));
                                };
                                let tools = match chat::message_tools(o) {
                                    Ok(t) => t,
                                    Err(e) => {
                                        return Out::Error(RecordError::new(
                                            file,
                                            s.line,
                                            Some(format!("{at}{}", e.pointer)),
                                            format!("span `{}`: {}", shown(&s.id), e.message),
                                        ))
                                    }
                                };
                                match chat::content_text(o.get("content")) {
                                    Ok(Some(t)) => step_texts.push(t),
                                    Ok(None) => {}
                                    Err(msg) => {
                                        return Out::Error(RecordError::new(
                                            file,
                                            s.line,
                                            Some(format!("{at}/content")),
                                            format!("span `{}`: {msg}", shown(&s.id)),
                                        ))
                                    }
                                }
                                if let Some(Value::String(r)) = o.get("refusal") {
                                    step_texts.push(r.clone());
                                }
                                for c in tools.calls {
                                    turn.tool_calls.push(c);
                                    joined.push(false);
                                }
                            }
                            texts.push(chat::join_texts(step_texts).unwrap_or_default());
                        }
                    }
                }
                Kind::Response { response_id } => {
                    response_ids.push(response_id.clone());
                    steps += 1;
                    any_step = true;
                    unobserved = true;
                }
                Kind::Agent {
                    name,
                    tools,
                    handoffs: h,
                    output_type,
                } => {
                    agent_count += 1;
                    match tools {
                        Some(t) => {
                            for n in t {
                                if HOSTED_TOOLS.contains(&n.as_str()) {
                                    hosted.get_or_insert_with(|| n.clone());
                                }
                                offered.insert(n.clone());
                            }
                        }
                        None => every_agent_lists_tools = false,
                    }
                    agents.push(json!({"name": name, "span_id": s.id, "parent": agent_of(s), "tools": tools, "handoffs": h, "output_type": output_type}));
                }
                Kind::Handoff { from, to } => {
                    handoffs.push(json!({"from_agent": from, "to_agent": to, "span_id": s.id}));
                }
                Kind::Guardrail { name, triggered } => {
                    guardrails.push(json!({"name": name, "triggered": triggered, "agent": agent_of(s), "span_id": s.id}));
                    if *triggered {
                        incomplete.get_or_insert_with(|| format!(
                            "guardrail `{}` tripped: the SDK stopped the run there, before the target finished",
                            shown(name)
                        ));
                    }
                }
                Kind::Custom { name } => {
                    other_spans.push(json!({"type": "custom", "name": name, "span_id": s.id}))
                }
                Kind::McpTools { server, tools } => {
                    offered.extend(tools.iter().cloned());
                    other_spans.push(json!({"type": "mcp_tools", "server": server, "tools": tools, "span_id": s.id}));
                }
            }
        }
        turn.response = if unobserved || !any_step {
            None
        } else {
            chat::join_texts(texts)
        };
        turns.push(turn);
    }
    let response_observed = steps > 0 && captured == steps;
    let tools_from_agents =
        agent_count > 0 && every_agent_lists_tools && hosted.is_none() && incomplete.is_none();
    let tools_observed = response_observed || tools_from_agents;
    let data_level = if tools_observed {
        ObservabilityLevel::ToolCalls
    } else {
        ObservabilityLevel::ResponseOnly
    };
    let mut metadata = Map::new();
    metadata.insert("format".into(), json!("openai-agents"));
    metadata.insert("grouped_by".into(), json!(by));
    metadata.insert("sdk_traces".into(), Value::Array(workflows));
    metadata.insert(
        "observed".into(),
        json!({"response": response_observed, "tool_calls": tools_observed, "side_effects": false}),
    );
    metadata.insert("model_steps".into(), json!(steps));
    metadata.insert("model_steps_with_content".into(), json!(captured));
    metadata.insert("function_spans".into(), json!(functions));
    if !tools_observed {
        let why = if let Some(h) = &hosted {
            format!("an agent offers the hosted tool `{}`, whose calls leave no function span, and the model's output is not exported", shown(h))
        } else if agent_count == 0 {
            "no agent span says which tools were offered, and the model's output is not exported"
                .to_string()
        } else if let Some(why) = &incomplete {
            format!("the recording is incomplete ({why})")
        } else {
            "an agent span does not list its tools, and the model's output is not exported"
                .to_string()
        };
        metadata.insert("tool_calls_unobserved".into(), json!(why));
    }
    if !response_ids.is_empty() {
        // Where the text is: the Responses API ids, for a user who has
        // the responses themselves.
        metadata.insert("response_ids".into(), Value::Array(response_ids));
    }
    if !models.is_empty() {
        metadata.insert("models".into(), json!(models));
    }
    if !agents.is_empty() {
        metadata.insert("agents".into(), Value::Array(agents));
    }
    if !handoffs.is_empty() {
        metadata.insert("handoffs".into(), Value::Array(handoffs));
    }
    if !guardrails.is_empty() {
        metadata.insert("guardrails".into(), Value::Array(guardrails));
    }
    if !other_spans.is_empty() {
        metadata.insert("other_spans".into(), Value::Array(other_spans));
    }
    let observability = match level_flag {
        None => data_level,
        Some(declared) => {
            metadata.insert("observability_declared".into(), json!(declared.as_str()));
            if declared > data_level {
                metadata.insert(
                    "observability_warning".into(),
                    json!(format!(
                        "declared {}, but the export shows {}: {}",
                        declared.as_str(),
                        data_level.as_str(),
                        if tools_observed {
                            "an Agents SDK export reports no side effects"
                        } else {
                            "the export does not show every tool call the model made"
                        }
                    )),
                );
            }
            declared.min(data_level)
        }
    };
    Out::Trace(Box::new(Trace {
        id: key.to_string(),
        observability,
        turns,
        metadata: Value::Object(metadata),
        error,
        incomplete,
        ended_by: None,
        source: Some(SourceRef {
            file: file.to_string(),
            line,
        }),
        offered_tools: (tools_from_agents && !offered.is_empty()).then_some(offered),
    }))
}

/// The run of user and system messages a generation's input ends with.
fn trailing_input(msgs: &[Value]) -> Vec<Message> {
    let role = |m: &Value| m.get("role").and_then(Value::as_str).map(str::to_string);
    let start = msgs
        .iter()
        .rposition(|m| !matches!(role(m).as_deref(), Some("user" | "system" | "developer")))
        .map_or(0, |i| i + 1);
    msgs[start..]
        .iter()
        .map(|m| Message {
            role: if role(m).as_deref() == Some("user") {
                Role::User
            } else {
                Role::System
            },
            content: chat::content_text(m.get("content"))
                .ok()
                .flatten()
                .unwrap_or_default(),
        })
        .collect()
}
