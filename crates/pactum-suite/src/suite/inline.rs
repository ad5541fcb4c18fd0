//! Inline contracts: a contract written inside the suite file is checked by
//! the contract loader itself ([`parse_contract`]), and each of its
//! diagnostics is moved to where the offending node is written in the suite
//! file.
//!
//! The contract loader reads text, so the inline contract is written out as
//! pretty JSON; the JSON reader gives every node of that text a position,
//! and each position maps back to a JSON pointer, hence to the suite file's
//! own position for that node. Every contract diagnostic sits at some
//! node's key or value, so the mapping is exact. (With a crate-visible
//! `contract::from_document`, the loader could take the suite's sub-document
//! directly.)

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::contract::{parse_contract, LoadedContract};
use crate::diagnostic::Diagnostic;
use crate::document::{Document, Part, Pos};

/// The contract loader's regex hint for JSON files, and what it says for
/// YAML ones (an inline contract is checked as JSON text).
const JSON_REGEX_HINT: &str = "in JSON, a backslash is written `\\\\`";
const YAML_REGEX_HINT: &str = "in YAML, write them in single quotes so backslashes stay as written";

/// Checks the inline contract at `pointer` of the suite document.
///
/// # Errors
/// The contract's diagnostics (errors and warnings), located in the suite
/// file; diagnostics of a `schema_file` it names stay in that file.
pub(crate) fn check_inline(
    doc: &Document,
    pointer: &str,
) -> Result<LoadedContract, Vec<Diagnostic>> {
    let value = doc.value.pointer(pointer).cloned().unwrap_or(Value::Null);
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    let synthetic = synthetic_path(&doc.path);
    let back = match Document::parse(&text, &synthetic) {
        Ok(g) => reverse_locations(&g),
        Err(_) => HashMap::new(),
    };
    let yaml = !doc
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let relocate = |mut d: Diagnostic| -> Diagnostic {
        if d.file != synthetic {
            return d;
        }
        let (inner, part) = back
            .get(&Pos {
                line: d.line,
                column: d.column,
            })
            .cloned()
            .unwrap_or((String::new(), Part::Value));
        let at = doc.pos(&format!("{pointer}{inner}"), part);
        d.file = doc.path.clone();
        d.line = at.line;
        d.column = at.column;
        if yaml && d.code == "invalid-regex" {
            d.hint = d.hint.map(|h| h.replace(JSON_REGEX_HINT, YAML_REGEX_HINT));
        }
        d
    };
    match parse_contract(&text, &synthetic) {
        Ok(mut loaded) => {
            loaded.warnings = loaded.warnings.into_iter().map(relocate).collect();
            loaded.path = doc.path.clone();
            // The generated text is no file; the suite is protected itself.
            loaded.files.retain(|f| *f != synthetic);
            Ok(loaded)
        }
        Err(diags) => Err(diags.into_iter().map(relocate).collect()),
    }
}

/// A name beside the suite file (so a relative `schema_file` resolves
/// against the suite's folder), ending in `.json` (so the JSON reader reads
/// it). Never read from or written to disk.
fn synthetic_path(suite: &Path) -> PathBuf {
    let name = suite
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    suite.with_file_name(format!("{name}#inline-contract.json"))
}

/// Position in the generated text → (pointer, part).
fn reverse_locations(g: &Document) -> HashMap<Pos, (String, Part)> {
    let mut back = HashMap::new();
    for (ptr, loc) in g.locations() {
        back.insert(loc.value, (ptr.clone(), Part::Value));
        if loc.key != loc.value {
            back.insert(loc.key, (ptr, Part::Key));
        }
    }
    back
}
