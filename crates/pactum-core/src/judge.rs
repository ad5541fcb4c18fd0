//! What a judge said about one clause, and how grading reads it
//! (SPEC §3.4). The judge itself (prompts, windows, quote checks) is
//! `pactum-llm`'s; this module owns the two rules every reader of an
//! answer must share: the confidence threshold ([`JudgeAnswer::usable`])
//! and what a verdict says about the behaviour
//! ([`crate::verdict::outcome_for`]).

use serde::{Deserialize, Serialize};

use crate::contract::ClauseKind;
use crate::outcome::{Evidence, Outcome};
use crate::verdict::{outcome_for, NotEvaluableReason, Verdict};

/// What a judge said about one clause. Built by the judge (`pactum-llm`,
/// which caches it as JSON: `{"kind": "graded" | "failed", …fields}`);
/// grading applies it through [`JudgeAnswer::usable`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JudgeAnswer {
    /// A verdict with its confidence (0–100) and evidence. From the judge:
    /// only evidence verified against the trace, the judge's own
    /// confidence rounded down, no threshold applied yet.
    Graded {
        /// `satisfied`, `partially_satisfied` or `violated`; any other
        /// verdict is read as no verdict.
        verdict: Verdict,
        /// 0–100; below the policy's `confidence_threshold` the clause is
        /// `not_evaluable` (`low-confidence`); above 100 is a judge error.
        confidence: u8,
        /// Verified quotes, tool calls and side effects from the trace.
        evidence: Vec<Evidence>,
        /// The judge's rationale (bounded), plus pactum's notes.
        rationale: String,
    },
    /// The judge could not grade the clause (`judge-error`, `no-verdict`,
    /// `low-confidence`, `fabricated-evidence`, `transcript-too-long`).
    Failed {
        /// Why the clause is not evaluable.
        reason: NotEvaluableReason,
        /// What went wrong, a fragment a person can act on.
        detail: String,
    },
}

/// A judge's verdict that grading may use: [`JudgeAnswer::usable`] held.
#[derive(Debug, Clone, PartialEq)]
pub struct UsableVerdict {
    /// `satisfied`, `partially_satisfied` or `violated`.
    pub verdict: Verdict,
    /// What the verdict says about the behaviour: `D` or `N`
    /// ([`outcome_for`]).
    pub outcome: Outcome,
    /// 0–100, at or above the threshold.
    pub confidence: u8,
    /// Verified evidence.
    pub evidence: Vec<Evidence>,
    /// The judge's rationale with pactum's notes.
    pub rationale: String,
}

impl JudgeAnswer {
    /// Whether this answer, on a clause of `kind`, can decide the clause
    /// (SPEC §3.4), and what it decides. The one place the judge's
    /// confidence threshold is applied; the judge itself never applies it,
    /// so a cached answer serves every policy.
    ///
    /// # Errors
    /// The reason and detail of a clause that is `not_evaluable`: the
    /// judge failed (its own reason); a verdict other than `satisfied`,
    /// `partially_satisfied`, `violated` (`no-verdict`); a confidence
    /// above 100 (`judge-error`); a confidence below
    /// `confidence_threshold` (`low-confidence`).
    pub fn usable(
        self,
        kind: ClauseKind,
        confidence_threshold: u8,
    ) -> Result<UsableVerdict, (NotEvaluableReason, String)> {
        let (verdict, confidence, evidence, rationale) = match self {
            JudgeAnswer::Failed { reason, detail } => return Err((reason, detail)),
            JudgeAnswer::Graded {
                verdict,
                confidence,
                evidence,
                rationale,
            } => (verdict, confidence, evidence, rationale),
        };
        if confidence > 100 {
            return Err((
                NotEvaluableReason::JudgeError,
                format!("the judge answered confidence {confidence}, outside 0–100"),
            ));
        }
        let outcome = outcome_for(kind, verdict);
        if outcome == Outcome::Undetermined {
            return Err((
                NotEvaluableReason::NoVerdict,
                format!("the judge answered {}", verdict.as_str()),
            ));
        }
        if confidence < confidence_threshold {
            return Err((
                NotEvaluableReason::LowConfidence,
                format!(
                    "the judge's confidence {confidence} is below the threshold \
                     {confidence_threshold} (verdict would have been `{}`)",
                    verdict.as_str()
                ),
            ));
        }
        Ok(UsableVerdict {
            verdict,
            outcome,
            confidence,
            evidence,
            rationale,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graded(verdict: Verdict, confidence: u8) -> JudgeAnswer {
        JudgeAnswer::Graded {
            verdict,
            confidence,
            evidence: vec![],
            rationale: "r".into(),
        }
    }

    /// Every verdict × kind × confidence around the threshold.
    #[test]
    fn usable_every_cell() {
        for kind in [ClauseKind::Required, ClauseKind::Prohibited] {
            for verdict in Verdict::ALL {
                for (confidence, threshold) in [(49, 50), (50, 50), (0, 0), (100, 100), (101, 0)] {
                    let got = graded(verdict, confidence).usable(kind, threshold);
                    let settled = matches!(
                        verdict,
                        Verdict::Satisfied | Verdict::PartiallySatisfied | Verdict::Violated
                    );
                    let want = if confidence > 100 {
                        Err(NotEvaluableReason::JudgeError)
                    } else if !settled {
                        Err(NotEvaluableReason::NoVerdict)
                    } else if confidence < threshold {
                        Err(NotEvaluableReason::LowConfidence)
                    } else {
                        Ok((verdict, outcome_for(kind, verdict), confidence))
                    };
                    assert_eq!(
                        got.map(|u| (u.verdict, u.outcome, u.confidence))
                            .map_err(|(r, _)| r),
                        want,
                        "{kind:?} {verdict:?} {confidence} {threshold}"
                    );
                }
            }
        }
        let failed = JudgeAnswer::Failed {
            reason: NotEvaluableReason::FabricatedEvidence,
            detail: "d".into(),
        };
        assert_eq!(
            failed.usable(ClauseKind::Prohibited, 0),
            Err((NotEvaluableReason::FabricatedEvidence, "d".into()))
        );
    }

    /// Answers are cached as JSON: the shape must not drift silently.
    #[test]
    fn json_shape() {
        let a = graded(Verdict::Violated, 80);
        assert_eq!(
            serde_json::to_value(&a).expect("json"),
            serde_json::json!({"kind": "graded", "verdict": "violated", "confidence": 80,
                               "evidence": [], "rationale": "r"})
        );
        let f = JudgeAnswer::Failed {
            reason: NotEvaluableReason::TranscriptTooLong,
            detail: "d".into(),
        };
        assert_eq!(
            serde_json::to_value(&f).expect("json"),
            serde_json::json!({"kind": "failed", "reason": "transcript-too-long", "detail": "d"})
        );
    }
}
