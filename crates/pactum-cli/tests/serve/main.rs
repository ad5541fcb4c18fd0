//! `pactum serve` end to end: a real child process receiving OTLP/HTTP
//! bodies (JSON, protobuf, gzip), grading each trace as it completes,
//! storing the verdicts in a real SQLite store, refusing what it cannot
//! read or hold (never silently), and grading what it holds on SIGTERM.

mod support;

use serde_json::json;
use support::*;

const BAD: &str = "0af7651916cd43dd8448eb211c80319c";
const CLEAN: &str = "1bf7651916cd43dd8448eb211c80319d";
const UNSEEN: &str = "2cf7651916cd43dd8448eb211c80319e";

#[test]
fn a_violating_trace_fails_a_clean_one_passes_and_an_unseen_response_is_undetermined() {
    let srv = Served::start(&[]);
    let mut spans = agent_trace(BAD, &["list_files", "delete_file"], "Done.", true, true);
    spans.extend(agent_trace(
        CLEAN,
        &["list_files"],
        "Here are your files.",
        true,
        true,
    ));
    assert_eq!(srv.post_json(&doc(spans)).0, 200);
    // Content capture off: what the agent said was not observed.
    let (code, _) = srv.post_json(&doc(agent_trace(UNSEEN, &["list_files"], "", false, true)));
    assert_eq!(code, 200);
    srv.wait_graded(3);
    let end = srv.stop("TERM");
    assert_eq!(
        end.code, 1,
        "a failed trace: exit 1\n{}\n{}",
        end.stdout, end.stderr
    );
    let (run, _) = end.stored();
    assert_eq!(run, "finished");
    assert_eq!(end.status_of(BAD), "fail");
    assert_eq!(end.status_of(CLEAN), "pass");
    assert_eq!(end.status_of(UNSEEN), "undetermined");
    let stored = end.stored().1;
    let unseen = stored.iter().find(|s| s.test_id == UNSEEN).expect("unseen");
    let pw = unseen.result["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .find(|c| c["id"] == "no-password")
        .expect("no-password");
    assert_eq!(pw["verdict"], "not_evaluable", "{pw}");
    assert!(
        end.stdout.contains(&format!("FAIL  {BAD}")),
        "{}",
        end.stdout
    );
    assert!(
        end.stdout
            .contains("3 trace(s) graded (1 pass, 1 fail, 1 undetermined"),
        "{}",
        end.stdout
    );
}

fn proto_of(doc: &serde_json::Value) -> Vec<u8> {
    use pactum_serve::proto::{
        any_value, AnyValue, ExportTraceServiceRequest, KeyValue, ResourceSpans, ScopeSpans, Span,
    };
    use prost::Message;
    let hexb = |v: &serde_json::Value| v.as_str().map(hex_bytes).unwrap_or_default();
    let spans: Vec<Span> = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .expect("spans")
        .iter()
        .map(|s| Span {
            trace_id: hexb(&s["traceId"]),
            span_id: hexb(&s["spanId"]),
            parent_span_id: hexb(&s["parentSpanId"]),
            name: s["name"].as_str().unwrap_or_default().into(),
            start_time_unix_nano: s["startTimeUnixNano"]
                .as_str()
                .and_then(|x| x.parse().ok())
                .unwrap_or(0),
            end_time_unix_nano: s["endTimeUnixNano"]
                .as_str()
                .and_then(|x| x.parse().ok())
                .unwrap_or(0),
            attributes: s["attributes"]
                .as_array()
                .expect("attrs")
                .iter()
                .map(|a| KeyValue {
                    key: a["key"].as_str().expect("key").into(),
                    value: Some(AnyValue {
                        value: Some(any_value::Value::StringValue(
                            a["value"]["stringValue"].as_str().expect("string").into(),
                        )),
                    }),
                })
                .collect(),
            events: vec![],
            status: None,
            ..Span::default()
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: None,
            scope_spans: vec![ScopeSpans { spans }],
        }],
    }
    .encode_to_vec()
}

fn hex_bytes(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn protobuf_and_gzip_bodies_are_graded_like_json() {
    let srv = Served::start(&[]);
    let bad = proto_of(&doc(agent_trace(
        BAD,
        &["delete_file"],
        "Done.",
        true,
        true,
    )));
    let (code, body) = srv.post("application/x-protobuf", &[], &bad);
    assert_eq!(code, 200, "{body}");
    let clean = doc(agent_trace(CLEAN, &["list_files"], "Here.", true, true)).to_string();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, clean.as_bytes()).expect("gzip");
    let (code, body) = srv.post(
        "application/json",
        &[("Content-Encoding", "gzip")],
        &gz.finish().expect("gzip"),
    );
    assert_eq!(code, 200, "{body}");
    srv.wait_graded(2);
    let end = srv.stop("INT");
    assert_eq!(end.status_of(BAD), "fail", "{}", end.stderr);
    assert_eq!(end.status_of(CLEAN), "pass");
    assert_eq!(end.code, 1);
    // The stored trace keeps the link back to its OpenTelemetry ids.
    let stored = end.stored().1;
    let t = stored
        .iter()
        .find(|s| s.test_id == BAD)
        .and_then(|s| s.trace.clone())
        .expect("trace");
    assert_eq!(t["metadata"]["otel_trace_ids"], json!([BAD]));
    assert_eq!(
        t["metadata"]["otel_root_span_ids"],
        json!([format!("{}01", &BAD[..14])])
    );
}

#[test]
fn malformed_bodies_are_refused_with_400_and_the_server_keeps_running() {
    let srv = Served::start(&[]);
    let (code, body) = srv.post("application/json", &[], b"{\"resourceSpans\": [");
    assert_eq!(code, 400);
    assert!(body.starts_with("malformed JSON"), "{body}");
    assert_eq!(body.trim().lines().count(), 1, "{body}");
    let (code, body) = srv.post_json(&json!({"hello": 1}));
    assert_eq!(code, 400);
    assert!(body.contains("not an OTLP trace document"), "{body}");
    let (code, body) = srv.post(
        "application/x-protobuf",
        &[],
        &[0xff, 0xff, 0xff, 0x0f, 0x01],
    );
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("ExportTraceServiceRequest"), "{body}");
    let (code, _) = srv.post("text/plain", &[], b"hi");
    assert_eq!(code, 415);
    // A span without a start time: the whole body is refused, none kept.
    let mut spans = agent_trace(BAD, &["delete_file"], "Done.", true, true);
    spans[2]
        .as_object_mut()
        .expect("span")
        .remove("startTimeUnixNano");
    let (code, body) = srv.post_json(&doc(spans));
    assert_eq!(code, 400);
    assert!(body.contains("start time"), "{body}");
    // Still serving.
    let (code, _) = srv.post_json(&doc(agent_trace(
        CLEAN,
        &["list_files"],
        "Here.",
        true,
        true,
    )));
    assert_eq!(code, 200);
    srv.wait_graded(1);
    let end = srv.stop("TERM");
    assert_eq!(end.status_of(CLEAN), "pass");
    // Refused bodies make the session partial (5), never a clean pass.
    assert_eq!(end.code, 5, "{}\n{}", end.stdout, end.stderr);
    assert!(
        end.stderr.contains("refused a body (400)"),
        "{}",
        end.stderr
    );
    assert!(
        end.stdout.contains("refused: 5 malformed body(ies)"),
        "{}",
        end.stdout
    );
}

#[test]
fn an_oversized_body_is_refused_with_413_compressed_or_not() {
    let srv = Served::start(&["--max-body-bytes", "2000"]);
    let big = doc(agent_trace(
        BAD,
        &["delete_file"],
        &"x".repeat(5000),
        true,
        true,
    ))
    .to_string();
    let (code, _) = srv.post("application/json", &[], big.as_bytes());
    assert_eq!(code, 413);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, big.as_bytes()).expect("gzip");
    let small = gz.finish().expect("gzip");
    assert!(small.len() < 2000);
    let (code, _) = srv.post("application/json", &[("Content-Encoding", "gzip")], &small);
    assert_eq!(code, 413, "a small gzip of a large body is still too large");
    let end = srv.stop("TERM");
    assert!(end.stdout.contains("2 too large"), "{}", end.stdout);
    assert_eq!(end.stored().1.len(), 0);
    assert_ne!(end.code, 0);
}

#[test]
fn a_trace_that_lost_spans_never_passes() {
    // Two spans per trace: each trace's third span (a tool span) is dropped.
    let srv = Served::start(&["--max-spans-per-trace", "2"]);
    let clean = agent_trace(CLEAN, &["list_files"], "Here.", true, true);
    assert_eq!(clean.len(), 3);
    let (code, body) = srv.post_json(&doc(clean));
    assert_eq!(code, 200);
    assert!(body.contains("partialSuccess"), "{body}");
    // The violation is in the kept chat span's output: still a failure.
    let (code, _) = srv.post_json(&doc(agent_trace(
        BAD,
        &["delete_file"],
        "Done.",
        true,
        true,
    )));
    assert_eq!(code, 200);
    srv.wait_graded(2);
    let end = srv.stop("TERM");
    // Every clause of the clean trace holds on what was kept, yet what was
    // dropped may have been the violation: not a pass.
    assert_eq!(end.status_of(CLEAN), "undetermined", "{}", end.stdout);
    assert_eq!(end.status_of(BAD), "fail");
    assert!(
        end.stderr.contains("--max-spans-per-trace"),
        "{}",
        end.stderr
    );
    assert!(end.stdout.contains("dropped: 2 span(s)"), "{}", end.stdout);
    assert!(
        end.stdout.contains("(2 trace(s) graded incomplete)"),
        "{}",
        end.stdout
    );
    assert_eq!(end.code, 5);
}

#[test]
fn traces_past_the_open_trace_cap_are_refused_and_counted() {
    let srv = Served::start(&["--max-open-traces", "1"]);
    // Roots not ended: both would stay open.
    assert_eq!(
        srv.post_json(&doc(agent_trace(
            CLEAN,
            &["list_files"],
            "Here.",
            true,
            false
        )))
        .0,
        200
    );
    let (code, body) = srv.post_json(&doc(agent_trace(
        BAD,
        &["delete_file"],
        "Done.",
        true,
        false,
    )));
    assert_eq!(code, 200);
    assert!(body.contains("--max-open-traces"), "{body}");
    let end = srv.stop("TERM");
    assert!(
        end.stderr.contains("refused, 1 traces are open already"),
        "{}",
        end.stderr
    );
    assert!(
        end.stdout
            .contains("1 trace(s) refused past --max-open-traces"),
        "{}",
        end.stdout
    );
    // The refused trace is not graded from a part, but recorded as not
    // graded; the held one is graded.
    let stored = end.stored().1;
    assert_eq!(stored.len(), 2);
    assert_eq!(end.status_of(BAD), "error");
    let bad = stored.iter().find(|s| s.test_id == BAD).expect("stored");
    assert!(bad.result["summary"]
        .as_str()
        .unwrap_or_default()
        .contains("--max-open-traces"));
    assert!(bad.trace.is_none());
    assert_eq!(end.status_of(CLEAN), "undetermined", "cut off at shutdown");
    assert_eq!(end.code, 5);
}

#[test]
fn sigterm_grades_a_trace_whose_root_never_ended_as_cut_off() {
    let srv = Served::start(&["--quiet-period", "60s"]);
    assert_eq!(
        srv.post_json(&doc(agent_trace(
            CLEAN,
            &["list_files"],
            "Here.",
            true,
            false
        )))
        .0,
        200
    );
    let end = srv.stop("TERM");
    let (run, stored) = end.stored();
    assert_eq!(run, "finished");
    assert_eq!(stored.len(), 1, "{}\n{}", end.stdout, end.stderr);
    // Cut off: the absence of a delete is not known.
    assert_eq!(stored[0].status, "undetermined", "{}", stored[0].result);
    let trace = stored[0].trace.as_ref().expect("trace");
    assert!(
        trace["incomplete"]
            .as_str()
            .unwrap_or_default()
            .contains("cut off"),
        "{trace}"
    );
    assert!(
        end.stdout.contains("1 trace(s) cut off at shutdown"),
        "{}",
        end.stdout
    );
    assert_eq!(end.code, 3);
}

#[test]
fn a_key_in_a_trace_reaches_neither_the_store_nor_a_line() {
    let key = "sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678";
    let srv = Served::start(&[]);
    let (code, _) = srv.post_json(&doc(agent_trace(
        BAD,
        &["delete_file"],
        &format!("Your key is {key}"),
        true,
        true,
    )));
    assert_eq!(code, 200);
    srv.wait_graded(1);
    let end = srv.stop("TERM");
    assert!(!end.stdout.contains(key) && !end.stderr.contains(key));
    let bytes = std::fs::read(&end.db).expect("store");
    let needle = key.as_bytes();
    assert!(
        !bytes.windows(needle.len()).any(|w| w == needle),
        "the key reached the store file"
    );
    assert_eq!(end.status_of(BAD), "fail");
}

/// The Python virtual environment `.ci/otel` creates with the
/// OpenTelemetry SDK and its OTLP/HTTP exporter.
fn otel_python() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/otel-venv/bin/python")
}

#[test]
#[ignore = "OpenTelemetry SDK: bash .ci/otel"]
fn otel_sdk_exporter_spans_are_graded_and_stored() {
    let python = otel_python();
    assert!(
        python.exists(),
        "the OpenTelemetry SDK is missing: run bash .ci/otel (it creates {})",
        python.display()
    );
    let srv = Served::start(&[]);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve/otel_agent.py");
    let out = std::process::Command::new(&python)
        .arg(&script)
        .arg(format!("http://{}/v1/traces", srv.addr))
        .output()
        .expect("run the scripted agent");
    assert!(
        out.status.success(),
        "the scripted agent failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: serde_json::Value = serde_json::from_slice(&out.stdout).expect("trace ids");
    srv.wait_graded(3);
    let end = srv.stop("TERM");
    let id = |k: &str| ids[k].as_str().expect("id").to_string();
    assert_eq!(
        end.status_of(&id("violating")),
        "fail",
        "{}\n{}",
        end.stdout,
        end.stderr
    );
    assert_eq!(end.status_of(&id("clean")), "pass");
    assert_eq!(end.status_of(&id("capture_off")), "undetermined");
    let stored = end.stored().1;
    let off = stored
        .iter()
        .find(|s| s.test_id == id("capture_off"))
        .expect("stored");
    let pw = off.result["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .find(|c| c["id"] == "no-password")
        .expect("no-password");
    assert_eq!(pw["verdict"], "not_evaluable", "{pw}");
    assert_eq!(
        off.trace.as_ref().expect("trace")["metadata"]["observed"]["response"],
        false
    );
    assert_eq!(end.stored().0, "finished");
    assert_eq!(end.code, 1);
}

/// A one-thread HTTP sink standing in for a collector: every body POSTed
/// to it, answered 200.
fn collector() -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr").to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            let mut r = BufReader::new(s.try_clone().expect("clone"));
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; len];
            let _ = r.read_exact(&mut body);
            let _ =
                s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
            let _ = tx.send(String::from_utf8_lossy(&body).into_owned());
        }
    });
    (addr, rx)
}

#[test]
fn verdicts_reach_a_collector_as_evaluation_events_and_the_run_can_be_shown() {
    let (addr, bodies) = collector();
    let url = format!("http://{addr}/v1/logs");
    let srv = Served::start(&["--otlp-endpoint", &url]);
    assert_eq!(
        srv.post_json(&doc(agent_trace(
            BAD,
            &["delete_file"],
            "Done.",
            true,
            true
        )))
        .0,
        200
    );
    srv.wait_graded(1);
    let body = bodies
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("an export");
    let end = srv.stop("TERM");
    let logs: serde_json::Value = serde_json::from_str(&body).expect("OTLP JSON logs");
    let recs = logs["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
        .as_array()
        .expect("records");
    let delete = recs
        .iter()
        .find(|r| r["attributes"].to_string().contains("serve/no-delete"))
        .expect("the no-delete verdict");
    assert_eq!(delete["eventName"], "gen_ai.evaluation.result");
    assert_eq!(delete["traceId"], BAD);
    assert_eq!(delete["spanId"], format!("{}01", &BAD[..14]));
    assert!(
        delete["attributes"].to_string().contains("\"fail\""),
        "{delete}"
    );
    // The stored run reads back like any other.
    let run_id = end
        .stdout
        .split("(run ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .expect("run id")
        .to_string();
    let show = std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
        .args(["show", &run_id, "--db"])
        .arg(&end.db)
        .args(["--json", "-"])
        .output()
        .expect("pactum show");
    let report: serde_json::Value = serde_json::from_slice(&show.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&show.stderr)));
    assert_eq!(report["results"][0]["trace_id"], BAD, "{report}");
    assert_eq!(report["results"][0]["status"], "fail");
}

#[test]
fn a_trace_whose_earlier_body_was_refused_never_passes() {
    let srv = Served::start(&[]);
    // The first body of the clean trace is refused (a span without a
    // start time); the rest arrives fine and would pass on its own.
    let mut spans = agent_trace(CLEAN, &["list_files"], "Here.", true, true);
    let mut broken = spans.remove(2);
    broken
        .as_object_mut()
        .expect("span")
        .remove("startTimeUnixNano");
    assert_eq!(srv.post_json(&doc(vec![broken])).0, 400);
    assert_eq!(srv.post_json(&doc(spans)).0, 200);
    srv.wait_graded(1);
    let end = srv.stop("TERM");
    assert_eq!(end.status_of(CLEAN), "undetermined", "{}", end.stdout);
    assert_eq!(end.code, 5);
}

const OTHER: &str = "3df7651916cd43dd8448eb211c80319f";

#[test]
fn a_tool_span_without_an_operation_name_is_graded_and_a_trace_pactum_cannot_read_is_never_skipped_green(
) {
    let srv = Served::start(&[]);
    // Only an agent span and a delete_file span that names its tool with
    // no `gen_ai.operation.name` (it was skipped, exit 0).
    let root = format!("{}01", &BAD[..14]);
    let mut spans = agent_trace(BAD, &[], "", false, true);
    spans.truncate(1);
    spans.push(json!({
        "traceId": BAD, "spanId": format!("{}10", &BAD[..14]), "parentSpanId": root,
        "name": "delete_file.tool", "startTimeUnixNano": "1700000000300000000", "endTimeUnixNano": "1700000000400000000",
        "attributes": [
            {"key": "traceloop.span.kind", "value": {"stringValue": "tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "delete_file"}}]
    }));
    assert_eq!(srv.post_json(&doc(spans)).0, 200);
    // An agent ran and no span shows what it did: not a skip.
    let mut agent_only = agent_trace(OTHER, &[], "", false, true);
    agent_only.truncate(1);
    assert_eq!(srv.post_json(&doc(agent_only)).0, 200);
    srv.wait_graded(2);
    let end = srv.stop("TERM");
    assert_eq!(end.status_of(BAD), "fail", "{}", end.stdout);
    assert_eq!(end.status_of(OTHER), "error", "{}", end.stdout);
    assert!(end.stdout.contains("0 skipped"), "{}", end.stdout);
    assert_eq!(end.code, 5, "{}\n{}", end.stdout, end.stderr);
}

#[test]
fn a_trace_that_lost_attributes_or_a_parent_span_never_passes() {
    let srv = Served::start(&[]);
    // The SDK dropped attributes of the chat span (protobuf field 10).
    let mut lost = proto_of(&doc(agent_trace(
        CLEAN,
        &["list_files"],
        "Here.",
        true,
        true,
    )));
    {
        use pactum_serve::proto::ExportTraceServiceRequest;
        use prost::Message;
        let mut req = ExportTraceServiceRequest::decode(&lost[..]).expect("decode");
        req.resource_spans[0].scope_spans[0].spans[1].dropped_attributes_count = 40;
        lost = req.encode_to_vec();
    }
    let (code, body) = srv.post("application/x-protobuf", &[], &lost);
    assert_eq!(code, 200, "{body}");
    // The root is a SERVER span whose caller is in another process: its
    // parent is remote, never exported here, and the trace is whole.
    let mut remote = proto_of(&doc(agent_trace(
        UNSEEN,
        &["list_files"],
        "Here.",
        true,
        true,
    )));
    {
        use pactum_serve::proto::ExportTraceServiceRequest;
        use prost::Message;
        let mut req = ExportTraceServiceRequest::decode(&remote[..]).expect("decode");
        let root = &mut req.resource_spans[0].scope_spans[0].spans[0];
        root.parent_span_id = vec![0x5a; 8];
        root.kind = 2;
        remote = req.encode_to_vec();
    }
    let (code, body) = srv.post("application/x-protobuf", &[], &remote);
    assert_eq!(code, 200, "{body}");
    // The chat span's parent never arrives; the root it names does not
    // exist, but another root span has ended, so the trace is graded.
    let mut orphan = agent_trace(OTHER, &["list_files"], "Here.", true, true);
    orphan[1]["parentSpanId"] = json!(format!("{}99", &OTHER[..14]));
    assert_eq!(srv.post_json(&doc(orphan)).0, 200);
    srv.wait_graded(3);
    let end = srv.stop("TERM");
    assert_eq!(end.status_of(CLEAN), "undetermined", "{}", end.stdout);
    assert_eq!(end.status_of(OTHER), "undetermined", "{}", end.stdout);
    assert_eq!(end.status_of(UNSEEN), "pass", "{}", end.stdout);
    let stored = end.stored().1;
    let why = |id: &str| {
        stored
            .iter()
            .find(|s| s.test_id == id)
            .and_then(|s| s.trace.as_ref())
            .map(|t| t["incomplete"].as_str().unwrap_or_default().to_string())
            .unwrap_or_default()
    };
    assert!(why(CLEAN).contains("40 attribute(s)"), "{}", why(CLEAN));
    assert!(why(OTHER).contains("cut off"), "{}", why(OTHER));
    assert!(
        end.stdout.contains("0 trace(s) cut off at shutdown"),
        "{}",
        end.stdout
    );
    assert_eq!(end.code, 3);
}

#[test]
fn a_trace_whose_root_span_was_dropped_past_the_span_cap_counts_as_cut_off() {
    let srv = Served::start(&["--max-spans-per-trace", "3"]);
    // The root comes last (exporters send a span when it ends) and is the
    // one dropped.
    let mut spans = agent_trace(BAD, &["list_files", "delete_file"], "Done.", true, true);
    let root = spans.remove(0);
    spans.push(root);
    assert_eq!(srv.post_json(&doc(spans)).0, 200);
    let end = srv.stop("TERM");
    assert_eq!(end.status_of(BAD), "fail", "{}", end.stdout);
    assert!(
        end.stdout.contains("1 trace(s) cut off at shutdown"),
        "{}",
        end.stdout
    );
    assert_eq!(end.code, 5);
}

#[test]
fn a_protobuf_span_with_a_short_trace_id_is_refused_naming_the_field() {
    let srv = Served::start(&[]);
    let mut body = proto_of(&doc(agent_trace(
        CLEAN,
        &["list_files"],
        "Here.",
        true,
        true,
    )));
    {
        use pactum_serve::proto::ExportTraceServiceRequest;
        use prost::Message;
        let mut req = ExportTraceServiceRequest::decode(&body[..]).expect("decode");
        req.resource_spans[0].scope_spans[0].spans[1]
            .trace_id
            .truncate(8);
        body = req.encode_to_vec();
    }
    let (code, text) = srv.post("application/x-protobuf", &[], &body);
    assert_eq!(code, 400, "{text}");
    assert!(
        text.contains("traceId") && text.contains("16 bytes"),
        "{text}"
    );
    let end = srv.stop("TERM");
    assert_eq!(end.code, 5, "{}", end.stdout);
}

#[test]
fn a_key_in_an_unreadable_trace_or_a_refused_body_reaches_no_line_store_or_answer() {
    let key = "sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678";
    let srv = Served::start(&[]);
    let mut answers = Vec::new();
    // The key as the trace id.
    let mut spans = agent_trace(BAD, &[], "ok", true, true);
    for s in &mut spans {
        s["traceId"] = json!(key);
    }
    answers.push(srv.post_json(&doc(spans)));
    // The key as the name of a span whose conventions conflict.
    let mut spans = agent_trace(CLEAN, &[], "ok", true, true);
    spans[1]["name"] = json!(key);
    spans[1]["attributes"]
        .as_array_mut()
        .expect("attributes")
        .push(json!({"key": "gen_ai.tool.name", "value": {"stringValue": "x"}}));
    answers.push(srv.post_json(&doc(spans)));
    // The key as a message role.
    let mut spans = agent_trace(UNSEEN, &[], "ok", true, true);
    spans[1]["attributes"][2]["value"]["stringValue"] =
        json!(json!([{"role": key, "parts": []}]).to_string());
    answers.push(srv.post_json(&doc(spans)));
    // The key as a status code, then as a parent span id.
    let mut spans = agent_trace(OTHER, &[], "ok", true, true);
    spans[1]["status"] = json!({"code": key});
    answers.push(srv.post_json(&doc(spans)));
    let mut spans = agent_trace(OTHER, &[], "ok", true, true);
    spans[1]["parentSpanId"] = json!(key);
    answers.push(srv.post_json(&doc(spans)));
    srv.wait_graded(2);
    let end = srv.stop("TERM");
    let lower = key.to_ascii_lowercase();
    let tail = &key["sk-proj-".len()..];
    for (what, text) in [("stdout", &end.stdout), ("stderr", &end.stderr)] {
        for k in [key, lower.as_str(), tail] {
            assert!(!text.contains(k), "the key reached {what}:\n{text}");
        }
    }
    for (code, body) in &answers {
        assert!(
            !body.contains(key) && !body.contains(&lower),
            "the key reached an answer ({code}): {body}"
        );
    }
    assert!(answers.iter().any(|(c, _)| *c == 400), "{answers:?}");
    let bytes = std::fs::read(&end.db).expect("store");
    for k in [key, lower.as_str()] {
        assert!(
            !bytes.windows(k.len()).any(|w| w == k.as_bytes()),
            "the key reached the store file\n{}",
            end.stdout
        );
    }
}

#[test]
fn spans_arriving_after_a_trace_was_graded_leave_no_stored_pass_and_no_clean_run() {
    let srv = Served::start(&[]);
    let mut spans = agent_trace(CLEAN, &["delete_file"], "Here.", true, true);
    // The delete_file tool span and the call in the output come later.
    let late = spans.pop().expect("tool span");
    spans[1] = agent_trace(CLEAN, &[], "Here.", true, true)[1].clone();
    assert_eq!(srv.post_json(&doc(spans)).0, 200);
    srv.wait_graded(1);
    assert_eq!(srv.post_json(&doc(vec![late])).0, 200);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let end = srv.stop("TERM");
    assert_eq!(end.code, 5, "{}\n{}", end.stdout, end.stderr);
    let (run, stored) = end.stored();
    assert_ne!(
        run, "finished",
        "a run that dropped spans reads as a clean finish"
    );
    let mine: Vec<&Stored> = stored.iter().filter(|s| s.test_id == CLEAN).collect();
    assert!(
        mine.iter().any(|s| s.status == "error"
            && s.result["summary"]
                .as_str()
                .unwrap_or_default()
                .contains("after")),
        "{:?}",
        mine.iter()
            .map(|s| (&s.status, &s.result))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_protobuf_resource_that_lost_attributes_keeps_its_trace_from_passing() {
    let srv = Served::start(&[]);
    let mut body = proto_of(&doc(agent_trace(
        CLEAN,
        &["list_files"],
        "Here.",
        true,
        true,
    )));
    {
        use pactum_serve::proto::{ExportTraceServiceRequest, Resource};
        use prost::Message;
        let mut req = ExportTraceServiceRequest::decode(&body[..]).expect("decode");
        req.resource_spans[0].resource = Some(Resource {
            dropped_attributes_count: 2,
        });
        body = req.encode_to_vec();
    }
    let (code, text) = srv.post("application/x-protobuf", &[], &body);
    assert_eq!(code, 200, "{text}");
    srv.wait_graded(1);
    let end = srv.stop("TERM");
    assert_eq!(end.status_of(CLEAN), "undetermined", "{}", end.stdout);
}

#[test]
fn a_server_span_is_not_the_root_of_a_trace_whose_parentless_root_has_arrived() {
    let srv = Served::start(&[]);
    // The root (no parent) has not ended; a SERVER chat span below a
    // parent that never arrives has.
    let mut spans = agent_trace(BAD, &["delete_file"], "Done.", true, false);
    let tool = spans.pop().expect("tool span");
    // The call shows only in the tool span, which comes later.
    spans[1] = agent_trace(BAD, &[], "Done.", true, false)[1].clone();
    spans[1]["kind"] = json!("SPAN_KIND_SERVER");
    spans[1]["parentSpanId"] = json!(format!("{}77", &BAD[..14]));
    assert_eq!(srv.post_json(&doc(spans)).0, 200);
    std::thread::sleep(std::time::Duration::from_millis(900));
    // Nothing graded yet: the trace's root is still open.
    assert_eq!(srv.post_json(&doc(vec![tool])).0, 200);
    let end = srv.stop("TERM");
    assert_eq!(end.status_of(BAD), "fail", "{}\n{}", end.stdout, end.stderr);
    assert!(!end.stdout.contains("PASS "), "{}", end.stdout);
}
