//! Opening checks the file cheaply before writing into it, a read-only
//! store can still be read, and failures name their cause.

use std::ops::ControlFlow;
use std::path::Path;

use pactum_core::TestStatus;
use pactum_store::{Store, StoreError};

use crate::common::*;

/// A store with one run of `n` trials, closed; its path.
fn filled(dir: &Path, n: u32) -> std::path::PathBuf {
    let path = dir.join("pactum.db");
    let store = Store::open(&path).expect("open");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    for i in 0..n {
        store
            .record_trial(&trial(&run, "pay-bill", i, TestStatus::Pass))
            .expect("record");
    }
    drop(store);
    path
}

/// Every file in `dir`, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| {
            let p = e.expect("entry").path();
            (
                p.file_name().expect("name").to_string_lossy().into_owned(),
                std::fs::read(&p).expect("read"),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_truncated_store_is_refused_with_nothing_written() {
    let dir = tmp();
    let path = filled(dir.path(), 30);
    let bytes = std::fs::read(&path).expect("read");
    for keep in [
        bytes.len() / 2,
        bytes.len() - 4096,
        bytes.len() - 1,
        100,
        60,
    ] {
        std::fs::write(&path, &bytes[..keep]).expect("truncate");
        let before = files(dir.path());
        for open in [Store::open, Store::open_existing, Store::open_read_only] {
            let err = open(&path).expect_err("truncated");
            assert!(matches!(err, StoreError::Damaged { .. }), "{keep}: {err:?}");
            assert!(err.to_string().contains("nothing was written"), "{err}");
            assert_eq!(files(dir.path()), before, "{keep}: the folder changed");
        }
    }
}

#[test]
fn a_damaged_root_page_is_found_before_anything_is_written() {
    let dir = tmp();
    let path = filled(dir.path(), 30);
    let root: i64 = raw(&path)
        .query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'trials'",
            [],
            |r| r.get(0),
        )
        .expect("root page");
    let page = 4096 * usize::try_from(root - 1).expect("page");
    let mut bytes = std::fs::read(&path).expect("read");
    for b in &mut bytes[page..page + 4096] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).expect("damage");
    let err = Store::open(&path).expect_err("damaged");
    assert!(
        matches!(err, StoreError::Damaged { .. } | StoreError::Corrupt { .. }),
        "{err:?}"
    );
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "written to");
}

#[test]
fn a_store_opened_read_only_reads_and_refuses_writes() {
    let dir = tmp();
    let path = filled(dir.path(), 3);
    let store = Store::open_read_only(&path).expect("open");
    assert!(store.is_read_only());
    let runs = store.runs().expect("runs");
    assert_eq!(runs.len(), 1);
    let mut n = 0;
    store
        .trials(&runs[0].id, &mut |_| {
            n += 1;
            ControlFlow::Continue(())
        })
        .expect("trials");
    assert_eq!(n, 3);
    let err = store
        .create_run(&new_run("slack", T0))
        .expect_err("read-only");
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
    let err = store
        .cache_put(
            &digest("k"),
            pactum_store::CacheKind::Judge,
            &serde_json::json!(1),
            T0,
        )
        .expect_err("read-only");
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
    assert_eq!(store.cache_get(&digest("k")).expect("get"), None);
}

#[test]
fn an_untouched_open_creates_and_changes_no_file() {
    let dir = tmp();
    let path = filled(dir.path(), 3);
    let before = files(dir.path());
    assert_eq!(before.len(), 1, "only the store after a clean close");
    // The plain read-only open is what this one avoids: it leaves a log.
    let store = Store::open_untouched(&path).expect("open");
    assert!(store.is_read_only());
    let runs = store.runs().expect("runs");
    assert_eq!(runs.len(), 1);
    let mut n = 0;
    store
        .trials(&runs[0].id, &mut |_| {
            n += 1;
            ControlFlow::Continue(())
        })
        .expect("trials");
    assert_eq!(n, 3);
    let err = store
        .create_run(&new_run("slack", T0))
        .expect_err("read-only");
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
    drop(store);
    assert_eq!(files(dir.path()), before, "the folder changed");
    // With a writer's log beside it, it reads through the log.
    let writer = raw(&path);
    writer
        .pragma_update(None, "wal_autocheckpoint", 0)
        .expect("no checkpoint");
    writer
        .execute("UPDATE runs SET status = 'interrupted'", [])
        .expect("write");
    let with_log = files(dir.path());
    let names: Vec<&str> = with_log.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["pactum.db", "pactum.db-shm", "pactum.db-wal"]);
    let store = Store::open_untouched(&path).expect("open");
    assert_eq!(
        store.runs().expect("runs")[0].status,
        pactum_store::RunStatus::Interrupted,
        "the committed change in the log is read"
    );
    assert!(store.unchanged(), "a private copy is one consistent state");
    drop(store);
    assert_eq!(files(dir.path()), with_log, "the writer's files changed");
    drop(writer);
}

#[cfg(unix)]
#[test]
fn a_store_reached_through_a_link_is_read_with_its_writers_log() {
    let dir = tmp();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).expect("folder");
    let path = filled(&real, 2);
    let writer = raw(&path);
    writer
        .pragma_update(None, "wal_autocheckpoint", 0)
        .expect("no checkpoint");
    writer
        .execute("UPDATE runs SET status = 'interrupted'", [])
        .expect("write");
    // A symbolic link elsewhere: the log is beside the target, not the link.
    let linked = dir.path().join("linked");
    std::fs::create_dir(&linked).expect("folder");
    let link = linked.join("pactum.db");
    std::os::unix::fs::symlink(&path, &link).expect("symlink");
    let before = (files(&real), files(&linked));
    let store = Store::open_untouched(&link).expect("open through the link");
    assert_eq!(
        store.runs().expect("runs")[0].status,
        pactum_store::RunStatus::Interrupted,
        "what the writer committed to its log is read"
    );
    drop(store);
    assert_eq!((files(&real), files(&linked)), before, "nothing written");
    // A hard link: the writer's log cannot be found from the other name,
    // so the store is refused rather than read without it.
    let hard = dir.path().join("hard");
    std::fs::create_dir(&hard).expect("folder");
    std::fs::hard_link(&path, hard.join("pactum.db")).expect("hard link");
    let err = Store::open_untouched(&hard.join("pactum.db")).expect_err("refused");
    assert!(matches!(err, StoreError::WrongKind { .. }), "{err:?}");
    assert!(err.to_string().contains("hard links"), "{err}");
    assert_eq!(
        files(&hard).len(),
        1,
        "nothing written beside the hard link"
    );
    drop(writer);
}

#[test]
fn a_log_a_killed_writer_left_is_read_and_nothing_beside_it_changes() {
    let dir = tmp();
    let path = filled(dir.path(), 2);
    let writer = raw(&path);
    writer
        .pragma_update(None, "wal_autocheckpoint", 0)
        .expect("no checkpoint");
    writer
        .execute("UPDATE runs SET status = 'interrupted'", [])
        .expect("write");
    // The files as a writer killed now leaves them, in another folder (a
    // clean close would checkpoint and delete the log).
    let killed = files(dir.path());
    drop(writer);
    let left = tmp();
    let path = left.path().join("pactum.db");
    // The log and its index, the log alone, the index alone.
    for gone in [None, Some("pactum.db-shm"), Some("pactum.db-wal")] {
        for (name, bytes) in &killed {
            std::fs::write(left.path().join(name), bytes).expect("restore");
        }
        if let Some(name) = gone {
            std::fs::remove_file(left.path().join(name)).expect("remove");
        }
        let before = files(left.path());
        for _ in 0..2 {
            let store = Store::open_untouched(&path).expect("open");
            let status = store.runs().expect("runs")[0].status;
            let want = if gone == Some("pactum.db-wal") {
                pactum_store::RunStatus::Running
            } else {
                pactum_store::RunStatus::Interrupted
            };
            assert_eq!(status, want, "without {gone:?}");
            assert!(store.unchanged());
            drop(store);
            assert_eq!(
                files(left.path()),
                before,
                "without {gone:?}: the folder changed"
            );
        }
    }
}

#[test]
fn an_immutable_read_knows_when_a_writer_changed_the_file() {
    let dir = tmp();
    let path = filled(dir.path(), 1);
    let store = Store::open_untouched(&path).expect("open");
    assert_eq!(store.runs().expect("runs").len(), 1);
    assert!(store.unchanged());
    let writer = Store::open(&path).expect("a writer");
    writer.create_run(&new_run("other", T0)).expect("a write");
    assert!(!store.unchanged(), "a log appeared beside the store");
    drop(writer);
    assert!(!store.unchanged(), "the file was checkpointed into");
}

/// Runs `sh -c SCRIPT` in a private mount namespace where `dir` is mounted
/// read-only (an unprivileged user namespace: no root needed, nothing
/// outlives the child). `None` when this system offers no such namespace.
fn in_read_only_mount(dir: &Path, script: &str) -> Option<std::process::Output> {
    let probe = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .output()
        .ok()?;
    if !probe.status.success() {
        return None;
    }
    let d = dir.display();
    let out = std::process::Command::new("unshare")
        .args(["-rm", "sh", "-c"])
        .arg(format!(
            "mount --bind '{d}' '{d}' && mount -o remount,bind,ro '{d}' && {script}"
        ))
        .output()
        .expect("unshare runs");
    Some(out)
}

#[test]
fn a_store_on_a_read_only_file_system_is_read_and_writing_names_the_cause() {
    let dir = tmp();
    let path = filled(dir.path(), 4);
    let exe = std::env::current_exe().expect("test binary");
    let Some(out) = in_read_only_mount(
        dir.path(),
        &format!(
            "PACTUM_RO_STORE='{}' '{}' health::read_only_child --exact --nocapture --ignored -q",
            path.display(),
            exe.display()
        ),
    ) else {
        // Linux without unprivileged user namespaces: the CLI's end-to-end
        // tests cover read-only stores with file permissions.
        eprintln!("no user namespaces here: read-only mount not tested");
        return;
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("child: read 4 trials"), "{text}");
    assert!(text.contains("EROFS"), "{text}");
    eprintln!("{text}");
}

/// Run by the test above inside a read-only mount.
#[test]
#[ignore = "run inside a read-only mount by the test above"]
fn read_only_child() {
    let Ok(path) = std::env::var("PACTUM_RO_STORE") else {
        return;
    };
    let path = std::path::PathBuf::from(path);
    let store = Store::open_read_only(&path).expect("reads a read-only store");
    let run = store.runs().expect("runs").remove(0);
    let mut n = 0;
    store
        .trials(&run.id, &mut |_| {
            n += 1;
            ControlFlow::Continue(())
        })
        .expect("trials");
    println!("child: read {n} trials");
    let err = Store::open(&path).expect_err("cannot write");
    println!("child: open for writing: {err}");
    assert!(
        matches!(
            err,
            StoreError::ReadOnly { .. } | StoreError::CannotOpen { .. }
        ),
        "{err:?}"
    );
}

#[test]
fn a_store_copied_while_a_writer_commits_and_checkpoints_reads_whole() {
    let dir = tmp();
    // Big enough that a copy takes a while: a checkpoint lands mid-copy.
    let path = filled(dir.path(), 3000);
    let writer_path = path.clone();
    // Whether a read has gone through: the writer goes on (pausing longer)
    // until one has, so that a slow machine proves the same as a fast one.
    let read_through = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = read_through.clone();
    let writer = std::thread::spawn(move || {
        let store = Store::open(&writer_path).expect("a writer");
        let ckpt = raw(&writer_path);
        let mut i = 0;
        loop {
            let run = store
                .create_run(&new_run(&format!("s{i}"), T0))
                .expect("create");
            store
                .record_trial(&trial(&run, "pay-bill", 0, TestStatus::Pass))
                .expect("record");
            let through = seen.load(std::sync::atomic::Ordering::SeqCst);
            // A pause between commits, as between trials; longer once
            // 150 commits went by with no read through.
            let pause = if i >= 150 && !through { 40 } else { 4 };
            std::thread::sleep(std::time::Duration::from_millis(pause));
            if i % 2 == 0 {
                // Moves the log into the file and starts the log over.
                ckpt.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                    .expect("checkpoint");
            }
            i += 1;
            if (i >= 150 && through) || i >= 1500 {
                return i;
            }
        }
    });
    let mut last = 0;
    let mut reads = 0;
    while !writer.is_finished() {
        match Store::open_untouched(&path) {
            Ok(store) => {
                let runs = store.runs().expect("a consistent read");
                let mut trials = 0;
                for r in &runs {
                    store
                        .trials(&r.id, &mut |_| {
                            trials += 1;
                            ControlFlow::Continue(())
                        })
                        .expect("trials");
                }
                if store.unchanged() {
                    assert!(
                        runs.len() >= last,
                        "runs went back: {} < {last}",
                        runs.len()
                    );
                    // Each run is created, then its trial: at most the
                    // newest lacks it.
                    assert!(
                        trials + 1 >= runs.len(),
                        "{trials} trials, {} runs",
                        runs.len()
                    );
                    last = runs.len();
                    reads += 1;
                    read_through.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            }
            Err(StoreError::Changed { .. }) => {}
            Err(e) => panic!("{e}"),
        }
    }
    let written = writer.join().expect("the writer");
    assert!(reads > 0, "no read went through while the writer wrote");
    let store = Store::open_untouched(&path).expect("open");
    assert_eq!(store.runs().expect("runs").len(), written + 1);
}
