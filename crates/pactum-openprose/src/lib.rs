//! # pactum-openprose
//!
//! Grading completed OpenProse runs: did every contract keep its
//! commitments? (`docs/openprose.md`)
//!
//! | module | owns |
//! |---|---|
//! | [`run`] | the run-directory importer: layouts, manifests, bindings, errors |
//! | [`contract`] | the contract sections of a `*.prose.md` file: clauses, conditionals, declared errors |
//! | [`check`] | which clause phrasings are measured deterministically, and the measurements |
//! | `plain` | the Markdown forms read whole: a green over any other is the judge's |
//! | `json_view` | whether an output is one strict JSON value, looks like JSON pactum does not decode, or is text; the decoded text a measure reads |
//! | `rendered` | what a Markdown output renders as (CommonMark with GFM tables): the units counted |
//! | [`grade`] | clause verdicts, the judge's part, and the grader's scores and report shape |
//! | [`keys`] | keys a reader sees once the Markdown renders, and the source each renders from |
//!
//! Verdicts, scores and statuses are pactum-core's (SPEC §3.3–§3.5); a
//! judged clause goes through pactum-eval's grading, so it passes the same
//! confidence threshold and quote verification as every judged clause.

mod blocks;
pub mod check;
pub mod contract;
mod error;
pub mod grade;
mod json_view;
pub mod keys;
mod plain;
mod rendered;
pub mod run;

pub use error::ImportError;
pub use grade::{grade_run, RunGrade};
pub use run::{import_run, is_run_dir, Run};
