//! Contract and overall scores (SPEC §3.5).

use crate::result::{ContractResult, VerdictCounts};

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
}
