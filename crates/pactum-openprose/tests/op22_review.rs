//! A twenty-second review's wrong reds: a failed step's error written
//! with spaces, and two bounds or two numbers before one counted unit.

use pactum_core::{TestStatus, Verdict};

mod common;
use common::*;

#[test]
fn a_failed_steps_error_written_with_spaces_is_the_declared_error_it_opens_with() {
    for step in [
        "1→ svc ✗ Search Failed (timeout)",
        "1→ svc ✗ search failed",
        "1→ svc ✗ search failed: the tool timed out",
    ] {
        let d = run_root(&root(
            "## Ensures\n\n- `out`: at least 3 items\n- if search-failed: `out` says \"no sources were found\"\n\n## Errors\n\n- search-failed: the search tool failed\n- search-failed-twice: it failed again",
        ));
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
        let g = format!("{:?}", grade_dir(d.path()));
        assert!(
            g.contains("the declared error path was taken") && !g.contains("does not declare"),
            "{step}: {g}"
        );
    }
    // An error no declared name opens is still undeclared.
    let d = run_root(&root(
        "## Ensures\n\n- `out`: at least 3 items\n- if search-failed: `out` says \"no sources were found\"\n\n## Errors\n\n- search-failed: the search tool failed",
    ));
    write(
        d.path(),
        "bindings/svc/out.md",
        "No sources were found for this topic.\n",
    );
    write(
        d.path(),
        "vm.log.md",
        "# run:r svc\nroot: root.prose.md\n1→ svc ✗ search failedness\n---end 2026-12-01T10:15:31Z\n",
    );
    assert_ne!(grade_dir(d.path()).status, TestStatus::Pass);
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
