//! The `http` target: any JSON HTTP endpoint, spoken to through a request
//! template (method, URL, headers, body) and read through a response
//! mapping (JSONPath). See `docs/targets.md` for the template context and
//! the mapping rules.

use std::collections::BTreeSet;
use std::time::Duration;

use pactum_core::json::{parse_strict, StrictJsonError};
use pactum_core::secret::{check_secret, url_secrets, Redactor};
use pactum_core::text::one_line;
use pactum_core::trace::{Channel, ObservabilityLevel};
use pactum_llm::client::{error_chain, fetch, is_loopback, FetchError};
use pactum_llm::limit::{AttemptError, EndpointLimits, GaveUp, Sent};
use pactum_suite::{http_context, ResponseMap, TargetSpec, TemplateContext, TurnContext};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use reqwest::{Method, Url};
use serde_json::{json, Map, Value};

use crate::error::TargetError;
use crate::limit::{self, Checked};
use crate::mapping::Mapping;
use crate::template::{self, Secrets, Templates};
use crate::{finish_text, shown_url, Conversation, Reply, MAX_REPLY_BYTES};

/// One header of the request template.
#[derive(Debug)]
struct Header {
    name: HeaderName,
    /// The value template, as written.
    source: String,
    /// The field name used for its compiled template and in errors.
    field: String,
    /// Whether it reads `env.NAME`: its value is then secret.
    secret: bool,
}

/// A JSON HTTP endpoint as a target. Build it with [`crate::Target::new`].
/// Its `Debug` output shows templates, never a value read from the
/// environment.
pub struct HttpTarget {
    name: String,
    observability: ObservabilityLevel,
    limits: Checked,
    method: Method,
    url: String,
    headers: Vec<Header>,
    body: Option<Value>,
    response: ResponseMap,
    mapping: Mapping,
    templates: Templates,
    secrets: Secrets,
    direct: reqwest::Client,
    proxied: reqwest::Client,
    gate: EndpointLimits,
}

impl std::fmt::Debug for HttpTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTarget")
            .field("name", &self.name)
            .field("observability", &self.observability)
            .field("limits", &self.limits)
            .field("method", &self.method)
            .field("url", &url_secrets(&self.url).shown)
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|h| h.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("secrets", &self.secrets)
            .finish_non_exhaustive()
    }
}

impl HttpTarget {
    pub(crate) fn new(
        cfg: &TargetSpec,
        method: &str,
        url: &str,
        headers: &std::collections::BTreeMap<String, String>,
        body: &Option<Value>,
        response: &ResponseMap,
        others: &Redactor,
    ) -> Result<Self, TargetError> {
        let name = cfg.name.clone();
        let config = |field: &str, reason: String| TargetError::Config {
            target: name.clone(),
            field: field.to_string(),
            reason,
        };
        let limits = limit::check(&name, &cfg.limits)?;
        let method =
            Method::from_bytes(method.trim().to_ascii_uppercase().as_bytes()).map_err(|_| {
                config(
                    "method",
                    format!("`{}` is not an HTTP method", one_line(method, 40)),
                )
            })?;
        let mapping = Mapping::new(&name, response)?;
        // A declared channel the mapping cannot read would turn "not
        // reported" into "did not happen" (SPEC §3.2).
        for (channel, mapped) in [
            (Channel::ToolCalls, mapping.has_tool_calls()),
            (Channel::SideEffects, mapping.has_side_effects()),
        ] {
            if cfg.observability.observes(channel) && !mapped {
                return Err(config(
                    &format!("response.{}", channel.as_str()),
                    format!(
                        "observability `{}` reports {}: map them, or declare a lower level",
                        cfg.observability.as_str(),
                        channel.as_str()
                    ),
                ));
            }
        }
        let templates = Templates::new(&name);
        templates.add("url", url, false)?;
        if let Some(b) = body {
            templates.add_body("body", b)?;
        }
        let mut env_names: Vec<String> = Vec::new();
        let mut hs = Vec::with_capacity(headers.len());
        for (h, source) in headers {
            let field = format!("headers.{h}");
            let header_name = HeaderName::from_bytes(h.trim().as_bytes())
                .map_err(|_| config(&field, "not a valid header name".into()))?;
            let names = templates.add(&field, source, true)?;
            hs.push(Header {
                name: header_name,
                source: source.clone(),
                field,
                secret: !names.is_empty(),
            });
            env_names.extend(names);
        }
        env_names.sort();
        env_names.dedup();
        // Credentials written in the URL are redacted from answers too
        // (shorter ones are warned about when the suite is read).
        let in_url = Redactor::new(
            url_secrets(url)
                .values
                .iter()
                .filter(|v| check_secret(v).is_ok()),
        )
        .and_then(|r| r.with(others))
        .map_err(|e| config("url", format!("the secrets to redact {e}")))?;
        let secrets = Secrets::read(&name, &env_names, &in_url)?;
        if !url.contains("{{") && !url.contains("{%") {
            check_url(&name, url)?;
        }
        let build = |direct: bool| {
            let mut b = reqwest::Client::builder()
                .timeout(limits.timeout)
                .connect_timeout(limits.timeout.min(Duration::from_secs(10)));
            if direct {
                b = b.no_proxy();
            }
            b.build()
                .map_err(|e| config("url", format!("cannot build the HTTP client: {e}")))
        };
        Ok(HttpTarget {
            observability: cfg.observability,
            method,
            url: url.to_string(),
            headers: hs,
            body: body.clone(),
            response: response.clone(),
            mapping,
            templates,
            secrets,
            direct: build(true)?,
            proxied: build(false)?,
            gate: EndpointLimits::new(limits.concurrency, limits.requests_per_second, limits.retry),
            limits,
            name,
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn observability(&self) -> ObservabilityLevel {
        self.observability
    }

    /// Its `env` values, its URL's credentials and the run's secrets.
    pub(crate) fn redactor(&self) -> &Redactor {
        self.secrets.redactor()
    }

    /// The template context of one turn (pactum-suite's [`http_context`],
    /// see `docs/targets.md`): the conversation's variables at the top
    /// level, then `message`, `messages`, `conversation_id` (the target's
    /// own id, as its previous answer gave it: null on the first turn),
    /// `pactum_conversation_id`, `turn` and `env` (`env` values for header
    /// templates only), which win over a variable of the same name.
    fn context(
        conv: &Conversation,
        messages: &[Value],
        env: &std::collections::BTreeMap<String, String>,
    ) -> TemplateContext {
        let last = conv.last_user_message();
        let mut ctx = http_context(
            &conv.vars,
            &TurnContext {
                message: last.unwrap_or_default(),
                messages,
                conversation_id: conv.target_conversation_id.as_deref(),
                pactum_conversation_id: &conv.id,
                turn: conv.turn,
                env,
            },
        );
        if last.is_none() {
            // No user message yet: `message` is undefined, not empty.
            if let Value::Object(m) = &mut ctx {
                m.remove("message");
            }
        }
        template::context(&ctx)
    }

    pub(crate) async fn reply(&self, conv: &Conversation) -> Result<Reply, TargetError> {
        let messages = match serde_json::to_value(&conv.messages) {
            Ok(Value::Array(m)) => m,
            _ => Vec::new(),
        };
        let ctx = Self::context(conv, &messages, &Default::default());
        let url_text = self.templates.render_text("url", &self.url, &ctx)?;
        let url = check_url(&self.name, &url_text)?;
        let shown = shown_url(url.as_str());
        let mut headers = HeaderMap::new();
        if !self.headers.is_empty() {
            let hctx = Self::context(conv, &messages, self.secrets.values());
            for h in &self.headers {
                let text = self.templates.render_text(&h.field, &h.source, &hctx)?;
                let mut v = HeaderValue::from_str(&text).map_err(|_| TargetError::Config {
                    target: self.name.clone(),
                    field: h.field.clone(),
                    reason: "the rendered value is not a valid header value".into(),
                })?;
                if h.secret {
                    v.set_sensitive(true);
                }
                headers.append(h.name.clone(), v);
            }
        }
        let body = match &self.body {
            None => None,
            Some(b) => {
                let rendered = self.templates.render_body("body", b, &ctx)?;
                if !headers.contains_key(CONTENT_TYPE) {
                    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                }
                Some(serde_json::to_vec(&rendered).unwrap_or_default())
            }
        };
        let client = if is_loopback(&url) {
            &self.direct
        } else {
            &self.proxied
        };
        let sent = self
            .gate
            .send(|| {
                let mut req = client
                    .request(self.method.clone(), url.clone())
                    .headers(headers.clone());
                if let Some(b) = &body {
                    req = req.body(b.clone());
                }
                self.attempt(req)
            })
            .await;
        match sent {
            Ok(Sent {
                value: (value, redacted),
                attempts,
                latency_ms,
            }) => self.finish(&value, redacted, attempts, latency_ms),
            Err(GaveUp { error, attempts }) => Err(self.error(error, &shown, attempts)),
        }
    }

    /// One request: its JSON answer and the channels of it that held a
    /// secret, or why not. Secrets are redacted from the whole answer
    /// before anything reads it or cuts an excerpt of it.
    async fn attempt(
        &self,
        req: reqwest::RequestBuilder,
    ) -> Result<(Value, BTreeSet<Channel>), AttemptError> {
        let redactor = self.redactor();
        let cause = |e: reqwest::Error| redactor.excerpt(&error_chain(&e.without_url()), 300);
        let answer = fetch(req, MAX_REPLY_BYTES).await.map_err(|e| match e {
            FetchError::Send(e) => AttemptError::Transport {
                timed_out: e.is_timeout(),
                cause: cause(e),
            },
            FetchError::TooLong => AttemptError::Malformed {
                detail: format!("the answer exceeds {MAX_REPLY_BYTES} bytes"),
            },
            FetchError::Read(e) => AttemptError::Transport {
                timed_out: e.is_timeout(),
                cause: format!("reading the answer: {}", cause(e)),
            },
        })?;
        if !(200..300).contains(&answer.status) {
            return Err(AttemptError::Status {
                status: answer.status,
                body: redactor.excerpt(&String::from_utf8_lossy(&answer.body), 300),
                retry_after: answer.retry_after,
            });
        }
        let Ok(text) = std::str::from_utf8(&answer.body) else {
            return Err(AttemptError::Malformed {
                detail: format!(
                    "the answer is not UTF-8: `{}`",
                    redactor.excerpt(&String::from_utf8_lossy(&answer.body), 200)
                ),
            });
        };
        let raw = text;
        let text = redactor.redact(raw);
        // Strict: a key repeated in any object is a protocol error, never
        // read last-wins (SPEC §4).
        let value = parse_strict(text.as_bytes()).map_err(|e| {
            let what = match e {
                StrictJsonError::Syntax(_) => "is not JSON",
                StrictJsonError::DuplicateKey { .. } => "is ambiguous",
            };
            AttemptError::Malformed {
                detail: format!("the answer {what} ({e}): `{}`", one_line(&text, 200)),
            }
        })?;
        // Where the answer held a secret, read through the mapping from the
        // answer as received (in memory only): the trace records it.
        let redacted = redactor.channels_in_raw(raw, &text, |raw| {
            let v = parse_strict(raw.as_bytes()).ok()?;
            let m = self.mapping.apply(&v).ok()?;
            Some((m.text, m.tool_calls, m.side_effects))
        });
        Ok((value, redacted))
    }

    /// The reply read from a JSON answer through the mapping.
    fn finish(
        &self,
        value: &Value,
        redacted: BTreeSet<Channel>,
        attempts: u32,
        latency_ms: u64,
    ) -> Result<Reply, TargetError> {
        let mapped = self
            .mapping
            .apply(value)
            .map_err(|detail| TargetError::Protocol {
                target: self.name.clone(),
                detail,
                attempts,
                stderr: None,
            })?;
        Ok(Reply {
            text: finish_text(mapped.text, !mapped.tool_calls.is_empty()),
            tool_calls: mapped.tool_calls,
            side_effects: mapped.side_effects,
            conversation_id: mapped.conversation_id,
            usage: None,
            latency_ms,
            ended: false,
            attempts,
            redacted,
        })
    }

    fn error(&self, failure: AttemptError, url: &str, attempts: u32) -> TargetError {
        let target = self.name.clone();
        match failure {
            AttemptError::Transport {
                timed_out: true, ..
            } => TargetError::Timeout {
                target,
                after_ms: u64::try_from(self.limits.timeout.as_millis()).unwrap_or(u64::MAX),
                attempts,
                stderr: None,
            },
            AttemptError::Transport { cause, .. } => TargetError::Transport {
                target,
                url: url.to_string(),
                attempts,
                cause,
            },
            AttemptError::Status { status, body, .. } => TargetError::Status {
                target,
                url: url.to_string(),
                status,
                attempts,
                body,
            },
            AttemptError::Malformed { detail } => TargetError::Protocol {
                target,
                detail,
                attempts,
                stderr: None,
            },
        }
    }

    /// Everything that can change an answer: method, URL template
    /// (userinfo and secret query values redacted), header names, the value templates of headers
    /// that do not read the environment, the body template, the response
    /// mapping. Never a value read from the environment.
    pub(crate) fn identity(&self) -> Value {
        let mut headers = Map::new();
        let mut env_headers = Vec::new();
        for h in &self.headers {
            if h.secret {
                env_headers.push(Value::String(h.name.as_str().to_string()));
            } else {
                headers.insert(h.name.as_str().to_string(), Value::String(h.source.clone()));
            }
        }
        json!({
            "version": crate::IDENTITY_VERSION,
            "kind": "http",
            "method": self.method.as_str(),
            "url": url_secrets(&self.url).shown,
            "headers": headers,
            "env_headers": env_headers,
            "body": self.body,
            "response": {
                "text": self.response.text,
                "tool_calls": self.response.tool_calls,
                "side_effects": self.response.side_effects,
                "conversation_id": self.response.conversation_id,
            },
        })
    }
}

/// Parses a rendered URL: absolute `http(s)`.
fn check_url(target: &str, s: &str) -> Result<Url, TargetError> {
    let bad = |reason: String| TargetError::Config {
        target: target.to_string(),
        field: "url".into(),
        reason,
    };
    let url =
        Url::parse(s.trim()).map_err(|e| bad(format!("`{}` is not a URL: {e}", shown_url(s))))?;
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Err(bad(format!("`{}` is not an http(s) URL", shown_url(s))));
    }
    Ok(url)
}
