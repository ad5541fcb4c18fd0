//! Scoring policy files (SPEC §3.4, §3.5, §3.8): YAML or JSON → the
//! [`Policy`] every status and strength verdict is decided under, plus the
//! run-wide class floors `pactum aggregate` holds a run to. The format is
//! `schemas/policy.schema.json`, documented in `docs/strength.md`.
//!
//! ```yaml
//! version: 1
//! severity_floor: high        # default medium
//! confidence_threshold: 60    # default 50
//! catch_threshold: 0.5        # default 0.5 (strict: 2 of 3 catches)
//! minimum_trials: 3           # default 3
//! floors: { defect: 0.75, gameability: 0.5, zero_action: 0.5 }
//! ```

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use jsonschema::Validator;
use pactum_core::policy::Policy;
use pactum_core::strength::ClassFloors;
use pactum_core::Severity;
use serde_json::Value;

use crate::checks::{in_file_order, Checks};
use crate::diagnostic::Diagnostic;
use crate::document::Document;

/// The policy file format version this build reads.
pub const POLICY_FILE_VERSION: u32 = 1;

static POLICY_SCHEMA: LazyLock<Value> =
    LazyLock::new(|| crate::committed(include_str!("../../../schemas/policy.schema.json")));
static POLICY_VALIDATOR: LazyLock<Option<Validator>> =
    LazyLock::new(|| jsonschema::validator_for(&POLICY_SCHEMA).ok());

/// The JSON Schema (draft 2020-12) of policy files:
/// `schemas/policy.schema.json`, compiled into the binary.
pub fn policy_schema() -> &'static Value {
    &POLICY_SCHEMA
}

/// A policy file that passed every check.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedPolicy {
    /// The thresholds, defaults filled in.
    pub policy: Policy,
    /// The class floors declared under `floors` (none: no floor).
    pub floors: ClassFloors,
    /// The file it was read from, as given.
    pub path: PathBuf,
    /// [`Policy::digest`]: `sha256:` of the four thresholds (the floors
    /// are a claim about a run, not part of how it is scored).
    pub digest: String,
}

/// Reads and validates a policy file (`.json` as JSON, anything else as
/// YAML).
///
/// # Errors
/// Every diagnostic of the file, in file order (at least one error): I/O,
/// syntax, schema (unknown keys with a did-you-mean, a severity floor
/// other than low, medium, high or critical, a threshold or floor out of
/// range, `minimum_trials` below 1, a missing `version`), or an
/// unsupported `version`.
pub fn load_policy(path: &Path) -> Result<LoadedPolicy, Vec<Diagnostic>> {
    let doc = Document::read(path)?;
    from_document(doc)
}

/// Like [`load_policy`], on text already read.
///
/// # Errors
/// As [`load_policy`].
pub fn parse_policy(src: &str, path: &Path) -> Result<LoadedPolicy, Vec<Diagnostic>> {
    let doc = Document::parse(src, path)?;
    from_document(doc)
}

fn from_document(mut doc: Document) -> Result<LoadedPolicy, Vec<Diagnostic>> {
    let mut diags = std::mem::take(&mut doc.diagnostics);
    let schema_diags = crate::validate_cached(&doc, &POLICY_SCHEMA, &POLICY_VALIDATOR);
    let schema_ok = schema_diags.is_empty();
    diags.extend(schema_diags);
    Checks {
        doc: &doc,
        out: &mut diags,
    }
    .version(POLICY_FILE_VERSION, "policy");
    let diags = in_file_order(diags);
    if !schema_ok || diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    // The schema has checked every type and range, so each read succeeds.
    let v = &doc.value;
    let defaults = Policy::default();
    let policy = Policy {
        severity_floor: v
            .get("severity_floor")
            .and_then(Value::as_str)
            .and_then(Severity::parse)
            .unwrap_or(defaults.severity_floor),
        confidence_threshold: v
            .get("confidence_threshold")
            .and_then(Value::as_u64)
            .and_then(|n| u8::try_from(n).ok())
            .unwrap_or(defaults.confidence_threshold),
        catch_threshold: v
            .get("catch_threshold")
            .and_then(Value::as_f64)
            .unwrap_or(defaults.catch_threshold),
        minimum_trials: v
            .get("minimum_trials")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(defaults.minimum_trials),
    };
    let floor = |k: &str| v.pointer(&format!("/floors/{k}")).and_then(Value::as_f64);
    let floors = ClassFloors {
        defect: floor("defect"),
        gameability: floor("gameability"),
        zero_action: floor("zero_action"),
    };
    Ok(LoadedPolicy {
        digest: policy.digest(),
        policy,
        floors,
        path: doc.path,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Result<LoadedPolicy, Vec<Diagnostic>> {
        parse_policy(src, Path::new("policy.yaml"))
    }

    #[test]
    fn defaults_fill_in_and_the_digest_is_the_policys() {
        let p = parse("version: 1\n").unwrap();
        assert_eq!(p.policy, Policy::default());
        assert_eq!(p.floors, ClassFloors::default());
        assert_eq!(p.digest, Policy::default().digest());
        let p = parse(
            "version: 1\nseverity_floor: high\nconfidence_threshold: 70\ncatch_threshold: 0.75\nminimum_trials: 5\nfloors: {defect: 0.8, zero_action: 1}\n",
        )
        .unwrap();
        assert_eq!(
            p.policy,
            Policy {
                severity_floor: Severity::High,
                confidence_threshold: 70,
                catch_threshold: 0.75,
                minimum_trials: 5,
            }
        );
        assert_eq!(
            p.floors,
            ClassFloors {
                defect: Some(0.8),
                gameability: None,
                zero_action: Some(1.0),
            }
        );
        // The floors do not change how a run is scored.
        let q = parse(
            "version: 1\nseverity_floor: high\nconfidence_threshold: 70\ncatch_threshold: 0.75\nminimum_trials: 5\n",
        )
        .unwrap();
        assert_eq!(p.digest, q.digest);
    }

    #[test]
    fn every_mistake_is_located() {
        let src = "version: 2\nseverity_flor: high\ncatch_threshold: 1.5\nminimum_trials: 0\nfloors:\n  defect: -1\n  gamebility: 0.5\n";
        let diags = parse(src).unwrap_err();
        let codes: Vec<(usize, &str)> = diags.iter().map(|d| (d.line, d.code.as_str())).collect();
        assert_eq!(
            codes,
            vec![
                (1, "unsupported-version"),
                (2, "unknown-key"),
                (3, "out-of-range"),
                (4, "out-of-range"),
                (6, "out-of-range"),
                (7, "unknown-key"),
            ],
            "{diags:#?}"
        );
        assert_eq!(
            diags[1].hint.as_deref(),
            Some("did you mean `severity_floor`?")
        );
    }

    #[test]
    fn the_committed_schema_compiles() {
        assert!(jsonschema::validator_for(policy_schema()).is_ok());
    }
}
