//! The importer and grader over the fixture runs (`fixtures/README.md`).

use std::path::PathBuf;

use pactum_core::{Policy, TestStatus, Verdict};
use pactum_openprose::grade::{grade_run, no_judge, RunGrade};
use pactum_openprose::{import_run, ImportError};

mod common;
use common::copy_dir;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn graded(name: &str) -> RunGrade {
    let run = import_run(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let policy = Policy::default();
    let mut judge = no_judge(policy);
    grade_run(&run, &policy, &mut judge)
}

fn snapshot(name: &str) -> serde_json::Value {
    let mut v = serde_json::to_value(graded(name)).expect("serialises");
    v["dir"] = serde_json::Value::String(format!("fixtures/{name}"));
    v
}

fn verdicts(g: &RunGrade) -> Vec<(String, String, Verdict)> {
    g.contracts
        .iter()
        .flat_map(|c| {
            c.clauses
                .iter()
                .map(move |r| (c.name.clone(), r.id.clone(), r.verdict))
        })
        .collect()
}

#[test]
fn every_layout_snapshot() {
    for name in ["system", "service", "function", "nested", "inline"] {
        insta::assert_json_snapshot!(name, snapshot(name));
    }
}

/// A report passes through the reports' redaction as JSON and back: every
/// shape must read back whole.
#[test]
fn the_report_reads_back_from_json() {
    for name in [
        "system",
        "service",
        "function",
        "nested",
        "inline",
        "phrasings-broken",
    ] {
        let g = graded(name);
        let text = serde_json::to_string(&g).expect("serialises");
        let back: RunGrade = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, g, "{name}");
    }
}

#[test]
fn legacy_system_with_manifest() {
    let g = graded("system");
    assert_eq!(g.run_id, "20260317-143052-a7b3c9");
    assert_eq!(g.system, "brief");
    let names: Vec<&str> = g.contracts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["brief", "researcher", "writer"]);
    for (c, id, v) in verdicts(&g) {
        let want = if id.starts_with("if-") {
            Verdict::NotTriggered
        } else {
            Verdict::Satisfied
        };
        assert_eq!(v, want, "{c}/{id}");
    }
    assert_eq!(g.overall_score, Some(100.0));
    assert_eq!(
        serde_json::to_value(g.overall_verdict).expect("json"),
        "satisfied"
    );
    // Every clause held, but two conditional paths were never taken.
    assert_eq!(
        g.untested_paths,
        vec!["brief/if-researcher-failed", "researcher/if-search-failed"]
    );
    assert_eq!(g.status, TestStatus::Pass);
}

#[test]
fn errored_service_with_degraded_output_and_a_vague_clause() {
    let g = graded("service");
    let v = verdicts(&g);
    let get = |id: &str| v.iter().find(|(_, i, _)| i == id).map(|x| x.2);
    // The declared error occurred: the degraded output is graded, and the
    // ordinary clause on the same output stands aside.
    assert_eq!(get("if-the-search-tool-failed"), Some(Verdict::Satisfied));
    assert_eq!(get("findings"), Some(Verdict::NotTriggered));
    assert_eq!(get("summary"), Some(Verdict::NotEvaluable));
    assert_eq!(get("log"), Some(Verdict::Violated));
    assert_eq!(
        get("a-summary-that-preserves-the-key"),
        Some(Verdict::NotEvaluable)
    );
    let cond = &g.conditional_clauses[0];
    assert_eq!(cond.triggered, Some(true));
    assert_eq!(cond.degraded_output_provided, Some(true));
    assert_eq!(cond.error.as_deref(), Some("search-failed"));
    let reasons: Vec<&str> = g
        .unevaluable_clauses
        .iter()
        .map(|u| u.reason.as_str())
        .collect();
    assert_eq!(reasons, vec!["vague", "no-judge"]);
    assert!(g.recommendations[0].suggestion.contains("measurable"));
    assert_eq!(g.status, TestStatus::Fail);
    // The `- if` line under Invariants is no clause.
    assert_eq!(v.len(), 5);
}

#[test]
fn function_and_nested_runs() {
    let g = graded("function");
    let v = verdicts(&g);
    assert_eq!(v[0].2, Verdict::NotEvaluable, "{v:?}"); // "best first" needs a judge
    assert_eq!(v[1].2, Verdict::NotTriggered);
    assert_eq!(v.len(), 2);
    let g = graded("nested");
    let v = verdicts(&g);
    assert_eq!(
        v,
        vec![
            ("digest".into(), "digest".into(), Verdict::Satisfied),
            (
                "std--summarize/summarize".into(),
                "summary".into(),
                Verdict::Violated
            ),
        ]
    );
    assert_eq!(
        serde_json::to_value(g.overall_verdict).expect("json"),
        "partial"
    );
    assert_eq!(g.overall_score, Some(50.0));
}

#[test]
fn inline_services_by_node_id() {
    let g = graded("inline");
    let v = verdicts(&g);
    assert_eq!(
        v,
        vec![
            ("pipeline.fetch".into(), "pages".into(), Verdict::Satisfied),
            (
                "pipeline.render".into(),
                "html".into(),
                Verdict::NotEvaluable
            ),
        ]
    );
}

/// Each phrasing read deterministically: held → satisfied, broken →
/// never satisfied (a broken output must not come out green).
#[test]
fn every_phrasing_held_and_broken() {
    let held = graded("phrasings-held");
    for (_, id, v) in verdicts(&held) {
        // `between 2 and 3 rows` and `exactly 2 headings` bound rows and
        // headings from above, which a count never meets; `at most 12
        // words` only bounds from above and a format is a shape, which
        // filler and `- Done.` keep too: the judge's.
        let kept = if [
            "rows", "exact", "words", "json", "table", "numbered", "bulleted", "headed",
        ]
        .contains(&id.as_str())
        {
            Verdict::NotEvaluable
        } else {
            Verdict::Satisfied
        };
        assert_eq!(v, kept, "{id}");
    }
    let broken = graded("phrasings-broken");
    let v = verdicts(&broken);
    assert_eq!(v.len(), 14);
    // `people` is an each clause met by some items only: a universal
    // clause with a counterexample is violated.
    for (_, id, v) in &v {
        assert_eq!(*v, Verdict::Violated, "{id}");
    }
    assert_eq!(broken.status, TestStatus::Fail);
    assert_eq!(
        serde_json::to_value(broken.overall_verdict).expect("json"),
        "violated"
    );
    insta::assert_json_snapshot!("phrasings-broken", snapshot("phrasings-broken"));
}

#[test]
fn every_import_error() {
    let cases = [
        ("current", "unsupported-layout", "compiled-intent.json"),
        ("errors/missing-root", "missing-root", "root.prose.md"),
        (
            "errors/missing-manifest",
            "missing-manifest",
            "2 services inline",
        ),
        ("errors/no-outputs", "no-outputs", "no bindings"),
        (
            "errors/manifest-outside",
            "invalid-manifest",
            "graph[0].outputs[0].bindingPath",
        ),
        (
            "errors/manifest-no-source",
            "invalid-manifest",
            "graph[0].sourcePath",
        ),
        (
            "errors/manifest-unknown-source",
            "invalid-manifest",
            "no snapshot in sources/",
        ),
        (
            "errors/manifest-bad-return",
            "invalid-manifest",
            "caller.returns[0].source",
        ),
        (
            "errors/manifest-malformed",
            "invalid-manifest",
            "graph[0].id",
        ),
        ("errors/bound-twice", "invalid-run", "bound twice"),
        ("errors/bad-log", "invalid-run", "vm.log.md:2"),
        ("errors/bad-error-file", "invalid-run", "# Error:"),
    ];
    for (name, code, needle) in cases {
        match import_run(&fixture(name)) {
            Err(e) => {
                assert_eq!(e.code(), code, "{name}: {e}");
                assert!(e.to_string().contains(needle), "{name}: {e}");
                assert!(
                    e.to_string()
                        .contains(name.rsplit('/').next().unwrap_or(name)),
                    "{name}: {e}"
                );
            }
            Ok(_) => panic!("{name}: imported"),
        }
    }
    let missing = import_run(&fixture("errors/nothing-here"));
    assert!(matches!(missing, Err(ImportError::Io { .. })));
}

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// Grades the run at `dir`; a run these tests write without a log gets
/// one that says only that it ended (what they test is not the log).
fn grade_dir(dir: &std::path::Path) -> RunGrade {
    if !dir.join("vm.log.md").exists() {
        write(
            dir,
            "vm.log.md",
            "# run:r s\nroot: root.prose.md\n---end 2026-12-01T10:15:31Z\n",
        );
    }
    let run = import_run(dir).expect("imports");
    let policy = Policy::default();
    let mut judge = no_judge(policy);
    grade_run(&run, &policy, &mut judge)
}

const ERRORED: &str = "---\nname: s\nkind: service\n---\n## Ensures\n\n- `out`: at least 2 items\n- if boom: `out` says \"nothing found\"\n\n## Errors\n\n- boom: it broke\n";

/// Ways a run could come out green without evidence; none may.
#[test]
fn wrong_greens() {
    // The declared error occurred and no degraded output was provided.
    let d = tempfile::tempdir().expect("tempdir");
    write(d.path(), "root.prose.md", ERRORED);
    write(d.path(), "bindings/s/other.md", "x\n");
    write(d.path(), "workspace/s/__error.md", "# Error: boom\n");
    let g = grade_dir(d.path());
    assert_eq!(g.status, TestStatus::Fail);
    let cond = &g.conditional_clauses[0];
    assert_eq!(
        (cond.triggered, cond.degraded_output_provided),
        (Some(true), Some(false))
    );
    assert_eq!(cond.verdict, Verdict::Violated);

    // Nothing says whether the error occurred (no log, no workspace):
    // the conditional is not evaluable, never an untested path.
    let d = tempfile::tempdir().expect("tempdir");
    write(d.path(), "root.prose.md", ERRORED);
    write(d.path(), "bindings/s/out.md", "- a\n- b\n");
    let g = grade_dir(d.path());
    assert_eq!(g.conditional_clauses[0].triggered, None);
    assert_eq!(g.conditional_clauses[0].verdict, Verdict::NotEvaluable);
    assert_eq!(g.status, TestStatus::Undetermined);
    assert!(g.untested_paths.is_empty());

    // A contract that declares no clause is never a pass.
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        "---\nname: s\nkind: service\n---\n## Ensures\n",
    );
    write(d.path(), "bindings/s/out.md", "anything\n");
    let g = grade_dir(d.path());
    assert_eq!(g.status, TestStatus::Undetermined);
    assert_eq!((g.overall_score, g.overall_verdict), (None, None));

    // An empty binding is not an output; a binding header is not a heading.
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        "---\nname: s\nkind: service\n---\n## Ensures\n\n- `a`: a JSON object\n- `b`: headings\n",
    );
    write(d.path(), "bindings/s/a.md", "  \n");
    write(
        d.path(),
        "bindings/s/b.md",
        "# b\nbinding: output\nsource: s\n---\nplain text, no heading\n",
    );
    let g = grade_dir(d.path());
    for (_, id, v) in verdicts(&g) {
        assert_eq!(v, Verdict::Violated, "{id}");
    }

    // A clause of generic words only asks for what its output's name
    // names: its absence is a violation, its presence the judge's.
    let d = tempfile::tempdir().expect("tempdir");
    write(d.path(), "root.prose.md", "---\nname: s\nkind: service\n---\n## Ensures\n\n- `summary`: a summary\n- `report`: the report\n");
    write(d.path(), "bindings/s/summary.md", "Anything at all.\n");
    let g = grade_dir(d.path());
    let v: Vec<Verdict> = verdicts(&g).into_iter().map(|x| x.2).collect();
    assert_eq!(v, vec![Verdict::NotEvaluable, Verdict::Violated]);

    // A clause naming no output, in a contract with several, cannot be
    // measured: it goes to the judge, never satisfied by a measure.
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        "---\nname: s\nkind: service\n---\n## Ensures\n\n- at least 2 items\n",
    );
    write(d.path(), "bindings/s/a.md", "- x\n- y\n");
    write(d.path(), "bindings/s/b.md", "prose\n");
    let g = grade_dir(d.path());
    assert_eq!(verdicts(&g)[0].2, Verdict::NotEvaluable);
}

/// A binding of invisible characters only is not an output, and a byte
/// order mark does not turn a binding header into content.
#[test]
fn invisible_bindings_and_headers_are_no_content() {
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        "---\nname: s\nkind: service\n---\n## Ensures\n\n- `a`: a summary\n- `b`: headings\n",
    );
    write(d.path(), "bindings/s/a.md", "\u{200b}\u{feff}\n\u{2060} \n");
    write(
        d.path(),
        "bindings/s/b.md",
        "\u{feff}# b\nbinding: output\nsource: s\n---\nplain text, no heading\n",
    );
    let g = grade_dir(d.path());
    for (_, id, v) in verdicts(&g) {
        assert_eq!(v, Verdict::Violated, "{id}");
    }
}

/// Every file read from a run must resolve inside it: a link to a file
/// outside (the same content, so only the link can be the reason) is
/// refused, naming the file.
#[cfg(unix)]
#[test]
fn links_that_leave_the_run_are_refused() {
    for (fixture_name, rel) in [
        ("service", "root.prose.md"),
        ("service", "bindings/caller/topic.md"),
        ("service", "workspace/researcher/__error.md"),
        ("service", "vm.log.md"),
        ("system", "forme.manifest.json"),
        ("system", "sources/researcher.prose.md"),
        ("nested", "imports/std--summarize"),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        copy_dir(&fixture(fixture_name), &run);
        import_run(&run).unwrap_or_else(|e| panic!("{fixture_name}: {e}"));
        let outside = tmp.path().join("outside");
        std::fs::rename(run.join(rel), &outside).expect("move out");
        std::os::unix::fs::symlink(&outside, run.join(rel)).expect("link");
        match import_run(&run) {
            Err(e) => {
                assert_eq!(e.code(), "invalid-run", "{rel}: {e}");
                let text = e.to_string();
                assert!(text.contains(rel), "{rel}: {text}");
                assert!(text.contains("outside the run"), "{rel}: {text}");
            }
            Ok(_) => panic!("{fixture_name}/{rel}: imported through a link outside the run"),
        }
    }
}

/// A manifest that does not account for part of the folder is refused: a
/// service missing from `graph` would otherwise never be graded.
#[test]
fn a_manifest_that_contradicts_the_folder_is_refused() {
    for (rel, text, needle) in [
        ("bindings/ghost/out.md", "anything\n", "bindings/ghost/"),
        (
            "sources/ghost.prose.md",
            "---\nname: ghost\nkind: service\n---\n## Ensures\n\n- `out`: at least 3 items\n",
            "sources/ghost.prose.md",
        ),
        ("workspace/ghost/__error.md", "# Error: boom\n", "workspace/ghost/"),
        (
            "vm.log.md",
            "# run:20260317-143052-a7b3c9 brief\nroot: root.prose.md\n1→ researcher ✓\n2→ writer ✓\n3→ ghost ✗ crashed: bad\n---end 2026-03-17T14:31:02Z\n",
            "vm.log.md:5",
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        copy_dir(&fixture("system"), &run);
        write(&run, rel, text);
        match import_run(&run) {
            Err(e) => {
                assert_eq!(e.code(), "invalid-manifest", "{rel}: {e}");
                let text = e.to_string();
                assert!(text.contains(needle), "{rel}: {text}");
                assert!(text.contains("ghost"), "{rel}: {text}");
                assert!(text.contains("forme.manifest.json"), "{rel}: {text}");
            }
            Ok(_) => panic!("{rel}: imported although the manifest does not account for it"),
        }
    }
}

/// A service file (no manifest) that declares its own clauses and an
/// inline service's is refused: the inline service's clauses would never
/// be graded.
#[test]
fn a_service_root_with_an_inline_service_too_is_refused() {
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        "---\nname: svc\nkind: service\n---\n\n# Svc\n\n## Ensures\n\n- `summary`: a summary saying \"batteries\"\n\n## helper\n\n### Ensures\n\n- `notes`: at most 3 words\n",
    );
    write(d.path(), "bindings/svc/summary.md", "batteries\n");
    write(
        d.path(),
        "bindings/svc/notes.md",
        "far more than three words here\n",
    );
    match import_run(d.path()) {
        Err(e) => {
            assert_eq!(e.code(), "invalid-contract", "{e}");
            let text = e.to_string();
            assert!(text.contains("root.prose.md:12"), "{text}");
            assert!(text.contains("helper"), "{text}");
        }
        Ok(_) => panic!("imported, the inline service's clauses ungraded"),
    }
}

/// The system fixture copied to a temporary run with its manifest
/// changed by `edit`.
fn system_with_manifest(
    tmp: &std::path::Path,
    edit: impl FnOnce(&mut serde_json::Value),
) -> std::path::PathBuf {
    let run = tmp.join("run");
    copy_dir(&fixture("system"), &run);
    let path = run.join("forme.manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    edit(&mut m);
    std::fs::write(&path, serde_json::to_string_pretty(&m).expect("json")).expect("write");
    run
}

/// A manifest that contradicts itself is refused, naming the manifest,
/// the field and the value: two nodes with one id (one of them would be
/// graded under the other's name), a system named like a node (two
/// contracts, one trace id), two outputs bound to one file (one file
/// would satisfy both), an output bound to a caller input, a node id
/// that is a path.
#[test]
fn a_manifest_that_contradicts_itself_is_refused() {
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, Edit, &str, &str); 13] = [
        (
            "an output bound to the manifest",
            |m| m["graph"][1]["outputs"][1]["bindingPath"] = "forme.manifest.json".into(),
            "graph[1].outputs[1].bindingPath",
            "is not under bindings/",
        ),
        (
            "an output bound to the root",
            |m| m["graph"][1]["outputs"][1]["bindingPath"] = "./root.prose.md".into(),
            "graph[1].outputs[1].bindingPath",
            "is not under bindings/",
        ),
        (
            "an output bound to a source snapshot",
            |m| m["graph"][1]["outputs"][1]["bindingPath"] = "sources/writer.prose.md".into(),
            "graph[1].outputs[1].bindingPath",
            "is not under bindings/",
        ),
        (
            "an output bound to the log",
            |m| m["graph"][1]["outputs"][1]["bindingPath"] = "vm.log.md".into(),
            "graph[1].outputs[1].bindingPath",
            "is not under bindings/",
        ),
        (
            "an output bound to bindings/ itself",
            |m| m["graph"][1]["outputs"][1]["bindingPath"] = "bindings/table.md".into(),
            "graph[1].outputs[1].bindingPath",
            "is not under bindings/",
        ),
        (
            "an output name that is a path",
            |m| m["graph"][1]["outputs"][1]["name"] = "../../../outside/players".into(),
            "graph[1].outputs[1].name",
            "`../../../outside/players`",
        ),
        (
            "a caller return name that is a path",
            |m| m["caller"]["returns"][0]["name"] = "../writer/table".into(),
            "caller.returns[0].name",
            "`../writer/table`",
        ),
        (
            "duplicate node id",
            |m| {
                let mut n = m["graph"][1].clone();
                n["outputs"] = serde_json::json!([{"name": "summary"}]);
                m["graph"].as_array_mut().expect("graph").push(n);
            },
            "graph[2].id",
            "`writer`",
        ),
        (
            "systemName equal to a node id",
            |m| m["systemName"] = "writer".into(),
            "systemName",
            "`writer`",
        ),
        (
            "two outputs, one binding file",
            |m| m["graph"][1]["outputs"][1]["bindingPath"] = "bindings/writer/brief.md".into(),
            "graph[1].outputs[1].bindingPath",
            "bindings/writer/brief.md",
        ),
        (
            "two outputs, one binding file spelled differently",
            |m| m["graph"][1]["outputs"][1]["bindingPath"] = "./bindings/writer//brief.md".into(),
            "graph[1].outputs[1].bindingPath",
            "bindings/writer/brief.md",
        ),
        (
            "an output bound to a caller input",
            |m| m["graph"][1]["outputs"][1]["bindingPath"] = "bindings/caller/topic.md".into(),
            "graph[1].outputs[1].bindingPath",
            "bindings/caller/topic.md",
        ),
        (
            "a node id that is a path",
            |m| {
                m["graph"][1]["id"] = "../bindings/writer".into();
                m["caller"]["returns"][0]["source"] = "../bindings/writer".into();
            },
            "graph[1].id",
            "`../bindings/writer`",
        ),
    ];
    for (what, edit, field, value) in cases {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = system_with_manifest(tmp.path(), edit);
        match import_run(&run) {
            Err(e) => {
                let text = e.to_string();
                assert_eq!(e.code(), "invalid-manifest", "{what}: {text}");
                assert!(text.contains("forme.manifest.json"), "{what}: {text}");
                assert!(text.contains(&format!("`{field}`")), "{what}: {text}");
                assert!(text.contains(value), "{what}: {text}");
            }
            Ok(_) => panic!("{what}: imported"),
        }
    }
}

/// OS metadata files (`.DS_Store`, any file whose name starts with `.`,
/// `Thumbs.db`, `desktop.ini`) are no part of a run: never an output,
/// an input, a snapshot or an import, and never a reason to refuse it.
/// A hidden folder is still accounted for.
#[test]
fn os_metadata_files_are_ignored() {
    let junk: &[u8] = b"\x00\x00\x00\x01Bud1\xff\xfe";
    for (fixture_name, rels) in [
        (
            "system",
            &[
                "bindings/writer/.DS_Store",
                "bindings/caller/.DS_Store",
                "bindings/.DS_Store",
                "sources/.DS_Store",
                "workspace/writer/._brief.md",
                "bindings/writer/Thumbs.db",
                "sources/desktop.ini",
            ][..],
        ),
        (
            "service",
            &["bindings/researcher/.DS_Store", "bindings/caller/.DS_Store"][..],
        ),
        ("nested", &["imports/.DS_Store"][..]),
    ] {
        let clean = serde_json::to_value(graded(fixture_name)).expect("json");
        let tmp = tempfile::tempdir().expect("tempdir");
        // The folder's name is the run id of a run without a log.
        let run = tmp.path().join(fixture_name);
        copy_dir(&fixture(fixture_name), &run);
        for rel in rels {
            std::fs::write(run.join(rel), junk).expect("write");
        }
        let g = grade_dir(&run);
        let mut v = serde_json::to_value(&g).expect("json");
        v["dir"] = clean["dir"].clone();
        assert_eq!(v, clean, "{fixture_name}: {rels:?}");
    }
    // Only metadata under bindings/: no outputs.
    let d = tempfile::tempdir().expect("tempdir");
    write(d.path(), "root.prose.md", ERRORED);
    std::fs::create_dir_all(d.path().join("bindings/s")).expect("mkdir");
    std::fs::write(d.path().join("bindings/s/.DS_Store"), junk).expect("write");
    match import_run(d.path()) {
        Err(e) => assert_eq!(e.code(), "no-outputs", "{e}"),
        Ok(_) => panic!("a run of metadata only imported"),
    }
    // A hidden folder is a folder: the manifest must account for it.
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = tmp.path().join("run");
    copy_dir(&fixture("system"), &run);
    write(&run, "bindings/.ghost/out.md", "x\n");
    match import_run(&run) {
        Err(e) => assert_eq!(e.code(), "invalid-manifest", "{e}"),
        Ok(_) => panic!("a hidden folder of bindings was ignored"),
    }
}

/// An error about a whole file names the file alone, never `file:0:`.
#[test]
fn whole_file_errors_name_no_line_zero() {
    let d = tempfile::tempdir().expect("tempdir");
    write(d.path(), "root.prose.md", ERRORED);
    std::fs::create_dir_all(d.path().join("bindings/s")).expect("mkdir");
    std::fs::write(d.path().join("bindings/s/out.md"), b"\xff\xfe bad").expect("write");
    match import_run(d.path()) {
        Err(e) => {
            let text = e.to_string();
            assert!(!text.contains(":0:"), "{text}");
            assert!(text.contains("out.md: not UTF-8"), "{text}");
        }
        Ok(_) => panic!("non-UTF-8 imported"),
    }
}

/// A byte order mark before a contract's frontmatter is named as such.
#[test]
fn a_bom_before_the_frontmatter_is_named() {
    let d = tempfile::tempdir().expect("tempdir");
    write(d.path(), "root.prose.md", &format!("\u{feff}{ERRORED}"));
    write(d.path(), "bindings/s/out.md", "- a\n- b\n");
    match import_run(d.path()) {
        Err(e) => {
            let text = e.to_string();
            assert_eq!(e.code(), "invalid-contract", "{text}");
            assert!(text.contains("byte order mark"), "{text}");
            assert!(text.contains("root.prose.md:1"), "{text}");
        }
        Ok(_) => panic!("imported"),
    }
}

/// A manifest of more nodes than pactum grades, or more bytes than it
/// reads, is refused naming the file, the field and the limit; one at
/// the node limit imports (every node, none dropped).
#[test]
fn a_huge_manifest_is_refused_and_a_large_one_imports() {
    use pactum_openprose::run::{MAX_MANIFEST_BYTES, MAX_MANIFEST_NODES};
    let build = |nodes: usize, pad: usize| {
        let d = tempfile::tempdir().expect("tempdir");
        write(
            d.path(),
            "root.prose.md",
            "---\nname: sys\nkind: system\n---\n## Services\n\n- n0\n",
        );
        write(
            d.path(),
            "sources/w.prose.md",
            "---\nname: w\nkind: service\n---\n## Ensures\n\n- `out`: a summary\n",
        );
        write(d.path(), "bindings/n0/out.md", "Cells age slowly.\n");
        write(
            d.path(),
            "vm.log.md",
            "# run:r sys\nroot: root.prose.md\n---end 2026-12-01T10:15:31Z\n",
        );
        let graph: Vec<serde_json::Value> = (0..nodes)
            .map(|i| serde_json::json!({"id": format!("n{i}"), "sourcePath": "w.prose.md"}))
            .collect();
        let m = serde_json::json!({"systemName": "sys", "graph": graph, "pad": "x".repeat(pad)});
        write(d.path(), "forme.manifest.json", &m.to_string());
        d
    };
    let d = build(MAX_MANIFEST_NODES + 1, 0);
    match import_run(d.path()) {
        Err(ImportError::Manifest {
            file,
            field,
            message,
        }) => {
            assert!(file.ends_with("forme.manifest.json"), "{file}");
            assert_eq!(field, "graph");
            assert!(
                message.contains(&MAX_MANIFEST_NODES.to_string()),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let d = build(1, MAX_MANIFEST_BYTES);
    match import_run(d.path()) {
        Err(ImportError::Manifest {
            file,
            field,
            message,
        }) => {
            assert!(file.ends_with("forme.manifest.json"), "{file}");
            assert_eq!(field, "(root)");
            assert!(
                message.contains(&MAX_MANIFEST_BYTES.to_string()),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let d = build(MAX_MANIFEST_NODES, 0);
    let run = import_run(d.path()).expect("imports");
    assert_eq!(run.contracts.len(), MAX_MANIFEST_NODES);
    let g = grade_dir(d.path());
    // n0 wrote its output; every other node wrote none.
    let satisfied = g
        .contracts
        .iter()
        .filter(|c| c.clauses.iter().all(|r| r.verdict != Verdict::Violated))
        .count();
    assert_eq!(satisfied, 1);
}

/// A system's binding that is a link to the manifest or to a contract's
/// source snapshot is refused, naming the output: neither is what the
/// service produced.
#[cfg(unix)]
#[test]
fn a_binding_linked_to_the_manifest_or_a_snapshot_is_refused() {
    for (binding, target) in [
        (
            "bindings/researcher/sources.json",
            "../../forme.manifest.json",
        ),
        (
            "bindings/writer/brief.md",
            "../../sources/researcher.prose.md",
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        copy_dir(&fixture("system"), &run);
        import_run(&run).expect("imports before");
        std::fs::remove_file(run.join(binding)).expect("rm");
        std::os::unix::fs::symlink(target, run.join(binding)).expect("link");
        match import_run(&run) {
            Err(e) => {
                assert_eq!(e.code(), "invalid-run", "{binding}: {e}");
                assert!(e.to_string().contains("no output"), "{binding}: {e}");
            }
            Ok(_) => panic!("{binding} → {target}: read as the output"),
        }
    }
}

/// The system's snapshot in `sources/` and `root.prose.md` disagreeing is
/// refused, naming the snapshot: a clause only in one would go ungraded.
#[test]
fn a_system_snapshot_that_differs_from_the_root_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = tmp.path().join("run");
    copy_dir(&fixture("system"), &run);
    let snap = run.join("sources/brief.prose.md");
    let text = std::fs::read_to_string(&snap).expect("read");
    let text = text.replacen("## Ensures\n", "## Ensures\n\n- `appendix`: a summary\n", 1);
    std::fs::write(&snap, text).expect("write");
    match import_run(&run) {
        Err(e) => {
            assert_eq!(e.code(), "invalid-run", "{e}");
            assert!(e.to_string().contains("sources/brief.prose.md"), "{e}");
        }
        Ok(_) => panic!("a snapshot that differs from the root was imported"),
    }
}

/// A log that lists steps must list every service that produced an
/// output, and must be this run's log (`root: root.prose.md`).
#[test]
fn a_log_missing_a_step_or_naming_another_root_is_refused() {
    for (from, to) in [
        ("2→ writer ✓\n", ""),
        ("root: root.prose.md\n", "root: elsewhere.prose.md\n"),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        copy_dir(&fixture("system"), &run);
        let log = run.join("vm.log.md");
        let text = std::fs::read_to_string(&log).expect("read");
        assert!(text.contains(from), "{text}");
        std::fs::write(&log, text.replace(from, to)).expect("write");
        match import_run(&run) {
            Err(e) => {
                assert_eq!(e.code(), "invalid-run", "{e}");
                assert!(e.to_string().contains("vm.log.md"), "{e}");
            }
            Ok(_) => panic!("{from:?} → {to:?}: imported"),
        }
    }
}

/// An `__error.md` in the folder the manifest names as a node's
/// workspace (`workspacePath`) is that node's error, wherever the folder
/// is in the run: the crashed service fails.
#[test]
fn an_error_in_a_manifest_workspace_is_the_nodes() {
    for ws in [
        "workspace/research-ws/",
        "workspace/r/deep",
        "scratch/researcher",
        "workspace/researcher/",
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = system_with_manifest(tmp.path(), |m| {
            m["graph"][0]["workspacePath"] = ws.into();
        });
        std::fs::remove_dir_all(run.join("workspace/researcher")).expect("rm");
        write(
            &run,
            &format!("{}/__error.md", ws.trim_end_matches('/')),
            "# Error: crashed\n\nsegfault\n",
        );
        let g = grade_dir(&run);
        let researcher = g
            .contracts
            .iter()
            .find(|c| c.name == "researcher")
            .expect("researcher");
        assert_eq!(researcher.status, TestStatus::Fail, "{ws}: {g:#?}");
        // Read once, wherever the manifest and the default both say.
        let crashed: Vec<_> = researcher
            .errors
            .iter()
            .filter(|e| e.name == "crashed")
            .map(|e| e.source.as_str())
            .collect();
        let at = format!("{}/__error.md", ws.trim_end_matches('/'));
        assert_eq!(crashed, vec![at.as_str()], "{ws}");
        assert_ne!(g.status, TestStatus::Pass, "{ws}");
    }
    // One in a folder of no node's workspace is nobody's: refused.
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = system_with_manifest(tmp.path(), |m| {
        m["graph"][0]["workspacePath"] = "workspace/r/deep".into();
    });
    write(&run, "workspace/r/other/__error.md", "# Error: crashed\n");
    match import_run(&run) {
        Err(e) => {
            assert_eq!(e.code(), "invalid-run", "{e}");
            assert!(e.to_string().contains("workspace/r/other"), "{e}");
        }
        Ok(_) => panic!("an error file in no node's workspace was imported"),
    }
}

/// Every inline service with clauses of the root, or of a snapshot a
/// node's contract is read from, is a node of the graph: one the manifest
/// leaves out would never be graded, so the run is refused naming it.
#[test]
fn an_inline_service_missing_from_the_graph_is_refused() {
    let audit = "\n## audit\n\n### Ensures\n\n- `audit-log`: at least 10 items\n";
    for (files, line) in [
        (&["root.prose.md", "sources/pipeline.prose.md"][..], 21),
        (&["sources/pipeline.prose.md"][..], 21),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        copy_dir(&fixture("inline"), &run);
        let mut m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(run.join("forme.manifest.json")).expect("read"),
        )
        .expect("json");
        if files.len() == 1 {
            // The root is another file: the nodes' snapshot alone declares
            // the service.
            m["sourcePath"] = "other.prose.md".into();
            std::fs::write(
                run.join("root.prose.md"),
                "---\nname: pipeline\nkind: system\n---\n\n# Pipeline\n",
            )
            .expect("write");
        }
        std::fs::write(
            run.join("forme.manifest.json"),
            serde_json::to_string_pretty(&m).expect("json"),
        )
        .expect("write");
        for f in files {
            let p = run.join(f);
            let text = std::fs::read_to_string(&p).expect("read");
            std::fs::write(&p, format!("{text}{audit}")).expect("write");
        }
        match import_run(&run) {
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.code(), "invalid-manifest", "{files:?}: {msg}");
                assert!(msg.contains("`audit`"), "{files:?}: {msg}");
                assert!(msg.contains(&format!(":{line}")), "{files:?}: {msg}");
            }
            Ok(r) => panic!(
                "{files:?}: imported without `audit`: {:?}",
                r.contracts.iter().map(|c| &c.name).collect::<Vec<_>>()
            ),
        }
    }
}

/// A system run whose log ends `---error` is never green, whether or not
/// the root declares clauses of its own: the system answers for its
/// run-level error, and the error's message is quoted in its summary.
#[test]
fn a_system_run_that_ended_in_error_is_never_green() {
    for root_clauses in [false, true] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        copy_dir(&fixture("system"), &run);
        if !root_clauses {
            let text = std::fs::read_to_string(run.join("root.prose.md")).expect("read");
            let own = text.split("## Ensures").next().expect("head").to_string();
            write(&run, "root.prose.md", &own);
            write(&run, "sources/brief.prose.md", &own);
        }
        let log = std::fs::read_to_string(run.join("vm.log.md")).expect("read");
        let log = log.replace(
            "---end 2026-03-17T14:31:02Z",
            "---error 2026-03-17T14:31:02Z run aborted: budget exceeded",
        );
        write(&run, "vm.log.md", &log);
        let g = grade_dir(&run);
        assert_ne!(g.status, TestStatus::Pass, "{root_clauses}: {g:#?}");
        assert_ne!(
            g.overall_verdict,
            Some(pactum_core::score::OverallVerdict::Satisfied),
            "{root_clauses}: {g:#?}"
        );
        let brief = g
            .contracts
            .iter()
            .find(|c| c.name == "brief")
            .unwrap_or_else(|| panic!("{root_clauses}: no system contract: {g:#?}"));
        assert_ne!(brief.status, TestStatus::Pass, "{root_clauses}");
        let shown = format!(
            "{} {}",
            brief.summary,
            brief
                .clauses
                .iter()
                .map(|r| r.rationale.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        );
        assert!(shown.contains("budget exceeded"), "{root_clauses}: {shown}");
        if !root_clauses {
            // No clause carries it: the summaries say it.
            assert!(
                brief.summary.contains("budget exceeded"),
                "{}",
                brief.summary
            );
            assert!(g.summary.contains("budget exceeded"), "{}", g.summary);
        }
    }
}
