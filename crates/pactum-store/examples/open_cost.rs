//! Measures what the checks on opening a store cost as the store grows:
//! `cargo run --release -p pactum-store --example open_cost -- [N…] [--dir DIR]`.
//! For each N (default 100 10000 100000) it fills a store with N trials (the
//! real AgentDojo trace of `tests/fixtures`, about 3.6 kB each), closes it,
//! then opens it 50 times for writing and 50 times read-only, and prints
//! the store's size and the mean time per open. The checks read the
//! header and each B-tree's edges, so the time should not grow with N.

use std::path::PathBuf;
use std::time::Instant;

use pactum_core::digest::sha256_hex;
use pactum_core::{Policy, TestStatus, Trace, TraceResult};
use pactum_store::{NewRun, Store, TrialRecord};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sizes = Vec::new();
    let mut dir = std::env::temp_dir();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--dir" {
            dir = PathBuf::from(args.next().ok_or("--dir needs a folder")?);
        } else {
            sizes.push(a.parse::<u32>()?);
        }
    }
    if sizes.is_empty() {
        sizes = vec![100, 10_000, 100_000];
    }
    let trace: Trace = serde_json::from_str(include_str!(
        "../tests/fixtures/agentdojo_banking_attacked.trace.json"
    ))?;
    for n in sizes {
        let path = dir.join(format!("pactum-open-cost-{}-{n}.db", std::process::id()));
        {
            let store = Store::open(&path)?;
            let run = store.create_run(&NewRun {
                suite_path: "bench.yaml".into(),
                suite_digest: sha256_hex(b"bench"),
                suite_snapshot: json!({"tests": [{"id": "t", "trials": n}]}).to_string(),
                policy: Policy::default(),
                started_at: "2026-11-30T00:00:00Z".into(),
                pactum_version: env!("CARGO_PKG_VERSION").into(),
                cache_mode: pactum_store::CacheMode::Use,
            })?;
            for k in 0..n {
                store.record_trial(&TrialRecord {
                    run_id: run.clone(),
                    test_id: "t".into(),
                    trial_index: k,
                    contract: None,
                    result: TraceResult {
                        trace_id: format!("t#{}", k + 1),
                        source: None,
                        observability: trace.observability,
                        status: TestStatus::Pass,
                        summary: "held".into(),
                        contracts: vec![],
                        overall_score: None,
                        error: None,
                    },
                    trace: Some(trace.clone()),
                    judge_answers: vec![],
                    started_at: "2026-11-30T00:00:00Z".into(),
                    finished_at: "2026-11-30T00:00:01Z".into(),
                    duration_ms: 1000,
                })?;
            }
        }
        let bytes = std::fs::metadata(&path)?.len();
        let time = |open: &dyn Fn() -> Result<Store, pactum_store::StoreError>| -> Result<f64, Box<dyn std::error::Error>> {
            let t = Instant::now();
            for _ in 0..50 {
                drop(open()?);
            }
            Ok(t.elapsed().as_secs_f64() * 1000.0 / 50.0)
        };
        let rw = time(&|| Store::open(&path))?;
        let ro = time(&|| Store::open_read_only(&path))?;
        println!(
            "{n:>7} trials, {:>8.1} MB: open {rw:.2} ms, open read-only {ro:.2} ms",
            bytes as f64 / 1e6
        );
        for suffix in ["", "-wal", "-shm"] {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(p));
        }
    }
    Ok(())
}
