//! LangSmith run trees → spans, read by the OpenTelemetry builder
//! (`docs/traces.md`, "LangSmith").
//!
//! A record is `{post: [run], patch: [run]}` (the create and the update a
//! client sends), one run, or a run with nested `child_runs` (a nested run
//! without `parent_run_id` or `trace_id` takes the enclosing run's). A
//! patch is joined to its create by `id`, else by `dotted_order`; its
//! fields win. A patch that matches no create is read alone. Each run is a
//! span:
//!
//! * `run_type: llm`: an LLM call; its input is `inputs.messages` (OpenAI
//!   chat dicts or LangChain messages), its output `outputs` (a chat
//!   completion's one choice, or `outputs.messages`, or LangChain's one
//!   generation; a JSON string is decoded; several choices are an error).
//!   Missing: not captured (the response is unobserved, never "");
//! * `run_type: tool`: a tool execution named `name`: arguments `inputs`
//!   (its `input` when that is the only key), result `outputs` (its
//!   `output` when that is the only key), id `inputs.tool_call_id` or
//!   `extra.metadata.tool_call_id` when recorded (else joined by name and
//!   order);
//! * `chain`, `retriever`, `prompt`, `parser`, `embedding`: structure
//!   only. Any other run type is an error.
//!
//! A run's `error` (a non-empty string) is its span's error: an errored
//! tool run is an errored call, still made. Runs are grouped by
//! `trace_id` (else the root run's id): one trace each. A run not ended,
//! or whose parent the file does not hold, cuts its trace off; a parent in
//! another trace is an error of both ([`notes`]).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::convert::{kind, shown, Note, Notes};
use crate::error::RecordError;
use crate::messages::langchain;
use crate::otel::span::{err, id_str, rfc3339_utc, Found, Span};
use crate::ImportError;

/// The span attributes pactum itself sets for an LLM run's messages (any
/// shape the chat decoder reads); never read from an OpenTelemetry file.
pub(crate) const CHAT_INPUT: &str = "pactum.chat.input";
/// See [`CHAT_INPUT`].
pub(crate) const CHAT_OUTPUT: &str = "pactum.chat.output";

const RUN_TYPES: [&str; 7] = [
    "llm",
    "tool",
    "chain",
    "retriever",
    "prompt",
    "parser",
    "embedding",
];

/// Whether a record is a LangSmith run tree or run.
pub(crate) fn sniff(v: &Value) -> bool {
    let Some(m) = v.as_object() else {
        return false;
    };
    if m.get("run_type").is_some_and(Value::is_string) {
        return true;
    }
    let runs = |k: &str| match m.get(k) {
        Some(Value::Array(a)) => {
            !a.is_empty()
                && a.iter()
                    .all(|r| r.get("run_type").is_some() || r.get("dotted_order").is_some())
        }
        _ => false,
    };
    (m.contains_key("post") || m.contains_key("patch"))
        && (runs("post") || runs("patch"))
        && m.keys().all(|k| k == "post" || k == "patch")
}

/// A time: epoch milliseconds (a number) or an RFC 3339 UTC string
/// (LangSmith writes both); nanoseconds.
fn time(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.is_finite() && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .and_then(|ms| ms.checked_mul(1_000_000)),
        Value::String(s) => rfc3339_utc(s).or_else(|| rfc3339_utc(&format!("{s}Z"))),
        _ => None,
    }
}

/// A value that may be JSON text.
fn decoded(v: &Value, at: &str) -> Result<Value, (String, String)> {
    match v {
        Value::String(s) if s.trim_start().starts_with(['{', '[']) => {
            crate::messages::json_body(s, at)
        }
        other => Ok(other.clone()),
    }
}

/// Flattens runs and their `child_runs`, with the pointer of each. A
/// nested run without `parent_run_id` or `trace_id` takes the run it is
/// nested in as its parent, and that run's trace; one naming another
/// parent is an error (which is it?).
fn flatten(
    runs: &[Value],
    at: &str,
    enclosing: Option<(&str, &str)>,
    out: &mut Vec<(String, Map<String, Value>)>,
) -> Result<(), (String, String)> {
    for (i, r) in runs.iter().enumerate() {
        let rat = format!("{at}/{i}");
        let Some(m) = r.as_object() else {
            return Err((rat, format!("expected a run object, found {}", kind(r))));
        };
        let mut m = m.clone();
        if let Some((parent, trace)) = enclosing {
            match id_str(m.get("parent_run_id")) {
                None => {
                    m.insert("parent_run_id".into(), json!(parent));
                }
                Some(p) if p != parent => {
                    return Err((
                        format!("{rat}/parent_run_id"),
                        format!(
                            "a run nested in run `{}` names another parent run, `{}`: which one it ran in is not recorded consistently",
                            shown(parent),
                            shown(&p)
                        ),
                    ))
                }
                Some(_) => {}
            }
            if id_str(m.get("trace_id")).is_none() {
                m.insert("trace_id".into(), json!(trace));
            }
        }
        if let Some(children) = m.remove("child_runs") {
            let ids = run_ids(&m);
            match children {
                Value::Array(c) => flatten(
                    &c,
                    &format!("{rat}/child_runs"),
                    ids.as_ref().map(|(s, t)| (s.as_str(), t.as_str())),
                    out,
                )?,
                Value::Null => {}
                other => {
                    return Err((
                        format!("{rat}/child_runs"),
                        format!("expected an array, found {}", kind(&other)),
                    ))
                }
            }
        }
        out.push((rat, m));
    }
    Ok(())
}

/// A run's span id (`id`, else `dotted_order`) and trace id (`trace_id`,
/// else its own id).
fn run_ids(r: &Map<String, Value>) -> Option<(String, String)> {
    let id = id_str(r.get("id")).or_else(|| {
        r.get("dotted_order")
            .and_then(Value::as_str)
            .map(str::to_string)
    })?;
    let trace = id_str(r.get("trace_id")).unwrap_or_else(|| id.clone());
    Some((id, trace))
}

/// Runs, each with its JSON pointer in the record.
type Runs = Vec<(String, Map<String, Value>)>;

/// The runs of a record, patches joined to their creates.
fn runs(doc: &Value) -> Result<Runs, (String, String)> {
    let mut posts = Vec::new();
    let mut patches = Vec::new();
    if doc.get("run_type").is_some() {
        flatten(std::slice::from_ref(doc), "", None, &mut posts)?;
        // The record itself, not an array element.
        for (at, _) in &mut posts {
            *at = at.trim_start_matches("/0").to_string();
        }
    } else {
        for (key, out) in [("post", &mut posts), ("patch", &mut patches)] {
            match doc.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Array(a)) => flatten(a, &format!("/{key}"), None, out)?,
                Some(other) => {
                    return Err((
                        format!("/{key}"),
                        format!("expected an array of runs, found {}", kind(other)),
                    ))
                }
            }
        }
    }
    let key_of = |m: &Map<String, Value>| -> Option<String> {
        id_str(m.get("id")).or_else(|| {
            m.get("dotted_order")
                .and_then(Value::as_str)
                .map(|d| format!("dotted:{d}"))
        })
    };
    for (pat, patch) in patches {
        let by_id = id_str(patch.get("id"));
        let by_order = patch.get("dotted_order").and_then(Value::as_str);
        let target = posts.iter_mut().find(|(_, p)| match &by_id {
            Some(id) => id_str(p.get("id")).as_deref() == Some(id.as_str()),
            None => by_order.is_some() && p.get("dotted_order").and_then(Value::as_str) == by_order,
        });
        match target {
            Some((_, p)) => {
                for (k, v) in patch {
                    p.insert(k, v);
                }
            }
            None => {
                if key_of(&patch).is_none() {
                    return Err((
                        pat,
                        "a patch with neither `id` nor `dotted_order`: which run it updates is not recorded".into(),
                    ));
                }
                posts.push((pat, patch));
            }
        }
    }
    Ok(posts)
}

/// Why an output of `n` choices is refused.
fn several(n: usize) -> String {
    format!(
        "{n} choices: which one the application acted on is not recorded, and reading one would drop the others' calls"
    )
}

/// The one choice or generation an LLM run output (several are refused).
fn llm_output(out: &Value, at: &str) -> Result<Option<Value>, (String, String)> {
    let out = decoded(out, at)?;
    if out.is_null() {
        return Ok(None);
    }
    if let Some(Value::Array(choices)) = out.get("choices") {
        if choices.len() > 1 {
            return Err((format!("{at}/choices"), several(choices.len())));
        }
        return match choices.first().and_then(|c| c.get("message")) {
            Some(m) => Ok(Some(json!([m]))),
            None => Err((
                format!("{at}/choices/0/message"),
                "a chat completion without a message".into(),
            )),
        };
    }
    if let Some(Value::Array(msgs)) = out.get("messages") {
        return Ok(Some(Value::Array(msgs.clone())));
    }
    if let Some(Value::Array(gens)) = out.get("generations") {
        // One list of choices per prompt: an LLM run is one call.
        let n = match gens.as_slice() {
            [Value::Array(inner)] => inner.len(),
            other => other.len(),
        };
        if n > 1 {
            return Err((format!("{at}/generations"), several(n)));
        }
        let first = gens.first().and_then(|g| match g {
            Value::Array(inner) => inner.first(),
            other => Some(other),
        });
        return match first.and_then(|g| g.get("message")) {
            Some(m) => Ok(Some(json!([m]))),
            None => match first.and_then(|g| g.get("text")) {
                Some(Value::String(t)) => Ok(Some(json!([{"role": "assistant", "content": t}]))),
                _ => Err((
                    format!("{at}/generations"),
                    "a generation without `message` or `text`".into(),
                )),
            },
        };
    }
    if out.get("role").is_some() || out.get("type").is_some() || out.get("lc").is_some() {
        return Ok(Some(json!([out])));
    }
    Err((
        at.to_string(),
        "an LLM run output pactum cannot read (expected `choices`, `messages` or `generations`)"
            .into(),
    ))
}

/// `{input: x}` alone → x; anything else as is.
fn only(v: &Value, key: &str) -> Value {
    match v.as_object() {
        Some(m) if m.len() == 1 && m.contains_key(key) => m[key].clone(),
        _ => v.clone(),
    }
}

/// The spans of one LangSmith record.
pub(crate) fn spans(doc: &Value, line: u64) -> Found {
    let mut spans = Vec::new();
    let mut errors = Vec::new();
    let runs = match runs(doc) {
        Ok(r) => r,
        Err((field, message)) => {
            errors.push(err(None, field, message));
            return (spans, errors);
        }
    };
    for (at, r) in runs {
        let Some((span_id, trace_id)) = run_ids(&r) else {
            errors.push(err(None, format!("{at}/id"), "a run without `id`"));
            continue;
        };
        let tid = Some(trace_id.as_str());
        let Some(start) = time(r.get("start_time")) else {
            errors.push(err(
                tid,
                format!("{at}/start_time"),
                "missing, or neither epoch milliseconds nor a UTC RFC 3339 time",
            ));
            continue;
        };
        let run_type = r
            .get("run_type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !RUN_TYPES.contains(&run_type) {
            errors.push(err(
                tid,
                format!("{at}/run_type"),
                format!(
                    "unknown run type `{}` (pactum reads llm, tool, chain, retriever, prompt, parser and embedding)",
                    shown(run_type)
                ),
            ));
            continue;
        }
        let name = r
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let error = match r.get("error") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        let mut attrs = BTreeMap::new();
        let inputs = r.get("inputs").cloned().unwrap_or(Value::Null);
        let outputs = r.get("outputs").cloned().unwrap_or(Value::Null);
        match run_type {
            "llm" => {
                attrs.insert("gen_ai.operation.name".into(), json!("chat"));
                let input = match decoded(&inputs, &format!("{at}/inputs")) {
                    Ok(v) => v,
                    Err((f, m)) => {
                        errors.push(err(tid, f, m));
                        continue;
                    }
                };
                if let Some(msgs) = input.get("messages") {
                    match langchain::chat_list(msgs, &format!("{at}/inputs/messages")) {
                        Ok(list) => {
                            attrs.insert(CHAT_INPUT.into(), Value::Array(list));
                        }
                        Err((f, m)) => {
                            errors.push(err(tid, f, m));
                            continue;
                        }
                    }
                }
                match llm_output(&outputs, &format!("{at}/outputs")).and_then(|o| {
                    o.map(|o| langchain::chat_list(&o, &format!("{at}/outputs")))
                        .transpose()
                }) {
                    Ok(Some(list)) => {
                        let list = list
                            .into_iter()
                            .map(|mut m| {
                                if let Some(o) = m.as_object_mut() {
                                    o.entry("role").or_insert_with(|| json!("assistant"));
                                }
                                m
                            })
                            .collect();
                        attrs.insert(CHAT_OUTPUT.into(), Value::Array(list));
                    }
                    Ok(None) => {}
                    Err((f, m)) => {
                        errors.push(err(tid, f, m));
                        continue;
                    }
                }
            }
            "tool" => {
                attrs.insert("gen_ai.operation.name".into(), json!("execute_tool"));
                attrs.insert("gen_ai.tool.name".into(), json!(name));
                let call_id = inputs
                    .get("tool_call_id")
                    .or_else(|| {
                        r.get("extra")
                            .and_then(|e| e.pointer("/metadata/tool_call_id"))
                    })
                    .cloned();
                if let Some(cid) = call_id.filter(|c| !c.is_null()) {
                    attrs.insert("gen_ai.tool.call.id".into(), cid);
                }
                let mut args = inputs.clone();
                if let Some(o) = args.as_object_mut() {
                    // The call's id, not an argument.
                    o.remove("tool_call_id");
                }
                if !args.is_null() {
                    attrs.insert("gen_ai.tool.call.arguments".into(), only(&args, "input"));
                }
                if !outputs.is_null() {
                    attrs.insert("gen_ai.tool.call.result".into(), only(&outputs, "output"));
                }
            }
            _ => {}
        }
        spans.push(Span {
            trace_id,
            span_id,
            parent: id_str(r.get("parent_run_id")),
            remote_parent: false,
            name,
            start,
            end: time(r.get("end_time")),
            error,
            attrs,
            events: Vec::new(),
            line,
        });
    }
    (spans, errors)
}

/// What the spans of a LangSmith file do not say, by trace: a run that has
/// not ended (no `end_time`: a root chain run included, not only LLM and
/// tool runs) or whose parent run the file does not hold makes its trace
/// incomplete (the export stopped early: the agent may have gone on); a
/// run whose parent run is in another trace makes both traces errors.
pub(crate) fn notes(path: &Path, framing: crate::Framing) -> Result<Notes, ImportError> {
    struct Run {
        at: String,
        line: u64,
        id: String,
        trace: String,
        parent: Option<String>,
        name: String,
        ended: bool,
    }
    let mut all = Vec::new();
    crate::each_record(path, framing, &mut |line, doc| {
        let Ok(rs) = runs(&doc) else { return };
        for (at, r) in rs {
            let Some((id, trace)) = run_ids(&r) else {
                continue;
            };
            all.push(Run {
                at,
                line,
                id,
                trace,
                parent: id_str(r.get("parent_run_id")),
                name: r
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                ended: time(r.get("end_time")).is_some(),
            });
        }
    })?;
    let by_id: HashMap<&str, &Run> = all.iter().map(|r| (r.id.as_str(), r)).collect();
    let file = path.display().to_string();
    let mut notes = Notes::new();
    for r in &all {
        let who = format!("run `{}` (`{}`)", shown(&r.name), shown(&r.id));
        if !r.ended {
            notes
                .entry(r.trace.clone())
                .or_default()
                .push(Note::Incomplete(format!(
                    "{who} has not ended (no `end_time`): the recording stops before it finished"
                )));
        }
        let Some(p) = &r.parent else { continue };
        match by_id.get(p.as_str()) {
            None => notes.entry(r.trace.clone()).or_default().push(Note::Incomplete(format!(
                "{who} names a parent run `{}` the file does not hold: part of the trace was not exported",
                shown(p)
            ))),
            Some(pr) if pr.trace != r.trace => {
                // Both traces are refused: the run may belong to either.
                let field = Some(format!("{}/parent_run_id", r.at));
                let child = format!(
                    "{who} of trace `{}` names a parent run `{}` in trace `{}`: which trace it belongs to is not recorded consistently",
                    shown(&r.trace),
                    shown(p),
                    shown(&pr.trace)
                );
                let parent = format!(
                    "trace `{}`: its run `{}` is named as the parent of {who} of trace `{}`: which trace that run belongs to is not recorded consistently",
                    shown(&pr.trace),
                    shown(p),
                    shown(&r.trace)
                );
                for (t, msg) in [(&r.trace, child), (&pr.trace, parent)] {
                    notes
                        .entry(t.clone())
                        .or_default()
                        .push(Note::Error(RecordError::new(&file, r.line, field.clone(), msg)));
                }
            }
            Some(_) => {}
        }
    }
    Ok(notes)
}
