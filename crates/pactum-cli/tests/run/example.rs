//! The live example in `examples/run/` (the README's): its suite runs
//! against its own server script as documented, and the Ollama-shaped
//! suite is valid and behaves the same against the same script.

use std::path::Path;

use serde_json::Value;

use crate::support::*;

fn example_server() -> ScriptedServer {
    let text = std::fs::read_to_string(root().join("examples/run/script.json"))
        .expect("examples/run/script.json");
    let script: Value = serde_json::from_str(&text).expect("the script is JSON");
    server(script)
}

/// The example suite `name`, its fixed `host:port` replaced by the
/// server's (the target's and the judge's: exactly two places).
fn example_suite(sb: &Sandbox, name: &str, host_port: &str, server: &ScriptedServer) {
    let text = std::fs::read_to_string(root().join("examples/run").join(name)).expect("suite");
    assert_eq!(
        text.matches(host_port).count(),
        2,
        "{name}: target and judge"
    );
    let ours = text.replace(host_port, &format!("127.0.0.1:{}", server.port()));
    sb.write("suite.yaml", &ours);
}

#[test]
fn the_example_suite_runs_as_its_readme_shows() {
    let server = example_server();
    let sb = Sandbox::new();
    example_suite(&sb, "suite.yaml", "127.0.0.1:8765", &server);
    let run = sb.run(Path::new("suite.yaml"), &["-j", "1", "-v"]);
    assert_code(&run, 1);
    let counts = by_rule(&server);
    assert_eq!(
        counts,
        [
            ("close-account".into(), 1),
            ("judge".into(), 3),
            ("order-status".into(), 1),
            ("refund".into(), 1)
        ]
        .into()
    );
    let s = settings(&sb);
    s.bind(|| insta::assert_snapshot!("example_run", run.stdout));

    // Again: everything from the cache.
    server.reset().expect("reset");
    let again = sb.run(Path::new("suite.yaml"), &["-q"]);
    assert_code(&again, 1);
    assert_eq!(requests(&server), 0);
}

#[test]
fn the_ollama_example_is_valid_and_grades_alike() {
    let server = example_server();
    let sb = Sandbox::new();
    example_suite(&sb, "ollama.yaml", "127.0.0.1:11434", &server);
    let (run, report) = sb.run_json(Path::new("suite.yaml"), &["-j", "1"]);
    assert_code(&run, 1);
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
    // 3 tests × 3 trials. The scripted model answers each trial of a test
    // alike, so the judge request is the same: asked once per test (-j 1
    // makes that exact), the later trials take the cached verdict.
    let counts = by_rule(&server);
    assert_eq!(counts.get("judge"), Some(&3), "{counts:?}");
    assert_eq!(requests(&server), 12);
    let st = statuses(&report);
    assert_eq!(st.len(), 9);
    for (id, status) in st {
        let want = if id.starts_with("close-account#") {
            "fail"
        } else {
            "pass"
        };
        assert_eq!(status, want, "{id}");
    }
}

#[test]
fn junit_of_a_run_and_of_show_is_named_by_the_run() {
    let server = example_server();
    let sb = Sandbox::new();
    example_suite(&sb, "suite.yaml", "127.0.0.1:8765", &server);
    let run = sb.run(Path::new("suite.yaml"), &["-q", "--junit", "run.xml"]);
    assert_code(&run, 1);
    let xml = std::fs::read_to_string(sb.path().join("run.xml")).expect("run.xml");
    assert!(!xml.contains("(no input file)"), "{xml}");
    assert!(
        xml.contains("<testsuite name=\"suite.yaml\" tests=\"3\""),
        "{xml}"
    );

    let db = sb.db();
    let run_id = only_run(&db);
    let db_arg = db.to_str().expect("a UTF-8 path");
    let show = sb.pactum(["show", &run_id, "--db", db_arg, "--junit", "show.xml"]);
    assert_code(&show, 1);
    let xml = std::fs::read_to_string(sb.path().join("show.xml")).expect("show.xml");
    assert!(!xml.contains("(no input file)"), "{xml}");
    assert!(
        xml.contains(&format!(
            "<testsuite name=\"run {run_id} (suite.yaml)\" tests=\"3\""
        )),
        "{xml}"
    );
}
