//! The twenty-eighth hostile review's finding in the grader: a system
//! contract promising an output that a service left when it failed
//! outside its declared errors was satisfied by it, while that service's
//! own clause on the same file was violated.

mod common;

use common::*;
use pactum_core::Verdict;
use std::path::Path;

/// The bundled satisfied system with `analyst`'s workspace holding
/// `error` as its `__error.md`.
fn with_analyst_error(error: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied"),
        d.path(),
    );
    write(d.path(), "workspace/analyst/__error.md", error);
    d
}

fn verdict(g: &pactum_openprose::RunGrade, contract: &str, clause: &str) -> (Verdict, String) {
    let c = g
        .contracts
        .iter()
        .find(|c| c.name == contract)
        .expect("the contract");
    let r = c
        .clauses
        .iter()
        .find(|r| r.id == clause)
        .expect("the clause");
    (r.verdict, r.rationale.clone())
}

#[test]
fn a_systems_clause_on_an_output_a_crashed_service_left_is_violated() {
    let d = with_analyst_error("# Error: disk-full\n\nThe disk is full.\n");
    let g = grade_dir(d.path());
    let (own, _) = verdict(&g, "analyst", "brief");
    assert_eq!(own, Verdict::Violated);
    let (system, why) = verdict(&g, "market-brief", "brief");
    assert_eq!(system, Verdict::Violated, "{why}");
    assert!(
        why.contains("comes from `analyst`, which did not finish"),
        "{why}"
    );
}

#[test]
fn a_declared_error_leaves_the_systems_clause_to_its_own_reading() {
    // `sources-empty` is declared by the analyst: its conditional clause
    // answers it, and the system's clause on `brief` is not violated
    // for the analyst's failing.
    let d = with_analyst_error("# Error: sources-empty\n\nNo source came back.\n");
    let g = grade_dir(d.path());
    let (_, why) = verdict(&g, "market-brief", "brief");
    assert!(!why.contains("did not finish"), "{why}");
}

/// The twenty-ninth review's variants: a system clause in plain words on
/// an output a crashed service left (two outputs and no name: the
/// repro's, not evaluable); a declared error no
/// conditional clause answers; a nested run's crash never blames the
/// parent's service of the same name.
#[test]
fn a_systems_clause_naming_no_output_beside_a_crashed_one_is_not_green() {
    let d = with_analyst_error("# Error: disk-full\n\nThe disk is full.\n");
    let root = std::fs::read_to_string(d.path().join("root.prose.md")).expect("root");
    let root = root.replace(
        "- if research-failed",
        "- the brief explains why sales fell\n- if research-failed",
    );
    // The root and its snapshot in sources/ are the same file.
    write(d.path(), "root.prose.md", &root);
    write(d.path(), "sources/market-brief.prose.md", &root);
    let g = grade_dir(d.path());
    // The system returns one output: the clause is about it.
    let (v, why) = verdict(&g, "market-brief", "the-brief-explains-why-sales-fell");
    assert_eq!(v, Verdict::Violated, "{why}");
    assert!(
        why.contains("comes from `analyst`, which did not finish"),
        "{why}"
    );
}

#[test]
fn a_declared_error_no_conditional_answers_leaves_the_systems_clause_not_evaluable() {
    let d = with_analyst_error("# Error: quota-exceeded\n\nThe quota is exceeded.\n");
    let source = std::fs::read_to_string(d.path().join("sources/analyst.prose.md")).expect("src");
    write(
        d.path(),
        "sources/analyst.prose.md",
        &source.replace(
            "## Errors\n",
            "## Errors\n\n- quota-exceeded: the model's quota ran out\n",
        ),
    );
    let g = grade_dir(d.path());
    let (own, _) = verdict(&g, "analyst", "brief");
    assert_eq!(own, Verdict::NotEvaluable);
    let (system, why) = verdict(&g, "market-brief", "brief");
    assert_eq!(system, Verdict::NotEvaluable, "{why}");
    assert!(
        why.contains("a declared error no conditional clause of it answers"),
        "{why}"
    );
}

#[test]
fn a_nested_runs_crash_never_blames_the_parents_service() {
    let d = tempfile::tempdir().expect("tempdir");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
    copy_dir(&example, d.path());
    copy_dir(&example, &d.path().join("imports/h--sub"));
    write(
        d.path(),
        "imports/h--sub/workspace/analyst/__error.md",
        "# Error: disk-full\n\nThe disk is full.\n",
    );
    let g = grade_dir(d.path());
    assert_eq!(verdict(&g, "analyst", "brief").0, Verdict::Satisfied);
    assert_eq!(verdict(&g, "market-brief", "brief").0, Verdict::Satisfied);
    assert_eq!(verdict(&g, "h--sub/analyst", "brief").0, Verdict::Violated);
    assert_eq!(
        verdict(&g, "h--sub/market-brief", "brief").0,
        Verdict::Violated
    );
}
