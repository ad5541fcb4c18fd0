//! The crate's one error type: what can be wrong with a contract (or an
//! expectations rule) when it is compiled. Evaluation itself never fails:
//! whatever a trace holds, a compiled predicate answers an outcome.

/// Why a contract, predicate or expectations rule does not compile.
///
/// Every variant names where the problem is: `clause` is the clause id
/// (`None` for a contract's `select`, an expectations rule, or a predicate
/// compiled on its own) and `pointer` is a JSON pointer into the contract's
/// canonical serde shape (e.g. `/prohibited/0/check/any/1/regex/pattern`),
/// which the file reader maps back to a line and column.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A regular expression (a `regex` predicate or a value matcher's
    /// `regex`/`icontains`) does not compile.
    #[error("{}invalid regex {pattern:?} at {pointer}", site(.clause))]
    InvalidRegex {
        /// The clause id, when the pattern belongs to a clause.
        clause: Option<String>,
        /// JSON pointer to the pattern.
        pointer: String,
        /// The pattern as written.
        pattern: String,
        /// The regex compiler's explanation.
        #[source]
        source: regex::Error,
    },
    /// A `json_schema` predicate's schema is not a valid JSON Schema (or
    /// refers to a schema that cannot be resolved without network or files).
    #[error("{}invalid json schema at {pointer}: {message}", site(.clause))]
    InvalidSchema {
        /// The clause id, when the schema belongs to a clause.
        clause: Option<String>,
        /// JSON pointer to the schema.
        pointer: String,
        /// The schema compiler's explanation.
        message: String,
    },
    /// A `field`, `select` or expectations pointer is not a JSON pointer
    /// (RFC 6901: empty, or starting with `/`, with `~` only in `~0` and
    /// `~1`).
    #[error("{}invalid json pointer {given:?} at {pointer}: {reason}", site(.clause))]
    InvalidPointer {
        /// The clause id, when the pointer belongs to a clause.
        clause: Option<String>,
        /// JSON pointer to the offending pointer.
        pointer: String,
        /// The pointer as written.
        given: String,
        /// What is wrong with it.
        reason: pactum_core::json::PointerError,
    },
    /// The contract or expectations file declares a version this build
    /// does not read.
    #[error("unsupported {what} version {found} (this build reads version {supported})")]
    UnsupportedVersion {
        /// `contract` or `expectations`.
        what: &'static str,
        /// The version found.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
}

impl EvalError {
    /// The clause the problem belongs to, when it belongs to one.
    pub fn clause(&self) -> Option<&str> {
        match self {
            EvalError::InvalidRegex { clause, .. }
            | EvalError::InvalidSchema { clause, .. }
            | EvalError::InvalidPointer { clause, .. } => clause.as_deref(),
            EvalError::UnsupportedVersion { .. } => None,
        }
    }

    /// The JSON pointer into the contract (or expectations rule) where the
    /// problem is; empty for a version mismatch (the whole file).
    pub fn pointer(&self) -> &str {
        match self {
            EvalError::InvalidRegex { pointer, .. }
            | EvalError::InvalidSchema { pointer, .. }
            | EvalError::InvalidPointer { pointer, .. } => pointer,
            EvalError::UnsupportedVersion { .. } => "",
        }
    }
}

fn site(clause: &Option<String>) -> String {
    match clause {
        Some(c) => format!("clause `{c}`: "),
        None => String::new(),
    }
}

/// Where a compiled part sits, for error messages: the clause id and the
/// JSON pointer of the node being compiled.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub(crate) clause: Option<String>,
    pub(crate) pointer: String,
}

impl Site {
    pub(crate) fn root(clause: Option<&str>, pointer: impl Into<String>) -> Self {
        Site {
            clause: clause.map(str::to_string),
            pointer: pointer.into(),
        }
    }

    /// The site of a child node, `token` escaped per RFC 6901.
    pub(crate) fn child(&self, token: impl AsRef<str>) -> Self {
        let t = pactum_core::json::escape_pointer_token(token.as_ref());
        Site {
            clause: self.clause.clone(),
            pointer: format!("{}/{t}", self.pointer),
        }
    }

    pub(crate) fn regex_error(&self, pattern: &str, source: regex::Error) -> EvalError {
        EvalError::InvalidRegex {
            clause: self.clause.clone(),
            pointer: self.pointer.clone(),
            pattern: pattern.to_string(),
            source,
        }
    }

    pub(crate) fn check_pointer(&self, given: &str) -> Result<(), EvalError> {
        pactum_core::json::pointer_tokens(given)
            .map(drop)
            .map_err(|reason| EvalError::InvalidPointer {
                clause: self.clause.clone(),
                pointer: self.pointer.clone(),
                given: given.to_string(),
                reason,
            })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_clause_pointer_and_pattern() {
        let site = Site::root(Some("p1"), "/prohibited/0/check")
            .child("regex")
            .child("pattern");
        let pattern = String::from("(");
        let err = regex::Regex::new(&pattern).map(|_| ()).unwrap_err();
        let e = site.regex_error("(", err);
        assert_eq!(
            e.to_string(),
            "clause `p1`: invalid regex \"(\" at /prohibited/0/check/regex/pattern"
        );
        assert_eq!(e.clause(), Some("p1"));
        assert!(std::error::Error::source(&e).is_some());
        let e = Site::root(None, "/select")
            .check_pointer("metadata/x")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid json pointer \"metadata/x\" at /select: a pointer is empty or starts with `/`"
        );
        // A `~` that escapes nothing would be read as a literal key.
        let e = Site::root(None, "/select")
            .check_pointer("/metadata/a~2")
            .unwrap_err();
        assert!(
            e.to_string().ends_with(
                "`~` must be followed by `0` or `1` (write `~0` for `~` and `~1` for `/`)"
            ),
            "{e}"
        );
        assert_eq!(Site::root(None, "").child("a/b~c").pointer, "/a~1b~0c");
    }
}
