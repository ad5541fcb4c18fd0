//! # pactum-suite
//!
//! Reading contract, expectation (and later suite) files: YAML with located diagnostics, JSON Schemas, lints.
