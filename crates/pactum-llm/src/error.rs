//! The crate's one error type.
//!
//! No message ever carries the API key: the client builds every message
//! from its own words, the endpoint URL (without credentials or query) and
//! excerpts of the server's answer from which every secret is redacted
//! before they are bounded.

/// What can go wrong talking to an OpenAI-compatible endpoint.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The endpoint names an API key variable that is not set (or is
    /// empty). Raised by [`crate::ChatClient::new`], before any request.
    #[error("environment variable {var} is not set: it must hold the API key for {url}")]
    MissingApiKey {
        /// The variable's name.
        var: String,
        /// The endpoint it is for.
        url: String,
    },
    /// The API key variable is set but cannot be used: not UTF-8, not a
    /// valid HTTP header value, or too short to be redacted
    /// ([`pactum_core::secret::MIN_SECRET_CHARS`]).
    #[error("environment variable {var} does not hold a usable API key: {why}")]
    BadApiKey {
        /// The variable's name.
        var: String,
        /// Why (never the value).
        why: String,
    },
    /// The endpoint configuration is unusable.
    #[error("invalid endpoint {field}: {reason}")]
    InvalidEndpoint {
        /// The offending field (`base_url`, `provider`, `concurrency`…).
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The HTTP client could not be built (TLS setup).
    #[error("cannot build the HTTP client: {cause}")]
    ClientBuild {
        /// The underlying cause.
        cause: String,
    },
    /// The request never got an HTTP answer: connection refused or reset,
    /// connection dropped, timeout. Retried before it is returned.
    #[error("request to {url} failed after {attempts} attempt(s): {cause}")]
    Transport {
        /// The endpoint URL (no credentials, no query).
        url: String,
        /// Requests sent, first one included.
        attempts: u32,
        /// The last cause.
        cause: String,
        /// Whether the last cause was the per-request timeout.
        timed_out: bool,
    },
    /// The server answered an HTTP error status: not retryable, or still
    /// failing after the retries.
    #[error("{url} answered HTTP {status} after {attempts} attempt(s): {body}")]
    Status {
        /// The endpoint URL (no credentials, no query).
        url: String,
        /// The last HTTP status.
        status: u16,
        /// Requests sent, first one included.
        attempts: u32,
        /// A bounded, single-line excerpt of the error body.
        body: String,
    },
    /// The server answered 2xx with a body that is not a chat completion
    /// (invalid JSON, no choices, too large). Not retried here: the judge
    /// layer decides.
    #[error("{url} answered a malformed chat completion (attempt {attempts}): {detail}")]
    Malformed {
        /// The endpoint URL (no credentials, no query).
        url: String,
        /// Requests sent, first one included.
        attempts: u32,
        /// What was wrong, with a bounded excerpt.
        detail: String,
    },
}

impl LlmError {
    /// How many requests were sent before this error (0 for configuration
    /// errors, which are raised before any request).
    pub fn attempts(&self) -> u32 {
        match self {
            LlmError::Transport { attempts, .. }
            | LlmError::Status { attempts, .. }
            | LlmError::Malformed { attempts, .. } => *attempts,
            _ => 0,
        }
    }
}
