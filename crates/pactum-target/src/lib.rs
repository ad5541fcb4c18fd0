//! # pactum-target
//!
//! Live targets (SPEC §2, `docs/targets.md`): each answers one turn of a
//! conversation with a [`Reply`], which the runner records as a
//! [`pactum_core::trace::Turn`] of the trace.
//!
//! | kind | module | speaks |
//! |---|---|---|
//! | `openai` | [`openai`] | OpenAI chat completions, through [`pactum_llm::ChatClient`] |
//! | `http` | [`http`] | any JSON endpoint: request template (pactum-suite's engine), response mapping (JSONPath) |
//! | `exec` | [`exec`] | a local command, newline-delimited JSON: `pactum-exec/1`, one process per conversation; or `pactum-exec/2`, a pool of long-lived processes ([`ExecMode::Persistent`]) |
//!
//! Every target has a timeout, a concurrency limit and a request-rate
//! limit; network targets retry transient failures (connection errors,
//! 408/409/429/5xx, `Retry-After` honoured) a bounded number of times, and
//! the error then carries the attempt count. Untrusted text is bounded: an
//! http answer or an exec answer line is at most [`MAX_REPLY_BYTES`]; an
//! openai answer at most [`pactum_llm::client::MAX_BODY_BYTES`].
//!
//! Secrets (SPEC §4): values read from the environment (API keys, `env.NAME`
//! in http headers and exec `env`) and credentials written in a URL never
//! reach an error, a `Debug` output or a [`Target::identity`]. Each target
//! redacts them, and the run's other secrets ([`RunSecrets`]), with
//! [`pactum_core::secret::Redactor`]: from the whole answer before it is
//! read (so a key straddling an excerpt's cut is never half-shown), then
//! from every field of the [`Reply`] and every error. An exec process does
//! not inherit the variables pactum reads keys from, unless its `env`
//! passes one.
//!
//! The protocols, the template context and the mapping rules are
//! documented for users in `docs/targets.md`.

mod error;
pub mod exec;
pub mod http;
mod limit;
mod mapping;
pub mod openai;
mod template;

use std::collections::BTreeSet;

use pactum_core::secret::Redactor;
use pactum_core::trace::{Channel, ObservabilityLevel, SideEffect, ToolCall, Turn, Usage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use error::TargetError;
pub use exec::ExecTarget;
pub use http::HttpTarget;
pub use openai::OpenaiTarget;
/// The target model targets are built from: a suite file's, as pactum-suite
/// validates it.
pub use pactum_suite::{ExecMode, Limits, ResponseMap, Retries, TargetKind, TargetSpec};

/// The largest http answer body, or exec answer line, read, in bytes (4
/// MiB); a larger one is a [`TargetError::Protocol`].
pub const MAX_REPLY_BYTES: usize = 4 * 1024 * 1024;

/// The version of the shape of [`Target::identity`]; bumped whenever the
/// way a request is built or an answer is read changes, so cached answers
/// are not reused. 2: list paths and call objects are read strictly.
/// 3: every match of a list path counts, `text` and `conversation_id`
/// refuse several values, and a repeated JSON key is refused
/// (`docs/targets.md`; SPEC §3.2, §4): an answer cached under the old
/// rules may hold a call they dropped. 4: every tool call, in any shape and
/// container, is decoded by `pactum_core::chat` (arguments pactum could not
/// read are kept unread, never `{}`).
/// 5: an answer records the channels pactum redacted a secret from
/// ([`Reply::redacted`]); one cached without that record could read as
/// unredacted.
pub const IDENTITY_VERSION: u32 = 5;

/// What a run's targets share besides their own settings: its secrets.
#[derive(Debug, Clone, Default)]
pub struct RunSecrets {
    /// Every secret of the run (each target's key and `env` values, the
    /// judge's, the interpreter's and the simulated user's keys, every
    /// secret written in the suite: URL credentials, literal secret headers
    /// and exec `env` values): each target redacts them all from
    /// its answers and errors, not only its own.
    pub redactor: Redactor,
    /// The environment variables pactum reads keys from (every
    /// `api_key_env`, `env.NAME` and exec `{{ env.NAME }}` of the suite,
    /// `--judge-api-key-env`): an exec target's process does not inherit
    /// them, unless its `env` passes one explicitly.
    pub key_vars: BTreeSet<String>,
}

/// Who wrote a conversation message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The system prompt or developer instructions.
    System,
    /// The (simulated) user.
    User,
    /// The target's earlier answers.
    Assistant,
    /// A tool's output.
    Tool,
}

impl Role {
    /// The lowercase name sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One message of a conversation, as sent to a target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
}

/// One turn's view of a conversation: everything a target is given.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    /// pactum's conversation id (test id and trial). exec: one process per
    /// id, or (persistent) the id every answer must echo.
    pub id: String,
    /// The whole conversation so far, the new user message last.
    pub messages: Vec<Message>,
    /// The target's own conversation id, from its previous [`Reply`].
    pub target_conversation_id: Option<String>,
    /// This turn's number, 1-based.
    pub turn: u32,
    /// The test's variables.
    pub vars: Map<String, Value>,
}

impl Conversation {
    /// The content of the last `user` message, if any.
    pub fn last_user_message(&self) -> Option<&str> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
    }
}

/// What a target did in one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The response text. `None`: the target sent none; `Some("")` when it
    /// only called tools (a recorded empty answer, SPEC §2).
    pub text: Option<String>,
    /// Tool calls, in order. pactum records them; it never executes them.
    pub tool_calls: Vec<ToolCall>,
    /// Side effects the target reported.
    pub side_effects: Vec<SideEffect>,
    /// The target's own conversation id, to pass back next turn.
    pub conversation_id: Option<String>,
    /// Token usage, when the target reports it.
    pub usage: Option<Usage>,
    /// Wall time of the answering request (exec: request written to answer
    /// read), in milliseconds; waits for limits and earlier attempts
    /// excluded.
    pub latency_ms: u64,
    /// The target ended the conversation (exec: `"end": true`).
    pub ended: bool,
    /// Requests sent for this turn, the answering one included.
    pub attempts: u32,
    /// The channels of this answer in which pactum replaced a secret it
    /// holds, wherever the replacement was made: in the whole answer
    /// before it was read, or field by field after
    /// ([`pactum_core::secret::Redactor::redact_answer`]). Becomes the
    /// turn's [`Turn::redacted`].
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub redacted: BTreeSet<Channel>,
}

impl Reply {
    /// This reply as a trace turn started by `input`.
    pub fn to_turn(&self, input: Vec<pactum_core::trace::Message>) -> Turn {
        Turn {
            input,
            response: self.text.clone(),
            tool_calls: self.tool_calls.clone(),
            side_effects: self.side_effects.clone(),
            latency_ms: Some(self.latency_ms),
            usage: self.usage,
            redacted: self.redacted.clone(),
        }
    }
}

/// A live target (enum dispatch: no boxed futures).
// One value per target of a suite, built once and shared by reference: the
// size of the largest variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Target {
    /// An OpenAI-compatible chat endpoint.
    Openai(OpenaiTarget),
    /// A JSON HTTP endpoint.
    Http(HttpTarget),
    /// A local command.
    Exec(ExecTarget),
}

impl Target {
    /// Builds a target: checks the limits, compiles the templates and the
    /// response mapping, and reads every environment variable the target
    /// needs (`api_key_env`, `env.NAME` in http headers) now, before any
    /// request. Starts no process.
    ///
    /// # Errors
    /// [`TargetError::MissingEnv`] naming the variable;
    /// [`TargetError::Config`] naming the setting (limits, URL, method,
    /// header, template syntax, JSONPath, `cwd`, an observability level the
    /// target cannot honour: `full` for openai, or a level whose channels
    /// an http mapping does not read).
    pub fn new(cfg: &TargetSpec) -> Result<Target, TargetError> {
        Target::with_secrets(cfg, &RunSecrets::default())
    }

    /// As [`Target::new`], for a run with other secrets: the target redacts
    /// them too, and an exec target's process inherits none of the
    /// variables in [`RunSecrets::key_vars`] that its `env` does not pass.
    ///
    /// # Errors
    /// As [`Target::new`]; [`TargetError::BadEnv`] for a variable too
    /// short to be redacted.
    pub fn with_secrets(cfg: &TargetSpec, run: &RunSecrets) -> Result<Target, TargetError> {
        match &cfg.kind {
            TargetKind::Openai {
                base_url,
                model,
                api_key_env,
                params,
                tools,
                system,
            } => OpenaiTarget::new(
                cfg,
                base_url,
                model,
                api_key_env,
                params,
                tools,
                system,
                &run.redactor,
            )
            .map(Target::Openai),
            TargetKind::Http {
                method,
                url,
                headers,
                body,
                response,
            } => HttpTarget::new(cfg, method, url, headers, body, response, &run.redactor)
                .map(Target::Http),
            TargetKind::Exec {
                command,
                cwd,
                env,
                mode,
            } => ExecTarget::new(cfg, command, cwd, env, *mode, run).map(Target::Exec),
        }
    }

    /// The target's name.
    pub fn name(&self) -> &str {
        match self {
            Target::Openai(t) => t.name(),
            Target::Http(t) => t.name(),
            Target::Exec(t) => t.name(),
        }
    }

    /// The declared observability level of every trace this target
    /// produces (SPEC §3.2).
    pub fn observability(&self) -> ObservabilityLevel {
        match self {
            Target::Openai(t) => t.observability(),
            Target::Http(t) => t.observability(),
            Target::Exec(t) => t.observability(),
        }
    }

    /// The names of the tools this target is offered, when pactum knows
    /// them (an `openai` target's `tools:`,
    /// [`TargetSpec::offered_tools`]); `None` otherwise. The runner records
    /// it in each trace ([`pactum_core::trace::Trace::offered_tools`]).
    pub fn offered_tools(&self) -> Option<&BTreeSet<String>> {
        match self {
            Target::Openai(t) => t.offered_tools(),
            Target::Http(_) | Target::Exec(_) => None,
        }
    }

    /// Everything about the target that can change an answer, as JSON, for
    /// the runner to hash into cache keys (`docs/targets.md`): the kind and
    /// [`IDENTITY_VERSION`], and per kind: openai base URL (no credentials,
    /// no query), model, parameters, tools, system prompt; http method, URL
    /// template, header names and the templates of headers that do not
    /// read the environment, body template, response mapping; exec
    /// command, working directory, protocol, `env` settings, and the mode
    /// when it is not the default. Never a value
    /// read from the environment, never the limits, the name or the
    /// observability level.
    pub fn identity(&self) -> Value {
        match self {
            Target::Openai(t) => t.identity(),
            Target::Http(t) => t.identity(),
            Target::Exec(t) => t.identity(),
        }
    }

    /// Asks the target for one turn of `conv`.
    ///
    /// # Errors
    /// Any [`TargetError`] but `MissingEnv`, once the retries (network
    /// targets) are spent; the runner records the trial as `error`.
    pub async fn reply(&self, conv: &Conversation) -> Result<Reply, TargetError> {
        let answer = match self {
            Target::Openai(t) => t.reply(conv).await,
            Target::Http(t) => t.reply(conv).await,
            Target::Exec(t) => t.reply(conv).await,
        };
        // Every kind redacted its answer before reading it; this pass
        // covers every field of what it read.
        let redactor = self.redactor();
        match answer {
            Ok(mut r) => {
                redact_reply(redactor, &mut r);
                Ok(r)
            }
            Err(mut e) => {
                e.redact(redactor);
                Err(e)
            }
        }
    }

    /// The secrets this target redacts: its own and the run's.
    pub fn redactor(&self) -> &Redactor {
        match self {
            Target::Openai(t) => t.redactor(),
            Target::Http(t) => t.redactor(),
            Target::Exec(t) => t.redactor(),
        }
    }

    /// Ends a conversation: exec kills its process (if any) and frees its
    /// concurrency slot (persistent exec: nothing, its processes serve
    /// every conversation); the network kinds keep no per-conversation
    /// state.
    /// A conversation the target ended itself, or whose turn failed, is
    /// already closed.
    pub async fn close(&self, conversation_id: &str) {
        if let Target::Exec(t) = self {
            t.close(conversation_id).await;
        }
    }
}

/// The reply text rule shared by every kind: a turn with tool calls and no
/// text recorded an empty answer.
pub(crate) fn finish_text(text: Option<String>, has_tool_calls: bool) -> Option<String> {
    match text {
        None if has_tool_calls => Some(String::new()),
        other => other,
    }
}

/// Redacts every text a reply carries — the conversation id, and the
/// answer itself through [`Redactor::redact_answer`] (the response, each
/// tool call's name, id, arguments, result and error, each side effect's
/// kind and details) — and records the channels where it replaced
/// something in [`Reply::redacted`].
pub(crate) fn redact_reply(redactor: &Redactor, r: &mut Reply) {
    if redactor.is_empty() {
        return;
    }
    if let Some(c) = &mut r.conversation_id {
        *c = redactor.redact_string(std::mem::take(c));
    }
    let found = redactor.redact_answer(r.text.as_mut(), &mut r.tool_calls, &mut r.side_effects);
    r.redacted.extend(found);
}

/// A URL as shown in errors and identities: no credentials, no query, no
/// fragment, no trailing slash. Unparseable text is shown bounded.
pub(crate) fn shown_url(s: &str) -> String {
    match reqwest::Url::parse(s.trim()) {
        Ok(u) => pactum_llm::client::shown(&u),
        Err(_) => pactum_core::text::one_line(&pactum_core::secret::url_secrets(s).shown, 120),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn targets_can_be_shared_between_tasks() {
        assert_send_sync::<Target>();
        assert_send_sync::<Reply>();
        assert_send_sync::<TargetError>();
    }

    #[test]
    fn the_text_rule_over_every_case() {
        assert_eq!(finish_text(None, false), None);
        assert_eq!(finish_text(None, true), Some(String::new()));
        assert_eq!(finish_text(Some("a".into()), false), Some("a".into()));
        assert_eq!(finish_text(Some("a".into()), true), Some("a".into()));
        assert_eq!(finish_text(Some(String::new()), false), Some(String::new()));
    }

    #[test]
    fn shown_urls_carry_no_credentials() {
        assert_eq!(
            shown_url("https://u:secret@Host.example/v1/?key=secret#f"),
            "https://host.example/v1"
        );
        assert_eq!(shown_url("not a url"), "not a url");
    }

    #[test]
    fn last_user_message_skips_other_roles() {
        let m = |role, c: &str| Message {
            role,
            content: c.into(),
        };
        let conv = Conversation {
            id: "c".into(),
            messages: vec![
                m(Role::System, "s"),
                m(Role::User, "first"),
                m(Role::Assistant, "a"),
                m(Role::User, "second"),
                m(Role::Tool, "t"),
            ],
            target_conversation_id: None,
            turn: 2,
            vars: Map::new(),
        };
        assert_eq!(conv.last_user_message(), Some("second"));
        assert_eq!(
            serde_json::to_value(&conv.messages[4]).expect("json"),
            json!({"role": "tool", "content": "t"})
        );
        let none = Conversation {
            messages: vec![],
            ..conv
        };
        assert_eq!(none.last_user_message(), None);
    }

    #[test]
    fn a_reply_becomes_a_turn() {
        let r = Reply {
            text: Some("hi".into()),
            tool_calls: vec![ToolCall {
                id: None,
                name: "f".into(),
                arguments: json!({}),
                result: None,
                error: None,
            }],
            side_effects: vec![],
            conversation_id: Some("c".into()),
            usage: Some(Usage {
                prompt_tokens: 1,
                completion_tokens: 2,
            }),
            latency_ms: 12,
            ended: false,
            attempts: 2,
            redacted: Default::default(),
        };
        let input = vec![pactum_core::trace::Message {
            role: pactum_core::trace::Role::User,
            content: "hello".into(),
        }];
        let t = r.to_turn(input.clone());
        assert_eq!(t.input, input);
        assert_eq!(t.response.as_deref(), Some("hi"));
        assert_eq!(t.tool_calls, r.tool_calls);
        assert_eq!(t.latency_ms, Some(12));
        assert_eq!(t.usage, r.usage);
    }
}
