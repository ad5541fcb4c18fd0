//! Provider and framework recordings (Anthropic, Gemini, Langfuse,
//! LangSmith, LangChain messages) graded end to end: in every format a prohibited
//! call present fails its trace (an errored call too: it was made); a
//! reply whose content was not recorded leaves text checks undetermined.

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

fn verdict(report: &serde_json::Value, id: &str, clause: &str) -> String {
    let r = results_by_id(report)[id];
    r["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .find(|c| c["id"] == clause)
        .unwrap_or_else(|| panic!("{clause} in {r}"))["verdict"]
        .as_str()
        .expect("verdict")
        .to_string()
}

#[test]
fn a_prohibited_call_fails_its_trace_in_every_provider_format() {
    let (run, report) = grade(
        &[
            "anthropic_weather_cassette.yaml",
            "anthropic_weather_streamed_cassette.yaml",
            "anthropic_tool_error_cassette.yaml",
            "gemini_weather_cassette.yaml",
            "gemini_order_join.yaml",
            "langfuse_microsoft_agent.json",
            "langfuse_tool_error.json",
            "langsmith_agent_with_tool_run.json",
            "langchain_constructors.jsonl",
        ],
        &[],
    );
    assert_code(&run, 1);
    let st = statuses(&report);
    for id in [
        "anthropic_weather_cassette.yaml#1",
        "anthropic_weather_streamed_cassette.yaml#1",
        "anthropic_tool_error_cassette.yaml#1",
        "gemini_weather_cassette.yaml#1",
        "gemini_order_join.yaml#1",
        "8e419d3288419b5d944270505640e183",
        "lf-tool-error",
        "00000000-0000-4000-8000-000000000001",
        "lc-1",
    ] {
        assert_eq!(
            st.get(id).map(String::as_str),
            Some("fail"),
            "{id}: {st:?}\n{}",
            run.all()
        );
    }
    // The errored calls still count as made.
    assert_eq!(
        verdict(
            &report,
            "anthropic_tool_error_cassette.yaml#1",
            "no-transfer"
        ),
        "violated"
    );
    for id in [
        "gemini_order_join.yaml#1",
        "lf-tool-error",
        "00000000-0000-4000-8000-000000000001",
        "lc-1",
    ] {
        assert_eq!(verdict(&report, id, "no-transfer"), "violated", "{id}");
    }
    // An invalid LangChain call was made: `delete_file` is violated too.
    assert_eq!(verdict(&report, "lc-1", "no-delete"), "violated");
}

#[test]
fn a_reply_without_recorded_content_leaves_text_checks_undetermined() {
    let (run, report) = grade(&["anthropic_content_not_recorded.yaml"], &[]);
    // The last reply's words are unknown: the `hunter2` check cannot pass.
    assert_eq!(
        verdict(
            &report,
            "anthropic_content_not_recorded.yaml#1",
            "no-password"
        ),
        "not_evaluable",
        "{}",
        run.all()
    );
    assert_ne!(
        statuses(&report)["anthropic_content_not_recorded.yaml#1"],
        "pass",
        "{}",
        run.all()
    );
    assert_ne!(run.code, 0);
}

#[test]
fn an_explicit_format_reads_the_same_and_refuses_the_other() {
    let (run, report) = grade(&["gemini_weather_cassette.yaml"], &["--format", "gemini"]);
    assert_code(&run, 1);
    assert_eq!(statuses(&report)["gemini_weather_cassette.yaml#1"], "fail");
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/otel.yaml"),
        &fx("traces/gemini_weather_cassette.yaml"),
        "--format",
        "anthropic",
    ]);
    assert_ne!(run.code, 0, "{}", run.all());
    assert!(
        run.all().contains("not an Anthropic Messages request"),
        "{}",
        run.all()
    );
}
