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
