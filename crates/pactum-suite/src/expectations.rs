//! Expectations files: how to read each trace's expected status from one of
//! its fields, for the agreement table (`docs/reports.md`). The model is
//! [`pactum_core::agreement::Expectations`]; the format is
//! `schemas/expectations.schema.json`, documented in `docs/contracts.md`.

use std::path::Path;

use pactum_core::agreement::{Expectations, EXPECTATIONS_VERSION};
use pactum_core::contract::normalize_pointer;

use crate::checks::{in_file_order, Checks};
use crate::diagnostic::Diagnostic;
use crate::document::{check_pointer, Document, Part};

/// Reads and validates an expectations file (`.json` as JSON, anything else
/// as YAML). Pointers are normalised (`metadata` → `/metadata`).
///
/// # Errors
/// Every diagnostic of the file, in file order (at least one error): I/O,
/// syntax, schema (unknown keys, a status other than pass, fail,
/// undetermined or error, a missing `pointer` or `cases`), an unsupported
/// `version`, an invalid JSON pointer or regex.
pub fn load_expectations(path: &Path) -> Result<Expectations, Vec<Diagnostic>> {
    let doc = Document::read(path)?;
    from_document(doc)
}

/// Like [`load_expectations`], on text already read.
///
/// # Errors
/// As [`load_expectations`].
pub fn parse_expectations(src: &str, path: &Path) -> Result<Expectations, Vec<Diagnostic>> {
    let doc = Document::parse(src, path)?;
    from_document(doc)
}

fn from_document(mut doc: Document) -> Result<Expectations, Vec<Diagnostic>> {
    let mut diags = std::mem::take(&mut doc.diagnostics);
    let schema_diags = crate::validate_expectations_schema(&doc);
    let schema_ok = schema_diags.is_empty();
    diags.extend(schema_diags);
    let mut checks = Checks {
        doc: &doc,
        out: &mut diags,
    };
    checks.version(EXPECTATIONS_VERSION, "expectations");
    if let Some(p) = doc
        .value
        .pointer("/expect/pointer")
        .and_then(|v| v.as_str())
    {
        if let Err(why) = check_pointer(&normalize_pointer(p)) {
            checks.out.push(
                doc.error(
                    "invalid-pointer",
                    "/expect/pointer",
                    Part::Value,
                    format!("invalid JSON pointer: {why}"),
                )
                .with_hint(
                    "a JSON pointer (RFC 6901) is `/`-separated keys, e.g. `/metadata/security`",
                ),
            );
        }
    }
    checks.field_match("/expect/when");
    let cases = doc
        .value
        .pointer("/expect/cases")
        .and_then(|v| v.as_array())
        .map_or(0, Vec::len);
    for i in 0..cases {
        checks.conditions(&format!("/expect/cases/{i}"));
    }
    let mut model = None;
    if schema_ok {
        match serde_json::from_value::<Expectations>(doc.value.clone()) {
            Ok(mut e) => {
                e.expect.pointer = normalize_pointer(&e.expect.pointer);
                if let Some(w) = &mut e.expect.when {
                    w.pointer = normalize_pointer(&w.pointer);
                }
                model = Some(e);
            }
            Err(e) => diags.push(doc.error(
                "model",
                "",
                Part::Value,
                format!("the file does not fit pactum's expectations model: {e}"),
            )),
        }
    }
    let diags = in_file_order(diags);
    match model {
        Some(e) if !diags.iter().any(Diagnostic::is_error) => Ok(e),
        _ => Err(diags),
    }
}
