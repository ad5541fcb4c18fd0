//! A run's own records must agree: a source snapshot of a single service
//! that is not its root, and a log of another run of the same system, are
//! refused rather than read past.

use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

/// A single service's `sources/{name}.prose.md` that differs from
/// `root.prose.md` is refused as a system's is: a clause in only one of
/// them would go ungraded. The same text as the root is read.
#[test]
fn a_single_service_snapshot_differing_from_its_root_is_refused() {
    let body = "## Ensures\n\n- `out`: a list";
    let d = run_root(&root(body));
    write(
        d.path(),
        "sources/svc.prose.md",
        &root("## Ensures\n\n- `out`: at least 5 items"),
    );
    match import_run(d.path()) {
        Err(ImportError::RunFile { file, message, .. }) => {
            assert!(file.ends_with("svc.prose.md"), "{file}");
            assert!(message.contains("differs from root.prose.md"), "{message}");
        }
        other => panic!("{:?}", other.map(|r| r.id)),
    }
    let d = run_root(&root(body));
    write(d.path(), "sources/svc.prose.md", &root(body));
    assert!(import_run(d.path()).is_ok());
}

/// A log whose header names another run id than the manifest's is
/// another run's log (of the same system): refused, naming its line.
#[test]
fn a_log_of_another_run_id_is_refused() {
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
    let d = tempfile::tempdir().expect("tempdir");
    copy_dir(&example, d.path());
    assert!(import_run(d.path()).is_ok());
    let log = std::fs::read_to_string(d.path().join("vm.log.md")).expect("log");
    let other = log.replacen(
        "# run:20261201-091500-5e1a2b",
        "# run:20261130-080000-aaaaaa",
        1,
    );
    assert_ne!(log, other);
    std::fs::write(d.path().join("vm.log.md"), other).expect("write");
    match import_run(d.path()) {
        Err(ImportError::RunFile {
            file,
            line,
            message,
        }) => {
            assert!(file.ends_with("vm.log.md"), "{file}");
            assert_eq!(line, 1);
            assert!(message.contains("another run's log"), "{message}");
        }
        other => panic!("{:?}", other.map(|r| r.id)),
    }
}

/// An output the manifest binds elsewhere (`bindingPath`), with a file at
/// its default place too, is bound twice: which one the caller received
/// cannot be told. Bound elsewhere alone, it is read there.
#[test]
fn an_output_bound_elsewhere_with_a_file_at_its_default_place_is_refused() {
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
    for bound in [
        "bindings/analyst/players-final.md",
        "bindings/analyst/old/players.md",
    ] {
        let d = tempfile::tempdir().expect("tempdir");
        copy_dir(&example, d.path());
        let manifest = d.path().join("forme.manifest.json");
        let mut m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).expect("manifest"))
                .expect("json");
        m["graph"][1]["outputs"][1]["bindingPath"] = bound.into();
        std::fs::write(&manifest, m.to_string()).expect("write");
        let players = d.path().join("bindings/analyst/players.md");
        let table = std::fs::read_to_string(&players).expect("players");
        write(d.path(), bound, &table);
        // At its bound place alone, the output is read there.
        std::fs::remove_file(&players).expect("remove");
        assert!(import_run(d.path()).is_ok(), "{bound}");
        write(
            d.path(),
            "bindings/analyst/players.md",
            "| player | share |\n|---|---|\n| A | 1 |\n",
        );
        match import_run(d.path()) {
            Err(ImportError::RunFile { file, message, .. }) => {
                assert!(file.ends_with("players.md"), "{file}");
                assert!(message.contains("bound twice"), "{message}");
            }
            other => panic!("{bound}: {:?}", other.map(|r| r.id)),
        }
    }
}
