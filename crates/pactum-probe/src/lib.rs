//! # pactum-probe
//!
//! Probes for contract strength (SPEC §3.8): planted variants of
//! clean traces, authored probe files, trials and scoring. Pure and
//! synchronous apart from reading probe files; the scoring rules
//! themselves (trial states, reduction, vector, ladder, artifacts,
//! aggregation, dominance) live in `pactum_core::strength`.
//!
//! | step | where |
//! |---|---|
//! | generate probes from a clean trace (defect, gameability, zero_action, canary, clean_control) | [`Generator`] |
//! | the edits a mutation is made of, and replaying them | [`Edit`], [`apply`] |
//! | text and values that satisfy or break a check | [`regex_witness`], [`satisfying_value`], [`corrupted_value`] |
//! | authored probes (YAML with located diagnostics) | [`load_probe_file`] |
//! | N trials per probe, classified | [`run_trials`] |
//! | the scoring inputs and the artifacts | [`scoring_inputs`], [`score`] |
//! | artifact file names | [`artifact_file_name`] |
//!
//! The `pactum strength` pipeline that uses them (clean baselines, the
//! trial scheduler, the artifact folders, `aggregate` and `compare`) is
//! `pactum_pipeline::strength`; the summaries it prints are
//! `pactum_report::strength`. `docs/strength.md` is the user's guide.

mod authored;
mod edit;
mod generate;
mod plan;
mod scoring;
mod witness;

pub use authored::{load_probe_file, parse_probe_file, probe_schema, PROBE_FILE_VERSION};
pub use edit::{apply, Edit, EditError};
pub use generate::{
    Generation, Generator, Origin, ProbeCase, SkippedProbe, CLAIM_SUCCESS_TEXT, RESTATE_PREFIX,
};
pub use plan::{COMPLIANCE_TEXT, REFUSAL_TEXT};
pub use scoring::{
    artifact_file_name, corpus_digest, evaluator_configuration_digest, fixture_digest, run_trials,
    score, scoring_inputs, trace_digest, GENERATOR_VERSION, NOT_SELECTED,
};
pub use witness::{corrupted_value, regex_witness, satisfying_value};
