//! OpenTelemetry import (OTLP JSON, Jaeger JSON; GenAI conventions current
//! and old, OpenInference): fixtures under `fixtures/otel/`, and the real
//! exports of `$PACTUM_DATA_DIR/traces/` compared with the independent
//! count of `bench/trace-counts.py`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::trace::{ObservabilityLevel, Trace};
use pactum_trace::{read_traces, ImportError, ImportOptions, Item, TraceFormat};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/otel").join(name)
}

/// Traces, and the other items as text.
fn import(path: &Path, opts: &ImportOptions) -> Result<(Vec<Trace>, Vec<String>), ImportError> {
    let mut traces = Vec::new();
    let mut other = Vec::new();
    read_traces(path, opts, &mut |item| {
        match item {
            Item::Trace(t) => traces.push(t),
            Item::Skipped { line, reason } => other.push(format!("skipped {line}: {reason}")),
            Item::Error(e) => other.push(format!("error: {e}")),
        }
        ControlFlow::Continue(())
    })?;
    Ok((traces, other))
}

fn auto(name: &str) -> (Vec<Trace>, Vec<String>) {
    import(&fixture(name), &ImportOptions::default()).unwrap()
}

/// `traces turns calls errored_calls record_errors`, as the script prints.
fn counts(traces: &[Trace], other: &[String]) -> String {
    let turns: usize = traces.iter().map(|t| t.turns.len()).sum();
    let calls: usize = traces.iter().map(|t| t.tool_calls().count()).sum();
    let errored: usize = traces
        .iter()
        .map(|t| t.tool_calls().filter(|(_, c)| c.error.is_some()).count())
        .sum();
    let errors = other.iter().filter(|o| o.starts_with("error")).count();
    format!("traces={} turns={turns} tool_calls={calls} errored_calls={errored} record_errors={errors}", traces.len())
}

#[test]
fn real_data_otel_dump() {
    let Ok(dir) = std::env::var("PACTUM_DATA_DIR") else {
        panic!("PACTUM_DATA_DIR is not set: the real-data check needs ../shared/data (run .ci/real-data)");
    };
    for sub in ["otlp-json", "jaeger-json", "openinference"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(&dir).join("traces").join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            match import(&f, &ImportOptions::default()) {
                Ok((t, o)) => {
                    println!("{sub}/{}: {}", f.file_name().unwrap().to_string_lossy(), counts(&t, &o));
                    for x in &o { println!("   {x}"); }
                    for tr in &t { println!("   {}", serde_json::to_string(tr).unwrap().chars().take(3000).collect::<String>()); }
                }
                Err(e) => println!("{sub}/{}: refused: {e}", f.file_name().unwrap().to_string_lossy()),
            }
        }
    }
    let _ = (TraceFormat::Otlp, ObservabilityLevel::Full, auto as fn(&str) -> _);
}
