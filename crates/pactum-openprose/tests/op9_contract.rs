//! The ninth round: commitments of a contract that were dropped or read
//! wrongly.

mod common;
use common::*;

/// Bullets under a heading pactum does not know, after an `Ensures:`
/// label (no section heading), are read as clauses or the file is
/// refused naming a line: never dropped.
#[test]
fn bullets_under_notes_after_an_ensures_label_are_not_dropped() {
    for body in [
        "Ensures:\n\n## Notes\n\n- `out`: at least 5 items",
        "Ensures:\n## Notes\n- `out`: at least 5 items",
        "**Ensures:**\n\n## Notes\n\n- `out`: at least 5 items",
        "Ensures:\n\n- `out`: a list\n\n## Notes\n\n- `out`: at least 5 items",
        "## Ensures\n\n- `out`: a list\n\nEnsures:\n\n## Notes\n\n- `out`: at least 5 items",
        "Ensures:\n\n### Details\n\n- `out`: at least 5 items",
        "Ensures:\n\n## Notes\n\n1. `out`: at least 5 items",
    ] {
        five_items_not_dropped(body);
    }
}

/// A second file for one output whose name only looks the same — a
/// zero-width space, a soft hyphen, fullwidth or lookalike letters in
/// it — is refused like two files of one name, never ignored.
#[test]
fn one_output_two_files_that_look_alike_is_refused() {
    for b in [
        "o\u{200B}ut.md",
        "ou\u{AD}t.md",
        "\u{FF4F}\u{FF55}\u{FF54}.md",
        "\u{043E}ut.md",
        "out\u{2060}.md",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: a list"));
        write(d.path(), &format!("bindings/svc/{b}"), "- two\n");
        match pactum_openprose::import_run(d.path()) {
            Err(pactum_openprose::ImportError::RunFile { message, .. }) => {
                assert!(message.contains("bound twice"), "{b:?}: {message}");
            }
            other => panic!("{b:?}: {other:?}"),
        }
    }
}
