//! Shared helpers: a sandbox per test (its own folder and its own store),
//! spawning the real binary there, suites made from fixtures, the
//! scripted server's counters, and read-back of the store with SQLite.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

pub use pactum_llm::testing::ScriptedServer;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// A fixture of these tests, by path under `tests/fixtures/run/`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/run")
        .join(rel)
}

/// What one run of `pactum` produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout then stderr.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// One test's own folder: the suite files, the store (`store/pactum.db`)
/// and the reports live there; it is deleted when the test ends.
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

    /// The store of this test (its folder is created by pactum).
    pub fn db(&self) -> PathBuf {
        self.path().join("store/pactum.db")
    }

    /// Writes `text` to `name` in the sandbox.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path().join(name);
        std::fs::write(&p, text).expect("write into the sandbox");
        p
    }

    /// Writes fixture `rel` as `name`, each placeholder replaced (each must
    /// occur, and no `@…@` placeholder may be left).
    pub fn suite(&self, name: &str, rel: &str, subst: &[(&str, &str)]) -> PathBuf {
        let text = std::fs::read_to_string(fixture(rel)).expect("the fixture exists");
        let text = substitute(&text, subst);
        self.write(name, &text)
    }

    /// `pactum ARGS` in the sandbox, colour off, with `envs` added to the
    /// environment; checks it did not panic.
    pub fn pactum_env<I, S>(&self, args: I, envs: &[(&str, &str)]) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::cargo_bin("pactum").expect("the pactum binary is built");
        cmd.current_dir(self.path()).env("NO_COLOR", "1").args(args);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("pactum runs");
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

    /// `pactum ARGS` in the sandbox.
    pub fn pactum<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.pactum_env(args, &[])
    }

    /// `pactum run SUITE --db STORE EXTRA…`.
    pub fn run(&self, suite: &Path, extra: &[&str]) -> Run {
        let mut args: Vec<&OsStr> = vec![OsStr::new("run"), suite.as_os_str(), OsStr::new("--db")];
        let db = self.db();
        args.push(db.as_os_str());
        args.extend(extra.iter().map(OsStr::new));
        self.pactum(args)
    }

    /// `pactum run SUITE --db STORE --json report.json EXTRA…`, and the
    /// report.
    pub fn run_json(&self, suite: &Path, extra: &[&str]) -> (Run, Value) {
        let report = self.path().join("report.json");
        let _ = std::fs::remove_file(&report);
        let mut args = vec!["--json", report.to_str().expect("a UTF-8 path")];
        args.extend_from_slice(extra);
        let run = self.run(suite, &args);
        let text = std::fs::read_to_string(&report)
            .unwrap_or_else(|e| panic!("no JSON report ({e}): {run:#?}"));
        (
            run,
            serde_json::from_str(&text).expect("the report is JSON"),
        )
    }

    /// `pactum run SUITE` spawned in the background (to be killed).
    pub fn spawn_run(&self, suite: &Path, extra: &[&str]) -> Child {
        std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
            .current_dir(self.path())
            .env("NO_COLOR", "1")
            .arg("run")
            .arg(suite)
            .arg("--db")
            .arg(self.db())
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pactum starts")
    }

    /// `pactum show RUN --db STORE --json -`: the stored run's report.
    pub fn show_json(&self, run_id: &str) -> Value {
        let db = self.db();
        let run = self.pactum([
            OsStr::new("show"),
            OsStr::new(run_id),
            OsStr::new("--db"),
            db.as_os_str(),
            OsStr::new("--json"),
            OsStr::new("-"),
        ]);
        serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("show --json - is not JSON ({e}): {run:#?}"))
    }
}

/// Replaces each placeholder, checking it occurs and none is left.
pub fn substitute(text: &str, subst: &[(&str, &str)]) -> String {
    let mut text = text.to_string();
    for (from, to) in subst {
        assert!(text.contains(from), "placeholder {from} is not in the text");
        text = text.replace(from, to);
    }
    assert!(
        placeholders(&text).is_empty(),
        "placeholders left: {:?}",
        placeholders(&text)
    );
    text
}

/// The `@NAME@` placeholders (capitals and `_`) in `text`.
fn placeholders(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('@') {
        let after = &rest[i + 1..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || *c == '_')
            .collect();
        if !name.is_empty() && after[name.len()..].starts_with('@') {
            out.push(name.clone());
            rest = &after[name.len() + 1..];
        } else {
            rest = after;
        }
    }
    out
}

/// Replaces the one occurrence of `from` by `to` (a test edits a suite in
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

/// The server's counters.
pub fn stats(server: &ScriptedServer) -> Value {
    server.stats().expect("the scripted server answers /_stats")
}

/// Requests received so far.
pub fn requests(server: &ScriptedServer) -> u64 {
    server
        .requests()
        .expect("the scripted server answers /_stats")
}

/// Requests answered by each rule.
pub fn by_rule(server: &ScriptedServer) -> BTreeMap<String, u64> {
    let s = stats(server);
    s["by_rule"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default()
}

/// The recorded requests: (rule, body, authorization), in arrival order.
pub fn bodies(server: &ScriptedServer) -> Vec<Value> {
    stats(server)["bodies"]
        .as_array()
        .cloned()
        .expect("the server keeps bodies")
}

/// The last `user` message of a chat request body.
pub fn last_user(body: &Value) -> String {
    let messages = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// The judge's system prompt starts with this (the scripted server's
/// judge rules match on it).
pub const JUDGE_MARK: &str = "You are a judge for pactum";

/// A port on 127.0.0.1 nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
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

/// A clause of a result (first contract).
pub fn clause<'a>(result: &'a Value, id: &str) -> &'a Value {
    result["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no clause {id} in {result:#}"))
}

/// The store, opened read-only (pactum may be writing: WAL lets us read).
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

/// Trials stored in the store, whatever the run (0 while it does not
/// exist yet).
pub fn stored_trials(path: &Path) -> u64 {
    if !path.exists() {
        return 0;
    }
    let Ok(c) = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    ) else {
        return 0;
    };
    let _ = c.busy_timeout(Duration::from_secs(2));
    c.query_row("SELECT count(*) FROM trials", [], |r| r.get::<_, i64>(0))
        .map(|n| u64::try_from(n).unwrap_or(0))
        .unwrap_or(0)
}

/// The stored trace of one trial of the newest run.
pub fn stored_trace(path: &Path, test_id: &str, trial_index: u32) -> Value {
    let c = open_db(path);
    let text: String = c
        .query_row(
            "SELECT t.trace FROM trials t JOIN runs r ON r.id = t.run_id
             WHERE t.test_id = ?1 AND t.trial_index = ?2
             ORDER BY julianday(r.started_at) DESC, r.rowid DESC LIMIT 1",
            rusqlite::params![test_id, trial_index],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("no stored trace of {test_id}#{trial_index}: {e}"));
    serde_json::from_str(&text).expect("the stored trace is JSON")
}

/// The id of the only run in the store.
pub fn only_run(path: &Path) -> String {
    let c = open_db(path);
    let ids: Vec<String> = c
        .prepare("SELECT id FROM runs")
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(ids.len(), 1, "one run expected: {ids:?}");
    ids.into_iter().next().expect("one run")
}

/// The status column of a run.
pub fn run_status(path: &Path, run_id: &str) -> String {
    open_db(path)
        .query_row("SELECT status FROM runs WHERE id = ?1", [run_id], |r| {
            r.get(0)
        })
        .expect("the run is stored")
}

/// Waits until `cond` holds, polling every 10 ms; false after `timeout`.
pub fn wait_for(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    cond()
}

/// Snapshot settings: run ids, times, ports, durations and the sandbox
/// folder are replaced, and the pactum version.
pub fn settings(sandbox: &Sandbox) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"pactum \d+\.\d+\.\d+(-[0-9A-Za-z.]+)?", "pactum [VERSION]");
    s.add_filter(r"r\d{8}-\d{6}-[0-9a-f]{4}", "[RUN]");
    s.add_filter(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z", "[TIME]");
    s.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]");
    let dir = sandbox.path().display().to_string();
    s.add_filter(&regex_escape(&dir), "[SANDBOX]");
    // The sandbox may also be seen through a symlink (macOS /private/var).
    if let Ok(canon) = sandbox.path().canonicalize() {
        s.add_filter(&regex_escape(&canon.display().to_string()), "[SANDBOX]");
    }
    s.set_prepend_module_to_snapshot(false);
    s
}

fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A child process killed when dropped (an agent server a test started).
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends `signal` (e.g. `-INT`) to a process with the system's `kill`.
pub fn signal(pid: u32, signal: &str) {
    let ok = std::process::Command::new("kill")
        .arg(signal)
        .arg(pid.to_string())
        .status()
        .expect("kill runs")
        .success();
    assert!(ok, "kill {signal} {pid} failed");
}
