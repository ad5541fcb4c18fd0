//! The reports end to end: snapshots of what users read, read-back checks
//! (JSON Schema, JUnit well-formedness and counts), streaming bounds and
//! properties over arbitrary text and status mixes.

mod support;

use std::io::{self, Write};

use pactum_core::contract::{ClauseKind, Severity};
use pactum_core::{Evidence, ObservabilityLevel, TestStatus, TraceResult, Verdict};
use pactum_report::{
    InputError, JsonReporter, JunitReporter, Prerender, Redacting, Rendered, ReportError, Reporter,
    RunEnd, TerminalOptions, TerminalReporter, Totals,
};
use proptest::prelude::*;
use support::*;

fn terminal(
    options: TerminalOptions,
    expectations: bool,
    results: &[(TraceResult, Option<TestStatus>)],
    errors: &[InputError],
) -> String {
    let mut out = Vec::new();
    let mut r = TerminalReporter::new(&mut out, options);
    drive(&mut r, &run_info(expectations), results, errors, &run_end());
    drop(r);
    String::from_utf8(out).expect("utf-8")
}

fn json(
    expectations: bool,
    results: &[(TraceResult, Option<TestStatus>)],
    errors: &[InputError],
) -> String {
    let mut out = Vec::new();
    let mut r = JsonReporter::new(&mut out);
    drive(&mut r, &run_info(expectations), results, errors, &run_end());
    drop(r);
    String::from_utf8(out).expect("utf-8")
}

fn junit(results: &[(TraceResult, Option<TestStatus>)], errors: &[InputError]) -> String {
    let mut out = Vec::new();
    let mut r = JunitReporter::new(&mut out);
    drive(&mut r, &run_info(false), results, errors, &run_end());
    drop(r);
    String::from_utf8(out).expect("utf-8")
}

fn plain() -> TerminalOptions {
    TerminalOptions::default()
}

/// Every status of the mixed fixture, to check the fixture covers them all.
#[test]
fn the_fixture_covers_every_status_and_shape() {
    let results = mixed_results();
    let statuses: Vec<TestStatus> = results.iter().map(|r| r.status).collect();
    for s in TestStatus::ALL {
        assert!(statuses.contains(&s), "no {s:?} in the fixture");
    }
    let verdicts: Vec<Verdict> = results
        .iter()
        .flat_map(|r| {
            r.contracts
                .iter()
                .flat_map(|c| c.clauses.iter().map(|c| c.verdict))
        })
        .collect();
    for v in [
        Verdict::Satisfied,
        Verdict::Violated,
        Verdict::NotEvaluable,
        Verdict::NotTriggered,
    ] {
        assert!(verdicts.contains(&v), "no {v:?} in the fixture");
    }
}

// ------------------------------------------------------------------ terminal

#[test]
fn terminal_summary() {
    let out = terminal(plain(), false, &unlabelled(mixed_results()), &[]);
    insta::assert_snapshot!("terminal_summary", out);
}

#[test]
fn terminal_summary_verbose_lists_every_pass() {
    let out = terminal(
        TerminalOptions {
            verbose: true,
            ..plain()
        },
        false,
        &unlabelled(mixed_results()),
        &[],
    );
    let passes = out.lines().filter(|l| l.starts_with("PASS  ")).count();
    assert_eq!(passes, 3, "{out}");
    assert!(!out.contains("not listed"), "{out}");
    let quiet = terminal(plain(), false, &unlabelled(mixed_results()), &[]);
    // Without verbose: the pass that left a clause undetermined below the
    // floor, the pass with an untested path, and a count of the clean pass.
    assert!(
        quiet.contains("PASS  banking/user_task_3  [banking]  "),
        "{quiet}"
    );
    assert!(
        quiet.contains("PASS  slack/user_task_1  [slack]  "),
        "{quiet}"
    );
    assert!(!quiet.contains("PASS  banking/user_task_1 "), "{quiet}");
    assert!(
        quiet.contains("PASS  1 more trace passed with every clause graded"),
        "{quiet}"
    );
}

#[test]
fn terminal_groups_failures_first_whatever_the_arrival_order() {
    let mut results = mixed_results();
    for rotation in 0..results.len() {
        results.rotate_left(1);
        let out = terminal(
            TerminalOptions {
                verbose: true,
                ..plain()
            },
            false,
            &unlabelled(results.clone()),
            &[],
        );
        let labels: Vec<&str> = out
            .lines()
            .filter_map(|l| {
                ["FAIL", "ERR ", "WARN", "PASS"]
                    .into_iter()
                    .find(|p| l.starts_with(p))
            })
            .collect();
        let mut sorted = labels.clone();
        sorted.sort_by_key(|l| ["FAIL", "ERR ", "WARN", "PASS"].iter().position(|p| p == l));
        assert_eq!(labels, sorted, "rotation {rotation}:\n{out}");
    }
}

#[test]
fn terminal_colour_only_styles_labels_and_marks() {
    let results = unlabelled(mixed_results());
    let coloured = terminal(
        TerminalOptions {
            color: true,
            ..plain()
        },
        true,
        &results,
        &input_errors(),
    );
    let uncoloured = terminal(plain(), true, &results, &input_errors());
    assert!(
        coloured.contains("\u{1b}[1m\u{1b}[31mFAIL\u{1b}[0m"),
        "{coloured:?}"
    );
    assert!(!uncoloured.contains('\u{1b}'));
    assert_eq!(
        pactum_core::text::strip_terminal_escapes(&coloured),
        uncoloured
    );
}

#[test]
fn terminal_caps_each_group_and_points_to_the_json_report() {
    let results = mixed_results();
    let fail = results
        .iter()
        .find(|r| r.status == TestStatus::Fail)
        .cloned();
    let mut many = Vec::new();
    for i in 0..7 {
        let mut r = fail.clone().expect("a failing fixture");
        r.trace_id = format!("fail-{i}");
        many.push((r, None));
    }
    let out = terminal(
        TerminalOptions {
            max_per_group: 3,
            ..plain()
        },
        false,
        &many,
        &[],
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("FAIL  fail-")).count(),
        3,
        "{out}"
    );
    assert!(
        out.contains("FAIL  … and 4 more (see the JSON report)"),
        "{out}"
    );
    assert!(
        out.contains("7 traces: 7 fail, 0 error, 0 undetermined, 0 pass"),
        "{out}"
    );
}

#[test]
fn terminal_with_expectations_and_disagreements() {
    let results = labelled_mixed();
    let out = terminal(plain(), true, &results, &[]);
    insta::assert_snapshot!("terminal_agreement", out);
}

#[test]
fn terminal_with_input_errors() {
    let out = terminal(
        plain(),
        false,
        &unlabelled(mixed_results()[..2].to_vec()),
        &input_errors(),
    );
    insta::assert_snapshot!("terminal_input_errors", out);
}

#[test]
fn terminal_hostile_text() {
    let out = terminal(plain(), true, &hostile(), &hostile_input_errors());
    for c in out.chars() {
        assert!(
            c == '\n' || !c.is_control(),
            "control character {c:?} reached the terminal"
        );
    }
    assert!(!out.contains('\u{202e}'));
    insta::assert_snapshot!("terminal_hostile", out);
}

// ------------------------------------------------------------------ secrets

const KEY: &str = "sk-report/9a8b+7c6d=5e4f";

/// `key` after `pad` characters, so that it straddles a bound of `pad + 4`.
fn straddling(pad: usize, key: &str) -> String {
    format!("{}{key} and after", "p".repeat(pad))
}

/// The mixed results with the key planted in every text a report shows,
/// plain and JSON-escaped, several straddling the reports' bounds.
fn leaky_results() -> Vec<(TraceResult, Option<TestStatus>)> {
    let escaped: String = KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let mut out = Vec::new();
    for (i, mut r) in mixed_results().into_iter().enumerate() {
        r.trace_id = format!("t{i} {KEY}");
        r.summary = straddling(496, KEY);
        r.error = Some(format!("{escaped} {}", straddling(300, KEY)));
        for c in r.contracts.iter_mut().flat_map(|c| c.clauses.iter_mut()) {
            c.rationale = straddling(156, KEY);
            c.suggestion = Some(straddling(100, &escaped));
            c.text = format!("{} {KEY}", c.text);
            for e in &mut c.evidence {
                match e {
                    Evidence::Quote { text, .. } => *text = straddling(156, KEY),
                    Evidence::ToolCall {
                        name, arguments, ..
                    } => {
                        *name = KEY.into();
                        *arguments = serde_json::json!({ KEY: straddling(140, KEY) });
                    }
                    Evidence::SideEffect { details, .. } => {
                        *details = serde_json::json!({ "d": KEY })
                    }
                    Evidence::Field { value, .. } => *value = serde_json::json!(KEY),
                }
            }
        }
        out.push((r, Some(TestStatus::Pass)));
    }
    out
}

fn leaky_run() -> (pactum_report::RunInfo, Vec<InputError>, RunEnd) {
    let mut info = run_info(true);
    info.command = format!("grade {KEY}");
    let mut errors = input_errors();
    errors[0].message = straddling(290, KEY);
    let mut end = run_end();
    end.warnings[0].message = straddling(496, KEY);
    (info, errors, end)
}

#[test]
fn reports_redact_secrets_from_every_event_before_they_bound_it() {
    let redactor = pactum_core::secret::Redactor::new([KEY]).expect("key");
    let (info, errors, end) = leaky_run();
    let results = leaky_results();
    let mut outputs = Vec::new();
    for redacting in [false, true] {
        let mut term = Vec::new();
        let mut json = Vec::new();
        let mut junit = Vec::new();
        {
            let verbose = TerminalOptions {
                verbose: true,
                ..plain()
            };
            let mut reporters: Vec<Box<dyn Reporter>> = vec![
                Box::new(TerminalReporter::new(&mut term, verbose)),
                Box::new(JsonReporter::new(&mut json)),
                Box::new(JunitReporter::new(&mut junit)),
            ];
            for r in &mut reporters {
                if redacting {
                    let mut r = Redacting::new(r, redactor.clone());
                    drive(&mut r, &info, &results, &errors, &end);
                } else {
                    drive(r, &info, &results, &errors, &end);
                }
            }
        }
        outputs.push([term, json, junit].map(|b| String::from_utf8(b).expect("utf-8")));
    }
    let pieces: Vec<String> = {
        let chars: Vec<char> = KEY.chars().collect();
        chars.windows(8).map(|w| w.iter().collect()).collect()
    };
    // Without the redactor, the key is there to find…
    for out in &outputs[0] {
        assert!(pieces.iter().any(|p| out.contains(p.as_str())));
    }
    // …with it, no 8 characters of it are left, in any report.
    for out in &outputs[1] {
        for p in &pieces {
            assert!(!out.contains(p.as_str()), "`{p}` in {out}");
        }
        assert!(out.contains("[redacted"), "{out}");
    }
    assert_valid_report(&outputs[1][1]);
}

// ------------------------------------------------- fragments rendered ahead

/// Every fragment, as a pipeline renders them on its grading threads.
const EVERY_FRAGMENT: Prerender = Prerender {
    json: true,
    junit: true,
};

/// [`drive`], each result with its fragments rendered ahead (`what`).
fn drive_rendered<R: Reporter>(
    reporter: &mut R,
    what: Prerender,
    expectations: bool,
    results: &[(TraceResult, Option<TestStatus>)],
    errors: &[InputError],
) {
    reporter.begin(&run_info(expectations)).expect("begin");
    let mut errors = errors.iter();
    for (r, expected) in results {
        let rendered = Rendered::of(what, r, *expected);
        reporter
            .result_rendered(r, *expected, &rendered)
            .expect("result");
        if let Some(e) = errors.next() {
            reporter.input_error(e).expect("input error");
        }
    }
    for e in errors {
        reporter.input_error(e).expect("input error");
    }
    reporter.finish(&run_end()).expect("finish");
}

/// The JSON, JUnit and terminal reports of `results`, every result
/// delivered with its fragments rendered ahead (`what`).
fn reports_rendered(
    what: Prerender,
    expectations: bool,
    results: &[(TraceResult, Option<TestStatus>)],
    errors: &[InputError],
) -> [String; 3] {
    let (mut j, mut x, mut t) = (Vec::new(), Vec::new(), Vec::new());
    drive_rendered(
        &mut JsonReporter::new(&mut j),
        what,
        expectations,
        results,
        errors,
    );
    drive_rendered(
        &mut JunitReporter::new(&mut x),
        what,
        expectations,
        results,
        errors,
    );
    let verbose = TerminalOptions {
        verbose: true,
        ..plain()
    };
    drive_rendered(
        &mut TerminalReporter::new(&mut t, verbose),
        what,
        expectations,
        results,
        errors,
    );
    [j, x, t].map(|b| String::from_utf8(b).expect("utf-8"))
}

/// The same three reports, each result rendered by the reporter itself.
fn reports_whole(
    expectations: bool,
    results: &[(TraceResult, Option<TestStatus>)],
    errors: &[InputError],
) -> [String; 3] {
    let verbose = TerminalOptions {
        verbose: true,
        ..plain()
    };
    [
        json(expectations, results, errors),
        junit(results, errors),
        terminal(verbose, expectations, results, errors),
    ]
}

#[test]
fn fragments_rendered_ahead_write_the_reports_byte_for_byte() {
    let cases = [
        (false, unlabelled(mixed_results()), Vec::new()),
        (true, labelled_mixed(), input_errors()),
        (true, hostile(), hostile_input_errors()),
        (false, Vec::new(), input_errors()),
    ];
    for (expectations, results, errors) in &cases {
        let whole = reports_whole(*expectations, results, errors);
        // junit's run info never carries expectations; neither does ours
        // for it, so compare like with like.
        for what in [
            EVERY_FRAGMENT,
            Prerender {
                json: true,
                junit: false,
            },
            Prerender {
                json: false,
                junit: true,
            },
            Prerender::default(),
        ] {
            let ahead = reports_rendered(what, *expectations, results, errors);
            assert_eq!(ahead[0], whole[0], "JSON, {what:?}");
            assert_eq!(ahead[1], whole[1], "JUnit, {what:?}");
            assert_eq!(ahead[2], whole[2], "terminal, {what:?}");
        }
    }
}

#[test]
fn a_fragment_is_rendered_only_when_asked_for() {
    let (r, e) = &labelled_mixed()[0];
    assert_eq!(Rendered::of(Prerender::default(), r, *e), Rendered::none());
    assert!(!Prerender::default().any());
    assert!(EVERY_FRAGMENT.any());
    let json_only = Prerender {
        json: true,
        junit: false,
    };
    assert_ne!(Rendered::of(json_only, r, *e), Rendered::none());
    assert_ne!(
        Rendered::of(json_only, r, *e),
        Rendered::of(EVERY_FRAGMENT, r, *e)
    );
}

/// Fragments rendered ahead are of the unredacted result: a redacting
/// reporter writes its own, redacted, rendering instead.
#[test]
fn a_redacting_reporter_never_writes_fragments_rendered_ahead() {
    let redactor = pactum_core::secret::Redactor::new([KEY]).expect("key");
    let results = leaky_results();
    let pieces: Vec<String> = {
        let chars: Vec<char> = KEY.chars().collect();
        chars.windows(8).map(|w| w.iter().collect()).collect()
    };
    let (mut j, mut x) = (Vec::new(), Vec::new());
    drive_rendered(
        &mut Redacting::new(JsonReporter::new(&mut j), redactor.clone()),
        EVERY_FRAGMENT,
        true,
        &results,
        &[],
    );
    drive_rendered(
        &mut Redacting::new(JunitReporter::new(&mut x), redactor.clone()),
        EVERY_FRAGMENT,
        true,
        &results,
        &[],
    );
    for out in [j, x].map(|b| String::from_utf8(b).expect("utf-8")) {
        for p in &pieces {
            assert!(!out.contains(p.as_str()), "`{p}` in {out}");
        }
        assert!(out.contains("[redacted"), "{out}");
    }
    // With nothing to redact, the fragments pass through unchanged.
    let empty = pactum_core::secret::Redactor::new(Vec::<String>::new()).expect("no key");
    let mut j = Vec::new();
    drive_rendered(
        &mut Redacting::new(JsonReporter::new(&mut j), empty),
        EVERY_FRAGMENT,
        true,
        &results,
        &[],
    );
    assert_eq!(
        String::from_utf8(j).expect("utf-8"),
        json(true, &results, &[])
    );
}

#[test]
fn a_fanout_prerenders_its_own_reports_whether_or_not_it_redacts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let request = |json: bool, junit: bool| pactum_report::ReportRequest {
        json: json.then(|| dir.path().join("r.json")),
        junit: junit.then(|| dir.path().join("r.xml")),
        html: None,
        markdown: None,
        otlp: None,
        terminal: None,
    };
    for (json, junit) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut fan = pactum_report::Fanout::open(&request(json, junit), &[], Box::new(|_| {}))
            .expect("open");
        assert_eq!(fan.prerender(), Prerender { json, junit });
        let empty = pactum_core::secret::Redactor::new(Vec::<String>::new()).expect("no key");
        fan.redact_with(&empty);
        assert_eq!(fan.prerender(), Prerender { json, junit });
        fan.redact_with(&pactum_core::secret::Redactor::new([KEY]).expect("key"));
        assert_eq!(fan.prerender(), Prerender { json, junit });
    }
}

/// A second key, planted in the results after the first.
const LATER_KEY: &str = "sk-later-Zq9vLp2wXk7Rt4Yb3Nm8";

/// A request for the JSON and JUnit reports in a new folder: the folder
/// (kept while the reports are read), both paths, the request.
fn json_and_junit() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    std::path::PathBuf,
    pactum_report::ReportRequest,
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (jp, xp) = (dir.path().join("r.json"), dir.path().join("r.xml"));
    let request = pactum_report::ReportRequest {
        json: Some(jp.clone()),
        junit: Some(xp.clone()),
        html: None,
        markdown: None,
        otlp: None,
        terminal: None,
    };
    (dir, jp, xp, request)
}

/// The JSON and JUnit reports a fanout writes of `results`, each
/// rendered ahead by the fanout's own [`pactum_report::Ahead`] before
/// `learn` more secrets (the key a later trace holds) reach the fanout,
/// or, with `ahead` false, written by the fanout alone.
fn fanout_reports(
    results: &[(TraceResult, Option<TestStatus>)],
    ahead: bool,
    learn: &[&str],
) -> (String, String) {
    let (_dir, jp, xp, request) = json_and_junit();
    let mut fan = pactum_report::Fanout::open(&request, &[], Box::new(|_| {})).expect("open");
    fan.redact_with(&pactum_core::secret::Redactor::new([KEY]).expect("key"));
    fan.each(|r| r.begin(&run_info(true)));
    let before = fan.ahead();
    for (i, (r, expected)) in results.iter().enumerate() {
        let rendered = if ahead {
            before.render(r, *expected)
        } else {
            Rendered::none()
        };
        // Secrets learnt between rendering ahead and writing: the third
        // result's fragments are stale.
        if i == 2 {
            for k in learn {
                fan.redact_with(&pactum_core::secret::Redactor::new([*k]).expect("key"));
            }
        }
        fan.each(|rep| rep.result_rendered(r, *expected, &rendered));
    }
    fan.finish(&run_end());
    (
        std::fs::read_to_string(&jp).expect("json"),
        std::fs::read_to_string(&xp).expect("junit"),
    )
}

/// Rendering ahead with the reports' redactor writes the same bytes as
/// redacting on the writing thread, and a secret learnt after a result
/// was rendered ahead is still redacted from it.
#[test]
fn results_redacted_ahead_are_the_ones_the_reports_would_write() {
    let mut results = leaky_results();
    for (r, _) in results.iter_mut() {
        r.summary = format!("{} then {LATER_KEY}", r.summary);
    }
    for learn in [&[][..], &[LATER_KEY][..]] {
        let (j_ahead, x_ahead) = fanout_reports(&results, true, learn);
        let (j_alone, x_alone) = fanout_reports(&results, false, learn);
        assert_eq!(j_ahead, j_alone);
        assert_eq!(x_ahead, x_alone);
        for out in [&j_ahead, &x_ahead] {
            assert!(!out.contains(KEY), "{out}");
            assert!(out.contains("[redacted"), "{out}");
        }
        // The later key is redacted from every result written once it is
        // known, the third included, though its fragments were rendered
        // before; and, the file being redacted again at its end, from the
        // two written before it was known.
        let shown = j_ahead.matches(LATER_KEY).count() + x_ahead.matches(LATER_KEY).count();
        if learn.is_empty() {
            assert_eq!(
                j_ahead.matches(LATER_KEY).count(),
                results.len(),
                "{j_ahead}"
            );
        } else {
            assert_eq!(shown, 0, "{j_ahead}\n{x_ahead}");
        }
    }
}

/// The JSON and JUnit reports of a run whose later key is first seen in
/// a result, a held reading and a held input error written before it is
/// learnt (`late`), or known from the start.
fn reports_learning_later(late: bool) -> (String, String) {
    let (_dir, jp, xp, request) = json_and_junit();
    let later = || pactum_core::secret::Redactor::new([LATER_KEY]).expect("key");
    let mut fan = pactum_report::Fanout::open(&request, &[], Box::new(|_| {})).expect("open");
    fan.redact_with(&pactum_core::secret::Redactor::new([KEY]).expect("key"));
    if !late {
        fan.redact_with(&later());
    }
    fan.each(|r| r.begin(&run_info(false)));
    let mut results = mixed_results().into_iter();
    let first = results.next().expect("a result");
    let mut seen = first.clone();
    seen.summary = format!("{} then {LATER_KEY}", seen.summary);
    fan.each(|r| r.result(&seen, None));
    let mut error = input_errors().remove(0);
    error.message = format!("bad record holding {LATER_KEY}");
    fan.each(|r| r.input_error(&error));
    let reading = pactum_report::Reading {
        test_id: format!("t-{LATER_KEY}"),
        authored: pactum_report::AuthoredFields {
            goal: format!("use {LATER_KEY}"),
            instructions: String::new(),
            restrictions: String::new(),
            scenario: String::new(),
            min_turns: 1,
            max_turns: 1,
        },
        interpreter: None,
        confidence: None,
        usable: None,
        reason: None,
        contract: None,
        ended: None,
    };
    fan.reading(&reading);
    if late {
        fan.redact_with(&later());
    }
    // An event the JSON report writes nothing of (a transcript for the
    // page): the reading it holds is still written later.
    fan.each(|_| Ok(()));
    for r in std::iter::once(first).chain(results) {
        fan.each(|rep| rep.result(&r, None));
    }
    fan.finish(&run_end());
    (
        std::fs::read_to_string(&jp).expect("json"),
        std::fs::read_to_string(&xp).expect("junit"),
    )
}

/// A key learnt late is redacted again from every line that may hold it:
/// results written before, a reading held across the learning, an input
/// error held until the end. The files then read as if the key had been
/// known from the start.
#[test]
fn a_report_redacted_again_reads_as_if_the_key_was_known_from_the_start() {
    let (json, junit) = reports_learning_later(true);
    for out in [&json, &junit] {
        assert!(!out.contains(LATER_KEY), "{out}");
        assert!(!out.contains(&LATER_KEY[..12]), "{out}");
    }
    assert_eq!((json, junit), reports_learning_later(false));
}

// ---------------------------------------------------------------------- json

#[test]
fn json_report() {
    let out = json(false, &unlabelled(mixed_results()), &[]);
    let v = assert_valid_report(&out);
    assert_eq!(v["results"].as_array().map(Vec::len), Some(7));
    assert_eq!(v["agreement"], serde_json::Value::Null);
    insta::assert_snapshot!("json_report", out);
}

#[test]
fn json_results_round_trip_to_the_trace_results() {
    let results = mixed_results();
    let out = json(false, &unlabelled(results.clone()), &[]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let back: Vec<TraceResult> =
        serde_json::from_value(v["results"].clone()).expect("results read back");
    assert_eq!(back, results);
}

#[test]
fn json_report_with_expectations_and_disagreements() {
    let out = json(true, &labelled_mixed(), &[]);
    let v = assert_valid_report(&out);
    let a = &v["agreement"];
    assert_eq!(a["labelled"], 6);
    assert_eq!(a["unlabelled"], 1);
    assert_eq!(a["confusion"]["fail"]["pass"], 1);
    assert_eq!(a["disagreements"].as_array().map(Vec::len), Some(3));
    // Labelled results carry their label; unlabelled ones do not.
    let with_expected = v["results"]
        .as_array()
        .map(|rs| rs.iter().filter(|r| r.get("expected").is_some()).count());
    assert_eq!(with_expected, Some(6));
    insta::assert_snapshot!("json_agreement", out);
}

#[test]
fn json_report_with_input_errors() {
    let out = json(
        false,
        &unlabelled(mixed_results()[..2].to_vec()),
        &input_errors(),
    );
    let v = assert_valid_report(&out);
    assert_eq!(v["totals"]["partial"], true);
    assert_eq!(v["totals"]["input_errors"], 2);
    insta::assert_snapshot!("json_input_errors", out);
}

#[test]
fn json_hostile_text_is_escaped_and_kept_verbatim() {
    let results = hostile();
    let out = json(true, &results, &hostile_input_errors());
    for c in ['\u{1b}', '\u{0}', '\u{7}', '\u{85}', '\u{202e}'] {
        assert!(!out.contains(c), "raw {c:?} in the JSON report");
    }
    assert!(
        out.contains("\\u001b[2J"),
        "the escape is kept, JSON-escaped"
    );
    let v = assert_valid_report(&out);
    assert_eq!(v["results"][0]["trace_id"], results[0].0.trace_id.as_str());
    insta::assert_snapshot!("json_hostile", out);
}

#[test]
fn json_with_no_results_is_still_one_valid_document() {
    let out = json(true, &[], &[]);
    let v = assert_valid_report(&out);
    assert_eq!(v["results"], serde_json::json!([]));
    assert_eq!(v["agreement"]["accuracy"], serde_json::Value::Null);
    assert_eq!(v["agreement"]["kappa"], serde_json::Value::Null);
}

#[test]
fn json_input_errors_are_capped_with_a_count() {
    let mut r = JsonReporter::new(io::sink());
    let mut out = Vec::new();
    {
        let mut r2 = JsonReporter::new(&mut out);
        r2.begin(&run_info(false)).expect("begin");
        for i in 0..(pactum_report::INPUT_ERRORS_KEPT as u64 + 5) {
            r2.input_error(&InputError {
                file: "f.jsonl".into(),
                line: i + 1,
                field: None,
                message: "bad".into(),
            })
            .expect("input error");
        }
        r2.finish(&RunEnd::default()).expect("finish");
    }
    let v = assert_valid_report(&String::from_utf8(out).expect("utf-8"));
    assert_eq!(
        v["input_errors"].as_array().map(Vec::len),
        Some(pactum_report::INPUT_ERRORS_KEPT)
    );
    assert_eq!(v["input_errors_omitted"], 5);
    assert_eq!(
        v["totals"]["input_errors"],
        pactum_report::INPUT_ERRORS_KEPT as u64 + 5
    );
    // Out of order calls are errors, not panics.
    assert!(matches!(
        r.result(&mixed_results()[0], None),
        Err(ReportError::Protocol {
            problem: "before begin",
            ..
        })
    ));
    assert!(matches!(
        r.finish(&RunEnd::default()),
        Err(ReportError::Protocol { .. })
    ));
    r.begin(&run_info(false)).expect("begin");
    assert!(matches!(
        r.begin(&run_info(false)),
        Err(ReportError::Protocol { .. })
    ));
    r.finish(&RunEnd::default()).expect("finish");
    assert!(matches!(
        r.finish(&RunEnd::default()),
        Err(ReportError::Protocol {
            problem: "twice",
            ..
        })
    ));
}

type Mutation = Box<dyn Fn(&mut serde_json::Value)>;

/// The schema is strict enough to catch drift: each mutation of a valid
/// report must be rejected.
#[test]
fn the_schema_rejects_what_the_report_never_writes() {
    let out = json(true, &labelled_mixed(), &input_errors());
    let valid: serde_json::Value = serde_json::from_str(&out).expect("json");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../schemas/report.schema.json"
        ))
        .expect("schema"),
    )
    .expect("schema json");
    let validator = jsonschema::validator_for(&schema).expect("compiles");
    assert!(validator.is_valid(&valid));
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "missing totals",
            Box::new(|v| drop(v.as_object_mut().map(|o| o.remove("totals")))),
        ),
        ("unknown top-level key", Box::new(|v| v["extra"] = 1.into())),
        (
            "report_version 2",
            Box::new(|v| v["report_version"] = 2.into()),
        ),
        (
            "unknown status",
            Box::new(|v| v["results"][0]["status"] = "warn".into()),
        ),
        (
            "unknown result field",
            Box::new(|v| v["results"][0]["statuz"] = "pass".into()),
        ),
        (
            "verdict typo",
            Box::new(|v| {
                v["results"][1]["contracts"][0]["clauses"][0]["verdict"] = "violation".into()
            }),
        ),
        (
            "evidence kind",
            Box::new(|v| {
                v["results"][1]["contracts"][0]["clauses"][0]["evidence"][0]["kind"] = "call".into()
            }),
        ),
        (
            "confidence > 100",
            Box::new(|v| v["results"][1]["contracts"][0]["clauses"][0]["confidence"] = 101.into()),
        ),
        (
            "negative count",
            Box::new(|v| v["totals"]["pass"] = (-1).into()),
        ),
        (
            "bad digest",
            Box::new(|v| v["policy"]["digest"] = "md5:00".into()),
        ),
        (
            "missing confusion row",
            Box::new(|v| {
                drop(
                    v["agreement"]["confusion"]
                        .as_object_mut()
                        .map(|o| o.remove("error")),
                )
            }),
        ),
        (
            "accuracy > 1",
            Box::new(|v| v["agreement"]["accuracy"] = 1.5.into()),
        ),
        (
            "not_evaluable reason typo",
            Box::new(|v| {
                v["results"][3]["contracts"][0]["clauses"][0]["reason"] = "no_judge".into()
            }),
        ),
    ];
    for (name, mutate) in mutations {
        let mut v = valid.clone();
        mutate(&mut v);
        assert!(!validator.is_valid(&v), "the schema accepted: {name}");
    }
}

#[test]
fn json_is_deterministic() {
    let a = json(true, &labelled_mixed(), &input_errors());
    let b = json(true, &labelled_mixed(), &input_errors());
    assert_eq!(a, b);
}

// --------------------------------------------------------------------- junit

#[test]
fn junit_xml() {
    let out = junit(&unlabelled(mixed_results()), &[]);
    let doc = parse_junit(&out);
    check_junit_counts(&doc, &mixed_results(), &[]);
    insta::assert_snapshot!("junit", out);
}

#[test]
fn junit_with_input_errors() {
    let results = mixed_results()[..2].to_vec();
    let out = junit(&unlabelled(results.clone()), &input_errors());
    let doc = parse_junit(&out);
    check_junit_counts(&doc, &results, &input_errors());
    let broken = doc
        .suites
        .iter()
        .find(|s| s.name == "data/broken.jsonl")
        .expect("a suite for the unlisted file");
    assert_eq!(
        broken.cases[0].outcome.as_ref().map(|o| o.1.as_str()),
        Some("input-error")
    );
    insta::assert_snapshot!("junit_input_errors", out);
}

#[test]
fn junit_hostile_text() {
    let results = hostile();
    let out = junit(&results, &hostile_input_errors());
    let doc = parse_junit(&out);
    let plain: Vec<TraceResult> = results.iter().map(|(r, _)| r.clone()).collect();
    check_junit_counts(&doc, &plain, &hostile_input_errors());
    insta::assert_snapshot!("junit_hostile", out);
}

#[test]
fn junit_undetermined_is_never_green() {
    let results = mixed_results();
    let doc = parse_junit(&junit(&unlabelled(results.clone()), &[]));
    for r in &results {
        let case = doc
            .suites
            .iter()
            .flat_map(|s| &s.cases)
            .find(|c| c.name == r.trace_id)
            .expect("every result has a testcase");
        let kind = case.outcome.as_ref().map(|o| (o.0.as_str(), o.1.as_str()));
        let expected = match r.status {
            TestStatus::Pass => None,
            TestStatus::Fail => Some(("failure", "fail")),
            TestStatus::Undetermined => Some(("failure", "undetermined")),
            TestStatus::Error => Some(("error", "error")),
        };
        assert_eq!(kind, expected, "{}", r.trace_id);
    }
}

#[test]
fn junit_interleaved_files_are_regrouped_per_file() {
    let base = mixed_results()[0].clone();
    let mut results = Vec::new();
    for i in 0..12 {
        let mut r = base.clone();
        r.trace_id = format!("t{i}");
        let file = [BANKING, SLACK, TRAVEL][i % 3];
        r.source = Some(pactum_core::trace::SourceRef {
            file: file.into(),
            line: i as u64,
        });
        results.push(r);
    }
    let doc = parse_junit(&junit(&unlabelled(results.clone()), &[]));
    let names: Vec<&str> = doc.suites.iter().map(|s| s.name.as_str()).collect();
    // The run's warnings come last, in a suite of no test.
    assert_eq!(names, [BANKING, SLACK, TRAVEL, WORKSPACE, "(run warnings)"]);
    assert_eq!(doc.suites[4].tests, 0);
    let banking: Vec<&str> = doc.suites[0]
        .cases
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(banking, ["t0", "t3", "t6", "t9"]);
    assert_eq!(doc.suites[3].tests, 0);
}

/// Suite and document counts agree with the results, and with the cases
/// actually present.
fn check_junit_counts(doc: &JunitDoc, results: &[TraceResult], errors: &[InputError]) {
    let mut totals = Totals::default();
    for r in results {
        totals.add(r.status);
    }
    assert_eq!(doc.tests, totals.traces() + errors.len() as u64);
    assert_eq!(doc.failures, totals.fail + totals.undetermined);
    assert_eq!(doc.errors, totals.error + errors.len() as u64);
    let mut sum = (0, 0, 0);
    for s in &doc.suites {
        let cases = s.cases.len() as u64;
        let failures = s
            .cases
            .iter()
            .filter(|c| c.outcome.as_ref().is_some_and(|o| o.0 == "failure"))
            .count() as u64;
        let errs = s
            .cases
            .iter()
            .filter(|c| c.outcome.as_ref().is_some_and(|o| o.0 == "error"))
            .count() as u64;
        assert_eq!(
            (s.tests, s.failures, s.errors),
            (cases, failures, errs),
            "suite {}",
            s.name
        );
        sum = (sum.0 + cases, sum.1 + failures, sum.2 + errs);
    }
    assert_eq!(sum, (doc.tests, doc.failures, doc.errors));
}

// ----------------------------------------------------------------- streaming

/// A writer that counts bytes and keeps none.
struct Counting(u64);

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn streaming_100k_results_keeps_memory_bounded() {
    const N: usize = 100_000;
    let shapes = mixed_results();
    let info = run_info(true);
    let mut json_out = Counting(0);
    let mut junit_out = Counting(0);
    let mut term_out = Counting(0);
    let cap = 50;
    {
        let mut json_r = JsonReporter::new(&mut json_out);
        let mut junit_r = JunitReporter::new(&mut junit_out);
        let mut term_r = TerminalReporter::new(
            &mut term_out,
            TerminalOptions {
                max_per_group: cap,
                verbose: true,
                ..plain()
            },
        );
        json_r.begin(&info).expect("begin");
        junit_r.begin(&info).expect("begin");
        term_r.begin(&info).expect("begin");
        let mut retained_after_warmup = 0;
        for i in 0..N {
            let mut r = shapes[i % shapes.len()].clone();
            r.trace_id = format!("trace-{i}");
            let expected = (i % 2 == 0).then_some(r.status);
            json_r.result(&r, expected).expect("json");
            junit_r.result(&r, expected).expect("junit");
            term_r.result(&r, expected).expect("terminal");
            if i == 1_000 {
                retained_after_warmup = term_r.retained_lines();
            }
        }
        assert!(term_r.retained_entries() <= 4 * cap);
        assert_eq!(
            term_r.retained_lines(),
            retained_after_warmup,
            "terminal state grew"
        );
        assert!(term_r.retained_lines() <= cap * (4 + 41 + 1));
        assert_eq!(term_r.totals().traces(), N as u64);
        json_r.finish(&run_end()).expect("json finish");
        junit_r.finish(&run_end()).expect("junit finish");
        term_r.finish(&run_end()).expect("terminal finish");
    }
    // Every result was written through: well over a hundred bytes each.
    assert!(json_out.0 > 100 * N as u64, "{}", json_out.0);
    assert!(junit_out.0 > 100 * N as u64, "{}", junit_out.0);
    assert!(
        term_out.0 < 200_000,
        "the terminal summary is bounded: {}",
        term_out.0
    );
}

/// A writer whose reader went away.
struct ClosedPipe;

impl Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from(io::ErrorKind::BrokenPipe))
    }
    fn flush(&mut self) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

#[test]
fn a_broken_pipe_is_reported_as_such_by_every_reporter() {
    let info = run_info(false);
    let end = run_end();
    let results = mixed_results();
    let mut t = TerminalReporter::new(ClosedPipe, plain());
    let e = t.begin(&info).expect_err("the header cannot be written");
    assert!(e.is_broken_pipe(), "{e}");
    assert_eq!(e.to_string(), "cannot write standard output");
    let mut j = JsonReporter::new(ClosedPipe).with_destination("out/report.json");
    let e = j
        .begin(&info)
        .and_then(|()| j.result(&results[0], None))
        .and_then(|()| j.finish(&end))
        .expect_err("nothing can be written");
    assert!(e.is_broken_pipe(), "{e}");
    assert_eq!(e.to_string(), "cannot write out/report.json");
    let mut x = JunitReporter::new(ClosedPipe).with_destination("out/junit.xml");
    x.begin(&info).expect("junit writes nothing before finish");
    x.result(&results[0], None).expect("spooled");
    let e = x.finish(&end).expect_err("the document cannot be written");
    assert!(e.is_broken_pipe(), "{e}");
    assert_eq!(e.to_string(), "cannot write out/junit.xml");
}

#[test]
fn fan_out_feeds_every_reporter_and_totals_tally() {
    let mut json_out = Vec::new();
    let mut totals = Totals::default();
    {
        let mut reporters: Vec<Box<dyn Reporter + '_>> = vec![
            Box::new(JsonReporter::new(&mut json_out)),
            Box::new(&mut totals),
        ];
        drive(
            &mut reporters,
            &run_info(false),
            &unlabelled(mixed_results()),
            &input_errors(),
            &run_end(),
        );
    }
    assert_eq!(
        totals,
        Totals {
            pass: 3,
            fail: 1,
            undetermined: 2,
            error: 1,
            input_errors: 2,
            missing_trials: 0,
        }
    );
    let v = assert_valid_report(&String::from_utf8(json_out).expect("utf-8"));
    assert_eq!(v["totals"]["traces"], 7);
}

// ------------------------------------------------------------------ fixtures

/// The mixed results, labelled like AgentDojo's `security` field would
/// label them: three disagreements (a missed attack, a false alarm, an
/// undetermined attack) and one unlabelled trace.
fn labelled_mixed() -> Vec<(TraceResult, Option<TestStatus>)> {
    mixed_results()
        .into_iter()
        .map(|r| {
            let expected = match r.trace_id.as_str() {
                // The attack succeeded, yet nothing was violated: a miss.
                "banking/user_task_1" => Some(TestStatus::Fail),
                // Agrees.
                "banking/user_task_2/injection_task_3" => Some(TestStatus::Fail),
                "banking/user_task_3" => Some(TestStatus::Pass),
                // The attack succeeded; the level hid the tool calls.
                "banking/user_task_4/injection_task_3" => Some(TestStatus::Fail),
                "banking/user_task_5" => Some(TestStatus::Error),
                "slack/user_task_1" => Some(TestStatus::Pass),
                // A benign trace with no label.
                _ => None,
            };
            (r, expected)
        })
        .map(|(r, e)| {
            // Make one a false alarm: expected pass, got fail.
            if r.trace_id == "banking/user_task_3" {
                let mut failing = mixed_results()[1].clone();
                failing.trace_id = r.trace_id.clone();
                failing.source = r.source.clone();
                (failing, e)
            } else {
                (r, e)
            }
        })
        .collect()
}

const HOSTILE: &str = "\u{1b}[2J\u{1b}[31mpwned\u{1b}[0m <script>alert(\"x\" & 'y')</script>\u{0}\u{7}\u{8}\r\u{b}\u{c}\u{7f}\u{85}\u{202e}gnp.exe\u{ffff} ]]> \u{1b}]0;title\u{7}end";

fn hostile() -> Vec<(TraceResult, Option<TestStatus>)> {
    let mut c = clause(
        "leak",
        ClauseKind::Prohibited,
        Severity::High,
        Verdict::Violated,
    );
    c.evidence = vec![
        Evidence::Quote {
            turn: 1,
            source: "response".into(),
            text: HOSTILE.into(),
        },
        Evidence::ToolCall {
            turn: 1,
            index: 0,
            name: format!("send{HOSTILE}"),
            arguments: serde_json::json!({ "body": HOSTILE }),
            errored: false,
        },
    ];
    c.rationale = format!("rationale {HOSTILE}");
    let mut fail = graded(
        &format!("id-{HOSTILE}"),
        Some((BANKING, 9)),
        ObservabilityLevel::Full,
        vec![contract("banking", vec![c])],
        None,
    );
    fail.summary = format!("summary {HOSTILE}");
    let error = graded(
        &format!("err-{HOSTILE}"),
        Some((BANKING, 10)),
        ObservabilityLevel::Full,
        vec![],
        Some(HOSTILE),
    );
    vec![
        (fail, Some(TestStatus::Pass)),
        (error, Some(TestStatus::Pass)),
    ]
}

fn hostile_input_errors() -> Vec<InputError> {
    vec![InputError {
        file: BANKING.into(),
        line: 11,
        field: Some(format!("/x{HOSTILE}")),
        message: format!("bad {HOSTILE}"),
    }]
}

// ---------------------------------------------------------------- properties

fn status() -> impl Strategy<Value = TestStatus> {
    prop::sample::select(TestStatus::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Arbitrary untrusted text never breaks a report: the terminal gets no
    /// control characters, the JUnit XML stays well formed with exact
    /// counts, and the JSON report validates and gives the text back verbatim.
    #[test]
    fn arbitrary_text_never_breaks_a_report(
        id in any::<String>(),
        summary in any::<String>(),
        quote in any::<String>(),
        rationale in any::<String>(),
        file in "[a-z/._<&\"]{1,12}",
        st in status(),
    ) {
        let mut c = clause("c", ClauseKind::Prohibited, Severity::High, Verdict::Violated);
        c.evidence = vec![Evidence::Quote { turn: 1, source: "response".into(), text: quote }];
        c.rationale = rationale;
        let mut r = graded(&id, Some((&file, 1)), ObservabilityLevel::Full, vec![contract("k", vec![c])], None);
        r.status = st;
        r.summary = summary;
        let results = vec![(r.clone(), Some(TestStatus::Pass))];
        let errors = vec![InputError { file: file.clone(), line: 2, field: Some(id.clone()), message: r.summary.clone() }];

        let t = terminal(TerminalOptions { verbose: true, ..plain() }, true, &results, &errors);
        prop_assert!(t.chars().all(|c| c == '\n' || !c.is_control()), "{:?}", t);

        let x = junit(&results, &errors);
        let doc = parse_junit(&x);
        check_junit_counts(&doc, &[r.clone()], &errors);

        let whole = reports_whole(true, &results, &errors);
        let ahead = reports_rendered(EVERY_FRAGMENT, true, &results, &errors);
        prop_assert!(ahead == whole, "fragments rendered ahead changed a report");

        let j = json(true, &results, &errors);
        let v = assert_valid_report(&j);
        prop_assert_eq!(v["results"][0]["trace_id"].as_str(), Some(id.as_str()));
        prop_assert_eq!(v["results"][0]["summary"].as_str(), Some(r.summary.as_str()));
    }

    /// For any mix of statuses and labels, every report's totals agree,
    /// and the agreement table adds up.
    #[test]
    fn totals_and_agreement_add_up(
        mix in prop::collection::vec((0usize..7, prop::option::of(status())), 0..40),
    ) {
        let shapes = mixed_results();
        let results: Vec<(TraceResult, Option<TestStatus>)> = mix
            .iter()
            .enumerate()
            .map(|(i, (k, e))| {
                let mut r = shapes[*k].clone();
                r.trace_id = format!("t{i}");
                (r, *e)
            })
            .collect();
        let mut expected = Totals::default();
        for (r, _) in &results {
            expected.add(r.status);
        }
        let labelled = results.iter().filter(|(_, e)| e.is_some()).count() as u64;
        let disagreeing = results.iter().filter(|(r, e)| e.is_some_and(|e| e != r.status)).count();

        let t = terminal(plain(), true, &results, &[]);
        prop_assert!(t.contains(&expected.summary_line()), "{}", t);

        let v = assert_valid_report(&json(true, &results, &[]));
        prop_assert_eq!(v["totals"]["traces"].as_u64(), Some(expected.traces()));
        prop_assert_eq!(v["totals"]["undetermined"].as_u64(), Some(expected.undetermined));
        prop_assert_eq!(v["agreement"]["labelled"].as_u64(), Some(labelled));
        prop_assert_eq!(v["agreement"]["unlabelled"].as_u64(), Some(results.len() as u64 - labelled));
        prop_assert_eq!(v["agreement"]["disagreements"].as_array().map(Vec::len), Some(disagreeing));
        let cells: u64 = v["agreement"]["confusion"]
            .as_object()
            .map(|rows| rows.values().flat_map(|row| row.as_object().into_iter().flat_map(|r| r.values())).filter_map(|n| n.as_u64()).sum())
            .unwrap_or(0);
        prop_assert_eq!(cells, labelled);

        let plain_results: Vec<TraceResult> = results.iter().map(|(r, _)| r.clone()).collect();
        check_junit_counts(&parse_junit(&junit(&results, &[])), &plain_results, &[]);
    }
}

/// A writer whose bytes the test keeps after the fanout drops it.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Secrets learnt while a run goes on (a key in the next trace) join the
/// ones already redacted: after two `redact_with`, every later event is
/// redacted of both, and the first secret stays redacted.
#[test]
fn a_fanout_redacts_every_secret_it_was_given_in_every_later_event() {
    const LATER: &str = "sk-later-0123456789abcdef";
    let json = Shared::default();
    let mut fan = pactum_report::Fanout::over(
        vec![(
            "JSON".into(),
            Box::new(JsonReporter::new(json.clone())) as Box<dyn Reporter + Send>,
        )],
        Box::new(|_: &str| {}),
    );
    fan.redact_with(&pactum_core::secret::Redactor::new([KEY]).expect("key"));
    let (info, _, end) = leaky_run();
    fan.each(|r| r.begin(&info));
    fan.redact_with(&pactum_core::secret::Redactor::new([LATER]).expect("key"));
    for (mut r, e) in leaky_results() {
        r.summary = format!("{} {LATER}", r.summary);
        fan.each(|rep| rep.result(&r, e));
    }
    fan.finish(&end);
    let text = String::from_utf8(json.0.lock().expect("lock").clone()).expect("utf-8");
    assert!(text.contains("[redacted]"), "{text}");
    for piece in [
        KEY,
        &KEY[..8],
        LATER,
        &LATER[..8],
        &LATER[LATER.len() - 8..],
    ] {
        assert!(!text.contains(piece), "{piece} in {text}");
    }
}
