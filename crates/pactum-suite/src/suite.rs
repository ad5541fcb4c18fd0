//! Suite files (`docs/suites.md`; the authored fields, SPEC §3.6): YAML or
//! JSON → validated [`Suite`], with every problem of the file (and of the
//! contract files it names) reported at once.
//!
//! The format is `schemas/suite.schema.json` ([`crate::suite_schema`]),
//! documented in `docs/suites.md`. The steps, each collecting diagnostics:
//! parse; JSON Schema (unknown keys, wrong types, bad values, missing
//! `observability`); semantic checks (names, target references, prompt or
//! turns, templates against `vars`, JSONPaths, environment variable names,
//! ranges); contracts (files read relative to the suite file, inline ones
//! checked where they are written); then, when all passed, the model, its
//! canonical snapshot and digest.
//!
//! | submodule | owns |
//! |---|---|
//! | `load` | [`load_suite`], [`parse_suite`]: the checks and the model |
//! | `raw` | the serde shape of the file |
//! | `inline` | inline contracts checked by the contract loader, located in the suite file |
//! | `template` | the template engine: [`render_template`], [`render_value`], [`http_context`], [`reads`] |
//! | `names` | ids, variable, header and environment variable names; keys pasted as names |

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use pactum_core::contract::Contract;
use pactum_core::policy::Policy;
use pactum_core::trace::ObservabilityLevel;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;

mod inline;
mod load;
pub(crate) mod names;
mod raw;
mod template;

pub use load::{env_vars_needed, literal_secrets, load_suite, parse_suite, url_credentials};
pub(crate) use load::{from_document, read_suite_streamed};
pub use template::{
    http_context, misread_env_pass, passed_env_var, reads, render_template, render_template_with,
    render_value, render_value_with, Reads, RenderError, TemplateContext, TurnContext, ENV_ROOT,
    RUNTIME_NAMES,
};

/// The suite file format version this build reads.
pub const SUITE_VERSION: u32 = 1;

/// A validated suite file.
///
/// Serialises to its snapshot form ([`LoadedSuite::snapshot`]): `path`, and
/// every other path that depends on where the suite lives, is left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suite {
    /// The file format version (1).
    pub version: u32,
    /// The file it was read from, as given.
    #[serde(skip)]
    pub path: PathBuf,
    /// Target name → target.
    pub targets: BTreeMap<String, TargetSpec>,
    /// The judge (SPEC §3.4); `None`: judged clauses are `not_evaluable`
    /// with reason `no-judge`.
    pub judge: Option<ModelSpec>,
    /// The interpreter model (SPEC §3.6); `None`: the built-in interpreter.
    pub interpreter: Option<ModelSpec>,
    /// The simulated user's model (SPEC §3.7).
    pub simulated_user: Option<ModelSpec>,
    /// The scoring policy (defaults where the file is silent).
    pub policy: Policy,
    /// The tests, in file order, defaults applied.
    pub tests: Vec<TestSpec>,
}

/// One system under test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetSpec {
    /// Its name in `targets`.
    pub name: String,
    /// Which channels it reports (SPEC §3.2); required in the file, never
    /// guessed.
    pub observability: ObservabilityLevel,
    /// Timeout, concurrency, rate and retries.
    pub limits: Limits,
    /// How pactum talks to it.
    #[serde(flatten)]
    pub kind: TargetKind,
}

impl TargetSpec {
    /// The names of the tools the target is offered: an `openai` target's
    /// `tools:` definitions (`{type: function, function: {name}}`, or a
    /// legacy `{name}`), none when it lists none. `None` for the other
    /// kinds, which offer tools in ways pactum does not see, and when a
    /// definition has no name to read: what the target is offered is then
    /// not known, never guessed. The runner records it in every trace
    /// ([`pactum_core::trace::Trace::offered_tools`]); loading a suite
    /// warns about checks on tools outside it (`unoffered-tool`).
    pub fn offered_tools(&self) -> Option<BTreeSet<String>> {
        let TargetKind::Openai { tools, .. } = &self.kind else {
            return None;
        };
        tools
            .iter()
            .map(|t| {
                t.pointer("/function/name")
                    .or_else(|| t.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .collect()
    }
}

/// How requests to one endpoint are bounded and retried (`docs/suites.md`, "Limits and retries").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limits {
    /// One request's timeout, in milliseconds (default 30 000).
    pub timeout_ms: u64,
    /// Requests in flight at once, ≥ 1 (default 4).
    pub concurrency: usize,
    /// Highest request rate per second, > 0; `None`: unlimited.
    pub requests_per_second: Option<f64>,
    /// Retries of transient failures.
    pub retries: Retries,
}

/// Retries of transient failures (connection errors, 429, 5xx) with
/// exponential backoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Retries {
    /// Retries after the first attempt (default 3).
    pub max: u32,
    /// The first backoff in milliseconds, doubled each retry (default 500).
    pub base_backoff_ms: u64,
    /// The longest backoff in milliseconds, ≥ `base_backoff_ms` (default 30 000).
    pub max_backoff_ms: u64,
}

impl Default for Retries {
    fn default() -> Self {
        Retries {
            max: 3,
            base_backoff_ms: 500,
            max_backoff_ms: 30_000,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout_ms: 30_000,
            concurrency: 4,
            requests_per_second: None,
            retries: Retries::default(),
        }
    }
}

/// The kind of a target and the keys of that kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TargetKind {
    /// An OpenAI-compatible chat-completions endpoint.
    Openai {
        /// The base URL, up to and including `/v1`.
        base_url: String,
        /// The model name.
        model: String,
        /// The NAME of the environment variable holding the API key; the
        /// key itself is never read at load and never stored.
        api_key_env: Option<String>,
        /// Parameters passed through (never `model`, `messages`, `tools`
        /// or `stream`, which pactum sets).
        params: Map<String, Value>,
        /// OpenAI tool definitions, passed through.
        tools: Vec<Value>,
        /// A system prompt sent first.
        system: Option<String>,
    },
    /// Any JSON HTTP endpoint.
    Http {
        /// `GET`, `POST` (default), `PUT`, `PATCH` or `DELETE`.
        method: String,
        /// URL template.
        url: String,
        /// Header name → value template (may read `env.NAME`).
        headers: BTreeMap<String, String>,
        /// Body template: every string in it is a template
        /// ([`render_value`]); `None`: no body.
        body: Option<Value>,
        /// Where the answer's parts are.
        response: ResponseMap,
    },
    /// A local command speaking newline-delimited JSON.
    Exec {
        /// Program and arguments (no shell), at least the program.
        command: Vec<String>,
        /// The folder it runs in, resolved against the suite file's folder.
        cwd: PathBuf,
        /// Variables added to the environment the command inherits.
        env: BTreeMap<String, String>,
        /// One process per conversation (`pactum-exec/1`, the default), or
        /// a pool of long-lived processes serving every conversation
        /// (`pactum-exec/2`).
        #[serde(skip_serializing_if = "ExecMode::is_default")]
        mode: ExecMode,
    },
}

/// How an `exec` target runs its command (`docs/targets.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecMode {
    /// One process per conversation, speaking `pactum-exec/1`: started at
    /// its first turn, killed when it ends.
    #[default]
    PerConversation,
    /// At most `concurrency` long-lived processes, speaking
    /// `pactum-exec/2`: each serves one request at a time, of any
    /// conversation, and echoes its `conversation_id` and `turn`.
    Persistent,
}

impl ExecMode {
    /// Whether this is the default mode (left out when a spec is written).
    pub fn is_default(&self) -> bool {
        *self == ExecMode::default()
    }

    /// The name written in a suite file.
    pub fn as_str(self) -> &'static str {
        match self {
            ExecMode::PerConversation => "per_conversation",
            ExecMode::Persistent => "persistent",
        }
    }
}

/// JSONPath queries (RFC 9535, checked at load) into an http target's JSON
/// answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResponseMap {
    /// The reply text.
    pub text: String,
    /// A list of `{name, arguments, result?, error?}`.
    pub tool_calls: Option<String>,
    /// A list of `{kind, details}`.
    pub side_effects: Option<String>,
    /// The conversation id, passed back to later turns.
    pub conversation_id: Option<String>,
}

/// An OpenAI-compatible chat model: the judge, the interpreter or the
/// simulated user.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSpec {
    /// The base URL, up to and including `/v1`.
    pub base_url: String,
    /// The model name.
    pub model: String,
    /// The NAME of the environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Parameters passed through (for the judge, never a non-zero
    /// `temperature`: it grades at 0, SPEC §3.4).
    pub params: Map<String, Value>,
    /// Timeout, concurrency, rate and retries.
    pub limits: Limits,
    /// Times a malformed answer is asked again before giving up (default 2;
    /// SPEC §3.4).
    pub malformed_retries: u32,
}

/// One test, defaults applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestSpec {
    /// Unique within the suite, `[A-Za-z0-9._-]+`.
    pub id: String,
    /// The name of its target (a key of [`Suite::targets`]).
    pub target: String,
    /// The scripted user turns, rendered with `vars`; a `prompt` is one
    /// turn. Empty for an authored test the simulated user drives.
    pub turns: Vec<String>,
    /// The test's variables, as written.
    pub vars: Map<String, Value>,
    /// Its contract (its own, else `defaults.contract` unless it is an
    /// authored test); `None` only for an authored test, whose contract is
    /// interpreted (SPEC §3.6). Shared: every test that names the same
    /// contract (`defaults.contract`, one file) holds the same one. A
    /// snapshot records its digest; the contract itself is recorded once,
    /// under the snapshot's `contracts`.
    #[serde(serialize_with = "contract_digest")]
    pub contract: Option<Arc<ResolvedContract>>,
    /// How many times it runs, ≥ 1.
    pub trials: u32,
    /// The authored fields (SPEC §3.6), when any is given (boxed: most
    /// tests have none, and a suite holds one `TestSpec` per test).
    pub authored: Option<Box<AuthoredTest>>,
}

/// A test's contract in a snapshot: its digest.
fn contract_digest<S: serde::Serializer>(
    c: &Option<Arc<ResolvedContract>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match c {
        Some(c) => s.serialize_str(&c.digest),
        None => s.serialize_none(),
    }
}

/// The free-text fields a person writes (SPEC §2), and the conversation's
/// bounds (SPEC §3.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuthoredTest {
    /// Empty when absent.
    pub goal: String,
    /// Empty when absent.
    pub instructions: String,
    /// Empty when absent.
    pub restrictions: String,
    /// Empty when absent.
    pub scenario: String,
    /// From this turn on the conversation may stop early (default 1).
    pub min_turns: u32,
    /// The most turns it runs, ≥ `min_turns` (default 8).
    pub max_turns: u32,
}

/// A contract a test is scored against, checked and linted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedContract {
    /// The validated model.
    pub contract: Contract,
    /// `sha256:<hex>` of its canonical JSON (as [`crate::LoadedContract::digest`]).
    pub digest: String,
    /// Where it was written (not part of the snapshot: the content is).
    #[serde(skip)]
    pub source: ContractSource,
    /// Every file it was read from ([`crate::LoadedContract::files`]): its
    /// file, and the `schema_file`s it names.
    #[serde(skip)]
    pub files: Vec<PathBuf>,
}

/// Where a contract was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContractSource {
    /// A contract file, its path resolved against the suite file's folder.
    File(PathBuf),
    /// Inside the suite file.
    Inline,
}

/// A suite file that passed every check.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSuite {
    /// The model.
    pub suite: Suite,
    /// `sha256:<hex>` of [`LoadedSuite::snapshot`]'s canonical JSON. The
    /// same suite gives the same digest whatever its layout or key order;
    /// any meaningful change (a parameter, a variable, a tool definition, a
    /// contract clause) changes it. Holds environment variable NAMES only,
    /// never their values.
    pub digest: String,
    /// The canonical JSON (RFC 8785 key order) of the whole resolved suite:
    /// targets, models, policy, and each test with its rendered turns and
    /// its contract by digest (each contract once, under `contracts`). Paths are relative to
    /// the suite file's folder; the suite's own path is left out. Held as
    /// its text (the only copy: a JSON tree of every test would be many
    /// times larger).
    pub snapshot: String,
    /// Warnings of the suite file and of the contract files it names, in
    /// file order. None is an error.
    pub warnings: Vec<Diagnostic>,
}

impl LoadedSuite {
    /// Each distinct contract the suite's tests are graded against (by
    /// digest, in the order first named), with the observability levels
    /// of the targets whose tests use it (sorted, each once). Authored
    /// tests have none until interpreted and are not listed.
    pub fn contracts(&self) -> Vec<(&ResolvedContract, Vec<ObservabilityLevel>)> {
        let mut out: Vec<(&ResolvedContract, Vec<ObservabilityLevel>)> = Vec::new();
        for t in &self.suite.tests {
            let Some(c) = &t.contract else { continue };
            let level = self.suite.targets.get(&t.target).map(|t| t.observability);
            let at = match out.iter().position(|(seen, _)| seen.digest == c.digest) {
                Some(i) => i,
                None => {
                    out.push((c, Vec::new()));
                    out.len() - 1
                }
            };
            if let Some(level) = level {
                let levels = &mut out[at].1;
                if !levels.contains(&level) {
                    levels.push(level);
                    levels.sort();
                }
            }
        }
        out
    }

    /// Every file the suite reads or names, in a stable order: the suite
    /// file, the files of its contracts (contract files and the
    /// `schema_file`s they or inline contracts name), and each argument of
    /// an `exec` target's command that names an existing file (resolved
    /// against the target's folder; e.g. the agent script), and each word
    /// of an argument that does (`sh -c "sleep 1; exec python3 agent.py"`
    /// names `agent.py`; words split at white space, shell punctuation and
    /// `=`). A report must never be written over one of them.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut out = vec![self.suite.path.clone()];
        for t in &self.suite.tests {
            if let Some(c) = &t.contract {
                out.extend(c.files.iter().cloned());
            }
        }
        for t in self.suite.targets.values() {
            if let TargetKind::Exec { command, cwd, .. } = &t.kind {
                for arg in command {
                    let words =
                        arg.split(|c: char| c.is_whitespace() || ";&|()<>'\"`$=".contains(c));
                    for word in std::iter::once(arg.as_str()).chain(words) {
                        if word.is_empty() {
                            continue;
                        }
                        let p = cwd.join(word);
                        if p.is_file() {
                            out.push(p);
                        }
                    }
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        out.retain(|p| seen.insert(p.clone()));
        out
    }
}
