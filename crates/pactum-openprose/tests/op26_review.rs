//! The twenty-sixth hostile review's findings, each shown green first
//! (its repro scripts): commitments outside the clauses in number words,
//! HTML, tables and other quote marks; a commitment on another output
//! inside a clause; flags, statuses and error lines in an output in
//! other forms; values a program writes for none; an open field list.

mod common;

use common::*;
use pactum_core::Verdict;
use pactum_openprose::import_run;

const SUM: &str = "Heat pump sales in Europe grew strongly in 2023, driven by subsidies and high gas prices across several markets.";

fn refused(body: &str) {
    refused_with(body, SUM);
}

const ENSURES: &str = "## Ensures\n\n- `summary`: at least 10 words\n";

#[test]
fn a_commitment_outside_the_clauses_in_any_number_word_quote_or_html_is_refused() {
    for notes in [
        "The summary has thirteen words.",
        "The summary has fifteen paragraphs.",
        "The summary has a thousand words.",
        "The summary has ninety or more words.",
        "The summary must say 'No sources were found.'",
        "The summary must say ‘No sources were found.’",
        "The summary must say „No sources were found.“",
        "The summary must say «No sources were found.»",
        "The summary must say 「No sources were found.」",
        "The summary must say `No sources were found.`",
        "<p>The summary has at least\n90 words.</p>",
        "<div>The summary has\nat least 90 words.</div>",
        "<ul><li>The summary\nhas at least 90 words.</li></ul>",
        "<blockquote>\nThe summary has\nat least 90 words.\n</blockquote>",
        "<table>\n<tr><td>The summary has\nat least 90 words.</td></tr>\n</table>",
        "<table><tr><th>output</th><th>min words</th></tr><tr><td>summary</td><td>90</td></tr></table>",
        "| | summary |\n|---|---|\n| words | ≥ 90 |",
        "Minimum words per output: summary 90.",
    ] {
        refused(&format!("{ENSURES}\n## Notes\n\n{notes}\n"));
    }
}

#[test]
fn a_step_naming_the_output_in_html_code_or_emphasis_is_refused() {
    for step in [
        "## Execution\n\nThen write the <code>summary</code> with 90+ words.",
        "## Execution\n\nThen write the <em>summary</em> with at least 90 words.",
        "## Execution\n\nThen write the <b>summary</b> with 90+ words.",
        "## Execution\n\nThen write the <kbd>summary</kbd> with 90+ words.",
        "## Strategies\n\n- keep the <em>summary</em> at 90+ words",
    ] {
        refused(&format!("{ENSURES}\n{step}\n"));
    }
}

#[test]
fn a_commitment_on_its_own_output_among_the_inputs_is_refused() {
    refused("## Ensures\n\n- `summary`: at least 10 words\n\n## Tools\n\n- `summarize`: writes the summary with at least 90 words\n");
    // `run_with` opens with `## Requires` / `- topic: …`.
    refused("- `summary`: at least 90 words\n\n## Ensures\n\n- `summary`: at least 10 words\n");
}

/// A clause on `report` naming the output `summary` in its own words is
/// never measured on `report`'s binding.
#[test]
fn a_clause_naming_another_output_is_the_judges() {
    for clause in [
        "- `report`: at least 10 words\n  - The summary: at least 9 words\n",
        "- `report`: at least 10 words\n  - the summary has at least 9 words\n",
        "- `report`: at least 10 words\n\n  The summary has at least 9 words.\n",
        "- `report`: at least 10 words; summary: at least 9 words\n",
        "- `report`: at least 10 words, and the summary at least 9 words\n",
    ] {
        let d = run_with(
            &format!("## Ensures\n\n{clause}- `summary`: says \"Sales grew.\"\n"),
            &[
                ("bindings/svc/report.md", SUM),
                ("bindings/svc/summary.md", "Sales grew.\n"),
            ],
        );
        match import_run(d.path()) {
            Err(_) => {}
            Ok(_) => {
                let g = grade_dir(d.path());
                let report = &g.contracts[0].clauses[0];
                assert_ne!(report.verdict, Verdict::Satisfied, "{clause}: {report:#?}");
            }
        }
    }
}

#[test]
fn flags_statuses_and_error_lines_in_an_output_are_the_judges() {
    let json = |s: String| one_at("at least 10 words", "bindings/svc/summary.json", &s);
    for extra in [
        format!(r#"{{"data": {{"summary": "{SUM}", "truncated": true}}}}"#),
        format!(r#"{{"data": {{"summary": "{SUM}", "exit_code": 1}}}}"#),
        format!(r#"{{"summary": "{SUM}", "meta": {{"ok": false}}}}"#),
        format!(r#"[{{"summary": "{SUM}", "truncated": true}}]"#),
        format!(r#"{{"summary": "{SUM}", "done": 0}}"#),
        format!(r#"{{"summary": "{SUM}", "partial": 1}}"#),
        format!(r#"["{SUM}", false]"#),
        format!(r#"{{"summary": "{SUM}", "http": 503}}"#),
        format!(r#"{{"summary": "{SUM}", "signal": 9}}"#),
        format!(
            r#"{{"summary": "{SUM} Traceback (most recent call last): File \"x.py\", line 3"}}"#
        ),
    ] {
        assert_ne!(json(extra.clone()), Verdict::Satisfied, "{extra}");
    }
    for line in [
        "ok: false",
        "truncated: true",
        "Success: false",
        "Complete: no",
        "Status: incomplete",
        "Note: output truncated.",
        "Result: error",
        "rc=1",
        "Return code: 2",
        "Max tokens reached.",
        "ECONNRESET",
        "KeyError: 'summary'",
    ] {
        assert_ne!(
            one("at least 10 words", &format!("{SUM}\n\n{line}\n")),
            Verdict::Satisfied,
            "{line}"
        );
    }
    for first in [
        "KeyError: 'summary'",
        "TypeError: x is undefined",
        "AssertionError: no sources",
    ] {
        assert_ne!(
            one("at least 10 words", &format!("{first}\n\n{SUM}\n")),
            Verdict::Satisfied,
            "{first}"
        );
    }
}

#[test]
fn a_json_list_said_to_be_cut_in_a_string_is_the_judges() {
    let items = r#""makers": [{"name": "Daikin", "country": "Japan"}, {"name": "Vaillant", "country": "Germany"}]"#;
    for extra in [
        r#""total": "5""#,
        r#""total": "5 makers""#,
        r#""summary": "2 out of 5 makers""#,
        r#""note": "two of five""#,
        r#""note": "list shortened""#,
        r#""note": "top two only""#,
        r#""note": "abridged""#,
        r#""note": "excerpt""#,
    ] {
        let out = format!("{{{items}, {extra}}}");
        assert_ne!(
            one_at(
                "each maker has: name, country",
                "bindings/svc/summary.json",
                &out
            ),
            Verdict::Satisfied,
            "{extra}"
        );
    }
}

#[test]
fn a_value_a_program_writes_for_none_fills_no_field() {
    for value in ["not_found", "#REF!", "Optional.empty", "#N/A", "undefined"] {
        let out = format!(
            r#"[{{"name": "Daikin", "country": "{value}"}}, {{"name": "Vaillant", "country": "Germany"}}, {{"name": "Bosch", "country": "Germany"}}]"#
        );
        assert_ne!(
            one_at(
                "each maker has: name, country",
                "bindings/svc/summary.json",
                &out
            ),
            Verdict::Satisfied,
            "{value}"
        );
    }
}

/// A wrong red: `etc.` read as a field no item had.
#[test]
fn an_open_field_list_is_the_judges_not_violated() {
    let out = r#"[{"name": "Daikin", "country": "Japan"}, {"name": "Vaillant", "country": "Germany"}, {"name": "Bosch", "country": "Germany"}]"#;
    assert_eq!(
        one_at(
            "each maker has: name, country, etc.",
            "bindings/svc/summary.json",
            out
        ),
        Verdict::NotEvaluable
    );
}
