//! The events' payloads: what the runner tells reporters about a run.

use pactum_core::Policy;
use serde::{Deserialize, Serialize};

/// One contract of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractInfo {
    /// The contract id.
    pub id: String,
    /// The file it was read from, as given.
    pub path: String,
    /// `sha256:` digest of the contract (`pactum_core::digest`).
    pub digest: String,
}

/// Where expected statuses come from (`docs/reports.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectationsInfo {
    /// The expectations file, as given.
    pub path: String,
    /// The JSON pointer into each trace's metadata the label is read from.
    pub pointer: String,
}

/// What [`crate::Reporter::begin`] receives.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// The command, e.g. `grade`.
    pub command: String,
    /// pactum's version.
    pub pactum_version: String,
    /// The policy every status was decided under.
    pub policy: Policy,
    /// The contracts, in the order given.
    pub contracts: Vec<ContractInfo>,
    /// Tests written in plain words (SPEC §3.6), whose contracts are
    /// interpreted per test and so are not in `contracts`; 0 for `grade`.
    pub authored_tests: u64,
    /// Set when expected statuses are read (an agreement table is then
    /// reported).
    pub expectations: Option<ExpectationsInfo>,
    /// The live run the results come from, naming the JUnit test suite of
    /// results that have no trace file: `run RUN_ID (SUITE_FILE)` for
    /// `show` and `rescore`, the suite file for `run`. `None` for `grade`.
    pub run: Option<String>,
}

/// One input file, counted at the end of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The path as given. Results and input errors name the same string
    /// (`TraceResult::source.file`, [`InputError::file`]), which is how the
    /// JUnit report groups them into one `<testsuite>` per file.
    pub path: String,
    /// The importer used, e.g. `pactum-jsonl`, `openai-messages`.
    pub format: String,
    /// Traces read and graded.
    pub traces: u64,
    /// Records skipped on purpose (e.g. AgentDojo's summary line).
    pub skipped: u64,
    /// Records that could not be read.
    pub errors: u64,
}

/// A record that could not be read: file, line, field and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputError {
    /// The file, as given.
    pub file: String,
    /// 1-based line.
    pub line: u64,
    /// The field (a JSON pointer or column name), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What was wrong, as a lowercase fragment.
    pub message: String,
}

/// A trial a stored run planned that was never stored: the run stopped
/// (Ctrl-C, a crash, a kill, a store failure) before it finished. The run
/// is then partial, and each missing trial counts as an error in JUnit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingTrial {
    /// The test's id in the suite.
    pub test_id: String,
    /// 0-based trial index.
    pub trial_index: u32,
    /// The id its trace would have had (`TEST#N`, N 1-based).
    pub trace_id: String,
}

/// A run-level warning (e.g. a declared level whose channel was never
/// reported by any trace).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// A stable code, e.g. `unobserved-channel`, `vacuous-check`, `no-judge`.
    pub code: String,
    /// What it means for the run.
    pub message: String,
}

/// What [`crate::Reporter::finish`] receives.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunEnd {
    /// Every input file, in the order given.
    pub inputs: Vec<InputFile>,
    /// Run-level warnings, in the order raised.
    pub warnings: Vec<Warning>,
    /// The contract grader's report of each OpenProse run graded, in the
    /// order given (`docs/openprose.md`); empty for every other input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub openprose: Vec<pactum_openprose::RunGrade>,
}

/// How an authored test was read (SPEC §3.6, §3.7): what the reports show
/// beside its result, as the JSON report's `interpretation` field of that
/// result. Sent by the pipeline just before the result it belongs to
/// ([`crate::Reporter::reading`]), for tests written in plain words only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// The test's id in the suite.
    pub test_id: String,
    /// The authored fields, as written (empty when absent).
    pub authored: AuthoredFields,
    /// Who interpreted it: `{"kind": "builtin", "version": …}`,
    /// `{"kind": "model", "model": …, "prompt_version": …}` or
    /// `{"kind": "explicit"}`; `None` when the trial did not record it.
    pub interpreter: Option<serde_json::Value>,
    /// The interpreter's confidence, 0–100, when recorded.
    pub confidence: Option<u8>,
    /// Whether the interpretation could be scored, when recorded.
    pub usable: Option<bool>,
    /// Why it could not, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The contract it was scored against, when it got one.
    pub contract: Option<ReadContract>,
    /// Where the conversation stopped and why, when one ran.
    pub ended: Option<ConversationEnd>,
}

/// The authored fields of a test (SPEC §2) and its conversation bounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthoredFields {
    /// What the target should achieve.
    pub goal: String,
    /// How it should behave.
    pub instructions: String,
    /// What it must not do.
    pub restrictions: String,
    /// The situation the conversation plays out in.
    pub scenario: String,
    /// From this turn on the conversation may stop early.
    pub min_turns: u32,
    /// The most turns it runs.
    pub max_turns: u32,
}

/// The contract an authored test was read as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadContract {
    /// Its id.
    pub id: String,
    /// `sha256:` digest of the contract scored.
    pub digest: String,
    /// What the simulated user pursued (never scored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated_user_objective: Option<String>,
    /// Wording and pressure only.
    pub adversarial: bool,
    /// Every clause, in declaration order, with where it came from.
    pub clauses: Vec<ReadClause>,
}

/// One clause of an interpreted contract and the authored field it came
/// from (the contract's `source_notes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadClause {
    /// The clause id.
    pub id: String,
    /// `required`, `prohibited` or `conditional`.
    pub kind: String,
    /// The clause's wording as scored.
    pub text: String,
    /// The authored field it came from (`goal`, `instructions`,
    /// `restrictions`, `scenario`); `None` when no note names it.
    pub field: Option<String>,
    /// Why its wording differs from the field's, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Where a multi-turn conversation stopped (SPEC §3.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationEnd {
    /// Turns that ran (the last one is where it stopped).
    pub turns: usize,
    /// `violation` (a prohibited clause was violated), `max_turns`,
    /// `target_ended`, `script_done` or `error`, as the trial recorded it.
    pub reason: String,
    /// The violated clause, for `violation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clause: Option<String>,
}
