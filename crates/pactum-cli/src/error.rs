//! How a command that cannot finish ends: [`CliError`], the one error
//! type of the CLI's commands.

use pactum_pipeline::PipelineError;

use crate::exit::{self, Exit};
use crate::output::{eprint, with_causes};

/// A command that stopped: the exit code ([`crate::exit`]) and the line
/// that says why (`None` when it was already said, as diagnostics are).
#[derive(Debug)]
pub struct CliError {
    /// The exit code.
    pub exit: Exit,
    /// The message, printed once as `error: …`.
    pub message: Option<String>,
}

/// What every command returns: how it ended, or why it stopped.
pub type CliResult = Result<Exit, CliError>;

impl CliError {
    /// A usage error (bad flag, bad input): nothing was graded.
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            exit: Exit::Usage,
            message: Some(message.into()),
        }
    }

    /// An error of code `exit` whose explanation was already printed.
    pub fn said(exit: Exit) -> CliError {
        CliError {
            exit,
            message: None,
        }
    }

    /// Prints the message (if any) and returns the exit code.
    pub fn report(self) -> Exit {
        if let Some(m) = &self.message {
            eprint(&format!("error: {m}"));
        }
        self.exit
    }
}

impl From<PipelineError> for CliError {
    fn from(e: PipelineError) -> CliError {
        CliError {
            exit: exit::for_pipeline_error(&e),
            message: match e {
                PipelineError::Rejected => None,
                e => Some(with_causes(&e)),
            },
        }
    }
}

impl From<pactum_store::StoreError> for CliError {
    fn from(e: pactum_store::StoreError) -> CliError {
        CliError {
            exit: exit::for_store_error(&e),
            message: Some(with_causes(&e)),
        }
    }
}

impl From<pactum_runner::RunError> for CliError {
    fn from(e: pactum_runner::RunError) -> CliError {
        CliError {
            exit: exit::for_run_error(&e),
            message: Some(with_causes(&e)),
        }
    }
}

impl From<pactum_report::ReportError> for CliError {
    fn from(e: pactum_report::ReportError) -> CliError {
        // The paths it names may be a run's folder names, which can hold
        // a line break: one line, so none starts a line of its own.
        CliError::usage(pactum_core::text::one_line(&with_causes(&e), 4_000))
    }
}
