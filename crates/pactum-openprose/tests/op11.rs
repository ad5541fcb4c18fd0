//! The eleventh round: wrong greens the ninth hostile review found that
//! the tenth left open, each shown here before it was fixed.

use pactum_core::{NotEvaluableReason, Policy, Verdict};
use pactum_openprose::grade::grade_run;
use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

/// A second file for one output whose name differs only by white space
/// (before, inside or after the name, an ideographic space) or by a
/// repeated extension (`out.md.md`, `out..md`) is refused like two files
/// of one name, never read as another output no clause names.
#[test]
fn one_output_two_files_differing_by_spaces_or_extensions_is_refused() {
    for b in [
        "out .md",
        " out.md",
        "out\u{3000}.md",
        "out.md.md",
        "out..md",
        "o ut.md",
        "out.json.md",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(d.path(), &format!("bindings/svc/{b}"), "- two\n");
        match import_run(d.path()) {
            Err(ImportError::RunFile { message, .. }) => {
                assert!(message.contains("bound twice"), "{b:?}: {message}");
            }
            other => panic!("{b:?}: {other:?}"),
        }
    }
}

/// Binding folders whose names differ only by white space or a leading
/// dot are refused as two folders for one service; in a single-service
/// run, a folder under `bindings/` other than the service's that holds a
/// file is refused: its outputs would never be graded.
#[test]
fn binding_folders_differing_by_spaces_or_unread_are_refused() {
    for f in [
        "bindings/svc /out.md",
        "bindings/ svc/out.md",
        "bindings/.svc/out.md",
        "bindings/other/out.md",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(d.path(), f, "- two\n");
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, .. }) => {
                assert!(file.contains("bindings"), "{f:?}: {file}");
            }
            other => panic!("{f:?}: {other:?}"),
        }
    }
}

/// An unfilled template is no output: a template slot (`{{body}}`), a
/// fill-in blank or `...`/`???` after a label, or a non-answer (`not
/// specified`) never satisfies a clause, and a template slot anywhere in
/// what is shown leaves the clause to the judge.
#[test]
fn an_unfilled_template_is_no_output() {
    for binding in [
        "{{body}}\n",
        "{{ content }}\n",
        "Text: {{body}}\n",
        "Text: _______\n",
        "Text: ...\n",
        "Text: ???\n",
        "Text: not specified\n",
        "Sales of heat pumps rose.\n\n{{details}}\n",
        "**Text:** _______\n",
        "**Text:** ...\n",
        "__Text:__ ???\n",
    ] {
        never_green("a summary", binding);
    }
    // A text of its own is still a summary.
    green(&[("a summary", "Sales of heat pumps rose 10% in 2025.\n")]);
}

/// In an `each` clause, a template slot, the column's header repeated,
/// a date mask (`YYYY`) or a non-answer (`not specified`, `n.d.`,
/// `(blank)`) is no value: the field is absent.
#[test]
fn a_template_slot_or_the_header_repeated_is_no_field_value() {
    let table = |a: &str, b: &str| {
        format!("| title | year |\n|---|---|\n| Heat pump sales | 2024 |\n| {a} | {b} |\n")
    };
    for (a, b) in [
        ("{{title}}", "2025"),
        ("title", "year"),
        ("Subsidies", "YYYY"),
        ("Subsidies", "not specified"),
        ("Subsidies", "n.d."),
        ("Subsidies", "(blank)"),
        ("Subsidies", "{{ year }}"),
    ] {
        assert_eq!(
            one("each source has: title, year", &table(a, b)),
            Verdict::Violated,
            "| {a} | {b} |"
        );
    }
    assert_eq!(
        one("each source has: title, year", &table("Subsidies", "2025")),
        Verdict::Satisfied
    );
}

/// A unit that shows only an image (Markdown or `<img>`) shows
/// something: an upper or exact bound is never met over more units than
/// it allows, images among them.
#[test]
fn image_only_units_count_for_upper_bounds() {
    none_green(&[
        (
            "exactly 2 items",
            "- Daikin\n- Vaillant\n- ![Viessmann logo](viessmann.png)\n",
        ),
        (
            "at most 2 items",
            "- Daikin\n- Vaillant\n- ![Viessmann logo](viessmann.png)\n",
        ),
        (
            "at most 2 items",
            "- Daikin\n- Vaillant\n- <img src=\"v.png\" alt=\"Viessmann\">\n",
        ),
        (
            "at most 2 rows",
            "| maker |\n|---|\n| Daikin |\n| Vaillant |\n| ![Viessmann](v.png) |\n",
        ),
        (
            "at most 1 paragraphs",
            "Sales rose.\n\n![chart of sales](chart.png)\n",
        ),
        (
            "at most 1 headings",
            "# Sales\n\n# ![Outlook](outlook.png)\n",
        ),
    ]);
    // Units of text alone are counted as ever.
    green(&[("at most 2 items", "- Daikin\n- Vaillant\n")]);
}

/// A section name written as a label in any way a reader sees it —
/// without a colon, with a full stop, through a comment, a character
/// reference, HTML tags, a link, an HTML heading or `<summary>`, or as a
/// list item (a heading inside it too) — never drops the bullets after
/// it: the contract is refused naming the line.
#[test]
fn ensures_written_as_a_label_in_any_spelling_is_refused() {
    for label in [
        "Ensures",
        "Ensures\n",
        "ENSURES\n",
        "Ensures.",
        "Ensures!\n",
        "En<!-- -->sures:",
        "Ensure&#115;:",
        "<b>Ensures:</b>\n",
        "[Ensures](#x):",
        "Ensures:<br>",
        "<h2>Ensures</h2>\n",
        "<details open><summary>Ensures</summary>\n",
    ] {
        five_items_not_dropped(&format!(
            "## Ensures\n\n- `out`: a list\n\n## Notes\n\n{label}\n- `out`: at least 5 items"
        ));
    }
    for item in [
        "- **Ensures**\n  - `out`: at least 5 items",
        "- Ensures\n  - `out`: at least 5 items",
        "- ## Ensures\n  - `out`: at least 5 items",
        "1. ## Ensures\n   - `out`: at least 5 items",
        "- Ensures\n  ---\n  - `out`: at least 5 items",
    ] {
        five_items_not_dropped(&format!(
            "## Ensures\n\n- `out`: a list\n\n## Notes\n\n{item}"
        ));
    }
    // A sentence that starts with the word is no label.
    let d = run_root(&root(
        "## Ensures\n\n- `out`: a list\n\n## Notes\n\nEnsures that the list is kept short.",
    ));
    assert!(import_run(d.path()).is_ok());
}

/// A quoted word or number joined to the text beside it by any hyphen
/// (fullwidth, small, Hebrew maqaf, other Unicode dashes that join), a
/// fullwidth or Arabic digit separator, or a minus sign before it, is
/// not said as a word of its own; a negated number written with such
/// separators or in other digits is the judge's.
#[test]
fn quoted_words_joined_by_other_hyphens_or_separators_are_not_said() {
    none_green(&[
        ("saying \"safe\"", "The battery is un\u{FF0D}safe today.\n"),
        ("saying \"safe\"", "The battery is un\u{FE63}safe today.\n"),
        ("saying \"safe\"", "The battery is un\u{05BE}safe today.\n"),
        ("saying \"safe\"", "The battery is un\u{2E17}safe today.\n"),
        ("saying \"safe\"", "The battery is un\u{30A0}safe today.\n"),
        ("saying \"100\"", "It costs 1\u{FF0C}100 dollars.\n"),
        ("saying \"100\"", "It costs 1\u{FF0E}100 dollars.\n"),
        ("saying \"100\"", "It costs 1\u{066C}100 dollars.\n"),
        ("saying \"100\"", "It costs 1\u{066B}100 dollars.\n"),
        ("saying \"100\"", "The balance is -100 dollars.\n"),
        ("saying \"100\"", "The balance is \u{2212}100 dollars.\n"),
        ("not mentioning \"1100\"", "We sold 1\u{FF0C}100 units.\n"),
        ("not mentioning \"1100\"", "We sold 1\u{066C}100 units.\n"),
        (
            "not mentioning \"1100\"",
            "We sold \u{0661}\u{0661}\u{0660}\u{0660} units.\n",
        ),
    ]);
    green(&[
        ("saying \"safe\"", "The battery is safe today.\n"),
        ("saying \"100\"", "It costs 100 dollars.\n"),
        ("saying \"100\"", "It costs 100 - 120 dollars.\n"),
    ]);
}

/// A quoted text found only where Markdown shows nothing of it — a table
/// cell beyond the header's count, a fence's info string, a footnote's
/// label, a list marker after the first — is not said.
#[test]
fn a_quote_only_in_unrendered_text_is_not_said() {
    none_green(&[
        (
            "saying \"lithium-free\"",
            "| cell | note |\n|---|---|\n| Batteries | Cobalt | The cells are lithium-free |\n",
        ),
        (
            "saying \"lithium-free\"",
            "Text\n\n| a |\n|---|\n| b | lithium-free |\n",
        ),
        (
            "saying \"lithium-free\"",
            "The cells use a new chemistry.\n\n```text lithium-free\nsolid electrolyte\n```\n",
        ),
        (
            "saying \"lithium-free\"",
            "The cells use a new chemistry.[^lithium-free]\n\n[^lithium-free]: Solid electrolyte.\n",
        ),
        (
            "saying \"2024\"",
            "Timeline of the product:\n\n1. Launch\n2024. Recall\n",
        ),
    ]);
    green(&[
        (
            "saying \"lithium-free\"",
            "| cell | note |\n|---|---|\n| Batteries | The cells are lithium-free |\n",
        ),
        (
            "saying \"lithium-free\"",
            "<p>The cells are lithium-free.</p>\n",
        ),
    ]);
}

/// The judge answers satisfied for a judged clause over `binding`,
/// quoting `quote`.
fn judged(binding: &str, quote: &str) -> (Verdict, Option<NotEvaluableReason>) {
    let d = run_with(
        "## Ensures\n\n- `out`: written in French\n",
        &[("bindings/svc/out.md", binding)],
    );
    judged_run(d.path(), quote)
}

const FR: &str = "Les batteries sont prometteuses et durables";

/// A judge's quote found only where Markdown shows nothing of it — a
/// table cell beyond the header's count, a fence's info string, a
/// footnote's label — is `fabricated-evidence`.
#[test]
fn a_judge_quote_only_in_unrendered_text_backs_nothing() {
    let e = "The batteries are promising and durable.\n\n";
    // A footnote's label holds no space.
    let label = FR.replace(' ', "-");
    for (out, quote) in [
        (format!("{e}| a |\n|---|\n| b | {FR} |\n"), FR),
        (format!("{e}```text {FR}\ncode\n```\n"), FR),
        (format!("{e}See note.[^{label}]\n\n[^{label}]: x\n"), &label),
    ] {
        assert_eq!(
            judged(&out, quote),
            (
                Verdict::NotEvaluable,
                Some(NotEvaluableReason::FabricatedEvidence)
            ),
            "{out:?}"
        );
    }
    // Shown, it stands.
    let (v, _) = judged(&format!("{e}{FR}.\n"), FR);
    assert_eq!(v, Verdict::Satisfied);
}

/// A judge's quote the output only copied from its own contract (an
/// example sentence of `root.prose.md`) is `fabricated-evidence`, as one
/// copied from the caller's input is; a text a clause quotes is what was
/// asked, and stands.
#[test]
fn a_judge_quote_copied_from_the_contract_backs_nothing() {
    let q = "Les batteries sont prometteuses et durables pour le stockage domestique";
    let judge_over = |body: &str, out: &str, quote: &str| {
        let d = run_root(&root(body));
        write(d.path(), "bindings/svc/out.md", out);
        let run = import_run(d.path()).expect("imports");
        let policy = Policy::default();
        let mut judge = satisfied_quoting(&policy, 1, quote);
        let g = grade_run(&run, &policy, &mut judge);
        let c = &g.contracts[0].clauses[0];
        (c.verdict, c.reason)
    };
    assert_eq!(
        judge_over(
            &format!(
                "Example of the tone wanted: \"{q}\".\n\n## Ensures\n\n- `out`: written in French"
            ),
            &format!("The batteries are promising.\n\n{q}\n"),
            q,
        ),
        (
            Verdict::NotEvaluable,
            Some(NotEvaluableReason::FabricatedEvidence)
        )
    );
    // Written by the service, it stands.
    let (v, _) = judge_over(
        "## Ensures\n\n- `out`: written in French",
        &format!("The batteries are promising.\n\n{q}\n"),
        q,
    );
    assert_eq!(v, Verdict::Satisfied);
    // A text a judged clause quotes is what was asked.
    let (v, _) = judge_over(
        &format!("## Ensures\n\n- `out`: written in French, ending \"{q}\""),
        &format!("Les batteries vont bien.\n\n{q}\n"),
        q,
    );
    assert_eq!(v, Verdict::Satisfied);
}

/// A bullet naming an output of the contract in a section that holds no
/// clause (`## Output details`, `## Appendix`, the one a pointer note in
/// `Ensures` points to) is refused naming its line: it reads as a
/// commitment on that output, and would never be graded.
#[test]
fn a_bullet_naming_an_output_outside_the_clauses_is_refused() {
    for (note, section) in [
        ("The outputs are described below.", "Output details"),
        ("See below.", "Details"),
        ("Refer to the appendix.", "Appendix"),
        ("", "Notes"),
    ] {
        for bullet in ["- `out`: at least 5 items", "- **out**: at least 5 items"] {
            let body =
                format!("## Ensures\n\n- `out`: a list\n\n{note}\n\n## {section}\n\n{bullet}");
            five_items_not_dropped(&body);
            let d = run_root(&root(&body));
            assert!(
                matches!(import_run(d.path()), Err(ImportError::Contract { .. })),
                "{body}"
            );
        }
    }
    // A bullet naming no output of the contract is a note of its own.
    let d = run_root(&root(
        "## Ensures\n\n- `out`: a list\n\n## Notes\n\n- `style`: plain English",
    ));
    assert!(import_run(d.path()).is_ok());
}

/// A host under a top-level domain that does not exist (or one a browser
/// cannot reach, `.onion`) is no source for a lower bound; hosts under
/// real ones, IDN ones too, are.
#[test]
fn hosts_under_no_real_top_level_domain_are_no_sources() {
    let three = |host: &str| {
        format!("- [a](https://a.{host}/x)\n- [b](https://b.{host}/y)\n- [c](https://c.{host}/z)\n")
    };
    none_green(&[
        ("at least 3 sources", &three("zzzzznotatld")),
        ("at least 3 sources", &three("onion")),
    ]);
    green(&[
        ("at least 3 sources", &three("org")),
        ("at least 3 sources", &three("co.uk")),
        ("at least 3 sources", &three("\u{440}\u{444}")),
        ("at least 3 sources", &three("xn--p1ai")),
        ("at least 3 sources", &three("ORG")),
    ]);
}

/// A bullet outside the sections of clauses that opens with an output's
/// name however it is parted from the rest (a dash, nothing, a line
/// break) is refused too.
#[test]
fn a_bullet_opening_with_an_output_name_outside_the_clauses_is_refused() {
    for bullet in [
        "- `out` — at least 5 items",
        "- out - at least 5 items",
        "- `out`\n  at least 5 items",
        "- **out** at least 5 items",
        "- `out` (markdown) – at least 5 items",
        "| output | requirement |\n|---|---|\n| `out` | at least 5 items |",
        "| output | requirement |\n|---|---|\n| out | at least 5 items |",
    ] {
        let body = format!("## Ensures\n\n- `out`: a list\n\n## Notes\n\n{bullet}");
        let d = run_root(&root(&body));
        assert!(
            matches!(import_run(d.path()), Err(ImportError::Contract { .. })),
            "{body}"
        );
    }
    // A word that is not the output's name is no such bullet.
    let d = run_root(&root(
        "## Ensures\n\n- `out`: a list\n\n## Notes\n\n- outline - a sketch first",
    ));
    assert!(import_run(d.path()).is_ok());
}

/// A file named like an output in a folder below the output's folder
/// (`bindings/svc/sub/out.md`, a hidden `.old/` too) is refused as the
/// output bound twice, in a system too; in a single-service run any
/// folder there that holds something is refused (nothing in it is read).
#[test]
fn an_output_named_again_in_a_folder_below_is_refused() {
    for f in [
        "bindings/svc/sub/out.md",
        "bindings/svc/.old/out.md",
        "bindings/svc/sub/notes.md",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(d.path(), f, "- two\n");
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, .. }) => {
                assert!(file.contains("bindings"), "{f:?}: {file}");
            }
            other => panic!("{f:?}: {other:?}"),
        }
    }
    let d = tempfile::tempdir().expect("tempdir");
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
    copy_dir(&example, d.path());
    assert!(import_run(d.path()).is_ok());
    write(
        d.path(),
        "bindings/analyst/sub/players.md",
        "| a | b |\n|---|---|\n| x | y |\n",
    );
    match import_run(d.path()) {
        Err(ImportError::RunFile { message, .. }) => {
            assert!(message.contains("bound twice"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// What a pointer note in a section of clauses points to below it is
/// never dropped when it names an output: a sentence on the output
/// there, a label line, a quoted bullet, is refused naming its line.
#[test]
fn a_pointer_note_to_text_naming_an_output_below_is_refused() {
    for (note, text) in [
        ("See below.", "`out`: at least 5 items."),
        ("See below.", "**out**: at least 5 items."),
        ("See below.", "The `out` output has at least 5 items."),
        (
            "The outputs are described below.",
            "> - `out`: at least 5 items",
        ),
        (
            "Refer to the appendix.",
            "The *out* list has at least 5 items.",
        ),
        ("See below.", "The out list has at least 5 items."),
        (
            "See the following section.",
            "- The out list has at least 5 items.",
        ),
    ] {
        let body = format!("## Ensures\n\n- `out`: a list\n\n{note}\n\n## Details\n\n{text}");
        let d = run_root(&root(&body));
        assert!(
            matches!(import_run(d.path()), Err(ImportError::Contract { .. })),
            "{body}"
        );
    }
    // Without a note pointing below, prose naming an output elsewhere is
    // a description.
    let d = run_root(&root(
        "The service writes `out` as a list.\n\n## Ensures\n\n- `out`: a list\n\n## Details\n\nThe `out` output is written last.",
    ));
    assert!(import_run(d.path()).is_ok());
}

/// A run whose log ends `---error` naming a declared error is never a
/// pass, even when every ordinary clause is on the output the degraded
/// path answers for: the clause does not stand aside for the
/// conditional, the run did not end. In a system too (the ninth review's
/// system variant: every node `✓`, the brief holding the degraded note).
#[test]
fn a_run_ending_in_a_declared_error_is_never_a_pass_whatever_stands_aside() {
    let d = run_root(&root(
        "## Ensures\n\n- `out`: at least 3 items\n- if search-failed: `out` says \"no sources\"\n\n## Errors\n\n- search-failed: the search tool failed",
    ));
    write(d.path(), "bindings/svc/out.md", "no sources\n");
    write(
        d.path(),
        "vm.log.md",
        "# run:r1 svc\nroot: root.prose.md\n1→ svc ✓\n---error 2026-12-01T10:15:31Z search-failed: then the VM crashed\n",
    );
    let g = grade_dir(d.path());
    assert_ne!(g.status, pactum_core::TestStatus::Pass, "{g:#?}");

    let d = tempfile::tempdir().expect("tempdir");
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
    copy_dir(&example, d.path());
    let log = std::fs::read_to_string(d.path().join("vm.log.md")).expect("log");
    let log: String = log
        .lines()
        .map(|l| {
            if l.starts_with("---end") {
                "---error 2026-12-01T09:16:40Z research-failed: the VM ran out of budget, run aborted"
                    .to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    write(d.path(), "vm.log.md", &format!("{log}\n"));
    let brief = std::fs::read_to_string(d.path().join("bindings/analyst/brief.md")).expect("brief");
    write(
        d.path(),
        "bindings/analyst/brief.md",
        &format!("{brief}\nNo sources were found for the last quarter.\n"),
    );
    let g = grade_dir(d.path());
    assert_ne!(g.status, pactum_core::TestStatus::Pass, "{g:#?}");
    assert_ne!(
        g.overall_verdict,
        Some(pactum_core::score::OverallVerdict::Satisfied),
        "{g:#?}"
    );
}
