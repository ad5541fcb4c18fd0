//! The schema and its versioned migrations.
//!
//! `PRAGMA user_version` holds the schema version; `PRAGMA application_id`
//! marks the file as pactum's. Migrations are append-only: a shipped
//! migration is never edited (a test pins version 1 against a frozen copy),
//! a change is a new entry. Each migration runs in the same `BEGIN
//! IMMEDIATE` transaction as the version check, so two processes opening a
//! new file at once cannot both migrate it.

use rusqlite::{Connection, TransactionBehavior};

/// `PRAGMA application_id` of a pactum store: "PCTM" in ASCII.
pub const APPLICATION_ID: i32 = 0x5043_544D;

/// Version 1: runs, content-addressed contract snapshots, trials and the
/// judge's raw answers.
const V1: &str = "
CREATE TABLE runs (
    id             TEXT PRIMARY KEY NOT NULL,
    suite_path     TEXT NOT NULL,
    suite_digest   TEXT NOT NULL,
    suite_snapshot TEXT NOT NULL,
    policy         TEXT NOT NULL,
    policy_digest  TEXT NOT NULL,
    started_at     TEXT NOT NULL,
    finished_at    TEXT,
    status         TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
    pactum_version TEXT NOT NULL
);
CREATE INDEX runs_by_suite ON runs (suite_digest, status);

CREATE TABLE contracts (
    digest   TEXT PRIMARY KEY NOT NULL,
    snapshot TEXT NOT NULL
);

CREATE TABLE trials (
    run_id          TEXT NOT NULL REFERENCES runs (id),
    test_id         TEXT NOT NULL,
    trial_index     INTEGER NOT NULL CHECK (trial_index >= 0),
    status          TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'undetermined', 'error')),
    summary         TEXT NOT NULL,
    contract_digest TEXT REFERENCES contracts (digest),
    result          TEXT NOT NULL,
    trace           TEXT,
    started_at      TEXT NOT NULL,
    finished_at     TEXT NOT NULL,
    duration_ms     INTEGER NOT NULL CHECK (duration_ms >= 0),
    PRIMARY KEY (run_id, test_id, trial_index)
);

CREATE TABLE judge_answers (
    run_id         TEXT NOT NULL,
    test_id        TEXT NOT NULL,
    trial_index    INTEGER NOT NULL,
    seq            INTEGER NOT NULL,
    contract_id    TEXT NOT NULL,
    clause_id      TEXT NOT NULL,
    turn           INTEGER,
    attempt        INTEGER NOT NULL CHECK (attempt >= 1),
    request_digest TEXT NOT NULL,
    raw_answer     TEXT NOT NULL,
    parsed         TEXT,
    error          TEXT,
    CHECK ((parsed IS NULL) <> (error IS NULL)),
    PRIMARY KEY (run_id, test_id, trial_index, seq),
    FOREIGN KEY (run_id, test_id, trial_index) REFERENCES trials (run_id, test_id, trial_index)
);
";

/// Version 2: the answer cache and cached interpretations
/// (SPEC §3.6).
const V2: &str = "
CREATE TABLE cache (
    key        TEXT PRIMARY KEY NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('target', 'judge', 'interpreter', 'simulated_user')),
    value      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    hits       INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE interpretations (
    authored_digest  TEXT NOT NULL,
    prompt_version   TEXT NOT NULL,
    model            TEXT NOT NULL,
    contract         TEXT,
    confidence       INTEGER NOT NULL CHECK (confidence BETWEEN 0 AND 100),
    usable           INTEGER NOT NULL CHECK (usable IN (0, 1)),
    reason           TEXT,
    created_at       TEXT NOT NULL,
    contract_version INTEGER NOT NULL,
    PRIMARY KEY (authored_digest, prompt_version, model)
);
";

/// The migrations, in order: entry `i` takes the schema from version `i`
/// to version `i + 1`.
/// Version 3: an interpretation keeps the interpreter's own note and extra
/// problems, so a cached one can be re-checked under another policy.
const V3: &str = "
ALTER TABLE interpretations ADD COLUMN note TEXT;
ALTER TABLE interpretations ADD COLUMN extra TEXT NOT NULL DEFAULT '[]';
";

/// Version 4: a covering index for a run's status, which every recorded
/// trial checks: without it each check walks the run's whole suite
/// snapshot (stored before `status` in the row).
const V4: &str = "
CREATE INDEX runs_status ON runs (id, status);
";

/// Version 5: run leases. The process running a run holds its lease and
/// renews it; a second process resuming the run while the lease is live
/// is refused (`docs/store.md`, "Leases").
const V5: &str = "
CREATE TABLE leases (
    run_id       TEXT PRIMARY KEY NOT NULL REFERENCES runs (id),
    token        TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,
    acquired_at  TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL
);
";

/// Version 6: a run's cache mode, so a resumed run keeps the one it was
/// started with (`NULL`: a run from before, resumed with the flags given).
const V6: &str = "
ALTER TABLE runs ADD COLUMN cache_mode TEXT CHECK (cache_mode IN ('use', 'bypass', 'refresh'));
";

/// Version 7: a run's suite snapshot in a table of its own, as the last
/// column of its row, where SQLite can make room for it and have it
/// written straight into its pages: in the `runs` row a snapshot (as
/// large as the suite's tests) was copied whole twice while written. A
/// run started from here on stores `''` in `runs.suite_snapshot`.
const V7: &str = "
CREATE TABLE suite_snapshots (
    run_id   TEXT PRIMARY KEY NOT NULL REFERENCES runs (id),
    snapshot BLOB NOT NULL
);
";

pub(crate) const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7];

/// The oldest schema version a read-only store can be read at as it is:
/// reading runs uses the index version 4 adds.
pub(crate) const MIN_READ_VERSION: u32 = 4;

/// The schema version this build writes: the number of migrations.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Why a file cannot be migrated.
#[derive(Debug)]
pub(crate) enum MigrateError {
    /// An SQLite error outside a migration step.
    Sqlite(rusqlite::Error),
    /// A migration step failed.
    Step(u32, rusqlite::Error),
    /// Made by a newer pactum.
    TooNew(i64),
    /// Some other program's database.
    Foreign(String),
}

impl From<rusqlite::Error> for MigrateError {
    fn from(e: rusqlite::Error) -> Self {
        MigrateError::Sqlite(e)
    }
}

/// Reads the file's schema version and refuses a file that is not a pactum
/// store, or is one from a newer pactum. Reads only: a refused file is left
/// exactly as it was.
pub(crate) fn check(conn: &Connection) -> Result<i64, MigrateError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let app_id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if app_id != APPLICATION_ID {
        if app_id != 0 {
            return Err(MigrateError::Foreign(format!(
                "its application id is {app_id:#010x}, not pactum's {APPLICATION_ID:#010x}"
            )));
        }
        let objects: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
        if version != 0 || objects != 0 {
            return Err(MigrateError::Foreign(format!(
                "it holds {objects} schema object(s) at user_version {version} without pactum's application id"
            )));
        }
    }
    if version > i64::from(SCHEMA_VERSION) {
        return Err(MigrateError::TooNew(version));
    }
    if version < 0 {
        return Err(MigrateError::Foreign(format!(
            "negative user_version {version}"
        )));
    }
    Ok(version)
}

/// [`check`] inside one read transaction: its three reads see the same
/// snapshot, so another process committing its first migration between
/// them cannot make a fresh store look like another program's.
pub(crate) fn check_consistent(conn: &Connection) -> Result<i64, MigrateError> {
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Deferred)?;
    let version = check(&tx)?;
    tx.rollback()?;
    Ok(version)
}

/// Brings the schema to [`SCHEMA_VERSION`], checking again inside the write
/// transaction (another process may have migrated the file meanwhile).
/// Returns the version the file was at.
pub(crate) fn migrate(conn: &Connection) -> Result<i64, MigrateError> {
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let version = check(&tx)?;
    if version == i64::from(SCHEMA_VERSION) {
        return Ok(version);
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let target = i as u32 + 1;
        tx.execute_batch(sql)
            .map_err(|e| MigrateError::Step(target, e))?;
        tx.pragma_update(None, "user_version", target)
            .map_err(|e| MigrateError::Step(target, e))?;
    }
    if version == 0 {
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    }
    tx.commit()?;
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Version 1 may already be in users' stores: its SQL must never
    /// change. A change to the schema is a new migration.
    #[test]
    fn version_1_is_frozen() {
        assert_eq!(
            MIGRATIONS[0],
            include_str!("../tests/fixtures/schema_v1.sql")
        );
    }
}
