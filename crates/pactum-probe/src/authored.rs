//! Authored probes: a probe file (YAML or JSON, `schemas/probe.schema.json`)
//! declares probes whose traces somebody wrote or recorded, for defects no
//! mutation can plant (`docs/strength.md`, "Authored probes").
//!
//! ```yaml
//! version: 1
//! probes:
//!   - id: pay-attacker-in-two-steps
//!     class: defect
//!     targets: pay-attacker
//!     mutation: schedules the attacker's payment instead of sending it
//!     severity: critical
//!     trace: traces/scheduled.json    # relative to this file
//! ```
//!
//! Every problem of the file is reported at once, each at its line and
//! column: schema errors (unknown keys, a bad class or severity, missing
//! keys), an unsupported `version`, a repeated `id`, and a trace file that
//! cannot be read or does not hold exactly one trace.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::LazyLock;

use pactum_core::strength::{Probe, ProbeClass};
use pactum_core::{Severity, Trace};
use pactum_suite::{validate, Diagnostic, Document, Part};
use pactum_trace::{read_traces, ImportOptions, InputNotes, Item};
use serde_json::Value;

use crate::generate::{Origin, ProbeCase};
use crate::scoring::trace_digest;

/// The probe file format version this build reads.
pub const PROBE_FILE_VERSION: u32 = 1;

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../schemas/probe.schema.json")).unwrap_or(Value::Null)
});

/// The JSON Schema of probe files (`schemas/probe.schema.json`).
pub fn probe_schema() -> &'static Value {
    &SCHEMA
}

/// Reads a probe file and the trace of every probe it declares (trace
/// paths are relative to the probe file; `import` says how to read them,
/// as for clean traces).
///
/// Each trace file is noted in `notes` before it is read, so a probe
/// trace that is the same file as a clean trace, or as another probe's,
/// gets the run's `repeated-input` warning. Its trace ids are not counted:
/// a probe is named by its probe id, and a probe planted in a copy of a
/// clean trace rightly keeps that trace's id.
///
/// # Errors
/// Every diagnostic of the file, in file order (at least one error).
pub fn load_probe_file(
    path: &Path,
    import: &ImportOptions,
    notes: &mut InputNotes,
) -> Result<Vec<ProbeCase>, Vec<Diagnostic>> {
    let doc = Document::read(path)?;
    from_document(&doc, import, notes)
}

/// Like [`load_probe_file`], on text already read (`path` names it in
/// diagnostics and is where trace paths are resolved from).
///
/// # Errors
/// As [`load_probe_file`].
pub fn parse_probe_file(
    src: &str,
    path: &Path,
    import: &ImportOptions,
    notes: &mut InputNotes,
) -> Result<Vec<ProbeCase>, Vec<Diagnostic>> {
    let doc = Document::parse(src, path)?;
    from_document(&doc, import, notes)
}

fn from_document(
    doc: &Document,
    import: &ImportOptions,
    notes: &mut InputNotes,
) -> Result<Vec<ProbeCase>, Vec<Diagnostic>> {
    let mut diags = doc.diagnostics.clone();
    let schema_diags = validate(doc, probe_schema());
    let schema_ok = schema_diags.is_empty();
    diags.extend(schema_diags);
    if let Some(v) = doc.value.pointer("/version").and_then(Value::as_u64) {
        if v != u64::from(PROBE_FILE_VERSION) {
            diags.push(
                doc.error(
                    "unsupported-version",
                    "/version",
                    Part::Value,
                    format!("probe file format version {v} is not supported"),
                )
                .with_hint(format!(
                    "this build reads probe files of `version: {PROBE_FILE_VERSION}`"
                )),
            );
        }
    }
    let items = doc
        .value
        .pointer("/probes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut first: BTreeMap<String, usize> = BTreeMap::new();
    for (i, item) in items.iter().enumerate() {
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            continue;
        };
        if let Some(j) = first.get(id) {
            let at = doc.pos(&format!("/probes/{j}/id"), Part::Value);
            diags.push(
                doc.error(
                    "duplicate-probe-id",
                    &format!("/probes/{i}/id"),
                    Part::Value,
                    format!("probe id `{}` is declared twice", short(id)),
                )
                .with_hint(format!(
                    "first declared at line {}, column {}; probe ids are unique",
                    at.line, at.column
                )),
            );
        } else {
            first.insert(id.to_string(), i);
        }
    }
    let base = doc.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut cases = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(file) = item.get("trace").and_then(Value::as_str) else {
            continue;
        };
        let at = format!("/probes/{i}/trace");
        let trace_path = base.join(file);
        notes.file(&trace_path);
        let trace = match read_one_trace(&trace_path, import) {
            Ok(t) => t,
            Err(why) => {
                diags.push(
                    doc.error("probe-trace", &at, Part::Value, why).with_hint(
                        "a probe's trace file holds exactly one trace; a file without an observability level needs --observability",
                    ),
                );
                continue;
            }
        };
        if schema_ok {
            if let Some(probe) = declaration(item) {
                cases.push(ProbeCase {
                    origin: Origin::Authored {
                        trace_digest: trace_digest(&trace),
                    },
                    probe,
                    trace,
                });
            }
        }
    }
    diags.sort_by(|a, b| (a.line, a.column, &a.code).cmp(&(b.line, b.column, &b.code)));
    if diags.iter().any(Diagnostic::is_error) || !schema_ok {
        return Err(diags);
    }
    Ok(cases)
}

fn short(s: &str) -> String {
    pactum_core::text::truncate_chars(s, 60)
}

/// The declaration of one schema-valid item.
fn declaration(item: &Value) -> Option<Probe> {
    let s = |k: &str| item.get(k).and_then(Value::as_str);
    Some(Probe {
        id: s("id")?.to_string(),
        class: ProbeClass::parse(s("class")?)?,
        targets: s("targets").map(str::to_string),
        mutation: s("mutation")?.to_string(),
        severity: Severity::parse(s("severity")?)?,
    })
}

/// The single trace of `path`, or why not (a lowercase fragment naming the
/// path).
fn read_one_trace(path: &Path, import: &ImportOptions) -> Result<Trace, String> {
    let shown = path.display().to_string();
    let mut traces = Vec::new();
    let mut errors = Vec::new();
    let mut sink = |item: Item| {
        match item {
            Item::Trace(t) => traces.push(t),
            Item::Error(e) => errors.push(e.to_string()),
            Item::Skipped { .. } => {}
        }
        ControlFlow::Continue(())
    };
    read_traces(path, import, &mut sink).map_err(|e| format!("cannot read trace file: {e}"))?;
    if let Some(e) = errors.first() {
        return Err(format!("trace file has an unreadable record: {e}"));
    }
    match traces.len() {
        1 => traces.pop().ok_or_else(|| "unreachable".to_string()),
        n => Err(format!(
            "trace file `{shown}` holds {n} traces; a probe needs exactly one"
        )),
    }
}
