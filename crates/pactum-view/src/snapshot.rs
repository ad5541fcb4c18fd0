//! Reading the store without touching it, consistently.
//!
//! [`Store::open_untouched`] reads a store no process has open as
//! immutable, which creates no `-wal`/`-shm` file; but an immutable read
//! assumes the file does not change meanwhile. So when a writer appeared
//! or the file changed during an immutable read ([`Store::unchanged`]),
//! what was read is thrown away and read again (the next open reads a
//! private copy of the store and the writer's log).

use std::path::Path;

use pactum_store::{Store, StoreError};

/// How often a read is tried before the last one is kept as it is.
const ATTEMPTS: usize = 3;

/// One read of the store at a time. A read may copy the whole store and
/// its log into a temporary folder (while a writer's log is beside it), so
/// concurrent requests would hold as many copies at once: they wait their
/// turn instead, and the disk holds one copy at most.
static ONE_READ: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The store kept changing under every read: nothing read is shown.
#[derive(Debug)]
pub(crate) struct Changed;

/// Runs `read` over the store at `path`, opened read-only without
/// touching any file; reads again when the file changed under an
/// immutable read.
///
/// # Errors
/// The store's when it cannot be opened; [`Changed`] when it changed
/// under every attempt; else whatever `read` returns.
pub(crate) fn read<T, E: From<StoreError> + From<Changed>>(
    path: &Path,
    mut read: impl FnMut(&Store) -> Result<T, E>,
) -> Result<T, E> {
    // A read that panicked leaves nothing to repair: the lock only orders reads.
    let _turn = ONE_READ.lock().unwrap_or_else(|e| e.into_inner());
    let mut attempt = 0;
    loop {
        attempt += 1;
        let store = Store::open_untouched(path)?;
        let out = read(&store);
        if store.unchanged() {
            return out;
        }
        if attempt >= ATTEMPTS {
            return Err(Changed.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pages::PageError;
    use std::path::PathBuf;
    use std::time::SystemTime;

    fn beside(path: &Path, ext: &str) -> PathBuf {
        let mut p = path.as_os_str().to_owned();
        p.push(ext);
        PathBuf::from(p)
    }

    fn store() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("pactum.db");
        drop(Store::open(&path).expect("a store"));
        (dir, path)
    }

    #[test]
    fn a_read_the_file_changed_under_is_read_again_through_the_log() {
        let (_dir, path) = store();
        let mut calls = 0;
        let out: Result<usize, PageError> = read(&path, |s| {
            calls += 1;
            if calls == 1 {
                // A writer starts during the first, immutable, read.
                std::fs::write(beside(&path, "-wal"), b"").expect("a log");
            }
            Ok(s.runs()?.len())
        });
        assert_eq!(out.ok(), Some(0));
        assert_eq!(calls, 2, "read again once, through a copy of the log");
    }

    #[test]
    fn a_store_that_keeps_changing_is_not_shown() {
        let (_dir, path) = store();
        let mut calls = 0u64;
        let out: Result<usize, PageError> = read(&path, |s| {
            calls += 1;
            let file = std::fs::File::options()
                .write(true)
                .open(&path)
                .expect("open");
            file.set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(calls))
                .expect("touch");
            Ok(s.runs()?.len())
        });
        assert_eq!(calls, ATTEMPTS as u64);
        match out {
            Err(PageError::Store(m)) => assert!(m.contains("kept changing"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_take_turns_so_at_most_one_copy_exists() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (_dir, path) = store();
        // A writer's log beside the store: every read is through a copy.
        std::fs::write(beside(&path, "-wal"), b"").expect("a log");
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    let out: Result<usize, PageError> = read(&path, |s| {
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        now.fetch_sub(1, Ordering::SeqCst);
                        Ok(s.runs()?.len())
                    });
                    assert_eq!(out.ok(), Some(0));
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 1, "reads overlapped");
    }

    #[test]
    fn an_unchanged_store_is_read_once_and_left_as_it_was() {
        let (dir, path) = store();
        let before: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        let mut calls = 0;
        let out: Result<usize, PageError> = read(&path, |s| {
            calls += 1;
            Ok(s.runs()?.len())
        });
        assert_eq!(out.ok(), Some(0));
        assert_eq!(calls, 1);
        let after: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(before, after);
    }
}
