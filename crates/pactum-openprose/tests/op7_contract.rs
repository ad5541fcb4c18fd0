//! Contract and run-record cases of the seventh hostile review: a prose
//! commitment is never taken for a note, text a renderer shows in a
//! section of clauses is read or refused, a heading's decoration does not
//! refuse the run, one output has one file, and every recorded error is
//! read.

use pactum_core::Verdict;
use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

/// A prose sentence that points elsewhere but says more than the pointer
/// is a clause (here left to a judge), never a dropped note; so are a
/// lead-in line that is more than a few generic words and a `<summary>`
/// label that says anything.
#[test]
fn a_sentence_with_a_pointer_word_is_still_a_clause() {
    for body in [
        "## Ensures\n\n- `out`: at least 2 items\n\nProvides a French translation too, described in the README.",
        "## Ensures\n\n- `out`: at least 2 items\n\nWritten in formal French; see the style guide.",
        "## Ensures\n\n- `out`: at least 2 items\n\nTranslation into French and German follows the glossary in the docs.",
        "## Ensures\n\n- `out`: at least 2 items\n\n## Maintains\n\n### Tone\n\nPolite and formal towards customers; see the style guide.",
        "## Ensures\n\n- `out`: at least 2 items\n\nThe service writes one output, described below.",
        "## Ensures\n\n- `out`: at least 2 items\n\nSee that it is in French.",
        "## Ensures\n\n- `out`: at least 2 items\n\nSee the README and write in French.",
        "## Ensures\n\nEverything below is written in French:\n\n- `out`: at least 2 items",
        "## Ensures\n\n- `out`: at least 2 items\n\n<details><summary>Written in French</summary></details>",
    ] {
        let d = run_root(&root(body));
        let g = grade_dir(d.path());
        let clauses = by_text(&g);
        assert_eq!(clauses.len(), 2, "{body}: {clauses:#?}");
        assert!(
            clauses.iter().any(|(_, v)| *v != Verdict::Satisfied),
            "{body}: {clauses:#?}"
        );
    }
}

/// A pure pointer, a generic lead-in and a generic disclosure label are
/// no clauses.
#[test]
fn a_pure_pointer_is_a_note() {
    let one = vec![("`out`: at least 2 items".to_string(), Verdict::Satisfied)];
    for body in [
        "## Ensures\n\n- `out`: at least 2 items\n\nSee the README for details.",
        "## Ensures\n\n- `out`: at least 2 items\n\nRefer to the README.",
        "## Ensures\n\n- `out`: at least 2 items\n\nFor more details, see the README.",
        "## Ensures\n\nThe outputs are described below.\n\n- `out`: at least 2 items",
        "## Ensures\n\nThe service guarantees:\n\n- `out`: at least 2 items",
        "## Ensures\n\n<details>\n<summary>More</summary>\n\n- `out`: at least 2 items\n\n</details>",
    ] {
        let d = run_root(&root(body));
        let g = grade_dir(d.path());
        assert_eq!(by_text(&g), one, "{body}");
    }
}

/// A paragraph that renders after a fence opened inside a bullet (the
/// fence ends with the item) is read or refused, never dropped.
#[test]
fn a_paragraph_after_a_fence_in_an_item_is_not_dropped() {
    for body in [
        "## Ensures\n\n- `out`: at least 2 items\n  ```text\n  - one\nThe **out** must hold at least 5 items.\n```",
        "## Ensures\n\n- `out`: at least 2 items\n  ~~~\n  x\n\nIt must hold at least 5 items.\n~~~",
    ] {
        five_items_not_dropped(body);
    }
}

/// An empty comment (`<!-->`, `<!--->`) ends at once: the text after it
/// on its line is shown, so it is read or refused.
#[test]
fn text_after_an_empty_comment_is_not_dropped() {
    for body in [
        "## Ensures\n\n- `out`: at least 2 items\n\n<!--> - `out`: at least 5 items",
        "## Ensures\n\n- `out`: at least 2 items\n\n<!---> The `out` must hold at least 5 items.",
    ] {
        five_items_not_dropped(body);
    }
}

/// Trailing punctuation, or a note after a spaced dash, decorates a
/// section name: the section is read.
#[test]
fn a_decorated_section_heading_is_read() {
    for heading in [
        "## Ensures.",
        "## Ensures!",
        "## Ensures:",
        "## Ensures — outputs",
        "## Ensures - outputs",
    ] {
        let d = run_root(&root(&format!("{heading}\n\n- `out`: at least 5 items")));
        let g = grade_dir(d.path());
        assert_eq!(
            by_text(&g),
            vec![("`out`: at least 5 items".to_string(), Verdict::Violated)],
            "{heading}"
        );
    }
}

/// Two files that could each bind one output — two extensions, two
/// cases, two normal forms — are refused, naming both.
#[test]
fn one_output_two_files_is_refused() {
    for (a, b) in [
        ("out.md", "out.txt"),
        ("out.md", "out.MD"),
        ("out.md", "out.markdown"),
        ("out.json", "out.JSON"),
        ("out.csv", "out.txt"),
        ("r\u{e9}sum\u{e9}.md", "re\u{301}sume\u{301}.md"),
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        std::fs::remove_file(d.path().join("bindings/svc/out.md")).expect("rm");
        write(d.path(), &format!("bindings/svc/{a}"), "- one\n");
        write(d.path(), &format!("bindings/svc/{b}"), "- two\n");
        match import_run(d.path()) {
            Err(ImportError::RunFile { message, .. }) => {
                assert!(message.contains("bound twice"), "{a} {b}: {message}");
            }
            other => panic!("{a} {b}: {other:?}"),
        }
    }
}

/// An `Error:` heading in a quote or a list item of an error file is an
/// error too; a log line of no known form is refused.
#[test]
fn errors_in_quotes_lists_and_free_log_lines_are_read() {
    for error in [
        "# Error: search-failed\n\n> # Error: crashed\n",
        "# Error: search-failed\n\n- # Error: crashed\n",
        "# Error: search-failed\n\n1. ## Error: crashed\n",
    ] {
        second_error_counts(error);
    }
    let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
    write(
        d.path(),
        "vm.log.md",
        "# run:r svc\nroot: root.prose.md\n1→ svc ✓\nERROR: svc crashed, output incomplete\n---end 2026-12-01T10:15:31Z\n",
    );
    match import_run(d.path()) {
        Err(ImportError::RunFile { line, .. }) => assert_eq!(line, 4),
        other => panic!("{other:?}"),
    }
}

/// The list after a lead-in that is a clause of its own holds clauses of
/// their own, however indented: none is folded into the lead-in's text.
#[test]
fn a_list_after_a_lead_in_clause_keeps_its_clauses() {
    for body in [
        "## Ensures\n\nEverything below is written in French:\n  - `out`: at least 5 items",
        "## Ensures\n\nEverything below is written in French:\n  - out: at least 5 items",
        "## Ensures\n\nEverything below is written in French:\n\n  - out: at least 5 items",
    ] {
        let d = run_root(&root(body));
        let g = grade_dir(d.path());
        let clauses = by_text(&g);
        assert!(
            clauses
                .iter()
                .any(|(t, v)| t.ends_with("at least 5 items") && *v == Verdict::Violated),
            "{body}: {clauses:#?}"
        );
    }
}
