//! JSONL read on several threads gives what the sequential reader gives:
//! the same items in the same order (ids, lines, messages), the same
//! counts, the same file-level error.

use std::io::Write;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::path::Path;

use pactum_trace::{read_traces, read_traces_with, ImportOptions, Item, Parallel, ReadStats};
use proptest::prelude::*;

type Read = (Vec<Item>, Result<ReadStats, String>);

fn sequential(path: &Path, opts: &ImportOptions) -> Read {
    let mut items = Vec::new();
    let r = read_traces(path, opts, &mut |i| {
        items.push(i);
        ControlFlow::Continue(())
    });
    (items, r.map_err(|e| e.to_string()))
}

fn parallel(path: &Path, opts: &ImportOptions, jobs: usize, batch_bytes: usize) -> Read {
    let mut items = Vec::new();
    let par = Parallel {
        jobs: NonZeroUsize::new(jobs).unwrap(),
        batch_bytes,
    };
    let r = read_traces_with(path, opts, par, &|t| t, &mut |i| {
        items.push(i);
        ControlFlow::Continue(())
    });
    (items, r.map_err(|e| e.to_string()))
}

/// One line of a generated JSONL file (without its line ending).
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u32..1000, any::<bool>()).prop_map(|(n, id)| {
            let id = if id { format!(r#""id": "t{n}", "#) } else { String::new() };
            format!(
                r#"{{{id}"messages": [{{"role": "user", "content": "q{n}"}}, {{"role": "assistant", "content": "answer {n}", "tool_calls": [{{"id": "c", "type": "function", "function": {{"name": "f", "arguments": "{{}}"}}}}]}}]}}"#
            )
        }),
        1 => Just(r#"{"messages": [{"role": "user", "content": "q"}], "observability": "full"}"#.to_string()),
        1 => Just(r#"{"summary": "holds no trace"}"#.to_string()),
        1 => Just(r#"{"messages": "not an array"}"#.to_string()),
        1 => Just(r#"{"messages": [}"#.to_string()),
        1 => Just("not json at all".to_string()),
        1 => Just(r#"{"messages": [], "messages": []}"#.to_string()),
        1 => Just(r#"{"messages": [], "observability": "sideways"}"#.to_string()),
        1 => Just(String::new()),
        1 => Just("   \t ".to_string()),
        1 => (1usize..40_000).prop_map(|n| format!(
            r#"{{"messages": [{{"role": "user", "content": "{}"}}, {{"role": "assistant", "content": "ok"}}]}}"#,
            "x".repeat(n)
        )),
    ]
}

fn write(lines: &[String], crlf: bool, bom: bool, final_newline: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut f = std::fs::File::create(dir.path().join("in.jsonl")).unwrap();
    if bom {
        f.write_all(b"\xEF\xBB\xBF").unwrap();
    }
    let end = if crlf { "\r\n" } else { "\n" };
    for (i, l) in lines.iter().enumerate() {
        f.write_all(l.as_bytes()).unwrap();
        if final_newline || i + 1 < lines.len() {
            f.write_all(end.as_bytes()).unwrap();
        }
    }
    dir
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn parallel_reads_as_sequential(
        lines in proptest::collection::vec(line(), 0..60),
        crlf in any::<bool>(),
        bom in any::<bool>(),
        final_newline in any::<bool>(),
        level in any::<bool>(),
        jobs in 2usize..5,
        batch_bytes in prop_oneof![Just(1usize), 1usize..4096, Just(Parallel::BATCH_BYTES)],
    ) {
        let dir = write(&lines, crlf, bom, final_newline);
        let path = dir.path().join("in.jsonl");
        let opts = ImportOptions {
            observability: level.then_some(pactum_core::ObservabilityLevel::ToolCalls),
            ..ImportOptions::default()
        };
        let want = sequential(&path, &opts);
        let got = parallel(&path, &opts, jobs, batch_bytes);
        prop_assert_eq!(got, want);
    }
}

/// A line longer than the importers hold is one error at its own line,
/// and the records around it keep their line numbers.
#[test]
fn an_overlong_line_costs_only_itself() {
    let ok = r#"{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}"#;
    let huge = format!(
        r#"{{"messages": [{{"role": "user", "content": "{}"}}]}}"#,
        "x".repeat(pactum_trace::MAX_RECORD_BYTES)
    );
    let lines = vec![ok.to_string(), huge, String::new(), ok.to_string()];
    let dir = write(&lines, false, false, true);
    let path = dir.path().join("in.jsonl");
    let opts = ImportOptions {
        observability: Some(pactum_core::ObservabilityLevel::ToolCalls),
        ..ImportOptions::default()
    };
    let want = sequential(&path, &opts);
    assert_eq!(want.0.len(), 3, "{:?}", want.1);
    assert!(
        matches!(&want.0[1], Item::Error(e) if e.line == 2),
        "{:?}",
        want.0[1]
    );
    assert_eq!(parallel(&path, &opts, 3, 1), want);
    assert_eq!(parallel(&path, &opts, 2, Parallel::BATCH_BYTES), want);
}

/// A sink that stops early stops the parallel reader too, after the same
/// item.
#[test]
fn a_break_stops_at_the_same_item() {
    let ok = r#"{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}"#;
    let lines: Vec<String> = (0..500).map(|_| ok.to_string()).collect();
    let dir = write(&lines, false, false, true);
    let path = dir.path().join("in.jsonl");
    let opts = ImportOptions {
        observability: Some(pactum_core::ObservabilityLevel::ToolCalls),
        ..ImportOptions::default()
    };
    let mut seen = 0;
    let par = Parallel {
        jobs: NonZeroUsize::new(3).unwrap(),
        batch_bytes: 64,
    };
    let stats = read_traces_with(&path, &opts, par, &|t| t.id, &mut |i| {
        seen += 1;
        assert!(matches!(i, Item::Trace(id) if id == format!("in.jsonl:{seen}")));
        if seen == 100 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert_eq!((seen, stats.traces), (100, 100));
}
