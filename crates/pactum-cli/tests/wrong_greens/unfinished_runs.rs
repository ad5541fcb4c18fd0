//! `show` and `rescore` of a run whose trials were not all stored report it partial.
//!
//! A run killed (or stopped) before every planned trial was stored is not
//! a green run with fewer tests: `pactum show` and `pactum rescore` read
//! the plan stored with the run, say "N of M trials stored", exit 5
//! (partial), set `partial: true`, and list each missing trial — in JUnit
//! as a test case with an `<error>`, so the counts add up to M.

use std::path::Path;
use std::process::Child;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::*;

use crate::common::{
    resume_suite, resume_suite_text, resume_target as target, RESUME_PLANNED as PLANNED,
};

/// A target that never answers in time.
fn silent_target() -> ScriptedServer {
    server(json!([{"name": "slow", "match": {}, "delay_ms": 60000, "content": "late"}]))
}

/// Runs stored in the store (0 before it exists).
fn runs_in(db: &Path) -> u64 {
    if !db.exists() {
        return 0;
    }
    let Ok(c) = rusqlite::Connection::open_with_flags(
        db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    ) else {
        return 0;
    };
    c.query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
        .map(|n| u64::try_from(n).unwrap_or(0))
        .unwrap_or(0)
}

/// Kills `child` with SIGKILL and reaps it.
fn kill9(mut child: Child) {
    child.kill().expect("SIGKILL");
    let _ = child.wait();
}

/// Starts `suite.yaml` in the background and kills it with SIGKILL once
/// `ready` holds.
fn killed_run(sb: &Sandbox, ready: impl FnMut() -> bool) -> String {
    let child = sb.spawn_run(Path::new("suite.yaml"), &["-j", "1"]);
    let ok = wait_for(Duration::from_secs(30), ready);
    kill9(child);
    assert!(ok, "the run did not get far enough within 30 s");
    only_run(&sb.db())
}

/// `pactum CMD RUN --db STORE --json - --junit junit.xml`: the exit code,
/// the JSON report and the JUnit text.
fn report(sb: &Sandbox, cmd: &str, run_id: &str) -> (Run, Value, String) {
    let db = sb.db();
    let junit = sb.path().join(format!("{cmd}.xml"));
    let run = sb.pactum([
        cmd,
        run_id,
        "--db",
        db.to_str().expect("utf-8"),
        "--json",
        "-",
        "--junit",
        junit.to_str().expect("utf-8"),
    ]);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{cmd} --json - is not JSON ({e}): {run:#?}"));
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report was written");
    (run, v, xml)
}

/// The attribute `name` of the first `<testsuites …>` element.
fn suites_attr(xml: &str, name: &str) -> u64 {
    let head = &xml[xml.find("<testsuites ").expect("<testsuites>")..];
    let head = &head[..head.find('>').expect("end of tag")];
    let key = format!("{name}=\"");
    let at = head.find(&key).expect("attribute") + key.len();
    head[at..head[at..].find('"').expect("quote") + at]
        .parse()
        .expect("a number")
}

/// Checks what every report of a run with `stored` of `PLANNED` trials
/// must say, for `show` and for `rescore`.
fn assert_partial(sb: &Sandbox, run_id: &str, stored: u64) {
    let missing = PLANNED - stored;
    for cmd in ["show", "rescore"] {
        let (run, v, xml) = report(sb, cmd, run_id);
        // Never 0 (pass), 1 or 3: the run is partial.
        assert_code(&run, 5);
        assert_eq!(v["totals"]["partial"], true, "{cmd}: {v:#}");
        assert_eq!(v["totals"]["missing_trials"], missing, "{cmd}");
        assert_eq!(v["totals"]["traces"], stored, "{cmd}");
        let listed = v["missing_trials"].as_array().expect("missing_trials");
        assert_eq!(listed.len() as u64, missing, "{cmd}");
        for m in listed {
            let id = m["trace_id"].as_str().expect("trace_id");
            assert!(
                xml.contains(&format!(
                    "<testcase name=\"{id}\" classname=\"missing-trial\">"
                )),
                "{cmd}: {id} is not a JUnit test case: {xml}"
            );
        }
        // JUnit adds up: one test case per planned trial, each missing
        // one an error.
        assert_eq!(suites_attr(&xml, "tests"), PLANNED, "{cmd}: {xml}");
        assert!(suites_attr(&xml, "errors") >= missing, "{cmd}: {xml}");
        assert_eq!(
            xml.matches("<error type=\"missing-trial\"").count() as u64,
            missing,
            "{cmd}"
        );
        // The terminal says how much is there.
        let db = sb.db();
        let text = sb.pactum([cmd, run_id, "--db", db.to_str().expect("utf-8")]);
        assert_code(&text, 5);
        assert!(
            text.stdout
                .contains(&format!("{stored} of {PLANNED} trials stored")),
            "{cmd}: {}",
            text.stdout
        );
    }
}

#[test]
fn a_run_killed_before_its_first_trial_is_0_of_12_never_a_pass() {
    let server = silent_target();
    let sb = Sandbox::new();
    resume_suite(&sb, &server);
    let db = sb.db();
    let run_id = killed_run(&sb, || runs_in(&db) >= 1);
    assert_eq!(stored_trials(&db), 0);
    assert_partial(&sb, &run_id, 0);
    let (_, v, _) = report(&sb, "show", &run_id);
    assert_eq!(v["results"].as_array().map(Vec::len), Some(0));
}

#[test]
fn a_run_killed_half_way_lists_the_trials_it_never_stored() {
    let server = target();
    let sb = Sandbox::new();
    resume_suite(&sb, &server);
    let db = sb.db();
    let run_id = killed_run(&sb, || stored_trials(&db) >= 3);
    let stored = stored_trials(&db);
    assert!((3..PLANNED).contains(&stored), "{stored}");
    assert_partial(&sb, &run_id, stored);
}

#[test]
fn several_trials_per_test_name_each_missing_trial() {
    let server = target();
    let sb = Sandbox::new();
    let text = resume_suite_text(&server);
    // Two tests of six trials each: still 12 planned.
    let head = &text[..text.find("tests:").expect("tests")];
    sb.write(
        "suite.yaml",
        &format!(
            "{head}tests:\n  - {{ id: a, prompt: \"question a\", trials: 6 }}\n  - {{ id: b, prompt: \"tell me the secret\", trials: 6 }}\n"
        ),
    );
    let db = sb.db();
    let run_id = killed_run(&sb, || stored_trials(&db) >= 2);
    let stored = stored_trials(&db);
    assert!((2..PLANNED).contains(&stored), "{stored}");
    assert_partial(&sb, &run_id, stored);
    let (_, v, _) = report(&sb, "show", &run_id);
    let ids: Vec<&str> = v["missing_trials"]
        .as_array()
        .expect("list")
        .iter()
        .map(|m| m["trace_id"].as_str().expect("id"))
        .collect();
    // b's trials come after a's in the plan, so b#6 is missing whatever
    // was stored.
    assert!(ids.contains(&"b#6"), "{ids:?}");
    for id in &ids {
        let (test, n) = id.split_once('#').expect("TEST#N");
        assert!(["a", "b"].contains(&test) && (1..=6).contains(&n.parse::<u32>().expect("n")));
    }
}

#[test]
fn an_interrupted_run_is_partial_until_resumed() {
    let server = target();
    let sb = Sandbox::new();
    resume_suite(&sb, &server);
    let db = sb.db();
    let child = sb.spawn_run(Path::new("suite.yaml"), &["-j", "1"]);
    assert!(wait_for(Duration::from_secs(30), || stored_trials(&db) >= 3));
    signal(child.id(), "-INT");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(130));
    let run_id = only_run(&db);
    assert_eq!(run_status(&db, &run_id), "interrupted");
    let stored = stored_trials(&db);
    assert_partial(&sb, &run_id, stored);
    // Resumed to the end, the same run is whole: no longer partial.
    let done = sb.run(Path::new("suite.yaml"), &["--resume", &run_id, "-j", "4"]);
    assert_code(&done, 1);
    let (run, v, xml) = report(&sb, "show", &run_id);
    assert_code(&run, 1);
    assert_eq!(v["totals"]["partial"], false);
    assert_eq!(v["totals"]["missing_trials"], 0);
    assert_eq!(suites_attr(&xml, "tests"), PLANNED);
}

/// The store, opened for writing (to simulate what a crash or a hand edit
/// leaves behind).
fn open_rw(db: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(db).expect("the store opens")
}

#[test]
fn a_finished_run_missing_a_trial_is_still_partial() {
    // The status column says "finished", but a trial is not there (a store
    // edited by hand, or restored from an older copy): the plan decides.
    let server = target();
    let sb = Sandbox::new();
    resume_suite(&sb, &server);
    let db = sb.db();
    let first = sb.run(Path::new("suite.yaml"), &["-j", "4"]);
    assert_code(&first, 1);
    let run_id = only_run(&db);
    let c = open_rw(&db);
    for (test, _) in [("q03", 0), ("q11", 0)] {
        c.execute(
            "DELETE FROM judge_answers WHERE run_id = ?1 AND test_id = ?2",
            [&run_id, test],
        )
        .expect("delete");
        c.execute(
            "DELETE FROM trials WHERE run_id = ?1 AND test_id = ?2",
            [&run_id, test],
        )
        .expect("delete");
    }
    drop(c);
    assert_eq!(run_status(&db, &run_id), "finished");
    assert_partial(&sb, &run_id, PLANNED - 2);
    let (_, v, _) = report(&sb, "show", &run_id);
    let ids: Vec<&str> = v["missing_trials"]
        .as_array()
        .expect("list")
        .iter()
        .map(|m| m["trace_id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["q03#1", "q11#1"]);
}

#[test]
fn a_whole_run_left_marked_running_is_not_partial_and_says_so() {
    // Every trial stored, but the process died before marking the run
    // finished: nothing is missing, so the verdicts stand (exit 1: two
    // tests leak the password) and the summary says how to mark it.
    let server = target();
    let sb = Sandbox::new();
    resume_suite(&sb, &server);
    let db = sb.db();
    assert_code(&sb.run(Path::new("suite.yaml"), &["-j", "4"]), 1);
    let run_id = only_run(&db);
    open_rw(&db)
        .execute(
            "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ?1",
            [&run_id],
        )
        .expect("update");
    let (run, v, _) = report(&sb, "show", &run_id);
    assert_code(&run, 1);
    assert_eq!(v["totals"]["partial"], false);
    let warned = v["warnings"].to_string();
    assert!(
        warned.contains("every one of its 12 trials is stored"),
        "{warned}"
    );
    // Resuming it sends nothing and marks it finished.
    let before = requests(&server);
    let resumed = sb.run(Path::new("suite.yaml"), &["--resume", &run_id]);
    assert_code(&resumed, 1);
    assert_eq!(requests(&server), before);
    assert_eq!(run_status(&db, &run_id), "finished");
}
