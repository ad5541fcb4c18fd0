//! The tenth round: an error file whose name only looks like
//! `__error.md` is read as one.

use pactum_openprose::import_run;

mod common;
use common::*;

#[test]
fn an_error_file_named_like_error_md_is_read() {
    for name in [
        "__error\u{200b}.md",
        "__\u{435}rror.md",
        "__error .md",
        "__error.txt",
        "__error.markdown",
        "__error",
        "__ERROR.MD",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(d.path(), "bindings/svc/out.md", "- a\n");
        write(
            d.path(),
            &format!("workspace/svc/{name}"),
            "# Error: crashed\n\nThe service crashed.\n",
        );
        let run = import_run(d.path()).unwrap_or_else(|e| panic!("{name:?}: {e:?}"));
        assert!(
            run.errors.iter().any(|e| e.name == "crashed"),
            "{name:?}: {:?}",
            run.errors
        );
    }
}

/// A run whose log ends `---error` never passes, even when the error is
/// named like a declared one whose degraded output is there.
#[test]
fn a_run_ending_in_an_error_is_never_satisfied() {
    for end in [
        "---error 2026-12-01T10:15:31Z search-failed: then the VM crashed and the run was aborted",
        "---error 2026-12-01T10:15:31Z search-failed",
        "---error 2026-12-01T10:15:31Z Search-Failed: OOM",
    ] {
        let d = run_root(&root(
            "## Ensures\n\n- `out`: at least 3 items\n- `other`: at least 3 items\n- if search-failed: `out` says \"no sources\"\n\n## Errors\n\n- search-failed: the search tool failed",
        ));
        write(d.path(), "bindings/svc/out.md", "no sources\n");
        write(d.path(), "bindings/svc/other.md", "- 1\n- 2\n- 3\n");
        write(
            d.path(),
            "vm.log.md",
            &format!("# run:r1 svc\nroot: root.prose.md\n1→ svc ✓\n{end}\n"),
        );
        let g = grade_dir(d.path());
        assert_ne!(g.status, pactum_core::TestStatus::Pass, "{end}: {g:#?}");
        assert_ne!(
            g.overall_verdict,
            Some(pactum_core::score::OverallVerdict::Satisfied),
            "{end}: {g:#?}"
        );
    }
}

/// A second error written with markup inside the word, numbered, in
/// capitals, or inside the first error's name is never dropped.
#[test]
fn a_second_error_through_markup_or_numbered_is_never_dropped() {
    for second in [
        "Err**or**: crashed\n",
        "Er<!-- -->ror: crashed\n",
        "[Err](x)or: crashed\n",
        "E*rror*: crashed\n",
        "_Err_or: crashed\n",
        "> Err**or**: crashed\n",
        "- Err**or**: crashed\n",
        "Error 2: crashed\n",
        "Error #2: crashed\n",
        "ERROR crashed\n",
    ] {
        let d = degraded(&format!(
            "# Error: search-failed\n\nThe search tool timed out.\n\n{second}"
        ));
        match import_run(d.path()) {
            Err(pactum_openprose::ImportError::RunFile { file, .. }) => {
                assert!(file.ends_with("__error.md"), "{second:?}: {file}")
            }
            Err(e) => panic!("{second:?}: {e:?}"),
            Ok(run) => panic!("{second:?}: read as {:?}", run.errors),
        }
    }
    // The name of an error holding another error.
    let d = run_root(&root("## Ensures\n\n- `out`: at least 3 items"));
    write(d.path(), "bindings/svc/out.md", "- a\n- b\n- c\n");
    write(
        d.path(),
        "workspace/svc/__error.md",
        "# Error: search-failed (Error: crashed)\n\nText.\n",
    );
    assert!(import_run(d.path()).is_err());
    // Prose about errors is still a message.
    let d = degraded("# Error: search-failed\n\nError handling retried twice, then gave up.\n");
    assert!(import_run(d.path()).is_ok());
}

/// A heading that shows no name never closes a section of clauses
/// unseen: the contract is refused, naming its line.
#[test]
fn a_heading_that_shows_nothing_inside_ensures_is_refused() {
    for empty in [
        "##",
        "#",
        "## <!-- -->",
        "# \u{200b}",
        "## \u{3164}",
        "## &nbsp;",
        "## **",
    ] {
        let d = run_root(&root(&format!(
            "## Ensures\n\n- `out`: a list\n\n{empty}\n\n- `out`: at least 5 items"
        )));
        write(d.path(), "bindings/svc/out.md", "- only one\n");
        match import_run(d.path()) {
            Err(e) => assert!(format!("{e}").contains("shows no name"), "{empty:?}: {e}"),
            Ok(_) => panic!("{empty:?}: read"),
        }
    }
    // A deeper empty heading keeps the section; a named one closes it.
    let d = run_root(&root(
        "## Ensures\n\n- `out`: a list\n\n### Details\n\n- `out`: at least 5 items",
    ));
    write(d.path(), "bindings/svc/out.md", "- only one\n");
    assert!(import_run(d.path()).is_ok());
}

/// A bound on items over a fenced JSON list, whatever surrounds the
/// fence, is the judge's: the Markdown count sees nothing inside code.
#[test]
fn a_count_over_fenced_json_anywhere_is_the_judges() {
    let array = "[\"a\",\"b\",\"c\",\"d\",\"e\"]";
    for output in [
        format!("# Items\n\n```json\n{array}\n```\n"),
        format!("```json\n{array}\n```\n\nDone.\n"),
        format!("Here is\nthe result:\n\n```json\n{array}\n```\n"),
        format!("Here is the result:\n\n```jsonc\n{array}\n```\n\nDone.\n"),
        format!("- one\n\n```js\n{array}\n```\n"),
    ] {
        for clause in ["at most 2 items", "at least 3 items", "exactly 5 items"] {
            assert_eq!(
                one(clause, &output),
                pactum_core::Verdict::NotEvaluable,
                "{clause} over {output:?}"
            );
        }
    }
}

/// A link no browser can open is no source for a lower bound.
#[test]
fn links_no_browser_can_open_are_no_sources() {
    for host in ["a.org:99999", "%00.org", "a.123"] {
        let output =
            format!("- [a](https://{host}/x)\n- [b](https://{host}/y)\n- [c](https://{host}/z)\n");
        assert_ne!(
            one("at least 3 sources", &output),
            pactum_core::Verdict::Satisfied,
            "{output}"
        );
    }
    assert_eq!(
        one(
            "at least 3 sources",
            "- [a](https://a.org/x)\n- [b](https://b.org/y)\n- [c](https://c.org/z)\n"
        ),
        pactum_core::Verdict::Satisfied
    );
}
