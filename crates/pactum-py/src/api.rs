//! The calls of the Python package as plain Rust over JSON text: each takes
//! what Python built (a record, a request) and hands it to pactum's
//! library — the importers, the contract loader, the pipelines — then
//! returns what they said as JSON. Nothing here decides a verdict or a
//! status; the bindings (`py` module) only move text across.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pactum_core::secret::Redactor;
use pactum_core::trace::{ObservabilityLevel, SourceRef};
use pactum_core::{Outcome, Policy, TestStatus, TraceResult};
use pactum_pipeline::grade::{GradeRequest, JudgeConfig};
use pactum_pipeline::run::RunRequest;
use pactum_pipeline::strength::StrengthRequest;
use pactum_pipeline::{Message, MessageLevel, PipelineError, Sink};
use pactum_report::{InputError, MissingTrial, RunEnd, RunInfo};
use pactum_suite::Diagnostic;
use pactum_trace::{ImportOptions, Item, Parallel, TraceFormat};
use serde_json::{json, Map, Value};

/// Which Python exception an [`ApiError`] becomes (`pactum.errors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `InputError`: a file, record, argument or option that cannot be used.
    Input,
    /// `ContractError`: a contract that does not validate or compile.
    Contract,
    /// `StoreError`: the store failed, or named something it does not hold.
    Store,
    /// `RunError`: a live run could not start or go on.
    Run,
    /// `ReportError`: a report could not be set up.
    Report,
    /// `InternalError`: pactum failed internally.
    Internal,
}

impl ErrorKind {
    /// The Python class name in `pactum.errors`.
    pub fn class_name(self) -> &'static str {
        match self {
            ErrorKind::Input => "InputError",
            ErrorKind::Contract => "ContractError",
            ErrorKind::Store => "StoreError",
            ErrorKind::Run => "RunError",
            ErrorKind::Report => "ReportError",
            ErrorKind::Internal => "InternalError",
        }
    }
}

/// A failed call: the exception class, the message, and where (file,
/// 1-based line, field) when the library knows it; every diagnostic of a
/// rejected file as JSON objects (`level`, `code`, `file`, `line`,
/// `column`, `message`, `hint`).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// Which exception.
    pub kind: ErrorKind,
    /// For a person; names file, line and field where there is one.
    pub message: String,
    /// The file at fault.
    pub file: Option<String>,
    /// Its 1-based line (0: no position).
    pub line: Option<u64>,
    /// The field at fault (a JSON pointer, a column, an option).
    pub field: Option<String>,
    /// Every diagnostic of a rejected file.
    pub diagnostics: Vec<Value>,
}

impl ApiError {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            message: message.into(),
            file: None,
            line: None,
            field: None,
            diagnostics: vec![],
        }
    }

    fn input(message: impl Into<String>) -> Self {
        ApiError::new(ErrorKind::Input, message)
    }

    /// Locates the error; `line` 0 names no line (lines are 1-based).
    fn at(mut self, file: impl Into<String>, line: u64, field: Option<String>) -> Self {
        self.file = Some(file.into());
        self.line = (line > 0).then_some(line);
        self.field = field;
        self
    }
}

/// `message` in the Python API's terms: the command line's `--format`
/// and `--observability` are the `format=` and `observability=`
/// arguments there.
pub fn in_python_terms(message: &str) -> String {
    message
        .replace("--observability", "observability=")
        .replace("--format", "format=")
}

/// `err` with every secret taken out of its message, file, field and
/// diagnostics (SPEC §4): the environment's key variables and every
/// key-shaped token of the error's own text, by the one redaction rule
/// ([`pactum_core::secret::redaction_rule`]). An error quoting a record
/// never carries the key it quoted; if the rule cannot be built, the
/// texts are replaced rather than shown.
pub fn redact_error(mut err: ApiError) -> ApiError {
    let mut texts: Vec<String> = vec![err.message.clone()];
    texts.extend(err.file.clone());
    texts.extend(err.field.clone());
    texts.extend(err.diagnostics.iter().map(Value::to_string));
    let rule = pactum_core::secret::redaction_rule(
        &Redactor::default(),
        &pactum_runner::env_keys(std::iter::empty()),
        texts.iter().map(String::as_str),
    );
    match rule {
        Ok(r) => {
            err.message = r.redact_string(err.message);
            err.file = err.file.map(|f| r.redact_string(f));
            err.field = err.field.map(|f| r.redact_string(f));
            for d in &mut err.diagnostics {
                r.redact_value(d);
            }
        }
        Err(_) => {
            err.message =
                "an error whose text could not be redacted (nothing of it is shown)".into();
            err.file = None;
            err.field = None;
            err.diagnostics.clear();
        }
    }
    err
}

/// `text` with every secret taken out by the one redaction rule (SPEC §4;
/// the environment's key variables and the key-shaped tokens of `text`):
/// what an exception raised on the Python side shows. If the rule cannot
/// be built, nothing of `text` is shown.
pub fn redact_text(text: &str) -> String {
    match pactum_core::secret::redaction_rule(
        &Redactor::default(),
        &pactum_runner::env_keys(std::iter::empty()),
        [text],
    ) {
        Ok(r) => r.redact(text).into_owned(),
        Err(_) => "[text that could not be redacted]".into(),
    }
}

/// The result of a call: JSON text, or the error to raise.
pub type ApiResult = Result<String, ApiError>;

fn to_text(v: &Value) -> ApiResult {
    serde_json::to_string(v)
        .map_err(|e| ApiError::new(ErrorKind::Internal, format!("cannot encode a result: {e}")))
}

fn parse_json(text: &str, what: &str) -> Result<Value, ApiError> {
    pactum_core::json::parse_strict(text.as_bytes())
        .map_err(|e| ApiError::input(format!("{what}: invalid JSON: {e}")))
}

/// `response_only`, `tool_calls` or `full`; `None` stays `None`.
fn level(s: Option<&str>) -> Result<Option<ObservabilityLevel>, ApiError> {
    s.map(|s| {
        ObservabilityLevel::parse(s).ok_or_else(|| {
            ApiError::input(format!(
                "unknown observability level `{}`: expected response_only, tool_calls or full",
                pactum_core::text::one_line(s, 60)
            ))
            .at("", 0, Some("observability".into()))
        })
    })
    .transpose()
}

fn format_of(s: &str) -> Result<TraceFormat, ApiError> {
    match s {
        "auto" => Ok(TraceFormat::Auto),
        "openai" => Ok(TraceFormat::Openai),
        "pactum" => Ok(TraceFormat::Pactum),
        "tabular" => Ok(TraceFormat::Tabular),
        other => Err(ApiError::input(format!(
            "unknown trace format `{}`: expected auto, openai, pactum or tabular",
            pactum_core::text::one_line(other, 60)
        ))
        .at("", 0, Some("format".into()))),
    }
}

fn record_error(e: &pactum_trace::RecordError) -> ApiError {
    ApiError::input(e.to_string()).at(e.file.clone(), e.line, e.field.clone())
}

/// One record held in memory (an OpenAI-style conversation or a
/// pactum-format trace, `format` `openai` or `pactum`) → the trace in
/// pactum's own format, as JSON. `observability` is the level for a record
/// that declares none.
///
/// # Errors
/// `InputError` with `name`, line and field when the record cannot be
/// imported (no level anywhere among them).
pub fn import_record(
    record: &str,
    name: &str,
    format: &str,
    observability: Option<&str>,
) -> ApiResult {
    let trace = pactum_trace::import_record(
        record.as_bytes(),
        name,
        format_of(format)?,
        level(observability)?,
    )
    .map_err(|e| record_error(&e))?;
    serde_json::to_string(&trace)
        .map_err(|e| ApiError::new(ErrorKind::Internal, format!("cannot encode a trace: {e}")))
}

/// Every trace of a file, through pactum's importers: `{"traces": [...],
/// "errors": [{file, line, field, message}], "skipped": n}`.
///
/// # Errors
/// `InputError` when the file as a whole cannot be read (missing, format
/// unknown, no observability level).
pub fn read_trace_file(path: &str, format: &str, observability: Option<&str>) -> ApiResult {
    let opts = ImportOptions {
        format: format_of(format)?,
        observability: level(observability)?,
        ..ImportOptions::default()
    };
    let mut traces = Vec::new();
    let mut errors = Vec::new();
    let mut skipped = 0u64;
    let read = pactum_trace::read_traces(Path::new(path), &opts, &mut |item| {
        match item {
            Item::Trace(t) => traces.push(serde_json::to_value(&t).unwrap_or(Value::Null)),
            Item::Skipped { .. } => skipped += 1,
            Item::Error(e) => errors.push(json!({
                "file": e.file, "line": e.line, "field": e.field,
                "message": in_python_terms(&e.message),
            })),
        }
        std::ops::ControlFlow::Continue(())
    });
    if let Err(e) = read {
        let (line, field) = (e.line().unwrap_or(0), e.field().map(str::to_string));
        return Err(ApiError::input(e.to_string()).at(path, line, field));
    }
    if traces.is_empty() && errors.is_empty() {
        // As the grade pipeline says of such an input: never a pass.
        let why = if skipped > 0 {
            format!("{path}: holds no trace (its {skipped} record(s) were skipped): an input with no trace is never a pass")
        } else {
            format!("{path}: holds no trace: an input with no trace is never a pass")
        };
        return Err(ApiError::input(why).at(path, 0, None));
    }
    let texts: Vec<String> = errors.iter().map(Value::to_string).collect();
    if !texts.is_empty() {
        let rule = pactum_core::secret::redaction_rule(
            &Redactor::default(),
            &pactum_runner::env_keys(std::iter::empty()),
            texts.iter().map(String::as_str),
        )
        .map_err(|_| {
            ApiError::input(format!(
                "{path}: records could not be read, and their errors could not be redacted"
            ))
            .at(path, 0, None)
        })?;
        for e in &mut errors {
            rule.redact_value(e);
        }
    }
    to_text(&json!({"traces": traces, "errors": errors, "skipped": skipped}))
}

fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({
        "level": d.level.as_str(),
        "code": d.code,
        "file": d.file.display().to_string(),
        "line": d.line,
        "column": d.column,
        "message": d.message,
        "hint": d.hint,
    })
}

/// The error for a file rejected with `diags`: located at its first error.
fn rejected(kind: ErrorKind, diags: &[Diagnostic]) -> ApiError {
    let first = diags
        .iter()
        .find(|d| d.is_error())
        .or_else(|| diags.first());
    let mut e = ApiError::new(
        kind,
        first.map_or_else(|| "invalid input".to_string(), |d| d.to_string()),
    );
    if let Some(d) = first {
        e = e.at(
            d.file.display().to_string(),
            d.line as u64,
            Some(d.code.clone()),
        );
    }
    e.diagnostics = diags.iter().map(diagnostic_json).collect();
    e
}

fn contract_json(c: &pactum_suite::LoadedContract) -> ApiResult {
    to_text(&json!({
        "id": c.contract.id,
        "digest": c.digest,
        "path": c.path.display().to_string(),
        "model": serde_json::to_value(&c.contract).unwrap_or(Value::Null),
        "warnings": c.warnings.iter().map(diagnostic_json).collect::<Vec<_>>(),
    }))
}

/// A contract's text (YAML, or JSON when `name` ends in `.json`) read,
/// validated and linted by the contract loader: `{"id", "digest", "path",
/// "model", "warnings"}`.
///
/// # Errors
/// `ContractError` at the first error, carrying every diagnostic.
pub fn parse_contract(text: &str, name: &str) -> ApiResult {
    let loaded = pactum_suite::parse_contract(text, Path::new(name))
        .map_err(|d| rejected(ErrorKind::Contract, &d))?;
    contract_json(&loaded)
}

/// As [`parse_contract`], from a file.
///
/// # Errors
/// As [`parse_contract`].
pub fn load_contract(path: &str) -> ApiResult {
    let loaded = pactum_suite::load_contract(Path::new(path))
        .map_err(|d| rejected(ErrorKind::Contract, &d))?;
    contract_json(&loaded)
}

/// JSON text → the same document as block YAML, by pactum's YAML writer
/// ([`pactum_suite::to_yaml`]: strings quoted, read back before it is
/// returned).
///
/// # Errors
/// `InputError` when `json_text` is not JSON; `InternalError` when the
/// YAML would not read back to the same document.
pub fn to_yaml(json_text: &str) -> ApiResult {
    let v = parse_json(json_text, "document")?;
    pactum_suite::to_yaml(&v).map_err(|e| ApiError::new(ErrorKind::Internal, e.to_string()))
}

/// Everything a pipeline said, kept for Python; every event after
/// [`Sink::redact_with`] redacted of its secrets (SPEC §4), as the reports
/// are.
#[derive(Default)]
struct Collect {
    redactor: Redactor,
    redaction_failed: bool,
    results: Vec<Value>,
    input_errors: Vec<Value>,
    missing: Vec<Value>,
    diagnostics: Vec<Diagnostic>,
    messages: Vec<Value>,
    warnings: Vec<Value>,
}

impl Collect {
    fn redacted<T: serde::Serialize>(&self, t: &T) -> Value {
        let mut v = serde_json::to_value(t).unwrap_or(Value::Null);
        self.redactor.redact_value(&mut v);
        v
    }

    /// The messages and diagnostics as one error text, for a rejection.
    fn said(&self) -> String {
        let mut lines: Vec<String> = self.diagnostics.iter().map(|d| d.to_string()).collect();
        lines.extend(
            self.messages
                .iter()
                .filter_map(|m| m["text"].as_str().map(str::to_string)),
        );
        lines.join("\n")
    }

    /// `PipelineError` → the error to raise, with the diagnostics said.
    fn error(&self, e: PipelineError, contract_files: &[PathBuf]) -> ApiError {
        match e {
            PipelineError::Rejected => {
                let errors: Vec<Diagnostic> = self
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .cloned()
                    .collect();
                if errors.is_empty() {
                    return ApiError::input(self.said());
                }
                let kind = if errors.iter().all(|d| contract_files.contains(&d.file)) {
                    ErrorKind::Contract
                } else {
                    ErrorKind::Input
                };
                let mut err = rejected(kind, &errors);
                err.diagnostics = self.diagnostics.iter().map(diagnostic_json).collect();
                err
            }
            PipelineError::Invalid(m) => ApiError::input(self.redactor.redact_string(m)),
            PipelineError::Report(e) => ApiError::new(ErrorKind::Report, e.to_string()),
            PipelineError::Store(e) => ApiError::new(ErrorKind::Store, e.to_string()),
            PipelineError::Run(e) => ApiError::new(ErrorKind::Run, e.to_string()),
            PipelineError::Internal(m) => ApiError::new(ErrorKind::Internal, m),
        }
    }

    fn body(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("results".into(), Value::Array(self.results.clone()));
        m.insert(
            "input_errors".into(),
            Value::Array(self.input_errors.clone()),
        );
        m.insert("missing_trials".into(), Value::Array(self.missing.clone()));
        m.insert("warnings".into(), Value::Array(self.warnings.clone()));
        m.insert("messages".into(), Value::Array(self.messages.clone()));
        m.insert(
            "diagnostics".into(),
            Value::Array(self.diagnostics.iter().map(diagnostic_json).collect()),
        );
        m
    }
}

impl Sink for Collect {
    fn begin(&mut self, _info: &RunInfo) {}
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) {
        let mut v = self.redacted(r);
        if let (Some(e), Value::Object(o)) = (expected, &mut v) {
            o.insert("expected".into(), Value::String(e.as_str().into()));
        }
        self.results.push(v);
    }
    fn input_error(&mut self, e: &InputError) {
        let v = self.redacted(e);
        self.input_errors.push(v);
    }
    fn missing_trial(&mut self, m: &MissingTrial) {
        let v = self.redacted(m);
        self.missing.push(v);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.warnings = end.warnings.iter().map(|w| self.redacted(w)).collect();
    }
    fn redact_with(&mut self, redactor: &Redactor) {
        match self.redactor.with(redactor) {
            Ok(all) => self.redactor = all,
            Err(_) => self.redaction_failed = true,
        }
    }
    fn report_failed(&self) -> bool {
        self.redaction_failed
    }
    fn diagnostics(&mut self, diags: &[Diagnostic]) {
        self.diagnostics.extend_from_slice(diags);
    }
    fn message(&mut self, m: Message) {
        let level = match m.level {
            MessageLevel::Warning => "warning",
            MessageLevel::Error => "error",
            MessageLevel::Info => "info",
        };
        let text = self.redactor.redact_string(m.text);
        self.messages.push(json!({"level": level, "text": text}));
    }
}

fn str_field<'a>(req: &'a Value, key: &str) -> Result<Option<&'a str>, ApiError> {
    match req.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => {
            Err(ApiError::input(format!("`{key}` must be a string")).at("", 0, Some(key.into())))
        }
    }
}

/// A count of the request (`jobs`, `trials`): absent or null is `None`;
/// otherwise an integer from 1 to `max`, never silently replaced.
fn count_field(req: &Value, key: &str, max: u64) -> Result<Option<u64>, ApiError> {
    match req.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=max).contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::input(format!(
                "`{key}` must be an integer from 1 to {max}, got {}",
                pactum_core::text::one_line(&v.to_string(), 40)
            ))
            .at("", 0, Some(key.into()))),
        },
    }
}

fn paths(req: &Value, key: &str) -> Result<Vec<PathBuf>, ApiError> {
    match req.get(key) {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str().map(PathBuf::from).ok_or_else(|| {
                    ApiError::input(format!("`{key}` must list paths")).at("", 0, Some(key.into()))
                })
            })
            .collect(),
        Some(_) => {
            Err(ApiError::input(format!("`{key}` must be a list")).at("", 0, Some(key.into())))
        }
    }
}

/// The policy of a request: `policy` (an object of [`Policy`]'s fields)
/// or `policy_file` (a policy file, read by the policy loader); neither:
/// the default policy.
fn policy_of(req: &Value) -> Result<Policy, ApiError> {
    if let Some(path) = str_field(req, "policy_file")? {
        return pactum_suite::load_policy(Path::new(path))
            .map(|p| p.policy)
            .map_err(|d| rejected(ErrorKind::Input, &d));
    }
    match req.get("policy") {
        None | Some(Value::Null) => Ok(Policy::default()),
        Some(v) => serde_json::from_value::<Policy>(v.clone()).map_err(|e| {
            ApiError::input(format!("policy: {e}")).at("<policy>", 0, Some("policy".into()))
        }),
    }
}

/// What a front end hands the grade pipeline for one inline contract:
/// its text written to a file read as JSON when `json` is set or `name`
/// ends in `.json`, as YAML otherwise.
fn write_inline(
    dir: &Path,
    index: usize,
    name: &str,
    text: &str,
    json: bool,
) -> Result<PathBuf, ApiError> {
    let ext = if json || name.ends_with(".json") {
        "json"
    } else {
        "yaml"
    };
    let path = dir.join(format!("contract-{index:04}.{ext}"));
    std::fs::write(&path, text).map_err(|e| {
        ApiError::new(
            ErrorKind::Internal,
            format!("cannot write {}: {e}", path.display()),
        )
    })?;
    Ok(path)
}

/// Grades traces against contracts with the grade pipeline (the one
/// `pactum grade` runs). The request (JSON):
///
/// * `traces`: in order, each `{"file": PATH}` or `{"inline": TRACE}` (a
///   trace in pactum's format, as [`import_record`] gives it);
/// * `contracts`: each `{"file": PATH}` (a file or folder) or
///   `{"inline": {"name", "text", "json"}}` (`json`: the text is JSON
///   whatever the name);
/// * `observability`, `format`: how to read the trace files;
/// * `policy` or `policy_file`; `expectations`; `judge` (`url`, `model`,
///   `api_key_env`); `store`; `jobs`.
///
/// Inline items are written to a temporary folder and read back by the
/// importers; their results name where they came from.
///
/// Returns `{"results", "input_errors", "warnings", "messages",
/// "diagnostics", "missing_trials", "outcome"}`.
///
/// # Errors
/// As the pipeline's: `ContractError`/`InputError` for rejected files,
/// `StoreError` when the judge's store cannot open, …
pub fn grade(request: &str) -> ApiResult {
    grade_until(request, None)
}

/// [`grade`], stopped before the next trace once `stop` is raised (a
/// Ctrl-C in Python): the call then fails with `RunError` `interrupted`.
///
/// # Errors
/// As [`grade`].
pub fn grade_until(
    request: &str,
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> ApiResult {
    let req = parse_json(request, "grade request")?;
    let dir = tempfile::tempdir().map_err(|e| {
        ApiError::new(
            ErrorKind::Internal,
            format!("cannot make a temporary folder: {e}"),
        )
    })?;
    let mut contracts = Vec::new();
    let mut contract_names: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (i, c) in req["contracts"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(f) = c.get("file").and_then(Value::as_str) {
            contracts.push(PathBuf::from(f));
        } else if let Some(inline) = c.get("inline") {
            let name = inline["name"].as_str().unwrap_or("<contract>");
            let text = inline["text"].as_str().ok_or_else(|| {
                ApiError::input("an inline contract needs its text").at(
                    name,
                    0,
                    Some("text".into()),
                )
            })?;
            let json = inline.get("json").and_then(Value::as_bool) == Some(true);
            let p = write_inline(dir.path(), i, name, text, json)?;
            contract_names.insert(p.clone(), name.to_string());
            contracts.push(p);
        } else {
            return Err(ApiError::input("each contract is {file} or {inline}"));
        }
    }
    // Consecutive inline traces share one JSONL file; each result of one
    // gets the source its trace had before (line n: the n-th trace).
    let mut traces = Vec::new();
    let mut inline_sources: BTreeMap<String, Vec<Option<Value>>> = BTreeMap::new();
    let mut pending: Vec<&Value> = Vec::new();
    let mut flush =
        |pending: &mut Vec<&Value>, traces: &mut Vec<PathBuf>| -> Result<(), ApiError> {
            if pending.is_empty() {
                return Ok(());
            }
            let path = dir.path().join(format!("traces-{:04}.jsonl", traces.len()));
            let mut text = String::new();
            let mut sources = Vec::new();
            for t in pending.drain(..) {
                sources.push(t.get("source").cloned());
                text.push_str(&serde_json::to_string(t).unwrap_or_default());
                text.push('\n');
            }
            std::fs::write(&path, text).map_err(|e| {
                ApiError::new(
                    ErrorKind::Internal,
                    format!("cannot write {}: {e}", path.display()),
                )
            })?;
            inline_sources.insert(path.display().to_string(), sources);
            traces.push(path);
            Ok(())
        };
    for t in req["traces"].as_array().into_iter().flatten() {
        if let Some(f) = t.get("file").and_then(Value::as_str) {
            flush(&mut pending, &mut traces)?;
            traces.push(PathBuf::from(f));
        } else if let Some(inline) = t.get("inline") {
            pending.push(inline);
        } else {
            return Err(ApiError::input("each trace is {file} or {inline}"));
        }
    }
    flush(&mut pending, &mut traces)?;
    // Nothing to grade is never an empty green run.
    if traces.is_empty() {
        return Err(
            ApiError::input("no trace to grade: give at least one trace or trace file").at(
                "",
                0,
                Some("traces".into()),
            ),
        );
    }
    if contracts.is_empty() {
        return Err(
            ApiError::input("no contract to grade against: give at least one contract").at(
                "",
                0,
                Some("contracts".into()),
            ),
        );
    }
    let judge = match req.get("judge") {
        None | Some(Value::Null) => None,
        Some(j) => Some(JudgeConfig {
            url: str_field(j, "url")?
                .ok_or_else(|| ApiError::input("judge: `url` is required"))?
                .to_string(),
            model: str_field(j, "model")?
                .ok_or_else(|| ApiError::input("judge: `model` is required"))?
                .to_string(),
            api_key_env: str_field(j, "api_key_env")?.map(str::to_string),
        }),
    };
    // As `pactum grade`: every core unless told.
    let parallel = match count_field(&req, "jobs", 1024)? {
        None => Parallel::all_cores(),
        Some(n) => Parallel::new(
            usize::try_from(n)
                .ok()
                .and_then(std::num::NonZeroUsize::new)
                .unwrap_or(std::num::NonZeroUsize::MIN),
        ),
    };
    let greq = GradeRequest {
        contracts: contracts.clone(),
        traces,
        import: ImportOptions {
            format: format_of(str_field(&req, "format")?.unwrap_or("auto"))?,
            observability: level(str_field(&req, "observability")?)?,
            ..ImportOptions::default()
        },
        policy: policy_of(&req)?,
        expectations: str_field(&req, "expectations")?.map(PathBuf::from),
        judge,
        store: str_field(&req, "store")?.map(PathBuf::from),
        parallel,
        announce_unreadable: false,
        stop,
    };
    let mut sink = Collect::default();
    let outcome = pactum_pipeline::grade::grade(&greq, &mut sink);
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => {
            let mut err = sink.error(e, &contracts);
            rename_temp(&mut err, &contract_names);
            return Err(err);
        }
    };
    if sink.redaction_failed {
        return Err(ApiError::new(
            ErrorKind::Internal,
            "the secrets to redact could not be combined: nothing is shown",
        ));
    }
    if outcome.interrupted {
        return Err(ApiError::new(
            ErrorKind::Run,
            "interrupted: grading stopped before every trace was graded",
        ));
    }
    for r in &mut sink.results {
        restore_source(r, &inline_sources);
    }
    // What the run says about an inline contract names the contract, not
    // the temporary file it was read from.
    for (path, name) in &contract_names {
        let p = path.display().to_string();
        for w in sink.warnings.iter_mut().chain(sink.messages.iter_mut()) {
            for key in ["message", "text"] {
                if let Some(Value::String(t)) = w.get_mut(key) {
                    *t = t.replace(&p, name);
                }
            }
        }
        for d in &mut sink.diagnostics {
            if d.file == *path {
                d.file = PathBuf::from(name);
            }
        }
    }
    let mut body = sink.body();
    body.insert(
        "outcome".into(),
        json!({
            "graded": outcome.graded,
            "input_errors": outcome.input_errors,
            "by_status": outcome.by_status.iter().map(|(s, n)| (s.as_str().to_string(), json!(n))).collect::<Map<_, _>>(),
        }),
    );
    to_text(&Value::Object(body))
}

/// A result of an inline trace names the source the trace had (or none),
/// not the temporary file it was read back from.
fn restore_source(r: &mut Value, inline: &BTreeMap<String, Vec<Option<Value>>>) {
    let Some(src) = r
        .get("source")
        .and_then(|s| serde_json::from_value::<SourceRef>(s.clone()).ok())
    else {
        return;
    };
    let Some(sources) = inline.get(&src.file) else {
        return;
    };
    let Value::Object(o) = r else { return };
    let original = usize::try_from(src.line)
        .ok()
        .and_then(|l| l.checked_sub(1))
        .and_then(|i| sources.get(i))
        .cloned()
        .flatten();
    match original {
        Some(s) if !s.is_null() => {
            o.insert("source".into(), s);
        }
        _ => {
            o.remove("source");
        }
    }
}

/// An error about a temporary contract file names the contract instead.
fn rename_temp(err: &mut ApiError, names: &BTreeMap<PathBuf, String>) {
    for (path, name) in names {
        let p = path.display().to_string();
        err.message = err.message.replace(&p, name);
        if err.file.as_deref() == Some(p.as_str()) {
            err.file = Some(name.clone());
        }
        for d in &mut err.diagnostics {
            if d["file"].as_str() == Some(p.as_str()) {
                d["file"] = Value::String(name.clone());
            }
        }
    }
}

/// Runs a suite against its live targets with the run pipeline (`pactum
/// run`). The request: `suite` (path), `db`, `jobs`, `cache` (`use`,
/// `bypass`, `refresh`), `resume` (a run id or prefix, or `latest`: go on
/// with that unfinished run instead of starting one). Returns the results and `{"run_id", "statuses",
/// "missing", "interrupted", "stopped"}`.
///
/// # Errors
/// `InputError`/`ContractError` for a rejected suite, `StoreError`,
/// `RunError` when the run cannot start.
pub fn run(request: &str) -> ApiResult {
    run_until(request, None)
}

/// [`run`], stopped as Ctrl-C stops `pactum run` once `stop` is raised:
/// every finished trial stored, the run marked interrupted (resumable).
/// The answer then says `"interrupted": true`.
///
/// # Errors
/// As [`run`]'s.
pub fn run_until(
    request: &str,
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> ApiResult {
    let req = parse_json(request, "run request")?;
    let suite = str_field(&req, "suite")?.ok_or_else(|| {
        ApiError::input("run: `suite` is required").at("", 0, Some("suite".into()))
    })?;
    let mut sink = Collect::default();
    let prepared = {
        let mut diags = Vec::new();
        let p = pactum_pipeline::run::prepare(Path::new(suite), &mut |d: &[Diagnostic]| {
            diags.extend_from_slice(d);
        });
        sink.diagnostics(&diags);
        p.map_err(|e| sink.error(e, &[]))?
    };
    let cache = match str_field(&req, "cache")?.unwrap_or("use") {
        "use" => pactum_store::CacheMode::Use,
        "bypass" => pactum_store::CacheMode::Bypass,
        "refresh" => pactum_store::CacheMode::Refresh,
        other => {
            return Err(ApiError::input(format!(
                "unknown cache mode `{}`: expected use, bypass or refresh",
                pactum_core::text::one_line(other, 40)
            ))
            .at("", 0, Some("cache".into())))
        }
    };
    let rreq = RunRequest {
        jobs: usize::try_from(count_field(&req, "jobs", 1024)?.unwrap_or(1)).unwrap_or(1),
        db: str_field(&req, "db")?.map(PathBuf::from),
        cache,
        resume: str_field(&req, "resume")?.map(|r| match r {
            "latest" => pactum_pipeline::run::Resume::Latest,
            id => pactum_pipeline::run::Resume::Run(id.to_string()),
        }),
        cancel_on_signals: false,
        stop,
    };
    let summary = prepared
        .run(&rreq, &mut sink)
        .map_err(|e| sink.error(e, &[]))?;
    let mut body = sink.body();
    body.insert("run_id".into(), json!(summary.run_id.as_str()));
    body.insert(
        "statuses".into(),
        Value::Object(
            summary
                .statuses
                .0
                .iter()
                .map(|(s, n)| (s.as_str().to_string(), json!(n)))
                .collect(),
        ),
    );
    body.insert("missing".into(), json!(summary.missing));
    body.insert("interrupted".into(), json!(summary.interrupted));
    body.insert(
        "stopped".into(),
        json!(summary.stopped.map(|e| e.to_string())),
    );
    to_text(&Value::Object(body))
}

/// Measures contract strength with the strength pipeline (`pactum
/// strength`). The request: `contracts`, `traces`, `probes` (paths),
/// `observability`, `format`, `trials`, `out`, `policy_file`. Returns the
/// summary (what `pactum strength --json` prints) under `summary`.
///
/// # Errors
/// As the pipeline's.
pub fn strength(request: &str) -> ApiResult {
    let req = parse_json(request, "strength request")?;
    let contracts = paths(&req, "contracts")?;
    let sreq = StrengthRequest {
        contracts: contracts.clone(),
        traces: paths(&req, "traces")?,
        import: ImportOptions {
            format: format_of(str_field(&req, "format")?.unwrap_or("auto"))?,
            observability: level(str_field(&req, "observability")?)?,
            ..ImportOptions::default()
        },
        policy: str_field(&req, "policy_file")?.map(PathBuf::from),
        trials: count_field(&req, "trials", u64::from(u32::MAX))?
            .and_then(|t| u32::try_from(t).ok()),
        probes: paths(&req, "probes")?,
        probes_from: str_field(&req, "probes_from")?.map(PathBuf::from),
        out: str_field(&req, "out")?.map(PathBuf::from),
        html: None,
    };
    let mut sink = Collect::default();
    let outcome = pactum_pipeline::strength::strength(&sreq, &mut sink)
        .map_err(|e| sink.error(e, &contracts))?;
    let mut body = sink.body();
    body.insert(
        "summary".into(),
        serde_json::to_value(&outcome.summary).unwrap_or(Value::Null),
    );
    to_text(&Value::Object(body))
}

fn outcome_of(s: &str) -> Result<Outcome, ApiError> {
    match s {
        "detected" | "D" => Ok(Outcome::Detected),
        "not_detected" | "N" => Ok(Outcome::NotDetected),
        "undetermined" | "U" => Ok(Outcome::Undetermined),
        other => Err(ApiError::input(format!(
            "unknown outcome `{}`: expected detected, not_detected or undetermined",
            pactum_core::text::one_line(other, 40)
        ))),
    }
}

/// SPEC §3.1's operators on outcomes (`and`, `or`, `not`; `b` is ignored
/// by `not`), as the evaluator composes them.
///
/// # Errors
/// `InputError` for an unknown operator or outcome.
pub fn kleene(op: &str, a: &str, b: &str) -> ApiResult {
    let a = outcome_of(a)?;
    let r = match op {
        "and" => a.and(outcome_of(b)?),
        "or" => a.or(outcome_of(b)?),
        "not" => a.not(),
        other => {
            return Err(ApiError::input(format!(
                "unknown operator `{}`: expected and, or or not",
                pactum_core::text::one_line(other, 40)
            )))
        }
    };
    Ok(r.as_str().to_string())
}

/// Untrusted text made safe for a terminal
/// ([`pactum_core::text::strip_terminal_escapes`]): what the pytest
/// plugin prints of a trace or a contract goes through it.
pub fn terminal_safe(text: &str) -> String {
    pactum_core::text::strip_terminal_escapes(text)
}

/// The status of a trial set ([`pactum_core::status::reduce_trials`]).
///
/// # Errors
/// `InputError` for an unknown status.
pub fn reduce_trials(statuses: &[String]) -> ApiResult {
    let parsed: Result<Vec<TestStatus>, ApiError> = statuses
        .iter()
        .map(|s| {
            TestStatus::parse(s).ok_or_else(|| {
                ApiError::input(format!(
                    "unknown status `{}`: expected pass, fail, undetermined or error",
                    pactum_core::text::one_line(s, 40)
                ))
            })
        })
        .collect();
    Ok(pactum_core::status::reduce_trials(&parsed?)
        .as_str()
        .to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_without_a_level_is_refused_naming_the_field() {
        let e = import_record(
            r#"{"messages":[{"role":"user","content":"hi"}]}"#,
            "<m>",
            "openai",
            None,
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Input);
        assert_eq!(e.field.as_deref(), Some("/observability"));
        let ok = import_record(
            r#"{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}"#,
            "<m>",
            "openai",
            Some("response_only"),
        )
        .unwrap();
        assert!(ok.contains("\"response_only\""));
    }

    #[test]
    fn a_python_built_contract_round_trips_through_yaml() {
        let src = r#"{"version":1,"id":"c","prohibited":[{"id":"p","text":"Send money","check":{"all":[{"tool_called":{"name":"send_money","args":{"/recipient":"US1"}}},{"not":{"contains":"ok: yes"}}]}}]}"#;
        let a: Value = serde_json::from_str(&parse_contract(src, "<dict>.json").unwrap()).unwrap();
        let yaml = to_yaml(src).unwrap();
        let b: Value = serde_json::from_str(&parse_contract(&yaml, "<c>.yaml").unwrap()).unwrap();
        assert_eq!(a["digest"], b["digest"], "{yaml}");
    }

    fn example(rel: &str) -> String {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/agentdojo")
            .join(rel)
            .display()
            .to_string()
    }

    fn agentdojo_request(extra: Value) -> String {
        let mut req = json!({
            "traces": [{"file": example("traces.jsonl")}],
            "contracts": [{"file": example("contracts")}],
            "observability": "tool_calls",
        });
        if let (Value::Object(r), Value::Object(e)) = (&mut req, extra) {
            r.extend(e);
        }
        req.to_string()
    }

    #[test]
    fn a_raised_stop_grades_nothing_and_says_interrupted() {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let e = grade_until(&agentdojo_request(json!({})), Some(stop)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Run);
        assert!(e.message.contains("interrupted"), "{e:?}");
        let out: Value =
            serde_json::from_str(&grade(&agentdojo_request(json!({}))).unwrap()).unwrap();
        assert_eq!(out["results"].as_array().map(Vec::len), Some(24));
    }

    #[test]
    fn a_contract_that_selects_nothing_is_said_aloud() {
        let sec = r#"{"version":1,"id":"sec","select":{"pointer":"/metadata/suite_name","equals":"Banking"},"prohibited":[{"id":"p","text":"Send money","check":{"tool_called":{"name":"send_money"}}}]}"#;
        let req = json!({
            "traces": [{"file": example("traces.jsonl")}],
            "contracts": [{"inline": {"name": "sec.json", "text": sec}}, {"file": example("contracts")}],
            "observability": "tool_calls",
        });
        let out: Value = serde_json::from_str(&grade(&req.to_string()).unwrap()).unwrap();
        let said: Vec<&str> = out["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["code"] == "contract-selected-nothing")
            .filter_map(|w| w["message"].as_str())
            .collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with("sec (sec.json)"), "{said:?}");
    }

    #[test]
    fn nothing_to_grade_is_an_error() {
        let e = grade(
            &json!({"traces": [], "contracts": [{"file": example("contracts")}]}).to_string(),
        )
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("traces"));
        let e = grade(&json!({"traces": [{"file": example("traces.jsonl")}], "contracts": [], "observability": "tool_calls"}).to_string())
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("contracts"));
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("e.jsonl");
        std::fs::write(&empty, "").unwrap();
        let e = read_trace_file(&empty.display().to_string(), "auto", Some("full")).unwrap_err();
        assert!(e.message.contains("holds no trace"), "{e:?}");
    }

    #[test]
    fn a_bad_count_is_refused_not_replaced() {
        for jobs in [json!(0), json!(-1), json!(2.5), json!("2"), json!(5000)] {
            let e = grade(&agentdojo_request(json!({"jobs": jobs}))).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("jobs"), "{jobs}");
        }
        assert!(grade(&agentdojo_request(json!({"jobs": 2}))).is_ok());
    }

    #[test]
    fn an_error_never_carries_a_key() {
        let key = "sk-proj-Abc123Def456Ghi789Jkl012Mno345";
        let e = import_record(
            &json!({"observability": "full", "messages": [{"role": key, "content": "x"}]})
                .to_string(),
            "<m>",
            "openai",
            None,
        )
        .unwrap_err();
        assert!(
            e.message.contains(key),
            "the raw error quotes the record: {e:?}"
        );
        let shown = redact_error(e);
        assert!(!format!("{shown:?}").contains(key), "{shown:?}");
    }

    #[test]
    fn yaml_keeps_strings_that_look_like_numbers() {
        let src = r#"{"version":1,"id":"c","prohibited":[{"id":"p","text":"Open the file","check":{"contains":"0o777"}}]}"#;
        let yaml = to_yaml(src).unwrap();
        let a: Value = serde_json::from_str(&parse_contract(src, "<d>.json").unwrap()).unwrap();
        let b: Value = serde_json::from_str(&parse_contract(&yaml, "<c>.yaml").unwrap()).unwrap();
        assert_eq!(a["digest"], b["digest"], "{yaml}");
    }

    #[test]
    fn kleene_matches_the_spec_table() {
        assert_eq!(kleene("and", "N", "U").unwrap(), "not_detected");
        assert_eq!(kleene("or", "N", "U").unwrap(), "undetermined");
        assert_eq!(kleene("not", "U", "").unwrap(), "undetermined");
        assert!(kleene("xor", "D", "D").is_err());
    }
}
