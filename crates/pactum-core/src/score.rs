//! Contract and overall scores (SPEC §3.5).

use serde::{Deserialize, Serialize};

use crate::policy::Policy;
use crate::result::{ContractResult, VerdictCounts};
use crate::status::{decide, TestStatus};

/// `(satisfied + 0.5 × partially_satisfied) / evaluable × 100`, where
/// evaluable excludes `not_evaluable` (and untriggered conditionals);
/// `None` when nothing is evaluable.
pub fn contract_score(c: &VerdictCounts) -> Option<f64> {
    let evaluable = c.evaluable();
    if evaluable == 0 {
        return None;
    }
    Some(
        (f64::from(c.satisfied) + 0.5 * f64::from(c.partially_satisfied)) / f64::from(evaluable)
            * 100.0,
    )
}

/// The mean of contract scores weighted by each contract's evaluable clause
/// count; `None` when no contract has an evaluable clause.
pub fn overall_score(contracts: &[ContractResult]) -> Option<f64> {
    let (mut sum, mut weight) = (0.0, 0u32);
    for c in contracts {
        if let Some(s) = c.score {
            let w = c.counts.evaluable();
            sum += s * f64::from(w);
            weight += w;
        }
    }
    (weight > 0).then(|| sum / f64::from(weight))
}

/// A whole run's verdict over its contracts, as the contract grader
/// reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverallVerdict {
    /// Every contract passes.
    Satisfied,
    /// Neither every contract passes nor a majority fails.
    Partial,
    /// A strict majority of the contracts fail.
    Violated,
}

/// The scores and verdicts of a graded run of several contracts (the
/// contract grader's report; SPEC §3.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunScores {
    /// Each contract's status (SPEC §3.5, [`decide`] over that contract
    /// alone), in input order.
    pub statuses: Vec<TestStatus>,
    /// Each contract's `contract_score`, in input order.
    pub contract_scores: Vec<Option<f64>>,
    /// [`overall_score`] of the contracts.
    pub overall_score: Option<f64>,
    /// `None` when nothing is evaluable (`overall_score` is `None`).
    pub overall_verdict: Option<OverallVerdict>,
}

/// Whether a contract of status `status` with clause verdicts `counts`
/// passes by the contract grader's rule ([`run_scores`]): its status is
/// `pass` (SPEC §3.5) and no clause is `partially_satisfied`.
pub fn contract_passes(status: TestStatus, counts: &VerdictCounts) -> bool {
    status == TestStatus::Pass && counts.partially_satisfied == 0
}

/// The one home of the contract grader's formulas:
///
/// * `contract_score` ([`contract_score`]) and `overall_score`
///   ([`overall_score`], weighted by evaluable clauses);
/// * a contract **passes** when its status is `pass` (SPEC §3.5) and it
///   has no `partially_satisfied` clause (a commitment kept in part is not
///   kept); it **fails** when its status is `fail`;
/// * `overall_verdict`: `None` when no clause of any contract is
///   evaluable; `satisfied` when every contract passes; `violated` when a
///   strict majority fails; else `partial`.
pub fn run_scores(contracts: &[ContractResult], policy: &Policy) -> RunScores {
    let statuses: Vec<TestStatus> = contracts
        .iter()
        .map(|c| decide(std::slice::from_ref(c), None, policy).0)
        .collect();
    let contract_scores = contracts
        .iter()
        .map(|c| contract_score(&c.counts))
        .collect();
    let overall = overall_score(contracts);
    let passes = contracts
        .iter()
        .zip(&statuses)
        .filter(|(c, s)| contract_passes(**s, &c.counts))
        .count();
    let fails = statuses.iter().filter(|s| **s == TestStatus::Fail).count();
    let overall_verdict = overall.map(|_| {
        if passes == contracts.len() {
            OverallVerdict::Satisfied
        } else if fails * 2 > contracts.len() {
            OverallVerdict::Violated
        } else {
            OverallVerdict::Partial
        }
    });
    RunScores {
        statuses,
        contract_scores,
        overall_score: overall,
        overall_verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(s: u32, p: u32, v: u32, n: u32) -> VerdictCounts {
        VerdictCounts {
            satisfied: s,
            partially_satisfied: p,
            violated: v,
            not_evaluable: n,
            not_triggered: 0,
        }
    }

    #[test]
    fn contract_score_formula() {
        assert_eq!(contract_score(&counts(1, 1, 2, 7)), Some(37.5));
        assert_eq!(contract_score(&counts(0, 0, 0, 3)), None);
        assert_eq!(contract_score(&counts(2, 0, 0, 0)), Some(100.0));
    }

    #[test]
    fn overall_is_weighted_by_evaluable_clauses() {
        let a = ContractResult {
            contract_id: "a".into(),
            contract_digest: String::new(),
            clauses: vec![],
            counts: counts(3, 0, 1, 0),
            score: contract_score(&counts(3, 0, 1, 0)),
        };
        let b = ContractResult {
            contract_id: "b".into(),
            contract_digest: String::new(),
            clauses: vec![],
            counts: counts(0, 0, 0, 5),
            score: None,
        };
        let c = ContractResult {
            contract_id: "c".into(),
            contract_digest: String::new(),
            clauses: vec![],
            counts: counts(0, 0, 1, 0),
            score: Some(0.0),
        };
        assert_eq!(overall_score(&[a.clone(), b.clone(), c]), Some(60.0));
        assert_eq!(overall_score(&[b]), None);
        assert_eq!(overall_score(&[a]), Some(75.0));
    }

    use crate::contract::{ClauseKind, Severity};
    use crate::outcome::Outcome;
    use crate::verdict::{ClauseResult, NotEvaluableReason, Verdict};

    fn clause(i: usize, v: Verdict) -> ClauseResult {
        ClauseResult {
            id: format!("c{i}"),
            kind: ClauseKind::Required,
            conditional: v == Verdict::NotTriggered,
            text: String::new(),
            severity: Severity::Medium,
            verdict: v,
            confidence: if v == Verdict::NotEvaluable { 0 } else { 100 },
            outcome: Outcome::Undetermined,
            evidence: vec![],
            rationale: String::new(),
            undetermined_operands: vec![],
            discounted_echoes: vec![],
            reason: (v == Verdict::NotEvaluable).then_some(NotEvaluableReason::NoJudge),
            suggestion: None,
        }
    }

    fn contract(verdicts: &[Verdict]) -> ContractResult {
        let clauses = verdicts
            .iter()
            .enumerate()
            .map(|(i, v)| clause(i, *v))
            .collect();
        ContractResult::new("c".into(), String::new(), clauses)
    }

    /// Every contract of up to two clauses, every run of up to three such
    /// contracts: the formulas, checked against their definitions.
    #[test]
    fn run_scores_exhaustive() {
        let mut shapes: Vec<Vec<Verdict>> = vec![vec![]];
        for a in Verdict::ALL {
            shapes.push(vec![a]);
            for b in Verdict::ALL {
                shapes.push(vec![a, b]);
            }
        }
        let policy = Policy::default();
        let mut runs: Vec<Vec<&Vec<Verdict>>> = vec![];
        for x in &shapes {
            runs.push(vec![x]);
            for y in &shapes {
                runs.push(vec![x, y]);
                for z in shapes.iter().step_by(3) {
                    runs.push(vec![x, y, z]);
                }
            }
        }
        for run in runs {
            let contracts: Vec<ContractResult> = run.iter().map(|v| contract(v)).collect();
            let s = run_scores(&contracts, &policy);
            let count = |v: &Vec<Verdict>, w: Verdict| v.iter().filter(|x| **x == w).count() as f64;
            // contract_score by its definition.
            for (v, score) in run.iter().zip(&s.contract_scores) {
                let sat = count(v, Verdict::Satisfied);
                let part = count(v, Verdict::PartiallySatisfied);
                let evaluable = sat + part + count(v, Verdict::Violated);
                let want = (evaluable > 0.0).then(|| (sat + 0.5 * part) / evaluable * 100.0);
                assert_eq!(*score, want, "{v:?}");
            }
            // overall_score: weighted by evaluable clauses; null when none.
            let (mut num, mut den) = (0.0, 0.0);
            for (v, score) in run.iter().zip(&s.contract_scores) {
                if let Some(sc) = score {
                    let w = v.len() as f64
                        - count(v, Verdict::NotEvaluable)
                        - count(v, Verdict::NotTriggered);
                    num += sc * w;
                    den += w;
                }
            }
            let want = (den > 0.0).then(|| num / den);
            assert_eq!(s.overall_score, want, "{run:?}");
            // overall_verdict.
            let pass: Vec<bool> = run
                .iter()
                .map(|v| {
                    count(v, Verdict::Satisfied) > 0.0
                        && count(v, Verdict::Violated) == 0.0
                        && count(v, Verdict::PartiallySatisfied) == 0.0
                        && count(v, Verdict::NotEvaluable) == 0.0
                })
                .collect();
            let fail = run
                .iter()
                .filter(|v| v.contains(&Verdict::Violated))
                .count();
            let want = match s.overall_score {
                None => None,
                Some(_) if pass.iter().all(|p| *p) => Some(OverallVerdict::Satisfied),
                Some(_) if fail * 2 > run.len() => Some(OverallVerdict::Violated),
                Some(_) => Some(OverallVerdict::Partial),
            };
            assert_eq!(s.overall_verdict, want, "{run:?}");
            // Never satisfied with a violated, partial or unevaluated clause.
            if s.overall_verdict == Some(OverallVerdict::Satisfied) {
                assert!(
                    run.iter().all(|v| v
                        .iter()
                        .all(|x| matches!(x, Verdict::Satisfied | Verdict::NotTriggered))),
                    "{run:?}"
                );
            }
        }
    }

    #[test]
    fn partially_satisfied_and_null() {
        let p = Policy::default();
        let half = contract(&[Verdict::Satisfied, Verdict::PartiallySatisfied]);
        let s = run_scores(std::slice::from_ref(&half), &p);
        assert_eq!(s.contract_scores, vec![Some(75.0)]);
        assert_eq!(s.overall_verdict, Some(OverallVerdict::Partial));
        let none = contract(&[Verdict::NotEvaluable, Verdict::NotTriggered]);
        let s = run_scores(&[none], &p);
        assert_eq!((s.overall_score, s.overall_verdict), (None, None));
        assert_eq!(s.statuses, vec![TestStatus::Undetermined]);
    }
}
