//! Spans → pactum traces (`docs/traces.md`, "OpenTelemetry: spans to
//! turns").
//!
//! * **Grouping.** Each OpenTelemetry trace takes the one
//!   `gen_ai.conversation.id` its spans carry, else the one `session.id`,
//!   else its trace id; traces with the same key are one pactum trace (its
//!   id; metadata `grouped_by`). Spans of one trace naming two
//!   conversations are an error.
//! * **LLM calls.** An LLM span with another LLM span inside it is the same
//!   call seen by two instrumentation layers (an agent framework around a
//!   client library): only the innermost counts. Where it did not capture
//!   the input or the output, the nearest layer around it that wraps this
//!   one call alone and captured them gives them. Two layers that both
//!   captured the output must agree, else the trace is refused.
//! * **Turns.** LLM calls in start order; a call starts a turn when it is
//!   the first, when it belongs to another OpenTelemetry trace than the
//!   previous call, or when its captured input ends with a user or system
//!   message that is not only tool results (a call whose input ends with
//!   tool results continues the agent loop). The turn's input is that trailing run of user and system
//!   messages.
//! * **Responses.** Each call's output text (an empty text when it only
//!   called tools) joined with a blank line; `None` when any call of the
//!   turn had no captured output: what it said is unknown.
//! * **Tool calls.** The calls of each output, then each tool span joined
//!   to the call it ran: by trimmed id, else (no id on one side) by name
//!   and order; a tool span that ran no recorded call is a call of its own.
//!   Its result and error go to the call; its arguments fill arguments the
//!   output did not record, and arguments that differ are an error of the
//!   trace. Calls and results replayed in a later call's input must be
//!   calls the trace shows, else the trace is `incomplete`; so is a trace
//!   with a span that has not ended, that lost attributes or events, or
//!   (OTLP and Jaeger files, and live) that names a parent the spans do not
//!   include.
//! * **Observability** (metadata `observed`): the response channel when
//!   every call's output was captured; tool calls when the trace has tool
//!   spans or every call's output was captured. Side effects never.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use pactum_core::chat::{self, Answers, ToolResult};
use pactum_core::trace::{Message, ObservabilityLevel, Role, SourceRef, ToolCall, Trace, Turn};
use serde_json::{json, Value};

use super::genai::{self, Kind, Msg, Who};
use super::span::Span;
use crate::convert::shown;
use crate::error::RecordError;

/// The spans of one OpenTelemetry trace, and why it cannot be read.
#[derive(Debug, Default)]
pub(crate) struct OtelTrace {
    pub spans: Vec<Span>,
    pub errors: Vec<RecordError>,
    pub over_cap: bool,
}

/// One output of [`build`].
pub(crate) enum Out {
    Trace(Box<Trace>),
    Skip { line: u64, reason: String },
    Error(RecordError),
}

/// The one value of `key` the spans carry; an error for two.
fn one_value(spans: &[Span], key: &str) -> Result<Option<String>, String> {
    let vals: BTreeSet<String> = spans
        .iter()
        .filter_map(|s| s.attrs.get(key))
        .filter_map(|v| match v {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .collect();
    let mut it = vals.into_iter();
    match (it.next(), it.next()) {
        (Some(a), Some(b)) => Err(format!(
            "its spans name two values of `{key}` (`{}`, `{}`): which conversation is it?",
            shown(&a),
            shown(&b)
        )),
        (a, _) => Ok(a),
    }
}

/// Builds every trace of a file, in the order of their first span.
/// `parents_held`: the file is an export of whole traces (OTLP, Jaeger), so
/// a span naming a parent it does not hold means the trace was cut off.
pub(crate) fn build(
    by_trace: BTreeMap<String, OtelTrace>,
    format: &str,
    file: &str,
    parents_held: bool,
    level_flag: Option<ObservabilityLevel>,
) -> Vec<Out> {
    let mut groups: BTreeMap<(String, &'static str), Vec<OtelTrace>> = BTreeMap::new();
    let mut outs: Vec<(u64, String, Out)> = Vec::new();
    for (tid, mut t) in by_trace {
        let key = one_value(&t.spans, "gen_ai.conversation.id").and_then(|c| match c {
            Some(c) => Ok(Some((c, "gen_ai.conversation.id"))),
            None => one_value(&t.spans, "session.id").map(|s| s.map(|s| (s, "session.id"))),
        });
        match key {
            Ok(Some(k)) => groups.entry(k).or_default().push(t),
            Ok(None) => groups.entry((tid, "trace_id")).or_default().push(t),
            Err(msg) => {
                let line = t.spans.iter().map(|s| s.line).min().unwrap_or(1);
                t.errors.push(RecordError::new(
                    file,
                    line,
                    None,
                    format!("trace `{}`: {msg}", shown(&tid)),
                ));
                groups.entry((tid, "trace_id")).or_default().push(t);
            }
        }
    }
    for ((key, by), members) in groups {
        let start = members
            .iter()
            .flat_map(|t| t.spans.iter().map(|s| s.start))
            .min()
            .unwrap_or(0);
        let errors: Vec<RecordError> = members
            .iter()
            .flat_map(|t| t.errors.iter().cloned())
            .collect();
        if !errors.is_empty() {
            for e in errors {
                outs.push((start, key.clone(), Out::Error(e)));
            }
            continue;
        }
        let out = one(&key, by, members, format, file, parents_held, level_flag);
        outs.push((start, key, out));
    }
    outs.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    outs.into_iter().map(|(_, _, o)| o).collect()
}

/// One OpenTelemetry trace received live, built alone (no grouping by
/// conversation: the pactum trace's id is the OpenTelemetry trace id).
pub(crate) fn one_live(trace_id: &str, t: OtelTrace, source: &str) -> Out {
    if let Some(e) = t.errors.first() {
        return Out::Error(e.clone());
    }
    one(trace_id, "trace_id", vec![t], "otlp", source, true, None)
}

struct Builder {
    turns: Vec<Turn>,
    texts: Vec<Vec<String>>,
    unobserved: Vec<bool>,
    /// Calls joined to a tool span already: (turn, index).
    joined: HashSet<(usize, usize)>,
    unshown: Option<String>,
    error: Option<String>,
}

impl Builder {
    fn new_turn(&mut self, input: Vec<Message>) {
        self.turns.push(Turn {
            input,
            ..Turn::default()
        });
        self.texts.push(Vec::new());
        self.unobserved.push(false);
    }

    fn cur(&mut self) -> usize {
        if self.turns.is_empty() {
            self.new_turn(Vec::new());
        }
        self.turns.len() - 1
    }

    fn all(&self) -> impl Iterator<Item = ((usize, usize), &ToolCall)> {
        self.turns.iter().enumerate().flat_map(|(t, turn)| {
            turn.tool_calls
                .iter()
                .enumerate()
                .map(move |(c, call)| ((t, c), call))
        })
    }

    fn find_id(&self, id: &str) -> Option<(usize, usize)> {
        self.all()
            .find(|(_, c)| c.id.as_deref() == Some(id))
            .map(|(k, _)| k)
    }

    fn call_mut(&mut self, (t, c): (usize, usize)) -> &mut ToolCall {
        &mut self.turns[t].tool_calls[c]
    }

    /// A result replayed in an input: attached to the call it answers when
    /// that call has none yet; one answering no call the trace shows marks
    /// the trace incomplete.
    fn replayed_result(&mut self, r: &ToolResult) {
        let Answers::Id(id) = &r.answers else { return };
        match self.find_id(id.trim()) {
            Some(k) => {
                let call = self.call_mut(k);
                if call.result.is_none() && call.error.is_none() {
                    call.result.clone_from(&r.result);
                    call.error.clone_from(&r.error);
                }
            }
            None => {
                self.unshown.get_or_insert_with(|| {
                    format!("an LLM call's input replays the result of a tool call (`{}`) no span of the trace shows", shown(id))
                });
            }
        }
    }
}

fn trimmed(mut c: ToolCall) -> ToolCall {
    if let Some(id) = &mut c.id {
        *id = id.trim().to_string();
    }
    c
}

fn one(
    key: &str,
    by: &'static str,
    members: Vec<OtelTrace>,
    format: &str,
    file: &str,
    parents_held: bool,
    level_flag: Option<ObservabilityLevel>,
) -> Out {
    let otel_ids: Vec<String> = members
        .iter()
        .filter_map(|t| t.spans.first().map(|s| s.trace_id.clone()))
        .collect();
    // Each OpenTelemetry trace's root span (the earliest span with no
    // parent), so verdicts can link back to it; `null` when it has none.
    let root_ids: Vec<Value> = members
        .iter()
        .filter(|t| !t.spans.is_empty())
        .map(|t| {
            t.spans
                .iter()
                .filter(|s| s.parent.is_none())
                .min_by(|a, b| (a.start, &a.span_id).cmp(&(b.start, &b.span_id)))
                .map_or(Value::Null, |s| Value::String(s.span_id.clone()))
        })
        .collect();
    let mut spans: Vec<Span> = members.into_iter().flat_map(|t| t.spans).collect();
    spans.sort_by(|a, b| {
        (a.start, &a.trace_id, &a.span_id).cmp(&(b.start, &b.trace_id, &b.span_id))
    });
    let line = spans.iter().map(|s| s.line).min().unwrap_or(1);
    let mut kinds = Vec::with_capacity(spans.len());
    for s in &spans {
        match genai::classify(s) {
            Ok(k) => kinds.push(k),
            Err((field, msg)) => {
                return Out::Error(RecordError::new(
                    file,
                    s.line,
                    Some(field),
                    format!(
                        "span `{}` (`{}`) of trace `{}`: {msg}",
                        s.span_id,
                        shown(&s.name),
                        shown(key)
                    ),
                ))
            }
        }
    }
    // LLM spans with an LLM span inside: the same call, seen twice.
    let index: HashMap<(&str, &str), usize> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| ((s.trace_id.as_str(), s.span_id.as_str()), i))
        .collect();
    let parent_of = |i: usize| -> Option<usize> {
        let s = &spans[i];
        s.parent
            .as_deref()
            .and_then(|p| index.get(&(s.trace_id.as_str(), p)).copied())
    };
    let mut wrapper = vec![false; spans.len()];
    for (i, k) in kinds.iter().enumerate() {
        if matches!(k, Kind::Llm(_)) {
            let mut p = parent_of(i);
            let mut steps = 0;
            while let Some(j) = p {
                if matches!(kinds[j], Kind::Llm(_)) {
                    wrapper[j] = true;
                }
                steps += 1;
                if steps > spans.len() {
                    break;
                }
                p = parent_of(j);
            }
        }
    }
    // A call's content may sit on one layer only: where the innermost span
    // did not capture it, the layer around it that holds this one call
    // (and no other) gives it, so captured content is never set aside.
    let mut leaves_under = vec![0usize; spans.len()];
    for i in 0..spans.len() {
        if matches!(kinds[i], Kind::Llm(_)) && !wrapper[i] {
            let mut p = parent_of(i);
            let mut steps = 0;
            while let Some(j) = p {
                if wrapper[j] {
                    leaves_under[j] += 1;
                }
                steps += 1;
                if steps > spans.len() {
                    break;
                }
                p = parent_of(j);
            }
        }
    }
    for i in 0..spans.len() {
        let Kind::Llm(leaf) = &kinds[i] else { continue };
        if wrapper[i] || (leaf.input.is_some() && leaf.output.is_some()) {
            continue;
        }
        let mut p = parent_of(i);
        let mut steps = 0;
        let mut fill = None;
        while let Some(j) = p {
            if let Kind::Llm(outer) = &kinds[j] {
                if leaves_under[j] != 1 {
                    break;
                }
                if outer.input.is_some() || outer.output.is_some() {
                    fill = Some(outer.clone());
                    break;
                }
            }
            steps += 1;
            if steps > spans.len() {
                break;
            }
            p = parent_of(j);
        }
        if let (Some(outer), Kind::Llm(leaf)) = (fill, &mut kinds[i]) {
            if leaf.input.is_none() {
                leaf.input = outer.input;
            }
            if leaf.output.is_none() {
                leaf.output = outer.output;
            }
        }
    }
    // Two layers that both captured a call's output are two places of it
    // and must agree, as two conventions on one span must: a call on the
    // outer layer (an LLM span, or an agent span's output messages) that
    // no span inside it shows would otherwise be set aside unread.
    for j in 0..spans.len() {
        if !wrapper[j] {
            continue;
        }
        if let Err(msg) = layers_agree(j, &kinds, &wrapper, leaves_under[j], &parent_of) {
            let s = &spans[j];
            return Out::Error(RecordError::new(
                file,
                s.line,
                Some("output messages".to_string()),
                format!(
                    "span `{}` (`{}`) of trace `{}`: {msg}: refused (two layers of one call must agree)",
                    s.span_id,
                    shown(&s.name),
                    shown(key)
                ),
            ));
        }
    }
    let mut b = Builder {
        turns: Vec::new(),
        texts: Vec::new(),
        unobserved: Vec::new(),
        joined: HashSet::new(),
        unshown: None,
        error: None,
    };
    let (mut llm_calls, mut captured, mut tool_spans) = (0u64, 0u64, 0u64);
    let mut agents = Vec::new();
    let mut last_trace: Option<&str> = None;
    let mut unended: Option<String> = None;
    // Whatever a span lost, or a parent the spans do not include, may have
    // been a call: the trace is incomplete (absences prove nothing), never
    // read as "captured, no call".
    let lost = spans.iter().find_map(|s| {
        s.attrs.get(super::span::LOST).and_then(Value::as_str).map(|why| {
            format!(
                "span `{}` (`{}`) lost {why}: the exporter dropped them, and they may have held a call",
                s.span_id,
                shown(&s.name)
            )
        })
    });
    // An exporter that stopped early lacks the outer spans (each is sent as
    // it ends, the root last); a span missing from the middle was not
    // exported either. What it ran cannot be seen: a parent the spans do
    // not include makes the trace incomplete. A remote parent (the caller
    // of a SERVER span, in another process) is not in this export. But
    // where the trace's own root is here, the trace was exported whole from
    // its start, and an LLM call or a tool execution (what is graded) whose
    // parent is missing lost it in the export, whatever its kind says; a
    // transport span (an HTTP server span a remote client called, as in a
    // Tempo export of several services) stays excused.
    let rooted: HashSet<&str> = spans
        .iter()
        .filter(|s| s.parent.is_none())
        .map(|s| s.trace_id.as_str())
        .collect();
    // One LLM, tool or agent span may enter the trace from a remote
    // caller (the agent behind a gateway); a second such entry, or one
    // beside the trace's own root, means spans between them were lost.
    let genai = |k: &Kind| matches!(k, Kind::Llm(_) | Kind::Tool(_) | Kind::Agent(_));
    let genai_orphans = spans
        .iter()
        .zip(&kinds)
        .filter(|(s, k)| {
            genai(k)
                && s.parent
                    .as_deref()
                    .is_some_and(|p| !index.contains_key(&(s.trace_id.as_str(), p)))
        })
        .count();
    let orphan = if parents_held {
        spans.iter().zip(&kinds).find_map(|(s, k)| {
            let excused = s.remote_parent
                && !(genai(k)
                    && (rooted.contains(s.trace_id.as_str()) || genai_orphans > 1));
            let p = s.parent.as_deref().filter(|_| !excused)?;
            (!index.contains_key(&(s.trace_id.as_str(), p))).then(|| {
                format!(
                    "span `{}` (`{}`) names a parent span `{}` the trace's spans do not include: the trace is cut off (an exporter sends each span as it ends, so the spans around it, and what they ran, are missing)",
                    s.span_id,
                    shown(&s.name),
                    shown(p)
                )
            })
        })
    } else {
        None
    };
    for (i, (s, k)) in spans.iter().zip(&kinds).enumerate() {
        if s.end.is_none() && !matches!(k, Kind::Other) {
            unended.get_or_insert_with(|| {
                format!("span `{}` (`{}`) has not ended", s.span_id, shown(&s.name))
            });
        }
        match k {
            Kind::Other => {}
            Kind::Agent(name) => {
                if let Some(e) = &s.error {
                    b.error.get_or_insert_with(|| {
                        format!("agent span `{}` ended in error: {}", shown(name), shown(e))
                    });
                }
                let mut p = parent_of(i);
                let mut parent_agent = Value::Null;
                while let Some(j) = p {
                    if let Kind::Agent(n) = &kinds[j] {
                        parent_agent = Value::String(n.clone());
                        break;
                    }
                    p = parent_of(j);
                }
                agents.push(json!({"name": name, "span_id": s.span_id, "parent": parent_agent}));
            }
            Kind::Llm(_) if wrapper[i] => {}
            Kind::Llm(llm) => {
                llm_calls += 1;
                if let Some(e) = &s.error {
                    b.error.get_or_insert_with(|| {
                        format!(
                            "LLM call span `{}` (`{}`) ended in error: {}",
                            s.span_id,
                            shown(&s.name),
                            shown(e)
                        )
                    });
                }
                let ends_on_input = llm
                    .input
                    .as_ref()
                    .and_then(|m| m.last())
                    // A user message that only carries tool results (GenAI
                    // `tool_call_response` parts, Anthropic `tool_result`
                    // blocks) continues the agent loop: it is no new input.
                    .is_some_and(|m| {
                        matches!(m.who, Who::User | Who::System)
                            && (m.text.is_some() || m.results.is_empty())
                    });
                if b.turns.is_empty() || last_trace != Some(s.trace_id.as_str()) || ends_on_input {
                    let input = llm.input.as_deref().map(trailing_input).unwrap_or_default();
                    b.new_turn(input);
                }
                last_trace = Some(s.trace_id.as_str());
                if let Some(input) = &llm.input {
                    for m in input {
                        for c in &m.calls {
                            if let Some(id) = &c.id {
                                if b.find_id(id.trim()).is_none() {
                                    b.unshown.get_or_insert_with(|| {
                                        format!("an LLM call's input replays a tool call (`{}`, `{}`) no span of the trace shows", shown(&c.name), shown(id))
                                    });
                                }
                            }
                        }
                        for r in &m.results {
                            b.replayed_result(r);
                        }
                    }
                }
                let t = b.cur();
                match &llm.output {
                    None => b.unobserved[t] = true,
                    Some(out) => {
                        captured += 1;
                        let mut texts = Vec::new();
                        for m in out {
                            if m.who != Who::Assistant && !(m.calls.is_empty() && m.text.is_none())
                            {
                                b.error.get_or_insert_with(|| format!("LLM call span `{}`: an output message that is not the assistant's", s.span_id));
                            }
                            if let Some(x) = &m.text {
                                texts.push(x.clone());
                            }
                            for c in &m.calls {
                                b.turns[t].tool_calls.push(trimmed(c.clone()));
                            }
                            for r in &m.results {
                                b.replayed_result(r);
                            }
                        }
                        b.texts[t].push(chat::join_texts(texts).unwrap_or_default());
                    }
                }
            }
            Kind::Tool(call) => {
                tool_spans += 1;
                let call = trimmed(call.clone());
                let free = |k: &(usize, usize), c: &ToolCall, b: &Builder| {
                    !b.joined.contains(k) && c.name == call.name
                };
                let target = match &call.id {
                    Some(id) => b
                        .all()
                        .find(|(k, c)| {
                            !b.joined.contains(k) && c.id.as_deref() == Some(id.as_str())
                        })
                        .or_else(|| b.all().find(|(k, c)| c.id.is_none() && free(k, c, &b)))
                        .map(|(k, _)| k),
                    None => b.all().find(|(k, c)| free(k, c, &b)).map(|(k, _)| k),
                };
                match target {
                    Some(k) => {
                        b.joined.insert(k);
                        let mut mismatch = None;
                        let existing = b.call_mut(k);
                        if existing.name != call.name {
                            // One id, two tools: which one ran cannot be told,
                            // and keeping either could hide the other.
                            mismatch = Some(format!(
                                "tool call id `{}`: the model's output names the tool `{}` and its tool span `{}` names `{}`",
                                shown(call.id.as_deref().unwrap_or_default()),
                                shown(&existing.name),
                                s.span_id,
                                shown(&call.name)
                            ));
                        }
                        if existing.arguments.is_null() {
                            existing.arguments = call.arguments.clone();
                        } else if existing.readable_arguments().is_some()
                            && call.readable_arguments().is_some()
                            && existing.arguments != call.arguments
                        {
                            mismatch = Some(format!(
                                "tool call `{}`: the arguments in the model's output differ from those of its tool span `{}`",
                                shown(&existing.name),
                                s.span_id
                            ));
                        }
                        if existing.id.is_none() {
                            existing.id.clone_from(&call.id);
                        }
                        if call.result.is_some() {
                            existing.result.clone_from(&call.result);
                        }
                        if call.error.is_some() {
                            existing.error.clone_from(&call.error);
                        }
                        if let Some(m) = mismatch {
                            b.error.get_or_insert(m);
                        }
                    }
                    None => {
                        let t = b.cur();
                        b.turns[t].tool_calls.push(call);
                        let c = b.turns[t].tool_calls.len() - 1;
                        b.joined.insert((t, c));
                    }
                }
            }
        }
    }
    if llm_calls == 0 && tool_spans == 0 {
        // Something of an LLM convention ran and pactum reads none of it:
        // skipping would let the run show green over calls nobody saw.
        if let Some((s, marker)) = spans
            .iter()
            .find_map(|s| genai::genai_marker(s).map(|k| (s, k)))
        {
            return Out::Error(RecordError::new(
                file,
                s.line,
                Some(marker.to_string()),
                format!(
                    "trace `{}` has no LLM or tool span pactum reads, yet span `{}` (`{}`) carries `{}`: refused, not skipped (what it ran would go unseen)",
                    shown(key),
                    s.span_id,
                    shown(&s.name),
                    shown(marker)
                ),
            ));
        }
        return Out::Skip {
            line,
            reason: format!(
                "line {line}: trace `{}` has no LLM or tool span (GenAI or OpenInference conventions): nothing to grade",
                shown(key)
            ),
        };
    }
    for (t, turn) in b.turns.iter_mut().enumerate() {
        let texts = std::mem::take(&mut b.texts[t]);
        turn.response = if b.unobserved[t] {
            None
        } else {
            chat::join_texts(texts)
        };
    }
    let response_observed = llm_calls > 0 && captured == llm_calls;
    let tools_observed = tool_spans > 0 || response_observed;
    let data_level = if tools_observed {
        ObservabilityLevel::ToolCalls
    } else {
        ObservabilityLevel::ResponseOnly
    };
    let mut metadata = serde_json::Map::new();
    metadata.insert("format".into(), json!(format));
    metadata.insert("grouped_by".into(), json!(by));
    metadata.insert("otel_trace_ids".into(), json!(otel_ids));
    metadata.insert("otel_root_span_ids".into(), Value::Array(root_ids));
    metadata.insert(
        "observed".into(),
        json!({"response": response_observed, "tool_calls": tools_observed, "side_effects": false}),
    );
    metadata.insert("llm_calls".into(), json!(llm_calls));
    metadata.insert("llm_calls_with_content".into(), json!(captured));
    metadata.insert("tool_spans".into(), json!(tool_spans));
    if !agents.is_empty() {
        metadata.insert("agents".into(), Value::Array(agents));
    }
    let observability = match level_flag {
        None => data_level,
        Some(declared) => {
            metadata.insert("observability_declared".into(), json!(declared.as_str()));
            if declared > data_level {
                metadata.insert(
                    "observability_warning".into(),
                    json!(format!(
                        "declared {}, but the spans show {}: {}",
                        declared.as_str(),
                        data_level.as_str(),
                        if tools_observed {
                            "no side effects are reported by OpenTelemetry spans"
                        } else {
                            "no tool span and no captured LLM output shows the tool calls"
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
        turns: b.turns,
        metadata: Value::Object(metadata),
        error: b.error,
        incomplete: {
            let why: Vec<String> = [b.unshown, lost, orphan, unended]
                .into_iter()
                .flatten()
                .collect();
            (!why.is_empty()).then(|| why.join("; "))
        },
        source: Some(SourceRef {
            file: file.to_string(),
            line,
        }),
        offered_tools: None,
        // A trace ends when its spans do; no marker is read from spans.
        ended_by: None,
    }))
}

/// Whether span `j` (an LLM span with LLM spans inside it) agrees with
/// what is inside it. Its output's calls must each be a distinct call of
/// an LLM span or a tool span inside it (same name; same arguments where
/// both are readable). When it wraps one call only and both captured the
/// output, the two outputs must hold the same calls in the same order and
/// the same text.
fn layers_agree(
    j: usize,
    kinds: &[Kind],
    wrapper: &[bool],
    leaves: usize,
    parent_of: &dyn Fn(usize) -> Option<usize>,
) -> Result<(), String> {
    let Kind::Llm(outer) = &kinds[j] else {
        return Ok(());
    };
    let Some(out) = &outer.output else {
        return Ok(());
    };
    let under = |i: usize| {
        let mut p = parent_of(i);
        let mut steps = 0;
        while let Some(k) = p {
            if k == j {
                return true;
            }
            steps += 1;
            if steps > kinds.len() {
                return false;
            }
            p = parent_of(k);
        }
        false
    };
    let mut inside: Vec<&ToolCall> = Vec::new();
    let mut leaf_out: Option<&Vec<Msg>> = None;
    for (i, k) in kinds.iter().enumerate() {
        if i == j || !under(i) {
            continue;
        }
        match k {
            Kind::Llm(l) if !wrapper[i] => {
                if let Some(o) = &l.output {
                    inside.extend(o.iter().flat_map(|m| m.calls.iter()));
                    leaf_out = Some(o);
                }
            }
            Kind::Tool(c) => inside.push(c),
            _ => {}
        }
    }
    let same = |a: &ToolCall, b: &ToolCall| {
        a.name == b.name
            && (a.readable_arguments().is_none()
                || b.readable_arguments().is_none()
                || a.arguments == b.arguments)
    };
    let mut used = vec![false; inside.len()];
    for c in out.iter().flat_map(|m| m.calls.iter()) {
        match (0..inside.len()).find(|&k| !used[k] && same(c, inside[k])) {
            Some(k) => used[k] = true,
            None => {
                return Err(format!(
                    "its output records a call of `{}` that no span inside it shows",
                    shown(&c.name)
                ))
            }
        }
    }
    if let (1, Some(inner)) = (leaves, leaf_out) {
        let names = |o: &[Msg]| -> Vec<String> {
            o.iter()
                .flat_map(|m| m.calls.iter().map(|c| c.name.clone()))
                .collect()
        };
        let text = |o: &[Msg]| -> String {
            chat::join_texts(o.iter().filter_map(|m| m.text.clone()).collect())
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        if names(out) != names(inner) {
            return Err(format!(
                "its output records the calls [{}] and the LLM span inside it [{}]",
                names(out)
                    .iter()
                    .map(|n| shown(n))
                    .collect::<Vec<_>>()
                    .join(", "),
                names(inner)
                    .iter()
                    .map(|n| shown(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let (a, b) = (text(out), text(inner));
        if !a.is_empty() && !b.is_empty() && a != b {
            return Err("its output text differs from that of the LLM span inside it".into());
        }
    }
    Ok(())
}

/// The run of user and system messages an input ends with.
fn trailing_input(msgs: &[Msg]) -> Vec<Message> {
    let start = msgs
        .iter()
        .rposition(|m| !matches!(m.who, Who::User | Who::System))
        .map_or(0, |i| i + 1);
    msgs[start..]
        .iter()
        .map(|m| Message {
            role: if m.who == Who::User {
                Role::User
            } else {
                Role::System
            },
            content: m.text.clone().unwrap_or_default(),
        })
        .collect()
}
