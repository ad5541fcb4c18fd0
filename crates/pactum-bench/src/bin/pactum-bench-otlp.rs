//! The `pactum serve` load generator (`bench/serve.sh`):
//!
//! ```sh
//! pactum-bench-otlp URL [--rate 1000] [--seconds 10] [--concurrency 32]
//! ```
//!
//! POSTs one OTLP JSON trace per request to URL (`…/v1/traces`) at `--rate`
//! traces a second for `--seconds`: a scripted agent turn of three spans
//! (root `invoke_agent`, a `chat` span with its messages, an
//! `execute_tool` span); one trace in ten calls the prohibited
//! `delete_file`. Prints one JSON line: traces sent, failed requests, the
//! achieved rate and the request latency's `p50_ms` and `p99_ms`. Exit 1
//! when no request succeeded.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn kv(k: &str, v: &str) -> Value {
    json!({"key": k, "value": {"stringValue": v}})
}

/// One trace, numbered `n`.
fn body(n: u64) -> String {
    let tid = format!(
        "{:032x}",
        0x5eed_0000_0000_0000_0000_0000_0000_0000u128 + u128::from(n)
    );
    let sid = |k: u64| format!("{:016x}", (n << 8) | k);
    let tool = if n.is_multiple_of(10) {
        "delete_file"
    } else {
        "list_files"
    };
    let out = json!([{"role": "assistant", "parts": [
        {"type": "text", "content": "On it."},
        {"type": "tool_call", "id": "call_1", "name": tool, "arguments": {"path": "/tmp"}}
    ], "finish_reason": "stop"}])
    .to_string();
    let input = json!([{"role": "user", "parts": [{"type": "text", "content": "Tidy my files."}]}])
        .to_string();
    json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": tid, "spanId": sid(1), "name": "invoke_agent helper",
         "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000900000000",
         "attributes": [kv("gen_ai.operation.name", "invoke_agent")]},
        {"traceId": tid, "spanId": sid(2), "parentSpanId": sid(1), "name": "chat m",
         "startTimeUnixNano": "1700000000100000000", "endTimeUnixNano": "1700000000200000000",
         "attributes": [kv("gen_ai.operation.name", "chat"), kv("gen_ai.input.messages", &input), kv("gen_ai.output.messages", &out)]},
        {"traceId": tid, "spanId": sid(3), "parentSpanId": sid(1), "name": format!("execute_tool {tool}"),
         "startTimeUnixNano": "1700000000300000000", "endTimeUnixNano": "1700000000400000000",
         "attributes": [kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", tool), kv("gen_ai.tool.call.id", "call_1")]}
    ]}]}]})
    .to_string()
}

fn main() {
    match run() {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("pactum-bench-otlp: {e}");
            std::process::exit(1);
        }
    }
}

fn run() -> Result<String, String> {
    let mut url = None;
    let (mut rate, mut seconds, mut concurrency) = (1000_u64, 10_u64, 32_u64);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            args.next()
                .ok_or(format!("{name} needs a value"))?
                .parse()
                .map_err(|e| format!("{name}: {e}"))
        };
        match a.as_str() {
            "--rate" => rate = value("--rate")?,
            "--seconds" => seconds = value("--seconds")?,
            "--concurrency" => concurrency = value("--concurrency")?,
            other if other.starts_with("--") => return Err(format!("unknown argument `{other}`")),
            other => url = Some(other.to_string()),
        }
    }
    let url = url.ok_or("the URL is required")?;
    let total = rate * seconds;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let client = reqwest::Client::new();
        let next = Arc::new(AtomicU64::new(0));
        let failed = Arc::new(AtomicU64::new(0));
        let start = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..concurrency {
            let (client, url, next, failed) = (
                client.clone(),
                url.clone(),
                Arc::clone(&next),
                Arc::clone(&failed),
            );
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= total {
                        return lat;
                    }
                    // Paced: trace n leaves at n / rate seconds.
                    let due = start + Duration::from_secs_f64(n as f64 / rate as f64);
                    tokio::time::sleep_until(due.into()).await;
                    let t0 = Instant::now();
                    let ok = client
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body(n))
                        .send()
                        .await
                        .is_ok_and(|r| r.status().is_success());
                    if !ok {
                        failed.fetch_add(1, Ordering::SeqCst);
                    }
                    lat.push(t0.elapsed().as_secs_f64() * 1000.0);
                }
            }));
        }
        let mut lat = Vec::new();
        for t in tasks {
            lat.extend(t.await.map_err(|e| e.to_string())?);
        }
        let wall = start.elapsed().as_secs_f64();
        lat.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let pct = |p: f64| {
            lat.get(((lat.len() as f64 - 1.0) * p) as usize)
                .copied()
                .unwrap_or(0.0)
        };
        let failed = failed.load(Ordering::SeqCst);
        if failed == total {
            return Err("no request succeeded".to_string());
        }
        Ok(json!({
            "traces": total, "failed": failed, "wall_s": wall,
            "rate_per_s": total as f64 / wall,
            "request_p50_ms": pct(0.5), "request_p99_ms": pct(0.99),
        })
        .to_string())
    })
}
