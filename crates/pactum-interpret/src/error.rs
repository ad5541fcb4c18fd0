//! The crate's one error type. Every message is a lowercase fragment; the
//! model's answers quoted in it are bounded and folded to one line.

use pactum_llm::LlmError;

/// What can go wrong reading a model's answer (the interpreter's or the
/// simulated user's) or talking to its endpoint.
#[derive(Debug, thiserror::Error)]
pub enum InterpretError {
    /// The answer was empty (or only whitespace). `what` names whose
    /// answer: `the interpreter's answer`, `the simulated user's message`.
    #[error("{what} is empty")]
    Empty {
        /// Whose answer.
        what: &'static str,
    },
    /// The interpreter's answer is not exactly one JSON value (prose around
    /// it, several values, truncated output…).
    #[error(
        "the interpreter's answer is not one JSON object (line {line}, column {column}): {detail}"
    )]
    NotJson {
        /// 1-based line of the problem in the answer.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser said.
        detail: String,
    },
    /// The interpreter's answer is JSON but not the required object: a
    /// missing, unknown or duplicate field, a wrong type, an unknown
    /// severity or field name, a confidence outside 0–100, an empty or
    /// over-long text.
    #[error("the interpreter's answer does not follow the answer schema: {detail}")]
    Schema {
        /// What was wrong.
        detail: String,
    },
    /// The endpoint answered without any text (only tool calls, or null).
    #[error("{what} has no text")]
    NoText {
        /// Whose answer.
        what: &'static str,
    },
    /// The endpoint failed after the client's own retries.
    #[error("the endpoint failed: {0}")]
    Endpoint(#[from] LlmError),
}
