//! OpenTelemetry traces graded end to end: in every convention and in both
//! file formats, a prohibited call present fails its trace; a response
//! whose content was not captured leaves text checks undetermined.

use crate::support::*;

fn grade(traces: &[&str], extra: &[&str]) -> (Run, serde_json::Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let contract = fx("contracts/otel.yaml");
    let mut args: Vec<String> = vec!["grade".into(), "-c".into(), contract];
    args.extend(traces.iter().map(|t| fx(&format!("traces/{t}"))));
    args.extend(extra.iter().map(|s| (*s).to_string()));
    args.push("--json".into());
    args.push(json.to_str().expect("utf-8").into());
    let run = pactum(&args);
    let report = read_report(&json);
    (run, report)
}

#[test]
fn a_prohibited_call_fails_its_trace_in_every_convention_and_format() {
    let (run, report) = grade(
        &[
            "otel_genai_current.json",
            "otel_genai_old_flattened.jsonl",
            "otel_genai_old_events.json",
            "otel_openinference.json",
            "otel_jaeger_helm_excerpt.json",
            "otel_tool_error.json",
        ],
        &[],
    );
    assert_code(&run, 1);
    let st = statuses(&report);
    for id in [
        "conv-current",
        "1bf7651916cd43dd8448eb211c80319d",
        "2cf7651916cd43dd8448eb211c80319e",
        "sess-42",
        "ctx-7ed9780f-3688-4fc0-b10b-2e4df2f83cf0",
        "6af7651916cd43dd8448eb211c8031a3",
    ] {
        assert_eq!(
            st.get(id).map(String::as_str),
            Some("fail"),
            "{id}: {st:?}\n{}",
            run.all()
        );
    }
    // The errored call still counts as made.
    let r = results_by_id(&report)["6af7651916cd43dd8448eb211c8031a3"];
    let clause = r["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .find(|c| c["id"] == "no-transfer")
        .expect("no-transfer");
    assert_eq!(clause["verdict"], "violated", "{clause}");
}

#[test]
fn an_explicit_format_reads_the_same_and_refuses_the_other() {
    let (run, report) = grade(&["otel_jaeger_helm_excerpt.json"], &["--format", "jaeger"]);
    assert_code(&run, 1);
    assert_eq!(
        statuses(&report)["ctx-7ed9780f-3688-4fc0-b10b-2e4df2f83cf0"],
        "fail"
    );
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/otel.yaml"),
        &fx("traces/otel_jaeger_helm_excerpt.json"),
        "--format",
        "otlp",
    ]);
    assert_ne!(run.code, 0, "{}", run.all());
    assert!(
        run.all().contains("not an OTLP trace document"),
        "{}",
        run.all()
    );
}

#[test]
fn content_capture_off_leaves_text_checks_undetermined_never_passed() {
    let (run, report) = grade(&["otel_content_off.json"], &[]);
    let st = statuses(&report);
    // A tool span shows the call, but nothing shows what the model said:
    // the `hunter2` check cannot pass.
    let r = results_by_id(&report)["4ef7651916cd43dd8448eb211c8031a1"];
    let clause = r["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .find(|c| c["id"] == "no-password")
        .expect("no-password");
    assert_ne!(clause["verdict"], "satisfied", "{clause}");
    assert_ne!(
        st["4ef7651916cd43dd8448eb211c8031a1"],
        "pass",
        "{}",
        run.all()
    );
    // No content and no tool span: nothing was observed, never a pass.
    assert_ne!(
        st["5ff7651916cd43dd8448eb211c8031a2"],
        "pass",
        "{}",
        run.all()
    );
    assert_ne!(run.code, 0);
}

#[test]
fn a_declared_level_the_spans_contradict_is_lowered_with_a_warning_naming_the_trace() {
    let (run, report) = grade(&["otel_content_off.json"], &["--observability", "full"]);
    let all = run.all();
    assert!(
        all.contains("observability-contradicted")
            && all.contains("4ef7651916cd43dd8448eb211c8031a1")
            && all.contains("declared full, but the spans show tool_calls"),
        "{all}"
    );
    assert_ne!(
        statuses(&report)["4ef7651916cd43dd8448eb211c8031a1"],
        "pass"
    );
}

/// The `gen_ai.evaluation.result` records of an `--otlp-out` document.
fn eval_records(doc: &serde_json::Value) -> Vec<&serde_json::Value> {
    doc["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
        .as_array()
        .expect("logRecords")
        .iter()
        .collect()
}

fn attr<'a>(rec: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    rec["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

#[test]
fn otlp_out_writes_each_clause_verdict_linked_to_the_graded_span() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("evals.json");
    let args = |o: &std::path::Path| {
        vec![
            "grade".to_string(),
            "-c".into(),
            fx("contracts/otel.yaml"),
            fx("traces/otel_genai_current.json"),
            "--quiet".into(),
            "--otlp-out".into(),
            o.to_str().expect("utf-8").into(),
        ]
    };
    let run = pactum(args(&out));
    assert_code(&run, 1);
    let bytes = std::fs::read(&out).expect("written");
    let doc: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
    let recs = eval_records(&doc);
    // Seven clauses and the trace's own record.
    assert_eq!(recs.len(), 8, "{doc:#}");
    for r in &recs {
        assert_eq!(r["eventName"], "gen_ai.evaluation.result");
        assert_eq!(
            attr(r, "event.name").and_then(|v| v["stringValue"].as_str()),
            Some("gen_ai.evaluation.result")
        );
        // Linked to the root span of the OpenTelemetry trace graded.
        assert_eq!(r["traceId"], "0af7651916cd43dd8448eb211c80319c", "{r}");
        assert_eq!(r["spanId"], "a000000000000001", "{r}");
        assert!(r.get("timeUnixNano").is_none(), "no wall clock: {r}");
    }
    let by_name = |n: &str| {
        recs.iter()
            .find(|r| {
                attr(r, "gen_ai.evaluation.name").and_then(|v| v["stringValue"].as_str()) == Some(n)
            })
            .unwrap_or_else(|| panic!("{n} in {doc:#}"))
    };
    let weather = by_name("otel/no-weather");
    assert_eq!(
        attr(weather, "gen_ai.evaluation.score.label").expect("label")["stringValue"],
        "fail"
    );
    assert_eq!(
        attr(weather, "gen_ai.evaluation.score.value").expect("value")["doubleValue"],
        0.0
    );
    assert!(attr(weather, "gen_ai.evaluation.explanation").is_some());
    let trace = by_name("pactum");
    assert_eq!(
        attr(trace, "gen_ai.evaluation.score.label").expect("label")["stringValue"],
        "fail"
    );
    // The same inputs give the same bytes.
    let again = dir.path().join("again.json");
    let run = pactum(args(&again));
    assert_code(&run, 1);
    assert_eq!(std::fs::read(&again).expect("written"), bytes);
}

#[test]
fn otlp_out_leaves_a_response_it_did_not_see_undetermined_and_unscored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("evals.json");
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/otel.yaml"),
        &fx("traces/otel_content_off.json"),
        "--quiet",
        "--otlp-out",
        out.to_str().expect("utf-8"),
    ]);
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("written")).expect("json");
    let recs = eval_records(&doc);
    let pw = recs
        .iter()
        .find(|r| {
            attr(r, "gen_ai.evaluation.name").and_then(|v| v["stringValue"].as_str())
                == Some("otel/no-password")
        })
        .unwrap_or_else(|| panic!("{doc:#}\n{}", run.all()));
    assert_eq!(
        attr(pw, "gen_ai.evaluation.score.label").expect("label")["stringValue"],
        "undetermined",
        "{pw}"
    );
    assert!(attr(pw, "gen_ai.evaluation.score.value").is_none(), "{pw}");
    // The trace itself is not a pass: its response was never seen.
    let trace = recs
        .iter()
        .find(|r| {
            attr(r, "gen_ai.evaluation.name").and_then(|v| v["stringValue"].as_str())
                == Some("pactum")
        })
        .expect("trace record");
    assert_eq!(
        attr(trace, "gen_ai.evaluation.score.label").expect("label")["stringValue"],
        "undetermined",
        "{trace}"
    );
}

#[test]
fn otlp_out_never_links_a_trace_that_did_not_come_from_opentelemetry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("evals.json");
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/otel.yaml"),
        &fx("traces/pass.jsonl"),
        "--quiet",
        "--otlp-out",
        out.to_str().expect("utf-8"),
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).expect("written"))
        .unwrap_or_else(|e| panic!("{e}: {}", run.all()));
    let recs = eval_records(&doc);
    assert!(!recs.is_empty());
    for r in recs {
        assert!(
            r.get("traceId").is_none() && r.get("spanId").is_none(),
            "{r}"
        );
    }
}

#[test]
fn otlp_out_over_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = dir.path().join("t.json");
    std::fs::copy(root().join(fx("traces/otel_genai_current.json")), &trace).expect("copy");
    let before = std::fs::read(&trace).expect("read");
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/otel.yaml"),
        trace.to_str().expect("utf-8"),
        "--otlp-out",
        trace.to_str().expect("utf-8"),
    ]);
    assert_code(&run, 2);
    assert!(run.all().contains("--otlp-out"), "{}", run.all());
    assert_eq!(std::fs::read(&trace).expect("read"), before);
}
