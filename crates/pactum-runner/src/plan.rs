//! What a run owes: the trials a suite plans, and which of a stored run's
//! trials were never stored.
//!
//! A run plans, for each test in file order, trials `0..trials`. The plan
//! is read from the suite snapshot stored with the run, so `pactum show`
//! and `pactum rescore` tell a finished run from one that stopped half-way
//! whatever the suite file says today.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use pactum_store::{RunId, Store};
use serde_json::Value;

use crate::RunError;

/// The id of a trial's trace: `TEST#N`, N counted from 1.
pub fn trace_id(test_id: &str, trial_index: u32) -> String {
    format!("{test_id}#{}", u64::from(trial_index) + 1)
}

/// The trials a suite snapshot ([`pactum_suite::LoadedSuite::snapshot`])
/// plans, in plan order: tests in file order, then trial indexes from 0.
///
/// # Errors
/// [`RunError::Snapshot`] when the snapshot has no `tests` array, or a
/// test without a string `id` or an integer `trials`.
pub fn planned_trials(snapshot: &Value) -> Result<Vec<(String, u32)>, RunError> {
    let bad = |why: String| RunError::Snapshot(why);
    let tests = snapshot
        .get("tests")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("it has no `tests` array".into()))?;
    let mut out = Vec::new();
    for (i, t) in tests.iter().enumerate() {
        let id = t
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("test {i} has no string `id`")))?;
        let trials = t
            .get("trials")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| bad(format!("test `{id}` has no `trials` count")))?;
        out.extend((0..trials).map(|k| (id.to_string(), k)));
    }
    Ok(out)
}

/// The trials the text of a suite snapshot plans, by the rule of
/// [`planned_trials`], reading only each test's `id` and `trials` (the
/// rest of the snapshot is never built in memory).
///
/// # Errors
/// [`RunError::Snapshot`] when the text is not a snapshot with a `tests`
/// array of tests with a string `id` and an integer `trials`.
pub fn planned_trials_in(snapshot: &str) -> Result<Vec<(String, u32)>, RunError> {
    #[derive(serde::Deserialize)]
    struct Plan {
        tests: Vec<Planned>,
    }
    #[derive(serde::Deserialize)]
    struct Planned {
        id: String,
        trials: u32,
    }
    let plan: Plan = serde_json::from_str(snapshot)
        .map_err(|e| RunError::Snapshot(format!("its tests cannot be read: {e}")))?;
    Ok(plan
        .tests
        .into_iter()
        .flat_map(|t| (0..t.trials).map(move |k| (t.id.clone(), k)))
        .collect())
}

/// How much of a stored run is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// Trials the run planned.
    pub planned: u64,
    /// Trials stored.
    pub stored: u64,
    /// The planned trials never stored, in plan order.
    pub missing: Vec<(String, u32)>,
}

impl Coverage {
    /// Every planned trial is stored.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }
}

/// Which trials of stored run `run` are missing, from the plan of the
/// suite snapshot stored with it.
///
/// # Errors
/// A store failure; [`RunError::Snapshot`] when the stored snapshot does
/// not say what the run planned.
pub fn coverage(store: &Store, run: &RunId) -> Result<Coverage, RunError> {
    let snapshot = store
        .suite_snapshot(run)?
        .ok_or_else(|| RunError::Task(format!("run {} is not in the store", run.as_str())))?;
    let plan = planned_trials(&snapshot)?;
    let mut stored: BTreeSet<(String, u32)> = BTreeSet::new();
    store.trials(run, &mut |t| {
        stored.insert((t.test_id, t.trial_index));
        ControlFlow::Continue(())
    })?;
    let missing: Vec<(String, u32)> = plan
        .iter()
        .filter(|k| !stored.contains(*k))
        .cloned()
        .collect();
    Ok(Coverage {
        planned: plan.len() as u64,
        stored: stored.len() as u64,
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_plan_is_tests_in_order_then_trials() {
        let s = json!({"tests": [{"id": "b", "trials": 2}, {"id": "a", "trials": 1}, {"id": "z", "trials": 0}]});
        assert_eq!(
            planned_trials(&s).expect("plan"),
            vec![("b".into(), 0), ("b".into(), 1), ("a".into(), 0)]
        );
        for bad in [
            json!({}),
            json!({"tests": [{"id": "a"}]}),
            json!({"tests": [{"trials": 1}]}),
            json!({"tests": [{"id": "a", "trials": -1}]}),
            json!({"tests": [{"id": "a", "trials": 5_000_000_000u64}]}),
        ] {
            assert!(planned_trials(&bad).is_err(), "{bad}");
        }
        assert_eq!(trace_id("t", 0), "t#1");
        assert_eq!(trace_id("t", u32::MAX), "t#4294967296");
    }
}
