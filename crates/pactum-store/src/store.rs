//! [`Store`]: every read and write of the database.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pactum_core::digest::sha256_hex;
use pactum_core::secret::Redactor;
use pactum_core::{Contract, Policy, Trace, TraceResult};
use rusqlite::types::FromSql;
use rusqlite::{
    params, Connection, ErrorCode, OpenFlags, OptionalExtension, Row, TransactionBehavior, MAIN_DB,
};
use serde::de::DeserializeOwned;

use crate::check;
use crate::error::StoreError;
use crate::health;
use crate::model::{
    CacheEntry, CacheKind, CacheMode, InterpretationKey, JudgeAnswer, NewRun, RunId, RunRow,
    RunStatus, StoredInterpretation, StoredTrial, TrialCounts, TrialRecord,
};
use crate::schema::{self, MigrateError};

/// How long a write waits for another connection's write to finish before
/// it fails with "database is locked". Trials are committed one at a time and
/// take milliseconds, so a wait this long means something is stuck.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How many suffixes [`Store::create_run`] tries before giving up (there
/// are 65,536 per second).
const MAX_ID_TRIES: u32 = 1000;

/// How many candidate ids [`StoreError::RunNotFound`] and
/// [`StoreError::AmbiguousRun`] list.
const CANDIDATES: usize = 10;

/// The columns of a [`RunRow`], with the trials counted by status.
const RUN_SELECT: &str = "
SELECT r.id, r.suite_path, r.suite_digest, r.policy, r.policy_digest, r.started_at,
       r.finished_at, r.status, r.pactum_version,
       count(CASE WHEN t.status = 'pass' THEN 1 END),
       count(CASE WHEN t.status = 'fail' THEN 1 END),
       count(CASE WHEN t.status = 'undetermined' THEN 1 END),
       count(CASE WHEN t.status = 'error' THEN 1 END)
FROM runs r LEFT JOIN trials t ON t.run_id = r.id";

/// Newest first: by start time (fractions of a second compared as times,
/// not text), then by insertion.
const NEWEST_FIRST: &str = "ORDER BY julianday(r.started_at) DESC, r.rowid DESC";

/// A pactum store: one SQLite file (default `.pactum/pactum.db`).
///
/// Synchronous and `Send`: the async runner owns it on a dedicated blocking
/// thread. Several `Store`s (threads or processes) may open the same file:
/// WAL lets readers run while one writer commits.
///
/// Durability: WAL journal, `synchronous = NORMAL`, and every finished
/// trial all or nothing (alone, or under its own savepoint in a
/// [`Store::write_batch`]). A committed transaction survives the
/// process being killed (SIGKILL, a crash, Ctrl-C); only a power cut or an OS
/// crash may roll back the last few commits, and never corrupts the file
/// (see `docs/store.md` for why not `FULL`).
///
/// Secrets (SPEC §4): every text a write stores passes through its
/// [`Redactor`] ([`Store::redact_with`]) first — run records, trial
/// results, traces, judge answers, cache entries, interpretations —
/// except contract snapshots, which are addressed by their digest and hold
/// only what their author wrote.
#[derive(Debug)]
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    /// Opened with [`Store::open_read_only`]: every write is refused.
    read_only: bool,
    redactor: Redactor,
    /// How the file was opened by [`Store::open_untouched`].
    untouched: Untouched,
}

/// How [`Store::open_untouched`] read the store.
#[derive(Debug, Default)]
enum Untouched {
    /// Not through `open_untouched`.
    #[default]
    No,
    /// As immutable, with the file's stamp when opened and the file the
    /// store's path resolves to (where a writer's log would appear).
    Immutable { stamp: Stamp, real: PathBuf },
    /// Through a private copy of the file and its log, in this folder
    /// (deleted when the store is dropped).
    Copy {
        /// Kept only to be deleted with the store.
        _dir: tempfile::TempDir,
    },
}

/// What tells a changed store file: its size, time and inode, and whether
/// a write-ahead log or its index lies beside it.
#[derive(Debug, PartialEq, Eq)]
struct Stamp {
    file: Option<(u64, std::time::SystemTime, u64)>,
    wal: bool,
    shm: bool,
}

impl Stamp {
    fn of(path: &Path) -> Stamp {
        let file = std::fs::metadata(path).ok().map(|m| {
            #[cfg(unix)]
            let ino = std::os::unix::fs::MetadataExt::ino(&m);
            #[cfg(not(unix))]
            let ino = 0;
            (
                m.len(),
                m.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH),
                ino,
            )
        });
        Stamp {
            file,
            wal: std::fs::symlink_metadata(beside(path, "-wal")).is_ok(),
            shm: std::fs::symlink_metadata(beside(path, "-shm")).is_ok(),
        }
    }
}

/// `path` with `ext` appended (`pactum.db` → `pactum.db-wal`).
fn beside(path: &Path, ext: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(ext);
    PathBuf::from(p)
}

/// How often [`Store::open_untouched`] copies a store whose files changed
/// while they were copied before it gives up.
const COPY_ATTEMPTS: usize = 20;

/// One write of [`Store::write_batch`].
#[derive(Debug, Clone, Copy)]
pub enum BatchWrite<'a> {
    /// A finished trial, as [`Store::record_trial`].
    Trial(&'a TrialRecord),
    /// A cache lookup that counts a hit, as [`Store::cache_get`]: a write,
    /// since it updates the entry's hit count. Its result holds the value.
    CacheGet {
        /// `sha256:<64 hex>`.
        key: &'a str,
    },
    /// A hit on an entry read through a [`Store::reader`]: counted if the
    /// entry is still there, nothing if it is gone. Its result is `None`.
    CacheHit {
        /// `sha256:<64 hex>`.
        key: &'a str,
    },
    /// A cache entry, as [`Store::cache_put`].
    Cache {
        /// `sha256:<64 hex>`.
        key: &'a str,
        /// What the entry holds.
        kind: CacheKind,
        /// The answer.
        value: &'a serde_json::Value,
        /// RFC 3339 time of the write.
        now: &'a str,
    },
}

/// A trial's encoded columns, made before its transaction opens.
struct EncodedTrial {
    result: String,
    summary: String,
    trace: Option<String>,
    duration: i64,
}

impl Store {
    /// Opens the store at `path`, creating the file and its parent folders
    /// when missing, and migrates it to [`crate::SCHEMA_VERSION`].
    ///
    /// # Errors
    /// [`StoreError::CreateDir`] when a parent folder cannot be created,
    /// [`StoreError::WrongKind`] when a parent is a file or `path` a folder,
    /// [`StoreError::CannotOpen`] / [`StoreError::ReadOnly`] when the file
    /// cannot be opened for writing, [`StoreError::Corrupt`] for a file
    /// that is not SQLite, [`StoreError::Foreign`] for another program's
    /// database, [`StoreError::TooNew`] for a store made by a newer pactum,
    /// [`StoreError::Migration`] when a migration fails (the file is left
    /// at its previous version).
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| {
                match parent.ancestors().find(|a| a.is_file()) {
                    Some(file) => StoreError::WrongKind {
                        path: file.to_path_buf(),
                        what: "is a file, not a folder",
                    },
                    None => StoreError::CreateDir {
                        path: parent.to_path_buf(),
                        source,
                    },
                }
            })?;
        }
        if path.is_dir() {
            return Err(StoreError::WrongKind {
                path: path.to_path_buf(),
                what: "is a folder, not a store file",
            });
        }
        // No SQLITE_OPEN_URI: a path is a path, `?` and `#` included.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // The header first, before SQLite touches the file: a file that is
        // not SQLite or is truncated gets nothing written, not even a log.
        Store::refuse_by_header(path)?;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| match classify(&e) {
            Class::Other => StoreError::CannotOpen {
                detail: detail(path, &e, true),
                path: path.to_path_buf(),
                source: e,
            },
            _ => error_for(path, "open", e),
        })?;
        Store::init(conn, path.to_path_buf(), true)
    }

    /// Opens a store that must already exist, as [`Store::open`] does
    /// (migrating it if it is older), but never creates a file or folder:
    /// commands that read stored runs (`runs`, `show`, `rescore`) must not
    /// leave an empty store behind a mistyped `--db`.
    ///
    /// # Errors
    /// [`StoreError::Missing`] when nothing exists at `path`;
    /// [`StoreError::WrongKind`] for a folder, a device or pipe, or an empty
    /// file; otherwise those of [`Store::open`].
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        Store::check_exists(path)?;
        Store::open(path)
    }

    /// Opens an existing store for reading only (`pactum runs`, `pactum
    /// show`): it works on a store whose file, folder or file system is
    /// read-only, writes nothing (no migration, no journal switch), and
    /// refuses every write with [`StoreError::ReadOnly`].
    ///
    /// A WAL store whose folder cannot hold the `-shm` index SQLite needs
    /// for reading is opened as immutable when no write-ahead log is left
    /// beside it (nothing can then be missed); otherwise the error names
    /// the file.
    ///
    /// # Errors
    /// Those of [`Store::open_existing`] (except migrations), and
    /// [`StoreError::TooOldToRead`] for a store older than schema version
    /// 4 (reading it needs its upgrade, which needs write access).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        Store::check_exists(path)?;
        Store::refuse_by_header(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let plain = Connection::open_with_flags(path, flags)
            .map_err(|e| error_for(path, "open", e))
            .and_then(|conn| Store::init_read_only(conn, path.to_path_buf()));
        match plain {
            Err(StoreError::CannotOpen { .. } | StoreError::ReadOnly { .. })
                if !has_wal_content(path) =>
            {
                let uri = immutable_uri(path).map_err(|e| error_for(path, "open", e))?;
                let conn = Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
                    .map_err(|e| error_for(path, "open", e))?;
                Store::init_read_only(conn, path.to_path_buf())
            }
            other => other,
        }
    }

    /// A second connection to this store's file, read-only: lookups on it
    /// (a run's cache) need not wait behind the writer's commits, since
    /// WAL lets a reader see every committed transaction while the writer
    /// appends. Unlike [`Store::open_read_only`] it never falls back to an
    /// immutable open, which could miss what the writer commits later.
    /// Its [`Store::cache_get`] counts no hit.
    ///
    /// # Errors
    /// [`StoreError::WrongKind`] for a store in memory; those of
    /// [`Store::open_read_only`] for a file that cannot be opened again.
    pub fn reader(&self) -> Result<Store, StoreError> {
        // The file SQLite has open (not `path`, which a store read through
        // a private copy does not point at); none for a store in memory,
        // where opening ":memory:" again would give a new, empty one.
        let Some(file) = self.conn.path().filter(|p| !p.is_empty()) else {
            return Err(StoreError::WrongKind {
                path: self.path.clone(),
                what: "is in memory: it has no file to open a reader on",
            });
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(file, flags)
            .map_err(|e| error_for(&self.path, "open", e))?;
        Store::init_read_only(conn, self.path.clone())
    }

    /// Opens an existing store for reading only, creating and changing no
    /// file in its folder (`pactum view`, `pactum runs`, `pactum show`).
    /// Any SQLite open of a WAL store in place, even a read-only one,
    /// creates or changes the `-shm` index beside it. So:
    ///
    /// * when neither `-wal` nor `-shm` is beside the store (no process
    ///   has it open, nothing is left to checkpoint), it is opened as
    ///   immutable; [`Store::unchanged`] then says whether the file stayed
    ///   as it was while it was read (a writer may start meanwhile);
    /// * otherwise (a `pactum run` is writing, or one was killed and left
    ///   its log), the store and its log are copied into a private
    ///   temporary folder, and the copy is read (deleted when the store is
    ///   dropped). The copy is checked against the files after copying,
    ///   and made again when a writer changed them meanwhile, so it is one
    ///   consistent state: every transaction committed when it was taken.
    ///
    /// The log is looked for beside the file the path resolves to (a
    /// writer's SQLite keeps it there when the store is reached through a
    /// symbolic link); a store file with other hard links is refused, since
    /// a writer's log sits beside the name the writer used, which cannot
    /// be found, and reading without it would hide every run still in it.
    ///
    /// # Errors
    /// Those of [`Store::open_read_only`]; [`StoreError::WrongKind`] for a
    /// store file with other hard links; [`StoreError::Changed`] when a
    /// writer changed the files under every copy.
    pub fn open_untouched(path: &Path) -> Result<Store, StoreError> {
        Store::check_exists(path)?;
        Store::refuse_by_header(path)?;
        // Gone since it was checked: as missing.
        let real = std::fs::canonicalize(path).map_err(|_| StoreError::Missing {
            path: path.to_path_buf(),
        })?;
        #[cfg(unix)]
        if std::fs::metadata(&real)
            .map(|m| std::os::unix::fs::MetadataExt::nlink(&m) > 1)
            .unwrap_or(false)
        {
            return Err(StoreError::WrongKind {
                path: path.to_path_buf(),
                what: "the store file has other hard links: a writer's log would sit beside \
                       the name the writer used, which cannot be found from this one, and \
                       reading without it hides the runs still in it; open the store by that name",
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let stamp = Stamp::of(&real);
        if !stamp.wal && !stamp.shm {
            let uri = immutable_uri(&real).map_err(|e| error_for(path, "open", e))?;
            let conn = Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
                .map_err(|e| error_for(path, "open", e))?;
            let mut store = Store::init_read_only(conn, path.to_path_buf())?;
            store.untouched = Untouched::Immutable { stamp, real };
            return Ok(store);
        }
        let dir = private_copy(&real)?;
        let copy = dir.path().join("pactum.db");
        let conn =
            Connection::open_with_flags(&copy, flags).map_err(|e| error_for(path, "open", e))?;
        let mut store = Store::init_read_only(conn, path.to_path_buf())?;
        store.untouched = Untouched::Copy { _dir: dir };
        Ok(store)
    }

    /// Whether what was read is the store as it was when opened: `false`
    /// only for a store [`Store::open_untouched`] opened as immutable
    /// whose file changed, or beside which a log appeared, since (a
    /// writer started; what was read may be torn: read it again).
    pub fn unchanged(&self) -> bool {
        match &self.untouched {
            Untouched::Immutable { stamp, real } => Stamp::of(real) == *stamp,
            Untouched::No | Untouched::Copy { .. } => true,
        }
    }

    fn init_read_only(conn: Connection, path: PathBuf) -> Result<Store, StoreError> {
        let store = Store {
            conn,
            path,
            read_only: true,
            redactor: Redactor::default(),
            untouched: Untouched::No,
        };
        store
            .conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(store.err("set the busy timeout"))?;
        let version = schema::check_consistent(&store.conn).map_err(|e| store.migrate_error(e))?;
        if version < i64::from(schema::MIN_READ_VERSION) {
            return Err(StoreError::TooOldToRead {
                path: store.path.clone(),
                found: version,
                needed: schema::MIN_READ_VERSION,
            });
        }
        if let Some(reason) = health::probe(&store.conn) {
            return Err(StoreError::Damaged {
                path: store.path.clone(),
                reason,
            });
        }
        Ok(store)
    }

    /// Refuses, from its header alone and before SQLite opens it (which
    /// would create a `-wal` and `-shm` beside it), a file that is not
    /// SQLite, is truncated, is another program's database or was made by
    /// a newer pactum.
    fn refuse_by_header(path: &Path) -> Result<(), StoreError> {
        if let Some(reason) = health::precheck(path) {
            return Err(StoreError::Damaged {
                path: path.to_path_buf(),
                reason,
            });
        }
        match health::header_ids(path) {
            Some((_, app)) if app != 0 && app != schema::APPLICATION_ID => {
                Err(StoreError::Foreign {
                    path: path.to_path_buf(),
                    reason: format!(
                        "its application id is {app:#010x}, not pactum's {:#010x}",
                        schema::APPLICATION_ID
                    ),
                })
            }
            Some((version, app))
                if app == schema::APPLICATION_ID && version > i64::from(schema::SCHEMA_VERSION) =>
            {
                Err(StoreError::TooNew {
                    path: path.to_path_buf(),
                    found: version,
                    supported: schema::SCHEMA_VERSION,
                })
            }
            _ => Ok(()),
        }
    }

    /// Refuses a path where no store file is (see [`Store::open_existing`]).
    fn check_exists(path: &Path) -> Result<(), StoreError> {
        let wrong = |what| StoreError::WrongKind {
            path: path.to_path_buf(),
            what,
        };
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(StoreError::Missing {
                path: path.to_path_buf(),
            }),
            Ok(m) if m.is_dir() => Err(wrong("is a folder, not a store file")),
            Ok(m) if !m.is_file() => Err(wrong(
                "is not a regular file (a device or a pipe), not a store file",
            )),
            // SQLite would make an empty file a new store: reading must not.
            Ok(m) if m.len() == 0 => Err(wrong("is an empty file, not a pactum store")),
            _ => Ok(()),
        }
    }

    /// Whether the store was opened read-only ([`Store::open_read_only`]).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// An empty store in memory, for tests and dry runs. Same schema, same
    /// rules; gone when dropped. Errors name the path `:memory:`.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`] if SQLite cannot allocate it.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|e| error_for(&path, "open", e))?;
        Store::init(conn, path, false)
    }

    fn init(conn: Connection, path: PathBuf, file: bool) -> Result<Store, StoreError> {
        let store = Store {
            conn,
            path,
            read_only: false,
            redactor: Redactor::default(),
            untouched: Untouched::No,
        };
        store
            .conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(store.err("set the busy timeout"))?;
        let map = |e: MigrateError| store.migrate_error(e);
        // Read-only checks first: a file that is not SQLite, another
        // program's database or a newer pactum's store is refused before
        // anything (even the journal mode) is written to it.
        schema::check_consistent(&store.conn).map_err(map)?;
        if file {
            // A bounded look at every table's and index's edge pages, still
            // before anything is written.
            if let Some(reason) = health::probe(&store.conn) {
                return Err(StoreError::Damaged {
                    path: store.path.clone(),
                    reason,
                });
            }
            // Switching to WAL needs an exclusive lock, and SQLite does not
            // always call the busy handler for it: processes opening a new
            // store together retry within the busy timeout.
            let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
            loop {
                match store
                    .conn
                    .pragma_update_and_check(None, "journal_mode", "wal", |r| r.get::<_, String>(0))
                {
                    Ok(_) => break,
                    Err(rusqlite::Error::SqliteFailure(f, _))
                        if matches!(
                            f.code,
                            rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                        ) && std::time::Instant::now() < deadline =>
                    {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                    Err(e) => return Err(store.err("enable the WAL journal")(e)),
                }
            }
            if store.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
                return Err(StoreError::ReadOnly {
                    detail: health::os_cause(&store.path)
                        .map(|c| format!("; {c}"))
                        .unwrap_or_default(),
                    path: store.path.clone(),
                    source: None,
                });
            }
        }
        store
            .conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(store.err("set synchronous"))?;
        store
            .conn
            .pragma_update(None, "foreign_keys", true)
            .map_err(store.err("enable foreign keys"))?;
        schema::migrate(&store.conn).map_err(map)?;
        Ok(store)
    }

    fn migrate_error(&self, e: MigrateError) -> StoreError {
        match e {
            MigrateError::Sqlite(e) => error_for(&self.path, "check the schema version", e),
            MigrateError::Step(version, source) => match classify(&source) {
                Class::Other => StoreError::Migration {
                    path: self.path.clone(),
                    version,
                    source,
                },
                _ => error_for(&self.path, "migrate", source),
            },
            MigrateError::TooNew(found) => StoreError::TooNew {
                path: self.path.clone(),
                found,
                supported: schema::SCHEMA_VERSION,
            },
            MigrateError::Foreign(reason) => StoreError::Foreign {
                path: self.path.clone(),
                reason,
            },
        }
    }

    /// Redacts `redactor`'s secrets (a run's keys) from everything this
    /// store writes from now on; it keeps those it already knew.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] if the secrets cannot be searched for.
    pub fn redact_with(&mut self, redactor: &Redactor) -> Result<(), StoreError> {
        self.redactor = self
            .redactor
            .with(redactor)
            .map_err(|e| self.invalid("secrets", format!("the secrets to redact {e}")))?;
        Ok(())
    }

    /// The database path (`:memory:` for an in-memory store).
    pub fn path(&self) -> &Path {
        &self.path
    }

    // ----- runs ---------------------------------------------------------

    /// Starts a run with status `running` and returns its id, derived from
    /// `started_at` (`r20261130-010203-…`) with a suffix that is
    /// deterministic for the same suite digest and time and avoids ids
    /// already taken.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a `suite_digest` that is not
    /// `sha256:<64 hex>` or a `started_at` that is not RFC 3339 UTC;
    /// [`StoreError::Sqlite`] when the write fails.
    pub fn create_run(&self, new: &NewRun) -> Result<RunId, StoreError> {
        self.check_digest("suite_digest", &new.suite_digest)?;
        self.check_time("started_at", &new.started_at)?;
        let suite = self.encode_text("suite snapshot", &new.suite_snapshot)?;
        let suite_path = self.redacted(&new.suite_path);
        let policy = self.encode("policy", &new.policy)?;
        let policy_digest = new.policy.digest();
        let stamp = run_stamp(&new.started_at);
        let op = "create run";
        let tx = self.begin(op)?;
        for n in 0..MAX_ID_TRIES {
            let id = format!(
                "{stamp}-{}",
                suffix(&sha256_hex(
                    format!("{}\n{}\n{n}", new.suite_digest, new.started_at).as_bytes()
                ))
            );
            let taken = tx
                .query_row("SELECT 1 FROM runs WHERE id = ?1", [&id], |_| Ok(()))
                .optional()
                .map_err(self.err(op))?
                .is_some();
            if taken {
                continue;
            }
            tx.execute(
                "INSERT INTO runs (id, suite_path, suite_digest, suite_snapshot, policy, policy_digest,
                                   started_at, finished_at, status, pactum_version, cache_mode)
                 VALUES (?1, ?2, ?3, '', ?4, ?5, ?6, NULL, 'running', ?7, ?8)",
                params![
                    id,
                    suite_path,
                    new.suite_digest,
                    policy,
                    policy_digest,
                    new.started_at,
                    new.pactum_version,
                    new.cache_mode.as_str()
                ],
            )
            .map_err(self.err(op))?;
            // The snapshot is as large as the suite's tests: its row is
            // made with room for it (the last column, so SQLite does not
            // fill it in memory), then the text is written straight into
            // the database's pages, never copied whole.
            let size = i64::try_from(suite.len())
                .map_err(|_| self.invalid("suite snapshot", "too large to store".into()))?;
            tx.execute(
                "INSERT INTO suite_snapshots (run_id, snapshot) VALUES (?1, zeroblob(?2))",
                params![id, size],
            )
            .map_err(self.err(op))?;
            let row = tx.last_insert_rowid();
            tx.blob_open(MAIN_DB, "suite_snapshots", "snapshot", row, false)
                .and_then(|mut blob| blob.write_at(suite.as_bytes(), 0))
                .map_err(self.err(op))?;
            tx.commit().map_err(self.err(op))?;
            return Ok(RunId::new(id));
        }
        Err(self.invalid(
            "started_at",
            format!("{MAX_ID_TRIES} run ids tried for {stamp}, all taken"),
        ))
    }

    /// Ends a run: `status` is `finished` or `interrupted`.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for `status = running` (use
    /// [`Store::resume_run`]) or a bad time; [`StoreError::UnknownRun`];
    /// [`StoreError::RunState`] when the run is already `finished`.
    pub fn finish_run(
        &self,
        run: &RunId,
        status: RunStatus,
        finished_at: &str,
    ) -> Result<(), StoreError> {
        if status == RunStatus::Running {
            return Err(self.invalid(
                "status",
                "a run is finished or interrupted; use resume_run to restart it".into(),
            ));
        }
        self.check_time("finished_at", finished_at)?;
        let op = "finish run";
        let tx = self.begin(op)?;
        let current = self.run_status(&tx, run)?;
        if current == RunStatus::Finished {
            return Err(self.run_state(run, current, "finish it again"));
        }
        tx.execute(
            "UPDATE runs SET status = ?2, finished_at = ?3 WHERE id = ?1",
            params![run.as_str(), status.as_str(), finished_at],
        )
        .map_err(self.err(op))?;
        // The run is no longer being run: its lease goes with it.
        tx.execute("DELETE FROM leases WHERE run_id = ?1", [run.as_str()])
            .map_err(self.err(op))?;
        tx.commit().map_err(self.err(op))
    }

    /// Marks a `running` or `interrupted` run as `running` again, clearing
    /// its `finished_at`, before the runner records its missing trials.
    ///
    /// # Errors
    /// [`StoreError::UnknownRun`]; [`StoreError::RunState`] for a
    /// `finished` run.
    pub fn resume_run(&self, run: &RunId) -> Result<(), StoreError> {
        let op = "resume run";
        let tx = self.begin(op)?;
        let current = self.run_status(&tx, run)?;
        if !current.is_resumable() {
            return Err(self.run_state(run, current, "resume it"));
        }
        tx.execute(
            "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ?1",
            [run.as_str()],
        )
        .map_err(self.err(op))?;
        tx.commit().map_err(self.err(op))
    }

    /// The cache mode `run` was started with; `None` for a run stored
    /// before modes were (schema version 5 and older).
    ///
    /// # Errors
    /// [`StoreError::UnknownRun`], [`StoreError::Sqlite`], and
    /// [`StoreError::BadRow`] for a mode this build does not know.
    pub fn run_cache_mode(&self, run: &RunId) -> Result<Option<CacheMode>, StoreError> {
        let op = "read run cache mode";
        let stored: Option<Option<String>> = self
            .conn
            .query_row(
                "SELECT cache_mode FROM runs WHERE id = ?1",
                [run.as_str()],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.err(op))?;
        match stored {
            None => Err(StoreError::UnknownRun {
                path: self.path.clone(),
                run: run.as_str().to_string(),
            }),
            Some(None) => Ok(None),
            Some(Some(text)) => CacheMode::parse(&text).map(Some).ok_or_else(|| {
                RowCtx::new(self, "runs", run.as_str().to_string())
                    .bad("cache_mode", format!("unknown cache mode {text:?}"))
            }),
        }
    }

    /// Every run, newest first, with its trials counted by status.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`]; [`StoreError::BadRow`] for a row that does
    /// not read back.
    pub fn runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let sql = format!("{RUN_SELECT} GROUP BY r.id {NEWEST_FIRST}");
        self.run_rows(&sql, [])
    }

    /// One run, or `None`.
    ///
    /// # Errors
    /// As [`Store::runs`].
    pub fn run(&self, run: &RunId) -> Result<Option<RunRow>, StoreError> {
        let sql = format!("{RUN_SELECT} WHERE r.id = ?1 GROUP BY r.id");
        Ok(self.run_rows(&sql, [run.as_str()])?.into_iter().next())
    }

    /// The newest `running` or `interrupted` run of the suite with this
    /// digest: the one a resumed `pactum run` continues.
    ///
    /// # Errors
    /// As [`Store::runs`].
    pub fn latest_unfinished_run(&self, suite_digest: &str) -> Result<Option<RunRow>, StoreError> {
        let sql = format!(
            "{RUN_SELECT} WHERE r.suite_digest = ?1 AND r.status IN ('running', 'interrupted')
             GROUP BY r.id {NEWEST_FIRST} LIMIT 1"
        );
        Ok(self.run_rows(&sql, [suite_digest])?.into_iter().next())
    }

    /// The run an id or a unique id prefix names (`pactum show r2026…`).
    /// An exact id wins over longer ids it is a prefix of.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for an empty prefix;
    /// [`StoreError::RunNotFound`] listing the newest runs;
    /// [`StoreError::AmbiguousRun`] listing the matches, newest first.
    pub fn resolve_run(&self, prefix: &str) -> Result<RunId, StoreError> {
        if prefix.is_empty() {
            return Err(self.invalid("run id", "empty".into()));
        }
        let op = "resolve run id";
        let exact = self
            .conn
            .query_row("SELECT id FROM runs WHERE id = ?1", [prefix], |r| {
                r.get::<_, String>(0)
            })
            .optional()
            .map_err(self.err(op))?;
        if let Some(id) = exact {
            return Ok(RunId::new(id));
        }
        let sql = format!("SELECT r.id FROM runs r WHERE substr(r.id, 1, ?2) = ?1 {NEWEST_FIRST}");
        let (matches, candidates) =
            self.ids(&sql, params![prefix, prefix.chars().count() as i64], op)?;
        match matches {
            0 => {
                let (_, newest) =
                    self.ids(&format!("SELECT r.id FROM runs r {NEWEST_FIRST}"), [], op)?;
                Err(StoreError::RunNotFound {
                    path: self.path.clone(),
                    prefix: prefix.to_string(),
                    candidates: newest,
                })
            }
            1 => Ok(RunId::new(
                candidates.into_iter().next().unwrap_or_default(),
            )),
            _ => Err(StoreError::AmbiguousRun {
                path: self.path.clone(),
                prefix: prefix.to_string(),
                candidates,
                matches,
            }),
        }
    }

    /// The suite snapshot a run was started with, or `None` for an unknown
    /// run.
    ///
    /// # Errors
    /// [`StoreError::BadRow`] when the stored JSON does not parse.
    pub fn suite_snapshot(&self, run: &RunId) -> Result<Option<serde_json::Value>, StoreError> {
        let op = "read suite snapshot";
        let mut text: Option<String> = self
            .conn
            .query_row(
                "SELECT suite_snapshot FROM runs WHERE id = ?1",
                [run.as_str()],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.err(op))?;
        // Empty: in its own table (schema version 7 on), as a blob.
        if text.as_deref() == Some("") {
            text = self
                .conn
                .query_row(
                    "SELECT CAST(snapshot AS TEXT) FROM suite_snapshots WHERE run_id = ?1",
                    [run.as_str()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(self.err(op))?;
            if text.is_none() {
                return Err(RowCtx::new(self, "runs", run.to_string()).bad(
                    "suite_snapshot",
                    "empty, and no row in suite_snapshots".into(),
                ));
            }
        }
        text.map(|t| self.json("runs", run.as_str(), "suite_snapshot", &t))
            .transpose()
    }

    // ----- contracts ----------------------------------------------------

    /// Stores a contract snapshot under its digest. Idempotent: putting the
    /// same contract again is a no-op.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a digest that is not `sha256:<64 hex>`;
    /// [`StoreError::DigestConflict`] when the digest already holds a
    /// different contract.
    pub fn put_contract(&self, digest: &str, contract: &Contract) -> Result<(), StoreError> {
        self.check_digest("contract digest", digest)?;
        let op = "put contract";
        let tx = self.begin(op)?;
        self.put_contract_in(&tx, digest, contract)?;
        tx.commit().map_err(self.err(op))
    }

    /// The contract snapshot stored under `digest`, or `None`.
    ///
    /// # Errors
    /// [`StoreError::KindlessRefusal`] for a snapshot an older pactum
    /// wrote with a `refusal` that has no `kind`; [`StoreError::BadRow`]
    /// when the stored JSON does not otherwise read back as a
    /// [`Contract`], or when its digest (SHA-256 over canonical JSON) is not
    /// `digest` (the snapshot was edited after it was stored).
    pub fn contract(&self, digest: &str) -> Result<Option<Contract>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row(
                "SELECT snapshot FROM contracts WHERE digest = ?1",
                [digest],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.err("read contract"))?;
        let Some(t) = text else { return Ok(None) };
        let contract: Contract = match serde_json::from_str(&t) {
            Ok(c) => c,
            Err(e) => return Err(self.unreadable_contract(digest, &t, e)),
        };
        // A snapshot is addressed by its digest; one edited in place would
        // re-score against rules no run ever used.
        let actual = pactum_core::digest::digest_of(&contract);
        if actual != digest {
            return Err(RowCtx::new(self, "contracts", digest.to_string()).bad(
                "snapshot",
                format!("the snapshot's digest is {actual}: it was changed after it was stored"),
            ));
        }
        Ok(Some(contract))
    }

    /// Why a stored contract snapshot does not read back: a shape an
    /// older pactum wrote (a `refusal` without `kind`), named as such, else
    /// [`StoreError::BadRow`] with the parser's reason.
    fn unreadable_contract(&self, digest: &str, text: &str, e: serde_json::Error) -> StoreError {
        let bad =
            || RowCtx::new(self, "contracts", digest.to_string()).bad("snapshot", e.to_string());
        let Ok(raw) = serde_json::from_str::<serde_json::Value>(text) else {
            return bad();
        };
        let found = pactum_core::contract::kindless_refusals(&raw);
        if found.is_empty() {
            return bad();
        }
        let mut clauses: Vec<String> = Vec::new();
        for k in found {
            if !clauses.contains(&k.clause) {
                clauses.push(k.clause);
            }
        }
        StoreError::KindlessRefusal {
            path: self.path.clone(),
            digest: digest.to_string(),
            contract: raw
                .get("id")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_string(),
            clauses,
        }
    }

    fn put_contract_in(
        &self,
        conn: &Connection,
        digest: &str,
        contract: &Contract,
    ) -> Result<(), StoreError> {
        let op = "put contract";
        // Not redacted: a snapshot must read back as the contract its
        // digest names.
        let json = serde_json::to_string(contract).map_err(|source| StoreError::Encode {
            path: self.path.clone(),
            what: "contract",
            source,
        })?;
        let existing: Option<String> = conn
            .prepare_cached("SELECT snapshot FROM contracts WHERE digest = ?1")
            .and_then(|mut s| s.query_row([digest], |r| r.get(0)).optional())
            .map_err(self.err(op))?;
        match existing {
            None => {
                conn.execute(
                    "INSERT INTO contracts (digest, snapshot) VALUES (?1, ?2)",
                    params![digest, json],
                )
                .map_err(self.err(op))?;
                Ok(())
            }
            Some(stored) if stored == json => Ok(()),
            // The same contract may serialise differently (map order inside
            // a JSON value); only a different contract is a conflict.
            Some(stored) => match serde_json::from_str::<Contract>(&stored) {
                Ok(c) if &c == contract => Ok(()),
                _ => Err(StoreError::DigestConflict {
                    path: self.path.clone(),
                    digest: digest.to_string(),
                }),
            },
        }
    }

    // ----- trials -------------------------------------------------------

    /// Records one finished trial in one transaction: its contract snapshot
    /// (when not stored yet), the trial row with its result and trace, and
    /// the judge's raw answers. When this returns `Ok`, the trial survives
    /// the process being killed.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a bad time, digest or attempt number;
    /// [`StoreError::UnknownRun`]; [`StoreError::RunState`] when the run is
    /// `finished`; [`StoreError::TrialExists`] when this trial was already
    /// recorded (a trial is never run twice); [`StoreError::DigestConflict`].
    /// On any error nothing of the trial is kept.
    pub fn record_trial(&self, t: &TrialRecord) -> Result<(), StoreError> {
        let encoded = self.encode_trial(t)?;
        let tx = self.begin("record trial")?;
        self.insert_trial(&tx, t, &encoded)?;
        tx.commit().map_err(self.err("record trial"))
    }

    /// Commits several writes in one transaction: what a busy run does
    /// instead of one commit per trial. Each write runs under its own
    /// savepoint, so one that fails (a trial already recorded, a bad
    /// digest) leaves nothing of itself and the others stand, exactly as
    /// if each had been written alone. `Ok` holds one result per write, in
    /// order: the value found for a [`BatchWrite::CacheGet`] (`None` on a
    /// miss), `None` for the others. A write that is `Ok` survives the
    /// process being killed, as with [`Store::record_trial`].
    ///
    /// # Errors
    /// The store's error when the transaction cannot begin or commit
    /// (a full disk, a read-only store): nothing of the batch is kept.
    pub fn write_batch(
        &self,
        writes: &[BatchWrite<'_>],
    ) -> Result<Vec<Result<Option<serde_json::Value>, StoreError>>, StoreError> {
        let op = "write batch";
        let tx = self.begin(op)?;
        let results = writes
            .iter()
            .map(|w| {
                self.savepoint(&tx, |conn| match w {
                    BatchWrite::Trial(t) => {
                        let encoded = self.encode_trial(t)?;
                        self.insert_trial(conn, t, &encoded).map(|()| None)
                    }
                    BatchWrite::CacheGet { key } => self.get_cache_in(conn, key),
                    BatchWrite::CacheHit { key } => self.count_hit_in(conn, key).map(|()| None),
                    BatchWrite::Cache {
                        key,
                        kind,
                        value,
                        now,
                    } => self
                        .put_cache_in(conn, key, *kind, value, now)
                        .map(|()| None),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        tx.commit().map_err(self.err(op))?;
        Ok(results)
    }

    /// Runs `f` under a savepoint of `conn`, rolling back to it when `f`
    /// fails. The outer error is a failure of the savepoint itself, which
    /// fails the whole batch; the inner one is `f`'s.
    fn savepoint<T>(
        &self,
        conn: &Connection,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<Result<T, StoreError>, StoreError> {
        let exec = |sql: &str| -> Result<(), StoreError> {
            conn.prepare_cached(sql)
                .and_then(|mut s| s.execute([]))
                .map(drop)
                .map_err(self.err("write batch"))
        };
        exec("SAVEPOINT pactum_write")?;
        let r = f(conn);
        if r.is_err() {
            exec("ROLLBACK TO pactum_write")?;
        }
        exec("RELEASE pactum_write")?;
        Ok(r)
    }

    /// Validates and encodes a trial before any transaction opens.
    fn encode_trial(&self, t: &TrialRecord) -> Result<EncodedTrial, StoreError> {
        self.check_time("started_at", &t.started_at)?;
        self.check_time("finished_at", &t.finished_at)?;
        if let Some(c) = &t.contract {
            self.check_digest("contract digest", &c.digest)?;
        }
        for a in &t.judge_answers {
            self.check_digest("judge answer request_digest", &a.request_digest)?;
            if a.attempt == 0 {
                return Err(self.invalid("judge answer attempt", "attempts count from 1".into()));
            }
        }
        let duration = i64::try_from(t.duration_ms).map_err(|_| {
            self.invalid(
                "duration_ms",
                format!("{} does not fit in 63 bits", t.duration_ms),
            )
        })?;
        Ok(EncodedTrial {
            result: self.encode("trial result", &t.result)?,
            summary: self.redacted(&t.result.summary),
            trace: t
                .trace
                .as_ref()
                .map(|tr| self.encode("trace", tr))
                .transpose()?,
            duration,
        })
    }

    /// The rows of one trial, inside the caller's transaction.
    fn insert_trial(
        &self,
        conn: &Connection,
        t: &TrialRecord,
        e: &EncodedTrial,
    ) -> Result<(), StoreError> {
        let op = "record trial";
        let status = self.run_status(conn, &t.run_id)?;
        if status == RunStatus::Finished {
            return Err(self.run_state(&t.run_id, status, "record a trial in it"));
        }
        let exists = conn
            .prepare_cached(
                "SELECT 1 FROM trials WHERE run_id = ?1 AND test_id = ?2 AND trial_index = ?3",
            )
            .and_then(|mut s| {
                s.query_row(params![t.run_id.as_str(), t.test_id, t.trial_index], |_| {
                    Ok(())
                })
                .optional()
            })
            .map_err(self.err(op))?
            .is_some();
        if exists {
            return Err(StoreError::TrialExists {
                path: self.path.clone(),
                run: t.run_id.to_string(),
                test_id: t.test_id.clone(),
                trial_index: t.trial_index,
            });
        }
        if let Some(c) = &t.contract {
            self.put_contract_in(conn, &c.digest, &c.contract)?;
        }
        conn.prepare_cached(
            "INSERT INTO trials (run_id, test_id, trial_index, status, summary, contract_digest,
                                 result, trace, started_at, finished_at, duration_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )
        .and_then(|mut s| {
            s.execute(params![
                t.run_id.as_str(),
                t.test_id,
                t.trial_index,
                t.result.status.as_str(),
                e.summary,
                t.contract.as_ref().map(|c| c.digest.as_str()),
                e.result,
                e.trace,
                t.started_at,
                t.finished_at,
                e.duration
            ])
        })
        .map_err(self.err(op))?;
        if t.judge_answers.is_empty() {
            return Ok(());
        }
        let mut insert = conn
            .prepare_cached(
                "INSERT INTO judge_answers (run_id, test_id, trial_index, seq, contract_id, clause_id,
                                            turn, attempt, request_digest, raw_answer, parsed, error)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )
            .map_err(self.err(op))?;
        for (seq, a) in t.judge_answers.iter().enumerate() {
            let (parsed, error) = match &a.parsed {
                Ok(v) => (Some(self.encode("parsed judge answer", v)?), None),
                Err(e) => (None, Some(self.redacted(e))),
            };
            insert
                .execute(params![
                    t.run_id.as_str(),
                    t.test_id,
                    t.trial_index,
                    seq as i64,
                    a.contract_id,
                    a.clause_id,
                    a.turn,
                    a.attempt,
                    a.request_digest,
                    self.redacted(&a.raw_answer),
                    parsed,
                    error
                ])
                .map_err(self.err(op))?;
        }
        Ok(())
    }

    /// The `(test_id, trial_index)` of every trial recorded in `run`,
    /// whatever its status: the trials a resumed run must not run again.
    ///
    /// # Errors
    /// [`StoreError::UnknownRun`]; [`StoreError::BadRow`].
    pub fn finished_trials(&self, run: &RunId) -> Result<BTreeSet<(String, u32)>, StoreError> {
        let op = "list finished trials";
        self.run_status(&self.conn, run)?;
        let mut stmt = self
            .conn
            .prepare_cached("SELECT test_id, trial_index FROM trials WHERE run_id = ?1")
            .map_err(self.err(op))?;
        let mut rows = stmt.query([run.as_str()]).map_err(self.err(op))?;
        let mut out = BTreeSet::new();
        while let Some(row) = rows.next().map_err(self.err(op))? {
            let ctx = RowCtx::new(self, "trials", format!("{run}/?"));
            let test_id: String = ctx.get(row, 0, "test_id")?;
            let ctx = RowCtx::new(self, "trials", format!("{run}/{test_id}"));
            let index = ctx.index(row, 1, "trial_index")?;
            out.insert((test_id, index));
        }
        Ok(out)
    }

    /// Streams the trials of `run` to `f` in `(test_id, trial_index)` order
    /// (byte order of the id), one row in memory at a time; `f` returns
    /// [`ControlFlow::Break`] to stop early.
    ///
    /// # Errors
    /// [`StoreError::UnknownRun`]; [`StoreError::BadRow`] naming the trial
    /// and column that does not read back.
    pub fn trials(
        &self,
        run: &RunId,
        f: &mut dyn FnMut(StoredTrial) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        let op = "read trials";
        self.run_status(&self.conn, run)?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT test_id, trial_index, contract_digest, result, trace, started_at, finished_at, duration_ms
                 FROM trials WHERE run_id = ?1 ORDER BY test_id, trial_index",
            )
            .map_err(self.err(op))?;
        let mut rows = stmt.query([run.as_str()]).map_err(self.err(op))?;
        while let Some(row) = rows.next().map_err(self.err(op))? {
            let test_id: String =
                RowCtx::new(self, "trials", format!("{run}/?")).get(row, 0, "test_id")?;
            let index_ctx = RowCtx::new(self, "trials", format!("{run}/{test_id}/?"));
            let trial_index = index_ctx.index(row, 1, "trial_index")?;
            let ctx = RowCtx::new(self, "trials", format!("{run}/{test_id}/{trial_index}"));
            let result_text: String = ctx.get(row, 3, "result")?;
            let trace_text: Option<String> = ctx.get(row, 4, "trace")?;
            let duration: i64 = ctx.get(row, 7, "duration_ms")?;
            let trial = StoredTrial {
                run_id: run.clone(),
                contract_digest: ctx.get(row, 2, "contract_digest")?,
                result: ctx.json::<TraceResult>(&result_text, "result")?,
                trace: trace_text
                    .map(|t| ctx.json::<Trace>(&t, "trace"))
                    .transpose()?,
                started_at: ctx.get(row, 5, "started_at")?,
                finished_at: ctx.get(row, 6, "finished_at")?,
                duration_ms: u64::try_from(duration)
                    .map_err(|_| ctx.bad("duration_ms", format!("negative: {duration}")))?,
                test_id,
                trial_index,
            };
            if f(trial).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// The judge's raw answers for one trial, in the order received.
    ///
    /// # Errors
    /// [`StoreError::BadRow`].
    pub fn judge_answers(
        &self,
        run: &RunId,
        test_id: &str,
        trial_index: u32,
    ) -> Result<Vec<JudgeAnswer>, StoreError> {
        let op = "read judge answers";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, contract_id, clause_id, turn, attempt, request_digest, raw_answer, parsed, error
                 FROM judge_answers WHERE run_id = ?1 AND test_id = ?2 AND trial_index = ?3 ORDER BY seq",
            )
            .map_err(self.err(op))?;
        let mut rows = stmt
            .query(params![run.as_str(), test_id, trial_index])
            .map_err(self.err(op))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(self.err(op))? {
            let seq: i64 = RowCtx::new(
                self,
                "judge_answers",
                format!("{run}/{test_id}/{trial_index}/?"),
            )
            .get(row, 0, "seq")?;
            let ctx = RowCtx::new(
                self,
                "judge_answers",
                format!("{run}/{test_id}/{trial_index}/{seq}"),
            );
            let parsed_text: Option<String> = ctx.get(row, 7, "parsed")?;
            let error: Option<String> = ctx.get(row, 8, "error")?;
            let parsed = match (parsed_text, error) {
                (Some(p), None) => Ok(ctx.json::<serde_json::Value>(&p, "parsed")?),
                (None, Some(e)) => Err(e),
                _ => {
                    return Err(ctx.bad(
                        "parsed",
                        "exactly one of parsed and error must be set".into(),
                    ))
                }
            };
            let turn: Option<i64> = ctx.get(row, 3, "turn")?;
            out.push(JudgeAnswer {
                contract_id: ctx.get(row, 1, "contract_id")?,
                clause_id: ctx.get(row, 2, "clause_id")?,
                turn: turn
                    .map(|t| {
                        u32::try_from(t).map_err(|_| ctx.bad("turn", format!("out of range: {t}")))
                    })
                    .transpose()?,
                attempt: ctx.index(row, 4, "attempt")?,
                request_digest: ctx.get(row, 5, "request_digest")?,
                raw_answer: ctx.get(row, 6, "raw_answer")?,
                parsed,
            });
        }
        Ok(out)
    }

    // ----- cache --------------------------------------------------------

    /// The cached answer under `key`, counting a hit; `None` on a miss.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a key that is not `sha256:<64 hex>`;
    /// [`StoreError::BadRow`] when the value does not parse.
    pub fn cache_get(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        self.get_cache_in(&self.conn, key)
    }

    fn get_cache_in(
        &self,
        conn: &Connection,
        key: &str,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        self.check_digest("cache key", key)?;
        // A read-only store serves its cache without counting the hit.
        let sql = if self.read_only {
            "SELECT value FROM cache WHERE key = ?1"
        } else {
            "UPDATE cache SET hits = hits + 1 WHERE key = ?1 RETURNING value"
        };
        let text: Option<String> = conn
            .prepare_cached(sql)
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .map_err(self.err("read cache"))?;
        text.map(|t| self.json("cache", key, "value", &t))
            .transpose()
    }

    fn count_hit_in(&self, conn: &Connection, key: &str) -> Result<(), StoreError> {
        self.check_digest("cache key", key)?;
        self.writable()?;
        conn.prepare_cached("UPDATE cache SET hits = hits + 1 WHERE key = ?1")
            .and_then(|mut s| s.execute([key]))
            .map_err(self.err("count a cache hit"))?;
        Ok(())
    }

    /// Stores an answer under `key` (the SHA-256 of everything that can
    /// change it, computed by the caller and never including a key's
    /// value). Putting an existing key replaces its value, stamps `now` and
    /// resets its hits: that is what `--refresh` does.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a bad key or time.
    pub fn cache_put(
        &self,
        key: &str,
        kind: CacheKind,
        value: &serde_json::Value,
        now: &str,
    ) -> Result<(), StoreError> {
        self.put_cache_in(&self.conn, key, kind, value, now)
    }

    fn put_cache_in(
        &self,
        conn: &Connection,
        key: &str,
        kind: CacheKind,
        value: &serde_json::Value,
        now: &str,
    ) -> Result<(), StoreError> {
        self.check_digest("cache key", key)?;
        self.check_time("created_at", now)?;
        self.writable()?;
        let text = self.encode("cache value", value)?;
        conn.prepare_cached(
            "INSERT INTO cache (key, kind, value, created_at, hits) VALUES (?1, ?2, ?3, ?4, 0)
             ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, value = excluded.value,
                                             created_at = excluded.created_at, hits = 0",
        )
        .and_then(|mut s| s.execute(params![key, kind.as_str(), text, now]))
        .map_err(self.err("write cache"))?;
        Ok(())
    }

    /// The cache entry under `key` with its hit count, without counting a
    /// hit (for `pactum cache` listings and tests).
    ///
    /// # Errors
    /// As [`Store::cache_get`].
    pub fn cache_entry(&self, key: &str) -> Result<Option<CacheEntry>, StoreError> {
        self.check_digest("cache key", key)?;
        let op = "read cache";
        let mut stmt = self
            .conn
            .prepare_cached("SELECT kind, value, created_at, hits FROM cache WHERE key = ?1")
            .map_err(self.err(op))?;
        let mut rows = stmt.query([key]).map_err(self.err(op))?;
        let Some(row) = rows.next().map_err(self.err(op))? else {
            return Ok(None);
        };
        let ctx = RowCtx::new(self, "cache", key.to_string());
        let kind: String = ctx.get(row, 0, "kind")?;
        let value: String = ctx.get(row, 1, "value")?;
        let hits: i64 = ctx.get(row, 3, "hits")?;
        Ok(Some(CacheEntry {
            key: key.to_string(),
            kind: CacheKind::parse(&kind)
                .ok_or_else(|| ctx.bad("kind", format!("unknown kind {kind:?}")))?,
            value: ctx.json(&value, "value")?,
            created_at: ctx.get(row, 2, "created_at")?,
            hits: u64::try_from(hits).map_err(|_| ctx.bad("hits", format!("negative: {hits}")))?,
        }))
    }

    // ----- interpretations ---------------------------------------------

    /// The interpretation cached under `key`, or `None` (SPEC §3.6).
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a bad authored digest;
    /// [`StoreError::BadRow`].
    pub fn interpretation_get(
        &self,
        key: &InterpretationKey,
    ) -> Result<Option<StoredInterpretation>, StoreError> {
        self.check_digest("authored_digest", &key.authored_digest)?;
        let op = "read interpretation";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT contract, confidence, usable, reason, created_at, contract_version, note, extra FROM interpretations
                 WHERE authored_digest = ?1 AND prompt_version = ?2 AND model = ?3",
            )
            .map_err(self.err(op))?;
        let mut rows = stmt
            .query(params![key.authored_digest, key.prompt_version, key.model])
            .map_err(self.err(op))?;
        let Some(row) = rows.next().map_err(self.err(op))? else {
            return Ok(None);
        };
        let ctx = RowCtx::new(
            self,
            "interpretations",
            format!(
                "{}/{}/{}",
                key.authored_digest, key.prompt_version, key.model
            ),
        );
        let contract: Option<String> = ctx.get(row, 0, "contract")?;
        let confidence: i64 = ctx.get(row, 1, "confidence")?;
        let usable: bool = ctx.get(row, 2, "usable")?;
        Ok(Some(StoredInterpretation {
            contract: contract
                .map(|c| ctx.json::<Contract>(&c, "contract"))
                .transpose()?,
            confidence: u8::try_from(confidence)
                .ok()
                .filter(|c| *c <= 100)
                .ok_or_else(|| ctx.bad("confidence", format!("out of 0–100: {confidence}")))?,
            usable,
            reason: ctx.get(row, 3, "reason")?,
            created_at: ctx.get(row, 4, "created_at")?,
            contract_version: ctx.index(row, 5, "contract_version")?,
            note: ctx.get(row, 6, "note")?,
            extra: ctx.json::<Vec<String>>(&ctx.get::<String>(row, 7, "extra")?, "extra")?,
        }))
    }

    /// Stores (or replaces, on `--refresh`) the interpretation under `key`.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a bad authored digest, a confidence above
    /// 100 or a bad `created_at`.
    pub fn interpretation_put(
        &self,
        key: &InterpretationKey,
        value: &StoredInterpretation,
    ) -> Result<(), StoreError> {
        self.check_digest("authored_digest", &key.authored_digest)?;
        self.check_time("created_at", &value.created_at)?;
        if value.confidence > 100 {
            return Err(self.invalid("confidence", format!("{} is above 100", value.confidence)));
        }
        let contract = value
            .contract
            .as_ref()
            .map(|c| self.encode("interpreted contract", c))
            .transpose()?;
        let extra = self.encode("interpretation problems", &value.extra)?;
        self.writable()?;
        self.conn
            .execute(
                "INSERT OR REPLACE INTO interpretations
                   (authored_digest, prompt_version, model, contract, confidence, usable, reason,
                    created_at, contract_version, note, extra)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    key.authored_digest,
                    key.prompt_version,
                    key.model,
                    contract,
                    value.confidence,
                    value.usable,
                    value.reason.as_deref().map(|r| self.redacted(r)),
                    value.created_at,
                    value.contract_version,
                    value.note.as_deref().map(|n| self.redacted(n)),
                    extra
                ],
            )
            .map_err(self.err("write interpretation"))?;
        Ok(())
    }

    // ----- helpers ------------------------------------------------------

    /// Refuses a write on a store opened read-only.
    pub(crate) fn writable(&self) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly {
                path: self.path.clone(),
                detail: " (opened for reading only)".into(),
                source: None,
            });
        }
        Ok(())
    }

    pub(crate) fn begin(&self, op: &'static str) -> Result<rusqlite::Transaction<'_>, StoreError> {
        self.writable()?;
        // IMMEDIATE takes the write lock up front, so the busy timeout
        // applies; a deferred transaction that upgrades later can fail at
        // once with SQLITE_BUSY under WAL.
        rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(self.err(op))
    }

    pub(crate) fn run_status(
        &self,
        conn: &Connection,
        run: &RunId,
    ) -> Result<RunStatus, StoreError> {
        let status: Option<String> = conn
            .prepare_cached("SELECT status FROM runs INDEXED BY runs_status WHERE id = ?1")
            .and_then(|mut s| s.query_row([run.as_str()], |r| r.get(0)).optional())
            .map_err(self.err("read run status"))?;
        let status = status.ok_or_else(|| StoreError::UnknownRun {
            path: self.path.clone(),
            run: run.to_string(),
        })?;
        RunStatus::parse(&status).ok_or_else(|| {
            RowCtx::new(self, "runs", run.to_string())
                .bad("status", format!("unknown status {status:?}"))
        })
    }

    fn run_rows<P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
    ) -> Result<Vec<RunRow>, StoreError> {
        let op = "list runs";
        let mut stmt = self.conn.prepare_cached(sql).map_err(self.err(op))?;
        let mut rows = stmt.query(params).map_err(self.err(op))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(self.err(op))? {
            let id: String = RowCtx::new(self, "runs", "?".into()).get(row, 0, "id")?;
            let ctx = RowCtx::new(self, "runs", id.clone());
            let policy: String = ctx.get(row, 3, "policy")?;
            let status: String = ctx.get(row, 7, "status")?;
            let count = |i: usize, column: &'static str| -> Result<u64, StoreError> {
                let n: i64 = ctx.get(row, i, column)?;
                Ok(u64::try_from(n).unwrap_or_default())
            };
            out.push(RunRow {
                suite_path: ctx.get(row, 1, "suite_path")?,
                suite_digest: ctx.get(row, 2, "suite_digest")?,
                policy: ctx.json::<Policy>(&policy, "policy")?,
                policy_digest: ctx.get(row, 4, "policy_digest")?,
                started_at: ctx.get(row, 5, "started_at")?,
                finished_at: ctx.get(row, 6, "finished_at")?,
                status: RunStatus::parse(&status)
                    .ok_or_else(|| ctx.bad("status", format!("unknown status {status:?}")))?,
                pactum_version: ctx.get(row, 8, "pactum_version")?,
                counts: TrialCounts {
                    pass: count(9, "pass count")?,
                    fail: count(10, "fail count")?,
                    undetermined: count(11, "undetermined count")?,
                    error: count(12, "error count")?,
                },
                id: RunId::new(id),
            });
        }
        Ok(out)
    }

    /// The first [`CANDIDATES`] ids a query returns, and how many it
    /// returns in all.
    fn ids<P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        op: &'static str,
    ) -> Result<(u64, Vec<String>), StoreError> {
        let mut stmt = self.conn.prepare(sql).map_err(self.err(op))?;
        let mut rows = stmt.query(params).map_err(self.err(op))?;
        let (mut n, mut first) = (0u64, Vec::new());
        while let Some(row) = rows.next().map_err(self.err(op))? {
            n += 1;
            if first.len() < CANDIDATES {
                first.push(RowCtx::new(self, "runs", "?".into()).get(row, 0, "id")?);
            }
        }
        Ok((n, first))
    }

    pub(crate) fn err(&self, op: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError + '_ {
        move |e| error_for(&self.path, op, e)
    }

    fn invalid(&self, field: &'static str, reason: String) -> StoreError {
        StoreError::Invalid {
            path: self.path.clone(),
            field,
            reason,
        }
    }

    pub(crate) fn run_state(
        &self,
        run: &RunId,
        status: RunStatus,
        action: &'static str,
    ) -> StoreError {
        StoreError::RunState {
            path: self.path.clone(),
            run: run.to_string(),
            status: status.as_str(),
            action,
        }
    }

    pub(crate) fn check_time(&self, field: &'static str, value: &str) -> Result<(), StoreError> {
        check::time(value).map_err(|reason| self.invalid(field, reason))
    }

    fn check_digest(&self, field: &'static str, value: &str) -> Result<(), StoreError> {
        check::digest(value).map_err(|reason| self.invalid(field, reason))
    }

    /// `value` as JSON, every string in it (keys too) redacted.
    fn encode<T: serde::Serialize + ?Sized>(
        &self,
        what: &'static str,
        value: &T,
    ) -> Result<String, StoreError> {
        let err = |source| StoreError::Encode {
            path: self.path.clone(),
            what,
            source,
        };
        if self.redactor.is_empty() {
            return serde_json::to_string(value).map_err(err);
        }
        let mut v = serde_json::to_value(value).map_err(err)?;
        self.redactor.redact_value(&mut v);
        serde_json::to_string(&v).map_err(err)
    }

    /// JSON text as stored: checked to be JSON, and redacted as
    /// [`Store::encode`] redacts (kept as it is when nothing is to be
    /// redacted).
    fn encode_text<'a>(
        &self,
        what: &'static str,
        text: &'a str,
    ) -> Result<std::borrow::Cow<'a, str>, StoreError> {
        let err = |source| StoreError::Encode {
            path: self.path.clone(),
            what,
            source,
        };
        if self.redactor.is_empty() {
            serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(err)?;
            // Not copied: a suite snapshot is as large as its tests.
            return Ok(std::borrow::Cow::Borrowed(text));
        }
        let mut v: serde_json::Value = serde_json::from_str(text).map_err(err)?;
        self.redactor.redact_value(&mut v);
        serde_json::to_string(&v)
            .map(std::borrow::Cow::Owned)
            .map_err(err)
    }

    /// `text` redacted.
    fn redacted(&self, text: &str) -> String {
        self.redactor.redact(text).into_owned()
    }

    fn json<T: DeserializeOwned>(
        &self,
        table: &'static str,
        row: &str,
        column: &'static str,
        text: &str,
    ) -> Result<T, StoreError> {
        RowCtx::new(self, table, row.to_string()).json(text, column)
    }
}

/// Names the row being read, so a value that does not read back is
/// reported with table, row key and column.
struct RowCtx<'a> {
    store: &'a Store,
    table: &'static str,
    row: String,
}

impl<'a> RowCtx<'a> {
    fn new(store: &'a Store, table: &'static str, row: String) -> Self {
        RowCtx { store, table, row }
    }

    fn bad(&self, column: &'static str, reason: String) -> StoreError {
        StoreError::BadRow {
            path: self.store.path.clone(),
            table: self.table,
            row: self.row.clone(),
            column,
            reason,
        }
    }

    fn get<T: FromSql>(
        &self,
        row: &Row<'_>,
        idx: usize,
        column: &'static str,
    ) -> Result<T, StoreError> {
        row.get(idx).map_err(|e| self.bad(column, e.to_string()))
    }

    /// A non-negative integer column that must fit in `u32`.
    fn index(&self, row: &Row<'_>, idx: usize, column: &'static str) -> Result<u32, StoreError> {
        let v: i64 = self.get(row, idx, column)?;
        u32::try_from(v).map_err(|_| self.bad(column, format!("out of range: {v}")))
    }

    fn json<T: DeserializeOwned>(&self, text: &str, column: &'static str) -> Result<T, StoreError> {
        serde_json::from_str(text).map_err(|e| self.bad(column, e.to_string()))
    }
}

/// How an SQLite error is reported.
enum Class {
    Corrupt,
    ReadOnly,
    Full,
    Io,
    CannotOpen,
    Other,
}

fn classify(e: &rusqlite::Error) -> Class {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Class::Corrupt,
        Some(ErrorCode::ReadOnly) => Class::ReadOnly,
        Some(ErrorCode::DiskFull) => Class::Full,
        Some(ErrorCode::SystemIoFailure) => Class::Io,
        Some(ErrorCode::CannotOpen) => Class::CannotOpen,
        _ => Class::Other,
    }
}

/// The SQLite code of `e` and, for a failure the operating system caused,
/// what pactum observes beside the file (`health::os_cause`).
fn detail(path: &Path, e: &rusqlite::Error, with_os: bool) -> String {
    let mut d = health::code_text(e);
    if with_os && path.as_os_str() != ":memory:" {
        if let Some(cause) = health::os_cause(path) {
            d.push_str("; ");
            d.push_str(&cause);
        }
    }
    d
}

fn error_for(path: &Path, op: &'static str, e: rusqlite::Error) -> StoreError {
    let p = path.to_path_buf();
    match classify(&e) {
        Class::Corrupt => StoreError::Corrupt {
            detail: detail(path, &e, false),
            path: p,
            source: e,
        },
        Class::ReadOnly => StoreError::ReadOnly {
            detail: detail(path, &e, true),
            path: p,
            source: Some(e),
        },
        Class::Full => StoreError::Full {
            detail: detail(path, &e, true),
            path: p,
            op,
            source: Box::new(e),
        },
        Class::Io => StoreError::Io {
            detail: detail(path, &e, true),
            path: p,
            op,
            source: Box::new(e),
        },
        Class::CannotOpen => StoreError::CannotOpen {
            detail: detail(path, &e, true),
            path: p,
            source: e,
        },
        Class::Other => StoreError::Sqlite {
            detail: detail(path, &e, false),
            path: p,
            op,
            source: Box::new(e),
        },
    }
}

/// Whether a write-ahead log with content lies beside the store: reading
/// the store as immutable would then miss committed trials.
fn has_wal_content(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.len() > 0)
}

/// A private copy of the store at `path` and of its write-ahead log, in a
/// new temporary folder, as one consistent state: each file is copied,
/// then compared with the original after both are copied. A file equal
/// before and after was unchanged in between, so the log and the store
/// copied held together at one moment (the moment between the two
/// copies); a file that differs (a writer committed or checkpointed)
/// makes the copy start again.
fn private_copy(path: &Path) -> Result<tempfile::TempDir, StoreError> {
    let io = |source: std::io::Error| StoreError::Copy {
        path: path.to_path_buf(),
        source,
    };
    for _ in 0..COPY_ATTEMPTS {
        let dir = tempfile::Builder::new()
            .prefix("pactum-read-")
            .tempdir()
            .map_err(io)?;
        let copy = dir.path().join("pactum.db");
        let wal = beside(path, "-wal");
        std::fs::copy(path, &copy).map_err(io)?;
        let wal_copied = match std::fs::copy(&wal, beside(&copy, "-wal")) {
            Ok(_) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(io(e)),
        };
        let same = |a: &Path, b: &Path| -> Result<bool, std::io::Error> {
            match (std::fs::File::open(a), std::fs::File::open(b)) {
                (Ok(a), Ok(b)) => same_bytes(a, b),
                (Err(e), _) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        };
        let wal_same = if wal_copied {
            same(&wal, &beside(&copy, "-wal")).map_err(io)?
        } else {
            std::fs::symlink_metadata(&wal).is_err()
        };
        if same(path, &copy).map_err(io)? && wal_same {
            return Ok(dir);
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    Err(StoreError::Changed {
        path: path.to_path_buf(),
    })
}

/// Whether two readers yield the same bytes.
fn same_bytes(a: impl std::io::Read, b: impl std::io::Read) -> Result<bool, std::io::Error> {
    let (mut a, mut b) = (
        std::io::BufReader::with_capacity(1 << 16, a),
        std::io::BufReader::with_capacity(1 << 16, b),
    );
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = read_full(&mut a, &mut x)?;
        let m = read_full(&mut b, &mut y)?;
        if n != m || x[..n] != y[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Fills `buf` as far as the reader goes; the count read.
fn read_full(r: &mut impl std::io::Read, buf: &mut [u8]) -> Result<usize, std::io::Error> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// `file:/abs/path?immutable=1`, the path percent-encoded (RFC 3986), for
/// a store no process can be writing (its folder is read-only).
fn immutable_uri(path: &Path) -> Result<String, rusqlite::Error> {
    let abs = std::path::absolute(path)
        .map_err(|e| rusqlite::Error::InvalidPath(PathBuf::from(e.to_string())))?;
    let mut uri = String::from("file:");
    for b in abs.as_os_str().as_encoded_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(char::from(*b));
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri.push_str("?immutable=1");
    Ok(uri)
}

/// `r20261130-010203` from `2026-11-30T01:02:03…Z` (already checked).
fn run_stamp(started_at: &str) -> String {
    let digits: String = started_at
        .chars()
        .take(19)
        .filter(char::is_ascii_digit)
        .collect();
    let (date, time) = digits.split_at(digits.len().min(8));
    format!("r{date}-{time}")
}

/// Four hex digits of a `sha256:` digest.
fn suffix(digest: &str) -> &str {
    digest.get(7..11).unwrap_or("0000")
}
