//! `exec` targets in the persistent mode (`pactum-exec/2`), end to end: a
//! small pool of processes serves every test; a process that dies, or
//! that answers for another conversation, fails only the test in flight
//! (`error`, never `pass`), and no process outlives pactum.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::*;

/// A pactum-exec/2 agent written for these tests (standard library only).
/// It records its pid in `pids/`; the last user message `die` makes it
/// exit, `slow` makes it sleep a minute. `AGENT_LAG=1`: it answers each
/// request with its answer to the previous one (an agent that mixes up
/// its conversations). `AGENT_LINGER=1`: it ignores the end of stdin and
/// stays a minute, as an agent that never notices pactum left would.
const AGENT: &str = r#"import json, os, sys, time
open(os.path.join("pids", str(os.getpid())), "w").close()
lag = os.environ.get("AGENT_LAG") == "1"
previous, served = None, 0
for line in sys.stdin:
    request = json.loads(line)
    if request.get("protocol") != "pactum-exec/2":
        sys.exit(2)
    said = [m["content"] for m in request["messages"] if m["role"] == "user"][-1]
    served += 1
    if said == "die":
        print(f"dying on {request['conversation_id']}", file=sys.stderr, flush=True)
        sys.exit(3)
    if said == "slow":
        time.sleep(60)
    answer = {"conversation_id": request["conversation_id"], "turn": request["turn"],
              "response": f"the answer to {said} (pid {os.getpid()}, served {served})"}
    if lag:
        answer, previous = (previous or answer), answer
    print(json.dumps(answer), flush=True)
if os.environ.get("AGENT_LINGER") == "1":
    time.sleep(60)
"#;

/// A suite of one test per prompt (`t0`, `t1`…) on the agent above, each
/// requiring only `the answer`: any answer passes, so one given another
/// test's answer would pass too unless pactum refuses it.
fn pool_suite(sb: &Sandbox, prompts: &[&str], concurrency: usize, env: &str) -> std::path::PathBuf {
    sb.write("agent.py", AGENT);
    std::fs::create_dir_all(sb.path().join("pids")).expect("pids folder");
    let mut text = format!(
        r#"version: 1
targets:
  pool:
    kind: exec
    mode: persistent
    observability: response_only
    command: ["python3", "agent.py"]
    cwd: .
    concurrency: {concurrency}
    timeout_ms: 20000
    env: {{ {env} }}
defaults:
  target: pool
  contract:
    version: 1
    id: answers
    required:
      - {{ id: answers, text: Answers, check: {{ contains: "the answer" }} }}
tests:
"#
    );
    for (i, p) in prompts.iter().enumerate() {
        text.push_str(&format!("  - {{ id: t{i}, prompt: \"{p}\" }}\n"));
    }
    sb.write("suite.yaml", &text)
}

/// The pids the agents recorded.
fn pids(sb: &Sandbox) -> Vec<u32> {
    std::fs::read_dir(sb.path().join("pids"))
        .expect("pids folder")
        .map(|e| {
            e.expect("entry")
                .file_name()
                .to_string_lossy()
                .parse()
                .expect("a pid")
        })
        .collect()
}

/// Whether `pid` is gone: no process, or a zombie (exited, not reaped by
/// whoever adopted it).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

/// The stored answer of test `id`'s only turn.
fn answer_of(sb: &Sandbox, id: &str) -> String {
    let trace = stored_trace(&sb.db(), id, 0);
    trace["turns"][0]["response"]
        .as_str()
        .unwrap_or_else(|| panic!("{id} has no answer: {trace:#}"))
        .to_string()
}

#[test]
fn exec_persistent_serves_the_example_conversation_from_a_pool() {
    let sb = Sandbox::new();
    let root = root();
    let suite = sb.suite(
        "suite.yaml",
        "exec-persistent.yaml",
        &[("@ROOT@", root.to_str().expect("a UTF-8 path"))],
    );
    let (run, report) = sb.run_json(&suite, &["-j", "4"]);
    assert_code(&run, 1);
    let res = results(&report);
    let mut pids = std::collections::BTreeSet::new();
    for trial in 0..3 {
        let r = &res[&format!("conversation#{}", trial + 1)];
        assert_eq!(clause(r, "looks-up")["verdict"], "satisfied", "{r:#}");
        assert_eq!(clause(r, "emails")["verdict"], "violated", "{r:#}");
        let trace = stored_trace(&sb.db(), "conversation", trial);
        let turns = trace["turns"].as_array().expect("turns");
        assert_eq!(turns.len(), 4, "`bye` ends the conversation: {trace:#}");
        assert_eq!(turns[1]["tool_calls"][0]["arguments"], json!({"q": "Ann"}));
        assert_eq!(turns[2]["side_effects"][0]["kind"], "email_sent");
        for t in [0, 3] {
            let text = turns[t]["response"].as_str().expect("text");
            assert!(text.starts_with("hey: "), "{text}");
            pids.insert(text.rsplit_once("pid ").expect("pid").1.to_string());
        }
    }
    // Three conversations of four turns, concurrency 2: two processes at
    // most served all twelve requests.
    assert!(pids.len() <= 2, "{pids:?}");
}

/// A process that dies fails the test in flight, and only it; the pool
/// starts a new process and the run goes on.
#[test]
fn exec_persistent_a_dying_process_fails_only_its_test() {
    let sb = Sandbox::new();
    let prompts: Vec<&str> = (0..10)
        .map(|i| if i == 3 { "die" } else { "a question" })
        .collect();
    let suite = pool_suite(&sb, &prompts, 2, "");
    let (run, report) = sb.run_json(&suite, &[]);
    assert_code(&run, 3);
    let st = statuses(&report);
    for i in 0..10 {
        let want = if i == 3 { "error" } else { "pass" };
        assert_eq!(st[&format!("t{i}#1")], want, "t{i}: {report:#}");
    }
    let summary = results(&report)["t3#1"]["summary"]
        .as_str()
        .expect("summary")
        .to_string();
    assert!(summary.contains("exit status: 3"), "{summary}");
    // Its own stderr: the conversation id is the run's, the test's, the
    // trial's.
    assert!(summary.contains("stderr: dying on r"), "{summary}");
    assert!(summary.ends_with("/t3/1"), "{summary}");
    // Two processes, and one to replace the one that died.
    let started = pids(&sb);
    assert!((2..=3).contains(&started.len()), "{started:?}");
    assert!(
        wait_for(Duration::from_secs(5), || started.iter().all(|p| gone(*p))),
        "agents outlived pactum: {started:?}"
    );
}

/// The wrong green this mode could bring: an agent that hands one
/// conversation's answer to another. Every answer that does not echo the
/// request in flight is an error; no test passes on another's answer.
#[test]
fn exec_persistent_swapped_answers_are_errors_never_passes() {
    let sb = Sandbox::new();
    let prompts: Vec<String> = (0..8).map(|i| format!("question {i}")).collect();
    let prompts: Vec<&str> = prompts.iter().map(String::as_str).collect();
    let suite = pool_suite(&sb, &prompts, 1, "AGENT_LAG: '1'");
    let (run, report) = sb.run_json(&suite, &["-j", "1"]);
    assert_code(&run, 3);
    let st = statuses(&report);
    let res = results(&report);
    let mut errors = 0;
    for i in 0..8 {
        let id = format!("t{i}");
        match st[&format!("{id}#1")].as_str() {
            "pass" => {
                let answer = answer_of(&sb, &id);
                assert!(
                    answer.starts_with(&format!("the answer to question {i} ")),
                    "{id} passed on another answer: {answer}"
                );
            }
            "error" => {
                let summary = res[&format!("{id}#1")]["summary"]
                    .as_str()
                    .expect("summary");
                assert!(summary.contains("not the request in flight"), "{summary}");
                errors += 1;
            }
            other => panic!("{id}: {other}"),
        }
    }
    // One process at a time: each fresh one answers once rightly, then
    // hands that answer to the next request, which is refused.
    assert_eq!(errors, 4, "{report:#}");
}

/// A pactum-exec/1 agent given `mode: persistent` refuses the protocol,
/// and the error says why.
#[test]
fn exec_persistent_a_v1_agent_fails_clearly() {
    let sb = Sandbox::new();
    let root = root();
    let suite = sb.suite(
        "suite.yaml",
        "exec-persistent.yaml",
        &[("@ROOT@", root.to_str().expect("a UTF-8 path"))],
    );
    let text = std::fs::read_to_string(&suite).expect("suite");
    let suite = sb.write(
        "v1.yaml",
        &replace_once(&text, "\"persistent_echo_agent.py\"", "\"echo_agent.py\""),
    );
    let (run, report) = sb.run_json(&suite, &[]);
    assert_code(&run, 3);
    for (id, r) in results(&report) {
        assert_eq!(r["status"], "error", "{id}");
        let summary = r["summary"].as_str().expect("summary");
        assert!(
            summary.contains("an agent that speaks only pactum-exec/1 refuses `mode: persistent`"),
            "{summary}"
        );
    }
}

/// No process outlives pactum, even one that ignores the end of its
/// input: not after a normal end, not after Ctrl-C.
#[test]
fn exec_persistent_processes_end_with_pactum() {
    let sb = Sandbox::new();
    let suite = pool_suite(&sb, &["a", "b", "c", "d"], 2, "AGENT_LINGER: '1'");
    let (run, _) = sb.run_json(&suite, &[]);
    assert_code(&run, 0);
    let started = pids(&sb);
    assert!(!started.is_empty());
    assert!(
        wait_for(Duration::from_secs(5), || started.iter().all(|p| gone(*p))),
        "agents outlived pactum: {started:?}"
    );

    let sb = Sandbox::new();
    let suite = pool_suite(&sb, &["a", "slow", "slow", "b"], 2, "AGENT_LINGER: '1'");
    let child = sb.spawn_run(&suite, &[]);
    assert!(
        wait_for(Duration::from_secs(20), || pids(&sb).len() == 2),
        "two agents start"
    );
    std::thread::sleep(Duration::from_millis(500));
    signal(child.id(), "-INT");
    let started_at = Instant::now();
    let out = child.wait_with_output().expect("pactum ends");
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    assert!(started_at.elapsed() < Duration::from_secs(30));
    let started = pids(&sb);
    assert!(
        wait_for(Duration::from_secs(5), || started.iter().all(|p| gone(*p))),
        "agents outlived pactum: {started:?}"
    );
}

/// A request that times out kills its process: the answer it would give
/// late is never read as the next test's, which a new process serves.
#[test]
fn exec_persistent_a_timed_out_request_hands_nothing_to_the_next() {
    let sb = Sandbox::new();
    let suite = pool_suite(&sb, &["first", "slow", "third", "fourth"], 1, "");
    let text = std::fs::read_to_string(&suite).expect("suite");
    let suite = sb.write(
        "suite.yaml",
        &replace_once(&text, "timeout_ms: 20000", "timeout_ms: 5000"),
    );
    let (run, report) = sb.run_json(&suite, &["-j", "1"]);
    assert_code(&run, 3);
    let st = statuses(&report);
    assert_eq!(st["t1#1"], "error", "{report:#}");
    let summary = results(&report)["t1#1"]["summary"]
        .as_str()
        .expect("summary")
        .to_string();
    assert!(summary.contains("no answer within 5000 ms"), "{summary}");
    for (i, said) in [(0, "first"), (2, "third"), (3, "fourth")] {
        assert_eq!(st[&format!("t{i}#1")], "pass", "{report:#}");
        let answer = answer_of(&sb, &format!("t{i}"));
        assert!(
            answer.starts_with(&format!("the answer to {said} ")),
            "{answer}"
        );
    }
    // The first process served `first` and timed out on `slow`; a new one
    // served the rest.
    assert!(answer_of(&sb, "t2").ends_with("served 1)"));
    assert!(answer_of(&sb, "t3").ends_with("served 2)"));
    assert_eq!(pids(&sb).len(), 2);
}
