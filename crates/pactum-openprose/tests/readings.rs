//! Runs that read a clause, a condition or a log wrongly would come out
//! green (or red) without evidence: each case below once did.

use pactum_core::outcome::Evidence;
use pactum_core::result::ContractResult;
use pactum_core::{NotEvaluableReason, Policy, TestStatus, Verdict};
use pactum_eval::CompiledContract;
use pactum_openprose::grade::{grade_run, no_judge, RunGrade};
use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// A single service `svc` with `ensures` bullets, one declared error
/// `search-failed`, a caller input `topic` and `files` (path, text).
fn service(ensures: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        &format!(
            "---\nname: svc\nkind: service\n---\n## Requires\n\n- topic: the subject\n\n## Ensures\n\n{ensures}\n\n## Errors\n\n- search-failed: the search tool failed\n"
        ),
    );
    write(
        d.path(),
        "bindings/caller/topic.md",
        "# topic\nbinding: input\nsource: caller\n---\nSolid-state batteries\n",
    );
    for (p, t) in files {
        write(d.path(), p, t);
    }
    // A run written without a log gets one that says only that it ended
    // (what these tests read is not the log).
    if !d.path().join("vm.log.md").exists() {
        write(
            d.path(),
            "vm.log.md",
            "# run:r svc\nroot: root.prose.md\n---end 2026-12-01T10:15:31Z\n",
        );
    }
    d
}

/// Grades the run at `dir`; a run written without a log gets one that
/// says only that it ended.
fn grade_dir(dir: &std::path::Path) -> RunGrade {
    if !dir.join("vm.log.md").exists() {
        write(
            dir,
            "vm.log.md",
            "# run:r\nroot: root.prose.md\n---end 2026-12-01T10:15:31Z\n",
        );
    }
    let run = import_run(dir).expect("imports");
    let policy = Policy::default();
    let mut judge = no_judge(policy);
    grade_run(&run, &policy, &mut judge)
}

fn verdicts(g: &RunGrade) -> Vec<Verdict> {
    g.contracts
        .iter()
        .flat_map(|c| c.clauses.iter().map(|r| r.verdict))
        .collect()
}

const OK_LOG: &str = "# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end 2026-12-01T10:15:31Z\n";

/// Output text the service only copied from its caller's input is no
/// evidence that it mentions it (SPEC §3.4).
#[test]
fn echoed_input_is_no_mention() {
    let d = service(
        "- `summary`: a summary mentioning \"solid-state batteries\"",
        &[
            ("bindings/svc/summary.md", "Solid-state batteries\n"),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::Violated], "{g:#?}");
    // The service's own words mentioning it hold.
    let d = service(
        "- `summary`: a summary mentioning \"solid-state batteries\"",
        &[
            (
                "bindings/svc/summary.md",
                "Solid-state batteries store charge in a solid electrolyte.\n",
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    // Found in a sentence, whether it is said is the judge's.
    assert_eq!(verdicts(&grade_dir(d.path())), vec![Verdict::NotEvaluable]);
}

/// A quality word the measures cannot check goes to the judge; the format
/// alone never satisfies it.
#[test]
fn valid_is_no_filler() {
    let d = service(
        "- `report`: a valid report",
        &[
            ("bindings/svc/report.md", "Some words.\n"),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::NotEvaluable]);
    // "valid JSON" is what the strict JSON measure checks: it held, and
    // a shape that held is the judge's (`{"status": "done"}` is JSON too).
    let d = service(
        "- `report`: valid JSON",
        &[
            ("bindings/svc/report.md", "{\"a\": 1}\n"),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::NotEvaluable]);
    let why = &g.contracts[0].clauses[0].rationale;
    assert!(why.contains("what held is a shape"), "{why}");
}

/// In a JSON array, the sources are its elements: one element holding
/// three URLs is one source.
#[test]
fn sources_of_a_json_array_are_its_elements() {
    let d = service(
        "- `sources`: a JSON array of at least 3 sources",
        &[
            (
                "bindings/svc/sources.json",
                r#"[{"title":"A","url":"https://a.net","notes":"see https://b.net and https://c.net"}]"#,
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    assert_eq!(verdicts(&grade_dir(d.path())), vec![Verdict::Violated]);
}

/// A header block without a `binding:` line is a header all the same,
/// never the output's heading.
#[test]
fn a_header_without_binding_line_is_no_heading() {
    let d = service(
        "- `report`: a report with headings",
        &[
            (
                "bindings/svc/report.md",
                "# report\nsource: svc\n---\nNo heading in the real content.\n",
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    assert_eq!(verdicts(&grade_dir(d.path())), vec![Verdict::Violated]);
}

/// Only the units the docs list are counted: any other noun is the
/// judge's, never list items; a range of years is no count.
#[test]
fn only_listed_units_are_counted() {
    let d = service(
        "- `rivals`: at least 3 competitors\n- `timeline`: events from 2019 to 2024 as a numbered list",
        &[
            ("bindings/svc/rivals.md", "- apples\n- pears\n- plums\n"),
            (
                "bindings/svc/timeline.md",
                "1. 2019: founded\n2. 2024: sold\n",
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(
        verdicts(&g),
        vec![Verdict::NotEvaluable, Verdict::NotEvaluable],
        "{g:#?}"
    );
    let timeline = &g.contracts[0].clauses[1];
    assert!(
        timeline.rationale.contains("numbered list"),
        "{}",
        timeline.rationale
    );
}

/// `each X has: …` is universal: one item lacking a field (or holding it
/// blank) makes it violated, quoting that item.
#[test]
fn each_with_a_counterexample_is_violated() {
    let d = service(
        "- `sources`: a JSON array\n- each source has: title, url, year",
        &[
            (
                "bindings/svc/sources.json",
                r#"[{"title": "A", "url": "https://a.org", "year": 2025}, {"title": " ", "url": "https://b.org", "year": 2024}]"#,
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::NotEvaluable, Verdict::Violated]);
    let each = &g.contracts[0].clauses[1];
    assert!(
        each.evidence
            .iter()
            .any(|e| matches!(e, Evidence::Quote { text, .. } if text.contains("https://b.org"))),
        "{each:#?}"
    );
    assert_eq!(g.status, TestStatus::Fail);
    let d = service(
        "- each source has: title, url",
        &[
            (
                "bindings/svc/sources.md",
                "- title: A, url: https://a.org\n- title: B\n",
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::Violated]);
    assert!(g.contracts[0].clauses[0]
        .evidence
        .iter()
        .any(|e| matches!(e, Evidence::Quote { text, .. } if text.contains("title: B"))));
}

/// A negated format is not checked as the positive one.
#[test]
fn negations_are_not_read_as_positive() {
    let d = service(
        "- `notes`: not JSON\n- `report`: a report without headings\n- `memo`: a note not mentioning \"secret\"",
        &[
            ("bindings/svc/notes.md", "plain words\n"),
            ("bindings/svc/report.md", "Just prose.\n"),
            ("bindings/svc/memo.md", "Nothing to hide.\n"),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    // `without headings` says no heading is there, which a count never
    // shows: the judge's; a negation that held is kept by filler too.
    assert_eq!(
        verdicts(&g),
        vec![
            Verdict::NotEvaluable,
            Verdict::NotEvaluable,
            Verdict::NotEvaluable
        ],
        "{g:#?}"
    );
    let d = service(
        "- `notes`: not JSON\n- `report`: a report without headings\n- `memo`: a note not mentioning \"secret\"",
        &[
            ("bindings/svc/notes.md", "{\"a\": 1}\n"),
            ("bindings/svc/report.md", "# Title\n\nprose\n"),
            ("bindings/svc/memo.md", "The secret is out.\n"),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(
        verdicts(&g),
        vec![Verdict::Violated, Verdict::Violated, Verdict::Violated],
        "{g:#?}"
    );
    // "plain text, not JSON": the negation is measured, "plain" is the judge's.
    let d = service(
        "- `notes`: plain text, not JSON",
        &[("bindings/svc/notes.md", "words\n"), ("vm.log.md", OK_LOG)],
    );
    assert_eq!(verdicts(&grade_dir(d.path())), vec![Verdict::NotEvaluable]);
}

/// "a table of contents" is no table.
#[test]
fn a_table_of_contents_is_no_table() {
    let d = service(
        "- `report`: a report with a table of contents",
        &[
            ("bindings/svc/report.md", "1. Intro\n2. End\n\nText.\n"),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::NotEvaluable], "{g:#?}");
}

const FINDINGS: &str =
    "- `findings`: at least 3 sources\n- if search-failed: `findings` says \"no sources were found\"";

/// Error names are matched by one documented normalisation: case, a
/// trailing parenthetical and terminal escapes aside.
#[test]
fn error_names_are_normalised() {
    for name in [
        "Search-Failed",
        "search-failed (timeout)",
        "search-failed\u{1b}[2J\u{1b}[H",
        "  SEARCH-FAILED  ",
    ] {
        let d = service(
            FINDINGS,
            &[
                ("bindings/svc/findings.md", "No sources were found.\n"),
                ("workspace/svc/__error.md", &format!("# Error: {name}\n")),
            ],
        );
        let g = grade_dir(d.path());
        assert_eq!(
            g.conditional_clauses[0].triggered,
            Some(true),
            "{name:?}: {g:#?}"
        );
        assert_eq!(
            verdicts(&g),
            vec![Verdict::NotTriggered, Verdict::Satisfied],
            "{name:?}"
        );
    }
}

/// A condition the reader cannot read exactly (a negation) is never
/// guessed to name the error.
#[test]
fn a_negated_condition_is_not_evaluable() {
    for cond in [
        "there was no search-failed error",
        "search-failed did not occur",
        "not search-failed",
        "the search never failed",
    ] {
        let d = service(
            &format!("- `findings`: at least 3 sources\n- if {cond}: `findings` is a list saying \"source\""),
            &[
                ("bindings/svc/findings.md", "- a source\n"),
                ("workspace/svc/__error.md", "# Error: search-failed\n"),
            ],
        );
        let g = grade_dir(d.path());
        assert_eq!(g.conditional_clauses[0].triggered, None, "{cond}");
        assert_eq!(g.conditional_clauses[0].verdict, Verdict::NotEvaluable);
        assert_ne!(g.status, TestStatus::Pass, "{cond}");
    }
    // The plain forms still name it.
    for cond in [
        "search-failed",
        "the search failed",
        "the search tool failed",
        "there was a search-failed error",
    ] {
        let d = service(
            &format!("- `findings`: at least 3 sources\n- if {cond}: `findings` says \"none\""),
            &[
                ("bindings/svc/findings.md", "none\n"),
                ("workspace/svc/__error.md", "# Error: search-failed\n"),
            ],
        );
        let g = grade_dir(d.path());
        assert_eq!(g.conditional_clauses[0].triggered, Some(true), "{cond}");
    }
}

/// An error file in another service's folder is not the single service's
/// error: the run is refused (the folder belongs to no contract).
#[test]
fn another_folders_error_is_not_the_services() {
    let d = service(
        FINDINGS,
        &[
            (
                "bindings/svc/findings.md",
                "one source: https://a.net (an earlier try: no sources were found)\n",
            ),
            ("workspace/helper/__error.md", "# Error: search-failed\n"),
            ("vm.log.md", OK_LOG),
        ],
    );
    match import_run(d.path()) {
        Err(ImportError::RunFile { file, .. }) => assert!(file.contains("helper"), "{file}"),
        other => panic!("{other:?}"),
    }
}

/// A run that did not end cleanly (a crashed step, an aborted run) is
/// never satisfied: the crashed service's clauses are violated.
#[test]
fn a_crashed_run_is_never_satisfied() {
    let d = service(
        "- `summary`: a summary saying \"batteries\"",
        &[
            ("bindings/svc/summary.md", "Solid-state batteries.\n"),
            (
                "vm.log.md",
                "# run:r svc\nroot: root.prose.md\n1→ svc ✗ crashed: segfault after writing\n---error 2026-12-01T10:15:31Z run aborted\n",
            ),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::Violated], "{g:#?}");
    assert!(g.contracts[0].clauses[0].rationale.contains("crashed"));
    assert_eq!(g.status, TestStatus::Fail);
    // An aborted run alone.
    let d = service(
        "- `summary`: a summary saying \"batteries\"",
        &[
            ("bindings/svc/summary.md", "Solid-state batteries.\n"),
            (
                "vm.log.md",
                "# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---error 2026-12-01T10:15:31Z run aborted\n",
            ),
        ],
    );
    let g = grade_dir(d.path());
    assert_ne!(g.status, TestStatus::Pass, "{g:#?}");
    // A declared error with no conditional clause for it: the success
    // clauses are not graded as if it had succeeded.
    let d = service(
        "- `summary`: a summary saying \"batteries\"",
        &[
            ("bindings/svc/summary.md", "Solid-state batteries.\n"),
            ("workspace/svc/__error.md", "# Error: search-failed\n"),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::NotEvaluable], "{g:#?}");
}

/// A step line that is not exactly one form is refused, never a ✓.
#[test]
fn a_log_line_with_both_marks_is_refused() {
    for line in [
        "1→ svc ✓ then ✗ search-failed: timeout",
        "1→ svc ✓ ok",
        "1→ svc ✗ search-failed ✓",
    ] {
        let d = service(
            "- `summary`: a summary saying \"batteries\"",
            &[
                ("bindings/svc/summary.md", "batteries\n"),
                (
                    "vm.log.md",
                    &format!("# run:r svc\nroot: root.prose.md\n{line}\n"),
                ),
            ],
        );
        assert!(
            matches!(
                import_run(d.path()),
                Err(ImportError::RunFile { line: 3, .. })
            ),
            "{line}"
        );
    }
}

/// A judged clause's quote must come from the binding that clause is
/// about, not from another output of the contract.
#[test]
fn a_judge_quote_from_another_output_backs_nothing() {
    let d = service(
        "- `summary`: names the CEO of the company\n- `notes`: a note",
        &[
            ("bindings/svc/summary.md", "The company makes batteries.\n"),
            (
                "bindings/svc/notes.md",
                "Scratch: The CEO is Jane Doe (unverified, do not publish).\n",
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    let run = import_run(d.path()).expect("imports");
    let policy = Policy::default();
    // A judge that answers satisfied, quoting the other output: the quote
    // is a real one of the transcript (turn 2), located as pactum's quote
    // verification would.
    let mut judge = satisfied_quoting(&policy, 2, "The CEO is Jane Doe");
    let g = grade_run(&run, &policy, &mut judge);
    let summary = &g.contracts[0].clauses[0];
    assert_eq!(summary.verdict, Verdict::NotEvaluable, "{summary:#?}");
    assert_eq!(summary.reason, Some(NotEvaluableReason::FabricatedEvidence));
    assert_ne!(g.status, TestStatus::Pass);
}

/// A crash recorded after a declared error whose conditional clause
/// triggered is still answered: the ordinary clause does not stand aside
/// but is violated, and the run fails.
#[test]
fn a_crash_after_a_handled_error_still_fails() {
    let d = service(
        "- `summary`: a summary saying \"batteries\"\n- if search-failed: `summary` says \"no sources were found\"",
        &[
            ("bindings/svc/summary.md", "no sources were found\n"),
            (
                "vm.log.md",
                "# run:r svc\nroot: root.prose.md\n1→ svc ✗ search-failed\n2→ svc ✗ crashed\n---end 2026-12-01T10:15:31Z\n",
            ),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(g.status, TestStatus::Fail, "{g:#?}");
    assert_eq!(g.contracts[0].clauses[0].verdict, Verdict::Violated);
    assert!(g.contracts[0].clauses[0].rationale.contains("crashed"));
    // The declared error alone: the ordinary clause stands aside, and is
    // no untested path.
    let d = service(
        "- `summary`: a summary saying \"batteries\"\n- if search-failed: `summary` says \"no sources were found\"",
        &[
            ("bindings/svc/summary.md", "no sources were found\n"),
            ("workspace/svc/__error.md", "# Error: search-failed\n"),
        ],
    );
    let g = grade_dir(d.path());
    assert_eq!(g.status, TestStatus::Pass, "{g:#?}");
    assert!(!g.summary.contains("untested path"), "{}", g.summary);
}

/// A log whose last line is not exactly `---end {time}` or `---error
/// {time} {message}` (a variant spelling, or no end at all: a run cut
/// short or still going) is refused, never read as a clean finish.
#[test]
fn a_log_without_a_clean_end_is_refused() {
    for (log, line) in [
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n--- error 2026-12-01T10:15:31Z run aborted\n", 4),
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---ERROR 2026-12-01T10:15:31Z run aborted\n", 4),
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---End 2026-12-01T10:15:31Z\n", 4),
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end\n", 4),
        ("# run:r svc\nroot: root.prose.md\n", 2),
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n", 3),
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end 2026-12-01T10:15:31Z\n2→ svc ✓\n", 5),
    ] {
        let d = service(
            "- `summary`: a summary saying \"batteries\"",
            &[("bindings/svc/summary.md", "batteries\n"), ("vm.log.md", log)],
        );
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, line: l, .. }) => {
                assert!(file.ends_with("vm.log.md"), "{file}");
                assert_eq!(l, line, "{log}");
            }
            other => panic!("{log}: {other:?}"),
        }
    }
}

/// Copied input is no evidence for any measure of the output's content:
/// an output that is only copied input is violated whatever the clause
/// asks (even "`summary`: a summary"), and a URL copied from a caller
/// input is no source of the service's own.
#[test]
fn copied_input_is_no_evidence_for_counts_or_existence() {
    let with_input = |ensures: &str, input: &str, output: &str| {
        let d = service(
            ensures,
            &[("bindings/svc/summary.md", output), ("vm.log.md", OK_LOG)],
        );
        write(
            d.path(),
            "bindings/caller/topic.md",
            &format!("# topic\nbinding: input\nsource: caller\n---\n{input}"),
        );
        grade_dir(d.path())
    };
    let g = with_input(
        "- `summary`: a summary",
        "Solid-state batteries\n",
        "Solid-state batteries\n",
    );
    assert_eq!(verdicts(&g), vec![Verdict::Violated], "{g:#?}");
    // A soft hyphen or a zero-width space inside a word, on either side,
    // hides no copy.
    for (input, output) in [
        ("Solid-state bat\u{ad}teries\n", "Solid-state batteries\n"),
        ("Solid-state batteries\n", "Solid-state bat\u{200b}teries\n"),
    ] {
        let g = with_input("- `summary`: a summary", input, output);
        assert_eq!(verdicts(&g), vec![Verdict::Violated], "{output:?}: {g:#?}");
    }
    let urls = "see https://a.net/1 https://b.net/2 https://c.net/3\n";
    let g = with_input("- `summary`: at least 3 sources", urls, urls);
    assert_eq!(verdicts(&g), vec![Verdict::Violated], "{g:#?}");
    // Own words around the caller's URLs: still no source of its own.
    let g = with_input(
        "- `summary`: at least 3 sources",
        urls,
        "My findings cite https://a.net/1, https://b.net/2 and https://c.net/3 as read.\n",
    );
    assert_eq!(verdicts(&g), vec![Verdict::Violated], "{g:#?}");
    // Its own sources count.
    let g = with_input(
        "- `summary`: at least 3 sources",
        urls,
        "My findings cite https://d.net/1, https://e.net/2 and https://f.net/3 as read.\n",
    );
    assert_eq!(verdicts(&g), vec![Verdict::Satisfied], "{g:#?}");
    // A plain output (no header, another extension) that is the caller's
    // input again.
    for (file, text) in [
        ("bindings/svc/summary.txt", "Solid-state batteries"),
        ("bindings/svc/summary.json", "\"Solid-state batteries\"\n"),
        ("bindings/svc/summary.md", "solid-state BATTERIES."),
    ] {
        let d = service(
            "- `summary`: a summary",
            &[(file, text), ("vm.log.md", OK_LOG)],
        );
        let g = grade_dir(d.path());
        assert_eq!(verdicts(&g), vec![Verdict::Violated], "{file}: {g:#?}");
    }
    // The service's own source (its program, clauses included) copied
    // into the output, in part or whole.
    let d = service("- `summary`: a summary", &[("vm.log.md", OK_LOG)]);
    let source = std::fs::read_to_string(d.path().join("root.prose.md")).expect("source");
    for text in ["The search tool failed.\n", source.as_str()] {
        write(d.path(), "bindings/svc/summary.md", text);
        let g = grade_dir(d.path());
        assert_eq!(verdicts(&g), vec![Verdict::Violated], "{text}: {g:#?}");
    }
    // A node's snapshot in sources/ of a system, copied whole.
    let d = tempfile::tempdir().expect("tempdir");
    let snap = "---\nname: writer\nkind: service\n---\n## Ensures\n\n- `draft`: a draft\n";
    write(
        d.path(),
        "root.prose.md",
        "---\nname: sys\nkind: system\n---\n## Services\n\n- writer\n",
    );
    write(d.path(), "sources/writer.prose.md", snap);
    write(
        d.path(),
        "forme.manifest.json",
        r#"{"systemName":"sys","graph":[{"id":"writer","sourcePath":"writer.prose.md","outputs":[{"name":"draft"}]}]}"#,
    );
    write(d.path(), "bindings/writer/draft.md", snap);
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::Violated], "{g:#?}");
    write(
        d.path(),
        "bindings/writer/draft.md",
        "A draft of my own about cells.\n",
    );
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g), vec![Verdict::NotEvaluable], "{g:#?}");
}

/// "A numbered list" is a list whose every item is numbered: `1.` then
/// `-` items is a list of mixed kinds, no numbered list (nor a bulleted
/// one). A numbered list after a bulleted one, apart, still counts.
#[test]
fn a_list_of_mixed_kinds_is_no_numbered_list() {
    let graded = |ensures: &str, out: &str| {
        let d = service(
            ensures,
            &[("bindings/svc/summary.md", out), ("vm.log.md", OK_LOG)],
        );
        verdicts(&grade_dir(d.path()))
    };
    for mixed in [
        "1. First finding\n- second finding\n- third finding\n",
        "- first finding\n1. second finding\n",
        "1. First finding\n\n- second finding\n",
        "1. First finding\n   more of the first\n- second finding\n",
    ] {
        assert_eq!(
            graded("- `summary`: a numbered list", mixed),
            vec![Verdict::Violated],
            "{mixed}"
        );
        assert_eq!(
            graded("- `summary`: a bulleted list", mixed),
            vec![Verdict::Violated],
            "{mixed}"
        );
    }
    for ok in [
        "1. First finding\n2. Second finding\n",
        "- a bullet\n- another\n\nThen the ranking:\n\n1. First finding\n2. Second finding\n",
        "- a bullet\n## Ranking\n1. First finding\n",
        "1. First finding\n   - a detail under it\n2. Second finding\n",
    ] {
        // Held, and a shape that held is the judge's.
        assert_eq!(
            graded("- `summary`: a numbered list", ok),
            vec![Verdict::NotEvaluable],
            "{ok}"
        );
    }
}

/// Blank strings and `null` in a JSON array are no items.
#[test]
fn blank_json_elements_are_no_items() {
    let graded = |out: &str| {
        let d = service(
            "- `summary`: at least 3 items",
            &[("bindings/svc/summary.json", out), ("vm.log.md", OK_LOG)],
        );
        verdicts(&grade_dir(d.path()))
    };
    for blank in [
        r#"["", " ", null]"#,
        r#"["a", "", null, {"x": ""}]"#,
        r#"[[], {}, "\n"]"#,
    ] {
        assert_eq!(graded(blank), vec![Verdict::Violated], "{blank}");
    }
    assert_eq!(
        graded(r#"["oak", "pine", "elm"]"#),
        vec![Verdict::Satisfied]
    );
}

/// Text inside an HTML comment is not shown when the Markdown renders: a
/// quote, heading or list found only there is no evidence. A forbidden
/// text hidden there is still written.
#[test]
fn an_html_comment_is_no_evidence() {
    let graded = |ensures: &str, out: &str| {
        let d = service(
            ensures,
            &[("bindings/svc/summary.md", out), ("vm.log.md", OK_LOG)],
        );
        verdicts(&grade_dir(d.path()))
    };
    let says = "- `summary`: a summary saying \"lithium dendrites\"";
    for hidden in [
        "Cells age.\n<!-- lithium dendrites -->\n",
        "Cells age. <!--\nlithium dendrites\n-->\n",
        "Cells age. <!-- unclosed lithium dendrites\n",
    ] {
        assert_eq!(graded(says, hidden), vec![Verdict::Violated], "{hidden}");
    }
    assert_eq!(
        graded(says, "<!-- note -->Lithium dendrites grow.\n"),
        vec![Verdict::NotEvaluable]
    );
    assert_eq!(
        graded(
            "- `summary`: a numbered list",
            "Cells.\n<!--\n1. First\n2. Second\n-->\n"
        ),
        vec![Verdict::Violated]
    );
    assert_eq!(
        graded(
            "- `summary`: at least 2 sources",
            "Cells. <!-- https://a.net https://b.net -->\n"
        ),
        vec![Verdict::Violated]
    );
    // Negated: the hidden text is still in the output.
    assert_eq!(
        graded(
            "- `summary`: a summary that does not say \"lithium dendrites\"",
            "Cells age.\n<!-- lithium dendrites -->\n"
        ),
        vec![Verdict::Violated]
    );
}

/// An `__error.md` anywhere below a service's workspace folder is that
/// service's error; one right under `workspace/` is refused.
#[test]
fn a_nested_error_file_is_the_services_error() {
    for at in [
        "workspace/svc/sub/__error.md",
        "workspace/svc/a/b/c/__error.md",
        "workspace/svc/__ERROR.md",
    ] {
        let d = service(
            "- `summary`: a summary saying \"batteries\"",
            &[
                ("bindings/svc/summary.md", "Batteries age.\n"),
                (at, "# Error: search-failed\nthe tool timed out\n"),
            ],
        );
        let run = import_run(d.path()).expect("imports");
        let errs: Vec<(&str, &str)> = run.contracts[0]
            .errors
            .iter()
            .map(|e| (e.name.as_str(), e.source.as_str()))
            .collect();
        assert_eq!(errs, vec![("search-failed", at)], "{at}");
        let g = grade_dir(d.path());
        assert!(!verdicts(&g).contains(&Verdict::Satisfied), "{at}: {g:#?}");
    }
    let d = service(
        "- `summary`: a summary",
        &[
            ("bindings/svc/summary.md", "Batteries age.\n"),
            ("workspace/svc/notes.md", "fine\n"),
            ("workspace/__error.md", "# Error: search-failed\n"),
        ],
    );
    match import_run(d.path()) {
        Err(ImportError::RunFile { file, message, .. }) => {
            assert!(file.ends_with("workspace/__error.md"), "{file}");
            assert!(message.contains("names no service"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A nested error file without its `# Error:` line is refused, as at
    // the top.
    let d = service(
        "- `summary`: a summary",
        &[
            ("bindings/svc/summary.md", "Batteries age.\n"),
            ("workspace/svc/sub/__error.md", "it broke\n"),
        ],
    );
    assert!(matches!(
        import_run(d.path()),
        Err(ImportError::RunFile { .. })
    ));
}

/// A log of its header only, or empty, or with a variant end line, is a
/// run that did not end: refused naming the line, never graded PASS.
#[test]
fn a_header_only_or_empty_log_is_refused() {
    for (log, line) in [
        ("", 1),
        ("\n\n", 1),
        ("# run:r svc\n", 1),
        ("# run:r svc\nroot: root.prose.md\n\n\n", 2),
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---  end 2026-12-01T10:15:31Z\n", 4),
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---error\n", 4),
        ("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end 2026-12-01T10:15:31Z extra\n---end 2026-12-01T10:15:32Z\n", 4),
    ] {
        let d = service(
            "- `summary`: a summary",
            &[("bindings/svc/summary.md", "batteries\n"), ("vm.log.md", log)],
        );
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, line: l, .. }) => {
                assert!(file.ends_with("vm.log.md"), "{file}");
                assert_eq!(l, line, "{log:?}");
            }
            other => panic!("{log:?}: {other:?}"),
        }
    }
}

/// A judge's quote found only inside an HTML comment of the output backs
/// nothing: the comment is not shown when the Markdown renders.
#[test]
fn a_judge_quote_from_an_html_comment_backs_nothing() {
    let grade = |summary: &str| {
        let d = service(
            "- `summary`: names the CEO of the company",
            &[("bindings/svc/summary.md", summary), ("vm.log.md", OK_LOG)],
        );
        let run = import_run(d.path()).expect("imports");
        let policy = Policy::default();
        let mut judge = |c: &CompiledContract, t: &pactum_core::trace::Trace| -> ContractResult {
            let mut r = c.grade(t, &policy, &pactum_eval::NoJudge);
            for cl in &mut r.clauses {
                cl.verdict = Verdict::Satisfied;
                cl.reason = None;
                cl.confidence = 95;
                cl.evidence = vec![Evidence::Quote {
                    turn: 1,
                    source: "response".into(),
                    text: "The CEO is Jane Doe".into(),
                }];
            }
            r
        };
        grade_run(&run, &policy, &mut judge)
    };
    let g = grade("The company makes batteries.\n<!-- The CEO is Jane Doe -->\n");
    let c = &g.contracts[0].clauses[0];
    assert_eq!(c.verdict, Verdict::NotEvaluable, "{c:#?}");
    assert_eq!(c.reason, Some(NotEvaluableReason::FabricatedEvidence));
    assert!(c.rationale.contains("HTML comment"), "{}", c.rationale);
    assert_ne!(g.status, TestStatus::Pass);
    // Shown, it stands.
    let g = grade("The company makes batteries. The CEO is Jane Doe.\n");
    assert_eq!(g.contracts[0].clauses[0].verdict, Verdict::Satisfied);
}

/// What an HTML comment hides is not output: an output that shows only
/// copied input around a comment is a copy, and one that is only a
/// comment shows nothing.
#[test]
fn a_comment_neither_makes_a_copy_original_nor_an_output() {
    for out in [
        "Solid-state batteries <!-- my own words -->\n",
        "<!-- my own words, all hidden -->\n",
        "<!-- my own words\n",
    ] {
        let d = service(
            "- `summary`: a summary",
            &[("bindings/svc/summary.md", out), ("vm.log.md", OK_LOG)],
        );
        let g = grade_dir(d.path());
        assert_eq!(verdicts(&g), vec![Verdict::Violated], "{out}: {g:#?}");
    }
}

/// A judge's quote that lies inside a whole sentence the output copied
/// from its input backs nothing, however short the sentence, even when
/// the rest of the paragraph is the service's own.
#[test]
fn a_judge_quote_inside_a_copied_sentence_backs_nothing() {
    for output in [
        "Solid-state batteries. Makers expect the first cars to ship with them within three years.\n",
        "Makers expect the first cars within three years; Solid-state batteries.\n",
    ] {
        let d = service(
            "- `summary`: names the subject and says when cars will use it",
            &[("bindings/svc/summary.md", output), ("vm.log.md", OK_LOG)],
        );
        let g = judged_satisfied(d.path(), "Solid-state batteries");
        let summary = &g.contracts[0].clauses[0];
        assert_eq!(summary.verdict, Verdict::NotEvaluable, "{output:?}: {summary:#?}");
        assert!(summary.rationale.contains("only copied from its input"), "{summary:#?}");
        assert_ne!(g.status, TestStatus::Pass);
    }
    // A quote across a blank line is looked up whole (no panic).
    let d = service(
        "- `summary`: names the subject and says when cars will use it",
        &[
            (
                "bindings/svc/summary.md",
                "Solid-state batteries.\n\nMakers expect the first cars within three years.\n",
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = judged_satisfied(d.path(), "batteries.\n\nMakers expect");
    assert_eq!(g.contracts[0].clauses.len(), 1, "{g:#?}");
    // Inside a sentence of the service's own, the input's words alone
    // still only restate the input; the sentence quoted backs it.
    let d = service(
        "- `summary`: names the subject and says when cars will use it",
        &[
            (
                "bindings/svc/summary.md",
                "Makers expect Solid-state batteries in the first cars within three years.\n",
            ),
            ("vm.log.md", OK_LOG),
        ],
    );
    let g = judged_satisfied(d.path(), "Solid-state batteries");
    let summary = &g.contracts[0].clauses[0];
    assert_eq!(summary.verdict, Verdict::NotEvaluable, "{g:#?}");
    assert!(summary.rationale.contains("only restates"), "{summary:#?}");
    let g = judged_satisfied(
        d.path(),
        "Makers expect Solid-state batteries in the first cars within three years.",
    );
    assert_eq!(
        g.contracts[0].clauses[0].verdict,
        Verdict::Satisfied,
        "{g:#?}"
    );
}

/// A judge's quote found only inside raw HTML that hides it (however the
/// hiding is spelled) backs nothing.
#[test]
fn a_judge_quote_from_hidden_html_backs_nothing() {
    for hidden in [
        "<span title=\">\" style=\"display:none\">Daikin, Vaillant and Viessmann lead the market.</span>",
        "<dialog>Daikin, Vaillant and Viessmann lead the market.</dialog>",
        "<span class=\"sr-only\">Daikin, Vaillant and Viessmann lead the market.</span>",
    ] {
        let d = service(
            "- `summary`: names the three largest manufacturers",
            &[
                (
                    "bindings/svc/summary.md",
                    &format!("The market is led by three firms. {hidden}\n"),
                ),
                ("vm.log.md", OK_LOG),
            ],
        );
        let g = judged_satisfied(d.path(), "Daikin, Vaillant and Viessmann lead the market.");
        let summary = &g.contracts[0].clauses[0];
        assert_eq!(summary.verdict, Verdict::NotEvaluable, "{hidden}: {summary:#?}");
        assert_ne!(g.status, TestStatus::Pass);
    }
}

/// Grades the run at `dir` with a judge that answers every clause
/// satisfied (confidence 95), quoting `quote` from the first output.
fn judged_satisfied(dir: &std::path::Path, quote: &str) -> RunGrade {
    let run = import_run(dir).expect("imports");
    let policy = Policy::default();
    let mut judge = satisfied_quoting(&policy, 1, quote);
    grade_run(&run, &policy, &mut judge)
}
