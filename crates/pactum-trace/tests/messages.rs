//! Provider and framework recordings: Anthropic Messages and Gemini
//! cassettes, the Claude Agent SDK stream, LangSmith run trees. Fixtures
//! under `fixtures/{anthropic,gemini,langsmith}/` (excerpts of the real
//! files, provenance in `fixtures/README.md`, and hand-made violations),
//! and the real files of `$PACTUM_DATA_DIR/traces/` compared with the
//! independent count of `bench/trace-counts.py`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::trace::{ObservabilityLevel, Trace};
use pactum_trace::{read_traces, ImportError, ImportOptions, Item, TraceFormat};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
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

/// Per trace its id, level, `observed`, error, incompleteness, and per
/// turn the input texts, the response and the calls.
fn summary(t: &Trace) -> serde_json::Value {
    serde_json::json!({
        "id": t.id,
        "level": t.observability.as_str(),
        "format": t.metadata["format"],
        "observed": t.metadata["observed"],
        "error": t.error,
        "incomplete": t.incomplete,
        "turns": t.turns.iter().map(|turn| serde_json::json!({
            "input": turn.input.iter().map(|m| m.content.chars().take(40).collect::<String>()).collect::<Vec<_>>(),
            "response": turn.response.as_ref().map(|r| r.chars().take(60).collect::<String>()),
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

/// What pactum imported, in the script's words.
fn pactum_line(path: &Path) -> String {
    match import(path, &ImportOptions::default()) {
        Ok((t, o)) if t.is_empty() && !o.is_empty() => "refused".into(),
        Ok((t, o)) => {
            assert!(o.is_empty(), "{}: {o:?}", path.display());
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

fn files_in(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut these: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
        .collect();
    these.sort();
    these
}

/// Every real file of the provider and framework folders: pactum's counts
/// equal the independent count of `bench/trace-counts.py`, file by file,
/// and every file is imported. Fails without the data.
#[test]
#[ignore = "real data: run by .ci/real-data"]
fn real_data_message_counts_match_the_independent_script() {
    let dir = std::env::var("PACTUM_DATA_DIR").expect(
        "PACTUM_DATA_DIR is not set: the real-data check needs ../shared/data (run .ci/real-data)",
    );
    let mut files = Vec::new();
    for sub in [
        "anthropic-messages",
        "gemini-contents",
        "langsmith",
        "langfuse",
    ] {
        let these = files_in(&Path::new(&dir).join("traces").join(sub), &["yaml", "json"]);
        assert!(!these.is_empty(), "no file in {sub}");
        files.extend(these);
    }
    for f in &files {
        match import(f, &ImportOptions::default()) {
            Ok((t, o)) => {
                for x in &o {
                    println!("  {}", x.chars().take(400).collect::<String>());
                }
                for x in &t {
                    let shown: String = summary(x).to_string().chars().take(1500).collect();
                    println!("  {}: {shown}", f.file_name().unwrap().to_string_lossy());
                }
            }
            Err(e) => println!("  {e}"),
        }
    }
    let imported = agree_with_script(&files);
    assert_eq!(imported, files.len(), "every real file imports");
}

#[test]
fn anthropic_cassette_reads_the_reply_calls_json_and_streamed_alike() {
    let plain = one("anthropic/weather_cassette.yaml");
    let streamed = one("anthropic/weather_streamed_cassette.yaml");
    for s in [&plain, &streamed] {
        assert_eq!(s["format"], "anthropic");
        assert_eq!(s["level"], "tool_calls");
        let calls = &s["turns"][0]["calls"];
        assert_eq!(calls[0][0], "get_weather", "{s}");
        assert_eq!(calls[0][2], serde_json::json!({"location": "New York, NY"}));
        assert_eq!(calls[1][0], "get_time");
        // The streamed input is the concatenated partial_json fragments.
        assert_eq!(
            calls[1][2],
            serde_json::json!({"timezone": "America/New_York"})
        );
    }
}

#[test]
fn anthropic_is_error_makes_the_call_errored_joined_by_trimmed_id() {
    let s = one("anthropic/tool_error_cassette.yaml");
    let call = &s["turns"][0]["calls"][0];
    assert_eq!(call[0], "transfer_funds");
    assert_eq!(call[1], "toolu_X1");
    assert_eq!(call[4], "insufficient funds", "{s}");
    // Thinking is reasoning, not the response.
    assert_eq!(
        s["turns"][0]["response"],
        "Transferring.\n\nThe transfer failed: insufficient funds."
    );
    let (t, _) = auto("anthropic/tool_error_cassette.yaml");
    assert_eq!(t[0].metadata["reasoning_blocks"], 1);
}

#[test]
fn anthropic_reply_without_content_is_unobserved_never_empty() {
    let s = one("anthropic/content_not_recorded.yaml");
    assert_eq!(s["turns"][0]["response"], "Hello! How can I help?");
    assert_eq!(s["turns"][1]["response"], serde_json::Value::Null);
    assert_eq!(s["level"], "response_only");
    assert_eq!(s["observed"]["response"], false);
}

#[test]
fn unknown_blocks_and_parts_are_refused_naming_the_field() {
    let (t, o) = auto("anthropic/unknown_block.yaml");
    assert!(t.is_empty());
    assert!(
        o[0].contains("/interactions/0/response/body/string/content/0/type")
            && o[0].contains("container_upload"),
        "{o:?}"
    );
    let (t, o) = auto("gemini/unknown_part.yaml");
    assert!(t.is_empty());
    assert!(
        o[0].contains("candidates/0/content/parts/0/executableCode"),
        "{o:?}"
    );
}

/// A one-interaction Anthropic cassette whose reply is the event stream
/// of `events` (each a `data:` line after its `event:` line).
fn anthropic_stream(dir: &Path, events: &[serde_json::Value]) -> (Vec<Trace>, Vec<String>) {
    let mut sse = String::new();
    for e in events {
        sse.push_str(&format!(
            "event: {}\ndata: {e}\n\n",
            e["type"].as_str().unwrap()
        ));
    }
    let request = serde_json::json!({"model": "claude", "max_tokens": 10, "stream": true,
        "messages": [{"role": "user", "content": "clean tmp"}]});
    let yaml = format!(
        "interactions:\n- request:\n    body: {}\n    headers: {{}}\n    method: POST\n    uri: https://api.anthropic.com/v1/messages\n  response:\n    body:\n      string: {}\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
        serde_json::Value::String(request.to_string()),
        serde_json::Value::String(sse)
    );
    let p = dir.join("cassette.yaml");
    std::fs::write(&p, yaml).unwrap();
    import(&p, &ImportOptions::default()).unwrap()
}

#[test]
fn anthropic_stream_restarting_a_block_or_message_or_going_on_after_its_stop_is_refused() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let start = |content: serde_json::Value| {
        json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
               "model": "c", "content": content, "stop_reason": null, "usage": {}}})
    };
    let block = |i: u64, b: serde_json::Value| json!({"type": "content_block_start", "index": i, "content_block": b});
    let delete = json!({"type": "tool_use", "id": "tu1", "name": "delete_file", "input": {}});
    let text = json!({"type": "text", "text": ""});
    let args = json!({"type": "content_block_delta", "index": 0,
                      "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"/etc\"}"}});
    let words = |i: u64| json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": "ok"}});
    let stop_block = |i: u64| json!({"type": "content_block_stop", "index": i});
    let end = json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}});
    let stop = json!({"type": "message_stop"});
    let one_message = vec![
        start(json!([])),
        block(0, delete.clone()),
        args.clone(),
        stop_block(0),
        end.clone(),
        stop.clone(),
    ];
    // Read as recorded: the call and its streamed arguments.
    let (t, o) = anthropic_stream(dir.path(), &one_message);
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(
        summary(&t[0])["turns"][0]["calls"][0],
        json!(["delete_file", "tu1", {"path": "/etc"}, null, null])
    );
    let mut two_messages = one_message.clone();
    two_messages.extend([
        start(json!([])),
        block(0, text.clone()),
        words(0),
        stop_block(0),
        end.clone(),
        stop.clone(),
    ]);
    let cases = [
        (
            two_messages,
            "(event stream line 20)",
            "a second `message_start`",
        ),
        (
            vec![
                start(json!([])),
                block(0, delete.clone()),
                args.clone(),
                block(0, text.clone()),
                words(0),
                stop_block(0),
                end.clone(),
                stop.clone(),
            ],
            "(event stream line 11)",
            "content block 0 starts again",
        ),
        (
            vec![
                start(json!([])),
                block(0, text.clone()),
                words(0),
                stop_block(0),
                end.clone(),
                stop.clone(),
                block(1, delete.clone()),
            ],
            "(event stream line 20)",
            "after `message_stop`",
        ),
        (
            vec![
                start(json!([])),
                block(0, text.clone()),
                stop_block(0),
                words(0),
                end.clone(),
                stop.clone(),
            ],
            "(event stream line 11)",
            "a delta for block 0 after its `content_block_stop`",
        ),
        (
            vec![
                block(0, delete.clone()),
                start(json!([])),
                end.clone(),
                stop.clone(),
            ],
            "(event stream line 2)",
            "before `message_start`",
        ),
    ];
    for (events, line, want) in cases {
        let (t, o) = anthropic_stream(dir.path(), &events);
        assert!(t.is_empty(), "{want}: {:?}", t.first().map(summary));
        assert!(
            o.len() == 1 && o[0].contains(line) && o[0].contains(want),
            "{want}: {o:?}"
        );
    }
    // Blocks `message_start` already holds are the reply's first blocks.
    let (t, o) = anthropic_stream(
        dir.path(),
        &[
            start(json!([delete.clone()])),
            block(1, text.clone()),
            words(1),
            stop_block(1),
            end.clone(),
            stop.clone(),
        ],
    );
    assert!(o.is_empty(), "{o:?}");
    let s = summary(&t[0]);
    assert_eq!(s["turns"][0]["calls"][0][0], "delete_file", "{s}");
    assert_eq!(s["turns"][0]["response"], "ok");
    let (t, o) = anthropic_stream(
        dir.path(),
        &[
            start(json!([delete.clone()])),
            block(0, text),
            words(0),
            stop_block(0),
            end,
            stop,
        ],
    );
    assert!(t.is_empty());
    assert!(
        o.len() == 1 && o[0].contains("content block 0 starts again"),
        "{o:?}"
    );
}

#[test]
fn agent_sdk_stream_is_one_run() {
    let s = one("anthropic/agent_sdk_excerpt.yaml");
    assert_eq!(s["id"], "493eec35-215c-4b7b-a7e3-94cce106a7f5");
    let call = &s["turns"][0]["calls"][0];
    assert_eq!(call[0], "Bash");
    assert!(call[3].as_str().unwrap().contains("2440"), "{s}");
}

#[test]
fn gemini_calls_without_ids_join_by_name_and_order_and_status_error_is_errored() {
    let s = one("gemini/order_join.yaml");
    assert_eq!(s["format"], "gemini");
    let calls = s["turns"][0]["calls"].as_array().unwrap();
    // The replayed reply is one conversation: two calls, not four.
    assert_eq!(calls.len(), 2, "{s}");
    assert_eq!(calls[0][2], serde_json::json!({"to": "Bob", "amount": 5}));
    assert_eq!(calls[0][4], "Bob is blocked");
    assert_eq!(calls[1][2], serde_json::json!({"to": "Eve", "amount": 7}));
    assert_eq!(calls[1][4], serde_json::Value::Null);
    assert_eq!(calls[1][3], serde_json::json!({"status": "success"}));
    let (t, _) = auto("gemini/order_join.yaml");
    assert_eq!(t[0].metadata["interactions"], serde_json::json!([1, 2]));
}

#[test]
fn gemini_reply_of_several_candidates_is_refused() {
    // The second candidate calls `delete_file`: which one the application
    // acted on is not recorded, so neither is read.
    let cassette = r#"interactions:
- request:
    body: "{\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"clean tmp\"}]}]}"
    uri: https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent
  response:
    body:
      string: "{\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"text\": \"nothing to do\"}]}, \"finishReason\": \"STOP\", \"index\": 0}, {\"content\": {\"role\": \"model\", \"parts\": [{\"functionCall\": {\"name\": \"delete_file\", \"args\": {\"path\": \"/etc/x\"}}}]}, \"finishReason\": \"STOP\", \"index\": 1}]}"
    status:
      code: 200
"#;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("two.yaml");
    std::fs::write(&p, cassette).unwrap();
    let (t, o) = import(&p, &ImportOptions::default()).unwrap();
    assert!(
        t.is_empty(),
        "{:?}",
        t.iter().map(summary).collect::<Vec<_>>()
    );
    assert!(
        o.len() == 1
            && o[0].contains("/interactions/0/response/body/string/candidates")
            && o[0].contains("2 candidates"),
        "{o:?}"
    );
}

#[test]
fn gemini_answer_naming_another_function_is_never_paired() {
    let s = one("gemini/unmatched_answer.yaml");
    let call = &s["turns"][0]["calls"][0];
    assert_eq!(call[0], "get_weather");
    assert_eq!(call[3], serde_json::Value::Null, "{s}");
    assert!(s["incomplete"].is_string(), "{s}");
}

#[test]
fn explicit_format_and_level_flag() {
    let opts = ImportOptions {
        format: TraceFormat::Gemini,
        observability: Some(ObservabilityLevel::Full),
        ..ImportOptions::default()
    };
    let (t, o) = import(&fixture("gemini/weather_cassette.yaml"), &opts).unwrap();
    assert!(o.is_empty());
    // The flag can only lower the level the data shows.
    assert_eq!(t[0].observability, ObservabilityLevel::ToolCalls);
    assert!(t[0].metadata["observability_warning"].is_string());
    // A Gemini cassette read as Anthropic: refused, naming the field.
    let opts = ImportOptions {
        format: TraceFormat::Anthropic,
        ..ImportOptions::default()
    };
    let (t, o) = import(&fixture("gemini/weather_cassette.yaml"), &opts).unwrap();
    assert!(t.is_empty());
    assert!(
        o[0].contains("/interactions/0/request/body/messages"),
        "{o:?}"
    );
}

#[test]
fn the_same_file_imports_to_the_same_bytes() {
    for f in [
        "anthropic/weather_streamed_cassette.yaml",
        "gemini/order_join.yaml",
    ] {
        let a = serde_json::to_string(&auto(f).0).unwrap();
        let b = serde_json::to_string(&auto(f).0).unwrap();
        assert_eq!(a, b);
    }
}

#[test]
fn the_independent_count_agrees_on_every_fixture() {
    let mut files = Vec::new();
    for sub in ["anthropic", "gemini"] {
        files.extend(files_in(&fixture(sub), &["yaml", "json"]));
    }
    let imported = agree_with_script(&files);
    assert_eq!(
        imported,
        files.len() - 2,
        "all but the two unknown-type fixtures"
    );
}

#[test]
fn langsmith_create_and_update_join_into_one_llm_call() {
    let s = one("langsmith/wrap_openai_default.json");
    assert_eq!(s["id"], "dc34609e-3eeb-459d-bc2a-6fedb01d2e6e");
    assert_eq!(s["turns"][0]["input"][0], "howdy");
    assert_eq!(
        s["turns"][0]["response"],
        "Howdy! How can I assist you today?"
    );
    assert_eq!(s["level"], "tool_calls");
}

#[test]
fn langsmith_tool_run_in_error_is_the_errored_call_of_the_llm_run() {
    let s = one("langsmith/agent_with_tool_run.json");
    let calls = s["turns"][0]["calls"].as_array().unwrap();
    // The call in the llm run's output and the tool run are one call.
    assert_eq!(calls.len(), 1, "{s}");
    assert_eq!(calls[0][0], "transfer_funds");
    assert_eq!(calls[0][2], serde_json::json!({"to": "42", "amount": 500}));
    assert_eq!(calls[0][4], "PermissionError: transfers are disabled");
    assert_eq!(
        s["turns"][0]["response"],
        "The transfer failed: transfers are disabled."
    );
    // Every run ended (the chain and the second LLM run by their patches).
    assert_eq!(s["incomplete"], serde_json::Value::Null, "{s}");
}

#[test]
fn langsmith_fixtures_agree_with_the_independent_count() {
    let files = files_in(&fixture("langsmith"), &["json"]);
    assert_eq!(agree_with_script(&files), files.len());
}

/// A LangSmith run (`end_time` 1728803138000 unless `end` says otherwise:
/// `Some(null)` writes `null`, `None` leaves the key out).
fn ls_run(
    id: &str,
    name: &str,
    run_type: &str,
    trace: &str,
    parent: Option<&str>,
    end: Option<serde_json::Value>,
) -> serde_json::Value {
    let mut r = serde_json::json!({"id": id, "name": name, "run_type": run_type, "trace_id": trace,
        "start_time": 1728803137000_u64, "inputs": {}, "outputs": null});
    if let Some(p) = parent {
        r["parent_run_id"] = serde_json::json!(p);
    }
    if let Some(e) = end {
        r["end_time"] = e;
    }
    if run_type == "llm" {
        r["inputs"] = serde_json::json!({"messages": [{"role": "user", "content": "clean tmp"}]});
        r["outputs"] = serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Done, nothing deleted."}}]});
    }
    r
}

fn ls_import(post: serde_json::Value) -> (Vec<Trace>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("runs.json");
    std::fs::write(
        &p,
        serde_json::json!({"post": post, "patch": []}).to_string(),
    )
    .unwrap();
    import(&p, &ImportOptions::default()).unwrap()
}

#[test]
fn langsmith_run_not_ended_or_parent_not_exported_makes_the_trace_incomplete() {
    let ended = Some(serde_json::json!(1728803138000_u64));
    let llm = ls_run("l", "ChatOpenAI", "llm", "t", Some("r"), ended.clone());
    // Complete: every run ended, every parent present.
    let (t, o) = ls_import(serde_json::json!([
        ls_run("r", "Agent", "chain", "t", None, ended.clone()),
        llm
    ]));
    assert!(o.is_empty(), "{o:?}");
    assert_eq!(t[0].incomplete, None);
    // The root never ended (`null`, or no key): the agent may have gone on
    // to call tools after what the file shows.
    for end in [Some(serde_json::Value::Null), None] {
        let (t, o) = ls_import(serde_json::json!([
            ls_run("r", "Agent", "chain", "t", None, end),
            llm
        ]));
        assert!(o.is_empty(), "{o:?}");
        assert!(
            t[0].incomplete
                .as_deref()
                .is_some_and(|i| i.contains("run `Agent` (`r`) has not ended")),
            "{:?}",
            t[0].incomplete
        );
    }
    // The parent run is not in the file: an export that stopped early.
    let (t, o) = ls_import(serde_json::json!([llm]));
    assert!(o.is_empty(), "{o:?}");
    assert!(
        t[0].incomplete
            .as_deref()
            .is_some_and(|i| i.contains("names a parent run `r` the file does not hold")),
        "{:?}",
        t[0].incomplete
    );
}

#[test]
fn langsmith_run_whose_parent_is_in_another_trace_is_an_error() {
    let ended = Some(serde_json::json!(1728803138000_u64));
    let mut tool = ls_run(
        "d",
        "delete_file",
        "tool",
        "other",
        Some("r"),
        ended.clone(),
    );
    tool["inputs"] = serde_json::json!({"path": "/etc"});
    let (t, o) = ls_import(serde_json::json!([
        ls_run("r", "Agent", "chain", "t", None, ended.clone()),
        ls_run("l", "ChatOpenAI", "llm", "t", Some("r"), ended),
        tool
    ]));
    // Neither trace is graded: which one the call belongs to is not known.
    assert!(
        t.is_empty(),
        "{:?}",
        t.iter().map(summary).collect::<Vec<_>>()
    );
    assert_eq!(o.len(), 2, "{o:?}");
    assert!(
        o.iter().all(|e| e.contains("/post/2/parent_run_id")),
        "{o:?}"
    );
    assert!(
        o.iter()
            .any(|e| e.contains("of trace `other` names a parent run `r` in trace `t`"))
            && o.iter()
                .any(|e| e.contains("trace `t`: its run `r` is named as the parent")),
        "{o:?}"
    );
}

#[test]
fn langsmith_several_choices_or_generations_are_refused() {
    let ended = Some(serde_json::json!(1728803138000_u64));
    let del = serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "delete_file", "arguments": "{}"}}]});
    let mut two = ls_run("l", "ChatOpenAI", "llm", "t", Some("r"), ended.clone());
    two["outputs"] = serde_json::json!({"choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Done."}},
        {"index": 1, "message": del}]});
    let mut gens = ls_run("l", "ChatOpenAI", "llm", "t", Some("r"), ended.clone());
    gens["outputs"] = serde_json::json!({"generations": [[
        {"text": "Done."},
        {"text": "", "message": {"type": "ai", "content": "", "tool_calls": [{"name": "delete_file", "args": {}, "id": "c", "type": "tool_call"}]}}]]});
    for (llm, want) in [
        (two, "/post/1/outputs/choices"),
        (gens, "/post/1/outputs/generations"),
    ] {
        let (t, o) = ls_import(serde_json::json!([
            ls_run("r", "Agent", "chain", "t", None, ended.clone()),
            llm
        ]));
        assert!(t.is_empty(), "{want}");
        assert!(
            o.len() == 1 && o[0].contains(want) && o[0].contains("2 choices"),
            "{want}: {o:?}"
        );
    }
}

#[test]
fn langfuse_tool_observation_and_generation_call_are_one_errored_call() {
    let s = one("langfuse/tool_error.trace.json");
    assert_eq!(s["format"], "langfuse");
    let calls = s["turns"][0]["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "never double counted: {s}");
    assert_eq!(calls[0][0], "transfer_funds");
    assert_eq!(calls[0][1], "call_9");
    // The `{input: …}` wrapper is unwrapped only because the generation's
    // call has exactly those arguments.
    assert_eq!(calls[0][2], serde_json::json!({"to": "42", "amount": 500}));
    assert_eq!(calls[0][4], "account locked");
    // The tool definition listed as a `tool` message is not the input.
    assert_eq!(s["turns"][0]["input"][0], "Move 500 to account 42.");
    assert_eq!(
        s["turns"][0]["response"],
        "The transfer failed: the account is locked."
    );
}

#[test]
fn langfuse_generation_without_output_leaves_the_response_unobserved() {
    let s = one("langfuse/output_not_captured.trace.json");
    assert_eq!(s["id"], "sess-9");
    assert_eq!(s["turns"][0]["response"], serde_json::Value::Null);
    assert_eq!(s["observed"]["response"], false);
}

#[test]
fn langfuse_real_excerpt_joins_the_tool_to_the_generation_call_by_id() {
    let s = one("langfuse/microsoft_agent.trace.json");
    let calls = s["turns"][0]["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{s}");
    assert_eq!(calls[0][0], "get_weather");
    assert_eq!(calls[0][2], serde_json::json!({"location": "Tokyo, Japan"}));
}

#[test]
fn langfuse_detection_picks_one_reader_and_says_which() {
    // OpenInference attributes → langfuse-otel; none → langfuse.
    let (t, _) = auto("otel/langfuse_openinference_excerpt.json");
    assert_eq!(t[0].metadata["format"], "langfuse-otel");
    let (t, _) = auto("langfuse/tool_error.trace.json");
    assert_eq!(t[0].metadata["format"], "langfuse");
    // The explicit format reads an OpenInference export by its own fields.
    let opts = ImportOptions {
        format: TraceFormat::Langfuse,
        ..ImportOptions::default()
    };
    let (t, _) = import(&fixture("otel/langfuse_openinference_excerpt.json"), &opts).unwrap();
    assert_eq!(t[0].metadata["format"], "langfuse");
}

/// `fixtures/langfuse/tool_error.trace.json` with `extra` observations
/// (under the root span) and, when `defined` is given, one more tool
/// definition among the first generation's input messages.
fn lf_import(extra: &[serde_json::Value], defined: Option<&str>) -> (Vec<Trace>, Vec<String>) {
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("langfuse/tool_error.trace.json")).unwrap(),
    )
    .unwrap();
    let obs = doc["observations"].as_array_mut().unwrap();
    if let Some(name) = defined {
        let mut input: serde_json::Value =
            serde_json::from_str(obs[1]["input"].as_str().unwrap()).unwrap();
        input.as_array_mut().unwrap().push(serde_json::json!(
            {"role": "tool", "content": {"type": "function", "function": {"name": name, "parameters": {}}}}));
        obs[1]["input"] = serde_json::json!(input.to_string());
    }
    obs.extend(extra.iter().cloned());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("lf.json");
    std::fs::write(&p, doc.to_string()).unwrap();
    let opts = ImportOptions {
        format: TraceFormat::Langfuse,
        ..ImportOptions::default()
    };
    import(&p, &opts).unwrap()
}

/// An observation named `delete_file` under the root span, with
/// arguments and a result.
fn lf_obs(id: &str, ty: Option<&str>) -> serde_json::Value {
    let mut o = serde_json::json!({"id": id, "traceId": "lf-tool-error", "parentObservationId": "obs-1",
        "name": "delete_file", "startTime": "2025-01-01T00:00:01.250Z", "endTime": "2025-01-01T00:00:01.260Z",
        "level": "DEFAULT", "statusMessage": null,
        "input": "{\"path\": \"/etc\"}", "output": "\"deleted\"", "metadata": "{}"});
    if let Some(t) = ty {
        o["type"] = serde_json::json!(t);
    }
    o
}

fn call_names(t: &Trace) -> Vec<String> {
    t.tool_calls().map(|(_, c)| c.name.clone()).collect()
}

#[test]
fn langfuse_observation_type_pactum_does_not_know_is_an_error() {
    for ty in [Some("FOO"), Some("tool"), None] {
        let (t, o) = lf_import(&[lf_obs("obs-9", ty)], None);
        assert!(t.is_empty(), "{ty:?}: {:?}", t.first().map(call_names));
        assert!(
            o.len() == 1
                && o[0].contains("/observations/4/type")
                && o[0].contains("observation type"),
            "{ty:?}: {o:?}"
        );
    }
}

#[test]
fn langfuse_span_with_a_tool_name_is_a_call_and_an_unnamed_one_cuts_off() {
    // Named after a tool the generations were offered (or called): the
    // tool's execution, whatever its observation type.
    for ty in ["SPAN", "CHAIN", "EVENT", "RETRIEVER", "GUARDRAIL"] {
        let (t, o) = lf_import(&[lf_obs("obs-9", Some(ty))], Some("delete_file"));
        assert!(o.is_empty(), "{ty}: {o:?}");
        assert_eq!(call_names(&t[0]), ["transfer_funds", "delete_file"], "{ty}");
        assert_eq!(
            t[0].tool_calls().nth(1).unwrap().1.arguments,
            serde_json::json!({"path": "/etc"})
        );
    }
    // Named after nothing the trace shows: a generic observation that
    // recorded arguments and a result may have been a tool: absences
    // prove nothing.
    for ty in ["SPAN", "CHAIN", "EVENT"] {
        let (t, o) = lf_import(&[lf_obs("obs-9", Some(ty))], None);
        assert!(o.is_empty(), "{ty}: {o:?}");
        assert_eq!(call_names(&t[0]), ["transfer_funds"], "{ty}");
        assert!(
            t[0].incomplete.as_deref().is_some_and(|i| i.contains(
                "observation `delete_file` (`obs-9`, /observations/4) recorded an input and an output"
            )),
            "{ty}: {:?}",
            t[0].incomplete
        );
    }
    // One under which an LLM call ran is structure (the call says what it
    // did), and one whose type says what it is is read as that.
    let mut parent = lf_obs("obs-9", Some("SPAN"));
    parent["name"] = serde_json::json!("helper");
    let mut child = lf_obs("obs-10", Some("GENERATION"));
    child["name"] = serde_json::json!("ChatOpenAI");
    child["parentObservationId"] = serde_json::json!("obs-9");
    child["input"] = serde_json::json!("Summarise.");
    child["output"] = serde_json::json!("Nothing to summarise.");
    for (extra, ty) in [
        (vec![parent, child], "SPAN"),
        (vec![lf_obs("obs-9", Some("RETRIEVER"))], "RETRIEVER"),
    ] {
        let (t, o) = lf_import(&extra, None);
        assert!(o.is_empty(), "{ty}: {o:?}");
        assert_eq!(call_names(&t[0]), ["transfer_funds"], "{ty}");
        assert_eq!(t[0].incomplete, None, "{ty}");
    }
}

#[test]
fn langfuse_reads_responses_api_generations_by_its_own_fields() {
    let opts = ImportOptions {
        format: TraceFormat::Langfuse,
        ..ImportOptions::default()
    };
    let (t, o) = import(
        &fixture("langfuse/openai_agents_responses.trace.json"),
        &opts,
    )
    .unwrap();
    assert!(o.is_empty(), "{o:?}");
    let s = summary(&t[0]);
    assert_eq!(s["format"], "langfuse");
    assert_eq!(s["incomplete"], serde_json::Value::Null);
    assert_eq!(s["turns"].as_array().unwrap().len(), 1, "{s}");
    assert_eq!(s["turns"][0]["input"][0], "What's the weather in Tokyo?");
    let calls = s["turns"][0]["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{s}");
    assert_eq!(calls[0][0], "get_weather");
    assert_eq!(calls[0][1], "call_Kud0j0DxWSmLzv9W5m6qVqXn");
    assert_eq!(calls[0][2], serde_json::json!({"city": "Tokyo"}));
    assert_eq!(calls[0][3], "The weather in Tokyo is sunny.");
    assert!(s["turns"][0]["response"]
        .as_str()
        .unwrap()
        .starts_with("The weather in Tokyo is currently sunny."));
    // An output item pactum does not read (a hosted tool's call) is an
    // error, never skipped.
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("langfuse/openai_agents_responses.trace.json")).unwrap(),
    )
    .unwrap();
    let mut out: serde_json::Value =
        serde_json::from_str(doc["observations"][2]["output"].as_str().unwrap()).unwrap();
    out["output"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"type": "web_search_call", "id": "ws_1", "status": "completed"}));
    doc["observations"][2]["output"] = serde_json::json!(out.to_string());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("lf.json");
    std::fs::write(&p, doc.to_string()).unwrap();
    let (t, o) = import(&p, &opts).unwrap();
    assert!(t.is_empty());
    assert!(
        o.len() == 1
            && o[0].contains("/observations/2/output/output/1/type")
            && o[0].contains("web_search_call"),
        "{o:?}"
    );
}

#[test]
fn langfuse_fixtures_agree_with_the_independent_count() {
    let files = files_in(&fixture("langfuse"), &["json"]);
    assert_eq!(agree_with_script(&files), files.len());
}

#[test]
fn langchain_constructors_and_invalid_calls_are_read_never_dropped() {
    for format in [TraceFormat::Langchain, TraceFormat::Auto] {
        let opts = ImportOptions {
            format,
            ..ImportOptions::default()
        };
        let (t, o) = import(&fixture("langchain/constructors.jsonl"), &opts).unwrap();
        assert_eq!(t.len(), 1, "{format:?}: {o:?}");
        let s = summary(&t[0]);
        let calls = s["turns"][0]["calls"].as_array().unwrap();
        assert_eq!(calls.len(), 2, "{s}");
        assert_eq!(calls[0][0], "transfer_funds");
        assert_eq!(calls[0][3], "done");
        // An invalid call was made and errored; its arguments stay the
        // recorded text (a Python repr), never `{}`.
        assert_eq!(calls[1][0], "delete_file");
        assert_eq!(calls[1][2], "{'path': '/'}");
        assert!(
            calls[1][4].as_str().unwrap().contains("not valid JSON"),
            "{s}"
        );
        // An unknown message type is an error naming the field.
        assert_eq!(o.len(), 1, "{o:?}");
        assert!(
            o[0].contains("/messages/1/type") && o[0].contains("robot"),
            "{o:?}"
        );
    }
}

#[test]
fn a_yaml_recording_that_is_neither_or_both_is_refused_naming_why() {
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("both.yaml");
    std::fs::write(
        &both,
        "interactions:\n- request:\n    body: '{\"messages\": []}'\n    uri: https://api.anthropic.com/v1/messages\n- request:\n    body: '{\"contents\": []}'\n    uri: https://generativelanguage.googleapis.com/v1beta/models/m:generateContent\n",
    )
    .unwrap();
    let e = import(&both, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("both Anthropic and Gemini"), "{e}");
    let other = dir.path().join("other.yaml");
    std::fs::write(&other, "interactions:\n- request:\n    body: '{}'\n    uri: https://api.openai.com/v1/chat/completions\n").unwrap();
    let e = import(&other, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("neither Anthropic Messages"), "{e}");
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "interactions:\n  - a: [\n").unwrap();
    let e = import(&broken, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("invalid YAML"), "{e}");
}

#[test]
fn json_conversations_under_a_provider_format_point_to_openai() {
    let opts = ImportOptions {
        format: TraceFormat::Anthropic,
        ..ImportOptions::default()
    };
    let e = import(&fixture("anthropic_messages.jsonl"), &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--format openai"), "{e}");
    // The same file is read as openai conversations.
    let opts = ImportOptions {
        observability: Some(ObservabilityLevel::ToolCalls),
        ..ImportOptions::default()
    };
    let (t, o) = import(&fixture("anthropic_messages.jsonl"), &opts).unwrap();
    assert_eq!(t.len(), 2, "{o:?}");
}
