//! Contract and run-record cases of the sixth hostile review: clauses a
//! reader sees are graded (never dropped), text a reader does not see as
//! a commitment is not graded, every recorded error is read, and reading
//! a large contract stays linear.

use pactum_core::Verdict;
use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

/// A heading inside a clause's list item belongs to that item: it ends
/// no section, and the bullets after it are still clauses.
#[test]
fn a_heading_inside_a_list_item_ends_no_section() {
    for body in [
        "## Ensures\n\n- `out`: at least 2 items\n  ## Notes\n- `out`: at least 5 items",
        "## Ensures\n\n- `out`: at least 2 items\n\n  ## Notes\n\n- `out`: at least 5 items",
        "## Ensures\n\n1. `out`: at least 2 items\n   ### Notes\n2. `out`: at least 5 items",
        "## Ensures\n\n- `out`: at least 2 items\n  ## at least 5 items",
    ] {
        five_items_not_dropped(body);
    }
    // The clause after the nested heading is read, not refused.
    let d = run_root(&root(
        "## Ensures\n\n- `out`: at least 2 items\n  ## Notes\n- `out`: at least 5 items",
    ));
    let g = grade_dir(d.path());
    assert_eq!(by_text(&g).len(), 2, "{g:#?}");
}

/// A heading a reader reads as naming a commitment section is that
/// section, or the contract is refused: its clauses are never dropped.
#[test]
fn a_heading_naming_a_commitment_section_is_read_or_refused() {
    for heading in [
        "## ✅ Ensures",
        "## Ꭼnsures",
        "## ᎬNSURES",
        "## Part 2: Ensures",
        "## More ensures",
        "## Also ensures",
        "## E n s u r e s",
        "## 🔒 Maintains",
        "## What it returns",
    ] {
        five_items_not_dropped(&format!(
            "## Ensures\n\n- `out`: at least 2 items\n\n{heading}\n\n- `out`: at least 5 items"
        ));
    }
    // A symbol before the name is a decoration: the section is read.
    let d = run_root(&root("## ✅ Ensures\n\n- `out`: at least 5 items"));
    let g = grade_dir(d.path());
    assert_eq!(
        by_text(&g),
        vec![("`out`: at least 5 items".to_string(), Verdict::Violated)]
    );
}

/// A sentence ending in `:` that introduces no list is a sentence like
/// any other (a clause), and one stating a commitment is one even when a
/// list follows.
#[test]
fn a_sentence_ending_in_a_colon_is_not_dropped() {
    for line in [
        "The **out** must hold at least 5 items:",
        "out must hold at least 5 items:",
        "The out must hold at least 5 items:\n\nMore text here.",
        "The **out** must hold at least 5 items:\n\n- `out`: at least 2 items",
    ] {
        five_items_not_dropped(&format!(
            "## Ensures\n\n- `out`: at least 2 items\n\n{line}"
        ));
    }
    // A lead-in before a list is no clause.
    let d = run_root(&root(
        "## Ensures\n\nThe service guarantees:\n\n- `out`: at least 2 items",
    ));
    let g = grade_dir(d.path());
    assert_eq!(
        by_text(&g),
        vec![("`out`: at least 2 items".to_string(), Verdict::Satisfied)]
    );
}

/// What a renderer does not show of a contract — a commented-out clause,
/// `<details>`/`<summary>` lines — is not graded; a comment left open
/// hides only what CommonMark hides.
#[test]
fn commented_out_clauses_are_not_graded() {
    let one = vec![("`out`: at least 2 items".to_string(), Verdict::Satisfied)];
    for body in [
        "## Ensures\n\n- `out`: at least 2 items\n\n<!--\n- `out`: at least 5 items\n-->",
        "## Ensures\n\n- `out`: at least 2 items\n<!-- - `out`: at least 5 items -->",
        "## Ensures\n\n- `out`: at least 2 items\n\n<!-- - `out`: at least 5 items -->\n\n## Errors\n\n- boom: it broke",
        "## Ensures\n\n<!-- a note -->\n- `out`: at least 2 items",
        "## Ensures\n\n- `out`: at least 2 items <!-- at least 5 items -->",
        "## Ensures\n\n<!--\n```\n-->\n\n- `out`: at least 2 items\n\n<!--\n```\n-->",
    ] {
        let d = run_root(&root(body));
        let g = grade_dir(d.path());
        assert_eq!(by_text(&g), one, "{body}");
    }
    let d = run_root(&root(
        "## Ensures\n\n<details>\n<summary>more</summary>\n\n- `out`: at least 2 items\n\n</details>",
    ));
    let g = grade_dir(d.path());
    assert_eq!(by_text(&g), one, "{g:#?}");
}

/// A `<summary>` label that may state a commitment is read, never hidden.
#[test]
fn a_summary_label_stating_a_measure_is_read() {
    five_items_not_dropped(
        "## Ensures\n\n- `out`: at least 2 items\n\n<details>\n<summary>`out`: at least 5 items</summary>\n\n</details>",
    );
}

/// A comment that a renderer ends early, or never opens, hides nothing.
#[test]
fn a_comment_hides_only_what_a_renderer_hides() {
    for body in [
        // An empty comment is closed at once.
        "## Ensures\n\n- `out`: at least 2 items\n\n<!-->\n\n- `out`: at least 5 items",
        // A comment block in a list item ends with the item.
        "## Ensures\n\n1. `out`: at least 2 items\n   <!--\n2. `out`: at least 5 items\n-->",
        // An inline comment never spans blocks.
        "## Ensures\n\n- `out`: at least 2 items <!--\n\n- `out`: at least 5 items\n\n-->",
        // Never closed: an HTML block runs to the end.
        "## Ensures\n\n- `out`: at least 5 items\n\n<!-- unfinished",
    ] {
        five_items_not_dropped(body);
    }
}

/// A sentence of Ensures that states nothing — names no output, has no
/// commitment word or measure — is a note, not a clause to judge; one
/// that may be a commitment stays a clause.
#[test]
fn an_explanatory_sentence_is_no_clause() {
    let one = vec![("`out`: at least 2 items".to_string(), Verdict::Satisfied)];
    for body in [
        "## Ensures\n\nThe outputs are described below.\n\n- `out`: at least 2 items",
        "## Ensures\n\n- `out`: at least 2 items\n\nSee the README for details.",
    ] {
        let d = run_root(&root(body));
        let g = grade_dir(d.path());
        assert_eq!(by_text(&g), one, "{body}");
    }
    for sentence in [
        "It must hold at least 5 items.",
        "The list is sorted.",
        "Each item has a source.",
        "Out holds at least 5 items.",
        "Never more than 3 items.",
        "No item repeats.",
    ] {
        let d = run_root(&root(&format!(
            "## Ensures\n\n- `out`: at least 2 items\n\n{sentence}"
        )));
        let g = grade_dir(d.path());
        assert_eq!(by_text(&g).len(), 2, "{sentence}: {g:#?}");
    }
}

/// Many clauses, and one clause with many sub-bullets, are read and
/// graded in time linear in their number (the test runner's timeout is
/// the guard; quadratic work here takes minutes).
#[test]
fn many_clauses_are_linear() {
    let mut body = String::from("## Ensures\n\n");
    for i in 0..5000 {
        body.push_str(&format!("- `out`: at most 3 items w{i}\n"));
    }
    let d = run_root(&root(&body));
    let g = grade_dir(d.path());
    assert_eq!(by_text(&g).len(), 5000);

    let mut body = String::from("## Ensures\n\n- `out`: a summary\n");
    for i in 0..20000 {
        body.push_str(&format!("  - x{i}\n"));
    }
    let d = run_root(&root(&body));
    let g = grade_dir(d.path());
    assert_eq!(by_text(&g).len(), 1);
}

/// Every `# Error:` line of an error file is an error: an undeclared one
/// after a declared one is never dropped.
#[test]
fn every_error_line_of_an_error_file_is_read() {
    for error in [
        "# Error: search-failed\n# Error: crashed\nsegfault\n",
        "# Error: search-failed\n\n# Error: out-of-memory\n",
        "# Error: search-failed\n## Error: crashed\n",
    ] {
        second_error_counts(error);
    }
    // One declared error: the degraded path holds.
    let d = degraded("# Error: search-failed\ntimeout\n");
    let g = grade_dir(d.path());
    assert!(
        by_text(&g).iter().all(|(_, v)| *v != Verdict::Violated),
        "{g:#?}"
    );
}

/// An `__error.md` no rule attributes to a service is refused, never
/// ignored.
#[test]
fn an_error_file_outside_a_workspace_is_refused() {
    for at in [
        "__error.md",
        "bindings/__error.md",
        "bindings/svc/sub/__error.md",
        "sources/__error.md",
        "bindings/svc/__ERROR.md",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(d.path(), at, "# Error: crashed\nboom\n");
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, .. }) => assert!(file.contains("__"), "{at}: {file}"),
            other => panic!("{at}: {other:?}"),
        }
    }
}

/// An end line with anything after its time is no clean end.
#[test]
fn an_end_line_with_more_after_its_time_is_refused() {
    for end in [
        "---end 2026-12-01T10:15:31Z run aborted: budget exceeded",
        "---end 2026-12-01T10:15:31Z ✗ crashed",
        "---end 2026-12-01T10:15:31Z ---error 2026 aborted",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(
            d.path(),
            "vm.log.md",
            &format!("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n{end}\n"),
        );
        match import_run(d.path()) {
            Err(ImportError::RunFile { line, .. }) => assert_eq!(line, 4, "{end}"),
            other => panic!("{end}: {other:?}"),
        }
    }
    // Trailing white space after the time is still a clean end.
    let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
    write(
        d.path(),
        "vm.log.md",
        "# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end 2026-12-01T10:15:31Z  \n",
    );
    assert!(import_run(d.path()).is_ok());
}
