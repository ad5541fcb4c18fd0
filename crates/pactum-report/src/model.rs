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
