//! Retries of transient failures, the target's concurrency and rate
//! limits, and dead targets, proved with the server's request log.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::*;

/// The arrival time (seconds since the server started) of each recorded
/// request answered by `rule`.
fn arrivals_of(stats: &Value, rule: &str) -> Vec<f64> {
    let arrivals = stats["arrivals"].as_array().expect("arrivals");
    let bodies = stats["bodies"].as_array().expect("bodies");
    assert_eq!(
        arrivals.len(),
        bodies.len(),
        "one arrival per recorded body"
    );
    bodies
        .iter()
        .zip(arrivals)
        .filter(|(b, _)| b["rule"] == rule)
        .map(|(_, a)| a.as_f64().expect("a time"))
        .collect()
}

#[test]
fn transient_failures_are_retried_and_the_trials_pass() {
    let server = server(json!([
        {"name": "rate-busy", "match": {"last_user_contains": "case rate"}, "times": 1,
         "status": 429, "retry_after": 1},
        {"name": "rate-ok", "match": {"last_user_contains": "case rate"}, "content": "all fine"},
        {"name": "flaky-500", "match": {"last_user_contains": "case flaky"}, "times": 1, "status": 500},
        {"name": "flaky-ok", "match": {"last_user_contains": "case flaky"}, "content": "all fine"},
        {"name": "drop", "match": {"last_user_contains": "case dropped"}, "times": 1, "drop": true},
        {"name": "drop-ok", "match": {"last_user_contains": "case dropped"}, "content": "all fine"}
    ]));
    let sb = Sandbox::new();
    let suite = sb.suite(
        "suite.yaml",
        "retries.yaml",
        &[("@SERVER@", server.base_url())],
    );
    let (run, report) = sb.run_json(&suite, &["-j", "3"]);
    assert_code(&run, 0);
    for (id, status) in statuses(&report) {
        assert_eq!(status, "pass", "{id}: {report:#}");
    }
    let expected: std::collections::BTreeMap<String, u64> = [
        "rate-busy",
        "rate-ok",
        "flaky-500",
        "flaky-ok",
        "drop",
        "drop-ok",
    ]
    .iter()
    .map(|r| (r.to_string(), 1))
    .collect();
    assert_eq!(by_rule(&server), expected);

    // Retry-After: 1 was honoured (the backoff alone would be 10–20 ms).
    let s = stats(&server);
    let busy = arrivals_of(&s, "rate-busy");
    let ok = arrivals_of(&s, "rate-ok");
    let waited = ok[0] - busy[0];
    assert!(
        waited >= 0.95,
        "retried after {waited:.3} s, not after Retry-After: 1"
    );
    assert!(waited < 3.0, "retried after {waited:.3} s");
    // The other two were retried after the short backoff, not a second.
    for (first, then) in [("flaky-500", "flaky-ok"), ("drop", "drop-ok")] {
        let gap = arrivals_of(&s, then)[0] - arrivals_of(&s, first)[0];
        assert!(gap < 0.9, "{first}: retried after {gap:.3} s");
    }
}

fn max_in_flight(concurrency: u32) -> u64 {
    max_in_flight_at(concurrency, 16)
}

fn max_in_flight_at(concurrency: u32, jobs: u32) -> u64 {
    let server = server(json!([{"name": "slow", "match": {}, "delay_ms": 150, "content": "ok"}]));
    let sb = Sandbox::new();
    let c = concurrency.to_string();
    let suite = sb.suite(
        "suite.yaml",
        "concurrency.yaml",
        &[("@SERVER@", server.base_url()), ("@CONCURRENCY@", &c)],
    );
    let run = sb.run(&suite, &["-j", &jobs.to_string()]);
    assert_code(&run, 0);
    assert_eq!(requests(&server), 8);
    stats(&server)["max_in_flight"]
        .as_u64()
        .expect("max_in_flight")
}

#[test]
fn the_targets_concurrency_limit_holds_under_a_larger_j() {
    assert_eq!(max_in_flight(2), 2, "concurrency 2 under -j 16");
    // The control: the limit, not the server, is what kept it at 2.
    assert!(max_in_flight(8) > 2, "concurrency 8 under -j 16");
}

/// `-j` bounds the conversations in flight, also now that a finished one
/// waits for its commit without its slot.
#[test]
fn j_bounds_the_conversations_in_flight() {
    assert_eq!(max_in_flight_at(8, 2), 2, "-j 2 under concurrency 8");
    assert_eq!(max_in_flight_at(8, 1), 1, "-j 1 under concurrency 8");
}

#[test]
fn the_targets_rate_limit_spaces_requests() {
    let server = server(json!([{"name": "fast", "match": {}, "content": "ok"}]));
    let sb = Sandbox::new();
    let suite = sb.suite(
        "suite.yaml",
        "rate.yaml",
        &[("@SERVER@", server.base_url())],
    );
    let run = sb.run(&suite, &["-j", "6"]);
    assert_code(&run, 0);
    let s = stats(&server);
    let mut at: Vec<f64> = arrivals_of(&s, "fast");
    assert_eq!(at.len(), 6);
    at.sort_by(f64::total_cmp);
    // 5 per second: starts 200 ms apart at pactum's end. The server sees
    // each one after its own accept and thread start, which a loaded
    // machine delays by tens of milliseconds, hence the slack; unlimited,
    // the six would arrive within a few milliseconds.
    for w in at.windows(2) {
        let gap = w[1] - w[0];
        assert!(gap >= 0.1, "requests {gap:.3} s apart: {at:?}");
    }
    assert!(
        at[5] - at[0] >= 0.85,
        "6 requests over {:.3} s: {at:?}",
        at[5] - at[0]
    );
}

#[test]
fn a_dead_target_ends_error_with_its_attempts_never_pass() {
    let server = server(json!([
        {"name": "healthy", "match": {"model": "healthy-model"}, "content": "hello"},
        {"name": "broken", "match": {"model": "broken-model"}, "status": 500}
    ]));
    let sb = Sandbox::new();
    let dead = closed_port().to_string();
    let suite = sb.suite(
        "suite.yaml",
        "dead.yaml",
        &[("@SERVER@", server.base_url()), ("@DEAD_PORT@", &dead)],
    );
    let (run, report) = sb.run_json(&suite, &["-j", "3"]);
    // Nothing failed, two errors: 3.
    assert_code(&run, 3);
    assert_eq!(
        statuses(&report),
        [
            ("failing#1".into(), "error".into()),
            ("unreachable#1".into(), "error".into()),
            ("working#1".into(), "pass".into())
        ]
        .into()
    );
    // 500 forever: the first attempt and exactly `retries.max` = 2 more.
    assert_eq!(
        by_rule(&server),
        [("broken".into(), 3), ("healthy".into(), 1)].into()
    );
    let res = results(&report);
    for id in ["failing#1", "unreachable#1"] {
        let summary = res[id]["summary"].as_str().expect("summary");
        assert!(summary.contains("after 3 attempt(s)"), "{id}: {summary}");
        // No clause is graded on the empty trace of a dead target.
        assert_ne!(res[id]["status"], "pass");
    }
    assert!(res["failing#1"]["summary"]
        .as_str()
        .unwrap_or("")
        .contains("500"));
    assert!(run.stdout.contains("ERR"), "{}", run.stdout);
    assert_eq!(report["totals"]["error"], 2);
    assert_eq!(report["totals"]["pass"], 1);
}

#[test]
fn an_unreachable_target_says_what_failed_and_why_within_its_retries() {
    // A long endpoint and target name push the OS error past the summary's
    // bound: the bound keeps both ends of the message, so the reason stays.
    let sb = Sandbox::new();
    let dead = closed_port();
    let name = format!("assistant-{}", "x".repeat(60));
    let path = "deployments/customer-support-assistant-production-eu-west/openai/v1".repeat(2);
    sb.write(
        "suite.yaml",
        &format!(
            "version: 1\ntargets:\n  {name}:\n    kind: openai\n    base_url: \"http://127.0.0.1:{dead}/{path}\"\n    model: m\n    observability: response_only\n    retries: {{ max: 1, base_backoff_ms: 10, max_backoff_ms: 20 }}\ndefaults:\n  target: {name}\n  contract:\n    version: 1\n    id: quiet\n    prohibited:\n      - id: leak\n        text: Reveal the admin password\n        check: {{ contains: hunter2 }}\ntests:\n  - {{ id: a, prompt: hi, trials: 2 }}\n  - {{ id: b, prompt: hi }}\n"
        ),
    );
    let (run, report) = sb.run_json(Path::new("suite.yaml"), &["-j", "3"]);
    assert_code(&run, 3);
    assert_eq!(report["totals"]["error"], 3);
    for (id, r) in results(&report) {
        let summary = r["summary"].as_str().expect("summary");
        assert!(summary.chars().count() <= 310, "{id}: {summary}");
        // The policy's one retry: two attempts, no more.
        assert!(summary.contains("after 2 attempt(s)"), "{id}: {summary}");
        assert!(
            summary.to_lowercase().contains("connection refused"),
            "{id}: {summary}"
        );
        assert!(summary.contains("os error"), "{id}: {summary}");
    }
    let err_lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("ERR"))
        .collect();
    assert_eq!(err_lines.len(), 3, "{}", run.stdout);
    for l in err_lines {
        assert!(l.to_lowercase().contains("connection refused"), "{l}");
    }
    // Three calls went out; none was answered.
    assert!(
        run.stderr
            .contains("target calls 3 sent (0 answered, 3 failed), 0 from cache"),
        "{}",
        run.stderr
    );
}
