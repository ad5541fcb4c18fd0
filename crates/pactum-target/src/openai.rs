//! The `openai` target: an OpenAI-compatible chat-completions endpoint,
//! spoken to through [`pactum_llm::ChatClient`] (its timeout, retries,
//! concurrency and rate limits are the target's limits).
//!
//! pactum records the tool calls in an answer and never executes them: a
//! tool call ends the turn, and the history sent on the next turn holds the
//! assistant's text only.

use pactum_core::trace::ObservabilityLevel;
use pactum_llm::client::RESERVED_PARAMS;
use pactum_llm::{ChatClient, ChatMessage, ChatRequest, Endpoint, LlmError};
use pactum_suite::TargetSpec;
use serde_json::{json, Map, Value};

use crate::error::TargetError;
use crate::limit;
use crate::{finish_text, shown_url, Conversation, Reply};

/// An OpenAI-compatible chat endpoint as a target. Build it with
/// [`crate::Target::new`].
#[derive(Debug)]
pub struct OpenaiTarget {
    name: String,
    observability: ObservabilityLevel,
    client: ChatClient,
    tools: Vec<Value>,
    /// The names in `tools` ([`TargetSpec::offered_tools`]).
    offered: Option<std::collections::BTreeSet<String>>,
    system: Option<String>,
}

impl OpenaiTarget {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        cfg: &TargetSpec,
        base_url: &str,
        model: &str,
        api_key_env: &Option<String>,
        params: &Map<String, Value>,
        tools: &[Value],
        system: &Option<String>,
        others: &pactum_core::secret::Redactor,
    ) -> Result<Self, TargetError> {
        let name = cfg.name.clone();
        if cfg.observability == ObservabilityLevel::Full {
            // Chat completions carry no side effects, and pactum executes
            // no tool: declaring `full` would turn "not reported" into
            // "did not happen" (SPEC §3.2).
            return Err(TargetError::Config {
                target: name,
                field: "observability".into(),
                reason: "an openai target reports no side effects: declare `tool_calls` or `response_only`".into(),
            });
        }
        let limits = limit::check(&name, &cfg.limits)?;
        let ep = Endpoint {
            provider: "openai".into(),
            base_url: base_url.to_string(),
            model: model.to_string(),
            api_key_env: api_key_env.clone(),
            params: params.clone(),
            timeout: limits.timeout,
            retry: limits.retry,
            concurrency: limits.concurrency,
            requests_per_second: limits.requests_per_second,
        };
        let client = ChatClient::new_redacting(ep, others)
            .map_err(|e| from_llm(&name, cfg.limits.timeout_ms, e))?;
        Ok(OpenaiTarget {
            name,
            observability: cfg.observability,
            client,
            tools: tools.to_vec(),
            offered: cfg.offered_tools(),
            system: system.clone(),
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn observability(&self) -> ObservabilityLevel {
        self.observability
    }

    pub(crate) fn offered_tools(&self) -> Option<&std::collections::BTreeSet<String>> {
        self.offered.as_ref()
    }

    /// Its key, its base URL's credentials and the run's secrets.
    pub(crate) fn redactor(&self) -> &pactum_core::secret::Redactor {
        self.client.redactor()
    }

    /// The request for one turn: the system prompt, then the conversation's
    /// messages, then the tool definitions.
    fn request(&self, conv: &Conversation) -> ChatRequest {
        let mut messages = Vec::with_capacity(conv.messages.len() + 1);
        if let Some(system) = &self.system {
            messages.push(ChatMessage::system(system.clone()));
        }
        messages.extend(
            conv.messages
                .iter()
                .map(|m| ChatMessage::new(m.role.as_str(), m.content.clone())),
        );
        ChatRequest {
            messages,
            tools: self.tools.clone(),
            params: Map::new(),
            response_format: None,
        }
    }

    pub(crate) async fn reply(&self, conv: &Conversation) -> Result<Reply, TargetError> {
        let resp = self.client.chat(&self.request(conv)).await.map_err(|e| {
            let ms = u64::try_from(self.client.endpoint().timeout.as_millis()).unwrap_or(u64::MAX);
            from_llm(&self.name, ms, e)
        })?;
        Ok(Reply {
            text: finish_text(resp.content, !resp.tool_calls.is_empty()),
            tool_calls: resp.tool_calls,
            side_effects: Vec::new(),
            conversation_id: None,
            usage: resp.usage,
            latency_ms: resp.latency_ms,
            ended: false,
            attempts: resp.attempts,
            redacted: resp.redacted,
        })
    }

    /// Everything that can change an answer: base URL (no credentials, no
    /// query), model, parameters as sent, tools, system prompt. Not the API
    /// key variable, nor the limits.
    pub(crate) fn identity(&self) -> Value {
        let ep = self.client.endpoint();
        let mut params = ep.params.clone();
        params.retain(|k, _| !RESERVED_PARAMS.contains(&k.as_str()));
        json!({
            "version": crate::IDENTITY_VERSION,
            "kind": "openai",
            "base_url": shown_url(&ep.base_url),
            "model": ep.model,
            "params": params,
            "tools": self.tools,
            "system": self.system,
        })
    }
}

/// A pactum-llm error as this crate's.
fn from_llm(target: &str, timeout_ms: u64, e: LlmError) -> TargetError {
    let target = target.to_string();
    match e {
        LlmError::MissingApiKey { var, .. } => TargetError::MissingEnv { var, target },
        LlmError::BadApiKey { var, why } => TargetError::BadEnv {
            var,
            target,
            reason: why,
        },
        LlmError::InvalidEndpoint { field, reason } => TargetError::Config {
            target,
            field: match field {
                "concurrency" | "timeout" | "requests_per_second" => format!("limits.{field}"),
                other => other.to_string(),
            },
            reason,
        },
        LlmError::ClientBuild { cause } => TargetError::Config {
            target,
            field: "base_url".into(),
            reason: format!("cannot build the HTTP client: {cause}"),
        },
        LlmError::Transport {
            url,
            attempts,
            cause,
            timed_out,
        } => {
            if timed_out {
                TargetError::Timeout {
                    target,
                    after_ms: timeout_ms,
                    attempts,
                    stderr: None,
                }
            } else {
                TargetError::Transport {
                    target,
                    url,
                    attempts,
                    cause,
                }
            }
        }
        LlmError::Status {
            url,
            status,
            attempts,
            body,
        } => TargetError::Status {
            target,
            url,
            status,
            attempts,
            body,
        },
        LlmError::Malformed {
            url,
            attempts,
            detail,
        } => TargetError::Protocol {
            target,
            detail: format!("{url} answered a malformed chat completion: {detail}"),
            attempts,
            stderr: None,
        },
    }
}
