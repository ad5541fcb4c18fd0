//! The terminal block of `pactum grade RUN_DIR` (`docs/openprose.md`):
//! per OpenProse run, the contract grader's overall score and verdict,
//! each contract's score, the conditional clauses, the untested paths,
//! the greens no judge read, the clauses that could not be graded and what would make them
//! gradable. Each contract's clauses are listed by the usual result lines
//! above it. Every text from the run is untrusted (SPEC §4): folded to one
//! line, stripped of escapes and bounded.

use pactum_core::score::OverallVerdict;
use pactum_core::text::one_line;
use pactum_openprose::RunGrade;

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

/// Renders every run's block; empty when no OpenProse run was graded.
/// Lists longer than `max` are cut, the rest counted.
pub fn render_runs(runs: &[RunGrade], max: usize) -> String {
    let mut s = String::new();
    for r in runs {
        s.push_str(&format!(
            "openprose run {} ({}, {}): {}\n",
            one_line(&r.run_id, 80),
            one_line(&r.system, 80),
            serde_json::to_value(r.layout)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
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
                c.status.label(),
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
        listed(
            &mut s,
            "untested paths (a conditional clause never triggered)",
            &r.untested_paths,
            max,
        );
        listed(
            &mut s,
            "satisfied by a measure alone, read by no judge (it counts what is written, not what it means)",
            &r.measured_only,
            max,
        );
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
                if let Some(rec) = r
                    .recommendations
                    .iter()
                    .find(|x| x.contract == u.contract && x.clause == u.clause)
                {
                    s.push_str(&format!("      → {}\n", one_line(&rec.suggestion, 300)));
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
