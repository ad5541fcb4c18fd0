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
        "**Ensures**\n\n## Notes\n\n- `out`: at least 5 items",
        "**Ensures**:\n\n## Notes\n\n- `out`: at least 5 items",
        "_Returns_\n\n- `out`: at least 5 items",
        "Ensures (outputs):\n\n## Notes\n\n- `out`: at least 5 items",
        "## Notes\n\n- Ensures:\n  - `out`: at least 5 items",
        "- **Returns:**\n  - `out`: at least 5 items",
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

/// A sentence that opens with a label naming no output (`Format:`), or
/// that points to a URL or a path in code, is a clause left to the
/// judge: never `violated` as an output not produced, never refused.
#[test]
fn labels_urls_and_paths_in_sentences_are_no_outputs() {
    for (body, sentence) in [
        (
            "## Ensures\n\n- `out`: a list\n\nFormat:\nThe output is in French.",
            "Format: The output is in French.",
        ),
        (
            "## Ensures\n\nNote:\nThe output is in French.\n\n- `out`: a list",
            "Note: The output is in French.",
        ),
        (
            "## Ensures\n\n- `out`: a list\n\nSee https://example.org/style.",
            "See https://example.org/style.",
        ),
        (
            "## Ensures\n\n- `out`: a list\n\nSee https://example.org/style for details.",
            "See https://example.org/style for details.",
        ),
        (
            "## Ensures\n\n- `out`: a list\n\nSee `docs/style.md`.",
            "See `docs/style.md`.",
        ),
    ] {
        let d = run_root(&root(body));
        let g = grade_dir(d.path());
        let texts = by_text(&g);
        assert!(
            texts
                .iter()
                .any(|(t, v)| t == sentence && *v == pactum_core::Verdict::NotEvaluable),
            "{body:?}: {texts:?}"
        );
    }
    // A name like an identifier stays an output's: not produced, violated.
    let d = run_root(&root(
        "## Ensures\n\n- `out`: a list\n\nsummary: at least 3 items.",
    ));
    let texts = by_text(&grade_dir(d.path()));
    assert!(
        texts
            .iter()
            .any(|(t, v)| t.starts_with("summary:") && *v == pactum_core::Verdict::Violated),
        "{texts:?}"
    );
    // A sentence on an output a bullet names is still that output's.
    let d = run_root(&root(
        "## Ensures\n\n- `out`: a list\n\nout: at least 5 items.",
    ));
    let texts = by_text(&grade_dir(d.path()));
    assert!(
        texts
            .iter()
            .any(|(t, v)| t.starts_with("out: at least 5") && *v == pactum_core::Verdict::Violated),
        "{texts:?}"
    );
    // A sentence naming an output in code is still refused.
    let d = run_root(&root("## Ensures\n\n- `out`: a list\n\nSee `out`."));
    assert!(matches!(
        pactum_openprose::import_run(d.path()),
        Err(pactum_openprose::ImportError::Contract { .. })
    ));
}

/// Two binding folders whose names only look different (a case, a
/// zero-width space, fullwidth letters) are refused: which holds the
/// service's outputs cannot be told.
#[test]
fn two_binding_folders_that_look_alike_are_refused() {
    for f in [
        "bindings/s\u{200B}vc/out.md",
        "bindings/SVC/out.md",
        "bindings/\u{FF53}\u{FF56}\u{FF43}/out.md",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: a list"));
        write(d.path(), f, "- two\n");
        match pactum_openprose::import_run(d.path()) {
            Err(pactum_openprose::ImportError::RunFile { message, .. }) => {
                assert!(message.contains("two binding folders"), "{f:?}: {message}");
            }
            other => panic!("{f:?}: {other:?}"),
        }
    }
}
