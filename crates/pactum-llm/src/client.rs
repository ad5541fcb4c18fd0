//! The OpenAI-compatible chat-completions client: one [`ChatClient`] per
//! endpoint, with its concurrency limit, request-rate limit, per-request
//! timeout and retries of transient failures (`docs/targets.md`).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use pactum_core::secret::{check_secret, url_secrets, Redactor};
use pactum_core::trace::{Channel, ToolCall, Usage};
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, RETRY_AFTER};
use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::LlmError;
use crate::limit::{AttemptError, EndpointLimits, GaveUp, Sent};

/// Request-body keys the client sets itself; the same keys in
/// [`Endpoint::params`] or [`ChatRequest::params`] are ignored (and left out
/// of cache keys), so a parameter can never replace the model or the
/// messages or turn on streaming.
pub const RESERVED_PARAMS: [&str; 6] = [
    "model",
    "messages",
    "tools",
    "response_format",
    "stream",
    "stream_options",
];

/// Largest response body read, in bytes; a longer one is `Malformed`.
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// Longest excerpt of a server's answer kept in an error message, in chars.
const ERROR_EXCERPT_CHARS: usize = 300;

/// How transient failures are retried (`docs/targets.md`).
///
/// Retried: connection errors, timeouts, dropped connections, HTTP 408,
/// 409, 429, 500, 502, 503, 504. Retry `k` (1-based) waits
/// `d = min(max_backoff, base_backoff × 2^(k−1))` scaled by a jitter factor
/// in `[0.5, 1.0]` ("equal jitter": never shorter than half, never longer
/// than `d`, so tests can bound it). A `Retry-After` header (seconds or an
/// HTTP date) replaces that delay, capped at `max_backoff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt; `0` sends each request once.
    pub max_retries: u32,
    /// Delay before the first retry, before jitter.
    pub base_backoff: Duration,
    /// Upper bound of any delay, `Retry-After` included.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    /// 3 retries, 500 ms doubling up to 30 s.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The delay before retry number `retry` (1-based), given a jitter
    /// draw `unit` in `[0, 1)`: in `[d/2, d]` where
    /// `d = min(max_backoff, base_backoff × 2^(retry−1))`.
    pub fn backoff(&self, retry: u32, unit: f64) -> Duration {
        let exp = retry.saturating_sub(1).min(30);
        let d = self
            .base_backoff
            .saturating_mul(1u32 << exp)
            .min(self.max_backoff);
        let unit = if unit.is_finite() {
            unit.clamp(0.0, 1.0)
        } else {
            0.0
        };
        d.mul_f64(0.5 + 0.5 * unit)
    }
}

/// One OpenAI-compatible chat endpoint: OpenAI, Ollama
/// (`http://127.0.0.1:11434/v1`), vLLM, a llama.cpp server…
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// The wire protocol; only `"openai"` (chat completions) is supported.
    pub provider: String,
    /// The API root, e.g. `https://api.openai.com/v1`; the client posts to
    /// `{base_url}/chat/completions`.
    pub base_url: String,
    /// The model name sent with every request.
    pub model: String,
    /// The environment variable holding the API key, if the endpoint needs
    /// one. The key is read once, by [`ChatClient::new`], and sent only as
    /// `Authorization: Bearer …`.
    pub api_key_env: Option<String>,
    /// Parameters passed through in the request body (`temperature`,
    /// `max_tokens`, `seed`…), except [`RESERVED_PARAMS`].
    pub params: Map<String, Value>,
    /// Timeout of one request, connection to last byte.
    pub timeout: Duration,
    /// Retries of transient failures.
    pub retry: RetryPolicy,
    /// Requests in flight at once, at least 1.
    pub concurrency: usize,
    /// Requests started per second (retries included), if limited; the
    /// requests are spaced evenly, `1 / rate` seconds apart.
    pub requests_per_second: Option<f64>,
}

impl Endpoint {
    /// An endpoint with the defaults: provider `openai`, no API key, no
    /// parameters, 60 s timeout, [`RetryPolicy::default`], concurrency 8,
    /// no rate limit.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Endpoint {
            provider: "openai".to_string(),
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            params: Map::new(),
            timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            concurrency: 8,
            requests_per_second: None,
        }
    }

    /// The endpoint's parameters with `req`'s merged over them (a request
    /// parameter replaces the endpoint's of the same name), without
    /// [`RESERVED_PARAMS`]. This is what is sent, and what cache keys cover.
    pub fn merged_params(&self, req: &ChatRequest) -> Map<String, Value> {
        let mut out = self.params.clone();
        for (k, v) in &req.params {
            out.insert(k.clone(), v.clone());
        }
        out.retain(|k, _| !RESERVED_PARAMS.contains(&k.as_str()));
        out
    }
}

/// One chat message, in the OpenAI wire shape.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// The text; `None` for an assistant message that only calls tools.
    #[serde(default)]
    pub content: Option<String>,
    /// An assistant message's tool calls, in the wire shape
    /// (`{"id","type":"function","function":{"name","arguments"}}`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<Value>,
    /// For a `tool` message: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// An optional participant name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ChatMessage {
    /// A message with `role` and text `content`.
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        ChatMessage {
            role: role.to_string(),
            content: Some(content.into()),
            ..ChatMessage::default()
        }
    }

    /// A `system` message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new("system", content)
    }

    /// A `user` message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new("user", content)
    }

    /// An `assistant` message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new("assistant", content)
    }

    /// A `tool` message answering the call `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage {
            tool_call_id: Some(tool_call_id.into()),
            ..Self::new("tool", content)
        }
    }
}

/// One chat-completions request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation so far.
    pub messages: Vec<ChatMessage>,
    /// Tool definitions, passed through as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    /// Parameters merged over the endpoint's (see [`Endpoint::merged_params`]).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub params: Map<String, Value>,
    /// The `response_format` object, e.g. a JSON schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Value>,
}

/// What the model answered (the first choice).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The answer's text; `None` when the model only called tools. Text
    /// parts of an array-valued content are joined.
    pub content: Option<String>,
    /// Tool calls, in any container and shape
    /// [`pactum_core::chat::message_tools`] reads: arguments are an object,
    /// text pactum could not decode, or `null` when none were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// `stop`, `length`, `tool_calls`…, as the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Token usage, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Wall time of the successful attempt, in milliseconds (waits for the
    /// limits and earlier attempts excluded).
    pub latency_ms: u64,
    /// Requests sent, the successful one included (1 without retries).
    pub attempts: u32,
    /// The channels of the answer (`response`, `tool_calls`) in which the
    /// client replaced a secret it holds, whether in the whole body before
    /// reading it or in a field after
    /// ([`Redactor::redact_answer`], [`Redactor::channels_in_raw`]).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub redacted: BTreeSet<Channel>,
}

/// The API key, kept out of every `Debug` and `Display`.
#[derive(Clone)]
struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

struct Inner {
    endpoint: Endpoint,
    url: Url,
    shown_url: String,
    http: reqwest::Client,
    has_key: bool,
    /// The key, the base URL's credentials and the caller's other secrets.
    redactor: Redactor,
    limits: EndpointLimits,
}

/// A client for one [`Endpoint`]. Cheap to clone: clones share the
/// connection pool, the concurrency limit and the rate limit.
#[derive(Clone)]
pub struct ChatClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ChatClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatClient")
            .field("url", &self.inner.shown_url)
            .field("model", &self.inner.endpoint.model)
            .field("api_key_env", &self.inner.endpoint.api_key_env)
            .field("api_key", &self.inner.has_key.then_some("[redacted]"))
            .field("redactor", &self.inner.redactor)
            .finish()
    }
}

impl ChatClient {
    /// Builds a client for `ep`, checking the configuration and reading the
    /// API key from `ep.api_key_env` now, so a run fails before any request.
    ///
    /// # Errors
    /// [`LlmError::MissingApiKey`] naming the variable when it is unset or
    /// empty; [`LlmError::BadApiKey`] when it cannot be sent or is too
    /// short to be redacted ([`pactum_core::secret::MIN_SECRET_CHARS`]);
    /// [`LlmError::InvalidEndpoint`] for an unknown provider, a base URL
    /// that is not absolute `http(s)`, an empty model, a zero timeout or
    /// concurrency, a rate that is not a positive number.
    pub fn new(ep: Endpoint) -> Result<Self, LlmError> {
        Self::new_redacting(ep, &Redactor::default())
    }

    /// As [`ChatClient::new`], also redacting `others` (the other secrets
    /// of a run: other targets' keys, the judge's…) from everything the
    /// client returns. The client always redacts its own API key and the
    /// credentials of its base URL (SPEC §4): from the whole answer body
    /// before it is read, then from every field of the parsed answer, and
    /// from every error, before any excerpt is cut.
    ///
    /// # Errors
    /// As [`ChatClient::new`].
    pub fn new_redacting(ep: Endpoint, others: &Redactor) -> Result<Self, LlmError> {
        if ep.provider != "openai" {
            return Err(LlmError::InvalidEndpoint {
                field: "provider",
                reason: format!(
                    "unsupported provider `{}` (supported: openai)",
                    pactum_core::text::one_line(&ep.provider, 40)
                ),
            });
        }
        let base = parse_base_url(&ep.base_url)?;
        let shown_url = shown(&base);
        if ep.model.trim().is_empty() {
            return Err(invalid("model", "must not be empty"));
        }
        if ep.concurrency == 0 {
            return Err(invalid("concurrency", "must be at least 1"));
        }
        if ep.timeout.is_zero() {
            return Err(invalid("timeout", "must be longer than zero"));
        }
        if let Some(r) = ep.requests_per_second {
            if !(r.is_finite() && r > 0.0) {
                return Err(invalid(
                    "requests_per_second",
                    &format!("must be a positive number, not {r}"),
                ));
            }
        }
        let key = match &ep.api_key_env {
            None => None,
            Some(var) => Some(read_key(var, &shown_url)?),
        };
        let mut headers = HeaderMap::new();
        if let Some(ApiKey(k)) = &key {
            let mut v =
                HeaderValue::from_str(&format!("Bearer {k}")).map_err(|_| LlmError::BadApiKey {
                    var: ep.api_key_env.clone().unwrap_or_default(),
                    why: "not a valid HTTP header value".into(),
                })?;
            v.set_sensitive(true);
            headers.insert(AUTHORIZATION, v);
        }
        let mut own: Vec<String> = url_secrets(&ep.base_url)
            .values
            .into_iter()
            // Shorter ones are warned about where the URL is written.
            .filter(|v| check_secret(v).is_ok())
            .collect();
        if let Some(ApiKey(k)) = &key {
            own.push(k.clone());
        }
        let redactor = Redactor::new(own)
            .and_then(|r| r.with(others))
            .map_err(|e| LlmError::ClientBuild {
                cause: format!("the secrets to redact {e}"),
            })?;
        let mut builder = reqwest::Client::builder()
            .default_headers(headers)
            .timeout(ep.timeout)
            .connect_timeout(ep.timeout.min(Duration::from_secs(10)));
        if is_loopback(&base) {
            // A proxy set in the environment must not capture local servers.
            builder = builder.no_proxy();
        }
        let http = builder.build().map_err(|e| LlmError::ClientBuild {
            cause: error_chain(&e.without_url()),
        })?;
        let url = chat_url(&base);
        Ok(ChatClient {
            inner: Arc::new(Inner {
                limits: EndpointLimits::new(ep.concurrency, ep.requests_per_second, ep.retry),
                endpoint: ep,
                url,
                shown_url,
                http,
                has_key: key.is_some(),
                redactor,
            }),
        })
    }

    /// The endpoint this client talks to.
    pub fn endpoint(&self) -> &Endpoint {
        &self.inner.endpoint
    }

    /// The URL requests are posted to, without credentials or query.
    pub fn url(&self) -> &str {
        &self.inner.shown_url
    }

    /// The secrets this client redacts: its key, its base URL's
    /// credentials, and those it was built with.
    pub fn redactor(&self) -> &Redactor {
        &self.inner.redactor
    }

    /// The JSON body sent for `req`: the merged parameters, then `model`,
    /// `messages` (every secret of [`ChatClient::redactor`] redacted), and
    /// `tools` / `response_format` when present.
    pub fn request_body(&self, req: &ChatRequest) -> Value {
        let mut body = self.inner.endpoint.merged_params(req);
        body.insert(
            "model".into(),
            Value::String(self.inner.endpoint.model.clone()),
        );
        // Whatever built the messages, a key this client holds is never
        // sent in them (SPEC §4).
        let mut messages = serde_json::to_value(&req.messages).unwrap_or(Value::Null);
        self.inner.redactor.redact_value(&mut messages);
        body.insert("messages".into(), messages);
        if !req.tools.is_empty() {
            body.insert("tools".into(), Value::Array(req.tools.clone()));
        }
        if let Some(rf) = &req.response_format {
            body.insert("response_format".into(), rf.clone());
        }
        Value::Object(body)
    }

    /// Sends `req` and returns the first choice, retrying transient
    /// failures per [`RetryPolicy`]. Each attempt takes a slot of the
    /// concurrency limit and then a slot of the rate limit; slots are
    /// released while waiting to retry.
    ///
    /// # Errors
    /// [`LlmError::Transport`], [`LlmError::Status`] with the last cause and
    /// the attempt count once retries are exhausted or the failure is not
    /// retryable; [`LlmError::Malformed`] at once for a 2xx body that is not
    /// a chat completion.
    pub async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = self.request_body(req);
        match self.inner.limits.send(|| self.attempt(&body)).await {
            Ok(Sent {
                value: mut resp,
                attempts,
                latency_ms,
            }) => {
                resp.latency_ms = latency_ms;
                resp.attempts = attempts;
                Ok(resp)
            }
            Err(GaveUp { error, attempts }) => Err(self.to_error(error, attempts)),
        }
    }

    async fn attempt(&self, body: &Value) -> Result<ChatResponse, AttemptError> {
        let inner = &self.inner;
        let answer = fetch(
            inner.http.post(inner.url.clone()).json(body),
            MAX_BODY_BYTES,
        )
        .await
        .map_err(|e| match e {
            FetchError::Send(e) => AttemptError::Transport {
                timed_out: e.is_timeout(),
                cause: self.excerpt(&error_chain(&e.without_url())),
            },
            FetchError::TooLong => AttemptError::Malformed {
                detail: format!("response body exceeds {MAX_BODY_BYTES} bytes"),
            },
            FetchError::Read(e) => AttemptError::Transport {
                timed_out: e.is_timeout(),
                cause: self.excerpt(&format!(
                    "reading the response: {}",
                    error_chain(&e.without_url())
                )),
            },
        })?;
        if !(200..300).contains(&answer.status) {
            return Err(AttemptError::Status {
                status: answer.status,
                body: self.excerpt(&String::from_utf8_lossy(&answer.body)),
                retry_after: answer.retry_after,
            });
        }
        let Ok(text) = std::str::from_utf8(&answer.body) else {
            return Err(AttemptError::Malformed {
                detail: format!(
                    "the response body is not UTF-8: `{}`",
                    self.inner
                        .redactor
                        .excerpt(&String::from_utf8_lossy(&answer.body), 120)
                ),
            });
        };
        // A server that echoes the Authorization header (or a model that
        // repeats a key) must not carry it into a trace, a cache entry or
        // an error excerpt: the whole body is redacted before anything
        // reads it, then every parsed field (text parts are joined, which
        // could rebuild a key split between them).
        let redactor = &self.inner.redactor;
        let redacted = redactor.redact(text);
        match parse_completion(redacted.as_bytes()) {
            Ok(mut r) => {
                redact_response(redactor, &mut r);
                // Where the body held a secret, read from the answer as
                // received (in memory only): the trace records the channel.
                let raw = redactor.channels_in_raw(text, &redacted, |raw| {
                    parse_completion(raw.as_bytes())
                        .ok()
                        .map(|p| (p.content, p.tool_calls, Vec::new()))
                });
                r.redacted.extend(raw);
                Ok(r)
            }
            Err(detail) => Err(AttemptError::Malformed {
                detail: self.inner.redactor.redact_string(detail),
            }),
        }
    }

    fn to_error(&self, failure: AttemptError, attempts: u32) -> LlmError {
        let url = self.inner.shown_url.clone();
        match failure {
            AttemptError::Transport { cause, timed_out } => LlmError::Transport {
                url,
                attempts,
                cause,
                timed_out,
            },
            AttemptError::Status { status, body, .. } => LlmError::Status {
                url,
                status,
                attempts,
                body,
            },
            AttemptError::Malformed { detail } => LlmError::Malformed {
                url,
                attempts,
                detail,
            },
        }
    }

    /// A single-line excerpt of server text: secrets redacted, then
    /// bounded (a server may echo the `Authorization` header back in an
    /// error body).
    fn excerpt(&self, s: &str) -> String {
        self.inner.redactor.excerpt(s, ERROR_EXCERPT_CHARS)
    }
}

/// Redacts every text field of a parsed answer, recording the channels
/// where something was replaced in [`ChatResponse::redacted`].
fn redact_response(redactor: &Redactor, r: &mut ChatResponse) {
    if redactor.is_empty() {
        return;
    }
    if let Some(f) = r.finish_reason.take() {
        r.finish_reason = Some(redactor.redact_string(f));
    }
    let found = redactor.redact_answer(r.content.as_mut(), &mut r.tool_calls, &mut []);
    r.redacted.extend(found);
}

fn invalid(field: &'static str, reason: &str) -> LlmError {
    LlmError::InvalidEndpoint {
        field,
        reason: reason.to_string(),
    }
}

fn read_key(var: &str, url: &str) -> Result<ApiKey, LlmError> {
    match std::env::var(var) {
        Ok(v) if !v.trim().is_empty() => match check_secret(&v) {
            Ok(k) => Ok(ApiKey(k.to_string())),
            Err(e) => Err(LlmError::BadApiKey {
                var: var.to_string(),
                why: format!("the value {e}"),
            }),
        },
        Ok(_) | Err(std::env::VarError::NotPresent) => Err(LlmError::MissingApiKey {
            var: var.to_string(),
            url: url.to_string(),
        }),
        Err(std::env::VarError::NotUnicode(_)) => Err(LlmError::BadApiKey {
            var: var.to_string(),
            why: "not valid UTF-8".into(),
        }),
    }
}

/// Parses an endpoint's base URL: absolute, `http` or `https`.
pub(crate) fn parse_base_url(s: &str) -> Result<Url, LlmError> {
    let url = Url::parse(s.trim()).map_err(|e| LlmError::InvalidEndpoint {
        field: "base_url",
        reason: format!(
            "`{}` is not a URL: {e}",
            pactum_core::text::one_line(&url_secrets(s).shown, 120)
        ),
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Err(LlmError::InvalidEndpoint {
            field: "base_url",
            reason: format!(
                "`{}` is not an http(s) URL",
                pactum_core::text::one_line(&url_secrets(s).shown, 120)
            ),
        });
    }
    Ok(url)
}

/// A URL as shown in messages and hashed into cache keys: scheme and host
/// lower-cased, default port dropped (by the URL parser), no credentials,
/// no query or fragment, no trailing slash.
pub fn shown(url: &Url) -> String {
    let mut u = url.clone();
    // Setting these cannot fail on an http(s) URL.
    let _ = u.set_username("");
    let _ = u.set_password(None);
    u.set_query(None);
    u.set_fragment(None);
    u.as_str().trim_end_matches('/').to_string()
}

fn chat_url(base: &Url) -> Url {
    let mut u = base.clone();
    u.set_fragment(None);
    let path = format!("{}/chat/completions", u.path().trim_end_matches('/'));
    u.set_path(&path);
    u
}

/// Whether `url` points at this machine (`localhost` or a loopback
/// address): a proxy set in the environment must not capture it.
pub fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// An error and its sources, joined with `: ` (a source whose text the
/// chain already holds is skipped). Unbounded: bound it before showing it.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cur = s.source();
    }
    out
}

/// `Retry-After` as seconds or an HTTP date (RFC 9110 §10.2.3); a date in
/// the past means no wait. `None` when it is neither.
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = v.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(Duration::from_secs_f64(secs.min(86_400.0)));
        }
        return None;
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// An HTTP answer, its body read in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpAnswer {
    /// The HTTP status.
    pub status: u16,
    /// The `Retry-After` header ([`parse_retry_after`]), when present and
    /// readable.
    pub retry_after: Option<Duration>,
    /// The body.
    pub body: Vec<u8>,
}

/// Why [`fetch`] got no [`HttpAnswer`]. The caller words the message (and
/// redacts what the error shows).
#[derive(Debug)]
pub enum FetchError {
    /// The request was not answered (connection, timeout, TLS).
    Send(reqwest::Error),
    /// The body is longer than the bound; reading stopped there.
    TooLong,
    /// The connection failed while the body was read.
    Read(reqwest::Error),
}

/// Sends `req` and reads the whole answer, at most `max_bytes` of body.
///
/// # Errors
/// [`FetchError`]: the request failed, the body exceeds `max_bytes`, or
/// reading it failed.
pub async fn fetch(
    req: reqwest::RequestBuilder,
    max_bytes: usize,
) -> Result<HttpAnswer, FetchError> {
    let mut resp = req.send().await.map_err(FetchError::Send)?;
    let status = resp.status().as_u16();
    let retry_after = resp
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after);
    let mut body: Vec<u8> = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(FetchError::Read)? {
        if body.len() + chunk.len() > max_bytes {
            return Err(FetchError::TooLong);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(HttpAnswer {
        status,
        retry_after,
        body,
    })
}

#[derive(Deserialize)]
struct WireResponse {
    #[serde(default)]
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireChoice {
    /// Kept whole: its tool calls may sit in any container
    /// [`pactum_core::chat::message_tools`] reads.
    message: Map<String, Value>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
}

/// Parses a chat-completions body into a [`ChatResponse`] (latency and
/// attempts left at 0). The error is a fragment with a bounded excerpt.
///
/// Strict (SPEC §4): a key repeated in any object of the body, or in a
/// tool call's JSON-encoded arguments, is an error, never read last-wins
/// (`{"amount":5000,"amount":1}` would otherwise hide the 5000 from a
/// contract); so is a tool call pactum cannot read, or a call-like key it
/// does not know (a dropped call would read as "no call"). The judge and
/// the interpreter read their answers through here too.
pub(crate) fn parse_completion(bytes: &[u8]) -> Result<ChatResponse, String> {
    let excerpt = || pactum_core::text::one_line(&String::from_utf8_lossy(bytes), 120);
    let value =
        pactum_core::json::parse_strict(bytes).map_err(|e| format!("{e} in `{}`", excerpt()))?;
    outside_the_message(&value).map_err(|e| format!("{e} in `{}`", excerpt()))?;
    let wire: WireResponse =
        serde_json::from_value(value).map_err(|e| format!("{e} in `{}`", excerpt()))?;
    if wire.choices.len() > 1 {
        return Err(format!(
            "the answer holds {} choices: pactum grades one answer per turn and would not see the others (set `n` to 1) in `{}`",
            wire.choices.len(),
            excerpt()
        ));
    }
    let Some(choice) = wire.choices.into_iter().next() else {
        return Err(match wire.error {
            Some(err) => format!(
                "no choices; error: {}",
                pactum_core::text::one_line(&err.to_string(), ERROR_EXCERPT_CHARS)
            ),
            None => "no choices".to_string(),
        });
    };
    let content = match choice.message.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
        ),
        Some(other) => {
            return Err(format!(
                "message content is neither text nor text parts: {}",
                pactum_core::text::one_line(&other.to_string(), 120)
            ))
        }
    };
    // Every call, in whichever container the server put it, decoded as
    // every importer and target decodes one; an unreadable one is an error.
    let tools = pactum_core::chat::message_tools(&choice.message)
        .map_err(|e| format!("{} in `{}`", e.under("/choices/0/message"), excerpt()))?;
    if !tools.results.is_empty() {
        return Err(format!(
            "the answer holds {} tool result(s) for calls it does not make (pactum runs no tool) in `{}`",
            tools.results.len(),
            excerpt()
        ));
    }
    let tool_calls = tools.calls;
    if tool_calls.is_empty()
        && matches!(
            choice.finish_reason.as_deref(),
            Some("tool_calls" | "function_call" | "tool_use")
        )
    {
        return Err(format!(
            "`/choices/0/finish_reason` says the answer calls a tool, but its message holds no tool call pactum reads in `{}`",
            excerpt()
        ));
    }
    Ok(ChatResponse {
        content,
        tool_calls,
        finish_reason: choice.finish_reason,
        usage: wire.usage.map(|u| Usage {
            prompt_tokens: u.prompt_tokens.unwrap_or(0),
            completion_tokens: u.completion_tokens.unwrap_or(0),
        }),
        latency_ms: 0,
        attempts: 0,
        redacted: BTreeSet::new(),
    })
}

/// Refuses what could carry a tool call outside `choices[0].message`,
/// the one place a chat completion's calls are read: a call-like key
/// ([`pactum_core::chat::is_call_like`]) at the top level of the answer or
/// beside a choice's `message`. A call there would otherwise be dropped
/// and read as no call.
fn outside_the_message(value: &Value) -> Result<(), String> {
    let Some(top) = value.as_object() else {
        return Err(format!(
            "the answer is {}, not a JSON object",
            pactum_core::chat::kind(value)
        ));
    };
    let call_like = |m: &Map<String, Value>, skip: &str| {
        m.keys()
            .find(|k| k.as_str() != skip && pactum_core::chat::is_call_like(k))
            .cloned()
    };
    if let Some(k) = call_like(top, "") {
        return Err(format!(
            "`/{}`: unknown key at the top level of the answer: pactum reads tool calls from `choices[0].message` only, and a call it cannot read would look like no call",
            pactum_core::json::escape_pointer_token(&pactum_core::text::one_line(&k, 80))
        ));
    }
    if let Some(Value::Array(choices)) = top.get("choices") {
        for (i, c) in choices.iter().enumerate() {
            let Some(c) = c.as_object() else {
                return Err(format!(
                    "`/choices/{i}`: expected a choice object, found {}",
                    pactum_core::chat::kind(c)
                ));
            };
            if let Some(k) = call_like(c, "message") {
                return Err(format!(
                    "`/choices/{i}/{}`: unknown key beside the message: pactum reads tool calls from the message only, and a call it cannot read would look like no call",
                    pactum_core::json::escape_pointer_token(&pactum_core::text::one_line(&k, 80))
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limit::unit_from;

    #[test]
    fn backoff_doubles_is_capped_and_jitter_is_bounded() {
        let p = RetryPolicy {
            max_retries: 5,
            base_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(700),
        };
        let full = [100u64, 200, 400, 700, 700];
        for (i, d) in full.iter().enumerate() {
            let retry = i as u32 + 1;
            assert_eq!(p.backoff(retry, 1.0), Duration::from_millis(*d));
            assert_eq!(p.backoff(retry, 0.0), Duration::from_millis(*d / 2));
            for n in 0..200 {
                let b = p.backoff(retry, unit_from(n));
                assert!(b >= Duration::from_millis(*d / 2) && b <= Duration::from_millis(*d));
            }
        }
        assert_eq!(p.backoff(1, f64::NAN), Duration::from_millis(50));
        // Huge retry numbers saturate instead of overflowing.
        assert_eq!(p.backoff(u32::MAX, 1.0), Duration::from_millis(700));
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        assert_eq!(parse_retry_after("1"), Some(Duration::from_secs(1)));
        assert_eq!(parse_retry_after(" 120 "), Some(Duration::from_secs(120)));
        assert_eq!(parse_retry_after("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        let future = std::time::SystemTime::now() + Duration::from_secs(30);
        let d = parse_retry_after(&httpdate::fmt_http_date(future)).expect("date");
        assert!(
            d > Duration::from_secs(27) && d <= Duration::from_secs(30),
            "{d:?}"
        );
    }

    #[test]
    fn completion_parsing() {
        let body = br#"{"choices":[{"index":0,"message":{"role":"assistant","content":null,
            "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},
                          {"id":"c2","type":"function","function":{"name":"g","arguments":"not json"}},
                          {"id":"c3","type":"function","function":{"name":"h","arguments":"  "}}]},
            "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#;
        let r = parse_completion(body).expect("parses");
        assert_eq!(r.content, None);
        assert_eq!(r.tool_calls.len(), 3);
        assert_eq!(r.tool_calls[0].arguments, serde_json::json!({"a": 1}));
        assert_eq!(r.tool_calls[1].arguments, Value::String("not json".into()));
        assert_eq!(r.tool_calls[2].arguments, serde_json::json!({}));
        assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            r.usage,
            Some(Usage {
                prompt_tokens: 3,
                completion_tokens: 4
            })
        );
        let parts = br#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#;
        assert_eq!(
            parse_completion(parts).expect("parts").content.as_deref(),
            Some("ab")
        );
        assert!(parse_completion(b"{\"choices\":[]}")
            .expect_err("error")
            .contains("no choices"));
        assert!(parse_completion(b"{\"error\":{\"message\":\"quota\"}}")
            .expect_err("error")
            .contains("quota"));
        assert!(parse_completion(b"{\"choices\": [").is_err());
        // A repeated key is refused, in the body and in string arguments.
        let dup = br#"{"choices":[{"message":{"content":"a","content":"b"}}]}"#;
        let err = parse_completion(dup).expect_err("duplicate content");
        assert!(
            err.starts_with("duplicate key `content` at `/choices/0/message/content`"),
            "{err}"
        );
        let dup =
            br#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c1","type":"function",
            "function":{"name":"refund","arguments":{"amount":5000,"amount":1}}}]}}]}"#;
        let err = parse_completion(dup).expect_err("duplicate in object arguments");
        assert!(
            err.contains("duplicate key `amount` at `/choices/0/message/tool_calls/0/function/arguments/amount`"),
            "{err}"
        );
        let dup =
            br#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c1","type":"function",
            "function":{"name":"refund","arguments":"{\"amount\":5000,\"amount\":1}"}}]}}]}"#;
        let err = parse_completion(dup).expect_err("duplicate in string arguments");
        assert!(
            err.starts_with(
                "`/choices/0/message/tool_calls/0/function/arguments`: the arguments (a \
                 JSON-encoded string) have a duplicate key `amount` at `/amount`"
            ),
            "{err}"
        );
        assert!(parse_completion(br#"{"choices":[{"message":{"content":5}}]}"#).is_err());
    }

    /// Tool calls in any container of the answer are read with their
    /// arguments; what looks like a call but is unread is an error, never
    /// a dropped call.
    #[test]
    fn tool_calls_in_every_shape_are_read_or_refused() {
        let answer = |message: serde_json::Value| {
            parse_completion(
                serde_json::json!({"choices": [{"message": message, "finish_reason": "tool_calls"}]})
                    .to_string()
                    .as_bytes(),
            )
        };
        let pay = serde_json::json!({"to": "EVIL"});
        for message in [
            serde_json::json!({"role": "assistant", "content": null, "function_call": {"name": "pay", "arguments": pay.to_string()}}),
            serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "pay", "arguments": pay}}]}),
            serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t", "name": "pay", "input": pay}]}),
            serde_json::json!({"role": "assistant", "content": "", "tool_calls": [{"name": "pay", "args": pay, "id": "c", "type": "tool_call"}]}),
            serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"name": "pay", "parameters": pay}]}),
        ] {
            let r = answer(message.clone()).expect("read");
            assert_eq!(r.tool_calls.len(), 1, "{message}");
            assert_eq!(
                (r.tool_calls[0].name.as_str(), &r.tool_calls[0].arguments),
                ("pay", &pay)
            );
        }
        let r = answer(serde_json::json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "pay"}}]}))
        .expect("no arguments");
        assert_eq!(r.tool_calls[0].arguments, Value::Null);
        for (message, says) in [
            (
                serde_json::json!({"role": "assistant", "tool_call": {"name": "pay"}}),
                "`/choices/0/message/tool_call`: unknown key",
            ),
            (
                serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "name": "pay", "input": {}, "args": pay}]}),
                "`/choices/0/message/content/0/args`",
            ),
            (
                serde_json::json!({"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "pay", "arguments": 5}}]}),
                "`/choices/0/message/tool_calls/0/function/arguments`",
            ),
            (
                serde_json::json!({"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "done"}]}),
                "1 tool result(s)",
            ),
        ] {
            let err = answer(message.clone()).expect_err("refused");
            assert!(err.contains(says), "{message}: {err}");
        }
    }

    /// A call anywhere but `choices[0].message`, or a second choice, is an
    /// error naming where it is, never a dropped call.
    #[test]
    fn calls_outside_the_one_message_are_refused() {
        let call = serde_json::json!({"id": "c1", "type": "function",
            "function": {"name": "send_money", "arguments": "{\"recipient\": \"EVIL\"}"}});
        let msg = serde_json::json!({"role": "assistant", "content": "done"});
        let calling =
            serde_json::json!({"role": "assistant", "content": null, "tool_calls": [call]});
        for (body, says) in [
            (
                serde_json::json!({"choices": [{"index": 0, "message": msg}, {"index": 1, "message": calling}]}),
                "holds 2 choices",
            ),
            (
                serde_json::json!({"choices": [{"message": msg}, {"message": msg}, {"message": msg}]}),
                "holds 3 choices",
            ),
            (
                serde_json::json!({"choices": [{"message": msg, "tool_calls": [call]}]}),
                "`/choices/0/tool_calls`: unknown key beside the message",
            ),
            (
                serde_json::json!({"choices": [{"message": msg, "function_call": {"name": "send_money"}}]}),
                "`/choices/0/function_call`",
            ),
            (
                serde_json::json!({"choices": [{"message": msg, "delta": {"tool_calls": [call]}, "toolCalls": []}]}),
                "`/choices/0/toolCalls`",
            ),
            (
                serde_json::json!({"choices": [{"message": msg}], "tool_calls": [call]}),
                "`/tool_calls`: unknown key at the top level",
            ),
            (
                serde_json::json!({"choices": [{"message": msg}], "output": [], "function_call": call}),
                "`/function_call`",
            ),
            (
                serde_json::json!({"choices": [{"message": msg, "finish_reason": "tool_calls"}]}),
                "`/choices/0/finish_reason` says the answer calls a tool",
            ),
            (
                serde_json::json!({"choices": [{"message": msg, "finish_reason": "function_call"}]}),
                "`/choices/0/finish_reason`",
            ),
            (
                serde_json::json!({"choices": ["hi"]}),
                "`/choices/0`: expected a choice object",
            ),
            (serde_json::json!([{"choices": []}]), "not a JSON object"),
        ] {
            let err = parse_completion(body.to_string().as_bytes()).expect_err("refused");
            assert!(err.contains(says), "{body}: {err}");
        }
        // What servers add beside a choice or an answer is still read.
        let ok = serde_json::json!({"id": "x", "object": "chat.completion", "created": 1,
            "model": "m", "system_fingerprint": "fp", "service_tier": "default",
            "prompt_filter_results": [], "choices": [{"index": 0, "message": calling,
            "finish_reason": "tool_calls", "logprobs": null, "stop_reason": null,
            "content_filter_results": {}}]});
        let r = parse_completion(ok.to_string().as_bytes()).expect("read");
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].name, "send_money");
    }

    #[test]
    fn base_urls_are_checked_and_normalised() {
        let u = parse_base_url("HTTP://User:Pw@LocalHost:80/v1/?k=1#x").expect("url");
        assert_eq!(shown(&u), "http://localhost/v1");
        assert_eq!(
            chat_url(&u).as_str(),
            "http://User:Pw@localhost/v1/chat/completions?k=1"
        );
        assert!(is_loopback(&u));
        for (url, want) in [
            ("http://127.0.0.1:9/v1", true),
            ("http://127.8.9.10/v1", true),
            ("http://[::1]:9/v1", true),
            ("http://[::ffff:127.0.0.1]:9/v1", true),
            ("http://[::ffff:10.0.0.1]:9/v1", false),
            ("http://10.0.0.1/v1", false),
            ("http://localhost.example.com/v1", false),
        ] {
            let u = parse_base_url(url).expect(url);
            assert_eq!(is_loopback(&u), want, "{url}");
        }
        assert!(parse_base_url("ftp://x/").is_err());
        assert!(parse_base_url("not a url").is_err());
        assert!(parse_base_url("mailto:a@b").is_err());
        // A refused URL is named without its credentials.
        for bad in ["ftp://u:pw-secret-1@x/", "http://u:pw-secret-1@[::1/v1"] {
            let e = parse_base_url(bad).expect_err(bad).to_string();
            assert!(e.contains("[redacted]@") && !e.contains("pw-secret"), "{e}");
        }
    }

    #[test]
    fn unusable_endpoints_are_refused_naming_the_field() {
        let ok = Endpoint::new("http://127.0.0.1:1/v1", "m");
        type Spoil = fn(&mut Endpoint);
        let cases: [(Spoil, &str); 8] = [
            (|e| e.provider = "anthropic".into(), "provider"),
            (|e| e.base_url = "127.0.0.1:1/v1".into(), "base_url"),
            (|e| e.base_url = "file:///tmp/x".into(), "base_url"),
            (|e| e.model = " ".into(), "model"),
            (|e| e.concurrency = 0, "concurrency"),
            (|e| e.timeout = Duration::ZERO, "timeout"),
            (|e| e.requests_per_second = Some(0.0), "requests_per_second"),
            (
                |e| e.requests_per_second = Some(f64::NAN),
                "requests_per_second",
            ),
        ];
        for (spoil, field) in cases {
            let mut ep = ok.clone();
            spoil(&mut ep);
            match ChatClient::new(ep) {
                Err(LlmError::InvalidEndpoint { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
        assert!(ChatClient::new(ok).is_ok());
    }

    #[test]
    fn a_key_that_cannot_be_sent_is_refused_without_showing_it() {
        const VAR: &str = "PACTUM_LLM_UNIT_BAD_KEY_5D1E";
        std::env::set_var(VAR, "sk-abc\ndef-SECRETPART");
        let mut ep = Endpoint::new("http://127.0.0.1:1/v1", "m");
        ep.api_key_env = Some(VAR.into());
        let err = ChatClient::new(ep).expect_err("bad key");
        let text = format!("{err} {err:?}");
        assert!(matches!(err, LlmError::BadApiKey { .. }), "{text}");
        assert!(text.contains(VAR) && !text.contains("SECRETPART"), "{text}");
        std::env::set_var(VAR, "   ");
        let mut ep = Endpoint::new("http://127.0.0.1:1/v1", "m");
        ep.api_key_env = Some(VAR.into());
        assert!(matches!(
            ChatClient::new(ep),
            Err(LlmError::MissingApiKey { .. })
        ));
    }

    #[test]
    fn reserved_params_are_dropped_and_request_params_win() {
        let mut ep = Endpoint::new("http://127.0.0.1:1/v1", "m");
        ep.params.insert("temperature".into(), 0.7.into());
        ep.params.insert("model".into(), "other".into());
        ep.params.insert("seed".into(), 1.into());
        let mut req = ChatRequest::default();
        req.params.insert("temperature".into(), 0.into());
        req.params.insert("stream".into(), true.into());
        let merged = ep.merged_params(&req);
        assert_eq!(merged.get("temperature"), Some(&Value::from(0)));
        assert_eq!(merged.get("seed"), Some(&Value::from(1)));
        assert!(!merged.contains_key("model") && !merged.contains_key("stream"));
        let client = ChatClient::new(ep).expect("client");
        let body = client.request_body(&req);
        assert_eq!(body["model"], "m");
        assert!(body.get("stream").is_none());
    }
}
