//! Hostile review: a trace's tool arguments nested deep enough for the
//! trace reader (119 levels) are written to the JSON report, but the HTML
//! page and the Markdown summary read that report back with serde_json's
//! default recursion limit and refuse it, so a target can suppress both
//! (SPEC §4: rendering a value never aborts a summary). Fails today.

mod support;

use pactum_core::{Evidence, TestStatus, TraceResult};
use pactum_report::{HtmlReporter, JsonReporter, MarkdownReporter, Reporter};
use support::*;

/// `{"a": {"a": … "x"}}`, `depth` objects deep.
fn nested(depth: usize) -> serde_json::Value {
    let mut v = serde_json::json!("x");
    for _ in 0..depth {
        v = serde_json::json!({ "a": v });
    }
    v
}

/// The mixed fixture with one tool call's arguments nested `depth` deep.
fn deep_results(depth: usize) -> Vec<(TraceResult, Option<TestStatus>)> {
    let mut results = mixed_results();
    let clause = results
        .iter_mut()
        .flat_map(|r| r.contracts.iter_mut())
        .flat_map(|c| c.clauses.iter_mut())
        .find(|c| {
            c.evidence
                .iter()
                .any(|e| matches!(e, Evidence::ToolCall { .. }))
        })
        .expect("the fixture has a tool-call evidence");
    for e in &mut clause.evidence {
        if let Evidence::ToolCall { arguments, .. } = e {
            *arguments = nested(depth);
        }
    }
    unlabelled(results)
}

fn finishes<R: Reporter>(mut r: R) -> Result<(), String> {
    let results = deep_results(119);
    r.begin(&run_info(false)).map_err(|e| e.to_string())?;
    for (res, expected) in &results {
        r.result(res, *expected).map_err(|e| e.to_string())?;
    }
    r.finish(&run_end()).map_err(|e| e.to_string())
}

#[test]
fn deeply_nested_evidence_does_not_abort_the_page_or_the_summary() {
    let mut json = Vec::new();
    finishes(JsonReporter::new(&mut json)).expect("the JSON report is written");
    let mut html = Vec::new();
    let page = finishes(HtmlReporter::new(&mut html).expect("spool"));
    let mut md = Vec::new();
    let summary = finishes(MarkdownReporter::new(&mut md).expect("spool"));
    assert!(
        page.is_ok() && summary.is_ok(),
        "the JSON report was written, but: html {page:?}; markdown {summary:?}"
    );
}
