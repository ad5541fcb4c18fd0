//! The stopping rule of a multi-turn conversation (SPEC §3.7). Pure.
//!
//! The conversation stops early only on positive evidence of a violated
//! prohibition, which is permanent once it happens. It never stops on
//! compliance so far (a target that has not been pushed yet only looks
//! compliant), on a required behaviour not yet performed (it may still
//! come), on a clause that is not evaluable, or on a judge error (a
//! transient failure is never a breach).

use pactum_core::contract::ClauseKind;
use pactum_core::verdict::ClauseResult;
use serde::{Deserialize, Serialize};

/// How a clause result was reached: the caller says, per result, so the
/// rule can treat the two differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Graded by deterministic checks alone (e.g. `grade_trace` with
    /// `NoJudge`): counts after every turn.
    Deterministic,
    /// Graded with a judge: counts only from `min_turns` on, because a
    /// judge reads an unfinished conversation as final.
    Judged,
}

/// One prohibited clause's result after a turn, with how it was reached.
#[derive(Debug, Clone, Copy)]
pub struct ProhibitedResult<'a> {
    /// Deterministic or judged.
    pub basis: Basis,
    /// The clause result over the transcript so far.
    pub result: &'a ClauseResult,
}

/// Tags every result of one grading with its basis.
pub fn with_basis(basis: Basis, results: &[ClauseResult]) -> Vec<ProhibitedResult<'_>> {
    results
        .iter()
        .map(|result| ProhibitedResult { basis, result })
        .collect()
}

/// What to do after a turn.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum StopDecision {
    /// Run another turn.
    Continue,
    /// Stop: this prohibited clause is violated (the first counted one,
    /// in the order given).
    StopViolation {
        /// The violated clause's id.
        clause_id: String,
    },
    /// Stop: `max_turns` turns have run.
    StopMaxTurns,
}

/// Whether one result is positive evidence of a violated prohibition
/// that counts at `turn`.
fn counts(r: &ProhibitedResult<'_>, turn: u32, min_turns: u32) -> bool {
    let c = r.result;
    let violated = c.kind == ClauseKind::Prohibited && c.is_violation() && c.reason.is_none();
    let in_time = match r.basis {
        Basis::Deterministic => true,
        Basis::Judged => turn >= min_turns,
    };
    violated && in_time
}

/// Decides, after turn `turn` (1-based: the number of turns run so far),
/// whether the conversation goes on (SPEC §3.7):
///
/// 1. `StopViolation` when some result is a prohibited clause whose verdict
///    is `violated` or `partially_satisfied` (with no not-evaluable
///    reason), reached deterministically (any turn) or by a judge at
///    `turn >= min_turns`; the first such result in `prohibited`'s order
///    names the clause;
/// 2. else `StopMaxTurns` when `turn >= max_turns`;
/// 3. else `Continue`.
///
/// Required clauses in `prohibited` are ignored (a required behaviour not
/// yet performed never stops a conversation), and so are `satisfied`,
/// `not_evaluable` (a judge error, no judge, a check that could not tell)
/// and `not_triggered` results.
pub fn stop_decision(
    turn: u32,
    min_turns: u32,
    max_turns: u32,
    prohibited: &[ProhibitedResult<'_>],
) -> StopDecision {
    if let Some(r) = prohibited.iter().find(|r| counts(r, turn, min_turns)) {
        return StopDecision::StopViolation {
            clause_id: r.result.id.clone(),
        };
    }
    if turn >= max_turns {
        StopDecision::StopMaxTurns
    } else {
        StopDecision::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pactum_core::contract::Severity;
    use pactum_core::outcome::Outcome;
    use pactum_core::verdict::{NotEvaluableReason, Verdict};

    const REASONS: [NotEvaluableReason; 11] = NotEvaluableReason::ALL;

    fn result(
        id: &str,
        kind: ClauseKind,
        verdict: Verdict,
        reason: Option<NotEvaluableReason>,
    ) -> ClauseResult {
        ClauseResult {
            id: id.into(),
            kind,
            conditional: false,
            text: "Produce harmful content".into(),
            severity: Severity::High,
            verdict,
            confidence: if verdict == Verdict::NotEvaluable {
                0
            } else {
                90
            },
            outcome: Outcome::Detected,
            evidence: vec![],
            rationale: "r".into(),
            undetermined_operands: vec![],
            discounted_echoes: vec![],
            reason,
            suggestion: None,
        }
    }

    /// The stopping table (SPEC §3.7): turn before / at / after `min_turns` ×
    /// deterministic / judged × kind × every verdict × (for not evaluable)
    /// every reason. Expected values are written out per verdict.
    #[test]
    fn every_cell_of_the_stopping_table() {
        let (min, max) = (3, 8);
        let mut cells = 0;
        for turn in [min - 1, min, min + 1] {
            for basis in [Basis::Deterministic, Basis::Judged] {
                for kind in [ClauseKind::Prohibited, ClauseKind::Required] {
                    for verdict in Verdict::ALL {
                        let reasons: Vec<Option<NotEvaluableReason>> =
                            if verdict == Verdict::NotEvaluable {
                                REASONS.iter().copied().map(Some).collect()
                            } else {
                                vec![None]
                            };
                        for reason in reasons {
                            let r = result("c", kind, verdict, reason);
                            let got = stop_decision(turn, min, max, &with_basis(basis, &[r]));
                            let is_violation_verdict = match verdict {
                                Verdict::Violated | Verdict::PartiallySatisfied => true,
                                Verdict::Satisfied
                                | Verdict::NotEvaluable
                                | Verdict::NotTriggered => false,
                            };
                            let judged_too_early = basis == Basis::Judged && turn < min;
                            let expected = if kind == ClauseKind::Prohibited
                                && is_violation_verdict
                                && !judged_too_early
                            {
                                StopDecision::StopViolation {
                                    clause_id: "c".into(),
                                }
                            } else {
                                StopDecision::Continue
                            };
                            assert_eq!(
                                got, expected,
                                "turn {turn} {basis:?} {kind:?} {verdict:?} {reason:?}"
                            );
                            cells += 1;
                        }
                    }
                }
            }
        }
        // 3 turns × 2 bases × 2 kinds × (4 verdicts + 11 reasons).
        assert_eq!(cells, 3 * 2 * 2 * 15);
    }

    #[test]
    fn the_cases_spec_3_7_names() {
        let p = ClauseKind::Prohibited;
        let violated = result("leak", p, Verdict::Violated, None);
        let compliant = result("leak", p, Verdict::Satisfied, None);
        let pending = result("book", ClauseKind::Required, Verdict::Violated, None);
        let judge_error = result(
            "leak",
            p,
            Verdict::NotEvaluable,
            Some(NotEvaluableReason::JudgeError),
        );
        let stop = |id: &str| StopDecision::StopViolation {
            clause_id: id.into(),
        };
        // It stops on a violated prohibition, deterministic at turn 1.
        assert_eq!(
            stop_decision(
                1,
                3,
                8,
                &with_basis(Basis::Deterministic, std::slice::from_ref(&violated))
            ),
            stop("leak")
        );
        // Judged: not before min_turns, then yes.
        assert_eq!(
            stop_decision(
                2,
                3,
                8,
                &with_basis(Basis::Judged, std::slice::from_ref(&violated))
            ),
            StopDecision::Continue
        );
        assert_eq!(
            stop_decision(
                3,
                3,
                8,
                &with_basis(Basis::Judged, std::slice::from_ref(&violated))
            ),
            stop("leak")
        );
        // Never on compliance so far, a pending requirement, or a judge error.
        for r in [&compliant, &pending, &judge_error] {
            for basis in [Basis::Deterministic, Basis::Judged] {
                assert_eq!(
                    stop_decision(5, 3, 8, &with_basis(basis, std::slice::from_ref(r))),
                    StopDecision::Continue
                );
            }
        }
        // max_turns: at and past it, unless a violation names itself first.
        for turn in [8, 9] {
            assert_eq!(
                stop_decision(
                    turn,
                    3,
                    8,
                    &with_basis(Basis::Judged, std::slice::from_ref(&compliant))
                ),
                StopDecision::StopMaxTurns
            );
        }
        assert_eq!(
            stop_decision(
                8,
                3,
                8,
                &with_basis(Basis::Deterministic, std::slice::from_ref(&violated))
            ),
            stop("leak")
        );
        assert_eq!(stop_decision(7, 3, 8, &[]), StopDecision::Continue);
        assert_eq!(stop_decision(0, 0, 0, &[]), StopDecision::StopMaxTurns);
        // The first counted violation in the order given names the clause;
        // an early judged one is skipped.
        let a = result("a", p, Verdict::PartiallySatisfied, None);
        let b = result("b", p, Verdict::Violated, None);
        let mixed = [
            ProhibitedResult {
                basis: Basis::Judged,
                result: &a,
            },
            ProhibitedResult {
                basis: Basis::Deterministic,
                result: &b,
            },
        ];
        assert_eq!(stop_decision(1, 3, 8, &mixed), stop("b"));
        assert_eq!(stop_decision(3, 3, 8, &mixed), stop("a"));
    }
}
