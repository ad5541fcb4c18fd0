//! `pactum run`, `pactum runs` and `pactum show`: live runs of a suite
//! through `pactum-runner`, and reports of stored runs. The rules live in
//! the library crates; this module wires them to the terminal.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pactum_core::text::one_line;
use pactum_core::TestStatus;
use pactum_report::{
    ContractInfo, MissingTrial, Protected, RedactedSecrets, RunEnd, RunInfo, Warning,
};
use pactum_runner::{CacheMode, Event, RunOptions, Runner};
use pactum_store::{RunId, Store};
use pactum_suite::{env_vars_needed, load_suite, LoadedSuite};

use crate::exit::{self, Exit};
use crate::grade::{
    diagnostic_warnings, name_warnings, print_diagnostics, reporters, store_protected,
};
use crate::output::{eprint, stderr_color, with_causes};
use crate::sink::CliSink;
use crate::{RunArgs, RunsArgs, ShowArgs};

/// The store a command uses: `--db`, else `.pactum/pactum.db`.
fn store_path(db: &Option<PathBuf>) -> PathBuf {
    db.clone()
        .unwrap_or_else(|| PathBuf::from(pactum_store::DEFAULT_PATH))
}

/// Prints a store failure with its causes (SQLite's, the operating
/// system's) and returns its exit code.
pub(crate) fn store_failure(e: &pactum_store::StoreError) -> Exit {
    eprint(&format!("error: {}", with_causes(e)));
    exit::for_store_error(e)
}

/// Opens the store, printing the error (it names the path) on failure.
pub(crate) fn open_store(db: &Option<PathBuf>) -> Result<Store, Exit> {
    Store::open(&store_path(db)).map_err(|e| store_failure(&e))
}

/// The command that resumes run `id` of `suite`, ready to paste into a
/// shell: `--db` is named when the run is not in the default store.
pub(crate) fn resume_command(suite: &str, id: &str, db: &Option<PathBuf>) -> String {
    let q = |s: &str| {
        // A path a terminal would mangle (controls, escapes) cannot be shown
        // as typed: say so rather than print a command naming another file.
        if pactum_core::text::strip_terminal_escapes(s) != s || s.contains(['\n', '\t']) {
            return "<PATH: it holds control characters; type it yourself>".to_string();
        }
        shlex::try_quote(s)
            .map(|c| c.into_owned())
            .unwrap_or_else(|_| format!("{s:?}"))
    };
    let mut cmd = format!("pactum run {} --resume {}", q(suite), q(id));
    if let Some(db) = db {
        cmd.push_str(&format!(" --db {}", q(&db.display().to_string())));
    }
    cmd
}

/// The run a prefix names, with its row; errors are printed.
pub(crate) fn stored_run(
    store: &Store,
    prefix: &str,
) -> Result<(RunId, pactum_store::RunRow), Exit> {
    let id = store.resolve_run(prefix).map_err(|e| store_failure(&e))?;
    match store.run(&id) {
        Ok(Some(row)) => Ok((id, row)),
        Ok(None) => {
            eprint(&format!("error: run {} is not in the store", id.as_str()));
            Err(Exit::Usage)
        }
        Err(e) => Err(store_failure(&e)),
    }
}

/// Ends a run's reports: each planned trial in `missing` is reported
/// missing (the run is then partial: exit 5, and JUnit counts it as an
/// error), then `warnings`. Returns the exit code of its statuses: partial
/// when a trial is missing or a report could not be written in full.
pub(crate) fn finish_stored(
    fan: &mut CliSink,
    warnings: Vec<Warning>,
    statuses: &BTreeMap<TestStatus, u64>,
    missing: &[(String, u32)],
) -> Exit {
    for (test_id, k) in missing {
        let m = MissingTrial {
            test_id: test_id.clone(),
            trial_index: *k,
            trace_id: pactum_runner::trace_id(test_id, *k),
        };
        fan.each(|r| r.missing_trial(&m));
    }
    fan.finish(&RunEnd {
        inputs: vec![],
        warnings,
    });
    if fan.failed() {
        return Exit::Partial;
    }
    let n = |s| statuses.get(&s).copied().unwrap_or(0);
    exit::for_totals(
        n(TestStatus::Fail),
        n(TestStatus::Undetermined),
        n(TestStatus::Error),
        missing.len() as u64,
    )
}

/// Opens a store that must already exist (`rescore`), for writing (the
/// judge's cache): a mistyped `--db` is an error, never a new empty store.
pub(crate) fn open_existing_store(db: &Option<PathBuf>) -> Result<Store, Exit> {
    Store::open_existing(&store_path(db)).map_err(|e| store_failure(&e))
}

/// Opens a store that must already exist for reading only (`runs`,
/// `show`): works on a read-only file, folder or file system, and writes
/// nothing.
pub(crate) fn open_store_to_read(db: &Option<PathBuf>) -> Result<Store, Exit> {
    match Store::open_read_only(&store_path(db)) {
        // Too old to read as it is: upgraded in place when it is writable.
        Err(pactum_store::StoreError::TooOldToRead { .. }) => {
            Store::open_existing(&store_path(db)).map_err(|e| store_failure(&e))
        }
        other => other.map_err(|e| store_failure(&e)),
    }
}

/// The planned trials a stored run lacks, in plan order: `(test id, trial
/// index)`.
pub(crate) type Missing = Vec<(String, u32)>;

/// What a stored run lacks, and the warning that says so: `N of M trials
/// stored`, who is running it now (a live lease), or how to resume it.
pub(crate) fn stored_gaps(
    store: &Store,
    id: &RunId,
    row: &pactum_store::RunRow,
    db: &Option<PathBuf>,
) -> Result<(Missing, Option<Warning>), Exit> {
    let cov = match pactum_runner::coverage(store, id) {
        Ok(c) => c,
        Err(e) => {
            eprint(&format!("error: {}", with_causes(&e)));
            return Err(exit::for_run_error(&e));
        }
    };
    let lease = store.lease(id).ok().flatten().filter(|l| {
        !pactum_runner::is_stale(
            l,
            &pactum_runner::this_holder(),
            std::time::SystemTime::now(),
        )
    });
    let hint = resume_command(&row.suite_path, id.as_str(), db);
    let message = match (&lease, cov.is_complete()) {
        (Some(l), _) => Some(format!(
            "run {} is being run right now (pid {} on {}, last seen {}): {} of {} trials stored so far",
            id.as_str(),
            l.holder.pid,
            one_line(&l.holder.host, 80),
            l.heartbeat_at,
            cov.stored,
            cov.planned
        )),
        (None, false) => Some(format!(
            "run {} is {}: {} of {} trials stored, {} never; resume it with `{hint}`",
            id.as_str(),
            row.status.as_str(),
            cov.stored,
            cov.planned,
            cov.missing.len()
        )),
        (None, true) if row.status != pactum_store::RunStatus::Finished => Some(format!(
            "run {} is marked {} but every one of its {} trials is stored (it was stopped after its last one); `{hint}` marks it finished",
            id.as_str(),
            row.status.as_str(),
            cov.planned
        )),
        (None, true) => None,
    };
    Ok((
        cov.missing,
        message.map(|message| Warning {
            code: "unfinished".into(),
            message,
        }),
    ))
}

/// Loads the suite, printing every diagnostic; checks every API key
/// variable is set before anything is sent.
pub(crate) fn prepare(path: &Path, color: bool) -> Result<LoadedSuite, Exit> {
    let suite = match load_suite(path) {
        Ok(s) => s,
        Err(diags) => {
            print_diagnostics(&diags, color);
            return Err(Exit::Usage);
        }
    };
    print_diagnostics(&suite.warnings, color);
    let missing: Vec<String> = env_vars_needed(&suite.suite)
        .into_iter()
        .filter(|(_, var)| std::env::var_os(var).is_none_or(|v| v.is_empty()))
        .map(|(who, var)| format!("{var} (for {who})"))
        .collect();
    if !missing.is_empty() {
        eprint(&format!(
            "error: environment variable(s) not set: {}; set them (the suite names the variables, never the keys) — nothing was sent",
            missing.join(", ")
        ));
        return Err(Exit::Usage);
    }
    Ok(suite)
}

/// The files of a suite no report may overwrite: the suite file and every
/// file it names ([`LoadedSuite::files`]).
pub(crate) fn suite_protected(suite: &LoadedSuite) -> Vec<Protected> {
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

/// `pactum run SUITE`.
pub fn run(args: RunArgs, color: bool) -> Exit {
    let diag_color = stderr_color(color);
    let suite = match prepare(&args.suite, diag_color) {
        Ok(s) => s,
        Err(e) => return e,
    };
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
    let mut protected = suite_protected(&suite);
    protected.push(store_protected(args.db.as_deref()));
    // Before anything is written: a report path that is an input or the
    // store is refused here.
    let mut fan = match reporters(&args.report, color, &protected) {
        Ok(f) => f,
        Err(e) => return e,
    };
    let runner = match Runner::new(suite) {
        Ok(r) => r,
        Err(e) => {
            eprint(&format!("error: {}", with_causes(&e)));
            return exit::for_run_error(&e);
        }
    };
    fan.redact_with(runner.redactor());
    let store = match open_store(&args.db) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let resume = match &args.resume {
        None => None,
        Some(None) => {
            let digest = runner.suite_digest().to_string();
            match store.latest_unfinished_run(&digest) {
                Ok(Some(row)) => Some(row.id),
                Ok(None) => {
                    eprint(
                        "error: no unfinished run of this suite to resume; run it without --resume",
                    );
                    return Exit::Usage;
                }
                Err(e) => return store_failure(&e),
            }
        }
        Some(Some(prefix)) => match store.resolve_run(prefix) {
            Ok(id) => Some(id),
            Err(e) => return store_failure(&e),
        },
    };
    let opts = RunOptions {
        jobs: args.jobs.max(1),
        cache: if args.no_cache {
            CacheMode::Bypass
        } else if args.refresh_cache {
            CacheMode::Refresh
        } else {
            CacheMode::Use
        },
        resume,
        // Absolute, so `rescore` and the resume hint work from any folder.
        suite_path: std::path::absolute(&args.suite)
            .unwrap_or_else(|_| args.suite.clone())
            .display()
            .to_string(),
        pactum_version: env!("CARGO_PKG_VERSION").into(),
    };
    let info = RunInfo {
        command: "run".into(),
        pactum_version: env!("CARGO_PKG_VERSION").into(),
        policy,
        contracts,
        authored_tests: authored_tests as u64,
        expectations: None,
        run: Some(match &opts.resume {
            Some(id) => run_name(id.as_str(), &args.suite.display().to_string()),
            None => args.suite.display().to_string(),
        }),
    };
    fan.each(|r| r.begin(&info));

    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprint(&format!("error: cannot start the async runtime: {e}"));
            return Exit::Failure;
        }
    };
    let store = Arc::new(Mutex::new(store));
    let show_progress = !args.report.quiet && std::io::stderr().is_terminal();
    let outcome = rt.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
        // Ctrl-C and SIGTERM stop the run the same way.
        if let Err(e) = pactum_runner::cancel_on_signals(cancel_tx) {
            eprint(&format!(
                "warning: cannot watch for Ctrl-C and SIGTERM: {e}"
            ));
        }
        let work = runner.run(store.clone(), &opts, tx, cancel_rx);
        tokio::pin!(work);
        let mut bar: Option<indicatif::ProgressBar> = None;
        let mut statuses: BTreeMap<TestStatus, u64> = BTreeMap::new();
        let mut order = Reorder::default();
        let mut seen: HashSet<(String, u32)> = HashSet::new();
        let mut secrets = RedactedSecrets::default();
        let mut outcome = None;
        loop {
            tokio::select! {
                ev = rx.recv() => match ev {
                    Some(ev) => {
                        if let Event::Restored { test_id, trial_index, result, redacted, .. }
                        | Event::Trial { test_id, trial_index, result, redacted, .. } = &ev
                        {
                            seen.insert((test_id.clone(), *trial_index));
                            secrets.add(&result.trace_id, redacted);
                        }
                        on_event(ev, &mut fan, &mut bar, show_progress, &mut statuses, &mut order)
                    }
                    None => if outcome.is_some() { break },
                },
                res = &mut work, if outcome.is_none() => {
                    outcome = Some(res);
                }
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        // An interrupted run leaves gaps: report what is left, in order.
        for r in order.drain() {
            fan.each(|rep| rep.result(&r, None));
        }
        (outcome, statuses, seen, secrets)
    });
    let (outcome, statuses, seen, secrets) = outcome;
    // The target's answers held a key: say so, whatever else happened.
    warnings.extend(secrets.warning());
    // The planned trials no report has seen: a stopped run's gaps.
    let missing: Vec<(String, u32)> = runner
        .plan()
        .filter(|(t, k)| !seen.contains(&(t.to_string(), *k)))
        .map(|(t, k)| (t.to_string(), k))
        .collect();
    let outcome = match outcome {
        Some(Ok(o)) => o,
        Some(Err(pactum_runner::RunError::Stopped { run, cause })) => {
            // The run is in the store: what finished is kept, and it
            // can be resumed once the cause is dealt with.
            eprint(&format!(
                "error: run {run} stopped: {}",
                with_causes(&*cause)
            ));
            warnings.push(Warning {
                code: "stopped".into(),
                message: format!(
                    "run {run} stopped: {}; every trial finished before is stored; once that is fixed, resume it with `{}`",
                    with_causes(&*cause),
                    resume_command(&args.suite.display().to_string(), &run, &args.db)
                ),
            });
            let partial = finish_stored(&mut fan, warnings, &statuses, &missing);
            let code = exit::for_run_error(&cause);
            // A refusal before anything ran (a run another process holds)
            // is that refusal; otherwise the run was cut short.
            return if code == Exit::Usage {
                code
            } else {
                code.max(partial)
            };
        }
        Some(Err(e)) => {
            // Nothing ran (the run could not be opened, or another process
            // holds it): no report file is written over an earlier one.
            eprint(&format!("error: {}", with_causes(&e)));
            drop(fan);
            return exit::for_run_error(&e);
        }
        None => return Exit::Failure,
    };
    // The names the contracts check against those the target used, read
    // back from the stored traces (the suite's load already warned about
    // tools never offered, naming the target, so that warning is not
    // repeated here).
    if let Ok(store) = store.lock() {
        let digests: Vec<String> = info.contracts.iter().map(|c| c.digest.clone()).collect();
        let mut names = crate::review::stored_names(&store, digests.iter());
        let read = store.trials(&outcome.run_id, &mut |t| {
            if let Some(trace) = &t.trace {
                names.add(trace);
            }
            std::ops::ControlFlow::Continue(())
        });
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
                resume_command(
                    &args.suite.display().to_string(),
                    outcome.run_id.as_str(),
                    &args.db
                )
            ),
        });
    }
    let code = finish_stored(&mut fan, warnings, &statuses, &missing);
    let c = outcome.calls;
    if !args.report.quiet {
        eprint(&format!(
            "run {}: target calls {}, {} from cache; judge calls {} sent, {} from cache",
            outcome.run_id.as_str(),
            c.target_sent(),
            c.target_cached,
            c.judge.network,
            c.judge.cached
        ));
    }
    if outcome.interrupted {
        return Exit::Interrupted;
    }
    code
}

/// Puts results back in the suite's plan order (tests in file order, then
/// trials), so a run's reports do not depend on which trial finished
/// first. Holds only results that finished ahead of an earlier one.
#[derive(Default)]
struct Reorder {
    next: usize,
    waiting: BTreeMap<usize, pactum_core::TraceResult>,
}

impl Reorder {
    /// Accepts the result at plan position `index`; returns every result
    /// now ready, in order.
    fn push(&mut self, index: usize, r: pactum_core::TraceResult) -> Vec<pactum_core::TraceResult> {
        self.waiting.insert(index, r);
        let mut ready = Vec::new();
        while let Some(r) = self.waiting.remove(&self.next) {
            ready.push(r);
            self.next += 1;
        }
        ready
    }

    /// Everything still waiting, in order.
    fn drain(&mut self) -> Vec<pactum_core::TraceResult> {
        std::mem::take(&mut self.waiting).into_values().collect()
    }
}

fn on_event(
    ev: Event,
    fan: &mut CliSink,
    bar: &mut Option<indicatif::ProgressBar>,
    show_progress: bool,
    statuses: &mut BTreeMap<TestStatus, u64>,
    order: &mut Reorder,
) {
    match ev {
        Event::Started {
            planned,
            already_done,
            ..
        } => {
            if show_progress {
                let b = indicatif::ProgressBar::new(planned);
                b.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{spinner} {pos}/{len} trials [{elapsed_precise}] {wide_bar} {msg}",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                b.set_position(already_done);
                *bar = Some(b);
            }
        }
        Event::Restored { index, result, .. } => {
            *statuses.entry(result.status).or_default() += 1;
            for ready in order.push(index, *result) {
                fan.each(|r| r.result(&ready, None));
            }
        }
        Event::Trial { index, result, .. } => {
            *statuses.entry(result.status).or_default() += 1;
            if let Some(b) = bar {
                b.inc(1);
                b.set_message(format!(
                    "{} fail, {} warn, {} err",
                    statuses.get(&TestStatus::Fail).unwrap_or(&0),
                    statuses.get(&TestStatus::Undetermined).unwrap_or(&0),
                    statuses.get(&TestStatus::Error).unwrap_or(&0)
                ));
            }
            for ready in order.push(index, *result) {
                fan.each(|r| r.result(&ready, None));
            }
        }
    }
}

/// `pactum runs`: the stored runs, newest first.
pub fn runs(args: RunsArgs) -> Exit {
    let store = match open_store_to_read(&args.db) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let rows = match store.runs() {
        Ok(r) => r,
        Err(e) => return store_failure(&e),
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    if rows.is_empty() {
        let _ = writeln!(out, "no run in {}", store_path(&args.db).display());
        return Exit::Pass;
    }
    let _ = writeln!(
        out,
        "{:<22}  {:<11}  {:<24}  {:>5} {:>5} {:>5} {:>5}  suite",
        "run", "status", "started", "pass", "fail", "warn", "err"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<22}  {:<11}  {:<24}  {:>5} {:>5} {:>5} {:>5}  {}",
            r.id.as_str(),
            r.status.as_str(),
            r.started_at,
            r.counts.pass,
            r.counts.fail,
            r.counts.undetermined,
            r.counts.error,
            pactum_core::text::one_line(&r.suite_path, 80)
        );
    }
    Exit::Pass
}

/// `pactum show RUN`: reprints a stored run's report.
pub fn show(args: ShowArgs, color: bool) -> Exit {
    let store = match open_store_to_read(&args.db) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let (id, row) = match stored_run(&store, &args.run) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let mut fan = match reporters(&args.report, color, &[store_protected(args.db.as_deref())]) {
        Ok(f) => f,
        Err(e) => return e,
    };
    // The contracts the results cite, from their stored snapshots (a first
    // pass; the second streams the results, so memory stays flat).
    // Each digest with the first test that cites it.
    let mut digests: BTreeMap<String, String> = BTreeMap::new();
    let mut statuses: BTreeMap<TestStatus, u64> = BTreeMap::new();
    let first = store.trials(&id, &mut |t| {
        if let Some(d) = &t.contract_digest {
            digests
                .entry(d.clone())
                .or_insert_with(|| t.test_id.clone());
        }
        std::ops::ControlFlow::Continue(())
    });
    if let Err(e) = first {
        return store_failure(&e);
    }
    let mut contracts = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    for (d, test) in &digests {
        match store.contract(d) {
            Ok(Some(c)) => contracts.push(ContractInfo {
                id: c.id.clone(),
                path: format!("stored snapshot of run {}", id.as_str()),
                digest: d.clone(),
            }),
            Ok(None) => {}
            // The results were graded when stored; they are shown as they
            // are, but the reader learns they cannot be graded again.
            Err(e) => warnings.push(unreadable_snapshot(&id, test, &e)),
        }
    }
    let info = RunInfo {
        command: format!("show {}", id.as_str()),
        pactum_version: row.pactum_version.clone(),
        policy: row.policy,
        contracts,
        authored_tests: 0,
        expectations: None,
        run: Some(run_name(id.as_str(), &row.suite_path)),
    };
    fan.each(|r| r.begin(&info));
    let mut secrets = RedactedSecrets::default();
    let mut names = crate::review::stored_names(&store, digests.keys());
    let second = store.trials(&id, &mut |t| {
        *statuses.entry(t.result.status).or_default() += 1;
        if let Some(trace) = &t.trace {
            secrets.add(&t.result.trace_id, &trace.redactions());
            names.add(trace);
        }
        fan.each(|r| r.result(&t.result, None));
        std::ops::ControlFlow::Continue(())
    });
    if let Err(e) = second {
        return store_failure(&e);
    }
    let (missing, warning) = match stored_gaps(&store, &id, &row, &args.db) {
        Ok(g) => g,
        Err(e) => return e,
    };
    warnings.extend(warning);
    warnings.extend(secrets.warning());
    warnings.extend(name_warnings(&names));
    finish_stored(&mut fan, warnings, &statuses, &missing)
}

/// A run's contract snapshot that does not read back, for `show` (which
/// prints the results as stored) and `rescore` (which cannot grade them
/// again): what is wrong, naming the run and a test that cites it.
pub(crate) fn unreadable_snapshot(
    run: &pactum_store::RunId,
    test: &str,
    e: &pactum_store::StoreError,
) -> Warning {
    let code = match e {
        pactum_store::StoreError::KindlessRefusal { .. } => "outdated-contract",
        _ => "unreadable-contract",
    };
    Warning {
        code: code.into(),
        message: format!("run {}, test `{}`: {e}", run.as_str(), one_line(test, 120)),
    }
}

/// A stored run's name in reports: `run RUN_ID (SUITE_FILE)`, the suite by
/// its file name (the store keeps the absolute path).
pub(crate) fn run_name(id: &str, suite_path: &str) -> String {
    let suite = Path::new(suite_path).file_name().map_or_else(
        || suite_path.to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!("run {id} ({suite})")
}

#[cfg(test)]
mod resume_hint_tests {
    use super::resume_command;
    use std::path::PathBuf;

    #[test]
    fn the_hint_is_ready_to_paste_or_says_why_not() {
        assert_eq!(
            resume_command("suite.yaml", "r1", &None),
            "pactum run suite.yaml --resume r1"
        );
        assert_eq!(
            resume_command("my suite.yaml", "r1", &Some(PathBuf::from("/tmp/a b'.db"))),
            "pactum run 'my suite.yaml' --resume r1 --db \"/tmp/a b'.db\""
        );
        let odd = resume_command("s.yaml", "r1", &Some(PathBuf::from("/tmp/x\u{1b}[2J\n.db")));
        assert!(
            odd.ends_with("--db <PATH: it holds control characters; type it yourself>"),
            "{odd}"
        );
    }
}
