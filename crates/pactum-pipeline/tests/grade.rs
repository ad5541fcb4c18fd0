//! The grade pipeline on several threads writes the reports it writes on
//! one, byte for byte, whatever the input.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::io::Write;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use pactum_core::{ObservabilityLevel, Policy};
use pactum_pipeline::grade::{grade, GradeOutcome, GradeRequest};
use pactum_report::{Fanout, ReportRequest};
use pactum_trace::{ImportOptions, Parallel};
use proptest::prelude::*;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled example's records (its first line is a summary record).
fn example_lines() -> Vec<String> {
    std::fs::read_to_string(root().join("examples/agentdojo/traces.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Grades `traces` with `parallel`; the JSON and JUnit reports' bytes and
/// the outcome.
fn run(traces: &[PathBuf], parallel: Parallel, out: &Path) -> (String, String, GradeOutcome) {
    let json = out.join(format!("r-{}-{}.json", parallel.jobs, parallel.batch_bytes));
    let junit = json.with_extension("xml");
    let req = GradeRequest {
        contracts: vec![root().join("examples/agentdojo/contracts")],
        traces: traces.to_vec(),
        import: ImportOptions {
            observability: Some(ObservabilityLevel::ToolCalls),
            ..ImportOptions::default()
        },
        policy: Policy::default(),
        expectations: Some(root().join("examples/agentdojo/expectations.yaml")),
        judge: None,
        store: None,
        parallel,
        announce_unreadable: false,
    };
    let mut fan = Fanout::open(
        &ReportRequest {
            json: Some(json.clone()),
            junit: Some(junit.clone()),
            terminal: None,
            ..ReportRequest::default()
        },
        &[],
        Box::new(|_| {}),
    )
    .unwrap();
    let outcome = grade(&req, &mut fan).unwrap();
    (
        std::fs::read_to_string(&json).unwrap(),
        std::fs::read_to_string(&junit).unwrap(),
        outcome,
    )
}

/// One line of a generated input: a real record, or something that is not.
fn line(records: usize) -> impl Strategy<Value = Line> {
    prop_oneof![
        6 => (0..records).prop_map(Line::Record),
        1 => Just(Line::Raw(r#"{"messages": [}"#.into())),
        1 => Just(Line::Raw("not json".into())),
        1 => Just(Line::Raw(r#"{"messages": "nope"}"#.into())),
        1 => Just(Line::Raw(r#"{"summary": true}"#.into())),
        1 => Just(Line::Raw(r#"{"messages": [], "messages": []}"#.into())),
        1 => Just(Line::Raw(String::new())),
        1 => Just(Line::Raw(" \t ".into())),
        1 => (1usize..300_000).prop_map(Line::Huge),
    ]
}

#[derive(Debug, Clone)]
enum Line {
    Record(usize),
    Raw(String),
    /// A record whose answer is this many bytes long.
    Huge(usize),
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn reports_of_many_threads_are_those_of_one(
        files in proptest::collection::vec(
            (proptest::collection::vec(line(24), 0..40), any::<bool>(), any::<bool>()),
            1..4,
        ),
        jobs in 2usize..5,
        batch_bytes in prop_oneof![Just(1usize), 1usize..20_000, Just(Parallel::BATCH_BYTES)],
    ) {
        let records = example_lines();
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (n, (lines, crlf, bom)) in files.iter().enumerate() {
            let path = dir.path().join(format!("t{n}.jsonl"));
            let mut f = std::fs::File::create(&path).unwrap();
            if *bom {
                f.write_all(b"\xEF\xBB\xBF").unwrap();
            }
            let end = if *crlf { "\r\n" } else { "\n" };
            for l in lines {
                let text = match l {
                    Line::Record(i) => records[i % records.len()].clone(),
                    Line::Raw(s) => s.clone(),
                    Line::Huge(n) => format!(
                        r#"{{"messages": [{{"role": "user", "content": "q"}}, {{"role": "assistant", "content": "{}"}}]}}"#,
                        "y".repeat(*n)
                    ),
                };
                write!(f, "{text}{end}").unwrap();
            }
            paths.push(path);
        }
        let one = run(&paths, Parallel::sequential(), dir.path());
        let many = run(
            &paths,
            Parallel { jobs: NonZeroUsize::new(jobs).unwrap(), batch_bytes },
            dir.path(),
        );
        prop_assert!(one.0 == many.0, "the JSON reports differ");
        prop_assert!(one.1 == many.1, "the JUnit reports differ");
        prop_assert_eq!(one.2, many.2);
    }
}
