//! Imports one trace file and prints what it held, with the wall time:
//! `cargo run --release -p pactum-trace --example count_traces -- FILE [FORMAT] [LEVEL] [MESSAGES_FIELD]`
//! (FORMAT: auto, pactum, openai, otlp, jaeger, langfuse-otel; LEVEL: response_only, tool_calls, full).
//! Used to measure import throughput and peak memory on large files.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Instant;

use pactum_core::trace::ObservabilityLevel;
use pactum_trace::{read_traces, ImportOptions, Item, TraceFormat};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first().map(PathBuf::from) else {
        eprintln!("usage: count_traces FILE [auto|pactum|openai|otlp|jaeger|langfuse-otel] [LEVEL] [MESSAGES_FIELD]");
        return std::process::ExitCode::from(2);
    };
    let format = match args.get(1).map(String::as_str) {
        Some("pactum") => TraceFormat::Pactum,
        Some("openai") => TraceFormat::Openai,
        Some("otlp") => TraceFormat::Otlp,
        Some("jaeger") => TraceFormat::Jaeger,
        Some("langfuse-otel") => TraceFormat::LangfuseOtel,
        _ => TraceFormat::Auto,
    };
    let opts = ImportOptions {
        format,
        observability: args.get(2).and_then(|l| ObservabilityLevel::parse(l)),
        messages_pointer: args.get(3).cloned(),
        ..ImportOptions::default()
    };
    let start = Instant::now();
    let mut turns = 0u64;
    let result = read_traces(&path, &opts, &mut |item| {
        if let Item::Trace(t) = item {
            turns += t.turns.len() as u64;
        }
        ControlFlow::Continue(())
    });
    let secs = start.elapsed().as_secs_f64();
    match result {
        Ok(stats) => {
            let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            println!(
                "{} traces, {} skipped, {} errors, {turns} turns in {secs:.2} s: {:.0} traces/s, {:.0} MB/s",
                stats.traces,
                stats.skipped,
                stats.errors,
                stats.traces as f64 / secs,
                bytes as f64 / 1e6 / secs
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
