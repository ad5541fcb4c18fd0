//! What the output flags change: `--json -`, `--junit -`, `--quiet`, `--verbose`,
//! `--severity-floor`, and the silent-channel warning.

use crate::support::*;

/// The bundled example at level `tool_calls`, plus flags.
fn example(extra: &[&str]) -> Run {
    example_at("tool_calls", extra)
}

/// The bundled example at a level, plus flags.
fn example_at(level: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "grade",
        "-c",
        EX_CONTRACTS,
        EX_TRACES,
        "--observability",
        level,
    ];
    args.extend_from_slice(extra);
    pactum(args)
}

#[test]
fn json_dash_writes_the_report_to_stdout_instead_of_the_summary() {
    let run = example(&["--json", "-"]);
    assert_code(&run, 1);
    assert!(!run.stdout.contains("pactum 0."), "no terminal header");
    assert!(!run.stdout.contains("FAIL  "), "no terminal lines");
    let report = parse_report(&run.stdout);
    assert_eq!(report["totals"]["traces"], 24);
    assert_eq!(report["totals"]["fail"], 7);
    // The same report as written to a file.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.json");
    let path_s = path.display().to_string();
    let to_file = example(&["--json", &path_s]);
    assert_code(&to_file, 1);
    assert_eq!(
        std::fs::read_to_string(&path).expect("report"),
        run.stdout,
        "byte-identical"
    );
}

#[test]
fn junit_dash_writes_junit_to_stdout_and_never_a_file_named_dash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ex = |extra: &[&str]| {
        let mut args = vec![
            "grade".to_string(),
            "-c".into(),
            root().join(EX_CONTRACTS).display().to_string(),
            root().join(EX_TRACES).display().to_string(),
            "--observability".into(),
            "tool_calls".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        pactum_in(dir.path(), args)
    };
    let run = ex(&["--junit", "-"]);
    assert_code(&run, 1);
    assert!(!run.stdout.contains("FAIL  "), "no terminal lines");
    let doc = parse_junit(&run.stdout);
    assert_eq!(doc.attrs["tests"], "24");
    assert_junit_counts_consistent(&doc);
    assert!(
        !dir.path().join("-").exists(),
        "a file named `-` was written"
    );
    // The same report as written to a file.
    let to_file = ex(&["--junit", "j.xml"]);
    assert_code(&to_file, 1);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("j.xml")).expect("JUnit"),
        run.stdout,
        "byte-identical"
    );
    // With the JSON report in a file, stdout still holds JUnit alone.
    let mixed = ex(&["--junit", "-", "--json", "r.json"]);
    assert_code(&mixed, 1);
    assert_eq!(mixed.stdout, run.stdout);
    assert_eq!(
        read_report(&dir.path().join("r.json"))["totals"]["traces"],
        24
    );
    // Two reports to stdout at once would interleave: refused, nothing written.
    let both = ex(&["--json", "-", "--junit", "-"]);
    assert_code(&both, 2);
    assert_eq!(both.stdout, "");
    assert!(
        both.stderr.contains(
            "--json and --junit both write to standard output (`-`); one report can go there"
        ),
        "{}",
        both.stderr
    );
    assert!(!dir.path().join("-").exists());
}

#[test]
fn quiet_prints_nothing_but_keeps_reports_and_exit_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let junit = dir.path().join("j.xml").display().to_string();
    let run = example(&["--quiet", "--junit", &junit]);
    assert_code(&run, 1);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "");
    let doc = parse_junit(&std::fs::read_to_string(&junit).expect("JUnit"));
    assert_eq!(doc.attrs["tests"], "24");
    // -q is the short form.
    let short = example(&["-q"]);
    assert_code(&short, 1);
    assert_eq!(short.stdout, "");
}

#[test]
fn verbose_lists_every_pass() {
    let plain = example(&[]);
    let verbose = example(&["--verbose"]);
    assert_code(&plain, 1);
    assert_code(&verbose, 1);
    let passes = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("PASS  traces.jsonl:"))
            .map(|l| l.split("  ").nth(1).unwrap_or_default().to_string())
            .collect()
    };
    assert!(passes(&plain.stdout).is_empty(), "{}", plain.stdout);
    assert!(
        plain.stdout.contains(
            "PASS  16 traces passed with every clause graded (not listed; -v lists them)"
        ),
        "{}",
        plain.stdout
    );
    let listed = passes(&verbose.stdout);
    assert_eq!(listed.len(), 16, "{}", verbose.stdout);
    assert!(listed.contains(&"traces.jsonl:2".to_string()), "{listed:?}");
    assert!(
        !verbose.stdout.contains("more traces passed"),
        "{}",
        verbose.stdout
    );
    // Everything else is the same.
    let strip = |out: &str| -> String {
        out.lines()
            .filter(|l| !l.starts_with("PASS  "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&plain.stdout), strip(&verbose.stdout));
    let short = example(&["-v"]);
    assert_eq!(short.stdout, verbose.stdout);
}

/// Every severity of the judged clause against every floor: the clause is
/// never evaluable (no judge), so the test is undetermined exactly when the
/// clause's severity is at or above the floor, and `no-judge` is named
/// either way.
#[test]
fn the_severity_floor_decides_warn_or_pass_for_a_judge_only_clause() {
    let order = ["low", "medium", "high", "critical"];
    for (si, severity) in order.iter().enumerate() {
        if !matches!(*severity, "low" | "high") {
            continue; // the fixtures hold a low and a high judged clause
        }
        let contract = fx(&format!("contracts/judged-{severity}.yaml"));
        for (fi, floor) in order.iter().enumerate() {
            let run = pactum([
                "grade",
                "-c",
                &contract,
                &fx("traces/pass.jsonl"),
                "--severity-floor",
                floor,
            ]);
            let undetermined = si >= fi;
            let ctx = format!("clause {severity}, floor {floor}: {}", run.stdout);
            if undetermined {
                assert_code(&run, 3);
                assert!(run.stdout.contains("WARN  refund-1"), "{ctx}");
                assert!(run.stdout.contains("2 undetermined, 0 pass"), "{ctx}");
            } else {
                assert_code(&run, 0);
                assert!(run.stdout.contains("PASS  refund-1"), "{ctx}");
                assert!(
                    run.stdout
                        .contains(&format!("left undetermined below the {floor} floor")),
                    "{ctx}"
                );
                assert!(run.stdout.contains("0 undetermined, 2 pass"), "{ctx}");
            }
            assert!(
                run.stdout
                    .contains(&format!("polite-tone ({severity}, no-judge)")),
                "{ctx}"
            );
            assert!(
                run.stdout.contains(&format!("severity floor {floor}\n")),
                "{ctx}"
            );
        }
    }
}

#[test]
fn the_default_floor_is_medium() {
    let low = pactum([
        "grade",
        "-c",
        &fx("contracts/judged-low.yaml"),
        &fx("traces/pass.jsonl"),
    ]);
    assert_code(&low, 0);
    let high = pactum([
        "grade",
        "-c",
        &fx("contracts/judged-high.yaml"),
        &fx("traces/pass.jsonl"),
    ]);
    assert_code(&high, 3);
    settings().bind(|| {
        insta::assert_snapshot!("judged_low_pass_terminal", low.stdout);
        insta::assert_snapshot!("judged_high_warn_terminal", high.stdout);
    });
}

#[test]
fn the_run_says_no_judge_is_configured() {
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/judged-low.yaml"),
        &fx("traces/pass.jsonl"),
        "--json",
        "-",
    ]);
    let report = parse_report(&run.stdout);
    let warnings = report["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w["code"] == "no-judge"),
        "{warnings:?}"
    );
}

#[test]
fn a_level_that_claims_side_effects_nobody_reported_is_warned_once() {
    let full = example_at("full", &["--json", "-"]);
    assert_code(&full, 1);
    let report = parse_report(&full.stdout);
    let silent: Vec<&serde_json::Value> = report["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter(|w| w["code"] == "silent-channel")
        .collect();
    assert_eq!(silent.len(), 1, "{silent:?}");
    let msg = silent[0]["message"].as_str().expect("message");
    assert!(
        msg.starts_with("24 trace(s) declared `full` observe side_effects"),
        "{msg}"
    );
    // The terminal shows it once too.
    let term = example_at("full", &[]);
    assert_eq!(
        term.stdout.matches("silent-channel: ").count(),
        1,
        "{}",
        term.stdout
    );
    // At tool_calls the example does report tool calls: nothing to warn.
    let ok = example(&[]);
    assert!(!ok.stdout.contains("silent-channel"), "{}", ok.stdout);
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pactum"))
        .current_dir(root())
        .args([
            "grade",
            "-c",
            EX_CONTRACTS,
            EX_TRACES,
            "--observability",
            "tool_calls",
            "--verbose",
            "--json",
            "-",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("pactum starts");
    // Close the reading end at once: every write to stdout hits a closed pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("pactum ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{stderr}");
    assert!(
        out.status.code().is_some(),
        "killed by a signal: {:?}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("broken pipe"), "{stderr}");
}
