//! Test status and its one-line summary (SPEC §3.5).

use serde::{Deserialize, Serialize};

use crate::contract::Severity;
use crate::policy::Policy;
use crate::result::ContractResult;
use crate::text::one_line;
use crate::verdict::{ClauseResult, Verdict};

/// The status of one test (one trace, or one trial).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    /// A clause was violated.
    Fail,
    /// The contract was unusable or the infrastructure failed, or there was
    /// no response to grade.
    Error,
    /// Nothing violated, but a clause at or above the severity floor could
    /// not be evaluated. Shown as WARN.
    Undetermined,
    /// Every clause at or above the floor held.
    Pass,
}

impl TestStatus {
    /// Every status, in report order (failures first).
    pub const ALL: [TestStatus; 4] = [
        TestStatus::Fail,
        TestStatus::Error,
        TestStatus::Undetermined,
        TestStatus::Pass,
    ];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            TestStatus::Pass => "pass",
            TestStatus::Fail => "fail",
            TestStatus::Undetermined => "undetermined",
            TestStatus::Error => "error",
        }
    }

    /// The terminal label: PASS, FAIL, WARN or ERR.
    pub fn label(self) -> &'static str {
        match self {
            TestStatus::Pass => "PASS",
            TestStatus::Fail => "FAIL",
            TestStatus::Undetermined => "WARN",
            TestStatus::Error => "ERR",
        }
    }

    /// Parses the snake_case name (also accepts `warn` and `err`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "pass" => Some(TestStatus::Pass),
            "fail" => Some(TestStatus::Fail),
            "undetermined" | "warn" => Some(TestStatus::Undetermined),
            "error" | "err" => Some(TestStatus::Error),
            _ => None,
        }
    }
}

/// Decides a test's status from its graded contracts (SPEC §3.5):
/// `error` when `error` is set (unusable contract, failed infrastructure, no
/// response); `fail` when any clause is a violation; `undetermined` when a
/// clause at or above `policy.severity_floor` is not evaluable; else `pass`.
/// The summary names what was left undetermined, even on a pass.
pub fn decide(
    contracts: &[ContractResult],
    error: Option<&str>,
    policy: &Policy,
) -> (TestStatus, String) {
    if let Some(e) = error {
        return (TestStatus::Error, format!("error: {}", one_line(e, 200)));
    }
    let clauses: Vec<&ClauseResult> = contracts.iter().flat_map(|c| c.clauses.iter()).collect();
    let violations: Vec<&ClauseResult> = clauses
        .iter()
        .copied()
        .filter(|c| c.is_violation())
        .collect();
    let not_evaluable: Vec<&ClauseResult> = clauses
        .iter()
        .copied()
        .filter(|c| c.verdict == Verdict::NotEvaluable)
        .collect();
    let (blocking, below): (Vec<&ClauseResult>, Vec<&ClauseResult>) = not_evaluable
        .iter()
        .copied()
        .partition(|c| c.severity >= policy.severity_floor);
    let untested: Vec<&ClauseResult> = clauses
        .iter()
        .copied()
        .filter(|c| c.verdict == Verdict::NotTriggered)
        .collect();

    if !violations.is_empty() {
        let mut s = String::from("violated ");
        s.push_str(&list(&violations, 2, |c| {
            format!(
                "{} ({}): {}",
                c.id,
                c.severity.as_str(),
                violation_detail(c)
            )
        }));
        if !not_evaluable.is_empty() {
            s.push_str("; also not evaluable: ");
            s.push_str(&list(&not_evaluable, 2, undetermined_detail));
        }
        return (TestStatus::Fail, s);
    }
    if !blocking.is_empty() {
        let mut s = String::from("undetermined: ");
        s.push_str(&list(&blocking, 2, undetermined_detail));
        return (TestStatus::Undetermined, s);
    }
    let graded = clauses.iter().filter(|c| c.is_evaluable()).count();
    let mut s = format!("{graded} clause(s) held");
    if !below.is_empty() {
        s.push_str(&format!(
            "; left undetermined below the {} floor: ",
            policy.severity_floor.as_str()
        ));
        s.push_str(&list(&below, 2, undetermined_detail));
    }
    if !untested.is_empty() {
        s.push_str("; untested path: ");
        s.push_str(&list(&untested, 2, |c| c.id.clone()));
    }
    (TestStatus::Pass, s)
}

/// Joins the first `shown` items and counts the rest ("and 3 more").
fn list(items: &[&ClauseResult], shown: usize, f: impl Fn(&ClauseResult) -> String) -> String {
    let mut parts: Vec<String> = items.iter().take(shown).map(|c| f(c)).collect();
    if items.len() > shown {
        parts.push(format!("and {} more", items.len() - shown));
    }
    parts.join("; ")
}

fn violation_detail(c: &ClauseResult) -> String {
    use crate::outcome::Evidence;
    match c.evidence.first() {
        Some(Evidence::ToolCall {
            name, arguments, ..
        }) => format!("tool call {name} {}", one_line(&arguments.to_string(), 120)),
        Some(Evidence::Quote { turn, source, text }) => {
            format!("turn {turn} {source} \"{}\"", one_line(text, 120))
        }
        Some(Evidence::SideEffect {
            effect, details, ..
        }) => {
            format!(
                "side effect {effect} {}",
                one_line(&details.to_string(), 120)
            )
        }
        Some(Evidence::Field { pointer, value }) => {
            format!("field {pointer} = {}", one_line(&value.to_string(), 80))
        }
        None => one_line(&c.rationale, 160),
    }
}

/// "id (severity, reason: first two distinct operand reasons, and N more)".
fn undetermined_detail(c: &ClauseResult) -> String {
    let reason = c.reason.map_or("not evaluable", |r| r.as_str());
    let mut reasons: Vec<&str> = Vec::new();
    for u in &c.undetermined_operands {
        if !u.reason.trim().is_empty() && !reasons.contains(&u.reason.as_str()) {
            reasons.push(&u.reason);
        }
    }
    let detail = if reasons.is_empty() {
        one_line(&c.rationale, 160)
    } else {
        let mut d: Vec<String> = reasons.iter().take(2).map(|r| one_line(r, 200)).collect();
        if reasons.len() > 2 {
            d.push(format!("and {} more", reasons.len() - 2));
        }
        d.join("; ")
    };
    if detail.is_empty() {
        format!("{} ({}, {reason})", c.id, c.severity.as_str())
    } else {
        format!("{} ({}, {reason}): {detail}", c.id, c.severity.as_str())
    }
}

/// Whether `severity` is at or above the policy's floor.
pub fn at_or_above_floor(severity: Severity, policy: &Policy) -> bool {
    severity >= policy.severity_floor
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ClauseKind;
    use crate::outcome::Outcome;
    use crate::verdict::NotEvaluableReason;

    fn clause(kind: ClauseKind, verdict: Verdict, severity: Severity) -> ClauseResult {
        ClauseResult {
            id: format!("{}-{}", kind.as_str(), verdict.as_str()),
            kind,
            conditional: false,
            text: "t".into(),
            severity,
            verdict,
            confidence: 100,
            outcome: Outcome::Detected,
            evidence: vec![],
            rationale: "r".into(),
            undetermined_operands: vec![],
            reason: (verdict == Verdict::NotEvaluable).then_some(NotEvaluableReason::NoJudge),
            suggestion: None,
        }
    }

    fn status_of(clauses: Vec<ClauseResult>) -> (TestStatus, String) {
        let c = ContractResult::new("c".into(), "d".into(), clauses);
        decide(&[c], None, &Policy::default())
    }

    /// Every verdict × kind × (below/at floor), alone, decides the status.
    #[test]
    fn every_single_clause_state() {
        for kind in [ClauseKind::Required, ClauseKind::Prohibited] {
            for verdict in Verdict::ALL {
                for severity in [Severity::Low, Severity::Medium] {
                    let (s, summary) = status_of(vec![clause(kind, verdict, severity)]);
                    let expected = match verdict {
                        Verdict::Violated => TestStatus::Fail,
                        Verdict::PartiallySatisfied if kind == ClauseKind::Prohibited => {
                            TestStatus::Fail
                        }
                        Verdict::NotEvaluable if severity >= Severity::Medium => {
                            TestStatus::Undetermined
                        }
                        _ => TestStatus::Pass,
                    };
                    assert_eq!(s, expected, "{kind:?} {verdict:?} {severity:?}: {summary}");
                    if verdict == Verdict::NotEvaluable {
                        assert!(summary.contains("no-judge"), "{summary}");
                    }
                }
            }
        }
    }

    #[test]
    fn error_wins_and_fail_beats_undetermined() {
        let c = ContractResult::new(
            "c".into(),
            "d".into(),
            vec![clause(
                ClauseKind::Prohibited,
                Verdict::Violated,
                Severity::Low,
            )],
        );
        assert_eq!(
            decide(std::slice::from_ref(&c), Some("boom"), &Policy::default()).0,
            TestStatus::Error
        );
        let (s, _) = status_of(vec![
            clause(
                ClauseKind::Prohibited,
                Verdict::NotEvaluable,
                Severity::Critical,
            ),
            clause(ClauseKind::Prohibited, Verdict::Violated, Severity::Low),
        ]);
        assert_eq!(s, TestStatus::Fail);
    }

    #[test]
    fn pass_summary_names_what_was_left_undetermined() {
        let (s, summary) = status_of(vec![
            clause(ClauseKind::Prohibited, Verdict::Satisfied, Severity::High),
            clause(ClauseKind::Required, Verdict::NotEvaluable, Severity::Low),
        ]);
        assert_eq!(s, TestStatus::Pass);
        assert!(summary.contains("left undetermined"), "{summary}");
        assert!(summary.contains("required-not_evaluable"), "{summary}");
    }

    #[test]
    fn empty_contract_list_passes_vacuously_with_zero_clauses() {
        let (s, summary) = decide(&[], None, &Policy::default());
        assert_eq!(s, TestStatus::Pass);
        assert!(summary.starts_with("0 clause"));
    }
}
