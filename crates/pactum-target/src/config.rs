//! The target configuration this crate is built from. It mirrors the
//! suite file's target model (`pactum-suite`'s `TargetSpec`) field for
//! field, so converting one into the other is a plain move of fields.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pactum_core::trace::ObservabilityLevel;
use serde_json::{Map, Value};

/// One target as declared in a suite (issue #3 §2).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetConfig {
    /// The target's name in the suite; shown in every error.
    pub name: String,
    /// Which channels this target reports (SPEC §2, §3.2). Declared, never
    /// inferred.
    pub observability: ObservabilityLevel,
    /// Timeout, concurrency, rate and retries.
    pub limits: Limits,
    /// What kind of target it is, with its settings.
    pub kind: TargetKind,
}

/// How hard pactum may use a target (issue #3 §2).
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Timeout of one request (openai, http: connection to last byte) or of
    /// one turn (exec: request written to answer read), in milliseconds.
    /// Must be above 0.
    pub timeout_ms: u64,
    /// openai, http: requests in flight at once; exec: conversations (child
    /// processes) alive at once. At least 1.
    pub concurrency: usize,
    /// Requests (exec: turns) started per second, retries included, spaced
    /// evenly; `None` for no limit. Finite and above 0 when set.
    pub requests_per_second: Option<f64>,
    /// Retries of transient failures (network targets only).
    pub retries: Retries,
}

/// Retries of transient failures: connection errors, timeouts, dropped
/// connections, HTTP 408, 409, 429, 500, 502, 503, 504 (issue #3 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retries {
    /// Retries after the first attempt; `0` sends each request once.
    pub max: u32,
    /// Delay before the first retry, in milliseconds, doubled for each
    /// further retry, with jitter in `[d/2, d]`.
    pub base_backoff_ms: u64,
    /// Upper bound of any delay (a `Retry-After` header included), in
    /// milliseconds.
    pub max_backoff_ms: u64,
}

/// The three kinds of live target (SPEC §2).
#[derive(Debug, Clone, PartialEq)]
pub enum TargetKind {
    /// An OpenAI-compatible chat-completions endpoint (OpenAI, Ollama,
    /// vLLM, llama.cpp server…).
    Openai {
        /// The API root, e.g. `http://127.0.0.1:11434/v1`.
        base_url: String,
        /// The model name.
        model: String,
        /// The environment variable holding the API key, if any.
        api_key_env: Option<String>,
        /// Body parameters passed through (`temperature`, `seed`…); the
        /// keys the client sets itself (`model`, `messages`, `tools`,
        /// `response_format`, `stream`, `stream_options`) are ignored.
        params: Map<String, Value>,
        /// Tool definitions, passed through as given. pactum records the
        /// tool calls in the answer; it never executes a tool.
        tools: Vec<Value>,
        /// A system prompt sent before the conversation's messages.
        system: Option<String>,
    },
    /// Any JSON HTTP endpoint, spoken to through a request template and a
    /// response mapping.
    Http {
        /// The HTTP method (`POST`, `PUT`, `GET`…).
        method: String,
        /// The URL template (minijinja).
        url: String,
        /// Header name → value template; a value may read `env.NAME`.
        headers: BTreeMap<String, String>,
        /// The JSON body template: every string in it is a template, and a
        /// string that is exactly `{{ expr }}` keeps the JSON type of
        /// `expr`. `None` sends no body.
        body: Option<Value>,
        /// Where the answer's parts are in the response body.
        response: ResponseMap,
    },
    /// A local command speaking `pactum-exec/1` (newline-delimited JSON)
    /// on stdin and stdout, one process per conversation.
    Exec {
        /// The program and its arguments (no shell). At least one element.
        command: Vec<String>,
        /// The working directory of the process; must exist.
        cwd: PathBuf,
        /// Variables added to the environment the process inherits from
        /// pactum, as written (not templates).
        env: BTreeMap<String, String>,
    },
}

/// JSONPath expressions (RFC 9535) locating the answer's parts in an HTTP
/// target's response body. The first match counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseMap {
    /// The response text. Required: matching nothing is a protocol error.
    pub text: String,
    /// An array of `{name, arguments?, result?, error?, id?}`.
    pub tool_calls: Option<String>,
    /// An array of `{kind, details?}`.
    pub side_effects: Option<String>,
    /// The target's own conversation id, passed back on the next turn as
    /// `conversation_id`.
    pub conversation_id: Option<String>,
}
