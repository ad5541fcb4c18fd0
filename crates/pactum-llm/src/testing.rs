//! A handle on `testing/scripted_server.py`, the scripted OpenAI-compatible
//! server, for integration tests: it runs as a real process on 127.0.0.1
//! and is killed when the handle is dropped. Compiled with the
//! `test-support` feature; this crate's own tests include the same file.
//!
//! ```no_run
//! # use pactum_llm::testing::ScriptedServer;
//! let server = ScriptedServer::start(&serde_json::json!([
//!     {"match": {"last_user_contains": "hello"}, "content": "hi!"}
//! ])).expect("server starts");
//! let base_url = server.openai_base_url(); // "http://127.0.0.1:PORT/v1"
//! // … run the code under test against base_url …
//! assert_eq!(server.requests().expect("stats"), 1);
//! ```
//!
//! The interpreter is `python3` (override with `PACTUM_PYTHON`); the
//! script path is resolved at compile time (override with
//! `PACTUM_SCRIPTED_SERVER`).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long [`ScriptedServer::start`] waits for the port file.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// A running scripted server. Dropping it kills the process.
#[derive(Debug)]
pub struct ScriptedServer {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
    base_url: String,
}

/// Where `scripted_server.py` is.
pub fn script_path() -> PathBuf {
    match std::env::var_os("PACTUM_SCRIPTED_SERVER") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testing/scripted_server.py"
        )),
    }
}

impl ScriptedServer {
    /// Starts a server with `script` (a list of rules, or an object with
    /// `rules`, `default`, `models`; see `testing/README.md`), recording
    /// request bodies and `Authorization` headers in [`Self::stats`].
    ///
    /// # Errors
    /// When the process cannot be spawned, exits early (a bad script), or
    /// does not write its port within 15 s; the message carries its log.
    pub fn start(script: &Value) -> io::Result<Self> {
        Self::start_with(script, true)
    }

    /// Like [`Self::start`], choosing whether bodies are recorded (leave
    /// them off for large benchmarks).
    ///
    /// # Errors
    /// As [`Self::start`].
    pub fn start_with(script: &Value, keep_bodies: bool) -> io::Result<Self> {
        let dir = tempfile::tempdir()?;
        let script_file = dir.path().join("script.json");
        std::fs::write(&script_file, serde_json::to_vec_pretty(script)?)?;
        let port_file = dir.path().join("port");
        let log = std::fs::File::create(dir.path().join("server.log"))?;
        let python = std::env::var_os("PACTUM_PYTHON").unwrap_or_else(|| "python3".into());
        let mut cmd = Command::new(python);
        cmd.arg(script_path())
            .arg("--script")
            .arg(&script_file)
            .arg("--port")
            .arg("0")
            .arg("--port-file")
            .arg(&port_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        if keep_bodies {
            cmd.arg("--keep-bodies");
        }
        let mut child = cmd.spawn()?;
        let deadline = Instant::now() + START_TIMEOUT;
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                if let Ok(p) = text.trim().parse::<u16>() {
                    break p;
                }
            }
            if let Some(status) = child.try_wait()? {
                let log =
                    std::fs::read_to_string(dir.path().join("server.log")).unwrap_or_default();
                return Err(io::Error::other(format!(
                    "scripted server exited with {status}: {log}"
                )));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(io::Error::other("scripted server did not start in 15 s"));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Ok(ScriptedServer {
            child,
            dir,
            port,
            base_url: format!("http://127.0.0.1:{port}"),
        })
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL an OpenAI-compatible client
    /// is configured with.
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.base_url)
    }

    /// The server process's id (to read its CPU time or memory).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `GET /_stats`: `{"requests", "by_path", "by_rule", "in_flight",
    /// "max_in_flight", "arrivals" (seconds since start), "bodies"?}`.
    ///
    /// # Errors
    /// When the server cannot be reached or answers something else.
    pub fn stats(&self) -> io::Result<Value> {
        let body = self.raw("GET", "/_stats")?;
        serde_json::from_slice(&body).map_err(io::Error::other)
    }

    /// Requests received so far (control endpoints excluded).
    ///
    /// # Errors
    /// As [`Self::stats`].
    pub fn requests(&self) -> io::Result<u64> {
        Ok(self.stats()?["requests"].as_u64().unwrap_or(0))
    }

    /// `POST /_reset`: counters, recorded bodies, `times` and `sequence`
    /// progress back to zero.
    ///
    /// # Errors
    /// As [`Self::stats`].
    pub fn reset(&self) -> io::Result<()> {
        self.raw("POST", "/_reset").map(|_| ())
    }

    /// What the server wrote to stderr so far (one line per request).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    fn raw(&self, method: &str, path: &str) -> io::Result<Vec<u8>> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port))?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            s,
            "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
        )?;
        let mut buf = Vec::new();
        s.read_to_end(&mut buf)?;
        let split = buf
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| io::Error::other("no HTTP header end in the answer"))?;
        Ok(buf.split_off(split + 4))
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
