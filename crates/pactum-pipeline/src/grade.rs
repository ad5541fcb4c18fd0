//! `grade`: recorded traces against contracts.
//!
//! [`GradeRequest`] says what to grade; [`prepare`] loads and checks every
//! input (contracts, expectations, trace paths, the judge and its store)
//! and says which files no report may overwrite ([`Prepared::protected`]);
//! [`Prepared::grade`] reads the traces, grades them and streams the
//! results to a [`Sink`] in input order; [`grade`] does both for a front
//! end whose sink is already open. The result is a [`GradeOutcome`]: the
//! totals a front end needs to pick an exit code.
//!
//! Without a judge, JSONL trace files are parsed and graded on
//! [`GradeRequest::parallel`] threads ([`pactum_trace::read_traces_with`]);
//! the sink still receives every event in input order, so every report is
//! byte-identical to a one-thread run. With a judge, traces are parsed in
//! parallel but judged and graded one at a time, in input order: the judge
//! answers through a shared cache, and two identical traces judged at once
//! would both miss it (two calls, different cache counts).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::lint::{lint_contract, LintLevel};
use pactum_core::secret::Redactor;
use pactum_core::trace::Trace;
use pactum_core::{ObservabilityLevel, Policy, TestStatus, TraceResult};
use pactum_eval::{grade_trace, CompiledContract, CompiledExpectations, NoJudge};
use pactum_report::{
    ContractInfo, ExpectationsInfo, InputError, InputFile, Protected, Rendered, RunEnd, RunInfo,
    Warning,
};
use pactum_suite::{load_contract, load_expectations, LoadedContract};
use pactum_trace::{read_traces_with, ImportOptions, Item, Parallel};

pub use crate::common::{diagnostic_warnings, name_warnings, store_protected};
pub use crate::inputs::{contract_protected, input_warnings, unusable_trace_path};
use crate::keys::Shown;
use crate::{Message, MessageLevel, PipelineError, Sink};

/// A judge to grade judged clauses with (SPEC §3.4): an OpenAI-compatible
/// endpoint and model, and the environment variable holding its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeConfig {
    /// The endpoint's base URL (`http://127.0.0.1:11434/v1`).
    pub url: String,
    /// The model name.
    pub model: String,
    /// The environment variable that holds the API key (its name, never
    /// the key).
    pub api_key_env: Option<String>,
}

/// What `pactum grade` grades and how.
#[derive(Debug, Clone)]
pub struct GradeRequest {
    /// Contract files, or folders of them.
    pub contracts: Vec<PathBuf>,
    /// Trace files, graded in this order.
    pub traces: Vec<PathBuf>,
    /// How to read the trace files.
    pub import: ImportOptions,
    /// The grading policy (severity floor, SPEC §3.5).
    pub policy: Policy,
    /// An expectations file: each trace's expected status.
    pub expectations: Option<PathBuf>,
    /// The judge, if any; without one judged clauses are not evaluable
    /// with reason `no-judge`.
    pub judge: Option<JudgeConfig>,
    /// The store whose cache keeps judge answers (default
    /// [`pactum_store::DEFAULT_PATH`]); opened only with a judge.
    pub store: Option<PathBuf>,
    /// Threads that parse and grade JSONL records.
    pub parallel: Parallel,
    /// Send a [`Message`] for each trace file that cannot be read at all,
    /// besides its input error: for a front end whose reports show no
    /// input errors on screen (the CLI with `--quiet` or a report on
    /// stdout).
    pub announce_unreadable: bool,
    /// Raised by another thread to stop grading (a front end's Ctrl-C):
    /// seen before each trace, after which no trace is graded; the
    /// outcome says [`GradeOutcome::interrupted`]. `None`: never stopped.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// How a grading run ended: the totals that decide its exit code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GradeOutcome {
    /// Graded traces by status.
    pub by_status: BTreeMap<TestStatus, u64>,
    /// Records and files that could not be read (each an input error in
    /// the reports), and inputs with no trace.
    pub input_errors: u64,
    /// Traces graded.
    pub graded: u64,
    /// A requested report could not be written in full.
    pub report_failed: bool,
    /// [`GradeRequest::stop`] was raised: the traces after it were not
    /// graded, so the run is partial.
    pub interrupted: bool,
    /// Results of status `pass` that still do not pass by the contract
    /// grader's rule ([`pactum_core::score::contract_passes`]: a clause
    /// only partly kept); an OpenProse run's `overall_verdict` is then not
    /// `satisfied`. Always 0 for trace files.
    pub partly_kept: u64,
}

impl GradeOutcome {
    /// Graded traces of status `s`.
    pub fn count(&self, s: TestStatus) -> u64 {
        self.by_status.get(&s).copied().unwrap_or(0)
    }
}

/// A judge for grading: the client, the cache it answers through, and the
/// runtime its calls run on.
pub(crate) struct GradeJudge {
    pub(crate) setup: pactum_runner::JudgeSetup,
    pub(crate) cache: pactum_runner::Cache,
    pub(crate) rt: tokio::runtime::Runtime,
}

/// A checked [`GradeRequest`]: contracts loaded and compiled, the
/// expectations compiled, the judge connected to its cache.
pub struct Prepared<'r> {
    req: &'r GradeRequest,
    loaded: Vec<LoadedContract>,
    contracts: Vec<CompiledContract>,
    expectations: Option<(CompiledExpectations, ExpectationsInfo)>,
    judge: Option<GradeJudge>,
    /// What no report, terminal line or judge prompt may show.
    shown: Shown,
}

/// [`prepare`] then [`Prepared::grade`], with `sink` receiving the
/// diagnostics of loading too. For a front end whose reports are already
/// open: it is that front end's to keep them off [`Prepared::protected`].
///
/// # Errors
/// As [`prepare`] and [`Prepared::grade`].
pub fn grade(req: &GradeRequest, sink: &mut dyn Sink) -> Result<GradeOutcome, PipelineError> {
    prepare(req, sink)?.grade(sink)
}

/// Loads and checks everything `req` names, in this order: the contracts
/// (all diagnostics of all files go to `out`; a contract id declared by
/// two files is an error), their compilation, the expectations file, the
/// trace paths (a folder, standard input, a pipe or a missing file is
/// refused), then the judge and its store. Only diagnostics and messages
/// reach `out`, no report event.
///
/// # Errors
/// [`PipelineError::Rejected`] when diagnostics or messages already said
/// what is wrong; [`PipelineError::Invalid`] for a bad file or path;
/// [`PipelineError::Store`] when the judge's store cannot be opened;
/// [`PipelineError::Internal`] when the async runtime cannot start.
pub fn prepare<'r>(
    req: &'r GradeRequest,
    out: &mut dyn Sink,
) -> Result<Prepared<'r>, PipelineError> {
    let loaded = load_contracts(&req.contracts, out)?;
    let mut contracts = Vec::new();
    for c in &loaded {
        let cc = CompiledContract::compile(c.contract.clone(), c.digest.clone())
            .map_err(|e| PipelineError::Invalid(format!("{}: {e}", c.path.display())))?;
        contracts.push(cc);
    }
    let expectations = match &req.expectations {
        None => None,
        Some(p) => match load_expectations(p) {
            Ok(e) => {
                let info = ExpectationsInfo {
                    path: p.display().to_string(),
                    pointer: e.expect.pointer.clone(),
                };
                let c = CompiledExpectations::compile(e)
                    .map_err(|err| PipelineError::Invalid(format!("{}: {err}", p.display())))?;
                Some((c, info))
            }
            Err(diags) => {
                out.diagnostics(&diags);
                return Err(PipelineError::Rejected);
            }
        },
    };
    for t in &req.traces {
        if t.is_dir() {
            return Err(PipelineError::Invalid(format!(
                "{}: is a folder; name the trace files (a shell glob such as {}/*.jsonl works)",
                t.display(),
                t.display()
            )));
        }
        if let Some(why) = unusable_trace_path(t) {
            return Err(PipelineError::Invalid(format!("{}: {why}", t.display())));
        }
    }
    let (judge, shown) = judge_setup(req.judge.as_ref(), req.store.as_deref(), [])?;
    Ok(Prepared {
        req,
        loaded,
        contracts,
        expectations,
        judge,
        shown,
    })
}

/// Loads every contract, sending all diagnostics of all files at once.
fn load_contracts(
    paths: &[PathBuf],
    out: &mut dyn Sink,
) -> Result<Vec<LoadedContract>, PipelineError> {
    let paths =
        pactum_suite::contract_files(paths).map_err(|e| PipelineError::Invalid(e.to_string()))?;
    let mut loaded = Vec::new();
    let mut ok = true;
    for p in &paths {
        match load_contract(p) {
            Ok(c) => {
                out.diagnostics(&c.warnings);
                loaded.push(c);
            }
            Err(diags) => {
                out.diagnostics(&diags);
                ok = false;
            }
        }
    }
    for m in duplicate_ids(&loaded) {
        out.message(Message {
            level: MessageLevel::Error,
            text: m,
        });
        ok = false;
    }
    if ok {
        Ok(loaded)
    } else {
        Err(PipelineError::Rejected)
    }
}

/// One error per contract id declared by a second file, naming both.
pub fn duplicate_ids(loaded: &[LoadedContract]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: BTreeMap<&str, &Path> = BTreeMap::new();
    for c in loaded {
        if let Some(first) = seen.insert(&c.contract.id, &c.path) {
            out.push(format!(
                "contract id `{}` is declared twice: {} and {}",
                c.contract.id,
                first.display(),
                c.path.display()
            ));
        }
    }
    out
}

/// Connects the judge, if any, to its cache in `store` (default
/// [`crate::common::store_path`]), and says what is redacted
/// ([`Shown`]: the judge's key, the environment's keys, the key-shaped
/// tokens of `texts`); the store redacts it too.
pub(crate) fn judge_setup<'a>(
    judge: Option<&JudgeConfig>,
    store: Option<&Path>,
    texts: impl IntoIterator<Item = &'a str>,
) -> Result<(Option<GradeJudge>, Shown), PipelineError> {
    let Some(j) = judge else {
        return Ok((None, Shown::new(&Redactor::default(), [], texts)?));
    };
    let mut ep = pactum_llm::Endpoint::new(j.url.clone(), j.model.clone());
    ep.api_key_env = j.api_key_env.clone();
    let client = pactum_llm::ChatClient::new(ep)
        .map_err(|e| PipelineError::Invalid(format!("judge: {e}")))?;
    let shown = Shown::new(client.redactor(), j.api_key_env.as_deref(), texts)?;
    let db = store
        .map(Path::to_path_buf)
        .unwrap_or_else(|| crate::common::store_path(None));
    let mut store = pactum_store::Store::open(&db)?;
    store.redact_with(shown.redactor())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| PipelineError::Internal(format!("cannot start the async runtime: {e}")))?;
    Ok((
        Some(GradeJudge {
            setup: pactum_runner::JudgeSetup {
                client,
                malformed_retries: 2,
            },
            cache: pactum_runner::Cache::new(
                std::sync::Arc::new(std::sync::Mutex::new(store)),
                pactum_runner::CacheMode::Use,
            ),
            rt,
        }),
        shown,
    ))
}

/// One trace as the reader hands it over: graded already, its report
/// fragments rendered (no judge), or to be judged and graded in input
/// order.
type Read = (
    Trace,
    Vec<String>,
    Option<(TraceResult, Option<TestStatus>, Rendered)>,
);

/// Run-wide state kept while the traces stream by.
#[derive(Default)]
struct Totals {
    outcome: GradeOutcome,
    labelled: u64,
}

/// The files no report of `req` may overwrite that are known before
/// anything is read or opened: the trace files, the expectations file,
/// the store. A command checks its report paths against them first, so a
/// refused path leaves no store behind; [`Prepared::protected`] adds the
/// contract files.
pub fn protected_inputs(req: &GradeRequest) -> Vec<Protected> {
    let mut protected: Vec<Protected> = req
        .traces
        .iter()
        .map(|p| Protected::input("the trace file", p))
        .collect();
    protected.extend(
        req.expectations
            .iter()
            .map(|p| Protected::input("the expectations file", p)),
    );
    protected.push(store_protected(req.store.as_deref()));
    protected
}

impl Prepared<'_> {
    /// The files no report may overwrite: every contract file and schema
    /// file it names, the trace files, the expectations file, the store.
    pub fn protected(&self) -> Vec<Protected> {
        let mut protected = contract_protected(&self.loaded);
        protected.extend(protected_inputs(self.req));
        protected
    }

    /// Reads every trace file in order and grades every trace against
    /// every contract; `sink` receives `begin`, each result (with its
    /// expected status) and each input error in input order, then `finish`
    /// with the inputs and the run's warnings (`docs/reports.md`).
    ///
    /// A file that cannot be read, a record that cannot, and a file with
    /// no trace are input errors: the run goes on, and the outcome counts
    /// them (an input with no trace is never a pass).
    ///
    /// # Errors
    /// None once prepared: everything that fails later is reported as an
    /// input error or a message and counted in the outcome. The `Result`
    /// is kept for failures a later version may add.
    pub fn grade(self, sink: &mut dyn Sink) -> Result<GradeOutcome, PipelineError> {
        let req = self.req;
        let policy = &req.policy;
        let judge = self.judge.as_ref();
        let mut shown = self.shown;
        sink.redact_with(shown.redactor());
        let info = RunInfo {
            command: "grade".into(),
            pactum_version: env!("CARGO_PKG_VERSION").into(),
            policy: *policy,
            contracts: self
                .loaded
                .iter()
                .map(|c| ContractInfo {
                    id: c.contract.id.clone(),
                    path: c.path.display().to_string(),
                    digest: c.digest.clone(),
                })
                .collect(),
            authored_tests: 0,
            expectations: self.expectations.as_ref().map(|(_, i)| i.clone()),
            run: None,
        };
        sink.begin(&info);

        let contracts = &self.contracts;
        let contract_refs: Vec<&CompiledContract> = contracts.iter().collect();
        let expectations = self.expectations.as_ref().map(|(e, _)| e);
        let mut totals = Totals::default();
        let mut inputs = Vec::new();
        let mut warnings: Vec<Warning> = Vec::new();
        let mut tally = pactum_trace::ChannelTally::default();
        let mut notes = pactum_trace::InputNotes::default();
        let mut secrets = pactum_report::RedactedSecrets::default();
        let mut names = pactum_eval::NameWarnings::new(self.loaded.iter().map(|c| &c.contract));
        // Without a judge a trace is graded where it is parsed; with one it
        // is judged below, one at a time in input order.
        // The fragments the sink's reports write, rendered (of the result
        // redacted as the reports redact) where the trace is graded: the
        // thread delivering in input order only appends them.
        let ahead = sink.ahead();
        // Its key-shaped tokens are found there too (the costliest read of
        // a trace); the delivering thread learns them before anything of
        // the trace is shown.
        let watched = shown.watched().to_vec();
        let map = |trace: Trace| -> Read {
            let keys = pactum_core::secret::trace_secrets(&trace, &watched);
            if judge.is_some() {
                return (trace, keys, None);
            }
            let result = grade_trace(contracts, &trace, policy, &NoJudge);
            let expected = expectations.and_then(|e| e.expected(&trace));
            let rendered = ahead.render(&result, expected);
            (trace, keys, Some((result, expected, rendered)))
        };
        let format = req.import.format.as_str().to_string();
        // The digests of the contracts that graded at least one trace: a
        // contract whose `select` matched none is said aloud, never
        // silently left out of a green run.
        let mut selected_any: BTreeSet<String> = BTreeSet::new();
        let stopped = || {
            req.stop
                .as_ref()
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
        };
        for path in &req.traces {
            if totals.outcome.interrupted {
                break;
            }
            let file = path.display().to_string();
            // The file's name is shown in its errors and warnings.
            shown.text(&file, sink);
            let mut first_skip: Option<String> = None;
            notes.file(path);
            let mut deliver = |item: Item<Read>| {
                if stopped() {
                    totals.outcome.interrupted = true;
                    return ControlFlow::Break(());
                }
                match item {
                    Item::Trace((mut trace, keys, graded)) => {
                        notes.trace(&trace);
                        // Before anything of the trace is shown or judged.
                        shown.found(keys, sink);
                        let (result, expected, rendered) = match graded {
                            Some(g) => g,
                            None => judge_and_grade(
                                judge,
                                shown.redactor(),
                                contracts,
                                &contract_refs,
                                &mut trace,
                                policy,
                                expectations,
                                sink,
                            ),
                        };
                        for c in &result.contracts {
                            if !selected_any.contains(&c.contract_digest) {
                                selected_any.insert(c.contract_digest.clone());
                            }
                        }
                        secrets.add(&trace.id, &trace.redactions());
                        names.add(&trace);
                        totals.labelled += u64::from(expected.is_some());
                        *totals.outcome.by_status.entry(result.status).or_default() += 1;
                        totals.outcome.graded += 1;
                        sink.transcript(&trace);
                        sink.result_rendered(&result, expected, &rendered);
                    }
                    Item::Skipped { line, reason } => {
                        if first_skip.is_none() {
                            first_skip = Some(if reason.starts_with("line ") {
                                reason
                            } else {
                                format!("line {line}: {reason}")
                            });
                        }
                    }
                    Item::Error(e) => {
                        totals.outcome.input_errors += 1;
                        // Its field is shown too: a pointer through a
                        // record's keys.
                        shown.text(&e.message, sink);
                        if let Some(f) = &e.field {
                            shown.text(f, sink);
                            // Its keys as written, not escaped for the
                            // pointer (`~1` for `/`, `~0` for `~`): a key
                            // learnt from it is then found in the message.
                            if f.contains('~') {
                                shown.text(&f.replace("~1", "/").replace("~0", "~"), sink);
                            }
                        }
                        sink.input_error(&InputError {
                            file: e.file,
                            line: e.line,
                            field: e.field,
                            message: e.message,
                        });
                    }
                }
                ControlFlow::Continue(())
            };
            match read_traces_with(path, &req.import, req.parallel, &map, &mut deliver) {
                Ok(stats) => {
                    if stats.skipped > 0 {
                        warnings.push(Warning {
                            code: "skipped-records".into(),
                            message: format!(
                                "{file}: skipped {} record(s) that hold no trace (first: {})",
                                stats.skipped,
                                first_skip.unwrap_or_default()
                            ),
                        });
                    }
                    if stats.traces == 0 && stats.errors == 0 {
                        // An export that came out empty must not let the
                        // rest of the run show green: the run is partial.
                        totals.outcome.input_errors += 1;
                        sink.input_error(&InputError {
                            file: file.clone(),
                            line: 0,
                            field: None,
                            message: if stats.skipped > 0 {
                                format!(
                                    "holds no trace (its {} record(s) were skipped): an input with no trace is never a pass",
                                    stats.skipped
                                )
                            } else {
                                "holds no trace: an input with no trace is never a pass"
                                    .to_string()
                            },
                        });
                    }
                    tally.merge(&stats.channel_tally);
                    inputs.push(InputFile {
                        path: file,
                        format: format.clone(),
                        traces: stats.traces,
                        skipped: stats.skipped,
                        errors: stats.errors,
                    });
                }
                Err(e) => {
                    totals.outcome.input_errors += 1;
                    let message = e.to_string();
                    shown.text(&message, sink);
                    if req.announce_unreadable {
                        sink.message(Message {
                            level: MessageLevel::Error,
                            text: message.clone(),
                        });
                    }
                    let (line, message) = split_location(&message, &file);
                    sink.input_error(&InputError {
                        file: file.clone(),
                        line,
                        field: None,
                        message,
                    });
                    inputs.push(InputFile {
                        path: file,
                        format: format.clone(),
                        traces: 0,
                        skipped: 0,
                        errors: 1,
                    });
                }
            }
        }

        if totals.outcome.interrupted {
            warnings.push(Warning {
                code: "interrupted".into(),
                message:
                    "grading was interrupted: the traces after the last result were not graded"
                        .into(),
            });
        }
        if totals.outcome.graded > 0 {
            for c in &self.loaded {
                if !selected_any.contains(&c.digest) {
                    warnings.push(Warning {
                        code: "contract-selected-nothing".into(),
                        message: format!(
                            "{} ({}): its `select` matched none of the {} graded trace(s), so none of its clauses was checked",
                            c.contract.id,
                            c.path.display(),
                            totals.outcome.graded
                        ),
                    });
                }
            }
        }
        warnings.extend(secrets.warning());
        if shown.tokens() > 0 {
            warnings.push(Warning {
                code: "redacted-secret".into(),
                message: format!(
                    "the traces hold {} key-shaped token(s) (shaped like an OpenAI, GitHub or Google API key, say): each is shown as [redacted] in every report and on the terminal; treat each as leaked and rotate it",
                    shown.tokens()
                ),
            });
        }
        warnings.extend(name_warnings(&names));
        warnings.extend(input_warnings(&notes));
        warnings.extend(silent_channel_warnings(&tally));
        let levels: BTreeSet<ObservabilityLevel> = tally.levels().collect();
        for c in &self.loaded {
            for level in &levels {
                for f in lint_contract(&c.contract, Some(*level)) {
                    if f.code == "unobserved-channel" && f.level == LintLevel::Warning {
                        warnings.push(Warning {
                            code: "unobserved-channel".into(),
                            message: format!(
                                "{} ({}): {}",
                                c.contract.id,
                                c.path.display(),
                                f.message
                            ),
                        });
                    }
                }
            }
        }
        for c in &self.loaded {
            warnings.extend(diagnostic_warnings(&c.warnings));
        }
        let judged = judged_clauses(&self.loaded);
        if judged > 0 && judge.is_none() {
            warnings.push(Warning {
                code: "no-judge".into(),
                message: format!(
                    "{judged} clause(s) carry a judge rubric but no judge is configured: each is not evaluable with reason no-judge (and a clause that also has a check can only be settled by its check detecting the behaviour)"
                ),
            });
        }
        let graded = totals.outcome.graded;
        if let Some((_, info)) = &self.expectations {
            if totals.labelled == 0 && graded > 0 {
                warnings.push(Warning {
                    code: "no-label".into(),
                    message: format!(
                        "{}: no trace was labelled: `{}` (with its `when`) matched none of the {graded} traces. Pointers resolve against each trace's metadata: for an OpenAI-format record that is the whole record minus its messages (AgentDojo: /metadata/security); for pactum's own format, its `metadata` object",
                        info.path, info.pointer
                    ),
                });
            }
        }
        sink.finish(&RunEnd {
            inputs,
            warnings,
            openprose: vec![],
        });
        totals.outcome.report_failed = sink.report_failed();
        Ok(totals.outcome)
    }
}

/// Judges `trace` (when there is a judge) and grades it, in input order.
/// No key of `redactor` reaches the judge's prompt, and a check reads
/// what the judge is shown: the trace is redacted first. A judge cache failure is
/// a message, and the trace is graded as with no judge (its judged
/// clauses not evaluable).
#[allow(clippy::too_many_arguments)]
fn judge_and_grade(
    judge: Option<&GradeJudge>,
    redactor: &Redactor,
    contracts: &[CompiledContract],
    contract_refs: &[&CompiledContract],
    trace: &mut Trace,
    policy: &Policy,
    expectations: Option<&CompiledExpectations>,
    sink: &mut dyn Sink,
) -> (TraceResult, Option<TestStatus>, Rendered) {
    let result = match judge {
        None => grade_trace(contracts, trace, policy, &NoJudge),
        Some(j) => {
            redactor.redact_trace(trace);
            let judged = j.rt.block_on(pactum_runner::judge_trace(
                Some(&j.setup),
                contract_refs,
                trace,
                &j.cache,
                None,
            ));
            match judged {
                Ok((judgments, _, _)) => grade_trace(contracts, trace, policy, &judgments),
                Err(e) => {
                    sink.message(Message {
                        level: MessageLevel::Error,
                        text: format!("judge cache: {e}"),
                    });
                    grade_trace(contracts, trace, policy, &NoJudge)
                }
            }
        }
    };
    (
        result,
        expectations.and_then(|e| e.expected(trace)),
        Rendered::none(),
    )
}

/// Clauses of `loaded` that carry a judge rubric.
fn judged_clauses(loaded: &[LoadedContract]) -> usize {
    loaded
        .iter()
        .map(|c| {
            let k = &c.contract;
            k.required
                .iter()
                .chain(&k.prohibited)
                .filter(|x| x.judge.is_some())
                .count()
                + k.conditional
                    .iter()
                    .filter(|x| x.then.judge.is_some())
                    .count()
        })
        .sum()
}

/// The `silent-channel` warnings of a run's tally (SPEC §3.2): a level
/// that observes a channel on which none of its traces reported anything.
fn silent_channel_warnings(tally: &pactum_trace::ChannelTally) -> Vec<Warning> {
    tally
        .silent_channels()
        .into_iter()
        .map(|(level, channel, traces)| Warning {
            code: "silent-channel".into(),
            message: format!(
                "{traces} trace(s) declared `{}` observe {}, but none reported anything on it: if the adapter cannot see {} the level is declared wrongly, and an absence there will read as compliance",
                level.as_str(),
                channel.as_str(),
                channel.as_str()
            ),
        })
        .collect()
}

/// An import error names its own location (`` `path`: … `` or
/// `path:line: …`); reports show the location once, so split it off.
fn split_location(message: &str, file: &str) -> (u64, String) {
    let quoted = format!("`{file}`: ");
    if let Some(rest) = message.strip_prefix(&quoted) {
        return (0, rest.to_string());
    }
    if let Some(rest) = message.strip_prefix(file).and_then(|r| r.strip_prefix(':')) {
        if let Some((n, tail)) = rest.split_once(": ") {
            if let Ok(line) = n.parse::<u64>() {
                return (line, tail.to_string());
            }
        }
    }
    (0, message.to_string())
}
