//! # pactum-bench
//!
//! Tools for `bench/run_live.sh` that separate pactum's own cost from the
//! server it talks to:
//!
//! * [`serve`]: a reference OpenAI-compatible chat server (hyper, HTTP/1.1
//!   keep-alive, one thread) that answers every chat request with the same
//!   completion after a fixed delay, and counts requests and the most in
//!   flight. It speaks as `bench/fast_server.py` does (same answer bytes,
//!   same `GET /_stats` and `POST /_reset`), without a Python loop's cost
//!   per request. Binary: `pactum-bench-server`.
//! * [`load`]: a load client (reqwest, as pactum) keeping a fixed number of
//!   requests in flight; it measures the server's ceiling with no pactum
//!   involved. Binary: `pactum-bench-client`.
//!
//! Nothing here is part of pactum: the crate is not published and no
//! other crate depends on it.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use tokio::net::TcpListener;

/// The chat completion every chat request gets: byte for byte the answer
/// of `bench/fast_server.py` (Python's `json.dumps` spacing).
pub const COMPLETION: &str = concat!(
    r#"{"id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000, "#,
    r#""model": "bench-model", "choices": [{"index": 0, "message": {"role": "assistant", "#,
    r#""content": "an answer"}, "finish_reason": "stop"}], "#,
    r#""usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}"#
);

/// The server's counters, as `GET /_stats` reports them.
#[derive(Debug, Default)]
pub struct Stats {
    requests: AtomicU64,
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
}

impl Stats {
    /// `{"requests": N, "in_flight": N, "max_in_flight": N}`: chat
    /// requests since the last reset, those waiting out their delay now,
    /// and the most that waited at once.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "requests": self.requests.load(Ordering::Relaxed),
            "in_flight": self.in_flight.load(Ordering::Relaxed),
            "max_in_flight": self.max_in_flight.load(Ordering::Relaxed),
        })
    }

    /// Zeroes every counter (`POST /_reset`).
    pub fn reset(&self) {
        self.requests.store(0, Ordering::Relaxed);
        self.in_flight.store(0, Ordering::Relaxed);
        self.max_in_flight.store(0, Ordering::Relaxed);
    }

    fn enter(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let now = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        self.max_in_flight.fetch_max(now, Ordering::Relaxed);
    }

    fn leave(&self) {
        // A reset while requests wait must not wrap the counter.
        let _ = self
            .in_flight
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
}

/// Serves `listener` until the task is dropped: `GET /_stats` answers the
/// counters ([`Stats::to_json`]), `POST /_reset` zeroes them, and every
/// other request (the chat completions) is counted, waits `delay`, and
/// gets [`COMPLETION`]. Connections are kept alive (HTTP/1.1), with
/// `TCP_NODELAY` set, each served by a task of the caller's runtime.
///
/// # Errors
/// Accepting a connection failed (the listener is broken).
pub async fn serve(
    listener: TcpListener,
    delay: Duration,
    stats: Arc<Stats>,
) -> std::io::Result<()> {
    let completion = Bytes::from_static(COMPLETION.as_bytes());
    loop {
        let (stream, _) = listener.accept().await?;
        // Without it, small answers wait for the peer's delayed ACK.
        let _ = stream.set_nodelay(true);
        let stats = stats.clone();
        let completion = completion.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                answer(req, delay, stats.clone(), completion.clone())
            });
            // A client that goes away mid-request ends only its connection.
            let _ = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(
    req: Request<Incoming>,
    delay: Duration,
    stats: Arc<Stats>,
    completion: Bytes,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = req.uri().path().to_string();
    // Read whole, as a real server does before answering.
    let _ = req.into_body().collect().await;
    let body = match path.as_str() {
        "/_stats" => Bytes::from(stats.to_json().to_string()),
        "/_reset" => {
            stats.reset();
            Bytes::from_static(b"{}")
        }
        _ => {
            stats.enter();
            tokio::time::sleep(delay).await;
            stats.leave();
            completion
        }
    };
    let mut resp = Response::new(Full::new(body));
    resp.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    Ok(resp)
}

/// What [`load`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    /// Requests sent, every one answered 2xx.
    pub requests: u64,
    /// Requests kept in flight.
    pub concurrency: usize,
    /// From the first request sent to the last answer read.
    pub wall: Duration,
    /// Latency of one request (send to answer read): mean, median, 99th
    /// percentile, most.
    pub mean: Duration,
    /// Median latency.
    pub p50: Duration,
    /// 99th percentile latency.
    pub p99: Duration,
    /// Longest latency.
    pub max: Duration,
}

impl LoadReport {
    /// One JSON object, times in seconds (`wall_s`) and milliseconds.
    pub fn to_json(&self) -> serde_json::Value {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        serde_json::json!({
            "requests": self.requests,
            "concurrency": self.concurrency,
            "wall_s": self.wall.as_secs_f64(),
            "mean_ms": ms(self.mean),
            "p50_ms": ms(self.p50),
            "p99_ms": ms(self.p99),
            "max_ms": ms(self.max),
        })
    }
}

/// Posts `requests` chat requests to `url` (a full chat completions URL),
/// `concurrency` at a time over one keep-alive client, and times them.
///
/// # Errors
/// The first request that failed or was not answered 2xx, as text.
pub async fn load(url: &str, requests: u64, concurrency: usize) -> Result<LoadReport, String> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    let body = serde_json::json!({
        "model": "bench-model",
        "messages": [{"role": "user", "content": "hi"}],
    });
    let next = Arc::new(AtomicU64::new(0));
    let concurrency = concurrency.max(1);
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let (client, next, body, url) =
            (client.clone(), next.clone(), body.clone(), url.to_string());
        tasks.spawn(async move {
            let mut times = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < requests {
                let t = Instant::now();
                let resp = client
                    .post(&url)
                    .json(&body)
                    .send()
                    .await
                    .map_err(|e| format!("request failed: {e}"))?;
                let status = resp.status();
                resp.bytes()
                    .await
                    .map_err(|e| format!("reading the answer failed: {e}"))?;
                if !status.is_success() {
                    return Err(format!("the server answered {status}"));
                }
                times.push(t.elapsed());
            }
            Ok::<_, String>(times)
        });
    }
    let mut times = Vec::with_capacity(usize::try_from(requests).unwrap_or(0));
    while let Some(r) = tasks.join_next().await {
        times.extend(r.map_err(|e| format!("a client task failed: {e}"))??);
    }
    let wall = start.elapsed();
    times.sort_unstable();
    let pick = |q: f64| {
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(i).copied().unwrap_or_default()
    };
    let total: Duration = times.iter().sum();
    Ok(LoadReport {
        requests: times.len() as u64,
        concurrency,
        wall,
        mean: total / u32::try_from(times.len().max(1)).unwrap_or(u32::MAX),
        p50: pick(0.5),
        p99: pick(0.99),
        max: times.last().copied().unwrap_or_default(),
    })
}
