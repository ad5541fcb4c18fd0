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
}

impl Cache {
    /// A cache over `store` in `mode`.
    pub fn new(store: Arc<Mutex<Store>>, mode: CacheMode) -> Self {
        Cache {
            store,
            mode,
            writer: None,
        }
    }

    /// The same cache, writing through `writer`.
    pub(crate) fn with_writer(mut self, writer: Writer) -> Self {
        self.writer = Some(writer);
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
            return w.cache_get(key.to_string()).await;
        }
        let store = self.store.clone();
        let key = key.to_string();
        blocking(move || {
            let s = store.lock().map_err(|_| RunError::Poisoned)?;
            s.cache_get(&key).map_err(RunError::from)
        })
        .await
    }

    /// Stores `value` under `key`, unless the mode skips writes.
    ///
    /// # Errors
    /// A store failure.
    pub async fn put(&self, key: &str, kind: CacheKind, value: Value) -> Result<(), RunError> {
        if self.mode == CacheMode::Bypass {
            return Ok(());
        }
        if let Some(w) = &self.writer {
            return w
                .cache_put(key.to_string(), kind, value, crate::now())
                .await;
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
