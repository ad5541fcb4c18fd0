//! # pactum-suite
//!
//! Reading pactum's input files — contracts and expectations now, suite
//! files next — into the validated models of `pactum-core`, with every
//! problem of a file reported at once, each at its file, line and column
//! with a hint (rendered rustc-style by [`Diagnostic::render`]).
//!
//! | module | owns |
//! |---|---|
//! | `yaml` | the YAML reader (the only user of `yaml-rust2`): YAML 1.2 core schema, keys and values located |
//! | `json` | the JSON reader: syntax by serde_json, locations by a small scanner |
//! | [`document`] | [`Document`]: JSON value + JSON pointer → line and column |
//! | [`schema`] | [`validate`]: JSON Schema errors → located, human diagnostics |
//! | `checked` | [`load_contract_or_suite`]: what `pactum check` reads, a suite recognised by its shape |
//! | `checks` | semantic checks a schema cannot express (regexes, pointers, ranges, versions) |
//! | `contract` | [`load_contract`], [`parse_contract`], [`contract_files`] (a `-c` folder → its contract files) |
//! | `expectations` | [`load_expectations`], [`parse_expectations`] |
//! | `suite` | [`load_suite`], [`parse_suite`], [`env_vars_needed`]; the template engine ([`render_template`], [`render_value`]) |
//! | [`diagnostic`] | [`Diagnostic`] and its rendering |
//!
//! The file formats are described by the committed JSON Schemas
//! `schemas/contract.schema.json` and `schemas/expectations.schema.json`
//! ([`contract_schema`], [`expectations_schema`]) and documented in
//! `docs/contracts.md`; suite files by `schemas/suite.schema.json`
//! ([`suite_schema`]), documented in `docs/suites.md`.

use std::sync::LazyLock;

use jsonschema::{Registry, Validator};
use serde_json::Value;

mod checked;
mod checks;
mod contract;
pub mod diagnostic;
pub mod document;
mod expectations;
mod json;
pub mod policy;
mod positions;
pub mod schema;
mod suite;
pub mod write;
mod yaml;

pub use checked::{is_suite_shape, load_contract_or_suite, CheckedFile};
pub use contract::{
    contract_files, load_contract, parse_contract, ContractPathError, LoadedContract,
};
pub use diagnostic::{Diagnostic, DiagnosticLevel};
pub use document::{check_pointer, read_text, Document, Location, Part, Pos};
pub use expectations::{load_expectations, parse_expectations};
pub use policy::{load_policy, parse_policy, policy_schema, LoadedPolicy};
pub use schema::validate;
pub use suite::{
    env_vars_needed, http_context, literal_secrets, load_suite, misread_env_pass, parse_suite,
    passed_env_var, reads, render_template, render_template_with, render_value, render_value_with,
    url_credentials, AuthoredTest, ContractSource, ExecMode, Limits, LoadedSuite, ModelSpec, Reads,
    RenderError, ResolvedContract, ResponseMap, Retries, Suite, TargetKind, TargetSpec,
    TemplateContext, TestSpec, TurnContext, ENV_ROOT, RUNTIME_NAMES, SUITE_VERSION,
};
pub use write::{to_yaml, WriteError};

static CONTRACT_SCHEMA: LazyLock<Value> =
    LazyLock::new(|| committed(include_str!("../../../schemas/contract.schema.json")));
static EXPECTATIONS_SCHEMA: LazyLock<Value> =
    LazyLock::new(|| committed(include_str!("../../../schemas/expectations.schema.json")));
static SUITE_SCHEMA: LazyLock<Value> =
    LazyLock::new(|| committed(include_str!("../../../schemas/suite.schema.json")));
/// The suite schema's `$ref: contract.schema.json` (a path relative to the
/// suite schema, so editors resolve it beside it) resolved here, offline.
static SUITE_REGISTRY: LazyLock<Option<Registry<'static>>> = LazyLock::new(|| {
    Registry::new()
        .add(CONTRACT_SCHEMA_URI, CONTRACT_SCHEMA.clone())
        .ok()?
        .prepare()
        .ok()
});
static SUITE_VALIDATOR: LazyLock<Option<Validator>> = LazyLock::new(|| {
    let registry = SUITE_REGISTRY.as_ref()?;
    jsonschema::options()
        .with_registry(registry)
        .build(&SUITE_SCHEMA)
        .ok()
});
/// One item of a suite's `tests`, against the suite schema's `test`
/// definition (its `$defs` and references as in the whole schema).
static SUITE_TEST_VALIDATOR: LazyLock<Option<Validator>> = LazyLock::new(|| {
    let registry = SUITE_REGISTRY.as_ref()?;
    let mut schema = serde_json::Map::new();
    for key in ["$schema", "$defs"] {
        schema.insert(key.to_string(), SUITE_SCHEMA.get(key)?.clone());
    }
    schema.insert("$ref".to_string(), Value::from("#/$defs/test"));
    jsonschema::options()
        .with_registry(registry)
        .build(&Value::Object(schema))
        .ok()
});
/// Where the suite schema's relative `$ref` to the contract schema lands
/// (the validator's default base URI is `json-schema:///`).
const CONTRACT_SCHEMA_URI: &str = "json-schema:///contract.schema.json";
static CONTRACT_VALIDATOR: LazyLock<Option<Validator>> =
    LazyLock::new(|| jsonschema::validator_for(&CONTRACT_SCHEMA).ok());
static EXPECTATIONS_VALIDATOR: LazyLock<Option<Validator>> =
    LazyLock::new(|| jsonschema::validator_for(&EXPECTATIONS_SCHEMA).ok());

/// A committed schema file; the tests prove it parses and compiles, so the
/// `null` fallback (which makes validation report `invalid-schema`) is
/// unreachable in a tested build.
fn committed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// The JSON Schema (draft 2020-12) of contract files:
/// `schemas/contract.schema.json`, compiled into the binary.
pub fn contract_schema() -> &'static Value {
    &CONTRACT_SCHEMA
}

/// The JSON Schema (draft 2020-12) of expectations files:
/// `schemas/expectations.schema.json`, compiled into the binary.
pub fn expectations_schema() -> &'static Value {
    &EXPECTATIONS_SCHEMA
}

/// The JSON Schema (draft 2020-12) of suite files:
/// `schemas/suite.schema.json`, compiled into the binary. Inline contracts
/// refer to `contract.schema.json` beside it (see [`contract_schema`]), so
/// [`validate`] cannot compile it alone: use [`suite_validator`], which
/// resolves that reference offline (and [`load_suite`], which reports
/// inline contracts' problems through the contract loader).
pub fn suite_schema() -> &'static Value {
    &SUITE_SCHEMA
}

/// The compiled suite schema, with its reference to the contract schema
/// resolved; `None` only if the committed schemas did not compile (the
/// tests prove they do).
pub fn suite_validator() -> Option<&'static Validator> {
    SUITE_VALIDATOR.as_ref()
}

fn validate_cached(
    doc: &Document,
    schema: &Value,
    validator: &Option<Validator>,
) -> Vec<Diagnostic> {
    match validator {
        Some(v) => schema::validate_with(doc, v, schema),
        None => validate(doc, schema),
    }
}

pub(crate) fn validate_contract_schema(doc: &Document) -> Vec<Diagnostic> {
    validate_cached(doc, &CONTRACT_SCHEMA, &CONTRACT_VALIDATOR)
}

pub(crate) fn validate_suite_schema(doc: &Document) -> Vec<Diagnostic> {
    match SUITE_VALIDATOR.as_ref() {
        Some(v) => schema::validate_with(doc, v, &SUITE_SCHEMA),
        None => vec![Diagnostic::error(
            "invalid-schema",
            &doc.path,
            0,
            0,
            "the suite schema built into pactum does not compile",
        )],
    }
}

/// Whether `test` is a valid item of a suite's `tests` (`false` when the
/// schema does not compile, so that the caller reads the file whole).
pub(crate) fn is_valid_suite_test(test: &Value) -> bool {
    SUITE_TEST_VALIDATOR
        .as_ref()
        .is_some_and(|v| v.is_valid(test))
}

pub(crate) fn validate_expectations_schema(doc: &Document) -> Vec<Diagnostic> {
    validate_cached(doc, &EXPECTATIONS_SCHEMA, &EXPECTATIONS_VALIDATOR)
}
