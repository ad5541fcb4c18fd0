//! The OpenProse block of `pactum grade RUN_DIR` (`docs/openprose.md`),
//! for the terminal and for the Markdown summary: per run, the contract
//! grader's overall score and verdict, each contract's score, the
//! conditional clauses, the untested paths, the greens no judge read, the
//! clauses that could not be graded and what would make them gradable.
//! Each contract's clauses are listed by the usual result lines. Every
//! text from the run is untrusted (SPEC §4): folded to one line, stripped
//! of escapes and bounded (and escaped for Markdown).

use pactum_core::score::OverallVerdict;
use pactum_core::text::one_line;
use pactum_core::TestStatus;
use pactum_openprose::grade::{ConditionalGrade, ContractGrade, Unevaluable};
use pactum_openprose::RunGrade;

use crate::markdown::markdown_text;

/// The longest run text (a path, a name, a rationale) one line shows.
const CHARS: usize = 200;

fn score(s: Option<f64>) -> String {
    s.map_or_else(|| "n/a".to_string(), |v| format!("{v:.1}"))
}

fn verdict(v: Option<OverallVerdict>) -> &'static str {
    match v {
        Some(OverallVerdict::Satisfied) => "satisfied",
        Some(OverallVerdict::Partial) => "partial",
        Some(OverallVerdict::Violated) => "violated",
        None => "nothing evaluable",
    }
}

/// `triggered` / `not triggered` / `trigger unknown`, then whether the
/// degraded output was provided, when known.
fn trigger_words(c: &ConditionalGrade) -> (&'static str, &'static str) {
    let triggered = match c.triggered {
        Some(true) => "triggered",
        Some(false) => "not triggered",
        None => "trigger unknown",
    };
    let provided = match c.degraded_output_provided {
        Some(true) => ", degraded output provided",
        Some(false) => ", degraded output missing",
        None => "",
    };
    (triggered, provided)
}

/// A contract's status as its row shows it: `PART` for one whose status
/// is `pass` (SPEC §3.5) with a clause only partly kept, which does not
/// pass (`docs/openprose.md`) and makes the run exit 1.
fn shown_status(c: &ContractGrade) -> &'static str {
    if c.status == TestStatus::Pass && c.counts.partially_satisfied > 0 {
        "PART"
    } else {
        c.status.label()
    }
}

/// The suggested rewrite of an unevaluable clause of `r`, if one.
fn suggestion<'a>(r: &'a RunGrade, u: &Unevaluable) -> Option<&'a str> {
    r.recommendations
        .iter()
        .find(|x| x.contract == u.contract && x.clause == u.clause)
        .map(|x| x.suggestion.as_str())
}

/// The layout's name as the JSON report writes it (`legacy`, `function`…).
fn layout_name(r: &RunGrade) -> String {
    serde_json::to_value(r.layout)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// What the list of measured-only greens is called.
const MEASURED_ONLY: &str =
    "satisfied by a measure alone, read by no judge (it counts what is written, not what it means)";

/// What the list of untested paths is called.
const UNTESTED: &str = "untested paths (a conditional clause never triggered)";

/// Renders every run's block; empty when no OpenProse run was graded.
/// Lists longer than `max` are cut, the rest counted.
pub fn render_runs(runs: &[RunGrade], max: usize) -> String {
    let mut s = String::new();
    for r in runs {
        s.push_str(&format!(
            "openprose run {} ({}, {}): {}\n",
            one_line(&r.run_id, 80),
            one_line(&r.system, 80),
            layout_name(r),
            one_line(&r.dir, CHARS)
        ));
        s.push_str(&format!(
            "  overall score {} — {}\n",
            score(r.overall_score),
            verdict(r.overall_verdict)
        ));
        for c in r.contracts.iter().take(max) {
            let n = c.clauses.len();
            s.push_str(&format!(
                "  {:<4} {}  score {}  ({} clause{}: {} satisfied, {} partial, {} violated, {} not evaluable, {} not triggered)\n",
                shown_status(c),
                one_line(&c.name, 80),
                score(c.contract_score),
                n,
                if n == 1 { "" } else { "s" },
                c.counts.satisfied,
                c.counts.partially_satisfied,
                c.counts.violated,
                c.counts.not_evaluable,
                c.counts.not_triggered
            ));
        }
        more(&mut s, r.contracts.len(), max, "    ");
        if !r.conditional_clauses.is_empty() {
            s.push_str("  conditional clauses:\n");
            for c in r.conditional_clauses.iter().take(max) {
                let (triggered, provided) = trigger_words(c);
                s.push_str(&format!(
                    "    {}/{}  if {}: {triggered}{provided} — {}\n",
                    one_line(&c.contract, 80),
                    one_line(&c.clause, 80),
                    one_line(&c.condition, 120),
                    c.verdict.as_str()
                ));
            }
            more(&mut s, r.conditional_clauses.len(), max, "    ");
        }
        listed(&mut s, UNTESTED, &r.untested_paths, max);
        listed(&mut s, MEASURED_ONLY, &r.measured_only, max);
        if !r.unevaluable_clauses.is_empty() {
            s.push_str(&format!(
                "  not evaluable ({}):\n",
                r.unevaluable_clauses.len()
            ));
            for u in r.unevaluable_clauses.iter().take(max) {
                s.push_str(&format!(
                    "    {}/{}  {}: {}\n",
                    one_line(&u.contract, 80),
                    one_line(&u.clause, 80),
                    u.reason.as_str(),
                    one_line(&u.explanation, CHARS)
                ));
                if let Some(rec) = suggestion(r, u) {
                    s.push_str(&format!("      → {}\n", one_line(rec, 300)));
                }
            }
            more(&mut s, r.unevaluable_clauses.len(), max, "    ");
        }
        s.push('\n');
    }
    s
}

/// One line `  {label}: a, b and n more`, none for an empty list.
fn listed(s: &mut String, label: &str, items: &[String], max: usize) {
    if items.is_empty() {
        return;
    }
    let shown: Vec<String> = items.iter().take(max).map(|p| one_line(p, 120)).collect();
    s.push_str(&format!(
        "  {label}: {}{}\n",
        shown.join(", "),
        if items.len() > max {
            format!(" and {} more", items.len() - max)
        } else {
            String::new()
        }
    ));
}

fn more(s: &mut String, len: usize, max: usize, indent: &str) {
    if len > max {
        s.push_str(&format!(
            "{indent}… and {} more (see the JSON report)\n",
            len - max
        ));
    }
}

/// The Markdown block of every run, for the summary (`--markdown`): a
/// heading with the overall score and verdict, a table of the contracts,
/// then the conditional clauses, untested paths, measured-only greens and
/// unevaluable clauses with their suggested rewrites. Lists longer than
/// `max` are cut, the rest counted; runs past `budget` bytes are counted
/// in a closing line, never half shown.
pub(crate) fn markdown_runs(runs: &[RunGrade], max: usize, budget: usize) -> String {
    let mut s = String::new();
    for (i, r) in runs.iter().enumerate() {
        let block = markdown_run(r, max);
        if s.len() + block.len() > budget {
            s.push_str(&format!(
                "{} more OpenProse run(s) not shown: this summary is bounded; the JSON report (`--json`) has every run.\n\n",
                runs.len() - i
            ));
            break;
        }
        s.push_str(&block);
    }
    s
}

fn markdown_run(r: &RunGrade, max: usize) -> String {
    let md = markdown_text;
    let mut s = format!(
        "### OpenProse run {}: overall score {} — {}\n\n{} ({} layout), {}\n\n",
        md(&r.run_id, 80),
        score(r.overall_score),
        verdict(r.overall_verdict),
        md(&r.system, 80),
        md(&layout_name(r), 20),
        md(&r.dir, CHARS),
    );
    if !r.contracts.is_empty() {
        s.push_str("| status | contract | score | satisfied | partial | violated | not evaluable | not triggered |\n|---|---|---|---|---|---|---|---|\n");
        for c in r.contracts.iter().take(max) {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                shown_status(c),
                md(&c.name, 80),
                score(c.contract_score),
                c.counts.satisfied,
                c.counts.partially_satisfied,
                c.counts.violated,
                c.counts.not_evaluable,
                c.counts.not_triggered
            ));
        }
        s.push('\n');
        md_more(&mut s, r.contracts.len(), max);
    }
    if !r.conditional_clauses.is_empty() {
        s.push_str("Conditional clauses:\n\n");
        for c in r.conditional_clauses.iter().take(max) {
            let (triggered, provided) = trigger_words(c);
            s.push_str(&format!(
                "- {}/{}: if {}: {triggered}{provided} — {}\n",
                md(&c.contract, 80),
                md(&c.clause, 80),
                md(&c.condition, 120),
                c.verdict.as_str()
            ));
        }
        s.push('\n');
        md_more(&mut s, r.conditional_clauses.len(), max);
    }
    for (label, items) in [
        (UNTESTED, &r.untested_paths),
        (MEASURED_ONLY, &r.measured_only),
    ] {
        if items.is_empty() {
            continue;
        }
        let shown: Vec<String> = items.iter().take(max).map(|p| md(p, 120)).collect();
        s.push_str(&format!("{}: {}\n\n", capitalised(label), shown.join(", ")));
        md_more(&mut s, items.len(), max);
    }
    if !r.unevaluable_clauses.is_empty() {
        s.push_str(&format!(
            "Not evaluable ({}):\n\n",
            r.unevaluable_clauses.len()
        ));
        for u in r.unevaluable_clauses.iter().take(max) {
            s.push_str(&format!(
                "- {}/{}: {}: {}\n",
                md(&u.contract, 80),
                md(&u.clause, 80),
                u.reason.as_str(),
                md(&u.explanation, CHARS)
            ));
            if let Some(rec) = suggestion(r, u) {
                s.push_str(&format!("  - suggested: {}\n", md(rec, 300)));
            }
        }
        s.push('\n');
        md_more(&mut s, r.unevaluable_clauses.len(), max);
    }
    s
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn md_more(s: &mut String, len: usize, max: usize) {
    if len > max {
        s.push_str(&format!(
            "… and {} more (see the JSON report)\n\n",
            len - max
        ));
    }
}
