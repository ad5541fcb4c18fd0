//! # pactum-runner
//!
//! Orchestration of a live run: every test of a suite × its
//! trials against its target, with bounded concurrency, the judge, the
//! answer cache and the store. Each finished trial is committed to the
//! store at once, so a run that is interrupted (Ctrl-C, a crash, a killed
//! process) loses nothing finished and can be resumed: the runner then
//! skips every trial already stored.
//!
//! The runner knows nothing of output formats: it sends [`Event`]s, and
//! the CLI's reporters consume them.
//!
//! Secrets (SPEC §4): [`run_secrets`] gathers every key the run reads and
//! every secret written into the suite (URL credentials, literal secret
//! headers and exec `env` values); every target, the judge,
//! the interpreter and the simulated user redact them all from what they
//! return, and the store redacts them from everything it writes.

pub mod cache;
mod error;
pub mod interpret;
pub mod judge;
mod lease;
mod plan;
mod trial;
mod writer;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pactum_core::digest::canonical_json;
use pactum_core::policy::Policy;
use pactum_core::result::TraceResult;
use pactum_core::secret::{check_secret, is_key_var, redaction_rule, EnvKeys, Redactor};
use pactum_core::status::TestStatus;
use pactum_core::trace::RedactedAt;
use pactum_eval::CompiledContract;
use pactum_store::{
    ContractSnapshot, JudgeAnswer as StoredJudgeAnswer, NewRun, RunId, RunStatus, Store,
    TrialRecord,
};
use pactum_suite::{env_vars_needed, literal_secrets, LoadedSuite, Suite};
use pactum_target::{RunSecrets, Target};
use tokio::sync::{mpsc, watch, Semaphore};
use tokio::task::JoinSet;

pub use cache::{Cache, CacheMode};
pub use error::RunError;
pub use interpret::{InterpreterSetup, Looked};
pub use judge::{judge_trace, JudgeSetup, TraceJudgments};
pub use lease::{host_name, is_stale, this_holder, LEASE_HEARTBEAT, LEASE_STALE_AFTER};
pub use plan::{coverage, planned_trials, planned_trials_in, trace_id, Coverage};
pub use trial::CallCounts;

use trial::{run_trial, Resolved, RunContext, TestPlan};

/// The current UTC time, RFC 3339 with milliseconds (`…T01:02:03.456Z`).
pub fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Trials in flight at once (`-j`), at least 1.
    pub jobs: usize,
    /// Cache use of a new run; a resumed run keeps the mode stored with
    /// it (this one only for a run stored before modes were).
    pub cache: CacheMode,
    /// Resume this run instead of starting a new one.
    pub resume: Option<RunId>,
    /// The suite file as the user named it (stored with the run).
    pub suite_path: String,
    /// The pactum version (stored with the run).
    pub pactum_version: String,
    /// Send each trial's trace with its event ([`Event::Trial`],
    /// [`Event::Restored`]): for reports that show the conversation.
    pub transcripts: bool,
}

/// What the runner reports while it works.
#[derive(Debug, Clone)]
pub enum Event {
    /// The run started (or resumed).
    Started {
        /// Its id.
        run_id: RunId,
        /// Trials the suite plans in all.
        planned: u64,
        /// Trials already finished in the store (a resumed run).
        already_done: u64,
    },
    /// A trial finished before this process started (a resumed run): its
    /// stored result, for the reports.
    Restored {
        /// Position in the suite's plan (tests in file order, then trials):
        /// reporters that want a stable order sort by it.
        index: usize,
        /// The test id.
        test_id: String,
        /// 0-based trial index.
        trial_index: u32,
        /// The stored result.
        result: Box<TraceResult>,
        /// Where pactum redacted a secret from the target's answers in the
        /// stored trace ([`pactum_core::trace::Trace::redactions`]).
        redacted: Vec<RedactedAt>,
        /// How its authored test was read, when it is one.
        reading: Option<Box<ReadingSource>>,
        /// The stored trace, when [`RunOptions::transcripts`] asks for it.
        trace: Option<Box<pactum_core::trace::Trace>>,
    },
    /// A trial finished and was committed to the store.
    Trial {
        /// Position in the suite's plan (see [`Event::Restored`]).
        index: usize,
        /// The test id.
        test_id: String,
        /// 0-based trial index.
        trial_index: u32,
        /// Its graded result.
        result: Box<TraceResult>,
        /// Where pactum redacted a secret from the target's answers
        /// ([`pactum_core::trace::Trace::redactions`]): the run warns.
        redacted: Vec<RedactedAt>,
        /// Network and cache use.
        calls: CallCounts,
        /// How its authored test was read, when it is one.
        reading: Option<Box<ReadingSource>>,
        /// The trace, when [`RunOptions::transcripts`] asks for it.
        trace: Option<Box<pactum_core::trace::Trace>>,
    },
}

/// What the reports need to show how an authored test was read (SPEC
/// §3.6, §3.7): the trial's trace metadata (its `authored` fields, the
/// `interpretation` provenance and confidence, how the conversation
/// `ended`), the turns that ran, and the contract it was scored against.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadingSource {
    /// The trace's metadata; for a trial that ran no conversation (an
    /// unusable interpretation), `authored` and `interpretation` only.
    pub metadata: serde_json::Value,
    /// Turns that ran; `None` when no conversation ran.
    pub turns: Option<usize>,
    /// The contract scored and its digest, when there was one.
    pub contract: Option<ContractSnapshot>,
}

impl ReadingSource {
    /// The reading of a stored trial: `None` unless its trace records
    /// authored fields (a trial of an authored test that ran).
    pub fn of_stored(
        trace: Option<&pactum_core::trace::Trace>,
        contract: Option<ContractSnapshot>,
    ) -> Option<ReadingSource> {
        let trace = trace?;
        trace.metadata.get("authored").filter(|a| a.is_object())?;
        Some(ReadingSource {
            metadata: trace.metadata.clone(),
            turns: Some(trace.turns.len()),
            contract,
        })
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// The run's id.
    pub run_id: RunId,
    /// Whether it was interrupted before every trial finished.
    pub interrupted: bool,
    /// Network and cache use summed over the trials run by this process.
    pub calls: CallCounts,
}

/// A target built for a run.
#[derive(Clone)]
struct BuiltTarget {
    /// Its name in the suite, shared by its tests' plans.
    name: Arc<str>,
    target: Arc<Target>,
    /// The canonical JSON of its identity: the constant part of its
    /// cache keys, written once.
    identity: Arc<str>,
}

/// A prepared run: targets built (environment variables checked), the
/// judge client built, contracts compiled. Building it sends nothing.
pub struct Runner {
    /// The suite, its snapshot moved to `snapshot`.
    suite: LoadedSuite,
    /// The suite's snapshot until a new run stores it: moved into the
    /// store, not copied (it is as large as the suite's tests).
    snapshot: Mutex<Option<String>>,
    /// Each target by name, built once and shared by its tests.
    targets: BTreeMap<String, BuiltTarget>,
    /// The variables of the tests that have none.
    no_vars: Arc<serde_json::Map<String, serde_json::Value>>,
    /// Each explicit contract compiled once, by digest: every test and
    /// trial that uses it shares it.
    explicit: HashMap<String, Arc<Resolved>>,
    trials: Vec<(usize, u32)>,
    judge: Option<JudgeSetup>,
    interpreter: InterpreterSetup,
    simulated_user: Option<pactum_llm::ChatClient>,
    policy: Policy,
    secrets: RunSecrets,
}

/// The secrets of a run of `suite`, by [`redaction_rule`]: the value of
/// every environment variable it reads keys from
/// ([`pactum_suite::env_vars_needed`]), of every other `*_API_KEY`
/// variable set that looks like a key ([`env_keys`]), and
/// every secret written into the suite that loading it flagged
/// `literal-secret` ([`pactum_suite::literal_secrets`]: credentials in its
/// URLs, literal secret headers and exec `env` values), with the
/// variables' names. A variable that is unset, or too short to be
/// redacted, is left out here: the target or client that reads it refuses
/// it by name when it is built, before anything is sent. A literal secret
/// too short to redact was warned about when the suite was read.
///
/// # Errors
/// [`RunError::Task`] when the secrets cannot be searched for (absurdly
/// many or long).
pub fn run_secrets(suite: &Suite) -> Result<RunSecrets, RunError> {
    let needed = env_vars_needed(suite);
    let written: Vec<String> = literal_secrets(suite)
        .into_iter()
        .filter(|v| check_secret(v).is_ok())
        .collect();
    let written =
        Redactor::new(&written).map_err(|e| RunError::Task(format!("the run's secrets {e}")))?;
    let env = env_keys(needed.iter().map(|(_, var)| var.as_str()));
    Ok(RunSecrets {
        redactor: redaction_rule(&written, &env, [])
            .map_err(|e| RunError::Task(format!("the run's secrets {e}")))?,
        key_vars: needed.into_iter().map(|(_, var)| var).collect(),
    })
}

/// Reads the key variables of the environment (SPEC §4): the value of each
/// variable of `named` that is set (a suite's or a flag's `api_key_env`),
/// and of every other variable whose name ends in `_API_KEY`
/// ([`pactum_core::secret::is_key_var`]). A value that is not UTF-8 is
/// left out (no client can send it as a key). What is redacted of them is
/// [`redaction_rule`]'s to say.
pub fn env_keys<'a>(named: impl IntoIterator<Item = &'a str>) -> EnvKeys {
    let named: Vec<&str> = named.into_iter().collect();
    let mut env = EnvKeys::default();
    for var in &named {
        if let Ok(v) = std::env::var(var) {
            env.named.push(v);
        }
    }
    for (name, value) in std::env::vars_os() {
        let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
            continue;
        };
        if is_key_var(name) && !named.contains(&name) {
            env.ambient.push(value.to_string());
        }
    }
    env
}

/// One authored test's interpretation, for review (`pactum interpret`).
#[derive(Debug, Clone)]
pub struct Review {
    /// The test id.
    pub test_id: String,
    /// The interpretation; `None` when it is not in the store and finding
    /// it would call a model that was not asked for.
    pub interpretation: Option<pactum_interpret::Interpretation>,
    /// Where it came from.
    pub looked: Looked,
    /// The contract that would be scored (after the judge/no-judge
    /// adjustment of the built-in interpreter), when usable.
    pub scoring: Option<pactum_core::Contract>,
}

impl Runner {
    /// Prepares a run of `suite`. Every target and the judge are built
    /// now, so a missing API key variable is reported by name before any
    /// request is sent.
    ///
    /// # Errors
    /// A target or judge that cannot be built; a contract that does not
    /// compile.
    pub fn new(mut suite: LoadedSuite) -> Result<Runner, RunError> {
        let secrets = run_secrets(&suite.suite)?;
        let client = |spec: &pactum_suite::ModelSpec| {
            pactum_llm::ChatClient::new_redacting(model_endpoint(spec), &secrets.redactor)
        };
        // Each target with its name, built once and shared by its tests.
        let mut targets: BTreeMap<String, BuiltTarget> = BTreeMap::new();
        for (name, spec) in &suite.suite.targets {
            let t = Target::with_secrets(spec, &secrets).map_err(|source| RunError::Target {
                target: name.clone(),
                source: Box::new(source),
            })?;
            let built = BuiltTarget {
                name: Arc::from(name.as_str()),
                identity: Arc::from(canonical_json(&t.identity())),
                target: Arc::new(t),
            };
            targets.insert(name.clone(), built);
        }
        let judge = match &suite.suite.judge {
            None => None,
            Some(spec) => Some(JudgeSetup {
                client: client(spec).map_err(RunError::Judge)?,
                malformed_retries: spec.malformed_retries,
            }),
        };
        let interpreter = InterpreterSetup {
            client: match &suite.suite.interpreter {
                None => None,
                Some(spec) => Some(client(spec).map_err(RunError::Interpreter)?),
            },
            malformed_retries: suite
                .suite
                .interpreter
                .as_ref()
                .map_or(0, |s| s.malformed_retries),
        };
        let simulated_user = match &suite.suite.simulated_user {
            None => None,
            Some(spec) => Some(client(spec).map_err(RunError::SimulatedUser)?),
        };
        // The plan as a stored run reads it back (one rule for both).
        let trials = {
            let tests = &suite.suite.tests;
            // The snapshot lists the tests in the suite's order: the index
            // by id is built only if it does not.
            let mut index: Option<HashMap<&str, usize>> = None;
            let mut trials =
                Vec::with_capacity(tests.iter().map(|t| t.trials as usize).sum::<usize>());
            plan::for_each_planned(&suite.snapshot, &mut |at, id, count| {
                let i = match tests.get(at) {
                    Some(t) if t.id == id => at,
                    _ => *index
                        .get_or_insert_with(|| {
                            tests
                                .iter()
                                .enumerate()
                                .map(|(i, t)| (t.id.as_str(), i))
                                .collect()
                        })
                        .get(id)
                        .ok_or_else(|| {
                            RunError::Snapshot(format!("test `{id}` is not in the suite"))
                        })?,
                };
                trials.extend((0..count).map(|k| (i, k)));
                Ok(())
            })?;
            trials
        };
        let mut explicit: HashMap<String, Arc<Resolved>> = HashMap::new();
        // Each test's plan is made when its trial starts (`test_plan`), from
        // the suite's tests: a plan of every test is never held beside them.
        for t in &suite.suite.tests {
            if !targets.contains_key(&t.target) {
                return Err(RunError::UnknownTarget {
                    test: t.id.clone(),
                    target: t.target.clone(),
                });
            }
            if let Some(c) = &t.contract {
                // Compiled once per contract, whatever the number of tests
                // and trials that share it; compiled here so a broken
                // contract stops the run before anything is sent.
                if !explicit.contains_key(&c.digest) {
                    let compiled = CompiledContract::compile(c.contract.clone(), c.digest.clone())
                        .map_err(|source| RunError::Contract {
                            test: t.id.clone(),
                            source,
                        })?;
                    explicit.insert(
                        c.digest.clone(),
                        Arc::new(Resolved {
                            contracts: Arc::new(vec![compiled]),
                            unusable: None,
                            objective: None,
                            adversarial: false,
                            interpretation: serde_json::Value::Null,
                        }),
                    );
                }
            }
        }
        Ok(Runner {
            explicit,
            policy: suite.suite.policy,
            snapshot: Mutex::new(Some(std::mem::take(&mut suite.snapshot))),
            suite,
            targets,
            // Most tests have no variables: they share one empty map.
            no_vars: Arc::new(serde_json::Map::new()),
            trials,
            judge,
            interpreter,
            simulated_user,
            secrets,
        })
    }

    /// The suite's tests, in file order.
    fn tests(&self) -> &[pactum_suite::TestSpec] {
        &self.suite.suite.tests
    }

    /// The plan of test `t`, made when one of its trials starts.
    fn test_plan(&self, t: usize) -> Result<TestPlan, RunError> {
        let spec = self
            .tests()
            .get(t)
            .ok_or_else(|| RunError::Task(format!("no test {t} in the suite")))?;
        let BuiltTarget {
            name: target_name,
            target,
            identity,
        } = self
            .targets
            .get(&spec.target)
            .cloned()
            .ok_or_else(|| RunError::UnknownTarget {
                test: spec.id.clone(),
                target: spec.target.clone(),
            })?;
        Ok(TestPlan {
            id: spec.id.clone(),
            target_name,
            target,
            identity,
            turns: spec.turns.clone(),
            vars: if spec.vars.is_empty() {
                self.no_vars.clone()
            } else {
                Arc::new(spec.vars.clone())
            },
            authored: spec.authored.clone(),
        })
    }

    /// Every secret of the run ([`run_secrets`]): reports and anything else
    /// that prints what the run produced redact them too.
    pub fn redactor(&self) -> &Redactor {
        &self.secrets.redactor
    }

    /// Makes `store` redact the run's secrets from everything it writes.
    async fn guard(&self, store: &Arc<Mutex<Store>>) -> Result<(), RunError> {
        let store = store.clone();
        let redactor = self.secrets.redactor.clone();
        cache::blocking(move || {
            let mut s = store.lock().map_err(|_| RunError::Poisoned)?;
            Ok(s.redact_with(&redactor)?)
        })
        .await
    }

    /// The interpretation of every authored test, for review. Reads the
    /// store; interprets with the built-in interpreter when nothing is
    /// stored; calls an interpreter model only when `refresh` is set
    /// (reviewing never calls a model unless asked, SPEC §3.6).
    ///
    /// # Errors
    /// A store failure.
    pub async fn review(
        &self,
        store: Arc<Mutex<Store>>,
        refresh: bool,
    ) -> Result<Vec<Review>, RunError> {
        self.guard(&store).await?;
        let mut out = Vec::new();
        for t in self.tests() {
            let Some(a) = &t.authored else { continue };
            let (i, looked) = interpret::interpretation(
                &store,
                &self.interpreter,
                a,
                t.contract.as_deref(),
                &self.policy,
                refresh,
                refresh,
            )
            .await?;
            let scoring = i
                .as_ref()
                .and_then(|i| i.scoring_contract(self.judge.is_some(), exchange(t)));
            out.push(Review {
                test_id: t.id.clone(),
                interpretation: i,
                looked,
                scoring,
            });
        }
        Ok(out)
    }

    /// Resolves every test's contract at the start of a run: explicit
    /// contracts as they are, authored tests through the interpretation
    /// cache (interpreting what is not cached).
    async fn resolve(&self, store: &Arc<Mutex<Store>>) -> Result<Vec<Arc<Resolved>>, RunError> {
        let mut out = Vec::with_capacity(self.tests().len());
        // Interpretations that come out the same share one compiled contract.
        let mut compiled: HashMap<String, Arc<Vec<CompiledContract>>> = HashMap::new();
        for t in self.tests() {
            let Some(a) = &t.authored else {
                let resolved = match &t.contract {
                    Some(c) => self.explicit.get(&c.digest).cloned().ok_or_else(|| {
                        RunError::Task(format!("test `{}`: its contract was not compiled", t.id))
                    })?,
                    None => Arc::new(Resolved {
                        contracts: Arc::new(vec![]),
                        unusable: None,
                        objective: None,
                        adversarial: false,
                        interpretation: serde_json::Value::Null,
                    }),
                };
                out.push(resolved);
                continue;
            };
            let (i, _) = interpret::interpretation(
                store,
                &self.interpreter,
                a,
                t.contract.as_deref(),
                &self.policy,
                false,
                true,
            )
            .await?;
            let Some(i) = i else {
                out.push(Arc::new(unusable("the interpretation could not be made")));
                continue;
            };
            let meta = serde_json::json!({
                "source": i.source,
                "authored_digest": i.authored_digest,
                "confidence": i.confidence,
                "usable": i.usable,
                "reason": i.reason,
            });
            let Some(contract) = i.scoring_contract(self.judge.is_some(), exchange(t)) else {
                let mut r = unusable(&format!(
                    "the contract is unusable: {}",
                    i.reason.clone().unwrap_or_else(|| "no reason given".into())
                ));
                r.interpretation = meta;
                out.push(Arc::new(r));
                continue;
            };
            let digest = pactum_core::digest::digest_of(&contract);
            let contracts = match compiled.get(&digest) {
                Some(c) => c.clone(),
                None => {
                    let c = CompiledContract::compile(contract.clone(), digest.clone()).map_err(
                        |source| RunError::Contract {
                            test: t.id.clone(),
                            source,
                        },
                    )?;
                    let c = Arc::new(vec![c]);
                    compiled.insert(digest, c.clone());
                    c
                }
            };
            out.push(Arc::new(Resolved {
                contracts,
                unusable: None,
                objective: contract.simulated_user_objective.clone(),
                adversarial: contract.adversarial,
                interpretation: meta,
            }));
        }
        Ok(out)
    }

    /// The suite's digest (runs are resumed by it).
    pub fn suite_digest(&self) -> &str {
        &self.suite.digest
    }

    /// The trials the suite plans, in plan order: `(test id, trial index)`.
    pub fn plan(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.trials
            .iter()
            .map(|&(t, k)| (self.tests()[t].id.as_str(), k))
    }

    /// Number of trials the suite plans.
    pub fn planned(&self) -> u64 {
        self.trials.len() as u64
    }

    /// Runs (or resumes) the suite. Events go to `events`; setting
    /// `cancel` to `true` stops scheduling, aborts the trials in flight
    /// (they were not committed, so a resume runs them again) and marks the
    /// run `interrupted`.
    ///
    /// # Errors
    /// A store failure, or a resume of a run that cannot be resumed.
    pub async fn run(
        &self,
        store: Arc<Mutex<Store>>,
        opts: &RunOptions,
        events: mpsc::UnboundedSender<Event>,
        cancel: watch::Receiver<bool>,
    ) -> Result<RunOutcome, RunError> {
        self.guard(&store).await?;
        let holder = lease::this_holder();
        let (run_id, cache) = self.open_run(&store, opts, &holder).await?;
        // A resumed run keeps the cache mode it was started with.
        let opts = &RunOptions {
            cache,
            ..opts.clone()
        };
        // From here on the run is in the store: whatever stops it, say
        // which run, so it can be resumed; and never keep its lease.
        let (stop_tx, stop) = watch::channel(false);
        let lost: Arc<Mutex<Option<RunError>>> = Arc::new(Mutex::new(None));
        let guard = tokio::spawn(hold_lease(
            store.clone(),
            run_id.clone(),
            holder.token.clone(),
            cancel,
            stop_tx,
            lost.clone(),
        ));
        let outcome = self
            .run_opened(&store, &run_id, opts, events, stop, &lost)
            .await;
        guard.abort();
        match outcome {
            Ok(o) => Ok(o),
            Err(e) => {
                let release = {
                    let store = store.clone();
                    let id = run_id.clone();
                    let token = holder.token.clone();
                    cache::blocking(move || {
                        let s = store.lock().map_err(|_| RunError::Poisoned)?;
                        Ok(s.release_lease(&id, &token)?)
                    })
                };
                // A store that just failed may fail this too; the lease is
                // then stale as soon as this process exits.
                let _ = release.await;
                Err(RunError::Stopped {
                    run: run_id.as_str().to_string(),
                    cause: Box::new(e),
                })
            }
        }
    }

    async fn run_opened(
        &self,
        store: &Arc<Mutex<Store>>,
        run_id: &RunId,
        opts: &RunOptions,
        events: mpsc::UnboundedSender<Event>,
        mut cancel: watch::Receiver<bool>,
        lost: &Arc<Mutex<Option<RunError>>>,
    ) -> Result<RunOutcome, RunError> {
        let run_id = run_id.clone();
        let done = {
            let store = store.clone();
            let id = run_id.clone();
            cache::blocking(move || {
                let s = store.lock().map_err(|_| RunError::Poisoned)?;
                Ok(s.finished_trials(&id)?)
            })
            .await?
        };
        let _ = events.send(Event::Started {
            run_id: run_id.clone(),
            planned: self.planned(),
            already_done: done.len() as u64,
        });
        if !done.is_empty() {
            let plan: std::collections::HashMap<(String, u32), usize> = self
                .trials
                .iter()
                .enumerate()
                .map(|(i, &(t, k))| ((self.tests()[t].id.clone(), k), i))
                .collect();
            restore(store, &run_id, &events, plan, opts.transcripts).await?;
        }
        let resolved = self.resolve(store).await?;
        let writer = writer::Writer::start(store.clone())?;
        // Without a reader (a store in memory), look-ups go through the
        // writer: slower, never wrong.
        let reader = match opts.cache {
            CacheMode::Use => store
                .lock()
                .ok()
                .and_then(|s| cache::Reader::start(&s).ok()),
            _ => None,
        };
        let ctx = Arc::new(RunContext {
            run_id: run_id.as_str().to_string(),
            cache: Cache::new(store.clone(), opts.cache)
                .with_writer(writer.clone(), reader.clone()),
            judge: self.judge.clone(),
            simulated_user: self.simulated_user.clone(),
            policy: self.policy,
        });
        // `-j` bounds the conversations in flight; a finished one hands its
        // slot on before its commit, so the commits waiting in the writer
        // are bounded apart (`alive`: as many again), keeping memory to a
        // multiple of `-j` when the store is slower than the targets.
        let permits = Arc::new(Semaphore::new(opts.jobs.max(1)));
        let alive = Arc::new(Semaphore::new(opts.jobs.max(1).saturating_mul(2)));
        let mut set: JoinSet<Result<CallCounts, RunError>> = JoinSet::new();
        let mut interrupted = false;
        let mut total = CallCounts::default();
        let mut first_error: Option<RunError> = None;
        let pending = self
            .trials
            .iter()
            .enumerate()
            .filter(|(_, (t, k))| !done.contains(&(self.tests()[*t].id.clone(), *k)));
        for (index, &(t, k)) in pending {
            let slots = async {
                let a = alive.clone().acquire_owned().await?;
                let p = permits.clone().acquire_owned().await?;
                Ok::<_, tokio::sync::AcquireError>((a, p))
            };
            let (held, permit) = tokio::select! {
                s = slots => s.map_err(|e| RunError::Task(e.to_string()))?,
                _ = cancel.wait_for(|c| *c) => { interrupted = true; break; }
            };
            // Collect what has finished so the set stays small.
            while let Some(r) = set.try_join_next() {
                absorb(r, &mut total, &mut first_error);
            }
            if let Some(e) = writer.take_failure() {
                first_error.get_or_insert(e);
            }
            // A failure that stops the run (the store, a lost lease) stops
            // it now: no more requests for trials that cannot be kept.
            if first_error.is_some() {
                drop(permit);
                break;
            }
            let test = match self.test_plan(t) {
                Ok(plan) => Arc::new(plan),
                // Not reached (every test's target was found by `new`):
                // stops the run as a failed trial would.
                Err(e) => {
                    first_error.get_or_insert(e);
                    drop(permit);
                    break;
                }
            };
            let plan = resolved[t].clone();
            let transcripts = opts.transcripts;
            let ctx = ctx.clone();
            let writer = writer.clone();
            let events = events.clone();
            let run_id = run_id.clone();
            let stopping = cancel.clone();
            set.spawn(async move {
                let _held = held;
                let started_at = now();
                let clock = Instant::now();
                let out = run_trial(&ctx, &test, &plan, k).await?;
                // The conversation is over: its `-j` slot goes to the next
                // one while this trial is recorded and committed.
                drop(permit);
                // An error once the run is stopping may be the stop itself
                // (the signal reaching an agent before it has its own process
                // group): it is not kept, so a resume runs the trial again.
                if *stopping.borrow() && out.result.status == TestStatus::Error {
                    return Ok(out.calls);
                }
                let record = TrialRecord {
                    run_id: run_id.clone(),
                    test_id: test.id.clone(),
                    trial_index: k,
                    contract: plan.contracts.first().map(|c| ContractSnapshot {
                        digest: c.digest().to_string(),
                        contract: c.contract().clone(),
                    }),
                    result: out.result.clone(),
                    trace: out.trace,
                    judge_answers: out
                        .judge_answers
                        .into_iter()
                        .map(|a| StoredJudgeAnswer {
                            contract_id: a.contract_id,
                            clause_id: a.clause_id,
                            turn: a.turn,
                            attempt: a.attempt,
                            request_digest: a.request_digest,
                            raw_answer: a.raw_answer,
                            parsed: a.parsed,
                        })
                        .collect(),
                    started_at,
                    finished_at: now(),
                    duration_ms: u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX),
                };
                let calls = out.calls;
                let reading = test.authored.as_ref().map(|a| {
                    Box::new(match &record.trace {
                        Some(t) => ReadingSource {
                            metadata: t.metadata.clone(),
                            turns: Some(t.turns.len()),
                            contract: record.contract.clone(),
                        },
                        None => ReadingSource {
                            metadata: serde_json::json!({
                                "authored": a,
                                "interpretation": plan.interpretation,
                            }),
                            turns: None,
                            contract: record.contract.clone(),
                        },
                    })
                });
                let event = Event::Trial {
                    index,
                    test_id: test.id.clone(),
                    trial_index: k,
                    result: Box::new(out.result),
                    redacted: record
                        .trace
                        .as_ref()
                        .map(|t| t.redactions())
                        .unwrap_or_default(),
                    calls,
                    reading,
                    trace: if transcripts {
                        record.trace.clone().map(Box::new)
                    } else {
                        None
                    },
                };
                // Committed and reported together: the writer commits what
                // it was handed even when the run is cancelled meanwhile,
                // so no stored trial is missing from the reports.
                writer.record(record, event, events).await?;
                Ok(calls)
            });
        }
        // Stopped while waiting for a free slot, or by a failure: the
        // trials in flight are abandoned too (they were not committed, so
        // a resume runs them).
        if interrupted || first_error.is_some() {
            set.abort_all();
        }
        loop {
            tokio::select! {
                next = set.join_next() => match next {
                    Some(r) => absorb(r, &mut total, &mut first_error),
                    None => break,
                },
                _ = cancel.wait_for(|c| *c), if !interrupted => {
                    interrupted = true;
                    set.abort_all();
                }
            }
        }
        // Trials handed to the writer by aborted tasks are committed (and
        // reported) before the run's end is decided from the store.
        drop(ctx);
        if let Some(r) = reader {
            r.close();
        }
        if let Err(e) = writer.flush().await {
            first_error.get_or_insert(e);
        }
        if let Some(e) = writer.take_failure() {
            first_error.get_or_insert(e);
        }
        writer.close().await;
        if let Some(e) = lost.lock().ok().and_then(|mut l| l.take()) {
            first_error.get_or_insert(e);
        }
        // What is stored decides, not how the run ended: a run whose every
        // trial is stored is finished, even when it was cancelled after its
        // last commit; one with a gap is interrupted, whatever stopped it.
        let ended = {
            let store = store.clone();
            let id = run_id.clone();
            let planned = self.planned();
            cache::blocking(move || {
                let s = store.lock().map_err(|_| RunError::Poisoned)?;
                let stored = s.finished_trials(&id)?.len() as u64;
                let status = if stored >= planned {
                    RunStatus::Finished
                } else {
                    RunStatus::Interrupted
                };
                s.finish_run(&id, status, &now())?;
                Ok(status)
            })
            .await
        };
        match (ended, &first_error) {
            (Ok(RunStatus::Finished), None) => interrupted = false,
            (Ok(_), _) => {}
            // The first error stopped the run; a failure to record its end
            // is the same failure seen again (a full disk, a read-only store).
            (Err(e), None) => return Err(e),
            (Err(_), Some(_)) => {}
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        Ok(RunOutcome {
            run_id,
            interrupted,
            calls: total,
        })
    }

    async fn open_run(
        &self,
        store: &Arc<Mutex<Store>>,
        opts: &RunOptions,
        holder: &pactum_store::LeaseHolder,
    ) -> Result<(RunId, CacheMode), RunError> {
        let store = store.clone();
        let digest = self.suite.digest.clone();
        let snapshot = match opts.resume {
            Some(_) => None,
            None => Some(
                self.snapshot
                    .lock()
                    .map_err(|_| RunError::Poisoned)?
                    .take()
                    .ok_or_else(|| {
                        RunError::Task("this runner has started its run already".into())
                    })?,
            ),
        };
        let policy = self.policy;
        let opts = opts.clone();
        let holder = holder.clone();
        cache::blocking(move || {
            let s = store.lock().map_err(|_| RunError::Poisoned)?;
            let stale =
                |l: &pactum_store::Lease| lease::is_stale(l, &holder, std::time::SystemTime::now());
            match &opts.resume {
                Some(id) => {
                    let row = s.run(id)?.ok_or_else(|| {
                        RunError::Task(format!("run {} is not in the store", id.as_str()))
                    })?;
                    if row.suite_digest != digest {
                        return Err(RunError::WrongSuite {
                            run: id.as_str().to_string(),
                            found: row.suite_digest,
                            expected: digest,
                        });
                    }
                    if !row.status.is_resumable() {
                        return Err(RunError::AlreadyFinished(id.as_str().to_string()));
                    }
                    // Refused while another live process runs it.
                    s.acquire_lease(id, &holder, &now(), &stale)?;
                    s.resume_run(id)?;
                    // A run stored before modes were keeps the flags given.
                    let mode = s.run_cache_mode(id)?.unwrap_or(opts.cache);
                    Ok((id.clone(), mode))
                }
                None => {
                    let snapshot = snapshot.ok_or_else(|| {
                        RunError::Task("the suite's snapshot is not at hand".into())
                    })?;
                    let id = s.create_run(&NewRun {
                        suite_path: opts.suite_path.clone(),
                        suite_digest: digest,
                        suite_snapshot: snapshot,
                        policy,
                        started_at: now(),
                        pactum_version: opts.pactum_version.clone(),
                        cache_mode: opts.cache,
                    })?;
                    s.acquire_lease(&id, &holder, &now(), &stale)?;
                    Ok((id, opts.cache))
                }
            }
        })
        .await
    }
}

/// Keeps the run's lease while it runs: renews it every
/// [`LEASE_HEARTBEAT`], and sets `stop` when the caller cancels or when the
/// lease is lost (another process took the run over) or cannot be renewed
/// (the store failed), leaving the reason in `lost`.
async fn hold_lease(
    store: Arc<Mutex<Store>>,
    run: RunId,
    token: String,
    mut cancel: watch::Receiver<bool>,
    stop: watch::Sender<bool>,
    lost: Arc<Mutex<Option<RunError>>>,
) {
    let mut tick = tokio::time::interval(LEASE_HEARTBEAT);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    let mut cancellable = true;
    loop {
        let cancelled = tokio::select! {
            r = cancel.wait_for(|c| *c), if cancellable => Some(r.is_ok()),
            _ = tick.tick() => None,
        };
        match cancelled {
            Some(true) => {
                let _ = stop.send(true);
                break;
            }
            // The caller can no longer cancel: keep renewing.
            Some(false) => {
                cancellable = false;
                continue;
            }
            None => {}
        }
        let store = store.clone();
        let (id, tok) = (run.clone(), token.clone());
        let renewed = cache::blocking(move || {
            let s = store.lock().map_err(|_| RunError::Poisoned)?;
            Ok(s.renew_lease(&id, &tok, &now())?)
        })
        .await;
        let why = match renewed {
            Ok(true) => continue,
            Ok(false) => RunError::LeaseLost(run.as_str().to_string()),
            Err(e) => e,
        };
        if let Ok(mut l) = lost.lock() {
            l.get_or_insert(why);
        }
        let _ = stop.send(true);
        break;
    }
}

/// Stops a run the way Ctrl-C does: sets `cancel` on SIGINT or SIGTERM
/// (every finished trial is stored; the run can be resumed).
///
/// # Errors
/// The signal handlers cannot be installed.
pub fn cancel_on_signals(cancel: watch::Sender<bool>) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            let _ = cancel.send(true);
            // Keep the handlers: a second signal must not kill the process
            // half-way through storing what it has.
            std::future::pending::<()>().await;
        });
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                let _ = cancel.send(true);
            }
        });
    }
    Ok(())
}

/// Makes a write past the process's file-size limit (`ulimit -f`,
/// RLIMIT_FSIZE) an error that is reported (EFBIG: "file too large"), not a
/// silent kill: SIGXFSZ is caught, for the life of the process. Call once,
/// early; a no-op where there is no such signal.
pub fn survive_file_size_limit() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build();
        if let Ok(rt) = rt {
            // The handler stays installed after the runtime and the stream
            // are gone; the signal is then simply dropped.
            let _ = rt.block_on(async {
                signal(SignalKind::from_raw(rustix::process::Signal::XFSZ.as_raw()))
            });
        }
    }
}

fn absorb(
    r: Result<Result<CallCounts, RunError>, tokio::task::JoinError>,
    total: &mut CallCounts,
    first_error: &mut Option<RunError>,
) {
    match r {
        Ok(Ok(c)) => total.add(&c),
        Ok(Err(e)) => {
            first_error.get_or_insert(e);
        }
        Err(e) if e.is_cancelled() => {}
        Err(e) => {
            first_error.get_or_insert(RunError::Task(e.to_string()));
        }
    }
}

async fn restore(
    store: &Arc<Mutex<Store>>,
    run_id: &RunId,
    events: &mpsc::UnboundedSender<Event>,
    plan: std::collections::HashMap<(String, u32), usize>,
    transcripts: bool,
) -> Result<(), RunError> {
    let store = store.clone();
    let id = run_id.clone();
    let events = events.clone();
    cache::blocking(move || {
        let s = store.lock().map_err(|_| RunError::Poisoned)?;
        s.trials(&id, &mut |t| {
            let index = plan
                .get(&(t.test_id.clone(), t.trial_index))
                .copied()
                .unwrap_or(usize::MAX);
            let contract = t.contract_digest.as_deref().and_then(|d| {
                s.contract(d).ok().flatten().map(|c| ContractSnapshot {
                    digest: d.to_string(),
                    contract: c,
                })
            });
            let reading = ReadingSource::of_stored(t.trace.as_ref(), contract).map(Box::new);
            let _ = events.send(Event::Restored {
                index,
                test_id: t.test_id,
                trial_index: t.trial_index,
                result: Box::new(t.result),
                redacted: t.trace.as_ref().map(|x| x.redactions()).unwrap_or_default(),
                reading,
                trace: if transcripts {
                    t.trace.map(Box::new)
                } else {
                    None
                },
            });
            std::ops::ControlFlow::Continue(())
        })?;
        Ok(())
    })
    .await
}

/// Whether a test's conversation is scripted or driven by a simulated user.
fn exchange(t: &pactum_suite::TestSpec) -> pactum_interpret::Exchange {
    if t.turns.is_empty() {
        pactum_interpret::Exchange::SimulatedUser
    } else {
        pactum_interpret::Exchange::DirectRequest
    }
}

fn unusable(why: &str) -> Resolved {
    Resolved {
        contracts: Arc::new(vec![]),
        unusable: Some(why.to_string()),
        objective: None,
        adversarial: false,
        interpretation: serde_json::Value::Null,
    }
}

/// An LLM endpoint from a suite's model spec (judge, interpreter,
/// simulated user).
pub fn model_endpoint(spec: &pactum_suite::ModelSpec) -> pactum_llm::Endpoint {
    let mut ep = pactum_llm::Endpoint::new(spec.base_url.clone(), spec.model.clone());
    ep.api_key_env = spec.api_key_env.clone();
    ep.params = spec.params.clone();
    ep.timeout = std::time::Duration::from_millis(spec.limits.timeout_ms);
    ep.retry = pactum_llm::RetryPolicy {
        max_retries: spec.limits.retries.max,
        base_backoff: std::time::Duration::from_millis(spec.limits.retries.base_backoff_ms),
        max_backoff: std::time::Duration::from_millis(spec.limits.retries.max_backoff_ms),
    };
    ep.concurrency = spec.limits.concurrency;
    ep.requests_per_second = spec.limits.requests_per_second;
    ep
}
