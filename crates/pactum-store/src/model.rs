//! The typed values the store takes and gives back. The store never takes
//! free-form request data: what goes in is a pactum type or a value the
//! caller built from one, which is how API keys stay out (SPEC §4).

use std::fmt;

use pactum_core::{Contract, Policy, TestStatus, Trace, TraceResult};
use serde::{Deserialize, Serialize};

/// A run's id: `r<YYYYMMDD>-<HHMMSS>-<4 hex>`, e.g. `r20261130-010203-ab12`.
/// Ids sort by start time (to the second); the hex suffix tells apart runs
/// started in the same second. Any unique prefix names a run
/// ([`crate::Store::resolve_run`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// Wraps an id as read from a user or a file. It is not checked here:
    /// an id the store does not hold gives [`crate::StoreError::UnknownRun`].
    pub fn new(id: impl Into<String>) -> RunId {
        RunId(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Started and not finished: still going, or killed without a chance to
    /// say so. Resumable.
    Running,
    /// Every trial was recorded.
    Finished,
    /// Stopped early (Ctrl-C, a fatal error). Resumable.
    Interrupted,
}

impl RunStatus {
    /// Every status.
    pub const ALL: [RunStatus; 3] = [
        RunStatus::Running,
        RunStatus::Finished,
        RunStatus::Interrupted,
    ];

    /// The snake_case name stored in `runs.status`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Finished => "finished",
            RunStatus::Interrupted => "interrupted",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<RunStatus> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Whether a run in this status can be resumed.
    pub fn is_resumable(self) -> bool {
        self != RunStatus::Finished
    }
}

/// What [`crate::Store::create_run`] needs to start a run.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRun {
    /// The suite file as the user named it.
    pub suite_path: String,
    /// `sha256:` digest of the suite; resume looks runs up by it.
    pub suite_digest: String,
    /// The validated suite as JSON text (its canonical snapshot, kept as
    /// text so a suite of many tests is never a tree in memory), for
    /// `pactum show`. It names the environment variables keys are read
    /// from, never a key.
    pub suite_snapshot: String,
    /// The scoring policy; stored as JSON with its digest.
    pub policy: Policy,
    /// RFC 3339 UTC, `YYYY-MM-DDTHH:MM:SS[.fraction]Z`. The run id is
    /// derived from it.
    pub started_at: String,
    /// The pactum version that ran it (`CARGO_PKG_VERSION` of the binary).
    pub pactum_version: String,
    /// How the run uses the cache; a resumed run keeps it.
    pub cache_mode: CacheMode,
}

/// How a run uses the answer cache. Stored with the run, so `--resume`
/// finishes it the way it was started (`docs/store.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// Read answers from the cache; store new ones (default).
    #[default]
    Use,
    /// Neither read nor write: every call goes to the network
    /// (`--no-cache`).
    Bypass,
    /// Do not read, but store what the network answers (refreshes
    /// entries; `--refresh-cache`).
    Refresh,
}

impl CacheMode {
    /// Its name in the store: `use`, `bypass`, `refresh`.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheMode::Use => "use",
            CacheMode::Bypass => "bypass",
            CacheMode::Refresh => "refresh",
        }
    }

    /// The mode a stored name stands for; `None` for any other text.
    pub fn parse(s: &str) -> Option<CacheMode> {
        match s {
            "use" => Some(CacheMode::Use),
            "bypass" => Some(CacheMode::Bypass),
            "refresh" => Some(CacheMode::Refresh),
            _ => None,
        }
    }
}

/// Trials of one run counted by test status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TrialCounts {
    /// Trials that passed.
    pub pass: u64,
    /// Trials that failed.
    pub fail: u64,
    /// Trials left undetermined (WARN).
    pub undetermined: u64,
    /// Trials that ended in error.
    pub error: u64,
}

impl TrialCounts {
    /// Every recorded trial.
    pub fn total(&self) -> u64 {
        self.pass + self.fail + self.undetermined + self.error
    }

    /// The count for one status.
    pub fn get(&self, status: TestStatus) -> u64 {
        match status {
            TestStatus::Pass => self.pass,
            TestStatus::Fail => self.fail,
            TestStatus::Undetermined => self.undetermined,
            TestStatus::Error => self.error,
        }
    }
}

/// One row of `runs`, with its trials counted.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// The id.
    pub id: RunId,
    /// The suite file as the user named it.
    pub suite_path: String,
    /// `sha256:` digest of the suite.
    pub suite_digest: String,
    /// The policy the run was scored under.
    pub policy: Policy,
    /// `sha256:` digest of the policy ([`Policy::digest`]).
    pub policy_digest: String,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// RFC 3339 UTC; `None` while running.
    pub finished_at: Option<String>,
    /// Where the run stands.
    pub status: RunStatus,
    /// The pactum version that started it.
    pub pactum_version: String,
    /// Its recorded trials by status.
    pub counts: TrialCounts,
}

/// A contract with the `sha256:` digest results cite for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractSnapshot {
    /// `sha256:<64 hex>`, computed by the caller.
    pub digest: String,
    /// The contract.
    pub contract: Contract,
}

/// One raw answer of the judge, as received (SPEC §3.4): kept so a verdict
/// can be audited and a parser fix can be checked against real answers.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeAnswer {
    /// The contract graded.
    pub contract_id: String,
    /// The clause graded.
    pub clause_id: String,
    /// The turn (1-based) after which a multi-turn check ran (SPEC §3.7);
    /// `None` for the final grading over the whole transcript.
    pub turn: Option<u32>,
    /// 1-based attempt; retries after malformed output count up.
    pub attempt: u32,
    /// `sha256:` digest of the request sent (the same digest the cache
    /// keys by), never the request itself.
    pub request_digest: String,
    /// The judge's answer text, verbatim.
    pub raw_answer: String,
    /// The parsed answer, or why it could not be parsed.
    pub parsed: Result<serde_json::Value, String>,
}

/// Everything one finished trial leaves behind. [`crate::Store::record_trial`]
/// writes it in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialRecord {
    /// The run.
    pub run_id: RunId,
    /// The test's id in the suite.
    pub test_id: String,
    /// 0-based trial index.
    pub trial_index: u32,
    /// The contract the result was scored against; `None` when the trial
    /// never got one (an unusable interpretation, SPEC §3.6).
    pub contract: Option<ContractSnapshot>,
    /// The graded result: status, summary, clause verdicts, scores.
    pub result: TraceResult,
    /// What the target did; `None` when no conversation ran.
    pub trace: Option<Trace>,
    /// The judge's raw answers, in the order they were received.
    pub judge_answers: Vec<JudgeAnswer>,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// RFC 3339 UTC.
    pub finished_at: String,
    /// Wall time of the trial in milliseconds.
    pub duration_ms: u64,
}

/// One trial read back from the store. The contract snapshot is fetched by
/// digest ([`crate::Store::contract`]) and the judge's raw answers with
/// [`crate::Store::judge_answers`], so streaming a run stays light.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTrial {
    /// The run.
    pub run_id: RunId,
    /// The test's id.
    pub test_id: String,
    /// 0-based trial index.
    pub trial_index: u32,
    /// The contract digest the result was scored against.
    pub contract_digest: Option<String>,
    /// The graded result.
    pub result: TraceResult,
    /// What the target did, when a conversation ran.
    pub trace: Option<Trace>,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// RFC 3339 UTC.
    pub finished_at: String,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
}

/// What a cache entry holds (`docs/store.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheKind {
    /// A target's answer.
    Target,
    /// A judge's answer.
    Judge,
    /// An interpreter's answer.
    Interpreter,
    /// A simulated user's message.
    SimulatedUser,
}

impl CacheKind {
    /// Every kind.
    pub const ALL: [CacheKind; 4] = [
        CacheKind::Target,
        CacheKind::Judge,
        CacheKind::Interpreter,
        CacheKind::SimulatedUser,
    ];

    /// The snake_case name stored in `cache.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheKind::Target => "target",
            CacheKind::Judge => "judge",
            CacheKind::Interpreter => "interpreter",
            CacheKind::SimulatedUser => "simulated_user",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<CacheKind> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// A cache entry as stored, read without counting a hit.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheEntry {
    /// `sha256:<64 hex>`.
    pub key: String,
    /// What it holds.
    pub kind: CacheKind,
    /// The cached answer.
    pub value: serde_json::Value,
    /// RFC 3339 UTC of the last put.
    pub created_at: String,
    /// How many times [`crate::Store::cache_get`] returned it since.
    pub hits: u64,
}

/// What an interpretation is cached by (SPEC §3.6): the digest of the four
/// authored fields, the interpreter's prompt version and its model.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InterpretationKey {
    /// `sha256:` of the canonical JSON of the whitespace-normalised
    /// `goal`, `instructions`, `restrictions`, `scenario`.
    pub authored_digest: String,
    /// The interpreter prompt's version.
    pub prompt_version: String,
    /// The interpreter model (`builtin` for the deterministic one).
    pub model: String,
}

/// An interpretation of authored text into a contract, with the provenance
/// pactum stamps on it (never taken from the model).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredInterpretation {
    /// The contract; `None` when the interpreter gave none that parsed.
    pub contract: Option<Contract>,
    /// The interpreter's confidence, 0–100.
    pub confidence: u8,
    /// Whether the contract can be scored (SPEC §3.6).
    pub usable: bool,
    /// Why it is unusable, or a note; shown to the author.
    pub reason: Option<String>,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// The contract schema version it was made for
    /// ([`pactum_core::contract::CONTRACT_SCHEMA_VERSION`]).
    pub contract_version: u32,
    /// The interpreter's own reason it gave no usable contract, if any.
    pub note: Option<String>,
    /// Problems the interpreter's own checks found besides the usability
    /// rules.
    pub extra: Vec<String>,
}
