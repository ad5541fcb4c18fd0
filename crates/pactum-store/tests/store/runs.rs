//! Runs: ids, listing order, counts, status changes, resume lookup and
//! prefix resolution.

use pactum_core::TestStatus;
use pactum_store::{RunId, RunStatus, Store, StoreError};

use crate::common::*;

fn is_run_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 21
        && b[0] == b'r'
        && b[9] == b'-'
        && b[16] == b'-'
        && b[1..9].iter().chain(&b[10..16]).all(u8::is_ascii_digit)
        && b[17..]
            .iter()
            .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

#[test]
fn run_ids_are_sortable_deterministic_and_unique() {
    let a = Store::open_in_memory().expect("a");
    let b = Store::open_in_memory().expect("b");
    let new = new_run("banking", "2026-11-30T01:02:03.987Z");
    let first = a.create_run(&new).expect("first");
    assert!(is_run_id(first.as_str()), "{first}");
    assert!(first.as_str().starts_with("r20261130-010203-"), "{first}");
    // Same inputs, another store: the same id.
    assert_eq!(b.create_run(&new).expect("b"), first);
    // Same inputs again in the same store: a new id, same second.
    let second = a.create_run(&new).expect("second");
    assert_ne!(second, first);
    assert!(second.as_str().starts_with("r20261130-010203-"), "{second}");
    // Ids sort by time across seconds.
    let later = a
        .create_run(&new_run("banking", "2026-11-30T01:02:04Z"))
        .expect("later");
    assert!(later > first && later > second);
}

#[test]
fn many_runs_in_one_second_all_get_ids() {
    let store = Store::open_in_memory().expect("store");
    let new = new_run("banking", T0);
    let ids: std::collections::BTreeSet<RunId> = (0..300)
        .map(|_| store.create_run(&new).expect("create"))
        .collect();
    assert_eq!(ids.len(), 300);
}

#[test]
fn runs_list_newest_first_by_time_not_text() {
    let store = Store::open_in_memory().expect("store");
    // As text, "…03.5Z" < "…03Z"; as times it is later.
    let times = [
        "2026-11-30T01:02:03.5Z",
        "2026-11-29T23:59:59Z",
        "2026-11-30T01:02:04Z",
        "2026-11-30T01:02:03Z",
    ];
    for t in times {
        store.create_run(&new_run("banking", t)).expect("create");
    }
    let got: Vec<String> = store
        .runs()
        .expect("runs")
        .into_iter()
        .map(|r| r.started_at)
        .collect();
    assert_eq!(
        got,
        [
            "2026-11-30T01:02:04Z",
            "2026-11-30T01:02:03.5Z",
            "2026-11-30T01:02:03Z",
            "2026-11-29T23:59:59Z"
        ]
    );
}

#[test]
fn runs_count_trials_by_every_status() {
    let store = Store::open_in_memory().expect("store");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    let empty = store.create_run(&new_run("slack", T0)).expect("create");
    // A different count per status, so a swapped column shows.
    let mut index = 0;
    for (n, status) in TestStatus::ALL.into_iter().enumerate() {
        for _ in 0..=n {
            store
                .record_trial(&trial(&run, "pay-bill", index, status))
                .expect("record");
            index += 1;
        }
    }
    let row = store.run(&run).expect("run").expect("exists");
    for (n, status) in TestStatus::ALL.into_iter().enumerate() {
        assert_eq!(row.counts.get(status), n as u64 + 1, "{status:?}");
    }
    assert_eq!(row.counts.total(), 10);
    let listed = store.runs().expect("runs");
    assert_eq!(
        listed.iter().find(|r| r.id == run).expect("listed").counts,
        row.counts
    );
    assert_eq!(
        listed
            .iter()
            .find(|r| r.id == empty)
            .expect("listed")
            .counts
            .total(),
        0
    );
}

/// Puts a new run into `status`.
fn run_in(store: &Store, status: RunStatus, suite: &str) -> RunId {
    let id = store.create_run(&new_run(suite, T0)).expect("create");
    if status != RunStatus::Running {
        store
            .finish_run(&id, status, "2026-11-30T02:00:00Z")
            .expect("finish");
    }
    id
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Finish(RunStatus),
    Resume,
}

#[test]
fn status_changes_every_state_by_every_operation() {
    use RunStatus::*;
    // (from, operation) → status after, or the error's kind.
    let table: [(RunStatus, Op, Result<RunStatus, &str>); 12] = [
        (Running, Op::Finish(Finished), Ok(Finished)),
        (Running, Op::Finish(Interrupted), Ok(Interrupted)),
        (Running, Op::Finish(Running), Err("invalid")),
        (Running, Op::Resume, Ok(Running)),
        (Interrupted, Op::Finish(Finished), Ok(Finished)),
        (Interrupted, Op::Finish(Interrupted), Ok(Interrupted)),
        (Interrupted, Op::Finish(Running), Err("invalid")),
        (Interrupted, Op::Resume, Ok(Running)),
        (Finished, Op::Finish(Finished), Err("state")),
        (Finished, Op::Finish(Interrupted), Err("state")),
        (Finished, Op::Finish(Running), Err("invalid")),
        (Finished, Op::Resume, Err("state")),
    ];
    for (from, op, want) in table {
        let store = Store::open_in_memory().expect("store");
        let id = run_in(&store, from, "banking");
        let before = store.run(&id).expect("run").expect("exists");
        let got = match op {
            Op::Finish(s) => store.finish_run(&id, s, "2026-11-30T03:00:00Z"),
            Op::Resume => store.resume_run(&id),
        };
        let after = store.run(&id).expect("run").expect("exists");
        match (got, want) {
            (Ok(()), Ok(status)) => {
                assert_eq!(after.status, status, "{from:?} {op:?}");
                let finished_at = (status != Running).then(|| "2026-11-30T03:00:00Z".to_string());
                assert_eq!(after.finished_at, finished_at, "{from:?} {op:?}");
            }
            (Err(e), Err(kind)) => {
                let ok = match kind {
                    "invalid" => matches!(
                        e,
                        StoreError::Invalid {
                            field: "status",
                            ..
                        }
                    ),
                    _ => matches!(e, StoreError::RunState { .. }),
                };
                assert!(ok, "{from:?} {op:?}: {e}");
                assert_eq!(after, before, "a refused change changes nothing");
            }
            (got, want) => panic!("{from:?} {op:?}: got {got:?}, want {want:?}"),
        }
    }
    let store = Store::open_in_memory().expect("store");
    let ghost = RunId::new("r20261130-010203-0000");
    assert!(matches!(
        store.finish_run(&ghost, RunStatus::Finished, T0),
        Err(StoreError::UnknownRun { .. })
    ));
    assert!(matches!(
        store.resume_run(&ghost),
        Err(StoreError::UnknownRun { .. })
    ));
}

#[test]
fn latest_unfinished_run_is_the_newest_resumable_of_that_suite() {
    let store = Store::open_in_memory().expect("store");
    let suite = digest("banking");
    assert_eq!(store.latest_unfinished_run(&suite).expect("none"), None);
    let at = |t: &str, suite: &str| store.create_run(&new_run(suite, t)).expect("create");
    let old = at("2026-11-30T01:00:00Z", "banking");
    let interrupted = at("2026-11-30T02:00:00Z", "banking");
    store
        .finish_run(&interrupted, RunStatus::Interrupted, "2026-11-30T02:05:00Z")
        .expect("interrupt");
    let finished = at("2026-11-30T03:00:00Z", "banking");
    store
        .finish_run(&finished, RunStatus::Finished, "2026-11-30T03:05:00Z")
        .expect("finish");
    let _other_suite = at("2026-11-30T04:00:00Z", "slack");

    let got = store
        .latest_unfinished_run(&suite)
        .expect("latest")
        .expect("one");
    assert_eq!(
        got.id, interrupted,
        "newest resumable; finished and other suites skipped"
    );
    store.resume_run(&interrupted).expect("resume");
    store
        .finish_run(&interrupted, RunStatus::Finished, "2026-11-30T02:30:00Z")
        .expect("finish");
    assert_eq!(
        store
            .latest_unfinished_run(&suite)
            .expect("latest")
            .map(|r| r.id),
        Some(old)
    );
}

#[test]
fn resolve_run_by_exact_id_or_unique_prefix() {
    let store = Store::open_in_memory().expect("store");
    let a = store
        .create_run(&new_run("banking", "2026-11-30T01:02:03Z"))
        .expect("a");
    let b = store
        .create_run(&new_run("banking", "2026-11-30T01:02:03Z"))
        .expect("b");
    let c = store
        .create_run(&new_run("banking", "2026-12-01T00:00:00Z"))
        .expect("c");
    for id in [&a, &b, &c] {
        assert_eq!(&store.resolve_run(id.as_str()).expect("exact"), id);
    }
    assert_eq!(store.resolve_run("r202612").expect("unique prefix"), c);
    // a and b differ only in the suffix: the shortest unique prefix works.
    let common = a
        .as_str()
        .chars()
        .zip(b.as_str().chars())
        .take_while(|(x, y)| x == y)
        .count();
    assert_eq!(store.resolve_run(&a.as_str()[..=common]).expect("a"), a);

    match store.resolve_run("r20261130") {
        Err(StoreError::AmbiguousRun {
            candidates,
            matches,
            ..
        }) => {
            assert_eq!(matches, 2);
            // Same start time: newest inserted first.
            assert_eq!(candidates, vec![b.to_string(), a.to_string()]);
        }
        other => panic!("{other:?}"),
    }
    match store.resolve_run("r2025") {
        Err(StoreError::RunNotFound { candidates, .. }) => {
            assert_eq!(
                candidates,
                vec![c.to_string(), b.to_string(), a.to_string()]
            );
        }
        other => panic!("{other:?}"),
    }
    // Wildcards are literal text, not patterns.
    assert!(matches!(
        store.resolve_run("r%"),
        Err(StoreError::RunNotFound { .. })
    ));
    assert!(matches!(
        store.resolve_run("_"),
        Err(StoreError::RunNotFound { .. })
    ));
    assert!(matches!(
        store.resolve_run(""),
        Err(StoreError::Invalid { .. })
    ));
}

#[test]
fn ambiguity_lists_at_most_ten_candidates_and_the_total() {
    let store = Store::open_in_memory().expect("store");
    for _ in 0..14 {
        store.create_run(&new_run("banking", T0)).expect("create");
    }
    match store.resolve_run("r2026") {
        Err(StoreError::AmbiguousRun {
            candidates,
            matches,
            ..
        }) => {
            assert_eq!(matches, 14);
            assert_eq!(candidates.len(), 10);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_inputs_to_create_run_are_named() {
    let store = Store::open_in_memory().expect("store");
    let mut new = new_run("banking", "2026-11-30 01:02:03");
    let err = store.create_run(&new).expect_err("time");
    assert!(
        matches!(
            err,
            StoreError::Invalid {
                field: "started_at",
                ..
            }
        ),
        "{err}"
    );
    new.started_at = T0.into();
    new.suite_digest = "suites/banking.yaml".into();
    let err = store.create_run(&new).expect_err("digest");
    assert!(
        matches!(
            err,
            StoreError::Invalid {
                field: "suite_digest",
                ..
            }
        ),
        "{err}"
    );
    assert!(store.runs().expect("runs").is_empty());
}

#[test]
fn a_run_keeps_the_cache_mode_it_was_started_with() {
    let store = Store::open_in_memory().expect("store");
    for mode in [
        pactum_store::CacheMode::Use,
        pactum_store::CacheMode::Bypass,
        pactum_store::CacheMode::Refresh,
    ] {
        let mut new = new_run("banking", T0);
        new.cache_mode = mode;
        let id = store.create_run(&new).expect("create");
        assert_eq!(store.run_cache_mode(&id).expect("read"), Some(mode));
    }
    let unknown = RunId::new("r20261130-010203-ffff".to_string());
    assert!(matches!(
        store.run_cache_mode(&unknown),
        Err(StoreError::UnknownRun { .. })
    ));
}
