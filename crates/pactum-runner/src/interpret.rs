//! Authored tests become contracts before anything is scored (SPEC §3.6):
//! the interpretation is looked up in the store by the digest of the
//! authored fields, the interpreter's prompt version and model; unchanged
//! wording is never interpreted again, changed wording always is.

use std::sync::{Arc, Mutex};

use pactum_core::contract::CONTRACT_SCHEMA_VERSION;
use pactum_core::policy::Policy;
use pactum_interpret::{
    authored_digest, from_explicit, interpret_builtin, interpret_with_model, AuthoredFields,
    Interpretation, InterpreterSource, BUILTIN_INTERPRETER_VERSION, BUILTIN_MODEL,
    INTERPRETER_PROMPT_VERSION,
};
use pactum_llm::ChatClient;
use pactum_store::{InterpretationKey, Store, StoredInterpretation};
use pactum_suite::{AuthoredTest, ResolvedContract};

use crate::cache::blocking;
use crate::error::RunError;

/// The interpreter a suite configures: a model, or the built-in one.
#[derive(Clone)]
pub struct InterpreterSetup {
    /// The model's client; `None` means the built-in deterministic
    /// interpreter.
    pub client: Option<ChatClient>,
    /// Times malformed model output is asked again.
    pub malformed_retries: u32,
}

impl InterpreterSetup {
    /// The model name the cache keys by (`builtin` for the built-in one).
    pub fn model(&self) -> String {
        self.client
            .as_ref()
            .map_or(BUILTIN_MODEL.to_string(), |c| c.endpoint().model.clone())
    }

    /// The prompt version the cache keys by.
    pub fn prompt_version(&self) -> &'static str {
        if self.client.is_some() {
            INTERPRETER_PROMPT_VERSION
        } else {
            BUILTIN_INTERPRETER_VERSION
        }
    }
}

/// The authored fields of a test, as the interpreter reads them.
pub fn fields(a: &AuthoredTest) -> AuthoredFields {
    AuthoredFields {
        goal: a.goal.clone(),
        instructions: a.instructions.clone(),
        restrictions: a.restrictions.clone(),
        scenario: a.scenario.clone(),
    }
}

/// Where an interpretation came from in this lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looked {
    /// Read from the store (no interpreter call).
    Cached,
    /// Interpreted now (a model call when the interpreter is a model).
    Fresh,
    /// The author's explicit contract (nothing to interpret).
    Explicit,
    /// Not in the store and interpreting would call a model that was not
    /// asked for (`pactum interpret` without `--refresh`).
    NotYet,
}

/// The interpretation of one authored test. `refresh` interprets again
/// even when the store has one; `allow_model` permits a model call
/// (reviewing a contract never calls a model unless asked).
///
/// # Errors
/// A store failure.
pub async fn interpretation(
    store: &Arc<Mutex<Store>>,
    setup: &InterpreterSetup,
    authored: &AuthoredTest,
    explicit: Option<&ResolvedContract>,
    policy: &Policy,
    refresh: bool,
    allow_model: bool,
) -> Result<(Option<Interpretation>, Looked), RunError> {
    let f = fields(authored);
    if let Some(c) = explicit {
        return Ok((
            Some(from_explicit(c.contract.clone(), &f)),
            Looked::Explicit,
        ));
    }
    let key = InterpretationKey {
        authored_digest: authored_digest(&f),
        prompt_version: setup.prompt_version().to_string(),
        model: setup.model(),
    };
    let source = match &setup.client {
        None => InterpreterSource::Builtin {
            version: BUILTIN_INTERPRETER_VERSION.to_string(),
        },
        Some(c) => InterpreterSource::Model {
            model: c.endpoint().model.clone(),
            prompt_version: INTERPRETER_PROMPT_VERSION.to_string(),
        },
    };
    if !refresh {
        let stored = {
            let store = store.clone();
            let key = key.clone();
            blocking(move || {
                let s = store.lock().map_err(|_| RunError::Poisoned)?;
                Ok(s.interpretation_get(&key)?)
            })
            .await?
        };
        if let Some(st) = stored {
            // Re-checked under the current policy: the threshold is not
            // part of the key, so a raised one can make a cached
            // interpretation unusable and a lowered one usable.
            let i = Interpretation::assemble(
                st.contract,
                st.confidence,
                st.note.as_deref(),
                st.extra,
                source,
                key.authored_digest.clone(),
                policy,
            );
            return Ok((Some(i), Looked::Cached));
        }
    }
    let i = match &setup.client {
        None => interpret_builtin(&f, policy),
        Some(client) => {
            if !allow_model {
                return Ok((None, Looked::NotYet));
            }
            interpret_with_model(client, &f, policy, setup.malformed_retries).await
        }
    };
    if !i.interpreter_error {
        let store = store.clone();
        let value = StoredInterpretation {
            contract: i.contract.clone(),
            confidence: i.confidence,
            usable: i.usable,
            reason: i.reason.clone(),
            created_at: crate::now(),
            contract_version: CONTRACT_SCHEMA_VERSION,
            note: i.note.clone(),
            extra: i.extra.clone(),
        };
        blocking(move || {
            let s = store.lock().map_err(|_| RunError::Poisoned)?;
            Ok(s.interpretation_put(&key, &value)?)
        })
        .await?;
    }
    Ok((Some(i), Looked::Fresh))
}
