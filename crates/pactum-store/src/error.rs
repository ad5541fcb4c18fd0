//! The store's one error type. Every variant names the database path
//! (`:memory:` for an in-memory store), so a message read on its own says
//! which file is at fault.

use std::path::PathBuf;

/// Everything that can go wrong in the store. Messages are lowercase
/// fragments; causes are kept as sources.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// [`crate::Store::open_existing`] was given a path where no store
    /// exists: a command that only reads runs never creates one.
    #[error("{}: no pactum store here (run `pactum run SUITE` first, or pass the store with --db)", .path.display())]
    Missing {
        /// The path that was looked at.
        path: PathBuf,
    },

    /// The folder that should hold the database could not be created.
    #[error("{}: cannot create the folder for the store", .path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A path the store needs as a folder is a file, or the store's own
    /// path is a folder.
    #[error("{}: {what}", .path.display())]
    WrongKind {
        /// The path.
        path: PathBuf,
        /// `is a file, not a folder` or `is a folder, not a store file`.
        what: &'static str,
    },

    /// SQLite could not open or create the file (a missing folder, a path
    /// that is a folder, no permission to create it).
    #[error("{}: cannot open or create the store file (is its folder writable?){detail}", .path.display())]
    CannotOpen {
        /// The database file.
        path: PathBuf,
        /// The SQLite code and the operating-system cause, when known
        /// (starts with a space or `;`, or is empty).
        detail: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },

    /// The file can only be read (read-only file, folder or file system),
    /// and the store must write.
    #[error("{}: the store is read-only (check the file's and its folder's permissions, and the file system){detail}", .path.display())]
    ReadOnly {
        /// The database file.
        path: PathBuf,
        /// The SQLite code and the operating-system cause, when known.
        detail: String,
        /// SQLite's error, when one was raised.
        #[source]
        source: Option<rusqlite::Error>,
    },

    /// The file is not an SQLite database, or is damaged.
    #[error("{}: not a pactum store: the file is not an SQLite database or is corrupt (a damaged page){detail}", .path.display())]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// The SQLite code, when known.
        detail: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },

    /// The file was refused before SQLite opened it, or a cheap probe of
    /// its pages failed: it is not SQLite, truncated, or damaged. Nothing
    /// was written to it.
    #[error("{}: not a usable pactum store: {reason}; nothing was written to it (restore it from a copy, or use another store file)", .path.display())]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// What the check found.
        reason: String,
    },

    /// The disk is full (or the process's file-size limit is reached):
    /// the write was rolled back, nothing stored before is lost.
    #[error("{}: {op} failed: the disk is full{detail}", .path.display())]
    Full {
        /// The database file.
        path: PathBuf,
        /// What the store was doing.
        op: &'static str,
        /// The SQLite code and the operating-system cause, when known.
        detail: String,
        /// SQLite's error.
        #[source]
        source: Box<rusqlite::Error>,
    },

    /// The operating system failed a read or write of the file.
    #[error("{}: {op} failed: input/output error{detail}", .path.display())]
    Io {
        /// The database file.
        path: PathBuf,
        /// What the store was doing.
        op: &'static str,
        /// The SQLite code and the operating-system cause, when known.
        detail: String,
        /// SQLite's error.
        #[source]
        source: Box<rusqlite::Error>,
    },

    /// A store made by a pactum too old for this one to read without
    /// migrating it: the commands that only read never migrate.
    #[error("{}: the store has schema version {found}, older than the {needed} this pactum reads as it is; commands that only read never upgrade a store: upgrade it by running `pactum run` on it once where it is writable", .path.display())]
    TooOldToRead {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The oldest version this pactum reads as is.
        needed: u32,
    },

    /// A store read without touching it could not be copied to a private
    /// folder ([`crate::Store::open_untouched`]).
    #[error("{}: cannot copy the store and its log to a private temporary folder to read them without touching them: {source}", .path.display())]
    Copy {
        /// The database file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },

    /// A store read without touching it kept changing under every read
    /// (a writer committing without pause): nothing read is used.
    #[error("{}: the store kept changing while it was read (a pactum run is writing it); try again", .path.display())]
    Changed {
        /// The database file.
        path: PathBuf,
    },

    /// Another pactum process holds the run (a live lease): two processes
    /// never run one run at once.
    #[error("{}: run {run} is being run by another pactum (pid {} on {}, since {}, last seen {}); wait for it to end or stop it, then resume", .path.display(), .lease.holder.pid, .lease.holder.host, .lease.acquired_at, .lease.heartbeat_at)]
    Leased {
        /// The database file.
        path: PathBuf,
        /// The run.
        run: String,
        /// The live lease: its holder's pid and host, and its times.
        lease: Box<crate::Lease>,
    },

    /// The file is an SQLite database, but some other program's.
    #[error("{}: not a pactum store: {reason}", .path.display())]
    Foreign {
        /// The database file.
        path: PathBuf,
        /// What gave it away.
        reason: String,
    },

    /// The database was made by a newer pactum; this build will not touch
    /// it rather than silently downgrade it.
    #[error(
        "{}: the store has schema version {found}, newer than the {supported} this pactum knows; upgrade pactum or use another store file",
        .path.display()
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// `PRAGMA user_version` of the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: u32,
    },

    /// A schema migration failed; the transaction was rolled back and the
    /// file is still at its previous version.
    #[error("{}: migrating the store to schema version {version} failed", .path.display())]
    Migration {
        /// The database file.
        path: PathBuf,
        /// The version that could not be reached.
        version: u32,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },

    /// Any other SQLite failure, with what the store was doing.
    #[error("{}: {op} failed{detail}", .path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// What the store was doing, e.g. `record trial`.
        op: &'static str,
        /// The SQLite code, when known.
        detail: String,
        /// SQLite's error.
        #[source]
        source: Box<rusqlite::Error>,
    },

    /// A stored row could not be read back into its type.
    #[error("{}: table {table}, row {row}, column {column}: {reason}", .path.display())]
    BadRow {
        /// The database file.
        path: PathBuf,
        /// The table.
        table: &'static str,
        /// The row's key, e.g. `r20261130-010203-ab12/refund-policy/0`.
        row: String,
        /// The column.
        column: &'static str,
        /// What is wrong with the value.
        reason: String,
    },

    /// A value passed by the caller breaks a rule of the store (a time that
    /// is not RFC 3339 UTC, a digest that is not `sha256:<64 hex>`…).
    #[error("{}: invalid {field}: {reason}", .path.display())]
    Invalid {
        /// The database file.
        path: PathBuf,
        /// Which argument or field.
        field: &'static str,
        /// Why.
        reason: String,
    },

    /// A value could not be serialised to JSON.
    #[error("{}: cannot serialise {what} to JSON", .path.display())]
    Encode {
        /// The database file.
        path: PathBuf,
        /// What was being serialised.
        what: &'static str,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },

    /// No run has this id.
    #[error("{}: no run {run}", .path.display())]
    UnknownRun {
        /// The database file.
        path: PathBuf,
        /// The id asked for.
        run: String,
    },

    /// No run id starts with the prefix given.
    #[error("{}: no run id starts with {prefix:?}{}", .path.display(), candidates_hint("newest runs", .candidates))]
    RunNotFound {
        /// The database file.
        path: PathBuf,
        /// The prefix given.
        prefix: String,
        /// The newest run ids, to pick from (at most ten).
        candidates: Vec<String>,
    },

    /// More than one run id starts with the prefix given.
    #[error("{}: run id prefix {prefix:?} is ambiguous: {matches} runs match{}", .path.display(), candidates_hint("newest first", .candidates))]
    AmbiguousRun {
        /// The database file.
        path: PathBuf,
        /// The prefix given.
        prefix: String,
        /// The matching ids, newest first (at most ten).
        candidates: Vec<String>,
        /// How many ids match in all.
        matches: u64,
    },

    /// The run's status does not allow the change asked for.
    #[error("{}: run {run} is {status}; cannot {action}", .path.display())]
    RunState {
        /// The database file.
        path: PathBuf,
        /// The run.
        run: String,
        /// Its current status.
        status: &'static str,
        /// What was asked.
        action: &'static str,
    },

    /// This trial was already recorded: a trial is never run twice.
    #[error("{}: trial {trial_index} of test {test_id:?} in run {run} is already recorded", .path.display())]
    TrialExists {
        /// The database file.
        path: PathBuf,
        /// The run.
        run: String,
        /// The test.
        test_id: String,
        /// The trial index.
        trial_index: u32,
    },

    /// A stored contract snapshot uses `refusal` without `kind`, as pactum
    /// wrote every refusal before it told a full refusal from any refusal
    /// (docs/refusal.md). Which form a clause meant cannot be told, and is
    /// never guessed: its traces are graded again by running the suite.
    #[error(
        "{} of the stored contract `{contract}` {} `refusal` without `kind`, as an older pactum wrote it: re-run the suite to grade its traces again (pactum now tells a full refusal from any refusal, and does not guess which one a stored clause meant; snapshot {digest} in {})",
        clause_list(.clauses),
        if .clauses.len() == 1 { "uses" } else { "use" },
        .path.display()
    )]
    KindlessRefusal {
        /// The database file.
        path: PathBuf,
        /// The snapshot's digest.
        digest: String,
        /// The contract's id.
        contract: String,
        /// The clauses holding such a refusal, each once, in document
        /// order.
        clauses: Vec<String>,
    },

    /// A contract digest already stands for a different snapshot: the
    /// digests the caller computes are not content addresses.
    #[error("{}: contract digest {digest} already holds a different snapshot", .path.display())]
    DigestConflict {
        /// The database file.
        path: PathBuf,
        /// The digest.
        digest: String,
    },
}

/// `clause `a`` or `clauses `a`, `b``, each id bounded.
fn clause_list(ids: &[String]) -> String {
    let shown: Vec<String> = ids
        .iter()
        .map(|c| format!("`{}`", pactum_core::text::one_line(c, 80)))
        .collect();
    let noun = if ids.len() == 1 { "clause" } else { "clauses" };
    format!("{noun} {}", shown.join(", "))
}

/// `; newest runs: a, b, c` or nothing when the list is empty.
fn candidates_hint(label: &str, candidates: &[String]) -> String {
    if candidates.is_empty() {
        String::new()
    } else {
        format!("; {label}: {}", candidates.join(", "))
    }
}
