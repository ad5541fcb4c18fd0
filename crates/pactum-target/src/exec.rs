//! The `exec` target: a local command speaking newline-delimited JSON (the
//! protocols are specified in `docs/targets.md`), in one of two modes
//! ([`ExecMode`]):
//!
//! * `per_conversation` (the default), `pactum-exec/1`: one child process
//!   per conversation, started at its first turn and killed when it ends;
//! * `persistent`, `pactum-exec/2`: a pool of at most `concurrency`
//!   long-lived processes, each serving one request at a time, of any
//!   conversation; every answer echoes the request's `conversation_id` and
//!   `turn`, and one that does not match the request in flight is a
//!   protocol error (never read as this conversation's answer).
//!
//! Per turn pactum writes one line of JSON to the child's stdin and reads
//! one line from its stdout, within the turn timeout. The child's stderr is
//! drained all along into a bounded tail that goes into every error (in
//! the persistent mode, only what was read while the failed request was in
//! flight). A failed turn (a line that is not an answer, no answer in time,
//! an exit, an `"error"`) kills the process: the conversation's state is
//! gone, so a failed turn is never retried. Because each request carries
//! the whole conversation, a fresh process can take over any turn.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pactum_core::json::{parse_strict, StrictJsonError};
use pactum_core::secret::Redactor;
use pactum_core::text::one_line;
use pactum_core::trace::{ObservabilityLevel, Usage};
use pactum_llm::RateLimiter;
use pactum_suite::{misread_env_pass, passed_env_var, ExecMode, TargetSpec};
use serde::Serialize;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::error::TargetError;
use crate::limit::{self, Checked};
use crate::mapping;
use crate::template::read_secret;
use crate::{finish_text, Conversation, Message, Reply, RunSecrets, MAX_REPLY_BYTES};

/// The protocol name and version written in every request of the
/// `per_conversation` mode.
pub const PROTOCOL: &str = "pactum-exec/1";

/// The protocol of the `persistent` mode: `pactum-exec/1`'s request, and
/// an answer that echoes the request's `conversation_id` and `turn`.
pub const PERSISTENT_PROTOCOL: &str = "pactum-exec/2";

/// Bytes of a child's stderr kept (the last ones): the tail of a traceback
/// is what explains a failure.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// Characters of that tail shown in an error.
const STDERR_SHOWN_CHARS: usize = 1000;

/// Bytes of stderr gathered past [`STDERR_TAIL_BYTES`] before the tail is
/// redacted and cut back (so it is not redacted on every read).
const STDERR_SLACK_BYTES: usize = 4 * 1024;

/// Keys a `pactum-exec/1` answer may have.
const ANSWER_KEYS: [&str; 6] = [
    "response",
    "tool_calls",
    "side_effects",
    "end",
    "error",
    "usage",
];

/// Keys a `pactum-exec/2` answer has besides [`ANSWER_KEYS`], both
/// required: the request's own values, echoed.
const ECHO_KEYS: [&str; 2] = ["conversation_id", "turn"];

/// Reads of a process's stderr made before the tail is unlocked, so a
/// process flooding stderr cannot hold it.
const STDERR_READS_PER_LOCK: usize = 16;

/// How long pactum waits for a process to be reaped, or for its stderr to
/// drain, once it has exited or been killed.
const REAP_WAIT: Duration = Duration::from_millis(500);

/// One request line.
#[derive(Serialize)]
struct Request<'a> {
    protocol: &'static str,
    conversation_id: &'a str,
    turn: u32,
    messages: &'a [Message],
    vars: &'a Map<String, Value>,
}

/// The last [`STDERR_TAIL_BYTES`] a child wrote to stderr.
#[derive(Default)]
struct StderrTail {
    bytes: Vec<u8>,
    dropped: bool,
}

impl StderrTail {
    /// Forgets what was kept: a persistent process's next request starts
    /// with an empty tail.
    fn clear(&mut self) {
        self.bytes.clear();
        self.dropped = false;
    }

    /// Appends what the process wrote. Past the bound, what is kept is
    /// redacted first and cut to its last [`STDERR_TAIL_BYTES`] after: a
    /// cut never leaves part of a secret (one still being written is at
    /// the end, kept whole, and redacted once it is complete).
    fn push(&mut self, chunk: &[u8], redactor: &Redactor) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() <= STDERR_TAIL_BYTES + STDERR_SLACK_BYTES {
            return;
        }
        let complete = complete_utf8_len(&self.bytes);
        let mut kept = redactor
            .redact(&String::from_utf8_lossy(&self.bytes[..complete]))
            .into_owned()
            .into_bytes();
        kept.extend_from_slice(&self.bytes[complete..]);
        if kept.len() > STDERR_TAIL_BYTES {
            let mut cut = kept.len() - STDERR_TAIL_BYTES;
            while kept.get(cut).is_some_and(|b| b & 0xC0 == 0x80) {
                cut += 1;
            }
            kept.drain(..cut);
            self.dropped = true;
        }
        self.bytes = kept;
    }
}

/// The length of `b` without a UTF-8 sequence its last bytes leave
/// incomplete (the rest of it has not been read yet).
fn complete_utf8_len(b: &[u8]) -> usize {
    let n = b.len();
    for back in 1..=n.min(4) {
        let byte = b[n - back];
        if byte & 0xC0 == 0x80 {
            continue;
        }
        let need = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if need > back { n - back } else { n };
    }
    n
}

/// A running child: for one conversation, or in the persistent pool. No
/// `Debug`: its stderr may hold secrets.
struct Session {
    /// Leads its own process group ([`kill_group`] on drop).
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<StderrTail>>,
    /// Where stderr is read from, shared with the task that drains it.
    stderr_pipe: Arc<StderrPipe>,
    stderr_task: Option<JoinHandle<()>>,
    /// Requests this process answered.
    served: u64,
    /// per_conversation: held while the process lives (the concurrency
    /// limit counts conversations). persistent: `None`, the permit is held
    /// per request.
    _permit: Option<OwnedSemaphorePermit>,
}

/// A child's stderr, read without blocking, so that whatever it holds can
/// be taken at once ([`StderrPipe::pull`]).
#[cfg(unix)]
struct StderrPipe(tokio::net::unix::pipe::Receiver);

#[cfg(unix)]
impl StderrPipe {
    fn new(stderr: ChildStderr) -> std::io::Result<StderrPipe> {
        tokio::net::unix::pipe::Receiver::from_owned_fd(stderr.into_owned_fd()?).map(StderrPipe)
    }

    /// Waits until there may be something to read (or the pipe closed).
    async fn ready(&self) -> bool {
        self.0.readable().await.is_ok()
    }

    /// Moves what the pipe holds now into `tail`, at most `max_reads`
    /// reads; `false` once the pipe is closed.
    fn pull(&self, tail: &mut StderrTail, redactor: &Redactor, max_reads: usize) -> bool {
        let mut buf = [0u8; 4096];
        for _ in 0..max_reads {
            match self.0.try_read(&mut buf) {
                Ok(0) => return false,
                Ok(n) => tail.push(&buf[..n], redactor),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return true,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        true
    }
}

/// Elsewhere stderr is read as a stream: what it holds cannot be taken at
/// once, so a persistent process's tail may show a late line of its
/// previous request.
#[cfg(not(unix))]
struct StderrPipe(tokio::sync::Mutex<ChildStderr>);

#[cfg(not(unix))]
impl StderrPipe {
    fn new(stderr: ChildStderr) -> std::io::Result<StderrPipe> {
        Ok(StderrPipe(tokio::sync::Mutex::new(stderr)))
    }
}

type Slot = Arc<tokio::sync::Mutex<Option<Session>>>;

/// A local command as a target. Build it with [`crate::Target::new`].
/// Its `Debug` output names the `env` settings but shows no value.
pub struct ExecTarget {
    name: String,
    observability: ObservabilityLevel,
    limits: Checked,
    command: Vec<String>,
    cwd: PathBuf,
    /// Variables added to the inherited environment, as written.
    env: BTreeMap<String, String>,
    /// The process's own variables: the literal `env` values, and the
    /// values of those passed on (`{{ env.NAME }}`).
    vars: BTreeMap<String, String>,
    /// Inherited variables the process does not get: pactum's key
    /// variables, and any other holding one of the run's secrets.
    withheld: Vec<OsString>,
    /// The passed values and the run's secrets.
    redactor: Redactor,
    permits: Arc<Semaphore>,
    limiter: Option<RateLimiter>,
    mode: ExecMode,
    /// per_conversation: the live processes, by conversation.
    sessions: Mutex<HashMap<String, Slot>>,
    /// persistent: the processes waiting for a request (at most
    /// `concurrency`, minus those serving one).
    idle: Mutex<Vec<Session>>,
    /// persistent: some process of the pool has answered a request (an
    /// agent that has is not one that speaks only `pactum-exec/1`).
    answered: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for ExecTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecTarget")
            .field("name", &self.name)
            .field("observability", &self.observability)
            .field("limits", &self.limits)
            .field("command", &self.command)
            .field("cwd", &self.cwd)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("mode", &self.mode)
            .field("conversations", &self.sessions().len())
            .finish_non_exhaustive()
    }
}

/// How reading one answer line ended.
enum LineRead {
    Line(Vec<u8>),
    Eof,
    TooLong,
}

/// Why one exchange failed, before the process is reaped.
enum Broken {
    /// stdout closed or stdin refused: the process is exiting.
    Closed,
    TooLong,
    Io(String),
}

impl ExecTarget {
    pub(crate) fn new(
        cfg: &TargetSpec,
        command: &[String],
        cwd: &std::path::Path,
        env: &BTreeMap<String, String>,
        mode: ExecMode,
        run: &RunSecrets,
    ) -> Result<Self, TargetError> {
        let name = cfg.name.clone();
        let config = |field: &str, reason: String| TargetError::Config {
            target: name.clone(),
            field: field.to_string(),
            reason,
        };
        let limits = limit::check(&name, &cfg.limits)?;
        match command.first() {
            Some(p) if !p.trim().is_empty() => {}
            _ => return Err(config("command", "must name a program".into())),
        }
        if !cwd.is_dir() {
            return Err(config(
                "cwd",
                format!("`{}` is not a directory", cwd.display()),
            ));
        }
        for k in env.keys() {
            if k.is_empty() || k.contains('=') || k.contains('\0') {
                return Err(config(
                    &format!("env.{k}"),
                    "not a valid environment variable name".into(),
                ));
            }
        }
        if let Some((k, _)) = env.iter().find(|(_, v)| v.contains('\0')) {
            return Err(config(&format!("env.{k}"), "holds a NUL byte".into()));
        }
        let mut vars = BTreeMap::new();
        let mut passed = Vec::new();
        for (k, v) in env {
            if misread_env_pass(v) {
                return Err(config(
                    &format!("env.{k}"),
                    "an `env` value is literal text, or exactly `{{ env.NAME }}` to pass on the variable NAME".into(),
                ));
            }
            let value = match passed_env_var(v) {
                Some(var) => {
                    let value = read_secret(&name, var)?;
                    passed.push(value.clone());
                    value
                }
                None => v.clone(),
            };
            vars.insert(k.clone(), value);
        }
        let redactor = Redactor::new(&passed)
            .and_then(|r| r.with(&run.redactor))
            .map_err(|e| config("env", format!("the secrets to redact {e}")))?;
        // Keys never leave pactum's environment unless `env` passes them:
        // neither under their own names nor under another that holds the
        // same value.
        let mut withheld: Vec<OsString> = run.key_vars.iter().map(OsString::from).collect();
        for (k, v) in std::env::vars_os() {
            if v.to_str().is_some_and(|v| redactor.finds_secret_in(v)) {
                withheld.push(k);
            }
        }
        withheld.retain(|k| k.to_str().is_none_or(|k| !env.contains_key(k)));
        withheld.sort();
        withheld.dedup();
        Ok(ExecTarget {
            vars,
            withheld,
            redactor,
            observability: cfg.observability,
            permits: Arc::new(Semaphore::new(limits.concurrency)),
            limiter: limits.requests_per_second.map(RateLimiter::per_second),
            limits,
            command: command.to_vec(),
            cwd: cwd.to_path_buf(),
            env: env.clone(),
            mode,
            sessions: Mutex::new(HashMap::new()),
            idle: Mutex::new(Vec::new()),
            answered: std::sync::atomic::AtomicBool::new(false),
            name,
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn observability(&self) -> ObservabilityLevel {
        self.observability
    }

    /// The values it passes on and the run's secrets.
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        // The map is only inserted into and removed from: a panic elsewhere
        // cannot leave it inconsistent, so a poisoned lock is usable.
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn slot(&self, id: &str) -> Slot {
        self.sessions()
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(None)))
            .clone()
    }

    /// Forgets `slot` for `id`, unless a newer one replaced it.
    fn forget(&self, id: &str, slot: &Slot) {
        let mut map = self.sessions();
        if map.get(id).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            map.remove(id);
        }
    }

    fn spawn(&self, permit: Option<OwnedSemaphorePermit>) -> Result<Session, TargetError> {
        let program = &self.command[0];
        let mut cmd = Command::new(program);
        for var in &self.withheld {
            cmd.env_remove(var);
        }
        cmd.args(&self.command[1..])
            .current_dir(&self.cwd)
            .envs(&self.vars)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a Ctrl-C in the terminal reaches
            // pactum, which ends the run, and not the agents, whose deaths
            // would otherwise be recorded as failed conversations.
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| TargetError::Process {
            target: self.name.clone(),
            detail: format!(
                "cannot start `{}` in {}: {e}",
                one_line(program, 200),
                self.cwd.display()
            ),
            stderr: None,
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // Cannot happen with three piped streams; fail rather than hang.
            return Err(TargetError::Process {
                target: self.name.clone(),
                detail: "the process's standard streams are not available".into(),
                stderr: None,
            });
        };
        let pipe = Arc::new(StderrPipe::new(stderr).map_err(|e| TargetError::Process {
            target: self.name.clone(),
            detail: format!("the process's stderr cannot be read: {e}"),
            stderr: None,
        })?);
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let task = tokio::spawn(drain_stderr(
            pipe.clone(),
            tail.clone(),
            self.redactor.clone(),
        ));
        Ok(Session {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            stderr: tail,
            stderr_pipe: pipe,
            stderr_task: Some(task),
            served: 0,
            _permit: permit,
        })
    }

    /// The request line for one turn of `conv`, in this target's protocol.
    fn request_line(&self, conv: &Conversation) -> Vec<u8> {
        let mut line = serde_json::to_vec(&Request {
            protocol: self.protocol(),
            conversation_id: &conv.id,
            turn: conv.turn,
            messages: &conv.messages,
            vars: &conv.vars,
        })
        .unwrap_or_default();
        line.push(b'\n');
        line
    }

    fn protocol(&self) -> &'static str {
        match self.mode {
            ExecMode::PerConversation => PROTOCOL,
            ExecMode::Persistent => PERSISTENT_PROTOCOL,
        }
    }

    pub(crate) async fn reply(&self, conv: &Conversation) -> Result<Reply, TargetError> {
        match self.mode {
            ExecMode::PerConversation => self.reply_in_own_process(conv).await,
            ExecMode::Persistent => self.reply_from_pool(conv).await,
        }
    }

    /// persistent: one request, served by an idle process of the pool or
    /// a new one. The permit is held for this request only; a process
    /// that answered goes back to the pool, one that failed is killed
    /// (the next request starts a new one).
    async fn reply_from_pool(&self, conv: &Conversation) -> Result<Reply, TargetError> {
        let _permit = self.permit().await?;
        if let Some(l) = &self.limiter {
            l.wait().await;
        }
        // The permit bounds the processes: idle ones plus those serving a
        // request never exceed `concurrency`.
        let mut session = match self.take_idle() {
            Some(s) => s,
            None => self.spawn(None)?,
        };
        // This request's stderr tail starts empty: what the process wrote
        // before its last answer was read belongs to earlier requests.
        #[cfg(unix)]
        {
            let mut tail = session.stderr.lock().unwrap_or_else(|p| p.into_inner());
            session
                .stderr_pipe
                .pull(&mut tail, &self.redactor, usize::MAX);
            tail.clear();
        }
        #[cfg(not(unix))]
        session
            .stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        let line = self.request_line(conv);
        // As in the other mode, the session is owned by this call while
        // the request runs: dropped mid-way, its process is killed, so its
        // late answer reaches no other request.
        let result = self.timed_exchange(&mut session, &line, conv).await;
        match result {
            Ok(reply) => {
                session.served += 1;
                self.answered
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                self.idle_pool().push(session);
                Ok(reply)
            }
            Err(failed) => Err(self.failure(session, failed, conv.turn).await),
        }
    }

    fn idle_pool(&self) -> std::sync::MutexGuard<'_, Vec<Session>> {
        // Only pushed to and popped from: a poisoned lock is usable.
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An idle process that is still running. One that exited between
    /// requests failed no request: it is reaped and left out.
    fn take_idle(&self) -> Option<Session> {
        loop {
            let mut s = self.idle_pool().pop()?;
            match s.child.try_wait() {
                Ok(None) => return Some(s),
                _ => {
                    if let Some(task) = s.stderr_task.take() {
                        task.abort();
                    }
                }
            }
        }
    }

    /// Writes `line` and reads its answer within the turn timeout, then
    /// checks the answer against `conv` (both modes).
    async fn timed_exchange(
        &self,
        session: &mut Session,
        line: &[u8],
        conv: &Conversation,
    ) -> Result<Reply, Failed> {
        let started = Instant::now();
        let outcome = tokio::time::timeout(self.limits.timeout, exchange(session, line)).await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        match outcome {
            Ok(Ok(bytes)) => self.answer(&bytes, conv, latency_ms),
            Ok(Err(broken)) => Err(Failed::Broken(broken)),
            Err(_elapsed) => Err(Failed::Timeout),
        }
    }

    /// A slot for one more process (`concurrency` bounds them).
    async fn permit(&self) -> Result<OwnedSemaphorePermit, TargetError> {
        self.permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| TargetError::Process {
                target: self.name.clone(),
                detail: "the target is shutting down".into(),
                stderr: None,
            })
    }

    /// per_conversation: one turn, in the conversation's own process.
    async fn reply_in_own_process(&self, conv: &Conversation) -> Result<Reply, TargetError> {
        let slot = self.slot(&conv.id);
        let mut guard = slot.lock().await;
        if guard.is_none() {
            let permit = self.permit().await?;
            match self.spawn(Some(permit)) {
                Ok(s) => *guard = Some(s),
                Err(e) => {
                    drop(guard);
                    self.forget(&conv.id, &slot);
                    return Err(e);
                }
            }
        }
        if let Some(l) = &self.limiter {
            l.wait().await;
        }
        let line = self.request_line(conv);
        // The session is owned by this call while the turn runs: if the
        // caller drops the future mid-turn, the session drops with it (the
        // process is killed, the slot freed), so no half-read answer is
        // left for the next turn.
        let Some(mut session) = guard.take() else {
            return Err(TargetError::Process {
                target: self.name.clone(),
                detail: "the process is gone".into(),
                stderr: None,
            });
        };
        let result = self.timed_exchange(&mut session, &line, conv).await;
        match result {
            Ok(reply) if !reply.ended => {
                *guard = Some(session);
                Ok(reply)
            }
            Ok(reply) => {
                drop(guard);
                self.forget(&conv.id, &slot);
                shut_down(session).await;
                Ok(reply)
            }
            Err(failed) => {
                drop(guard);
                self.forget(&conv.id, &slot);
                Err(self.failure(session, failed, conv.turn).await)
            }
        }
    }

    /// Parses one answer line, strictly: a key repeated in any object is a
    /// protocol error ([`pactum_core::json::parse_strict`]; SPEC §4), never
    /// read last-wins. In the persistent mode the line must first echo the
    /// request's `conversation_id` and `turn` ([`check_echo`]).
    /// Secrets are redacted from the whole line before it is read.
    fn answer(&self, bytes: &[u8], conv: &Conversation, latency_ms: u64) -> Result<Reply, Failed> {
        let turn = conv.turn;
        let protocol = self.protocol();
        let Ok(line) = std::str::from_utf8(bytes) else {
            return Err(Failed::Protocol(format!(
                "turn {turn}: the answer line is not UTF-8: `{}`",
                self.redactor.excerpt(&String::from_utf8_lossy(bytes), 200)
            )));
        };
        let raw = line;
        let line = self.redactor.redact(raw);
        let value = read_line(line.as_bytes())
            .map_err(|d| Failed::Protocol(format!("turn {turn}: {d}")))?;
        if protocol == PERSISTENT_PROTOCOL {
            check_echo(&value, &self.redactor.redact(&conv.id), turn)
                .map_err(|d| Failed::Protocol(format!("turn {turn}: {d}")))?;
        }
        let parsed = parse_answer(&value, protocol)
            .map_err(|d| Failed::Protocol(format!("turn {turn}: {d}")))?;
        // Where the line held a secret, read from the line as received (in
        // memory only): the trace records the channel.
        let redacted = self.redactor.channels_in_raw(raw, &line, |raw| {
            let p = parse_answer(&read_line(raw.as_bytes()).ok()?, protocol).ok()?;
            Some((p.response, p.tool_calls, p.side_effects))
        });
        if let Some(err) = parsed.error {
            return Err(Failed::Agent(format!(
                "the agent reported an error on turn {turn}: {}",
                one_line(&err, 500)
            )));
        }
        Ok(Reply {
            text: finish_text(parsed.response, !parsed.tool_calls.is_empty()),
            tool_calls: parsed.tool_calls,
            side_effects: parsed.side_effects,
            conversation_id: None,
            usage: parsed.usage,
            latency_ms,
            ended: parsed.end,
            attempts: 1,
            redacted,
        })
    }

    /// Kills the session of a failed turn and builds the error, with the
    /// child's exit status and stderr tail.
    async fn failure(&self, mut s: Session, failed: Failed, turn: u32) -> TargetError {
        let target = self.name.clone();
        // The protocol hint only while no process of the pool ever
        // answered: an agent that has speaks pactum-exec/2.
        let first = s.served == 0 && !self.answered.load(std::sync::atomic::Ordering::Relaxed);
        let status = match failed {
            // The process closed its end: wait for it to exit on its own.
            Failed::Broken(Broken::Closed) => tokio::time::timeout(REAP_WAIT, s.child.wait())
                .await
                .ok()
                .and_then(Result::ok),
            _ => None,
        };
        kill_group(&s.child);
        let _ = s.child.start_kill();
        let _ = tokio::time::timeout(REAP_WAIT, s.child.wait()).await;
        let stderr = self.stderr_tail(&mut s).await;
        match failed {
            Failed::Timeout => TargetError::Timeout {
                target,
                after_ms: u64::try_from(self.limits.timeout.as_millis()).unwrap_or(u64::MAX),
                attempts: 1,
                stderr,
            },
            Failed::Protocol(detail) => TargetError::Protocol {
                target,
                detail,
                attempts: 1,
                stderr,
            },
            Failed::Agent(detail) => TargetError::Process {
                target,
                detail,
                stderr,
            },
            Failed::Broken(Broken::TooLong) => TargetError::Protocol {
                target,
                detail: format!("turn {turn}: the answer line exceeds {MAX_REPLY_BYTES} bytes"),
                attempts: 1,
                stderr,
            },
            Failed::Broken(Broken::Io(e)) => TargetError::Process {
                target,
                detail: format!("turn {turn}: talking to the process failed: {e}"),
                stderr,
            },
            Failed::Broken(Broken::Closed) => TargetError::Process {
                target,
                detail: match status {
                    Some(st) => exit_detail(st, turn),
                    None => format!("the process closed its output before answering turn {turn}"),
                } + if self.mode == ExecMode::Persistent && first {
                    NOT_V2_HINT
                } else {
                    ""
                },
                stderr,
            },
        }
    }

    /// The child's stderr tail, once it has drained (bounded wait), as one
    /// escaped line ending with the last [`STDERR_SHOWN_CHARS`] characters:
    /// redacted, then cut.
    async fn stderr_tail(&self, s: &mut Session) -> Option<String> {
        if let Some(task) = s.stderr_task.take() {
            let _ = tokio::time::timeout(REAP_WAIT, task).await;
        }
        let t = s.stderr.lock().unwrap_or_else(|p| p.into_inner());
        let text = String::from_utf8_lossy(&t.bytes);
        let folded = self.redactor.excerpt(&text, usize::MAX);
        if folded.is_empty() {
            return None;
        }
        let count = folded.chars().count();
        Some(if count > STDERR_SHOWN_CHARS || t.dropped {
            let tail: String = folded
                .chars()
                .skip(count.saturating_sub(STDERR_SHOWN_CHARS))
                .collect();
            format!("…{tail}")
        } else {
            folded
        })
    }

    /// Ends a conversation. per_conversation: kills its process. persistent:
    /// nothing to do, the processes serve every conversation.
    pub(crate) async fn close(&self, conversation_id: &str) {
        let slot = self.sessions().remove(conversation_id);
        if let Some(slot) = slot {
            let session = slot.lock().await.take();
            if let Some(s) = session {
                shut_down(s).await;
            }
        }
    }

    /// Everything that can change an answer: the command, the working
    /// directory, the `env` settings, the protocol version, and the mode
    /// when it is not the default (the default's identity is unchanged, so
    /// answers cached before modes existed are still found).
    pub(crate) fn identity(&self) -> Value {
        let mut id = json!({
            "version": crate::IDENTITY_VERSION,
            "kind": "exec",
            "protocol": self.protocol(),
            "command": self.command,
            "cwd": self.cwd.to_string_lossy(),
            "env": self.env,
        });
        if !self.mode.is_default() {
            id["mode"] = json!(self.mode.as_str());
        }
        id
    }
}

/// Added to the error of a persistent process that exits before its first
/// answer: what a `pactum-exec/1` agent refusing the protocol does.
const NOT_V2_HINT: &str = " (its first request: an agent that speaks only pactum-exec/1 refuses `mode: persistent`, which speaks pactum-exec/2)";

/// Drains a child's stderr into `tail` until the pipe closes.
#[cfg(unix)]
async fn drain_stderr(pipe: Arc<StderrPipe>, tail: Arc<Mutex<StderrTail>>, redactor: Redactor) {
    while pipe.ready().await {
        let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
        if !pipe.pull(&mut t, &redactor, STDERR_READS_PER_LOCK) {
            break;
        }
    }
}

/// Drains a child's stderr into `tail` until it closes.
#[cfg(not(unix))]
async fn drain_stderr(pipe: Arc<StderrPipe>, tail: Arc<Mutex<StderrTail>>, redactor: Redactor) {
    let mut stderr = pipe.0.lock().await;
    let mut buf = vec![0u8; 4096];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => tail
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(&buf[..n], &redactor),
        }
    }
}

/// Checks that a `pactum-exec/2` answer echoes the request in flight: its
/// `conversation_id` (as redacted) and its `turn`. An answer out of order,
/// a late answer of an abandoned request, or one for another conversation
/// is refused, never read as this conversation's.
fn check_echo(v: &Value, conversation_id: &str, turn: u32) -> Result<(), String> {
    let Value::Object(m) = v else {
        return Err("the answer is not a JSON object".into());
    };
    let (Some(id), Some(t)) = (m.get(ECHO_KEYS[0]), m.get(ECHO_KEYS[1])) else {
        return Err(
            "the answer does not echo `conversation_id` and `turn`: pactum-exec/2 (`mode: persistent`) requires both, a pactum-exec/1 agent cannot serve it"
            .into());
    };
    if id.as_str() == Some(conversation_id) && t.as_u64() == Some(u64::from(turn)) {
        return Ok(());
    }
    let shown = |v: &Value| match v {
        Value::String(s) => format!("`{}`", one_line(s, 80)),
        other => one_line(&other.to_string(), 80),
    };
    Err(format!(
        "the answer is for conversation {} turn {}, not the request in flight (conversation `{}` turn {turn}): an answer out of order, late, or for another conversation is never read",
        shown(id),
        shown(t),
        one_line(conversation_id, 80),
    ))
}

/// Why a turn failed.
enum Failed {
    Broken(Broken),
    Timeout,
    Protocol(String),
    Agent(String),
}

fn exit_detail(status: ExitStatus, turn: u32) -> String {
    if status.success() {
        format!("the process exited (status 0) before answering turn {turn}")
    } else {
        format!("the process ended with {status} before answering turn {turn}")
    }
}

/// Writes one request line and reads one answer line.
async fn exchange(s: &mut Session, line: &[u8]) -> Result<Vec<u8>, Broken> {
    let written = async {
        s.stdin.write_all(line).await?;
        s.stdin.flush().await
    }
    .await;
    if let Err(e) = written {
        return Err(match e.kind() {
            std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset => Broken::Closed,
            _ => Broken::Io(e.to_string()),
        });
    }
    match read_line_bounded(&mut s.stdout, MAX_REPLY_BYTES).await {
        Ok(LineRead::Line(l)) => Ok(l),
        Ok(LineRead::Eof) => Err(Broken::Closed),
        Ok(LineRead::TooLong) => Err(Broken::TooLong),
        Err(e) => Err(Broken::Io(e.to_string())),
    }
}

/// Reads one line of at most `max` bytes (newline excluded), never
/// buffering more than `max + 1`. A last line without a newline counts.
async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    r: &mut R,
    max: usize,
) -> std::io::Result<LineRead> {
    let mut buf = Vec::new();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    let n = (&mut *r).take(limit).read_until(b'\n', &mut buf).await?;
    if n == 0 {
        return Ok(LineRead::Eof);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        return Ok(LineRead::Line(buf));
    }
    if buf.len() > max {
        return Ok(LineRead::TooLong);
    }
    Ok(LineRead::Line(buf))
}

/// Kills every process of a session's group: the agent and whatever it
/// started. Its process is the group's leader; once reaped, its id may be
/// reused, so nothing is sent then.
fn kill_group(child: &Child) {
    if let Some(pid) = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A conversation dropped mid-way (an aborted trial, the end of a
        // run) leaves no process behind; `kill_on_drop` reaches only the
        // leader.
        kill_group(&self.child);
    }
}

/// Kills a session's process and reaps it (bounded wait).
async fn shut_down(mut s: Session) {
    kill_group(&s.child);
    let _ = s.child.start_kill();
    let _ = tokio::time::timeout(REAP_WAIT, s.child.wait()).await;
    if let Some(task) = s.stderr_task.take() {
        task.abort();
    }
}

/// An answer line as JSON: refused when it is not JSON, or when an object
/// in it repeats a key (an agent printing `"tool_calls"` twice must not
/// read as whichever came last). The error is a bounded fragment.
fn read_line(bytes: &[u8]) -> Result<Value, String> {
    parse_strict(bytes).map_err(|e| {
        let what = match e {
            StrictJsonError::Syntax(_) => "is not JSON",
            StrictJsonError::DuplicateKey { .. } => "is ambiguous",
        };
        format!(
            "the answer line {what} ({e}): `{}`",
            one_line(&String::from_utf8_lossy(bytes), 200)
        )
    })
}

/// A parsed `pactum-exec/1` answer.
#[derive(Debug, PartialEq)]
struct Answer {
    response: Option<String>,
    tool_calls: Vec<pactum_core::trace::ToolCall>,
    side_effects: Vec<pactum_core::trace::SideEffect>,
    end: bool,
    error: Option<String>,
    usage: Option<Usage>,
}

/// Checks and reads an answer object of `protocol` (`pactum-exec/2`
/// answers also have [`ECHO_KEYS`], checked by [`check_echo`]). Unknown
/// keys are refused: a misspelt `tool_calls` must not read as "no tool
/// calls".
fn parse_answer(v: &Value, protocol: &str) -> Result<Answer, String> {
    let Value::Object(m) = v else {
        return Err("the answer is not a JSON object".into());
    };
    let echoes = protocol == PERSISTENT_PROTOCOL;
    let known = |k: &str| ANSWER_KEYS.contains(&k) || (echoes && ECHO_KEYS.contains(&k));
    let mut unknown: Vec<&str> = m.keys().map(String::as_str).filter(|k| !known(k)).collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        let mut expected = ANSWER_KEYS.to_vec();
        if echoes {
            expected.extend(ECHO_KEYS);
        }
        return Err(format!(
            "unknown key(s) {} in the answer (expected: {})",
            unknown
                .iter()
                .map(|k| format!("`{}`", one_line(k, 40)))
                .collect::<Vec<_>>()
                .join(", "),
            expected.join(", ")
        ));
    }
    let response = match m.get("response") {
        None => return Err("the answer has no `response` key (use null for no text)".into()),
        Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err("`response` is neither a string nor null".into()),
    };
    let tool_calls = match m.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => mapping::tool_calls(v, "tool_calls")?,
    };
    let side_effects = match m.get("side_effects") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => mapping::side_effects(v, "side_effects")?,
    };
    let end = match m.get("end") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("`end` is not a boolean".into()),
    };
    let error = match m.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    let usage = match m.get("usage") {
        None | Some(Value::Null) => None,
        Some(u) => Some(
            serde_json::from_value::<Usage>(u.clone())
                .map_err(|e| format!("`usage` is not {{prompt_tokens, completion_tokens}}: {e}"))?,
        ),
    };
    Ok(Answer {
        response,
        tool_calls,
        side_effects,
        end,
        error,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::Just;

    fn parse_answer_v1(v: &Value) -> Result<Answer, String> {
        parse_answer(v, PROTOCOL)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// However stderr arrives in chunks, and wherever the tail is cut,
        /// no 8 characters of a key survive in what is kept.
        #[test]
        fn the_stderr_tail_never_keeps_part_of_a_key(
            chunks in proptest::collection::vec(1usize..3000, 1..40),
            gap in 0usize..9,
            multibyte in proptest::prelude::any::<bool>(),
        ) {
            const KEY: &str = "sk-tail-8a7b6c5d4e3f";
            let redactor = Redactor::new([KEY]).expect("key");
            let noise = if multibyte { "é" } else { "n" };
            let mut stream = String::new();
            while stream.len() < 40_000 {
                stream.push_str(&noise.repeat(1 + gap));
                stream.push_str(KEY);
            }
            let bytes = stream.as_bytes();
            let mut tail = StderrTail::default();
            let mut at = 0;
            for n in chunks.iter().cycle() {
                if at >= bytes.len() {
                    break;
                }
                let end = (at + n).min(bytes.len());
                tail.push(&bytes[at..end], &redactor);
                at = end;
            }
            proptest::prop_assert!(tail.bytes.len() <= STDERR_TAIL_BYTES + STDERR_SLACK_BYTES);
            let shown = redactor.excerpt(&String::from_utf8_lossy(&tail.bytes), usize::MAX);
            let chars: Vec<char> = KEY.chars().collect();
            for w in chars.windows(8) {
                let piece: String = w.iter().collect();
                proptest::prop_assert!(!shown.contains(&piece), "{} in the tail", piece);
            }
        }
    }

    #[test]
    fn answers_are_checked_strictly() {
        let ok = parse_answer_v1(&json!({
            "response": "hi", "tool_calls": [{"name": "f", "arguments": {"a": 1}}],
            "side_effects": [{"kind": "k"}], "end": true, "error": null,
            "usage": {"prompt_tokens": 3, "completion_tokens": 4}
        }))
        .expect("valid");
        assert_eq!(ok.response.as_deref(), Some("hi"));
        assert_eq!(ok.tool_calls.len(), 1);
        assert_eq!(ok.side_effects.len(), 1);
        assert!(ok.end);
        assert_eq!(
            ok.usage,
            Some(Usage {
                prompt_tokens: 3,
                completion_tokens: 4
            })
        );
        let minimal = parse_answer_v1(&json!({"response": null})).expect("minimal");
        assert_eq!(
            minimal,
            Answer {
                response: None,
                tool_calls: vec![],
                side_effects: vec![],
                end: false,
                error: None,
                usage: None
            }
        );
        for (v, why) in [
            (json!([1]), "not a JSON object"),
            (json!({}), "no `response` key"),
            (json!({"response": 1}), "neither a string nor null"),
            (
                json!({"response": "", "tool_call": []}),
                "unknown key(s) `tool_call`",
            ),
            (
                json!({"response": "", "end": "yes"}),
                "`end` is not a boolean",
            ),
            (
                json!({"response": "", "tool_calls": [{}]}),
                "tool_calls[0].name: missing tool name",
            ),
            // Call and effect objects are as strict as the answer, and as
            // an http mapping reads them.
            (
                json!({"response": "", "tool_calls": [{"name": "f", "kind": "function"}]}),
                "tool_calls[0].kind: unknown key `kind`",
            ),
            (
                json!({"response": "", "side_effects": [{"kind": "k", "detail": 1}]}),
                "side_effects[0] has an unknown key `detail`",
            ),
            (
                json!({"response": "", "usage": {"prompt_tokens": "x"}}),
                "`usage`",
            ),
        ] {
            let err = parse_answer_v1(&v).expect_err(why);
            assert!(err.contains(why), "{why}: {err}");
        }
        assert_eq!(
            parse_answer_v1(&json!({"response": null, "error": {"code": 1}}))
                .expect("error object")
                .error
                .as_deref(),
            Some("{\"code\":1}")
        );
    }

    /// Every way a `pactum-exec/2` answer can fail to echo the request in
    /// flight is refused; only the exact pair is read.
    #[test]
    fn a_v2_answer_must_echo_exactly_the_request_in_flight() {
        assert_eq!(
            check_echo(&json!({"conversation_id": "a#0", "turn": 2}), "a#0", 2),
            Ok(())
        );
        for (v, why) in [
            (json!({"turn": 2}), "does not echo"),
            (json!({"conversation_id": "a#0"}), "does not echo"),
            (json!({}), "does not echo"),
            (json!([]), "not a JSON object"),
            (
                json!({"conversation_id": "b#0", "turn": 2}),
                "is for conversation `b#0` turn 2, not the request in flight (conversation `a#0` turn 2)",
            ),
            (
                json!({"conversation_id": "a#0", "turn": 1}),
                "is for conversation `a#0` turn 1, not the request in flight",
            ),
            (
                json!({"conversation_id": "a#0", "turn": "2"}),
                "is for conversation `a#0` turn `2`, not",
            ),
            (json!({"conversation_id": "a#0", "turn": 2.0}), "turn 2.0, not"),
            (json!({"conversation_id": "a#0", "turn": null}), "turn null, not"),
            (json!({"conversation_id": null, "turn": 2}), "conversation null turn 2"),
            (json!({"conversation_id": "A#0", "turn": 2}), "`A#0`"),
            (json!({"conversation_id": "a#0 ", "turn": 2}), "not the request"),
        ] {
            let err = check_echo(&v, "a#0", 2).expect_err(why);
            assert!(err.contains(why), "{why}: {err}");
        }
        // The echo keys belong to pactum-exec/2 only.
        let v2 = json!({"conversation_id": "a#0", "turn": 2, "response": "hi"});
        assert_eq!(
            parse_answer(&v2, PERSISTENT_PROTOCOL)
                .expect("a v2 answer")
                .response
                .as_deref(),
            Some("hi")
        );
        let err = parse_answer(&v2, PROTOCOL).expect_err("not in v1");
        assert!(
            err.contains("unknown key(s) `conversation_id`, `turn`"),
            "{err}"
        );
        let err = parse_answer(&json!({"response": "", "turns": 2}), PERSISTENT_PROTOCOL)
            .expect_err("a misspelt key");
        assert!(
            err.contains("(expected: response, tool_calls, side_effects, end, error, usage, conversation_id, turn)"),
            "{err}"
        );
    }

    /// The review's false green: a repeated key read last-wins hid a
    /// refund. Every such line is refused, naming the key and where.
    #[test]
    fn answer_lines_with_a_repeated_key_are_refused() {
        for (line, why) in [
            (
                r#"{"response":"ok","tool_calls":[{"name":"refund","arguments":{"amount":5000}}],"tool_calls":[]}"#,
                "duplicate key `tool_calls` at `/tool_calls`",
            ),
            (
                r#"{"response":"ok","tool_calls":[{"name":"refund","name":"lookup"}]}"#,
                "duplicate key `name` at `/tool_calls/0/name`",
            ),
            (
                r#"{"response":"ok","tool_calls":[{"name":"refund","arguments":{"amount":5000},"arguments":{}}]}"#,
                "duplicate key `arguments` at `/tool_calls/0/arguments`",
            ),
            (
                r#"{"response":"ok","tool_calls":[{"name":"refund","arguments":{"amount":5000,"amount":1}}]}"#,
                "duplicate key `amount` at `/tool_calls/0/arguments/amount`",
            ),
            (
                r#"{"response":"ok","response":"no"}"#,
                "duplicate key `response` at `/response`",
            ),
        ] {
            let err = read_line(line.as_bytes()).expect_err(why);
            assert!(err.starts_with("the answer line is ambiguous ("), "{err}");
            assert!(err.contains(why), "{why}: {err}");
        }
        // A string argument holding JSON is as strict as the line.
        let v = read_line(
            br#"{"response":"ok","tool_calls":[{"name":"refund","arguments":"{\"amount\":5000,\"amount\":1}"}]}"#,
        )
        .expect("the line itself is fine");
        let err = parse_answer_v1(&v).expect_err("the arguments are not");
        assert!(
            err.contains(
                "tool_calls[0].arguments: the arguments (a JSON-encoded string) have a duplicate key `amount`"
            ),
            "{err}"
        );
        let err = read_line(b"{\"response\": ").expect_err("not JSON");
        assert!(err.starts_with("the answer line is not JSON ("), "{err}");
        let v = read_line(
            br#"{"response":"ok","tool_calls":[{"name":"f","arguments":{"b":1,"a":2}}]}"#,
        )
        .expect("strict JSON");
        let args = &parse_answer_v1(&v).expect("answer").tool_calls[0].arguments;
        assert_eq!(args.to_string(), r#"{"b":1,"a":2}"#, "key order kept");
    }

    async fn lines(input: &[u8], max: usize) -> Vec<String> {
        let mut r = BufReader::with_capacity(3, input);
        let mut out = Vec::new();
        loop {
            match read_line_bounded(&mut r, max).await.expect("reads") {
                LineRead::Line(l) => out.push(String::from_utf8_lossy(&l).into_owned()),
                LineRead::Eof => break,
                LineRead::TooLong => {
                    out.push("<too long>".into());
                    break;
                }
            }
        }
        out
    }

    proptest::proptest! {
        /// Every line read is at most `max` bytes; when none was too long,
        /// the lines are exactly the input's; a too-long line is reported
        /// exactly when the input has one.
        #[test]
        fn bounded_lines_are_the_inputs_lines(
            input in proptest::collection::vec(proptest::prop_oneof![Just(b'\n'), b'a'..=b'z'], 0..60),
            max in 1usize..12,
        ) {
            let rt = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
            let got = rt.block_on(lines(&input, max));
            let text = String::from_utf8_lossy(&input).into_owned();
            let mut want: Vec<String> = text.split('\n').map(str::to_string).collect();
            if text.ends_with('\n') || text.is_empty() {
                want.pop();
            }
            match want.iter().position(|l| l.len() > max) {
                None => proptest::prop_assert_eq!(got, want),
                Some(i) => {
                    proptest::prop_assert_eq!(&got[..i], &want[..i]);
                    proptest::prop_assert_eq!(got.get(i).map(String::as_str), Some("<too long>"));
                    proptest::prop_assert_eq!(got.len(), i + 1);
                }
            }
        }
    }

    #[tokio::test]
    async fn lines_are_bounded() {
        assert_eq!(lines(b"ab\r\ncd\nef", 5).await, ["ab", "cd", "ef"]);
        assert_eq!(lines(b"abcde\n", 5).await, ["abcde"]);
        assert_eq!(lines(b"abcdef\n", 5).await, ["<too long>"]);
        assert_eq!(lines(b"abcdefghijkl", 5).await, ["<too long>"]);
        assert_eq!(lines(b"", 5).await, Vec::<String>::new());
        assert_eq!(lines(b"\n", 5).await, [""]);
    }
}
