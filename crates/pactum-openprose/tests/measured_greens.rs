//! A measure counts what is written, not what it means: three rows, one
//! of them a maker from Atlantis, are three rows. With a judge configured, every
//! clause a measure alone would call `satisfied` is read by the judge
//! too, and only the judge's `satisfied` (its quotes verified as for any
//! judged clause, SPEC §3.4) keeps the green; without one the measured
//! green stands and the report lists it as measured only.

mod common;

use common::*;
use pactum_core::outcome::Evidence;
use pactum_core::result::ContractResult;
use pactum_core::trace::Trace;
use pactum_core::{NotEvaluableReason, Policy, Verdict};
use pactum_eval::CompiledContract;
use pactum_openprose::grade::{grade_run, RunGrade};
use pactum_openprose::import_run;

/// Three makers, the third of them made up: "at least 3 rows" holds as
/// measured.
const ROWS: &str = "| maker | country |\n|---|---|\n| Daikin | Japan |\n| Vaillant | Germany |\n| Polarheat | Atlantis |\n";

fn run() -> tempfile::TempDir {
    run_with(
        "## Ensures\n\n- `makers`: a markdown table of at least 3 rows\n",
        &[("bindings/svc/makers.md", ROWS)],
    )
}

/// A judge answering every clause it is asked with `verdict`, quoting
/// `quote` at turn 1, or failing with `reason`.
fn judge<'a>(
    policy: &'a Policy,
    answer: Result<(Verdict, &'a str), NotEvaluableReason>,
    asked: &'a std::cell::Cell<usize>,
) -> impl FnMut(&CompiledContract, &Trace) -> ContractResult + 'a {
    move |c: &CompiledContract, t: &Trace| {
        let mut r = c.grade(t, policy, &pactum_eval::NoJudge);
        for cl in &mut r.clauses {
            asked.set(asked.get() + 1);
            match answer {
                Ok((verdict, quote)) => {
                    cl.verdict = verdict;
                    cl.reason = None;
                    cl.confidence = 80;
                    cl.rationale = "the judge's reading".into();
                    cl.evidence = vec![Evidence::Quote {
                        turn: 1,
                        source: "response".into(),
                        text: quote.into(),
                    }];
                }
                Err(reason) => {
                    cl.reason = Some(reason);
                }
            }
        }
        r
    }
}

fn graded(answer: Result<(Verdict, &str), NotEvaluableReason>) -> (RunGrade, usize) {
    let d = run();
    let run = import_run(d.path()).expect("imports");
    let policy = Policy::default();
    let asked = std::cell::Cell::new(0);
    let g = {
        let mut j = judge(&policy, answer, &asked);
        grade_run(&run, &policy, &mut j)
    };
    (g, asked.get())
}

fn only(g: &RunGrade) -> &pactum_core::ClauseResult {
    assert_eq!(g.contracts.len(), 1);
    assert_eq!(g.contracts[0].clauses.len(), 1);
    &g.contracts[0].clauses[0]
}

#[test]
fn without_a_judge_a_measured_green_stands_and_is_listed_as_measured_only() {
    let g = grade_dir(run().path());
    let r = only(&g);
    assert_eq!(r.verdict, Verdict::Satisfied, "{r:#?}");
    assert!(r.rationale.contains("no judge read"), "{}", r.rationale);
    assert_eq!(g.measured_only, vec!["svc/makers".to_string()]);
}

#[test]
fn a_judge_that_reads_a_measured_green_as_broken_makes_it_violated() {
    let (g, asked) = graded(Ok((Verdict::Violated, "| Polarheat | Atlantis |")));
    assert_eq!(asked, 1, "the measured green was not shown to the judge");
    let r = only(&g);
    assert_eq!(r.verdict, Verdict::Violated, "{r:#?}");
    assert!(r.rationale.starts_with("measured: "), "{}", r.rationale);
    assert!(g.measured_only.is_empty());
    assert_eq!(g.contracts[0].status, pactum_core::TestStatus::Fail);
}

#[test]
fn a_judge_that_reads_it_as_partly_kept_scores_it_half() {
    let (g, _) = graded(Ok((
        Verdict::PartiallySatisfied,
        "| Polarheat | Atlantis |",
    )));
    assert_eq!(only(&g).verdict, Verdict::PartiallySatisfied);
    // The contract's status is `pass` (SPEC §3.5); the CLI exits 1 with a
    // `partly-kept` warning.
    assert_eq!(g.contracts[0].contract_score, Some(50.0));
}

#[test]
fn a_judge_that_confirms_keeps_the_green_with_both_readings() {
    let (g, _) = graded(Ok((Verdict::Satisfied, "| Daikin | Japan |")));
    let r = only(&g);
    assert_eq!(r.verdict, Verdict::Satisfied, "{r:#?}");
    assert_eq!(r.confidence, 80, "the lower of the two confidences");
    assert!(
        r.rationale.contains("the judge read it as kept"),
        "{}",
        r.rationale
    );
    assert!(g.measured_only.is_empty());
}

#[test]
fn a_judge_that_cannot_tell_leaves_a_measured_green_not_evaluable() {
    for reason in [
        NotEvaluableReason::JudgeError,
        NotEvaluableReason::LowConfidence,
        NotEvaluableReason::TranscriptTooLong,
        NotEvaluableReason::RedactedSecret,
    ] {
        let (g, _) = graded(Err(reason));
        let r = only(&g);
        assert_eq!(r.verdict, Verdict::NotEvaluable, "{reason:?}: {r:#?}");
        assert_eq!(r.reason, Some(reason));
        assert!(g.measured_only.is_empty());
        assert_ne!(g.status, pactum_core::TestStatus::Pass);
    }
}

/// A quote pactum-runner did not find in the transcript never reaches
/// here (the CLI test `a_measured_green_is_read_by_the_judge` covers
/// it); one only in the caller's input, or that restates the clause, is
/// caught here as for any judged clause.
#[test]
fn a_confirming_quote_copied_from_the_input_or_the_clause_backs_nothing() {
    for quote in [
        "Solid-state batteries",
        "a markdown table of at least 3 rows",
    ] {
        let (g, _) = graded(Ok((Verdict::Satisfied, quote)));
        let r = only(&g);
        assert_eq!(r.verdict, Verdict::NotEvaluable, "{quote}: {r:#?}");
        assert_eq!(r.reason, Some(NotEvaluableReason::FabricatedEvidence));
    }
}

#[test]
fn a_judge_that_answers_nothing_for_it_leaves_it_not_evaluable() {
    let d = run();
    let run = import_run(d.path()).expect("imports");
    let policy = Policy::default();
    let mut j = |c: &CompiledContract, t: &Trace| {
        let mut r = c.grade(t, &policy, &pactum_eval::NoJudge);
        r.clauses.clear();
        r
    };
    let g = grade_run(&run, &policy, &mut j);
    let r = only(&g);
    assert_eq!(r.verdict, Verdict::NotEvaluable);
    assert_eq!(r.reason, Some(NotEvaluableReason::NoVerdict));
}

/// A measured violation needs no judge: too few rows is violated
/// whatever a judge would say, and the judge is not asked.
#[test]
fn a_measured_violation_is_not_sent_to_the_judge() {
    let d = run_with(
        "## Ensures\n\n- `makers`: a markdown table of at least 5 rows\n",
        &[("bindings/svc/makers.md", ROWS)],
    );
    let run = import_run(d.path()).expect("imports");
    let policy = Policy::default();
    let asked = std::cell::Cell::new(0);
    let g = {
        let mut j = judge(
            &policy,
            Ok((Verdict::Satisfied, "| Daikin | Japan |")),
            &asked,
        );
        grade_run(&run, &policy, &mut j)
    };
    assert_eq!(asked.get(), 0);
    assert_eq!(only(&g).verdict, Verdict::Violated);
}
