//! LangSmith run trees → spans, read by the OpenTelemetry builder
//! (`docs/traces.md`, "LangSmith").
//!
//! A record is `{post: [run], patch: [run]}` (the create and the update a
//! client sends), one run, or a run with nested `child_runs` (a nested run
//! without `parent_run_id` or `trace_id` takes the enclosing run's). A
//! patch is joined to its create by `id`, else by `dotted_order`; it adds
//! what the create left out. It may repeat, never change, what says which
//! run it is and where it sits (`run_type`, `name`, `trace_id`,
//! `parent_run_id`, `dotted_order`) or what the create recorded
//! (`inputs`, `outputs`, `error`); two patches of one run must agree on
//! every key they both set. A patch that matches no create is read alone.
//! Each run is a span:
//!
//! * `run_type: llm`: an LLM call; its input is `inputs.messages` (OpenAI
//!   chat dicts or LangChain messages), its output `outputs` (a chat
//!   completion's one choice, `outputs.messages`, LangChain's one
//!   generation, or one message; JSON text is decoded, and text that
//!   starts like JSON must be strict JSON; several choices are an error;
//!   two of these places must agree, and a key beside them that may hold
//!   calls is an error). Missing: not captured (the response is
//!   unobserved, never "");
//! * `run_type: tool`, and a run of another type named after a tool an
//!   LLM run of the record called or was offered (the request's `tools` or
//!   `functions`, also under `extra.invocation_params`): a tool execution
//!   named `name`: arguments `inputs` (its `input` when that is the only
//!   key), result `outputs` (its `output` when that is the only key), id
//!   `inputs.tool_call_id` or `extra.metadata.tool_call_id` when recorded
//!   (else joined by name and order);
//! * `chain`, `retriever`, `prompt`, `parser`, `embedding`: structure
//!   only. Any other run type is an error.
//!
//! A run's `error` (a non-empty string) is its span's error: an errored
//! tool run is an errored call, still made. Runs are grouped by
//! `trace_id` (else the root run's id): one trace each. A run not ended,
//! whose parent the file does not hold, or a `chain` run that may have run
//! a tool no LLM run shows ([`crate::convert::cut_off`]) cuts its trace
//! off; a parent in another trace, or a parent cycle, is an error
//! ([`notes`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::convert::{
    calls_of, cut_off, cycle_message, is_message, is_messages, json_text, kind, one_reading,
    parent_cycle, shown, tool_named, unknown_output_key, Node, Note, Notes, Part, Unparsed,
};
use crate::error::RecordError;
use crate::messages::{langchain, Problem};
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

/// `inputs` or `outputs` of an LLM run, which may be JSON text
/// ([`json_text`]: text that starts like JSON must be strict JSON).
fn decoded(v: &Value, at: &str) -> Result<Value, Problem> {
    json_text(v, at, Unparsed::Refused)
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
    // Keys patches set, by run (index in `posts`): the value and where.
    let mut patched: HashMap<usize, BTreeMap<String, (String, Value)>> = HashMap::new();
    for (pat, patch) in patches {
        let by_id = id_str(patch.get("id"));
        let by_order = patch.get("dotted_order").and_then(Value::as_str);
        let target = posts.iter().position(|(_, p)| match &by_id {
            Some(id) => id_str(p.get("id")).as_deref() == Some(id.as_str()),
            None => by_order.is_some() && p.get("dotted_order").and_then(Value::as_str) == by_order,
        });
        let Some(t) = target else {
            if key_of(&patch).is_none() {
                return Err((
                    pat,
                    "a patch with neither `id` nor `dotted_order`: which run it updates is not recorded".into(),
                ));
            }
            // Read alone; what it sets is a patch's, for a later patch.
            let keys = patch
                .iter()
                .map(|(k, v)| (k.clone(), (pat.clone(), v.clone())))
                .collect();
            patched.insert(posts.len(), keys);
            posts.push((pat, patch));
            continue;
        };
        let set = patched.entry(t).or_default();
        let create = &mut posts[t].1;
        for (k, v) in patch {
            let kat = format!("{pat}/{}", pactum_core::json::escape_pointer_token(&k));
            if let Some((first, before)) = set.get(&k) {
                if *before != v {
                    return Err((
                        kat,
                        format!(
                            "two patches of one run disagree on `{}` (the first at `{first}`): which one did the run record?",
                            shown(&k)
                        ),
                    ));
                }
                continue;
            }
            check_patch(create, &k, &v, &kat)?;
            set.insert(k.clone(), (pat.clone(), v.clone()));
            create.insert(k, v);
        }
    }
    Ok(posts)
}

/// Keys that say which run a patch updates and where it sits in the tree.
const IDENTITY: [&str; 5] = [
    "run_type",
    "name",
    "trace_id",
    "parent_run_id",
    "dotted_order",
];

/// What a run recorded, which a patch may add but not replace.
const RECORDED: [&str; 3] = ["inputs", "outputs", "error"];

/// Whether a patch may set `key` to `v` on the run `create` posted: it may
/// add what the create left out (a parent excepted: a run posted as a root
/// does not become a child), and repeat, never change, what says which run
/// it is or what the create recorded. Anything else it updates (`end_time`,
/// `extra`, `events`…).
fn check_patch(create: &Map<String, Value>, key: &str, v: &Value, at: &str) -> Result<(), Problem> {
    let before = create.get(key).filter(|b| !b.is_null());
    let changes = match key {
        _ if v.is_null() => false,
        "trace_id" => {
            let own = run_ids(create).map(|(_, t)| t);
            id_str(Some(v)) != own
        }
        "parent_run_id" => id_str(before) != id_str(Some(v)),
        k if IDENTITY.contains(&k) || RECORDED.contains(&k) => before.is_some_and(|b| b != v),
        _ => false,
    };
    if !changes {
        return Ok(());
    }
    let what = if RECORDED.contains(&key) {
        "replaces what its create recorded"
    } else {
        "changes which run it is, or where it sits"
    };
    Err((
        at.to_string(),
        format!(
            "a patch that {what} (`{}`: `{}` in the create, `{}` in the patch): which is it?",
            shown(key),
            shown(&before.map_or_else(|| "nothing".to_string(), Value::to_string)),
            shown(&v.to_string())
        ),
    ))
}

/// Why an output of `n` choices is refused.
fn several(n: usize) -> String {
    format!(
        "{n} choices: which one the application acted on is not recorded, and reading one would drop the others' calls"
    )
}

/// The keys of an LLM run's output object pactum knows: the places of its
/// messages (`choices`, `messages`, `generations`) and what an OpenAI chat
/// completion or a LangChain `LLMResult` keeps beside them.
const OUTPUT_KEYS: [&str; 15] = [
    "choices",
    "messages",
    "generations",
    "id",
    "object",
    "created",
    "model",
    "usage",
    "usage_metadata",
    "system_fingerprint",
    "service_tier",
    "prompt_filter_results",
    "llm_output",
    "run",
    "type",
];

/// The message of a chat completion's one choice.
fn choice(choices: &Value, at: &str) -> Result<Vec<Value>, Problem> {
    let Value::Array(choices) = choices else {
        return Err((
            format!("{at}/choices"),
            format!("expected an array of choices, found {}", kind(choices)),
        ));
    };
    if choices.len() > 1 {
        return Err((format!("{at}/choices"), several(choices.len())));
    }
    match choices.first().and_then(|c| c.get("message")) {
        Some(m) => Ok(vec![m.clone()]),
        None => Err((
            format!("{at}/choices/0/message"),
            "a chat completion without a message".into(),
        )),
    }
}

/// The message of LangChain's one generation (one list of choices per
/// prompt: an LLM run is one call), or its `text`.
fn generation(gens: &Value, at: &str) -> Result<Vec<Value>, Problem> {
    let gat = format!("{at}/generations");
    let Value::Array(gens) = gens else {
        return Err((
            gat,
            format!("expected an array of generations, found {}", kind(gens)),
        ));
    };
    let n = match gens.as_slice() {
        [Value::Array(inner)] => inner.len(),
        other => other.len(),
    };
    if n > 1 {
        return Err((gat, several(n)));
    }
    let first = gens.first().and_then(|g| match g {
        Value::Array(inner) => inner.first(),
        other => Some(other),
    });
    match first.and_then(|g| g.get("message")) {
        Some(m) => Ok(vec![m.clone()]),
        None => match first.and_then(|g| g.get("text")) {
            Some(Value::String(t)) => Ok(vec![json!({"role": "assistant", "content": t})]),
            _ => Err((gat, "a generation without `message` or `text`".into())),
        },
    }
}

/// An LLM run's output as its messages: `None` when not recorded. The
/// places that hold them — the one choice, `messages`, the one
/// generation, the output as one message — must agree when there are
/// several ([`one_reading`]); a key beside them that may hold calls is an
/// error, and so is an output with no place.
fn llm_output(out: &Value, at: &str) -> Result<Option<Value>, Problem> {
    let out = decoded(out, at)?;
    let cannot = |out: &Value| {
        (
            at.to_string(),
            format!(
                "an LLM run output pactum cannot read ({}; expected `choices`, `messages`, `generations` or a message)",
                kind(out)
            ),
        )
    };
    let m = match &out {
        Value::Null => return Ok(None),
        Value::Object(m) => m,
        other => return Err(cannot(other)),
    };
    let mut places = Vec::new();
    if let Some(c) = m.get("choices") {
        places.push(("choices", choice(c, at)?));
    }
    match m.get("messages") {
        None => {}
        Some(Value::Array(msgs)) => places.push(("messages", msgs.clone())),
        Some(other) => {
            return Err((
                format!("{at}/messages"),
                format!("expected an array of messages, found {}", kind(other)),
            ))
        }
    }
    if let Some(g) = m.get("generations") {
        places.push(("generations", generation(g, at)?));
    }
    if is_message(&out) {
        let mut own = m.clone();
        for k in ["choices", "messages", "generations"] {
            own.remove(k);
        }
        places.push(("", vec![Value::Object(own)]));
    } else {
        unknown_output_key(m, &OUTPUT_KEYS, at)?;
    }
    match one_reading(places, at)? {
        Some(msgs) => Ok(Some(Value::Array(msgs))),
        None => Err(cannot(&out)),
    }
}

/// `{input: x}` alone → x; anything else as is.
fn only(v: &Value, key: &str) -> Value {
    match v.as_object() {
        Some(m) if m.len() == 1 && m.contains_key(key) => m[key].clone(),
        _ => v.clone(),
    }
}

/// The tool names offered in an LLM request (`tools`, `functions`: OpenAI
/// `{type: function, function: {name}}` or `{name}`).
fn offered_in(v: &Value) -> Vec<String> {
    ["tools", "functions"]
        .iter()
        .filter_map(|k| v.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|t| {
            t.pointer("/function/name")
                .or_else(|| t.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect()
}

/// The tools the LLM runs of a record called or were offered (their
/// inputs' `tools` / `functions`, or LangChain's under
/// `extra.invocation_params`): a run of another type named after one is
/// its execution. What cannot be read adds nothing here; reading the run
/// says why.
fn tools_of(runs: &Runs) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (_, r) in runs {
        if r.get("run_type").and_then(Value::as_str) != Some("llm") {
            continue;
        }
        if let Ok(inputs) = decoded(r.get("inputs").unwrap_or(&Value::Null), "") {
            names.extend(offered_in(&inputs));
        }
        if let Some(params) = r.get("extra").and_then(|e| e.get("invocation_params")) {
            names.extend(offered_in(params));
        }
        let out = llm_output(r.get("outputs").unwrap_or(&Value::Null), "")
            .ok()
            .flatten()
            .and_then(|o| langchain::chat_list(&o, "").ok());
        if let Some(calls) = out.as_deref().and_then(calls_of) {
            names.extend(calls.into_iter().map(|c| c.name));
        }
    }
    names
}

/// The tool a run executes, if it is a tool execution: a `tool` run, or
/// any run but an LLM call named after one of the record's `tools`.
fn tool_of(run_type: &str, name: &str, tools: &BTreeSet<String>) -> Option<String> {
    match run_type {
        "tool" => Some(name.to_string()),
        "llm" => None,
        _ => tool_named(name, tools),
    }
}

/// The parent cycle among the runs of a record, as an error of the trace
/// of its first run.
fn cycle(runs: &Runs) -> Option<(Option<String>, String, String)> {
    let links: BTreeMap<String, String> = runs
        .iter()
        .filter_map(|(_, r)| Some((run_ids(r)?.0, id_str(r.get("parent_run_id"))?)))
        .collect();
    let found = parent_cycle(&links)?;
    let (at, r) = runs
        .iter()
        .find(|(_, r)| run_ids(r).is_some_and(|(id, _)| id == found[0]))?;
    Some((
        run_ids(r).map(|(_, t)| t),
        format!("{at}/parent_run_id"),
        cycle_message("run", &found),
    ))
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
    if let Some((tid, field, message)) = cycle(&runs) {
        errors.push(err(tid.as_deref(), field, message));
    }
    let tools = tools_of(&runs);
    for (at, r) in &runs {
        let Some((span_id, trace_id)) = run_ids(r) else {
            errors.push(err(None, format!("{at}/id"), "a run without `id`"));
            continue;
        };
        match read(at, r, &tools) {
            Ok((name, start, error, attrs)) => spans.push(Span {
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
            }),
            Err((field, message)) => errors.push(err(Some(&trace_id), field, message)),
        }
    }
    (spans, errors)
}

/// What one run records: its name, start, error and span attributes.
type Read = (String, u64, Option<String>, BTreeMap<String, Value>);

/// One run, read.
fn read(at: &str, r: &Map<String, Value>, tools: &BTreeSet<String>) -> Result<Read, Problem> {
    let start = time(r.get("start_time")).ok_or_else(|| {
        (
            format!("{at}/start_time"),
            "missing, or neither epoch milliseconds nor a UTC RFC 3339 time".to_string(),
        )
    })?;
    let run_type = r
        .get("run_type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !RUN_TYPES.contains(&run_type) {
        return Err((
            format!("{at}/run_type"),
            format!(
                "unknown run type `{}` (pactum reads llm, tool, chain, retriever, prompt, parser and embedding)",
                shown(run_type)
            ),
        ));
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
    if run_type == "llm" {
        attrs.insert("gen_ai.operation.name".into(), json!("chat"));
        let input = decoded(&inputs, &format!("{at}/inputs"))?;
        if let Some(msgs) = input.get("messages") {
            let list = langchain::chat_list(msgs, &format!("{at}/inputs/messages"))?;
            attrs.insert(CHAT_INPUT.into(), Value::Array(list));
        }
        if let Some(o) = llm_output(&outputs, &format!("{at}/outputs"))? {
            let list = langchain::chat_list(&o, &format!("{at}/outputs"))?
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
    } else if let Some(tool) = tool_of(run_type, &name, tools) {
        attrs.insert("gen_ai.operation.name".into(), json!("execute_tool"));
        attrs.insert("gen_ai.tool.name".into(), json!(tool));
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
    Ok((name, start, error, attrs))
}

/// What the spans of a LangSmith file do not say, by trace:
///
/// * a run that has not ended (no `end_time`: a root chain run included,
///   not only LLM and tool runs) or whose parent run the file does not
///   hold makes its trace incomplete (the export stopped early: the agent
///   may have gone on);
/// * a `chain` run that may have run a tool no LLM run shows ([`cut_off`])
///   makes its trace incomplete;
/// * a run whose parent run is in another trace makes both traces errors,
///   and so does a parent cycle across records.
pub(crate) fn notes(path: &Path, framing: crate::Framing) -> Result<Notes, ImportError> {
    struct Run {
        at: String,
        line: u64,
        node: Node,
        ended: bool,
    }
    let mut all: Vec<Run> = Vec::new();
    crate::each_record(path, framing, &mut |line, doc| {
        let Ok(rs) = runs(&doc) else { return };
        let tools = tools_of(&rs);
        for (at, r) in rs {
            let Some((id, trace)) = run_ids(&r) else {
                continue;
            };
            let name = r
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let run_type = r
                .get("run_type")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let part = match run_type {
                "llm" => Part::Llm,
                _ if tool_of(run_type, &name, &tools).is_some() => Part::Tool,
                "chain" => Part::Generic,
                _ => Part::Other,
            };
            let inputs = r.get("inputs").unwrap_or(&Value::Null);
            let inputs = json_text(inputs, "", Unparsed::Text).unwrap_or(Value::Bool(true));
            let io = !inputs.is_null()
                && !is_messages(&inputs)
                && !r.get("outputs").unwrap_or(&Value::Null).is_null();
            all.push(Run {
                at,
                line,
                node: Node {
                    who: format!("run `{}` (`{}`)", shown(&name), shown(&id)),
                    id,
                    parent: id_str(r.get("parent_run_id")),
                    trace,
                    part,
                    io,
                },
                ended: time(r.get("end_time")).is_some(),
            });
        }
    })?;
    let by_id: HashMap<&str, &Run> = all.iter().map(|r| (r.node.id.as_str(), r)).collect();
    let file = path.display().to_string();
    let mut notes = Notes::new();
    let links: BTreeMap<String, String> = all
        .iter()
        .filter_map(|r| Some((r.node.id.clone(), r.node.parent.clone()?)))
        .collect();
    if let Some(found) = parent_cycle(&links) {
        if let Some(r) = by_id.get(found[0].as_str()) {
            let field = Some(format!("{}/parent_run_id", r.at));
            let e = RecordError::new(&file, r.line, field, cycle_message("run", &found));
            for id in &found {
                if let Some(m) = by_id.get(id.as_str()) {
                    notes
                        .entry(m.node.trace.clone())
                        .or_default()
                        .push(Note::Error(e.clone()));
                }
            }
        }
    }
    for r in &all {
        let n = &r.node;
        let who = &n.who;
        if !r.ended {
            notes
                .entry(n.trace.clone())
                .or_default()
                .push(Note::Incomplete(format!(
                    "{who} has not ended (no `end_time`): the recording stops before it finished"
                )));
        }
        let Some(p) = &n.parent else { continue };
        match by_id.get(p.as_str()) {
            None => notes.entry(n.trace.clone()).or_default().push(Note::Incomplete(format!(
                "{who} names a parent run `{}` the file does not hold: part of the trace was not exported",
                shown(p)
            ))),
            Some(pr) if pr.node.trace != n.trace => {
                // Both traces are refused: the run may belong to either.
                let field = Some(format!("{}/parent_run_id", r.at));
                let child = format!(
                    "{who} of trace `{}` names a parent run `{}` in trace `{}`: which trace it belongs to is not recorded consistently",
                    shown(&n.trace),
                    shown(p),
                    shown(&pr.node.trace)
                );
                let parent = format!(
                    "trace `{}`: its run `{}` is named as the parent of {who} of trace `{}`: which trace that run belongs to is not recorded consistently",
                    shown(&pr.node.trace),
                    shown(p),
                    shown(&n.trace)
                );
                for (t, msg) in [(&n.trace, child), (&pr.node.trace, parent)] {
                    notes
                        .entry(t.clone())
                        .or_default()
                        .push(Note::Error(RecordError::new(&file, r.line, field.clone(), msg)));
                }
            }
            Some(_) => {}
        }
    }
    let nodes: Vec<Node> = all.into_iter().map(|r| r.node).collect();
    for (trace, why) in cut_off(&nodes) {
        notes.entry(trace).or_default().push(Note::Incomplete(why));
    }
    Ok(notes)
}
