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

/// Calls `f(position, id, trials)` for each test of the text of a suite
/// snapshot, in file order, reading only its `id` and `trials`: no string
/// is kept, so a run's plan is made without a copy of every test id.
///
/// # Errors
/// As [`planned_trials_in`], or the first error of `f`.
pub(crate) fn for_each_planned(
    snapshot: &str,
    f: &mut dyn FnMut(usize, &str, u32) -> Result<(), RunError>,
) -> Result<(), RunError> {
    use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::borrow::Cow;
    use std::fmt;

    #[derive(serde::Deserialize)]
    struct Planned<'a> {
        #[serde(borrow)]
        id: Cow<'a, str>,
        trials: u32,
    }
    struct Each<'f> {
        f: &'f mut dyn FnMut(usize, &str, u32) -> Result<(), RunError>,
        failed: Option<RunError>,
    }
    struct Top<'e, 'f>(&'e mut Each<'f>);
    struct Tests<'e, 'f>(&'e mut Each<'f>);

    impl<'de> Visitor<'de> for Top<'_, '_> {
        type Value = ();
        fn expecting(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
            out.write_str("a suite snapshot")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = false;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == "tests" && !seen {
                    seen = true;
                    map.next_value_seed(Tests(&mut *self.0))?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if seen {
                Ok(())
            } else {
                Err(A::Error::missing_field("tests"))
            }
        }
    }
    impl<'de> DeserializeSeed<'de> for Tests<'_, '_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de> Visitor<'de> for Tests<'_, '_> {
        type Value = ();
        fn expecting(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
            out.write_str("a list of tests")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0;
            while let Some(t) = seq.next_element::<Planned<'de>>()? {
                if let Err(e) = (self.0.f)(i, &t.id, t.trials) {
                    self.0.failed = Some(e);
                    return Err(A::Error::custom("stopped"));
                }
                i += 1;
            }
            Ok(())
        }
    }

    let mut each = Each { f, failed: None };
    let mut de = serde_json::Deserializer::from_str(snapshot);
    let read =
        serde::Deserializer::deserialize_map(&mut de, Top(&mut each)).and_then(|()| de.end());
    match (read, each.failed) {
        (_, Some(e)) => Err(e),
        (Err(e), None) => Err(RunError::Snapshot(format!("its tests cannot be read: {e}"))),
        (Ok(()), None) => Ok(()),
    }
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

    /// The plan read test by test from the text is the one read whole,
    /// and the same errors are refused.
    #[test]
    fn each_planned_test_is_read_as_the_whole_plan() {
        let each = |s: &str| {
            let mut out = Vec::new();
            for_each_planned(s, &mut |at, id, trials| {
                out.push((at, id.to_string(), trials));
                Ok(())
            })
            .map(|()| out)
        };
        let s = r#"{"contracts":{"x":{"tests":[1]}},"tests":[{"id":"b\u0041","trials":2,"vars":{"id":"no"}},{"id":"a","trials":1},{"id":"z","trials":0}],"version":1}"#;
        let got = each(s).expect("plan");
        assert_eq!(
            got,
            vec![(0, "bA".into(), 2), (1, "a".into(), 1), (2, "z".into(), 0)]
        );
        let whole = planned_trials_in(s).expect("plan");
        let flat: Vec<(String, u32)> = got
            .iter()
            .flat_map(|(_, id, n)| (0..*n).map(move |k| (id.clone(), k)))
            .collect();
        assert_eq!(flat, whole);
        for bad in [
            "{}",
            r#"{"tests": [{"id": "a"}]}"#,
            r#"{"tests": [{"trials": 1}]}"#,
            r#"{"tests": [{"id": "a", "trials": -1}]}"#,
            r#"{"tests": [{"id": "a", "trials": 5000000000}]}"#,
            r#"{"tests": []} x"#,
        ] {
            assert!(each(bad).is_err(), "{bad}");
            assert!(planned_trials_in(bad).is_err(), "{bad}");
        }
        // An error of the callback is the one returned.
        let stopped = for_each_planned(s, &mut |_, id, _| {
            Err(RunError::Snapshot(format!("stop at {id}")))
        });
        assert!(
            matches!(&stopped, Err(RunError::Snapshot(m)) if m == "stop at bA"),
            "{stopped:?}"
        );
    }
}
