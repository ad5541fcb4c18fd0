//! What `pactum check` reads: a contract file, or a suite file recognised
//! by its shape and checked whole (its contract files and inline contracts
//! included), so a suite never gets a contract's misleading errors.

use std::path::Path;

use serde_json::Value;

use crate::contract::LoadedContract;
use crate::diagnostic::Diagnostic;
use crate::document::Document;
use crate::suite::LoadedSuite;

/// A file `pactum check` validated.
#[derive(Debug, Clone)]
pub enum CheckedFile {
    /// A contract file.
    Contract(Box<LoadedContract>),
    /// A suite file, with every contract it names or holds.
    Suite(Box<LoadedSuite>),
}

/// Whether a parsed document has a suite's shape: a top-level mapping with
/// `targets` or `tests`, keys a contract never has (docs/suites.md).
pub fn is_suite_shape(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|m| m.contains_key("targets") || m.contains_key("tests"))
}

/// Reads a file as a suite when it has a suite's shape
/// ([`is_suite_shape`]), else as a contract, with every check and lint of
/// [`load_suite`](crate::load_suite) or [`load_contract`](crate::load_contract).
///
/// # Errors
/// As those loaders: every diagnostic of the file (and, for a suite, of the
/// contract files it names), at least one an error.
pub fn load_contract_or_suite(path: &Path) -> Result<CheckedFile, Vec<Diagnostic>> {
    let src = crate::document::read_text(path)?;
    // A suite whose tests can be read one at a time is never held whole.
    let src = match crate::suite::read_suite_streamed(src, path) {
        Ok(s) => return Ok(CheckedFile::Suite(Box::new(s))),
        Err(src) => src,
    };
    let doc = Document::parse(&src, path)?;
    drop(src);
    if is_suite_shape(&doc.value) {
        crate::suite::from_document(doc).map(|s| CheckedFile::Suite(Box::new(s)))
    } else {
        crate::contract::from_document(doc).map(|c| CheckedFile::Contract(Box::new(c)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_suite_shape_is_targets_or_tests_at_the_top() {
        assert!(is_suite_shape(&json!({"version": 1, "tests": []})));
        assert!(is_suite_shape(&json!({"version": 1, "targets": {}})));
        assert!(!is_suite_shape(
            &json!({"version": 1, "id": "c", "prohibited": []})
        ));
        assert!(!is_suite_shape(&json!(["tests"])));
        assert!(!is_suite_shape(&json!("tests")));
    }
}
