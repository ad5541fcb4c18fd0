//! OpenTelemetry import (OTLP JSON, Jaeger JSON; GenAI conventions current
//! and old, OpenInference): fixtures under `fixtures/otel/`, and the real
//! exports of `$PACTUM_DATA_DIR/traces/` compared with the independent
//! count of `bench/trace-counts.py`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::trace::{ObservabilityLevel, Trace};
use pactum_trace::{read_traces, ImportError, ImportOptions, Item, TraceFormat};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/otel")
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

fn auto(name: &str) -> (Vec<Trace>, Vec<String>) {
    import(&fixture(name), &ImportOptions::default()).unwrap()
}

/// What a test looks at: per trace its id, level, `observed`, error,
/// incompleteness, and per turn the input texts, the response and the calls.
fn summary(t: &Trace) -> serde_json::Value {
    serde_json::json!({
        "id": t.id,
        "level": t.observability.as_str(),
        "grouped_by": t.metadata["grouped_by"],
        "observed": t.metadata["observed"],
        "error": t.error,
        "incomplete": t.incomplete,
        "turns": t.turns.iter().map(|turn| serde_json::json!({
            "input": turn.input.iter().map(|m| m.content.chars().take(40).collect::<String>()).collect::<Vec<_>>(),
            "response": turn.response,
            "calls": turn.tool_calls.iter().map(|c| serde_json::json!([c.name, c.id, c.arguments, c.result, c.error])).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn one(name: &str) -> serde_json::Value {
    let (t, o) = auto(name);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 1, "{name}");
    summary(&t[0])
}

#[test]
fn current_genai_form_joins_the_tool_span_to_the_output_call_by_trimmed_id() {
    assert_eq!(
        one("genai_current.json"),
        serde_json::json!({
            "id": "conv-current", "level": "tool_calls", "grouped_by": "gen_ai.conversation.id",
            "observed": {"response": true, "tool_calls": true, "side_effects": false},
            "error": null, "incomplete": null,
            "turns": [{"input": ["Weather in Paris?"],
                       "response": "Let me check.\n\nIt is rainy in Paris.",
                       "calls": [["get_weather", "call_1", {"location": "Paris"}, "rainy, 57°F", null]]}]
        })
    );
}

#[test]
fn old_flattened_keys_in_collector_jsonl_with_spans_split_over_lines() {
    assert_eq!(
        one("genai_old_flattened.jsonl"),
        serde_json::json!({
            "id": "1bf7651916cd43dd8448eb211c80319d", "level": "tool_calls", "grouped_by": "trace_id",
            "observed": {"response": true, "tool_calls": true, "side_effects": false},
            "error": null, "incomplete": null,
            "turns": [{"input": ["You manage files.", "Remove the old logs."],
                       "response": "Done: the old log is gone.",
                       "calls": [["delete_file", "call_rm", {"path": "/var/log/old.log"}, "deleted", null]]}]
        })
    );
}

#[test]
fn old_span_events() {
    assert_eq!(
        one("genai_old_events.json"),
        serde_json::json!({
            "id": "2cf7651916cd43dd8448eb211c80319e", "level": "tool_calls", "grouped_by": "trace_id",
            "observed": {"response": true, "tool_calls": true, "side_effects": false},
            "error": null, "incomplete": null,
            "turns": [{"input": ["You are a travel agent.", "Book me a flight to Oslo."],
                       "response": "Your flight to Oslo is booked.",
                       "calls": [["book_flight", "call_b", {"to": "OSL"}, "booked: PNR X1", null]]}]
        })
    );
}

#[test]
fn openinference_session_groups_two_traces_and_a_tool_span_without_id_joins_by_name() {
    let s = one("openinference.json");
    assert_eq!(s["id"], "sess-42");
    assert_eq!(s["grouped_by"], "session.id");
    assert_eq!(
        s["turns"],
        serde_json::json!([
            {"input": ["What is 2+2? Use the calculator."], "response": "2+2 is 4.",
             "calls": [["calculator", "call_c", {"expr": "2+2"}, "4", null]]},
            {"input": ["Thanks! And 3+3?"], "response": "3+3 is 6.", "calls": []}
        ])
    );
}

#[test]
fn content_capture_off_leaves_the_response_unobserved_never_empty() {
    let (t, o) = auto("content_off.json");
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t.len(), 2);
    // A tool span shows the call even without content: tool calls observed.
    assert_eq!(t[0].observability, ObservabilityLevel::ToolCalls);
    assert_eq!(t[0].turns[0].response, None);
    assert_eq!(t[0].turns[0].tool_calls[0].name, "send_email");
    assert_eq!(t[0].metadata["observed"]["response"], false);
    // No tool span, no content: nothing says which tools ran.
    assert_eq!(t[1].observability, ObservabilityLevel::ResponseOnly);
    assert_eq!(t[1].turns[0].response, None);
    assert_eq!(t[1].metadata["observed"]["tool_calls"], false);
}

#[test]
fn a_tool_span_in_error_makes_its_call_errored_and_still_made() {
    let s = one("tool_error.json");
    assert_eq!(
        s["turns"][0]["calls"],
        serde_json::json!([["transfer_funds", "call_x", {"amount": 100}, null, "account locked"]])
    );
}

#[test]
fn unreadable_spans_refuse_their_trace_naming_the_field() {
    let (t, o) = auto("broken.json");
    assert!(t.is_empty());
    assert_eq!(o.len(), 3, "{o:?}");
    assert!(
        o[0].contains("field `gen_ai.output.messages[0]`") && o[0].contains("found an array"),
        "{}",
        o[0]
    );
    assert!(
        o[1].contains("field `gen_ai.completion.1`") && o[1].contains("gap"),
        "{}",
        o[1]
    );
    assert!(o[2].contains("field `gen_ai.tool.name`"), "{}", o[2]);
}

#[test]
fn real_excerpts_count_one_llm_call_once_through_wrapper_spans() {
    for (f, format) in [
        ("tempo_excerpt.json", "otlp"),
        ("jaeger_helm_excerpt.json", "jaeger"),
    ] {
        let (t, o) = auto(f);
        assert!(o.is_empty(), "{o:?}");
        assert_eq!(t.len(), 1);
        let tr = &t[0];
        assert_eq!(tr.metadata["format"], format);
        assert_eq!(tr.metadata["grouped_by"], "gen_ai.conversation.id");
        assert_eq!(tr.metadata["llm_calls"], 2, "{f}");
        assert_eq!(tr.turns.len(), 1);
        let calls: Vec<_> = tr.tool_calls().collect();
        assert_eq!(calls.len(), 1, "{f}");
        assert_eq!(calls[0].1.name, "helm_list_releases");
        assert!(calls[0]
            .1
            .result
            .as_ref()
            .and_then(|r| r.as_str())
            .is_some_and(|r| r.contains("kagent-crds")));
        assert!(tr.turns[0]
            .response
            .as_deref()
            .is_some_and(|r| r.contains("two Helm releases")));
    }
}

#[test]
fn a_langfuse_export_of_openinference_spans() {
    let s = one("langfuse_openinference_excerpt.json");
    assert_eq!(
        s,
        serde_json::json!({
            "id": "fee618f96dc31e0ca38b2f7b26eb8b29", "level": "tool_calls", "grouped_by": "trace_id",
            "observed": {"response": true, "tool_calls": true, "side_effects": false},
            "error": null, "incomplete": null,
            "turns": [{"input": ["You are a helpful agent.", "What's the weather in Tokyo?"],
                       "response": "The weather in Tokyo is currently sunny. If you need more details like temperature or forecast for the upcoming days, just let me know!",
                       "calls": [["get_weather", "call_Kud0j0DxWSmLzv9W5m6qVqXn", {"city": "Tokyo"}, "The weather in Tokyo is sunny.", null]]}]
        })
    );
    let opts = ImportOptions {
        format: TraceFormat::LangfuseOtel,
        ..ImportOptions::default()
    };
    let (t, _) = import(&fixture("langfuse_openinference_excerpt.json"), &opts).unwrap();
    assert_eq!(t[0].metadata["format"], "langfuse-otel");
    let agents = t[0].metadata["agents"].as_array().unwrap();
    let inner = agents.iter().find(|a| a["name"] == "Hello world").unwrap();
    assert_eq!(inner["parent"], "Agent workflow");
}

#[test]
fn content_captured_on_the_outer_layer_of_one_call_is_not_set_aside() {
    // The inner span (no content) is the call; the layer around it holds
    // its output: the delete_file call must not vanish behind the
    // execute_tool span of another tool, which makes tool calls observed.
    let s = one("wrapper_content.json");
    assert_eq!(s["level"], "tool_calls");
    assert_eq!(
        s["turns"][0]["calls"],
        serde_json::json!([
            ["delete_file", "call_d", {"path": "/etc/passwd"}, null, null],
            ["list_files", "call_l", null, null, null]
        ])
    );
    assert_eq!(s["turns"][0]["input"], serde_json::json!(["Tidy up /etc."]));
}

#[test]
fn explicit_format_and_a_declared_level_the_data_contradicts() {
    let opts = ImportOptions {
        format: TraceFormat::Otlp,
        observability: Some(ObservabilityLevel::Full),
        ..ImportOptions::default()
    };
    let (t, _) = import(&fixture("content_off.json"), &opts).unwrap();
    assert_eq!(t[0].observability, ObservabilityLevel::ToolCalls);
    assert_eq!(t[1].observability, ObservabilityLevel::ResponseOnly);
    assert!(t[1].metadata["observability_warning"]
        .as_str()
        .unwrap()
        .contains("declared full"));
    let lower = ImportOptions {
        observability: Some(ObservabilityLevel::ResponseOnly),
        ..opts
    };
    let (t, _) = import(&fixture("genai_current.json"), &lower).unwrap();
    assert_eq!(t[0].observability, ObservabilityLevel::ResponseOnly);
    assert!(t[0].metadata.get("observability_warning").is_none());
    // A flag that says where things sit in a record does not apply.
    let id_flag = ImportOptions {
        id_pointer: Some("/id".into()),
        ..ImportOptions::default()
    };
    let e = import(&fixture("genai_current.json"), &id_flag)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--id-field cannot be used here"), "{e}");
    // Nor do the options that say how a chat recording ends: refused, never
    // ignored.
    let prefix = ImportOptions {
        tool_error_prefix: Some("Error:".into()),
        ..ImportOptions::default()
    };
    let e = import(&fixture("genai_current.json"), &prefix)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--tool-error-prefix cannot be used here"), "{e}");
    // Jaeger named for an OTLP file: not read as something else.
    let wrong = ImportOptions {
        format: TraceFormat::Jaeger,
        ..ImportOptions::default()
    };
    let (t, o) = import(&fixture("genai_current.json"), &wrong).unwrap();
    assert!(t.is_empty());
    assert!(o[0].contains("not a Jaeger trace document"), "{o:?}");
}

#[test]
fn flat_attribute_maps_and_ambiguous_documents_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let flat = dir.path().join("flat.json");
    std::fs::write(
        &flat,
        r#"{"gen_ai.operation.name": "chat", "gen_ai.output.messages": "[]"}"#,
    )
    .unwrap();
    let e = import(&flat, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("flat map of one span's attributes"), "{e}");
    let both = dir.path().join("both.json");
    std::fs::write(&both, r#"{"resourceSpans": [], "messages": []}"#).unwrap();
    let e = import(&both, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("both an OpenTelemetry export and has `messages`"),
        "{e}"
    );
}

#[test]
fn the_same_file_imports_to_the_same_bytes() {
    for f in [
        "genai_current.json",
        "openinference.json",
        "tempo_excerpt.json",
    ] {
        let a: Vec<String> = auto(f)
            .0
            .iter()
            .map(|t| serde_json::to_string(t).unwrap())
            .collect();
        let b: Vec<String> = auto(f)
            .0
            .iter()
            .map(|t| serde_json::to_string(t).unwrap())
            .collect();
        assert_eq!(a, b);
    }
}

/// What pactum imported, in the script's words: `traces=… turns=…
/// tool_calls=… errored_calls=…`, or `refused` (the file as a whole, or
/// every trace of it).
fn pactum_line(path: &Path) -> String {
    match import(path, &ImportOptions::default()) {
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
/// same counts from each (or refuses what it refuses).
fn agree_with_script(files: &[PathBuf]) -> usize {
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
        let ours = pactum_line(f);
        println!("{name}: pactum {ours} | script {script_count}");
        assert_eq!(ours, script_count, "{name}");
        imported += usize::from(ours != "refused");
    }
    imported
}

#[test]
fn the_independent_count_agrees_on_every_fixture() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(agree_with_script(&files), files.len() - 1);
}

/// Every real OpenTelemetry file: pactum's counts equal the independent
/// count of `bench/trace-counts.py`, file by file. Fails without the data.
#[test]
#[ignore = "real data: run by .ci/real-data"]
fn real_data_otel_counts_match_the_independent_script() {
    let dir = std::env::var("PACTUM_DATA_DIR").expect(
        "PACTUM_DATA_DIR is not set: the real-data check needs ../shared/data (run .ci/real-data)",
    );
    let mut files = Vec::new();
    for sub in ["otlp-json", "jaeger-json", "openinference"] {
        let folder = Path::new(&dir).join("traces").join(sub);
        let mut these: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "jsonl"))
            .collect();
        these.sort();
        assert!(!these.is_empty(), "no file in {}", folder.display());
        files.extend(these);
    }
    let imported = agree_with_script(&files);
    for f in &files {
        match import(f, &ImportOptions::default()) {
            Ok((t, o)) => {
                for x in &o {
                    println!("  {}", x.chars().take(400).collect::<String>());
                }
                for x in &t {
                    let shown: String = summary(x).to_string().chars().take(1200).collect();
                    println!("  {}: {shown}", f.display());
                }
            }
            Err(e) => println!("  {e}"),
        }
    }
    assert!(imported >= 4, "only {imported} files imported");
}

#[test]
fn a_tool_span_naming_another_tool_than_its_call_id_refuses_the_trace() {
    // The output asks for `get_weather` with id `call_1`; a `delete_file`
    // span carrying the same id must never be folded into the weather call.
    let text = std::fs::read_to_string(fixture("genai_current.json")).unwrap();
    let swapped = text.replacen(
        "\"stringValue\": \"get_weather\"",
        "\"stringValue\": \"delete_file\"",
        1,
    );
    assert_ne!(swapped, text, "the fixture names the tool in its span");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json");
    std::fs::write(&path, swapped).unwrap();
    let (traces, other) = import(&path, &ImportOptions::default()).unwrap();
    assert!(other.is_empty(), "{other:?}");
    let error = traces[0].error.clone().unwrap_or_default();
    assert!(
        error.contains("get_weather") && error.contains("delete_file"),
        "{error}"
    );
}

// ---------------------------------------------------------------------------
// Spans written inline: each test below is a trace holding a `delete_file`
// call (or hiding one) that once imported as "captured, no call", so a
// contract prohibiting `delete_file` passed it.

/// OTLP attributes from a JSON object: strings, integers and arrays of
/// strings.
fn kvs(attrs: &serde_json::Value) -> Vec<serde_json::Value> {
    fn any(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::String(s) => serde_json::json!({"stringValue": s}),
            serde_json::Value::Number(n) => serde_json::json!({"intValue": n.to_string()}),
            serde_json::Value::Array(a) => {
                serde_json::json!({"arrayValue": {"values": a.iter().map(any).collect::<Vec<_>>()}})
            }
            other => panic!("no OTLP value for {other}"),
        }
    }
    attrs
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| serde_json::json!({"key": k, "value": any(v)}))
        .collect()
}

const TID: &str = "0af7651916cd43dd8448eb211c80319c";

/// One OTLP span of trace [`TID`]: `n` orders the start times.
fn sp(
    id: &str,
    parent: Option<&str>,
    n: u64,
    name: &str,
    attrs: serde_json::Value,
) -> serde_json::Value {
    let mut s = serde_json::json!({
        "traceId": TID, "spanId": id, "name": name,
        "startTimeUnixNano": (1_700_000_000_000_000_000u64 + n * 1_000_000).to_string(),
        "endTimeUnixNano": (1_700_000_000_000_000_000u64 + n * 1_000_000 + 500_000).to_string(),
        "attributes": kvs(&attrs),
    });
    if let Some(p) = parent {
        s["parentSpanId"] = serde_json::json!(p);
    }
    s
}

const ROOT: &str = "a000000000000001";

/// The root `invoke_agent` span every inline trace hangs from.
fn root() -> serde_json::Value {
    let mut r = sp(
        ROOT,
        None,
        0,
        "invoke_agent a",
        serde_json::json!({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
    );
    r["endTimeUnixNano"] = serde_json::json!("1700000000100000000");
    r
}

/// A `chat` span without content (content capture off).
fn chat_no_content(id: &str, n: u64) -> serde_json::Value {
    sp(
        id,
        Some(ROOT),
        n,
        "chat gpt-4o",
        serde_json::json!({"gen_ai.operation.name": "chat"}),
    )
}

fn otlp_of(spans: Vec<serde_json::Value>) -> serde_json::Value {
    serde_json::json!({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})
}

/// Imports `doc` written as `name` (auto-detected).
fn import_doc(name: &str, doc: &serde_json::Value) -> (Vec<Trace>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, serde_json::to_string_pretty(doc).unwrap()).unwrap();
    import(&path, &ImportOptions::default()).unwrap()
}

fn call_names(t: &Trace) -> Vec<String> {
    t.tool_calls().map(|(_, c)| c.name.clone()).collect()
}

#[test]
fn a_span_naming_a_tool_without_an_operation_name_is_a_tool_execution() {
    let (t, o) = import_doc(
        "t.json",
        &otlp_of(vec![
            root(),
            chat_no_content("b000000000000001", 1),
            sp(
                "c000000000000001",
                Some(ROOT),
                2,
                "execute_tool read_file",
                serde_json::json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file"}),
            ),
            sp(
                "c000000000000002",
                Some(ROOT),
                3,
                "delete_file",
                serde_json::json!({"gen_ai.tool.name": "delete_file", "gen_ai.tool.call.arguments": "{\"path\":\"/\"}"}),
            ),
        ]),
    );
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(call_names(&t[0]), ["read_file", "delete_file"]);
    assert_eq!(
        t[0].turns[0].tool_calls[1].arguments,
        serde_json::json!({"path": "/"})
    );
    assert_eq!(t[0].metadata["tool_spans"], 2);
}

#[test]
fn a_traceloop_tool_span_is_a_tool_execution_and_its_python_binding_is_read() {
    let tool = |id: &str, n: u64, input: &str| {
        sp(
            id,
            Some(ROOT),
            n,
            "delete_file.tool",
            serde_json::json!({
            "traceloop.span.kind": "tool", "traceloop.entity.name": "delete_file",
            "traceloop.entity.input": input, "traceloop.entity.output": "\"deleted\""}),
        )
    };
    let (t, o) = import_doc(
        "t.json",
        &otlp_of(vec![
            root(),
            chat_no_content("b000000000000001", 1),
            // Keyword arguments only: they are the call's arguments.
            tool(
                "c000000000000001",
                2,
                r#"{"args": [], "kwargs": {"path": "/etc"}}"#,
            ),
            // A positional argument: which parameter it fills is not
            // recorded, so the arguments are not read (conditions on them
            // answer undetermined).
            tool("c000000000000002", 3, r#"{"args": ["/etc"], "kwargs": {}}"#),
            // Not a binding: the arguments as recorded.
            tool("c000000000000003", 4, r#"{"path": "/"}"#),
        ]),
    );
    assert!(o.is_empty(), "{o:?}");
    let calls = &t[0].turns[0].tool_calls;
    assert_eq!(
        call_names(&t[0]),
        ["delete_file", "delete_file", "delete_file"]
    );
    assert_eq!(calls[0].arguments, serde_json::json!({"path": "/etc"}));
    assert_eq!(calls[0].result, Some(serde_json::json!("\"deleted\"")));
    assert!(
        calls[1].readable_arguments().is_none(),
        "{:?}",
        calls[1].arguments
    );
    assert_eq!(calls[2].arguments, serde_json::json!({"path": "/"}));
}

#[test]
fn an_openinference_tool_input_wrapped_as_python_kwargs_is_unwrapped_only_when_unambiguous() {
    let tool = |id: &str, n: u64, input: &str| {
        sp(
            id,
            Some(ROOT),
            n,
            "delete_file",
            serde_json::json!({
            "openinference.span.kind": "TOOL", "tool.name": "delete_file", "input.value": input}),
        )
    };
    let (t, o) = import_doc(
        "t.json",
        &otlp_of(vec![
            root(),
            chat_no_content("b000000000000001", 1),
            // smolagents binds `Tool.__call__(*args, sanitize_inputs_outputs, **kwargs)`.
            tool(
                "c000000000000001",
                2,
                r#"{"args": [], "sanitize_inputs_outputs": false, "kwargs": {"path": "/etc/passwd"}}"#,
            ),
            // `kwargs` alone may be a parameter of that name: not read.
            tool(
                "c000000000000002",
                3,
                r#"{"kwargs": {"path": "/etc/passwd"}}"#,
            ),
        ]),
    );
    assert!(o.is_empty(), "{o:?}");
    let calls = &t[0].turns[0].tool_calls;
    assert_eq!(
        calls[0].arguments,
        serde_json::json!({"path": "/etc/passwd"})
    );
    assert!(
        calls[1].readable_arguments().is_none(),
        "{:?}",
        calls[1].arguments
    );
}

#[test]
fn a_span_naming_a_tool_and_saying_it_is_something_else_refuses_the_trace() {
    let (t, o) = import_doc(
        "t.json",
        &otlp_of(vec![
            root(),
            sp(
                "b000000000000001",
                Some(ROOT),
                1,
                "chat",
                serde_json::json!({
                "gen_ai.operation.name": "chat", "gen_ai.tool.name": "delete_file"}),
            ),
        ]),
    );
    assert!(t.is_empty());
    assert!(
        o[0].contains("gen_ai.tool.name") && o[0].contains("chat"),
        "{o:?}"
    );
    // A tool span of a convention pactum does not read (the Vercel AI SDK's
    // `ai.toolCall`) is refused, not passed over.
    let (t, o) = import_doc(
        "t.json",
        &otlp_of(vec![
            root(),
            chat_no_content("b000000000000001", 1),
            sp(
                "c000000000000001",
                Some(ROOT),
                2,
                "ai.toolCall",
                serde_json::json!({
                "operation.name": "ai.toolCall", "ai.toolCall.name": "delete_file"}),
            ),
        ]),
    );
    assert!(t.is_empty());
    assert!(o[0].contains("ai.toolCall.name"), "{o:?}");
}

#[test]
fn a_trace_without_a_readable_llm_or_tool_span_is_skipped_only_when_it_carries_no_genai_attribute()
{
    let tid2 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    let mut agent_only = sp(
        ROOT,
        None,
        0,
        "invoke_agent",
        serde_json::json!({"gen_ai.operation.name": "invoke_agent"}),
    );
    agent_only["traceId"] = serde_json::json!(tid2);
    let mut http = sp(
        "d000000000000001",
        None,
        0,
        "GET /health",
        serde_json::json!({"http.method": "GET"}),
    );
    http["traceId"] = serde_json::json!("cccccccccccccccccccccccccccccccc");
    let (t, o) = import_doc(
        "t.json",
        &otlp_of(vec![
            root(),
            sp(
                "b000000000000001",
                Some(ROOT),
                1,
                "chat",
                serde_json::json!({
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": "[{\"role\": \"assistant\", \"parts\": [{\"type\": \"text\", \"content\": \"ok\"}]}]"}),
            ),
            agent_only,
            http,
        ]),
    );
    assert_eq!(t.len(), 1);
    assert_eq!(o.len(), 2, "{o:?}");
    // An agent ran and nothing shows what it did: an error, so the run is
    // partial, never green.
    assert!(
        o.iter().any(|x| x.starts_with("error:")
            && x.contains(tid2)
            && x.contains("gen_ai.operation.name")),
        "{o:?}"
    );
    // Spans of no GenAI convention at all (a health check): passed over.
    assert!(
        o.iter()
            .any(|x| x.starts_with("skipped") && x.contains("cccccccc")),
        "{o:?}"
    );
}

const USER_IN: &str =
    r#"[{"role": "user", "parts": [{"type": "text", "content": "clean up tmp"}]}]"#;

#[test]
fn two_conventions_on_one_span_are_two_places_of_one_call_and_must_agree() {
    let text_only = r#"[{"role": "assistant", "parts": [{"type": "text", "content": "Nothing deleted."}], "finish_reason": "stop"}]"#;
    // The current attributes say text only; the older flattened keys on the
    // same span record a delete_file call.
    let flat = sp(
        "b000000000000001",
        Some(ROOT),
        1,
        "chat",
        serde_json::json!({
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": USER_IN,
        "gen_ai.output.messages": text_only,
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.tool_calls.0.name": "delete_file",
        "gen_ai.completion.0.tool_calls.0.arguments": "{\"path\":\"/\"}",
        "gen_ai.completion.0.tool_calls.0.id": "c3"}),
    );
    let (t, o) = import_doc("t.json", &otlp_of(vec![root(), flat]));
    assert!(
        t.is_empty(),
        "{:?}",
        t.iter().map(summary).collect::<Vec<_>>()
    );
    assert!(
        o[0].contains("gen_ai.completion") && o[0].contains("gen_ai.output.messages"),
        "{o:?}"
    );
    // The same with a `gen_ai.choice` event.
    let mut ev = sp(
        "b000000000000001",
        Some(ROOT),
        1,
        "chat",
        serde_json::json!({
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": USER_IN,
        "gen_ai.output.messages": text_only}),
    );
    ev["events"] = serde_json::json!([{"name": "gen_ai.choice", "timeUnixNano": "1700000000001000000",
        "attributes": kvs(&serde_json::json!({"gen_ai.event.content":
            r#"{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "delete_file", "arguments": "{\"path\":\"/\"}"}}]}}"#}))}]);
    let (t, o) = import_doc("t.json", &otlp_of(vec![root(), ev]));
    assert!(t.is_empty());
    assert!(o[0].contains("gen_ai.choice"), "{o:?}");
    // Two conventions that agree are one message: the call is read once,
    // each side filling what the other left out.
    let same = sp(
        "b000000000000001",
        Some(ROOT),
        1,
        "chat",
        serde_json::json!({
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": USER_IN,
        "gen_ai.output.messages": r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c3", "name": "delete_file", "arguments": {"path": "/"}}], "finish_reason": "tool_calls"}]"#,
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": "Deleting.",
        "gen_ai.completion.0.tool_calls.0.name": "delete_file",
        "gen_ai.completion.0.tool_calls.0.arguments": "{\"path\":\"/\"}"}),
    );
    let (t, o) = import_doc("t.json", &otlp_of(vec![root(), same]));
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(
        summary(&t[0])["turns"][0]["calls"],
        serde_json::json!([["delete_file", "c3", {"path": "/"}, null, null]])
    );
    assert_eq!(t[0].turns[0].response.as_deref(), Some("Deleting."));
}

#[test]
fn an_output_that_asks_for_tools_but_records_none_is_not_captured() {
    // OpenLLMetry keys: the model stopped to call tools, the calls are not
    // there (lost, or never written).
    let flat = sp(
        "b000000000000001",
        Some(ROOT),
        1,
        "openai.chat",
        serde_json::json!({
        "gen_ai.system": "openai", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "clean",
        "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.finish_reason": "tool_calls"}),
    );
    // The current form: an empty list of output messages says nothing.
    let empty = sp(
        "b000000000000001",
        Some(ROOT),
        1,
        "chat",
        serde_json::json!({
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": USER_IN,
        "gen_ai.output.messages": "[]"}),
    );
    // The span's finish reasons say the same of a text-only output.
    let reasons = sp(
        "b000000000000001",
        Some(ROOT),
        1,
        "chat",
        serde_json::json!({
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": USER_IN,
        "gen_ai.response.finish_reasons": ["tool_calls"],
        "gen_ai.output.messages": r#"[{"role": "assistant", "parts": [{"type": "text", "content": "ok"}]}]"#}),
    );
    for (what, span) in [
        ("flattened", flat),
        ("empty", empty),
        ("finish_reasons", reasons),
    ] {
        let (t, o) = import_doc("t.json", &otlp_of(vec![root(), span]));
        assert!(o.is_empty(), "{what}: {o:?}");
        assert_eq!(t[0].turns[0].response, None, "{what}");
        assert_eq!(
            t[0].observability,
            ObservabilityLevel::ResponseOnly,
            "{what}"
        );
        assert_eq!(t[0].metadata["observed"]["tool_calls"], false, "{what}");
        assert_eq!(t[0].metadata["llm_calls_with_content"], 0, "{what}");
    }
}

#[test]
fn a_span_that_lost_attributes_or_events_makes_the_trace_incomplete() {
    let chat = || {
        sp(
            "b000000000000001",
            Some(ROOT),
            1,
            "chat",
            serde_json::json!({
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": USER_IN,
        "gen_ai.output.messages": r#"[{"role": "assistant", "parts": [{"type": "text", "content": "all good"}]}]"#}),
        )
    };
    let mut attrs = chat();
    attrs["droppedAttributesCount"] = serde_json::json!(12);
    let mut events = chat();
    events["droppedEventsCount"] = serde_json::json!("3");
    let mut event_attrs = chat();
    event_attrs["events"] = serde_json::json!([{"name": "gen_ai.choice", "droppedAttributesCount": 1,
        "attributes": kvs(&serde_json::json!({"gen_ai.event.content":
            r#"{"index": 0, "message": {"role": "assistant", "content": "all good"}}"#}))}]);
    // Even on a span pactum does not read: what it lost may be what made
    // it a tool span.
    let mut other = sp(
        "d000000000000001",
        Some(ROOT),
        2,
        "work",
        serde_json::json!({}),
    );
    other["droppedAttributesCount"] = serde_json::json!(200);
    for (what, spans, needle) in [
        ("attributes", vec![root(), attrs], "12 attribute(s)"),
        ("events", vec![root(), events], "3 event(s)"),
        (
            "event attributes",
            vec![root(), event_attrs],
            "attribute(s) of its event",
        ),
        (
            "other span",
            vec![root(), chat(), other],
            "200 attribute(s)",
        ),
    ] {
        let (t, o) = import_doc("t.json", &otlp_of(spans));
        assert!(o.is_empty(), "{what}: {o:?}");
        let why = t[0].incomplete.clone().unwrap_or_default();
        assert!(why.contains(needle), "{what}: {why}");
    }
    let mut bad = chat();
    bad["droppedAttributesCount"] = serde_json::json!("many");
    let (t, o) = import_doc("t.json", &otlp_of(vec![root(), bad]));
    assert!(t.is_empty());
    assert!(o[0].contains("droppedAttributesCount"), "{o:?}");
}

#[test]
fn a_span_whose_parent_the_file_does_not_hold_makes_the_trace_incomplete() {
    let chat = sp(
        "b000000000000001",
        Some(ROOT),
        1,
        "chat",
        serde_json::json!({
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": USER_IN,
        "gen_ai.output.messages": r#"[{"role": "assistant", "parts": [{"type": "text", "content": "fine"}]}]"#}),
    );
    // OTLP: the root (the agent span) was never exported.
    let (t, o) = import_doc("t.json", &otlp_of(vec![chat.clone()]));
    assert!(o.is_empty(), "{o:?}");
    let why = t[0].incomplete.clone().unwrap_or_default();
    assert!(why.contains(ROOT) && why.contains("cut off"), "{why}");
    // With it, complete.
    let (t, _) = import_doc("t.json", &otlp_of(vec![root(), chat.clone()]));
    assert_eq!(t[0].incomplete, None);
    // A remote parent (the caller of a SERVER or CONSUMER span, in another
    // process) is never in the export: no cut-off. Flags that say the
    // parent is local win over the kind; flags that say remote, over it.
    for (kind, flags, cut) in [
        (serde_json::json!("SPAN_KIND_SERVER"), None, false),
        (serde_json::json!(5), None, false),
        (serde_json::json!("SPAN_KIND_INTERNAL"), None, true),
        (serde_json::json!("SPAN_KIND_CLIENT"), Some(0x300), false),
        (serde_json::json!("SPAN_KIND_SERVER"), Some(0x100), true),
    ] {
        let mut entry = chat.clone();
        entry["kind"] = kind.clone();
        if let Some(f) = flags {
            entry["flags"] = serde_json::json!(f);
        }
        let (t, o) = import_doc("t.json", &otlp_of(vec![entry]));
        assert!(o.is_empty(), "{o:?}");
        assert_eq!(
            t[0].incomplete.is_some(),
            cut,
            "{kind} {flags:?}: {:?}",
            t[0].incomplete
        );
    }
    // Jaeger: the same.
    let jaeger = serde_json::json!({"data": [{"traceID": TID, "spans": [{
        "traceID": TID, "spanID": "b000000000000001", "operationName": "chat",
        "references": [{"refType": "CHILD_OF", "traceID": TID, "spanID": ROOT}],
        "startTime": 1_700_000_000_000_000u64, "duration": 1000,
        "tags": [{"key": "gen_ai.operation.name", "type": "string", "value": "chat"},
                 {"key": "gen_ai.output.messages", "type": "string",
                  "value": r#"[{"role": "assistant", "parts": [{"type": "text", "content": "fine"}]}]"#}],
        "logs": [], "processID": "p1"}], "processes": {"p1": {"serviceName": "a", "tags": []}}}]});
    let (t, o) = import_doc("t.json", &jaeger);
    assert!(o.is_empty(), "{o:?}");
    assert!(
        t[0].incomplete
            .as_deref()
            .unwrap_or_default()
            .contains("cut off"),
        "{:?}",
        t[0].incomplete
    );
    // A Jaeger server span's caller is remote.
    let mut server = jaeger.clone();
    server["data"][0]["spans"][0]["tags"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"key": "span.kind", "type": "string", "value": "server"}));
    let (t, o) = import_doc("t.json", &server);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].incomplete, None);
}

/// The Langfuse export of OpenInference spans, with `extra` observations.
fn langfuse_otel_with(extra: Vec<serde_json::Value>) -> serde_json::Value {
    let text = std::fs::read_to_string(fixture("langfuse_openinference_excerpt.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["observations"].as_array_mut().unwrap().extend(extra);
    doc
}

fn observation(id: &str, ty: &str, name: &str, metadata: &str) -> serde_json::Value {
    serde_json::json!({
        "id": id, "traceId": "fee618f96dc31e0ca38b2f7b26eb8b29", "parentObservationId": "d950b668796240b5",
        "type": ty, "name": name, "startTime": "2025-09-30T09:04:01.000Z", "endTime": "2025-09-30T09:04:01.000Z",
        "level": "DEFAULT", "statusMessage": null,
        "input": "{\"path\": \"/etc/passwd\"}", "output": "deleted", "metadata": metadata})
}

#[test]
fn a_langfuse_otel_export_reads_observations_without_openinference_attributes_by_their_own_fields()
{
    // A Langfuse SDK tool observation beside OpenInference spans (no
    // attributes), and one whose attributes name the tool without a kind.
    for md in [
        r#"{"resourceAttributes": {}, "scope": {"name": "langfuse-sdk"}}"#,
        r#"{"attributes": {"gen_ai.tool.name": "delete_file"}}"#,
    ] {
        let doc = langfuse_otel_with(vec![observation(
            "aaaaaaaaaaaaaaa1",
            "TOOL",
            "delete_file",
            md,
        )]);
        let (t, o) = import_doc("t.json", &doc);
        assert!(o.is_empty(), "{o:?}");
        assert_eq!(t[0].metadata["format"], "langfuse-otel");
        assert_eq!(call_names(&t[0]), ["get_weather", "delete_file"], "{md}");
        let c = &t[0].turns[0].tool_calls[1];
        assert_eq!(c.arguments, serde_json::json!({"path": "/etc/passwd"}));
    }
    // An observation neither its attributes nor its own fields explain (a
    // generation output in no shape pactum reads) is an error.
    let mut gen = observation(
        "aaaaaaaaaaaaaaa2",
        "GENERATION",
        "llm",
        r#"{"scope": {"name": "langfuse-sdk"}}"#,
    );
    gen["output"] = serde_json::json!(42);
    let (t, o) = import_doc("t.json", &langfuse_otel_with(vec![gen]));
    assert!(t.is_empty());
    assert!(o[0].contains("/observations/5/output"), "{o:?}");
}

#[test]
fn an_otlp_id_of_the_wrong_size_is_refused_naming_the_field() {
    let mut short = sp(
        "b000000000000001",
        Some(ROOT),
        1,
        "chat",
        serde_json::json!({"gen_ai.operation.name": "chat"}),
    );
    short["traceId"] = serde_json::json!("4444444444444444");
    let (t, o) = import_doc("t.json", &otlp_of(vec![short]));
    assert!(t.is_empty());
    assert!(
        o[0].contains("/spans/0/traceId") && o[0].contains("16 bytes"),
        "{o:?}"
    );
    let mut parent = root();
    parent["parentSpanId"] = serde_json::json!("abc");
    let (t, o) = import_doc("t.json", &otlp_of(vec![parent]));
    assert!(t.is_empty());
    assert!(
        o[0].contains("/spans/0/parentSpanId") && o[0].contains("8 bytes"),
        "{o:?}"
    );
}

/// Imports a file of `fixtures/otel-review/` (each records a
/// `delete_file` call somewhere) and asserts that the call is seen, or the
/// trace is refused or incomplete: never a clean trace without it.
fn delete_file_seen_or_refused(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/otel-review")
        .join(name);
    let (traces, other) =
        import(&path, &ImportOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    if other.iter().any(|o| o.starts_with("error:")) {
        return;
    }
    assert!(!traces.is_empty(), "{name}: {other:?}");
    for t in &traces {
        let seen = call_names(t).iter().any(|n| n == "delete_file");
        assert!(
            seen || t.error.is_some() || t.incomplete.is_some(),
            "{name}: the delete_file call vanished: {}",
            summary(t)
        );
    }
}

#[test]
fn an_outer_layer_or_agent_span_whose_calls_differ_from_the_calls_inside_it_refuses_the_trace() {
    delete_file_seen_or_refused("B01_wrapper_disagrees.json");
    delete_file_seen_or_refused("B02_agent_output_call.json");
}

#[test]
fn a_span_with_tool_or_llm_marks_pactum_cannot_place_refuses_the_trace_whatever_else_it_holds() {
    for f in [
        "A01_toolname_only.json",
        "A02_traceloop_TOOL_upper.json",
        "A03_traceloop_Tool.json",
        "A04_op_EXECUTE_TOOL_toolname.json",
        "A05_op_execute_tool_space.json",
        "A07_langsmith_kind_tool.json",
        "A08_agentops_tool.json",
        "A09_GenAI_upper_key.json",
        "A10_vercel_no_name.json",
        "A14_tool_call_id_only.json",
        "A19_logfire_running_tool.json",
        "A20_oi_kind_TOOL_with_spaces.json",
        "A22_only_genai_tool_call_id.json",
        "A30_tool_in_event.json",
        "S01_event_gen_ai_attr.json",
        "S03_langsmith.json",
        "S04_agentops.json",
        "S05_upper_key.json",
        "S08_ai_prefix_vercel.json",
        "S10_crewai.json",
    ] {
        delete_file_seen_or_refused(f);
    }
}

#[test]
fn every_place_a_span_records_its_output_in_is_read_or_refused() {
    for f in [
        "C01_opdetails_event.json",
        "C03_completion_exact_key.json",
        "E12_event_content_and_attrs.json",
        "E16_oi_contents_toolcall.json",
    ] {
        delete_file_seen_or_refused(f);
    }
    // The current GenAI event is read as the span's messages.
    let (t, o) = import(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/otel-review/C01_opdetails_event.json"),
        &ImportOptions::default(),
    )
    .unwrap();
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(call_names(&t[0]), ["delete_file", "read_file"]);
}

#[test]
fn a_langfuse_observation_whose_own_record_conflicts_with_its_attributes_refuses_the_trace() {
    for f in [
        "K05_tool_attrs_oi_tool_other_name.json",
        "K06_gen_attrs_tool.json",
        "K07_tool_attrs_llm_noname.json",
        "K12_tool_attrs_genai_tool_differs.json",
        "L01_tool_name_tab_prefix.json",
        "L02_tool_name_nbsp_prefix.json",
        "L03_tool_name_prefix_case.json",
        "L04_span_named_other_tool.json",
    ] {
        delete_file_seen_or_refused(f);
    }
}

#[test]
fn a_parent_id_that_is_not_an_id_or_a_jaeger_reference_pactum_cannot_read_is_an_error_or_read() {
    for f in [
        "H22_parent_number.json",
        "H23_parent_ws.json",
        "H24_parent_obj.json",
        "H25_parent_bool.json",
        "JG06_reftype_lower.json",
        "JG09_refs_null_spanid.json",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/otel-review")
            .join(f);
        let (t, o) = import(&path, &ImportOptions::default()).unwrap();
        assert!(
            t.is_empty(),
            "{f}: {:?}",
            t.iter().map(summary).collect::<Vec<_>>()
        );
        assert!(
            o.iter()
                .any(|e| e.contains("parentSpanId") || e.contains("references")),
            "{f}: {o:?}"
        );
    }
    // FOLLOWS_FROM and the deprecated `parentSpanID` name the parent: one
    // the file lacks makes the trace cut off.
    for f in ["JG01_follows_from.json", "JG04_parentSpanID_field.json"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/otel-review")
            .join(f);
        let (t, o) = import(&path, &ImportOptions::default()).unwrap();
        assert!(o.is_empty(), "{f}: {o:?}");
        assert!(
            t[0].incomplete
                .as_deref()
                .unwrap_or_default()
                .contains("cut off"),
            "{f}: {}",
            summary(&t[0])
        );
    }
}

#[test]
fn flags_that_are_not_a_32_bit_integer_are_an_error_and_a_remote_parent_excuses_no_cut_off_beside_a_true_root(
) {
    let review = |f: &str| {
        import(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/otel-review")
                .join(f),
            &ImportOptions::default(),
        )
        .unwrap()
    };
    for f in [
        "H07_flags_hexstr_server_local.json",
        "H08_flags_float.json",
        "H09_flags_huge.json",
        "H10_flags_neg.json",
    ] {
        let (t, o) = review(f);
        assert!(t.is_empty(), "{f}");
        assert!(o.iter().any(|e| e.contains("flags")), "{f}: {o:?}");
    }
    // The trace's true root is in the file: it was exported whole, so a
    // SERVER span's missing parent is a span the export lost.
    let (t, o) = review("H21_middle_missing_server.json");
    assert!(o.is_empty(), "{o:?}");
    assert!(
        t[0].incomplete
            .as_deref()
            .unwrap_or_default()
            .contains("cut off"),
        "{}",
        summary(&t[0])
    );
}

#[test]
fn an_output_that_asks_for_tools_in_any_spelling_or_place_or_holds_an_empty_message_is_not_captured(
) {
    for f in [
        "D01_tool-calls_hyphen.json",
        "D03_finish_array_in_msg.json",
        "D06_span_reasons_pyrepr.json",
        "D07_span_reason_singular.json",
        "D09_no_finish_empty_parts.json",
        "D10_STOP_gemini_empty.json",
        "D11_function_calls_plural.json",
        "D14_two_msgs_one_call_one_ask.json",
        "D16_openllmetry_flat_reason_on_prompt.json",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/otel-review")
            .join(f);
        let (t, o) = import(&path, &ImportOptions::default()).unwrap();
        assert!(o.is_empty(), "{f}: {o:?}");
        assert_eq!(
            t[0].metadata["observed"]["response"],
            false,
            "{f}: {}",
            summary(&t[0])
        );
    }
}

#[test]
fn a_python_binding_that_is_not_exactly_args_and_kwargs_leaves_the_arguments_unread() {
    for f in [
        "I04_extra_key.json",
        "I08_kwargs_nested.json",
        "I11_no_kwargs_args_only.json",
        "I14_extra_key_other_path.json",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/otel-review")
            .join(f);
        let (t, o) = import(&path, &ImportOptions::default()).unwrap();
        assert!(o.is_empty(), "{f}: {o:?}");
        let call = t[0]
            .tool_calls()
            .find(|(_, c)| c.name == "delete_file")
            .map(|(_, c)| c.clone())
            .unwrap_or_else(|| panic!("{f}: {}", summary(&t[0])));
        assert!(
            call.readable_arguments().is_none(),
            "{f}: {:?}",
            call.arguments
        );
    }
}

#[test]
fn a_snake_case_span_field_is_an_error_and_a_resource_that_lost_attributes_makes_the_trace_incomplete(
) {
    let review = |f: &str| {
        import(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/otel-review")
                .join(f),
            &ImportOptions::default(),
        )
        .unwrap()
    };
    let (t, o) = review("G16_snake_case.json");
    assert!(t.is_empty());
    assert!(
        o.iter().any(|e| e.contains("dropped_attributes_count")),
        "{o:?}"
    );
    let (t, o) = review("G17_resource_dropped.json");
    assert!(o.is_empty(), "{o:?}");
    assert!(
        t[0].incomplete
            .as_deref()
            .unwrap_or_default()
            .contains("resource"),
        "{}",
        summary(&t[0])
    );
}

#[test]
fn a_padded_otlp_id_or_a_jaeger_id_that_is_not_hex_is_an_error_and_a_resource_genai_mark_is_never_skipped(
) {
    let review = |f: &str| {
        import(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/otel-review")
                .join(f),
            &ImportOptions::default(),
        )
        .unwrap()
    };
    let (t, o) = review("J02_ws.json");
    assert!(t.is_empty());
    assert!(o.iter().any(|e| e.contains("traceId")), "{o:?}");
    let (t, o) = review("JG08_spanid_bad.json");
    assert!(t.is_empty());
    assert!(o.iter().any(|e| e.contains("spanID")), "{o:?}");
    let (t, o) = review("S02_resource_gen_ai.json");
    assert!(t.is_empty());
    assert!(
        o.iter()
            .any(|e| e.starts_with("error:") && e.contains("gen_ai.")),
        "{o:?}"
    );
}

/// An LLM, tool or agent span may enter a trace from a remote caller
/// once; two such entries, or one beside the trace's own root, hide lost
/// spans between them: the trace is cut off.
#[test]
fn a_second_remote_entry_or_one_beside_the_root_is_a_cut_off() {
    let read = |f: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/otel-review")
            .join(f);
        let (t, o) = import(&path, &ImportOptions::default()).unwrap();
        assert!(o.is_empty(), "{f}: {o:?}");
        t[0].incomplete.clone()
    };
    for f in [
        "R01_two_remote_entries.json",
        "R02_remote_agent_beside_root.json",
    ] {
        let why = read(f).unwrap_or_default();
        assert!(why.contains("cut off"), "{f}: {why}");
    }
    assert_eq!(read("R03_one_remote_entry.json"), None);
}
