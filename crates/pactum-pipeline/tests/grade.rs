//! The grade pipeline on several threads writes the reports it writes on
//! one, byte for byte, whatever the input.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::io::Write;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use pactum_core::secret::Redactor;
use pactum_core::{ObservabilityLevel, Policy, TestStatus, TraceResult};
use pactum_pipeline::grade::{grade, GradeOutcome, GradeRequest};
use pactum_pipeline::{Message, Sink};
use pactum_report::{Fanout, InputError, MissingTrial, Prerender, ReportRequest, RunEnd, RunInfo};
use pactum_suite::Diagnostic;
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

/// A sink over a [`Fanout`] that renders nothing ahead: every reporter
/// renders each result itself, as before fragments were rendered on the
/// grading threads.
struct Whole(Fanout);

impl Sink for Whole {
    fn begin(&mut self, info: &RunInfo) {
        Sink::begin(&mut self.0, info);
    }
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) {
        Sink::result(&mut self.0, r, expected);
    }
    fn input_error(&mut self, e: &InputError) {
        Sink::input_error(&mut self.0, e);
    }
    fn missing_trial(&mut self, m: &MissingTrial) {
        Sink::missing_trial(&mut self.0, m);
    }
    fn finish(&mut self, end: &RunEnd) {
        Sink::finish(&mut self.0, end);
    }
    fn redact_with(&mut self, redactor: &Redactor) {
        Sink::redact_with(&mut self.0, redactor);
    }
    fn report_failed(&self) -> bool {
        Sink::report_failed(&self.0)
    }
    fn diagnostics(&mut self, diags: &[Diagnostic]) {
        Sink::diagnostics(&mut self.0, diags);
    }
    fn message(&mut self, m: Message) {
        Sink::message(&mut self.0, m);
    }
}

/// Grades `traces` with `parallel`; the JSON and JUnit reports' bytes and
/// the outcome.
fn run(traces: &[PathBuf], parallel: Parallel, out: &Path) -> (String, String, GradeOutcome) {
    run_with(traces, parallel, out, true)
}

/// [`run`], with report fragments rendered on the grading threads
/// (`ahead`) or by the reporters themselves.
fn run_with(
    traces: &[PathBuf],
    parallel: Parallel,
    out: &Path,
    ahead: bool,
) -> (String, String, GradeOutcome) {
    let json = out.join(format!(
        "r-{}-{}-{ahead}.json",
        parallel.jobs, parallel.batch_bytes
    ));
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
        stop: None,
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
    assert_eq!(
        fan.prerender(),
        Prerender {
            json: true,
            junit: true
        }
    );
    let outcome = if ahead {
        grade(&req, &mut fan).unwrap()
    } else {
        let mut whole = Whole(fan);
        assert_eq!(whole.prerender(), Prerender::default());
        grade(&req, &mut whole).unwrap()
    };
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
        // Every report as the reporters render it themselves, on one thread.
        let whole = run_with(&paths, Parallel::sequential(), dir.path(), false);
        prop_assert!(one.0 == whole.0, "fragments rendered ahead changed the JSON report");
        prop_assert!(one.1 == whole.1, "fragments rendered ahead changed the JUnit report");
        prop_assert_eq!(&one.2, &whole.2);
        prop_assert!(one.0 == many.0, "the JSON reports differ");
        prop_assert!(one.1 == many.1, "the JUnit reports differ");
        prop_assert_eq!(one.2, many.2);
    }
}
