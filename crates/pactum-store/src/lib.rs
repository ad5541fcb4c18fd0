//! # pactum-store
//!
//! pactum's store: one SQLite file (default `.pactum/pactum.db`) holding
//! runs, trials with their traces and graded results, the contract snapshot
//! each result was scored against, the judge's raw answers, the answer
//! cache and cached interpretations (SPEC §3.6). The
//! tables are described in `docs/store.md`.
//!
//! * Synchronous; [`Store`] is `Send`, for a dedicated blocking thread.
//! * Each finished trial is one transaction: a run killed at any moment
//!   keeps every trial recorded before, and resumes from
//!   [`Store::finished_trials`].
//! * Versioned migrations ([`SCHEMA_VERSION`]); a store made by a newer
//!   pactum is refused, never downgraded.
//! * Typed values only: no free-form request or header ever reaches the
//!   file, so API keys cannot (SPEC §4). Times are passed in by the caller
//!   (RFC 3339 UTC), so the store itself is deterministic.

mod check;
mod error;
mod health;
mod lease;
mod model;
mod schema;
mod store;

pub use error::StoreError;
pub use lease::{Lease, LeaseHolder};
pub use model::{
    CacheEntry, CacheKind, CacheMode, ContractSnapshot, InterpretationKey, JudgeAnswer, NewRun,
    RunId, RunRow, RunStatus, StoredInterpretation, StoredTrial, TrialCounts, TrialRecord,
};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use store::{BatchWrite, Store, BUSY_TIMEOUT};

/// Where the store lives unless the user says otherwise, relative to the
/// working directory.
pub const DEFAULT_PATH: &str = ".pactum/pactum.db";
