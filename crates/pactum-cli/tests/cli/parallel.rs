//! `grade -j N`: every output is the one of `-j 1`, byte for byte, on a
//! multi-file input with broken records, skipped records, blank lines,
//! CRLF, a BOM, an empty file and an unreadable one.

use std::io::Write;
use std::path::Path;

use crate::support::*;

/// Writes the inputs into `dir`; returns their paths in grading order.
fn inputs(dir: &Path) -> Vec<String> {
    let example = std::fs::read_to_string(root().join(EX_TRACES)).expect("test setup");
    let lines: Vec<&str> = example.lines().collect();
    // Enough lines for many batches of 256 KiB.
    let mut big = std::fs::File::create(dir.join("big.jsonl")).expect("test setup");
    for round in 0..12 {
        for (i, l) in lines.iter().enumerate() {
            let end = if (round + i) % 3 == 0 { "\r\n" } else { "\n" };
            write!(big, "{l}{end}").expect("test setup");
            match (round * 7 + i) % 11 {
                0 => writeln!(big, "{{\"messages\": [}}").expect("test setup"),
                3 => writeln!(big, "\n   ").expect("test setup"),
                5 => writeln!(big, "not json").expect("test setup"),
                7 => writeln!(big, "{{\"messages\": \"nope\"}}").expect("test setup"),
                _ => {}
            }
        }
    }
    drop(big);
    let mut bom = std::fs::File::create(dir.join("bom.jsonl")).expect("test setup");
    bom.write_all(b"\xEF\xBB\xBF").expect("test setup");
    for l in lines.iter().rev() {
        writeln!(bom, "{l}").expect("test setup");
    }
    drop(bom);
    std::fs::write(dir.join("empty.jsonl"), "\n\n").expect("test setup");
    std::fs::write(dir.join("notes.txt"), "no traces here\n").expect("test setup");
    ["big.jsonl", "empty.jsonl", "bom.jsonl", "notes.txt"]
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect()
}

fn grade(dir: &Path, files: &[String], jobs: &str) -> (Run, String, String) {
    let json = dir.join(format!("report-{jobs}.json"));
    let junit = dir.join(format!("report-{jobs}.xml"));
    let mut args = vec![
        "grade".to_string(),
        "-c".into(),
        EX_CONTRACTS.into(),
        "--observability".into(),
        "tool_calls".into(),
        "--expect".into(),
        EX_EXPECT.into(),
        "--verbose".into(),
        "-j".into(),
        jobs.into(),
        "--json".into(),
        json.display().to_string(),
        "--junit".into(),
        junit.display().to_string(),
    ];
    args.extend(files.iter().cloned());
    let run = pactum(&args);
    (
        run,
        std::fs::read_to_string(&json).expect("test setup"),
        std::fs::read_to_string(&junit).expect("test setup"),
    )
}

#[test]
fn every_output_is_the_one_thread_output() {
    let dir = tempfile::tempdir().expect("test setup");
    let files = inputs(dir.path());
    let (one, json1, junit1) = grade(dir.path(), &files, "1");
    // Broken records and an empty file make the run partial.
    assert_code(&one, 5);
    let report = parse_report(&json1);
    let errors = report["input_errors"].as_array().expect("test setup");
    assert!(errors.len() > 40, "{}", errors.len());
    // Input errors come in input order: by file, then by line.
    let order: Vec<(usize, u64)> = errors
        .iter()
        .map(|e| {
            let f = e["file"].as_str().expect("test setup");
            (
                files.iter().position(|x| x == f).expect("test setup"),
                e["line"].as_u64().expect("test setup"),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(order, sorted);
    assert!(report["results"].as_array().expect("test setup").len() > 250);
    for jobs in ["2", "4"] {
        let (many, json, junit) = grade(dir.path(), &files, jobs);
        assert_eq!(many.code, one.code, "-j {jobs}");
        assert_eq!(many.stdout, one.stdout, "-j {jobs}: terminal summary");
        assert_eq!(many.stderr, one.stderr, "-j {jobs}: stderr");
        assert!(json == json1, "-j {jobs}: the JSON report differs");
        assert!(junit == junit1, "-j {jobs}: the JUnit report differs");
    }
}

/// A bad `-j` is a usage error.
#[test]
fn zero_jobs_is_refused() {
    let run = pactum(["grade", "-c", EX_CONTRACTS, "-j", "0", EX_TRACES]);
    assert_code(&run, 2);
    // An absurd count is refused, never allocated.
    for n in ["257", "18446744073709551615", "-1", "two"] {
        let run = pactum(["grade", "-c", EX_CONTRACTS, "-j", n, EX_TRACES]);
        assert_code(&run, 2);
    }
    let run = pactum([
        "grade",
        "-c",
        EX_CONTRACTS,
        "--observability",
        "tool_calls",
        "-j",
        "256",
        EX_TRACES,
    ]);
    assert_code(&run, 1);
}
