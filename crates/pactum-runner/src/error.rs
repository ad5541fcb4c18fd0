//! The runner's typed errors. Trial-level failures (a dead target, a
//! failing judge) are not errors here: they become `error` statuses and
//! `not_evaluable` clauses. These are the failures that stop a run.

/// Why a run could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The store failed (it names its path).
    #[error(transparent)]
    Store(Box<pactum_store::StoreError>),
    /// A commit shared by several writes failed (it names the store's
    /// path): nothing of any of them was kept.
    #[error(transparent)]
    Batch(std::sync::Arc<pactum_store::StoreError>),
    /// A target could not be built (a missing environment variable, a bad
    /// setting); raised before any request is sent. Shown as its source,
    /// which already begins with "target `NAME`: ".
    #[error("{source}")]
    Target {
        /// The target's name in the suite.
        target: String,
        /// What went wrong (boxed: it is large, and rare).
        source: Box<pactum_target::TargetError>,
    },
    /// The judge client could not be built (a missing API key variable).
    #[error("judge: {0}")]
    Judge(pactum_llm::LlmError),
    /// The interpreter client could not be built.
    #[error("interpreter: {0}")]
    Interpreter(pactum_llm::LlmError),
    /// The simulated user's client could not be built.
    #[error("simulated user: {0}")]
    SimulatedUser(pactum_llm::LlmError),
    /// A contract failed to compile for evaluation.
    #[error("test `{test}`: {source}")]
    Contract {
        /// The test id.
        test: String,
        /// What went wrong.
        source: pactum_eval::EvalError,
    },
    /// A test names a target the suite does not define (the suite loader
    /// normally rejects this first).
    #[error("test `{test}`: unknown target `{target}`")]
    UnknownTarget {
        /// The test id.
        test: String,
        /// The name it used.
        target: String,
    },
    /// The run to resume does not belong to this suite.
    #[error("run {run} was made from a different suite (digest {found}); this suite is {expected}: start a new run instead")]
    WrongSuite {
        /// The run id.
        run: String,
        /// The run's suite digest.
        found: String,
        /// This suite's digest.
        expected: String,
    },
    /// The run to resume already finished.
    #[error("run {0} already finished: nothing to resume")]
    AlreadyFinished(String),
    /// A stored suite snapshot does not say what its run planned.
    #[error("the stored suite snapshot does not say what the run planned: {0}")]
    Snapshot(String),
    /// Another process took the run over, judging this one dead (its
    /// heartbeat was late); this one stopped.
    #[error("another pactum took run {0} over (this process's lease heartbeat was late); this process stopped")]
    LeaseLost(String),
    /// The run was started (it is in the store) and then stopped by
    /// `source`: every trial finished before is stored, and it can be
    /// resumed.
    #[error("run {run} stopped: {cause}")]
    Stopped {
        /// The run.
        run: String,
        /// What stopped it.
        cause: Box<RunError>,
    },
    /// A background task failed.
    #[error("internal task failed: {0}")]
    Task(String),
    /// The store's lock was poisoned by a panic in another task.
    #[error("the store is unusable after an internal failure")]
    Poisoned,
}

impl From<pactum_store::StoreError> for RunError {
    fn from(e: pactum_store::StoreError) -> Self {
        RunError::Store(Box::new(e))
    }
}
