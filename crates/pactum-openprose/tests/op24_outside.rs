//! Commitments outside the sections of clauses, read block by block as a
//! renderer shows them: wrapped over lines, marked up inside a word, a
//! heading that is the commitment, a step's paragraph, a section named
//! like the output, a sub-item or paragraph of a clause naming another
//! output. Each was a green before (the twenty-fourth review, still open
//! at the twenty-fifth); each is now refused naming its line. A real
//! contract's steps, naming phases after the outputs they make (`####
//! grade`), are not refused.

mod common;

use common::*;
use pactum_openprose::import_run;

const GOOD: &str = "Heat pumps are spreading fast across Europe because subsidies grew and the price of gas rose sharply in 2022.\n";

fn refused(body: &str) {
    refused_with(body, GOOD);
}

const ENSURES: &str = "## Ensures\n\n- `summary`: at least 10 words\n";

#[test]
fn a_commitment_wrapped_or_marked_up_outside_the_clauses_is_refused() {
    for notes in [
        "The summary has at\nleast 90 words.",
        "In the summary, write no fewer than 90\nwords.",
        "- The summary has at\n  least 90 words.",
        "- The summary has at least\n90 words.",
        "Write the summary with care.\nIt has at least 90 words.",
        "The summary has at least 90\\\nwords.",
        "The sum**mary** has at least 90 words.",
        "The sum*mary* has at least 90 words.",
        "- sum**mary**: at least 90 words",
        "Every summary item has: title, url.",
        // A name wrapped onto the next line, a definition-list form.
        "Key\npoints and the summary: at least 90 words",
        "summary\n: at least 90 words",
    ] {
        refused(&format!("{ENSURES}\n## Notes\n\n{notes}\n"));
    }
}

#[test]
fn a_heading_that_is_the_commitment_is_refused() {
    for rest in [
        "\n## Notes\n\n### summary: at least 90 words\n",
        "\n## Notes\n\n### The summary has at least 90 words\n",
        "\n## summary: at least 90 words\n",
        "\n### summary: at least 90 words\n",
        "\nsummary: at least 90 words\n---\n",
    ] {
        refused(&format!("{ENSURES}{rest}"));
    }
}

#[test]
fn a_step_naming_the_output_as_a_label_or_marked_is_refused() {
    for rest in [
        "\n## Execution\n\nMake sure the `summary` has at least 90 words.\n",
        "\n## Execution\n\n### `summary`\n\n- at least 90 words\n",
        "\n## Strategies\n\nKeep the **summary** to \"No sources were found.\" when nothing is found.\n",
        "\n## Execution\n\nsummary — at least 90 words\n",
        "\n## Execution\n\n- summary — at least 90 words\n",
        "\n## Strategies\n\n- summary — at least 90 words\n",
        "\n## Execution\n\n- summary | at least 90 words\n",
        "\n## Execution\n\n- summary > at least 90 words\n",
        "\n## Execution\n\n- summary ~ at least 90 words\n",
        "\n## Execution\n\n- summary ― at least 90 words\n",
    ] {
        refused(&format!("{ENSURES}{rest}"));
    }
}

#[test]
fn a_section_named_like_the_output_holds_its_commitments() {
    let d = |rest: &str| {
        let d = run_with(
            &format!("## Ensures\n\n- `errors`: at least 10 words\n{rest}"),
            &[("bindings/svc/errors.md", GOOD)],
        );
        assert!(import_run(d.path()).is_err(), "{rest:?}");
    };
    d("\n## Errors\n\n- at least 90 words\n");
    d("\n## Output details\n\n### Errors\n\n- at least 90 words\n");
    d("\n## Output details\n\n### Errors\n\nThe errors list has at least 90 words.\n");
}

#[test]
fn a_clause_item_labelling_another_output_is_never_measured_on_its_own() {
    // An output bound but declared by no clause.
    refused(
        "## Ensures\n\n- `report`: at least 10 words\n  - summary (markdown): at least 90 words\n",
    );
    // A paragraph of its own in the item, on a declared output.
    refused("## Ensures\n\n- `report`: at least 10 words\n\n  summary: at least 90 words\n- `summary`: says \"No sources were found.\"\n");
}

#[test]
fn a_bidirectional_control_in_a_contract_is_refused() {
    refused(&format!(
        "{ENSURES}\n## Notes\n\nThe \u{202e}yrammus\u{202c} has at least 90 words.\n"
    ));
}

/// The contract grader's own contract (the seed program, abridged):
/// steps under `#### grade` and `Each grade has: …` name a phase, and
/// are not refused.
#[test]
fn steps_named_after_the_outputs_they_make_are_not_refused() {
    let root = "---\nname: contract-grader\nkind: function\nversion: 0.15.0\n---\n\n# Contract Grader\n\nA run can pass inspection but fail contract grading if its contracts are vague and the inspector cannot distinguish \"met\" from \"not met.\"\n\n### Parameters\n\n- subject: run — the completed run to grade\n\n### Returns\n\n- grade: structured contract satisfaction report containing:\n    - run_id: string\n    - overall_score: 0-100 percentage of contract clauses satisfied\n\n### Errors\n\n- missing-root: the run directory does not contain root.prose.md\n\n### Execution\n\nGrade the run in three sequential phases. They are internal to producing the `grade` return value.\n\n#### extract\n\n- actual_output: content of the contract's bindings (truncated to 2000 chars per binding if longer)\n\n#### grade\n\nProduces, for each contract, for each declared clause: verdict, evidence, and confidence. Each grade has: contract_name, clause_text, verdict (\"satisfied\" / \"violated\"), evidence, confidence (0-100).\n\nStrategies:\n- when a clause mentions a specific count (\"3+ sources\", \"at least 5\"): count the actual items\n- grade each clause independently\n";
    let d = tempfile::tempdir().expect("tempdir");
    write(d.path(), "root.prose.md", root);
    write(
        d.path(),
        "vm.log.md",
        "# run:r contract-grader\nroot: root.prose.md\n1→ contract-grader ✓\n---end 2026-12-01T10:15:31Z\n",
    );
    write(
        d.path(),
        "bindings/contract-grader/grade.md",
        "# Grade\n\nrun_id: r\n\noverall_score: 100\n",
    );
    import_run(d.path()).expect("the grader's own contract is read");
}

#[test]
fn a_name_wrapped_onto_the_next_line_is_read_as_one() {
    let d = run_with(
        "## Ensures\n\n- `key_points`: at least 2 items\n\n## Notes\n\nKey\npoints: at least 9 items\n",
        &[("bindings/svc/key_points.md", "- Daikin leads\n- Bosch follows\n")],
    );
    assert!(import_run(d.path()).is_err());
}
