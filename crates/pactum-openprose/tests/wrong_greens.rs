//! Each case here is a wrong green a hostile review found: a clause shown
//! as satisfied that was not kept. Each must now be violated, left to the
//! judge (`not_evaluable` without one), or refused — never satisfied.

use pactum_core::{Policy, Verdict};
use pactum_openprose::grade::{grade_run, no_judge, RunGrade};
use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

fn verdicts(g: &RunGrade) -> Vec<Verdict> {
    g.contracts
        .iter()
        .flat_map(|c| c.clauses.iter().map(|r| r.verdict))
        .collect()
}

/// Commitment headings in every spelling are read: their clauses are
/// graded (here each is violated, its output missing), never dropped.
#[test]
fn commitment_heading_variants_are_read() {
    for heading in [
        "## **Ensures**",
        "## `Ensures`",
        "## 2. Ensures",
        "## Ensure",
        "## __Ensures__",
        "   ## Ensures",
        "Ensures\n-------",
        "Ensures\n=======",
    ] {
        let d = run_with(
            &format!("{heading}\n\n- `missing`: a summary\n"),
            &[("bindings/svc/other.md", "Some text.\n")],
        );
        let g = grade_dir(d.path());
        assert_eq!(verdicts(&g), vec![Verdict::Violated], "{heading:?}: {g:#?}");
    }
}

/// A heading that looks like a commitment section but is none pactum
/// knows is refused naming file and line, its clauses never dropped.
#[test]
fn an_unknown_commitment_like_heading_is_refused() {
    for heading in [
        "## **Ensures and more**",
        "## 3. Returns of the day",
        "Ensured things\n---",
    ] {
        let d = run_with(
            &format!("{heading}\n\n- `missing`: a summary\n"),
            &[("bindings/svc/other.md", "Some text.\n")],
        );
        match import_run(d.path()) {
            Err(ImportError::Contract { line, .. }) => assert!(line > 0, "{heading:?}"),
            other => panic!("{heading:?}: {other:?}"),
        }
    }
}

/// An output named with emphasis is that output, never measured on
/// another binding.
#[test]
fn an_emphasised_output_name_is_the_output() {
    for bullet in [
        "- **missing**: a summary",
        "- *missing*: a summary",
        "- _missing_: a summary",
    ] {
        let d = run_with(
            &format!("## Ensures\n\n{bullet}\n"),
            &[("bindings/svc/other.md", "Some text.\n")],
        );
        let g = grade_dir(d.path());
        assert_eq!(verdicts(&g), vec![Verdict::Violated], "{bullet:?}: {g:#?}");
    }
}

const FIVE: &str = "- oak\n- pine\n- elm\n- ash\n- yew\n";

/// Comparison words before a count are read right, or not at all.
#[test]
fn comparisons_before_counts() {
    // Five items: each of these asks for something five items do not meet.
    for clause in [
        "> 5 items",
        "more than 5 items",
        "< 5 items",
        "fewer than 5 items",
        "less than 5 items",
        "max 4 items",
        "maximum 4 items",
        "<= 4 items",
        "≤ 4 items",
        ">= 6 items",
        "≥ 6 items",
        "min 6 items",
        "minimum 6 items",
        "up to 4 items",
        "4 or fewer items",
        "over 5 items",
        "under 5 items",
    ] {
        never_green(clause, FIVE);
    }
    // And these are met by five items, measured exactly.
    for clause in [
        "> 4 items",
        ">= 5 items",
        "≤ 5 items",
        "max 5 items",
        "min 5 items",
        "< 6 items",
        "more than 4 items",
        "fewer than 6 items",
    ] {
        assert_eq!(one(clause, FIVE), kept(clause), "{clause}");
    }
}

/// "or" between counts is a choice, never read as "and"; a reversed
/// range is not read.
#[test]
fn alternatives_and_reversed_ranges() {
    // "3 items or 9 words": an "and" reading would need both; any reading
    // that is not a choice is wrong, so it goes to the judge.
    for clause in [
        "one or two paragraphs",
        "3 items or 2 paragraphs",
        "at least 9 items or at least 2 paragraphs",
        "a table or a numbered list",
    ] {
        assert_eq!(one(clause, FIVE), Verdict::NotEvaluable, "{clause}");
    }
    for clause in ["5-3 items", "between 9 and 2 items", "6 to 4 items"] {
        never_green(clause, FIVE);
        assert_eq!(one(clause, FIVE), Verdict::NotEvaluable, "{clause}");
    }
}

/// A measure per item is measured per item or not at all.
#[test]
fn per_item_measures() {
    let short =
        "- Source one https://a.net\n- Source two https://b.net\n- Source three https://c.net\n";
    never_green("3 sources, each source has at least 20 words", short);
    never_green("each source has at least 20 words", short);
    let paras = "Alpha beta.\n\nGamma delta.\n\nEpsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho.\n";
    never_green("3 paragraphs, each at least 10 words", paras);
    never_green("3 paragraphs of at least 10 words each", paras);
    never_green("at least 10 words per paragraph", paras);
}

/// "a list", "an array", "an object" are measured, never filler.
#[test]
fn list_array_object_are_measured() {
    assert_eq!(one("a list", "Just a sentence.\n"), Verdict::Violated);
    only_shape_held("a list", FIVE);
    assert_eq!(one("an array", "Just a sentence.\n"), Verdict::Violated);
    only_shape_held("an array", "[1, 2]\n");
    assert_eq!(one("an object", "Just a sentence.\n"), Verdict::Violated);
    only_shape_held("an object", "{\"a\": 1}\n");
    assert_eq!(one("not a list", FIVE), Verdict::Violated);
}

/// Outputs that render as nothing, or only a placeholder, were not
/// produced.
#[test]
fn outputs_that_render_as_nothing() {
    for binding in [
        "&nbsp;\n",
        "<br>\n",
        "<br/>\n\n<br />\n",
        "-\n",
        "#\n",
        "```\n```\n",
        "TODO\n",
        "TBD\n",
        "# Summary\n\nTODO\n",
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n",
        "&#160;\n",
        "\u{200b}\n",
        "* * *\n",
        "> \n",
    ] {
        assert_eq!(one("a summary", binding), Verdict::Violated, "{binding:?}");
    }
    // An empty JSON value may be the answer: never satisfied, but for the
    // judge rather than "not produced".
    for binding in ["null\n", "{}\n", "[]\n", "\"\"\n"] {
        assert_eq!(
            one("a summary", binding),
            Verdict::NotEvaluable,
            "{binding:?}"
        );
    }
}

/// `each X has:` counts a value that renders as nothing as absent.
#[test]
fn each_has_blank_values_fail() {
    for binding in [
        "- title: A, url: https://a.net\n- title: &nbsp;, url: https://b.net\n",
        "- title: A, url: https://a.net\n- title: TODO, url: https://b.net\n",
        "- title: A, url: https://a.net\n- title: -, url: https://b.net\n",
        "[{\"title\": \"A\", \"url\": \"https://a.net\"}, {\"title\": \"&nbsp;\", \"url\": \"https://b.net\"}]\n",
        "[{\"title\": \"A\", \"url\": \"https://a.net\"}, {\"title\": \"TBD\", \"url\": \"https://b.net\"}]\n",
        "| title | url |\n|---|---|\n| A | https://a.net |\n| <br> | https://b.net |\n",
    ] {
        assert_eq!(one("each source has: title, url", binding), Verdict::Violated, "{binding:?}");
    }
}

/// Bare CR line endings are line endings.
#[test]
fn bare_cr_is_a_line_break() {
    let cr = "# Heading\r\rSome text.\r";
    assert_eq!(one("a summary without headings", cr), Verdict::Violated);
    assert_eq!(
        one("at most 2 words", "one\rtwo\rthree\r"),
        Verdict::Violated
    );
    assert_eq!(
        one("at most 2 items", "- oak\r- pine\r- elm\r"),
        Verdict::Violated
    );
}

/// Negated formats see every way the format renders.
#[test]
fn negated_formats_see_every_rendering() {
    for binding in [
        "Title\n=====\n\nText.\n",
        "Title\n-----\n\nText.\n",
        "<h1>Title</h1>\n\nText.\n",
        "<H2 class=\"x\">Title</H2>\n",
    ] {
        assert_eq!(
            one("a summary without headings", binding),
            Verdict::Violated,
            "{binding:?}"
        );
    }
    for binding in [
        "<table><tr><td>a</td></tr></table>\n",
        "a | b\n--- | ---\n1 | 2\n",
        "<TABLE>\n<tr><th>x</th></tr>\n</TABLE>\n",
    ] {
        assert_eq!(
            one("a summary with no table", binding),
            Verdict::Violated,
            "{binding:?}"
        );
    }
    let ul = "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n";
    let ol = "<OL start=\"2\"><li>a</li></OL>\n";
    assert_eq!(one("a summary that is not a list", ul), Verdict::Violated);
    assert_eq!(one("a summary that is not a list", ol), Verdict::Violated);
    assert_eq!(
        one("a summary that is not a bulleted list", ul),
        Verdict::Violated
    );
    assert_eq!(
        one("a summary that is not a numbered list", ol),
        Verdict::Violated
    );
    for binding in [
        "It uses bat\u{ad}teries.\n",
        "It uses batt&shy;eries.\n",
        "It uses &#98;atteries.\n",
        "It uses b&#x61;tteries.\n",
        "It uses bat*teri*es.\n",
        "It uses bat**teri**es.\n",
        "It uses bat_teri_es.\n",
        "It uses bat\u{200b}teries.\n",
        "It uses batt`eri`es.\n",
        "It uses bat\\teries.\n",
    ] {
        assert_eq!(
            one("a summary not mentioning \"batteries\"", binding),
            Verdict::Violated,
            "{binding:?}"
        );
    }
}

/// Hidden content is never evidence of a required thing.
#[test]
fn hidden_content_is_no_evidence() {
    for binding in [
        "Visible text.\n\n[//]: # (saying \"batteries\")\n\n[//]: # \"batteries\"\n",
        "Visible text.\n\n[unused]: https://x.net \"batteries\"\n",
        "Visible [text](https://x.net \"batteries\").\n",
        "Visible text. <span hidden>batteries</span>\n",
        "Visible text. <div hidden=\"\">batteries</div>\n",
        "Visible text.\n<script>var batteries = 1;</script>\n",
        "Visible text.\n<style>.batteries {}</style>\n",
        "Visible text. <span style=\"display:none\">batteries</span>\n",
    ] {
        assert_eq!(
            one("a summary mentioning \"batteries\"", binding),
            Verdict::Violated,
            "{binding:?}"
        );
    }
    // A source only in a hidden place is no source.
    assert_eq!(
        one(
            "at least 2 sources",
            "See https://a.net.\n\n[//]: # (https://b.net)\n"
        ),
        Verdict::Violated
    );
}

/// A run without its log is refused: whether it finished cannot be told.
#[test]
fn a_run_without_a_log_is_refused() {
    let d = run_with(
        "## Ensures\n\n- `summary`: a summary\n",
        &[("bindings/svc/summary.md", "Batteries store charge.\n")],
    );
    std::fs::remove_file(d.path().join("vm.log.md")).expect("rm");
    match import_run(d.path()) {
        Err(ImportError::RunFile { file, .. }) => assert!(file.ends_with("vm.log.md"), "{file}"),
        other => panic!("{other:?}"),
    }
}

/// A log whose header names another program is another run's log, even
/// with `root: root.prose.md`: its steps and end are not this run's.
#[test]
fn a_log_of_another_program_is_refused() {
    let d = run_with(
        "## Ensures\n\n- `summary`: a summary\n",
        &[("bindings/svc/summary.md", "Batteries store charge.\n")],
    );
    write(
        d.path(),
        "vm.log.md",
        "# run:r1 other\nroot: root.prose.md\n1→ other ✓\n---end 2026-12-01T10:15:31Z\n",
    );
    match import_run(d.path()) {
        Err(ImportError::RunFile {
            file,
            line,
            message,
        }) => {
            assert!(file.ends_with("vm.log.md"), "{file}");
            assert_eq!(line, 1);
            assert!(message.contains("`other`"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// A FIFO anywhere in the run is refused without being opened: the
/// import returns (it would block reading one) and names it.
#[cfg(unix)]
#[test]
fn a_fifo_anywhere_is_refused_without_blocking() {
    for at in [
        "workspace/svc/__error.md",
        "vm.log.md",
        "bindings/svc/extra.md",
        "notes/pipe",
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: a summary\n",
            &[("bindings/svc/summary.md", "Batteries store charge.\n")],
        );
        let p = d.path().join(at);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        let _ = std::fs::remove_file(&p);
        let ok = std::process::Command::new("mkfifo")
            .arg(&p)
            .status()
            .expect("mkfifo runs");
        assert!(ok.success());
        let (tx, rx) = std::sync::mpsc::channel();
        let dir = d.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = tx.send(import_run(&dir).map(|_| ()));
        });
        match rx.recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(Err(ImportError::RunFile { file, message, .. })) => {
                assert!(file.ends_with(at), "{at}: {file}");
                assert!(message.contains("not a regular file"), "{message}");
            }
            other => panic!("{at}: {other:?}"),
        }
    }
}

/// Only OpenProse's own header shape (`# {output name}`, `binding:` /
/// `source:` lines, `---`) is removed from a binding: an output that opens
/// with a title of its own and `Key: value` lines keeps them.
#[test]
fn only_openprose_headers_are_stripped() {
    assert_eq!(
        one(
            "a summary without headings",
            "# Findings\nStatus: draft\n---\nBody text.\n"
        ),
        Verdict::Violated
    );
    assert_eq!(
        one(
            "a summary without headings",
            "# summary\nauthor: me\n---\nBody text.\n"
        ),
        Verdict::Violated
    );
    assert_eq!(
        one(
            "a summary without headings",
            "# summary\nbinding: output\nsource: svc\n---\nBody text.\n"
        ),
        Verdict::NotEvaluable
    );
}

/// An output made of pieces of what the service was given is a copy:
/// two inputs joined, an input repeated, an input and its own program.
#[test]
fn copies_of_several_inputs_are_copies() {
    let region =
        "# region\nbinding: input\nsource: caller\n---\nEurope and North America markets\n";
    for output in [
        "Solid-state batteries. Solid-state batteries.\n",
        "Solid-state batteries\n\nEurope and North America markets\n",
        "Europe and North America markets; Solid-state batteries; Europe and North America markets\n",
        "Solid-state batteries\n\n## Requires\n\n- topic: the subject\n",
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: a summary\n",
            &[("bindings/caller/region.md", region), ("bindings/svc/summary.md", output)],
        );
        let g = grade_dir(d.path());
        assert_eq!(verdicts(&g), vec![Verdict::Violated], "{output:?}: {g:#?}");
    }
    // Words of its own around them are an output of its own.
    let d = run_with(
        "## Ensures\n\n- `summary`: a summary\n",
        &[
            ("bindings/caller/region.md", region),
            (
                "bindings/svc/summary.md",
                "Solid-state batteries are gaining ground in Europe and North America markets as costs fall.\n",
            ),
        ],
    );
    // (Existence alone is the judge's: no copy, so not violated.)
    assert_eq!(verdicts(&grade_dir(d.path())), vec![Verdict::NotEvaluable]);
}

/// A clause whose output name pactum does not read as one is never
/// measured on another output.
#[test]
fn a_missed_output_name_is_not_measured_elsewhere() {
    for bullet in [
        "- summary (markdown): at least 3 items",
        "- Executive summary: at least 3 items",
        "- **Summary** (final): at least 3 items",
    ] {
        let d = run_with(
            &format!("## Ensures\n\n{bullet}\n"),
            &[("bindings/svc/findings.md", FIVE)],
        );
        let g = grade_dir(d.path());
        let v = verdicts(&g);
        assert!(!v.contains(&Verdict::Satisfied), "{bullet:?}: {g:#?}");
    }
}

/// A note underlined like a heading inside a commitment section does not
/// end it: the bullets after it are still clauses.
#[test]
fn an_underlined_note_keeps_its_sections_clauses() {
    let d = run_with(
        "## Ensures\n\n- `summary`: a summary\n\nA note.\n---\n\n- `missing`: a summary\n",
        &[("bindings/svc/summary.md", "Batteries store charge.\n")],
    );
    let g = grade_dir(d.path());
    assert_eq!(
        verdicts(&g),
        vec![Verdict::NotEvaluable, Verdict::Violated],
        "{g:#?}"
    );
}

/// Structure that renders is counted wherever it renders: in a
/// blockquote, a list item, a list indented by up to three spaces, and
/// HTML a count does not read makes an upper bound undecidable, never met.
#[test]
fn counts_see_what_renders() {
    for (clause, binding) in [
        ("at most 1 items", "  - a\n  - b\n  - c\n"),
        ("not a numbered list", "   1. a\n   2. b\n"),
        ("not a numbered list", "   3. a\n   4. b\n"),
        ("at most 2 items", "> - a\n> - b\n> - c\n> - d\n"),
        ("at most 1 paragraphs", "> One.\n>\n> Two.\n>\n> Three.\n"),
        ("a report without headings", "> # Heading\n\nText.\n"),
        ("a report without headings", "- # Heading in item\n"),
        (
            "a note with no table",
            "> | a | b |\n> |---|---|\n> | 1 | 2 |\n",
        ),
        ("not a numbered list", "> 1. a\n> 2. b\n"),
        ("not a bulleted list", "> * a\n> * b\n"),
        (
            "at most 2 items",
            "<ul><li>a</li><li>b</li><li>c</li><li>d</li></ul>\n",
        ),
        (
            "at most 2 items",
            "- a\n- b\n\n<ul>\n<li>c</li>\n<li>d</li>\n</ul>\n",
        ),
        (
            "at most 1 rows",
            "<table><tr><td>a</td></tr><tr><td>b</td></tr><tr><td>c</td></tr></table>\n",
        ),
        (
            "at most 5 words",
            "one&nbsp;two&nbsp;three&nbsp;four&nbsp;five&nbsp;six&nbsp;seven&nbsp;eight\n",
        ),
        ("at most 3 words", "a<br>b<br>c<br>d<br>e<br>f\n"),
        ("exactly 2 items", "- a\n- b\n\n> - c\n> - d\n"),
        ("fewer than 3 headings", "# a\n\n# b\n\n> # c\n\n- # d\n"),
        ("not a numbered list", "1. a\n\n- b\n"),
        ("a report with headings", "<pre>\n# x\n</pre>\n"),
        (
            "a markdown table",
            "    | a | b |\n    |---|---|\n    | 1 | 2 |\n",
        ),
        (
            "at least 2 rows",
            "| a | b |\n|---|---|\n| x | y |\n| &nbsp; | &nbsp; |\n",
        ),
    ] {
        never_green(clause, binding);
    }
}

/// Blank, placeholder and repeated units, and one page spelled several
/// ways, are not counted towards a lower bound.
#[test]
fn counts_skip_blank_placeholder_and_repeated_units() {
    for (clause, binding) in [
        (
            "at least 3 paragraphs",
            "Real text.\n\n&nbsp;\n\n<br>\n\n&#8203;\n",
        ),
        (
            "a numbered list of at least 3 items",
            "1. real\n2. &nbsp;\n3. <br>\n",
        ),
        ("at least 3 items", "- real\n- TODO\n- TBD\n"),
        (
            "at least 5 words",
            "Word <!-- --> &nbsp; &amp; &#8203; — – • ·\n",
        ),
        ("at least five items", "- a\n- a\n- a\n- a\n- a\n"),
        (
            "at least 3 sources",
            "https://a.net/x https://a.net:443/x https://a.net/%78\n",
        ),
        (
            "at least 3 sources",
            "http://a.net/x https://a.net/x https://www.a.net/x\n",
        ),
        (
            "at least 3 sources",
            "https://a.net/x https://a.net/x#1 https://a.net/x#2\n",
        ),
        (
            "at least 3 sources",
            "```\nhttps://a.net/ https://b.net/ https://c.net/\n```\n",
        ),
        ("at least 3 sources", "https://x https://y https://z\n"),
        (
            "a markdown table",
            "| a | b |\n|---|---|\n| &nbsp; | <br> |\n",
        ),
        ("a report with headings", "Text.\n\n## &nbsp;\n"),
    ] {
        never_green(clause, binding);
    }
    // The input's own URLs re-spelled are no sources found.
    let d = run_with(
        "## Ensures\n\n- `summary`: at least 3 sources\n",
        &[
            (
                "bindings/caller/topic.md",
                "# topic\nbinding: input\nsource: caller\n---\nUse https://a.net/1 https://b.net/2 https://c.net/3\n",
            ),
            (
                "bindings/svc/summary.md",
                "See https://a.net/1#s https://b.net/2/ https://C.net/3\n",
            ),
        ],
    );
    assert_ne!(verdicts(&grade_dir(d.path())), vec![Verdict::Satisfied]);
    // What is really there is still counted.
    assert_eq!(
        one("at least 3 items", "> - oak\n> - pine\n> - elm\n"),
        Verdict::Satisfied
    );
    assert_eq!(
        one("at most 3 items", "  - a\n  - b\n"),
        Verdict::NotEvaluable
    );
    assert_eq!(
        one(
            "at least 3 sources",
            "https://a.net/1 https://b.net/2 https://c.net/3\n"
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        one(
            "at least 10 words",
            "red&nbsp;and blue&nbsp;are the colours of the flag we flew at sea\n"
        ),
        Verdict::Satisfied
    );
}

/// Pipe text GFM does not render as a table is no table.
#[test]
fn only_gfm_tables_are_tables() {
    for binding in [
        "| a | b |\n|---|\n| 1 | 2 |\n",
        "| a | b |\n|---|---|---|\n| 1 | 2 |\n",
        "| a | b |\n| :: | -- |\n| 1 | 2 |\n",
    ] {
        assert_eq!(
            one("a markdown table", binding),
            Verdict::Violated,
            "{binding:?}"
        );
    }
    only_shape_held("a markdown table", "| a | b |\n| :-: | -- |\n| 1 | 2 |\n");
}

/// A binding that is a link to a file of the run that is no output (the
/// root, the manifest, the log, a source snapshot, a workspace or error
/// file) is refused, naming the binding.
#[test]
fn a_binding_linked_to_a_run_file_is_refused() {
    for target in [
        "root.prose.md",
        "vm.log.md",
        "sources/other.prose.md",
        "workspace/svc/notes.md",
        "bindings/svc/__error.md",
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: a markdown report with headings\n",
            &[
                (
                    "sources/other.prose.md",
                    "---\nname: other\nkind: service\n---\n# Other\n\n## Ensures\n\n- `x`: a note\n",
                ),
                ("workspace/svc/notes.md", "# Notes\n\nText.\n"),
                ("bindings/svc/__error.md", "# Error\n\nText.\n"),
            ],
        );
        // The error file is there only as a link target.
        let depth = "../../";
        std::os::unix::fs::symlink(
            format!("{depth}{target}"),
            d.path().join("bindings/svc/summary.md"),
        )
        .expect("symlink");
        if target != "bindings/svc/__error.md" {
            std::fs::remove_file(d.path().join("bindings/svc/__error.md")).expect("rm");
        }
        match import_run(d.path()) {
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains("summary"), "{target}: {msg}");
            }
            Ok(run) => {
                let policy = Policy::default();
                let mut judge = no_judge(policy);
                let g = grade_run(&run, &policy, &mut judge);
                panic!("{target}: a link to a run file was read as the output: {g:#?}");
            }
        }
    }
}

/// Many link reference definitions and their uses are all read (their
/// cost, linear in their number, is measured by `bench/openprose.sh`).
#[test]
fn many_link_reference_definitions_are_read() {
    let n = 4_000;
    let mut b = String::new();
    for i in 0..n {
        b.push_str(&format!("[l{i}]: https://a{i}.net/\n"));
    }
    b.push('\n');
    for i in 0..n {
        b.push_str(&format!("[l{i}] "));
    }
    b.push('\n');
    assert_eq!(one("at least 3 sources", &b), Verdict::Satisfied);
    assert_eq!(one("at most 3 sources", &b), Verdict::Violated);
}

/// `each X has:` — a placeholder, a value that is the next label or a
/// hidden one is absent; every item of every list and table is checked.
#[test]
fn each_has_sees_placeholders_and_every_item() {
    for binding in [
        "- title: N/A url: https://a.net/\n- title: - url: https://b.net/\n",
        "- title: <!-- x --> url: https://a.net/\n",
        "| title | url |\n|---|---|\n| A | https://a.net/ |\n\n- an item without fields\n- another\n",
        "- title: ... url: https://a.net/\n",
        "- title: url: https://b.net\n",
        "- **title**: **url**: x\n",
        "> - title: A, url: https://a.net/\n> - no fields here\n",
    ] {
        never_green("each item has: title, url", binding);
    }
    assert_eq!(
        one(
            "each item has: title, url",
            "- title: A, url: https://a.net/\n- title: B, url: https://b.net/\n"
        ),
        Verdict::Satisfied
    );
}

/// A clause that asks nothing measurable is never met by a count of
/// nothing.
#[test]
fn degenerate_clauses_are_not_met() {
    never_green("saying \"\"", "Some text.\n");
    never_green("each item has: ", "- a\n");
    never_green("each item has: ,,,", "- a\n");
}

/// An output that renders as nothing, or only a placeholder, was not
/// produced.
#[test]
fn unrendered_and_placeholder_outputs_are_not_produced() {
    for binding in [
        "<?php echo 1; ?>\n",
        "<![CDATA[text]]>\n",
        "N/A\n",
        "[insert summary here]\n",
        "\u{1b}[0m\n",
    ] {
        never_green("a summary", binding);
    }
}

/// A forbidden word is found as it renders: split by an empty comment or
/// a link, written in fullwidth or lookalike letters.
#[test]
fn a_forbidden_word_is_found_as_it_renders() {
    for x in [
        "Lith<!-- -->ium",
        "Lith[ium](https://a.net/)",
        "Ｌｉｔｈｉｕｍ",
        "Lithiuм",
        "Lıthıum",
    ] {
        let binding = format!("Batteries use {x} cells.\n");
        assert_eq!(
            one("a note not mentioning \"lithium\"", &binding),
            Verdict::Violated,
            "{binding:?}"
        );
    }
    assert_eq!(
        one(
            "a note not mentioning \"lithium\"",
            "Batteries use sodium cells.\n"
        ),
        Verdict::NotEvaluable
    );
}

/// Only the header OpenProse writes (`binding: output|input`, `source:`
/// one node name) is stripped: other values stay content.
#[test]
fn a_header_with_other_values_stays_content() {
    never_green(
        "a note not mentioning \"hunter2\"",
        "# summary\nsource: hunter2\n---\nBody text here.\n",
    );
    never_green(
        "at most 3 words",
        "# summary\nbinding: one two three four five six seven eight\n---\nBody.\n",
    );
}

/// A commitment written where no clause is read — a quoted `## Ensures`,
/// a table row or a sentence under Ensures — is refused naming its line,
/// never dropped.
#[test]
fn commitments_outside_bullets_are_refused() {
    for body in [
        "## Ensures\n\n- `summary`: a summary\n\n> ## Ensures\n>\n> - `missing`: at least 3 items\n",
        "## Ensures\n\n- `summary`: a summary\n\n| output | promise |\n|---|---|\n| `missing` | at least 3 items |\n",
        "## Ensures\n\n- `summary`: a summary\n\nThe service also ensures `missing` holds at least 3 items.\n",
    ] {
        let d = run_with(body, &[("bindings/svc/summary.md", "Some text.\n")]);
        match import_run(d.path()) {
            Err(ImportError::Contract { line, .. }) => assert!(line > 0, "{body:?}"),
            Err(other) => panic!("{body:?}: {other}"),
            Ok(run) => {
                let policy = Policy::default();
                let mut judge = no_judge(policy);
                let g = grade_run(&run, &policy, &mut judge);
                panic!("{body:?}: imported, a commitment dropped: {g:#?}");
            }
        }
    }
}

/// Text a browser does not show backs no `saying "…"`.
#[test]
fn unshown_text_backs_no_quote() {
    for line in [
        "![no sources were found](https://a.net/i.png)",
        "<![CDATA[no sources were found]]>",
        "<?no sources were found?>",
        "<span style=\"opacity:0\">no sources were found</span>",
        "<span style=\"color:#fff\">no sources were found</span>",
        "<div style=\"height:0;overflow:hidden\">no sources were found</div>",
        "<span style=\"position:absolute;left:-9999px\">no sources were found</span>",
        "<noscript>no sources were found</noscript>",
    ] {
        never_green(
            "a note saying \"no sources were found\"",
            &format!("Cars.\n\n{line}\n"),
        );
    }
}

/// A count inside an `each X has:` field is per item: never measured over
/// the whole output.
#[test]
fn a_count_in_an_each_field_is_per_item() {
    never_green(
        "a list; each source has: title, and a summary of at least 20 words",
        "- title: A, summary: one two three four five six seven eight\n- title: B, summary: one two three four five six seven eight\n- title: C, summary: one two three four five six seven eight\n",
    );
}

/// A count written on the units of another count (`3 items of at least 5
/// words`) is per item, never counted over the whole output.
#[test]
fn a_count_of_each_counted_unit_is_per_item() {
    never_green(
        "3 items of at least 5 words",
        "- a\n- b\n- c d e f g h i j k l m\n",
    );
    never_green(
        "2 paragraphs with at least 10 words",
        "One two.\n\nThree four five six seven eight nine ten eleven twelve thirteen fourteen fifteen.\n",
    );
}

/// A clause that opens with a name of its own before a dash names an
/// output: never measured on the one binding of another name.
#[test]
fn a_name_before_a_dash_is_not_measured_elsewhere() {
    let d = run_with(
        "## Ensures\n\n- findings - at least 3 items\n",
        &[("bindings/svc/scratch.md", "- a\n- b\n- c\n")],
    );
    let g = grade_dir(d.path());
    let r = &g.contracts[0].clauses[0];
    assert_ne!(r.verdict, Verdict::Satisfied, "{g:#?}");
    // Not measured on scratch.md: a judge could otherwise lean on it.
    assert!(!r.rationale.contains("counted 3 items"), "{g:#?}");
}

/// An input longer than a topic, for the copies below.
const ARTICLE: &str = "# article\nbinding: input\nsource: caller\n---\nSales of home heat pumps fell in 2024 after two record years, as subsidies were cut in several large markets and gas prices eased.\n";

/// Grades one `summary` clause with the `article` input beside the topic.
fn with_article(clause: &str, binding: &str) -> RunGrade {
    let d = run_with(
        &format!("## Ensures\n\n- `summary`: {clause}\n"),
        &[
            ("bindings/caller/article.md", ARTICLE),
            ("bindings/svc/summary.md", binding),
        ],
    );
    grade_dir(d.path())
}

/// An output that only rearranges what the service was given (its
/// words reordered, a heading of its own over a copy, a copy made link
/// text, the program's own words after the input) is no evidence of the
/// service's own work: left to the judge (here none: not evaluable),
/// never satisfied, and a measure it fails still fails it.
#[test]
fn rearranged_copies_are_left_to_the_judge() {
    let copy = "Sales of home heat pumps fell in 2024 after two record years, as subsidies were cut in several large markets and gas prices eased.";
    let reordered = "Gas prices eased and subsidies were cut in several large markets, as sales of home heat pumps fell in 2024 after two record years.";
    for (clause, output) in [
        ("a summary", reordered.to_string()),
        ("a summary", format!("# Executive overview prepared today\n\n{copy}\n")),
        ("a summary", format!("[{copy}](https://examples.com/report/2024)\n")),
        ("a summary", format!("## Findings\n\n[{copy}](https://examples.com/a)\n")),
        ("a summary", format!("{copy} Solid-state batteries the subject.\n")),
        ("a summary", "Solid-state batteries the subject\n".to_string()),
        (
            "a summary in 2 paragraphs",
            "Gas prices eased and subsidies were cut in several large markets.\n\nSales of home heat pumps fell in 2024 after two record years.\n".to_string(),
        ),
        (
            "a numbered list of 3 items",
            "1. gas prices eased\n2. subsidies were cut in several large markets\n3. sales of home heat pumps fell in 2024\n".to_string(),
        ),
    ] {
        let g = with_article(clause, &output);
        let c = &g.contracts[0].clauses[0];
        assert_eq!(c.verdict, Verdict::NotEvaluable, "{clause:?} over {output:?}: {c:#?}");
        assert!(c.rationale.contains("only repeats what the service was given") || c.rationale.contains("copied"), "{c:#?}");
    }
    // A measure the copy fails still fails it.
    let g = with_article("a markdown table with at least 3 rows", reordered);
    assert_eq!(verdicts(&g), vec![Verdict::Violated], "{g:#?}");
    // Words of its own, and a selection of a few of the input's words,
    // are an output of its own.
    for output in [
        "Heat pump sales dropped when subsidies ended; cheaper gas made boilers attractive again, so installers expect a slow 2025.\n",
        "# Heat pumps\n\nSubsidy cuts hurt sales; recovery is likely once programmes restart.\n",
        "Two record years ended in 2024.\n\nInstallers now expect programmes to restart soon and demand to recover.\n",
    ] {
        let g = with_article("a summary", output);
        let c = &g.contracts[0].clauses[0];
        assert_eq!(c.verdict, Verdict::NotEvaluable, "{output:?}: {g:#?}");
        assert!(!c.rationale.contains("copied"), "{c:#?}");
    }
}

/// What a reader does not see without a click (content folded in
/// `<details>`), or cannot be read at all (nothing but images), is no
/// evidence on its own: left to the judge, never satisfied.
#[test]
fn folded_and_image_only_outputs_are_left_to_the_judge() {
    for output in [
        "<details>\n<summary>Summary</summary>\n\nBatteries with solid electrolytes are safer and denser.\n\n</details>\n",
        "<DETAILS open>\n\nBatteries with solid electrolytes are safer and denser.\n\n</DETAILS>\n",
        "Intro.\n\n<details><summary>More</summary>\n\n1. one point\n2. two points\n\n</details>\n",
        "![](chart.png)\n",
        "![](https://examples.com/chart.png)\n",
        "![Chart of battery density](chart.png)\n",
    ] {
        assert_eq!(one("a summary", output), Verdict::NotEvaluable, "{output:?}");
        // A count over it is left to the judge, or fails where nothing
        // it counts is shown.
        never_green("a summary with at least 1 paragraph", output);
    }
    // An HTML image alone is markup only: it renders as no output.
    for output in [
        "<img src=\"chart.png\">\n",
        "<p><img src=\"chart.png\" alt=\"\"></p>\n",
    ] {
        assert_eq!(one("a summary", output), Verdict::Violated, "{output:?}");
    }
    // The same text shown plainly is measured as ever.
    assert_eq!(
        one(
            "a summary",
            "Batteries with solid electrolytes are safer and denser.\n"
        ),
        kept("a summary")
    );
    // An image beside text of its own is measured on the text.
    assert_eq!(
        one(
            "a summary",
            "![](chart.png)\n\nBatteries with solid electrolytes are safer and denser.\n"
        ),
        kept("a summary")
    );
}

/// The verdicts of the clauses of the run at `d`, by clause id.
fn by_id(g: &RunGrade) -> Vec<(String, Verdict)> {
    g.contracts
        .iter()
        .flat_map(|c| c.clauses.iter().map(|r| (r.id.clone(), r.verdict)))
        .collect()
}

/// A sentence in a section of clauses may be a commitment: it is graded
/// as a clause of its own, never dropped (here measured and violated).
#[test]
fn prose_in_a_section_of_clauses_is_graded() {
    for body in [
        "## Ensures\n\n- `out`: a summary\n\n**out** must also be valid JSON.\n",
        "## Ensures\n\nThe output must be valid JSON.\n\n- `out`: a summary\n",
        "## Ensures\n\nThe output must be valid JSON\nand hold at least 3 items.\n",
    ] {
        let d = run_with(
            body,
            &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
        );
        let g = grade_dir(d.path());
        let v = by_id(&g);
        assert!(
            v.iter()
                .any(|(id, v)| id.contains("json") && *v == Verdict::Violated),
            "{body:?}: {v:?}"
        );
        assert_ne!(g.status, pactum_core::TestStatus::Pass, "{body:?}");
    }
    // A line that introduces the bullets, a note underlined as a heading
    // and a thematic break are no clauses.
    let d = run_with(
        "## Ensures\n\nThe service returns:\n\n- `out`: a summary\n\n* * *\n",
        &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
    );
    assert_eq!(verdicts(&grade_dir(d.path())), vec![Verdict::NotEvaluable]);
}

/// Only what CommonMark renders as a code fence hides clauses: a line
/// of code spans (```` ```json``` ````) opens none, and a fence closes
/// only on a line of its marker alone.
#[test]
fn only_real_code_fences_hide_bullets() {
    let d = run_with(
        "## Ensures\n\n- `out`: a summary\n\n```json``` and ```yaml``` are the formats below.\n\n- `data`: valid JSON\n- `out`: at least 5 items\n\n```text``` ends the list.\n",
        &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
    );
    // A sentence of code spans there may name an output: refused, never
    // read as a fence that hides the bullets after it.
    match import_run(d.path()) {
        Err(ImportError::Contract { line: 13, .. }) => {}
        other => panic!("{other:?}"),
    }
    let d = run_with(
        "## Ensures\n\n- `out`: a summary\n```json``` is the format\n- `data`: valid JSON\n- `out`: at least 5 items\n",
        &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
    );
    let g = grade_dir(d.path());
    let v = by_id(&g);
    assert!(
        v.contains(&("data".to_string(), Verdict::Violated)),
        "{v:?}"
    );
    assert_eq!(g.status, pactum_core::TestStatus::Fail);
    // A fence holding a line that starts with its marker and more text
    // goes on to its real close.
    let d = run_with(
        "## Ensures\n\n- `out`: a summary\n\n```\n```python\n- `data`: valid JSON\n```\n\n- `more`: a summary\n",
        &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
    );
    let v = by_id(&grade_dir(d.path()));
    assert_eq!(
        v,
        vec![
            ("out".to_string(), Verdict::NotEvaluable),
            ("more".to_string(), Verdict::Violated)
        ]
    );
}

/// A known section nested in a section of clauses (`### Examples` under
/// `## Ensures`) closes at its next sibling heading; the clauses under
/// that sibling are still the outer section's.
#[test]
fn a_nested_known_section_does_not_close_its_parent() {
    for body in [
        "## Ensures\n\n- `out`: a summary\n\n### Examples\n\n- an example: hello\n\n### Format\n\n- `out`: valid JSON\n- `data`: at least 3 items\n",
        "## Maintains\n\n- `out`: a summary\n\n### Notes\n\n- a note\n\n### Quality\n\n- `out`: valid JSON\n- `data`: at least 3 items\n",
    ] {
        let d = run_with(body, &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")]);
        let g = grade_dir(d.path());
        let v = by_id(&g);
        // The example under `### Examples` is a clause too: under a
        // section of clauses a deeper heading is a sub-heading.
        assert_eq!(v.len(), 4, "{body:?}: {v:?}");
        assert!(v.contains(&("data".to_string(), Verdict::Violated)), "{v:?}");
        assert_eq!(g.status, pactum_core::TestStatus::Fail, "{body:?}");
    }
}

/// An ATX heading may have a tab after its hashes (CommonMark §4.2).
#[test]
fn a_heading_with_a_tab_is_a_heading() {
    let d = run_with(
        "## Ensures\n\n- `out`: a summary\n\n## Notes\n\nSome notes.\n\n##\tEnsures\n\n- `data`: valid JSON\n",
        &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
    );
    let v = by_id(&grade_dir(d.path()));
    assert!(
        v.contains(&("data".to_string(), Verdict::Violated)),
        "{v:?}"
    );
}

/// A list item a Markdown renderer shows in a section of clauses, which
/// the reader did not take for a clause, refuses the file (naming its
/// line) rather than dropping a commitment.
#[test]
fn an_item_read_two_ways_is_refused() {
    // A quoted list right after a bullet: the reader would join it to
    // the bullet; CommonMark renders a blockquote holding an item.
    let body = "## Ensures\n\n- `out`: a summary\n> - `data`: valid JSON\n";
    let d = run_with(
        body,
        &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
    );
    match import_run(d.path()) {
        Err(ImportError::Contract {
            line: 12, message, ..
        }) => {
            assert!(message.contains("renders as a list item"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// Text HTML hides is no evidence, however the hiding is spelled: a `>`
/// inside an earlier quoted attribute, a character reference or a CSS
/// comment or escape in the style, an element a browser does not render.
/// Raw HTML pactum does not read leaves a measure that held to the judge.
#[test]
fn html_that_hides_text_is_no_evidence() {
    let q = "no sources were found";
    for tpl in [
        "<span style=\"display:none\">QQ</span>",
        "<span title=\">\" style=\"display:none\">QQ</span>",
        "<span data-x=\">\" style=\"display:none\">QQ</span>",
        "<span style=\"display:&#110;one\">QQ</span>",
        "<span style=\"dis&#112;lay:none\">QQ</span>",
        "<span style=\"display:/**/none\">QQ</span>",
        "<span style=\"display:\\6e one\">QQ</span>",
        "<span style=\"visibility: collapse\">QQ</span>",
        "<span style=\"transform:scale(0);display:inline-block\">QQ</span>",
        "<dialog>QQ</dialog>",
        "<title>QQ</title>",
        "<svg><title>QQ</title></svg>",
        "<datalist><option>QQ</option></datalist>",
        "<video>QQ</video>",
        "<noembed>QQ</noembed>",
    ] {
        let out = format!(
            "The search finished early.\n\n{}\n\nNothing else to add here.\n",
            tpl.replace("QQ", q)
        );
        never_green(&format!("saying \"{q}\""), &out);
    }
    for open in ["<div title=\">\" style=\"display:none\">", "<dialog>"] {
        let close = if open == "<dialog>" {
            "</dialog>"
        } else {
            "</div>"
        };
        let out = format!("- alpha\n\n{open}\n\n- beta\n- gamma\n- delta\n- epsilon\n\n{close}\n");
        never_green("at least 5 items", &out);
    }
    // Plain formatting HTML is read as ever.
    assert_eq!(
        one(
            &format!("saying \"{q}\""),
            &format!("The search finished early: <b>{q}</b>.<br>\n")
        ),
        kept("saying \"x\"")
    );
}

/// `<!--`, `<script>`, `<style>` or `<template>` written in code, or
/// escaped, is shown as written and hides nothing after it.
#[test]
fn markup_in_code_hides_nothing() {
    for pre in [
        "Use the `<!--` marker to open a comment.",
        "Wrap code in a `<script>` tag.",
        "A `<template>` holds markup.",
        "A `<style>` block.",
        "```\n<!--\n```",
        "Escape it: \\<!-- like this.",
    ] {
        let out = format!("- oak\n\n{pre}\n\n- pine\n- elm\n- ash\n- yew\n- fir\n");
        assert_eq!(one("at most 3 items", &out), Verdict::Violated, "{pre:?}");
    }
    // Indented under a list item, `<script>` is raw HTML (it hides what
    // follows): never met either way.
    never_green(
        "at most 3 items",
        "- one\n\n    <script>\n\n- two\n- three\n- four\n- five\n- six\n",
    );
    let out = "First paragraph about cells.\n\nSecond paragraph: use the `<!--` marker for comments.\n\nThird paragraph, on anodes.\n\nFourth paragraph, on cathodes.\n";
    assert_eq!(one("exactly 2 paragraphs", out), Verdict::Violated);
}

/// Under `## Maintains` a deeper heading is a facet whatever its name
/// (`### Environment`, `### Tools`): its clauses are graded.
#[test]
fn a_facet_named_like_another_section_keeps_its_clauses() {
    let d = run_with(
        "## Maintains\n\n### Freshness\n\n- `out`: a summary\n\n### Environment\n\n- `out`: at least 5 items\n- `status`: valid JSON\n\n### Tools\n\n- `out`: not mentioning \"rm -rf\"\n",
        &[("bindings/svc/out.md", "Run rm -rf to clean.\n")],
    );
    let g = grade_dir(d.path());
    let v = by_id(&g);
    assert_eq!(v.len(), 4, "{v:?}");
    assert_eq!(
        v.iter().filter(|(_, v)| *v == Verdict::Violated).count(),
        3,
        "{v:?}"
    );
}

/// A heading inside an HTML comment or an HTML block of the contract is
/// no heading: the clauses after it are never dropped (read, or the file
/// refused).
#[test]
fn a_heading_in_html_does_not_end_a_section() {
    for body in [
        "## Ensures\n\n- `out`: a summary\n<!--\n## Notes\nold notes\n-->\n- `data`: valid JSON\n- `out`: at least 5 items\n",
        "## Ensures\n\n- `out`: a summary\n\n<div>\n## Notes\n</div>\n\n- `data`: valid JSON\n",
    ] {
        let d = run_with(body, &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")]);
        match import_run(d.path()) {
            Err(ImportError::Contract { line, .. }) => assert!(line > 0),
            Err(other) => panic!("{body:?}: {other}"),
            Ok(run) => {
                let policy = Policy::default();
                let mut judge = no_judge(policy);
                let g = grade_run(&run, &policy, &mut judge);
                assert!(
                    by_id(&g).contains(&("data".to_string(), Verdict::Violated)),
                    "{body:?}: {g:#?}"
                );
            }
        }
    }
}

/// A section name written with an invisible or lookalike character reads
/// as that section, as it does to a reader.
#[test]
fn a_section_name_with_lookalikes_is_that_section() {
    for heading in [
        "## \u{200b}Ensures",
        "## \u{2060}Ensures",
        "## \u{ad}Ensures",
        "## \u{415}nsures",
        "## \u{ff25}nsures",
    ] {
        let d = run_with(
            &format!("## Ensures\n\n- `out`: a summary\n\n{heading}\n\n- `data`: valid JSON\n"),
            &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
        );
        let v = by_id(&grade_dir(d.path()));
        assert!(
            v.contains(&("data".to_string(), Verdict::Violated)),
            "{heading:?}: {v:?}"
        );
    }
}

/// A sub-bullet naming another output in code is a clause on that output:
/// a missing binding is violated, never measured on the parent's.
#[test]
fn a_sub_bullet_naming_another_output_is_its_clause() {
    let d = run_with(
        "## Ensures\n\n- `report`: a report\n  - `summary`: valid JSON\n  - `note`: at least 3 items\n",
        &[("bindings/svc/report.md", "[\"alpha\", \"beta\", \"gamma\"]\n")],
    );
    let v = by_id(&grade_dir(d.path()));
    assert!(
        v.contains(&("summary".to_string(), Verdict::Violated)),
        "{v:?}"
    );
    assert!(
        v.contains(&("note".to_string(), Verdict::Violated)),
        "{v:?}"
    );
}

/// Clauses written as an HTML list in a section of clauses are refused
/// or graded, never dropped.
#[test]
fn an_html_list_of_clauses_is_not_dropped() {
    let d = run_with(
        "## Ensures\n\n- `out`: a summary\n\n<ul>\n<li><code>out</code>: valid JSON</li>\n<li><code>data</code>: at least 3 items</li>\n</ul>\n",
        &[("bindings/svc/out.md", "Heat pump sales rose in 2024.\n")],
    );
    match import_run(d.path()) {
        Err(ImportError::Contract { line, .. }) => assert!(line > 0),
        Err(other) => panic!("{other}"),
        Ok(run) => {
            let policy = Policy::default();
            let mut judge = no_judge(policy);
            let g = grade_run(&run, &policy, &mut judge);
            assert_ne!(g.status, pactum_core::TestStatus::Pass, "{g:#?}");
        }
    }
}

/// Upper and exact bounds see every unit that shows anything (an emoji
/// or a mark too), paragraphs inside list items, and footnotes: never met
/// over more than they allow.
#[test]
fn upper_bounds_see_every_unit_shown() {
    for (clause, out) in [
        ("at most 3 items", "- alpha\n- beta\n- gamma\n- 🔥\n- 🚀\n- ✅\n- ★\n- →\n".to_string()),
        ("exactly 2 paragraphs", "First paragraph.\n\nSecond paragraph.\n\n🔥🔥🔥\n\n→ → →\n\n★\n".to_string()),
        (
            "a markdown table with at most 2 rows",
            "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| ✅ | ❌ |\n| ✅ | ✅ |\n| — | — |\n".to_string(),
        ),
        (
            "a markdown report with headings and 2-3 paragraphs",
            format!(
                "# Report\n\nFirst paragraph.\n\nSecond paragraph.\n\n- Details:\n\n{}",
                (0..12)
                    .map(|i| format!("  Paragraph {i} of the appendix, a full paragraph of prose.\n\n"))
                    .collect::<String>()
            ),
        ),
        (
            "at most 2 paragraphs",
            "First paragraph about cells.[^1]\n\nSecond paragraph about costs.\n\n[^1]: Third paragraph, in a footnote.\n\n    Fourth paragraph, still in the footnote.\n".to_string(),
        ),
        (
            "at most 20 words",
            format!(
                "Short note.[^1]\n\n[^1]: {}\n",
                (0..60).map(|i| format!("word{i}")).collect::<Vec<_>>().join(" ")
            ),
        ),
        ("at most 2 items", "- one[^n]\n- two\n\n[^n]: Details:\n\n    - three\n    - four\n    - five\n".to_string()),
        ("a report without headings", "Text.[^n]\n\n[^n]: note\n\n    # Big heading\n".to_string()),
    ] {
        never_green(clause, &out);
    }
}

/// Repeated elements of a JSON array count once toward a lower bound, as
/// repeated Markdown items do.
#[test]
fn repeated_json_elements_count_once() {
    for out in [
        r#"["Paris","Paris","Paris"]"#,
        r#"[{"name":"Paris"},{"name":"Paris"},{"name":"Paris"}]"#,
        "[\"x\", \"x\u{200b}\", \"\u{200b}x\"]",
        r#"[1, 1.0, 1e0]"#,
        r#"["a", "A", "a "]"#,
    ] {
        let d = run_with(
            "## Ensures\n\n- `out`: at least 3 items\n",
            &[("bindings/svc/out.json", out)],
        );
        let v = verdicts(&grade_dir(d.path()));
        assert_ne!(v, vec![Verdict::Satisfied], "{out}");
    }
    let d = run_with(
        "## Ensures\n\n- `out`: at least 3 items\n",
        &[("bindings/svc/out.json", r#"["Paris","Rome","Oslo"]"#)],
    );
    assert_eq!(verdicts(&grade_dir(d.path())), vec![Verdict::Satisfied]);
}

/// What a link does not show (its destination, a reference label) says
/// nothing; a URL written as a link's text is not a source.
#[test]
fn what_a_link_does_not_show_is_no_evidence() {
    for out in [
        "The search ended. [See the log](<https://x.org/no sources were found>) for details.\n",
        "The search ended. [See the log][no sources were found] for details.\n\n[no sources were found]: https://x.org/log\n",
    ] {
        never_green("saying \"no sources were found\"", out);
    }
    never_green(
        "at least 3 sources",
        "See [https://a.org/1](https://x.org/same), [https://b.org/2](https://x.org/same) and [https://c.org/3](https://x.org/same).\n",
    );
}

/// Metadata, non-answers and invisible letters are no content: YAML
/// front matter is no heading, a `url` field of `unknown` is no URL, and
/// an output of Hangul fillers shows nothing.
#[test]
fn metadata_and_non_answers_are_no_content() {
    never_green(
        "a markdown report with headings",
        "---\ntitle: Solid-state battery report\nauthor: svc\n---\nSolid-state cells improve energy density but remain costly to make.\n",
    );
    for out in [
        "- title: A\n  url: https://a.org/x\n- title: B\n  url: unknown\n",
        "- title: A\n  url: https://a.org/x\n- title: B\n  url: see below\n",
        "| title | url |\n|---|---|\n| A | https://a.org/x |\n| B | none |\n",
    ] {
        let d = run_with(
            "## Ensures\n\n- each source has: title, url\n",
            &[("bindings/svc/out.md", out)],
        );
        assert_ne!(
            verdicts(&grade_dir(d.path())),
            vec![Verdict::Satisfied],
            "{out}"
        );
    }
    let d = run_with(
        "## Ensures\n\n- `sources`: a JSON array\n- each source has: title, url, year\n",
        &[(
            "bindings/svc/sources.json",
            r#"[{"title":"A","url":"https://a.org/x","year":2024},{"title":"B","url":"none","year":2024}]"#,
        )],
    );
    assert!(verdicts(&grade_dir(d.path())).contains(&Verdict::Violated));
    assert_eq!(
        one("a summary", "\u{3164}\u{3164}\u{3164}\n"),
        Verdict::Violated
    );
}

/// One page spelled with dot segments, a percent-encoded host or a
/// tracking parameter is one source, never several.
#[test]
fn one_page_respelled_is_one_source() {
    for binding in [
        "See https://examples.org/a and https://examples.org/./a and https://examples.org/b/../a for details.\n",
        "See https://examples.org/a and https://ex%61mples.org/a and https://exampl%65s.org/a for details.\n",
        "See https://examples.org/a/b https://examples.org/a/./c/../b https://EXAMPLEs.org/a/%2E/b/ now.\n",
        "See https://examples.org/a https://examples.org/a?utm_source=x https://examples.org/a?fbclid=1&gclid=2 now.\n",
        "See https://examples.org/a?id=1 https://examples.org/a?id=1&ref=hn https://examples.org/a?utm_medium=m&id=1 now.\n",
    ] {
        assert_eq!(
            one("at least 3 sources", binding),
            Verdict::Violated,
            "{binding:?}"
        );
    }
    // `ref` may be all that tells two pages apart (a branch, a
    // revision): an upper bound is not met while it might.
    never_green(
        "at most 1 source",
        "See https://examples.org/a?ref=main https://examples.org/a?ref=dev now.\n",
    );
    // Distinct pages are still distinct.
    for binding in [
        "See https://a.org/a https://b.org/b https://c.org/a/b now.\n",
        "See https://a.org/a?id=1 https://b.org/a?id=2 https://c.org/a?id=3 now.\n",
        "See https://a.org/../a https://b.org/b/.. https://c.org/c/./d now.\n",
    ] {
        assert_eq!(
            one("at least 3 sources", binding),
            Verdict::Satisfied,
            "{binding:?}"
        );
    }
}

/// A placeholder after a label or with a full stop, or a to-do note in
/// place of the output, is no output.
#[test]
fn labelled_and_punctuated_placeholders_are_not_produced() {
    // `N/A.` alone may be the answer: for the judge.
    assert_eq!(one("a summary", "N/A.\n"), Verdict::NotEvaluable);
    for binding in [
        "n/a!\n",
        "Summary: TBD\n",
        "Summary: N/A\n",
        "**Summary:** TBD\n",
        "Key findings: TODO.\n",
        "Summary:\n\nN/A\n",
        "TODO: write summary\n",
        "FIXME: fill in the findings\n",
        "# Summary\n\nTODO: write it\n",
    ] {
        assert_eq!(one("a summary", binding), Verdict::Violated, "{binding:?}");
    }
    // A label with something after it, a to-do note beside content, or
    // one about anything but writing the output, is content.
    for binding in [
        "Summary: sales fell 10%\n",
        "Summary: N/A for Europe; sales rose in Asia.\n",
        "Sales fell 10%.\n\nTODO: add the chart\n",
        "TODO: call the supplier about cell prices\n",
        "Note: see https://examples.org/report\n",
    ] {
        assert_eq!(one("a summary", binding), kept("a summary"), "{binding:?}");
    }
}

/// A bidirectional control shows text in another order than written: a
/// forbidden word written reversed under a right-to-left override is not
/// looked for as it shows, so the negation is left to the judge.
#[test]
fn a_bidirectional_override_leaves_a_negation_to_the_judge() {
    for binding in [
        "Cells use \u{202e}muihtil\u{202c} anodes and sulfide electrolytes.\n",
        "Cells use &#x202E;muihtil&#x202C; anodes and sulfide electrolytes.\n",
        "Cells use &#8238;muihtil&#8236; anodes and sulfide electrolytes.\n",
        "Cells use \u{2067}muihtil\u{2069} anodes.\n",
    ] {
        for clause in [
            "a summary not mentioning \"lithium\"",
            "a summary not containing \"lithium\"",
            "a summary that never says \"lithium\"",
        ] {
            assert_eq!(
                one(clause, binding),
                Verdict::NotEvaluable,
                "{clause:?} over {binding:?}"
            );
        }
    }
    // The word written as it reads is found whatever control is there.
    assert_eq!(
        one(
            "a summary not mentioning \"lithium\"",
            "Cells use \u{202d}lithium\u{202c} anodes.\n"
        ),
        Verdict::Violated
    );
    // Without a bidirectional control the negation is measured as ever.
    assert_eq!(
        one(
            "a summary not mentioning \"lithium\"",
            "Cells use sodium anodes and sulfide electrolytes.\n"
        ),
        Verdict::NotEvaluable
    );
}

/// Words are not only what spaces part: a script written without spaces,
/// and words joined by a hyphen, a slash, a dot, an underscore or a word
/// joiner, meet an upper bound only if counted every way they can be.
#[test]
fn words_without_spaces_meet_no_upper_bound() {
    let chinese = "固态电池使用固体电解质代替液体电解质。它们的能量密度更高，安全性更好，但是制造成本仍然很高，而且大规模生产还面临许多技术挑战。多家汽车制造商计划在二零二七年以后推出搭载固态电池的车型。\n";
    let japanese = "全固体電池は液体の電解質を使わないので安全性が高く、エネルギー密度も高いと言われています。\n";
    let thai = "แบตเตอรี่โซลิดสเตตใช้อิเล็กโทรไลต์ที่เป็นของแข็งแทนของเหลว\n";
    let unbroken = "电".repeat(400) + "\n";
    let joined = |sep: &str| {
        (0..50)
            .map(|i| format!("word{i}"))
            .collect::<Vec<_>>()
            .join(sep)
            + "\n"
    };
    for binding in [
        chinese.to_string(),
        japanese.to_string(),
        thai.to_string(),
        unbroken,
        joined("-"),
        joined("/"),
        joined("."),
        joined("_"),
        joined("\u{2060}"),
    ] {
        never_green("at most 10 words", &binding);
        never_green("fewer than 20 words", &binding);
    }
    // What spaces already part beyond the bound is over it.
    assert_eq!(
        one("at most 2 words", "固态 电池 使用 固体\n"),
        Verdict::Violated
    );
    // Plain text is counted as ever.
    assert_eq!(
        one("at most 10 words", "Solid electrolytes make cells safer.\n"),
        Verdict::NotEvaluable
    );
    assert_eq!(
        one(
            "at least 10 words",
            "Solid electrolytes make the cells safer, and they let the cells charge faster.\n"
        ),
        Verdict::Satisfied
    );
    // A few characters are within a bound any count meets.
    assert_eq!(
        one("at most 10 words", "固态电池。\n"),
        Verdict::NotEvaluable
    );
}

/// An output's binding that is a link to another binding — the caller's
/// input, another output of the service, another service's output — is
/// refused naming the output: it is that binding, not the service's own
/// output. A link is the evidence of nothing but the file it leads to.
#[test]
fn a_binding_linked_to_another_binding_is_refused() {
    for target in ["../caller/topic.md", "notes.md", "../other/summary.md"] {
        let d = run_with(
            "## Ensures\n\n- `summary`: a summary\n",
            &[
                (
                    "bindings/svc/notes.md",
                    "A real summary of solid-state cells.\n",
                ),
                (
                    "bindings/other/summary.md",
                    "A real summary of solid-state cells.\n",
                ),
            ],
        );
        std::os::unix::fs::symlink(target, d.path().join("bindings/svc/summary.md"))
            .expect("symlink");
        match import_run(d.path()) {
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.code(), "invalid-run", "{target}: {msg}");
                assert!(msg.contains("`summary`"), "{target}: {msg}");
            }
            Ok(run) => {
                let policy = Policy::default();
                let mut judge = no_judge(policy);
                let g = grade_run(&run, &policy, &mut judge);
                panic!("{target}: a link to another binding was read as the output: {g:#?}");
            }
        }
    }
}

/// An output name of Unicode letters is read as a name, and found in its
/// binding whichever normal form the file name is written in; a clause
/// whose name is not read never says the contract produced nothing.
#[test]
fn unicode_output_names_are_read() {
    for file in [
        "bindings/svc/résumé.md",
        "bindings/svc/re\u{301}sume\u{301}.md",
    ] {
        for (clause, want) in [
            ("at most 3 words", Verdict::NotEvaluable),
            ("at least 5 words", Verdict::Violated),
        ] {
            let d = run_with(
                &format!("## Ensures\n\n- `résumé`: {clause}\n"),
                &[(file, "Cells, well summarised.\n")],
            );
            let g = grade_dir(d.path());
            assert_eq!(
                by_id(&g),
                vec![("résumé".to_string(), want)],
                "{file}: {g:#?}"
            );
            let outputs: Vec<_> = g.contracts[0]
                .outputs
                .iter()
                .map(|o| o.name.as_str())
                .collect();
            assert_eq!(outputs, vec!["résumé"], "{file}");
        }
    }
    // A name pactum does not read as one is named as such.
    let d = run_with(
        "## Ensures\n\n- `r+s`: at most 3 words\n",
        &[("bindings/svc/r+s.md", "Solid-state cells, summarised.\n")],
    );
    let g = grade_dir(d.path());
    let r = &g.contracts[0].clauses[0];
    assert!(!r.rationale.contains("no output at all"), "{}", r.rationale);
    assert!(r.rationale.contains("r+s"), "{}", r.rationale);
}

/// `<!-->` and `<!--->` are whole empty comments: they hide nothing after
/// them; a quoted word is found only as a word.
#[test]
fn empty_comments_and_quoted_words() {
    for c in ["<!-->", "<!--->"] {
        let out = format!("- oak\n\n{c}\n\n- pine\n- elm\n- ash\n- yew\n");
        assert_eq!(one("at most 3 items", &out), Verdict::Violated, "{c}");
    }
    never_green("saying \"safe\"", "The reactor is unsafe.\n");
    never_green("saying \"100\"", "It costs 1000 dollars.\n");
    assert_eq!(
        one("saying \"safe\"", "The reactor is safe.\n"),
        kept("saying \"safe\"")
    );
    assert_eq!(
        one("saying \"it is safe\"", "It is safe.\n"),
        Verdict::Satisfied
    );
    // One word said alone is a name, not the note asked for.
    assert_eq!(one("saying \"safe\"", "Safe.\n"), Verdict::NotEvaluable);
}
