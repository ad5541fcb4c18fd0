//! Files the store cannot use, and rows that do not read back: each gives
//! an error that names the path (and table, row, column).

use std::error::Error as _;
use std::ops::ControlFlow;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use pactum_core::TestStatus;
use pactum_store::{Store, StoreError};

use crate::common::*;

/// The message a user reads: the error and its causes, with the temporary
/// folder replaced by `[TMP]`.
fn shown(err: &StoreError, tmp: &Path) -> String {
    let mut s = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        s.push_str(&format!("\n  caused by: {c}"));
        cause = c.source();
    }
    s.replace(&tmp.display().to_string(), "[TMP]")
}

fn names_path(err: &StoreError, path: &Path) {
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err} does not name {}",
        path.display()
    );
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_by_name_and_left_alone() {
    let dir = tmp();
    let path = dir.path().join("pactum.db");
    let text = "runs:\n  - id: r1\n".repeat(200);
    std::fs::write(&path, &text).expect("write");
    let err = Store::open(&path).expect_err("not sqlite");
    assert!(matches!(err, StoreError::Damaged { .. }), "{err:?}");
    names_path(&err, &path);
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        text,
        "the file is not modified"
    );
    insta::assert_snapshot!("not_sqlite", shown(&err, dir.path()));
}

#[test]
fn a_damaged_store_is_reported_not_panicked_on() {
    let (dir, store) = file_store();
    let path = store.path().to_path_buf();
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    for i in 0..40 {
        store
            .record_trial(&trial(&run, "pay-bill", i, TestStatus::Pass))
            .expect("record");
    }
    drop(store);
    // Overwrite pages in the middle with garbage, keeping the header.
    let mut bytes = std::fs::read(&path).expect("read");
    assert!(bytes.len() > 8192, "{} bytes", bytes.len());
    let end = bytes.len() - 1024;
    for b in &mut bytes[4096..end] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).expect("damage");
    let outcome = Store::open(&path).and_then(|s| {
        s.runs()?;
        s.trials(&run, &mut |_| ControlFlow::Continue(()))
    });
    let err = outcome.expect_err("damage is noticed");
    assert!(
        matches!(
            err,
            StoreError::Corrupt { .. } | StoreError::BadRow { .. } | StoreError::Damaged { .. }
        ),
        "{err:?}"
    );
    names_path(&err, &path);
    drop(dir);
}

#[test]
fn a_parent_that_is_a_file_is_named() {
    let dir = tmp();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").expect("write");
    let err = Store::open(&file.join("deeper/pactum.db")).expect_err("parent is a file");
    assert!(matches!(err, StoreError::WrongKind { .. }), "{err:?}");
    names_path(&err, &file);
    insta::assert_snapshot!("parent_is_a_file", shown(&err, dir.path()));
}

#[test]
fn a_path_that_is_a_folder_is_named() {
    let dir = tmp();
    let path = dir.path().join("pactum.db");
    std::fs::create_dir(&path).expect("mkdir");
    let err = Store::open(&path).expect_err("a folder");
    assert!(matches!(err, StoreError::WrongKind { .. }), "{err:?}");
    names_path(&err, &path);
    insta::assert_snapshot!("path_is_a_folder", shown(&err, dir.path()));
}

/// Permission bits do not stop root, so these run only for other users.
fn running_as_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

#[test]
fn a_read_only_store_is_named() {
    if running_as_root() {
        // Run this very test again as `nobody`, where permissions apply.
        let setpriv = Path::new("/usr/bin/setpriv");
        if !setpriv.exists() {
            eprintln!("skipped: running as root and no setpriv to drop privileges");
            return;
        }
        let exe = std::env::current_exe().expect("test binary");
        let status = std::process::Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(exe)
            .args([
                "errors::a_read_only_store_is_named",
                "--exact",
                "--nocapture",
                "-q",
            ])
            .env("TMPDIR", std::env::temp_dir())
            .status()
            .expect("setpriv");
        assert!(status.success(), "the test as user nobody failed: {status}");
        return;
    }
    let (dir, store) = file_store();
    let path = store.path().to_path_buf();
    drop(store);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod file");
    let err = Store::open(&path).expect_err("read-only file");
    eprintln!("read-only file: {}", shown(&err, dir.path()));
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
    names_path(&err, &path);

    let folder = dir.path().join("locked");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555))
        .expect("chmod folder");
    let inside = folder.join("pactum.db");
    let err = Store::open(&inside).expect_err("read-only folder");
    eprintln!("read-only folder: {}", shown(&err, dir.path()));
    assert!(
        matches!(
            err,
            StoreError::CannotOpen { .. } | StoreError::ReadOnly { .. }
        ),
        "{err:?}"
    );
    names_path(&err, &inside);
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).expect("restore");
}

#[test]
fn a_location_that_cannot_be_created_is_named() {
    // /proc refuses new entries whoever asks, root included.
    let path = Path::new("/proc/pactum-store-test/pactum.db");
    let err = Store::open(path).expect_err("/proc");
    assert!(matches!(err, StoreError::CreateDir { .. }), "{err:?}");
    names_path(&err, Path::new("/proc/pactum-store-test"));
}

#[test]
fn rows_that_do_not_read_back_name_table_row_and_column() {
    let (dir, store) = file_store();
    let path = store.path().to_path_buf();
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    store
        .record_trial(&trial(&run, "pay-bill", 0, TestStatus::Fail))
        .expect("record");
    let conn = raw(&path);
    conn.execute("UPDATE trials SET trace = '{\"id\": \"t\"}'", [])
        .expect("plant");
    let err = store
        .trials(&run, &mut |_| ControlFlow::Continue(()))
        .expect_err("bad trace");
    match &err {
        StoreError::BadRow {
            table, row, column, ..
        } => {
            assert_eq!(
                (*table, row.as_str(), *column),
                ("trials", format!("{run}/pay-bill/0").as_str(), "trace")
            );
        }
        other => panic!("{other:?}"),
    }
    let text = shown(&err, dir.path()).replace(run.as_str(), "[RUN]");
    insta::assert_snapshot!("bad_trace_row", text);

    conn.execute(
        "UPDATE runs SET policy = '{\"severity_floor\": \"urgent\"}'",
        [],
    )
    .expect("plant");
    let err = store.runs().expect_err("bad policy");
    assert!(
        matches!(
            &err,
            StoreError::BadRow {
                table: "runs",
                column: "policy",
                ..
            }
        ),
        "{err:?}"
    );

    let key = digest("k");
    store
        .cache_put(
            &key,
            pactum_store::CacheKind::Target,
            &serde_json::json!(1),
            T0,
        )
        .expect("put");
    conn.execute("UPDATE cache SET value = 'not json'", [])
        .expect("plant");
    let err = store.cache_get(&key).expect_err("bad value");
    assert!(
        matches!(
            &err,
            StoreError::BadRow {
                table: "cache",
                column: "value",
                ..
            }
        ),
        "{err:?}"
    );
    drop(dir);
}

#[test]
fn messages_users_read() {
    let dir = tmp();
    let path = dir.path().join("pactum.db");
    let store = Store::open(&path).expect("open");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    store.create_run(&new_run("banking", T0)).expect("create");
    let mut lines = Vec::new();
    let mut show = |label: &str, err: StoreError| {
        lines.push(format!("{label}: {}", shown(&err, dir.path())));
    };
    show(
        "too new",
        StoreError::TooNew {
            path: path.clone(),
            found: 9,
            supported: pactum_store::SCHEMA_VERSION,
        },
    );
    show(
        "ambiguous",
        store.resolve_run("r2026").expect_err("ambiguous"),
    );
    show(
        "not found",
        store.resolve_run("r2025").expect_err("not found"),
    );
    show("finished", {
        store
            .finish_run(
                &run,
                pactum_store::RunStatus::Finished,
                "2026-11-30T02:00:00Z",
            )
            .expect("finish");
        store.resume_run(&run).expect_err("finished")
    });
    show(
        "bad time",
        store
            .cache_put(
                &digest("k"),
                pactum_store::CacheKind::Judge,
                &serde_json::json!(1),
                "30/11/2026",
            )
            .expect_err("time"),
    );
    show("bad key", store.cache_get("sk-live-1234").expect_err("key"));
    show("twice", {
        let other = store.create_run(&new_run("slack", T0)).expect("create");
        store
            .record_trial(&trial(&other, "pay-bill", 0, TestStatus::Pass))
            .expect("first");
        store
            .record_trial(&trial(&other, "pay-bill", 0, TestStatus::Pass))
            .expect_err("twice")
    });
    let text = lines.join("\n");
    // Run ids depend on the suite digest and time only: stable.
    insta::assert_snapshot!("messages", text);
}

#[test]
fn open_existing_never_creates_a_store() {
    let dir = tmp();
    let path = dir.path().join("sub").join("pactum.db");
    let err = Store::open_existing(&path).expect_err("nothing there");
    assert!(matches!(err, StoreError::Missing { .. }), "{err}");
    names_path(&err, &path);
    assert!(!path.exists(), "no file was created");
    assert!(!dir.path().join("sub").exists(), "no folder was created");

    // An empty file or a device is not a store, and stays untouched.
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, "").expect("write");
    let err = Store::open_existing(&empty).expect_err("empty");
    assert!(matches!(err, StoreError::WrongKind { .. }), "{err}");
    assert_eq!(std::fs::metadata(&empty).expect("meta").len(), 0);
    let err = Store::open_existing(Path::new("/dev/null")).expect_err("device");
    assert!(err.to_string().contains("not a regular file"), "{err}");

    Store::open(&path).expect("create");
    Store::open_existing(&path).expect("now it exists");
}

#[test]
fn a_contract_snapshot_edited_in_place_is_refused_by_row() {
    let dir = tmp();
    let path = dir.path().join("pactum.db");
    let snap = banking_snapshot();
    {
        let store = Store::open(&path).expect("open");
        store
            .put_contract(&snap.digest, &snap.contract)
            .expect("put");
    }
    let mut edited = snap.contract.clone();
    edited.prohibited[0].text.push_str(" unless asked nicely");
    raw(&path)
        .execute(
            "UPDATE contracts SET snapshot = ?1 WHERE digest = ?2",
            [
                serde_json::to_string(&edited).expect("json"),
                snap.digest.clone(),
            ],
        )
        .expect("tamper");
    let store = Store::open(&path).expect("reopen");
    let err = store.contract(&snap.digest).expect_err("tampered");
    assert!(
        matches!(
            err,
            StoreError::BadRow {
                table: "contracts",
                column: "snapshot",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("changed after it was stored"),
        "{err}"
    );
}

/// A snapshot as an older pactum stored it: `refusal` without `kind`
/// (one refusal form). It is named as such, with its clauses and what to
/// do; a snapshot broken otherwise stays a bad row.
#[test]
fn a_contract_snapshot_with_a_kindless_refusal_names_its_clauses() {
    let dir = tmp();
    let path = dir.path().join("pactum.db");
    let old = serde_json::json!({
        "version": 1, "id": "refuse-harm",
        "required": [{"id": "refuses", "text": "Refuse", "severity": "high",
            "check": {"refusal": {"turns": "any"}}}],
        "prohibited": [
            {"id": "complies", "text": "Give the steps", "severity": "critical",
                "check": {"not": {"refusal": {"turns": "last"}}}},
            {"id": "also", "text": "Comply", "severity": "low",
                "check": {"all": [{"contains": "step"}, {"not": {"refusal": {"turns": "any"}}}]}}
        ],
        "conditional": [], "adversarial": false, "source_notes": []
    });
    let digest = pactum_core::digest::digest_of(&old);
    let broken = serde_json::json!({"version": 1, "id": "x", "required": [{"id": "r"}]});
    let broken_digest = pactum_core::digest::digest_of(&broken);
    Store::open(&path).expect("create");
    for (d, v) in [(&digest, &old), (&broken_digest, &broken)] {
        raw(&path)
            .execute(
                "INSERT INTO contracts (digest, snapshot) VALUES (?1, ?2)",
                [d.clone(), v.to_string()],
            )
            .expect("an older pactum's row");
    }
    let store = Store::open(&path).expect("reopen");
    let err = store.contract(&digest).expect_err("kindless");
    match &err {
        StoreError::KindlessRefusal {
            contract, clauses, ..
        } => {
            assert_eq!(contract, "refuse-harm");
            assert_eq!(clauses, &["refuses", "complies", "also"]);
        }
        other => panic!("{other:?}"),
    }
    let text = shown(&err, dir.path());
    assert!(
        text.starts_with("clauses `refuses`, `complies`, `also` of the stored contract `refuse-harm` use `refusal` without `kind`, as an older pactum wrote it: re-run the suite to grade its traces again"),
        "{text}"
    );
    names_path(&err, &path);
    let err = store.contract(&broken_digest).expect_err("broken");
    assert!(
        matches!(
            err,
            StoreError::BadRow {
                table: "contracts",
                ..
            }
        ),
        "{err:?}"
    );
}
