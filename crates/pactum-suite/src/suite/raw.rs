//! The serde shape of a suite file, read only after the JSON Schema
//! accepted it (so serde's own errors, which have no location, are not what
//! a user sees). One struct per mapping, unknown keys denied; a target is
//! one struct with the keys of every kind (the schema has checked which
//! belong to which), because `flatten` and `deny_unknown_fields` do not mix.

use std::collections::BTreeMap;

use pactum_core::policy::Policy;
use pactum_core::trace::ObservabilityLevel;
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSuite {
    pub(crate) version: u32,
    pub(crate) targets: BTreeMap<String, RawTarget>,
    pub(crate) judge: Option<RawModel>,
    pub(crate) interpreter: Option<RawModel>,
    pub(crate) simulated_user: Option<RawModel>,
    #[serde(default)]
    pub(crate) policy: Policy,
    #[serde(default)]
    pub(crate) defaults: RawDefaults,
    /// A known key; the loader takes the tests out and reads them one at a
    /// time as [`RawTest`]s.
    #[allow(dead_code)]
    pub(crate) tests: Vec<serde::de::IgnoredAny>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RawKind {
    Openai,
    Http,
    Exec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRetries {
    pub(crate) max: Option<u32>,
    pub(crate) base_backoff_ms: Option<u64>,
    pub(crate) max_backoff_ms: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTarget {
    pub(crate) kind: RawKind,
    pub(crate) observability: ObservabilityLevel,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) concurrency: Option<usize>,
    pub(crate) requests_per_second: Option<f64>,
    pub(crate) retries: Option<RawRetries>,
    // openai
    pub(crate) base_url: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) api_key_env: Option<String>,
    pub(crate) params: Option<Map<String, Value>>,
    pub(crate) tools: Option<Vec<Value>>,
    pub(crate) system: Option<String>,
    // http
    pub(crate) request: Option<RawRequest>,
    pub(crate) response: Option<RawResponse>,
    // exec
    pub(crate) command: Option<Vec<String>>,
    pub(crate) cwd: Option<String>,
    pub(crate) env: Option<BTreeMap<String, String>>,
    pub(crate) mode: Option<crate::ExecMode>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRequest {
    pub(crate) method: Option<String>,
    pub(crate) url: String,
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) body: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawResponse {
    pub(crate) text: String,
    pub(crate) tool_calls: Option<String>,
    pub(crate) side_effects: Option<String>,
    pub(crate) conversation_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawModel {
    pub(crate) base_url: String,
    pub(crate) model: String,
    pub(crate) api_key_env: Option<String>,
    #[serde(default)]
    pub(crate) params: Map<String, Value>,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) concurrency: Option<usize>,
    pub(crate) requests_per_second: Option<f64>,
    pub(crate) retries: Option<RawRetries>,
    pub(crate) malformed_retries: Option<u32>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDefaults {
    pub(crate) target: Option<String>,
    pub(crate) trials: Option<u32>,
    /// A known key; contracts are loaded by where they are written.
    #[allow(dead_code)]
    pub(crate) contract: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTest {
    pub(crate) id: String,
    pub(crate) target: Option<String>,
    pub(crate) prompt: Option<String>,
    pub(crate) turns: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) vars: Map<String, Value>,
    pub(crate) contract: Option<Value>,
    pub(crate) trials: Option<u32>,
    pub(crate) goal: Option<String>,
    pub(crate) instructions: Option<String>,
    pub(crate) restrictions: Option<String>,
    pub(crate) scenario: Option<String>,
    pub(crate) min_turns: Option<u32>,
    pub(crate) max_turns: Option<u32>,
}
