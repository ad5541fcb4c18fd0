//! The fourteenth round: a judge's quote that only restates the clause,
//! the contract or the caller's words, and a JSON copy of the input
//! beside run-metadata strings, each shown here before it was fixed.

use pactum_core::{NotEvaluableReason, Verdict};

mod common;
use common::*;

const CLAUSE: &str = "a credible analysis of battery costs";

const FABRICATED: (Verdict, Option<NotEvaluableReason>) = (
    Verdict::NotEvaluable,
    Some(NotEvaluableReason::FabricatedEvidence),
);

/// The judge answers satisfied for `` `out`: {clause} `` over `out`,
/// quoting `quote`; `input` (if any) is the caller's `topic`.
fn judged(
    body: &str,
    out: &str,
    input: Option<&str>,
    quote: &str,
) -> (Verdict, Option<NotEvaluableReason>) {
    let d = run_root(&root(body));
    write(d.path(), "bindings/svc/out.md", out);
    if let Some(i) = input {
        write(
            d.path(),
            "bindings/caller/topic.md",
            &format!("# topic\nbinding: input\nsource: caller\n---\n{i}\n"),
        );
    }
    judged_run(d.path(), quote)
}

/// [`judged`] under the one clause `` `out`: {CLAUSE} ``.
fn judged_clause(
    out: &str,
    input: Option<&str>,
    quote: &str,
) -> (Verdict, Option<NotEvaluableReason>) {
    judged(
        &format!("## Ensures\n\n- `out`: {CLAUSE}"),
        out,
        input,
        quote,
    )
}

/// A judge's quote that is the clause's own words, restated in a sentence
/// of the output that adds words before or after them, backs nothing.
#[test]
fn a_judge_quote_of_the_clause_restated_backs_nothing() {
    for out in [
        "Our task: a credible analysis of battery costs. Costs are high.\n",
        "This is a credible analysis of battery costs, which are high.\n",
        "Costs are high.\n\nA credible analysis of battery costs.\n",
        "# Report\n\nHere is a credible analysis of battery costs as requested, and costs are high.\n",
    ] {
        assert_eq!(judged_clause(out, None, CLAUSE), FABRICATED, "{out:?}");
    }
    // Case, punctuation and white space are no words of the service's own.
    for quote in [
        "A credible analysis of battery costs.",
        "A CREDIBLE  analysis, of battery-costs",
    ] {
        let out = format!("Our task: {quote} Costs are high.\n");
        assert_eq!(judged_clause(&out, None, quote), FABRICATED, "{quote:?}");
    }
    // Mostly the clause's words, in order: one word in five changed or
    // added is still a restatement.
    for quote in [
        "a credible analysis of lithium battery costs",
        "a credible analysis of the battery costs",
        "a credible review of battery costs",
    ] {
        let out = format!("Our task: {quote}. Costs are high.\n");
        assert_eq!(judged_clause(&out, None, quote), FABRICATED, "{quote:?}");
    }
}

/// A judge's quote of the caller's words restated inside a sentence of
/// the output backs nothing, however the sentence goes on.
#[test]
fn a_judge_quote_of_the_callers_words_restated_backs_nothing() {
    let input = "We need a credible analysis of battery costs for the board";
    for (out, quote) in [
        (
            "Our task: a credible analysis of battery costs for the board. Costs are high.\n",
            "a credible analysis of battery costs for the board",
        ),
        (
            "You asked for a credible analysis of battery costs for the board, and costs are high.\n",
            "a credible analysis of battery costs for the board",
        ),
        // One word in nine changed.
        (
            "Our task: a credible analysis of battery prices for the board. Costs are high.\n",
            "a credible analysis of battery prices for the board",
        ),
    ] {
        assert_eq!(
            judged(
                "## Ensures\n\n- `out`: written for a board audience",
                out,
                Some(input),
                quote
            ),
            FABRICATED,
            "{out:?}"
        );
    }
}

/// A judge's quote of a sentence of the contract's source file (an
/// example it gives), restated inside a sentence of the output, backs
/// nothing.
#[test]
fn a_judge_quote_of_the_contract_restated_backs_nothing() {
    let example = "Pack prices keep falling across every market we track";
    let out = format!("In short: {example}, as the contract expects.\n");
    assert_eq!(
        judged(
            &format!("Example of the tone wanted: {example}.\n\n## Ensures\n\n- `out`: written in a confident tone"),
            &out,
            None,
            example,
        ),
        FABRICATED
    );
}

/// Quotes that share a few words with the clause, the contract or the
/// input, but say something of the service's own, still back the answer;
/// so does a text the clause asks to be said.
#[test]
fn a_judge_quote_of_the_services_own_words_stands() {
    for (out, quote) in [
        (
            "Battery packs fell to $115/kWh in 2024. Costs are high.\n",
            "Costs are high",
        ),
        (
            "Battery pack prices fell 20% in 2024, to $115 per kWh.\n",
            "Battery pack prices fell 20% in 2024, to $115 per kWh.",
        ),
        (
            "A credible analysis of battery costs shows pack prices fell 20% in 2024 as cell makers added capacity.\n",
            "A credible analysis of battery costs shows pack prices fell 20% in 2024 as cell makers added capacity.",
        ),
        (
            "Our analysis: battery costs fell by a fifth, led by cheaper cathodes.\n",
            "battery costs fell by a fifth, led by cheaper cathodes",
        ),
    ] {
        assert_eq!(
            judged_clause(out, Some("Solid-state batteries"), quote),
            (Verdict::Satisfied, None),
            "{quote:?}"
        );
    }
    // A text the clause quotes is what was asked: saying it is no copy.
    assert_eq!(
        judged(
            "## Ensures\n\n- `out`: says \"all systems nominal\" or \"all clear\"",
            "Status: all systems nominal after the night run.\n",
            None,
            "all systems nominal",
        ),
        (Verdict::Satisfied, None)
    );
}

const INPUT: &str =
    "Solid-state batteries promise higher energy density and better safety for electric vehicles";

/// `clause` over `body` as `summary.json` and as `summary.md`, the
/// caller's input [`INPUT`].
fn over_input(clause: &str, body: &str) -> [Verdict; 2] {
    ["bindings/svc/summary.json", "bindings/svc/summary.md"].map(|path| {
        let d = run_with(
            &format!("## Ensures\n\n- `summary`: {clause}\n"),
            &[
                (
                    "bindings/caller/topic.md",
                    &format!("# topic\nbinding: input\nsource: caller\n---\n{INPUT}\n"),
                ),
                (path, body),
            ],
        );
        let g = grade_dir(d.path());
        let v = by_text(&g);
        assert_eq!(v.len(), 1, "{g:#?}");
        v[0].1
    })
}

/// A JSON output whose only prose is a copy of the input, beside short
/// token-like strings (a model name, a status word, a language code, an
/// id, a timestamp), is no output of its own: those strings are metadata
/// like numbers and booleans, so the clause is the judge's, never green.
#[test]
fn a_json_copy_beside_metadata_strings_is_the_judges() {
    let shuffled = "Better safety and higher energy density for electric vehicles: solid-state batteries promise";
    for body in [
        format!(r#"{{"summary":"{INPUT}","model":"gpt-4o","status":"completed","lang":"en"}}"#),
        format!(
            r#"{{"summary":"{INPUT}","status":"success","id":"a1b2c3","created":"2026-12-01T10:00:00Z"}}"#
        ),
        format!(r#"{{"summary":"{INPUT}","status":"ok"}}"#),
        format!(r#"{{"summary":"{INPUT}","year":2024}}"#),
        format!(
            r#"{{"data":{{"summary":"{INPUT}"}},"meta":{{"model":"claude-3-5-sonnet","request_id":"req_01HX9","finish_reason":"end_turn","date":"2026-12-01"}}}}"#
        ),
        format!(r#"[{{"text":"{INPUT}","lang":"en-US","kind":"summary"}}]"#),
        format!(
            r#"{{"summary":"{INPUT}","model":"Claude 3.5 Sonnet","created":"Mon, 01 Dec 2026 10:00:00 GMT","status":"Request completed successfully"}}"#
        ),
        format!(
            r#"{{"summary":"{shuffled}","model":"gpt-4o","status":"completed","lang":"en","region":"eu-west-1"}}"#
        ),
    ] {
        for clause in ["at most 50 words", "a summary", "at least 5 words"] {
            for v in over_input(clause, &body) {
                assert_eq!(v, Verdict::NotEvaluable, "{clause:?} over {body}");
            }
        }
    }
}

/// A JSON copy of the input beside nothing of its own (an empty list)
/// is a copy; beside a value that only copies the input too, it is never
/// green.
#[test]
fn a_json_copy_beside_copied_or_empty_values_is_no_output_of_its_own() {
    for v in over_input(
        "at most 50 words",
        &format!(r#"{{"summary":"{INPUT}","sources":[]}}"#),
    ) {
        assert_eq!(v, Verdict::Violated);
    }
    for body in [
        format!(r#"{{"summary":"{INPUT}","topic":"Solid-state batteries"}}"#),
        format!(r#"{{"summary":"{INPUT}","tag":"batteries"}}"#),
    ] {
        for v in over_input("at most 50 words", &body) {
            assert_ne!(v, Verdict::Satisfied, "{body}");
        }
    }
}

/// A summary of the service's own beside metadata strings is its output:
/// the measures stand.
#[test]
fn a_json_summary_of_its_own_beside_metadata_stands() {
    let own = "Sulfide electrolytes lead; oxide cells trail on cost.";
    for body in [
        format!(
            r#"{{"summary":"{own}","model":"gpt-4o","status":"completed","lang":"en","created":"2026-12-01T10:00:00Z"}}"#
        ),
        format!(r#"{{"input":"{INPUT}","summary":"{own}","model":"gpt-4o","id":"a1b2c3"}}"#),
        format!(r#"{{"summary":"{own}","status":"ok"}}"#),
    ] {
        for clause in ["at most 50 words", "a summary"] {
            for v in over_input(clause, &body) {
                assert_eq!(v, kept(clause), "{clause:?} over {body}");
            }
        }
        // A lower bound on words over several string values is the
        // judge's: which value is the text asked for, keys do not tell.
        for v in over_input("at least 5 words", &body) {
            assert_eq!(v, Verdict::NotEvaluable, "{body}");
        }
    }
}
