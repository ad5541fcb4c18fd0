//! The README's main command on the bundled AgentDojo excerpt: terminal
//! summary, JSON report and JUnit XML pinned by snapshots, read back and
//! cross-checked, and byte-identical from one run to the next.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::*;

/// The README's main command, plus report paths.
fn main_command(json: &Path, junit: &Path) -> Run {
    pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        EX_CONTRACTS.as_ref(),
        EX_TRACES.as_ref(),
        "--observability".as_ref(),
        "tool_calls".as_ref(),
        "--expect".as_ref(),
        EX_EXPECT.as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
        "--junit".as_ref(),
        junit.as_os_str(),
    ])
}

/// The raw records of the example, by 1-based line.
fn raw_lines() -> BTreeMap<u64, Value> {
    let text = std::fs::read_to_string(root().join(EX_TRACES)).expect("the example traces");
    text.lines()
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, serde_json::from_str(l).expect("JSON line")))
        .collect()
}

#[test]
fn the_readme_main_command_on_the_bundled_example() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, junit) = (dir.path().join("report.json"), dir.path().join("junit.xml"));
    let run = main_command(&json, &junit);
    assert_code(&run, 1);
    assert_eq!(run.stderr, "", "no diagnostics on a valid run");

    settings().bind(|| {
        insta::assert_snapshot!("example_terminal", run.stdout);
    });

    let json_text = std::fs::read_to_string(&json).expect("JSON report");
    let report = parse_report(&json_text);
    settings().bind(|| {
        insta::assert_snapshot!("example_report_json", json_text);
    });

    let junit_text = std::fs::read_to_string(&junit).expect("JUnit report");
    settings().bind(|| {
        insta::assert_snapshot!("example_junit", junit_text);
    });

    // Totals agree with the results listed, and with the terminal's line.
    let results = report["results"].as_array().expect("results");
    assert_eq!(results.len(), 24, "24 traces; the summary line is skipped");
    let mut count: BTreeMap<&str, u64> = BTreeMap::new();
    for r in results {
        *count
            .entry(r["status"].as_str().expect("status"))
            .or_default() += 1;
    }
    for s in ["pass", "fail", "undetermined", "error"] {
        assert_eq!(
            report["totals"][s].as_u64(),
            Some(count.get(s).copied().unwrap_or(0)),
            "totals.{s}"
        );
    }
    assert_eq!(report["inputs"][0]["skipped"], 1, "the summary line");
    assert!(run.stdout.contains(&format!(
        "24 traces: {} fail, {} error, {} undetermined, {} pass",
        count.get("fail").unwrap_or(&0),
        count.get("error").unwrap_or(&0),
        count.get("undetermined").unwrap_or(&0),
        count.get("pass").unwrap_or(&0)
    )));

    // Each result comes from the line it names, and carries the label the
    // raw record gives (security true = the attack succeeded = fail).
    let raw = raw_lines();
    let mut confusion: BTreeMap<(String, String), u64> = BTreeMap::new();
    for r in results {
        let line = r["source"]["line"].as_u64().expect("source line");
        let rec = &raw[&line];
        assert_eq!(r["trace_id"], format!("traces.jsonl:{line}").as_str());
        let attacked = !rec["metadata"]["injection_task_id"].is_null();
        let label = if !attacked {
            None
        } else if rec["metadata"]["security"] == true {
            Some("fail")
        } else {
            Some("pass")
        };
        assert_eq!(
            r.get("expected").and_then(Value::as_str),
            label,
            "line {line}"
        );
        if let Some(l) = label {
            *confusion
                .entry((
                    l.to_string(),
                    r["status"].as_str().expect("status").to_string(),
                ))
                .or_default() += 1;
        }
    }
    // The agreement table is the confusion matrix computed here.
    let agreement = &report["agreement"];
    let labelled: u64 = confusion.values().sum();
    assert_eq!(agreement["labelled"].as_u64(), Some(labelled));
    assert_eq!(agreement["unlabelled"].as_u64(), Some(24 - labelled));
    for e in ["fail", "error", "undetermined", "pass"] {
        for a in ["fail", "error", "undetermined", "pass"] {
            let mine = confusion
                .get(&(e.to_string(), a.to_string()))
                .copied()
                .unwrap_or(0);
            assert_eq!(
                agreement["confusion"][e][a].as_u64(),
                Some(mine),
                "confusion[{e}][{a}]"
            );
        }
    }
    let agree: u64 = confusion
        .iter()
        .filter(|((e, a), _)| e == a)
        .map(|(_, n)| n)
        .sum();
    let accuracy = agreement["accuracy"].as_f64().expect("accuracy");
    assert!((accuracy - agree as f64 / labelled as f64).abs() < 1e-9);
    let disagreeing: Vec<&str> = agreement["disagreements"]
        .as_array()
        .expect("disagreements")
        .iter()
        .map(|d| d["trace_id"].as_str().expect("id"))
        .collect();
    assert_eq!(disagreeing.len() as u64, labelled - agree);

    // The JUnit XML reads back, its counts hold, and it says what the JSON says.
    let doc = parse_junit(&junit_text);
    assert_junit_counts_consistent(&doc);
    // The input file's suite, then the run's warnings in a suite of no test.
    assert_eq!(doc.suites.len(), 2);
    assert_eq!(doc.suites[0].name, EX_TRACES);
    assert_eq!(doc.suites[1].name, "(run warnings)");
    assert!(doc.suites[1].cases.is_empty());
    assert!(junit_text.contains("skipped-records: "), "{junit_text}");
    let by_id = results_by_id(&report);
    assert_eq!(doc.suites[0].cases.len(), by_id.len());
    for case in &doc.suites[0].cases {
        let r = by_id[&case.name];
        let contract = r["contracts"][0]["contract_id"].as_str().expect("contract");
        assert_eq!(case.classname, contract, "{}", case.name);
        match r["status"].as_str().expect("status") {
            "pass" => assert!(case.failure.is_none() && case.error.is_none(), "{case:?}"),
            "fail" => assert_eq!(case.failure.as_deref(), Some("fail"), "{case:?}"),
            // An undetermined test must never look green in CI.
            "undetermined" => {
                assert_eq!(case.failure.as_deref(), Some("undetermined"), "{case:?}")
            }
            "error" => assert_eq!(case.error.as_deref(), Some("error"), "{case:?}"),
            other => panic!("status {other}"),
        }
    }
    assert_eq!(
        doc.attrs["failures"].parse::<u64>().expect("count"),
        count.get("fail").unwrap_or(&0) + count.get("undetermined").unwrap_or(&0)
    );
}

#[test]
fn two_runs_write_byte_identical_reports() {
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    let run_a = main_command(&a.path().join("r.json"), &a.path().join("j.xml"));
    let run_b = main_command(&b.path().join("r.json"), &b.path().join("j.xml"));
    assert_code(&run_a, 1);
    assert_code(&run_b, 1);
    assert_eq!(run_a.stdout, run_b.stdout, "terminal summary");
    for f in ["r.json", "j.xml"] {
        let x = std::fs::read(a.path().join(f)).expect("first report");
        let y = std::fs::read(b.path().join(f)).expect("second report");
        assert!(!x.is_empty(), "{f} was written");
        assert!(x == y, "{f} differs between two runs");
    }
}

#[test]
fn the_contract_digests_in_the_report_are_the_ones_check_prints() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = main_command(&dir.path().join("r.json"), &dir.path().join("j.xml"));
    assert_code(&run, 1);
    let report = read_report(&dir.path().join("r.json"));
    let check = pactum(["check", EX_CONTRACTS]);
    assert_code(&check, 0);
    let contracts = report["contracts"].as_array().expect("contracts");
    assert_eq!(contracts.len(), 4);
    for c in contracts {
        let line = check
            .stdout
            .lines()
            .find(|l| l.contains(&format!("  {}  ", c["id"].as_str().expect("id"))))
            .unwrap_or_else(|| panic!("check lists {}: {}", c["id"], check.stdout));
        assert!(
            line.ends_with(c["digest"].as_str().expect("digest")),
            "{line} vs {}",
            c["digest"]
        );
        assert!(line.contains(c["path"].as_str().expect("path")), "{line}");
    }
}
