//! Langfuse and LangSmith exports that hide a call, or could: each input
//! below holds a `delete_file` call (or could have run one) that a reader
//! taking the first readable place, the last patch or a text fallback would
//! drop. Each must come out as the call, an error naming the field, or an
//! incomplete trace — never as a clean trace without the call.
//! The documents are built from `fixtures/langfuse/tool_error.trace.json`
//! and small LangSmith run trees.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::trace::Trace;
use pactum_trace::{read_traces, ImportOptions, Item, TraceFormat};
use serde_json::{json, Value};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Traces, and the other items as text.
fn import_file(path: &Path, format: TraceFormat) -> (Vec<Trace>, Vec<String>) {
    let opts = ImportOptions {
        format,
        ..ImportOptions::default()
    };
    let mut traces = Vec::new();
    let mut other = Vec::new();
    read_traces(path, &opts, &mut |item| {
        match item {
            Item::Trace(t) => traces.push(t),
            Item::Skipped { line, reason } => other.push(format!("skipped {line}: {reason}")),
            Item::Error(e) => other.push(format!("error: {e}")),
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    (traces, other)
}

fn import_doc(doc: &Value, format: TraceFormat) -> (Vec<Trace>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("export.json");
    std::fs::write(&p, doc.to_string()).unwrap();
    import_file(&p, format)
}

fn names(t: &Trace) -> Vec<String> {
    t.tool_calls().map(|(_, c)| c.name.clone()).collect()
}

/// Asserts the export is refused with one error naming `field` and saying
/// `says`.
#[track_caller]
fn refused((t, o): &(Vec<Trace>, Vec<String>), field: &str, says: &str) {
    assert!(
        t.is_empty(),
        "not refused: {:?}",
        t.iter()
            .map(|t| (names(t), t.incomplete.clone()))
            .collect::<Vec<_>>()
    );
    assert!(
        o.iter()
            .any(|e| e.contains("field `") && e.contains(field) && e.contains(says)),
        "expected an error at `{field}` saying `{says}`: {o:?}"
    );
}

/// Asserts one clean-imported trace that counts a `delete_file` call.
#[track_caller]
fn counts_delete((t, o): &(Vec<Trace>, Vec<String>)) {
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 1);
    assert!(
        names(&t[0]).iter().any(|n| n == "delete_file"),
        "{:?}",
        names(&t[0])
    );
}

/// Asserts one trace, marked incomplete for a reason saying `says`.
#[track_caller]
fn incomplete((t, o): &(Vec<Trace>, Vec<String>), says: &str) {
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 1);
    assert!(
        t[0].incomplete.as_deref().is_some_and(|i| i.contains(says)),
        "expected incomplete saying `{says}`: {:?}",
        t[0].incomplete
    );
}

// ---- Langfuse ---------------------------------------------------------

/// `fixtures/langfuse/tool_error.trace.json`: a root span `obs-1`, a
/// generation `obs-2` calling `transfer_funds` (offered as a `tool` input
/// message), its `TOOL` observation `obs-3`, and a closing generation
/// `obs-4` whose output is text.
fn lf() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(fixture("langfuse/tool_error.trace.json")).unwrap(),
    )
    .unwrap()
}

fn lf_import(doc: &Value) -> (Vec<Trace>, Vec<String>) {
    import_doc(doc, TraceFormat::Langfuse)
}

/// An observation of `lf()`'s trace under `parent`, ended, without input,
/// output or metadata.
fn lf_obs(id: &str, ty: &str, name: &str, parent: Option<&str>) -> Value {
    json!({"id": id, "traceId": "lf-tool-error", "parentObservationId": parent, "type": ty,
        "name": name, "startTime": "2025-01-01T00:00:01.250Z", "endTime": "2025-01-01T00:00:01.260Z",
        "level": "DEFAULT", "statusMessage": null, "input": null, "output": null, "metadata": null})
}

fn lf_push(doc: &mut Value, o: Value) {
    doc["observations"].as_array_mut().unwrap().push(o);
}

/// An assistant message (OpenAI chat dict) calling `delete_file`.
fn delete_message() -> Value {
    json!({"role": "assistant", "content": "", "tool_calls": [{"id": "zz", "type": "function",
        "function": {"name": "delete_file", "arguments": "{\"path\": \"/etc\"}"}}]})
}

#[test]
fn langfuse_text_that_starts_like_json_but_is_not_strict_json_is_an_error() {
    let strict = delete_message().to_string();
    let repr = "{'role': 'assistant', 'content': '', 'tool_calls': [{'id': 'zz', 'type': 'function', 'function': {'name': 'delete_file', 'arguments': '{}'}}]}";
    let dup = strict.replacen(
        "\"role\":\"assistant\"",
        "\"role\":\"assistant\",\"role\":\"assistant\"",
        1,
    );
    assert_ne!(dup, strict);
    let variants = [
        ("a Python repr", repr.to_string()),
        ("a Python repr list", format!("[{repr}]")),
        ("a repeated key", dup),
        (
            "a trailing comma",
            format!("{},}}", &strict[..strict.len() - 1]),
        ),
        ("NaN", strict.replacen('{', "{\"x\": NaN, ", 1)),
        ("a byte-order mark", format!("\u{feff}{strict}")),
        ("leading whitespace and a repr", format!("\n  {repr}")),
    ];
    for (what, text) in &variants {
        let mut doc = lf();
        doc["observations"][3]["output"] = json!(text);
        refused(&lf_import(&doc), "/observations/3/output", "JSON");
        // The same text as a generation's input, or as metadata.
        let mut doc = lf();
        doc["observations"][3]["input"] = json!(text);
        refused(&lf_import(&doc), "/observations/3/input", "JSON");
        let mut doc = lf();
        doc["observations"][3]["metadata"] = json!(text);
        assert!(
            !lf_import(&doc).1.is_empty(),
            "{what}: metadata read as text"
        );
    }
    // Metadata naming the tool twice: which name is it?
    let mut doc = lf();
    let mut o = lf_obs("obs-9", "RETRIEVER", "lookup", Some("obs-1"));
    o["input"] = json!("{\"path\": \"/etc\"}");
    o["output"] = json!("\"deleted\"");
    o["metadata"] =
        json!("{\"attributes\": {\"gen_ai.tool.name\": \"delete_file\"}, \"attributes\": {}}");
    lf_push(&mut doc, o);
    refused(&lf_import(&doc), "/observations/4/metadata", "attributes");
    // Encoded twice: decoded twice, and the call is read.
    let mut doc = lf();
    doc["observations"][3]["output"] = json!(json!(strict).to_string());
    counts_delete(&lf_import(&doc));
    // A tool's own input is its arguments as recorded: a Python repr
    // there stays text (the real LangGraph export records one).
    let mut doc = lf();
    doc["observations"][2]["input"] = json!("{'to': '42', 'amount': 500}");
    let (t, o) = lf_import(&doc);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(names(&t[0]), ["transfer_funds"]);
}

#[test]
fn langfuse_output_objects_are_key_checked_and_two_places_must_agree() {
    // Messages plus calls beside them: the calls are in a key pactum does
    // not read as a place of the output.
    let mut doc = lf();
    doc["observations"][3]["output"] = json!({
        "messages": [{"role": "assistant", "content": "done"}],
        "tool_calls": delete_message()["tool_calls"]});
    refused(&lf_import(&doc), "/observations/3/output/tool_calls", "");
    // One message that also holds a `messages` list: two places of the
    // output, and they disagree.
    let mut doc = lf();
    let mut both = delete_message();
    both["messages"] = json!([{"role": "assistant", "content": "done"}]);
    doc["observations"][3]["output"] = both;
    refused(&lf_import(&doc), "/observations/3/output", "disagree");
    // Two places that agree are read once.
    let mut doc = lf();
    let mut both = delete_message();
    both["messages"] = json!([delete_message()]);
    doc["observations"][3]["output"] = both;
    let r = lf_import(&doc);
    counts_delete(&r);
    assert_eq!(names(&r.0[0]), ["transfer_funds", "delete_file"]);
}

#[test]
fn langfuse_tool_definitions_are_offered_tools_and_a_named_span_with_children_runs_its_tool() {
    for child_ty in ["EVENT", "SPAN"] {
        let mut doc = lf();
        doc["observations"][1]["toolDefinitions"] =
            json!({"delete_file": "{\"description\": \"x\", \"parameters\": \"\"}"});
        let mut span = lf_obs("obs-9", "SPAN", "delete_file", Some("obs-1"));
        span["input"] = json!("{\"path\": \"/etc/x\"}");
        span["output"] = json!("\"deleted\"");
        let mut child = lf_obs("obs-10", child_ty, "os.remove", Some("obs-9"));
        child["input"] = json!("{\"p\": \"/etc/x\"}");
        lf_push(&mut doc, span);
        lf_push(&mut doc, child);
        let r = lf_import(&doc);
        counts_delete(&r);
        assert_eq!(r.0[0].incomplete, None, "{child_ty}");
    }
    // A definition map of another shape is not guessed at.
    let mut doc = lf();
    doc["observations"][1]["toolDefinitions"] = json!(["delete_file"]);
    refused(&lf_import(&doc), "/observations/1/toolDefinitions", "");
}

#[test]
fn langfuse_generic_span_with_children_that_ran_no_llm_or_tool_cuts_off() {
    // `@observe()` on a function that logs an event and deletes a file:
    // its child does not show what it ran.
    let mut doc = lf();
    let mut span = lf_obs("obs-9", "SPAN", "cleanup", Some("obs-1"));
    span["input"] = json!("{\"path\": \"/etc/x\"}");
    span["output"] = json!("\"deleted\"");
    lf_push(&mut doc, span);
    lf_push(&mut doc, lf_obs("obs-10", "EVENT", "audit", Some("obs-9")));
    incomplete(&lf_import(&doc), "observation `cleanup`");
    // A span that wraps LLM calls (an agent's run) shows its work as them.
    let mut doc = lf();
    doc["observations"][0]["input"] = json!("Move 500 to account 42.");
    doc["observations"][0]["output"] = json!("{\"answer\": \"failed\"}");
    let (t, o) = lf_import(&doc);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].incomplete, None);
}

#[test]
fn langfuse_tool_calls_fields_must_agree_with_the_output() {
    // Langfuse's own list of the generation's calls names `delete_file`,
    // its output text names none: which is it?
    let mut doc = lf();
    doc["observations"][3]["toolCalls"] = json!([{"id": "zz", "type": "function",
        "function": {"name": "delete_file", "arguments": "{\"path\": \"/etc\"}"}}]);
    doc["observations"][3]["toolCallNames"] = json!(["delete_file"]);
    refused(
        &lf_import(&doc),
        "/observations/3/toolCallNames",
        "delete_file",
    );
    // The export's own form (JSON text without the name, names beside):
    // agreeing with the output, it is read as it is.
    let mut doc = lf();
    doc["observations"][1]["toolCalls"] = json!([
        "{\"id\":\"call_9\",\"arguments\":\"{\\\"to\\\":\\\"42\\\",\\\"amount\\\":500}\",\"type\":\"tool_call\",\"index\":0}"]);
    doc["observations"][1]["toolCallNames"] = json!(["transfer_funds"]);
    let (t, o) = lf_import(&doc);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(names(&t[0]), ["transfer_funds"]);
    // Other arguments than the output's: an error.
    let mut doc = lf();
    doc["observations"][1]["toolCalls"] =
        json!(["{\"id\":\"call_9\",\"arguments\":\"{\\\"to\\\":\\\"666\\\"}\",\"type\":\"tool_call\",\"index\":0}"]);
    doc["observations"][1]["toolCallNames"] = json!(["transfer_funds"]);
    refused(&lf_import(&doc), "/observations/1/toolCalls", "arguments");
    // Names without calls, or calls without names: which are they?
    let mut doc = lf();
    doc["observations"][1]["toolCallNames"] = json!(["transfer_funds", "delete_file"]);
    doc["observations"][1]["toolCalls"] =
        json!(["{\"id\":\"call_9\",\"arguments\":\"{}\",\"type\":\"tool_call\",\"index\":0}"]);
    refused(&lf_import(&doc), "/observations/1/toolCallNames", "");
    // Listed on a span: a call some generation shows, or an error.
    let mut doc = lf();
    doc["observations"][0]["toolCallNames"] = json!(["delete_file"]);
    doc["observations"][0]["toolCalls"] = json!(["{\"id\":\"\",\"arguments\":\"{}\"}"]);
    refused(
        &lf_import(&doc),
        "/observations/0/toolCallNames",
        "delete_file",
    );
}

#[test]
fn langfuse_root_not_ended_or_parent_not_exported_cuts_off() {
    // The root span never ended: the agent may have gone on.
    let mut doc = lf();
    doc["observations"][0]["endTime"] = Value::Null;
    incomplete(&lf_import(&doc), "has not ended");
    // A generation whose parent is not in the export, beside the root.
    let mut doc = lf();
    doc["observations"][3]["parentObservationId"] = json!("ffffffffffffffff");
    incomplete(&lf_import(&doc), "`ffffffffffffffff`");
    // The topmost observation naming a parent the export lacks: the app's
    // own span around the trace, never sent to Langfuse (the real C# export).
    let mut doc = lf();
    doc["observations"][0]["parentObservationId"] = json!("host-span");
    let (t, o) = lf_import(&doc);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].incomplete, None);
    // Two observations under parents the export lacks: one of them is
    // not the top, so part of the trace is missing.
    doc["observations"][3]["parentObservationId"] = json!("host-span");
    incomplete(&lf_import(&doc), "`host-span`");
}

#[test]
fn langfuse_parent_cycles_are_an_error() {
    let mut doc = lf();
    doc["observations"][0]["parentObservationId"] = json!("obs-2");
    refused(
        &lf_import(&doc),
        "/observations/0/parentObservationId",
        "cycle",
    );
    let mut doc = lf();
    for o in doc["observations"].as_array_mut().unwrap() {
        o["parentObservationId"] = o["id"].clone();
    }
    refused(&lf_import(&doc), "/parentObservationId", "its own parent");
}

#[test]
fn empty_output_lists_are_not_captured() {
    for out in [json!("[]"), json!({"messages": []}), json!([])] {
        let mut doc = lf();
        doc["observations"][3]["output"] = out.clone();
        let (t, o) = lf_import(&doc);
        assert!(o.is_empty(), "{out}: {o:?}");
        assert_eq!(t[0].turns.last().unwrap().response, None, "{out}");
        assert_eq!(t[0].metadata["observed"]["response"], false, "{out}");
    }
    let mut llm = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    llm["outputs"] = json!({"messages": []});
    let (t, o) = ls_import(
        &json!([ls_run("r", "Agent", "chain", None), llm]),
        &json!([]),
    );
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].turns[0].response, None);
    assert_eq!(t[0].metadata["observed"]["response"], false);
}

// ---- LangSmith --------------------------------------------------------

/// A LangSmith run of trace `t`, ended; an `llm` run answers in text.
fn ls_run(id: &str, name: &str, run_type: &str, parent: Option<&str>) -> Value {
    let mut r = json!({"id": id, "name": name, "run_type": run_type, "trace_id": "t",
        "start_time": 1728803137000_u64, "end_time": 1728803138000_u64, "inputs": {}, "outputs": null});
    if let Some(p) = parent {
        r["parent_run_id"] = json!(p);
    }
    if run_type == "llm" {
        r["inputs"] = json!({"messages": [{"role": "user", "content": "clean tmp"}]});
        r["outputs"] = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Done, nothing deleted."}}]});
    }
    r
}

fn ls_import(post: &Value, patch: &Value) -> (Vec<Trace>, Vec<String>) {
    import_doc(
        &json!({"post": post, "patch": patch}),
        TraceFormat::Langsmith,
    )
}

#[test]
fn langsmith_output_objects_are_key_checked_and_two_places_must_agree() {
    let root = ls_run("r", "Agent", "chain", None);
    // `choices` says text, `messages` calls `delete_file`.
    let mut llm = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    llm["outputs"]["messages"] = json!([delete_message()]);
    refused(
        &ls_import(&json!([root.clone(), llm]), &json!([])),
        "/post/1/outputs",
        "disagree",
    );
    // A key beside the choices that may hold calls.
    let mut llm = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    llm["outputs"]["tool_calls"] = delete_message()["tool_calls"].clone();
    refused(
        &ls_import(&json!([root.clone(), llm]), &json!([])),
        "/post/1/outputs/tool_calls",
        "",
    );
    // The chat completion's own keys are not places of the output.
    let mut llm = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    llm["outputs"]["usage"] = json!({"total_tokens": 9});
    llm["outputs"]["id"] = json!("chatcmpl-1");
    let (t, o) = ls_import(&json!([root.clone(), llm]), &json!([]));
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 1);
    // Two places that agree are read once.
    let mut llm = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    llm["outputs"] = json!({"choices": [{"index": 0, "message": delete_message()}], "messages": [delete_message()]});
    let r = ls_import(&json!([root, llm]), &json!([]));
    counts_delete(&r);
    assert_eq!(names(&r.0[0]), ["delete_file"]);
}

#[test]
fn langsmith_patches_that_disagree_are_an_error() {
    let root = ls_run("r", "Agent", "chain", None);
    let mut llm = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    llm["outputs"] = Value::Null;
    llm["end_time"] = Value::Null;
    let calls = json!({"choices": [{"index": 0, "message": delete_message()}]});
    let text = ls_run("x", "x", "llm", None)["outputs"].clone();
    // Two patches of one run: the first records the call, the second text.
    let posts = json!([root.clone(), llm.clone()]);
    let p1 = json!({"id": "l", "trace_id": "t", "end_time": 1728803138000_u64, "outputs": calls});
    let p2 = json!({"id": "l", "trace_id": "t", "end_time": 1728803138000_u64, "outputs": text});
    refused(
        &ls_import(&posts, &json!([p1.clone(), p2])),
        "/patch/1/outputs",
        "disagree",
    );
    // The same patch sent twice (a retry) agrees with itself.
    counts_delete(&ls_import(&posts, &json!([p1.clone(), p1])));
    // A patch that turns a tool run into a chain, or moves a run.
    let mut tool = ls_run("d", "delete_file", "tool", Some("r"));
    tool["inputs"] = json!({"path": "/etc"});
    for (key, value) in [
        ("run_type", json!("chain")),
        ("trace_id", json!("other")),
        ("parent_run_id", json!("l")),
        ("name", json!("read_file")),
    ] {
        let mut patch =
            json!({"id": "d", "end_time": 1728803138000_u64, "outputs": {"output": "ok"}});
        patch[key] = value;
        refused(
            &ls_import(&json!([root.clone(), tool.clone()]), &json!([patch])),
            &format!("/patch/0/{key}"),
            "",
        );
    }
    // A patch may not replace what the create recorded as the outputs.
    let mut done = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    done["outputs"] = calls;
    refused(
        &ls_import(
            &json!([root, done]),
            &json!([{"id": "l", "outputs": {"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}]}}]),
        ),
        "/patch/0/outputs",
        "",
    );
}

#[test]
fn langsmith_chain_run_named_after_a_tool_runs_it_and_an_unnamed_leaf_chain_cuts_off() {
    let root = ls_run("r", "Agent", "chain", None);
    let llm = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    let mut chain = ls_run("c", "delete_file", "chain", Some("r"));
    chain["inputs"] = json!({"path": "/etc"});
    chain["outputs"] = json!({"output": "deleted"});
    // It ran after the LLM call.
    chain["start_time"] = json!(1728803137500_u64);
    // Named after nothing the trace shows: it may have been a tool.
    incomplete(
        &ls_import(
            &json!([root.clone(), llm.clone(), chain.clone()]),
            &json!([]),
        ),
        "run `delete_file`",
    );
    // Offered to the model (the request's `tools`): its execution.
    let mut offered = llm.clone();
    offered["inputs"]["tools"] =
        json!([{"type": "function", "function": {"name": "delete_file", "parameters": {}}}]);
    let r = ls_import(&json!([root.clone(), offered, chain.clone()]), &json!([]));
    counts_delete(&r);
    assert_eq!(r.0[0].incomplete, None);
    // Called by the model: the call's execution, read once.
    let mut called = llm.clone();
    called["outputs"] = json!({"choices": [{"index": 0, "message": delete_message()}]});
    let r = ls_import(&json!([root.clone(), called, chain]), &json!([]));
    counts_delete(&r);
    assert_eq!(names(&r.0[0]), ["delete_file"]);
    // A chain that ran an LLM call is structure.
    let mut outer = ls_run("c", "summarise", "chain", Some("r"));
    outer["inputs"] = json!({"path": "/etc"});
    outer["outputs"] = json!({"output": "ok"});
    let inner = ls_run("l", "ChatOpenAI", "llm", Some("c"));
    let (t, o) = ls_import(&json!([root, outer, inner]), &json!([]));
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].incomplete, None);
}

#[test]
fn langsmith_parent_cycles_are_an_error() {
    let root = ls_run("r", "Agent", "chain", Some("l"));
    let llm = ls_run("l", "ChatOpenAI", "llm", Some("r"));
    refused(
        &ls_import(&json!([root, llm]), &json!([])),
        "parent_run_id",
        "cycle",
    );
}
