//! Contract files (SPEC §2): YAML or JSON → validated [`Contract`], with
//! every problem of the file reported at once.
//!
//! The steps, each collecting diagnostics: parse (duplicate keys, YAML
//! syntax); JSON Schema (`schemas/contract.schema.json`: unknown keys, wrong
//! types, bad enum values, missing keys); inline `schema_file`s; semantic
//! checks (format version, duplicate clause ids, regexes, JSON pointers,
//! count ranges, embedded JSON Schemas); then, when the schema passed,
//! serde into the model, pointer normalisation and
//! [`lint_contract`](pactum_core::lint::lint_contract) (negation lint,
//! vacuous checks). When the schema failed, the negation lint still runs on
//! every prohibited clause whose `id` and `text` could be read.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use pactum_core::contract::{
    normalize_pointer, Clause, ClauseKind, ConditionalClause, Contract, Predicate, Severity,
    ThenClause, ValueMatch,
};
use pactum_core::digest::digest_of;
use pactum_core::lint::{lint_contract, LintLevel};
use serde_json::Value;

use crate::checks::{in_file_order, Checks};
use crate::diagnostic::{Diagnostic, DiagnosticLevel};
use crate::document::{read_text, Document, Part, Pos};
use pactum_core::json::{escape_pointer_token, unescape_pointer_token};

/// A contract file that passed every check.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedContract {
    /// The validated model; argument, detail and field pointers normalised
    /// (`recipient` → `/recipient`), `schema_file`s inlined as `schema`.
    pub contract: Contract,
    /// The file it was read from, as given.
    pub path: PathBuf,
    /// Every file it was read from: its own file (not for a contract
    /// written inside a suite), then each `schema_file` it names, resolved
    /// against its folder. No report may be written over one of them.
    pub files: Vec<PathBuf>,
    /// `sha256:<hex>` of the model's canonical JSON
    /// ([`digest_of`]): the same contract gives the same digest whatever
    /// its layout, key order or shorthands in the file.
    pub digest: String,
    /// Warnings (vacuous checks and the like), in file order. None is an
    /// error.
    pub warnings: Vec<Diagnostic>,
}

/// Why a `-c` argument could not be expanded into contract files.
#[derive(Debug, thiserror::Error)]
pub enum ContractPathError {
    /// A folder could not be listed.
    #[error("{}: {source}", path.display())]
    Read {
        /// The folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A folder holds no contract file.
    #[error("{}: folder holds no .yaml, .yml or .json contract file", path.display())]
    Empty {
        /// The folder.
        path: PathBuf,
    },
}

/// Expands the contract arguments of a command (`-c FILE_OR_FOLDER`, as
/// `grade`, `check` and `strength` take them) into contract files: a folder
/// gives its `.yaml`, `.yml` and `.json` files (not recursing, sorted by
/// name so every run is deterministic); a file is kept as given, whatever
/// its extension.
///
/// # Errors
/// A folder that cannot be listed, or that holds no contract file.
pub fn contract_files(args: &[PathBuf]) -> Result<Vec<PathBuf>, ContractPathError> {
    let mut out = Vec::new();
    for p in args {
        if !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        let entries = std::fs::read_dir(p).map_err(|source| ContractPathError::Read {
            path: p.clone(),
            source,
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|f| {
                f.is_file()
                    && matches!(
                        f.extension().and_then(|x| x.to_str()),
                        Some("yaml" | "yml" | "json")
                    )
            })
            .collect();
        if files.is_empty() {
            return Err(ContractPathError::Empty { path: p.clone() });
        }
        files.sort();
        out.extend(files);
    }
    Ok(out)
}

/// Reads, validates and lints a contract file (`.json` as JSON, anything
/// else as YAML).
///
/// # Errors
/// Every diagnostic of the file, errors and warnings, in file order; at
/// least one is an error. An unreadable file gives one `io` error naming the
/// path.
pub fn load_contract(path: &Path) -> Result<LoadedContract, Vec<Diagnostic>> {
    let doc = Document::read(path)?;
    from_document(doc)
}

/// Like [`load_contract`], on text already read (`path` names it in
/// diagnostics, picks JSON or YAML by its extension, and is where a
/// relative `schema_file` is resolved from).
///
/// # Errors
/// As [`load_contract`].
pub fn parse_contract(src: &str, path: &Path) -> Result<LoadedContract, Vec<Diagnostic>> {
    let doc = Document::parse(src, path)?;
    from_document(doc)
}

pub(crate) fn from_document(mut doc: Document) -> Result<LoadedContract, Vec<Diagnostic>> {
    let mut diags = std::mem::take(&mut doc.diagnostics);
    let schema_diags = crate::validate_contract_schema(&doc);
    let schema_ok = schema_diags.is_empty();
    diags.extend(schema_diags);

    let predicates = predicate_pointers(&doc.value);
    let mut files = vec![doc.path.clone()];
    let inlined = inline_schema_files(&mut doc, &predicates, &mut diags, &mut files);
    let mut checks = Checks {
        doc: &doc,
        out: &mut diags,
    };
    checks.version(pactum_core::contract::CONTRACT_SCHEMA_VERSION, "contract");
    checks.field_match("/select");
    for p in &predicates {
        check_predicate(&mut checks, p, &inlined);
    }
    duplicate_ids(&doc, &mut diags);

    let mut model = None;
    if schema_ok {
        match serde_json::from_value::<Contract>(doc.value.clone()) {
            Ok(mut c) => {
                normalize(&mut c);
                lint(&doc, &c, &mut diags);
                model = Some(c);
            }
            Err(e) => {
                // Only reachable when an earlier error (a missing
                // schema_file) left the value incomplete, or if the schema
                // and the model disagree: say so rather than guess.
                if !diags.iter().any(Diagnostic::is_error) {
                    diags.push(doc.error(
                        "model",
                        "",
                        Part::Value,
                        format!("the contract does not fit pactum's contract model: {e}"),
                    ));
                }
            }
        }
    } else {
        negation_lint_anyway(&doc, &mut diags);
    }

    let diags = in_file_order(diags);
    match model {
        Some(contract) if !diags.iter().any(Diagnostic::is_error) => Ok(LoadedContract {
            digest: digest_of(&contract),
            contract,
            path: doc.path,
            files,
            warnings: diags,
        }),
        _ => Err(diags),
    }
}

/// The pointer of every predicate mapping in the contract (checks, `when`s,
/// and every operand of `all`/`any`/`not`), in document order.
fn predicate_pointers(v: &Value) -> Vec<String> {
    fn walk(v: &Value, ptr: String, out: &mut Vec<String>) {
        let Some(obj) = v.as_object() else {
            return;
        };
        out.push(ptr.clone());
        for (k, val) in obj {
            match (k.as_str(), val) {
                ("all" | "any", Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        walk(item, format!("{ptr}/{k}/{i}"), out);
                    }
                }
                ("not", inner) => walk(inner, format!("{ptr}/not"), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for list in ["required", "prohibited"] {
        for (i, c) in items(v, list) {
            if let Some(check) = c.get("check") {
                walk(check, format!("/{list}/{i}/check"), &mut out);
            }
        }
    }
    for (i, c) in items(v, "conditional") {
        if let Some(when) = c.get("when") {
            walk(when, format!("/conditional/{i}/when"), &mut out);
        }
        if let Some(check) = c.get("then").and_then(|t| t.get("check")) {
            walk(check, format!("/conditional/{i}/then/check"), &mut out);
        }
    }
    out
}

fn items<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = (usize, &'a Value)> {
    v.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
}

fn check_predicate(c: &mut Checks<'_>, ptr: &str, inlined: &HashMap<String, String>) {
    let Some(obj) = c.doc.value.pointer(ptr).and_then(Value::as_object) else {
        return;
    };
    for (k, v) in obj {
        let p = format!("{ptr}/{}", escape_pointer_token(k));
        match k.as_str() {
            "regex" if v.is_string() => c.regex(&p),
            "regex" => c.regex(&format!("{p}/pattern")),
            "tool_called" => {
                c.pointer_map(&format!("{p}/args"));
                c.count(&format!("{p}/count"));
            }
            "tool_sequence" => {
                for (i, _) in v.as_array().into_iter().flatten().enumerate() {
                    c.pointer_map(&format!("{p}/{i}/args"));
                }
            }
            "side_effect" => {
                c.pointer_map(&format!("{p}/details"));
                c.count(&format!("{p}/count"));
            }
            "json_schema" => {
                let s = format!("{p}/schema");
                c.json_schema(&s, inlined.get(&s).map(String::as_str));
            }
            "turn_count" => c.count(&p),
            "field" => c.field_match(&p),
            _ => {}
        }
    }
}

/// Replaces each `json_schema.schema_file` with the schema it names (read
/// relative to the contract file), adding each file read to `files`.
/// Returns inlined pointer → file name.
fn inline_schema_files(
    doc: &mut Document,
    predicates: &[String],
    diags: &mut Vec<Diagnostic>,
    files: &mut Vec<PathBuf>,
) -> HashMap<String, String> {
    let mut inlined = HashMap::new();
    let base = doc.path.parent().map(Path::to_path_buf).unwrap_or_default();
    for p in predicates {
        let js = format!("{p}/json_schema");
        let file_ptr = format!("{js}/schema_file");
        let schema_ptr = format!("{js}/schema");
        let Some(file) = doc.value.pointer(&file_ptr).and_then(Value::as_str) else {
            continue;
        };
        if doc.value.pointer(&schema_ptr).is_some() {
            continue; // both given: the schema reports it
        }
        let full = base.join(file);
        if !files.contains(&full) {
            files.push(full.clone());
        }
        let schema = match read_text(&full) {
            Err(ds) => {
                for d in ds {
                    if d.code == "io" {
                        diags.push(doc.error("io", &file_ptr, Part::Value, d.message));
                    } else {
                        diags.push(d);
                    }
                }
                continue;
            }
            Ok(text) => match Document::parse(&text, &full) {
                Err(ds) => {
                    diags.extend(ds);
                    continue;
                }
                Ok(sd) => {
                    diags.extend(sd.diagnostics);
                    sd.value
                }
            },
        };
        let at = doc.locate(&file_ptr);
        if let Some(Value::Object(obj)) = doc.value.pointer_mut(&js) {
            obj.remove("schema_file");
            obj.insert("schema".to_string(), schema);
            doc.set_location(&schema_ptr, at);
            inlined.insert(schema_ptr, full.display().to_string());
        }
    }
    inlined
}

/// Clause ids are unique across required, prohibited and conditional
/// clauses (verdicts are aligned to clauses by id, SPEC §3.4).
fn duplicate_ids(doc: &Document, diags: &mut Vec<Diagnostic>) {
    let mut first: HashMap<&str, Pos> = HashMap::new();
    for list in ["required", "prohibited", "conditional"] {
        for (i, c) in items(&doc.value, list) {
            let Some(id) = c.get("id").and_then(Value::as_str) else {
                continue;
            };
            let ptr = format!("/{list}/{i}/id");
            let here = doc.pos(&ptr, Part::Value);
            match first.get(id) {
                Some(at) => diags.push(
                    doc.error(
                        "duplicate-id",
                        &ptr,
                        Part::Value,
                        format!("clause id `{}` is used twice", crate::document::short(id)),
                    )
                    .with_hint(format!(
                        "first used at line {}, column {}; clause ids are unique within a contract (verdicts are matched to clauses by id)",
                        at.line, at.column
                    )),
                ),
                None => {
                    first.insert(id, here);
                }
            }
        }
    }
}

/// Puts every argument, detail and field pointer in RFC 6901 form.
fn normalize(c: &mut Contract) {
    if let Some(s) = &mut c.select {
        s.pointer = normalize_pointer(&s.pointer);
    }
    for clause in c.required.iter_mut().chain(c.prohibited.iter_mut()) {
        if let Some(p) = &mut clause.check {
            normalize_predicate(p);
        }
    }
    for cc in &mut c.conditional {
        normalize_predicate(&mut cc.when);
        if let Some(p) = &mut cc.then.check {
            normalize_predicate(p);
        }
    }
}

fn normalize_predicate(p: &mut Predicate) {
    match p {
        Predicate::All(ps) | Predicate::Any(ps) => ps.iter_mut().for_each(normalize_predicate),
        Predicate::Not(inner) => normalize_predicate(inner),
        Predicate::ToolCalled(t) => normalize_keys(&mut t.call.args),
        Predicate::ToolSequence(calls) => {
            calls.iter_mut().for_each(|c| normalize_keys(&mut c.args))
        }
        Predicate::SideEffect(e) => normalize_keys(&mut e.details),
        Predicate::Field(f) => f.pointer = normalize_pointer(&f.pointer),
        _ => {}
    }
}

fn normalize_keys(m: &mut BTreeMap<String, ValueMatch>) {
    *m = std::mem::take(m)
        .into_iter()
        .map(|(k, v)| (normalize_pointer(&k), v))
        .collect();
}

fn lint(doc: &Document, c: &Contract, diags: &mut Vec<Diagnostic>) {
    for f in lint_contract(c, None) {
        let level = match f.level {
            LintLevel::Error => DiagnosticLevel::Error,
            LintLevel::Warning => DiagnosticLevel::Warning,
        };
        let pointer = written_pointer(&doc.value, &f.pointer);
        let mut d = doc
            .error(&f.code, &pointer, Part::Value, f.message)
            .with_hint(f.hint);
        d.level = level;
        diags.push(d);
    }
}

/// A lint pointer into the loaded model, as it is written in the file: the
/// model keys `args`/`details` by JSON pointer (`/recipient`), while the
/// file may use the plain key (`recipient`). Unchanged when it resolves, or
/// when the plain form does not either.
fn written_pointer(file: &Value, pointer: &str) -> String {
    if file.pointer(pointer).is_some() {
        return pointer.to_string();
    }
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return pointer.to_string();
    };
    let Ok(key) = unescape_pointer_token(last) else {
        return pointer.to_string();
    };
    // A one-token pointer (`/a~1b`) may be written as its plain key (`a/b`).
    let one_token = key
        .strip_prefix('/')
        .filter(|rest| !rest.contains('/'))
        .map(unescape_pointer_token);
    match one_token {
        Some(Ok(plain_key)) => {
            let plain = format!("{parent}/{}", escape_pointer_token(&plain_key));
            if file.pointer(&plain).is_some() {
                plain
            } else {
                pointer.to_string()
            }
        }
        _ => pointer.to_string(),
    }
}

/// The negation lint (SPEC §2) over the prohibited clauses that can be read,
/// for a file the schema rejected: the lint's error is worth seeing in the
/// same run as the schema's.
fn negation_lint_anyway(doc: &Document, diags: &mut Vec<Diagnostic>) {
    let mut fake = Contract {
        version: pactum_core::contract::CONTRACT_SCHEMA_VERSION,
        id: String::new(),
        description: None,
        select: None,
        required: Vec::new(),
        prohibited: Vec::new(),
        conditional: Vec::new(),
        simulated_user_objective: None,
        adversarial: false,
        source_notes: Vec::new(),
    };
    let text_of = |c: &Value, key: &str| c.get(key).and_then(Value::as_str).map(str::to_string);
    // Fake pointer prefix → real pointer prefix.
    let mut prefixes: Vec<(String, String)> = Vec::new();
    for (i, c) in items(&doc.value, "prohibited") {
        if let (Some(id), Some(text)) = (text_of(c, "id"), text_of(c, "text")) {
            prefixes.push((
                format!("/prohibited/{}/", fake.prohibited.len()),
                format!("/prohibited/{i}/"),
            ));
            fake.prohibited.push(Clause {
                id,
                text,
                severity: Severity::default(),
                check: None,
                judge: Some(String::new()),
            });
        }
    }
    for (i, c) in items(&doc.value, "conditional") {
        let Some(then) = c.get("then") else { continue };
        if then.get("kind").and_then(Value::as_str) != Some(ClauseKind::Prohibited.as_str()) {
            continue;
        }
        if let (Some(id), Some(text)) = (text_of(c, "id"), text_of(then, "text")) {
            prefixes.push((
                format!("/conditional/{}/", fake.conditional.len()),
                format!("/conditional/{i}/"),
            ));
            fake.conditional.push(ConditionalClause {
                id,
                when: Predicate::Any(Vec::new()),
                then: ThenClause {
                    kind: ClauseKind::Prohibited,
                    text,
                    severity: Severity::default(),
                    check: None,
                    judge: Some(String::new()),
                },
            });
        }
    }
    for f in lint_contract(&fake, None) {
        if f.code != "negated-prohibition" {
            continue;
        }
        let Some(pointer) = prefixes.iter().find_map(|(fake_p, real_p)| {
            f.pointer
                .strip_prefix(fake_p.as_str())
                .map(|rest| format!("{real_p}{rest}"))
        }) else {
            continue;
        };
        diags.push(
            doc.error(&f.code, &pointer, Part::Value, f.message)
                .with_hint(f.hint),
        );
    }
}

#[cfg(test)]
mod contract_files_tests {
    use super::*;

    #[test]
    fn a_folder_gives_its_contract_files_sorted_and_a_file_stays_as_given() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.yaml", "a.json", "c.yml", "notes.md"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub.yaml")).unwrap();
        let single = dir.path().join("notes.md");
        let files = contract_files(&[dir.path().to_path_buf(), single.clone()]).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|f| f.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        assert_eq!(names, ["a.json", "b.yaml", "c.yml", "notes.md"]);
        assert_eq!(files[3], single);
    }

    #[test]
    fn a_folder_without_contracts_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "x").unwrap();
        let e = contract_files(&[dir.path().to_path_buf()]).unwrap_err();
        assert!(matches!(e, ContractPathError::Empty { .. }));
        assert!(e
            .to_string()
            .contains("folder holds no .yaml, .yml or .json contract file"));
        assert!(e.to_string().contains(&dir.path().display().to_string()));
    }
}
