//! The answer cache (`docs/store.md`): target and judge answers keyed by the
//! SHA-256 of everything that can change them, kept in the store.
//!
//! Keys are computed here, from values: a target's [`identity`] (kind, URL,
//! model, every parameter, tools, templates — never a secret), the
//! conversation so far, the test's variables, the turn and the trial index
//! (each trial is its own sample: re-running reuses trial k's answer for
//! trial k). Judge keys are [`pactum_llm::cache_key`] of the exact judge
//! request, so they move when the transcript, the clause, the judge's model
//! or parameters, or the judge prompt version move.
//!
//! [`identity`]: pactum_target::Target::identity

use std::sync::{Arc, Mutex};

use pactum_core::digest::digest_of;
use pactum_store::{CacheKind, Store};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::error::RunError;
use crate::writer::Writer;

/// Version of the target cache key layout; bump it when the key's inputs
/// change meaning.
pub const TARGET_KEY_VERSION: &str = "pactum-target-cache/1";

/// How a run uses the cache (stored with the run, so kept on resume).
pub use pactum_store::CacheMode;

/// A handle on the store's cache, safe to share between tasks.
#[derive(Clone)]
pub struct Cache {
    store: Arc<Mutex<Store>>,
    mode: CacheMode,
    /// During a run, writes go through the run's batching writer.
    writer: Option<Writer>,
    /// During a run, look-ups go to a reader of their own when the store
    /// is a file, so they do not wait behind the writer's commits.
    reader: Option<Reader>,
}

impl Cache {
    /// A cache over `store` in `mode`.
    pub fn new(store: Arc<Mutex<Store>>, mode: CacheMode) -> Self {
        Cache {
            store,
            mode,
            writer: None,
            reader: None,
        }
    }

    /// The same cache, writing through `writer` and reading through
    /// `reader` when there is one.
    pub(crate) fn with_writer(mut self, writer: Writer, reader: Option<Reader>) -> Self {
        self.writer = Some(writer);
        self.reader = reader;
        self
    }

    /// The cached value for `key`, unless the mode skips reads.
    ///
    /// # Errors
    /// A store failure (the store names its path).
    pub async fn get(&self, key: &str) -> Result<Option<Value>, RunError> {
        if self.mode != CacheMode::Use {
            return Ok(None);
        }
        if let Some(w) = &self.writer {
            let Some(r) = &self.reader else {
                return w.cache_get(key.to_string()).await;
            };
            let found = r.get(key.to_string()).await?;
            if found.is_some() {
                w.cache_hit(key.to_string())?;
            }
            return Ok(found);
        }
        let store = self.store.clone();
        let key = key.to_string();
        blocking(move || {
            let s = store.lock().map_err(|_| RunError::Poisoned)?;
            s.cache_get(&key).map_err(RunError::from)
        })
        .await
    }

    /// Stores `value` under `key`, unless the mode skips writes. During a
    /// run it does not wait for the commit (see the writer).
    ///
    /// # Errors
    /// A store failure (during a run: only a writer that is gone).
    pub async fn put(&self, key: &str, kind: CacheKind, value: Value) -> Result<(), RunError> {
        if self.mode == CacheMode::Bypass {
            return Ok(());
        }
        if let Some(w) = &self.writer {
            return w.cache_put(key.to_string(), kind, value, crate::now());
        }
        let store = self.store.clone();
        let key = key.to_string();
        blocking(move || {
            let s = store.lock().map_err(|_| RunError::Poisoned)?;
            s.cache_put(&key, kind, &value, &crate::now())
                .map_err(RunError::from)
        })
        .await
    }
}

/// A thread answering cache look-ups from a read-only connection of its
/// own ([`Store::reader`]); cheap to clone. It ends with its last handle,
/// or at [`Reader::close`].
#[derive(Clone)]
pub(crate) struct Reader {
    jobs: mpsc::UnboundedSender<Lookup>,
}

enum Lookup {
    Get(String, oneshot::Sender<Result<Option<Value>, RunError>>),
    Close(oneshot::Sender<()>),
}

impl Reader {
    /// A reader of `store`'s file.
    ///
    /// # Errors
    /// The store's error for a store with no file to read (in memory);
    /// [`RunError::Task`] when the thread cannot be started.
    pub(crate) fn start(store: &Store) -> Result<Reader, RunError> {
        let conn = store.reader()?;
        let (jobs, mut rx) = mpsc::unbounded_channel::<Lookup>();
        std::thread::Builder::new()
            .name("pactum-cache-reader".into())
            .spawn(move || {
                while let Some(job) = rx.blocking_recv() {
                    match job {
                        Lookup::Get(key, done) => {
                            let _ = done.send(conn.cache_get(&key).map_err(RunError::from));
                        }
                        Lookup::Close(done) => {
                            drop(conn);
                            let _ = done.send(());
                            return;
                        }
                    }
                }
            })
            .map_err(|e| RunError::Task(format!("cannot start the cache reader: {e}")))?;
        Ok(Reader { jobs })
    }

    /// The value under `key` as last committed, counting no hit.
    async fn get(&self, key: String) -> Result<Option<Value>, RunError> {
        let gone = || RunError::Task("the cache reader stopped".into());
        let (done, answer) = oneshot::channel();
        self.jobs.send(Lookup::Get(key, done)).map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// Closes the connection and waits until it is closed: the store's
    /// last connection, closed after it, then checkpoints and removes its
    /// write-ahead log, as it would without a reader.
    pub(crate) async fn close(&self) {
        let (done, answer) = oneshot::channel();
        if self.jobs.send(Lookup::Close(done)).is_ok() {
            let _ = answer.await;
        }
    }
}

/// Runs a store call on the blocking pool.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, RunError> + Send + 'static,
) -> Result<T, RunError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| RunError::Task(e.to_string()))?
}

/// The cache key of one target turn: `sha256:` over the canonical JSON of
/// the target's identity, the messages sent, the variables, the turn and
/// the trial index.
pub fn target_key(
    identity: &Value,
    messages: &Value,
    vars: &Value,
    turn: u32,
    trial: u32,
) -> String {
    digest_of(&json!({
        "version": TARGET_KEY_VERSION,
        "target": identity,
        "messages": messages,
        "vars": vars,
        "turn": turn,
        "trial": trial,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    const KEY: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";

    /// During a run, an entry is read back through the reader once the
    /// writer committed it, each hit is counted, and a refused write stops
    /// the run through the writer's failure slot instead of vanishing.
    #[test]
    fn a_runs_cache_reads_its_committed_entries_and_keeps_failed_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.db");
        let store = Arc::new(Mutex::new(Store::open(&path).unwrap()));
        rt().block_on(async {
            let writer = Writer::start(store.clone()).unwrap();
            let reader = Reader::start(&store.lock().unwrap()).unwrap();
            let cache = Cache::new(store.clone(), CacheMode::Use)
                .with_writer(writer.clone(), Some(reader.clone()));
            assert_eq!(cache.get(KEY).await.unwrap(), None);
            cache
                .put(KEY, CacheKind::Target, json!({"content": "an answer"}))
                .await
                .unwrap();
            writer.flush().await.unwrap();
            for _ in 0..3 {
                assert_eq!(
                    cache.get(KEY).await.unwrap(),
                    Some(json!({"content": "an answer"}))
                );
            }
            writer.flush().await.unwrap();
            assert!(writer.take_failure().is_none());
            let entry = store.lock().unwrap().cache_entry(KEY).unwrap().unwrap();
            assert_eq!(entry.hits, 3);
            // A write the store refuses (a key that is no digest) is not
            // lost in the background: the next check sees it, once.
            writer
                .cache_put(
                    "not-a-digest".into(),
                    CacheKind::Target,
                    json!(1),
                    crate::now(),
                )
                .unwrap();
            writer.flush().await.unwrap();
            let failure = writer.take_failure().expect("the refused write is kept");
            assert!(failure.to_string().contains("cache key"), "{failure}");
            assert!(writer.take_failure().is_none());
            reader.close().await;
        });
    }

    /// A store in memory has no file for a reader: the run reads through
    /// its writer instead, and a reader is never a new, empty database.
    #[test]
    fn a_store_in_memory_has_no_reader() {
        let store = Store::open_in_memory().unwrap();
        assert!(store.reader().is_err());
        assert!(Reader::start(&store).is_err());
    }

    #[test]
    fn target_keys_move_with_each_input() {
        let base = target_key(
            &json!({"model": "m"}),
            &json!([{"role": "user", "content": "hi"}]),
            &json!({}),
            1,
            0,
        );
        let variants = [
            target_key(
                &json!({"model": "n"}),
                &json!([{"role": "user", "content": "hi"}]),
                &json!({}),
                1,
                0,
            ),
            target_key(
                &json!({"model": "m"}),
                &json!([{"role": "user", "content": "ho"}]),
                &json!({}),
                1,
                0,
            ),
            target_key(
                &json!({"model": "m"}),
                &json!([{"role": "user", "content": "hi"}]),
                &json!({"x": 1}),
                1,
                0,
            ),
            target_key(
                &json!({"model": "m"}),
                &json!([{"role": "user", "content": "hi"}]),
                &json!({}),
                2,
                0,
            ),
            target_key(
                &json!({"model": "m"}),
                &json!([{"role": "user", "content": "hi"}]),
                &json!({}),
                1,
                1,
            ),
        ];
        for v in &variants {
            assert_ne!(&base, v);
        }
        assert_eq!(
            base,
            target_key(
                &json!({"model": "m"}),
                &json!([{"content": "hi", "role": "user"}]),
                &json!({}),
                1,
                0
            )
        );
    }
}
