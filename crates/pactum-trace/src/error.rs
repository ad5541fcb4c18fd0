//! Errors: [`ImportError`] when a whole file cannot be read, [`RecordError`]
//! when one record cannot (reading goes on with the next).

use std::fmt;
use std::path::PathBuf;

use pactum_core::text::one_line;

/// The longest piece of file content an error message repeats, in characters.
const QUOTE_CHARS: usize = 160;

/// How to declare a level, for the errors that lack one.
pub(crate) const NO_LEVEL_HINT: &str =
    "add an `observability` member (response_only, tool_calls or full) to each record, or pass --observability";

/// A file-level failure: nothing is graded from that file (apart from what
/// was already handed to the sink before an I/O error mid-way).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file could not be opened.
    #[error("cannot open `{path}`: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Reading the file failed part-way.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `TraceFormat::Auto` could not tell the file's format.
    #[error("cannot tell the trace format of `{path}`: {reason}; pass --format (pactum, openai, tabular, otlp, jaeger, langfuse-otel, openai-agents, inspect, anthropic, gemini, langchain, langfuse or langsmith)")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// What was looked at.
        reason: String,
    },
    /// Tabular import without a column mapping.
    #[error("tabular records in `{path}` need a column mapping: pass --prompt-column and --response-column")]
    MissingColumns {
        /// The file.
        path: PathBuf,
    },
    /// A mapped CSV column is not in the header.
    #[error("`{path}`: column `{column}` (from {option}) is not in the header; the columns are: {header}")]
    UnknownColumn {
        /// The file.
        path: PathBuf,
        /// The mapped column name.
        column: String,
        /// The flag it came from, e.g. `--prompt-column`.
        option: &'static str,
        /// The header's columns, comma-separated.
        header: String,
    },
    /// The CSV header could not be read.
    #[error("`{path}`: cannot read the csv header: {message}")]
    CsvHeader {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// No observability level: the record does not say and no flag does
    /// (SPEC §2: declared, never inferred).
    #[error("{path}:{line}: no observability level: {hint}", hint = NO_LEVEL_HINT)]
    NoObservability {
        /// The file.
        path: PathBuf,
        /// 1-based line of the first record without one.
        line: u64,
    },
    /// Tabular records never say their level, so the flag is required.
    #[error("`{path}`: tabular records carry no observability level: pass --observability (response_only, tool_calls or full)")]
    TabularNeedsObservability {
        /// The file.
        path: PathBuf,
    },
    /// An option that should hold a JSON pointer does not.
    #[error("{option} `{pointer}` is not a JSON pointer: {reason}")]
    BadPointer {
        /// The flag, e.g. `--records-field`.
        option: &'static str,
        /// The value given.
        pointer: String,
        /// What is wrong with it.
        reason: pactum_core::json::PointerError,
    },
    /// The records pointer leads nowhere, or not to an array.
    #[error(
        "{path}:{line}: --records-field `{pointer}`: found {found}, expected an array of records"
    )]
    RecordsNotFound {
        /// The file.
        path: PathBuf,
        /// 1-based line where the search ended.
        line: u64,
        /// The pointer.
        pointer: String,
        /// What was there instead.
        found: &'static str,
    },
    /// An option that does not apply to this file.
    #[error("`{path}`: {option} cannot be used here: {reason}")]
    UnsupportedOption {
        /// The file.
        path: PathBuf,
        /// The flag.
        option: &'static str,
        /// Why not.
        reason: &'static str,
    },
    /// The document is not JSON before its records start.
    #[error("{path}:{line}: invalid JSON: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A YAML recording (a VCR cassette, a Claude Agent SDK stream) that
    /// cannot be read as YAML.
    #[error("{path}:{line}: invalid YAML: {message}")]
    Yaml {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
}

impl ImportError {
    /// The 1-based line the error is at, when it names one.
    pub fn line(&self) -> Option<u64> {
        match self {
            ImportError::NoObservability { line, .. }
            | ImportError::RecordsNotFound { line, .. }
            | ImportError::Syntax { line, .. }
            | ImportError::Yaml { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The record member the error is about (a JSON pointer), when one is.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            ImportError::NoObservability { .. } => Some("/observability"),
            _ => None,
        }
    }
}

/// A record that could not be imported. Reading goes on with the next one.
///
/// Displays as `FILE:LINE: field `F`: MESSAGE`, or `FILE:LINE: MESSAGE`
/// when no single field is at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// The file path as given.
    pub file: String,
    /// 1-based line: the record's line in JSONL and CSV (its starting line
    /// for multi-line CSV records), the offending line inside a JSON document.
    pub line: u64,
    /// The field at fault: a JSON pointer into the record (`/turns/0/response`)
    /// or a CSV column name.
    pub field: Option<String>,
    /// What is wrong, as a lowercase fragment. File content quoted in it is
    /// bounded and stripped of terminal escapes.
    pub message: String,
}

impl RecordError {
    pub(crate) fn new(
        file: &str,
        line: u64,
        field: Option<String>,
        message: impl AsRef<str>,
    ) -> Self {
        RecordError {
            file: file.to_string(),
            line,
            field: field.map(|f| one_line(&f, QUOTE_CHARS)),
            message: one_line(message.as_ref(), QUOTE_CHARS * 2),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.file, self.line)?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for RecordError {}

/// A serde_json error message without its " at line L column C" suffix
/// (the caller reports the position in the file's terms).
pub(crate) fn serde_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    s.strip_suffix(&suffix).map(str::to_string).unwrap_or(s)
}

/// Bounds and cleans file content for an error message or a reason.
pub(crate) fn quote(s: &str) -> String {
    one_line(s, QUOTE_CHARS)
}
