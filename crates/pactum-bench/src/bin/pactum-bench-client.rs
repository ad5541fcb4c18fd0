//! The benchmark load client ([`pactum_bench::load`]):
//!
//! ```sh
//! pactum-bench-client URL [--requests 1000] [--concurrency 50]
//! ```
//!
//! Posts chat requests to URL (a full chat completions URL) and prints
//! one JSON line: requests, concurrency, `wall_s`, and the latency's
//! `mean_ms`, `p50_ms`, `p99_ms`, `max_ms`. Exit 1 when a request fails.

fn main() {
    match run() {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("pactum-bench-client: {e}");
            std::process::exit(1);
        }
    }
}

fn run() -> Result<String, String> {
    let mut url = None;
    let mut requests = 1000_u64;
    let mut concurrency = 50_usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--requests" => {
                requests = value("--requests")?
                    .parse()
                    .map_err(|e| format!("--requests: {e}"))?;
            }
            "--concurrency" => {
                concurrency = value("--concurrency")?
                    .parse()
                    .map_err(|e| format!("--concurrency: {e}"))?;
            }
            other if other.starts_with("--") => return Err(format!("unknown argument `{other}`")),
            other => url = Some(other.to_string()),
        }
    }
    let url = url.ok_or("the URL is required")?;
    // The runtime pactum runs on: one worker per core.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let report = rt.block_on(pactum_bench::load(&url, requests, concurrency))?;
    Ok(report.to_json().to_string())
}
