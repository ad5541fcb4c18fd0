//! Error reports a run holds are found wherever they are and however they
//! are written: past a blank or invisible opening, as a traceback, a
//! panic or a log line, under any name outside the workspace, and in a
//! hidden file. Scratch files that only mention an error are read as
//! before.

use pactum_core::Verdict;
use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

/// A run of `svc` whose `out` holds one item, with `rel` holding `bytes`.
fn run_holding(rel: &str, bytes: &[u8]) -> tempfile::TempDir {
    let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
    let p = d.path().join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(&p, bytes).expect("write");
    d
}

/// The run with `rel` holding `bytes` is refused (`invalid-run`) naming
/// that file, or, read, has no clause satisfied.
fn never_passed_over(rel: &str, bytes: &[u8]) {
    let d = run_holding(rel, bytes);
    match import_run(d.path()) {
        Err(e @ ImportError::RunFile { .. }) => {
            assert_eq!(e.code(), "invalid-run");
            let ImportError::RunFile { file, .. } = &e else {
                unreachable!()
            };
            let base = rel.rsplit('/').next().unwrap_or(rel);
            assert!(file.ends_with(base), "{rel:?}: {file}");
        }
        Err(e) => panic!("{rel:?}: {e:?}"),
        Ok(_) => {
            let g = grade_dir(d.path());
            assert!(
                by_text(&g).iter().all(|(_, v)| *v != Verdict::Satisfied),
                "{rel:?} {:?}: {g:#?}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
            );
        }
    }
}

/// The run with `rel` holding `text` is read and its clause satisfied.
fn still_fine(rel: &str, bytes: &[u8]) {
    let d = run_holding(rel, bytes);
    let run = import_run(d.path());
    assert!(run.is_ok(), "{rel:?}: {:?}", run.err());
    let g = grade_dir(d.path());
    assert!(
        by_text(&g).iter().all(|(_, v)| *v == Verdict::Satisfied),
        "{rel:?}: {g:#?}"
    );
}

/// The line `line` of the refusal of the run with `rel` holding `text`.
fn refused_at(rel: &str, text: &str) -> usize {
    let d = run_holding(rel, text.as_bytes());
    match import_run(d.path()) {
        Err(ImportError::RunFile { file, line, .. }) => {
            assert!(
                file.ends_with(rel.rsplit('/').next().unwrap_or(rel)),
                "{file}"
            );
            line
        }
        other => panic!("{rel:?}: {:?}", other.map(|r| r.id)),
    }
}

/// An error heading after 64 KiB of blank lines, invisible characters or
/// a comment is still the file's opening: it is read there.
#[test]
fn an_error_opening_past_a_blank_or_hidden_first_64_kib_is_read() {
    let blank = format!("{}# Error: crashed", "\n".repeat(70_000));
    let invisible = format!("{}# Error: crashed", "\u{200b}\n".repeat(30_000));
    let comment = format!("<!-- {} -->\n# Error: crashed", "x".repeat(70_000));
    let spaces = format!("{}\nError: crashed\n", " ".repeat(70_000));
    for body in [&blank, &invisible, &comment, &spaces] {
        never_passed_over("workspace/svc/status.md", body.as_bytes());
    }
    assert_eq!(refused_at("workspace/svc/status.md", &blank), 70_001);
    assert_eq!(refused_at("workspace/svc/status.md", &comment), 2);
    // A later error heading, past a long opening of notes, and an error
    // line below a title.
    let notes = format!(
        "# Notes\n\n{}\n# Error: crashed\n",
        "Working...\n".repeat(7000)
    );
    never_passed_over("workspace/svc/notes.md", notes.as_bytes());
    never_passed_over(
        "workspace/svc/notes.md",
        b"Run notes\n\nError: search tool crashed\n",
    );
    // More than the most read of one file, showing no text: not looked at.
    let huge = vec![b'\n'; 9 * 1024 * 1024];
    never_passed_over("workspace/svc/status.md", &huge);
}

/// A file opening as any reader's error report — a traceback, a fatal
/// line, a panic, an exception, a failure heading, a coloured or
/// timestamped log line — is refused whatever it is called.
#[test]
fn an_error_report_in_other_words_is_never_passed_over() {
    for body in [
        "Traceback (most recent call last):\n  File \"search.py\", line 12, in run\nRuntimeError: search tool crashed\n",
        "FATAL: search tool crashed",
        "Fatal: search tool crashed",
        "fatal: not a git repository",
        "panic: runtime error: index out of range",
        "thread 'main' panicked at src/main.rs:2:5:\nindex out of bounds\n",
        "Exception: search tool crashed",
        "RuntimeError: search tool crashed",
        "java.lang.NullPointerException: x is null",
        "TimeoutException: search tool timed out",
        "# Failure: crashed\n\nThe search tool crashed.\n",
        "Failed: search tool crashed",
        "FAILED: 3 tests",
        "\u{1b}[31mERROR\u{1b}[0m search tool crashed",
        "\u{1b}[1;31merror\u{1b}[0m: search tool crashed",
        "2026-12-01T10:15:31Z error search tool crashed",
        "2026-12-01 10:15:31,123 ERROR search tool crashed",
        "[2026-12-01 10:15:31] fatal search tool crashed",
        "10:15:31 ERROR search tool crashed",
        "[2026-12-01 10:15:31] ERROR: search tool crashed",
        "# Error: crashed\n",
    ] {
        for name in ["status.md", "status.log", "run.txt"] {
            never_passed_over(&format!("workspace/svc/{name}"), body.as_bytes());
        }
    }
}

/// A compressed file cannot be read for an error report: it is refused,
/// never passed over. An image is no report and is read past, as before.
#[test]
fn a_compressed_workspace_file_is_refused() {
    let gzip = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x73, 0x2d, 0x2a, 0xca, 0x2f,
        0x02, 0x00,
    ];
    never_passed_over("workspace/svc/status.log.gz", &gzip);
    never_passed_over("workspace/svc/report", &gzip);
    never_passed_over("workspace/svc/logs.zip", b"PK\x03\x04\x14\x00\x00\x00");
    still_fine(
        "workspace/svc/chart.png",
        &[0x89, b'P', b'N', b'G', 0xff, 0xfe, 0, 1],
    );
}

/// An error report outside the workspace, under any name, is refused
/// naming it: at the run's root, beside the outputs, in a folder of its
/// own, or hidden in the workspace.
#[test]
fn an_error_report_outside_the_workspace_is_never_passed_over() {
    for (rel, body) in [
        ("error.md", "# Error: crashed\n"),
        ("status.md", "# Error: crashed\n"),
        ("notes.txt", "Error: crashed\n"),
        ("bindings/svc/status.md", "# Error: crashed\n"),
        ("bindings/svc/error.md", "# Error: crashed\n"),
        ("bindings/svc/notes.md", "FATAL: search tool crashed\n"),
        ("logs/svc.log", "Error: crashed\n"),
        (
            "logs/svc.log",
            "INFO started\nINFO searching\nERROR search tool crashed\n",
        ),
        (
            "failure.log",
            "step 1\nstep 2\nsearch tool crashed: Error: timeout\n",
        ),
        ("errors.txt", "run 1\n\nError: crashed\n"),
        (
            "out/status.md",
            "Traceback (most recent call last):\n  File \"x.py\"\n",
        ),
        ("workspace/svc/.__error.md", "# Error: crashed\n"),
        ("workspace/svc/.status.md", "# Error: crashed\n"),
        ("bindings/svc/.__error.md", "# Error: crashed\n"),
        (".__error.md", "# Error: crashed\n"),
        (".status", "Error: crashed\n"),
        ("workspace/svc/._status.md", "# Error: crashed\n"),
    ] {
        never_passed_over(rel, body.as_bytes());
    }
    // Padded past 64 KiB outside the workspace too.
    let padded = format!("{}# Error: crashed", "\n".repeat(70_000));
    never_passed_over("status.md", padded.as_bytes());
    never_passed_over("bindings/svc/.__error.md", padded.as_bytes());
}

/// A file whose name reads like an error or status report is refused for
/// an error line anywhere in it, not only its opening.
#[test]
fn a_file_named_like_a_report_is_read_whole() {
    for name in [
        "status.md",
        "errors.txt",
        "failure.log",
        "stderr.txt",
        "crash.txt",
        "logs/svc.log",
    ] {
        let body = "Run of the search service\n\nstarted\n\nError: search tool crashed\n";
        assert_eq!(
            refused_at(&format!("workspace/svc/{name}"), body),
            5,
            "{name}"
        );
        never_passed_over(name, body.as_bytes());
    }
}

/// Scratch files that only mention errors, JSON scratch, OS metadata and
/// a notes file at the run's root are read as before.
#[test]
fn scratch_files_that_mention_errors_are_still_fine() {
    for rel in [
        "workspace/svc/notes.md",
        "workspace/svc/.notes.md",
        "notes.md",
        "bindings/svc/notes.md",
        "scratch/notes.md",
    ] {
        still_fine(
            rel,
            b"# Notes\n\nThe error handling was retried once, and no error came back.\n",
        );
    }
    still_fine(
        "bindings/svc/status.json",
        br#"{"status": "done", "errors": 0}"#,
    );
    for rel in ["workspace/svc/search.json", "cache/search.json"] {
        still_fine(
            rel,
            br#"{"query": "solid-state batteries", "results": [], "error": null}"#,
        );
    }
    still_fine("workspace/svc/status.md", b"Progress: done\nErrors: none\n");
    still_fine(
        "workspace/svc/plan.md",
        b"Critical analysis: prices\n\nFailed attempts were retried.\n\n**Failure:** none\n",
    );
    still_fine(
        "workspace/svc/search.py",
        b"try:\n    run()\nexcept Exception as e:\n    print(e)\n",
    );
    still_fine("workspace/svc/blank.md", b"\n\n\n");
    still_fine("workspace/svc/empty.md", b"");
    still_fine(
        "workspace/svc/code.md",
        b"# Plan\n\n```\nError: a tool's output, quoted\n```\n",
    );
    for rel in [
        "workspace/svc/.DS_Store",
        ".DS_Store",
        "bindings/svc/.DS_Store",
        "bindings/svc/.gitkeep",
        "workspace/svc/.keep",
        "Thumbs.db",
    ] {
        still_fine(rel, b"\x00\x00\x00\x01Bud1 Error: x\n");
    }
    // An AppleDouble file beside the file it describes.
    still_fine(
        "workspace/svc/._status.md",
        b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X Error: x\n",
    );
    still_fine("workspace/svc/.gitkeep", b"");
}

/// In a system, too: an error report beside a node's outputs, at the
/// run's root or hidden in a node's workspace is refused naming it; the
/// example itself is read as before.
#[test]
fn a_system_holding_an_error_report_outside_the_workspace_is_refused() {
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
    let fresh = || {
        let d = tempfile::tempdir().expect("tempdir");
        copy_dir(&example, d.path());
        d
    };
    assert!(import_run(fresh().path()).is_ok());
    for rel in [
        "bindings/analyst/status.md",
        "error.md",
        "logs/analyst.log",
        "workspace/analyst/.__error.md",
    ] {
        let d = fresh();
        write(d.path(), rel, "# Error: crashed\n");
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, line, .. }) => {
                assert!(
                    file.ends_with(rel.rsplit('/').next().unwrap_or(rel)),
                    "{file}"
                );
                assert_eq!(line, 1, "{rel}");
            }
            other => panic!("{rel}: {:?}", other.map(|r| r.id)),
        }
    }
}

/// An error report written as UTF-16, with or without a byte-order mark,
/// is read as the letters it shows.
#[test]
fn an_error_report_in_utf16_is_never_passed_over() {
    let utf16 = |bom: bool| {
        let mut b: Vec<u8> = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        b.extend(
            "FATAL: search tool crashed\r\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        );
        b
    };
    never_passed_over("workspace/svc/status.txt", &utf16(true));
    never_passed_over("workspace/svc/status.txt", &utf16(false));
    never_passed_over("status.txt", &utf16(true));
}
