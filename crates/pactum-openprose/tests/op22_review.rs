//! The twenty-second and twenty-third reviews' findings on errors,
//! conditions and counts: a failed step's error read whole before its
//! message, a condition negated by a sign, and counts that are no exact
//! count (two bounds, a split number, a bound after the unit).

use pactum_core::Verdict;
use pactum_openprose::import_run;

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

#[test]
fn a_sub_bullet_labelled_with_another_output_in_plain_words_is_a_clause_on_it() {
    let report = "Heat pumps are spreading fast across Europe because subsidies grew. ".repeat(8);
    for sub in [
        "  - summary: at least 90 words",
        "  - summary (markdown): at least 90 words",
        "  - Summary — at least 90 words",
    ] {
        let d = run_with(
            &format!(
                "## Ensures\n\n- `report`: at least 10 words\n{sub}\n- `summary`: a short note\n"
            ),
            &[
                ("bindings/svc/report.md", report.as_str()),
                ("bindings/svc/summary.md", "No sources were found.\n"),
            ],
        );
        let g = grade_dir(d.path());
        assert_ne!(g.status, pactum_core::TestStatus::Pass, "{sub}: {g:#?}");
    }
}

#[test]
fn a_second_failure_in_an_error_file_in_other_words_is_refused() {
    for line in [
        "# Fatal: crashed",
        "# Traceback (most recent call last):",
        "FATAL: crashed",
        "panic: crashed",
        "RuntimeError: crashed",
        "thread 'main' panicked at src/main.rs:1:1",
    ] {
        let d = degraded(&format!(
            "# Error: search-failed\n\nThe search failed.\n\n{line}\n"
        ));
        assert!(import_run(d.path()).is_err(), "{line}");
    }
}

#[test]
fn an_output_flagged_as_failed_or_unfinished_backs_no_green() {
    for flag in [
        r#""failed": true"#,
        r#""is_error": true"#,
        r#""exit_code": 1"#,
        r#""error_count": 3"#,
        r#""complete": false"#,
        r#""truncated": true"#,
    ] {
        let json = format!(
            r#"{{"summary": "Heat pumps are spreading fast across Europe because subsidies grew and gas prices rose sharply in 2022.", {flag}}}"#
        );
        assert_ne!(
            one_at("at least 10 words", "bindings/svc/summary.json", &json),
            Verdict::Satisfied,
            "{flag}"
        );
    }
}

#[test]
fn a_bound_written_after_a_count_in_other_words_is_no_exact_count() {
    let words = "Heat pumps are spreading fast across Europe because subsidies grew and the price of gas rose sharply in 2022.\n";
    for clause in [
        "10 words at minimum",
        "10 words, minimum",
        "10 words (minimum)",
        "10 words at the least",
    ] {
        assert_ne!(one(clause, words), Verdict::Violated, "{clause}");
    }
}
