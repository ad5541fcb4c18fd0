//! The crate's one error type.
//!
//! No message carries a secret: messages are built from pactum's own words,
//! the target's name, URLs without credentials or query, and bounded,
//! single-line excerpts of what the target sent, from which every value
//! read from the environment is redacted (SPEC §4).

/// What can go wrong building a target or asking it for one turn.
///
/// A trial whose target fails ends `error` (infrastructure), never `pass`
/// (SPEC §3.5): the runner turns any of these into that status.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// The target's configuration is unusable, or a template could not be
    /// rendered for this conversation (an undefined variable).
    #[error("target `{target}`: invalid {field}: {reason}")]
    Config {
        /// The target's name.
        target: String,
        /// The offending setting, as written in a suite file
        /// (`limits.timeout_ms`, `url`, `headers.Authorization`,
        /// `body.input.message`, `response.text`, `cwd`…).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An environment variable the target needs (`api_key_env`, or an
    /// `env.NAME` in a header or an exec `env` value) is unset or empty.
    /// Raised by [`crate::Target::new`], before any request.
    #[error("target `{target}`: environment variable {var} is not set")]
    MissingEnv {
        /// The variable's name.
        var: String,
        /// The target's name.
        target: String,
    },
    /// An environment variable the target sends (`api_key_env`, an
    /// `env.NAME`) is set but cannot be used: too short to be redacted
    /// ([`pactum_core::secret::MIN_SECRET_CHARS`]). Raised by
    /// [`crate::Target::new`], before any request.
    #[error("target `{target}`: environment variable {var} cannot be used: {reason}")]
    BadEnv {
        /// The variable's name.
        var: String,
        /// The target's name.
        target: String,
        /// Why (never the value).
        reason: String,
    },
    /// No HTTP answer: connection refused or reset, connection dropped.
    /// Returned once the retries are spent.
    #[error("target `{target}`: request to {url} failed after {attempts} attempt(s): {cause}")]
    Transport {
        /// The target's name.
        target: String,
        /// The URL (no credentials, no query).
        url: String,
        /// Requests sent, the first included.
        attempts: u32,
        /// The last cause.
        cause: String,
    },
    /// The target answered an HTTP error status that is not retried, or
    /// still failed after the retries.
    #[error("target `{target}`: {url} answered HTTP {status} after {attempts} attempt(s): {body}")]
    Status {
        /// The target's name.
        target: String,
        /// The URL (no credentials, no query).
        url: String,
        /// The last HTTP status.
        status: u16,
        /// Requests sent, the first included.
        attempts: u32,
        /// A bounded, single-line excerpt of the answer's body.
        body: String,
    },
    /// The target answered, but not in the agreed shape: a body that is not
    /// JSON, a text path that matches nothing, an exec line that is not a
    /// `pactum-exec/1` or `/2` answer (an answer echoing another request
    /// than the one in flight included), an answer over the size bound.
    /// Not retried.
    #[error("target `{target}`: {detail}{}", stderr_suffix(.stderr))]
    Protocol {
        /// The target's name.
        target: String,
        /// What was wrong, with a bounded excerpt.
        detail: String,
        /// Requests (turns) sent, the answering one included.
        attempts: u32,
        /// exec: the tail of the child's stderr, bounded, single line.
        stderr: Option<String>,
    },
    /// No answer within the timeout (network targets: on the last attempt).
    #[error("target `{target}`: no answer within {after_ms} ms after {attempts} attempt(s){}", stderr_suffix(.stderr))]
    Timeout {
        /// The target's name.
        target: String,
        /// The timeout, in milliseconds.
        after_ms: u64,
        /// Requests (turns) sent, the first included.
        attempts: u32,
        /// exec: the tail of the child's stderr, bounded, single line.
        stderr: Option<String>,
    },
    /// exec: the process could not be started, exited (before answering,
    /// or with a non-zero status), or answered with `"error": "…"`.
    #[error("target `{target}`: {detail}{}", stderr_suffix(.stderr))]
    Process {
        /// The target's name.
        target: String,
        /// What happened.
        detail: String,
        /// The tail of the child's stderr, bounded, single line.
        stderr: Option<String>,
    },
}

fn stderr_suffix(stderr: &Option<String>) -> String {
    match stderr {
        Some(s) if !s.is_empty() => format!("; stderr: {s}"),
        _ => String::new(),
    }
}

impl TargetError {
    /// How many requests (exec: turns) were sent before this error: 0 for
    /// configuration errors, raised before any request.
    pub fn attempts(&self) -> u32 {
        match self {
            TargetError::Transport { attempts, .. }
            | TargetError::Status { attempts, .. }
            | TargetError::Protocol { attempts, .. }
            | TargetError::Timeout { attempts, .. } => *attempts,
            TargetError::Process { .. } => 1,
            TargetError::Config { .. }
            | TargetError::MissingEnv { .. }
            | TargetError::BadEnv { .. } => 0,
        }
    }

    /// The target's name.
    pub fn target(&self) -> &str {
        match self {
            TargetError::Config { target, .. }
            | TargetError::MissingEnv { target, .. }
            | TargetError::BadEnv { target, .. }
            | TargetError::Transport { target, .. }
            | TargetError::Status { target, .. }
            | TargetError::Protocol { target, .. }
            | TargetError::Timeout { target, .. }
            | TargetError::Process { target, .. } => target,
        }
    }
}

impl TargetError {
    /// Redacts `redactor`'s secrets from every text of the error. Errors
    /// are built from text redacted before it was bounded; this pass keeps
    /// a secret out of one built any other way.
    pub(crate) fn redact(&mut self, redactor: &pactum_core::secret::Redactor) {
        if redactor.is_empty() {
            return;
        }
        let r = |s: &mut String| *s = redactor.redact_string(std::mem::take(s));
        match self {
            TargetError::Config { reason, .. } => r(reason),
            TargetError::MissingEnv { .. } | TargetError::BadEnv { .. } => {}
            TargetError::Transport { url, cause, .. } => {
                r(url);
                r(cause);
            }
            TargetError::Status { url, body, .. } => {
                r(url);
                r(body);
            }
            TargetError::Protocol { detail, stderr, .. }
            | TargetError::Process { detail, stderr, .. } => {
                r(detail);
                if let Some(s) = stderr {
                    r(s);
                }
            }
            TargetError::Timeout { stderr, .. } => {
                if let Some(s) = stderr {
                    r(s);
                }
            }
        }
    }
}
