//! The twenty-seventh hostile review: an error's description naming an
//! output in plain words is read as the docs say (a false refusal
//! first); a clause counting another output's words is never violated
//! by its own (a wrong red first).

mod common;

use common::*;
use pactum_core::Verdict;
use pactum_openprose::import_run;

const SUM: &str = "Heat pump sales in Europe grew strongly in 2023, driven by subsidies and high gas prices across several markets.";

#[test]
fn an_errors_description_naming_an_output_in_plain_words_describes_the_error() {
    for error in [
        "- too-short: the draft summary had fewer than 10 words",
        "- too-long: the summary exceeded 500 words",
    ] {
        let d = run_with(
            &format!("## Ensures\n\n- `summary`: at least 10 words\n\n## Errors\n\n{error}\n"),
            &[("bindings/svc/summary.md", SUM)],
        );
        import_run(d.path()).unwrap_or_else(|e| panic!("{error}: {e}"));
    }
    // In code, it commits on the output.
    let d = run_with(
        "## Ensures\n\n- `summary`: at least 10 words\n\n## Errors\n\n- too-short: the `summary` then has at least 90 words\n",
        &[("bindings/svc/summary.md", SUM)],
    );
    assert!(import_run(d.path()).is_err());
}

#[test]
fn a_count_of_another_output_is_never_measured_on_this_one() {
    let long = format!("{SUM} {SUM} {SUM} {SUM} {SUM} {SUM}");
    let d = run_with(
        "## Ensures\n\n- `summary`: at least 10 words, and the report at least 90 words\n- `report`: at least 90 words\n",
        &[
            ("bindings/svc/summary.md", SUM),
            ("bindings/svc/report.md", &long),
        ],
    );
    let g = grade_dir(d.path());
    let summary = &g.contracts[0].clauses[0];
    assert_eq!(summary.verdict, Verdict::NotEvaluable, "{summary:#?}");
}
