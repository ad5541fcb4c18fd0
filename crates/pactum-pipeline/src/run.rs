//! `run`: a suite against live targets, tests × trials, judged, graded,
//! stored and cached (SPEC §3.5, §3.8).
//!
//! Two steps, so a front end can open its reports knowing which files
//! they must not overwrite: [`prepare`] reads the suite (diagnostics go
//! to a callback) and checks every key variable is set; [`PreparedRun::run`]
//! runs it, streaming each finished trial to the sink in plan order and
//! dropping it. Memory follows the number of trials in flight (and those
//! that finished ahead of an earlier one), never the number of tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pactum_core::{TestStatus, TraceResult};
use pactum_report::{ContractInfo, Protected, RedactedSecrets, RunInfo, Warning};
use pactum_runner::{CacheMode, CallCounts, Event, ReadingSource, RunError, RunOptions, Runner};
use pactum_store::{RunId, Store};
use pactum_suite::{env_vars_needed, load_suite, Diagnostic, LoadedSuite};

use crate::common::{
    diagnostic_warnings, finish_stored, name_warnings, resume_command, run_name, store_path,
    store_protected, stored_names, StatusCounts,
};
use crate::{Message, MessageLevel, PipelineError, Progress, Sink};

/// Which run to resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// This suite's latest unfinished run.
    Latest,
    /// A run id or a unique prefix.
    Run(String),
}

/// How to run a prepared suite.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// Trials in flight at once (at least 1).
    pub jobs: usize,
    /// The store; `None`: `.pactum/pactum.db`.
    pub db: Option<PathBuf>,
    /// Cache use of a new run.
    pub cache: CacheMode,
    /// Resume a run instead of starting one.
    pub resume: Option<Resume>,
    /// Stop the run, every finished trial stored, on Ctrl-C and SIGTERM.
    pub cancel_on_signals: bool,
    /// Stop the run the same way once this flag is raised (a front end
    /// that watches for signals itself: the Python package). Read every
    /// 50 ms.
    pub stop: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// How a run ended (it may have been cut short: see `stopped` and
/// `interrupted`).
#[derive(Debug)]
pub struct RunSummary {
    /// The run's id.
    pub run_id: RunId,
    /// Results by status, restored ones included.
    pub statuses: StatusCounts,
    /// Planned trials no report saw (a stopped or interrupted run).
    pub missing: u64,
    /// Interrupted (Ctrl-C, SIGTERM): every finished trial is stored.
    pub interrupted: bool,
    /// Why the run stopped before its end, when it did (the store failed,
    /// a lease was lost…); what finished is stored and it can be resumed.
    pub stopped: Option<RunError>,
    /// Network and cache use of the trials this process ran.
    pub calls: CallCounts,
    /// A requested report could not be written in full.
    pub report_failed: bool,
}

/// A suite read and checked, ready to run.
pub struct PreparedRun {
    suite: LoadedSuite,
    path: PathBuf,
}

/// Reads the suite at `path`, sending its diagnostics (errors and
/// warnings, with file, line and field) to `diagnostics`, and checks that
/// every API key variable it names is set, before anything is sent.
///
/// # Errors
/// [`PipelineError::Rejected`] when the suite has errors (already sent);
/// [`PipelineError::Invalid`] naming the unset variables.
pub fn prepare(
    path: &Path,
    diagnostics: &mut dyn FnMut(&[Diagnostic]),
) -> Result<PreparedRun, PipelineError> {
    let suite = match load_suite(path) {
        Ok(s) => s,
        Err(diags) => {
            diagnostics(&diags);
            return Err(PipelineError::Rejected);
        }
    };
    diagnostics(&suite.warnings);
    let missing: Vec<String> = env_vars_needed(&suite.suite)
        .into_iter()
        .filter(|(_, var)| std::env::var_os(var).is_none_or(|v| v.is_empty()))
        .map(|(who, var)| format!("{var} (for {who})"))
        .collect();
    if !missing.is_empty() {
        return Err(PipelineError::Invalid(format!(
            "environment variable(s) not set: {}; set them (the suite names the variables, never the keys) — nothing was sent",
            missing.join(", ")
        )));
    }
    Ok(PreparedRun {
        suite,
        path: path.to_path_buf(),
    })
}

/// The files of a suite no report may overwrite: the suite file and every
/// file it names ([`LoadedSuite::files`]).
pub fn suite_protected(suite: &LoadedSuite) -> Vec<Protected> {
    suite
        .files()
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            Protected::input(
                if i == 0 {
                    "the suite"
                } else {
                    "a file the suite names"
                },
                p,
            )
        })
        .collect()
}

fn contract_infos(suite: &LoadedSuite) -> Vec<ContractInfo> {
    let mut seen = BTreeMap::new();
    for t in &suite.suite.tests {
        if let Some(c) = &t.contract {
            seen.entry(c.digest.clone())
                .or_insert_with(|| ContractInfo {
                    id: c.contract.id.clone(),
                    path: match &c.source {
                        pactum_suite::ContractSource::File(p) => p.display().to_string(),
                        pactum_suite::ContractSource::Inline => {
                            format!("{} (inline)", suite.suite.path.display())
                        }
                    },
                    digest: c.digest.clone(),
                });
        }
    }
    seen.into_values().collect()
}

/// Puts results back in the suite's plan order (tests in file order, then
/// trials), so a run's reports do not depend on which trial finished
/// first. Holds only results that finished ahead of an earlier one.
#[derive(Default)]
struct Reorder {
    next: usize,
    waiting: BTreeMap<usize, Ready>,
}

/// A result, how its authored test was read, and its trace (when a
/// report shows transcripts).
type Ready = (
    TraceResult,
    Option<Box<ReadingSource>>,
    Option<Box<pactum_core::trace::Trace>>,
);

/// Sends one result to the sink, after its trace and how its authored
/// test was read.
fn send(sink: &mut dyn Sink, (r, reading, trace): Ready) {
    if let Some(trace) = trace {
        sink.transcript(&trace);
    }
    if let Some(reading) = reading.and_then(|x| crate::common::reading_of(&r, &x)) {
        sink.reading(&reading);
    }
    sink.result(&r, None);
}

impl Reorder {
    /// Accepts the result at plan position `index`; returns every result
    /// now ready, in order.
    fn push(&mut self, index: usize, r: Ready) -> Vec<Ready> {
        self.waiting.insert(index, r);
        let mut ready = Vec::new();
        while let Some(r) = self.waiting.remove(&self.next) {
            ready.push(r);
            self.next += 1;
        }
        ready
    }

    /// Everything still waiting, in order.
    fn drain(&mut self) -> Vec<Ready> {
        std::mem::take(&mut self.waiting).into_values().collect()
    }
}

impl PreparedRun {
    /// The suite as read.
    pub fn suite(&self) -> &LoadedSuite {
        &self.suite
    }

    /// The suite as read, for pipelines that only need it read
    /// (`interpret`).
    pub fn into_suite(self) -> LoadedSuite {
        self.suite
    }

    /// The files no report of this run may overwrite: the suite, every
    /// file it names, and the store `db`.
    pub fn protected(&self, db: Option<&Path>) -> Vec<Protected> {
        let mut p = suite_protected(&self.suite);
        p.push(store_protected(db));
        p
    }

    /// Runs the suite: the reports (through `sink`) get `begin`, each
    /// trial's result in plan order as it is stored, the trials a stopped
    /// run never stored, then `finish`.
    ///
    /// # Errors
    /// A target or judge that cannot be built, a contract that does not
    /// compile, a store that cannot be opened, a run to resume that is not
    /// there, or one another process runs: nothing ran, and the sink is
    /// not finished (no report file replaces an earlier one). A run that
    /// stops once started is an `Ok` [`RunSummary`] with `stopped` set.
    pub fn run(self, req: &RunRequest, sink: &mut dyn Sink) -> Result<RunSummary, PipelineError> {
        let PreparedRun { suite, path } = self;
        let shown_suite = path.display().to_string();
        let db = req.db.as_deref();
        let contracts = contract_infos(&suite);
        let authored_tests = suite
            .suite
            .tests
            .iter()
            .filter(|t| t.contract.is_none())
            .count();
        let policy = suite.suite.policy;
        // What loading the suite warned about (`unoffered-tool` among them)
        // reaches the reports too, not only stderr.
        let mut warnings: Vec<Warning> = diagnostic_warnings(&suite.warnings).collect();
        if suite.suite.judge.is_none() {
            let judged = suite
                .suite
                .tests
                .iter()
                .filter(|t| {
                    t.contract.as_ref().is_some_and(|c| {
                        let k = &c.contract;
                        k.required
                            .iter()
                            .chain(&k.prohibited)
                            .any(|x| x.judge.is_some())
                            || k.conditional.iter().any(|x| x.then.judge.is_some())
                    })
                })
                .count();
            if judged > 0 {
                warnings.push(Warning {
                    code: "no-judge".into(),
                    message: format!(
                        "{judged} test(s) have clauses with a judge rubric but the suite configures no `judge:`: those clauses are not evaluable (no-judge)"
                    ),
                });
            }
        }
        let runner = Runner::new(suite)?;
        sink.redact_with(runner.redactor());
        let store = Store::open(&store_path(db))?;
        let resume = match &req.resume {
            None => None,
            Some(Resume::Latest) => match store.latest_unfinished_run(runner.suite_digest())? {
                Some(row) => Some(row.id),
                None => {
                    return Err(PipelineError::Invalid(
                        "no unfinished run of this suite to resume; run it without --resume".into(),
                    ))
                }
            },
            Some(Resume::Run(prefix)) => Some(store.resolve_run(prefix)?),
        };
        let opts = RunOptions {
            jobs: req.jobs.max(1),
            cache: req.cache,
            resume,
            // Absolute, so `rescore` and the resume hint work from any folder.
            suite_path: std::path::absolute(&path)
                .unwrap_or_else(|_| path.clone())
                .display()
                .to_string(),
            pactum_version: env!("CARGO_PKG_VERSION").into(),
            transcripts: sink.wants_transcripts(),
        };
        let info = RunInfo {
            command: "run".into(),
            pactum_version: env!("CARGO_PKG_VERSION").into(),
            policy,
            contracts,
            authored_tests: authored_tests as u64,
            expectations: None,
            run: Some(match &opts.resume {
                Some(id) => run_name(id.as_str(), &shown_suite),
                None => shown_suite.clone(),
            }),
        };
        sink.begin(&info);

        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| PipelineError::Internal(format!("cannot start the async runtime: {e}")))?;
        let store = Arc::new(Mutex::new(store));
        let planned = runner.planned();
        let (outcome, statuses, seen, secrets) = rt.block_on(async {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
            // Without signals, the sender lives as long as the run: its
            // drop must not read as a cancellation.
            let _kept = if req.cancel_on_signals {
                // Ctrl-C and SIGTERM stop the run the same way.
                if let Err(e) = pactum_runner::cancel_on_signals(cancel_tx) {
                    sink.message(Message {
                        level: MessageLevel::Warning,
                        text: format!("cannot watch for Ctrl-C and SIGTERM: {e}"),
                    });
                }
                None
            } else if let Some(stop) = req.stop.clone() {
                // The watcher holds the sender until it raises it.
                tokio::spawn(async move {
                    let mut tick = tokio::time::interval(std::time::Duration::from_millis(50));
                    loop {
                        tick.tick().await;
                        if stop.load(std::sync::atomic::Ordering::Relaxed) {
                            let _ = cancel_tx.send(true);
                            // Held until the run ends: a dropped sender
                            // must not race the cancellation.
                            std::future::pending::<()>().await;
                        }
                    }
                });
                None
            } else {
                Some(cancel_tx)
            };
            let work = runner.run(store.clone(), &opts, tx, cancel_rx);
            tokio::pin!(work);
            let mut statuses = StatusCounts::default();
            let mut progress = Progress {
                planned,
                ..Progress::default()
            };
            let mut order = Reorder::default();
            // One flag per planned trial: memory is a byte per trial.
            let mut seen = vec![false; usize::try_from(planned).unwrap_or(0)];
            let mut secrets = RedactedSecrets::default();
            let mut outcome = None;
            loop {
                tokio::select! {
                    ev = rx.recv() => match ev {
                        Some(Event::Started { planned, already_done, .. }) => {
                            progress.planned = planned;
                            progress.done = already_done;
                            sink.progress(&progress);
                        }
                        Some(Event::Restored { index, result, redacted, reading, trace, .. }) => {
                            if let Some(s) = seen.get_mut(index) {
                                *s = true;
                            }
                            secrets.add(&result.trace_id, &redacted);
                            statuses.add(result.status);
                            for ready in order.push(index, (*result, reading, trace)) {
                                send(sink, ready);
                            }
                        }
                        Some(Event::Trial { index, result, redacted, reading, trace, .. }) => {
                            if let Some(s) = seen.get_mut(index) {
                                *s = true;
                            }
                            secrets.add(&result.trace_id, &redacted);
                            statuses.add(result.status);
                            progress.done += 1;
                            progress.fail = statuses.get(TestStatus::Fail);
                            progress.undetermined = statuses.get(TestStatus::Undetermined);
                            progress.error = statuses.get(TestStatus::Error);
                            sink.progress(&progress);
                            for ready in order.push(index, (*result, reading, trace)) {
                                send(sink, ready);
                            }
                        }
                        None => if outcome.is_some() { break },
                    },
                    res = &mut work, if outcome.is_none() => {
                        outcome = Some(res);
                    }
                }
            }
            // An interrupted run leaves gaps: report what is left, in order.
            for r in order.drain() {
                send(sink, r);
            }
            (outcome, statuses, seen, secrets)
        });
        // The target's answers held a key: say so, whatever else happened.
        warnings.extend(secrets.warning());
        // The planned trials no report has seen: a stopped run's gaps.
        let missing: Vec<(String, u32)> = runner
            .plan()
            .enumerate()
            .filter(|(i, _)| !seen.get(*i).copied().unwrap_or(false))
            .map(|(_, (t, k))| (t.to_string(), k))
            .collect();
        let outcome = match outcome {
            Some(Ok(o)) => o,
            Some(Err(RunError::Stopped { run, cause })) => {
                // The run is in the store: what finished is kept, and it
                // can be resumed once the cause is dealt with.
                let why = with_causes(&*cause);
                sink.message(Message {
                    level: MessageLevel::Error,
                    text: format!("run {run} stopped: {why}"),
                });
                warnings.push(Warning {
                    code: "stopped".into(),
                    message: format!(
                        "run {run} stopped: {why}; every trial finished before is stored; once that is fixed, resume it with `{}`",
                        resume_command(&shown_suite, &run, db)
                    ),
                });
                finish_stored(sink, warnings, &missing);
                return Ok(RunSummary {
                    run_id: RunId::new(run),
                    statuses,
                    missing: missing.len() as u64,
                    interrupted: false,
                    stopped: Some(*cause),
                    calls: CallCounts::default(),
                    report_failed: sink.report_failed(),
                });
            }
            // Nothing ran (the run could not be opened, or another process
            // holds it): the sink is not finished, so no report file is
            // written over an earlier one.
            Some(Err(e)) => return Err(e.into()),
            None => {
                return Err(PipelineError::Internal(
                    "the run ended without an outcome".into(),
                ))
            }
        };
        // The names the contracts check against those the target used, read
        // back from the stored traces (the suite's load already warned about
        // tools never offered, naming the target, so that warning is not
        // repeated here).
        if let Ok(store) = store.lock() {
            let digests: Vec<String> = info.contracts.iter().map(|c| c.digest.clone()).collect();
            let mut names = stored_names(&store, digests.iter());
            // Contracts that check no name warn of none: the run's traces
            // are then not read back (a second pass over every trial).
            let read = if names.reads_traces() {
                store.trials(&outcome.run_id, &mut |t| {
                    if let Some(trace) = &t.trace {
                        names.add(trace);
                    }
                    std::ops::ControlFlow::Continue(())
                })
            } else {
                Ok(())
            };
            if read.is_ok() {
                warnings.extend(name_warnings(&names).filter(|w| w.code != "unoffered-tool"));
            }
        }
        if outcome.interrupted {
            warnings.push(Warning {
                code: "interrupted".into(),
                message: format!(
                    "run {} was interrupted: every finished trial is stored; resume it with `{}`",
                    outcome.run_id.as_str(),
                    resume_command(&shown_suite, outcome.run_id.as_str(), db)
                ),
            });
        }
        finish_stored(sink, warnings, &missing);
        Ok(RunSummary {
            run_id: outcome.run_id,
            statuses,
            missing: missing.len() as u64,
            interrupted: outcome.interrupted,
            stopped: None,
            calls: outcome.calls,
            report_failed: sink.report_failed(),
        })
    }
}

/// An error and its causes, on one line.
fn with_causes(e: &dyn std::error::Error) -> String {
    pactum_report::with_causes(e)
}
