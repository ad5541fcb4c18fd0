//! A run's records must leave one reading: an error report under any file
//! name, a snapshot of the service under any name, and a caller return
//! listed twice are refused or read, never passed over.

use pactum_core::Verdict;
use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

/// A workspace file that opens with an error heading is an error report
/// whatever it is called: read as the service's error or refused naming
/// it, never passed over. Notes that merely mention an error are read as
/// before.
#[test]
fn a_workspace_file_opening_with_an_error_is_never_passed_over() {
    for name in [
        "__err.md",
        "__e.r.r.o.r.md",
        "er-ror.md",
        "__e_r_r_o_r.md",
        "__crash.md",
        "__failed.md",
        "__exception.md",
        "Fehler.md",
        "status.md",
        "stderr.txt",
        "notes/status",
    ] {
        for body in [
            "# Error: crashed\n\nThe service crashed.\n",
            "\n\nError: crashed\n",
            "**Error:** crashed\n",
        ] {
            workspace_file_never_passed_over(name, body);
        }
    }
    // Notes that open otherwise, and binary scratch files, are no error.
    for (name, body) in [
        ("notes.md", "# Notes\n\nError handling was retried once.\n"),
        ("plan.md", "Searched three sources.\n"),
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(d.path(), &format!("workspace/svc/{name}"), body);
        let g = grade_dir(d.path());
        assert!(
            by_text(&g).iter().all(|(_, v)| *v == Verdict::Satisfied),
            "{name}: {g:#?}"
        );
    }
    let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
    let p = d.path().join("workspace/svc/chart.png");
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(&p, [0x89u8, b'P', b'N', b'G', 0xff, 0xfe, 0, 1]).expect("write");
    assert!(import_run(d.path()).is_ok());
}

/// The same for a file right under `workspace/`, which names no service:
/// refused, whatever it is called.
#[test]
fn a_file_right_under_the_workspace_opening_with_an_error_is_refused() {
    for name in ["__err.md", "status.md", "error (1).md"] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(
            d.path(),
            &format!("workspace/{name}"),
            "# Error: crashed\n\nThe service crashed.\n",
        );
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, .. }) => assert!(file.ends_with(name), "{file}"),
            other => panic!("{name}: {:?}", other.map(|r| r.id)),
        }
    }
}

fn satisfied_example() -> tempfile::TempDir {
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
    let d = tempfile::tempdir().expect("tempdir");
    copy_dir(&example, d.path());
    d
}

fn edit_manifest(d: &std::path::Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let manifest = d.join("forme.manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("manifest")).expect("json");
    edit(&mut m);
    std::fs::write(&manifest, m.to_string()).expect("write");
}

/// Two caller returns of one name (as output names compare) leave which
/// one the caller received untold: refused naming the second, in either
/// order, never graded over the first.
#[test]
fn two_caller_returns_of_one_name_are_refused() {
    for (first, second, name2) in [
        ("analyst", "researcher", "brief"),
        ("researcher", "analyst", "brief"),
        ("analyst", "researcher", "Brief"),
        ("analyst", "researcher", "brief.md"),
    ] {
        let d = satisfied_example();
        let source = std::fs::read_to_string(d.path().join("forme.manifest.json")).expect("m");
        let m: serde_json::Value = serde_json::from_str(&source).expect("json");
        let brief_node = m["caller"]["returns"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["name"] == "brief"))
            .map(|r| r["source"].as_str().unwrap_or_default().to_string())
            .expect("the example returns a brief");
        assert_eq!(brief_node, "analyst");
        edit_manifest(d.path(), |m| {
            let returns = m["caller"]["returns"].as_array_mut().expect("returns");
            returns.retain(|r| r["name"] != "brief");
            returns.push(serde_json::json!({"name": "brief", "source": first}));
            returns.push(serde_json::json!({"name": name2, "source": second}));
            let graph = m["graph"].as_array_mut().expect("graph");
            for n in graph.iter_mut() {
                if n["id"] == "researcher" {
                    n["outputs"]
                        .as_array_mut()
                        .expect("outputs")
                        .push(serde_json::json!({"name": "brief"}));
                }
            }
        });
        write(d.path(), "bindings/researcher/brief.md", "short\n");
        match import_run(d.path()) {
            Err(ImportError::Manifest { field, message, .. }) => {
                assert!(field.starts_with("caller.returns["), "{field}");
                assert!(field.ends_with("].name"), "{field}");
                assert!(message.contains("two caller returns"), "{message}");
            }
            other => panic!("{first}/{second}/{name2}: {:?}", other.map(|r| r.id)),
        }
    }
}

/// A single service's snapshot under any name a reader takes for it (any
/// case or extension, `root.prose.md`, another file whose frontmatter
/// names the service) must be its root; a file in `sources/` that is no
/// contract at all is refused; the snapshot of another contract is read
/// past.
#[test]
fn a_single_service_snapshot_under_another_name_must_be_its_root() {
    let body = "## Ensures\n\n- `out`: at least 2 items";
    let other = root("## Ensures\n\n- `out`: at least 5 items");
    for name in [
        "SVC.prose.md",
        "svc.prose.MD",
        "Svc.Prose.md",
        "root.prose.md",
        "svc.md",
        "other.prose.md",
        "svc",
    ] {
        let d = run_root(&root(body));
        write(d.path(), &format!("sources/{name}"), &other);
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, message, .. }) => {
                assert!(file.ends_with(name), "{file}");
                assert!(message.contains("differs from root.prose.md"), "{message}");
            }
            other => panic!("{name}: {:?}", other.map(|r| r.id)),
        }
        // The root's own text under that name is read.
        let d = run_root(&root(body));
        write(d.path(), &format!("sources/{name}"), &root(body));
        assert!(import_run(d.path()).is_ok(), "{name}");
    }
    // Not a contract: which contract it snapshots cannot be told.
    let d = run_root(&root(body));
    write(d.path(), "sources/notes.md", "- at least 5 items\n");
    assert!(
        matches!(import_run(d.path()), Err(ImportError::RunFile { .. })),
        "a file in sources/ that is no contract"
    );
    // Another contract's snapshot (a function the service used).
    let d = run_root(&root(body));
    write(
        d.path(),
        "sources/fetch.prose.md",
        "---\nname: fetch\nkind: function\n---\n\n## Returns\n\n- `page`: the page\n",
    );
    assert!(import_run(d.path()).is_ok());
}

/// A file beside an output's binding named like it and more
/// (`out.final.md`, `out (1).md`, `out_v2.md`) is another version of it:
/// refused, naming the file. An output of another name is read.
#[test]
fn another_version_of_an_output_beside_it_is_refused() {
    for name in [
        "out.final.md",
        "out.partial.md",
        "out (1).md",
        "out_v2.md",
        "out-final.md",
    ] {
        let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
        write(d.path(), &format!("bindings/svc/{name}"), "- a\n- b\n");
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, message, .. }) => {
                assert!(file.ends_with(name), "{file}");
                assert!(message.contains("another version"), "{message}");
            }
            other => panic!("{name}: {:?}", other.map(|r| r.id)),
        }
    }
    let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
    write(d.path(), "bindings/svc/outline.md", "- a\n");
    assert!(import_run(d.path()).is_ok());
}
