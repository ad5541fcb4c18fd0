//! `show` and `rescore`: a stored run's report, as stored or graded
//! again. Both stream the stored trials (a first pass finds the contracts
//! the results cite, a second sends each result to the sink and drops
//! it), so memory stays flat whatever the size of the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pactum_core::secret::Redactor;
use pactum_core::text::one_line;
use pactum_core::TestStatus;
use pactum_eval::{grade_trace, CompiledContract};
use pactum_interpret::{authored_digest, AuthoredFields};
use pactum_report::{ContractInfo, RedactedSecrets, RunInfo, Warning};
use pactum_store::{RunId, RunRow, Store, StoreError};
use serde_json::Value;

use crate::common::{
    finish_stored, name_warnings, open_store_to_read, resume_command, run_name, store_path,
    stored_names, stored_run, unreadable_snapshot, StatusCounts,
};
use crate::keys::Shown;
use crate::{PipelineError, Sink};

/// What `rescore` says of a test whose authored fields changed since the
/// run: its stored interpretation no longer reads the test.
pub const STALE: &str =
    "interpretation is stale: the test changed since this run; run the suite again to grade it as it is now";

/// How a stored run's report ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSummary {
    /// The run.
    pub run_id: RunId,
    /// Results by status.
    pub statuses: StatusCounts,
    /// Planned trials the store lacks.
    pub missing: u64,
    /// A requested report could not be written in full.
    pub report_failed: bool,
}

/// The planned trials a stored run lacks, in plan order: `(test id, trial
/// index)`.
pub type Missing = Vec<(String, u32)>;

/// What a stored run lacks, and the warning that says so: `N of M trials
/// stored`, who is running it now (a live lease), or how to resume it.
///
/// # Errors
/// The store's, or a snapshot that does not say what the run planned.
pub fn stored_gaps(
    store: &Store,
    id: &RunId,
    row: &RunRow,
    db: Option<&Path>,
) -> Result<(Missing, Option<Warning>), PipelineError> {
    let cov = pactum_runner::coverage(store, id)?;
    let lease = live_lease(store, id);
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
        (None, false) if row.status == pactum_store::RunStatus::Running => Some(format!(
            "run {} was stopped: its writer is gone (no pactum holds its lease); {} of {} trials stored, {} never; resume it with `{hint}`",
            id.as_str(),
            cov.stored,
            cov.planned,
            cov.missing.len()
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

/// The live lease of run `id`: a pactum process is running it now. `None`
/// when no process holds it, or its holder is gone or silent (a stale
/// lease, as `pactum run --resume` judges it; see docs/store.md, "Leases").
/// Reads only.
pub fn live_lease(store: &Store, id: &RunId) -> Option<pactum_store::Lease> {
    store.lease(id).ok().flatten().filter(|l| {
        !pactum_runner::is_stale(
            l,
            &pactum_runner::this_holder(),
            std::time::SystemTime::now(),
        )
    })
}

/// How a stored run's status is shown: its stored status, except that a
/// run stored as `running` whose writer is gone (no live lease: it was
/// killed, or its machine stopped) is `stopped`, since nothing runs it.
/// Reads only.
pub fn shown_status(store: &Store, row: &RunRow) -> &'static str {
    if row.status == pactum_store::RunStatus::Running && live_lease(store, &row.id).is_none() {
        "stopped"
    } else {
        row.status.as_str()
    }
}

/// `runs`: the stored runs of the store `db`, newest first, each with its
/// status as shown ([`shown_status`]). Reads only, creating and changing
/// no file beside the store; read again (three times at most) when a
/// writer started meanwhile.
///
/// # Errors
/// The store's; [`StoreError::Changed`] when it changed under every read.
pub fn runs(db: Option<&Path>) -> Result<Vec<(RunRow, &'static str)>, PipelineError> {
    for _ in 0..3 {
        let store = open_store_to_read(db)?;
        let rows: Vec<(RunRow, &'static str)> = store
            .runs()?
            .into_iter()
            .map(|r| {
                let status = shown_status(&store, &r);
                (r, status)
            })
            .collect();
        if store.unchanged() {
            return Ok(rows);
        }
    }
    Err(StoreError::Changed {
        path: store_path(db),
    }
    .into())
}

/// `show`: reprints stored run `run` (an id or a unique prefix) of the
/// store `db` through `sink`, results as stored. Reads only.
///
/// # Errors
/// The store's (no store there, an unknown run…); a snapshot that does
/// not say what the run planned.
pub fn show(
    run: &str,
    db: Option<&Path>,
    sink: &mut dyn Sink,
) -> Result<StoredSummary, PipelineError> {
    let store = open_store_to_read(db)?;
    let out = show_in(&store, run, db, sink)?;
    if !store.unchanged() {
        // A writer started while the store was read as immutable: what was
        // printed may be torn.
        return Err(StoreError::Changed {
            path: store_path(db),
        }
        .into());
    }
    Ok(out)
}

/// What `pactum show RUN`'s reports may not be written over: the store,
/// and the files of the suite the run was made from (the suite file, and
/// every file it names as it reads now; only the suite file when it no
/// longer loads). Reads only; a run or store that cannot be read leaves
/// the store alone protected, and [`show`] then says why.
pub fn show_protected(run: &str, db: Option<&Path>) -> Vec<pactum_report::Protected> {
    let mut protected = vec![crate::common::store_protected(db)];
    let Ok(store) = open_store_to_read(db) else {
        return protected;
    };
    let Ok((_, row)) = stored_run(&store, run) else {
        return protected;
    };
    match pactum_suite::load_suite(Path::new(&row.suite_path)) {
        Ok(s) => protected.extend(crate::run::suite_protected(&s)),
        Err(_) => protected.push(pactum_report::Protected::input(
            "the suite",
            PathBuf::from(&row.suite_path),
        )),
    }
    protected
}

/// [`show`] over a store already open (`pactum view` opens it so as to
/// change no file beside it); `db` is the store's path as the user gave
/// it, for the resume command a warning prints. Reads only.
///
/// # Errors
/// As [`show`], but for opening the store.
pub fn show_in(
    store: &Store,
    run: &str,
    db: Option<&Path>,
    sink: &mut dyn Sink,
) -> Result<StoredSummary, PipelineError> {
    let (id, row) = stored_run(store, run)?;
    // The contracts the results cite, from their stored snapshots (a first
    // pass; the second streams the results, so memory stays flat).
    // Each digest with the first test that cites it.
    let mut digests: BTreeMap<String, String> = BTreeMap::new();
    store.trials(&id, &mut |t| {
        if let Some(d) = &t.contract_digest {
            digests
                .entry(d.clone())
                .or_insert_with(|| t.test_id.clone());
        }
        std::ops::ControlFlow::Continue(())
    })?;
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
    // A store written before a key was known, or by another version, may
    // hold one: the environment's keys and the traces' key-shaped tokens
    // are redacted from what is shown.
    let mut shown = Shown::new(&Redactor::default(), [], [])?;
    sink.redact_with(shown.redactor());
    sink.begin(&RunInfo {
        command: format!("show {}", id.as_str()),
        pactum_version: row.pactum_version.clone(),
        policy: row.policy,
        contracts,
        authored_tests: 0,
        expectations: None,
        run: Some(run_name(id.as_str(), &row.suite_path)),
    });
    let mut statuses = StatusCounts::default();
    let mut secrets = RedactedSecrets::default();
    let mut names = stored_names(store, digests.keys());
    store.trials(&id, &mut |t| {
        statuses.add(t.result.status);
        if let Some(trace) = &t.trace {
            shown.trace(trace, sink);
            secrets.add(&t.result.trace_id, &trace.redactions());
            names.add(trace);
            sink.transcript(trace);
        }
        if let Some(reading) = crate::common::stored_reading(store, &t, &t.result) {
            sink.reading(&reading);
        }
        sink.result(&t.result, None);
        std::ops::ControlFlow::Continue(())
    })?;
    let (missing, warning) = stored_gaps(store, &id, &row, db)?;
    warnings.extend(warning);
    warnings.extend(secrets.warning());
    warnings.extend(name_warnings(&names));
    finish_stored(sink, warnings, &missing);
    Ok(StoredSummary {
        run_id: id,
        statuses,
        missing: missing.len() as u64,
        report_failed: sink.report_failed(),
    })
}

/// The authored digest of each test of a suite snapshot (JSON), by test id.
pub fn authored_digests(snapshot: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for t in snapshot
        .get("tests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(id), Some(a)) = (t.get("id").and_then(Value::as_str), t.get("authored")) else {
            continue;
        };
        if a.is_null() {
            continue;
        }
        let field = |k: &str| {
            a.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        out.insert(
            id.to_string(),
            authored_digest(&AuthoredFields {
                goal: field("goal"),
                instructions: field("instructions"),
                restrictions: field("restrictions"),
                scenario: field("scenario"),
            }),
        );
    }
    out
}

/// A stored run to grade again.
#[derive(Debug, Clone)]
pub struct RescoreRequest {
    /// The run: an id or a unique prefix.
    pub run: String,
    /// The suite as it is now (default: the path the run was started with).
    pub suite: Option<PathBuf>,
    /// The store; `None`: `.pactum/pactum.db`.
    pub db: Option<PathBuf>,
}

/// A rescore set up: the store opened, the suite read again, the judge
/// built; the files its reports must not overwrite are known.
pub struct PreparedRescore {
    store: Store,
    id: RunId,
    row: RunRow,
    then: BTreeMap<String, String>,
    now: Result<BTreeMap<String, String>, String>,
    secrets: pactum_core::secret::Redactor,
    judge: Option<pactum_runner::JudgeSetup>,
    protected: Vec<pactum_report::Protected>,
    db: Option<PathBuf>,
}

/// Opens the store (which must exist: a mistyped `--db` is an error,
/// never a new empty store), finds the run, reads the suite as it is now
/// (to tell a stale interpretation, and which judge to ask through the
/// cache) and builds that judge.
///
/// # Errors
/// The store's; the suite's secrets or judge that cannot be built.
pub fn prepare_rescore(req: &RescoreRequest) -> Result<PreparedRescore, PipelineError> {
    let store = Store::open_existing(&store_path(req.db.as_deref()))?;
    let (id, row) = stored_run(&store, &req.run)?;
    let then = store
        .suite_snapshot(&id)
        .ok()
        .flatten()
        .map(|s| authored_digests(&s))
        .unwrap_or_default();
    let suite_path = req
        .suite
        .clone()
        .unwrap_or_else(|| row.suite_path.clone().into());
    let current = pactum_suite::load_suite(&suite_path);
    let now: Result<BTreeMap<String, String>, String> = match &current {
        Ok(s) => Ok(serde_json::from_str::<Value>(&s.snapshot)
            .map(|v| authored_digests(&v))
            .unwrap_or_default()),
        Err(d) => Err(format!(
            "cannot read the suite {} to check the interpretation ({} problem(s), first: {})",
            suite_path.display(),
            d.len(),
            d.first().map(|x| x.message.clone()).unwrap_or_default()
        )),
    };
    // The keys of the suite as it is now: the judge may be asked again.
    let secrets = match current
        .as_ref()
        .ok()
        .map(|s| pactum_runner::run_secrets(&s.suite))
    {
        None => pactum_core::secret::Redactor::default(),
        Some(Ok(s)) => s.redactor,
        Some(Err(e)) => return Err(PipelineError::Invalid(e.to_string())),
    };
    let judge = match current.as_ref().ok().and_then(|s| s.suite.judge.as_ref()) {
        None => None,
        Some(spec) => match pactum_llm::ChatClient::new_redacting(
            pactum_runner::model_endpoint(spec),
            &secrets,
        ) {
            Ok(client) => Some(pactum_runner::JudgeSetup {
                client,
                malformed_retries: spec.malformed_retries,
            }),
            Err(e) => return Err(PipelineError::Invalid(format!("judge: {e}"))),
        },
    };
    let mut protected = vec![crate::common::store_protected(req.db.as_deref())];
    match &current {
        Ok(s) => protected.extend(crate::run::suite_protected(s)),
        Err(_) => protected.push(pactum_report::Protected::input(
            "the suite",
            suite_path.clone(),
        )),
    }
    Ok(PreparedRescore {
        store,
        id,
        row,
        then,
        now,
        secrets,
        judge,
        protected,
        db: req.db.clone(),
    })
}

impl PreparedRescore {
    /// The files no report of this rescore may overwrite.
    pub fn protected(&self) -> &[pactum_report::Protected] {
        &self.protected
    }

    /// Grades every stored trace again against the contract snapshot
    /// stored with its result — never re-interpreting. A test whose
    /// authored fields changed since the run re-scores to `error`
    /// ([`STALE`]).
    ///
    /// # Errors
    /// The store's; the runtime that cannot start.
    pub fn rescore(self, sink: &mut dyn Sink) -> Result<StoredSummary, PipelineError> {
        let PreparedRescore {
            store,
            id,
            row,
            then,
            now,
            secrets,
            judge,
            db,
            ..
        } = self;
        let mut shown = Shown::new(&secrets, [], [])?;
        sink.redact_with(shown.redactor());
        // First pass: the contracts the results cite (the second pass streams
        // the results, so memory stays flat).
        let mut infos: BTreeMap<String, ContractInfo> = BTreeMap::new();
        let first = store.trials(&id, &mut |t| {
            if let Some(d) = t.contract_digest {
                if let std::collections::btree_map::Entry::Vacant(v) = infos.entry(d.clone()) {
                    if let Ok(Some(c)) = store.contract(&d) {
                        v.insert(ContractInfo {
                            id: c.id.clone(),
                            path: format!("snapshot stored with run {}", id.as_str()),
                            digest: d,
                        });
                    }
                }
            }
            std::ops::ControlFlow::Continue(())
        });
        first?;
        sink.begin(&RunInfo {
            command: format!("rescore {}", id.as_str()),
            pactum_version: env!("CARGO_PKG_VERSION").into(),
            policy: row.policy,
            contracts: infos.values().cloned().collect(),
            authored_tests: 0,
            expectations: None,
            run: Some(run_name(id.as_str(), &row.suite_path)),
        });
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| PipelineError::Internal(format!("cannot start the async runtime: {e}")))?;
        // The judge answers through the cache of a second connection to the
        // same store, so an unchanged trace re-scores to the same verdicts.
        let cache = Store::open(store.path())
            .and_then(|mut s| s.redact_with(&secrets).map(|()| s))
            .map(|s| {
                pactum_runner::Cache::new(Arc::new(Mutex::new(s)), pactum_runner::CacheMode::Use)
            })?;
        let mut compiled: BTreeMap<String, Result<CompiledContract, String>> = BTreeMap::new();
        let mut statuses = StatusCounts::default();
        let mut unreadable: Vec<Warning> = Vec::new();
        let mut redacted = pactum_report::RedactedSecrets::default();
        let mut names = stored_names(&store, infos.keys());
        let second = store.trials(&id, &mut |t| {
        if let Some(trace) = &t.trace {
            shown.trace(trace, sink);
            redacted.add(&t.result.trace_id, &trace.redactions());
            names.add(trace);
        }
        let level = t.result.observability;
        let trace_id = t.result.trace_id.clone();
        let stale = match (then.get(&t.test_id), &now) {
            (None, _) => None,
            // Unknown is not stale: refreshing would not help, naming the
            // suite would.
            (Some(_), Err(e)) => Some(format!(
                "cannot tell whether the interpretation is stale: {e}; name the suite with `--suite`"
            )),
            (Some(old), Ok(now)) => match now.get(&t.test_id) {
                Some(new) if new == old => None,
                Some(_) => Some(STALE.to_string()),
                None => Some(format!("{STALE} (the test is no longer in the suite)")),
            },
        };
        let result = if let Some(why) = stale {
            error_result(&trace_id, level, &why)
        } else {
            match (&t.trace, &t.contract_digest) {
                (Some(trace), Some(d)) => {
                    let c = compiled
                        .entry(d.clone())
                        .or_insert_with(|| match store.contract(d) {
                            Ok(Some(c)) => {
                                CompiledContract::compile(c, d.clone()).map_err(|e| e.to_string())
                            }
                            Ok(None) => Err(format!(
                                "the contract snapshot {d} is missing from the store"
                            )),
                            // Never graded with a guessed meaning: each
                            // of its traces is an error saying why.
                            Err(e) => {
                                unreadable.push(unreadable_snapshot(
                                    &id, &t.test_id, &e,
                                ));
                                Err(e.to_string())
                            }
                        });
                    // A judge is shown the trace redacted, and its checks
                    // read what it is shown (as `grade` does).
                    let judged_copy;
                    let trace = match &judge {
                        None => trace,
                        Some(_) => {
                            let mut copy = trace.clone();
                            shown.redactor().redact_trace(&mut copy);
                            judged_copy = copy;
                            &judged_copy
                        }
                    };
                    match c {
                        Ok(c) => {
                            let judged = rt.block_on(pactum_runner::judge_trace(
                                judge.as_ref(),
                                &[&*c],
                                trace,
                                &cache,
                                None,
                            ));
                            match judged {
                                Ok((j, _, _)) => {
                                    grade_trace(std::slice::from_ref(c), trace, &row.policy, &j)
                                }
                                Err(e) => error_result(&trace_id, level, &e.to_string()),
                            }
                        }
                        Err(e) => error_result(
                            &trace_id,
                            level,
                            &format!("run {}, test `{}`: {e}", id.as_str(), t.test_id),
                        ),
                    }
                }
                // A trial that never ran a conversation (an unusable
                // contract, a failed target) keeps its stored result.
                _ => t.result.clone(),
            }
        };
        statuses.add(result.status);
        if let Some(trace) = &t.trace {
            sink.transcript(trace);
        }
        if let Some(reading) = crate::common::stored_reading(&store, &t, &result) {
            sink.reading(&reading);
        }
        sink.result(&result, None);
        std::ops::ControlFlow::Continue(())
    });
        second?;
        let (missing, gap) = stored_gaps(&store, &id, &row, db.as_deref())?;
        let mut warnings: Vec<Warning> = gap.into_iter().collect();
        warnings.extend(unreadable);
        warnings.extend(redacted.warning());
        warnings.extend(name_warnings(&names));
        if judge.is_none() {
            warnings.push(Warning {
                code: "no-judge".into(),
                message: "re-scored without a judge (the suite configures none, or cannot be read): judged clauses are not evaluable (no-judge)".into(),
            });
        }
        finish_stored(sink, warnings, &missing);
        Ok(StoredSummary {
            run_id: id,
            statuses,
            missing: missing.len() as u64,
            report_failed: sink.report_failed(),
        })
    }
}

fn error_result(
    trace_id: &str,
    level: pactum_core::ObservabilityLevel,
    why: &str,
) -> pactum_core::TraceResult {
    pactum_core::TraceResult {
        trace_id: trace_id.to_string(),
        source: None,
        observability: level,
        status: TestStatus::Error,
        summary: format!("error: {}", one_line(why, 300)),
        contracts: vec![],
        overall_score: None,
        error: Some(why.to_string()),
    }
}
