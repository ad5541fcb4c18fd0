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
