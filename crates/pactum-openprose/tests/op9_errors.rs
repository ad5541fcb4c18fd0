//! The ninth round: a second error in an `__error.md` written another
//! way than `# Error: name` is read or refused, never dropped.

use pactum_core::Verdict;
use pactum_openprose::import_run;

mod common;
use common::*;

/// Either the run is refused naming the error file, or the second error
/// is read and the contract is not a pass.
fn second_error_counted(error: &str) {
    if let Some(file) = second_error_counts(error) {
        assert!(file.ends_with("__error.md"), "{error:?}: {file}");
    }
}

#[test]
fn a_second_error_written_another_way_is_never_dropped() {
    for second in [
        "Error: crashed\n===============\n",
        "Error: crashed\n---------------\n",
        "<h1>Error: crashed</h1>\n",
        "<h2>\nError: crashed\n</h2>\n",
        "#Error: crashed\n",
        "# Error : crashed\n",
        "**Error:** crashed\n",
        "__Error:__ crashed\n",
        "# Errors: crashed\n",
        "| Error | crashed |\n|---|---|\n",
        "| kind | name |\n|---|---|\n| Error: crashed | x |\n",
        "<!-- Error: crashed -->\n",
        "[//]: # (Error: crashed)\n",
        "[//]: # \"Error: crashed\"\n",
        "Error: crashed\n",
        "ERROR - crashed\n",
        "[ERROR] crashed\n",
        "# E\u{200B}rror: crashed\n",
        "# Ｅｒｒｏｒ: crashed\n",
        "# &#69;rror: crashed\n",
        "> **Error:** crashed\n",
        "- Error: crashed\n",
        "# Fatal error: crashed\n",
        "# Error crashed\n",
        "It failed again; error: crashed\n",
        "<details><summary>Error: crashed</summary></details>\n",
        "`Error: crashed`\n",
        "[a]: # \"Error: crashed\"\n",
        "See <abbr title=\"Error: crashed\">this</abbr>.\n",
        "It stopped (error: crashed).\n",
    ] {
        second_error_counted(&format!(
            "# Error: search-failed\n\nThe search tool timed out.\n\n{second}"
        ));
    }
}

/// `# Error crashed`, a heading starting with the word, records the
/// error `crashed`; a fenced code block is the message's, not an error.
#[test]
fn headings_starting_with_error_are_errors_and_code_is_not() {
    let d = degraded("# Error search-failed\n\nThe search tool timed out.\n");
    let run = import_run(d.path()).expect("imports");
    assert_eq!(run.errors.len(), 1, "{:?}", run.errors);
    assert_eq!(run.errors[0].name, "search-failed");

    second_error_counted("# Error: search-failed <!-- Error: crashed -->\n");

    let d = degraded("# Error: search-failed\n\n# Error crashed\n");
    let run = import_run(d.path()).expect("imports");
    let names: Vec<&str> = run.errors.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["search-failed", "crashed"]);

    for code in [
        "```\n# Error: crashed\nError: crashed\n```\n",
        "~~~text\nError: upstream 503\n~~~\n",
        "    Error: crashed\n",
    ] {
        let d = degraded(&format!(
            "# Error: search-failed\n\nThe tool printed:\n\n{code}"
        ));
        let run = import_run(d.path()).unwrap_or_else(|e| panic!("{code:?}: {e:?}"));
        assert_eq!(run.errors.len(), 1, "{code:?}: {:?}", run.errors);
        let g = grade_dir(d.path());
        assert!(
            !by_text(&g).iter().any(|(_, v)| *v == Verdict::Violated),
            "{code:?}: {g:#?}"
        );
    }
    // Prose that mentions an error is the message.
    let d = degraded("# Error: search-failed\n\nThe search returned an error: 503.\nError handling retried twice.\n");
    let run = import_run(d.path()).expect("imports");
    assert_eq!(run.errors.len(), 1, "{:?}", run.errors);
}
