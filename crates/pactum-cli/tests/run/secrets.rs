//! API keys never reach the store, a report or a log (SPEC §4): sentinel
//! keys in the environment, a server that echoes the Authorization header
//! back everywhere it can, and a byte scan of everything pactum wrote.

use std::path::Path;

use serde_json::json;

use crate::support::*;

const TARGET_KEY: &str = "sk-e2e-SENTINEL-target-7f3a9c1e5b";
const JUDGE_KEY: &str = "sk-e2e-SENTINEL-judge-2d8e4b6a0c";
const AGENT_TOKEN: &str = "tok-e2e-SENTINEL-agent-9b1f3d5e7a";

#[test]
fn api_keys_never_reach_the_store_the_reports_or_the_output() {
    let server = server(json!([
        {"name": "judge", "match": {"system_contains": JUDGE_MARK}, "echo": "authorization"},
        {"name": "refuse", "match": {"last_user_contains": "case refuse"}, "status": 401,
         "echo": "authorization", "error_message": "bad key"},
        {"name": "web", "match": {"path": "/agent"},
         "body": {"reply": "you sent {{header:Authorization}}"}},
        {"name": "echo", "match": {"model": "bot-model"}, "echo": "authorization"}
    ]));
    let sb = Sandbox::new();
    sb.suite(
        "suite.yaml",
        "secrets.yaml",
        &[("@SERVER@", server.base_url())],
    );
    let db = sb.db();
    let args = [
        "run",
        "suite.yaml",
        "--db",
        db.to_str().expect("a UTF-8 path"),
        "--json",
        "report.json",
        "--junit",
        "junit.xml",
        "--html",
        "report.html",
        "--markdown",
        "summary.md",
        "-v",
    ];
    let envs = [
        ("PACTUM_E2E_SECRET_TARGET_KEY", TARGET_KEY),
        ("PACTUM_E2E_SECRET_JUDGE_KEY", JUDGE_KEY),
        ("PACTUM_E2E_SECRET_AGENT_TOKEN", AGENT_TOKEN),
    ];
    let run = sb.pactum_env(args, &envs);
    // The refused trial is an error; the judge's echoes are malformed.
    assert_code(&run, 3);

    // The keys were really sent, so the scan below can fail.
    let sent: Vec<String> = bodies(&server)
        .iter()
        .filter_map(|b| b["authorization"].as_str().map(str::to_string))
        .collect();
    for key in [TARGET_KEY, JUDGE_KEY, AGENT_TOKEN] {
        assert!(
            sent.contains(&format!("Bearer {key}")),
            "{key} was not sent: {sent:?}"
        );
    }
    let by = by_rule(&server);
    assert!(by.get("judge").copied().unwrap_or(0) >= 2, "{by:?}");
    assert_eq!(by.get("refuse"), Some(&1), "{by:?}");
    // The echoes came back redacted and were kept as such.
    let report = std::fs::read_to_string(sb.path().join("report.json")).expect("report");
    assert!(report.contains("[redacted]"), "{report}");
    let page = std::fs::read_to_string(sb.path().join("report.html")).expect("page");
    assert!(
        page.contains("[redacted]"),
        "the page shows the redacted echo"
    );

    // Everything pactum wrote: the store (and its WAL and shared memory if
    // any are left), the reports, stdout and stderr, and what `show` and
    // `runs` print from the store.
    let run_id = only_run(&db);
    let show = sb.pactum_env(
        [
            "show",
            &run_id,
            "--db",
            db.to_str().expect("path"),
            "-v",
            "--json",
            "-",
            "--html",
            "show.html",
        ],
        &envs,
    );
    // `show --html` shows each stored trace as a conversation: the
    // transcript passes the same redactor as every event (scanned below).
    let shown = std::fs::read_to_string(sb.path().join("show.html")).expect("show.html");
    assert!(
        shown.contains("<section class=\"conversation\">") && shown.contains("\"transcript\":"),
        "show --html has the transcripts"
    );
    let runs = sb.pactum_env(["runs", "--db", db.to_str().expect("path")], &envs);
    let mut scanned = vec![
        ("stdout".to_string(), run.stdout.clone().into_bytes()),
        ("stderr".to_string(), run.stderr.clone().into_bytes()),
        ("show".to_string(), show.all().into_bytes()),
        ("runs".to_string(), runs.all().into_bytes()),
    ];
    for f in [
        "report.json",
        "junit.xml",
        "report.html",
        "summary.md",
        "show.html",
    ] {
        scanned.push((f.into(), std::fs::read(sb.path().join(f)).expect(f)));
    }
    let store = db.parent().expect("store folder");
    for e in std::fs::read_dir(store).expect("store folder") {
        let p = e.expect("entry").path();
        scanned.push((
            p.display().to_string(),
            std::fs::read(&p).expect("store file"),
        ));
    }
    assert!(scanned.iter().any(|(n, _)| n.ends_with("pactum.db")));
    for (name, bytes) in &scanned {
        for key in [TARGET_KEY, JUDGE_KEY, AGENT_TOKEN, "SENTINEL"] {
            assert!(!contains(bytes, key.as_bytes()), "{key} found in {name}");
        }
    }
    // The stored raw judge answers are there (redacted), so the scan of
    // the store covered them.
    let raw: i64 = open_db(Path::new(&db))
        .query_row(
            "SELECT count(*) FROM judge_answers WHERE raw_answer LIKE '%[redacted]%'",
            [],
            |r| r.get(0),
        )
        .expect("judge answers");
    assert!(raw >= 2, "{raw}");
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}
