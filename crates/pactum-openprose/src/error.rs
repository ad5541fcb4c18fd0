//! The importer's typed errors. Each names the file (and the line or the
//! manifest field) so a user can fix the run directory; the CLI maps every
//! one to the invalid-input exit code.

/// Why a run directory cannot be graded.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The directory holds no `root.prose.md`.
    #[error("missing-root: {dir}: no root.prose.md (is this an OpenProse run directory?)")]
    MissingRoot {
        /// The run directory.
        dir: String,
    },
    /// The root declares several services but there is no
    /// `forme.manifest.json` to say how they are wired and where their
    /// outputs are.
    #[error("missing-manifest: {dir}: the root contract is a system ({why}) but the run has no forme.manifest.json, so the contracts to grade cannot be determined")]
    MissingManifest {
        /// The run directory.
        dir: String,
        /// What makes the root a system.
        why: String,
    },
    /// The run bound no output at all.
    #[error("no-outputs: {dir}: the run has no bindings at all (no file under bindings/ besides the caller's inputs): nothing to grade")]
    NoOutputs {
        /// The run directory.
        dir: String,
    },
    /// The run was written by a layout this version does not read.
    #[error("unsupported-layout: {dir}: {found} belongs to the current OpenProse layout (compiled-intent.json, world-model/, receipts/), which pactum does not read yet; grade a run written in the legacy layout (forme.manifest.json and bindings/)")]
    UnsupportedLayout {
        /// The run directory.
        dir: String,
        /// The marker that was found.
        found: String,
    },
    /// `forme.manifest.json` is malformed or contradicts the directory.
    #[error("{file}: field `{field}`: {message}")]
    Manifest {
        /// The manifest's path.
        file: String,
        /// The field, as a path (`graph[1].outputs[0].bindingPath`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A contract file (`*.prose.md`) cannot be read as a contract.
    #[error("{}: {message}", located(.file, *.line))]
    Contract {
        /// The file.
        file: String,
        /// 1-based line, 0 when it is about the whole file.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A file of the run is malformed (a caller binding without its
    /// header, a log line that cannot be read, two bindings for one
    /// output).
    #[error("{}: {message}", located(.file, *.line))]
    RunFile {
        /// The file.
        file: String,
        /// 1-based line, 0 when it is about the whole file.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A file or folder could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// `file:line`, or `file` alone when the error is about the whole file
/// (line 0).
fn located(file: &str, line: usize) -> String {
    if line == 0 {
        file.to_string()
    } else {
        format!("{file}:{line}")
    }
}

impl ImportError {
    /// The error's code as the grader names it: `missing-root`,
    /// `missing-manifest`, `no-outputs`, `unsupported-layout`,
    /// `invalid-manifest`, `invalid-contract`, `invalid-run`, `io`.
    pub fn code(&self) -> &'static str {
        match self {
            ImportError::MissingRoot { .. } => "missing-root",
            ImportError::MissingManifest { .. } => "missing-manifest",
            ImportError::NoOutputs { .. } => "no-outputs",
            ImportError::UnsupportedLayout { .. } => "unsupported-layout",
            ImportError::Manifest { .. } => "invalid-manifest",
            ImportError::Contract { .. } => "invalid-contract",
            ImportError::RunFile { .. } => "invalid-run",
            ImportError::Io { .. } => "io",
        }
    }
}
