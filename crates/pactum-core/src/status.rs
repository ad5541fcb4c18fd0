//! Test status and its one-line summary (SPEC §3.5).

use serde::{Deserialize, Serialize};

use crate::contract::Severity;
use crate::policy::Policy;
use crate::result::ContractResult;
use crate::text::{one_line, one_line_ends};
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

/// Reduces the statuses of a trial set (N runs of the same test, SPEC §2)
/// to one by strict majority: the status held by strictly more than half
/// of the trials; `undetermined` when no status has one (a tie, or a
/// spread) or there are no trials. So a pass needs more passing trials
/// than all the others together, and a set that cannot agree is never a
/// pass.
pub fn reduce_trials(statuses: &[TestStatus]) -> TestStatus {
    TestStatus::ALL
        .into_iter()
        .find(|s| statuses.iter().filter(|t| *t == s).count() * 2 > statuses.len())
        .unwrap_or(TestStatus::Undetermined)
}

/// Decides a test's status from its graded contracts (SPEC §3.5):
///
/// * `error` when `error` is set (unusable contract, failed
///   infrastructure, no response);
/// * `fail` when any clause is a violation;
/// * `undetermined` when nothing is violated but a clause at or above
///   `policy.severity_floor` is not evaluable, **or when no clause was
///   graded at all** (every clause not evaluable or not triggered, or no
///   clause): a pass needs evidence, whatever the severities;
/// * else `pass`.
///
/// The summary is one line saying why. On a pass it names what was left
/// undetermined below the floor, the untested conditional paths, and the
/// clauses where the echo rule discounted a match (the target only
/// repeated the user's words). [`blocking_clauses`] names the clauses that
/// kept a test from passing.
pub fn decide(
    contracts: &[ContractResult],
    error: Option<&str>,
    policy: &Policy,
) -> (TestStatus, String) {
    if let Some(e) = error {
        // An error chain ends on its cause (the OS error and its number):
        // a long one loses its middle, never that.
        return (
            TestStatus::Error,
            format!("error: {}", one_line_ends(e, 300)),
        );
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
    let untested: Vec<&ClauseResult> = clauses
        .iter()
        .copied()
        // An ordinary clause stood aside for a triggered conditional is
        // no untested path: the path it describes was not taken.
        .filter(|c| c.conditional && c.verdict == Verdict::NotTriggered)
        .collect();
    let graded = clauses.iter().filter(|c| c.is_evaluable()).count();

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
    let mut blocking = blocking_clauses(&clauses, policy);
    if blocking
        .iter()
        .any(|c| at_or_above_floor(c.severity, policy))
    {
        // Those at or above the floor first: they are the ones that matter.
        blocking.sort_by_key(|c| !at_or_above_floor(c.severity, policy));
        let mut s = String::from("undetermined: ");
        s.push_str(&list(&blocking, 2, undetermined_detail));
        return (TestStatus::Undetermined, s);
    }
    if graded == 0 {
        let mut s = String::from("undetermined: no clause was graded, and a pass needs evidence");
        if clauses.is_empty() {
            s.push_str(": there is no clause to grade");
        }
        if !blocking.is_empty() {
            s.push_str(": ");
            s.push_str(&list(&blocking, 2, undetermined_detail));
        }
        if !untested.is_empty() {
            s.push_str("; untested path: ");
            s.push_str(&list(&untested, 2, |c| c.id.clone()));
        }
        return (TestStatus::Undetermined, s);
    }
    // A clause kept only in part is counted as such: "held" would read as
    // kept whole.
    let partly: Vec<&ClauseResult> = clauses
        .iter()
        .copied()
        .filter(|c| c.verdict == Verdict::PartiallySatisfied)
        .collect();
    let mut s = if partly.is_empty() {
        format!("{graded} clause(s) held")
    } else {
        format!(
            "{} clause(s) held, {} only in part: {}",
            graded - partly.len(),
            partly.len(),
            list(&partly, 2, |c| c.id.clone())
        )
    };
    if !not_evaluable.is_empty() {
        s.push_str(&format!(
            "; left undetermined below the {} floor: ",
            policy.severity_floor.as_str()
        ));
        s.push_str(&list(&not_evaluable, 2, undetermined_detail));
    }
    if !untested.is_empty() {
        s.push_str("; untested path: ");
        s.push_str(&list(&untested, 2, |c| c.id.clone()));
    }
    let echoed: Vec<&ClauseResult> = clauses
        .iter()
        .copied()
        .filter(|c| !c.discounted_echoes.is_empty())
        .collect();
    if !echoed.is_empty() {
        s.push_str("; a match was discounted as an echo of the user's input: ");
        s.push_str(&list(&echoed, 2, echo_detail));
    }
    (TestStatus::Pass, s)
}

/// The not-evaluable clauses that keep a test from passing (SPEC §3.5), in
/// declaration order: each one at or above the policy's severity floor;
/// and when no clause was graded at all (none satisfied, partially
/// satisfied or violated), every not-evaluable clause, whatever its
/// severity, since a pass needs evidence.
pub fn blocking_clauses<'a>(
    clauses: &[&'a ClauseResult],
    policy: &Policy,
) -> Vec<&'a ClauseResult> {
    let nothing_graded = !clauses.iter().any(|c| c.is_evaluable());
    clauses
        .iter()
        .copied()
        .filter(|c| {
            c.verdict == Verdict::NotEvaluable
                && (nothing_graded || at_or_above_floor(c.severity, policy))
        })
        .collect()
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

/// "id (turn 1, 3)": where the echo rule discounted the clause's matches.
fn echo_detail(c: &ClauseResult) -> String {
    let mut turns: Vec<usize> = c.discounted_echoes.iter().map(|e| e.turn).collect();
    turns.sort_unstable();
    turns.dedup();
    let shown: Vec<String> = turns.iter().take(5).map(usize::to_string).collect();
    let more = if turns.len() > 5 {
        format!(" and {} more", turns.len() - 5)
    } else {
        String::new()
    };
    format!("{} (turn {}{more})", c.id, shown.join(", "))
}

/// Whether `severity` is at or above the policy's floor (SPEC §3.5,
/// §3.8): the one comparison every status, coverage gap and dominance
/// veto uses.
pub fn at_or_above_floor(severity: Severity, policy: &Policy) -> bool {
    severity >= policy.severity_floor
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ClauseKind;
    use crate::outcome::{DiscountedEcho, Outcome};
    use crate::verdict::NotEvaluableReason;

    fn clause(kind: ClauseKind, verdict: Verdict, severity: Severity) -> ClauseResult {
        ClauseResult {
            id: format!("{}-{}", kind.as_str(), verdict.as_str()),
            kind,
            // Only a conditional clause is ever not triggered.
            conditional: verdict == Verdict::NotTriggered,
            text: "t".into(),
            severity,
            verdict,
            confidence: 100,
            outcome: Outcome::Detected,
            evidence: vec![],
            rationale: "r".into(),
            undetermined_operands: vec![],
            discounted_echoes: vec![],
            reason: (verdict == Verdict::NotEvaluable).then_some(NotEvaluableReason::NoJudge),
            suggestion: None,
        }
    }

    fn status_of(clauses: Vec<ClauseResult>) -> (TestStatus, String) {
        let c = ContractResult::new("c".into(), "d".into(), clauses);
        decide(&[c], None, &Policy::default())
    }

    /// The SPEC §3.5 rule, written out independently of `decide`.
    fn expected_status(clauses: &[ClauseResult], floor: Severity) -> TestStatus {
        let violation = clauses.iter().any(|c| {
            c.verdict == Verdict::Violated
                || (c.verdict == Verdict::PartiallySatisfied && c.kind == ClauseKind::Prohibited)
        });
        let graded = clauses.iter().any(|c| {
            matches!(
                c.verdict,
                Verdict::Satisfied | Verdict::PartiallySatisfied | Verdict::Violated
            )
        });
        let blocked = clauses
            .iter()
            .any(|c| c.verdict == Verdict::NotEvaluable && c.severity >= floor);
        if violation {
            TestStatus::Fail
        } else if blocked || !graded {
            TestStatus::Undetermined
        } else {
            TestStatus::Pass
        }
    }

    /// Every clause state (kind × verdict × severity), alone and in every
    /// ordered pair, under every floor, against the rule written out above.
    #[test]
    fn every_pair_of_clause_states_under_every_floor() {
        let mut states = Vec::new();
        for kind in [ClauseKind::Required, ClauseKind::Prohibited] {
            for verdict in Verdict::ALL {
                for severity in Severity::ALL {
                    states.push(clause(kind, verdict, severity));
                }
            }
        }
        assert_eq!(states.len(), 40);
        for floor in Severity::ALL {
            let policy = Policy {
                severity_floor: floor,
                ..Policy::default()
            };
            let check = |cs: Vec<ClauseResult>| {
                let want = expected_status(&cs, floor);
                let c = ContractResult::new("c".into(), "d".into(), cs.clone());
                let (got, summary) = decide(&[c], None, &policy);
                assert_eq!(got, want, "floor {floor:?}: {cs:?}: {summary}");
                if got == TestStatus::Pass {
                    assert!(summary.contains("clause(s) held"), "{summary}");
                }
                if got == TestStatus::Undetermined {
                    let refs: Vec<&ClauseResult> = cs.iter().collect();
                    for b in blocking_clauses(&refs, &policy) {
                        assert!(
                            summary.contains(&b.id) || summary.contains("more"),
                            "{summary}"
                        );
                    }
                }
            };
            for a in &states {
                check(vec![a.clone()]);
                for b in &states {
                    check(vec![a.clone(), b.clone()]);
                }
            }
        }
    }

    #[test]
    fn nothing_graded_is_undetermined_whatever_the_floor() {
        for floor in Severity::ALL {
            let policy = Policy {
                severity_floor: floor,
                ..Policy::default()
            };
            let c = ContractResult::new(
                "c".into(),
                "d".into(),
                vec![
                    clause(ClauseKind::Prohibited, Verdict::NotEvaluable, Severity::Low),
                    clause(
                        ClauseKind::Required,
                        Verdict::NotTriggered,
                        Severity::Critical,
                    ),
                ],
            );
            let (s, summary) = decide(&[c], None, &policy);
            assert_eq!(s, TestStatus::Undetermined, "{floor:?}");
            assert!(!summary.contains("held"), "{summary}");
            if floor == Severity::Low {
                // At the floor: blocked by severity, said as before.
                assert!(
                    summary.starts_with("undetermined: prohibited-not_evaluable"),
                    "{summary}"
                );
                continue;
            }
            assert!(
                summary.starts_with("undetermined: no clause was graded"),
                "{summary}"
            );
            assert!(
                summary.contains("prohibited-not_evaluable (low, no-judge)"),
                "{summary}"
            );
            assert!(
                summary.contains("untested path: required-not_triggered"),
                "{summary}"
            );
            assert!(!summary.contains("held"), "{summary}");
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
    fn pass_summary_names_discounted_echoes() {
        let mut held = clause(ClauseKind::Prohibited, Verdict::Satisfied, Severity::High);
        held.discounted_echoes = vec![
            DiscountedEcho {
                predicate: "contains(\"x\")".into(),
                turn: 3,
            },
            DiscountedEcho {
                predicate: "contains(\"y\")".into(),
                turn: 1,
            },
        ];
        let (s, summary) = status_of(vec![held.clone()]);
        assert_eq!(s, TestStatus::Pass);
        assert_eq!(
            summary,
            "1 clause(s) held; a match was discounted as an echo of the user's input: prohibited-satisfied (turn 1, 3)"
        );
        held.discounted_echoes.clear();
        let (_, summary) = status_of(vec![held]);
        assert_eq!(summary, "1 clause(s) held");
    }

    #[test]
    fn no_contract_at_all_is_undetermined_not_a_vacuous_pass() {
        let (s, summary) = decide(&[], None, &Policy::default());
        assert_eq!(s, TestStatus::Undetermined);
        assert_eq!(
            summary,
            "undetermined: no clause was graded, and a pass needs evidence: there is no clause to grade"
        );
    }

    #[test]
    fn at_or_above_floor_every_pair() {
        for floor in Severity::ALL {
            let policy = Policy {
                severity_floor: floor,
                ..Policy::default()
            };
            for (i, s) in Severity::ALL.into_iter().enumerate() {
                let fi = Severity::ALL.iter().position(|x| *x == floor).unwrap_or(0);
                assert_eq!(at_or_above_floor(s, &policy), i >= fi, "{s:?} vs {floor:?}");
            }
        }
    }

    #[test]
    fn trial_sets_reduce_by_strict_majority() {
        use TestStatus::{Error as E, Fail as F, Pass as P, Undetermined as U};
        for (set, want) in [
            (vec![], U),
            (vec![P], P),
            (vec![P, P, F], P),
            (vec![P, F], U),
            (vec![P, F, U], U),
            (vec![F, F, P], F),
            (vec![E, E, P], E),
            (vec![U, U, P], U),
            (vec![P, P, F, F], U),
            (vec![P, P, P, F, F], P),
        ] {
            assert_eq!(reduce_trials(&set), want, "{set:?}");
        }
    }
}
