//! OpenAI Agents SDK trace exports and Inspect AI logs: fixtures under
//! `fixtures/openai-agents/` and `fixtures/inspect/`, and the real files of
//! `$PACTUM_DATA_DIR/traces/{openai-agents,inspect-ai}/` compared with the
//! independent count of `bench/trace-counts.py`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::trace::{ObservabilityLevel, Trace};
use pactum_trace::{read_traces, ImportError, ImportOptions, Item, TraceFormat};
use serde_json::json;

fn fixture(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(dir)
        .join(name)
}

/// Traces, and the other items as text.
fn import(path: &Path, opts: &ImportOptions) -> Result<(Vec<Trace>, Vec<String>), ImportError> {
    let mut traces = Vec::new();
    let mut other = Vec::new();
    read_traces(path, opts, &mut |item| {
        match item {
            Item::Trace(t) => traces.push(t),
            Item::Skipped { line, reason } => other.push(format!("skipped {line}: {reason}")),
            Item::Error(e) => other.push(format!("error: {e}")),
        }
        ControlFlow::Continue(())
    })?;
    Ok((traces, other))
}

fn auto(dir: &str, name: &str) -> (Vec<Trace>, Vec<String>) {
    import(&fixture(dir, name), &ImportOptions::default()).unwrap()
}

fn calls(t: &Trace) -> Vec<serde_json::Value> {
    t.tool_calls()
        .map(|(turn, c)| json!([turn, c.name, c.id, c.arguments, c.result, c.error]))
        .collect()
}

// ---- OpenAI Agents SDK ----

#[test]
fn agents_sdk_export_spans_children_first_over_three_batches() {
    let (t, o) = auto("openai-agents", "music_composer.ingest.jsonl");
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 2);
    // In the order of their first span; each SDK trace is its own trace.
    assert_eq!(t[0].id, "trace_294d81b076ea4262b0f0e94cb73d08c9");
    assert_eq!(t[1].id, "trace_db0186bb863d426e9e4486699cb8418a");
    let x = &t[1];
    assert_eq!(x.metadata["format"], "openai-agents");
    assert_eq!(x.metadata["grouped_by"], "trace_id");
    assert_eq!(x.observability, ObservabilityLevel::ToolCalls);
    assert_eq!(
        x.metadata["observed"],
        json!({"response": false, "tool_calls": true, "side_effects": false})
    );
    assert_eq!(
        calls(x),
        vec![json!([
            1,
            "compose_music",
            null,
            {"style": "symphony", "key": "D major"},
            "Composed a beautiful symphony piece in D major major",
            null
        ])]
    );
    // The text is not in the export: unobserved, never "said nothing".
    assert_eq!(x.turns[0].response, None);
    assert_eq!(x.incomplete, None);
    assert_eq!(x.error, None);
    assert_eq!(
        x.metadata["handoffs"],
        json!([{"from_agent": "Orchestra Conductor", "to_agent": "Symphony Composer", "span_id": "span_421c3dfba5ce4cb5abf6bd03"}])
    );
    let agents: Vec<&str> = x.metadata["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["Orchestra Conductor", "Symphony Composer"]);
    assert_eq!(
        x.offered_tools.as_ref().unwrap().iter().collect::<Vec<_>>(),
        ["compose_music"]
    );
}

#[test]
fn agents_sdk_function_span_error_makes_the_call_errored_and_group_id_groups() {
    let (t, o) = auto("openai-agents", "function_error.ingest.jsonl");
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].id, "conv-music");
    assert_eq!(t[0].metadata["grouped_by"], "group_id");
    let c = &t[0].turns[0].tool_calls[0];
    assert_eq!(c.name, "compose_music");
    assert!(
        c.error
            .as_deref()
            .unwrap()
            .starts_with("Error running tool (non-fatal)"),
        "{c:?}"
    );
    // An errored call still counts as made; the trace itself did not fail.
    assert_eq!(t[0].error, None);
}

#[test]
fn agents_sdk_generation_spans_give_text_and_join_function_spans_by_name() {
    let (t, o) = auto("openai-agents", "generation.ingest.jsonl");
    assert!(o.is_empty(), "{o:?}");
    let x = &t[0];
    assert_eq!(
        x.metadata["observed"],
        json!({"response": true, "tool_calls": true, "side_effects": false})
    );
    assert_eq!(
        calls(x),
        vec![
            json!([1, "transfer_to_symphony_composer", "call_h", {}, null, null]),
            json!([
                1,
                "compose_music",
                "call_1",
                {"style": "symphony", "key": "D major"},
                "Composed a beautiful symphony piece in D major major",
                null
            ])
        ]
    );
    assert_eq!(
        x.turns[0].response.as_deref(),
        Some("Here is your symphony in D major.")
    );
    assert_eq!(x.turns[0].input[0].content, "Compose a symphony in D major");
}

#[test]
fn agents_sdk_hosted_tool_leaves_tool_calls_unobserved_and_tripped_guardrail_cuts_off() {
    let (t, o) = auto("openai-agents", "hosted_guardrail.ingest.jsonl");
    assert!(o.is_empty(), "{o:?}");
    let x = &t[0];
    // A web search would run inside the model response and leave no
    // function span: an absence of calls proves nothing.
    assert_eq!(x.observability, ObservabilityLevel::ResponseOnly);
    assert_eq!(x.metadata["observed"]["tool_calls"], false);
    assert!(x.metadata["tool_calls_unobserved"]
        .as_str()
        .unwrap()
        .contains("web_search_preview"));
    assert_eq!(x.offered_tools, None);
    assert!(x
        .incomplete
        .as_deref()
        .unwrap()
        .contains("guardrail `no_profanity` tripped"));
    assert_eq!(x.metadata["guardrails"][0]["triggered"], true);
    // Declaring more than the data shows is lowered, with a warning.
    let (t, _) = import(
        &fixture("openai-agents", "hosted_guardrail.ingest.jsonl"),
        &ImportOptions {
            observability: Some(ObservabilityLevel::Full),
            ..ImportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(t[0].observability, ObservabilityLevel::ResponseOnly);
    assert!(t[0].metadata["observability_warning"]
        .as_str()
        .unwrap()
        .starts_with("declared full, but the export shows response_only"));
}

#[test]
fn agents_sdk_span_whose_parent_was_not_exported_is_incomplete() {
    let (t, o) = auto("openai-agents", "tool_call_no_root.ingest.jsonl");
    assert!(o.is_empty(), "{o:?}");
    let x = &t[0];
    assert!(
        x.incomplete
            .as_deref()
            .unwrap()
            .contains("has no root span in the export"),
        "{:?}",
        x.incomplete
    );
    assert_eq!(x.observability, ObservabilityLevel::ResponseOnly);
    assert_eq!(x.turns[0].tool_calls[0].name, "get_city_info");
}

#[test]
fn agents_sdk_unknown_span_type_is_an_error_naming_file_line_and_field() {
    let (t, o) = auto("openai-agents", "unknown_span.ingest.jsonl");
    assert!(t.is_empty());
    assert_eq!(o.len(), 1, "{o:?}");
    assert!(
        o[0].contains("unknown_span.ingest.jsonl:1: field `/data/1/span_data/type`: unknown span type `speech`"),
        "{o:?}"
    );
}

#[test]
fn agents_sdk_bad_records_are_errors_not_guesses() {
    let dir = tempfile::tempdir().unwrap();
    let span = |sd: serde_json::Value, started: &str| {
        json!({"object": "trace.span", "id": "span_1", "trace_id": "trace_1", "parent_id": null,
               "started_at": started, "ended_at": started, "span_data": sd, "error": null})
    };
    let cases = [
        (
            span(
                json!({"type": "function", "name": "f", "input": 5, "output": null, "mcp_data": null}),
                "2025-01-01T00:00:00+00:00",
            ),
            "field `/data/0/span_data/input`: expected an object or a JSON-encoded string",
        ),
        (
            span(
                json!({"type": "function", "input": "{}", "output": null}),
                "2025-01-01T00:00:00+00:00",
            ),
            "field `/data/0/span_data/name`: missing tool name",
        ),
        (
            span(
                json!({"type": "function", "name": "f", "input": "{}", "output": null, "extra": 1}),
                "2025-01-01T00:00:00+00:00",
            ),
            "unknown key `extra` in a `function` span",
        ),
        (
            span(
                json!({"type": "guardrail", "name": "g"}),
                "2025-01-01T00:00:00+00:00",
            ),
            "whether the guardrail stopped the run is not guessed",
        ),
        (
            span(
                json!({"type": "response", "response_id": "r"}),
                "2025-01-01T00:00:00+02:00",
            ),
            "is not a UTC ISO 8601 time",
        ),
    ];
    for (rec, want) in cases {
        let p = dir.path().join("x.jsonl");
        std::fs::write(&p, format!("{}\n", json!({"data": [rec]}))).unwrap();
        let (t, o) = import(&p, &ImportOptions::default()).unwrap();
        assert!(t.is_empty(), "{want}");
        assert!(o.len() == 1 && o[0].contains(want), "{want}: {o:?}");
    }
}

#[test]
fn agents_sdk_batch_sent_twice_is_an_error_not_a_double_count() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("twice.jsonl");
    let text =
        std::fs::read_to_string(fixture("openai-agents", "function_error.ingest.jsonl")).unwrap();
    let second = text.lines().nth(1).unwrap();
    std::fs::write(&p, format!("{text}{second}\n")).unwrap();
    let (t, o) = import(&p, &ImportOptions::default()).unwrap();
    assert!(t.is_empty());
    assert!(o.len() == 1 && o[0].contains("is recorded twice"), "{o:?}");
}

#[test]
fn agents_sdk_cassettes_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.yaml");
    std::fs::write(&p, "interactions: []\n").unwrap();
    let e = import(
        &p,
        &ImportOptions {
            format: TraceFormat::OpenaiAgents,
            ..ImportOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("not a VCR cassette"), "{e}");
}

#[test]
fn agents_sdk_refuses_chat_only_options() {
    let e = import(
        &fixture("openai-agents", "music_composer.ingest.jsonl"),
        &ImportOptions {
            tool_error_prefix: Some("Error:".into()),
            ..ImportOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("--tool-error-prefix"), "{e}");
}

// ---- Inspect AI ----

#[test]
fn inspect_json_log_one_trace_per_sample_with_calls_results_and_scores_as_metadata() {
    let (t, o) = auto("inspect", "browser_excerpt.json");
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 1);
    let x = &t[0];
    assert_eq!(x.id, "1_epoch_1");
    assert_eq!(x.metadata["format"], "inspect");
    assert_eq!(x.metadata["task"], "browser");
    assert_eq!(x.metadata["source_of_calls"], "messages");
    assert!(x.metadata["scores"].is_object());
    assert_eq!(x.observability, ObservabilityLevel::ToolCalls);
    assert_eq!(x.incomplete, None);
    let names: Vec<&str> = x.tool_calls().map(|(_, c)| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "web_browser_go",
            "web_browser_click",
            "web_browser_click",
            "web_browser_click"
        ]
    );
    let first = &x.turns[0].tool_calls[0];
    assert_eq!(first.arguments, json!({"url": "https://www.aisi.gov.uk/"}));
    assert!(first.result.is_some());
    assert!(x.turns[0].response.as_deref().unwrap().len() > 40);
}

#[test]
fn inspect_eval_zip_reads_samples_and_drops_reasoning_from_the_response() {
    let (t, o) = auto("inspect", "oxdna_excerpt.eval");
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 1);
    let x = &t[0];
    assert_eq!(x.id, "default_epoch_1");
    assert_eq!(x.metadata["log_entry"], "samples/default_epoch_1.json");
    assert_eq!(x.turns.len(), 3);
    assert_eq!(x.tool_calls().count(), 3);
    assert!(x.tool_calls().all(|(_, c)| c.name == "bash"));
    // The excerpt ends on a call: its last step is recorded.
    assert_eq!(x.incomplete, None);
    assert!(x.turns[2].response.as_deref() == Some(""));
    let (t2, _) = import(
        &fixture("inspect", "oxdna_excerpt.eval"),
        &ImportOptions {
            format: TraceFormat::Inspect,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&t2).unwrap(),
        serde_json::to_string(&t).unwrap()
    );
}

#[test]
fn inspect_tool_message_error_makes_the_call_errored_even_without_its_call() {
    let (t, o) = auto("inspect", "tool_call_error_excerpt.json");
    assert!(o.is_empty(), "{o:?}");
    let x = &t[0];
    let got: Vec<(String, Option<String>)> = x
        .tool_calls()
        .map(|(_, c)| (c.name.clone(), c.error.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("bash".to_string(), Some("parsing: ...".to_string())),
            ("bash".to_string(), Some("timeout: ...".to_string())),
            ("bash".to_string(), Some("parsing: ...".to_string())),
        ]
    );
    // The calls themselves are not in the messages: arguments unknown.
    assert!(x.tool_calls().all(|(_, c)| c.arguments.is_null()));
    assert!(x
        .incomplete
        .as_deref()
        .unwrap()
        .contains("that no assistant message shows"));
}

#[test]
fn inspect_cut_off_log_and_sample_are_incomplete() {
    let (t, o) = auto("inspect", "browser_cut_off.json");
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].metadata["log_status"], "error");
    assert!(t[0]
        .incomplete
        .as_deref()
        .unwrap()
        .contains("the sample ended in an error"));
}

#[test]
fn inspect_attachments_resolve_and_a_missing_one_is_an_error() {
    let (t, o) = auto("inspect", "attachment.json");
    assert!(o.is_empty(), "{o:?}");
    let (plain, _) = auto("inspect", "browser_excerpt.json");
    assert_eq!(t[0].turns, plain[0].turns);
    let (t, o) = auto("inspect", "missing_attachment.json");
    assert!(t.is_empty());
    assert_eq!(o.len(), 1);
    assert!(
        o[0].contains("field `/messages/9/content`: `attachment://")
            && o[0].contains("names no attachment"),
        "{o:?}"
    );
}

#[test]
fn inspect_unknown_content_part_or_key_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = |messages: serde_json::Value| {
        json!({"version": 2, "status": "success", "eval": {"task": "t"},
               "samples": [{"id": 1, "epoch": 1, "messages": messages}]})
    };
    let cases = [
        (
            json!([{"role": "user", "content": "hi"},
                   {"role": "assistant", "content": [{"type": "image", "image": "x"}]}]),
            "field `/messages/1/content/0/type`: content part `image` in the target's message",
        ),
        (
            json!([{"role": "user", "content": [{"type": "hologram"}]}]),
            "unknown content part `hologram`",
        ),
        (
            json!([{"role": "assistant", "content": "", "tool_calls": [{"id": "a", "function": "f", "arguments": {}, "shadow": 1}]}]),
            "field `/messages/0/tool_calls/0/shadow`: unknown key `shadow` in an Inspect tool call",
        ),
        (
            json!([{"role": "assistant", "content": "", "function_call": {"name": "f"}}]),
            "unknown key `function_call` in an Inspect `assistant` message",
        ),
        (
            json!([{"role": "critic", "content": ""}]),
            "unknown role `critic`",
        ),
    ];
    for (messages, want) in cases {
        let p = dir.path().join("log.json");
        std::fs::write(&p, log(messages).to_string()).unwrap();
        let (t, o) = import(&p, &ImportOptions::default()).unwrap();
        assert!(t.is_empty(), "{want}");
        assert!(o.len() == 1 && o[0].contains(want), "{want}: {o:?}");
    }
    // An object that is also another format's is not guessed.
    let p = dir.path().join("both.json");
    let mut v = log(json!([]));
    v["messages"] = json!([]);
    std::fs::write(&p, v.to_string()).unwrap();
    let e = import(&p, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("both an Inspect log"), "{e}");
    // A `.eval` that is not a zip is refused, saying so.
    let p = dir.path().join("log.eval");
    std::fs::write(&p, "{}").unwrap();
    let e = import(&p, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a readable zip archive"), "{e}");
    // An unknown log status is not guessed.
    let p = dir.path().join("log.json");
    let mut v = log(json!([]));
    v["status"] = json!("paused");
    std::fs::write(&p, v.to_string()).unwrap();
    let e = import(&p, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown log status `paused`"), "{e}");
}

#[test]
fn inspect_call_only_the_events_record_counts_and_an_unplaceable_one_cuts_off() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.json");
    let log = |events: serde_json::Value| {
        json!({"version": 2, "status": "success", "eval": {"task": "t"},
            "samples": [{"id": 1, "epoch": 1,
                "messages": [{"role": "user", "content": "hi"},
                             {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "ls", "arguments": {}}]},
                             {"role": "tool", "tool_call_id": "c1", "function": "ls", "content": "a b"},
                             {"role": "assistant", "content": "done"}],
                "events": events}]})
    };
    let ls = json!({"event": "tool", "id": "c1", "function": "ls", "arguments": {}});
    let del = json!({"event": "tool", "id": "sub_1", "function": "delete_file", "arguments": {"path": "/"},
                     "error": {"type": "permission", "message": "denied"}});
    // After every call the messages show: the end of the conversation.
    std::fs::write(&p, log(json!([ls, del])).to_string()).unwrap();
    let (t, o) = import(&p, &ImportOptions::default()).unwrap();
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(
        calls(&t[0]),
        vec![
            json!([1, "ls", "c1", {}, "a b", null]),
            json!([1, "delete_file", "sub_1", {"path": "/"}, null, "permission: denied"])
        ]
    );
    assert_eq!(t[0].incomplete, None);
    assert_eq!(t[0].metadata["calls_from_events"], 1);
    // Before one they show: counted, and its place is unknown.
    std::fs::write(&p, log(json!([del, ls])).to_string()).unwrap();
    let (t, _) = import(&p, &ImportOptions::default()).unwrap();
    assert_eq!(t[0].tool_calls().count(), 2);
    assert!(t[0]
        .incomplete
        .as_deref()
        .unwrap()
        .contains("a call to `delete_file` that the messages do not show"));
}

/// A one-sample log whose messages show one `ls` call, with `events` and
/// the sample's `output`.
fn inspect_log(events: serde_json::Value, output: serde_json::Value) -> serde_json::Value {
    json!({"version": 2, "status": "success", "eval": {"task": "t"},
        "samples": [{"id": 1, "epoch": 1,
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "ls", "arguments": {}}]},
                         {"role": "tool", "tool_call_id": "c1", "function": "ls", "content": "a b"},
                         {"role": "assistant", "content": "done"}],
            "events": events,
            "output": output}]})
}

fn model_output(calls: serde_json::Value) -> serde_json::Value {
    json!({"model": "m", "choices": [{"message": {"role": "assistant", "content": "", "tool_calls": calls}, "stop_reason": "tool_calls"}]})
}

#[test]
fn inspect_nested_tool_and_subtask_events_are_calls() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.json");
    let ls = json!({"event": "tool", "type": "function", "id": "c1", "function": "ls", "arguments": {}, "result": "a b"});
    let del = json!({"event": "tool", "type": "function", "id": "sub_1", "function": "delete_file", "arguments": {"path": "/etc"}, "result": "ok"});
    // A sub-agent's call recorded inside the tool event that ran it (older
    // Inspect logs nest a tool's transcript in its `events`).
    let mut outer = ls.clone();
    outer["events"] = json!([del]);
    // A subtask's transcript in its own `events`.
    let subtask = json!({"event": "subtask", "name": "helper", "type": "subtask", "input": {}, "result": "ok", "events": [del]});
    for events in [json!([outer]), json!([ls, subtask])] {
        std::fs::write(&p, inspect_log(events, serde_json::Value::Null).to_string()).unwrap();
        let (t, o) = import(&p, &ImportOptions::default()).unwrap();
        assert!(o.is_empty(), "{o:?}");
        assert_eq!(
            calls(&t[0]),
            vec![
                json!([1, "ls", "c1", {}, "a b", null]),
                json!([1, "delete_file", "sub_1", {"path": "/etc"}, "ok", null])
            ]
        );
        assert_eq!(t[0].incomplete, None);
        assert_eq!(t[0].metadata["calls_from_events"], 1);
    }
}

/// Inspect opens a tool span around each tool it runs and writes the
/// tool event beside it: a tool span without its tool event ran a tool
/// the log does not record, so the trace is cut off.
#[test]
fn inspect_tool_span_without_its_tool_event_cuts_off() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.json");
    let span = |name: &str| json!({"event": "span_begin", "id": format!("s-{name}"), "span_id": format!("s-{name}"), "type": "tool", "name": name});
    let ls = json!({"event": "tool", "type": "function", "id": "c1", "function": "ls", "arguments": {}, "result": "a b"});
    // Each span with its event: whole.
    std::fs::write(
        &p,
        inspect_log(json!([span("ls"), ls.clone()]), serde_json::Value::Null).to_string(),
    )
    .unwrap();
    let (t, o) = import(&p, &ImportOptions::default()).unwrap();
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].incomplete, None);
    // A span for `delete_file` and no event: cut off, naming the span.
    std::fs::write(
        &p,
        inspect_log(
            json!([span("ls"), ls, span("delete_file")]),
            serde_json::Value::Null,
        )
        .to_string(),
    )
    .unwrap();
    let (t, o) = import(&p, &ImportOptions::default()).unwrap();
    assert!(o.is_empty(), "{o:?}");
    let why = t[0].incomplete.clone().unwrap_or_default();
    assert!(
        why.contains("/events/2: a tool span `delete_file` has no tool event"),
        "{why}"
    );
    // The span's type in another case or with white space is the same.
    for ty in ["Tool", "tool ", " TOOL"] {
        let mut del = span("delete_file");
        del["type"] = json!(ty);
        std::fs::write(
            &p,
            inspect_log(json!([del]), serde_json::Value::Null).to_string(),
        )
        .unwrap();
        let (t, _) = import(&p, &ImportOptions::default()).unwrap();
        assert!(t[0].incomplete.is_some(), "{ty:?}");
    }
}

#[test]
fn inspect_model_output_call_the_messages_lack_counts_and_cuts_off() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.json");
    let del = json!([{"id": "m1", "function": "delete_file", "arguments": {"path": "/etc"}, "type": "function"}]);
    let model = json!({"event": "model", "model": "m", "input": [], "tools": [], "tool_choice": "auto",
                       "config": {}, "output": model_output(del.clone())});
    // In a model event, or in the sample's own output: the model asked for
    // the call, and no message or tool event says whether it ran.
    for (events, output) in [
        (json!([model]), serde_json::Value::Null),
        (json!([]), model_output(del.clone())),
    ] {
        std::fs::write(&p, inspect_log(events, output).to_string()).unwrap();
        let (t, o) = import(&p, &ImportOptions::default()).unwrap();
        assert!(o.is_empty(), "{o:?}");
        assert_eq!(
            calls(&t[0]).last().unwrap(),
            &json!([1, "delete_file", "m1", {"path": "/etc"}, null, null])
        );
        assert!(
            t[0].incomplete.as_deref().unwrap().contains(
                "asks for a call to `delete_file` (`m1`) that no message or tool event shows"
            ),
            "{:?}",
            t[0].incomplete
        );
    }
    // A tool event that ran it: one call, with its result, and complete
    // (the `submit` an agent scaffold keeps out of the messages).
    let ran = json!({"event": "tool", "id": "m1", "function": "delete_file", "arguments": {"path": "/etc"}, "result": "gone"});
    std::fs::write(
        &p,
        inspect_log(json!([model, ran]), model_output(del)).to_string(),
    )
    .unwrap();
    let (t, o) = import(&p, &ImportOptions::default()).unwrap();
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(
        calls(&t[0]),
        vec![
            json!([1, "ls", "c1", {}, "a b", null]),
            json!([1, "delete_file", "m1", {"path": "/etc"}, "gone", null])
        ]
    );
    assert_eq!(t[0].incomplete, None);
}

#[test]
fn inspect_unknown_event_type_or_key_and_several_choices_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.json");
    let two = json!({"model": "m", "choices": [
        {"message": {"role": "assistant", "content": "a"}},
        {"message": {"role": "assistant", "content": "", "tool_calls": [{"id": "x", "function": "delete_file", "arguments": {}}]}}]});
    let cases = [
        (
            json!([{"event": "span_begin", "id": "s"}, {"event": "sandbox_exec_tool", "function": "delete_file"}]),
            serde_json::Value::Null,
            "field `/events/1/event`: unknown event type `sandbox_exec_tool`",
        ),
        (
            json!([{"event": "subtask", "name": "h", "input": {}, "events": [{"event": "tool", "id": "t", "function": "f", "arguments": {}, "calls": []}]}]),
            serde_json::Value::Null,
            "field `/events/0/events/0/calls`: unknown key `calls` in an Inspect `tool` event",
        ),
        (
            json!([{"function": "f", "arguments": {}}]),
            serde_json::Value::Null,
            "field `/events/0/event`: expected the event type",
        ),
        (
            json!([{"event": "model", "model": "m", "input": [], "output": two.clone()}]),
            serde_json::Value::Null,
            "field `/events/0/output/choices`: 2 choices",
        ),
        (json!([]), two, "field `/output/choices`: 2 choices"),
    ];
    for (events, output, want) in cases {
        std::fs::write(&p, inspect_log(events, output).to_string()).unwrap();
        let (t, o) = import(&p, &ImportOptions::default()).unwrap();
        assert!(t.is_empty(), "{want}: {:?}", t.first().map(calls));
        assert!(o.len() == 1 && o[0].contains(want), "{want}: {o:?}");
    }
}

/// Writes `log` as `log.json` in `dir` and imports it.
fn import_log(dir: &Path, log: &serde_json::Value) -> (Vec<Trace>, Vec<String>) {
    let p = dir.join("log.json");
    std::fs::write(&p, log.to_string()).unwrap();
    import(&p, &ImportOptions::default()).unwrap()
}

fn call_names(t: &Trace) -> Vec<String> {
    t.tool_calls().map(|(_, c)| c.name.clone()).collect()
}

#[test]
fn inspect_event_call_under_a_message_call_id_is_compared_never_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let del = |extra: serde_json::Value| {
        let mut c =
            json!({"id": "c1", "function": "delete_file", "arguments": {"path": "/etc/passwd"}});
        c.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        c
    };
    let tool = |c: serde_json::Value| {
        let mut e = json!({"event": "tool", "type": "function", "result": "ok"});
        e.as_object_mut()
            .unwrap()
            .extend(c.as_object().unwrap().clone());
        e
    };
    let ls_ran = tool(json!({"id": "c1", "function": "ls", "arguments": {}}));
    let model = |calls: serde_json::Value| json!({"event": "model", "model": "m", "input": [], "output": model_output(calls)});
    // One id, two tools: which one ran is not recorded.
    let contradictions = [
        (
            json!([tool(del(json!({})))]),
            serde_json::Value::Null,
            "tool call id `c1`: the messages name the tool `ls` and the tool event /events/0 names `delete_file`",
        ),
        (
            json!([model(json!([del(json!({"type": "function"}))])), ls_ran.clone()]),
            serde_json::Value::Null,
            "tool call id `c1`: the messages name the tool `ls` and the model output /events/0/output/choices/0/message/tool_calls/0 names `delete_file`",
        ),
        (
            json!([ls_ran.clone()]),
            model_output(json!([del(json!({"type": "function"}))])),
            "tool call id `c1`: the messages name the tool `ls` and the sample's output /output/choices/0/message/tool_calls/0 names `delete_file`",
        ),
        (
            json!([{"event": "approval", "message": "x", "call": del(json!({"type": "function"})),
                    "approver": "human", "decision": "approve"}, ls_ran.clone()]),
            serde_json::Value::Null,
            "tool call id `c1`: the messages name the tool `ls` and the approval /events/0/call names `delete_file`",
        ),
        (
            json!([tool(json!({"id": "c1", "function": "ls", "arguments": {"path": "/"}}))]),
            serde_json::Value::Null,
            "tool call `ls` (`c1`): the arguments in the messages differ from those of the tool event /events/0",
        ),
    ];
    for (events, output, want) in contradictions {
        let (t, o) = import_log(dir.path(), &inspect_log(events, output));
        assert!(o.is_empty(), "{want}: {o:?}");
        assert_eq!(t[0].error.as_deref(), Some(want));
    }
    // A second tool event under an id the messages' call already ran
    // under is a call of its own (a reused id), whatever its name.
    let (t, o) = import_log(
        dir.path(),
        &inspect_log(
            json!([ls_ran.clone(), tool(del(json!({})))]),
            serde_json::Value::Null,
        ),
    );
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].error, None);
    assert_eq!(call_names(&t[0]), ["ls", "delete_file"]);
    // So is a second run of a call only the events record: two runs under
    // one id are two calls, never one.
    let sub = |path: &str| {
        tool(json!({"id": "s1", "function": "delete_file", "arguments": {"path": path}}))
    };
    let (t, o) = import_log(
        dir.path(),
        &inspect_log(
            json!([ls_ran.clone(), sub("/a"), sub("/b")]),
            serde_json::Value::Null,
        ),
    );
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(
        calls(&t[0])[1..],
        [
            json!([1, "delete_file", "s1", {"path": "/a"}, "ok", null]),
            json!([1, "delete_file", "s1", {"path": "/b"}, "ok", null])
        ]
    );
    // Ids a model reuses across steps: each event joins the call it
    // repeats, in order, and nothing is an error.
    let log = json!({"version": 2, "status": "success", "eval": {"task": "t"},
        "samples": [{"id": 1, "epoch": 1,
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": "", "tool_calls": [{"id": "call_0", "function": "ls", "arguments": {}}]},
                         {"role": "tool", "tool_call_id": "call_0", "function": "ls", "content": "a"},
                         {"role": "assistant", "content": "", "tool_calls": [{"id": "call_0", "function": "cat", "arguments": {"f": "a"}}]},
                         {"role": "tool", "tool_call_id": "call_0", "function": "cat", "content": "x"},
                         {"role": "assistant", "content": "done"}],
            "events": [model(json!([{"id": "call_0", "function": "ls", "arguments": {}}])),
                       tool(json!({"id": "call_0", "function": "ls", "arguments": {}})),
                       model(json!([{"id": "call_0", "function": "cat", "arguments": {"f": "a"}}])),
                       tool(json!({"id": "call_0", "function": "cat", "arguments": {"f": "a"}}))]}]});
    let (t, o) = import_log(dir.path(), &log);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].error, None);
    assert_eq!(t[0].incomplete, None);
    assert_eq!(call_names(&t[0]), ["ls", "cat"]);
}

#[test]
fn inspect_tool_message_naming_another_tool_than_its_call_is_a_trace_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = inspect_log(json!([]), serde_json::Value::Null);
    log["samples"][0]["messages"][2]["function"] = json!("delete_file");
    let (t, o) = import_log(dir.path(), &log);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(
        t[0].error.as_deref(),
        Some("tool call id `c1`: the messages name the tool `ls` and its result /messages/2 names `delete_file`")
    );
}

#[test]
fn inspect_attachment_holding_another_reference_is_an_error_never_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = inspect_log(json!([]), serde_json::Value::Null);
    let s = &mut log["samples"][0];
    s["attachments"] = json!({"aa": "attachment://bb", "bb": "delete_file"});
    s["messages"][1]["tool_calls"][0]["function"] = json!("attachment://aa");
    let (t, o) = import_log(dir.path(), &log);
    assert!(t.is_empty(), "{:?}", t.first().map(call_names));
    assert!(
        o.len() == 1
            && o[0].contains("field `/messages/1/tool_calls/0/function`")
            && o[0].contains("attachment `aa` holds another reference"),
        "{o:?}"
    );
}

#[test]
fn inspect_history_replaying_a_call_nothing_else_shows_cuts_off() {
    let dir = tempfile::tempdir().unwrap();
    let ls_ran =
        json!({"event": "tool", "id": "c1", "function": "ls", "arguments": {}, "result": "a b"});
    let history = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "zz1", "function": "delete_file", "arguments": {"path": "/etc"}}]},
        {"role": "tool", "tool_call_id": "zz1", "function": "delete_file", "content": "deleted"}
    ]);
    let model = |input: serde_json::Value| json!({"event": "model", "model": "m", "input": input, "output": model_output(json!([]))});
    // The history the messages show, replayed to the model: nothing new.
    let shown = json!([{"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "ls", "arguments": {}}]},
        {"role": "tool", "tool_call_id": "c1", "function": "ls", "content": "a b"}]);
    let (t, o) = import_log(
        dir.path(),
        &inspect_log(
            json!([ls_ran.clone(), model(shown)]),
            serde_json::Value::Null,
        ),
    );
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].incomplete, None);
    // A call and result only a model's input, or a state change of the
    // messages, shows: what else the messages lost is unknown.
    let state = json!({"event": "state", "changes": [
        {"op": "add", "path": "/messages/4", "value": history[1].clone()}]});
    let in_place = json!({"event": "state", "changes": [
        {"op": "replace", "path": "/messages/1/tool_calls/0/function", "value": "delete_file", "replaced": "ls"}]});
    let cases = [
        (
            inspect_log(json!([ls_ran.clone(), model(history.clone())]), serde_json::Value::Null),
            "/events/1/input/1/tool_calls/0 replays a call to `delete_file` (`zz1`) that no message or event of the sample shows",
        ),
        (
            inspect_log(json!([ls_ran.clone(), state]), serde_json::Value::Null),
            "/events/1/changes/0/value/tool_calls/0 replays a call to `delete_file` (`zz1`) that no message or event of the sample shows",
        ),
        (
            inspect_log(json!([ls_ran.clone(), in_place]), serde_json::Value::Null),
            "/events/1/changes/0 changes a tool call of the messages in place",
        ),
    ];
    for (log, want) in cases {
        let (t, o) = import_log(dir.path(), &log);
        assert!(o.is_empty(), "{want}: {o:?}");
        assert!(
            t[0].incomplete.as_deref().is_some_and(|i| i.contains(want)),
            "{want}: {:?}",
            t[0].incomplete
        );
    }
    // Inputs kept in the sample's message pool (`input_refs`, ranges into
    // `events_data.messages`) are read the same way.
    let mut log = inspect_log(
        json!([ls_ran.clone(), {"event": "model", "model": "m", "input": [], "input_refs": [[0, 1], [2, 3]],
                               "output": model_output(json!([]))}]),
        serde_json::Value::Null,
    );
    log["samples"][0]["events_data"] = json!({"messages": [history[0].clone(), {"role": "user", "content": "x"}, history[1].clone()], "calls": []});
    let (t, o) = import_log(dir.path(), &log);
    assert!(o.is_empty(), "{o:?}");
    assert!(
        t[0].incomplete.as_deref().is_some_and(|i| i.contains(
            "/events_data/messages/2/tool_calls/0 replays a call to `delete_file` (`zz1`)"
        )),
        "{:?}",
        t[0].incomplete
    );
    log["samples"][0]["events"][1]["input_refs"] = json!([[0, 9]]);
    let (t, o) = import_log(dir.path(), &log);
    assert!(t.is_empty());
    assert!(
        o.len() == 1 && o[0].contains("field `/events/1/input_refs/0`"),
        "{o:?}"
    );
}

// ---- Inspect `.eval` zips ----

/// Writes a `.eval` zip of `entries` (stored, in order); `rename` then
/// renames entries in place (names of one length), which is how a zip
/// with two entries of one name is made.
fn write_eval(path: &Path, entries: &[(&str, serde_json::Value)], rename: &[(&str, &str)]) {
    use std::io::Write;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, v) in entries {
        z.start_file(*name, opts).unwrap();
        z.write_all(v.to_string().as_bytes()).unwrap();
    }
    let mut bytes = z.finish().unwrap().into_inner();
    for (from, to) in rename {
        assert_eq!(from.len(), to.len());
        let (from, to) = (from.as_bytes(), to.as_bytes());
        let mut i = 0;
        while i + from.len() <= bytes.len() {
            if &bytes[i..i + from.len()] == from {
                bytes[i..i + from.len()].copy_from_slice(to);
            }
            i += 1;
        }
    }
    std::fs::write(path, bytes).unwrap();
}

fn eval_header(total: Option<u64>) -> serde_json::Value {
    let mut h = json!({"version": 2, "status": "success", "eval": {"task": "t"}});
    if let Some(n) = total {
        h["results"] = json!({"total_samples": n, "completed_samples": n});
    }
    h
}

fn eval_sample(id: &str, epoch: u64, calls: &[&str]) -> serde_json::Value {
    let calls: Vec<serde_json::Value> = calls
        .iter()
        .enumerate()
        .map(|(i, f)| json!({"id": format!("c{i}"), "function": f, "arguments": {}}))
        .collect();
    json!({"id": id, "epoch": epoch,
           "messages": [{"role": "user", "content": "hi"},
                        {"role": "assistant", "content": "", "tool_calls": calls}]})
}

#[test]
fn inspect_eval_entries_pactum_does_not_read_or_cannot_tell_apart_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.eval");
    let import_eval = || import(&p, &ImportOptions::default()).unwrap();
    // Two entries of one name: which one is the sample is ambiguous.
    for evil_first in [true, false] {
        let (a, b) = if evil_first {
            (
                eval_sample("s", 1, &["delete_file"]),
                eval_sample("s", 1, &["ls"]),
            )
        } else {
            (
                eval_sample("s", 1, &["ls"]),
                eval_sample("s", 1, &["delete_file"]),
            )
        };
        write_eval(
            &p,
            &[
                ("header.json", eval_header(Some(2))),
                ("samples/s_epoch_1.json", a),
                ("samples/s_epoch_1.jsox", b),
                ("samples/t_epoch_1.json", eval_sample("t", 1, &["ls"])),
            ],
            &[("samples/s_epoch_1.jsox", "samples/s_epoch_1.json")],
        );
        let (t, o) = import_eval();
        assert_eq!(
            t.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(),
            ["t_epoch_1"]
        );
        assert!(
            o.len() == 1
                && o[0].contains("log.eval!samples/s_epoch_1.json")
                && o[0].contains("2 entries of the zip are named `samples/s_epoch_1.json`"),
            "{o:?}"
        );
    }
    // Entries outside `samples/*.json`, as Inspect names them, are not read
    // silently: each is named.
    write_eval(
        &p,
        &[
            ("header.json", eval_header(Some(1))),
            (
                "Samples/e_epoch_1.json",
                eval_sample("e", 1, &["delete_file"]),
            ),
            (
                "samples/f_epoch_1.JSON",
                eval_sample("f", 1, &["delete_file"]),
            ),
            (
                "./samples/g_epoch_1.json",
                eval_sample("g", 1, &["delete_file"]),
            ),
            ("samples/t_epoch_1.json", eval_sample("t", 1, &["ls"])),
            ("reductions.json", json!([])),
            ("_journal/start.json", json!({})),
        ],
        &[],
    );
    let (t, o) = import_eval();
    assert_eq!(t.len(), 1);
    assert_eq!(o.len(), 3, "{o:?}");
    for name in [
        "Samples/e_epoch_1.json",
        "samples/f_epoch_1.JSON",
        "./samples/g_epoch_1.json",
    ] {
        assert!(
            o.iter()
                .any(|e| e.contains(&format!("entry `{name}` is not one an Inspect log holds"))),
            "{name}: {o:?}"
        );
    }
    // An entry whose name is not its sample's.
    write_eval(
        &p,
        &[
            ("header.json", eval_header(Some(2))),
            (
                "samples/s_epoch_1.json",
                eval_sample("s", 2, &["delete_file"]),
            ),
            ("samples/s_epoch_2.json", eval_sample("s", 2, &["ls"])),
        ],
        &[],
    );
    let (t, o) = import_eval();
    assert_eq!(t.len(), 1);
    assert!(
        o.len() == 1
            && o[0].contains("log.eval!samples/s_epoch_1.json")
            && o[0].contains("holds sample `s` epoch 2, whose entry is `samples/s_epoch_2.json`"),
        "{o:?}"
    );
}

#[test]
fn inspect_eval_sample_the_log_names_without_an_entry_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("log.eval");
    let summary =
        |id: &str, epoch: u64| json!({"id": id, "epoch": epoch, "input": "hi", "target": ""});
    // The summaries (final or journalled) name a sample the zip lost.
    for (name, list) in [
        ("summaries.json", json!([summary("s", 1), summary("t", 1)])),
        ("_journal/summaries/1.json", json!([summary("t", 1)])),
    ] {
        write_eval(
            &p,
            &[
                ("header.json", eval_header(None)),
                ("samples/s_epoch_1.json", eval_sample("s", 1, &["ls"])),
                ("_journal/summaries/2.json", json!([summary("s", 1)])),
                (name, list),
            ],
            &[],
        );
        let (t, o) = import(&p, &ImportOptions::default()).unwrap();
        assert_eq!(t.len(), 1);
        assert!(
            o.len() == 1
                && o[0].contains(&format!("log.eval!{name}"))
                && o[0].contains(
                    "names sample `t` epoch 1, but the zip holds no `samples/t_epoch_1.json`"
                ),
            "{o:?}"
        );
    }
    // The header of a finished log counts more samples than the zip holds.
    write_eval(
        &p,
        &[
            ("header.json", eval_header(Some(2))),
            ("samples/s_epoch_1.json", eval_sample("s", 1, &["ls"])),
        ],
        &[],
    );
    let (t, o) = import(&p, &ImportOptions::default()).unwrap();
    assert_eq!(t.len(), 1);
    assert!(
        o.len() == 1
            && o[0].contains("log.eval!header.json")
            && o[0].contains("`results.total_samples` is 2, but the zip holds 1 sample entry"),
        "{o:?}"
    );
}

// ---- the independent count ----

/// What pactum imported, in the script's words, or `refused`.
fn pactum_line(path: &Path, opts: &ImportOptions) -> String {
    match import(path, opts) {
        Ok((t, o)) if t.is_empty() && !o.is_empty() => "refused".into(),
        Ok((t, _)) => {
            let turns: usize = t.iter().map(|x| x.turns.len()).sum();
            let calls: usize = t.iter().map(|x| x.tool_calls().count()).sum();
            let errored: usize = t
                .iter()
                .map(|x| x.tool_calls().filter(|(_, c)| c.error.is_some()).count())
                .sum();
            format!(
                "traces={} turns={turns} tool_calls={calls} errored_calls={errored}",
                t.len()
            )
        }
        Err(_) => "refused".into(),
    }
}

/// Runs `bench/trace-counts.py` on `files` and checks pactum imports the
/// same counts from each (or refuses what it refuses); returns how many
/// were imported.
fn agree_with_script(files: &[PathBuf], opts: &dyn Fn(&Path) -> ImportOptions) -> usize {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/trace-counts.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(files)
        .output()
        .expect("python3 runs bench/trace-counts.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), files.len());
    let mut imported = 0;
    for (f, line) in files.iter().zip(&lines) {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let (script_name, script_count) = line.split_once(' ').unwrap();
        assert_eq!(script_name, name);
        let script_count = if script_count.starts_with("refused") {
            "refused"
        } else {
            script_count
        };
        let o = opts(f);
        let ours = pactum_line(f, &o);
        let why = match import(f, &o) {
            Err(e) => format!(" ({e})"),
            Ok((t, other)) if t.is_empty() => format!(" ({})", other.join("; ")),
            Ok(_) => String::new(),
        };
        println!("{name}: pactum {ours}{why} | script {script_count}");
        assert_eq!(ours, script_count, "{name}");
        imported += usize::from(ours != "refused");
    }
    imported
}

fn files_in(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| exts.contains(&e.to_string_lossy().as_ref()))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_independent_count_agrees_on_every_agents_and_inspect_fixture() {
    let mut files = files_in(&fixture("openai-agents", ""), &["jsonl"]);
    files.extend(files_in(&fixture("inspect", ""), &["json", "eval"]));
    let n = files.len();
    assert_eq!(
        agree_with_script(&files, &|_| ImportOptions::default()),
        n - 2
    );
}

/// Every real Agents SDK export and Inspect log: pactum's counts equal the
/// independent count of `bench/trace-counts.py`, file by file; the VCR
/// cassettes are refused (read as `--format openai-agents`, with the
/// reason printed). Fails without the data.
#[test]
#[ignore = "real data: run by .ci/real-data"]
fn real_data_agents_and_inspect_counts_match_the_independent_script() {
    let dir = std::env::var("PACTUM_DATA_DIR").expect(
        "PACTUM_DATA_DIR is not set: the real-data check needs ../shared/data (run .ci/real-data)",
    );
    let traces = Path::new(&dir).join("traces");
    let mut files = files_in(&traces.join("openai-agents"), &["jsonl", "yaml"]);
    let agents = files.len();
    files.extend(files_in(&traces.join("inspect-ai"), &["json", "eval"]));
    assert_eq!(agents, 5, "the openai-agents folder changed");
    assert_eq!(files.len(), 9, "the inspect-ai folder changed");
    let opts = |p: &Path| ImportOptions {
        format: if p.extension().is_some_and(|e| e == "yaml") {
            TraceFormat::OpenaiAgents
        } else {
            TraceFormat::Auto
        },
        ..ImportOptions::default()
    };
    let imported = agree_with_script(&files, &opts);
    assert_eq!(
        imported, 7,
        "every export and log is imported; only the two cassettes are refused"
    );
    for f in &files {
        if let Ok((t, o)) = import(f, &opts(f)) {
            for x in &o {
                println!("  {}", x.chars().take(400).collect::<String>());
            }
            for x in &t {
                println!(
                    "  {}: {} level={} incomplete={:?} error={:?}",
                    f.file_name().unwrap().to_string_lossy(),
                    x.id,
                    x.observability.as_str(),
                    x.incomplete,
                    x.error
                );
            }
        }
    }
}
