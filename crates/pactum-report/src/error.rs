//! The crate's one error type.

use std::io;

/// Why a report could not be written.
///
/// A broken pipe (`pactum grade | head`) stays reachable through
/// [`ReportError::is_broken_pipe`] and [`ReportError::io_error`], so the CLI
/// can exit quietly.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Writing to the report's destination failed.
    #[error("cannot write {destination}")]
    Write {
        /// What was being written: a path, or e.g. `standard output`.
        destination: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The JUnit reporter's temporary spool file failed.
    #[error("cannot use the junit spool file in {dir}")]
    Spool {
        /// The temporary directory the spool file lives in.
        dir: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A secret could not be redacted from an event (it does not read back
    /// after redaction): the event is left out rather than shown.
    #[error("cannot redact the secrets from {what}; it is left out of the report")]
    Redaction {
        /// What the event was.
        what: &'static str,
    },
    /// The caller broke the event order (`begin`, events, `finish` once).
    #[error("`{call}` called {problem}")]
    Protocol {
        /// The offending call.
        call: &'static str,
        /// What was wrong, e.g. `before begin`.
        problem: &'static str,
    },
}

impl ReportError {
    /// The I/O error underneath, if any.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            ReportError::Write { source, .. } | ReportError::Spool { source, .. } => Some(source),
            ReportError::Protocol { .. } | ReportError::Redaction { .. } => None,
        }
    }

    /// Whether the destination was closed by its reader
    /// ([`io::ErrorKind::BrokenPipe`]); the CLI then exits quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ReportError::Write { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }

    pub(crate) fn write(destination: &str, source: io::Error) -> Self {
        ReportError::Write {
            destination: destination.to_string(),
            source,
        }
    }

    pub(crate) fn spool(source: io::Error) -> Self {
        ReportError::Spool {
            dir: std::env::temp_dir().display().to_string(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipe_is_detectable_and_messages_name_the_destination() {
        let e = ReportError::write("report.json", io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(e.is_broken_pipe());
        assert_eq!(e.to_string(), "cannot write report.json");
        assert_eq!(
            e.io_error().map(io::Error::kind),
            Some(io::ErrorKind::BrokenPipe)
        );
        let other = ReportError::write("x", io::Error::from(io::ErrorKind::PermissionDenied));
        assert!(!other.is_broken_pipe());
        // A spool failure is not the destination's reader going away.
        let spool = ReportError::spool(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(!spool.is_broken_pipe());
        assert!(spool
            .to_string()
            .starts_with("cannot use the junit spool file in "));
        let p = ReportError::Protocol {
            call: "result",
            problem: "before begin",
        };
        assert_eq!(p.to_string(), "`result` called before begin");
        assert!(p.io_error().is_none());
    }
}
