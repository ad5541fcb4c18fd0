//! Reading a suite file: the checks a schema cannot express, contracts, and
//! the model with its snapshot and digest.
//!
//! Every check reads the document's JSON value and tolerates wrong types
//! (the schema reports those), so one call reports every problem. The
//! model is built only when nothing is wrong.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use pactum_core::digest::{canonical_json, sha256_hex};
use pactum_core::json::escape_pointer_token;
use serde_json::{Map, Value};

use super::inline::check_inline;
use super::names::{
    check_env_name, is_header_name, is_id, is_identifier, is_secret_header, is_secret_var,
    EnvNameProblem,
};
use super::raw::{RawKind, RawModel, RawRetries, RawSuite, RawTarget, RawTest};
use super::template::{
    http_context, reads, render_template, render_value, Reads, TurnContext, ENV_ROOT, RUNTIME_NAMES,
};
use super::{
    AuthoredTest, ContractSource, Limits, LoadedSuite, ModelSpec, ResolvedContract, ResponseMap,
    Retries, Suite, TargetKind, TargetSpec, TestSpec, SUITE_VERSION,
};
use crate::checks::{in_file_order, Checks};
use crate::contract::load_contract;
use crate::diagnostic::Diagnostic;
use crate::document::{short, Document, Part, Pos};
use crate::schema::did_you_mean;

mod streamed;

/// Reads and validates a suite file (`.json` as JSON, anything else as
/// YAML), the contract files it names (relative to its folder) and its
/// inline contracts.
///
/// # Errors
/// Every diagnostic, errors and warnings: first the suite file's, in file
/// order, then each contract file's, in the order they are first named. At
/// least one is an error. Codes besides the contract ones (listed in
/// `docs/suites.md`): `unknown-key`, `missing-key` (`observability` among
/// them), `wrong-type`, `bad-value` (an unknown `kind`), `out-of-range`
/// (`trials: 0`), `bad-name`, `bad-id`, `duplicate-test`, `unknown-target`,
/// `no-target`, `prompt-and-turns`, `no-prompt`, `no-contract`,
/// `turn-range`, `backoff-range`, `bad-var-name`, `reserved-var`,
/// `template-syntax`, `undefined-variable`, `runtime-variable`,
/// `env-outside-headers`, `bad-env-template`, `template-error`, `invalid-jsonpath`,
/// `literal-api-key`, `bad-env-name`, `bad-url`, `bad-header`,
/// `reserved-param`, `judge-temperature`, `missing-dir`, `io`,
/// `invalid-contract`, `duplicate-contract-id`; warnings `unused-var`,
/// `literal-secret`. (`model` would mean the schema and the model
/// disagree: a bug.)
pub fn load_suite(path: &Path) -> Result<LoadedSuite, Vec<Diagnostic>> {
    let src = crate::document::read_text(path)?;
    read_suite(src, path)
}

/// The suite in `src`: read one test at a time when it can be, else as
/// one document.
fn read_suite(src: String, path: &Path) -> Result<LoadedSuite, Vec<Diagnostic>> {
    let src = match read_suite_streamed(src, path) {
        Ok(loaded) => return Ok(loaded),
        Err(src) => src,
    };
    let doc = Document::parse(&src, path)?;
    drop(src);
    from_document(doc)
}

/// Like [`load_suite`], on text already read; `path` names it in
/// diagnostics, picks JSON or YAML by its extension, and is what relative
/// paths (contracts, `cwd`) resolve against.
///
/// # Errors
/// As [`load_suite`].
pub fn parse_suite(src: &str, path: &Path) -> Result<LoadedSuite, Vec<Diagnostic>> {
    if let Some((suite, warnings)) = streamed::streamed(src, path) {
        return Ok(loaded(suite, warnings));
    }
    let doc = Document::parse(src, path)?;
    from_document(doc)
}

/// The suite in `src` read one test at a time, when it can be (see
/// `streamed.rs`); else `src` back, to be read as one document.
///
/// # Errors
/// `src`, when the suite must be read whole.
pub(crate) fn read_suite_streamed(src: String, path: &Path) -> Result<LoadedSuite, String> {
    match streamed::streamed(&src, path) {
        Some((suite, warnings)) => {
            // The text goes before the snapshot, as large as the tests.
            drop(src);
            Ok(loaded(suite, warnings))
        }
        None => Err(src),
    }
}

/// A suite model with its snapshot and digest.
fn loaded(suite: Suite, warnings: Vec<Diagnostic>) -> LoadedSuite {
    let (snapshot, digest) = snapshot_of(&suite);
    LoadedSuite {
        suite,
        digest,
        snapshot,
        warnings,
    }
}

/// The environment variables a run of `suite` reads, as `(where, NAME)`:
/// `where` is `target NAME` (an openai target's `api_key_env`, an
/// `env.NAME` in an http target's headers, an exec target's
/// `{{ env.NAME }}`), `judge`, `interpreter` or `simulated_user`. Targets
/// in name order, then the models; each pair once. For the runner's check,
/// before any request, that each is set; every one holds a secret (SPEC §4).
pub fn env_vars_needed(suite: &Suite) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |place: String, var: &str| {
        let pair = (place, var.to_string());
        if !out.contains(&pair) {
            out.push(pair);
        }
    };
    for (name, t) in &suite.targets {
        let place = format!("target {name}");
        match &t.kind {
            TargetKind::Openai {
                api_key_env: Some(var),
                ..
            } => push(place, var),
            TargetKind::Http { headers, .. } => {
                let names: BTreeSet<String> = headers
                    .values()
                    .filter_map(|h| reads(h).ok())
                    .flat_map(|r| r.env)
                    .collect();
                for var in &names {
                    push(place.clone(), var);
                }
            }
            TargetKind::Exec { env, .. } => {
                for var in env.values().filter_map(|v| super::passed_env_var(v)) {
                    push(place.clone(), var);
                }
            }
            _ => {}
        }
    }
    for (place, model) in [
        ("judge", &suite.judge),
        ("interpreter", &suite.interpreter),
        ("simulated_user", &suite.simulated_user),
    ] {
        if let Some(var) = model.as_ref().and_then(|m| m.api_key_env.as_ref()) {
            push(place.to_string(), var);
        }
    }
    out
}

/// The credentials written in the suite's URLs (every base URL, every
/// http target's URL template): userinfo and secret query values
/// ([`pactum_core::secret::url_secrets`]), each once. The suite file holds
/// them, so loading it warns (`literal-secret`); the run redacts them from
/// everything it stores and prints, and its snapshot holds the URLs
/// without them.
pub fn url_credentials(suite: &Suite) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for url in suite_urls(suite) {
        for v in pactum_core::secret::url_secrets(url).values {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// Every secret written into the suite file that pactum flags
/// (`literal-secret`) and can know before a request: the credentials in
/// its URLs ([`url_credentials`]), then, target by target in name order,
/// each secret-looking http header written as plain literal text (with,
/// for a value like `Bearer TOKEN`, the credentials after the scheme on
/// their own) and each secret-looking exec `env` value. Each once.
///
/// The run redacts every one of them from everything it stores and
/// prints, like a key read from the environment (`pactum_runner::
/// run_secrets`), and the suite's snapshot holds `[redacted]` in their
/// place. A secret-looking header that is a template reading `vars` is
/// warned about, but its text is not the secret, and is not listed.
pub fn literal_secrets(suite: &Suite) -> Vec<String> {
    let mut out = url_credentials(suite);
    for (_, value) in literal_fields(suite) {
        let mut values = vec![value.trim()];
        // `Bearer TOKEN`, `Token TOKEN`: a target may echo the token alone.
        if let Some((scheme, rest)) = value.trim().split_once(' ') {
            if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphabetic()) {
                values.push(rest.trim());
            }
        }
        for v in values {
            if !v.is_empty() && !out.iter().any(|o| o == v) {
                out.push(v.to_string());
            }
        }
    }
    out
}

/// The literal secrets of [`literal_secrets`] written as whole field
/// values, with where each is in the suite's snapshot (a JSON pointer).
fn literal_fields(suite: &Suite) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    for (name, t) in &suite.targets {
        let at = format!("/targets/{}", escape_pointer_token(name));
        match &t.kind {
            TargetKind::Http { headers, .. } => {
                for (h, v) in headers {
                    let literal = reads(v)
                        .is_ok_and(|r| r.roots.is_empty() && is_literal_secret_header(h, v, &r));
                    if literal {
                        out.push((
                            format!("{at}/headers/{}", escape_pointer_token(h)),
                            v.as_str(),
                        ));
                    }
                }
            }
            TargetKind::Exec { env, .. } => {
                for (k, v) in env {
                    if is_literal_secret_env(k, v) {
                        out.push((format!("{at}/env/{}", escape_pointer_token(k)), v.as_str()));
                    }
                }
            }
            TargetKind::Openai { .. } => {}
        }
    }
    out
}

/// Whether an http header holds a secret written into the suite
/// (`literal-secret`): a secret-looking name and a value that is not empty
/// and reads no environment variable (`reads` is what the value's
/// template reads).
fn is_literal_secret_header(name: &str, value: &str, reads: &Reads) -> bool {
    is_secret_header(name) && !value.is_empty() && !reads.roots.contains(ENV_ROOT)
}

/// Whether an exec `env` value is a secret written into the suite
/// (`literal-secret`): a secret-looking name and literal text, not
/// `{{ env.NAME }}` (nor a misread attempt at it, which is an error).
fn is_literal_secret_env(name: &str, value: &str) -> bool {
    is_secret_var(name) && super::passed_env_var(value).is_none() && !super::misread_env_pass(value)
}

/// The note a `literal-secret` warning ends with: what pactum does with the
/// value, and whether it can.
fn literal_secret_note(value: &str) -> String {
    match pactum_core::secret::check_secret(value) {
        Ok(_) => "pactum sends it, redacts it from everything it stores and prints, and keeps `[redacted]` in the run's snapshot".to_string(),
        Err(_) => format!(
            "pactum sends it and keeps `[redacted]` in the run's snapshot, but it is shorter than {} characters, so an answer that echoes it cannot be redacted",
            pactum_core::secret::MIN_SECRET_CHARS
        ),
    }
}

/// Every URL a suite names: target base URLs and URL templates, then the
/// models' base URLs.
fn suite_urls(suite: &Suite) -> Vec<&str> {
    let mut urls: Vec<&str> = Vec::new();
    for t in suite.targets.values() {
        match &t.kind {
            TargetKind::Openai { base_url, .. } => urls.push(base_url),
            TargetKind::Http { url, .. } => urls.push(url),
            TargetKind::Exec { .. } => {}
        }
    }
    for m in [&suite.judge, &suite.interpreter, &suite.simulated_user]
        .into_iter()
        .flatten()
    {
        urls.push(&m.base_url);
    }
    urls
}

// ------------------------------------------------------------------ loader

/// Where a contract comes from, for loading each once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum ContractKey {
    /// A contract file, resolved.
    File(PathBuf),
    /// An inline contract at this pointer of the suite document.
    Inline(String),
}

/// Where a template sits in an http request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Url,
    Header,
    Body,
}

/// One template of an http target.
#[derive(Debug, Clone)]
struct Tmpl {
    pointer: String,
    text: String,
    reads: Reads,
    place: Place,
    /// No structural error (syntax, `env` outside headers): worth rendering.
    ok: bool,
}

/// What every test's checks read from the rest of the suite.
struct TestContext {
    /// `defaults.target`, when it names a defined target.
    default_target: Option<String>,
    has_default_target: bool,
    has_default_contract: bool,
}

/// Problems of one http-target template shared by several tests.
#[derive(Debug, Default)]
struct Shared {
    /// (template pointer, variable) → tests that lack it, and did-you-mean
    /// candidates from the first.
    missing: BTreeMap<(String, String), (Vec<String>, Vec<String>)>,
    /// (template pointer, code) → (test, what went wrong) for each test
    /// whose vars make it fail.
    failing: BTreeMap<(String, &'static str), Vec<(String, String)>>,
}

struct Loader<'a> {
    doc: &'a Document,
    dir: PathBuf,
    out: Vec<Diagnostic>,
    /// Diagnostics of other files, grouped by file in first-seen order.
    files: Vec<(PathBuf, Vec<Diagnostic>)>,
    contracts: HashMap<ContractKey, Option<Arc<ResolvedContract>>>,
    http: BTreeMap<String, Vec<Tmpl>>,
    target_names: Vec<String>,
    /// Streaming: the test being read (`/tests/i`) and its own document
    /// (positions only), where diagnostics under it are located.
    test_doc: Option<(String, Document)>,
}

/// The models a suite names besides its targets.
const MODELS: [&str; 3] = ["judge", "interpreter", "simulated_user"];

/// Authored text fields (SPEC §2).
const AUTHORED_TEXT: [&str; 4] = ["goal", "instructions", "restrictions", "scenario"];

pub(crate) fn from_document(mut doc: Document) -> Result<LoadedSuite, Vec<Diagnostic>> {
    let parse_diags = std::mem::take(&mut doc.diagnostics);
    let schema_diags = schema_diagnostics(&mut doc);
    let mut l = Loader::new(&doc, parse_diags);
    let schema_ok = schema_diags.is_empty();
    l.out.extend(schema_diags);
    l.head();
    l.tests();
    l.contracts();

    let mut suite = None;
    if schema_ok && !l.has_errors() {
        // The model takes the tests out of the document's value (each is
        // dropped once converted): the loader lets go of it meanwhile.
        let Loader {
            doc: _,
            dir,
            out,
            files,
            contracts,
            http,
            target_names,
            test_doc,
        } = l;
        let written = match doc.value.get_mut("tests") {
            Some(Value::Array(tests)) => std::mem::take(tests),
            _ => Vec::new(),
        };
        l = Loader {
            doc: &doc,
            dir,
            out,
            files,
            contracts,
            http,
            target_names,
            test_doc,
        };
        match l.build(written) {
            Ok((s, own_contract)) => {
                l.unoffered_tools(&s, &own_contract);
                suite = Some(s);
            }
            Err(why) => l.internal(&why),
        }
    }
    let (errors, warnings) = l.finish();
    // What is left of the document (its positions, the emptied list of
    // tests) goes before the snapshot, as large as the tests, is written.
    drop(doc);
    match suite {
        Some(suite) if errors.is_empty() => Ok(loaded(suite, warnings)),
        _ => {
            // Errors and warnings together, in reading order.
            Err(errors)
        }
    }
}

/// The schema's diagnostics of `doc`, which it sees with inline contracts
/// replaced by a placeholder (the contract loader checks them, located in
/// the suite). They are swapped out and back in place: the document, as
/// large as the suite's tests, is never copied.
fn schema_diagnostics(doc: &mut Document) -> Vec<Diagnostic> {
    let mut inline: Vec<(String, Value)> = Vec::new();
    for ptr in contract_pointers(&doc.value) {
        if let Some(v) = doc.value.pointer_mut(&ptr) {
            if v.is_object() {
                let c = std::mem::replace(v, Value::String("inline contract".into()));
                inline.push((ptr, c));
            }
        }
    }
    let diags = crate::validate_suite_schema(doc);
    for (ptr, c) in inline {
        if let Some(v) = doc.value.pointer_mut(&ptr) {
            *v = c;
        }
    }
    diags
}

/// Where contracts are given: `/defaults/contract`, then each test's.
fn contract_pointers(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if v.pointer("/defaults/contract").is_some() {
        out.push("/defaults/contract".to_string());
    }
    for (i, t) in v
        .get("tests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if t.get("contract").is_some() {
            out.push(format!("/tests/{i}/contract"));
        }
    }
    out
}

impl<'a> Loader<'a> {
    /// A loader of `doc` (its folder the base of relative paths, its
    /// targets' names known), holding `out` as its first diagnostics.
    fn new(doc: &'a Document, out: Vec<Diagnostic>) -> Self {
        let dir = doc.path.parent().map(Path::to_path_buf).unwrap_or_default();
        let target_names = doc
            .value
            .get("targets")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        Loader {
            doc,
            dir,
            out,
            files: Vec::new(),
            contracts: HashMap::new(),
            http: BTreeMap::new(),
            target_names,
            test_doc: None,
        }
    }

    fn get(&self, ptr: &str) -> Option<&Value> {
        self.doc.value.pointer(ptr)
    }

    fn str_at(&self, ptr: &str) -> Option<&str> {
        self.get(ptr).and_then(Value::as_str)
    }

    fn push(&mut self, d: Diagnostic) {
        if d.file == self.doc.path {
            self.out.push(d);
        } else if let Some((_, group)) = self.files.iter_mut().find(|(f, _)| *f == d.file) {
            group.push(d);
        } else {
            self.files.push((d.file.clone(), vec![d]));
        }
    }

    /// The document `ptr` is located in, and its pointer there: the
    /// streamed test's own for a pointer under it.
    fn doc_of<'p>(&self, ptr: &'p str) -> (&Document, &'p str) {
        if let Some((prefix, doc)) = &self.test_doc {
            if let Some(rest) = ptr.strip_prefix(prefix.as_str()) {
                if rest.is_empty() || rest.starts_with('/') {
                    return (doc, rest);
                }
            }
        }
        (self.doc, ptr)
    }

    fn error(&mut self, code: &str, ptr: &str, part: Part, message: String, hint: String) {
        let (doc, ptr) = self.doc_of(ptr);
        let d = doc.error(code, ptr, part, message).with_hint(hint);
        self.out.push(d);
    }

    fn warning(&mut self, code: &str, ptr: &str, part: Part, message: String, hint: String) {
        let (doc, ptr) = self.doc_of(ptr);
        let d = doc.warning(code, ptr, part, message).with_hint(hint);
        self.out.push(d);
    }

    fn has_errors(&self) -> bool {
        self.out.iter().any(Diagnostic::is_error)
            || self
                .files
                .iter()
                .any(|(_, g)| g.iter().any(Diagnostic::is_error))
    }

    /// The schema and the model disagree: say so rather than guess.
    fn internal(&mut self, why: &str) {
        let d = self.doc.error(
            "model",
            "",
            Part::Value,
            format!(
                "the suite does not fit pactum's suite model: {}",
                short(why)
            ),
        );
        self.out.push(d);
    }

    /// (errors-and-warnings when any error, else nothing; warnings).
    fn finish(self) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
        let mut all = in_file_order(self.out);
        for (_, group) in self.files {
            all.extend(in_file_order(group));
        }
        if all.iter().any(Diagnostic::is_error) {
            (all, Vec::new())
        } else {
            (Vec::new(), all)
        }
    }

    // -------------------------------------------------------------- targets

    fn targets(&mut self) {
        let Some(targets) = self.get("/targets").and_then(Value::as_object).cloned() else {
            return;
        };
        for (name, t) in &targets {
            let tp = format!("/targets/{}", escape_pointer_token(name));
            if !is_id(name) {
                self.error(
                    "bad-name",
                    &tp,
                    Part::Key,
                    format!("target name `{}` has characters other than letters, digits, `.`, `_` and `-`", short(name)),
                    "target names appear in reports and cache keys; rename it, e.g. `bank-bot`".into(),
                );
            }
            let Some(obj) = t.as_object() else { continue };
            let kind = obj.get("kind").and_then(Value::as_str);
            if kind == Some("openai") {
                self.connection(&tp, "target");
            }
            self.retries(&tp);
            match kind {
                Some("http") => self.http_target(name, &tp),
                Some("exec") => self.exec_target(&tp),
                _ => {}
            }
        }
    }

    /// `base_url`, `api_key_env` and `params` of an openai target or a model.
    fn connection(&mut self, at: &str, role: &str) {
        let url_ptr = format!("{at}/base_url");
        if let Some(url) = self.str_at(&url_ptr).map(str::to_string) {
            self.url(&url_ptr, &url, "`base_url`");
            self.url_credentials(&url_ptr, &url, "`base_url`");
        }
        let key_ptr = format!("{at}/api_key_env");
        if let Some(v) = self.str_at(&key_ptr).map(str::to_string) {
            self.env_name(&key_ptr, &v, "`api_key_env`", "api_key_env: OPENAI_API_KEY");
        }
        let reserved: &[&str] = match role {
            "target" => &["model", "messages", "tools", "stream"],
            _ => &["model", "messages", "stream", "response_format"],
        };
        let params_ptr = format!("{at}/params");
        let keys: Vec<String> = self
            .get(&params_ptr)
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        for k in keys {
            let p = format!("{params_ptr}/{}", escape_pointer_token(&k));
            if reserved.contains(&k.as_str()) {
                let why = match (k.as_str(), role) {
                    ("model", _) => "it is set from `model`".to_string(),
                    ("tools", _) => "tools are given under `tools`".to_string(),
                    ("messages", _) => "pactum sends the conversation".to_string(),
                    ("stream", _) => "pactum reads whole answers".to_string(),
                    _ => "pactum asks for strict JSON itself".to_string(),
                };
                self.error(
                    "reserved-param",
                    &p,
                    Part::Key,
                    format!("`params.{}` cannot be set here: {why}", short(&k)),
                    "remove it from `params`".into(),
                );
            }
        }
        // More than one choice per request: pactum reads one answer, and
        // a call in another would be dropped.
        let n_ptr = format!("{params_ptr}/n");
        if let Some(n) = self.get(&n_ptr) {
            if n.as_u64() != Some(1) {
                self.error(
                    "several-choices",
                    &n_ptr,
                    Part::Value,
                    format!(
                        "`params.n` is {}: pactum reads one answer per request and would not see the others",
                        short(&n.to_string())
                    ),
                    "remove `n` from `params`; for repeated answers run several trials (`trials:`)".into(),
                );
            }
        }
        if role == "judge" {
            let p = format!("{params_ptr}/temperature");
            if let Some(t) = self.get(&p) {
                if t.as_f64() != Some(0.0) {
                    self.error(
                        "judge-temperature",
                        &p,
                        Part::Value,
                        "the judge grades at temperature 0 (docs/judge.md)".into(),
                        "remove `temperature` from the judge's `params`".into(),
                    );
                }
            }
        }
    }

    fn url(&mut self, ptr: &str, url: &str, what: &str) {
        if !is_http_url(url) {
            self.error(
                "bad-url",
                ptr,
                Part::Value,
                format!(
                    "{what} must be an http:// or https:// URL, found `{}`",
                    short(&pactum_core::secret::url_secrets(url).shown)
                ),
                "e.g. `http://127.0.0.1:11434/v1` for a local Ollama".into(),
            );
        }
    }

    /// Warns about credentials written in a URL (userinfo, secret query
    /// values): like a literal header, they are in the suite file.
    fn url_credentials(&mut self, ptr: &str, url: &str, what: &str) {
        let found = pactum_core::secret::url_secrets(url);
        if found.values.is_empty() {
            return;
        }
        let mut message = format!(
            "{what} holds credentials (its userinfo or a secret query value); pactum sends them, but stores and shows the URL as `{}`",
            pactum_core::text::one_line(&found.shown, 200)
        );
        if found
            .values
            .iter()
            .any(|v| pactum_core::secret::check_secret(v).is_err())
        {
            message.push_str(&format!(
                "; one is shorter than {} characters, so an answer that echoes it cannot be redacted",
                pactum_core::secret::MIN_SECRET_CHARS
            ));
        }
        self.warning(
            "literal-secret",
            ptr,
            Part::Value,
            message,
            "keep keys out of the suite file: `api_key_env: NAME` for an openai target or a model, a header `Authorization: \"Bearer {{ env.NAME }}\"` for an http target".into(),
        );
    }

    /// A value that must be an environment variable's NAME.
    fn env_name(&mut self, ptr: &str, v: &str, what: &str, example: &str) {
        match check_env_name(v) {
            Ok(()) => {}
            // The value is not quoted: it may be a secret.
            Err(EnvNameProblem::LiteralKey) => self.error(
                "literal-api-key",
                ptr,
                Part::Value,
                format!("{what} holds what looks like an API key, not the name of an environment variable"),
                format!("put the key in an environment variable and name the variable here, e.g. `{example}`; keys never belong in a suite file"),
            ),
            Err(EnvNameProblem::NotAName) => self.error(
                "bad-env-name",
                ptr,
                Part::Value,
                format!("{what} `{}` is not an environment variable name", short(v)),
                format!("a name is letters, digits and `_`, not starting with a digit, e.g. `{example}`"),
            ),
        }
    }

    fn retries(&mut self, at: &str) {
        let get = |k: &str| {
            self.get(&format!("{at}/retries/{k}"))
                .and_then(Value::as_u64)
        };
        if let (Some(base), Some(max)) = (get("base_backoff_ms"), get("max_backoff_ms")) {
            if base > max {
                self.error(
                    "backoff-range",
                    &format!("{at}/retries/max_backoff_ms"),
                    Part::Value,
                    format!("`max_backoff_ms` ({max}) is less than `base_backoff_ms` ({base})"),
                    "the backoff starts at `base_backoff_ms` and doubles up to `max_backoff_ms`; swap or fix them".into(),
                );
            }
        }
    }

    fn http_target(&mut self, name: &str, tp: &str) {
        let mut templates = Vec::new();
        let url_ptr = format!("{tp}/request/url");
        if let Some(url) = self.str_at(&url_ptr).map(str::to_string) {
            self.url_credentials(&url_ptr, &url, "`url`");
            templates.push(self.request_template(url_ptr, url, Place::Url));
        }
        let headers_ptr = format!("{tp}/request/headers");
        let headers = self
            .get(&headers_ptr)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for (h, v) in &headers {
            let hp = format!("{headers_ptr}/{}", escape_pointer_token(h));
            if !is_header_name(h) {
                self.error(
                    "bad-header",
                    &hp,
                    Part::Key,
                    format!("`{}` is not an HTTP header name", short(h)),
                    "header names are letters, digits and `-` (RFC 9110), e.g. `Authorization`"
                        .into(),
                );
            }
            let Some(text) = v.as_str() else { continue };
            let t = self.request_template(hp.clone(), text.to_string(), Place::Header);
            if is_literal_secret_header(h, text, &t.reads) {
                let note = if t.reads.roots.is_empty() {
                    literal_secret_note(text)
                } else {
                    "its text is a template, so pactum cannot tell the secret it renders: it is stored with the run's snapshot and not redacted".to_string()
                };
                self.warning(
                    "literal-secret",
                    &hp,
                    Part::Value,
                    format!("header `{}` holds a literal value: {note}", short(h)),
                    "read secrets from the environment, e.g. `Authorization: \"Bearer {{ env.AGENT_TOKEN }}\"`".into(),
                );
            }
            templates.push(t);
        }
        let body_ptr = format!("{tp}/request/body");
        if let Some(body) = self.get(&body_ptr).cloned() {
            let mut strings = Vec::new();
            collect_strings(&body, body_ptr, &mut strings);
            for (p, s) in strings {
                templates.push(self.request_template(p, s, Place::Body));
            }
        }
        for key in ["text", "tool_calls", "side_effects", "conversation_id"] {
            let p = format!("{tp}/response/{key}");
            if let Some(q) = self.str_at(&p).map(str::to_string) {
                if let Err(e) = serde_json_path::JsonPath::parse(&q) {
                    self.error(
                        "invalid-jsonpath",
                        &p,
                        Part::Value,
                        format!("invalid JSONPath `{}`: {}", short(&q), short(&e.to_string())),
                        "a JSONPath (RFC 9535) starts at `$`, e.g. `$.reply` or `$.choices[0].message.content`".into(),
                    );
                }
            }
        }
        self.http.insert(name.to_string(), templates);
    }

    /// Parses one template of an http request and checks what does not
    /// depend on a test: syntax, `env` only in headers, `env.NAME` names.
    fn request_template(&mut self, pointer: String, text: String, place: Place) -> Tmpl {
        let mut ok = true;
        let r = match reads(&text) {
            Ok(r) => r,
            Err(e) => {
                self.syntax_error(&pointer, &e);
                ok = false;
                Reads::default()
            }
        };
        if r.roots.contains(ENV_ROOT) {
            if place == Place::Header {
                if r.env_whole {
                    ok = false;
                    self.error(
                        "bad-env-template",
                        &pointer,
                        Part::Value,
                        "a header reads `env` as a whole".into(),
                        "read one environment variable at a time: `{{ env.NAME }}`".into(),
                    );
                }
                for var in &r.env {
                    let before = self.out.len();
                    self.env_name(&pointer, var, "an `env.` name", "{{ env.AGENT_TOKEN }}");
                    ok &= self.out.len() == before;
                }
            } else {
                ok = false;
                let what = if place == Place::Url {
                    "the URL"
                } else {
                    "the body"
                };
                self.error(
                    "env-outside-headers",
                    &pointer,
                    Part::Value,
                    format!("{what} reads `env`; only header values may read environment variables"),
                    "so that a secret never ends up in a URL or a body, which reports may show; move it to a header".into(),
                );
            }
        }
        Tmpl {
            pointer,
            text,
            reads: r,
            place,
            ok,
        }
    }

    fn syntax_error(&mut self, ptr: &str, why: &str) {
        self.error(
            "template-syntax",
            ptr,
            Part::Value,
            format!("invalid template: {}", short_line(why)),
            "templates use Jinja syntax, e.g. `{{ order }}`; wrap text that must stay as written in `{% raw %}…{% endraw %}`".into(),
        );
    }

    fn exec_target(&mut self, tp: &str) {
        let cwd_ptr = format!("{tp}/cwd");
        if let Some(cwd) = self.str_at(&cwd_ptr).map(str::to_string) {
            let resolved = resolve(&self.dir, &cwd);
            if !resolved.is_dir() {
                self.error(
                    "missing-dir",
                    &cwd_ptr,
                    Part::Value,
                    format!(
                        "`cwd` `{}` is not a folder (resolved to `{}`)",
                        short(&cwd),
                        short(&resolved.display().to_string())
                    ),
                    "`cwd` is relative to the suite file's folder".into(),
                );
            }
        }
        let env_ptr = format!("{tp}/env");
        let pairs: Vec<(String, Option<String>)> = self
            .get(&env_ptr)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().map(str::to_string)))
                    .collect()
            })
            .unwrap_or_default();
        for (k, v) in pairs {
            let p = format!("{env_ptr}/{}", escape_pointer_token(&k));
            let v = v.unwrap_or_default();
            if super::misread_env_pass(&v) {
                self.error(
                    "bad-env-template",
                    &p,
                    Part::Value,
                    format!("`env.{}` reads `env`, but not as the whole value: it would be passed as literal text", short(&k)),
                    "an exec `env` value is literal text, or exactly `{{ env.NAME }}` to pass the variable NAME on from pactum's environment".into(),
                );
            } else if let Some(var) = super::passed_env_var(&v) {
                self.env_name(&p, var, "`env.NAME`", "{{ env.AGENT_TOKEN }}");
            } else if is_literal_secret_env(&k, &v) {
                self.warning(
                    "literal-secret",
                    &p,
                    Part::Key,
                    format!(
                        "`env.{}` holds a literal value: {}",
                        short(&k),
                        literal_secret_note(&v)
                    ),
                    "pass it on from pactum's environment instead: `{{ env.NAME }}` (the command inherits every other variable, but none of those pactum reads keys from)".into(),
                );
            }
        }
    }

    // --------------------------------------------------------------- models

    fn model(&mut self, name: &str) {
        let at = format!("/{name}");
        if !self.get(&at).is_some_and(Value::is_object) {
            return;
        }
        self.connection(&at, name);
        self.retries(&at);
    }

    /// The checks of what a suite declares before its tests: its version,
    /// targets, models and defaults.
    fn head(&mut self) {
        let doc = self.doc;
        Checks {
            doc,
            out: &mut self.out,
        }
        .version(SUITE_VERSION, "suite");
        self.targets();
        for m in MODELS {
            self.model(m);
        }
        self.defaults();
    }

    // ------------------------------------------------------------- defaults

    fn defaults(&mut self) {
        if let Some(t) = self.str_at("/defaults/target").map(str::to_string) {
            if !self.target_names.contains(&t) {
                self.unknown_target("/defaults/target", &t);
            }
        }
    }

    fn unknown_target(&mut self, ptr: &str, name: &str) {
        let names: Vec<&str> = self.target_names.iter().map(String::as_str).collect();
        let hint = match did_you_mean(name, &names) {
            Some(s) => format!("did you mean `{s}`?"),
            None if names.is_empty() => "define it under `targets`".to_string(),
            None => format!("defined targets: {}", names.join(", ")),
        };
        self.error(
            "unknown-target",
            ptr,
            Part::Value,
            format!("no target is named `{}`", short(name)),
            hint,
        );
    }

    /// `defaults.target` when it names a defined target.
    fn default_target(&self) -> Option<String> {
        self.str_at("/defaults/target")
            .filter(|t| self.target_names.iter().any(|n| n == t))
            .map(str::to_string)
    }

    // ---------------------------------------------------------------- tests

    fn tests(&mut self) {
        // Borrowed from the document, not from the loader: not copied.
        let doc: &'a Document = self.doc;
        let Some(tests) = doc.value.get("tests").and_then(Value::as_array) else {
            return;
        };
        let context = self.test_context();
        // Test id → the index of the first test with it.
        let mut first_id: HashMap<&'a str, usize> = HashMap::new();
        let mut shared = Shared::default();
        for (i, t) in tests.iter().enumerate() {
            self.test_checks(i, t, Some(&mut first_id), &context, &mut shared);
        }
        self.flush_shared(shared);
    }

    /// What every test's checks read from the rest of the suite.
    fn test_context(&self) -> TestContext {
        TestContext {
            default_target: self.default_target(),
            has_default_target: self.get("/defaults/target").is_some(),
            has_default_contract: self.get("/defaults/contract").is_some(),
        }
    }

    /// The checks of test `i`, written `t`; `first_id` (id → the first
    /// test with it) finds duplicate ids, when given.
    fn test_checks<'v>(
        &mut self,
        i: usize,
        t: &'v Value,
        first_id: Option<&mut HashMap<&'v str, usize>>,
        context: &TestContext,
        shared: &mut Shared,
    ) {
        let TestContext {
            default_target,
            has_default_target,
            has_default_contract,
        } = context;
        let (has_default_target, has_default_contract) =
            (*has_default_target, *has_default_contract);
        let tp = format!("/tests/{i}");
        let Some(obj) = t.as_object() else { return };
        let id = obj.get("id").and_then(Value::as_str);
        if let Some(id) = id {
            self.test_id(i, id, first_id);
        }
        let label = id.map_or_else(|| format!("#{}", i + 1), str::to_string);

        let target = match obj.get("target") {
            Some(Value::String(name)) if self.target_names.contains(name) => Some(name.clone()),
            Some(Value::String(name)) => {
                self.unknown_target(&format!("{tp}/target"), name);
                None
            }
            Some(_) => None,
            None if has_default_target => default_target.clone(),
            None => {
                let example = self
                    .target_names
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "bank-bot".into());
                self.error(
                    "no-target",
                    &tp,
                    Part::Value,
                    format!(
                        "test `{}` names no target and `defaults.target` is not set",
                        short(&label)
                    ),
                    format!(
                        "add `target: {}` to the test, or `defaults: {{ target: {} }}`",
                        short(&example),
                        short(&example)
                    ),
                );
                None
            }
        };

        let vars = obj
            .get("vars")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        self.var_names(&tp, &vars);

        let authored = self.authored_rules(&tp, obj, &label);
        self.turn_range(&tp, obj);
        if obj.get("contract").is_none() && !authored && !has_default_contract {
            self.error(
                "no-contract",
                &tp,
                Part::Value,
                format!("test `{}` has no contract to be scored against", short(&label)),
                "add `contract:` (a contract file's path, or an inline contract), set `defaults.contract`, or give authored fields (`goal`, …) for pactum to interpret".into(),
            );
        }

        // Templates: the test's own, then its http target's.
        let mut used: BTreeSet<String> = BTreeSet::new();
        for (p, text) in user_templates(obj, &tp) {
            self.user_template(&p, &text, &vars, &mut used);
        }
        if let Some(target) = &target {
            self.target_templates(target, &label, &vars, &mut used, shared);
        }
        for k in vars.keys() {
            let reserved = k == ENV_ROOT || RUNTIME_NAMES.contains(&k.as_str());
            if !used.contains(k) && is_identifier(k) && !reserved {
                self.warning(
                    "unused-var",
                    &format!("{tp}/vars/{}", escape_pointer_token(k)),
                    Part::Key,
                    format!(
                        "variable `{}` is not read by any template of this test",
                        short(k)
                    ),
                    "check the spelling in the templates (`{{ name }}`), or remove it".into(),
                );
            }
        }
    }

    /// Test `i`'s id: its characters, and unique (`first`: id → the first
    /// test with it; not checked without).
    fn test_id<'v>(&mut self, i: usize, id: &'v str, first: Option<&mut HashMap<&'v str, usize>>) {
        let ptr = format!("/tests/{i}/id");
        if !is_id(id) {
            self.error(
                "bad-id",
                &ptr,
                Part::Value,
                format!(
                    "test id `{}` has characters other than letters, digits, `.`, `_` and `-`",
                    short(id)
                ),
                "ids appear in reports, file names and filters; e.g. `refund-within-policy`".into(),
            );
        }
        let Some(first) = first else { return };
        match first.get(id) {
            Some(f) => {
                let at = self.doc.pos(&format!("/tests/{f}/id"), Part::Value);
                self.error(
                    "duplicate-test",
                    &ptr,
                    Part::Value,
                    format!("test id `{}` is used twice", short(id)),
                    format!(
                        "first used at line {}, column {}; test ids are unique within a suite",
                        at.line, at.column
                    ),
                );
            }
            None => {
                first.insert(id, i);
            }
        }
    }

    fn var_names(&mut self, tp: &str, vars: &Map<String, Value>) {
        for k in vars.keys() {
            let p = format!("{tp}/vars/{}", escape_pointer_token(k));
            if k == ENV_ROOT || RUNTIME_NAMES.contains(&k.as_str()) {
                self.error(
                    "reserved-var",
                    &p,
                    Part::Key,
                    format!(
                        "`{k}` is a name pactum provides to templates; it cannot be a variable"
                    ),
                    format!(
                        "rename it; reserved: {}, {ENV_ROOT}",
                        RUNTIME_NAMES.join(", ")
                    ),
                );
            } else if !is_identifier(k) {
                self.error(
                    "bad-var-name",
                    &p,
                    Part::Key,
                    format!("`{}` is not a variable name templates can read", short(k)),
                    "a variable name is letters, digits and `_`, not starting with a digit, e.g. `order_id`".into(),
                );
            }
        }
    }

    /// `prompt` xor `turns`, unless authored fields drive the conversation.
    /// Returns whether the test is an authored test (has authored text).
    fn authored_rules(&mut self, tp: &str, obj: &Map<String, Value>, label: &str) -> bool {
        let has_prompt = obj.contains_key("prompt");
        let has_turns = obj.contains_key("turns");
        let present: Vec<&str> = AUTHORED_TEXT
            .iter()
            .copied()
            .filter(|k| obj.contains_key(*k))
            .collect();
        let has_text = present.iter().any(|k| {
            obj.get(*k)
                .and_then(Value::as_str)
                .is_some_and(|s| !s.trim().is_empty())
        });
        if has_prompt && has_turns {
            self.error(
                "prompt-and-turns",
                &format!("{tp}/turns"),
                Part::Key,
                "a test takes `prompt` or `turns`, not both".into(),
                "`prompt: …` is one user message; `turns: [ …, … ]` are several, sent one per turn; put the prompt first in `turns`".into(),
            );
        } else if !has_prompt && !has_turns && !has_text {
            let hint = if present.is_empty() {
                "add `prompt: …` (one message), `turns: [ … ]` (scripted messages), or authored fields (`goal`, `instructions`, `restrictions`, `scenario`) for a simulated user".to_string()
            } else {
                format!(
                    "its authored fields ({}) are empty; write the goal, or add `prompt` or `turns`",
                    present.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                )
            };
            self.error(
                "no-prompt",
                tp,
                Part::Value,
                format!("test `{}` has nothing to say to the target", short(label)),
                hint,
            );
        }
        has_text
    }

    fn turn_range(&mut self, tp: &str, obj: &Map<String, Value>) {
        let min = obj.get("min_turns").and_then(Value::as_u64);
        let max = obj.get("max_turns").and_then(Value::as_u64);
        let (lo, hi) = (min.unwrap_or(1), max.unwrap_or(8));
        if lo > hi {
            let (key, message) = if max.is_some() {
                (
                    "max_turns",
                    format!("`max_turns` ({hi}) is less than `min_turns` ({lo})"),
                )
            } else {
                (
                    "min_turns",
                    format!("`min_turns` ({lo}) is more than the default `max_turns` (8)"),
                )
            };
            self.error(
                "turn-range",
                &format!("{tp}/{key}"),
                Part::Value,
                message,
                "a conversation may stop early from `min_turns` on and runs at most `max_turns` turns (docs/interpretation.md#multi-turn-conversations)".into(),
            );
        }
    }

    /// A prompt or scripted turn: reads only `vars`.
    fn user_template(
        &mut self,
        ptr: &str,
        text: &str,
        vars: &Map<String, Value>,
        used: &mut BTreeSet<String>,
    ) {
        let r = match reads(text) {
            Ok(r) => r,
            Err(e) => return self.syntax_error(ptr, &e),
        };
        let mut names_ok = true;
        for root in &r.roots {
            if vars.contains_key(root) {
                used.insert(root.clone());
                continue;
            }
            names_ok = false;
            if root == ENV_ROOT {
                self.error(
                    "env-outside-headers",
                    ptr,
                    Part::Value,
                    "a prompt reads `env`; only http header values may read environment variables"
                        .into(),
                    "put the value in the test's `vars`".into(),
                );
            } else if RUNTIME_NAMES.contains(&root.as_str()) {
                self.error(
                    "runtime-variable",
                    ptr,
                    Part::Value,
                    format!("a prompt reads `{root}`, which pactum provides only to http target templates"),
                    "prompts and turns read the test's `vars`".into(),
                );
            } else {
                let names: Vec<&str> = vars.keys().map(String::as_str).collect();
                let hint = match did_you_mean(root, &names) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("add `{}: …` under the test's `vars`", short(root)),
                };
                self.error(
                    "undefined-variable",
                    ptr,
                    Part::Value,
                    format!(
                        "template reads `{}`, which is not in this test's `vars`",
                        short(root)
                    ),
                    hint,
                );
            }
        }
        if names_ok {
            if let Err(e) = render_template(text, &Value::Object(vars.clone())) {
                self.error(
                    "template-error",
                    ptr,
                    Part::Value,
                    format!(
                        "template cannot be rendered with this test's `vars`: {}",
                        short_line(&e)
                    ),
                    "check the attributes and filters it uses against the values in `vars`".into(),
                );
            }
        }
    }

    /// The http target's templates against one test's `vars`, rendered
    /// with sample run-time values; problems are gathered per template.
    fn target_templates(
        &mut self,
        target: &str,
        test: &str,
        vars: &Map<String, Value>,
        used: &mut BTreeSet<String>,
        shared: &mut Shared,
    ) {
        let Some(templates) = self.http.get(target) else {
            return;
        };
        let mut all_names_ok = true;
        for t in templates {
            for root in &t.reads.roots {
                if vars.contains_key(root) {
                    used.insert(root.clone());
                } else if root != ENV_ROOT && !RUNTIME_NAMES.contains(&root.as_str()) {
                    all_names_ok = false;
                    let entry = shared
                        .missing
                        .entry((t.pointer.clone(), root.clone()))
                        .or_insert_with(|| {
                            let mut c: Vec<String> = vars.keys().cloned().collect();
                            c.extend(RUNTIME_NAMES.iter().map(|s| s.to_string()));
                            (Vec::new(), c)
                        });
                    entry.0.push(test.to_string());
                }
            }
        }
        if !all_names_ok {
            return;
        }
        let messages = [serde_json::json!({"role": "user", "content": SAMPLE_MESSAGE})];
        let no_env = BTreeMap::new();
        for t in templates.iter().filter(|t| t.ok) {
            let env: BTreeMap<String, String> = t
                .reads
                .env
                .iter()
                .map(|n| (n.clone(), format!("<value of {n}>")))
                .collect();
            let turn = TurnContext {
                message: SAMPLE_MESSAGE,
                messages: &messages,
                conversation_id: None,
                pactum_conversation_id: "run/test/1",
                turn: 1,
                env: if t.place == Place::Header {
                    &env
                } else {
                    &no_env
                },
            };
            let ctx = http_context(vars, &turn);
            let rendered = match t.place {
                Place::Body => render_value(&Value::String(t.text.clone()), &ctx).map(|_| None),
                _ => render_template(&t.text, &ctx).map(Some),
            };
            let failure = match rendered {
                Err(e) => Some(("template-error", short_line(&e))),
                Ok(Some(url)) if t.place == Place::Url && !is_http_url(&url) => {
                    Some(("bad-url", short(&url)))
                }
                Ok(_) => None,
            };
            if let Some((code, detail)) = failure {
                shared
                    .failing
                    .entry((t.pointer.clone(), code))
                    .or_default()
                    .push((test.to_string(), detail));
            }
        }
    }

    fn flush_shared(&mut self, shared: Shared) {
        for ((ptr, var), (tests, candidates)) in shared.missing {
            let names: Vec<&str> = candidates.iter().map(String::as_str).collect();
            let hint = match did_you_mean(&var, &names) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!(
                    "add `{}: …` to the `vars` of each test that uses this target; templates here can also read {}",
                    short(&var),
                    RUNTIME_NAMES.join(", ")
                ),
            };
            let (which, verb) = tests_phrase(&tests);
            self.error(
                "undefined-variable",
                &ptr,
                Part::Value,
                format!(
                    "template reads `{}`, which {which} {verb} not set in `vars`",
                    short(&var)
                ),
                hint,
            );
        }
        for ((ptr, code), failures) in shared.failing {
            let tests: Vec<String> = failures.iter().map(|(t, _)| t.clone()).collect();
            let (which, _) = tests_phrase(&tests);
            let first = failures
                .first()
                .map(|(_, d)| d.as_str())
                .unwrap_or_default();
            let (message, hint) = if code == "bad-url" {
                (
                    format!("with the `vars` of {which}, the URL is not an http:// or https:// URL (e.g. `{first}`)"),
                    "the URL must start with http:// or https:// once rendered",
                )
            } else {
                (
                    format!("template cannot be rendered with the `vars` of {which}: {first}"),
                    "check the attributes and filters it uses against the values in `vars`",
                )
            };
            self.error(code, &ptr, Part::Value, message, hint.into());
        }
    }

    // ------------------------------------------------------------ contracts

    fn contract_key(&self, ptr: &str) -> Option<ContractKey> {
        self.contract_key_of(ptr, self.get(ptr)?)
    }

    /// The key of the contract `value`, written at `ptr`.
    fn contract_key_of(&self, ptr: &str, value: &Value) -> Option<ContractKey> {
        match value {
            Value::String(s) if !s.is_empty() => Some(ContractKey::File(resolve(&self.dir, s))),
            Value::Object(_) => Some(ContractKey::Inline(ptr.to_string())),
            _ => None,
        }
    }

    /// Loads every contract once, in the order the file names them.
    fn contracts(&mut self) {
        let mut first_id: HashMap<String, (String, Pos)> = HashMap::new();
        for ptr in contract_pointers(&self.doc.value) {
            let Some(key) = self.contract_key(&ptr) else {
                continue;
            };
            self.contract(ptr, key, &mut first_id);
        }
    }

    /// Loads the contract `key`, written at `ptr`, unless it was; its id
    /// must name one contract (`first_id`: id → digest and where first).
    fn contract(
        &mut self,
        ptr: String,
        key: ContractKey,
        first_id: &mut HashMap<String, (String, Pos)>,
    ) {
        let resolved = match self.contracts.get(&key) {
            Some(r) => r.clone(),
            None => {
                let r = self.load_contract(&ptr, &key);
                self.contracts.insert(key.clone(), r.clone());
                r
            }
        };
        let Some(rc) = resolved else { return };
        let id_ptr = match key {
            ContractKey::File(_) => ptr.clone(),
            ContractKey::Inline(_) => format!("{ptr}/id"),
        };
        let here = {
            let (doc, p) = self.doc_of(&id_ptr);
            doc.pos(p, Part::Value)
        };
        match first_id.get(&rc.contract.id) {
            Some((digest, at)) if *digest != rc.digest => self.error(
                "duplicate-contract-id",
                &id_ptr,
                Part::Value,
                format!("contract id `{}` names two different contracts", short(&rc.contract.id)),
                format!("the other is at line {}, column {}; contract ids are unique among the contracts of one run", at.line, at.column),
            ),
            Some(_) => {}
            None => {
                first_id.insert(rc.contract.id.clone(), (rc.digest.clone(), here));
            }
        }
    }

    fn load_contract(&mut self, ptr: &str, key: &ContractKey) -> Option<Arc<ResolvedContract>> {
        let (result, source) = match key {
            ContractKey::File(path) => (load_contract(path), ContractSource::File(path.clone())),
            ContractKey::Inline(p) => (check_inline(self.doc, p), ContractSource::Inline),
        };
        match result {
            Ok(loaded) => {
                for w in loaded.warnings {
                    self.push(w);
                }
                Some(Arc::new(ResolvedContract {
                    contract: loaded.contract,
                    digest: loaded.digest,
                    source,
                    files: loaded.files,
                }))
            }
            Err(diags) => {
                let written = self.str_at(ptr).unwrap_or_default().to_string();
                match (key, diags.as_slice()) {
                    // The file itself cannot be read: say so where it is named.
                    (ContractKey::File(path), [d]) if d.code == "io" && d.file == *path => {
                        self.error(
                            "io",
                            ptr,
                            Part::Value,
                            d.message.clone(),
                            format!(
                                "contract paths are relative to the suite file's folder (`{}`)",
                                display_dir(&self.dir)
                            ),
                        );
                    }
                    (ContractKey::File(_), _) => {
                        let n = diags.iter().filter(|d| d.is_error()).count();
                        self.error(
                            "invalid-contract",
                            ptr,
                            Part::Value,
                            format!(
                                "contract `{}` has {n} error{}, reported in that file",
                                short(&written),
                                if n == 1 { "" } else { "s" }
                            ),
                            "fix the contract file; `pactum check` reads it alone".into(),
                        );
                        for d in diags {
                            self.push(d);
                        }
                    }
                    (ContractKey::Inline(_), _) => {
                        for d in diags {
                            self.push(d);
                        }
                    }
                }
                None
            }
        }
    }

    /// Warns about each tool a test's contract checks (`tool_called`,
    /// `tool_sequence`) that its target is never offered in its `tools:`
    /// list: such a check can never see the call, so a prohibition on it
    /// holds whatever the target does, and a requirement never can. Names
    /// the missing tool, the near misses and typos among the offered ones
    /// (or else the offered list). Targets without a readable `tools:` list are skipped.
    /// `own_contract[i]`: test `i` names its own contract.
    fn unoffered_tools(&mut self, suite: &Suite, own_contract: &[bool]) {
        for (i, test) in suite.tests.iter().enumerate() {
            let own = own_contract.get(i).copied().unwrap_or(false);
            self.unoffered_tool(i, test, &suite.targets, own);
        }
    }

    /// [`Loader::unoffered_tools`] of test `i`; `own`: it names its own
    /// contract.
    fn unoffered_tool(
        &mut self,
        i: usize,
        test: &TestSpec,
        targets: &BTreeMap<String, TargetSpec>,
        own: bool,
    ) {
        let (Some(rc), Some(target)) = (&test.contract, targets.get(&test.target)) else {
            return;
        };
        let Some(offered) = target.offered_tools() else {
            return;
        };
        let tp = format!("/tests/{i}");
        let at = if own { format!("{tp}/contract") } else { tp };
        let (checked, _) = pactum_eval::checked_names(&rc.contract);
        for name in checked.into_iter().filter(|n| !offered.contains(n)) {
            let near: Vec<String> = offered
                .iter()
                .filter_map(|o| {
                    pactum_eval::tool_name_near_miss(&name, o)
                        .or_else(|| {
                            pactum_eval::tool_name_typo(&name, o)
                                .map(|d| format!("{d} edit(s) away: a typo?"))
                        })
                        .map(|why| format!("`{}` ({why})", short(o)))
                })
                .collect();
            let listed: Vec<String> = offered.iter().map(|o| format!("`{}`", short(o))).collect();
            let hint = if near.is_empty() {
                format!(
                    "offered: {}; name a tool the target can call, or offer this one",
                    if listed.is_empty() {
                        "none".to_string()
                    } else {
                        listed.join(", ")
                    }
                )
            } else {
                format!(
                    "near miss: {}; tool names are compared exactly",
                    near.join(", ")
                )
            };
            self.warning(
                "unoffered-tool",
                &at,
                Part::Value,
                format!(
                    "test `{}`: contract `{}` checks tool `{}`, which target `{}` is never offered in its `tools:` list: the check can never see that call",
                    short(&test.id),
                    short(&rc.contract.id),
                    short(&name),
                    short(&test.target)
                ),
                hint,
            );
        }
    }

    // ---------------------------------------------------------------- model

    /// The model, and whether each test names its own contract. `written`
    /// are the tests, taken out of the document's value: each is converted
    /// in turn and dropped once it is a [`TestSpec`], so a large suite is
    /// never held twice.
    fn build(&self, written: Vec<Value>) -> Result<(Suite, Vec<bool>), String> {
        // Read in place: without its tests, the document is small.
        let raw = <RawSuite as serde::Deserialize>::deserialize(&self.doc.value)
            .map_err(|e| e.to_string())?;
        let mut targets = BTreeMap::new();
        for (name, t) in raw.targets {
            let spec = self.target(&name, t)?;
            targets.insert(name, spec);
        }
        let model = |m: Option<RawModel>| m.map(model_spec);
        let default_target = raw.defaults.target.clone();
        let default_contract = self.get("/defaults/contract").is_some();
        let mut tests = Vec::with_capacity(written.len());
        let mut own_contract = Vec::with_capacity(written.len());
        for (i, t) in written.into_iter().enumerate() {
            let t: RawTest = serde_json::from_value(t).map_err(|e| e.to_string())?;
            own_contract.push(t.contract.is_some());
            tests.push(self.test(
                i,
                t,
                default_target.as_deref(),
                default_contract,
                raw.defaults.trials,
            )?);
        }
        Ok((
            Suite {
                version: raw.version,
                path: self.doc.path.clone(),
                targets,
                judge: model(raw.judge),
                interpreter: model(raw.interpreter),
                simulated_user: model(raw.simulated_user),
                policy: raw.policy,
                tests,
            },
            own_contract,
        ))
    }

    fn target(&self, name: &str, t: RawTarget) -> Result<TargetSpec, String> {
        let missing = |k: &str| format!("target `{name}` has no `{k}`");
        let limits = limits(
            t.timeout_ms,
            t.concurrency,
            t.requests_per_second,
            t.retries,
        );
        let kind = match t.kind {
            RawKind::Openai => TargetKind::Openai {
                base_url: t.base_url.ok_or_else(|| missing("base_url"))?,
                model: t.model.ok_or_else(|| missing("model"))?,
                api_key_env: t.api_key_env,
                params: t.params.unwrap_or_default(),
                tools: t.tools.unwrap_or_default(),
                system: t.system,
            },
            RawKind::Http => {
                let request = t.request.ok_or_else(|| missing("request"))?;
                let response = t.response.ok_or_else(|| missing("response"))?;
                TargetKind::Http {
                    method: request.method.unwrap_or_else(|| "POST".into()),
                    url: request.url,
                    headers: request.headers,
                    body: request.body,
                    response: ResponseMap {
                        text: response.text,
                        tool_calls: response.tool_calls,
                        side_effects: response.side_effects,
                        conversation_id: response.conversation_id,
                    },
                }
            }
            RawKind::Exec => TargetKind::Exec {
                command: t.command.ok_or_else(|| missing("command"))?,
                cwd: resolve(&self.dir, t.cwd.as_deref().unwrap_or(".")),
                env: t.env.unwrap_or_default(),
                mode: t.mode.unwrap_or_default(),
            },
        };
        Ok(TargetSpec {
            name: name.to_string(),
            observability: t.observability,
            limits,
            kind,
        })
    }

    fn test(
        &self,
        i: usize,
        t: RawTest,
        default_target: Option<&str>,
        default_contract: bool,
        default_trials: Option<u32>,
    ) -> Result<TestSpec, String> {
        let tp = format!("/tests/{i}");
        let target = t
            .target
            .clone()
            .or_else(|| default_target.map(str::to_string))
            .ok_or_else(|| format!("test `{}` has no target", t.id))?;
        let ctx = Value::Object(t.vars.clone());
        let written: Vec<String> = match (t.prompt, t.turns) {
            (Some(p), _) => vec![p],
            (None, Some(ts)) => ts,
            (None, None) => Vec::new(),
        };
        let turns = written
            .iter()
            .map(|w| render_template(w, &ctx))
            .collect::<Result<Vec<_>, _>>()?;
        let texts = [&t.goal, &t.instructions, &t.restrictions, &t.scenario];
        let is_authored =
            texts.iter().any(|s| s.is_some()) || t.min_turns.is_some() || t.max_turns.is_some();
        let authored_text = texts
            .iter()
            .any(|s| s.as_deref().is_some_and(|s| !s.trim().is_empty()));
        let contract_at = match &t.contract {
            Some(own) => Some((format!("{tp}/contract"), Some(own))),
            None if !authored_text && default_contract => {
                Some(("/defaults/contract".to_string(), None))
            }
            None => None,
        };
        let contract = match contract_at {
            Some((p, own)) => {
                let key = match own {
                    Some(v) => self.contract_key_of(&p, v),
                    None => self.contract_key(&p),
                }
                .ok_or_else(|| format!("no contract at {p}"))?;
                Some(
                    self.contracts
                        .get(&key)
                        .cloned()
                        .flatten()
                        .ok_or_else(|| format!("contract at {p} was not loaded"))?,
                )
            }
            None => None,
        };
        let authored = is_authored.then(|| {
            Box::new(AuthoredTest {
                goal: t.goal.unwrap_or_default(),
                instructions: t.instructions.unwrap_or_default(),
                restrictions: t.restrictions.unwrap_or_default(),
                scenario: t.scenario.unwrap_or_default(),
                min_turns: t.min_turns.unwrap_or(1),
                // A script is never cut short by the default bound.
                max_turns: t
                    .max_turns
                    .unwrap_or_else(|| 8.max(u32::try_from(turns.len()).unwrap_or(u32::MAX))),
            })
        });
        Ok(TestSpec {
            id: t.id,
            target,
            turns,
            vars: t.vars,
            contract,
            trials: t.trials.or(default_trials).unwrap_or(1),
            authored,
        })
    }
}

/// `http://` or `https://` (any case), and no whitespace.
fn is_http_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://"))
        && !url.chars().any(char::is_whitespace)
}

/// The text a sample run-time `message` has when templates are checked at
/// load.
const SAMPLE_MESSAGE: &str = "<message>";

fn model_spec(m: RawModel) -> ModelSpec {
    ModelSpec {
        base_url: m.base_url,
        model: m.model,
        api_key_env: m.api_key_env,
        params: m.params,
        limits: limits(
            m.timeout_ms,
            m.concurrency,
            m.requests_per_second,
            m.retries,
        ),
        malformed_retries: m.malformed_retries.unwrap_or(2),
    }
}

fn limits(
    timeout_ms: Option<u64>,
    concurrency: Option<usize>,
    requests_per_second: Option<f64>,
    retries: Option<RawRetries>,
) -> Limits {
    let d = Limits::default();
    let r = retries.unwrap_or(RawRetries {
        max: None,
        base_backoff_ms: None,
        max_backoff_ms: None,
    });
    Limits {
        timeout_ms: timeout_ms.unwrap_or(d.timeout_ms),
        concurrency: concurrency.unwrap_or(d.concurrency),
        requests_per_second,
        retries: Retries {
            max: r.max.unwrap_or(d.retries.max),
            base_backoff_ms: r.base_backoff_ms.unwrap_or(d.retries.base_backoff_ms),
            max_backoff_ms: r.max_backoff_ms.unwrap_or(d.retries.max_backoff_ms),
        },
    }
}

/// The prompt or each scripted turn of a test, with its pointer.
fn user_templates(obj: &Map<String, Value>, tp: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(p) = obj.get("prompt").and_then(Value::as_str) {
        out.push((format!("{tp}/prompt"), p.to_string()));
    }
    for (i, t) in obj
        .get("turns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(s) = t.as_str() {
            out.push((format!("{tp}/turns/{i}"), s.to_string()));
        }
    }
    out
}

/// Every string in a JSON value, with its pointer, in document order.
fn collect_strings(v: &Value, ptr: String, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) => out.push((ptr, s.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_strings(item, format!("{ptr}/{i}"), out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                collect_strings(item, format!("{ptr}/{}", escape_pointer_token(k)), out);
            }
        }
        _ => {}
    }
}

/// "test `a`" / "tests `a`, `b` and 3 more", and the verb's number.
fn tests_phrase(tests: &[String]) -> (String, &'static str) {
    const SHOWN: usize = 3;
    let names: Vec<String> = tests
        .iter()
        .take(SHOWN)
        .map(|t| format!("`{}`", short(t)))
        .collect();
    match tests.len() {
        0 | 1 => (format!("test {}", names.join("")), "does"),
        n if n <= SHOWN => (format!("tests {}", names.join(", ")), "do"),
        n => (
            format!("tests {} and {} more", names.join(", "), n - SHOWN),
            "do",
        ),
    }
}

/// `p` against the suite's folder, `.` components dropped (`./a` and `a`
/// are one path); absolute paths stay as they are.
pub(crate) fn resolve(dir: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        dir.join(p)
    };
    let clean: PathBuf = joined
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if clean.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        clean
    }
}

fn display_dir(dir: &Path) -> String {
    if dir.as_os_str().is_empty() {
        ".".to_string()
    } else {
        short(&dir.display().to_string())
    }
}

/// One line, bounded.
fn short_line(s: &str) -> String {
    pactum_core::text::truncate_chars(&s.split_whitespace().collect::<Vec<_>>().join(" "), 200)
}

/// Suites with fewer tests are written on one thread.
const PARALLEL_SNAPSHOT_MIN: usize = 1024;

/// Tests a thread writes in one round: the text held beside the snapshot
/// is a round's (about 180 bytes a test), never a copy of it whole.
const SNAPSHOT_ROUND: usize = 2048;

/// Appends the canonical JSON of `tests` to `out`, comma-separated, in
/// order. A large suite is written on every core (nothing else runs while
/// a suite loads), in rounds of [`SNAPSHOT_ROUND`] tests a thread, each
/// round's parts appended in order; the text is the same either way.
fn tests_json(tests: &[TestSpec], out: &mut String) {
    let write = |tests: &[TestSpec], out: &mut String| {
        for (i, t) in tests.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&canonical_json(t));
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads < 2 || tests.len() < PARALLEL_SNAPSHOT_MIN {
        return write(tests, out);
    }
    let mut parts: Vec<String> = vec![String::new(); threads];
    for (r, round) in tests.chunks(SNAPSHOT_ROUND * threads).enumerate() {
        let chunk = round.len().div_ceil(threads);
        let written: Vec<bool> = std::thread::scope(|s| {
            let handles: Vec<_> = round
                .chunks(chunk)
                .zip(parts.iter_mut())
                .map(|(c, part)| {
                    s.spawn(move || {
                        part.clear();
                        write(c, part);
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().is_ok()).collect()
        });
        for (k, (c, part)) in round.chunks(chunk).zip(parts.iter_mut()).enumerate() {
            // A part whose thread failed is written here instead: the
            // snapshot is never short of a test.
            if !written.get(k).copied().unwrap_or(false) {
                part.clear();
                write(c, part);
            }
            if r > 0 || k > 0 {
                out.push(',');
            }
            out.push_str(part);
        }
    }
}

/// The canonical snapshot of a suite and its digest: the model's JSON with
/// exec folders relative to the suite file, keys in RFC 8785 order, as
/// text. The tests are written one at a time, so no JSON tree of every
/// test is ever held: the text is the only copy.
fn snapshot_of(suite: &Suite) -> (String, String) {
    let dir = suite
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    // Everything but the tests (no `..`: a new field must be placed here).
    let head = Suite {
        version: suite.version,
        path: suite.path.clone(),
        targets: suite.targets.clone(),
        judge: suite.judge.clone(),
        interpreter: suite.interpreter.clone(),
        simulated_user: suite.simulated_user.clone(),
        policy: suite.policy,
        tests: Vec::new(),
    };
    let mut v = serde_json::to_value(&head).unwrap_or(Value::Null);
    // Credentials written in a URL are sent, never stored (SPEC §4).
    let mut urls: Vec<String> = Vec::new();
    for (name, t) in &suite.targets {
        let field = match &t.kind {
            TargetKind::Openai { .. } => "base_url",
            TargetKind::Http { .. } => "url",
            TargetKind::Exec { .. } => continue,
        };
        urls.push(format!("/targets/{}/{field}", escape_pointer_token(name)));
    }
    for m in ["judge", "interpreter", "simulated_user"] {
        urls.push(format!("/{m}/base_url"));
    }
    for p in urls {
        if let Some(Value::String(u)) = v.pointer_mut(&p) {
            *u = pactum_core::secret::url_secrets(u).shown;
        }
    }
    // So are secrets written as header or exec `env` values: the digest
    // covers what is stored, and does not change when a key is rotated.
    for (p, _) in literal_fields(suite) {
        if let Some(slot) = v.pointer_mut(&p) {
            *slot = Value::String(pactum_core::secret::REDACTED.to_string());
        }
    }
    for (name, t) in &suite.targets {
        if let TargetKind::Exec { cwd, .. } = &t.kind {
            let rel = cwd.strip_prefix(&dir).unwrap_or(cwd);
            let rel = if rel.as_os_str().is_empty() {
                ".".to_string()
            } else {
                rel.display().to_string()
            };
            if let Some(slot) =
                v.pointer_mut(&format!("/targets/{}/cwd", escape_pointer_token(name)))
            {
                *slot = Value::String(rel);
            }
        }
    }
    // Each contract once, by digest (a test records only the digest): a
    // suite of many tests sharing one contract stays small in memory and
    // in the store.
    let mut contracts = serde_json::Map::new();
    for t in &suite.tests {
        if let Some(c) = &t.contract {
            if !contracts.contains_key(&c.digest) {
                contracts.insert(
                    c.digest.clone(),
                    serde_json::to_value(&c.contract).unwrap_or(Value::Null),
                );
            }
        }
    }
    if let Some(obj) = v.as_object_mut() {
        obj.insert("contracts".into(), Value::Object(contracts));
    }
    // The tests go where RFC 8785 puts the top-level `tests` key: the
    // last `"tests":` of the head's text, since every key after it
    // (`version`) holds a number.
    let head = canonical_json(&v);
    let marker = "\"tests\":[]";
    let mut out = String::with_capacity(head.len() + suite.tests.len() * 200);
    match head.rfind(marker) {
        Some(at) => {
            out.push_str(&head[..at]);
            out.push_str("\"tests\":[");
            tests_json(&suite.tests, &mut out);
            out.push(']');
            out.push_str(&head[at + marker.len()..]);
        }
        // Not reached (the head always has its empty `tests`): the whole
        // tree is then built rather than a test lost.
        None => {
            if let Some(obj) = v.as_object_mut() {
                obj.insert(
                    "tests".into(),
                    serde_json::to_value(&suite.tests).unwrap_or(Value::Null),
                );
            }
            out = canonical_json(&v);
        }
    }
    // Held for the whole run: without the spare capacity of the estimate.
    out.shrink_to_fit();
    let digest = sha256_hex(out.as_bytes());
    (out, digest)
}
