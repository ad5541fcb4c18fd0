//! The run's one store writer: a thread that commits finished trials and
//! cache entries in batches.
//!
//! A run with many conversations in flight finishes trials faster than one
//! commit each can keep up with cheaply: every commit took the store's
//! lock, a blocking-pool thread and a WAL append of its own. The writer
//! takes whatever has queued while it was busy and commits it in one
//! transaction ([`Store::write_batch`]), each write under its own
//! savepoint, so one write's failure is still only its own.
//!
//! Guarantees kept from one commit per trial: a trial's event is sent
//! after its commit and only if it committed, so no stored trial is missing
//! from the reports and no reported trial is missing from the store; a
//! write handed to the writer is committed even if its task is aborted
//! meanwhile (Ctrl-C), and [`Writer::flush`] waits for everything handed
//! over before it.
//!
//! Cache entries and hit counts are handed over without waiting: a
//! conversation goes on while its answer is committed, and, the writer
//! taking jobs in order, the entry is committed with or before the trial
//! that made it. Until it is committed, an entry is held in memory
//! ([`Writer::pending`]), so a look-up right after a put finds it as it
//! did when puts were waited for. A failed one is kept for [`Writer::take_failure`], which
//! the run checks as it starts each trial and once the writer is flushed:
//! the store failing stops the run as before, but waiting for a cache
//! commit no longer lengthens every trial.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pactum_store::{BatchWrite, CacheKind, Store, StoreError, TrialRecord};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::error::RunError;
use crate::Event;

/// Most writes committed in one transaction: bounds a batch's latency and
/// the work lost to a failed commit.
const MAX_BATCH: usize = 256;

/// What the writer is asked to do.
enum Job {
    /// Record a trial, then send its event.
    Trial {
        record: Box<TrialRecord>,
        event: Box<Event>,
        events: mpsc::UnboundedSender<Event>,
        done: oneshot::Sender<Result<(), RunError>>,
    },
    /// Look a cache entry up, counting its hit.
    CacheGet {
        key: String,
        done: oneshot::Sender<Result<Option<Value>, RunError>>,
    },
    /// Count a hit found by a reader; a failure goes to the failure slot.
    CacheHit { key: String },
    /// Store a cache entry; a failure goes to the failure slot.
    Cache {
        key: String,
        kind: CacheKind,
        value: Value,
        now: String,
        /// Its number among the entries handed over (see [`Pending`]).
        seq: u64,
    },
    /// Answer once every job before it is committed.
    Flush(oneshot::Sender<()>),
    /// Commit every job before it, let the store go, answer and stop.
    Close(oneshot::Sender<()>),
}

/// Cache entries handed to the writer and not committed yet, by key, each
/// with its number: the writer removes an entry once it committed it,
/// unless a later put of the same key replaced it meanwhile.
type Pending = Mutex<HashMap<String, (u64, Value)>>;

/// A handle on the writer thread; cheap to clone. The thread ends when the
/// last handle is dropped, after committing what it was handed.
#[derive(Clone)]
pub(crate) struct Writer {
    jobs: mpsc::UnboundedSender<Job>,
    /// The first failed write nobody waited for (a cache entry, a hit).
    failed: Arc<Mutex<Option<RunError>>>,
    pending: Arc<Pending>,
    seq: Arc<AtomicU64>,
}

impl Writer {
    /// Starts the writer thread over `store`.
    ///
    /// # Errors
    /// [`RunError::Task`] when the thread cannot be started.
    pub(crate) fn start(store: Arc<Mutex<Store>>) -> Result<Writer, RunError> {
        let (jobs, rx) = mpsc::unbounded_channel();
        let failed = Arc::new(Mutex::new(None));
        let pending: Arc<Pending> = Arc::default();
        let (slot, held) = (failed.clone(), pending.clone());
        std::thread::Builder::new()
            .name("pactum-store-writer".into())
            .spawn(move || write_loop(store, rx, &slot, &held))
            .map_err(|e| RunError::Task(format!("cannot start the store writer: {e}")))?;
        Ok(Writer {
            jobs,
            failed,
            pending,
            seq: Arc::default(),
        })
    }

    /// Records a finished trial and, once it is committed, sends `event`.
    ///
    /// # Errors
    /// The store's error for this trial (nothing of it was kept, and no
    /// event was sent).
    pub(crate) async fn record(
        &self,
        record: TrialRecord,
        event: Event,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<(), RunError> {
        let (done, answer) = oneshot::channel();
        self.send(Job::Trial {
            record: Box::new(record),
            event: Box::new(event),
            events,
            done,
        })?;
        answer.await.map_err(|_| gone())?
    }

    /// The cached value under `key` (`None` on a miss), counting the hit:
    /// a write, so it shares the batches of the other writes.
    ///
    /// # Errors
    /// The store's error for this lookup.
    pub(crate) async fn cache_get(&self, key: String) -> Result<Option<Value>, RunError> {
        let (done, answer) = oneshot::channel();
        self.send(Job::CacheGet { key, done })?;
        answer.await.map_err(|_| gone())?
    }

    /// Hands a cache entry over without waiting for its commit; its
    /// failure is kept for [`Writer::take_failure`].
    ///
    /// # Errors
    /// [`RunError::Task`] when the writer thread is gone.
    pub(crate) fn cache_put(
        &self,
        key: String,
        kind: CacheKind,
        value: Value,
        now: String,
    ) -> Result<(), RunError> {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        self.pending
            .lock()
            .map_err(|_| RunError::Poisoned)?
            .insert(key.clone(), (seq, value.clone()));
        self.send(Job::Cache {
            key,
            kind,
            value,
            now,
            seq,
        })
    }

    /// The entry under `key` handed over and not committed yet.
    pub(crate) fn pending(&self, key: &str) -> Option<Value> {
        self.pending.lock().ok()?.get(key).map(|(_, v)| v.clone())
    }

    /// Counts a hit on `key` (found by a reader) without waiting; its
    /// failure is kept for [`Writer::take_failure`].
    ///
    /// # Errors
    /// [`RunError::Task`] when the writer thread is gone.
    pub(crate) fn cache_hit(&self, key: String) -> Result<(), RunError> {
        self.send(Job::CacheHit { key })
    }

    /// The first failure of a write nobody waited for, once: the run
    /// stops on it as on a trial's own store error.
    pub(crate) fn take_failure(&self) -> Option<RunError> {
        match self.failed.lock() {
            Ok(mut f) => f.take(),
            Err(_) => Some(RunError::Poisoned),
        }
    }

    /// Waits until every write handed over before this call is committed
    /// (or has failed).
    ///
    /// # Errors
    /// [`RunError::Task`] when the writer thread is gone.
    pub(crate) async fn flush(&self) -> Result<(), RunError> {
        let (done, answer) = oneshot::channel();
        self.send(Job::Flush(done))?;
        answer.await.map_err(|_| gone())
    }

    /// Commits everything handed over, then ends the thread, which lets
    /// its handle on the store go before this returns: the caller's is
    /// then the last, and closing it (checkpointing and removing the
    /// write-ahead log) is not left to a thread the process may not wait
    /// for. A write handed over by another handle afterwards fails.
    pub(crate) async fn close(self) {
        let (done, answer) = oneshot::channel();
        if self.send(Job::Close(done)).is_ok() {
            let _ = answer.await;
        }
    }

    fn send(&self, job: Job) -> Result<(), RunError> {
        self.jobs.send(job).map_err(|_| gone())
    }
}

fn gone() -> RunError {
    RunError::Task("the store writer stopped".into())
}

/// Takes one job, then whatever else is queued (up to [`MAX_BATCH`]),
/// commits them together and answers each.
fn write_loop(
    store: Arc<Mutex<Store>>,
    mut rx: mpsc::UnboundedReceiver<Job>,
    failed: &Mutex<Option<RunError>>,
    pending: &Pending,
) {
    let mut batch: Vec<Job> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.blocking_recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH && !matches!(batch.last(), Some(Job::Close(_))) {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let close = match batch.last() {
            Some(Job::Close(_)) => match batch.pop() {
                Some(Job::Close(done)) => Some(done),
                _ => None,
            },
            _ => None,
        };
        commit(&store, &mut batch, failed, pending);
        if let Some(done) = close {
            drop(store);
            let _ = done.send(());
            return;
        }
    }
}

fn commit(
    store: &Mutex<Store>,
    batch: &mut Vec<Job>,
    failed: &Mutex<Option<RunError>>,
    pending: &Pending,
) {
    let writes: Vec<BatchWrite<'_>> = batch
        .iter()
        .filter_map(|job| match job {
            Job::Trial { record, .. } => Some(BatchWrite::Trial(record)),
            Job::CacheGet { key, .. } => Some(BatchWrite::CacheGet { key }),
            Job::CacheHit { key } => Some(BatchWrite::CacheHit { key }),
            Job::Cache {
                key,
                kind,
                value,
                now,
                ..
            } => Some(BatchWrite::Cache {
                key,
                kind: *kind,
                value,
                now,
            }),
            Job::Flush(_) | Job::Close(_) => None,
        })
        .collect();
    type Results = Vec<Result<Option<Value>, StoreError>>;
    let outcome: Result<Results, Option<Arc<StoreError>>> = if writes.is_empty() {
        Ok(Vec::new())
    } else {
        match store.lock() {
            Ok(s) => s.write_batch(&writes).map_err(|e| Some(Arc::new(e))),
            Err(_) => Err(None),
        }
    };
    drop(writes);
    let mut results = outcome.map(Vec::into_iter);
    // One result per write, in order; a missing one is a failure, never a
    // commit taken for granted. A failed batch kept nothing: every write
    // fails with it.
    let mut next = || match &mut results {
        Ok(r) => match r.next() {
            Some(r) => r.map_err(RunError::from),
            None => Err(RunError::Task(
                "the store did not answer for a write".into(),
            )),
        },
        Err(Some(e)) => Err(RunError::Batch(e.clone())),
        Err(None) => Err(RunError::Poisoned),
    };
    for job in batch.drain(..) {
        match job {
            Job::Trial {
                event,
                events,
                done,
                ..
            } => {
                let r = next().map(drop);
                if r.is_ok() {
                    let _ = events.send(*event);
                }
                let _ = done.send(r);
            }
            Job::CacheGet { done, .. } => {
                let _ = done.send(next());
            }
            Job::CacheHit { .. } | Job::Cache { .. } => {
                if let Err(e) = next() {
                    if let Ok(mut f) = failed.lock() {
                        f.get_or_insert(e);
                    }
                }
                // Committed (or failed, which stops the run): the store
                // answers for it from now on.
                if let Job::Cache { key, seq, .. } = &job {
                    if let Ok(mut p) = pending.lock() {
                        if p.get(key).is_some_and(|(s, _)| s == seq) {
                            p.remove(key);
                        }
                    }
                }
            }
            Job::Flush(done) | Job::Close(done) => {
                let _ = done.send(());
            }
        }
    }
}
