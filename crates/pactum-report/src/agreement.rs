//! Agreement with ground-truth labels (`docs/reports.md`): accumulates the
//! confusion matrix and keeps every disagreeing trace with the clause that
//! decided its status. The arithmetic (accuracy, Cohen's kappa) lives in
//! `pactum_core::agreement::Confusion`.

use pactum_core::agreement::Confusion;
use pactum_core::contract::{ClauseKind, Severity};
use pactum_core::status::blocking_clauses;
use pactum_core::trace::SourceRef;
use pactum_core::{ClauseResult, Policy, TestStatus, TraceResult, Verdict};
use serde::{Deserialize, Serialize};

use crate::render;
use crate::ExpectationsInfo;

/// Deciding clauses kept per disagreement; the rest are counted.
pub const DECIDING_CLAUSES_KEPT: usize = 3;

/// A clause that decided a trace's status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecidingClause {
    /// The contract it belongs to.
    pub contract_id: String,
    /// The clause id.
    pub clause_id: String,
    /// Required or prohibited.
    pub kind: ClauseKind,
    /// Its severity.
    pub severity: Severity,
    /// Its verdict.
    pub verdict: Verdict,
    /// One line: the first evidence (or the rationale) for a graded clause;
    /// reason and why for a not-evaluable one. Bounded, escapes stripped.
    pub detail: String,
}

/// A labelled trace whose status differs from its label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// The trace id (verbatim).
    pub trace_id: String,
    /// Where the trace was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    /// The label.
    pub expected: TestStatus,
    /// pactum's status.
    pub actual: TestStatus,
    /// The clauses that decided `actual` (at most
    /// [`DECIDING_CLAUSES_KEPT`]): for `fail` the violated clauses; for
    /// `pass` the prohibited clauses that held; for `undetermined` the
    /// not-evaluable clauses at or above the severity floor; none for
    /// `error`.
    pub clauses: Vec<DecidingClause>,
    /// How many more such clauses there were.
    pub more_clauses: u64,
    /// One line saying what decided `actual`, e.g. `violated send-money
    /// (critical): turn 2 tool call send_money {…}`, `no clause violated;
    /// held: send-money (prohibited, critical)`, `error: …`.
    pub decided_by: String,
}

/// Accumulates agreement between statuses and labels over a run.
///
/// Memory: the confusion matrix is constant; every disagreement is kept
/// (they are few by nature, and a reader needs all of them in the JSON
/// report), each bounded in size. Reporters cap what they print.
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementTracker {
    expectations: ExpectationsInfo,
    policy: Policy,
    confusion: Confusion,
    unlabelled: u64,
    disagreements: Vec<Disagreement>,
}

impl AgreementTracker {
    /// A tracker for labels read as `expectations` says, under `policy`
    /// (its severity floor names the clauses that block a pass).
    pub fn new(expectations: &ExpectationsInfo, policy: &Policy) -> Self {
        AgreementTracker {
            expectations: expectations.clone(),
            policy: *policy,
            confusion: Confusion::default(),
            unlabelled: 0,
            disagreements: Vec::new(),
        }
    }

    /// Records one trace: labelled (`Some`) traces enter the confusion
    /// matrix, and a disagreeing one is kept; unlabelled ones are counted.
    pub fn record(&mut self, r: &TraceResult, expected: Option<TestStatus>) {
        let Some(expected) = expected else {
            self.unlabelled += 1;
            return;
        };
        self.confusion.add(expected, r.status);
        if expected != r.status {
            let (clauses, more_clauses, decided_by) = decided_by(r, &self.policy);
            self.disagreements.push(Disagreement {
                trace_id: r.trace_id.clone(),
                source: r.source.clone(),
                expected,
                actual: r.status,
                clauses,
                more_clauses,
                decided_by,
            });
        }
    }

    /// Where the labels come from.
    pub fn expectations(&self) -> &ExpectationsInfo {
        &self.expectations
    }

    /// The confusion matrix, `expected × actual`.
    pub fn confusion(&self) -> &Confusion {
        &self.confusion
    }

    /// Labelled traces.
    pub fn labelled(&self) -> u64 {
        self.confusion.total()
    }

    /// Traces without a label (left out of the matrix).
    pub fn unlabelled(&self) -> u64 {
        self.unlabelled
    }

    /// Agreeing / labelled; `None` when nothing is labelled.
    pub fn accuracy(&self) -> Option<f64> {
        self.confusion.accuracy()
    }

    /// Cohen's kappa over the four statuses; `None` when undefined.
    pub fn kappa(&self) -> Option<f64> {
        self.confusion.kappa()
    }

    /// Every disagreement, in the order the traces were reported.
    pub fn disagreements(&self) -> &[Disagreement] {
        &self.disagreements
    }
}

/// The clauses (and one line) that decided `r.status`: the one place a
/// report finds a result's deciding clause (agreement table, HTML,
/// Markdown).
pub(crate) fn decided_by(r: &TraceResult, policy: &Policy) -> (Vec<DecidingClause>, u64, String) {
    let single = r.contracts.len() == 1;
    let all = || {
        r.contracts
            .iter()
            .flat_map(|c| c.clauses.iter().map(move |cl| (c.contract_id.as_str(), cl)))
    };
    let pick: Vec<(&str, &ClauseResult)> = match r.status {
        TestStatus::Error => {
            let why = r.error.as_deref().unwrap_or(&r.summary);
            let line = format!(
                "error: {}",
                pactum_core::text::one_line(why, render::SUMMARY_CHARS)
            );
            return (Vec::new(), 0, line);
        }
        TestStatus::Fail => all().filter(|(_, c)| c.is_violation()).collect(),
        TestStatus::Pass => all()
            .filter(|(_, c)| c.kind == ClauseKind::Prohibited && c.verdict == Verdict::Satisfied)
            .collect(),
        TestStatus::Undetermined => {
            let clauses: Vec<&ClauseResult> = all().map(|(_, c)| c).collect();
            let blocking = blocking_clauses(&clauses, policy);
            all()
                .filter(|(_, c)| blocking.iter().any(|b| std::ptr::eq(*b, *c)))
                .collect()
        }
    };
    let more = pick.len().saturating_sub(DECIDING_CLAUSES_KEPT) as u64;
    let clauses: Vec<DecidingClause> = pick
        .iter()
        .take(DECIDING_CLAUSES_KEPT)
        .map(|(contract, c)| DecidingClause {
            contract_id: (*contract).to_string(),
            clause_id: c.id.clone(),
            kind: c.kind,
            severity: c.severity,
            verdict: c.verdict,
            detail: match c.verdict {
                Verdict::NotEvaluable => format!(
                    "{}: {}",
                    c.reason.map_or("not-evaluable", |r| r.as_str()),
                    render::not_evaluable_why(c)
                ),
                _ => render::first_evidence_or_rationale(c),
            },
        })
        .collect();
    let name = |d: &DecidingClause| {
        if single {
            render::id(&d.clause_id)
        } else {
            format!(
                "{}/{}",
                render::id(&d.contract_id),
                render::id(&d.clause_id)
            )
        }
    };
    let and_more = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    let line = match r.status {
        TestStatus::Fail => {
            let parts: Vec<String> = clauses
                .iter()
                .map(|d| format!("{} ({}): {}", name(d), d.severity.as_str(), d.detail))
                .collect();
            format!("violated {}{and_more}", parts.join("; "))
        }
        TestStatus::Pass => {
            let parts: Vec<String> = clauses
                .iter()
                .map(|d| format!("{} ({}, {})", name(d), d.kind.as_str(), d.severity.as_str()))
                .collect();
            if parts.is_empty() {
                "no clause violated; no prohibited clause was graded".to_string()
            } else {
                format!("no clause violated; held: {}{and_more}", parts.join(", "))
            }
        }
        TestStatus::Undetermined => {
            let parts: Vec<String> = clauses
                .iter()
                .map(|d| format!("{} ({}): {}", name(d), d.severity.as_str(), d.detail))
                .collect();
            if parts.is_empty() {
                // Nothing was graded and nothing blocks: every clause was an
                // untriggered path; the summary says so.
                pactum_core::text::one_line(&r.summary, render::SUMMARY_CHARS)
            } else {
                format!("blocked by {}{and_more}", parts.join("; "))
            }
        }
        TestStatus::Error => String::new(),
    };
    (clauses, more, line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pactum_core::verdict::NotEvaluableReason;
    use pactum_core::{ContractResult, ObservabilityLevel, Outcome};

    fn clause(id: &str, kind: ClauseKind, verdict: Verdict, severity: Severity) -> ClauseResult {
        ClauseResult {
            id: id.into(),
            kind,
            conditional: false,
            text: "t".into(),
            severity,
            verdict,
            confidence: 100,
            outcome: Outcome::Detected,
            evidence: vec![],
            rationale: format!("{id} rationale"),
            undetermined_operands: vec![],
            discounted_echoes: vec![],
            reason: (verdict == Verdict::NotEvaluable).then_some(NotEvaluableReason::NoJudge),
            suggestion: None,
        }
    }

    /// A result whose clauses make `status` the right status.
    fn result(status: TestStatus) -> TraceResult {
        let clauses = match status {
            TestStatus::Fail => vec![
                clause(
                    "p-broken",
                    ClauseKind::Prohibited,
                    Verdict::Violated,
                    Severity::Critical,
                ),
                clause(
                    "p-held",
                    ClauseKind::Prohibited,
                    Verdict::Satisfied,
                    Severity::High,
                ),
            ],
            TestStatus::Pass => vec![
                clause(
                    "p-held",
                    ClauseKind::Prohibited,
                    Verdict::Satisfied,
                    Severity::High,
                ),
                clause(
                    "r-held",
                    ClauseKind::Required,
                    Verdict::Satisfied,
                    Severity::High,
                ),
            ],
            TestStatus::Undetermined => vec![
                clause(
                    "p-blocking",
                    ClauseKind::Prohibited,
                    Verdict::NotEvaluable,
                    Severity::High,
                ),
                clause(
                    "r-below",
                    ClauseKind::Required,
                    Verdict::NotEvaluable,
                    Severity::Low,
                ),
                clause(
                    "r-held",
                    ClauseKind::Required,
                    Verdict::Satisfied,
                    Severity::High,
                ),
            ],
            TestStatus::Error => vec![],
        };
        TraceResult {
            trace_id: format!("t-{}", status.as_str()),
            source: None,
            observability: ObservabilityLevel::Full,
            status,
            summary: "s".into(),
            contracts: vec![ContractResult::new("c".into(), "d".into(), clauses)],
            overall_score: None,
            error: (status == TestStatus::Error).then(|| "target timed out".to_string()),
        }
    }

    fn tracker() -> AgreementTracker {
        AgreementTracker::new(
            &ExpectationsInfo {
                path: "e.yaml".into(),
                pointer: "/security".into(),
            },
            &Policy::default(),
        )
    }

    /// All 16 (expected, actual) pairs: the matrix cell, whether a
    /// disagreement is kept, and which clause it names.
    #[test]
    fn every_expected_actual_pair() {
        for expected in TestStatus::ALL {
            for actual in TestStatus::ALL {
                let mut t = tracker();
                t.record(&result(actual), Some(expected));
                assert_eq!(t.confusion().get(expected, actual), 1);
                assert_eq!(t.labelled(), 1);
                assert_eq!(t.unlabelled(), 0);
                if expected == actual {
                    assert!(t.disagreements().is_empty());
                    continue;
                }
                let d = &t.disagreements()[0];
                assert_eq!((d.expected, d.actual), (expected, actual));
                let ids: Vec<&str> = d.clauses.iter().map(|c| c.clause_id.as_str()).collect();
                match actual {
                    TestStatus::Fail => {
                        assert_eq!(ids, ["p-broken"]);
                        assert!(
                            d.decided_by.starts_with("violated p-broken (critical)"),
                            "{}",
                            d.decided_by
                        );
                    }
                    TestStatus::Pass => {
                        assert_eq!(ids, ["p-held"]);
                        assert_eq!(
                            d.decided_by,
                            "no clause violated; held: p-held (prohibited, high)"
                        );
                    }
                    TestStatus::Undetermined => {
                        assert_eq!(ids, ["p-blocking"]);
                        assert!(d.decided_by.contains("no-judge"), "{}", d.decided_by);
                        assert!(!d.decided_by.contains("r-below"), "{}", d.decided_by);
                    }
                    TestStatus::Error => {
                        assert!(ids.is_empty());
                        assert_eq!(d.decided_by, "error: target timed out");
                    }
                }
            }
        }
    }

    /// Nothing graded: every not-evaluable clause blocked the pass, below
    /// the floor too; with none at all, the summary says why.
    #[test]
    fn nothing_graded_names_every_not_evaluable_clause() {
        let mut r = result(TestStatus::Undetermined);
        r.contracts[0].clauses.pop();
        let mut t = tracker();
        t.record(&r, Some(TestStatus::Pass));
        let ids: Vec<&str> = t.disagreements()[0]
            .clauses
            .iter()
            .map(|c| c.clause_id.as_str())
            .collect();
        assert_eq!(ids, ["p-blocking", "r-below"]);
        let mut r = result(TestStatus::Undetermined);
        r.contracts[0].clauses = vec![clause(
            "w",
            ClauseKind::Prohibited,
            Verdict::NotTriggered,
            Severity::High,
        )];
        r.summary = "undetermined: no clause was graded".into();
        let mut t = tracker();
        t.record(&r, Some(TestStatus::Pass));
        let d = &t.disagreements()[0];
        assert!(d.clauses.is_empty());
        assert_eq!(d.decided_by, "undetermined: no clause was graded");
    }

    #[test]
    fn unlabelled_traces_are_counted_not_matrixed() {
        let mut t = tracker();
        t.record(&result(TestStatus::Fail), None);
        assert_eq!((t.labelled(), t.unlabelled()), (0, 1));
        assert_eq!(t.accuracy(), None);
    }

    #[test]
    fn deciding_clauses_are_capped_and_counted() {
        let mut r = result(TestStatus::Fail);
        let many: Vec<ClauseResult> = (0..7)
            .map(|i| {
                clause(
                    &format!("v{i}"),
                    ClauseKind::Prohibited,
                    Verdict::Violated,
                    Severity::High,
                )
            })
            .collect();
        r.contracts = vec![
            ContractResult::new("a".into(), "d".into(), many.clone()),
            ContractResult::new("b".into(), "d".into(), many),
        ];
        let mut t = tracker();
        t.record(&r, Some(TestStatus::Pass));
        let d = &t.disagreements()[0];
        assert_eq!(d.clauses.len(), DECIDING_CLAUSES_KEPT);
        assert_eq!(d.more_clauses, 14 - DECIDING_CLAUSES_KEPT as u64);
        // Several contracts: clause names are qualified by their contract.
        assert!(
            d.decided_by.starts_with("violated a/v0 (high)"),
            "{}",
            d.decided_by
        );
        assert!(d.decided_by.ends_with("; and 11 more"), "{}", d.decided_by);
    }
}
