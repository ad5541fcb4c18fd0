//! # pactum-serve
//!
//! `pactum serve` (`docs/traces.md`, "Receiving traces live: pactum
//! serve"): an OTLP/HTTP receiver that grades each trace as it completes
//! and stores the verdicts in the store, one store run per session.
//!
//! * **Receiving.** `POST /v1/traces` with `Content-Type:
//!   application/json` (OTLP JSON) or `application/x-protobuf`, optionally
//!   `Content-Encoding: gzip`. A body larger than
//!   [`ServeConfig::max_body_bytes`] (compressed or not) is answered 413;
//!   one that is not an OTLP trace request, or holds a span pactum cannot
//!   read, 400 with a one-line reason — nothing of it is kept, and the
//!   traces it names are marked incomplete. The server keeps running.
//! * **Completing.** Spans go to the file importer's own span → trace
//!   code through [`pactum_trace::live::Assembler`]; a trace is complete
//!   when its root span has ended and no span arrived for
//!   [`ServeConfig::quiet_period`]. It is graded against the contract
//!   (no judge: judged clauses are not evaluable), stored as one trial
//!   (test id: the OpenTelemetry trace id), and one line is printed.
//! * **Bounded.** [`LiveLimits`] caps open traces and spans per trace;
//!   what is dropped is said on a line, counted in [`ServeSummary`] and
//!   stored: a trace that lost spans is incomplete and never passes
//!   (a pass becomes undetermined).
//! * **Stopping.** On SIGINT/SIGTERM the server stops accepting, grades
//!   every trace it holds (one whose root span never ended is graded as
//!   cut off: absence checks undetermined), and ends the run `finished`
//!   (`interrupted` when a verdict could not be stored).
//! * **Keys.** Every stored trace and result, every line and every
//!   exported event is redacted first: the values of the environment's
//!   key variables and the key-shaped tokens of the trace.
//! * **Exporting.** With [`ServeConfig::otlp_endpoint`], each graded
//!   trace's verdicts are POSTed as `gen_ai.evaluation.result` log records
//!   (OTLP/HTTP JSON, [`pactum_report::otlp`]) to that collector; a failed
//!   export is said and counted, never retried forever.

pub mod proto;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use pactum_core::secret::{redaction_rule, trace_key_tokens, EnvKeys, Redactor};
use pactum_core::{ObservabilityLevel, Policy, TestStatus, TraceResult};
use pactum_eval::{grade_trace, CompiledContract, NoJudge};
use pactum_store::{CacheMode, ContractSnapshot, NewRun, RunId, RunStatus, Store, TrialRecord};
use pactum_trace::live::{Assembler, Built};
pub use pactum_trace::live::{Counters, LiveLimits};
use serde_json::{json, Value};

/// The default listening address: loopback, the OTLP/HTTP port.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:4318";
/// The default quiet period.
pub const DEFAULT_QUIET: Duration = Duration::from_secs(2);
/// The default body size limit (bytes, after decompression too).
pub const DEFAULT_MAX_BODY: usize = 16 * 1024 * 1024;
/// The default limits.
pub const DEFAULT_LIMITS: LiveLimits = LiveLimits {
    max_open_traces: 10_000,
    max_spans_per_trace: 10_000,
};
/// The most characters of a summary on a printed line.
const LINE_CHARS: usize = 200;

/// What `pactum serve` serves.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The contract file (exactly one contract).
    pub contract: PathBuf,
    /// The store (created if missing).
    pub store: PathBuf,
    /// Where to listen.
    pub listen: SocketAddr,
    /// How long a trace whose root span ended waits for more spans.
    pub quiet_period: Duration,
    /// Open traces and spans per trace.
    pub limits: LiveLimits,
    /// Largest body accepted, in bytes (before and after gzip).
    pub max_body_bytes: usize,
    /// The grading policy.
    pub policy: Policy,
    /// An OTLP/HTTP logs endpoint (`http://host:4318/v1/logs`) to POST
    /// each graded trace's verdicts to.
    pub otlp_endpoint: Option<String>,
    /// The values of the key variables of the environment (redacted).
    pub env_keys: EnvKeys,
}

/// Why `pactum serve` could not start or went on.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A contract, flag or endpoint that cannot be used.
    #[error("{0}")]
    Invalid(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] pactum_store::StoreError),
    /// The address cannot be listened on.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The server failed.
    #[error("the server failed: {0}")]
    Server(#[source] std::io::Error),
}

/// What a session did: the totals that decide the exit code, and the
/// drop counters (never silent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServeSummary {
    /// The store run.
    pub run_id: String,
    /// Graded traces by status.
    pub by_status: BTreeMap<TestStatus, u64>,
    /// Traces with no LLM or tool span (not stored).
    pub skipped: u64,
    /// Traces that could not be read (stored with status error).
    pub unreadable: u64,
    /// Graded traces that had lost spans.
    pub partial_traces: u64,
    /// Graded traces cut off at shutdown.
    pub cut_off: u64,
    /// Bodies accepted.
    pub bodies: u64,
    /// Bodies refused with 400 (malformed) or 415.
    pub refused_bodies: u64,
    /// Bodies refused with 413.
    pub too_large: u64,
    /// Drops of the assembler.
    pub counters: Counters,
    /// Results that could not be stored.
    pub store_failures: u64,
    /// Exports to the endpoint that failed.
    pub export_failures: u64,
    /// Milliseconds from the end of a trace's quiet period to its stored
    /// verdict, sorted (for the benchmark's percentiles).
    pub latencies_ms: Vec<f64>,
}

impl ServeSummary {
    /// Graded traces of status `s`.
    pub fn count(&self, s: TestStatus) -> u64 {
        self.by_status.get(&s).copied().unwrap_or(0)
    }

    /// Traces graded.
    pub fn graded(&self) -> u64 {
        self.by_status.values().sum()
    }

    /// Whether anything was dropped or refused, or could not be stored or
    /// exported: the session is partial.
    pub fn lost_anything(&self) -> bool {
        let c = self.counters;
        self.refused_bodies + self.too_large + self.store_failures + self.export_failures > 0
            || c.dropped_spans + c.refused_spans + c.late_spans > 0
            || self.unreadable > 0
    }

    /// The final summary, one line per kind of count.
    pub fn text(&self) -> String {
        let c = self.counters;
        let mut s = format!(
            "pactum serve: run {}: {} trace(s) graded ({} pass, {} fail, {} undetermined, {} error), {} skipped (no LLM or tool span)\n",
            self.run_id,
            self.graded(),
            self.count(TestStatus::Pass),
            self.count(TestStatus::Fail),
            self.count(TestStatus::Undetermined),
            self.count(TestStatus::Error),
            self.skipped
        );
        s.push_str(&format!(
            "  received: {} body(ies), {} span(s); refused: {} malformed body(ies), {} too large\n",
            self.bodies, c.spans, self.refused_bodies, self.too_large
        ));
        s.push_str(&format!(
            "  dropped: {} span(s) past --max-spans-per-trace ({} trace(s) graded incomplete), {} trace(s) refused past --max-open-traces ({} span(s)), {} late span(s); {} trace(s) cut off at shutdown\n",
            c.dropped_spans, self.partial_traces, c.refused_traces, c.refused_spans, c.late_spans, self.cut_off
        ));
        if !self.latencies_ms.is_empty() {
            let l = &self.latencies_ms;
            let pct = |p: f64| l[((l.len() as f64 - 1.0) * p) as usize];
            s.push_str(&format!(
                "  latency from the end of the quiet period to the stored verdict: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms\n",
                pct(0.5),
                pct(0.99),
                pct(1.0)
            ));
        }
        if self.store_failures + self.export_failures + self.unreadable > 0 {
            s.push_str(&format!(
                "  failures: {} unreadable trace(s), {} result(s) not stored, {} export(s) failed\n",
                self.unreadable, self.store_failures, self.export_failures
            ));
        }
        s
    }
}

/// One thing to tell the person running the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Say {
    /// A graded trace (stdout).
    Graded(String),
    /// A drop, a refused body, a failure (stderr).
    Notice(String),
}

/// The receiver, bound and with its run started.
pub struct Server {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    cfg: ServeConfig,
    contract: CompiledContract,
    snapshot: ContractSnapshot,
    store: Store,
    run: RunId,
    redactor: Redactor,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("addr", &self.addr)
            .field("run", &self.run.as_str())
            .finish()
    }
}

/// The one redaction rule (SPEC §4) as serve applies it to untrusted
/// text: the keys it knows (the environment's) and every key-shaped token
/// of the text about to be printed, stored or answered.
#[derive(Clone)]
struct Keys {
    base: Redactor,
    env: EnvKeys,
}

/// What is shown instead of a text whose keys could not be searched for.
const WITHHELD: &str = "[withheld: the keys in this text cannot be searched for]";

impl Keys {
    /// The redactor for `texts`, or `None` when it cannot be built (the
    /// texts are then withheld whole: nothing unredacted is shown).
    fn rule<'a>(&self, texts: impl IntoIterator<Item = &'a str>) -> Option<Redactor> {
        redaction_rule(&self.base, &self.env, texts).ok()
    }

    /// `text` redacted by the rule built from `text` itself.
    fn redact(&self, text: &str) -> String {
        match self.rule([text]) {
            Some(r) => r.redact(text).into_owned(),
            None => WITHHELD.to_string(),
        }
    }
}

fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

fn sha256_hex(b: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(b))
}

impl Server {
    /// Loads the contract, opens the store, binds the address and starts
    /// the run (status `running`).
    ///
    /// # Errors
    /// [`ServeError::Invalid`] for a contract with errors or more than one
    /// contract; [`ServeError::Store`]; [`ServeError::Bind`].
    pub fn bind(cfg: ServeConfig) -> Result<Server, ServeError> {
        if cfg.limits.max_open_traces == 0 || cfg.limits.max_spans_per_trace == 0 {
            return Err(ServeError::Invalid(
                "--max-open-traces and --max-spans-per-trace must be at least 1".into(),
            ));
        }
        let loaded = pactum_suite::load_contract(&cfg.contract).map_err(|d| {
            ServeError::Invalid(
                d.iter()
                    .filter(|d| d.level == pactum_suite::DiagnosticLevel::Error)
                    .map(|d| format!("{}:{}: {}", d.file.display(), d.line, d.message))
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        })?;
        let contract = CompiledContract::compile(loaded.contract.clone(), loaded.digest.clone())
            .map_err(|e| ServeError::Invalid(format!("{}: {e}", cfg.contract.display())))?;
        if let Some(url) = &cfg.otlp_endpoint {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ServeError::Invalid(format!(
                    "--otlp-endpoint {url}: expected an http:// or https:// URL of an OTLP/HTTP logs endpoint (…/v1/logs)"
                )));
            }
        }
        let redactor = pactum_core::secret::redaction_rule(&Redactor::default(), &cfg.env_keys, [])
            .map_err(|e| ServeError::Invalid(format!("the keys to redact {e}")))?;
        let mut store = Store::open(&cfg.store)?;
        store.redact_with(&redactor)?;
        let listener =
            std::net::TcpListener::bind(cfg.listen).map_err(|source| ServeError::Bind {
                addr: cfg.listen,
                source,
            })?;
        let addr = listener.local_addr().map_err(ServeError::Server)?;
        // `tests` is empty: a live session plans no trial, so `show`
        // finds none missing; every stored trace is a trial of its own.
        let snapshot = json!({
            "tests": [],
            "serve": {
                "listen": addr.to_string(),
                "contract": {"id": loaded.contract.id, "path": cfg.contract.display().to_string(), "digest": loaded.digest},
                "quiet_period_ms": cfg.quiet_period.as_millis() as u64,
                "max_open_traces": cfg.limits.max_open_traces,
                "max_spans_per_trace": cfg.limits.max_spans_per_trace,
            }
        })
        .to_string();
        let run = store.create_run(&NewRun {
            suite_path: format!("pactum serve {}", cfg.contract.display()),
            suite_digest: format!("sha256:{}", sha256_hex(snapshot.as_bytes())),
            suite_snapshot: snapshot,
            policy: cfg.policy,
            started_at: now_rfc3339(),
            pactum_version: env!("CARGO_PKG_VERSION").into(),
            cache_mode: CacheMode::Bypass,
        })?;
        Ok(Server {
            listener,
            addr,
            snapshot: ContractSnapshot {
                digest: loaded.digest.clone(),
                contract: loaded.contract,
            },
            contract,
            cfg,
            store,
            run,
            redactor,
        })
    }

    /// The address listened on (the port, when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The store run of this session.
    pub fn run_id(&self) -> &str {
        self.run.as_str()
    }

    /// Serves until SIGINT or SIGTERM (or `stop` becomes true), then
    /// grades what it holds and ends the run; `say` receives every line.
    ///
    /// # Errors
    /// [`ServeError::Server`] when the runtime cannot start;
    /// [`ServeError::Store`] when the run cannot be ended.
    pub fn serve(
        self,
        stop: Arc<AtomicBool>,
        say: Arc<dyn Fn(Say) + Send + Sync>,
    ) -> Result<ServeSummary, ServeError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(ServeError::Server)?;
        let Server {
            listener,
            addr,
            cfg,
            contract,
            snapshot,
            store,
            run,
            redactor,
        } = self;
        let shared = Arc::new(Shared {
            asm: Mutex::new(Assembler::new(cfg.limits, format!("otlp://{addr}"))),
            keys: Keys {
                base: redactor.clone(),
                env: cfg.env_keys.clone(),
            },
            closed: AtomicBool::new(false),
            max_body: cfg.max_body_bytes,
            bodies: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            too_large: AtomicU64::new(0),
            say: Arc::clone(&say),
        });
        let (tx, rx) = mpsc::channel::<Vec<Built>>();
        let grader = Grader {
            contract: vec![contract],
            snapshot,
            store,
            run: run.clone(),
            policy: cfg.policy,
            keys: Keys {
                base: redactor,
                env: cfg.env_keys.clone(),
            },
            quiet: cfg.quiet_period,
            endpoint: cfg.otlp_endpoint.clone(),
            rt: rt.handle().clone(),
            say: Arc::clone(&say),
            summary: ServeSummary {
                run_id: run.as_str().to_string(),
                ..ServeSummary::default()
            },
        };
        let handle = std::thread::spawn(move || grader.run(rx));
        let quiet = cfg.quiet_period;
        let served = rt.block_on(accept_loop(
            listener,
            Arc::clone(&shared),
            tx.clone(),
            quiet,
            stop,
        ));
        // Stop taking spans, then grade everything held.
        let held = {
            let mut asm = shared.asm.lock().unwrap_or_else(|e| e.into_inner());
            shared.closed.store(true, Ordering::SeqCst);
            asm.drain()
        };
        let _ = tx.send(held);
        drop(tx);
        let mut summary = handle
            .join()
            .map_err(|_| ServeError::Server(std::io::Error::other("the grading thread failed")))?;
        {
            let asm = shared.asm.lock().unwrap_or_else(|e| e.into_inner());
            summary.counters = asm.counters();
        }
        summary.bodies = shared.bodies.load(Ordering::SeqCst);
        summary.refused_bodies = shared.refused.load(Ordering::SeqCst);
        summary.too_large = shared.too_large.load(Ordering::SeqCst);
        summary
            .latencies_ms
            .sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let store = Store::open(&cfg.store)?;
        // A session that lost anything (late or dropped spans, refused
        // bodies, unreadable traces) is no clean finish: the stored run
        // must not read as one.
        let status = if summary.store_failures > 0 || served.is_err() || summary.lost_anything() {
            RunStatus::Interrupted
        } else {
            RunStatus::Finished
        };
        store.finish_run(&run, status, &now_rfc3339())?;
        served.map_err(ServeError::Server)?;
        Ok(summary)
    }
}

struct Shared {
    asm: Mutex<Assembler>,
    keys: Keys,
    closed: AtomicBool,
    max_body: usize,
    bodies: AtomicU64,
    refused: AtomicU64,
    too_large: AtomicU64,
    say: Arc<dyn Fn(Say) + Send + Sync>,
}

async fn accept_loop(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    tx: mpsc::Sender<Vec<Built>>,
    quiet: Duration,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let signal = stop_signal()?;
    tokio::pin!(signal);
    let tick = (quiet / 4).clamp(Duration::from_millis(5), Duration::from_millis(250));
    let mut ticker = tokio::time::interval(tick);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let shared = Arc::clone(&shared);
                    tokio::spawn(connection(stream, shared));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            },
            _ = ticker.tick() => {
                if stop.load(Ordering::SeqCst) {
                    return Ok(());
                }
                let ready = {
                    let mut asm = shared.asm.lock().unwrap_or_else(|e| e.into_inner());
                    asm.ready(Instant::now(), quiet)
                };
                if !ready.is_empty() && tx.send(ready).is_err() {
                    return Err(std::io::Error::other("the grading thread stopped"));
                }
            }
            () = &mut signal => return Ok(()),
        }
    }
}

fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

async fn connection(stream: tokio::net::TcpStream, shared: Arc<Shared>) {
    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
        let shared = Arc::clone(&shared);
        async move { Ok::<_, Infallible>(respond(&shared, req).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(Duration::from_secs(10))
        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
        .await;
}

fn plain(status: StatusCode, text: &str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(format!("{text}\n"))));
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// `ExportTraceServiceResponse { partial_success = 1 }`.
#[derive(Clone, PartialEq, prost::Message)]
struct ExportTraceServiceResponse {
    #[prost(message, optional, tag = "1")]
    partial_success: Option<PartialSuccess>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct PartialSuccess {
    #[prost(int64, tag = "1")]
    rejected_spans: i64,
    #[prost(string, tag = "2")]
    error_message: String,
}

fn header(req: &Request<Incoming>, name: hyper::header::HeaderName) -> &str {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

async fn respond(shared: &Shared, req: Request<Incoming>) -> Response<Full<Bytes>> {
    if req.uri().path() != "/v1/traces" {
        return plain(
            StatusCode::NOT_FOUND,
            "not found: POST OTLP traces to /v1/traces",
        );
    }
    if req.method() != hyper::Method::POST {
        return plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "POST OTLP traces to /v1/traces",
        );
    }
    let ctype = header(&req, hyper::header::CONTENT_TYPE)
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let proto = match ctype.as_str() {
        "application/json" => false,
        "application/x-protobuf" => true,
        other => {
            shared.refused.fetch_add(1, Ordering::SeqCst);
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                &format!(
                    "Content-Type `{}`: expected application/json or application/x-protobuf",
                    bounded(other, 80)
                ),
            );
        }
    };
    let gzip = match header(&req, hyper::header::CONTENT_ENCODING)
        .trim()
        .to_ascii_lowercase()
        .as_str()
    {
        "" | "identity" => false,
        "gzip" => true,
        other => {
            shared.refused.fetch_add(1, Ordering::SeqCst);
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                &format!(
                    "Content-Encoding `{}`: expected gzip or none",
                    bounded(other, 80)
                ),
            );
        }
    };
    let max = shared.max_body;
    let too_large = || {
        shared.too_large.fetch_add(1, Ordering::SeqCst);
        (shared.say)(Say::Notice(format!(
            "refused a body over {max} bytes (413, --max-body-bytes)"
        )));
        plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("body over {max} bytes (--max-body-bytes): refused"),
        )
    };
    let body = match Limited::new(req.into_body(), max).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                return too_large();
            }
            shared.refused.fetch_add(1, Ordering::SeqCst);
            return plain(StatusCode::BAD_REQUEST, "the body could not be read");
        }
    };
    let body: Vec<u8> = if gzip {
        let mut out = Vec::new();
        let mut d = flate2::read::GzDecoder::new(&body[..]).take(max as u64 + 1);
        if let Err(e) = d.read_to_end(&mut out) {
            return refuse(shared, &format!("gzip body cannot be decompressed: {e}"));
        }
        if out.len() > max {
            return too_large();
        }
        out
    } else {
        body.to_vec()
    };
    let doc = if proto {
        match proto::decode(&body) {
            Ok(v) => v,
            Err(e) => return refuse(shared, &e),
        }
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) => v,
            Err(e) => return refuse(shared, &format!("malformed JSON: {e}")),
        }
    };
    let added = {
        let mut asm = shared.asm.lock().unwrap_or_else(|e| e.into_inner());
        if shared.closed.load(Ordering::SeqCst) {
            drop(asm);
            return plain(StatusCode::SERVICE_UNAVAILABLE, "pactum serve is stopping");
        }
        asm.add(&doc, Instant::now())
    };
    match added {
        Err(e) => refuse(shared, &e.0),
        Ok(a) => {
            shared.bodies.fetch_add(1, Ordering::SeqCst);
            let notices: Vec<String> = a.notices.iter().map(|n| shared.keys.redact(n)).collect();
            for n in &notices {
                (shared.say)(Say::Notice(n.clone()));
            }
            let rejected = i64::try_from(a.rejected).unwrap_or(i64::MAX);
            let message = notices.first().cloned().unwrap_or_default();
            if proto {
                use prost::Message;
                let resp = ExportTraceServiceResponse {
                    partial_success: (rejected > 0).then_some(PartialSuccess {
                        rejected_spans: rejected,
                        error_message: message,
                    }),
                };
                let mut r = Response::new(Full::new(Bytes::from(resp.encode_to_vec())));
                r.headers_mut().insert(
                    hyper::header::CONTENT_TYPE,
                    hyper::header::HeaderValue::from_static("application/x-protobuf"),
                );
                r
            } else {
                let v = if rejected > 0 {
                    json!({"partialSuccess": {"rejectedSpans": rejected.to_string(), "errorMessage": message}})
                } else {
                    json!({})
                };
                let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
                r.headers_mut().insert(
                    hyper::header::CONTENT_TYPE,
                    hyper::header::HeaderValue::from_static("application/json"),
                );
                r
            }
        }
    }
}

fn bounded(s: &str, n: usize) -> String {
    let clean = pactum_core::text::strip_terminal_escapes(s);
    let clean: String = clean
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if clean.chars().count() <= n {
        clean
    } else {
        let mut t: String = clean.chars().take(n).collect();
        t.push('…');
        t
    }
}

fn refuse(shared: &Shared, why: &str) -> Response<Full<Bytes>> {
    shared.refused.fetch_add(1, Ordering::SeqCst);
    // Redact, then bound, then answer and print.
    let why = bounded(&shared.keys.redact(why), 300);
    (shared.say)(Say::Notice(format!("refused a body (400): {why}")));
    plain(StatusCode::BAD_REQUEST, &why)
}

/// The most traces stored in one transaction.
const MAX_BATCH: usize = 1024;

/// A graded trace waiting to be stored with its batch.
struct Pending {
    id: String,
    trace: Option<pactum_core::Trace>,
    result: TraceResult,
    started: String,
    t0: Instant,
    line: String,
    /// When its quiet period ended (none for an unreadable trace).
    due: Option<Instant>,
    /// Its evaluation records, when there is an endpoint.
    export: Option<Vec<Value>>,
}

/// A trace that is not graded (refused, or its verdict overtaken by late
/// spans): an `error` result whose summary and reason are already
/// redacted, and its `ERR` line.
fn error_pending(
    trace_id: String,
    summary: String,
    reason: String,
    started: String,
    t0: Instant,
) -> Pending {
    let line = format!("ERR   {}  {reason}", bounded(&trace_id, 40));
    let result = TraceResult {
        trace_id: trace_id.clone(),
        source: None,
        observability: ObservabilityLevel::ResponseOnly,
        status: TestStatus::Error,
        summary,
        contracts: Vec::new(),
        overall_score: None,
        error: Some(reason),
    };
    Pending {
        id: trace_id,
        trace: None,
        result,
        started,
        t0,
        line,
        due: None,
        export: None,
    }
}

struct Grader {
    contract: Vec<CompiledContract>,
    snapshot: ContractSnapshot,
    store: Store,
    run: RunId,
    policy: Policy,
    keys: Keys,
    quiet: Duration,
    endpoint: Option<String>,
    rt: tokio::runtime::Handle,
    say: Arc<dyn Fn(Say) + Send + Sync>,
    summary: ServeSummary,
}

/// `r` with `redactor`'s secrets removed from every string.
fn redact_result(redactor: &Redactor, r: TraceResult) -> TraceResult {
    let Ok(mut v) = serde_json::to_value(&r) else {
        return r;
    };
    if !redactor.redact_value(&mut v) {
        return r;
    }
    serde_json::from_value(v).unwrap_or(r)
}

impl Grader {
    fn run(mut self, rx: mpsc::Receiver<Vec<Built>>) -> ServeSummary {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .ok();
        while let Ok(mut batch) = rx.recv() {
            // Under load, catch up in one transaction: what is queued
            // already joins this batch.
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(more) => batch.extend(more),
                    Err(_) => break,
                }
            }
            let pending: Vec<Pending> = batch.into_iter().filter_map(|b| self.one(b)).collect();
            self.flush(pending, client.as_ref());
        }
        self.summary
    }

    /// Stores every pending verdict in one transaction, then prints each
    /// line and exports each trace's verdicts.
    fn flush(&mut self, pending: Vec<Pending>, client: Option<&reqwest::Client>) {
        if pending.is_empty() {
            return;
        }
        let finished = now_rfc3339();
        let records: Vec<TrialRecord> = pending
            .iter()
            .map(|p| self.record(p, 0, &finished))
            .collect();
        let writes: Vec<pactum_store::BatchWrite<'_>> = records
            .iter()
            .map(pactum_store::BatchWrite::Trial)
            .collect();
        let results = self.store.write_batch(&writes);
        drop(writes);
        drop(records);
        for (i, p) in pending.into_iter().enumerate() {
            let outcome = match &results {
                Ok(r) => match &r[i] {
                    Ok(_) => Ok(()),
                    Err(pactum_store::StoreError::TrialExists { .. }) => self.store_again(&p),
                    Err(e) => Err(e.to_string()),
                },
                Err(e) => Err(e.to_string()),
            };
            if let Err(e) = outcome {
                self.summary.store_failures += 1;
                (self.say)(Say::Notice(format!(
                    "trace {}: the verdict could not be stored: {e}",
                    bounded(&p.id, 40)
                )));
            }
            if let Some(due) = p.due {
                self.summary
                    .latencies_ms
                    .push(Instant::now().saturating_duration_since(due).as_secs_f64() * 1000.0);
            }
            (self.say)(Say::Graded(p.line.clone()));
            if let (Some(records), Some(client)) = (&p.export, client) {
                self.export(&p.id, records, client);
            }
        }
    }

    fn record(&self, p: &Pending, index: u32, finished: &str) -> TrialRecord {
        TrialRecord {
            run_id: self.run.clone(),
            test_id: p.id.clone(),
            trial_index: index,
            contract: p.trace.is_some().then(|| self.snapshot.clone()),
            result: p.result.clone(),
            trace: p.trace.clone(),
            judge_answers: Vec::new(),
            started_at: p.started.clone(),
            finished_at: finished.to_string(),
            duration_ms: p.t0.elapsed().as_millis() as u64,
        }
    }

    /// The same trace id graded again (its spans came after it was
    /// forgotten): a trial of its own, at the next free index.
    fn store_again(&mut self, p: &Pending) -> Result<(), String> {
        for index in 1..1000 {
            let rec = self.record(p, index, &now_rfc3339());
            match self.store.record_trial(&rec) {
                Ok(()) => return Ok(()),
                Err(pactum_store::StoreError::TrialExists { .. }) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        Err("1,000 trials of this trace id are stored already".into())
    }

    fn export(&mut self, id: &str, records: &[Value], client: &reqwest::Client) {
        let Some(url) = &self.endpoint else { return };
        let body = pactum_report::otlp::logs_document(records);
        let sent = self.rt.block_on(async {
            client
                .post(url)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
        });
        let failed = match sent {
            Ok(r) if r.status().is_success() => None,
            Ok(r) => Some(format!("HTTP {}", r.status())),
            Err(e) => Some(bounded(&e.to_string(), 200)),
        };
        if let Some(why) = failed {
            self.summary.export_failures += 1;
            (self.say)(Say::Notice(format!(
                "export of trace {}'s verdicts to --otlp-endpoint failed: {why}",
                bounded(id, 40)
            )));
        }
    }

    /// A trace id and a message about it, redacted by the rule built
    /// from both (the id itself may be key-shaped).
    fn redacted(&self, trace_id: &str, text: &str) -> (String, String) {
        match self.keys.rule([trace_id, text]) {
            Some(r) => (r.redact(trace_id).into_owned(), r.redact(text).into_owned()),
            None => (WITHHELD.to_string(), WITHHELD.to_string()),
        }
    }

    fn one(&mut self, b: Built) -> Option<Pending> {
        let started = now_rfc3339();
        let t0 = Instant::now();
        let (mut trace, mut result, last, partial) = match b {
            Built::Skip { trace_id, reason } => {
                self.summary.skipped += 1;
                let (trace_id, reason) = self.redacted(&trace_id, &reason);
                (self.say)(Say::Notice(format!(
                    "SKIP  {}: {}",
                    bounded(&trace_id, 40),
                    bounded(&reason, LINE_CHARS)
                )));
                return None;
            }
            Built::Refused { trace_id, reason } => {
                let (trace_id, reason) = self.redacted(&trace_id, &reason);
                *self.summary.by_status.entry(TestStatus::Error).or_default() += 1;
                let summary = format!("not graded: {reason}");
                return Some(error_pending(trace_id, summary, reason, started, t0));
            }
            Built::Late { trace_id, spans } => {
                let (trace_id, _) = self.redacted(&trace_id, "");
                let why = format!(
                    "{spans} span(s) arrived after this trace was graded and were dropped: the verdict stored for it before them does not stand (what arrived may be the violation)"
                );
                let summary = format!("spans arrived after grading: {why}");
                return Some(error_pending(trace_id, summary, why, started, t0));
            }
            Built::Error { trace_id, message } => {
                self.summary.unreadable += 1;
                *self.summary.by_status.entry(TestStatus::Error).or_default() += 1;
                let (trace_id, message) = self.redacted(&trace_id, &message);
                let line = format!(
                    "ERR   {}  cannot be read: {}",
                    bounded(&trace_id, 40),
                    bounded(&message, LINE_CHARS)
                );
                let summary = format!("the spans cannot be read as a trace: {message}");
                let mut pending = error_pending(trace_id, summary, message, started, t0);
                // Its line bounds the message, which may be long.
                pending.line = line;
                return Some(pending);
            }
            Built::Trace {
                trace,
                partial,
                cut_off,
                last_span,
                ..
            } => {
                let trace = *trace;
                let r = grade_trace(&self.contract, &trace, &self.policy, &NoJudge);
                if cut_off {
                    self.summary.cut_off += 1;
                }
                (trace, r, last_span, partial)
            }
        };
        if partial {
            self.summary.partial_traces += 1;
            if result.status == TestStatus::Pass {
                // A trace that lost spans is never a pass: what was lost
                // may be the violation.
                result.status = TestStatus::Undetermined;
                result.summary = format!(
                    "spans of this trace were dropped ({}): not a pass; {}",
                    trace.incomplete.as_deref().unwrap_or("incomplete"),
                    result.summary
                );
            }
        }
        // Redact before anything is stored, printed or exported.
        let tokens = trace_key_tokens(&trace);
        let Some(red) = self.keys.rule(tokens.iter().map(String::as_str)) else {
            // Nothing of a trace whose keys cannot be found is kept.
            return self.one(Built::Error {
                trace_id: trace.id.clone(),
                message: WITHHELD.to_string(),
            });
        };
        red.redact_trace(&mut trace);
        result = redact_result(&red, result);
        if !red.is_empty() {
            let _ = self.store.redact_with(&red);
        }
        *self.summary.by_status.entry(result.status).or_default() += 1;
        let word = match result.status {
            TestStatus::Pass => "PASS",
            TestStatus::Fail => "FAIL",
            TestStatus::Undetermined => "WARN",
            TestStatus::Error => "ERR ",
        };
        let link = pactum_report::otlp::OtelLink::of(&trace);
        let id = trace.id.clone();
        let records = self
            .endpoint
            .as_ref()
            .map(|_| pactum_report::otlp::evaluation_records(&result, link.as_ref()));
        let line = format!(
            "{word}  {}  {}",
            bounded(&id, 40),
            bounded(&result.summary, LINE_CHARS)
        );
        Some(Pending {
            id,
            trace: Some(trace),
            result,
            started,
            t0,
            line,
            due: Some(last + self.quiet),
            export: records,
        })
    }
}
