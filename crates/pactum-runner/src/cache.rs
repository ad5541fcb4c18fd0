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

use pactum_core::digest::{canonical_json, sha256_hex};
use pactum_store::{CacheKind, Store};
use serde_json::Value;

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
            // An entry of this run not committed yet is found as if it were.
            if let Some(v) = w.pending(key) {
                w.cache_hit(key.to_string())?;
                return Ok(Some(v));
            }
            let Some(r) = &self.reader else {
                return w.cache_get(key.to_string()).await;
            };
            let found = r.get(key)?;
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

/// Cache look-ups on a read-only connection of their own
/// ([`Store::reader`]), made in place: a look-up of one indexed key takes
/// microseconds, less than handing it to another thread and back. Cheap to
/// clone; closed at [`Reader::close`].
#[derive(Clone)]
pub(crate) struct Reader {
    conn: Arc<Mutex<Option<Store>>>,
}

impl Reader {
    /// A reader of `store`'s file.
    ///
    /// # Errors
    /// The store's error for a store with no file to read (in memory).
    pub(crate) fn start(store: &Store) -> Result<Reader, RunError> {
        Ok(Reader {
            conn: Arc::new(Mutex::new(Some(store.reader()?))),
        })
    }

    /// The value under `key` as last committed, counting no hit.
    fn get(&self, key: &str) -> Result<Option<Value>, RunError> {
        let conn = self.conn.lock().map_err(|_| RunError::Poisoned)?;
        match conn.as_ref() {
            Some(c) => c.cache_get(key).map_err(RunError::from),
            None => Err(RunError::Task("the cache reader is closed".into())),
        }
    }

    /// Closes the connection: the store's last connection, closed after
    /// it, then checkpoints and removes its write-ahead log, as it would
    /// without a reader.
    pub(crate) fn close(&self) {
        if let Ok(mut c) = self.conn.lock() {
            c.take();
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
    target_key_canonical(&canonical_json(identity), messages, vars, turn, trial)
}

/// [`target_key`] with the identity already in canonical JSON (a target's
/// identity is the same for every turn of every test: a run writes it
/// once). The object is written in RFC 8785 key order by hand; the
/// digest is the same as that of the whole object canonicalised.
pub fn target_key_canonical(
    identity: &str,
    messages: &Value,
    vars: &Value,
    turn: u32,
    trial: u32,
) -> String {
    let messages = canonical_json(messages);
    let vars = canonical_json(vars);
    let version = canonical_json(&TARGET_KEY_VERSION);
    let mut text =
        String::with_capacity(identity.len() + messages.len() + vars.len() + version.len() + 80);
    // Keys in UTF-16 order: messages, target, trial, turn, vars, version.
    text.push_str("{\"messages\":");
    text.push_str(&messages);
    text.push_str(",\"target\":");
    text.push_str(identity);
    text.push_str(&format!(",\"trial\":{trial},\"turn\":{turn},\"vars\":"));
    text.push_str(&vars);
    text.push_str(",\"version\":");
    text.push_str(&version);
    text.push('}');
    sha256_hex(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pactum_core::digest::digest_of;
    use proptest::prelude::*;
    use serde_json::json;

    /// Small JSON values: every kind, keys that sort differently in UTF-8
    /// and UTF-16, numbers spelled in several ways.
    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            (-1e6f64..1e6).prop_map(|f| json!(f)),
            "[a-zA-Z\u{e000}\u{1f600}\"\\\n ]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[a-z\u{e000}\u{1f600}]{0,3}", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// The key written by hand is the digest of the whole object, as
        /// it was computed before: a store's cache stays valid.
        #[test]
        fn a_target_key_is_the_digest_of_the_whole_object(
            identity in json_value(),
            messages in json_value(),
            vars in json_value(),
            turn in any::<u32>(),
            trial in any::<u32>(),
        ) {
            let whole = digest_of(&json!({
                "version": TARGET_KEY_VERSION,
                "target": identity,
                "messages": messages,
                "vars": vars,
                "turn": turn,
                "trial": trial,
            }));
            prop_assert_eq!(target_key(&identity, &messages, &vars, turn, trial), whole);
        }
    }

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
            reader.close();
        });
    }

    /// A look-up right after a put finds the entry while the writer has
    /// not committed it yet (the writer is held here by the store's lock),
    /// and counts its hit once it commits.
    #[test]
    // Holding the store's lock across the put and the look-up is the
    // point: it keeps the writer from committing.
    #[allow(clippy::await_holding_lock)]
    fn an_entry_not_committed_yet_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Mutex::new(Store::open(&dir.path().join("p.db")).unwrap()));
        rt().block_on(async {
            let writer = Writer::start(store.clone()).unwrap();
            let reader = Reader::start(&store.lock().unwrap()).unwrap();
            let cache = Cache::new(store.clone(), CacheMode::Use)
                .with_writer(writer.clone(), Some(reader.clone()));
            let held = store.lock().unwrap();
            cache
                .put(KEY, CacheKind::Target, json!("an answer"))
                .await
                .unwrap();
            assert_eq!(cache.get(KEY).await.unwrap(), Some(json!("an answer")));
            assert_eq!(reader.get(KEY).unwrap(), None, "not committed yet");
            drop(held);
            writer.flush().await.unwrap();
            assert!(writer.pending(KEY).is_none());
            assert!(writer.take_failure().is_none());
            let entry = store.lock().unwrap().cache_entry(KEY).unwrap().unwrap();
            assert_eq!(entry.hits, 1);
            reader.close();
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
