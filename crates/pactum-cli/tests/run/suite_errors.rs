//! Mistakes caught before anything is sent: a suite file with several
//! mistakes (all reported at once, with line and column), and API key
//! variables that are not set (each named).

use std::path::Path;

use serde_json::json;

use crate::support::*;

#[test]
fn every_mistake_of_a_suite_is_reported_at_once_and_nothing_is_sent() {
    let server = server(json!([{"match": {}, "content": "hello"}]));
    let sb = Sandbox::new();
    sb.suite(
        "suite.yaml",
        "mistakes.yaml",
        &[("@SERVER@", server.base_url())],
    );
    let run = sb.run(Path::new("suite.yaml"), &[]);
    assert_code(&run, 2);
    assert_eq!(requests(&server), 0);
    assert!(
        !sb.db().exists(),
        "no store is made for a suite that does not load"
    );
    // Each mistake, at its line and column.
    for (code, at) in [
        ("missing-key", "suite.yaml:4:5"),          // bot: no `model`
        ("unknown-key", "suite.yaml:6:5"),          // modle
        ("missing-key", "suite.yaml:9:5"),          // web: no observability
        ("invalid-jsonpath", "suite.yaml:14:13"),   // $.reply[
        ("undefined-variable", "suite.yaml:19:13"), // {{ ordr }}
        ("out-of-range", "suite.yaml:21:13"),       // trials: 0
        ("unknown-target", "suite.yaml:30:13"),     // bott
    ] {
        let found = run
            .stderr
            .split("\nerror")
            .any(|d| d.contains(&format!("[{code}]")) && d.contains(&format!("--> {at}")));
        assert!(found, "no {code} at {at}:\n{}", run.stderr);
    }
    let s = settings(&sb);
    s.bind(|| insta::assert_snapshot!("suite_mistakes", run.stderr));
}

#[test]
fn a_missing_api_key_variable_is_named_before_any_request() {
    let server = server(json!([{"match": {}, "content": "hello"}]));
    let sb = Sandbox::new();
    sb.suite(
        "suite.yaml",
        "missing-key.yaml",
        &[("@SERVER@", server.base_url())],
    );
    let db = sb.db();
    let db = db.to_str().expect("a UTF-8 path");
    let run_with = |envs: &[(&str, &str)]| {
        let mut cmd = assert_cmd::Command::cargo_bin("pactum").expect("pactum");
        cmd.current_dir(sb.path())
            .env("NO_COLOR", "1")
            .env_remove("PACTUM_E2E_TARGET_KEY")
            .env_remove("PACTUM_E2E_JUDGE_KEY")
            .args(["run", "suite.yaml", "--db", db]);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd.output().expect("pactum runs")
    };
    // Both missing: both named, with who needs them.
    let out = run_with(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("PACTUM_E2E_TARGET_KEY (for target bot)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("PACTUM_E2E_JUDGE_KEY (for judge)"),
        "{stderr}"
    );
    assert_eq!(requests(&server), 0);
    // One set (and one set empty, which counts as missing).
    let out = run_with(&[
        ("PACTUM_E2E_TARGET_KEY", "k-1-long-enough"),
        ("PACTUM_E2E_JUDGE_KEY", ""),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("PACTUM_E2E_TARGET_KEY"), "{stderr}");
    assert!(stderr.contains("PACTUM_E2E_JUDGE_KEY"), "{stderr}");
    assert_eq!(requests(&server), 0);
    // One too short to be redacted: refused by name, its value unshown.
    let out = run_with(&[
        ("PACTUM_E2E_TARGET_KEY", "k-1-long-enough"),
        ("PACTUM_E2E_JUDGE_KEY", "k-2"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("PACTUM_E2E_JUDGE_KEY") && stderr.contains("3 character(s)"),
        "{stderr}"
    );
    assert!(!stderr.contains("k-2"), "{stderr}");
    assert_eq!(requests(&server), 0);
    // Both set: the run goes ahead (the control).
    let out = run_with(&[
        ("PACTUM_E2E_TARGET_KEY", "k-1-long-enough"),
        ("PACTUM_E2E_JUDGE_KEY", "k-2-long-enough"),
    ]);
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(requests(&server) > 0);
}
