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
//! | `checks` | semantic checks a schema cannot express (regexes, pointers, ranges, versions) |
//! | `contract` | [`load_contract`], [`parse_contract`] |
//! | `expectations` | [`load_expectations`], [`parse_expectations`] |
//! | [`diagnostic`] | [`Diagnostic`] and its rendering |
//!
//! The file formats are described by the committed JSON Schemas
//! `schemas/contract.schema.json` and `schemas/expectations.schema.json`
//! ([`contract_schema`], [`expectations_schema`]) and documented in
//! `docs/contracts.md`.

use std::sync::LazyLock;

use jsonschema::Validator;
use serde_json::Value;

mod checks;
mod contract;
pub mod diagnostic;
pub mod document;
mod expectations;
mod json;
pub mod schema;
mod yaml;

pub use contract::{load_contract, parse_contract, LoadedContract};
pub use diagnostic::{Diagnostic, DiagnosticLevel};
pub use document::{check_pointer, escape_token, read_text, Document, Location, Part, Pos};
pub use expectations::{load_expectations, parse_expectations};
pub use schema::validate;

static CONTRACT_SCHEMA: LazyLock<Value> =
    LazyLock::new(|| committed(include_str!("../../../schemas/contract.schema.json")));
static EXPECTATIONS_SCHEMA: LazyLock<Value> =
    LazyLock::new(|| committed(include_str!("../../../schemas/expectations.schema.json")));
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

pub(crate) fn validate_expectations_schema(doc: &Document) -> Vec<Diagnostic> {
    validate_cached(doc, &EXPECTATIONS_SCHEMA, &EXPECTATIONS_VALIDATOR)
}
