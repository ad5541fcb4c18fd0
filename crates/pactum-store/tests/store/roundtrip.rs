//! Every table written through the API reads back equal.

use std::ops::ControlFlow;

use pactum_core::TestStatus;
use pactum_store::{BatchWrite, CacheKind, RunStatus, Store, StoreError, StoredTrial};
use serde_json::json;

use crate::common::*;

fn all_trials(store: &Store, run: &pactum_store::RunId) -> Vec<StoredTrial> {
    let mut out = Vec::new();
    store
        .trials(run, &mut |t| {
            out.push(t);
            ControlFlow::Continue(())
        })
        .expect("trials");
    out
}

#[test]
fn run_reads_back_as_created() {
    let store = Store::open_in_memory().expect("store");
    let new = new_run("banking", T0);
    let id = store.create_run(&new).expect("create");
    let row = store.run(&id).expect("run").expect("run exists");
    assert_eq!(row.id, id);
    assert_eq!(row.suite_path, new.suite_path);
    assert_eq!(row.suite_digest, new.suite_digest);
    assert_eq!(row.policy, new.policy);
    assert_eq!(row.policy_digest, new.policy.digest());
    assert_eq!(row.started_at, T0);
    assert_eq!(row.finished_at, None);
    assert_eq!(row.status, RunStatus::Running);
    assert_eq!(row.pactum_version, "0.1.0");
    assert_eq!(row.counts.total(), 0);
    assert_eq!(
        store.suite_snapshot(&id).expect("snapshot"),
        Some(serde_json::from_str(&new.suite_snapshot).expect("json"))
    );
    assert_eq!(store.runs().expect("runs"), vec![row]);
    let other = pactum_store::RunId::new("r20990101-000000-0000");
    assert_eq!(store.run(&other).expect("run"), None);
    assert_eq!(store.suite_snapshot(&other).expect("snapshot"), None);
}

#[test]
fn a_non_default_policy_reads_back_with_its_digest() {
    let store = Store::open_in_memory().expect("store");
    let mut new = new_run("banking", T0);
    new.policy.catch_threshold = 2.0 / 3.0;
    new.policy.minimum_trials = 7;
    new.policy.severity_floor = pactum_core::Severity::Critical;
    let id = store.create_run(&new).expect("create");
    let row = store.run(&id).expect("run").expect("exists");
    assert_eq!(row.policy, new.policy);
    assert_ne!(row.policy_digest, pactum_core::Policy::default().digest());
    assert_eq!(row.policy_digest, new.policy.digest());
}

#[test]
fn trial_reads_back_whole() {
    let store = Store::open_in_memory().expect("store");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    let t = trial(&run, "pay-bill", 0, TestStatus::Fail);
    store.record_trial(&t).expect("record");

    let got = all_trials(&store, &run);
    assert_eq!(got.len(), 1);
    let s = &got[0];
    assert_eq!(s.run_id, run);
    assert_eq!(s.test_id, "pay-bill");
    assert_eq!(s.trial_index, 0);
    assert_eq!(
        s.contract_digest.as_deref(),
        Some(t.contract.as_ref().map(|c| c.digest.as_str()).unwrap_or(""))
    );
    assert_eq!(s.result, t.result);
    assert_eq!(s.trace, t.trace);
    assert_eq!(
        (s.started_at.as_str(), s.finished_at.as_str(), s.duration_ms),
        ("2026-11-30T01:02:04.250Z", "2026-11-30T01:02:05.125Z", 875)
    );

    // The snapshot came in with the trial, the judge's answers too.
    let snap = t.contract.as_ref().expect("snapshot");
    assert_eq!(
        store.contract(&snap.digest).expect("contract"),
        Some(snap.contract.clone())
    );
    assert_eq!(
        store.judge_answers(&run, "pay-bill", 0).expect("answers"),
        t.judge_answers
    );
    assert_eq!(
        store.judge_answers(&run, "pay-bill", 1).expect("answers"),
        vec![]
    );
    // The real trace kept its attack evidence verbatim.
    let trace = s.trace.as_ref().expect("trace");
    assert!(trace
        .tool_calls()
        .any(|(_, c)| c.name == "send_money"
            && c.arguments["recipient"] == "US133000000121212121212"));
    assert_eq!(trace.metadata["security"], json!(true));
}

#[test]
fn trial_without_contract_or_trace_reads_back() {
    let store = Store::open_in_memory().expect("store");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    let mut t = trial(&run, "vague-goal", 2, TestStatus::Error);
    t.contract = None;
    t.trace = None;
    t.judge_answers.clear();
    store.record_trial(&t).expect("record");
    let got = all_trials(&store, &run);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].contract_digest, None);
    assert_eq!(got[0].trace, None);
    assert_eq!(got[0].result, t.result);
    assert_eq!(
        store.run(&run).expect("run").expect("exists").counts.error,
        1
    );
}

#[test]
fn contract_put_is_idempotent_and_content_addressed() {
    let store = Store::open_in_memory().expect("store");
    let snap = banking_snapshot();
    assert_eq!(store.contract(&snap.digest).expect("read"), None);
    store
        .put_contract(&snap.digest, &snap.contract)
        .expect("put");
    store
        .put_contract(&snap.digest, &snap.contract)
        .expect("put again");
    assert_eq!(
        store.contract(&snap.digest).expect("read"),
        Some(snap.contract.clone())
    );

    let mut changed = snap.contract.clone();
    changed.prohibited[0].text.push_str(" or anyone else");
    let err = store
        .put_contract(&snap.digest, &changed)
        .expect_err("a digest names one contract");
    assert!(matches!(err, StoreError::DigestConflict { .. }), "{err}");
    assert_eq!(
        store.contract(&snap.digest).expect("read"),
        Some(snap.contract.clone()),
        "unchanged"
    );

    let err = store
        .put_contract("banking", &snap.contract)
        .expect_err("not a digest");
    assert!(
        matches!(
            err,
            StoreError::Invalid {
                field: "contract digest",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn the_same_contract_with_reordered_json_is_not_a_conflict() {
    let store = Store::open_in_memory().expect("store");
    let with = |args: serde_json::Value| -> pactum_core::Contract {
        let mut c = banking_contract();
        c.prohibited[0].check = Some(
            serde_json::from_value(json!({"tool_called": {"name": "send_money", "args": args}}))
                .expect("predicate"),
        );
        c
    };
    let a = with(json!({"/recipient": "US133000000121212121212", "/amount": 1000}));
    let b = with(json!({"/amount": 1000, "/recipient": "US133000000121212121212"}));
    let d = digest("reordered");
    store.put_contract(&d, &a).expect("put a");
    store
        .put_contract(&d, &b)
        .expect("the same contract, keys in another order");
}

#[test]
fn recording_a_trial_twice_is_refused_and_keeps_the_first() {
    let store = Store::open_in_memory().expect("store");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    store
        .record_trial(&trial(&run, "pay-bill", 0, TestStatus::Fail))
        .expect("first");
    let err = store
        .record_trial(&trial(&run, "pay-bill", 0, TestStatus::Pass))
        .expect_err("a trial is never recorded twice");
    assert!(
        matches!(err, StoreError::TrialExists { trial_index: 0, .. }),
        "{err}"
    );
    let got = all_trials(&store, &run);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].result.status, TestStatus::Fail);
    assert_eq!(
        store
            .judge_answers(&run, "pay-bill", 0)
            .expect("answers")
            .len(),
        2
    );
}

#[test]
fn a_failed_record_keeps_nothing_of_the_trial() {
    let store = Store::open_in_memory().expect("store");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    // The trial's snapshot conflicts with a stored one: the whole trial,
    // judge answers included, must roll back.
    let mut t = trial(&run, "pay-bill", 0, TestStatus::Fail);
    let snap = t.contract.clone().expect("snapshot");
    let mut other = snap.contract.clone();
    other.id = "another-contract".into();
    store.put_contract(&snap.digest, &other).expect("plant");
    let err = store.record_trial(&t).expect_err("conflict");
    assert!(matches!(err, StoreError::DigestConflict { .. }), "{err}");
    assert!(store.finished_trials(&run).expect("set").is_empty());
    assert!(store
        .judge_answers(&run, "pay-bill", 0)
        .expect("answers")
        .is_empty());

    // A bad judge answer is refused before anything is written.
    t.contract = None;
    t.judge_answers[1].request_digest = "POST /v1/chat/completions".into();
    let err = store.record_trial(&t).expect_err("bad digest");
    assert!(
        matches!(
            err,
            StoreError::Invalid {
                field: "judge answer request_digest",
                ..
            }
        ),
        "{err}"
    );
    t.judge_answers[1].request_digest = digest("ok");
    t.judge_answers[0].attempt = 0;
    let err = store.record_trial(&t).expect_err("attempt 0");
    assert!(
        matches!(
            err,
            StoreError::Invalid {
                field: "judge answer attempt",
                ..
            }
        ),
        "{err}"
    );
    assert!(store.finished_trials(&run).expect("set").is_empty());
}

#[test]
fn trials_need_a_known_unfinished_run() {
    let store = Store::open_in_memory().expect("store");
    let ghost = pactum_store::RunId::new("r20261130-010203-dead");
    let err = store
        .record_trial(&trial(&ghost, "t", 0, TestStatus::Pass))
        .expect_err("unknown run");
    assert!(matches!(err, StoreError::UnknownRun { .. }), "{err}");
    assert!(matches!(
        store.finished_trials(&ghost),
        Err(StoreError::UnknownRun { .. })
    ));
    assert!(matches!(
        store.trials(&ghost, &mut |_| ControlFlow::Continue(())),
        Err(StoreError::UnknownRun { .. })
    ));

    let run = store.create_run(&new_run("banking", T0)).expect("create");
    store
        .finish_run(&run, RunStatus::Finished, "2026-11-30T01:10:00Z")
        .expect("finish");
    let err = store
        .record_trial(&trial(&run, "t", 0, TestStatus::Pass))
        .expect_err("finished run");
    assert!(
        matches!(
            err,
            StoreError::RunState {
                status: "finished",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn trials_stream_in_test_then_numeric_index_order_and_can_stop() {
    let store = Store::open_in_memory().expect("store");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    // Inserted out of order; indexes 10 and 2 must not sort as text.
    let keys = [
        ("zeta", 10u32),
        ("alpha", 2),
        ("Émile", 0),
        ("alpha", 10),
        ("zeta", 2),
        ("alpha", 0),
        ("Zulu", 1),
    ];
    for (test, idx) in keys {
        store
            .record_trial(&trial(&run, test, idx, TestStatus::Pass))
            .expect("record");
    }
    let got: Vec<(String, u32)> = all_trials(&store, &run)
        .into_iter()
        .map(|t| (t.test_id, t.trial_index))
        .collect();
    let mut want: Vec<(String, u32)> = keys.iter().map(|(t, i)| (t.to_string(), *i)).collect();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(
        store.finished_trials(&run).expect("set"),
        want.iter().cloned().collect()
    );

    let mut seen = 0;
    store
        .trials(&run, &mut |_| {
            seen += 1;
            if seen == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .expect("trials");
    assert_eq!(seen, 3);
}

#[test]
fn trials_of_one_run_do_not_leak_into_another() {
    let store = Store::open_in_memory().expect("store");
    let a = store.create_run(&new_run("banking", T0)).expect("a");
    let b = store.create_run(&new_run("slack", T0)).expect("b");
    store
        .record_trial(&trial(&a, "pay-bill", 0, TestStatus::Pass))
        .expect("a0");
    store
        .record_trial(&trial(&b, "pay-bill", 0, TestStatus::Fail))
        .expect("b0");
    store
        .record_trial(&trial(&b, "pay-bill", 1, TestStatus::Fail))
        .expect("b1");
    assert_eq!(all_trials(&store, &a).len(), 1);
    assert_eq!(all_trials(&store, &b).len(), 2);
    assert_eq!(store.run(&a).expect("a").expect("a").counts.pass, 1);
    assert_eq!(store.run(&b).expect("b").expect("b").counts.fail, 2);
}

#[test]
fn store_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<Store>();
    // And used from another thread for real.
    let store = Store::open_in_memory().expect("store");
    let run =
        std::thread::spawn(move || store.create_run(&new_run("banking", T0)).expect("create"))
            .join()
            .expect("thread");
    assert!(run.as_str().starts_with("r20261130-010203-"));
}

#[test]
fn a_batch_keeps_each_write_or_nothing_of_it() {
    let store = Store::open_in_memory().expect("store");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    store
        .record_trial(&trial(&run, "pay-bill", 0, TestStatus::Fail))
        .expect("first");
    // A trial whose snapshot conflicts rolls back alone, judge answers
    // included; the writes around it stand.
    let mut conflict = trial(&run, "conflict", 0, TestStatus::Pass);
    let snap = conflict.contract.clone().expect("snapshot");
    let mut other = snap.contract.clone();
    other.id = "another-contract".into();
    let planted = digest("planted");
    store.put_contract(&planted, &other).expect("plant");
    conflict.contract = Some(pactum_store::ContractSnapshot {
        digest: planted,
        contract: snap.contract,
    });
    let again = trial(&run, "pay-bill", 0, TestStatus::Pass);
    let fresh = trial(&run, "fresh", 1, TestStatus::Pass);
    let key = digest("request");
    let value = json!({"content": "answer"});
    let results = store
        .write_batch(&[
            BatchWrite::Trial(&again),
            BatchWrite::Trial(&conflict),
            BatchWrite::Trial(&fresh),
            BatchWrite::Cache {
                key: &key,
                kind: CacheKind::Target,
                value: &value,
                now: T0,
            },
            BatchWrite::Cache {
                key: "not a digest",
                kind: CacheKind::Target,
                value: &value,
                now: T0,
            },
        ])
        .expect("the batch commits");
    assert!(matches!(results[0], Err(StoreError::TrialExists { .. })));
    assert!(matches!(results[1], Err(StoreError::DigestConflict { .. })));
    assert!(matches!(results[2], Ok(None)));
    assert!(matches!(results[3], Ok(None)));
    assert!(matches!(results[4], Err(StoreError::Invalid { .. })));
    // A lookup in a later batch sees the entry and counts its hit; a miss
    // is `None`.
    let missing = digest("another request");
    let results = store
        .write_batch(&[
            BatchWrite::CacheGet { key: &key },
            BatchWrite::CacheGet { key: &missing },
        ])
        .expect("the batch commits");
    assert_eq!(results[0].as_ref().ok(), Some(&Some(value.clone())));
    assert!(matches!(results[1], Ok(None)));
    assert_eq!(
        store.cache_entry(&key).expect("entry").expect("kept").hits,
        1
    );
    let stored = store.finished_trials(&run).expect("set");
    assert_eq!(
        stored.into_iter().collect::<Vec<_>>(),
        vec![("fresh".to_string(), 1), ("pay-bill".to_string(), 0)]
    );
    assert!(store
        .judge_answers(&run, "conflict", 0)
        .expect("answers")
        .is_empty());
    assert_eq!(
        store
            .judge_answers(&run, "fresh", 1)
            .expect("answers")
            .len(),
        2
    );
    assert_eq!(store.cache_get(&key).expect("cache"), Some(value));
    // The first trial was not replaced by the refused second one.
    let first = all_trials(&store, &run);
    let kept = first
        .iter()
        .find(|t| t.test_id == "pay-bill")
        .expect("kept");
    assert_eq!(kept.result.status, TestStatus::Fail);
}

#[test]
fn a_batch_on_a_finished_run_keeps_nothing_and_says_so_per_write() {
    let store = Store::open_in_memory().expect("store");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    store
        .finish_run(&run, RunStatus::Finished, T0)
        .expect("finish");
    let t = trial(&run, "late", 0, TestStatus::Pass);
    let results = store
        .write_batch(&[BatchWrite::Trial(&t)])
        .expect("the batch commits");
    assert!(matches!(results[0], Err(StoreError::RunState { .. })));
    assert!(store.finished_trials(&run).expect("set").is_empty());
}

#[test]
fn a_large_suite_snapshot_is_stored_byte_for_byte() {
    // Many pages of it, with text of several bytes per character: written
    // into the row's pages, it must read back as the very same text.
    let (dir, store) = file_store();
    let mut new = new_run("banking", T0);
    let tests: Vec<_> = (0..40_000)
        .map(|i| json!({"id": format!("t{i:06}"), "turns": [format!("question {i} — ĉu ✓")]}))
        .collect();
    new.suite_snapshot =
        serde_json::to_string(&json!({"tests": tests, "version": 1})).expect("json");
    assert!(new.suite_snapshot.len() > 2_000_000);
    let id = store.create_run(&new).expect("create");
    drop(store);
    let stored: String = raw(&dir.path().join(".pactum/pactum.db"))
        .query_row(
            "SELECT CAST(snapshot AS TEXT) FROM suite_snapshots WHERE run_id = ?1",
            [id.as_str()],
            |r| r.get(0),
        )
        .expect("row");
    assert_eq!(stored, new.suite_snapshot);
    let store = Store::open(&dir.path().join(".pactum/pactum.db")).expect("reopen");
    assert_eq!(
        store.suite_snapshot(&id).expect("snapshot"),
        Some(serde_json::from_str(&new.suite_snapshot).expect("json"))
    );
}

#[test]
fn a_run_whose_snapshot_row_is_gone_is_a_bad_row_not_an_empty_suite() {
    let (dir, store) = file_store();
    let id = store.create_run(&new_run("banking", T0)).expect("create");
    drop(store);
    let path = dir.path().join(".pactum/pactum.db");
    raw(&path)
        .execute(
            "DELETE FROM suite_snapshots WHERE run_id = ?1",
            [id.as_str()],
        )
        .expect("delete");
    let store = Store::open(&path).expect("reopen");
    let err = store.suite_snapshot(&id).expect_err("no snapshot to read");
    assert!(
        matches!(
            &err,
            StoreError::BadRow {
                table: "runs",
                column: "suite_snapshot",
                ..
            }
        ),
        "{err:?}"
    );
}
