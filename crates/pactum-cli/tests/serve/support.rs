//! A `pactum serve` child process, raw HTTP to it, OTLP bodies of a
//! scripted agent, and the store it writes.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The fixtures folder.
pub fn fx(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// A running `pactum serve`.
pub struct Served {
    child: Child,
    /// Its address.
    pub addr: String,
    /// Its store.
    pub db: PathBuf,
    out: Arc<Mutex<String>>,
    err: Arc<Mutex<String>>,
    _dir: tempfile::TempDir,
}

/// How a session ended.
pub struct Ended {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The store.
    pub db: PathBuf,
    _dir: tempfile::TempDir,
}

fn pump(r: impl Read + Send + 'static, into: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            let mut s = into.lock().expect("lock");
            s.push_str(&line);
            s.push('\n');
        }
    });
}

impl Served {
    /// Starts `pactum serve` on a free port with `extra` flags.
    pub fn start(extra: &[&str]) -> Served {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("store.db");
        let contract = fx("contracts/serve.yaml");
        let mut child = Command::new(env!("CARGO_BIN_EXE_pactum"))
            .arg("serve")
            .arg("-c")
            .arg(&contract)
            .arg("--db")
            .arg(&db)
            .args(["--listen", "127.0.0.1:0"])
            .args(if extra.contains(&"--quiet-period") {
                &[][..]
            } else {
                &["--quiet-period", "300ms"][..]
            })
            .args(extra)
            .env_remove("PACTUM_DB")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pactum serve");
        let out = Arc::new(Mutex::new(String::new()));
        let err = Arc::new(Mutex::new(String::new()));
        pump(child.stdout.take().expect("stdout"), Arc::clone(&out));
        pump(child.stderr.take().expect("stderr"), Arc::clone(&err));
        let deadline = Instant::now() + Duration::from_secs(30);
        let addr = loop {
            let text = out.lock().expect("lock").clone();
            if let Some(rest) = text.split("http://").nth(1) {
                if let Some(a) = rest.split("/v1/traces").next() {
                    break a.to_string();
                }
            }
            if let Ok(Some(st)) = child.try_wait() {
                panic!("pactum serve exited ({st}): {}", err.lock().expect("lock"));
            }
            assert!(Instant::now() < deadline, "pactum serve did not start");
            std::thread::sleep(Duration::from_millis(20));
        };
        Served {
            child,
            addr,
            db,
            out,
            err,
            _dir: dir,
        }
    }

    /// POSTs `body` to `/v1/traces`: the status and the answer's body.
    pub fn post(&self, content_type: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
        let mut s = std::net::TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let mut head = format!(
            "POST /v1/traces HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.addr,
            body.len()
        );
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        s.write_all(head.as_bytes()).expect("send");
        // A server that answers before reading all (413) may close early.
        let _ = s.write_all(body);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out).into_owned();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let body = text
            .split("\r\n\r\n")
            .nth(1)
            .unwrap_or_default()
            .to_string();
        (status, body)
    }

    /// POSTs an OTLP JSON document; the status.
    pub fn post_json(&self, doc: &Value) -> (u16, String) {
        self.post("application/json", &[], doc.to_string().as_bytes())
    }

    /// Waits until stdout holds `n` graded lines.
    pub fn wait_graded(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = self.out.lock().expect("lock").clone();
            let graded = text
                .lines()
                .filter(|l| {
                    ["PASS ", "FAIL ", "WARN ", "ERR  "]
                        .iter()
                        .any(|p| l.starts_with(p))
                })
                .count();
            if graded >= n {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{n} graded lines expected:\n{text}\n{}",
                self.err.lock().expect("lock")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the server with `signal` (`TERM`, `INT`); how it ended.
    pub fn stop(mut self, signal: &str) -> Ended {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        let code = loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                break status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "pactum serve did not stop");
            std::thread::sleep(Duration::from_millis(20));
        };
        // Let the pumps reach the end of the pipes.
        std::thread::sleep(Duration::from_millis(200));
        let dir = std::mem::replace(&mut self._dir, tempfile::tempdir().expect("tempdir"));
        Ended {
            code,
            stdout: self.out.lock().expect("lock").clone(),
            stderr: self.err.lock().expect("lock").clone(),
            db: self.db.clone(),
            _dir: dir,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One stored trial: test id, status, result, trace.
pub struct Stored {
    /// The OpenTelemetry trace id.
    pub test_id: String,
    /// pass / fail / undetermined / error.
    pub status: String,
    /// The stored result.
    pub result: Value,
    /// The stored trace, when there is one.
    pub trace: Option<Value>,
}

impl Ended {
    /// Every stored trial, and the run's status.
    pub fn stored(&self) -> (String, Vec<Stored>) {
        let conn = rusqlite::Connection::open(&self.db).expect("open store");
        let status: String = conn
            .query_row("SELECT status FROM runs", [], |r| r.get(0))
            .expect("one run");
        let mut st = conn
            .prepare(
                "SELECT test_id, status, result, trace FROM trials ORDER BY test_id, trial_index",
            )
            .expect("prepare");
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                ))
            })
            .expect("query")
            .map(|r| {
                let (test_id, status, result, trace) = r.expect("row");
                Stored {
                    test_id,
                    status,
                    result: serde_json::from_str(&result).expect("result json"),
                    trace: trace.map(|t| serde_json::from_str(&t).expect("trace json")),
                }
            })
            .collect();
        (status, rows)
    }

    /// The stored status of `test_id`.
    pub fn status_of(&self, test_id: &str) -> String {
        self.stored()
            .1
            .into_iter()
            .find(|s| s.test_id == test_id)
            .map(|s| s.status)
            .unwrap_or_else(|| panic!("{test_id} not stored:\n{}\n{}", self.stdout, self.stderr))
    }
}

fn kv(key: &str, v: Value) -> Value {
    json!({"key": key, "value": v})
}

fn s(v: &str) -> Value {
    json!({"stringValue": v})
}

/// A scripted agent turn as OTLP JSON spans: a root `invoke_agent` span,
/// one `chat` span (its messages captured when `content`), and an
/// `execute_tool` span per tool. `root_ends`: whether the root span has
/// ended.
pub fn agent_trace(
    trace_id: &str,
    tools: &[&str],
    answer: &str,
    content: bool,
    root_ends: bool,
) -> Vec<Value> {
    let root = format!("{}01", &trace_id[..14]);
    let mut spans = vec![];
    let mut root_span = json!({
        "traceId": trace_id, "spanId": root, "name": "invoke_agent helper",
        "startTimeUnixNano": "1700000000000000000",
        "attributes": [kv("gen_ai.operation.name", s("invoke_agent")), kv("gen_ai.agent.name", s("helper"))]
    });
    if root_ends {
        root_span["endTimeUnixNano"] = json!("1700000000900000000");
    }
    spans.push(root_span);
    let mut chat_attrs = vec![
        kv("gen_ai.operation.name", s("chat")),
        kv("gen_ai.request.model", s("m")),
    ];
    if content {
        let calls: Vec<Value> = tools
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"type": "tool_call", "id": format!("call_{i}"), "name": t, "arguments": {}}))
            .collect();
        let mut parts = vec![json!({"type": "text", "content": answer})];
        parts.extend(calls);
        chat_attrs.push(kv(
            "gen_ai.input.messages",
            s(&json!([{"role": "user", "parts": [{"type": "text", "content": "Tidy my files."}]}]).to_string()),
        ));
        chat_attrs.push(kv(
            "gen_ai.output.messages",
            s(
                &json!([{"role": "assistant", "parts": parts, "finish_reason": "stop"}])
                    .to_string(),
            ),
        ));
    }
    spans.push(json!({
        "traceId": trace_id, "spanId": format!("{}02", &trace_id[..14]), "parentSpanId": root,
        "name": "chat m", "startTimeUnixNano": "1700000000100000000", "endTimeUnixNano": "1700000000200000000",
        "attributes": chat_attrs
    }));
    for (i, t) in tools.iter().enumerate() {
        spans.push(json!({
            "traceId": trace_id, "spanId": format!("{}{:02}", &trace_id[..14], i + 10), "parentSpanId": root,
            "name": format!("execute_tool {t}"),
            "startTimeUnixNano": "1700000000300000000", "endTimeUnixNano": "1700000000400000000",
            "attributes": [kv("gen_ai.operation.name", s("execute_tool")), kv("gen_ai.tool.name", s(t)), kv("gen_ai.tool.call.id", s(&format!("call_{i}")))]
        }));
    }
    spans
}

/// An OTLP JSON trace request holding `spans`.
pub fn doc(spans: Vec<Value>) -> Value {
    json!({"resourceSpans": [{"resource": {"attributes": [kv("service.name", s("agent"))]}, "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}]})
}
