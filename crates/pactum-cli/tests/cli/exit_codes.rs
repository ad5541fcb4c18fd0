//! Every exit code `grade` can end with (src/exit.rs), each from a real run.
//! Exit 4 belongs to `pactum aggregate`; its refusals are tested in `tests/strength.rs`.

use pactum_cli::exit::Exit;

use crate::support::*;

#[test]
fn the_codes_tested_here_are_the_documented_ones() {
    assert_eq!(Exit::Pass.code(), 0);
    assert_eq!(Exit::Fail.code(), 1);
    assert_eq!(Exit::Usage.code(), 2);
    assert_eq!(Exit::Incomplete.code(), 3);
    assert_eq!(Exit::Partial.code(), 5);
    assert_eq!(Exit::Failure.code(), 6);
}

#[test]
fn exit_6_when_the_store_is_damaged_and_2_when_it_is_misnamed() {
    // A store that is not SQLite is the file's fault, not a usage error;
    // a store that is not there is the user's (a mistyped --db).
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("pactum.db");
    std::fs::write(&db, "not a database\n".repeat(100)).expect("write");
    let run = pactum(["runs", "--db", db.to_str().expect("utf-8")]);
    assert_code(&run, 6);
    assert!(
        run.stderr.contains("not an SQLite database"),
        "{}",
        run.stderr
    );
    let missing = dir.path().join("nope.db");
    let run = pactum(["runs", "--db", missing.to_str().expect("utf-8")]);
    assert_code(&run, 2);
}

#[test]
fn exit_0_when_every_trace_passes() {
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &fx("traces/pass.jsonl"),
    ]);
    assert_code(&run, 0);
    assert!(
        run.stdout
            .contains("2 traces: 0 fail, 0 error, 0 undetermined, 2 pass\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr, "");
    // Labelled, they all agree; kappa is undefined when both sides use one
    // and the same single status.
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &fx("traces/pass.jsonl"),
        "--expect",
        &fx("expectations/shop.yaml"),
        "--json",
        "-",
    ]);
    assert_code(&run, 0);
    let report = parse_report(&run.stdout);
    let agreement = &report["agreement"];
    assert_eq!(agreement["labelled"], 2);
    assert_eq!(agreement["confusion"]["pass"]["pass"], 2);
    assert_eq!(agreement["accuracy"], 1.0);
    assert!(agreement["kappa"].is_null(), "{agreement}");
}

#[test]
fn exit_1_on_the_bundled_example() {
    let run = pactum([
        "grade",
        "-c",
        EX_CONTRACTS,
        EX_TRACES,
        "--observability",
        "tool_calls",
    ]);
    assert_code(&run, 1);
    assert!(
        run.stdout.contains("FAIL  traces.jsonl:4"),
        "{}",
        run.stdout
    );
}

#[test]
fn exit_2_on_a_bad_flag() {
    let cases: &[&[&str]] = &[
        &["grade", "-c", EX_CONTRACTS, EX_TRACES, "--bogus"],
        &[
            "grade",
            "-c",
            EX_CONTRACTS,
            EX_TRACES,
            "--observability",
            "partial",
        ],
        &[
            "grade",
            "-c",
            EX_CONTRACTS,
            EX_TRACES,
            "--severity-floor",
            "extreme",
        ],
        &["grade", EX_TRACES],
        &["grade", "-c", EX_CONTRACTS],
        &["frobnicate"],
        &[],
    ];
    for args in cases {
        let run = pactum(*args);
        assert_code(&run, 2);
        assert_eq!(
            run.stdout, "",
            "{args:?}: nothing graded, nothing on stdout"
        );
        assert!(!run.stderr.is_empty(), "{args:?}: says what is wrong");
    }
    let run = pactum(["grade", "-c", EX_CONTRACTS, EX_TRACES, "--bogus"]);
    assert!(run.stderr.contains("--bogus"), "{}", run.stderr);
    let run = pactum([
        "grade",
        "-c",
        EX_CONTRACTS,
        EX_TRACES,
        "--observability",
        "partial",
    ]);
    assert!(
        run.stderr.contains("response_only") && run.stderr.contains("full"),
        "lists the valid levels: {}",
        run.stderr
    );
}

#[test]
fn exit_2_on_a_contract_with_errors() {
    let run = pactum([
        "grade",
        "-c",
        &fx("bad-contracts/three-errors.yaml"),
        &fx("traces/pass.jsonl"),
    ]);
    assert_code(&run, 2);
    assert_eq!(run.stdout, "", "nothing was graded");
    assert!(run.stderr.contains("error[unknown-key]"), "{}", run.stderr);
}

#[test]
fn exit_2_on_a_missing_trace_file() {
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &fx("traces/pass.jsonl"),
        &fx("traces/no-such-file.jsonl"),
    ]);
    assert_code(&run, 2);
    assert_eq!(
        run.stdout, "",
        "nothing was graded, not even the file that exists"
    );
    assert!(
        run.stderr.contains(&fx("traces/no-such-file.jsonl")),
        "names the path: {}",
        run.stderr
    );
}

#[test]
fn exit_2_on_unreadable_expectations() {
    let missing = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &fx("traces/pass.jsonl"),
        "--expect",
        &fx("expectations/no-such-file.yaml"),
    ]);
    assert_code(&missing, 2);
    assert_eq!(missing.stdout, "");
    assert!(
        missing
            .stderr
            .contains(&fx("expectations/no-such-file.yaml")),
        "names the path: {}",
        missing.stderr
    );

    let typo = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &fx("traces/pass.jsonl"),
        "--expect",
        &fx("expectations/typo.yaml"),
    ]);
    assert_code(&typo, 2);
    assert_eq!(typo.stdout, "");
    assert!(
        typo.stderr.contains("error[unknown-key]")
            && typo
                .stderr
                .contains(&format!("{}:2:1", fx("expectations/typo.yaml")))
            && typo.stderr.contains("`expect`"),
        "located, with the key it meant: {}",
        typo.stderr
    );
}

#[test]
fn exit_2_on_a_tabular_file_without_column_flags() {
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &fx("traces/tabular.csv"),
        "--observability",
        "response_only",
    ]);
    assert_code(&run, 2);
    assert!(
        run.all()
            .contains("pass --prompt-column and --response-column"),
        "{run:#?}"
    );
    assert!(
        run.all().contains("tabular.csv"),
        "names the file: {run:#?}"
    );
}

#[test]
fn exit_3_when_tool_calls_are_withheld_from_the_example() {
    let run = pactum([
        "grade",
        "-c",
        EX_CONTRACTS,
        EX_TRACES,
        "--withhold",
        "tool_calls",
        "--observability",
        "response_only",
    ]);
    assert_code(&run, 3);
    assert!(
        run.stdout
            .contains("24 traces: 0 fail, 0 error, 24 undetermined, 0 pass"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("\nPASS "), "{}", run.stdout);
}

#[test]
fn exit_3_when_a_trace_has_no_response() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        fx("traces/no-response.jsonl").as_ref(),
        fx("traces/pass.jsonl").as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
    ]);
    assert_code(&run, 3);
    assert!(
        run.stdout.contains("ERR   timeout-1  [shop]  error:")
            && run.stdout.contains("the target timed out")
            && run.stdout.contains("ERR   silent-2  [shop]  error:"),
        "{}",
        run.stdout
    );
    let report = read_report(&json);
    let st = statuses(&report);
    assert_eq!(st["timeout-1"], "error");
    assert_eq!(st["silent-2"], "error");
    assert_eq!(st["refund-1"], "pass");
    assert_eq!(st["password-2"], "pass");
    // No response is never evidence of compliance: no clause is satisfied.
    for id in ["timeout-1", "silent-2"] {
        let r = results_by_id(&report)[id];
        for c in r["contracts"][0]["clauses"].as_array().expect("clauses") {
            assert_ne!(c["verdict"], "satisfied", "{id}: {c}");
        }
    }
}

#[test]
fn exit_5_on_a_malformed_middle_line_and_the_rest_is_graded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let file = fx("traces/malformed-middle.jsonl");
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        file.as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
    ]);
    // A failure is in there too: partial input takes precedence.
    assert_code(&run, 5);
    assert!(
        run.stdout.contains(&format!("  {file}:2: invalid JSON")),
        "the input error names file and line: {}",
        run.stdout
    );
    assert!(
        run.stdout.contains("FAIL  after-3"),
        "the trace after it is graded and reported: {}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "2 traces: 1 fail, 0 error, 0 undetermined, 1 pass; 1 input error — the run is partial"
        ),
        "{}",
        run.stdout
    );
    let report = read_report(&json);
    let st = statuses(&report);
    assert_eq!(st.len(), 2, "{st:?}");
    assert_eq!(st["before-1"], "pass");
    assert_eq!(st["after-3"], "fail");
    assert_eq!(report["input_errors"][0]["file"], file.as_str());
    assert_eq!(report["input_errors"][0]["line"], 2);
    assert_eq!(report["totals"]["partial"], true);
    assert_eq!(report["inputs"][0]["errors"], 1);
    assert_eq!(report["inputs"][0]["traces"], 2);
}
