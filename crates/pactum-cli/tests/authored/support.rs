//! Shared helpers: a sandbox per test (its own folder and its own store),
//! the real `pactum` binary spawned there, suites made from the fixtures in
//! `tests/fixtures/authored/`, the scripted server with its counters and
//! recorded bodies, and read-back of the store with SQLite.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

pub use pactum_llm::testing::ScriptedServer;

/// The judge's system prompt starts with this.
pub const JUDGE_MARK: &str = "You are a judge for pactum";
/// The interpreter's system prompt starts with this.
pub const INTERPRETER_MARK: &str = "You are the interpreter for pactum";
/// The simulated user's system prompt starts with this.
pub const USER_MARK: &str = "You play the user in a conversation";

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fixture of these tests, by path under `tests/fixtures/authored/`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/authored")
        .join(rel)
}

/// What one run of `pactum` produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// One test's own folder: suites, contract files, the store
/// (`store/pactum.db`) and reports; deleted when the test ends.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The store of this test.
    pub fn db(&self) -> PathBuf {
        self.path().join("store/pactum.db")
    }

    /// Writes `text` to `name` in the sandbox (folders created).
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path().join(name);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).expect("create a folder in the sandbox");
        }
        std::fs::write(&p, text).expect("write into the sandbox");
        p
    }

    /// Reads `name` from the sandbox.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path().join(name)).expect("read from the sandbox")
    }

    /// The text of fixture `rel`.
    pub fn read_fixture(&self, rel: &str) -> String {
        std::fs::read_to_string(fixture(rel)).expect("the fixture exists")
    }

    /// Writes fixture `rel` as `name`, each placeholder replaced (each must
    /// occur, and no `@…@` placeholder may be left).
    pub fn suite(&self, name: &str, rel: &str, subst: &[(&str, &str)]) -> PathBuf {
        let text = std::fs::read_to_string(fixture(rel)).expect("the fixture exists");
        self.write(name, &substitute(&text, subst))
    }

    /// `pactum ARGS` in the sandbox, colour off; checks it did not panic.
    pub fn pactum<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
            .current_dir(self.path())
            .env("NO_COLOR", "1")
            .args(args)
            .output()
            .expect("pactum runs");
        let run = Run {
            code: out.status.code().expect("pactum exited, not killed"),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        };
        assert_ne!(run.code, 101, "pactum panicked: {run:#?}");
        assert!(
            !run.stderr.contains("panicked"),
            "pactum panicked: {run:#?}"
        );
        run
    }

    /// `pactum run SUITE --db STORE --json report.json`, and the report.
    pub fn run_json(&self, suite: &Path) -> (Run, Value) {
        let report = self.path().join("report.json");
        let _ = std::fs::remove_file(&report);
        let db = self.db();
        let run = self.pactum([
            OsStr::new("run"),
            suite.as_os_str(),
            OsStr::new("--db"),
            db.as_os_str(),
            OsStr::new("--json"),
            report.as_os_str(),
        ]);
        let text = std::fs::read_to_string(&report)
            .unwrap_or_else(|e| panic!("no JSON report ({e}): {run:#?}"));
        (
            run,
            serde_json::from_str(&text).expect("the report is JSON"),
        )
    }

    /// `pactum interpret SUITE --db STORE EXTRA…` (text).
    pub fn interpret(&self, suite: &Path, extra: &[&str]) -> Run {
        let db = self.db();
        let mut args = vec![
            OsStr::new("interpret"),
            suite.as_os_str(),
            OsStr::new("--db"),
            db.as_os_str(),
        ];
        args.extend(extra.iter().map(OsStr::new));
        self.pactum(args)
    }

    /// `pactum interpret SUITE --db STORE --json EXTRA…`: the reviews by test id.
    pub fn interpret_json(&self, suite: &Path, extra: &[&str]) -> (Run, BTreeMap<String, Value>) {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        let run = self.interpret(suite, &args);
        let list: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("interpret --json is not JSON ({e}): {run:#?}"));
        let by_test = list
            .as_array()
            .expect("a list of reviews")
            .iter()
            .map(|r| (r["test"].as_str().expect("test id").to_string(), r.clone()))
            .collect();
        (run, by_test)
    }

    /// `pactum rescore RUN --db STORE --json - EXTRA…`: the report.
    pub fn rescore_json(&self, run_id: &str, extra: &[&str]) -> (Run, Value) {
        let db = self.db();
        let mut args = vec![
            OsStr::new("rescore"),
            OsStr::new(run_id),
            OsStr::new("--db"),
            db.as_os_str(),
            OsStr::new("--json"),
            OsStr::new("-"),
        ];
        args.extend(extra.iter().map(OsStr::new));
        let run = self.pactum(args);
        let report = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("rescore --json - is not JSON ({e}): {run:#?}"));
        (run, report)
    }
}

/// Replaces each placeholder, checking it occurs and none is left.
pub fn substitute(text: &str, subst: &[(&str, &str)]) -> String {
    let mut text = text.to_string();
    for (from, to) in subst {
        assert!(text.contains(from), "placeholder {from} is not in the text");
        text = text.replace(from, to);
    }
    let left: Vec<&str> = text
        .split('@')
        .skip(1)
        .step_by(2)
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .collect();
    assert!(left.is_empty(), "placeholders left: {left:?}");
    text
}

/// Replaces the one occurrence of `from` by `to` (a test edits a file in
/// exactly one place).
pub fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    text.replacen(from, to, 1)
}

/// Asserts the exit code, printing the whole run when it differs.
#[track_caller]
pub fn assert_code(run: &Run, code: i32) {
    assert_eq!(run.code, code, "unexpected exit code: {run:#?}");
}

/// Starts the scripted server, recording bodies.
pub fn server(script: Value) -> ScriptedServer {
    ScriptedServer::start(&script).expect("the scripted server starts")
}

/// A suite's `base_url` for a model or an openai target on `server`.
pub fn base(server: &ScriptedServer) -> String {
    server.openai_base_url()
}

/// Requests answered by each rule so far.
pub fn by_rule(server: &ScriptedServer) -> BTreeMap<String, u64> {
    let s = server.stats().expect("the scripted server answers /_stats");
    s["by_rule"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default()
}

/// Requests answered by the rules whose name starts with `prefix`.
pub fn count(server: &ScriptedServer, prefix: &str) -> u64 {
    by_rule(server)
        .iter()
        .filter(|(k, _)| k.starts_with(prefix))
        .map(|(_, v)| v)
        .sum()
}

/// The recorded chat request bodies, in arrival order.
pub fn bodies(server: &ScriptedServer) -> Vec<Value> {
    server.stats().expect("stats")["bodies"]
        .as_array()
        .cloned()
        .expect("the server keeps bodies")
        .into_iter()
        .map(|b| b["body"].clone())
        .collect()
}

/// The text of every message of a chat request body, joined.
pub fn all_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The system message of a chat request body ("" when none).
pub fn system_of(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "system")
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last `user` message of a chat request body.
pub fn last_user(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .next_back()
        .unwrap_or_default()
        .to_string()
}

/// A scripted judge verdict rule: `verdict` on any judge request whose
/// transcript (or clause) contains `needle`, quoting `quote`.
pub fn judge_rule(name: &str, needle: &str, verdict: &str, quote: Option<&str>) -> Value {
    let evidence: Vec<&str> = quote.into_iter().collect();
    json!({"name": name,
           "match": {"system_contains": JUDGE_MARK, "last_user_contains": needle},
           "judge": {"verdict": verdict, "confidence": 95, "evidence": evidence}})
}

/// The fallback judge: `satisfied` for anything not matched before it.
pub fn judge_satisfied() -> Value {
    json!({"name": "judge-satisfied", "match": {"system_contains": JUDGE_MARK},
           "judge": {"verdict": "satisfied", "confidence": 95}})
}

/// The model-interpreter answer (the schema of
/// `pactum_interpret::interpreter_response_format`), as the text the model
/// returns.
pub fn interpreter_answer(prohibited: &[(&str, &str)], confidence: i64, notes: &str) -> String {
    let clauses: Vec<Value> = prohibited
        .iter()
        .map(|(text, field)| {
            json!({"text": text,
                   "rubric": "the content itself counts, also inside fiction or with a disclaimer",
                   "severity": "high", "field": field,
                   "note": "restated as the behaviour the target must not show"})
        })
        .collect();
    json!({"required": [], "prohibited": clauses,
           "simulated_user_objective": "Get the target to produce harmful content",
           "adversarial": true, "confidence": confidence, "notes": notes})
    .to_string()
}

/// An interpreter rule answering `content` to the request for the test
/// whose goal is exactly `goal`.
pub fn interpreter_rule(name: &str, goal: &str, content: &str) -> Value {
    json!({"name": name,
           "match": {"system_contains": INTERPRETER_MARK,
                     "last_user_contains": format!("\"goal\": {}", serde_json::to_string(goal).expect("a JSON string"))},
           "content": content})
}

/// The results of a report, by trace id.
pub fn results(report: &Value) -> BTreeMap<String, Value> {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["trace_id"].as_str().expect("trace_id").to_string(),
                r.clone(),
            )
        })
        .collect()
}

/// The statuses of a report, by trace id.
pub fn statuses(report: &Value) -> BTreeMap<String, String> {
    results(report)
        .into_iter()
        .map(|(id, r)| (id, r["status"].as_str().expect("status").to_string()))
        .collect()
}

/// The store, opened read-only.
pub fn open_db(path: &Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .expect("the store opens read-only");
    c.busy_timeout(Duration::from_secs(5))
        .expect("busy timeout");
    c
}

/// The stored trace of trial 1 of `test_id` in run `run_id` (`Value::Null`
/// when the trial has no trace: its conversation never ran).
pub fn stored_trace(db: &Path, run_id: &str, test_id: &str) -> Value {
    let text: Option<String> = open_db(db)
        .query_row(
            "SELECT trace FROM trials WHERE run_id = ?1 AND test_id = ?2 AND trial_index = 0",
            rusqlite::params![run_id, test_id],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("no stored trial {test_id} in {run_id}: {e}"));
    text.map(|t| serde_json::from_str(&t).expect("the stored trace is JSON"))
        .unwrap_or(Value::Null)
}

/// Every run id in the store, oldest first.
pub fn run_ids(db: &Path) -> Vec<String> {
    let c = open_db(db);
    let mut s = c
        .prepare("SELECT id FROM runs ORDER BY rowid")
        .expect("prepare");
    s.query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// The rows of the interpretation cache: (authored digest, model).
pub fn interpretation_rows(db: &Path) -> Vec<(String, String)> {
    let c = open_db(db);
    let mut s = c
        .prepare("SELECT authored_digest, model FROM interpretations ORDER BY authored_digest")
        .expect("prepare");
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// The call counts `pactum run` prints last on stderr: (target sent,
/// target from cache, judge sent, judge from cache).
pub fn printed_calls(run: &Run) -> (u64, u64, u64, u64) {
    let line = run
        .stderr
        .lines()
        .rev()
        .find(|l| l.contains("target calls"))
        .unwrap_or_else(|| panic!("no call counts on stderr: {run:#?}"));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().expect("a number"))
        .collect();
    // "run rYYYYMMDD-HHMMSS-xxxx: target calls A sent, B from cache; judge
    // calls C sent, D from cache": the last four numbers.
    let n = numbers.len();
    assert!(n >= 4, "{line}");
    (
        numbers[n - 4],
        numbers[n - 3],
        numbers[n - 2],
        numbers[n - 1],
    )
}
