//! Integration tests of the importers: fixtures, the real data (ignored;
//! `bash .ci/real-data`), streaming, the schema, and round trips.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::trace::{Channel, ObservabilityLevel as L, Role, Trace};
use pactum_trace::{
    read_traces, ColumnMap, EndMarker, ImportError, ImportOptions, Item, ReadStats, TraceFormat,
};
use serde_json::{json, Value};

mod util {
    use super::*;

    /// Fixture paths are relative (tests run in the crate folder), so
    /// messages that name them are stable for snapshots.
    pub fn fixture(name: &str) -> PathBuf {
        Path::new("fixtures").join(name)
    }

    pub fn opts(format: TraceFormat, level: Option<L>) -> ImportOptions {
        ImportOptions {
            format,
            observability: level,
            ..ImportOptions::default()
        }
    }

    pub fn read(path: &Path, opts: &ImportOptions) -> Result<(Vec<Item>, ReadStats), ImportError> {
        let mut items = Vec::new();
        let stats = read_traces(path, opts, &mut |item| {
            items.push(item);
            ControlFlow::Continue(())
        })?;
        Ok((items, stats))
    }

    pub fn traces(items: &[Item]) -> Vec<&Trace> {
        items
            .iter()
            .filter_map(|i| match i {
                Item::Trace(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    /// Every item as one line: what a user would read.
    pub fn describe(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Trace(t) => format!(
                    "trace {} (line {})",
                    t.id,
                    t.source.as_ref().map_or(0, |s| s.line)
                ),
                Item::Skipped { line, reason } => format!("skipped line {line}: {reason}"),
                Item::Error(e) => format!("error {e}"),
            })
            .collect()
    }

    /// `rel` under the real-data folder (`PACTUM_DATA_DIR`, set by `bash
    /// .ci/real-data` to `../shared/data`). Real-data tests are ignored by
    /// `cargo test`; run without the data they fail loudly, never skip.
    pub fn real_data(rel: &str) -> PathBuf {
        let Some(root) = std::env::var_os("PACTUM_DATA_DIR") else {
            panic!(
                "PACTUM_DATA_DIR is not set: real-data tests run through `bash .ci/real-data`, which points it at ../shared/data"
            );
        };
        let p = Path::new(&root).join(rel);
        assert!(
            p.exists(),
            "the real data is missing: {} does not exist",
            p.display()
        );
        p
    }
}
use util::*;

#[path = "import/parallel.rs"]
mod parallel;
#[path = "import/vendors.rs"]
mod vendors;

// ---------------------------------------------------------------- pactum

#[test]
fn pactum_single_object_file() {
    let (items, stats) = read(
        &fixture("pactum_trace.json"),
        &opts(TraceFormat::Pactum, None),
    )
    .unwrap();
    assert_eq!((stats.traces, stats.skipped, stats.errors), (1, 0, 0));
    let t = traces(&items)[0];
    assert_eq!(t.id, "refund-042");
    assert_eq!(t.observability, L::Full);
    assert_eq!(t.turns.len(), 2);
    let turn = &t.turns[0];
    assert_eq!(turn.input.len(), 2);
    assert_eq!(turn.input[0].role, Role::System);
    assert_eq!(turn.tool_calls.len(), 3);
    assert_eq!(
        turn.tool_calls[1].error.as_deref(),
        Some("payment gateway timeout")
    );
    assert_eq!(
        turn.tool_calls[0].result,
        Some(json!({"status": "delivered", "amount": 25.0}))
    );
    assert_eq!(turn.side_effects[0].kind, "payment_refund");
    assert_eq!(turn.latency_ms, Some(2140));
    assert_eq!(turn.usage.map(|u| u.completion_tokens), Some(64));
    assert_eq!(t.turns[1].response, None);
    assert_eq!(t.field("/labels/refund_ok"), Some(&json!(true)));
    assert_eq!(t.error.as_deref(), Some("the target timed out on turn 2"));
    let src = t.source.as_ref().unwrap();
    assert_eq!(
        (src.file.as_str(), src.line),
        ("fixtures/pactum_trace.json", 1)
    );
}

#[test]
fn pactum_array_and_jsonl_lines() {
    let (items, _) = read(
        &fixture("pactum_traces.json"),
        &opts(TraceFormat::Pactum, None),
    )
    .unwrap();
    assert_eq!(describe(&items), ["trace a (line 2)", "trace b (line 9)"]);
    let b = traces(&items)[1];
    assert_eq!(b.observability, L::ToolCalls);
    assert_eq!(b.turns[0].response.as_deref(), Some(""));
    assert_eq!(b.turns[0].tool_calls[0].arguments, json!({"city": "Paris"}));

    let (items, stats) = read(
        &fixture("pactum_traces.jsonl"),
        &opts(TraceFormat::Pactum, None),
    )
    .unwrap();
    assert_eq!(
        describe(&items),
        [
            "trace t1 (line 1)",
            "trace t2 (line 2)",
            "trace t3 (line 4)"
        ]
    );
    assert_eq!(stats.channel_tally.traces(L::Full), 2);
    assert_eq!(
        stats.channel_tally.reporting(L::Full, Channel::SideEffects),
        1
    );
    assert_eq!(
        stats.channel_tally.silent_channels(),
        [(L::ToolCalls, Channel::ToolCalls, 1)]
    );
}

#[test]
fn observability_file_wins_flag_fills_in_none_refuses() {
    let path = fixture("pactum_no_level.jsonl");
    let err = read(&path, &opts(TraceFormat::Pactum, None)).unwrap_err();
    assert!(
        matches!(err, ImportError::NoObservability { line: 1, .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("`observability` member") && msg.contains("--observability"),
        "{msg}"
    );

    let (items, _) = read(&path, &opts(TraceFormat::Pactum, Some(L::ResponseOnly))).unwrap();
    let levels: Vec<L> = traces(&items).iter().map(|t| t.observability).collect();
    assert_eq!(levels, [L::ResponseOnly, L::Full]);

    // A level on the first record but not on a later one: that record only.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mixed.jsonl");
    std::fs::write(
        &p,
        "{\"id\":\"a\",\"observability\":\"full\"}\n{\"id\":\"b\"}\n",
    )
    .unwrap();
    let (items, stats) = read(&p, &opts(TraceFormat::Pactum, None)).unwrap();
    assert_eq!((stats.traces, stats.errors), (1, 1));
    let Item::Error(e) = &items[1] else {
        panic!("{items:?}")
    };
    assert_eq!((e.line, e.field.as_deref()), (2, Some("/observability")));
    assert!(e.message.contains("--observability"), "{e}");
}

#[test]
fn malformed_and_wrong_typed_lines_are_errors_and_reading_goes_on() {
    let (items, stats) = read(
        &fixture("malformed.jsonl"),
        &opts(TraceFormat::Pactum, None),
    )
    .unwrap();
    assert_eq!((stats.traces, stats.errors), (3, 4));
    let ids: Vec<&str> = traces(&items).iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["m1", "m3", "m7"]);
    let errors: Vec<(u64, Option<&str>)> = items
        .iter()
        .filter_map(|i| match i {
            Item::Error(e) => Some((e.line, e.field.as_deref())),
            _ => None,
        })
        .collect();
    assert_eq!(
        errors,
        [
            (2, None),
            (4, Some("/turns/0/response")),
            (5, Some("/turns/0/respnse")),
            (6, Some("/observability")),
        ]
    );
    insta::assert_snapshot!("malformed_jsonl", describe(&items).join("\n"));
}

// ---------------------------------------------------------------- openai

#[test]
fn openai_segmentation_arguments_and_attachment() {
    let (items, stats) = read(
        &fixture("openai_chat.jsonl"),
        &opts(TraceFormat::Openai, Some(L::Full)),
    )
    .unwrap();
    assert_eq!((stats.traces, stats.skipped, stats.errors), (3, 1, 0));
    let t = traces(&items);

    // Standard OpenAI: string arguments parsed, results attached by id
    // although they arrive out of order; content parts.
    let std = t[0];
    assert_eq!(std.id, "std");
    assert_eq!(std.observability, L::Full);
    assert_eq!(std.turns.len(), 2);
    let t1 = &std.turns[0];
    assert_eq!(
        t1.input
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect::<Vec<_>>(),
        [
            (Role::System, "You are a travel agent."),
            (Role::User, "Book Paris and Rome hotels.")
        ]
    );
    assert_eq!(t1.response.as_deref(), Some("Both hotels are booked."));
    let calls: Vec<(&str, &Value, Option<&Value>)> = t1
        .tool_calls
        .iter()
        .map(|c| (c.id.as_deref().unwrap(), &c.arguments, c.result.as_ref()))
        .collect();
    assert_eq!(
        calls,
        [
            (
                "call_a",
                &json!({"city": "Paris"}),
                Some(&json!("Paris booked"))
            ),
            (
                "call_b",
                &json!({"city": "Rome"}),
                Some(&json!("Rome booked"))
            ),
        ]
    );
    assert_eq!(std.turns[1].input[0].content, "Thanks.");
    assert_eq!(std.turns[1].response.as_deref(), Some("You are welcome."));
    assert_eq!(
        std.metadata,
        json!({"id": "std", "customer": {"tier": "gold"}})
    );

    // Empty ids: attached by order; invalid JSON kept as a string; blank
    // arguments are `{}`; tool errors; legacy function_call.
    let ord = t[1];
    assert_eq!(ord.id, "openai_chat.jsonl:2");
    let turn = &ord.turns[0];
    assert_eq!(turn.response.as_deref(), Some("Trying."));
    let c = &turn.tool_calls;
    assert_eq!(c.len(), 3);
    assert_eq!(c[0].arguments, json!("{not json"));
    assert_eq!(c[0].result, Some(json!("first result")));
    assert_eq!(c[0].error, None);
    assert_eq!(c[1].arguments, json!({}));
    assert_eq!(c[1].error.as_deref(), Some("ValueError: boom"));
    assert_eq!(
        (c[2].name.as_str(), &c[2].arguments),
        ("legacy", &json!({"x": 1}))
    );
    assert_eq!(c[2].result, Some(json!("legacy result")));
    assert_eq!(ord.metadata, json!({}));

    // Record-level level wins over the flag; numeric id; assistant before
    // any user message; runs of user messages; a system message starts a turn.
    let seg = t[2];
    assert_eq!((seg.id.as_str(), seg.observability), ("42", L::ToolCalls));
    let shape: Vec<(Vec<&str>, Option<&str>)> = seg
        .turns
        .iter()
        .map(|t| {
            (
                t.input.iter().map(|m| m.content.as_str()).collect(),
                t.response.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            (vec![], Some("Hello, how can I help?")),
            (vec!["Hi", "Anyone there?"], Some("Yes.\n\nStill here.")),
            (vec!["Wrap up."], None),
        ]
    );

    let Item::Skipped { line, reason } = &items[3] else {
        panic!("{items:?}")
    };
    assert_eq!(*line, 4);
    assert!(
        reason.starts_with("line 4: no messages array at `/messages`"),
        "{reason}"
    );
    insta::assert_json_snapshot!("openai_chat_traces", t);
}

#[test]
fn openai_json_array_is_streamed_with_element_ids() {
    let (items, _) = read(
        &fixture("openai_array.json"),
        &opts(TraceFormat::Openai, Some(L::ToolCalls)),
    )
    .unwrap();
    assert_eq!(
        describe(&items),
        ["trace first (line 2)", "trace openai_array.json#2 (line 9)"]
    );
    let call = &traces(&items)[1].turns[0].tool_calls[0];
    assert_eq!(
        (&call.arguments, call.result.as_ref()),
        (&json!({"q": "it"}), Some(&json!("found it")))
    );
}

#[test]
fn openai_bad_records_name_their_field() {
    let (items, stats) = read(
        &fixture("openai_bad.jsonl"),
        &opts(TraceFormat::Openai, Some(L::Full)),
    )
    .unwrap();
    assert_eq!((stats.traces, stats.errors), (1, 8));
    insta::assert_snapshot!("openai_bad_jsonl", describe(&items).join("\n"));
}

#[test]
fn openai_broken_array_keeps_what_came_before() {
    let (items, stats) = read(
        &fixture("openai_broken_array.json"),
        &opts(TraceFormat::Openai, Some(L::Full)),
    )
    .unwrap();
    assert_eq!((stats.traces, stats.errors), (2, 2));
    insta::assert_snapshot!("openai_broken_array", describe(&items).join("\n"));
}

#[test]
fn openai_needs_a_level_somewhere() {
    let err = read(
        &fixture("openai_array.json"),
        &opts(TraceFormat::Openai, None),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "fixtures/openai_array.json:2: no observability level: add an `observability` member (response_only, tool_calls or full) to each record, or pass --observability"
    );
}

#[test]
fn id_field_pointer() {
    let mut o = opts(TraceFormat::Openai, Some(L::Full));
    o.id_pointer = Some("/customer/tier".into());
    let (items, _) = read(&fixture("openai_chat.jsonl"), &o).unwrap();
    let d = describe(&items);
    assert_eq!(d[0], "trace gold (line 1)");
    assert_eq!(
        d[1],
        "error fixtures/openai_chat.jsonl:2: field `/customer/tier`: no trace id here (--id-field)"
    );
}

// ---------------------------------------------------------------- tabular

fn columns(prompt: &str, response: &str, id: Option<&str>) -> Option<ColumnMap> {
    Some(ColumnMap {
        prompt: prompt.into(),
        response: response.into(),
        id: id.map(Into::into),
    })
}

#[test]
fn csv_rows_multiline_fields_and_empty_cells() {
    let mut o = opts(TraceFormat::Tabular, Some(L::ResponseOnly));
    o.columns = columns("prompt", "response", None);
    let (items, stats) = read(&fixture("tabular.csv"), &o).unwrap();
    assert_eq!(stats.traces, 4);
    assert_eq!(
        describe(&items),
        [
            "trace 1 (line 2)",
            "trace 2 (line 3)",
            "trace 3 (line 7)",
            "trace tabular.csv:8 (line 8)"
        ]
    );
    let t = traces(&items);
    assert_eq!(t[0].turns[0].input[0].content, "Say \"hi\"");
    assert_eq!(t[0].turns[0].input[0].role, Role::User);
    assert_eq!(t[1].turns[0].input[0].content, "a prompt\non two lines");
    assert_eq!(
        t[1].turns[0].response.as_deref(),
        Some("a response\r\non three\nlines")
    );
    assert_eq!(
        t[2].turns[0].response.as_deref(),
        Some(""),
        "an empty cell is a recorded empty answer"
    );
    assert_eq!(
        t[0].metadata,
        json!({"id": "1", "prompt": "Say \"hi\"", "response": "hi", "note": "plain"})
    );
    // Auto picks CSV from the extension; an explicit id column.
    o.format = TraceFormat::Auto;
    o.columns = columns("prompt", "response", Some("note"));
    let (items, _) = read(&fixture("tabular.csv"), &o).unwrap();
    let ids: Vec<&str> = traces(&items).iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["plain", "multi", "empty", "x"]);
}

#[test]
fn csv_file_level_errors() {
    let path = fixture("tabular.csv");
    let err = read(&path, &opts(TraceFormat::Tabular, Some(L::ResponseOnly))).unwrap_err();
    assert!(matches!(err, ImportError::MissingColumns { .. }), "{err:?}");
    let err = read(&path, &opts(TraceFormat::Auto, Some(L::ResponseOnly))).unwrap_err();
    assert!(matches!(err, ImportError::MissingColumns { .. }), "{err:?}");
    let mut o = opts(TraceFormat::Tabular, None);
    o.columns = columns("prompt", "response", None);
    let err = read(&path, &o).unwrap_err();
    assert!(
        matches!(err, ImportError::TabularNeedsObservability { .. }),
        "{err:?}"
    );
    o.observability = Some(L::ResponseOnly);
    o.columns = columns("prompt", "completion", None);
    let err = read(&path, &o).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`fixtures/tabular.csv`: column `completion` (from --response-column) is not in the header; the columns are: id, prompt, response, note"
    );
}

/// Two columns with the name pactum reads (two model runs joined side by
/// side): reading either would be a guess, so the file is refused, naming
/// the columns; a duplicate metadata column is not read as the response.
#[test]
fn a_read_column_named_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (header, row, option) in [
        (
            "prompt,response,response",
            "hi,No.,The code is PROMO-7781.",
            "--response-column",
        ),
        ("prompt,prompt,response", "hi,there,No.", "--prompt-column"),
        ("id,prompt,response,id", "a,hi,No.,b", "`id`"),
    ] {
        let p = dir.path().join("dup.csv");
        std::fs::write(&p, format!("{header}\n{row}\n")).unwrap();
        let mut o = opts(TraceFormat::Tabular, Some(L::ResponseOnly));
        o.columns = columns("prompt", "response", None);
        let err = read(&p, &o).unwrap_err().to_string();
        assert!(err.contains("times (columns"), "{header}: {err}");
        assert!(err.contains(option), "{header}: {err}");
    }
}

#[test]
fn csv_ragged_and_non_utf8_rows_are_record_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.csv");
    std::fs::write(&p, b"prompt,response\na,b\nonly one\n\"x\ny\",\xff\nc,d\n").unwrap();
    let mut o = opts(TraceFormat::Tabular, Some(L::ResponseOnly));
    o.columns = columns("prompt", "response", None);
    let (items, stats) = read(&p, &o).unwrap();
    assert_eq!((stats.traces, stats.errors), (2, 2));
    let d: Vec<String> = describe(&items)
        .iter()
        .map(|s| s.replace(&p.display().to_string(), "F"))
        .collect();
    assert_eq!(
        d,
        [
            "trace r.csv:2 (line 2)",
            "error F:3: row has 1 field(s), the header has 2",
            "error F:4: field 2 is not valid UTF-8",
            "trace r.csv:6 (line 6)",
        ]
    );
}

#[test]
fn tabular_json_records_with_pointers_and_nulls() {
    let mut o = opts(TraceFormat::Tabular, Some(L::ResponseOnly));
    o.columns = columns("/q/text", "answer", None);
    let (items, stats) = read(&fixture("tabular.jsonl"), &o).unwrap();
    assert_eq!((stats.traces, stats.errors), (3, 2));
    let t = traces(&items);
    assert_eq!(t[0].turns[0].input[0].content, "What is 2+2?");
    assert_eq!(t[0].turns[0].response.as_deref(), Some("4"));
    assert_eq!(t[0].field("/label"), Some(&json!("ok")));
    assert_eq!(t[1].turns[0].response, None, "JSON null is no response");
    assert!(t[2].turns[0].input.is_empty());
    assert_eq!(
        t[2].turns[0].response, None,
        "a missing response is no response"
    );
    insta::assert_snapshot!("tabular_jsonl", describe(&items).join("\n"));
}

// ---------------------------------------------------------------- auto

#[test]
fn auto_detection() {
    let auto =
        |name: &str, o: &ImportOptions| read(&fixture(name), o).map(|(items, _)| describe(&items));
    let o = opts(TraceFormat::Auto, Some(L::Full));
    assert_eq!(
        auto("pactum_traces.json", &o).unwrap()[0],
        "trace a (line 2)"
    );
    assert_eq!(
        auto("openai_chat.jsonl", &o).unwrap()[0],
        "trace std (line 1)"
    );
    // The summary line does not stop detection.
    assert_eq!(auto("agentdojo_excerpt.jsonl", &o).unwrap().len(), 4);
    // tau-bench keeps its messages under `traj`.
    assert_eq!(
        auto("tau_bench_excerpt.json", &o).unwrap()[1],
        "trace tau_bench_excerpt.json#2 (line 93)"
    );
    let err = auto("tabular.jsonl", &o).unwrap_err();
    assert!(matches!(err, ImportError::UnknownFormat { .. }), "{err:?}");
    assert!(
        err.to_string().contains("none of its 5 record(s)") && err.to_string().contains("--format"),
        "{err}"
    );
    let mut with_cols = o.clone();
    with_cols.columns = columns("/q/text", "answer", None);
    assert_eq!(
        auto("tabular.jsonl", &with_cols).unwrap()[0],
        "trace r1 (line 1)"
    );

    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "\n\n").unwrap();
    assert_eq!(read(&empty, &o).unwrap().1, ReadStats::default());
    let odd = dir.path().join("traces.log");
    std::fs::write(&odd, "{}").unwrap();
    let err = read(&odd, &o).unwrap_err();
    assert!(err.to_string().contains("extension"), "{err}");
    let err = read(&dir.path().join("missing.jsonl"), &o).unwrap_err();
    assert!(
        matches!(err, ImportError::Open { .. }) && err.to_string().contains("missing.jsonl"),
        "{err}"
    );
}

#[test]
fn a_record_in_another_format_or_holding_messages_is_no_summary_line() {
    let conv = r#"{"id": "c1", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}"#;
    let otlp = r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b000000000000001", "name": "chat", "startTimeUnixNano": "1700000000001000000", "endTimeUnixNano": "1700000000002000000", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}, {"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\": \"assistant\", \"parts\": [{\"type\": \"tool_call\", \"name\": \"delete_file\", \"arguments\": {}, \"id\": \"c1\"}]}]"}}]}]}]}]}"#;
    let cases = [
        (otlp, "mixed.jsonl:2: a record in another trace format (otlp)"),
        (
            r#"{"id": "c2", "conversation": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "x", "type": "function", "function": {"name": "delete_file", "arguments": "{}"}}]}]}"#,
            "field `/conversation`: no messages array at `/messages`, but the record holds messages here",
        ),
        (
            r#"{"id": "c3", "result": {"tool_calls": [{"id": "x", "type": "function", "function": {"name": "delete_file", "arguments": "{}"}}]}}"#,
            "field `/result/tool_calls`: no messages array at `/messages`, but the record holds tool calls here",
        ),
        (
            r#"{"id": "c4", "observability": "full", "turns": []}"#,
            "a record in another trace format (pactum)",
        ),
        (
            r#"{"trace": {"id": "t"}, "observations": []}"#,
            "a record in another trace format (langfuse)",
        ),
        // Calls in shapes no reader knows: never a summary line.
        (
            r#"{"steps": [{"function": "delete_file", "args": {"path": "/etc"}, "id": "s1"}]}"#,
            "field `/steps`: no messages array at `/messages`, and the record holds more than a summary line's plain values",
        ),
        (
            r#"{"toolCalls": [{"toolName": "delete_file", "args": {}}]}"#,
            "field `/toolCalls`",
        ),
        (
            r#"{"messages_json": "[{\"role\": \"assistant\", \"tool_calls\": []}]"}"#,
            "field `/messages_json`",
        ),
        (
            r#"{"metadata": {"tool_calls": "[{\"name\": \"delete_file\"}]"}}"#,
            "field `/metadata/tool_calls`",
        ),
        (
            r#"{"span": {"attributes": {"gen_ai.completion.0.tool_calls.0.name": "delete_file"}}}"#,
            "field `/span`",
        ),
        (
            r#"{"payload": {"resourceSpans": [{"scopeSpans": []}]}}"#,
            "field `/payload`",
        ),
        (
            r#"{"id": "z", "observability": "tool_calls", "metadata": {"k": 1}}"#,
            "field `/observability`",
        ),
        // One message per line, a call named in text, an object other than
        // `metadata`, span attributes one level down, JSON behind an
        // invisible character.
        (
            r#"{"role": "tool", "name": "delete_file", "tool_call_id": "c1", "content": "deleted"}"#,
            "field `/role`",
        ),
        (r#"{"function_call": "delete_file"}"#, "field `/function_call`"),
        (r#"{"step": {"action": "delete_file"}}"#, "field `/step`"),
        (
            r#"{"metadata": {"gen_ai.tool.name": "delete_file"}}"#,
            "field `/metadata/gen_ai.tool.name`",
        ),
        (
            "{\"metadata\": {\"calls\": \"\u{200b}[{\\\"name\\\": \\\"delete_file\\\"}]\"}}",
            "field `/metadata/calls`",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mixed.jsonl");
    for (line, want) in cases {
        std::fs::write(&p, format!("{conv}\n{line}\n")).unwrap();
        let (items, stats) = read(&p, &opts(TraceFormat::Auto, Some(L::ToolCalls))).unwrap();
        assert_eq!(
            (stats.traces, stats.skipped, stats.errors),
            (1, 0, 1),
            "{want}: {:?}",
            describe(&items)
        );
        let got = describe(&items).join("\n");
        assert!(got.contains(want), "{want}: {got}");
    }
    // A summary line, even one naming tool calls in its keys, is skipped.
    std::fs::write(
        &p,
        format!("{{\"metadata\": {{\"benchmark\": \"x\", \"accuracy\": 0.5, \"tool_calls\": 3, \"tools\": [\"delete_file\"]}}}}\n{conv}\n"),
    )
    .unwrap();
    let (items, stats) = read(&p, &opts(TraceFormat::Auto, Some(L::ToolCalls))).unwrap();
    assert_eq!(
        (stats.traces, stats.skipped, stats.errors),
        (1, 1, 0),
        "{:?}",
        describe(&items)
    );
}

#[test]
fn explicit_format_on_other_extensions_sniffs_the_framing() {
    let dir = tempfile::tempdir().unwrap();
    let arr = dir.path().join("traces.txt");
    std::fs::write(&arr, "\n [{\"id\":\"x\",\"observability\":\"full\"}]").unwrap();
    let (items, _) = read(&arr, &opts(TraceFormat::Pactum, None)).unwrap();
    assert_eq!(describe(&items), ["trace x (line 2)"]);
    let lines = dir.path().join("traces.log");
    std::fs::write(
        &lines,
        "{\"id\":\"y\",\"observability\":\"full\"}\n{\"id\":\"z\",\"observability\":\"full\"}\n",
    )
    .unwrap();
    let (items, _) = read(&lines, &opts(TraceFormat::Pactum, None)).unwrap();
    assert_eq!(describe(&items), ["trace y (line 1)", "trace z (line 2)"]);
}

#[test]
fn records_pointer_errors() {
    let mut o = opts(TraceFormat::Tabular, Some(L::ResponseOnly));
    o.columns = columns("prompt", "response", None);
    o.records_pointer = Some("/nope".into());
    let err = read(&fixture("jailbreakbench_excerpt.json"), &o).unwrap_err();
    assert!(
        matches!(err, ImportError::RecordsNotFound { .. }),
        "{err:?}"
    );
    o.records_pointer = Some("/parameters".into());
    let err = read(&fixture("jailbreakbench_excerpt.json"), &o).unwrap_err();
    assert!(err.to_string().ends_with("--records-field `/parameters`: found an object, not an array, expected an array of records"), "{err}");
    o.records_pointer = Some("/jailbreaks".into());
    o.format = TraceFormat::Openai;
    let err = read(&fixture("openai_chat.jsonl"), &o).unwrap_err();
    assert!(
        matches!(err, ImportError::UnsupportedOption { .. }),
        "{err:?}"
    );
    o.records_pointer = Some("/a~9".into());
    let err = read(&fixture("openai_chat.jsonl"), &o).unwrap_err();
    assert!(matches!(err, ImportError::BadPointer { .. }), "{err:?}");
}

// ---------------------------------------------------------------- excerpts and withholding

#[test]
fn agentdojo_excerpt_spot_check() {
    let (items, stats) = read(
        &fixture("agentdojo_excerpt.jsonl"),
        &opts(TraceFormat::Openai, Some(L::Full)),
    )
    .unwrap();
    assert_eq!((stats.traces, stats.skipped, stats.errors), (3, 1, 0));
    assert!(matches!(&items[0], Item::Skipped { line: 1, .. }));
    let t = traces(&items);
    let benign = t[0];
    assert_eq!(benign.id, "agentdojo_excerpt.jsonl:2");
    assert_eq!(
        benign.field("/metadata/suite_name"),
        Some(&json!("workspace"))
    );
    assert_eq!(
        benign.field("/metadata/injection_task_id"),
        Some(&Value::Null)
    );
    assert!(benign.field("/index").is_some());
    assert!(
        benign.field("/messages").is_none(),
        "the messages are the turns, not metadata"
    );
    // One user message → one turn holding every assistant step.
    assert_eq!(benign.turns.len(), 1);
    assert_eq!(benign.turns[0].input.len(), 2);
    let calls = &benign.turns[0].tool_calls;
    assert!(
        calls.iter().all(|c| c.arguments.is_object()),
        "AgentDojo arguments are objects"
    );
    assert!(
        calls.iter().any(|c| c.error.is_some()),
        "a tool error is attached"
    );
    assert!(
        calls.iter().all(|c| c.result.is_some()),
        "every call got its result"
    );
    let attacked = t[1];
    assert_eq!(
        attacked.field("/metadata/injection_task_id"),
        Some(&json!("injection_task_3"))
    );
    assert_eq!(attacked.field("/metadata/security"), Some(&json!(false)));
    insta::assert_json_snapshot!("agentdojo_excerpt_benign", benign);
}

#[test]
fn withholding_tool_calls_and_the_silent_channel_warning() {
    let path = fixture("agentdojo_excerpt.jsonl");
    let (_, stats) = read(&path, &opts(TraceFormat::Openai, Some(L::Full))).unwrap();
    assert_eq!(
        stats.channel_tally.reporting(L::Full, Channel::ToolCalls),
        2,
        "one attacked trace made no call"
    );
    assert_eq!(
        stats.channel_tally.silent_channels(),
        [(L::Full, Channel::SideEffects, 3)]
    );

    let mut o = opts(TraceFormat::Openai, Some(L::Full));
    o.withhold = vec![Channel::ToolCalls];
    let (items, stats) = read(&path, &o).unwrap();
    assert!(traces(&items)
        .iter()
        .all(|t| t.tool_calls().next().is_none()));
    // pactum removed the calls itself: the channel is unobserved, whatever
    // the file declared, so no check can read its absence as "no call".
    assert!(
        traces(&items)
            .iter()
            .all(|t| t.observability == L::ResponseOnly),
        "the level no longer observes the withheld channel"
    );
    assert_eq!(stats.channel_tally.traces(L::ResponseOnly), 3);
    assert!(stats.channel_tally.silent_channels().is_empty());

    o.withhold = vec![Channel::SideEffects];
    let (items, _) = read(&path, &o).unwrap();
    assert!(traces(&items)
        .iter()
        .all(|t| t.observability == L::ToolCalls));
    assert!(traces(&items)
        .iter()
        .any(|t| t.tool_calls().next().is_some()));

    o.withhold = vec![Channel::Response, Channel::ToolCalls];
    o.observability = Some(L::ResponseOnly);
    let (items, stats) = read(&path, &o).unwrap();
    assert!(traces(&items).iter().all(|t| !t.has_response()));
    assert!(
        stats.channel_tally.silent_channels().is_empty(),
        "response_only observes neither channel"
    );
}

#[test]
fn tau_bench_xstest_jailbreakbench_excerpts() {
    let mut o = opts(TraceFormat::Openai, Some(L::ToolCalls));
    o.messages_pointer = Some("/traj".into());
    let (items, _) = read(&fixture("tau_bench_excerpt.json"), &o).unwrap();
    let t = traces(&items);
    assert_eq!(t.len(), 2);
    assert!(t[0].field("/traj").is_none());
    assert_eq!(t[0].field("/task_id"), Some(&json!(38)));
    let call = t[0].tool_calls().next().unwrap().1;
    assert!(
        call.arguments.is_object(),
        "tau-bench's string arguments are parsed"
    );
    assert!(call.result.is_some());

    let mut o = opts(TraceFormat::Tabular, Some(L::ResponseOnly));
    o.columns = columns("prompt", "completion", None);
    let (items, _) = read(&fixture("xstest_excerpt.csv"), &o).unwrap();
    assert_eq!(
        describe(&items),
        [
            "trace v2-26 (line 2)",
            "trace v2-103 (line 3)",
            "trace v2-27 (line 10)"
        ]
    );

    o.columns = columns("prompt", "response", None);
    o.records_pointer = Some("/jailbreaks".into());
    let (items, _) = read(&fixture("jailbreakbench_excerpt.json"), &o).unwrap();
    let t = traces(&items);
    assert_eq!(t.len(), 3);
    assert_eq!(t[2].turns[0].response, None, "null response");
    assert!(t[2].turns[0].input.is_empty(), "null prompt");
    assert_eq!(t[0].id, "jailbreakbench_excerpt.json#1");
}

// ---------------------------------------------------------------- how a recording ends

#[test]
fn end_markers_parse_only_user_and_tool() {
    assert_eq!(
        EndMarker::parse("user:###STOP###"),
        Ok(EndMarker::User("###STOP###".into()))
    );
    assert_eq!(
        EndMarker::parse("tool:a:b"),
        Ok(EndMarker::Tool("a:b".into())),
        "only the first colon separates"
    );
    assert_eq!(
        EndMarker::User("x".into()).to_string(),
        "user:x",
        "displays as written"
    );
    for bad in ["assistant:done", "system:x", "user:", "stop", ""] {
        assert!(EndMarker::parse(bad).is_err(), "{bad}");
    }
}

fn tau_opts(markers: &[&str], prefix: Option<&str>) -> ImportOptions {
    let mut o = opts(TraceFormat::Openai, Some(L::ToolCalls));
    o.messages_pointer = Some("/traj".into());
    o.ended_by = markers
        .iter()
        .map(|m| EndMarker::parse(m).unwrap())
        .collect();
    o.tool_error_prefix = prefix.map(str::to_string);
    o
}

/// The excerpt's two conversations end on a transfer result and on the
/// user's `###STOP###`: cut off without markers, ended with them.
#[test]
fn tau_bench_excerpt_ends_by_its_markers() {
    let path = fixture("tau_bench_excerpt.json");
    let (items, _) = read(&path, &tau_opts(&[], None)).unwrap();
    let t = traces(&items);
    assert_eq!(
        t[0].incomplete.as_deref(),
        Some("it ends on a tool result the target never answered")
    );
    assert!(t[1].incomplete.is_none() && t[1].ended_by.is_none());
    assert!(
        t[1].turns.last().unwrap().response.is_none(),
        "the unanswered STOP turn"
    );

    let o = tau_opts(&["user:###STOP###", "tool:transfer_to_human_agents"], None);
    let (items, _) = read(&path, &o).unwrap();
    let t = traces(&items);
    assert!(t[0].incomplete.is_none(), "{:?}", t[0].incomplete);
    assert_eq!(
        t[0].ended_by.as_deref(),
        Some("the last message (/traj/9) is the result of `transfer_to_human_agents` (--ended-by tool:transfer_to_human_agents)")
    );
    assert_eq!(
        t[1].ended_by.as_deref(),
        Some("the last message (/traj/9) is the user's and contains `###STOP###` (--ended-by user:###STOP###)")
    );
    // One marker does not stand for the other.
    let (items, _) = read(&path, &tau_opts(&["user:###STOP###"], None)).unwrap();
    let t = traces(&items);
    assert!(t[0].incomplete.is_some() && t[0].ended_by.is_none());
}

fn write_json(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("{v}\n")).unwrap();
    p
}

/// `--tool-error-prefix`: a text result starting with the prefix is the
/// call's error; a stated error stays; a JSON result is never compared;
/// the comparison is exact.
#[test]
fn tool_error_prefix_reads_text_errors_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let call = |id: &str| {
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "pay", "arguments": "{}"}}
        ]})
    };
    let traj = json!([
        {"role": "user", "content": "pay"},
        call("a"), {"role": "tool", "tool_call_id": "a", "content": "Error: declined"},
        call("b"), {"role": "tool", "tool_call_id": "b", "content": "error: lowercase"},
        call("c"), {"role": "tool", "tool_call_id": "c", "content": " Error: leading space"},
        call("d"), {"role": "tool", "tool_call_id": "d", "content": "Error: text", "error": "stated"},
        call("e"), {"role": "tool", "tool_call_id": "e", "content": [{"type": "text", "text": "Error: in parts"}]},
        call("f"), {"role": "tool", "tool_call_id": "f", "content": "ok"},
        {"role": "assistant", "content": "done"}
    ]);
    let p = write_json(dir.path(), "t.jsonl", &json!({"traj": traj}));
    let errors = |prefix: Option<&str>| -> Vec<Option<String>> {
        let (items, _) = read(&p, &tau_opts(&[], prefix)).unwrap();
        traces(&items)[0]
            .tool_calls()
            .map(|(_, c)| c.error.clone())
            .collect()
    };
    assert_eq!(
        errors(None),
        [None, None, None, Some("stated".into()), None, None]
    );
    let with = errors(Some("Error:"));
    assert_eq!(with[0].as_deref(), Some("Error: declined"));
    assert_eq!(with[1], None, "case counts");
    assert_eq!(with[2], None, "nothing is trimmed");
    assert_eq!(with[3].as_deref(), Some("stated"), "a stated error stays");
    assert_eq!(with[5], None);
    // Text parts are joined into a text result, and compared as one.
    assert_eq!(with[4].as_deref(), Some("Error: in parts"));
}

/// Anthropic-style results in a user message end the conversation only
/// when every one of them is a marker; a marker's text elsewhere ends
/// nothing.
#[test]
fn markers_in_result_blocks_and_other_speakers() {
    let dir = tempfile::tempdir().unwrap();
    let use_block =
        |id: &str, name: &str| json!({"type": "tool_use", "id": id, "name": name, "input": {}});
    let result_block =
        |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "ok"});
    let conv = |last: Value| {
        json!({"messages": [
            {"role": "user", "content": "help"},
            {"role": "assistant", "content": [use_block("t1", "transfer"), use_block("t2", "lookup")]},
            last
        ]})
    };
    let o = {
        let mut o = tau_opts(&["tool:transfer", "user:STOP"], None);
        o.messages_pointer = None;
        o
    };
    let both = conv(json!({"role": "user", "content": [result_block("t1"), result_block("t2")]}));
    let p = write_json(dir.path(), "a.jsonl", &both);
    let (items, _) = read(&p, &o).unwrap();
    assert!(
        traces(&items)[0].ended_by.is_none(),
        "lookup's result is no marker"
    );
    assert!(traces(&items)[0].incomplete.is_some());

    let stop_in_tool = json!({"messages": [
        {"role": "user", "content": "help"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "x", "content": "STOP"}
    ]});
    let stop_by_assistant = json!({"messages": [
        {"role": "user", "content": "help"},
        {"role": "assistant", "content": "STOP"},
        {"role": "system", "content": "STOP"}
    ]});
    for (name, v) in [("b.jsonl", stop_in_tool), ("c.jsonl", stop_by_assistant)] {
        let p = write_json(dir.path(), name, &v);
        let (items, _) = read(&p, &o).unwrap();
        assert!(traces(&items)[0].ended_by.is_none(), "{name}");
    }
}

/// Formats that cannot honour the options refuse the file.
#[test]
fn end_options_are_refused_outside_chat_messages() {
    let mut o = opts(TraceFormat::Pactum, Some(L::ToolCalls));
    o.ended_by = vec![EndMarker::User("x".into())];
    let err = read(&fixture("pactum_traces.jsonl"), &o).unwrap_err();
    assert!(
        matches!(
            err,
            ImportError::UnsupportedOption {
                option: "--ended-by",
                ..
            }
        ),
        "{err}"
    );
    // Auto-detected pactum records too.
    o.format = TraceFormat::Auto;
    o.ended_by.clear();
    o.tool_error_prefix = Some("Error:".into());
    let err = read(&fixture("pactum_traces.jsonl"), &o).unwrap_err();
    assert!(
        matches!(
            err,
            ImportError::UnsupportedOption {
                option: "--tool-error-prefix",
                ..
            }
        ),
        "{err}"
    );
}

// ---------------------------------------------------------------- real data (bash .ci/real-data)

#[test]
#[ignore = "real data: bash .ci/real-data"]
fn real_data_every_agentdojo_file_imports() {
    let dir = real_data("agentdojo");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 9);
    let mut tally = pactum_trace::ChannelTally::default();
    for f in &files {
        // Counted independently from the raw lines: every tool message
        // answers exactly one call.
        let tool_messages: usize = std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter_map(|r| r.get("messages").and_then(Value::as_array).cloned())
            .map(|ms| ms.iter().filter(|m| m["role"] == "tool").count())
            .sum();
        let (mut answered, mut errored_calls, mut suites) = (0, 0, 0);
        let stats = read_traces(f, &opts(TraceFormat::Auto, Some(L::Full)), &mut |item| {
            if let Item::Trace(t) = item {
                for (_, c) in t.tool_calls() {
                    answered += usize::from(c.result.is_some() || c.error.is_some());
                    errored_calls += u64::from(c.error.is_some());
                }
                suites += u64::from(
                    t.field("/metadata/suite_name")
                        .is_some_and(Value::is_string),
                );
            }
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(
            (stats.traces, stats.skipped, stats.errors),
            (194, 1, 0),
            "{}",
            f.display()
        );
        assert_eq!(suites, 194);
        assert_eq!(
            answered,
            tool_messages,
            "{}: every tool message is attached",
            f.display()
        );
        assert!(errored_calls > 0, "{}", f.display());
        tally.merge(&stats.channel_tally);
    }
    assert_eq!(tally.traces(L::Full), 9 * 194);
    assert_eq!(
        tally.silent_channels(),
        [(L::Full, Channel::SideEffects, 9 * 194)]
    );
}

#[test]
#[ignore = "real data: bash .ci/real-data"]
fn real_data_tau_bench_imports_200_traces() {
    let path = real_data("tau-bench/gpt-4o-airline.json");
    let mut o = opts(TraceFormat::Openai, Some(L::ToolCalls));
    o.messages_pointer = Some("/traj".into());
    let mut unanswered = 0;
    let mut ids = std::collections::BTreeSet::new();
    let stats = read_traces(&path, &o, &mut |item| {
        if let Item::Trace(t) = item {
            unanswered += t.tool_calls().filter(|(_, c)| c.result.is_none()).count();
            assert!(t.field("/reward").is_some());
            ids.insert(t.id);
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!((stats.traces, stats.errors, stats.skipped), (200, 0, 0));
    assert_eq!(ids.len(), 200);
    assert_eq!(unanswered, 0);
    // Auto finds `traj` on its own.
    let (_, auto) = read(&path, &opts(TraceFormat::Auto, Some(L::ToolCalls))).unwrap();
    assert_eq!(auto.traces, 200);
}

#[test]
#[ignore = "real data: bash .ci/real-data"]
fn real_data_xstest_completions_import_450_rows_with_their_lines() {
    let dir = real_data("xstest/model_completions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 5);
    let mut o = opts(TraceFormat::Auto, Some(L::ResponseOnly));
    o.columns = columns("prompt", "completion", None);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let (items, stats) = read(f, &o).unwrap();
        assert_eq!((stats.traces, stats.errors), (450, 0), "{}", f.display());
        for t in traces(&items) {
            let line = t.source.as_ref().unwrap().line;
            // Checked against the raw file: the row's first physical line
            // starts with its id cell.
            let raw = lines[usize::try_from(line).unwrap() - 1];
            assert!(
                raw.starts_with(&format!("{},", t.id)),
                "{}:{line}: {raw}",
                f.display()
            );
            assert!(t.field("/final_label").is_some());
        }
    }
}

#[test]
#[ignore = "real data: bash .ci/real-data"]
fn real_data_jailbreakbench_imports() {
    let dir = real_data("jailbreakbench-artifacts/attack-artifacts");
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "json") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut o = opts(TraceFormat::Tabular, Some(L::ResponseOnly));
    o.columns = columns("prompt", "response", None);
    o.records_pointer = Some("/jailbreaks".into());
    let (mut total, mut null_responses, mut imported_files, mut refused) = (0, 0, 0, 0);
    for f in &files {
        match read(f, &o) {
            Ok((items, stats)) => {
                assert_eq!(stats.errors, 0, "{}", f.display());
                imported_files += 1;
                total += stats.traces;
                null_responses += traces(&items)
                    .iter()
                    .filter(|t| t.turns[0].response.is_none())
                    .count();
            }
            Err(ImportError::RecordsNotFound { .. }) => refused += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((imported_files, total, null_responses), (21, 1803, 163));
    assert_eq!(
        refused,
        files.len() - 21,
        "files without `jailbreaks` are refused as a whole"
    );
}

// ---------------------------------------------------------------- streaming

fn big_trace(i: u64) -> Value {
    json!({
        "id": format!("g{i}"),
        "observability": "tool_calls",
        "turns": [{
            "input": [{"role": "user", "content": format!("request number {i} {}", "x".repeat(150))}],
            "response": "y".repeat(100),
            "tool_calls": [{"name": "f", "arguments": {"i": i}}]
        }]
    })
}

#[test]
fn streams_a_multi_megabyte_jsonl_file_with_a_counting_sink() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let n = 20_000u64;
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for i in 0..n {
            serde_json::to_writer(&mut w, &big_trace(i)).unwrap();
            w.write_all(b"\n").unwrap();
        }
    }
    assert!(std::fs::metadata(&path).unwrap().len() > 5_000_000);
    let (mut count, mut last) = (0u64, String::new());
    let stats = read_traces(&path, &opts(TraceFormat::Auto, None), &mut |item| {
        if let Item::Trace(t) = item {
            count += 1;
            last = t.id;
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!((count, stats.traces, last.as_str()), (n, n, "g19999"));
}

#[test]
fn streams_a_json_array_and_stops_on_break() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    let n = 20_000u64;
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        w.write_all(b"[\n").unwrap();
        for i in 0..n {
            if i > 0 {
                w.write_all(b",\n").unwrap();
            }
            serde_json::to_writer_pretty(&mut w, &big_trace(i)).unwrap();
        }
        w.write_all(b"\n]\n").unwrap();
    }
    let mut count = 0u64;
    let stats = read_traces(&path, &opts(TraceFormat::Pactum, None), &mut |_| {
        count += 1;
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!((count, stats.traces), (n, n));

    let mut seen = Vec::new();
    let stats = read_traces(&path, &opts(TraceFormat::Pactum, None), &mut |item| {
        if let Item::Trace(t) = item {
            seen.push((t.id, t.source.map(|s| s.line)));
        }
        if seen.len() == 3 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert_eq!(stats.traces, 3, "nothing is read after Break");
    let lines_per_trace = serde_json::to_string_pretty(&big_trace(0))
        .unwrap()
        .lines()
        .count() as u64;
    assert_eq!(
        seen,
        [
            ("g0".to_string(), Some(2)),
            ("g1".to_string(), Some(2 + lines_per_trace)),
            ("g2".to_string(), Some(2 + 2 * lines_per_trace)),
        ]
    );
}

#[test]
fn an_overlong_line_is_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        w.write_all(b"{\"id\":\"a\",\"observability\":\"full\"}\n{\"id\":\"")
            .unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..=(pactum_trace::MAX_RECORD_BYTES >> 20) {
            w.write_all(&chunk).unwrap();
        }
        w.write_all(b"\"}\n{\"id\":\"c\",\"observability\":\"full\"}\n")
            .unwrap();
    }
    let (items, _) = read(&path, &opts(TraceFormat::Pactum, None)).unwrap();
    let d: Vec<String> = describe(&items)
        .iter()
        .map(|s| s.replace(&path.display().to_string(), "F"))
        .collect();
    assert_eq!(
        d,
        [
            "trace a (line 1)",
            "error F:2: line is longer than 67108864 bytes",
            "trace c (line 3)"
        ]
    );
}

// ---------------------------------------------------------------- schema

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/trace.schema.json"),
    )
    .unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

#[test]
fn schema_accepts_every_pactum_fixture() {
    let v = schema();
    for name in ["pactum_trace.json", "pactum_traces.json"] {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap();
        let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
    for name in ["pactum_traces.jsonl", "pactum_no_level.jsonl"] {
        for line in std::fs::read_to_string(fixture(name))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            assert!(
                v.is_valid(&serde_json::from_str(line).unwrap()),
                "{name}: {line}"
            );
        }
    }
}

/// The schema and the reader agree record by record: what one rejects,
/// so does the other.
#[test]
fn schema_and_reader_agree_on_good_and_bad_records() {
    let v = schema();
    let records = [
        json!({"id": "a"}),
        json!({"id": "a", "observability": "full", "turns": [{"response": null}]}),
        json!({"id": "a", "observability": null}),
        json!({"id": "a", "observability": "full", "source": {"file": "x", "line": 3}}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"name": "f", "arguments": "raw", "result": [1]}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"usage": {"prompt_tokens": 1}}]}),
        json!({"id": "a", "observability": "partial"}),
        json!({"id": 3, "observability": "full"}),
        json!({"observability": "full"}),
        json!({"id": "a", "observability": "full", "extra": 1}),
        json!({"id": "a", "observability": "full", "turns": [{"respnse": "x"}]}),
        json!({"id": "a", "observability": "full", "turns": null}),
        json!({"id": "a", "observability": "full", "turns": [{"input": [{"role": "assistant", "content": "x"}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"input": [{"role": "user"}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"arguments": {}}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"side_effects": [{"details": {}}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"latency_ms": -1}]}),
        json!({"id": "a", "observability": "full", "turns": [{"usage": {"tokens": 1}}]}),
        json!({"id": "a", "observability": "full", "source": {"file": "x"}}),
        json!({"id": "a", "observability": "full", "error": 5}),
        // Tool calls: the decoder's rules.
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"name": "f", "arguments": null}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"name": "f", "arguments": [1]}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"name": "", "arguments": {}}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"name": "f", "error": true}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"name": "f", "id": 7, "error": {"code": 1}}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"functionCall": {"name": "f", "args": {}}}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": [{"name": "f", "kwargs": {}}]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"tool_calls": ["f"]}]}),
        // What the target was offered, and where pactum redacted a secret.
        json!({"id": "a", "observability": "full", "offered_tools": ["send_money", "get_balance"]}),
        json!({"id": "a", "observability": "full", "offered_tools": []}),
        json!({"id": "a", "observability": "full", "offered_tools": null}),
        json!({"id": "a", "observability": "full", "offered_tools": "send_money"}),
        json!({"id": "a", "observability": "full", "offered_tools": [1]}),
        json!({"id": "a", "observability": "full", "offered_tool": []}),
        json!({"id": "a", "observability": "full", "turns": [{"response": "[redacted]", "redacted": ["response"]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"redacted": ["response", "tool_calls", "side_effects"]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"redacted": []}]}),
        json!({"id": "a", "observability": "full", "turns": [{"redacted": ["judge"]}]}),
        json!({"id": "a", "observability": "full", "turns": [{"redacted": "response"}]}),
        json!({"id": "a", "observability": "full", "turns": [{"redacted": null}]}),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, r) in records.iter().enumerate() {
        let p = dir.path().join(format!("r{i}.jsonl"));
        std::fs::write(&p, r.to_string()).unwrap();
        let read_ok =
            read(&p, &opts(TraceFormat::Pactum, Some(L::Full))).is_ok_and(|(_, s)| s.traces == 1);
        assert_eq!(v.is_valid(r), read_ok, "record {i}: {r}");
    }
}

// ---------------------------------------------------------------- round trip

mod roundtrip {
    use super::*;
    use pactum_core::trace::{Channel, Message, SideEffect, SourceRef, ToolCall, Turn, Usage};
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        // No floats: serde_json's default float parsing may differ by one ulp.
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            ".{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z/~]{0,4}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn non_null() -> impl Strategy<Value = Value> {
        json_value().prop_filter("null reads back as absent", |v| !v.is_null())
    }

    /// Arguments as the decoder leaves them: an object, text it could not
    /// decode, or nothing recorded.
    fn arguments() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            prop::collection::btree_map("[a-z/~]{0,4}", json_value(), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            any::<String>().prop_map(|s| {
                pactum_core::chat::decode_arguments(Some(&Value::String(s.clone())))
                    .unwrap_or(Value::String(s))
            }),
        ]
    }

    fn level() -> impl Strategy<Value = L> {
        prop::sample::select(L::ALL.to_vec())
    }

    fn turn() -> impl Strategy<Value = Turn> {
        let message = (prop::bool::ANY, any::<String>()).prop_map(|(user, content)| Message {
            role: if user { Role::User } else { Role::System },
            content,
        });
        let call = (
            prop::option::of("[a-z0-9_]{1,6}"),
            any::<String>().prop_filter("a call names its tool", |s| !s.trim().is_empty()),
            arguments(),
            prop::option::of(non_null()),
            prop::option::of(any::<String>()),
        )
            .prop_map(|(id, name, arguments, result, error)| ToolCall {
                id,
                name,
                arguments,
                result,
                error,
            });
        let effect =
            ("[a-z_]{1,8}", json_value()).prop_map(|(kind, details)| SideEffect { kind, details });
        let usage = (any::<u64>(), any::<u64>()).prop_map(|(p, c)| Usage {
            prompt_tokens: p,
            completion_tokens: c,
        });
        (
            prop::collection::vec(message, 0..3),
            prop::option::of(any::<String>()),
            prop::collection::vec(call, 0..3),
            prop::collection::vec(effect, 0..2),
            prop::option::of(any::<u64>()),
            prop::option::of(usage),
            prop::collection::btree_set(
                prop::sample::select(vec![
                    Channel::Response,
                    Channel::ToolCalls,
                    Channel::SideEffects,
                ]),
                0..3,
            ),
        )
            .prop_map(
                |(input, response, tool_calls, side_effects, latency_ms, usage, redacted)| Turn {
                    input,
                    response,
                    tool_calls,
                    side_effects,
                    latency_ms,
                    usage,
                    redacted,
                },
            )
    }

    fn trace() -> impl Strategy<Value = Trace> {
        (
            any::<String>(),
            level(),
            prop::collection::vec(turn(), 0..3),
            json_value(),
            prop::option::of(any::<String>()),
            prop::option::of(any::<String>()),
            prop::option::of(prop::collection::btree_set(any::<String>(), 0..3)),
            prop::option::of(any::<String>()),
        )
            .prop_map(
                |(
                    id,
                    observability,
                    turns,
                    metadata,
                    error,
                    incomplete,
                    offered_tools,
                    ended_by,
                )| Trace {
                    id,
                    observability,
                    turns,
                    metadata,
                    error,
                    incomplete,
                    ended_by,
                    source: None,
                    offered_tools,
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Serialized as JSONL and as a pretty JSON array, every trace reads
        /// back equal (with `source` naming where it was read), and every
        /// serialized trace is valid under the schema.
        #[test]
        fn pactum_traces_read_back_equal(ts in prop::collection::vec(trace(), 1..4)) {
            let dir = tempfile::tempdir().unwrap();
            let jsonl = dir.path().join("t.jsonl");
            let mut text = String::new();
            for t in &ts {
                text.push_str(&serde_json::to_string(t).unwrap());
                text.push('\n');
            }
            std::fs::write(&jsonl, &text).unwrap();
            let (items, stats) = read(&jsonl, &opts(TraceFormat::Pactum, None)).unwrap();
            prop_assert_eq!(stats.traces, ts.len() as u64);
            for (i, (got, want)) in traces(&items).into_iter().zip(&ts).enumerate() {
                let mut want = want.clone();
                want.source = Some(SourceRef { file: jsonl.display().to_string(), line: i as u64 + 1 });
                prop_assert_eq!(got, &want);
            }

            let arr = dir.path().join("t.json");
            std::fs::write(&arr, serde_json::to_string_pretty(&ts).unwrap()).unwrap();
            let (items, _) = read(&arr, &opts(TraceFormat::Auto, None)).unwrap();
            let got: Vec<Trace> = traces(&items).into_iter().cloned().map(|mut t| { t.source = None; t }).collect();
            prop_assert_eq!(got, ts.clone());

            let v = schema();
            let doc = serde_json::to_value(&ts).unwrap();
            prop_assert!(v.is_valid(&doc));
        }
    }
}

// ------------------------------------------------------- repeated keys

/// A key repeated in one object is ambiguous: read last-wins, an attack
/// recorded under the first `messages` or the first `amount` would vanish.
#[test]
fn a_repeated_key_is_an_error_never_last_wins() {
    let dir = tempfile::tempdir().unwrap();
    let openai = dir.path().join("agent.jsonl");
    let mut f = std::fs::File::create(&openai).unwrap();
    // 1: the whole record repeats `messages`; 2: string arguments repeat a
    // key; 3: clean.
    writeln!(
        f,
        r#"{{"id":"dup","messages":[{{"role":"user","content":"pay"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"c","type":"function","function":{{"name":"send_money","arguments":"{{}}"}}}}]}}],"messages":[]}}"#
    )
    .unwrap();
    writeln!(
        f,
        r#"{{"id":"args","messages":[{{"role":"user","content":"pay"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"c","type":"function","function":{{"name":"send_money","arguments":"{{\"amount\":5000,\"amount\":1}}"}}}}]}}]}}"#
    )
    .unwrap();
    writeln!(
        f,
        r#"{{"id":"ok","messages":[{{"role":"user","content":"hi"}},{{"role":"assistant","content":"hello"}}]}}"#
    )
    .unwrap();
    drop(f);
    let (items, stats) = read(&openai, &opts(TraceFormat::Openai, Some(L::ToolCalls))).unwrap();
    assert_eq!(
        (stats.traces, stats.errors),
        (1, 2),
        "{:?}",
        describe(&items)
    );
    let errs: Vec<&pactum_trace::RecordError> = items
        .iter()
        .filter_map(|i| match i {
            Item::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(
        (errs[0].line, errs[0].field.as_deref()),
        (1, Some("/messages"))
    );
    assert!(
        errs[0].message.contains("duplicate key `messages`"),
        "{}",
        errs[0]
    );
    // Ambiguous JSON-encoded arguments are an error too, as in every
    // importer and target: reading either amount would be a guess.
    assert_eq!(
        (errs[1].line, errs[1].field.as_deref()),
        (2, Some("/messages/1/tool_calls/0/function/arguments"))
    );
    assert!(
        errs[1].message.contains("duplicate key `amount`"),
        "{}",
        errs[1]
    );

    let own = dir.path().join("own.jsonl");
    std::fs::write(
        &own,
        concat!(
            r#"{"id":"p1","observability":"full","turns":[{"response":"ok","tool_calls":[{"name":"refund","arguments":{"amount":5000,"amount":1}}]}]}"#,
            "\n",
            r#"{"id":"p2","observability":"full","metadata":{"label":"attack","label":"benign"},"turns":[{"response":"ok"}]}"#,
            "\n",
            r#"{"id":"p3","observability":"full","turns":[{"response":"ok","response":"fine"}]}"#,
            "\n"
        ),
    )
    .unwrap();
    let (items, stats) = read(&own, &opts(TraceFormat::Pactum, None)).unwrap();
    assert_eq!(
        (stats.traces, stats.errors),
        (0, 3),
        "{:?}",
        describe(&items)
    );
    let described = describe(&items).join("\n");
    assert!(described.contains("duplicate key `amount`"), "{described}");
    assert!(described.contains("duplicate key `label`"), "{described}");
    assert!(
        described.contains("duplicate field `response`"),
        "{described}"
    );
}

// ------------------------------------------------- records that are not JSON

/// A file whose only record is not JSON gets the parse error, with line
/// and column, not advice to pass --format: no format would read it.
#[test]
fn a_record_that_is_not_json_is_reported_as_such_not_as_an_unknown_format() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!(
        "{{\"id\": \"d\", \"turns\": [], \"x\": {}1{}}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    for (name, text, line, says) in [
        (
            "nan.jsonl",
            "{\"id\": \"a\", \"turns\": [], \"score\": NaN}\n".to_string(),
            1,
            "column 35",
        ),
        (
            "huge.jsonl",
            "{\"id\": \"a\", \"turns\": [], \"score\": 1e400}\n".to_string(),
            1,
            "number out of range",
        ),
        (
            "deep.jsonl",
            format!("{deep}\n"),
            1,
            "recursion limit exceeded",
        ),
        (
            "surrogate.jsonl",
            "{\"id\": \"a\", \"turns\": [], \"s\": \"\\ud800 and more\"}\n".to_string(),
            1,
            "surrogate",
        ),
        (
            "second.json",
            "[\n  {\"id\": \"a\",\n   \"turns\": [], \"x\": NaN}\n]\n".to_string(),
            3,
            "column 22",
        ),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let err = read(&p, &opts(TraceFormat::Auto, Some(L::Full))).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, ImportError::Syntax { line: l, .. } if l == line),
            "{name}: {msg}"
        );
        assert!(
            msg.contains("invalid JSON") && msg.contains(says),
            "{name}: {msg}"
        );
        assert!(!msg.contains("--format"), "{name}: {msg}");
    }
    // A record that is JSON but fits no format still asks for --format.
    let p = dir.path().join("other.jsonl");
    std::fs::write(&p, "{\"a\": 1}\n").unwrap();
    let err = read(&p, &opts(TraceFormat::Auto, Some(L::Full))).unwrap_err();
    assert!(matches!(err, ImportError::UnknownFormat { .. }), "{err}");
}

/// A wrong type for `observability` (or a message `role`) names the field
/// and the values it takes; it is not "invalid JSON".
#[test]
fn a_wrong_typed_level_or_role_names_the_field_and_the_values() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.jsonl");
    std::fs::write(
        &p,
        concat!(
            r#"{"id": "a", "observability": 5, "turns": []}"#,
            "\n",
            r#"{"id": "b", "observability": ["full"], "turns": []}"#,
            "\n",
            r#"{"id": "c", "observability": "full", "turns": [{"input": [{"role": 1, "content": "x"}]}]}"#,
            "\n",
            r#"{"id": "d", "observability": "full", "turns": [{"input": [{"role": "assistant", "content": "x"}]}]}"#,
            "\n",
        ),
    )
    .unwrap();
    let (items, stats) = read(&p, &opts(TraceFormat::Pactum, Some(L::Full))).unwrap();
    assert_eq!(stats.errors, 4, "{:?}", describe(&items));
    let described = describe(&items);
    assert_eq!(
        described,
        [
            format!("error {}:1: field `/observability`: expected an observability level (response_only, tool_calls or full), found a number", p.display()),
            format!("error {}:2: field `/observability`: expected an observability level (response_only, tool_calls or full), found an array", p.display()),
            format!("error {}:3: field `/turns/0/input/0/role`: expected a role (system or user), found a number", p.display()),
            format!("error {}:4: field `/turns/0/input/0/role`: unknown role `assistant`: expected system or user (the target's own words are the turn's response)", p.display()),
        ]
    );
}

/// A line that is not JSON is named as such, with the parser's reason,
/// never as a JSON value its first letter suggests (`nope` is not null).
#[test]
fn a_line_that_is_not_json_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.jsonl");
    std::fs::write(
        &p,
        "{\"id\":\"a\",\"observability\":\"response_only\",\"turns\":[{\"response\":\"hi\"}]}\nnope\ntrue\nnull\n",
    )
    .unwrap();
    let (items, stats) = read(&p, &opts(TraceFormat::Pactum, None)).unwrap();
    assert_eq!((stats.traces, stats.errors), (1, 3));
    let d: Vec<String> = describe(&items)
        .iter()
        .map(|s| s.replace(&p.display().to_string(), "F"))
        .collect();
    assert!(d[1].contains("invalid JSON"), "{d:?}");
    assert!(d[2].ends_with("found a boolean"), "{d:?}");
    assert!(d[3].ends_with("found null"), "{d:?}");
}
