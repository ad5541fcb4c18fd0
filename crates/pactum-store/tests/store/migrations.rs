//! Versioned migrations: a new file gets the latest schema, an old one is
//! migrated keeping its data, a newer or foreign one is refused untouched.

use std::ops::ControlFlow;

use pactum_core::TestStatus;
use pactum_store::{
    CacheKind, RunId, RunStatus, Store, StoreError, APPLICATION_ID, SCHEMA_VERSION,
};
use serde_json::json;

use crate::common::*;

fn pragma(path: &std::path::Path, name: &str) -> i64 {
    raw(path)
        .pragma_query_value(None, name, |r| r.get(0))
        .expect("pragma")
}

fn tables(path: &std::path::Path) -> Vec<String> {
    let conn = raw(path);
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .expect("prepare");
    stmt.query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("names")
}

#[test]
fn a_new_file_gets_the_latest_schema() {
    let dir = tmp();
    let path = dir.path().join("deep/er/pactum.db");
    drop(Store::open(&path).expect("open"));
    assert_eq!(pragma(&path, "user_version"), i64::from(SCHEMA_VERSION));
    assert_eq!(pragma(&path, "application_id"), i64::from(APPLICATION_ID));
    assert_eq!(
        tables(&path),
        [
            "cache",
            "contracts",
            "interpretations",
            "judge_answers",
            "leases",
            "runs",
            "suite_snapshots",
            "trials"
        ]
    );
    let mode: String = raw(&path)
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal");
}

#[test]
fn reopening_keeps_data_and_version() {
    let (dir, store) = file_store();
    let path = store.path().to_path_buf();
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    store
        .record_trial(&trial(&run, "pay-bill", 0, TestStatus::Pass))
        .expect("record");
    drop(store);
    let again = Store::open(&path).expect("reopen");
    assert_eq!(again.run(&run).expect("run").expect("kept").counts.pass, 1);
    assert_eq!(pragma(&path, "user_version"), i64::from(SCHEMA_VERSION));
    drop(dir);
}

#[test]
fn a_version_1_store_is_migrated_keeping_its_data() {
    let dir = tmp();
    let path = dir.path().join("pactum.db");
    let t = trial(
        &RunId::new("r20261130-010203-ab12"),
        "pay-bill",
        0,
        TestStatus::Fail,
    );
    let snap = t.contract.clone().expect("snapshot");
    {
        // A store as pactum with schema version 1 left it.
        let conn = raw(&path);
        conn.execute_batch(include_str!("../fixtures/schema_v1.sql"))
            .expect("v1 schema");
        conn.pragma_update(None, "user_version", 1)
            .expect("version");
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .expect("app id");
        conn.execute(
            "INSERT INTO runs VALUES ('r20261130-010203-ab12', 'suites/banking.yaml', ?1, '{\"version\":1}', ?2, ?3,
                                      '2026-11-30T01:02:03Z', NULL, 'interrupted', '0.1.0')",
            rusqlite::params![
                digest("banking"),
                serde_json::to_string(&pactum_core::Policy::default()).expect("policy"),
                pactum_core::Policy::default().digest()
            ],
        )
        .expect("run");
        conn.execute(
            "INSERT INTO contracts VALUES (?1, ?2)",
            rusqlite::params![
                snap.digest,
                serde_json::to_string(&snap.contract).expect("contract")
            ],
        )
        .expect("contract");
        conn.execute(
            "INSERT INTO trials VALUES ('r20261130-010203-ab12', 'pay-bill', 0, 'fail', 'violated pay-attacker', ?1, ?2, ?3,
                                        '2026-11-30T01:02:04Z', '2026-11-30T01:02:05Z', 875)",
            rusqlite::params![
                snap.digest,
                serde_json::to_string(&t.result).expect("result"),
                serde_json::to_string(&t.trace).expect("trace")
            ],
        )
        .expect("trial");
    }
    assert_eq!(
        tables(&path),
        ["contracts", "judge_answers", "runs", "trials"]
    );

    let store = Store::open(&path).expect("migrate");
    assert_eq!(pragma(&path, "user_version"), i64::from(SCHEMA_VERSION));
    let run = store.resolve_run("r20261130").expect("the old run");
    let row = store.run(&run).expect("run").expect("kept");
    assert_eq!((row.status, row.counts.fail), (RunStatus::Interrupted, 1));
    assert_eq!(
        store.suite_snapshot(&run).expect("snapshot"),
        Some(json!({"version": 1}))
    );
    assert_eq!(
        store.contract(&snap.digest).expect("contract"),
        Some(snap.contract.clone())
    );
    let mut seen = Vec::new();
    store
        .trials(&run, &mut |s| {
            seen.push(s);
            ControlFlow::Continue(())
        })
        .expect("trials");
    assert_eq!(seen.len(), 1);
    assert_eq!((&seen[0].result, &seen[0].trace), (&t.result, &t.trace));
    // The tables version 2 added work.
    store
        .cache_put(&digest("k"), CacheKind::Judge, &json!(1), T0)
        .expect("cache");
    assert_eq!(
        store.cache_get(&digest("k")).expect("cache"),
        Some(json!(1))
    );
    // And the run resumes where it stopped.
    store.resume_run(&run).expect("resume");
    store
        .record_trial(&trial(&run, "pay-bill", 1, TestStatus::Pass))
        .expect("record");
    assert_eq!(store.finished_trials(&run).expect("set").len(), 2);
    assert_integrity(&path);
}

#[test]
fn a_store_from_a_newer_pactum_is_refused_untouched() {
    let (dir, store) = file_store();
    let path = store.path().to_path_buf();
    store.create_run(&new_run("banking", T0)).expect("create");
    drop(store);
    let newer = i64::from(SCHEMA_VERSION) + 1;
    raw(&path)
        .pragma_update(None, "user_version", newer)
        .expect("bump");
    let before = tables(&path);

    let err = Store::open(&path).expect_err("too new");
    match &err {
        StoreError::TooNew {
            found,
            supported,
            path: p,
        } => {
            assert_eq!((*found, *supported), (newer, SCHEMA_VERSION));
            assert_eq!(p, &path);
        }
        other => panic!("{other}"),
    }
    assert_eq!(pragma(&path, "user_version"), newer, "never downgraded");
    assert_eq!(tables(&path), before);
    drop(dir);
}

#[test]
fn another_programs_database_is_refused_untouched() {
    let dir = tmp();
    // An SQLite file with its own tables and no application id.
    let plain = dir.path().join("notes.db");
    raw(&plain)
        .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello');")
        .expect("notes");
    let err = Store::open(&plain).expect_err("foreign");
    assert!(matches!(err, StoreError::Foreign { .. }), "{err}");
    assert_eq!(tables(&plain), ["notes"]);
    assert_eq!(pragma(&plain, "user_version"), 0);
    let mode: String = raw(&plain)
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "delete", "its journal mode is left alone too");

    // Another program's application id, even on an empty file.
    let tagged = dir.path().join("tagged.db");
    raw(&tagged)
        .pragma_update(None, "application_id", 0x0F0F_0F0F)
        .expect("app id");
    let err = Store::open(&tagged).expect_err("foreign id");
    assert!(matches!(err, StoreError::Foreign { .. }), "{err}");
    assert!(tables(&tagged).is_empty());

    // A user_version without pactum's id.
    let versioned = dir.path().join("versioned.db");
    raw(&versioned)
        .pragma_update(None, "user_version", 1)
        .expect("version");
    assert!(matches!(
        Store::open(&versioned),
        Err(StoreError::Foreign { .. })
    ));
}

#[test]
fn concurrent_first_opens_migrate_once() {
    let dir = tmp();
    let path = dir.path().join("race/pactum.db");
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || Store::open(&path).map(|s| s.runs().map(|r| r.len())))
        })
        .collect();
    for h in handles {
        let got = h.join().expect("thread").expect("open").expect("runs");
        assert_eq!(got, 0);
    }
    assert_eq!(pragma(&path, "user_version"), i64::from(SCHEMA_VERSION));
}

#[test]
fn the_schema_is_pinned() {
    let (dir, store) = file_store();
    let conn = raw(store.path());
    let mut stmt = conn
        .prepare(
            "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY type, name",
        )
        .expect("prepare");
    let rows: Vec<String> = stmt
        .query_map([], |r| {
            Ok(format!(
                "-- {} {}\n{};",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?
            ))
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    insta::assert_snapshot!("schema", rows.join("\n\n"));
    drop(dir);
}

#[test]
fn a_store_too_old_to_read_is_refused_by_an_untouched_open_and_not_upgraded() {
    let dir = tmp();
    let path = dir.path().join("pactum.db");
    {
        let conn = raw(&path);
        conn.execute_batch(include_str!("../fixtures/schema_v1.sql"))
            .expect("v1 schema");
        conn.pragma_update(None, "user_version", 1)
            .expect("version");
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .expect("app id");
    }
    let before = std::fs::read(&path).expect("read");
    let err = Store::open_untouched(&path).expect_err("too old to read as it is");
    assert!(
        matches!(err, StoreError::TooOldToRead { found: 1, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("never upgrade"), "{err}");
    assert_eq!(std::fs::read(&path).expect("read"), before, "not upgraded");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["pactum.db"], "nothing beside it");
}
