//! The one error type of the pipelines.

use pactum_report::ReportError;
use pactum_runner::RunError;
use pactum_store::StoreError;

/// Why a pipeline could not start or go on. Front ends map each variant
/// to their own outcome (the CLI to one exit code, see its `exit`
/// module); the message is for a person and names the file, line and
/// field where there is one.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// Invalid input (a flag, a file, a path): nothing was graded.
    #[error("{0}")]
    Invalid(String),
    /// Invalid input already described to the sink (its diagnostics were
    /// sent): nothing was graded, and there is nothing more to say.
    #[error("invalid input (see the diagnostics)")]
    Rejected,
    /// A report could not be set up (a refused or uncreatable path).
    #[error(transparent)]
    Report(#[from] ReportError),
    /// The store failed, or named something that is not there.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A live run could not start or go on.
    #[error(transparent)]
    Run(#[from] RunError),
    /// pactum failed internally (the runtime could not start, …).
    #[error("{0}")]
    Internal(String),
}
