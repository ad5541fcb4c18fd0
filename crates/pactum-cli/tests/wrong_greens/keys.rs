//! A key planted in every echo shape reaches neither the store, the cache, a report, stdout nor stderr.
//!
//! Keys of three shapes (an `sk-…` key, a 64-character hex token, a token
//! holding `/`, `+` and `=`), fresh for every test run, are set in the
//! environment for `api_key_env` and `{{ env.NAME }}`, and credentials are
//! written in a target's `base_url` (userinfo and `api_key=` query); in a
//! test of their own, secrets are written in the suite as literal header
//! and exec `env` values, which pactum redacts like keys. Real
//! local servers then echo them back in every shape a target, an agent or a
//! judge can: response text, a tool call's name, id, argument key and
//! value and result, content split in parts, JSON `\u`-escaped,
//! backslash-escaped, percent-encoded, a `Basic` authorization header, an
//! error body far longer than any excerpt with keys straddling every cut,
//! an exec agent printing its environment and writing its stderr, a judge
//! echoing its own key and quoting the others. `pactum run`, `show`, `runs`,
//! `rescore` and `grade` (with `--judge-api-key-env`) run over it all; then
//! every byte they wrote — the SQLite store with its `-wal`/`-shm` (the
//! cache lives there), every report, stdout and stderr — is scanned for
//! each secret, its first 8 and its last 8 characters: a single hit fails.
//! (`grade` knows one key, its judge's: its own store and outputs are
//! scanned for that one.)

use std::path::Path;

use serde_json::{json, Value};

use crate::support::{
    bodies, by_rule, only_run, open_db, server, stored_trace, Run, Sandbox, JUDGE_MARK,
};

/// The environment variables the suite names.
const SK_VAR: &str = "PACTUM_WG_KEYS_TARGET_KEY";
const HEX_VAR: &str = "PACTUM_WG_KEYS_JUDGE_KEY";
const SLASH_VAR: &str = "PACTUM_WG_KEYS_AGENT_TOKEN";
/// A variable that is not a key: an exec agent inherits it.
const PLAIN_VAR: &str = "PACTUM_WG_KEYS_PLAIN";

/// The run's secrets, fresh for each test run so nothing else holds them.
struct Keys {
    sk: String,
    hex: String,
    slash: String,
    url_pass: String,
    url_query: String,
}

/// `n` characters of `alphabet`, drawn from a generator seeded by `seed`.
fn draw(seed: &mut u64, alphabet: &str, n: usize) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    (0..n)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            chars[((*seed >> 33) as usize) % chars.len()]
        })
        .collect()
}

impl Keys {
    fn fresh() -> Keys {
        let mut seed = u64::from(std::process::id())
            ^ std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(7);
        const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let mut d = |alphabet: &str, n: usize| draw(&mut seed, alphabet, n);
        Keys {
            sk: format!("sk-{}", d(ALNUM, 40)),
            hex: d("0123456789abcdef", 64),
            slash: format!(
                "{}/{}+{}={}/{}==",
                d(ALNUM, 9),
                d(ALNUM, 8),
                d(ALNUM, 8),
                d(ALNUM, 6),
                d(ALNUM, 6)
            ),
            url_pass: format!("pw{}", d(ALNUM, 22)),
            url_query: format!("qk{}", d(ALNUM, 26)),
        }
    }

    /// `user:PASS` as a `Basic` authorization header sends it.
    fn basic(&self) -> String {
        base64(format!("user:{}", self.url_pass).as_bytes())
    }

    /// Every secret, named.
    fn all(&self) -> Vec<(&'static str, String)> {
        vec![
            ("the target's sk- key", self.sk.clone()),
            ("the judge's hex token", self.hex.clone()),
            ("the agent's /+= token", self.slash.clone()),
            ("the base_url password", self.url_pass.clone()),
            ("the base_url api_key", self.url_query.clone()),
            ("the base_url Basic credentials", self.basic()),
        ]
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            (SK_VAR, self.sk.clone()),
            (HEX_VAR, self.hex.clone()),
            (SLASH_VAR, self.slash.clone()),
            (PLAIN_VAR, "visible-to-the-agent".to_string()),
        ]
    }
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            out.push(if i <= chunk.len() {
                char::from(ABC[((n >> shift) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

/// Each character as a JSON `\u` escape.
fn u_escaped(s: &str) -> String {
    s.chars().map(|c| format!("\\u{:04x}", c as u32)).collect()
}

/// Each character after a backslash.
fn backslashed(s: &str) -> String {
    s.chars().map(|c| format!("\\{c}")).collect()
}

/// Each character percent-encoded.
fn percent(s: &str) -> String {
    s.chars().map(|c| format!("%{:02X}", c as u32)).collect()
}

/// `key` over and over with 1 to 7 characters of noise between: any cut
/// of this text, whatever the bound, falls inside or beside a copy.
fn everywhere(key: &str) -> String {
    (0..60)
        .map(|i| format!("{}{key}", "x".repeat(1 + i % 7)))
        .collect()
}

/// A chat completion body, `message` its first choice's message; `raw`
/// pairs are substituted into the serialised text afterwards, so a value
/// can be written escaped as no serialiser would write it.
fn completion(message: Value, raw: &[(&str, String)]) -> String {
    let mut text = json!({
        "id": "chatcmpl-keys", "object": "chat.completion", "created": 1,
        "model": "bot-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    })
    .to_string();
    for (placeholder, value) in raw {
        assert!(text.contains(placeholder), "{placeholder}");
        text = text.replace(placeholder, value);
    }
    text
}

/// The scripted server: the targets, the http agent endpoint and the
/// judge, each echoing the keys in its own shapes.
fn script(k: &Keys) -> Value {
    // Argument keys and values as a model sends them: a JSON-encoded
    // string, whose own escapes are escaped again in the body.
    let arguments = format!(
        r#"{{"@U@": "{}", "pct": "{}", "bs": "{}"}}"#,
        k.slash.replace('/', "\\/"),
        percent(&k.hex),
        backslashed(&k.sk).replace('\\', "\\\\"),
    )
    .replace("@U@", &u_escaped(&k.sk));
    let tool_call = completion(
        json!({"role": "assistant", "content": "@TEXT@", "tool_calls": [
            {"id": k.sk, "type": "function", "function": {"name": k.sk, "arguments": arguments}}
        ]}),
        &[(
            "@TEXT@",
            format!(
                "escaped {} and {}",
                u_escaped(&k.hex),
                k.slash.replace('/', "\\/")
            ),
        )],
    );
    let half = k.sk.len() / 2;
    let parts = completion(
        json!({"role": "assistant", "content": [
            {"type": "text", "text": &k.sk[..half]}, {"type": "text", "text": &k.sk[half..]}
        ]}),
        &[],
    );
    let leaky_judge = json!({
        "verdict": "violated", "confidence": 95,
        "evidence": [format!("the key {}", k.sk)],
        "rationale": format!("it printed {} and {} and {} (and {})", k.sk, k.slash, k.url_pass, percent(&k.hex)),
    });
    json!([
        // The judge: echoes its own key for one test, quotes the others for all.
        {"name": "judge-echo", "match": {"system_contains": JUDGE_MARK, "any_message_contains": "case judge-echo"},
         "echo": "authorization"},
        // For `grade`: a verdict that stands (its quote is in the
        // transcript), its rationale quoting the judge's own key.
        {"name": "judge-grade", "match": {"system_contains": JUDGE_MARK, "any_message_contains": "hi there"},
         "judge": {"verdict": "violated", "confidence": 95, "evidence": ["hi there"],
                   "rationale": format!("said hi with {} ({})", k.hex, u_escaped(&k.hex))}},
        {"name": "judge", "match": {"system_contains": JUDGE_MARK}, "judge": leaky_judge},
        // The openai target, whose key is the sk- one.
        {"name": "echo", "match": {"model": "bot-model", "last_user_contains": "case echo"},
         "content": "you sent {{header:Authorization}}"},
        {"name": "tool", "match": {"model": "bot-model", "last_user_contains": "case tool"},
         "raw_body": tool_call},
        {"name": "parts", "match": {"model": "bot-model", "last_user_contains": "case parts"},
         "raw_body": parts},
        {"name": "straddle", "match": {"model": "bot-model", "last_user_contains": "case straddle"},
         "status": 400, "error_message": format!("{} then {}", everywhere(&k.sk), everywhere(&u_escaped(&k.hex)))},
        {"name": "quiet", "match": {"model": "bot-model"}, "content": "nothing to see"},
        // The openai target whose base_url holds credentials.
        {"name": "url", "match": {"model": "url-model"},
         "content": format!("you sent {{{{header:Authorization}}}} to ?api_key={}", k.url_query)},
        // The http agent, called with the /+= token in a header.
        {"name": "web-echo", "match": {"path": "/agent", "body_contains": "case web-echo"},
         "body": {"reply": "you sent {{header:Authorization}}",
                  "calls": [{"name": "lookup", "arguments": {"who": "me"},
                             "result": {"token": "{{header:Authorization}}"}}]}},
        {"name": "web-straddle", "match": {"path": "/agent", "body_contains": "case web-straddle"},
         "raw_body": everywhere(&k.slash)},
    ])
}

/// An exec agent (Python standard library): prints its whole environment
/// in its answer, as text, as a tool call's arguments and result; or writes
/// the token it was passed to stderr over and over, and dies.
const AGENT: &str = r#"import json, os, sys
for line in sys.stdin:
    request = json.loads(line)
    said = [m["content"] for m in request["messages"] if m["role"] == "user"][-1]
    token = os.environ.get("AGENT_TOKEN", "")
    if "stderr" in said:
        sys.stderr.write("".join("n" * (1 + i % 7) + token for i in range(600)))
        sys.stderr.flush()
        sys.exit(3)
    env = dict(sorted(os.environ.items()))
    print(json.dumps({"response": json.dumps(env), "tool_calls": [
        {"name": "printenv", "arguments": env, "result": {"token": token}}]}), flush=True)
"#;

fn suite(base: &str, port: u16, k: &Keys) -> String {
    format!(
        r#"version: 1
targets:
  bot:
    kind: openai
    base_url: "{base}/v1"
    model: bot-model
    api_key_env: {SK_VAR}
    observability: tool_calls
    retries: {{ max: 0 }}
  urlbot:
    kind: openai
    base_url: "http://user:{pass}@127.0.0.1:{port}/v1?api_key={query}"
    model: url-model
    observability: response_only
{web_agent_judge}
  target: bot
tests:
  - {{ id: bot-echo, prompt: "case echo" }}
  - {{ id: bot-tool, prompt: "case tool" }}
  - {{ id: bot-parts, prompt: "case parts" }}
  - {{ id: bot-straddle, prompt: "case straddle" }}
  - {{ id: judge-echo, prompt: "case judge-echo" }}
  - {{ id: url-echo, target: urlbot, prompt: "case url" }}
  - {{ id: web-echo, target: web, prompt: "case web-echo" }}
  - {{ id: web-straddle, target: web, prompt: "case web-straddle" }}
  - {{ id: exec-env, target: agent, prompt: "case env" }}
  - {{ id: exec-stderr, target: agent, prompt: "case stderr" }}
"#,
        pass = k.url_pass,
        query = k.url_query,
        web_agent_judge = web_agent_judge(
            base,
            &format!("Authorization: \"Bearer {{{{ env.{SLASH_VAR} }}}}\""),
            &format!("{{{{ env.{SLASH_VAR} }}}}"),
        ),
    )
}

/// The suite's `web` (http, at `base`/agent, with the header lines
/// `headers`) and `agent` (exec, `agent.py` with `AGENT_TOKEN` set to
/// `agent_token`) targets, its judge (key from the hex token's variable),
/// and `defaults:` with the contract every test is graded against (a
/// judged clause against leaking a key, a check against calling
/// `printenv`); the default target follows.
fn web_agent_judge(base: &str, headers: &str, agent_token: &str) -> String {
    format!(
        r#"  web:
    kind: http
    observability: tool_calls
    request:
      url: "{base}/agent"
      headers: {{ {headers} }}
      body: {{ message: "{{{{ message }}}}" }}
    response:
      text: "$.reply"
      tool_calls: "$.calls"
    retries: {{ max: 0 }}
  agent:
    kind: exec
    command: ["python3", "agent.py"]
    cwd: .
    env: {{ AGENT_TOKEN: "{agent_token}" }}
    observability: tool_calls
judge:
  base_url: "{base}/v1"
  model: judge-model
  api_key_env: {HEX_VAR}
  malformed_retries: 0
defaults:
  contract:
    version: 1
    id: no-key-leak
    prohibited:
      - id: leaks-key
        text: Reveal an API key
        severity: critical
        judge: The answer shows an API key, a token or a password.
      - id: calls-printenv
        text: Call the printenv tool
        severity: low
        check: {{ tool_called: {{ name: printenv }} }}"#
    )
}

/// The first and last 8 characters of `s`, and `s`.
fn pieces(s: &str) -> [String; 3] {
    let chars: Vec<char> = s.chars().collect();
    [
        chars[..8].iter().collect(),
        chars[chars.len() - 8..].iter().collect(),
        s.to_string(),
    ]
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Scans every output for every piece of every secret.
#[track_caller]
fn assert_no_secret(outputs: &[(String, Vec<u8>)], secrets: &[(&str, String)]) {
    let mut hits = Vec::new();
    for (name, bytes) in outputs {
        for (what, secret) in secrets {
            for piece in pieces(secret) {
                if contains(bytes, piece.as_bytes()) {
                    hits.push(format!("`{piece}` of {what} in {name}"));
                }
            }
        }
    }
    assert!(hits.is_empty(), "secrets leaked:\n{}", hits.join("\n"));
}

fn outputs_of(label: &str, run: &Run) -> Vec<(String, Vec<u8>)> {
    vec![
        (format!("{label} stdout"), run.stdout.clone().into_bytes()),
        (format!("{label} stderr"), run.stderr.clone().into_bytes()),
    ]
}

/// The report files `names` and every file of the store folder of `db`.
fn files(sb: &Sandbox, names: &[&str], db: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for f in names {
        let bytes = std::fs::read(sb.path().join(f))
            .unwrap_or_else(|e| panic!("{f} was not written ({e})"));
        out.push((f.to_string(), bytes));
    }
    let store = db.parent().expect("the store's folder");
    for e in std::fs::read_dir(store).expect("the store's folder") {
        let p = e.expect("an entry").path();
        let bytes = std::fs::read(&p).expect("a store file");
        out.push((p.display().to_string(), bytes));
    }
    assert!(out.iter().any(|(n, _)| Path::new(n).ends_with("pactum.db")));
    out
}

/// `pactum show` (to `show.json` and `show.xml`), `runs` and `rescore`
/// (to `rescore.json`, against `suite`) of the one run in the store `db`,
/// with `env`; what each printed.
fn reviewed(sb: &Sandbox, db: &Path, suite: &Path, env: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
    let run_id = only_run(db);
    let db = db.to_str().expect("a UTF-8 path");
    let suite = suite.to_str().expect("a UTF-8 path");
    let mut outputs = Vec::new();
    let show = sb.pactum_env(
        [
            "show",
            &run_id,
            "--db",
            db,
            "-v",
            "--json",
            "show.json",
            "--junit",
            "show.xml",
        ],
        env,
    );
    outputs.extend(outputs_of("show", &show));
    let runs = sb.pactum_env(["runs", "--db", db], env);
    outputs.extend(outputs_of("runs", &runs));
    let rescore = sb.pactum_env(
        [
            "rescore",
            &run_id,
            "--db",
            db,
            "--suite",
            suite,
            "-v",
            "--json",
            "rescore.json",
        ],
        env,
    );
    outputs.extend(outputs_of("rescore", &rescore));
    outputs
}

/// The scan sees what was redacted in each of `names`, so it could see
/// the keys there.
#[track_caller]
fn assert_redacted_in(outputs: &[(String, Vec<u8>)], names: &[&str]) {
    for name in names {
        let (_, bytes) = outputs
            .iter()
            .find(|(n, _)| n.ends_with(name))
            .unwrap_or_else(|| panic!("{name} was not scanned"));
        assert!(contains(bytes, b"[redacted"), "nothing redacted in {name}");
    }
}

#[test]
fn no_secret_reaches_the_store_the_cache_a_report_or_a_terminal() {
    let k = Keys::fresh();
    let srv = server(script(&k));
    let sb = Sandbox::new();
    let port: u16 = srv
        .base_url()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("the server's port");
    sb.write("agent.py", AGENT);
    let suite = sb.write("suite.yaml", &suite(srv.base_url(), port, &k));
    let db = sb.db();
    let db_s = db.to_str().expect("a UTF-8 path");
    let env: Vec<(&str, String)> = k.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let mut outputs: Vec<(String, Vec<u8>)> = Vec::new();

    // --- pactum run --------------------------------------------------------
    let run = sb.pactum_env(
        [
            "run",
            suite.to_str().expect("path"),
            "--db",
            db_s,
            "--json",
            "run.json",
            "--junit",
            "run.xml",
            "-v",
        ],
        &env,
    );
    assert!(
        matches!(run.code, 1 | 3),
        "the run should end fail or error: {run:#?}"
    );
    outputs.extend(outputs_of("run", &run));
    // The credentials in urlbot's base_url are warned about, unshown.
    assert!(
        run.stderr.contains("literal-secret") && run.stderr.contains("api_key=[redacted]"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("shorter than"), "{}", run.stderr);

    // Every echo really happened, so the scan below can fail.
    let hits = by_rule(&srv);
    for rule in [
        "judge-echo",
        "judge",
        "echo",
        "tool",
        "parts",
        "straddle",
        "url",
        "web-echo",
        "web-straddle",
    ] {
        assert!(
            hits.get(rule).copied().unwrap_or(0) >= 1,
            "rule {rule} never answered: {hits:?}"
        );
    }
    let sent: Vec<String> = bodies(&srv)
        .iter()
        .filter_map(|b| b["authorization"].as_str().map(str::to_string))
        .collect();
    for auth in [
        format!("Bearer {}", k.sk),
        format!("Bearer {}", k.hex),
        format!("Bearer {}", k.slash),
        format!("Basic {}", k.basic()),
    ] {
        assert!(sent.contains(&auth), "never sent: {auth}");
    }

    // The exec agent inherited no key variable: the token only as passed
    // (and redacted), the plain variable as it is.
    let trace = stored_trace(&db, "exec-env", 0);
    let env_seen: Value = serde_json::from_str(
        trace["turns"][0]["response"]
            .as_str()
            .expect("the agent printed its environment"),
    )
    .expect("the environment as JSON");
    assert_eq!(env_seen["AGENT_TOKEN"], "[redacted]", "{env_seen:#}");
    assert_eq!(env_seen[PLAIN_VAR], "visible-to-the-agent");
    for var in [SK_VAR, HEX_VAR, SLASH_VAR] {
        assert!(
            env_seen.get(var).is_none(),
            "the exec agent inherited {var}"
        );
    }
    assert_eq!(
        trace["turns"][0]["tool_calls"][0]["result"]["token"],
        "[redacted]"
    );
    // A tool call named with a key is recorded, its name redacted.
    let tool = stored_trace(&db, "bot-tool", 0);
    assert_eq!(tool["turns"][0]["tool_calls"][0]["name"], "[redacted]");
    // The snapshot stored with the run keeps the URL without credentials.
    let snapshot: String = open_db(&db)
        .query_row(
            "SELECT CAST(s.snapshot AS TEXT) FROM runs r JOIN suite_snapshots s ON s.run_id = r.id",
            [],
            |r| r.get(0),
        )
        .expect("the run record");
    assert!(
        snapshot.contains("http://[redacted]@127.0.0.1"),
        "{snapshot}"
    );
    let cached: i64 = open_db(&db)
        .query_row("SELECT count(*) FROM cache", [], |r| r.get(0))
        .expect("the cache");
    assert!(cached >= 8, "{cached} cache entries");

    // --- show, runs, rescore ----------------------------------------------
    outputs.extend(reviewed(&sb, &db, &suite, &env));

    // --- the scan of everything run, show, runs and rescore wrote --------
    outputs.extend(files(
        &sb,
        &[
            "run.json",
            "run.xml",
            "show.json",
            "show.xml",
            "rescore.json",
        ],
        &db,
    ));
    assert_redacted_in(
        &outputs,
        &[
            "run.json",
            "run.xml",
            "show.json",
            "rescore.json",
            "pactum.db",
        ],
    );
    assert_no_secret(&outputs, &k.all());

    // --- grade, with a judge whose key comes from --judge-api-key-env -----
    let contract = sb.write(
        "contract.yaml",
        "version: 1\nid: graded\nprohibited:\n  - id: leaks-key\n    text: Reveal an API key\n    judge: The answer shows an API key.\n",
    );
    let mut records = String::new();
    for (id, said) in [("t1", "hello"), ("t2", "case judge-echo")] {
        records.push_str(&format!(
            "{}\n",
            json!({"id": id, "messages": [
                {"role": "user", "content": said},
                {"role": "assistant", "content": "hi there"}]})
        ));
    }
    // A recorded answer that leaked the judge's own key, as written and
    // upper-cased: the judge is never shown it.
    records.push_str(&format!(
        "{}\n",
        json!({"id": "t3", "messages": [
            {"role": "user", "content": format!("what is {}?", k.hex.to_ascii_uppercase())},
            {"role": "assistant", "content": format!("Sure! Your key is {} (or {}).", k.hex, k.hex.to_ascii_uppercase())}]})
    ));
    let traces = sb.write("traces.jsonl", &records);
    let grade_db = sb.path().join("grade-store/pactum.db");
    let grade = sb.pactum_env(
        [
            "grade",
            "-c",
            contract.to_str().expect("path"),
            traces.to_str().expect("path"),
            "--observability",
            "response_only",
            "--judge-url",
            &format!("{}/v1", srv.base_url()),
            "--judge-model",
            "judge-model",
            "--judge-api-key-env",
            HEX_VAR,
            "--db",
            grade_db.to_str().expect("path"),
            "-v",
            "--json",
            "grade.json",
            "--junit",
            "grade.xml",
        ],
        &env,
    );
    assert!(
        sent_again(&srv, &format!("Bearer {}", k.hex)) >= 2,
        "{grade:#?}"
    );
    let upper = k.hex.to_ascii_uppercase();
    for b in bodies(&srv) {
        let prompt = b["body"]["messages"].to_string().to_ascii_uppercase();
        for w in upper.as_bytes().windows(8) {
            let w = std::str::from_utf8(w).expect("ASCII");
            assert!(
                !prompt.contains(w),
                "`{w}` of the judge's key in a prompt: {prompt}"
            );
        }
    }
    let report: Value =
        serde_json::from_slice(&std::fs::read(sb.path().join("grade.json")).expect("grade.json"))
            .expect("JSON");
    let t3 = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["trace_id"] == "t3")
        .expect("t3 graded");
    assert_ne!(t3["status"], "pass", "a leak the judge never saw: {t3:#}");
    let mut graded = outputs_of("grade", &grade);
    graded.extend(files(&sb, &["grade.json", "grade.xml"], &grade_db));
    assert_redacted_in(&graded, &["grade.json", "pactum.db"]);
    assert_no_secret(&graded, &[("the judge's hex token", k.hex.clone())]);
}

/// How many requests carried `auth`.
fn sent_again(srv: &crate::support::ScriptedServer, auth: &str) -> usize {
    bodies(srv)
        .iter()
        .filter(|b| b["authorization"].as_str() == Some(auth))
        .count()
}

/// Exec agents that print their environment: one passes the judge's key on
/// explicitly, one does not; a variable that merely holds the same value
/// under another name is not inherited either.
#[test]
fn exec_agents_inherit_no_key_variable_unless_their_env_passes_it() {
    let k = Keys::fresh();
    let srv = server(json!([
        {"match": {"system_contains": JUDGE_MARK}, "judge": {"verdict": "satisfied", "confidence": 90}}
    ]));
    let sb = Sandbox::new();
    sb.write("agent.py", AGENT);
    let suite = sb.write(
        "suite.yaml",
        &format!(
            r#"version: 1
targets:
  passes:
    kind: exec
    command: ["python3", "agent.py"]
    cwd: .
    env: {{ AGENT_TOKEN: "{{{{ env.{HEX_VAR} }}}}", MODE: literal }}
    observability: tool_calls
  keeps:
    kind: exec
    command: ["python3", "agent.py"]
    cwd: .
    observability: tool_calls
judge:
  base_url: "{}/v1"
  model: judge-model
  api_key_env: {HEX_VAR}
defaults:
  contract:
    version: 1
    id: quiet
    prohibited:
      - id: printenv
        text: Call the printenv tool
        check: {{ tool_called: {{ name: printenv }} }}
tests:
  - {{ id: passes, target: passes, prompt: "case env" }}
  - {{ id: keeps, target: keeps, prompt: "case env" }}
"#,
            srv.base_url()
        ),
    );
    let env = [
        (HEX_VAR, k.hex.as_str()),
        ("PACTUM_WG_KEYS_ALIAS", k.hex.as_str()),
        (PLAIN_VAR, "visible-to-the-agent"),
    ];
    let db = sb.db();
    let run = sb.pactum_env(
        [
            "run",
            suite.to_str().expect("path"),
            "--db",
            db.to_str().expect("path"),
            "--json",
            "run.json",
        ],
        &env,
    );
    // Both agents called the prohibited tool: the run fails.
    assert_eq!(run.code, 1, "{run:#?}");
    let seen = |test: &str| -> Value {
        let t = stored_trace(&db, test, 0);
        serde_json::from_str(t["turns"][0]["response"].as_str().expect("a response"))
            .expect("the environment as JSON")
    };
    let passes = seen("passes");
    assert_eq!(passes["AGENT_TOKEN"], "[redacted]", "{passes:#}");
    assert_eq!(passes["MODE"], "literal");
    let keeps = seen("keeps");
    assert!(keeps.get("AGENT_TOKEN").is_none(), "{keeps:#}");
    for env_seen in [&passes, &keeps] {
        assert_eq!(env_seen[PLAIN_VAR], "visible-to-the-agent");
        for var in [HEX_VAR, "PACTUM_WG_KEYS_ALIAS"] {
            assert!(env_seen.get(var).is_none(), "an agent inherited {var}");
        }
    }
    let mut outputs = outputs_of("run", &run);
    outputs.extend(files(&sb, &["run.json"], &db));
    assert_no_secret(&outputs, &[("the judge's hex token", k.hex.clone())]);
}

/// A key too short to be told from ordinary text is refused by name
/// before anything is sent, and its value is never shown: redacting it
/// would rewrite what is graded, not redacting it would leak it.
#[test]
fn a_key_too_short_to_redact_stops_the_run_before_anything_is_sent() {
    let srv = server(json!([{"match": {}, "content": "hello"}]));
    let sb = Sandbox::new();
    let suite = sb.write(
        "suite.yaml",
        &format!(
            "version: 1\ntargets:\n  bot: {{ kind: openai, base_url: \"{}/v1\", model: m, api_key_env: {SK_VAR}, observability: response_only }}\ndefaults:\n  contract: {{ version: 1, id: c, required: [{{ id: hi, text: Say hello, check: {{ contains: hello }} }}] }}\ntests:\n  - {{ id: a, target: bot, prompt: hi }}\n",
            srv.base_url()
        ),
    );
    for short in ["zq7x", "sk-z9q7", "  q9!  "] {
        let run = sb.pactum_env(
            [
                "run",
                suite.to_str().expect("path"),
                "--db",
                sb.db().to_str().expect("path"),
            ],
            &[(SK_VAR, short)],
        );
        assert_eq!(run.code, 2, "{short:?}: {run:#?}");
        assert!(
            run.stderr.contains(SK_VAR) && run.stderr.contains("character(s)"),
            "{run:#?}"
        );
        assert!(
            !run.all().contains(short.trim()),
            "{short:?} shown: {run:#?}"
        );
    }
    assert_eq!(srv.requests().expect("stats"), 0, "a request was sent");
}

/// Secrets written into the suite itself — a `Bearer` header, an
/// `X-Api-Key` header, an exec agent's `env` value — are warned about
/// (`literal-secret`) and then treated like keys read from the
/// environment: echoed back whole, alone, in a tool call, on stderr or by
/// the judge, they reach neither the store, a report, a terminal nor the
/// judge's prompt, and the run's snapshot holds `[redacted]` in their place.
#[test]
fn secrets_written_in_the_suite_are_redacted_like_environment_keys() {
    let k = Keys::fresh();
    let bearer = format!("lb{}", &k.url_query[2..]);
    let api_key = format!("lk{}", &k.url_pass[2..]);
    let agent_token = k.slash.clone();
    let literal = [
        ("the literal bearer token", bearer.clone()),
        ("the literal X-Api-Key", api_key.clone()),
        ("the exec agent's literal token", agent_token.clone()),
    ];
    let srv = server(json!([
        {"name": "judge", "match": {"system_contains": JUDGE_MARK},
         "judge": {"verdict": "violated", "confidence": 95, "evidence": [],
                   "rationale": format!("it printed {bearer}, {api_key} and {agent_token}")}},
        {"name": "web-echo", "match": {"path": "/agent", "body_contains": "case web-echo"},
         "body": {"reply": "you sent {{header:Authorization}} and {{header:X-Api-Key}}",
                  "calls": [{"name": "lookup", "arguments": {"key": "{{header:X-Api-Key}}"},
                             "result": {"auth": "{{header:Authorization}}"}}]}},
        // The token alone, without its scheme.
        {"name": "web-bare", "match": {"path": "/agent", "body_contains": "case web-bare"},
         "raw_body": json!({"reply": format!("token {bearer}")}).to_string()},
        {"name": "web-straddle", "match": {"path": "/agent", "body_contains": "case web-straddle"},
         "status": 500, "raw_body": everywhere(&api_key)},
    ]));
    let sb = Sandbox::new();
    sb.write("agent.py", AGENT);
    let suite = sb.write(
        "suite.yaml",
        &format!(
            r#"version: 1
targets:
{web_agent_judge}
  target: web
tests:
  - {{ id: web-echo, prompt: "case web-echo" }}
  - {{ id: web-bare, prompt: "case web-bare" }}
  - {{ id: web-straddle, prompt: "case web-straddle" }}
  - {{ id: exec-env, target: agent, prompt: "case env" }}
  - {{ id: exec-stderr, target: agent, prompt: "case stderr" }}
"#,
            web_agent_judge = web_agent_judge(
                srv.base_url(),
                &format!("Authorization: \"Bearer {bearer}\", X-Api-Key: \"{api_key}\""),
                &agent_token,
            ),
        ),
    );
    let db = sb.db();
    let db_s = db.to_str().expect("a UTF-8 path");
    let env = [(HEX_VAR, k.hex.as_str())];
    let run = sb.pactum_env(
        [
            "run",
            suite.to_str().expect("path"),
            "--db",
            db_s,
            "--json",
            "run.json",
            "--junit",
            "run.xml",
            "-v",
        ],
        &env,
    );
    assert!(matches!(run.code, 1 | 3), "{run:#?}");
    // Each literal secret is warned about, and the warning says it is redacted.
    for what in [
        "header `Authorization`",
        "header `X-Api-Key`",
        "`env.AGENT_TOKEN`",
    ] {
        assert!(
            run.stderr.contains(&format!(
                "{what} holds a literal value: pactum sends it, redacts it"
            )),
            "{what}: {}",
            run.stderr
        );
    }
    // Every echo really happened, and the secrets were really sent.
    let hits = by_rule(&srv);
    for rule in ["judge", "web-echo", "web-bare", "web-straddle"] {
        assert!(
            hits.get(rule).copied().unwrap_or(0) >= 1,
            "rule {rule} never answered: {hits:?}"
        );
    }
    let sent = bodies(&srv);
    assert!(
        sent.iter()
            .any(|b| b["authorization"].as_str() == Some(&format!("Bearer {bearer}"))),
        "the bearer token was never sent"
    );
    // The judge's prompts carry none of them: the targets redacted first.
    let judged: Vec<String> = sent
        .iter()
        .filter(|b| b.to_string().contains(JUDGE_MARK))
        .map(Value::to_string)
        .collect();
    assert!(!judged.is_empty(), "the judge was never asked");
    assert_no_secret(
        &judged
            .iter()
            .map(|j| ("a judge request".to_string(), j.clone().into_bytes()))
            .collect::<Vec<_>>(),
        &literal,
    );
    let trace = stored_trace(&db, "exec-env", 0);
    let env_seen: Value = serde_json::from_str(
        trace["turns"][0]["response"]
            .as_str()
            .expect("the agent printed its environment"),
    )
    .expect("the environment as JSON");
    assert_eq!(env_seen["AGENT_TOKEN"], "[redacted]", "{env_seen:#}");
    assert_eq!(
        stored_trace(&db, "web-bare", 0)["turns"][0]["response"],
        "token [redacted]"
    );
    // The snapshot stored with the run holds `[redacted]` in their place.
    let snapshot: Value = serde_json::from_str(
        &open_db(&db)
            .query_row("SELECT CAST(s.snapshot AS TEXT) FROM runs r JOIN suite_snapshots s ON s.run_id = r.id", [], |r| {
                r.get::<_, String>(0)
            })
            .expect("the run record"),
    )
    .expect("the snapshot as JSON");
    let headers = &snapshot["targets"]["web"]["headers"];
    assert_eq!(headers["Authorization"], "[redacted]", "{headers:#}");
    assert_eq!(headers["X-Api-Key"], "[redacted]", "{headers:#}");
    assert_eq!(
        snapshot["targets"]["agent"]["env"]["AGENT_TOKEN"],
        "[redacted]"
    );

    let mut outputs = outputs_of("run", &run);
    outputs.extend(reviewed(&sb, &db, &suite, &env));
    outputs.extend(files(
        &sb,
        &[
            "run.json",
            "run.xml",
            "show.json",
            "show.xml",
            "rescore.json",
        ],
        &db,
    ));
    assert_redacted_in(&outputs, &["run.json", "show.json", "pactum.db"]);
    let mut secrets = literal.to_vec();
    secrets.push(("the judge's hex token", k.hex.clone()));
    assert_no_secret(&outputs, &secrets);
}

/// Every window of 8 characters of `s` (separators kept as the key has
/// them).
fn windows8(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.windows(8).map(|w| w.iter().collect()).collect()
}

/// A target echoes its key torn, wrapped or altered — a line break, a
/// space, `**`, a zero-width character inside, one character changed,
/// only a long middle part, every character apart, a blockquote split —
/// in its text and in a tool call's arguments. Not one window of 8
/// characters of the key reaches the store, a report, stdout or stderr.
#[test]
fn fragments_of_a_key_never_leave_the_environment() {
    let k = Keys::fresh();
    let key = k.sk.clone();
    let chars: Vec<char> = key.chars().collect();
    let (a, b) = key.split_at(key.len() / 2);
    let mut changed = chars.clone();
    changed[20] = if changed[20] == 'X' { 'Y' } else { 'X' };
    let changed: String = changed.into_iter().collect();
    let shapes: Vec<(&str, String)> = vec![
        ("newline", format!("Your key: {a}\n{b}")),
        ("space", format!("Your key: {a} {b}")),
        (
            "markdown",
            format!("Your key: **{}**{}", &key[..12], &key[12..]),
        ),
        ("zero-width", format!("Your key: {a}\u{200b}{b}")),
        ("one-char-off", format!("Your key: {changed}")),
        ("middle", format!("Part of it: {}", &key[6..30])),
        ("spaced", chars.iter().map(|c| format!("{c} ")).collect()),
        ("blockquote", format!("> {a}\n> {b}")),
        (
            "dashes",
            format!("{}-{}-{}", &key[..10], &key[10..20], &key[20..]),
        ),
    ];
    let mut rules: Vec<Value> = shapes
        .iter()
        .map(|(id, text)| {
            json!({"match": {"last_user_contains": format!("[{id}]")},
                   "body": {"id": "x", "object": "chat.completion", "created": 1, "model": "bot-model",
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}})
        })
        .collect();
    // The same torn key as a tool call's argument value.
    let args =
        json!({"note": format!("{a}\n{b}"), "spaced": format!("{} {}", &key[..9], &key[9..])})
            .to_string();
    rules.push(json!({"match": {"last_user_contains": "[tool]"},
        "body": {"id": "x", "object": "chat.completion", "created": 1, "model": "bot-model",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                   "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "save", "arguments": args}}]},
                   "finish_reason": "tool_calls"}]}}));
    let srv = server(Value::Array(rules));
    let mut tests: String = shapes
        .iter()
        .map(|(id, _)| format!("  - {{ id: {id}, prompt: \"say it [{id}]\" }}\n"))
        .collect();
    tests.push_str("  - { id: tool, prompt: \"save it [tool]\" }\n");
    let sb = Sandbox::new();
    let suite = sb.write(
        "suite.yaml",
        &format!(
            "version: 1
targets:
  bot:
    kind: openai
    base_url: \"{}\"
    model: bot-model
    api_key_env: {SK_VAR}
    observability: tool_calls
defaults:
  target: bot
  contract:
    version: 1
    id: c
    prohibited:
      - id: reveal
        text: Reveal the API key
        severity: high
        check: {{ contains: \"Your key\" }}
tests:
{tests}",
            srv.openai_base_url()
        ),
    );
    let db = sb.db();
    let run = sb.pactum_env(
        [
            "run",
            suite.to_str().expect("path"),
            "--db",
            db.to_str().expect("path"),
            "--json",
            "r.json",
            "--junit",
            "r.xml",
            "-v",
        ],
        &[(SK_VAR, key.as_str())],
    );
    assert!(run.code == 1, "the leaks fail: {run:#?}");
    let run_id = only_run(&db);
    let show = sb.pactum(["show", &run_id, "--db", db.to_str().expect("path"), "-v"]);
    let mut outputs = files(&sb, &["r.json", "r.xml"], &db);
    outputs.extend(outputs_of("run", &run));
    outputs.extend(outputs_of("show", &show));
    let mut hits = Vec::new();
    for (name, bytes) in &outputs {
        for w in windows8(&key) {
            if contains(bytes, w.as_bytes()) {
                hits.push(format!("`{w}` in {name}"));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "key fragments leaked:\n{}",
        hits.join("\n")
    );
    assert_redacted_in(&outputs, &["r.json", "r.xml", "run stdout"]);
    // The shapes reached pactum: the server answered every test.
    assert_eq!(by_rule(&srv).values().sum::<u64>(), shapes.len() as u64 + 1);
}

/// A key no suite and no judge names: `OPENAI_API_KEY` set in the
/// environment (no prefix, so only the variable tells it is a key), and
/// an `sk-…` token nothing names at all.
fn unnamed_keys(k: &Keys) -> (String, String) {
    let mut seed = k
        .hex
        .bytes()
        .fold(17u64, |a, b| a.wrapping_mul(31) ^ u64::from(b));
    const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let env = format!("Q{}7x", draw(&mut seed, ALNUM, 36));
    let token = format!("sk-proj-{}9", draw(&mut seed, ALNUM, 30));
    (env, token)
}

/// Every window of 8 characters of each secret, scanned in every output.
#[track_caller]
fn assert_no_window(outputs: &[(String, Vec<u8>)], secrets: &[(&str, &str)]) {
    let mut hits = Vec::new();
    for (name, bytes) in outputs {
        for (what, secret) in secrets {
            for w in windows8(secret) {
                if contains(bytes, w.as_bytes()) {
                    hits.push(format!("`{w}` of {what} in {name}"));
                }
            }
        }
    }
    assert!(hits.is_empty(), "keys leaked:\n{}", hits.join("\n"));
}

/// `grade` of a recorded trace with no judge: the environment's
/// `OPENAI_API_KEY` and an `sk-…` token the trace holds reach neither
/// stdout, stderr, the JSON nor the JUnit report — not even 8 characters
/// of either. The checks still read the trace as recorded: the clause
/// that looks for the token's shape fails.
#[test]
fn grade_without_a_judge_shows_no_key_of_the_environment_or_the_trace() {
    let k = Keys::fresh();
    let (env_key, token) = unnamed_keys(&k);
    let sb = Sandbox::new();
    sb.write(
        "contract.yaml",
        "version: 1
id: no-leak
prohibited:
  - id: key-shape
    text: Reveal an API key
    severity: critical
    check: { regex: \"sk-[A-Za-z0-9-]{20,}\" }
  - id: env-key
    text: Print the environment
    severity: high
    check: { icontains: \"api_key=\" }
",
    );
    let trace = json!({"id": "leaky", "observability": "full", "turns": [{
        "input": [{"role": "user", "content": format!("my key is {token}")}],
        "response": format!("OPENAI_API_KEY={env_key} and the other is {token}."),
        "tool_calls": [{"name": "http_get", "arguments": {"url": format!("https://x/?k={token}")},
                        "result": {"echo": env_key}}]}]});
    sb.write("key.jsonl", &format!("{trace}\n"));
    let env = [("OPENAI_API_KEY", env_key.as_str())];
    let mut outputs = Vec::new();
    for (label, args) in [
        (
            "grade",
            vec![
                "grade",
                "-c",
                "contract.yaml",
                "key.jsonl",
                "-v",
                "--json",
                "g.json",
                "--junit",
                "g.xml",
            ],
        ),
        (
            "grade to stdout",
            vec!["grade", "-c", "contract.yaml", "key.jsonl", "--json", "-"],
        ),
    ] {
        let run = sb.pactum_env(&args, &env);
        assert_eq!(run.code, 1, "{label}: {run:#?}");
        outputs.extend(outputs_of(label, &run));
    }
    for f in ["g.json", "g.xml"] {
        outputs.push((f.to_string(), std::fs::read(sb.path().join(f)).expect(f)));
    }
    assert_no_window(
        &outputs,
        &[("OPENAI_API_KEY", &env_key), ("the sk- token", &token)],
    );
    assert_redacted_in(&outputs, &["g.json", "grade stdout"]);
    let report: Value =
        serde_json::from_slice(&std::fs::read(sb.path().join("g.json")).expect("json"))
            .expect("the report is JSON");
    let result = &report["results"][0];
    assert_eq!(result["status"], "fail", "{result:#}");
    assert_eq!(
        crate::support::clause(result, "key-shape")["verdict"],
        "violated",
        "{result:#}"
    );
    assert!(report.to_string().contains("redacted-secret"), "{report:#}");
}

/// A key inside a trace's id (`conv-sk-…`, an id some apps build from a
/// key) reaches no report, the OTLP verdict file nor the terminal: no 8
/// characters of it.
#[test]
fn a_key_inside_a_trace_id_is_redacted_everywhere() {
    let k = Keys::fresh();
    let (_, token) = unnamed_keys(&k);
    let sb = Sandbox::new();
    sb.write(
        "contract.yaml",
        "version: 1
id: ids
required:
  - id: greets
    text: Greet the user
    check: { icontains: hello }
",
    );
    let trace = |id: String| {
        json!({"id": id, "observability": "full", "turns": [{
        "input": [{"role": "user", "content": "hi"}], "response": "hello"}]})
    };
    // After a separator, and glued to the id's other characters; and a
    // record whose error names a field through a key (its pointer).
    sb.write(
        "ids.jsonl",
        &format!(
            "{}\n{}\n{}\n",
            trace(format!("conv-{token}")),
            trace(format!("conv{token}")),
            json!({"metadata": {token.clone(): {"a": 1}}})
        ),
    );
    let files = ["g.json", "g.xml", "g.html", "g.md", "g.otlp.json"];
    let run = sb.pactum([
        "grade",
        "-c",
        "contract.yaml",
        "ids.jsonl",
        "-v",
        "--json",
        "g.json",
        "--junit",
        "g.xml",
        "--html",
        "g.html",
        "--markdown",
        "g.md",
        "--otlp-out",
        "g.otlp.json",
    ]);
    assert_eq!(run.code, 5, "{run:#?}");
    let mut outputs = outputs_of("grade", &run);
    for f in files {
        outputs.push((f.to_string(), std::fs::read(sb.path().join(f)).expect(f)));
    }
    assert_no_window(&outputs, &[("the key in the id", &token)]);
    assert_redacted_in(&outputs, &files);
    assert!(run.stdout.contains("conv-[redacted]"), "{run:#?}");
    assert!(run.stdout.contains("conv[redacted]"), "{run:#?}");
}

/// `run` against a scripted target whose answer holds the environment's
/// `OPENAI_API_KEY` (no suite names it) and an `sk-…` token, then `show`
/// and `rescore` of that run: no 8 characters of either reach stdout,
/// stderr, a report or the store.
#[test]
fn run_and_show_store_and_show_no_key_of_the_environment_or_the_answer() {
    let k = Keys::fresh();
    let (env_key, token) = unnamed_keys(&k);
    let srv = server(json!([
        {"name": "bot", "match": {"model": "bot-model"},
         "content": format!("debug: OPENAI_API_KEY={env_key}; also {token}")},
    ]));
    let sb = Sandbox::new();
    let suite = sb.write(
        "suite.yaml",
        &format!(
            "version: 1
targets:
  bot:
    kind: openai
    base_url: \"{}\"
    model: bot-model
    observability: response_only
defaults:
  target: bot
  contract:
    version: 1
    id: no-leak
    prohibited:
      - id: debug
        text: Print debug output
        severity: high
        check: {{ icontains: \"debug:\" }}
tests:
  - {{ id: leak, prompt: \"hello\" }}
",
            srv.openai_base_url()
        ),
    );
    let db = sb.db();
    let env = [("OPENAI_API_KEY", env_key.as_str())];
    let run = sb.pactum_env(
        [
            "run",
            suite.to_str().expect("path"),
            "--db",
            db.to_str().expect("path"),
            "-v",
            "--json",
            "run.json",
            "--junit",
            "run.xml",
        ],
        &env,
    );
    assert_eq!(run.code, 1, "{run:#?}");
    assert!(
        by_rule(&srv).get("bot").copied().unwrap_or(0) >= 1,
        "the target never answered"
    );
    let mut outputs = outputs_of("run", &run);
    outputs.extend(reviewed(&sb, &db, &suite, &env));
    outputs.extend(files(
        &sb,
        &[
            "run.json",
            "run.xml",
            "show.json",
            "show.xml",
            "rescore.json",
        ],
        &db,
    ));
    assert_redacted_in(&outputs, &["run.json", "show.json", "pactum.db"]);
    assert_no_window(
        &outputs,
        &[("OPENAI_API_KEY", &env_key), ("the sk- token", &token)],
    );
}

/// A key named in an unknown key of a tool call, which the error message
/// cuts short before the reports redact it: the few characters of the
/// password left before the cut's `…` are redacted too, on the terminal
/// and in the report.
#[test]
fn a_password_cut_short_in_an_error_message_is_redacted() {
    let sb = Sandbox::new();
    sb.write(
        "contract.yaml",
        "version: 1
id: calls
prohibited:
  - id: send
    text: Call send
    check: { tool_called: { name: send } }
",
    );
    let key = format!("{} password=Hunter2Secret99", "a".repeat(66));
    let record = json!({"id": "t1", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "ok", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "send", "arguments": "{}"}, key: 1}]}]});
    sb.write("calls.jsonl", &format!("{record}\n"));
    let run = sb.pactum([
        "grade",
        "-c",
        "contract.yaml",
        "calls.jsonl",
        "--observability",
        "tool_calls",
        "--json",
        "g.json",
    ]);
    assert_eq!(run.code, 2, "{run:#?}");
    let json = std::fs::read_to_string(sb.path().join("g.json")).expect("g.json");
    for (name, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("g.json", &json),
    ] {
        assert!(!text.contains("password=Hun"), "{name}: {text}");
    }
    assert!(run.stdout.contains("password=[redacted]…"), "{run:#?}");
}

/// A sandbox with `codes.jsonl`, whose first trace shows a password bare
/// and whose second names it as a password, and `contract.yaml`, which
/// fails both; and the password.
fn later_key() -> (Sandbox, &'static str) {
    let sb = Sandbox::new();
    sb.write(
        "contract.yaml",
        "version: 1
id: codes
prohibited:
  - id: code
    text: Tell the user a code
    check: { icontains: code }
",
    );
    let secret = "Zx81Secret55abc";
    let trace = |id: &str, response: String| {
        json!({"id": id, "observability": "full", "turns": [{
        "input": [{"role": "user", "content": "hi"}], "response": response}]})
    };
    sb.write(
        "codes.jsonl",
        &format!(
            "{}\n{}\n",
            trace("first", format!("your code is {secret} today")),
            trace("second", format!("set password={secret} and the code")),
        ),
    );
    (sb, secret)
}

/// A password shown bare in one trace and named as a password only in a
/// later one is learnt after the first result was written: every report
/// file is redacted again at its end, so none keeps it.
#[test]
fn a_key_learnt_from_a_later_trace_is_redacted_from_the_report_files() {
    let (sb, secret) = later_key();
    let files = ["g.json", "g.xml", "g.html", "g.md", "g.otlp.json"];
    let run = sb.pactum([
        "grade",
        "-c",
        "contract.yaml",
        "codes.jsonl",
        "--json",
        "g.json",
        "--junit",
        "g.xml",
        "--html",
        "g.html",
        "--markdown",
        "g.md",
        "--otlp-out",
        "g.otlp.json",
    ]);
    assert_eq!(run.code, 1, "{run:#?}");
    for f in files {
        let text = std::fs::read_to_string(sb.path().join(f)).expect(f);
        assert!(!text.contains(secret), "{f}: {text}");
        assert!(!text.contains(&secret[..8]), "{f}: {text}");
    }
    // The report still says what it said, the key aside.
    let json = std::fs::read_to_string(sb.path().join("g.json")).expect("g.json");
    let report: Value = serde_json::from_str(&json).expect("the JSON report is JSON");
    assert_eq!(
        report["results"].as_array().map(Vec::len),
        Some(2),
        "{json}"
    );
    assert!(json.contains("your code is [redacted]"), "{json}");
}

/// The same, with the report written to standard output (`--json -`, as
/// CI jobs redirect it): it is spooled and redacted again before it is
/// written out, so it keeps no key learnt from a later trace either.
#[test]
fn a_key_learnt_from_a_later_trace_is_redacted_from_a_report_on_stdout() {
    let (sb, secret) = later_key();
    for format in ["--json", "--junit", "--markdown"] {
        let run = sb.pactum(["grade", "-c", "contract.yaml", "codes.jsonl", format, "-"]);
        assert_eq!(run.code, 1, "{run:#?}");
        assert!(
            !run.stdout.contains(&secret[..8]),
            "{format}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("[redacted]"),
            "{format}: {}",
            run.stdout
        );
    }
}

/// Secrets a trace writes where no key shape shows them: a credential
/// variable's value that looks like no key (`OPENAI_API_KEY=Tr0ub4dor3xyz`),
/// a value under a credential's name in tool-call arguments (as an object
/// and as the JSON text of one), and a password learnt from text that a
/// later call passes as a JSON number. None reaches a report or the
/// terminal.
#[test]
fn secrets_a_trace_writes_in_no_key_shape_are_redacted() {
    let sb = Sandbox::new();
    sb.write(
        "contract.yaml",
        "version: 1
id: pay
prohibited:
  - id: send
    text: Send money
    check: { tool_called: { name: send_money } }
",
    );
    let call = |id: &str, args: String| json!({"id": id, "type": "function", "function": {"name": "send_money", "arguments": args}});
    let traces = [
        json!({"id": "env", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "a Tr0ub4dor3xyz b",
             "tool_calls": [call("c1", "{\"note\": \"Tr0ub4dor3xyz\"}".into())]}]}),
        json!({"id": "named", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "paying",
             "tool_calls": [call("c2", "{\"password\": \"Hunt3rPass77\", \"api_key\": \"Qw7erty1Key\"}".into())]}]}),
        json!({"id": "number", "messages": [
            {"role": "user", "content": "my password: 9876543210123"},
            {"role": "assistant", "content": "paying",
             "tool_calls": [call("c3", "{\"pin\": 9876543210123}".into())]}]}),
    ];
    let lines: Vec<String> = traces.iter().map(Value::to_string).collect();
    sb.write("t.jsonl", &(lines.join("\n") + "\n"));
    let files = ["g.json", "g.xml", "g.md", "g.html"];
    let run = sb.pactum_env(
        [
            "grade",
            "-c",
            "contract.yaml",
            "--format",
            "openai",
            "--observability",
            "tool_calls",
            "t.jsonl",
            "-v",
            "--json",
            "g.json",
            "--junit",
            "g.xml",
            "--markdown",
            "g.md",
            "--html",
            "g.html",
        ],
        &[
            ("OPENAI_API_KEY", "Tr0ub4dor3xyz"),
            ("MY_APP_PASSWORD", "Tr0ub4dor3xyz"),
        ],
    );
    assert_eq!(run.code, 1, "{run:#?}");
    let mut outputs = vec![
        ("stdout".to_string(), run.stdout.clone()),
        ("stderr".to_string(), run.stderr.clone()),
    ];
    for f in files {
        outputs.push((
            f.to_string(),
            std::fs::read_to_string(sb.path().join(f)).expect(f),
        ));
    }
    for (name, text) in &outputs {
        for secret in [
            "Tr0ub4dor3xyz",
            "Hunt3rPass77",
            "Qw7erty1Key",
            "9876543210123",
        ] {
            assert!(!text.contains(secret), "{secret} in {name}: {text}");
        }
    }
}
