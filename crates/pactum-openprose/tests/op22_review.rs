//! The twenty-second and twenty-third reviews' findings on errors,
//! conditions and counts: a failed step's error read whole before its
//! message, a condition negated by a sign, and counts that are no exact
//! count (two bounds, a split number, a bound after the unit).

use pactum_core::Verdict;

mod common;
use common::*;

#[test]
fn a_failed_steps_error_written_with_spaces_is_the_declared_error_it_opens_with() {
    for step in [
        "1→ svc ✗ Search Failed (timeout)",
        "1→ svc ✗ search failed",
        "1→ svc ✗ search failed: the tool timed out",
    ] {
        let g = logged("search-failed", step);
        assert!(
            g.contains("the declared error path was taken") && !g.contains("does not declare"),
            "{step}: {g}"
        );
    }
    // An error no declared name is read whole is still undeclared.
    let g = logged("search-failed", "1→ svc ✗ search failedness");
    assert!(g.contains("does not declare"), "{g}");
}

#[test]
fn two_bounds_or_two_numbers_before_one_unit_are_no_exact_count() {
    let three = "Heat pumps are spreading.\n\nSubsidies grew.\n\nGas prices rose.\n";
    for clause in [
        "at least 3 and at most 4 paragraphs",
        "3..4 paragraphs",
        "3/4 paragraphs",
    ] {
        assert_ne!(one(clause, three), Verdict::Violated, "{clause}");
    }
    let five = "One.\n\nTwo.\n\nThree.\n\nFour.\n\nFive.\n";
    assert_ne!(
        one("at least 3 and at most 4 paragraphs", five),
        Verdict::Satisfied
    );
}

/// A service whose degraded path answers `search-failed`, its log
/// recording `step`.
fn logged(condition: &str, step: &str) -> String {
    let d = run_root(&root(&format!(
        "## Ensures\n\n- `out`: at least 3 items\n- if {condition}: `out` says \"no sources were found\"\n\n## Errors\n\n- search-failed: the search tool failed"
    )));
    write(
        d.path(),
        "bindings/svc/out.md",
        "No sources were found for this topic.\n",
    );
    write(
        d.path(),
        "vm.log.md",
        &format!("# run:r svc\nroot: root.prose.md\n{step}\n---end 2026-12-01T10:15:31Z\n"),
    );
    format!("{:?}", grade_dir(d.path()))
}

#[test]
fn a_condition_negated_by_a_sign_is_not_read() {
    for condition in [
        "!search-failed",
        "~search-failed",
        "¬search-failed",
        "!(search-failed)",
    ] {
        let g = logged(condition, "1→ svc ✗ search-failed");
        assert!(
            !g.contains("the declared error path was taken"),
            "{condition}: {g}"
        );
    }
}

#[test]
fn a_failed_step_naming_a_longer_error_is_not_the_declared_one() {
    for step in [
        "1→ svc ✗ search-failed-permanently",
        "1→ svc ✗ search_failed_and_crashed",
        "1→ svc ✗ search-failed then crashed",
    ] {
        let g = logged("search-failed", step);
        assert!(
            !g.contains("the declared error path was taken") && g.contains("does not declare"),
            "{step}: {g}"
        );
    }
}

#[test]
fn a_count_with_a_bound_after_it_or_a_number_split_before_it_is_no_exact_count() {
    let three = "Heat pumps are spreading.\n\nSubsidies grew.\n\nGas prices rose.\n";
    assert_ne!(one("3 paragraphs minimum", three), Verdict::Violated);
    let words = "Heat pumps are spreading fast across Europe because subsidies grew and the price of gas rose sharply in 2022 and 2023 too.\n";
    for clause in ["at least twenty-five words", "10^2 words"] {
        assert_ne!(one(clause, words), Verdict::Violated, "{clause}");
        assert_ne!(
            one(clause, "One two three four five.\n"),
            Verdict::Satisfied,
            "{clause}"
        );
    }
}
