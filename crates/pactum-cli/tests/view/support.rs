//! Shared helpers: a sandbox, the real binary, a store of three real runs
//! (built once per test process), and a `pactum view` child with a real
//! HTTP client.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The injection every page must show as text: if it ran, it would set
/// `window.PWNED` and `data-pwned` on the page's root element.
pub const SENTINEL: &str = "</script><script>window.PWNED=1;document.documentElement.setAttribute('data-pwned','1')</script> <img src=x onerror=document.documentElement.setAttribute('data-pwned','2')>";

/// The second suite's file name: markup, as a file name may be.
pub const HOSTILE_SUITE: &str =
    "<img src=x onerror=document.documentElement.setAttribute('data-pwned','3')>.yaml";

/// The test id planted in the second suite's run (a tampered store: a
/// suite cannot declare such an id).
pub const HOSTILE_TEST: &str =
    "<img src=x onerror=document.documentElement.setAttribute('data-pwned','4')>";

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// What one run of `pactum` produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A folder of its own (kept under the target folder when shared).
pub struct Sandbox {
    dir: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// A temporary folder, deleted when dropped.
    pub fn new() -> Sandbox {
        let temp = tempfile::tempdir().expect("a temporary folder");
        Sandbox {
            dir: temp.path().to_path_buf(),
            _temp: Some(temp),
        }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, text).expect("write into the sandbox");
        p
    }

    /// `pactum ARGS` in the sandbox; checks it did not panic.
    pub fn pactum<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let out = Command::new(env!("CARGO_BIN_EXE_pactum"))
            .current_dir(&self.dir)
            .env("NO_COLOR", "1")
            .args(args)
            .stdin(Stdio::null())
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
}

/// A store (`store/pactum.db`) holding three finished runs: run1 and run2
/// of `view.yaml` (its `flip` test passes, then fails after an edit),
/// run3 of a copy named [`HOSTILE_SUITE`] whose `greet` trial was given
/// the id [`HOSTILE_TEST`] in the store.
pub struct Store3 {
    pub sandbox: Sandbox,
    pub run1: String,
    pub run2: String,
    pub run3: String,
    /// The first suite's path as the runs recorded it.
    pub suite_a: String,
}

impl Store3 {
    /// The store, built once per test process (under the target folder's
    /// tmp, where cargo keeps test scratch).
    pub fn get() -> &'static Store3 {
        static STORE: OnceLock<Store3> = OnceLock::new();
        STORE.get_or_init(|| {
            let dir = tempfile::Builder::new()
                .prefix("view-store-")
                .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
                .expect("a scratch folder")
                .keep();
            Store3::build(Sandbox { dir, _temp: None })
        })
    }

    /// A store of this test's own (no other test reads it), deleted
    /// when dropped.
    pub fn fresh() -> Store3 {
        Store3::build(Sandbox::new())
    }

    fn build(sandbox: Sandbox) -> Store3 {
        let fixture = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/view/view.yaml"),
        )
        .expect("the fixture");
        let root = root();
        let suite = |flip: &str| {
            fixture
                .replace("@ROOT@", root.to_str().expect("a UTF-8 root"))
                .replace("@SENTINEL@", SENTINEL)
                .replace("@FLIP@", flip)
        };
        let run = |name: &str| -> String {
            let r = sandbox.pactum([
                "run".as_ref(),
                OsStr::new(name),
                "--db".as_ref(),
                sandbox.path().join("store/pactum.db").as_os_str(),
            ]);
            assert_eq!(r.code, 1, "greet fails: {r:#?}");
            let at = r
                .stderr
                .find("run r")
                .unwrap_or_else(|| panic!("a run id: {r:#?}"));
            let id: String = r.stderr[at + 4..]
                .chars()
                .take_while(|c| *c != ':')
                .collect();
            assert!(id.starts_with('r') && id.len() > 10, "{id}: {r:#?}");
            id
        };
        sandbox.write("view.yaml", &suite(r#"tool lookup {"q": "Ann"}"#));
        let run1 = run("view.yaml");
        sandbox.write("view.yaml", &suite("hello"));
        let run2 = run("view.yaml");
        sandbox.write(HOSTILE_SUITE, &suite("hello"));
        let run3 = run(HOSTILE_SUITE);
        // A tampered store: a test id no suite could declare.
        let db = sandbox.path().join("store/pactum.db");
        {
            let conn = rusqlite::Connection::open(&db).expect("open the store");
            let n = conn
                .execute(
                    "UPDATE trials SET test_id = ?1, \
                     result = json_set(result, '$.trace_id', ?1), \
                     trace = json_set(trace, '$.id', ?1) \
                     WHERE run_id = ?2 AND test_id = 'greet'",
                    rusqlite::params![HOSTILE_TEST, run3],
                )
                .expect("tamper");
            assert_eq!(n, 1);
        }
        let suite_a = sandbox.path().join("view.yaml").display().to_string();
        Store3 {
            sandbox,
            run1,
            run2,
            run3,
            suite_a,
        }
    }

    pub fn db(&self) -> PathBuf {
        self.sandbox.path().join("store/pactum.db")
    }

    /// `pactum view --db STORE --port 0`, once it prints its URL.
    pub fn serve(&self) -> Viewer {
        self.serve_with(&[])
    }

    /// As [`Store3::serve`], with more flags.
    pub fn serve_with(&self, extra: &[&str]) -> Viewer {
        Viewer::start(self.sandbox.path(), &self.db(), extra)
    }
}

/// A `pactum view` child process.
pub struct Viewer {
    child: Child,
    pub port: u16,
    /// The first line on stderr, when `--bind` warned (else empty).
    pub stderr_line: String,
    rt: tokio::runtime::Runtime,
    client: reqwest::Client,
}

impl Viewer {
    fn start(dir: &Path, db: &Path, extra: &[&str]) -> Viewer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pactum"))
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .args(["view", "--port", "0", "--db"])
            .arg(db)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pactum view starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the URL line");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("a URL in {line:?}"));
        let port: u16 = url
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("a port in {url}"));
        let stderr_line = if extra.contains(&"--bind") {
            let mut l = String::new();
            let stderr = child.stderr.take().expect("stderr");
            BufReader::new(stderr).read_line(&mut l).expect("a line");
            l
        } else {
            String::new()
        };
        Viewer {
            child,
            port,
            stderr_line,
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime"),
            client: reqwest::Client::builder()
                .no_proxy()
                .timeout(Duration::from_secs(60))
                .build()
                .expect("a client"),
        }
    }

    /// GET `path`: status, headers (lower-case names), body.
    pub fn get(&self, path: &str) -> (u16, BTreeMap<String, String>, String) {
        let url = format!("http://127.0.0.1:{}{path}", self.port);
        self.rt.block_on(async {
            let r = self
                .client
                .get(&url)
                .send()
                .await
                .unwrap_or_else(|e| panic!("GET {url}: {e}"));
            let status = r.status().as_u16();
            let headers = r
                .headers()
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_string(),
                        v.to_str().unwrap_or_default().to_string(),
                    )
                })
                .collect();
            let body = r.text().await.expect("a body");
            (status, headers, body)
        })
    }

    /// Sends `request` as is over TCP; the whole answer.
    pub fn raw(&self, request: &str) -> String {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        s.write_all(request.as_bytes()).expect("send");
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Stops the server with SIGTERM; its exit code.
    pub fn stop(mut self) -> i32 {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code().unwrap_or(-1);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("pactum view did not stop on SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `s` percent-encoded for a query value.
pub fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}
