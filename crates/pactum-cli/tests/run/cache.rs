//! The answer cache (`docs/store.md`): an unchanged suite sends nothing;
//! changing one variable, one model parameter or one tool definition sends
//! exactly the affected requests; `--no-cache` and `--refresh-cache` send
//! everything.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::json;

use crate::support::*;

/// A sandbox with `cache.yaml` run once (3 target requests, 3 judge
/// requests) and the server's counters reset.
struct Cached {
    server: ScriptedServer,
    sb: Sandbox,
    suite: PathBuf,
    text: String,
}

impl Cached {
    fn new() -> Cached {
        let server = server(json!([
            {"name": "judge", "match": {"system_contains": JUDGE_MARK},
             "judge": {"verdict": "satisfied", "evidence": ["Hello there"]}},
            {"name": "alpha", "match": {"model": "alpha-model"}, "content": "Hello there, alpha here."},
            {"name": "beta", "match": {"model": "beta-model"}, "content": "Hello there, beta here."}
        ]));
        let sb = Sandbox::new();
        let suite = sb.suite(
            "suite.yaml",
            "cache.yaml",
            &[("@SERVER@", server.base_url())],
        );
        let text = std::fs::read_to_string(&suite).expect("suite");
        let c = Cached {
            server,
            sb,
            suite,
            text,
        };
        let (sent, run) = c.run(&[]);
        assert_code(&run, 0);
        assert_eq!(sent, rules(3, 2, 1));
        c
    }

    /// Runs the suite (as it is now on disk) and returns the requests each
    /// rule answered during that run.
    fn run(&self, extra: &[&str]) -> (BTreeMap<String, u64>, Run) {
        self.server.reset().expect("reset");
        let mut args = vec!["-j", "4"];
        args.extend_from_slice(extra);
        let run = self.sb.run(&self.suite, &args);
        (by_rule(&self.server), run)
    }

    /// Edits the suite in one place.
    fn edit(&self, from: &str, to: &str) {
        std::fs::write(&self.suite, replace_once(&self.text, from, to)).expect("edit the suite");
    }

    /// The last user message of each target request of the last run.
    fn prompts_sent(&self) -> Vec<String> {
        let mut p: Vec<String> = bodies(&self.server)
            .iter()
            .filter(|b| b["rule"] != "judge")
            .map(|b| last_user(&b["body"]))
            .collect();
        p.sort();
        p
    }
}

/// Requests by rule in one run (rules that answered none left out).
fn rules(judge: u64, alpha: u64, beta: u64) -> BTreeMap<String, u64> {
    [("judge", judge), ("alpha", alpha), ("beta", beta)]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (k.to_string(), n))
        .collect()
}

#[test]
fn a_second_run_of_an_unchanged_suite_sends_nothing() {
    let c = Cached::new();
    let (sent, run) = c.run(&[]);
    assert_code(&run, 0);
    assert_eq!(sent, rules(0, 0, 0));
    assert_eq!(requests(&c.server), 0);
    assert!(
        run.stderr
            .contains("target calls 0 sent, 3 from cache; judge calls 0 sent, 3 from cache"),
        "{}",
        run.stderr
    );
}

#[test]
fn changing_one_variable_resends_exactly_that_tests_requests() {
    let c = Cached::new();
    c.edit("name: ann", "name: dan");
    let (sent, run) = c.run(&[]);
    assert_code(&run, 0);
    // a1's target turn, and its judge call (the transcript changed).
    assert_eq!(sent, rules(1, 1, 0));
    assert_eq!(c.prompts_sent(), ["Hello from dan"]);
}

#[test]
fn changing_one_model_parameter_resends_exactly_that_targets_requests() {
    let c = Cached::new();
    c.edit("params: { temperature: 0 }", "params: { temperature: 0.5 }");
    let (sent, run) = c.run(&[]);
    assert_code(&run, 0);
    // a1 and a2 go to alpha again; its answers are the same, so the
    // transcripts and the judge requests are too: no judge call.
    assert_eq!(sent, rules(0, 2, 0));
    assert_eq!(c.prompts_sent(), ["Hello from ann", "Hello from bob"]);
    for b in bodies(&c.server) {
        assert_eq!(b["body"]["temperature"], 0.5);
    }
}

#[test]
fn changing_one_tool_definition_resends_exactly_that_targets_requests() {
    let c = Cached::new();
    c.edit(
        "description: Look an order up",
        "description: Look an order up by its id",
    );
    let (sent, run) = c.run(&[]);
    assert_code(&run, 0);
    assert_eq!(sent, rules(0, 2, 0));
    assert_eq!(c.prompts_sent(), ["Hello from ann", "Hello from bob"]);
    for b in bodies(&c.server) {
        assert_eq!(
            b["body"]["tools"][0]["function"]["description"],
            "Look an order up by its id"
        );
    }
}

#[test]
fn no_cache_sends_everything_and_leaves_the_cache_as_it_was() {
    let c = Cached::new();
    let (sent, run) = c.run(&["--no-cache"]);
    assert_code(&run, 0);
    assert_eq!(sent, rules(3, 2, 1));
    let (sent, _) = c.run(&[]);
    assert_eq!(sent, rules(0, 0, 0));
}

#[test]
fn refresh_cache_sends_everything_then_a_plain_run_sends_nothing() {
    let c = Cached::new();
    let (sent, run) = c.run(&["--refresh-cache"]);
    assert_code(&run, 0);
    assert_eq!(sent, rules(3, 2, 1));
    let (sent, run) = c.run(&[]);
    assert_code(&run, 0);
    assert_eq!(sent, rules(0, 0, 0));
    // The refreshed entries are the ones served: each hit once since.
    let db = open_db(&c.sb.db());
    let hits: Vec<i64> = db
        .prepare("SELECT hits FROM cache ORDER BY key")
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(
        hits,
        vec![1; 6],
        "6 entries (3 target, 3 judge), each served once since the refresh"
    );
}

/// A finished run closes its cache reader and lets its writer thread end
/// before the store closes: the store's last connection checkpoints and
/// removes its log, so no `-wal` or `-shm` file is left beside it, run
/// after run. Each run sends and caches its answers (`--refresh-cache`):
/// with the writer thread let go without waiting, most such runs left both
/// files, the thread still holding the store as the process exited.
#[test]
fn a_finished_run_leaves_no_log_beside_the_store() {
    let c = Cached::new();
    for _ in 0..12 {
        let (_, run) = c.run(&["--refresh-cache"]);
        assert_code(&run, 0);
        let dir =
            c.sb.db()
                .parent()
                .expect("the store's folder")
                .to_path_buf();
        let left: Vec<String> = std::fs::read_dir(&dir)
            .expect("the store's folder")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with("-wal") || n.ends_with("-shm"))
            .collect();
        assert!(left.is_empty(), "left beside the store: {left:?}");
    }
}
