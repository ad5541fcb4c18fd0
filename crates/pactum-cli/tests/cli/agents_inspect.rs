//! OpenAI Agents SDK exports and Inspect AI logs graded end to end: a
//! prohibited call present fails its trace in each format; text the export
//! does not hold and a log cut off leave checks undetermined, never passed.

use crate::support::*;

fn grade(traces: &[&str], extra: &[&str]) -> (Run, serde_json::Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let contract = fx("contracts/agents_inspect.yaml");
    let mut args: Vec<String> = vec!["grade".into(), "-c".into(), contract];
    args.extend(traces.iter().map(|t| fx(&format!("traces/{t}"))));
    args.extend(extra.iter().map(|s| (*s).to_string()));
    args.push("--json".into());
    args.push(json.to_str().expect("utf-8").into());
    let run = pactum(&args);
    let report = read_report(&json);
    (run, report)
}

fn verdict(report: &serde_json::Value, trace: &str, clause: &str) -> String {
    let r = results_by_id(report)[trace];
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

const COMPOSER: &str = "trace_db0186bb863d426e9e4486699cb8418a";

#[test]
fn a_prohibited_call_fails_its_trace_in_each_format() {
    let (run, report) = grade(
        &[
            "agents_music_composer.ingest.jsonl",
            "inspect_browser_excerpt.json",
            "inspect_oxdna_excerpt.eval",
        ],
        &[],
    );
    assert_code(&run, 1);
    let st = statuses(&report);
    for id in [COMPOSER, "1_epoch_1", "default_epoch_1"] {
        assert_eq!(
            st.get(id).map(String::as_str),
            Some("fail"),
            "{id}: {st:?}\n{}",
            run.all()
        );
    }
    assert_eq!(verdict(&report, COMPOSER, "no-composing"), "violated");
    assert_eq!(verdict(&report, "1_epoch_1", "no-clicking"), "violated");
    assert_eq!(verdict(&report, "default_epoch_1", "no-shell"), "violated");
    // The same with the format named.
    let (run, report) = grade(
        &["agents_music_composer.ingest.jsonl"],
        &["--format", "openai-agents"],
    );
    assert_code(&run, 1);
    assert_eq!(statuses(&report)[COMPOSER], "fail");
    let (run, report) = grade(&["inspect_oxdna_excerpt.eval"], &["--format", "inspect"]);
    assert_code(&run, 1);
    assert_eq!(statuses(&report)["default_epoch_1"], "fail");
}

#[test]
fn agents_sdk_text_not_in_the_export_leaves_text_checks_undetermined() {
    let (run, report) = grade(&["agents_music_composer.ingest.jsonl"], &[]);
    // The response spans carry only an id: what the model said is unknown.
    assert_eq!(
        verdict(&report, COMPOSER, "no-password"),
        "not_evaluable",
        "{}",
        run.all()
    );
    assert!(
        run.all()
            .contains("no-password   prohibited  critical  not_evaluable  undetermined"),
        "{}",
        run.all()
    );
    // The other run shows no call and no text: never a pass.
    assert_ne!(
        statuses(&report)["trace_294d81b076ea4262b0f0e94cb73d08c9"],
        "pass",
        "{}",
        run.all()
    );
}

#[test]
fn a_cut_off_inspect_sample_leaves_absence_checks_undetermined() {
    let (run, report) = grade(&["inspect_browser_excerpt.json"], &[]);
    // The whole recording: no delete_file call is evidence.
    assert_eq!(
        verdict(&report, "1_epoch_1", "no-delete"),
        "satisfied",
        "{}",
        run.all()
    );
    let (run, report) = grade(&["inspect_browser_cut_off.json"], &[]);
    assert_eq!(
        verdict(&report, "1_epoch_1", "no-delete"),
        "not_evaluable",
        "{}",
        run.all()
    );
    assert!(
        run.all()
            .contains("incomplete recording (the sample ended in an error"),
        "{}",
        run.all()
    );
    // What it shows still counts.
    assert_eq!(verdict(&report, "1_epoch_1", "no-clicking"), "violated");
    assert_eq!(statuses(&report)["1_epoch_1"], "fail");
}
