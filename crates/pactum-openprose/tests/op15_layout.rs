//! Layouts a run is refused for rather than passed over: a complete run
//! nested outside `imports/` (or under `imports/` in another case, read
//! as it), and a log whose end line's time is a placeholder or no time at
//! all.

use pactum_core::TestStatus;
use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

/// A passing run of `svc` (`out` holds one item).
fn passing() -> tempfile::TempDir {
    run_root(&root("## Ensures\n\n- `out`: at least 2 items"))
}

/// A complete run of `sub` that failed, written at `at` inside `dir`.
fn nested_failed_run(dir: &std::path::Path, at: &str) {
    write(
        dir,
        &format!("{at}/root.prose.md"),
        "---\nname: sub\nkind: service\n---\n## Ensures\n\n- `res`: at least 3 items\n",
    );
    write(dir, &format!("{at}/bindings/sub/res.md"), "- a\n");
    write(
        dir,
        &format!("{at}/vm.log.md"),
        "# run:r2 sub\nroot: root.prose.md\n1→ sub ✗ crashed\n---error 2026-12-01T10:15:31Z boom\n",
    );
}

/// The refusal of the run at `dir`: `invalid-run`, its file and message.
fn refusal(dir: &std::path::Path) -> (String, String) {
    match import_run(dir) {
        Err(e @ ImportError::RunFile { .. }) => {
            assert_eq!(e.code(), "invalid-run");
            let ImportError::RunFile { file, message, .. } = e else {
                unreachable!()
            };
            (file, message)
        }
        Err(e) => panic!("{}: {e:?}", dir.display()),
        Ok(r) => panic!("{}: read: {:?}", dir.display(), r.contracts),
    }
}

#[test]
fn a_nested_run_under_imports_in_another_case_is_read() {
    for folder in ["Imports", "IMPORTS", "iMpOrTs"] {
        let d = passing();
        nested_failed_run(d.path(), &format!("{folder}/h--sub"));
        let run = import_run(d.path()).unwrap_or_else(|e| panic!("{folder}: {e:?}"));
        assert!(
            run.contracts.iter().any(|c| c.name == "h--sub/sub"),
            "{folder}: {:?}",
            run.contracts.iter().map(|c| &c.name).collect::<Vec<_>>()
        );
        let g = grade_dir(d.path());
        assert_ne!(g.status, TestStatus::Pass, "{folder}: {g:#?}");
    }
}

#[test]
fn two_imports_folders_in_different_cases_are_refused() {
    let d = passing();
    nested_failed_run(d.path(), "imports/h--sub");
    nested_failed_run(d.path(), "Imports/g--sub");
    // A file system that tells the two apart holds both; one that does
    // not wrote both into one folder, read whole.
    if d.path().join("imports/g--sub").is_dir() {
        let _ = import_run(d.path()).map(|r| {
            assert!(r.contracts.iter().any(|c| c.name == "g--sub/sub"));
        });
        return;
    }
    let (file, message) = refusal(d.path());
    assert!(file.contains("mports"), "{file}");
    assert!(message.contains("imports"), "{message}");
}

#[test]
fn a_whole_run_in_a_folder_pactum_does_not_read_is_refused() {
    for at in [
        "import/h--sub",
        "imports.old/h--sub",
        "runs/h--sub",
        "runs",
        "old/2026-12-01/run",
        "workspace/svc/run",
        "sources/run",
        "imports/h--sub/runs/x",
    ] {
        let d = passing();
        if at.starts_with("imports/") {
            // Inside a nested run that is read.
            nested_failed_run(d.path(), "imports/h--sub");
        }
        nested_failed_run(d.path(), at);
        let (file, message) = refusal(d.path());
        let named = at.rsplit('/').next().unwrap_or(at);
        assert!(file.ends_with(named), "{at}: {file}: {message}");
        assert!(message.contains("run"), "{at}: {message}");
    }
    // One marker file is enough, in any case of its name.
    for marker in [
        "root.prose.md",
        "vm.log.md",
        "forme.manifest.json",
        "compiled-intent.json",
        "VM.LOG.md",
        "Root.Prose.md",
    ] {
        let d = passing();
        write(d.path(), &format!("archive/{marker}"), "x\n");
        let (file, message) = refusal(d.path());
        assert!(file.ends_with("archive"), "{marker}: {file}: {message}");
    }
}

#[test]
fn folders_without_a_run_and_nested_runs_under_imports_are_still_read() {
    let d = passing();
    write(d.path(), "notes/readme.md", "Scratch notes.\n");
    write(d.path(), "workspace/svc/draft.md", "A draft.\n");
    let g = grade_dir(d.path());
    assert_eq!(g.status, TestStatus::Pass, "{g:#?}");
    let d = passing();
    nested_failed_run(d.path(), "imports/h--sub");
    let g = grade_dir(d.path());
    assert!(g.contracts.iter().any(|c| c.name == "h--sub/sub"));
    assert_ne!(g.status, TestStatus::Pass);
}

/// The run with its log ending `end` instead of a clean `---end` line.
fn ending(end: &str) -> tempfile::TempDir {
    let d = passing();
    write(
        d.path(),
        "vm.log.md",
        &format!("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n{end}\n"),
    );
    d
}

#[test]
fn an_end_line_whose_time_is_a_placeholder_or_impossible_is_refused() {
    for time in [
        "0000-00-00T00:00:00Z",
        "2026-00-00T00:00:00Z",
        "2026-00-01T00:00:00Z",
        "2026-01-00T00:00:00Z",
        "2026-13-45T99:99:99Z",
        "2026-02-30T10:00:00Z",
        "2025-02-29T10:00:00Z",
        "2026-12-01T25:61:61Z",
        "2026-12-01T24:00:00Z",
        "2026-12-01T10:60:00Z",
        "2026-12-01T10:15:31",
        "2026-12-01T10:15Z",
        "2026-12-01Tnow",
        "2026-12-01T10:15:31+25:00",
        "1970-01-01T00:00:00Z",
    ] {
        for end in [format!("---end {time}"), format!("---error {time} boom")] {
            let d = ending(&end);
            let (file, message) = refusal(d.path());
            assert!(file.ends_with("vm.log.md"), "{end}: {file}");
            assert!(message.contains("time"), "{end}: {message}");
        }
    }
}

#[test]
fn an_end_line_with_a_real_time_is_read() {
    for time in [
        "2026-12-01T10:15:31Z",
        "2024-02-29T23:59:59Z",
        "2026-12-01T10:15:31.250Z",
        "2026-12-01T10:15:31+01:00",
        "2026-12-01T10:15:31-05:30",
    ] {
        let d = ending(&format!("---end {time}"));
        let g = grade_dir(d.path());
        assert_eq!(g.status, TestStatus::Pass, "{time}: {g:#?}");
        let d = ending(&format!("---error {time} boom"));
        let run = import_run(d.path()).unwrap_or_else(|e| panic!("{time}: {e:?}"));
        assert!(run.errors.iter().any(|e| e.ends_run), "{time}");
    }
}
