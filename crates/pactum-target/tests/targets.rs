//! End-to-end tests of the three target kinds against real processes: the
//! scripted server (`testing/scripted_server.py`) for openai and http, the
//! example agents in `examples/targets/`, and the misbehaving agent in
//! `tests/fixtures/` for exec.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use pactum_core::secret::Redactor;
use pactum_core::trace::ObservabilityLevel;
use pactum_llm::testing::ScriptedServer;
use pactum_target::{
    Conversation, ExecMode, Limits, Message, Reply, ResponseMap, Retries, Role, RunSecrets, Target,
    TargetError, TargetKind, TargetSpec,
};
use serde_json::{json, Map, Value};

// ---- helpers ---------------------------------------------------------------

fn server(script: Value) -> ScriptedServer {
    ScriptedServer::start(&script).expect("scripted server starts")
}

fn stats(s: &ScriptedServer) -> Value {
    s.stats().expect("stats")
}

fn limits(timeout_ms: u64, concurrency: usize, retries: u32) -> Limits {
    Limits {
        timeout_ms,
        concurrency,
        requests_per_second: None,
        retries: Retries {
            max: retries,
            base_backoff_ms: 10,
            max_backoff_ms: 3000,
        },
    }
}

fn openai_cfg(base_url: &str) -> TargetSpec {
    TargetSpec {
        name: "bank-bot".into(),
        observability: ObservabilityLevel::ToolCalls,
        limits: limits(5000, 4, 3),
        kind: TargetKind::Openai {
            base_url: base_url.into(),
            model: "test-model".into(),
            api_key_env: None,
            params: Map::new(),
            tools: Vec::new(),
            system: None,
        },
    }
}

fn http_response() -> ResponseMap {
    ResponseMap {
        text: "$.output.text".into(),
        tool_calls: Some("$.calls".into()),
        side_effects: Some("$.effects".into()),
        conversation_id: Some("$.conversation_id".into()),
    }
}

fn http_cfg(url: &str, body: Value) -> TargetSpec {
    TargetSpec {
        name: "support-api".into(),
        observability: ObservabilityLevel::Full,
        limits: limits(5000, 4, 3),
        kind: TargetKind::Http {
            method: "POST".into(),
            url: url.into(),
            headers: BTreeMap::new(),
            body: Some(body),
            response: http_response(),
        },
    }
}

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn python() -> String {
    std::env::var("PACTUM_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn exec_cfg(args: &[&str]) -> TargetSpec {
    let mut command = vec![python()];
    command.extend(args.iter().map(|a| a.to_string()));
    TargetSpec {
        name: "local-agent".into(),
        observability: ObservabilityLevel::Full,
        limits: limits(5000, 4, 0),
        kind: TargetKind::Exec {
            command,
            cwd: repo(),
            env: BTreeMap::new(),
            mode: ExecMode::PerConversation,
        },
    }
}

fn echo_cfg() -> TargetSpec {
    exec_cfg(&["examples/targets/echo_agent.py"])
}

/// The misbehaving agent in `mode`, with a timeout long enough that a
/// Python start on a loaded machine never reads as a hang.
fn misbehaving(mode: &str) -> TargetSpec {
    let mut cfg = exec_cfg(&[
        "crates/pactum-target/tests/fixtures/misbehaving_agent.py",
        mode,
    ]);
    cfg.limits.timeout_ms = 20_000;
    cfg
}

/// The misbehaving agent answering every turn with `line`, verbatim.
fn misbehaving_line(line: &str) -> TargetSpec {
    let mut cfg = misbehaving("line");
    if let TargetKind::Exec { command, .. } = &mut cfg.kind {
        command.push(line.into());
    }
    cfg
}

fn user(text: &str) -> Message {
    Message {
        role: Role::User,
        content: text.into(),
    }
}

fn assistant(text: &str) -> Message {
    Message {
        role: Role::Assistant,
        content: text.into(),
    }
}

fn conv(id: &str, turn: u32, messages: Vec<Message>) -> Conversation {
    Conversation {
        id: id.into(),
        messages,
        target_conversation_id: None,
        turn,
        vars: Map::new(),
    }
}

fn target(cfg: &TargetSpec) -> Target {
    Target::new(cfg).expect("target builds")
}

/// A port nothing listens on (bound, then released).
fn dead_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

fn text(r: &Reply) -> &str {
    r.text.as_deref().unwrap_or("<none>")
}

/// The pid an echo agent reports in its text.
fn pid_of(r: &Reply) -> u32 {
    text(r)
        .rsplit("pid ")
        .next()
        .and_then(|s| s.trim_end_matches(')').parse().ok())
        .expect("the echo agent reports its pid")
}

fn alive(pid: u32) -> bool {
    // A reaped process has no /proc entry; a zombie would still have one,
    // so this also checks that pactum waited for it.
    PathBuf::from(format!("/proc/{pid}")).exists()
}

// ---- openai ----------------------------------------------------------------

#[tokio::test]
async fn openai_text_tool_calls_and_what_was_sent() {
    let s = server(json!([
        {"name": "refund", "match": {"has_tools": true, "last_user_contains": "refund"},
         "tool_calls": [{"name": "issue_refund", "arguments": {"order": "A17", "amount": 20}, "id": "call_1"}]},
        {"name": "hello", "match": {"system_contains": "You are a bank"}, "content": "Hello! How can I help?",
         "usage": {"prompt_tokens": 12, "completion_tokens": 6}},
    ]));
    let mut cfg = openai_cfg(&s.openai_base_url());
    let tool = json!({"type": "function", "function": {"name": "issue_refund",
        "parameters": {"type": "object", "properties": {"order": {"type": "string"}}}}});
    if let TargetKind::Openai {
        params,
        tools,
        system,
        ..
    } = &mut cfg.kind
    {
        params.insert("temperature".into(), json!(0));
        params.insert("seed".into(), json!(7));
        *tools = vec![tool.clone()];
        *system = Some("You are a bank assistant.".into());
    }
    let t = target(&cfg);
    assert_eq!(t.observability(), ObservabilityLevel::ToolCalls);
    let r = t
        .reply(&conv("t1#0", 1, vec![user("hi")]))
        .await
        .expect("answer");
    assert_eq!(r.text.as_deref(), Some("Hello! How can I help?"));
    assert!(r.tool_calls.is_empty());
    assert_eq!(r.attempts, 1);
    assert!(!r.ended);
    assert_eq!(
        r.usage.map(|u| (u.prompt_tokens, u.completion_tokens)),
        Some((12, 6))
    );

    let history = vec![
        user("hi"),
        assistant("Hello! How can I help?"),
        user("refund order A17"),
    ];
    let r = t.reply(&conv("t1#0", 2, history)).await.expect("tool call");
    assert_eq!(
        r.text.as_deref(),
        Some(""),
        "tool calls and no text: an empty answer"
    );
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].name, "issue_refund");
    assert_eq!(r.tool_calls[0].id.as_deref(), Some("call_1"));
    assert_eq!(
        r.tool_calls[0].arguments,
        json!({"order": "A17", "amount": 20})
    );
    assert!(r.tool_calls[0].result.is_none(), "pactum executes no tool");

    let st = stats(&s);
    assert_eq!(st["requests"], 2);
    let sent = &st["bodies"][1]["body"];
    assert_eq!(sent["model"], "test-model");
    assert_eq!(sent["temperature"], json!(0));
    assert_eq!(sent["seed"], json!(7));
    assert_eq!(sent["tools"], json!([tool]));
    let roles: Vec<&str> = sent["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(sent["messages"][0]["content"], "You are a bank assistant.");
    assert_eq!(sent["messages"][3]["content"], "refund order A17");
}

/// A server that answers tool calls in another shape than OpenAI's — a
/// legacy `function_call`, Anthropic `tool_use` blocks, LangChain-style
/// calls, `function.input` — is read with the arguments, and one whose
/// call pactum cannot read is a protocol error, never a turn without
/// calls.
#[tokio::test]
async fn openai_odd_tool_call_shapes_are_read_or_are_protocol_errors() {
    let completion = |message: Value| json!({"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]});
    let pay = json!({"to": "EVIL", "amount": 100});
    let shapes = [
        (
            "legacy",
            json!({"role": "assistant", "content": null, "function_call": {"name": "pay", "arguments": pay.to_string()}}),
        ),
        (
            "anthropic",
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "pay", "input": pay}]}),
        ),
        (
            "langchain",
            json!({"role": "assistant", "content": "", "tool_calls": [{"name": "pay", "args": pay, "id": "c1", "type": "tool_call"}]}),
        ),
        (
            "input",
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "pay", "input": pay}}]}),
        ),
    ];
    let mut rules: Vec<Value> = shapes
        .iter()
        .map(|(said, m)| json!({"match": {"last_user_contains": said}, "body": completion(m.clone())}))
        .collect();
    rules.push(json!({"match": {"last_user_contains": "chunk"}, "body": completion(json!({"role": "assistant", "content": null, "tool_call_chunks": [{"name": "pay", "args": "{}"}]}))}));
    rules.push(json!({"match": {"last_user_contains": "unread"}, "body": completion(json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "pay", "arguments": pay}]}))}));
    let s = server(Value::Array(rules));
    let t = target(&openai_cfg(&s.openai_base_url()));
    for (said, _) in &shapes {
        let r = t.reply(&conv("c", 1, vec![user(said)])).await.expect(said);
        assert_eq!(r.tool_calls.len(), 1, "{said}");
        assert_eq!(
            (r.tool_calls[0].name.as_str(), &r.tool_calls[0].arguments),
            ("pay", &pay),
            "{said}"
        );
        assert_eq!(r.text.as_deref(), Some(""), "{said}");
    }
    for (said, why) in [
        ("chunk", "`/choices/0/message/tool_call_chunks`: unknown key"),
        ("unread", "`/choices/0/message/content/0/arguments`: unknown key `arguments` in a `tool_use` block"),
    ] {
        let err = t.reply(&conv("c", 1, vec![user(said)])).await.expect_err(said);
        assert!(matches!(err, TargetError::Protocol { attempts: 1, .. }), "{said}: {err:?}");
        assert!(err.to_string().contains(why), "{said}: {err}");
    }
}

/// A key repeated in the answer, or in a tool call's JSON-encoded
/// arguments, is a protocol error, never read last-wins: `{"amount":
/// 5000, "amount": 1}` would hide the 5000 from a contract.
#[tokio::test]
async fn openai_a_repeated_key_is_a_protocol_error_and_not_retried() {
    let s = server(json!([
        {"match": {"last_user_contains": "arguments"},
         "tool_calls": [{"name": "refund", "arguments": "{\"amount\":5000,\"amount\":1}"}]},
        {"match": {"last_user_contains": "content"},
         "raw_body": "{\"choices\":[{\"message\":{\"content\":\"I refunded 5000\",\"content\":\"No refund\"}}]}"}
    ]));
    let t = target(&openai_cfg(&s.openai_base_url()));
    for (said, why) in [
        (
            "arguments",
            "`/choices/0/message/tool_calls/0/function/arguments`: the arguments (a JSON-encoded \
             string) have a duplicate key `amount` at `/amount`",
        ),
        (
            "content",
            "duplicate key `content` at `/choices/0/message/content`",
        ),
    ] {
        let err = t
            .reply(&conv("c", 1, vec![user(said)]))
            .await
            .expect_err(said);
        assert!(
            matches!(err, TargetError::Protocol { attempts: 1, .. }),
            "{said}: {err:?}"
        );
        assert!(err.to_string().contains(why), "{said}: {err}");
    }
    assert_eq!(s.requests().expect("n"), 2, "none retried");
}

#[tokio::test]
async fn openai_retries_429_with_retry_after_then_500_then_a_dropped_connection() {
    let s = server(json!([
        {"name": "flaky", "match": {}, "sequence": [
            {"status": 429, "retry_after": 1},
            {"status": 500},
            {"drop": true},
            {"content": "finally"}
        ]}
    ]));
    let t = target(&openai_cfg(&s.openai_base_url()));
    let started = Instant::now();
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("answer after retries");
    let elapsed = started.elapsed();
    assert_eq!(text(&r), "finally");
    assert_eq!(r.attempts, 4);
    assert_eq!(s.requests().expect("n"), 4);
    // Retry-After: 1 was honoured, and the other two retries were quick.
    assert!(elapsed >= Duration::from_millis(950), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
}

#[tokio::test]
async fn openai_gives_up_after_the_bounded_retries() {
    let s = server(json!([{"match": {}, "status": 503, "error_message": "overloaded"}]));
    let mut cfg = openai_cfg(&s.openai_base_url());
    cfg.limits.retries.max = 2;
    let err = target(&cfg)
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("still failing");
    match &err {
        TargetError::Status {
            status, attempts, ..
        } => assert_eq!((*status, *attempts), (503, 3)),
        other => panic!("{other:?}"),
    }
    assert_eq!(err.attempts(), 3);
    assert!(err.to_string().contains("overloaded"), "{err}");
    assert_eq!(s.requests().expect("n"), 3);
}

#[tokio::test]
async fn openai_dead_target_fails_after_the_retries_with_the_attempt_count() {
    let mut cfg = openai_cfg(&format!("http://127.0.0.1:{}/v1", dead_port()));
    cfg.limits.retries.max = 2;
    let err = target(&cfg)
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("nothing listens");
    assert!(
        matches!(err, TargetError::Transport { attempts: 3, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("after 3 attempt(s)"), "{err}");
}

#[tokio::test]
async fn openai_concurrency_limit_is_respected() {
    let s = server(json!([{"match": {}, "delay_ms": 150, "content": "ok"}]));
    let mut cfg = openai_cfg(&s.openai_base_url());
    cfg.limits.concurrency = 2;
    let t = target(&cfg);
    let convs: Vec<Conversation> = (0..6)
        .map(|i| conv(&format!("c{i}"), 1, vec![user("hi")]))
        .collect();
    let replies = futures_join(convs.iter().map(|c| t.reply(c))).await;
    assert!(replies.iter().all(Result::is_ok));
    let st = stats(&s);
    assert_eq!(st["requests"], 6);
    assert_eq!(st["max_in_flight"], 2);
}

#[tokio::test]
async fn openai_api_key_is_sent_but_never_shown() {
    const VAR: &str = "PACTUM_TARGET_TEST_OPENAI_KEY_1";
    std::env::set_var(VAR, "sk-test-0123456789");
    let s = server(json!([{"match": {}, "echo": "authorization"}]));
    let mut cfg = openai_cfg(&s.openai_base_url());
    if let TargetKind::Openai { api_key_env, .. } = &mut cfg.kind {
        *api_key_env = Some(VAR.into());
    }
    let t = target(&cfg);
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("answer");
    assert_eq!(
        stats(&s)["bodies"][0]["authorization"],
        "Bearer sk-test-0123456789"
    );
    // The server echoed the header: the key is redacted from the reply.
    assert!(!text(&r).contains("sk-test-0123456789"), "{}", text(&r));
    let shown = format!("{t:?} {}", t.identity());
    assert!(!shown.contains("sk-test-0123456789"), "{shown}");
}

#[tokio::test]
async fn openai_refuses_full_observability() {
    let mut cfg = openai_cfg("http://127.0.0.1:1/v1");
    cfg.observability = ObservabilityLevel::Full;
    match Target::new(&cfg) {
        Err(TargetError::Config { field, reason, .. }) => {
            assert_eq!(field, "observability");
            assert!(reason.contains("no side effects"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

// ---- missing environment variables -----------------------------------------

#[tokio::test]
async fn a_missing_env_var_is_named_before_any_request() {
    let s = server(json!([
        {"match": {}, "content": "never"},
        {"match": {"path": "/chat"}, "body": {"output": {"text": "never"}}}
    ]));
    let mut openai = openai_cfg(&s.openai_base_url());
    if let TargetKind::Openai { api_key_env, .. } = &mut openai.kind {
        *api_key_env = Some("PACTUM_TARGET_TEST_UNSET_OPENAI".into());
    }
    let mut http = http_cfg(
        &format!("{}/chat", s.base_url()),
        json!({"m": "{{ message }}"}),
    );
    if let TargetKind::Http { headers, .. } = &mut http.kind {
        headers.insert("X-Plain".into(), "{{ conversation_id }}".into());
        headers.insert(
            "Authorization".into(),
            "Bearer {{ env.PACTUM_TARGET_TEST_UNSET_HTTP }}".into(),
        );
    }
    for (cfg, var, name) in [
        (openai, "PACTUM_TARGET_TEST_UNSET_OPENAI", "bank-bot"),
        (http, "PACTUM_TARGET_TEST_UNSET_HTTP", "support-api"),
    ] {
        match Target::new(&cfg) {
            Err(e @ TargetError::MissingEnv { .. }) => {
                assert_eq!(
                    e.to_string(),
                    format!("target `{name}`: environment variable {var} is not set")
                );
                assert_eq!(e.attempts(), 0);
            }
            other => panic!("{var}: {other:?}"),
        }
    }
    assert_eq!(s.requests().expect("n"), 0, "no request before the check");
}

// ---- http ------------------------------------------------------------------

#[tokio::test]
async fn http_two_turns_carry_the_target_conversation_id_and_map_every_channel() {
    const VAR: &str = "PACTUM_TARGET_TEST_HTTP_TOKEN_1";
    std::env::set_var(VAR, "s3cr3t-http-token");
    let s = server(json!([
        {"name": "chat", "match": {"path": "/v2/chat", "header": {"X-Customer": "C-9"}},
         "body": {
            "output": {"text": "you said {{request:/input/message}} (previous {{request:/previous}})"},
            "calls": [{"name": "lookup", "arguments": "{\"id\": 7}", "result": "found"}],
            "effects": [{"kind": "email_sent", "details": {"to": "a@example.com"}}],
            "conversation_id": "conv-{{request:/turn}}"
         }}
    ]));
    let body = json!({
        "input": {"message": "{{ message }}"},
        "previous": "{{ conversation_id }}",
        "turn": "{{ turn }}",
        "history": "{{ messages }}",
        "customer": "{{ customer }}",
        "ours": "{{ pactum_conversation_id }}"
    });
    let mut cfg = http_cfg(&format!("{}/v2/{{{{ path }}}}", s.base_url()), body);
    if let TargetKind::Http { headers, .. } = &mut cfg.kind {
        headers.insert("X-Customer".into(), "{{ customer }}".into());
        headers.insert(
            "Authorization".into(),
            format!("Bearer {{{{ env.{VAR} }}}}"),
        );
    }
    let t = target(&cfg);
    let mut c = conv("t7#2", 1, vec![user("where is my parcel?")]);
    c.vars.insert("customer".into(), json!("C-9"));
    c.vars.insert("path".into(), json!("chat"));
    let r1 = t.reply(&c).await.expect("turn 1");
    assert_eq!(text(&r1), "you said where is my parcel? (previous null)");
    assert_eq!(r1.conversation_id.as_deref(), Some("conv-1"));
    assert_eq!(r1.tool_calls.len(), 1);
    assert_eq!(r1.tool_calls[0].name, "lookup");
    assert_eq!(r1.tool_calls[0].arguments, json!({"id": 7}));
    assert_eq!(r1.tool_calls[0].result, Some(json!("found")));
    assert_eq!(r1.side_effects.len(), 1);
    assert_eq!(r1.side_effects[0].kind, "email_sent");
    assert_eq!(r1.side_effects[0].details, json!({"to": "a@example.com"}));
    assert_eq!(r1.attempts, 1);

    c.turn = 2;
    c.messages.push(assistant(text(&r1)));
    c.messages.push(user("thanks"));
    c.target_conversation_id = r1.conversation_id.clone();
    let r2 = t.reply(&c).await.expect("turn 2");
    assert_eq!(text(&r2), "you said thanks (previous conv-1)");
    assert_eq!(r2.conversation_id.as_deref(), Some("conv-2"));

    let st = stats(&s);
    assert_eq!(st["by_rule"]["chat"], 2);
    let first = &st["bodies"][0];
    assert_eq!(first["authorization"], "Bearer s3cr3t-http-token");
    assert_eq!(
        first["body"]["previous"],
        Value::Null,
        "a sole expression keeps null"
    );
    assert_eq!(first["body"]["turn"], json!(1), "and numbers");
    assert_eq!(first["body"]["ours"], "t7#2");
    assert_eq!(first["body"]["customer"], "C-9");
    let second = &st["bodies"][1]["body"];
    assert_eq!(second["previous"], "conv-1");
    assert_eq!(
        second["history"],
        json!([
            {"role": "user", "content": "where is my parcel?"},
            {"role": "assistant", "content": "you said where is my parcel? (previous null)"},
            {"role": "user", "content": "thanks"}
        ]),
        "messages stays an array"
    );
    let identity = t.identity().to_string();
    assert!(!identity.contains("s3cr3t"), "{identity}");
    assert!(!format!("{t:?}").contains("s3cr3t"));
}

#[tokio::test]
async fn http_retries_429_with_retry_after_then_500_then_a_dropped_connection() {
    let s = server(json!([
        {"match": {"path": "/chat"}, "sequence": [
            {"status": 429, "retry_after": 1},
            {"status": 500},
            {"drop": true},
            {"body": {"output": {"text": "finally"}}}
        ]}
    ]));
    let t = target(&http_cfg(
        &format!("{}/chat", s.base_url()),
        json!({"m": "{{ message }}"}),
    ));
    let started = Instant::now();
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("answer after retries");
    let elapsed = started.elapsed();
    assert_eq!(text(&r), "finally");
    assert_eq!(r.attempts, 4);
    assert!(r.tool_calls.is_empty() && r.side_effects.is_empty() && r.conversation_id.is_none());
    assert_eq!(s.requests().expect("n"), 4);
    assert!(elapsed >= Duration::from_millis(950), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
}

#[tokio::test]
async fn http_client_errors_are_not_retried() {
    let s = server(json!([
        {"match": {"path": "/chat"}, "status": 400, "error_message": "bad field"}
    ]));
    let err = target(&http_cfg(&format!("{}/chat", s.base_url()), json!({})))
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("400");
    assert!(
        matches!(
            err,
            TargetError::Status {
                status: 400,
                attempts: 1,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("bad field"), "{err}");
    assert_eq!(s.requests().expect("n"), 1);
}

#[tokio::test]
async fn http_dead_target_fails_after_the_retries_with_the_attempt_count() {
    let mut cfg = http_cfg(&format!("http://127.0.0.1:{}/chat", dead_port()), json!({}));
    cfg.limits.retries.max = 2;
    let err = target(&cfg)
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("nothing listens");
    assert!(
        matches!(err, TargetError::Transport { attempts: 3, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("after 3 attempt(s)"), "{err}");
}

#[tokio::test]
async fn http_timeouts_are_retried_then_reported() {
    let s = server(json!([
        {"match": {"path": "/chat"}, "delay_ms": 1500, "body": {"output": {"text": "late"}}}
    ]));
    let mut cfg = http_cfg(&format!("{}/chat", s.base_url()), json!({}));
    cfg.limits.timeout_ms = 250;
    cfg.limits.retries.max = 1;
    let started = Instant::now();
    let err = target(&cfg)
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("too slow");
    assert!(
        matches!(
            err,
            TargetError::Timeout {
                after_ms: 250,
                attempts: 2,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_millis(1400),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn http_concurrency_and_rate_limits_are_respected() {
    let s = server(json!([
        {"match": {"path": "/chat"}, "delay_ms": 150, "body": {"output": {"text": "ok"}}}
    ]));
    let mut cfg = http_cfg(&format!("{}/chat", s.base_url()), json!({}));
    cfg.limits.concurrency = 3;
    let t = target(&cfg);
    let convs: Vec<Conversation> = (0..9)
        .map(|i| conv(&format!("c{i}"), 1, vec![user("hi")]))
        .collect();
    let replies = futures_join(convs.iter().map(|c| t.reply(c))).await;
    assert!(replies.iter().all(Result::is_ok));
    assert_eq!(stats(&s)["max_in_flight"], 3);

    let s = server(json!([{"match": {"path": "/chat"}, "body": {"output": {"text": "ok"}}}]));
    let mut cfg = http_cfg(&format!("{}/chat", s.base_url()), json!({}));
    cfg.limits.concurrency = 10;
    cfg.limits.requests_per_second = Some(10.0);
    let t = target(&cfg);
    let replies = futures_join(convs.iter().take(5).map(|c| t.reply(c))).await;
    assert!(replies.iter().all(Result::is_ok));
    let arrivals: Vec<f64> = stats(&s)["arrivals"]
        .as_array()
        .expect("arrivals")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(arrivals.len(), 5);
    let span = arrivals[4] - arrivals[0];
    assert!(
        span >= 0.35,
        "5 requests at 10/s span at least 0.4 s: {arrivals:?}"
    );
}

#[tokio::test]
async fn http_answers_in_the_wrong_shape_are_protocol_errors_and_not_retried() {
    let s = server(json!([
        {"match": {"path": "/nomatch"}, "body": {"reply": "hello"}},
        {"match": {"path": "/notjson"}, "malformed": "json"},
        {"match": {"path": "/wrongtype"}, "body": {"output": {"text": 42}}},
        {"match": {"path": "/echo"}, "body": {"output": {"text": "{{request:/pad}}"}}}
    ]));
    let cases = [
        (
            "/nomatch",
            json!({}),
            "response.text `$.output.text` matches nothing in the answer `{\"reply\":\"hello\"}`",
        ),
        ("/notjson", json!({}), "the answer is not JSON"),
        (
            "/wrongtype",
            json!({}),
            "matched a number, not a string or null",
        ),
        (
            "/echo",
            json!({"pad": "{{ pad }}"}),
            "the answer exceeds 4194304 bytes",
        ),
    ];
    for (path, body, why) in cases {
        let t = target(&http_cfg(&format!("{}{path}", s.base_url()), body));
        let mut c = conv("c", 1, vec![user("hi")]);
        c.vars
            .insert("pad".into(), json!("x".repeat(5 * 1024 * 1024)));
        let err = t.reply(&c).await.expect_err(why);
        assert!(
            matches!(err, TargetError::Protocol { attempts: 1, .. }),
            "{path}: {err:?}"
        );
        assert!(err.to_string().contains(why), "{path}: {err}");
    }
    assert_eq!(s.requests().expect("n"), 4, "none retried");
}

#[tokio::test]
async fn http_undefined_template_variable_fails_before_sending() {
    let s = server(json!([{"match": {"path": "/chat"}, "body": {"output": {"text": "x"}}}]));
    let t = target(&http_cfg(
        &format!("{}/chat", s.base_url()),
        json!({"input": {"who": "{{ vars.customer }}"}}),
    ));
    let err = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("undefined");
    match &err {
        TargetError::Config { field, reason, .. } => {
            assert_eq!(field, "body.input.who");
            assert!(reason.contains("undefined"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.requests().expect("n"), 0);
}

#[tokio::test]
async fn http_a_declared_channel_needs_a_mapping() {
    let mut cfg = http_cfg("http://127.0.0.1:1/chat", json!({}));
    if let TargetKind::Http { response, .. } = &mut cfg.kind {
        response.side_effects = None;
    }
    match Target::new(&cfg) {
        Err(TargetError::Config { field, .. }) => assert_eq!(field, "response.side_effects"),
        other => panic!("{other:?}"),
    }
    cfg.observability = ObservabilityLevel::ToolCalls;
    assert!(Target::new(&cfg).is_ok());
    if let TargetKind::Http { response, .. } = &mut cfg.kind {
        response.tool_calls = None;
    }
    match Target::new(&cfg) {
        Err(TargetError::Config { field, .. }) => assert_eq!(field, "response.tool_calls"),
        other => panic!("{other:?}"),
    }
    cfg.observability = ObservabilityLevel::ResponseOnly;
    assert!(Target::new(&cfg).is_ok());
}

/// A mistyped list path must not read as "no tool calls" (a prohibited call
/// would then show green); an API that omits an empty list still reads as
/// none; a call object with a key pactum does not know is refused.
#[tokio::test]
async fn http_list_paths_are_strict_but_accept_an_omitted_empty_list() {
    let s = server(json!([
        {"match": {"path": "/omitted"}, "body": {"choices": [{"message": {"content": "nothing to do"}}]}},
        {"match": {"path": "/called"}, "body": {"choices": [{"message": {"content": "refunded",
            "tool_calls": [{"name": "issue_refund", "arguments": "{\"order\": \"A17\"}"}]}}]}},
        {"match": {"path": "/typed"}, "body": {"choices": [{"message": {"content": "refunded",
            "tool_calls": [{"name": "issue_refund", "kind": "function"}]}}]}}
    ]));
    let cfg = |path: &str, tool_calls: &str| {
        let mut cfg = http_cfg(&format!("{}{path}", s.base_url()), json!({}));
        cfg.observability = ObservabilityLevel::ToolCalls;
        if let TargetKind::Http { response, .. } = &mut cfg.kind {
            *response = ResponseMap {
                text: "$.choices[0].message.content".into(),
                tool_calls: Some(tool_calls.into()),
                side_effects: None,
                conversation_id: None,
            };
        }
        target(&cfg)
    };
    let c = conv("c", 1, vec![user("refund A17")]);
    const RIGHT: &str = "$.choices[0].message.tool_calls";
    const TYPO: &str = "$.choices[0].mesage.tool_calls";

    let r = cfg("/omitted", RIGHT)
        .reply(&c)
        .await
        .expect("omitted list");
    assert_eq!(text(&r), "nothing to do");
    assert!(r.tool_calls.is_empty());
    let r = cfg("/called", RIGHT).reply(&c).await.expect("called");
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].arguments, json!({"order": "A17"}));

    for path in ["/omitted", "/called"] {
        let err = cfg(path, TYPO).reply(&c).await.expect_err("typo");
        assert!(
            matches!(err, TargetError::Protocol { attempts: 1, .. }),
            "{path}: {err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains(&format!(
                "response.tool_calls `{TYPO}` matches nothing and its parent \
                 `$.choices[0].mesage` matches no object in the answer `{{\"choices\":"
            )),
            "{path}: {msg}"
        );
    }
    let err = cfg("/typed", RIGHT)
        .reply(&c)
        .await
        .expect_err("unknown key");
    assert!(
        matches!(err, TargetError::Protocol { attempts: 1, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("response.tool_calls[0].kind: unknown key `kind`"),
        "{err}"
    );
    assert_eq!(s.requests().expect("n"), 5, "none retried");
}

/// Every match of a list path counts: a refund in the second match (or
/// after a `null` first match) is read, so a contract prohibiting it sees
/// it. A match that is not a list, and several texts, are protocol errors.
#[tokio::test]
async fn http_every_match_of_a_list_path_counts() {
    let refund = json!({"name": "refund", "arguments": {"amount": 5000}});
    let s = server(json!([
        {"match": {"path": "/second"}, "body": {"text": "ok", "steps": [{"calls": []}, {"calls": [refund]}]}},
        {"match": {"path": "/null_first"}, "body": {"text": "ok", "steps": [{"calls": null}, {"calls": [refund]}]}},
        {"match": {"path": "/not_a_list"}, "body": {"text": "ok", "steps": [{"calls": []}, {"calls": refund}]}},
        {"match": {"path": "/two_texts"}, "body": {"text": "ok", "steps": [{"calls": [], "text": "I refunded it"}]}}
    ]));
    let cfg = |path: &str, text: &str, tool_calls: &str| {
        let mut cfg = http_cfg(&format!("{}{path}", s.base_url()), json!({}));
        cfg.observability = ObservabilityLevel::ToolCalls;
        if let TargetKind::Http { response, .. } = &mut cfg.kind {
            *response = ResponseMap {
                text: text.into(),
                tool_calls: Some(tool_calls.into()),
                side_effects: None,
                conversation_id: None,
            };
        }
        target(&cfg)
    };
    let c = conv("c", 1, vec![user("refund it")]);
    for path in ["/second", "/null_first"] {
        for tool_calls in ["$.steps[*].calls", "$..calls"] {
            let r = cfg(path, "$.text", tool_calls).reply(&c).await.expect(path);
            assert_eq!(text(&r), "ok");
            assert_eq!(r.tool_calls.len(), 1, "{path} {tool_calls}");
            assert_eq!(r.tool_calls[0].name, "refund");
            assert_eq!(r.tool_calls[0].arguments, json!({"amount": 5000}));
        }
    }
    let err = cfg("/not_a_list", "$.text", "$.steps[*].calls")
        .reply(&c)
        .await
        .expect_err("an object");
    assert!(
        matches!(err, TargetError::Protocol { attempts: 1, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(
            "response.tool_calls match 1 ($['steps'][1]['calls']) is an object, not an array or null"
        ),
        "{err}"
    );
    let err = cfg("/two_texts", "$..text", "$.steps[*].calls")
        .reply(&c)
        .await
        .expect_err("two texts");
    assert!(
        err.to_string().contains(
            "response.text `$..text` matches 2 values that are not null ($['text'], \
             $['steps'][0]['text']): an ambiguous mapping"
        ),
        "{err}"
    );
    assert_eq!(s.requests().expect("n"), 6, "none retried");
}

/// An answer with a key repeated in any object is a protocol error naming
/// the key and where, never read last-wins.
#[tokio::test]
async fn http_a_repeated_key_in_the_answer_is_a_protocol_error() {
    let s = server(json!([
        {"match": {"path": "/calls"}, "raw_body":
            r#"{"output":{"text":"ok"},"calls":[{"name":"refund","arguments":{"amount":5000}}],"calls":[]}"#},
        {"match": {"path": "/name"}, "raw_body":
            r#"{"output":{"text":"ok"},"calls":[{"name":"refund","name":"lookup"}]}"#},
        {"match": {"path": "/arguments"}, "raw_body":
            r#"{"output":{"text":"ok"},"calls":[{"name":"refund","arguments":{"amount":5000},"arguments":{}}]}"#},
        {"match": {"path": "/amount"}, "raw_body":
            r#"{"output":{"text":"ok"},"calls":[{"name":"refund","arguments":{"amount":5000,"amount":1}}]}"#},
        {"match": {"path": "/string_amount"}, "raw_body":
            r#"{"output":{"text":"ok"},"calls":[{"name":"refund","arguments":"{\"amount\":5000,\"amount\":1}"}]}"#},
        {"match": {"path": "/fine"}, "raw_body":
            r#"{"output":{"text":"ok"},"calls":[{"name":"refund","arguments":{"amount":5000}}]}"#}
    ]));
    for (path, why) in [
        (
            "/calls",
            "the answer is ambiguous (duplicate key `calls` at `/calls`",
        ),
        ("/name", "duplicate key `name` at `/calls/0/name`"),
        (
            "/arguments",
            "duplicate key `arguments` at `/calls/0/arguments`",
        ),
        (
            "/amount",
            "duplicate key `amount` at `/calls/0/arguments/amount`",
        ),
        (
            "/string_amount",
            "response.tool_calls[0].arguments: the arguments (a JSON-encoded string) have a \
             duplicate key `amount` at `/amount`",
        ),
    ] {
        let t = target(&http_cfg(&format!("{}{path}", s.base_url()), json!({})));
        let err = t
            .reply(&conv("c", 1, vec![user("hi")]))
            .await
            .expect_err(path);
        assert!(
            matches!(err, TargetError::Protocol { attempts: 1, .. }),
            "{path}: {err:?}"
        );
        assert!(err.to_string().contains(why), "{path}: {err}");
    }
    let t = target(&http_cfg(&format!("{}/fine", s.base_url()), json!({})));
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("no repeated key");
    assert_eq!(r.tool_calls[0].arguments, json!({"amount": 5000}));
    assert_eq!(s.requests().expect("n"), 6, "none retried");
}

/// The example HTTP agent of the docs, as a real process.
struct HttpAgent {
    child: std::process::Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl HttpAgent {
    fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let port_file = dir.path().join("port");
        let child = std::process::Command::new(python())
            .arg(repo().join("examples/targets/http_agent.py"))
            .arg("--port")
            .arg("0")
            .arg("--port-file")
            .arg(&port_file)
            .spawn()
            .expect("http agent starts");
        // Owned by the guard at once, so every path kills and reaps it.
        let mut agent = HttpAgent {
            child,
            port: 0,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(15);
        while agent.port == 0 {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                agent.port = port;
            } else {
                assert!(Instant::now() < deadline, "http agent did not start");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        agent
    }
}

impl Drop for HttpAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn http_example_agent_keeps_its_own_conversation() {
    let agent = HttpAgent::start();
    let cfg = TargetSpec {
        name: "example".into(),
        observability: ObservabilityLevel::ToolCalls,
        limits: limits(5000, 4, 2),
        kind: TargetKind::Http {
            method: "POST".into(),
            url: format!("http://127.0.0.1:{}/chat", agent.port),
            headers: BTreeMap::new(),
            body: Some(
                json!({"conversation": "{{ conversation_id }}", "message": "{{ message }}"}),
            ),
            response: ResponseMap {
                text: "$.output.text".into(),
                tool_calls: Some("$.actions".into()),
                side_effects: None,
                conversation_id: Some("$.conversation_id".into()),
            },
        },
    };
    let t = target(&cfg);
    let mut c = conv("ex#0", 1, vec![user("hello")]);
    let r1 = t.reply(&c).await.expect("turn 1");
    let id = r1
        .conversation_id
        .clone()
        .expect("the agent names its conversation");
    assert!(
        text(&r1).contains(&format!("message 1 of conversation {id}")),
        "{}",
        text(&r1)
    );
    c.turn = 2;
    c.target_conversation_id = Some(id.clone());
    c.messages.push(assistant(text(&r1)));
    c.messages.push(user("refund A17"));
    let r2 = t.reply(&c).await.expect("turn 2");
    assert_eq!(r2.conversation_id.as_deref(), Some(id.as_str()));
    assert_eq!(r2.tool_calls.len(), 1);
    assert_eq!(r2.tool_calls[0].name, "issue_refund");
    assert_eq!(r2.tool_calls[0].arguments, json!({"order": "A17"}));
    c.turn = 3;
    c.messages.push(user("and again"));
    let r3 = t.reply(&c).await.expect("turn 3");
    assert!(
        text(&r3).contains(&format!("message 3 of conversation {id}")),
        "{}",
        text(&r3)
    );
}

// ---- exec ------------------------------------------------------------------

#[tokio::test]
async fn exec_echo_agent_keeps_one_process_per_conversation() {
    let t = target(&echo_cfg());
    let mut c = conv("t1#0", 1, vec![user("hello")]);
    c.vars.insert("greeting".into(), json!("hi"));
    let r1 = t.reply(&c).await.expect("turn 1");
    let pid = pid_of(&r1);
    assert_eq!(text(&r1), format!("hi: hello (turn 1, seen 1, pid {pid})"));
    assert_eq!((r1.attempts, r1.ended), (1, false));
    assert!(alive(pid));

    let next = |c: &mut Conversation, said: &str, msg: &str| {
        c.turn += 1;
        c.messages.push(assistant(said));
        c.messages.push(user(msg));
    };
    next(&mut c, text(&r1), r#"tool lookup {"id": 7}"#);
    let r2 = t.reply(&c).await.expect("turn 2");
    assert_eq!(
        r2.text.as_deref(),
        Some(""),
        "tool calls and no text: an empty answer"
    );
    assert_eq!(r2.tool_calls.len(), 1);
    assert_eq!(r2.tool_calls[0].name, "lookup");
    assert_eq!(r2.tool_calls[0].arguments, json!({"id": 7}));

    next(&mut c, "", r#"effect email_sent {"to": "a@example.com"}"#);
    let r3 = t.reply(&c).await.expect("turn 3");
    assert_eq!(text(&r3), "done");
    assert_eq!(r3.side_effects.len(), 1);
    assert_eq!(r3.side_effects[0].kind, "email_sent");
    assert_eq!(r3.side_effects[0].details, json!({"to": "a@example.com"}));

    next(&mut c, "done", "still there?");
    let r4 = t.reply(&c).await.expect("turn 4");
    assert_eq!(
        text(&r4),
        format!("hi: still there? (turn 4, seen 4, pid {pid})")
    );

    // A second conversation gets its own process.
    let other = t
        .reply(&conv("t2#0", 1, vec![user("x")]))
        .await
        .expect("other");
    assert_ne!(pid_of(&other), pid);
    t.close("t2#0").await;

    next(&mut c, text(&r4), "bye");
    let r5 = t.reply(&c).await.expect("turn 5");
    assert!(r5.ended, "the agent ended the conversation");
    assert!(!alive(pid), "an ended conversation's process is gone");

    // A fresh process takes over with the whole history.
    next(&mut c, text(&r5), "after the end");
    let r6 = t.reply(&c).await.expect("turn 6");
    assert_eq!(
        text(&r6),
        format!("hi: after the end (turn 6, seen 1, pid {})", pid_of(&r6))
    );
    assert_ne!(pid_of(&r6), pid);
    t.close("t1#0").await;
    assert!(!alive(pid_of(&r6)));
}

#[tokio::test]
async fn exec_close_and_drop_kill_the_process() {
    let t = target(&echo_cfg());
    let a = t.reply(&conv("a", 1, vec![user("x")])).await.expect("a");
    let b = t.reply(&conv("b", 1, vec![user("x")])).await.expect("b");
    let (pa, pb) = (pid_of(&a), pid_of(&b));
    assert!(alive(pa) && alive(pb));
    t.close("a").await;
    assert!(!alive(pa), "close kills and reaps");
    assert!(alive(pb), "only that conversation's process");
    t.close("never-started").await;
    drop(t);
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pb) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(pb), "dropping the target kills its processes");
}

#[tokio::test]
async fn exec_concurrency_limit_counts_live_conversations() {
    let mut cfg = echo_cfg();
    cfg.limits.concurrency = 1;
    let t = target(&cfg);
    t.reply(&conv("a", 1, vec![user("x")])).await.expect("a");
    let blocked = tokio::time::timeout(
        Duration::from_millis(400),
        t.reply(&conv("b", 1, vec![user("x")])),
    )
    .await;
    assert!(blocked.is_err(), "b waits while a's process lives");
    // a's later turns are not blocked by the limit.
    t.reply(&conv("a", 2, vec![user("x"), assistant("y"), user("z")]))
        .await
        .expect("a, turn 2");
    t.close("a").await;
    let b = tokio::time::timeout(
        Duration::from_secs(5),
        t.reply(&conv("b", 1, vec![user("x")])),
    )
    .await
    .expect("b runs once a is closed")
    .expect("b");
    assert!(text(&b).contains("seen 1"));
}

#[tokio::test]
async fn exec_a_turn_dropped_mid_way_leaves_no_stale_answer() {
    let mut cfg = misbehaving("slow_first");
    cfg.limits.concurrency = 1;
    let t = target(&cfg);
    let dropped = tokio::time::timeout(
        Duration::from_millis(300),
        t.reply(&conv("c", 1, vec![user("a")])),
    )
    .await;
    assert!(dropped.is_err(), "the caller gave up on turn 1");
    // The abandoned process is gone and its slot free (concurrency 1), and
    // its late answer to turn 1 is never read as the answer to turn 2.
    let r = tokio::time::timeout(
        Duration::from_secs(15),
        t.reply(&conv("c", 2, vec![user("a"), assistant("?"), user("b")])),
    )
    .await
    .expect("turn 2 is not blocked")
    .expect("turn 2");
    assert_eq!(text(&r), "answer to turn 2, requests seen 1");
    t.close("c").await;
}

async fn fail(mode: &str) -> (TargetError, Duration) {
    fail_within(mode, 20_000).await
}

async fn fail_within(mode: &str, timeout_ms: u64) -> (TargetError, Duration) {
    let mut cfg = misbehaving(mode);
    cfg.limits.timeout_ms = timeout_ms;
    let t = target(&cfg);
    let started = Instant::now();
    let err = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err(mode);
    (err, started.elapsed())
}

#[tokio::test]
async fn exec_garbage_output_is_a_protocol_error_with_stderr() {
    let (err, _) = fail("garbage").await;
    assert!(matches!(err, TargetError::Protocol { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("turn 1: the answer line is not JSON"), "{msg}");
    assert!(msg.contains("`hello, I am not JSON`"), "{msg}");
    assert!(
        msg.contains("stderr: Traceback? no: this is not JSON"),
        "{msg}"
    );
}

#[tokio::test]
async fn exec_a_hang_times_out_and_the_process_is_killed() {
    let (err, elapsed) = fail_within("hang", 1500).await;
    assert!(
        matches!(
            err,
            TargetError::Timeout {
                after_ms: 1500,
                attempts: 1,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("stderr: thinking forever"),
        "{err}"
    );
    assert!(
        elapsed >= Duration::from_millis(1450) && elapsed < Duration::from_secs(4),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn exec_a_non_zero_exit_is_a_process_error_with_status_and_stderr() {
    let (err, _) = fail("exit").await;
    assert!(matches!(err, TargetError::Process { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("exit status: 3"), "{msg}");
    assert!(msg.contains("before answering turn 1"), "{msg}");
    assert!(
        msg.contains("stderr: fatal: cannot load the model"),
        "{msg}"
    );

    let t = target(&misbehaving("exit_after_first"));
    let r = t
        .reply(&conv("c", 1, vec![user("a")]))
        .await
        .expect("turn 1");
    assert_eq!(text(&r), "first");
    let err = t
        .reply(&conv(
            "c",
            2,
            vec![user("a"), assistant("first"), user("b")],
        ))
        .await
        .expect_err("turn 2");
    let msg = err.to_string();
    assert!(
        msg.contains("exit status: 4") && msg.contains("turn 2"),
        "{msg}"
    );
    assert!(msg.contains("crashed on turn 2"), "{msg}");
}

#[tokio::test]
async fn exec_an_error_answer_is_a_process_error() {
    let (err, _) = fail("error").await;
    assert!(matches!(err, TargetError::Process { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("the agent reported an error on turn 1: the knowledge base is down"),
        "{err}"
    );
}

#[tokio::test]
async fn exec_huge_output_is_bounded() {
    let (err, elapsed) = fail("huge").await;
    assert!(matches!(err, TargetError::Protocol { .. }), "{err:?}");
    assert!(err.to_string().contains("exceeds 4194304 bytes"), "{err}");
    assert!(
        elapsed < Duration::from_secs(10),
        "no wait for the 20 s timeout: {elapsed:?}"
    );
}

#[tokio::test]
async fn exec_stderr_is_drained_and_only_its_tail_kept() {
    let (err, _) = fail("stderr_flood").await;
    let TargetError::Protocol {
        stderr: Some(tail), ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert!(tail.ends_with("THE END OF STDERR"), "{tail}");
    assert!(tail.starts_with('…'), "{tail}");
    assert!(tail.chars().count() <= 1001, "{}", tail.chars().count());
}

#[tokio::test]
async fn exec_unknown_answer_keys_are_refused() {
    let (err, _) = fail("unknown_key").await;
    assert!(matches!(err, TargetError::Protocol { .. }), "{err:?}");
    assert!(
        err.to_string().contains("unknown key(s) `tool_call`"),
        "{err}"
    );
}

/// An answer line with a key repeated in any object is a protocol error
/// naming the key and where: the refund in the first `tool_calls` must not
/// vanish behind a second, empty one.
#[tokio::test]
async fn exec_a_repeated_key_in_the_answer_line_is_a_protocol_error() {
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
    ] {
        let t = target(&misbehaving_line(line));
        let err = t
            .reply(&conv("c", 1, vec![user("hi")]))
            .await
            .expect_err(why);
        assert!(matches!(err, TargetError::Protocol { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains("turn 1: the answer line is ambiguous ("),
            "{msg}"
        );
        assert!(msg.contains(why), "{why}: {msg}");
    }
    // The same line without the repeat is read.
    let t = target(&misbehaving_line(
        r#"{"response":"ok","tool_calls":[{"name":"refund","arguments":{"amount":5000}}]}"#,
    ));
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("no repeated key");
    assert_eq!(r.tool_calls[0].arguments, json!({"amount": 5000}));
    t.close("c").await;
}

#[tokio::test]
async fn exec_env_is_added_to_the_inherited_environment() {
    std::env::set_var("PACTUM_TARGET_TEST_INHERITED_1", "from-pactum");
    let mut cfg = misbehaving("env");
    if let TargetKind::Exec { env, .. } = &mut cfg.kind {
        env.insert("AGENT_MODE".into(), "strict {{ not a template }}".into());
    }
    let t = target(&cfg);
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("answer");
    assert_eq!(
        text(&r),
        "mode=strict {{ not a template }} inherited=from-pactum"
    );
    assert_eq!(
        t.identity()["env"],
        json!({"AGENT_MODE": "strict {{ not a template }}"})
    );
    let shown = format!("{t:?}");
    assert!(
        shown.contains("AGENT_MODE") && !shown.contains("strict"),
        "{shown}"
    );
    t.close("c").await;
}

// ---- exec, persistent mode (pactum-exec/2) -----------------------------------

/// The pool agent in the persistent mode, `concurrency` processes at most.
fn pool_cfg(args: &[&str], concurrency: usize) -> TargetSpec {
    let mut all = vec!["crates/pactum-target/tests/fixtures/pool_agent.py"];
    all.extend_from_slice(args);
    let mut cfg = exec_cfg(&all);
    cfg.limits.concurrency = concurrency;
    cfg.limits.timeout_ms = 20_000;
    if let TargetKind::Exec { mode, .. } = &mut cfg.kind {
        *mode = ExecMode::Persistent;
    }
    cfg
}

/// The pid and the requests served the pool agent reports.
fn pool_pid(r: &Reply) -> (u32, u32) {
    let t = text(r);
    let num = |after: &str| -> u32 {
        t.rsplit(after)
            .next()
            .and_then(|s| s.split([',', ')']).next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no `{after}` in {t}"))
    };
    (num("pid "), num("served "))
}

/// Asserts an answer is the pool agent's answer to `id`'s `said`.
#[track_caller]
fn assert_own_answer(r: &Reply, id: &str, said: &str) {
    let want = format!("{id}: {said} (turn ");
    assert!(text(r).starts_with(&want), "{id} got {}", text(r));
}

#[tokio::test]
async fn exec_persistent_processes_serve_many_conversations_within_concurrency() {
    let t = target(&pool_cfg(&[], 2));
    let ids: Vec<String> = (0..8).map(|i| format!("c{i}#0")).collect();
    let first = futures_join(
        ids.iter()
            .map(|id| async { t.reply(&conv(id, 1, vec![user("hello")])).await }),
    )
    .await;
    let mut pids = std::collections::BTreeSet::new();
    for (id, r) in ids.iter().zip(&first) {
        let r = r.as_ref().expect("turn 1");
        assert_own_answer(r, id, "hello");
        pids.insert(pool_pid(r).0);
    }
    assert!(pids.len() <= 2, "at most `concurrency` processes: {pids:?}");
    // Closing a conversation leaves the processes to the others.
    for id in &ids {
        t.close(id).await;
    }
    assert!(pids.iter().all(|p| alive(*p)));
    // Later turns carry the whole conversation; any process serves them.
    let second = futures_join(ids.iter().map(|id| async {
        t.reply(&conv(
            id,
            2,
            vec![user("hello"), assistant("hi"), user("again")],
        ))
        .await
    }))
    .await;
    let mut served = 0;
    for (id, r) in ids.iter().zip(&second) {
        let r = r.as_ref().expect("turn 2");
        assert_own_answer(r, id, "again");
        assert!(text(r).contains("(turn 2,"), "{}", text(r));
        pids.insert(pool_pid(r).0);
        served = served.max(pool_pid(r).1);
    }
    assert!(pids.len() <= 2, "no process was replaced: {pids:?}");
    assert!(served >= 8, "16 requests on 2 processes: {served}");
    assert!(t.identity()["protocol"] == "pactum-exec/2");
    drop(t);
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|p| alive(*p)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        pids.iter().all(|p| !alive(*p)),
        "dropping the target kills the pool"
    );
}

/// The wrong green this mode could bring: an agent that mixes up its
/// conversations. An answer echoing another conversation is an error for
/// the one in flight, never its answer; the process is replaced.
#[tokio::test]
async fn exec_persistent_an_agent_that_swaps_answers_never_passes_one() {
    let t = target(&pool_cfg(&["--lag"], 1));
    let a = t
        .reply(&conv("a#0", 1, vec![user("hello")]))
        .await
        .expect("the first answer is a's own");
    assert_own_answer(&a, "a#0", "hello");
    let err = t
        .reply(&conv("b#0", 1, vec![user("hello")]))
        .await
        .expect_err("b is given a's answer");
    assert!(matches!(err, TargetError::Protocol { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("turn 1: the answer is for conversation `a#0` turn 1, not the request in flight (conversation `b#0` turn 1)"),
        "{msg}"
    );
    assert!(!alive(pool_pid(&a).0), "the confused process is killed");
    // A fresh process answers the next conversation.
    let c = t
        .reply(&conv("c#0", 1, vec![user("hello")]))
        .await
        .expect("c, on a fresh process");
    assert_own_answer(&c, "c#0", "hello");
    assert_ne!(pool_pid(&c).0, pool_pid(&a).0);
    // A turn answered with the same conversation's previous turn is
    // refused too.
    let err = t
        .reply(&conv(
            "c#0",
            2,
            vec![user("hello"), assistant("hi"), user("more")],
        ))
        .await
        .expect_err("turn 2 is given turn 1's answer");
    assert!(
        err.to_string()
            .contains("the answer is for conversation `c#0` turn 1, not the request in flight (conversation `c#0` turn 2)"),
        "{err}"
    );

    // Many at once: every answer accepted is its own conversation's.
    let t = target(&pool_cfg(&["--lag"], 3));
    let ids: Vec<String> = (0..12).map(|i| format!("m{i}#0")).collect();
    let all = futures_join(
        ids.iter()
            .map(|id| async { t.reply(&conv(id, 1, vec![user("hello")])).await }),
    )
    .await;
    let mut refused = 0;
    for (id, r) in ids.iter().zip(&all) {
        match r {
            Ok(r) => assert_own_answer(r, id, "hello"),
            Err(e) => {
                assert!(e.to_string().contains("not the request in flight"), "{e}");
                refused += 1;
            }
        }
    }
    assert!(refused > 0, "a lagging agent is caught");
}

#[tokio::test]
async fn exec_persistent_a_process_that_dies_fails_only_its_conversation() {
    let t = target(&pool_cfg(&[], 1));
    let a = t
        .reply(&conv("a#0", 1, vec![user("hello")]))
        .await
        .expect("a");
    let err = t
        .reply(&conv("b#0", 1, vec![user("die")]))
        .await
        .expect_err("b's process dies");
    assert!(matches!(err, TargetError::Process { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains(
            "exit status: 3 before answering turn 1; stderr: serving b#0 turn 1 dying on b#0"
        ),
        "{msg}"
    );
    assert!(!msg.contains("a#0"), "a's stderr is not b's: {msg}");
    assert!(
        !msg.contains("pactum-exec/1"),
        "a process that answered before is not a pactum-exec/1 agent: {msg}"
    );
    // The run goes on: a new process serves the rest.
    for id in ["c#0", "d#0"] {
        let r = t
            .reply(&conv(id, 1, vec![user("hello")]))
            .await
            .expect("served");
        assert_own_answer(&r, id, "hello");
        assert_ne!(pool_pid(&r).0, pool_pid(&a).0);
    }
    // A process that answered, then exited while idle, fails nobody.
    let r = t
        .reply(&conv("e#0", 1, vec![user("exit after")]))
        .await
        .expect("answered before exiting");
    let gone = pool_pid(&r).0;
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(gone) && Instant::now() < deadline {
        // Not reaped yet: a zombie still has its /proc entry; wait for
        // it to have exited at least.
        let stat = std::fs::read_to_string(format!("/proc/{gone}/stat")).unwrap_or_default();
        if stat.contains(") Z ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let f = t
        .reply(&conv("f#0", 1, vec![user("hello")]))
        .await
        .expect("f, on a new process");
    assert_own_answer(&f, "f#0", "hello");
    assert_eq!(pool_pid(&f).1, 1);
}

/// A request that times out kills its process: its late answer can never
/// be read as the next request's. So does a request the caller drops.
#[tokio::test]
async fn exec_persistent_a_late_answer_is_never_the_next_requests() {
    let mut cfg = pool_cfg(&[], 1);
    // Long enough for a Python start on a loaded machine.
    cfg.limits.timeout_ms = 5_000;
    let t = target(&cfg);
    let a = t
        .reply(&conv("a#0", 1, vec![user("hello")]))
        .await
        .expect("a");
    let err = t
        .reply(&conv("b#0", 1, vec![user("slow")]))
        .await
        .expect_err("b times out");
    assert!(matches!(err, TargetError::Timeout { .. }), "{err:?}");
    assert!(
        err.to_string().contains("stderr: serving b#0 turn 1"),
        "{err}"
    );
    assert!(!err.to_string().contains("a#0"), "{err}");
    assert!(
        !alive(pool_pid(&a).0),
        "the process that timed out is killed"
    );
    let c = t
        .reply(&conv("c#0", 1, vec![user("fast")]))
        .await
        .expect("c");
    assert_own_answer(&c, "c#0", "fast");
    assert_eq!(pool_pid(&c).1, 1, "a new process");

    let dropped = tokio::time::timeout(
        Duration::from_millis(300),
        t.reply(&conv("d#0", 1, vec![user("slow")])),
    )
    .await;
    assert!(dropped.is_err(), "the caller gave up on d");
    // Killed on drop, reaped in the background.
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pool_pid(&c).0) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(pool_pid(&c).0), "d's process is killed");
    let e = tokio::time::timeout(
        Duration::from_secs(15),
        t.reply(&conv("e#0", 1, vec![user("fast")])),
    )
    .await
    .expect("e is not blocked by d's permit")
    .expect("e");
    assert_own_answer(&e, "e#0", "fast");
    assert_eq!(pool_pid(&e).1, 1);
}

/// A pactum-exec/1 agent given the persistent mode fails clearly, whether
/// it refuses the protocol or answers without the echoed ids.
#[tokio::test]
async fn exec_persistent_a_v1_agent_fails_clearly() {
    let mut cfg = echo_cfg();
    if let TargetKind::Exec { mode, .. } = &mut cfg.kind {
        *mode = ExecMode::Persistent;
    }
    let err = target(&cfg)
        .reply(&conv("a#0", 1, vec![user("hello")]))
        .await
        .expect_err("the v1 agent refuses pactum-exec/2");
    assert_eq!(
        err.to_string(),
        "target `local-agent`: the process ended with exit status: 2 before answering turn 1 (its first request: an agent that speaks only pactum-exec/1 refuses `mode: persistent`, which speaks pactum-exec/2); stderr: unsupported protocol 'pactum-exec/2'"
    );
    let err = target(&pool_cfg(&["--no-echo"], 1))
        .reply(&conv("a#0", 1, vec![user("hello")]))
        .await
        .expect_err("an answer without the ids");
    assert!(matches!(err, TargetError::Protocol { .. }), "{err:?}");
    assert!(
        err.to_string().contains("turn 1: the answer does not echo `conversation_id` and `turn`: pactum-exec/2 (`mode: persistent`) requires both, a pactum-exec/1 agent cannot serve it"),
        "{err}"
    );
}

/// The stderr tail of a failed request is what the process wrote while
/// serving it: never an earlier conversation's, however quickly the
/// requests follow each other.
#[tokio::test]
async fn exec_persistent_stderr_in_an_error_is_the_failed_requests_own() {
    let t = target(&pool_cfg(&[], 1));
    for i in 0..10 {
        let ok = format!("ok{i}#0");
        t.reply(&conv(&ok, 1, vec![user("hello")]))
            .await
            .expect("ok");
        let bad = format!("bad{i}#0");
        let err = t
            .reply(&conv(
                &bad,
                1,
                vec![user(if i % 2 == 0 { "fail" } else { "garbage" })],
            ))
            .await
            .expect_err("bad");
        let msg = err.to_string();
        assert!(
            msg.ends_with(&format!("; stderr: serving {bad} turn 1")),
            "{msg}"
        );
        assert!(!msg.contains(&ok), "{msg}");
    }
}

// ---- keys never leave the environment ---------------------------------------

/// Every 8 characters in a row of `key`.
fn pieces(key: &str) -> Vec<String> {
    let chars: Vec<char> = key.chars().collect();
    chars.windows(8).map(|w| w.iter().collect()).collect()
}

#[track_caller]
fn assert_no_piece(text: &str, key: &str) {
    for p in pieces(key) {
        assert!(!text.contains(&p), "`{p}` of the key is in: {text}");
    }
}

/// A run whose keys live in `vars` (set here to `values`).
fn run_secrets(vars: &[(&str, &str)]) -> RunSecrets {
    for (k, v) in vars {
        std::env::set_var(k, v);
    }
    RunSecrets {
        redactor: Redactor::new(vars.iter().map(|(_, v)| *v)).expect("secrets"),
        key_vars: vars.iter().map(|(k, _)| k.to_string()).collect(),
    }
}

#[tokio::test]
async fn exec_processes_inherit_no_key_variable_unless_env_passes_it() {
    const A: &str = "sk-exec-A-7d1e9c3b5a";
    const B: &str = "tok/exec+B=0f2e4d6c8a";
    let run = run_secrets(&[("PACTUM_T_ENV_KEY_A", A), ("PACTUM_T_ENV_KEY_B", B)]);
    // Another name holding a key's value is not inherited either.
    std::env::set_var("PACTUM_T_ENV_SAME_AS_A", A);
    std::env::set_var("PACTUM_T_ENV_PLAIN", "plain value");
    let mut cfg = misbehaving("environ");
    if let TargetKind::Exec { env, .. } = &mut cfg.kind {
        env.insert(
            "PACTUM_T_ENV_PASSED".into(),
            "{{ env.PACTUM_T_ENV_KEY_B }}".into(),
        );
    }
    let t = Target::with_secrets(&cfg, &run).expect("builds");
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("answer");
    let seen: Value = serde_json::from_str(text(&r)).expect("the agent's environment");
    assert_eq!(
        seen,
        json!({"PACTUM_T_ENV_PASSED": "[redacted]", "PACTUM_T_ENV_PLAIN": "plain value"}),
        "the process saw: {seen}"
    );
    assert_eq!(
        r.tool_calls[0].arguments,
        json!({"PACTUM_T_ENV_PASSED": "[redacted]", "PACTUM_T_ENV_PLAIN": "plain value"})
    );
    // The identity and the Debug output name the variable, not its value.
    let shown = format!("{t:?} {}", t.identity());
    assert!(shown.contains("{{ env.PACTUM_T_ENV_KEY_B }}"), "{shown}");
    assert_no_piece(&shown, B);
    t.close("c").await;

    // Without `Target::with_secrets`, a process inherits everything.
    let plain = Target::new(&misbehaving("environ")).expect("builds");
    let r = plain
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("answer");
    assert!(text(&r).contains(A), "{}", text(&r));
    plain.close("c").await;
}

#[tokio::test]
async fn exec_env_passes_a_variable_only_in_the_one_form_and_checks_it() {
    let run = run_secrets(&[("PACTUM_T_KEY_C", "sk-exec-C-1a2b3c4d5e")]);
    for (value, why) in [
        (
            "Bearer {{ env.PACTUM_T_KEY_C }}",
            "exactly `{{ env.NAME }}`",
        ),
        ("{{ env['PACTUM_T_KEY_C'] }}", "exactly `{{ env.NAME }}`"),
    ] {
        let mut cfg = misbehaving("environ");
        if let TargetKind::Exec { env, .. } = &mut cfg.kind {
            env.insert("X".into(), value.into());
        }
        match Target::with_secrets(&cfg, &run) {
            Err(TargetError::Config { field, reason, .. }) => {
                assert_eq!(field, "env.X");
                assert!(reason.contains(why), "{reason}");
            }
            other => panic!("{value}: {other:?}"),
        }
    }
    std::env::set_var("PACTUM_T_SHORT", "abc");
    std::env::remove_var("PACTUM_T_UNSET");
    for (var, want) in [
        ("PACTUM_T_SHORT", "cannot be used"),
        ("PACTUM_T_UNSET", "is not set"),
    ] {
        let mut cfg = misbehaving("environ");
        if let TargetKind::Exec { env, .. } = &mut cfg.kind {
            env.insert("X".into(), format!("{{{{ env.{var} }}}}"));
        }
        let err = Target::with_secrets(&cfg, &run).expect_err(var);
        let msg = err.to_string();
        assert!(msg.contains(var) && msg.contains(want), "{msg}");
        assert!(!msg.contains("abc"), "{msg}");
    }
}

#[tokio::test]
async fn exec_stderr_is_redacted_before_its_tail_is_cut() {
    const KEY: &str = "sk-stderr-9f8e7d6c5b4a3210";
    let run = run_secrets(&[("PACTUM_T_KEY_D", KEY)]);
    let mut cfg = misbehaving("leak_stderr");
    if let TargetKind::Exec { env, .. } = &mut cfg.kind {
        env.insert("PACTUM_T_PASSED".into(), "{{ env.PACTUM_T_KEY_D }}".into());
    }
    let t = Target::with_secrets(&cfg, &run).expect("builds");
    let err = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("the agent exits");
    let msg = format!("{err} {err:?}");
    assert!(
        msg.contains("; stderr: …") && msg.contains("[redacted]"),
        "{msg}"
    );
    assert_no_piece(&msg, KEY);
}

#[tokio::test]
async fn exec_answers_are_redacted_in_every_field_and_encoding() {
    const KEY: &str = "sk-line/4a+B=9c8d7e6f";
    let run = run_secrets(&[("PACTUM_T_KEY_E", KEY)]);
    let u: String = KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let slashed = KEY.replace('/', "\\/");
    let pct = KEY
        .replace('/', "%2F")
        .replace('+', "%2B")
        .replace('=', "%3D");
    let line = format!(
        r#"{{"response":"a {u} b","tool_calls":[{{"name":"{KEY}","id":"{slashed}","arguments":{{"{u}":"{pct}"}},"result":{{"r":"{KEY}"}},"error":"{u}"}}],"side_effects":[{{"kind":"{KEY}","details":{{"d":"{slashed}"}}}}]}}"#
    );
    let t = Target::with_secrets(&misbehaving_line(&line), &run).expect("builds");
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("answer");
    let all = serde_json::to_string(&r).expect("json");
    assert_eq!(text(&r), "a [redacted] b");
    assert_eq!(r.tool_calls[0].name, "[redacted]");
    assert_eq!(
        r.tool_calls[0].arguments,
        json!({"[redacted]": "[redacted]"})
    );
    assert_no_piece(&all, KEY);
    t.close("c").await;
    // A broken line: the key straddles the excerpt the error keeps.
    let broken = format!("{}{KEY} and the rest", "x".repeat(190));
    let t = Target::with_secrets(&misbehaving_line(&broken), &run).expect("builds");
    let err = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("not json");
    assert_no_piece(&err.to_string(), KEY);
}

#[tokio::test]
async fn http_answers_and_errors_are_redacted_before_they_are_cut() {
    const KEY: &str = "tok-http-0a1b2c3d4e5f6789";
    const IN_URL: &str = "sk-in-the-url-77e5d3c1";
    let run = run_secrets(&[("PACTUM_T_KEY_F", KEY)]);
    let u: String = KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let s = server(json!([
        {"match": {"path": "/ok"}, "raw_body": format!(
            r#"{{"output":{{"text":"{u}"}},"calls":[{{"name":"{u}","arguments":{{"{KEY}":"{IN_URL}"}}}}]}}"#)},
        {"match": {"path": "/straddle"}, "raw_body": format!("{}{KEY} more", "y".repeat(170))},
        {"match": {"path": "/status"}, "status": 400, "error_message": format!("{}{KEY}", "z".repeat(260))},
    ]));
    let mut texts = Vec::new();
    for path in ["ok", "straddle", "status"] {
        let url = format!("{}/{path}?api_key={IN_URL}", s.base_url());
        let mut cfg = http_cfg(&url, json!({}));
        cfg.observability = ObservabilityLevel::ToolCalls;
        if let TargetKind::Http { response, .. } = &mut cfg.kind {
            response.side_effects = None;
            response.conversation_id = None;
        }
        let t = Target::with_secrets(&cfg, &run).expect("builds");
        texts.push(format!("{t:?} {}", t.identity()));
        match t.reply(&conv("c", 1, vec![user("hi")])).await {
            Ok(r) => {
                assert_eq!(text(&r), "[redacted]");
                assert_eq!(
                    r.tool_calls[0].arguments,
                    json!({"[redacted]": "[redacted]"})
                );
                texts.push(serde_json::to_string(&r).expect("json"));
            }
            Err(e) => texts.push(format!("{e} {e:?}")),
        }
    }
    assert_eq!(texts.len(), 6);
    for t in &texts {
        assert_no_piece(t, KEY);
        assert_no_piece(t, IN_URL);
    }
    assert!(texts[0].contains("api_key=[redacted]"), "{}", texts[0]);
}

#[tokio::test]
async fn openai_targets_redact_the_runs_other_keys_too() {
    const OTHER: &str = "sk-judge-key-5e4d3c2b1a";
    let run = run_secrets(&[("PACTUM_T_KEY_G", OTHER)]);
    let s = server(json!([{"match": {}, "tool_calls": [
        {"name": "send", "arguments": {"to": OTHER, OTHER: 1}}],
        "content": format!("the judge's key is {OTHER}")}]));
    let t = Target::with_secrets(&openai_cfg(&s.openai_base_url()), &run).expect("builds");
    let r = t
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect("answer");
    assert_eq!(text(&r), "the judge's key is [redacted]");
    assert_eq!(
        r.tool_calls[0].arguments,
        json!({"to": "[redacted]", "[redacted]": 1})
    );
}

/// Each kind records the channels of its answer in which it replaced a
/// key the run holds — whether the key was redacted from the whole answer
/// before it was read or from a field after — and only those: a key in a
/// field nothing reads, or `[redacted]` written by the target itself,
/// records nothing.
#[tokio::test]
async fn every_kind_records_the_channels_it_redacted_a_key_from() {
    use pactum_core::trace::Channel::{Response, SideEffects, ToolCalls};
    const KEY: &str = "sk-where-3e5d7c9b1a0f";
    let run = run_secrets(&[("PACTUM_T_KEY_H", KEY)]);
    let u: String = KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let calls = |args: Value| json!([{"name": "lookup", "arguments": args}]);
    let chans = |r: &Reply| r.redacted.iter().copied().collect::<Vec<_>>();

    // openai: content, a tool call, JSON-escaped in the body, an ignored
    // field, the target's own marker.
    let s = server(json!([
        {"match": {"last_user_contains": "text"}, "content": format!("it is {KEY}")},
        {"match": {"last_user_contains": "call"}, "content": "ok",
         "tool_calls": [{"name": "lookup", "arguments": {"q": KEY}}]},
        {"match": {"last_user_contains": "escaped"}, "raw_body": format!(
            r#"{{"choices":[{{"index":0,"message":{{"role":"assistant","content":"ok","tool_calls":[{{"id":"c1","type":"function","function":{{"name":"lookup","arguments":"{{\"q\": \"{u}\"}}"}}}}]}},"finish_reason":"tool_calls"}}]}}"#)},
        {"match": {"last_user_contains": "ignored"}, "raw_body": format!(
            r#"{{"id":"{KEY}","choices":[{{"index":0,"message":{{"role":"assistant","content":"fine"}},"finish_reason":"stop"}}]}}"#)},
        {"match": {"last_user_contains": "marker"}, "content": "[redacted] by me"},
    ]));
    let t = Target::with_secrets(&openai_cfg(&s.openai_base_url()), &run).expect("builds");
    for (say, want) in [
        ("text", vec![Response]),
        ("call", vec![ToolCalls]),
        ("escaped", vec![ToolCalls]),
        ("ignored", vec![]),
        ("marker", vec![]),
    ] {
        let r = t
            .reply(&conv("c", 1, vec![user(say)]))
            .await
            .unwrap_or_else(|e| panic!("{say}: {e}"));
        assert_eq!(chans(&r), want, "openai {say}: {r:?}");
        assert_no_piece(&serde_json::to_string(&r).expect("json"), KEY);
        assert_eq!(r.to_turn(vec![]).redacted, r.redacted);
    }

    // http: text, calls, effects, a field the mapping does not read.
    let s = server(json!([
        {"match": {"path": "/text"}, "body": {"output": {"text": KEY}}},
        {"match": {"path": "/calls"}, "body": {"output": {"text": "ok"}, "calls": calls(json!({"k": KEY}))}},
        {"match": {"path": "/effects"}, "raw_body": format!(
            r#"{{"output":{{"text":"ok"}},"effects":[{{"kind":"email_sent","details":{{"body":"{u}"}}}}]}}"#)},
        {"match": {"path": "/unread"}, "body": {"output": {"text": "ok"}, "debug": KEY}},
    ]));
    for (path, want) in [
        ("text", vec![Response]),
        ("calls", vec![ToolCalls]),
        ("effects", vec![SideEffects]),
        ("unread", vec![]),
    ] {
        let mut cfg = http_cfg(&format!("{}/{path}", s.base_url()), json!({}));
        if let TargetKind::Http { response, .. } = &mut cfg.kind {
            response.conversation_id = None;
        }
        let t = Target::with_secrets(&cfg, &run).expect("builds");
        let r = t
            .reply(&conv("c", 1, vec![user("hi")]))
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(chans(&r), want, "http {path}: {r:?}");
    }

    // exec: one line per case, redacted whole before it is read.
    for (line, want) in [
        (format!(r#"{{"response":"{u}"}}"#), vec![Response]),
        (
            format!(
                r#"{{"response":"ok","tool_calls":[{{"name":"f","arguments":{{}},"result":"{KEY}"}}]}}"#
            ),
            vec![ToolCalls],
        ),
        (
            format!(r#"{{"response":"ok","side_effects":[{{"kind":"{KEY}","details":{{}}}}]}}"#),
            vec![SideEffects],
        ),
        (
            format!(
                r#"{{"response":"{KEY}","side_effects":[{{"kind":"k","details":{{"a":"{KEY}"}}}}]}}"#
            ),
            vec![Response, SideEffects],
        ),
        (r#"{"response":"nothing"}"#.to_string(), vec![]),
    ] {
        let t = Target::with_secrets(&misbehaving_line(&line), &run).expect("builds");
        let r = t
            .reply(&conv("c", 1, vec![user("hi")]))
            .await
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(chans(&r), want, "exec {line}: {r:?}");
        t.close("c").await;
    }
}

#[tokio::test]
async fn exec_a_program_that_cannot_start_and_a_missing_cwd() {
    let mut cfg = echo_cfg();
    if let TargetKind::Exec { command, .. } = &mut cfg.kind {
        command[0] = "/nonexistent/pactum-agent".into();
    }
    let err = target(&cfg)
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("cannot start");
    assert!(matches!(err, TargetError::Process { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("cannot start `/nonexistent/pactum-agent`"),
        "{err}"
    );

    let mut cfg = echo_cfg();
    if let TargetKind::Exec { cwd, .. } = &mut cfg.kind {
        *cwd = PathBuf::from("/nonexistent/dir");
    }
    match Target::new(&cfg) {
        Err(TargetError::Config { field, reason, .. }) => {
            assert_eq!(field, "cwd");
            assert!(reason.contains("/nonexistent/dir"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

// ---- what users read -------------------------------------------------------

#[tokio::test]
async fn error_messages_read_well() {
    let port = dead_port();
    let mut cfg = http_cfg(
        &format!("http://user:pw@127.0.0.1:{port}/chat?key=k"),
        json!({}),
    );
    cfg.limits.retries.max = 1;
    let dead = target(&cfg)
        .reply(&conv("c", 1, vec![user("hi")]))
        .await
        .expect_err("dead");
    let mut messages = vec![dead.to_string()];
    for mode in ["garbage", "exit", "error", "unknown_key"] {
        messages.push(fail(mode).await.0.to_string());
    }
    let mut bad = http_cfg("http://127.0.0.1:1/chat", json!({"a": "{{ env.X }}"}));
    messages.push(Target::new(&bad).expect_err("env in body").to_string());
    bad.limits.concurrency = 0;
    messages.push(Target::new(&bad).expect_err("concurrency").to_string());
    let text = messages.join("\n");
    assert!(!text.contains("pw@") && !text.contains("key=k"), "{text}");
    insta::with_settings!({filters => vec![
        (r"127\.0\.0\.1:\d+", "127.0.0.1:PORT"),
        (r"error sending request.*", "error sending request [cause]"),
    ]}, {
        insta::assert_snapshot!("error_messages", text);
    });
}

// ---- identity ----------------------------------------------------------------

type Change = (&'static str, fn(&mut TargetSpec));

fn kind(cfg: &mut TargetSpec) -> &mut TargetKind {
    &mut cfg.kind
}

fn identity(cfg: &TargetSpec) -> Value {
    target(cfg).identity()
}

/// Asserts that each change changes the identity, and each neutral change
/// does not; returns the base identity.
fn check_identity(base: &TargetSpec, changes: &[Change], neutral: &[Change]) -> Value {
    let id = identity(base);
    let mut seen = vec![id.clone()];
    for (what, change) in changes {
        let mut cfg = base.clone();
        change(&mut cfg);
        let other = identity(&cfg);
        assert!(!seen.contains(&other), "{what} must change the identity");
        seen.push(other);
    }
    for (what, change) in neutral {
        let mut cfg = base.clone();
        change(&mut cfg);
        assert_eq!(identity(&cfg), id, "{what} must not change the identity");
    }
    id
}

fn limits_and_names() -> [Change; 5] {
    [
        ("name", |c| c.name = "renamed".into()),
        ("timeout", |c| c.limits.timeout_ms += 1),
        ("concurrency", |c| c.limits.concurrency += 1),
        ("rate", |c| c.limits.requests_per_second = Some(3.0)),
        ("retries", |c| c.limits.retries.max += 1),
    ]
}

#[test]
fn openai_identity_covers_what_changes_an_answer() {
    std::env::set_var("PACTUM_TARGET_TEST_ID_KEY_A", "sk-identity-a");
    std::env::set_var("PACTUM_TARGET_TEST_ID_KEY_B", "sk-identity-b");
    let mut base = openai_cfg("http://127.0.0.1:11434/v1");
    if let TargetKind::Openai {
        params,
        tools,
        system,
        api_key_env,
        ..
    } = kind(&mut base)
    {
        params.insert("temperature".into(), json!(0.2));
        *tools = vec![json!({"type": "function", "function": {"name": "f"}})];
        *system = Some("be brief".into());
        *api_key_env = Some("PACTUM_TARGET_TEST_ID_KEY_A".into());
    }
    let changes: [Change; 7] = [
        ("base url", |c| {
            if let TargetKind::Openai { base_url, .. } = kind(c) {
                *base_url = "http://127.0.0.1:8000/v1".into()
            }
        }),
        ("model", |c| {
            if let TargetKind::Openai { model, .. } = kind(c) {
                *model = "other".into()
            }
        }),
        ("param value", |c| {
            if let TargetKind::Openai { params, .. } = kind(c) {
                params.insert("temperature".into(), json!(0.3));
            }
        }),
        ("param added", |c| {
            if let TargetKind::Openai { params, .. } = kind(c) {
                params.insert("seed".into(), json!(1));
            }
        }),
        ("tool definition", |c| {
            if let TargetKind::Openai { tools, .. } = kind(c) {
                tools[0]["function"]["name"] = json!("g");
            }
        }),
        ("system prompt", |c| {
            if let TargetKind::Openai { system, .. } = kind(c) {
                *system = Some("be verbose".into())
            }
        }),
        ("no system prompt", |c| {
            if let TargetKind::Openai { system, .. } = kind(c) {
                *system = None
            }
        }),
    ];
    let mut neutral: Vec<Change> = limits_and_names().to_vec();
    neutral.push(("observability", |c| {
        c.observability = ObservabilityLevel::ResponseOnly
    }));
    neutral.push(("api key variable", |c| {
        if let TargetKind::Openai { api_key_env, .. } = kind(c) {
            *api_key_env = Some("PACTUM_TARGET_TEST_ID_KEY_B".into())
        }
    }));
    neutral.push(("reserved param", |c| {
        if let TargetKind::Openai { params, .. } = kind(c) {
            params.insert("stream".into(), json!(true));
        }
    }));
    neutral.push(("credentials in the url", |c| {
        if let TargetKind::Openai { base_url, .. } = kind(c) {
            *base_url = "http://u:p@127.0.0.1:11434/v1/".into()
        }
    }));
    let id = check_identity(&base, &changes, &neutral);
    assert!(!id.to_string().contains("sk-identity"), "{id}");
    insta::assert_snapshot!(
        "identity_openai",
        serde_json::to_string_pretty(&id).expect("json")
    );
}

#[test]
fn http_identity_covers_what_changes_an_answer() {
    const VAR: &str = "PACTUM_TARGET_TEST_ID_HTTP_TOKEN";
    std::env::set_var(VAR, "http-identity-secret");
    let mut base = http_cfg(
        "https://agent.example/{{ tenant }}/chat",
        json!({"q": "{{ message }}", "history": "{{ messages }}"}),
    );
    if let TargetKind::Http { headers, .. } = kind(&mut base) {
        headers.insert("X-Tenant".into(), "{{ tenant }}".into());
        headers.insert(
            "Authorization".into(),
            format!("Bearer {{{{ env.{VAR} }}}}"),
        );
    }
    let changes: [Change; 10] = [
        ("method", |c| {
            if let TargetKind::Http { method, .. } = kind(c) {
                *method = "PUT".into()
            }
        }),
        ("url", |c| {
            if let TargetKind::Http { url, .. } = kind(c) {
                *url = "https://agent.example/v2/chat".into()
            }
        }),
        ("header value", |c| {
            if let TargetKind::Http { headers, .. } = kind(c) {
                headers.insert("X-Tenant".into(), "fixed".into());
            }
        }),
        ("header added", |c| {
            if let TargetKind::Http { headers, .. } = kind(c) {
                headers.insert("X-Mode".into(), "test".into());
            }
        }),
        ("body", |c| {
            if let TargetKind::Http { body, .. } = kind(c) {
                *body = Some(json!({"q": "{{ message }}"}))
            }
        }),
        ("no body", |c| {
            if let TargetKind::Http { body, .. } = kind(c) {
                *body = None
            }
        }),
        ("text path", |c| {
            if let TargetKind::Http { response, .. } = kind(c) {
                response.text = "$.text".into()
            }
        }),
        ("tool calls path", |c| {
            if let TargetKind::Http { response, .. } = kind(c) {
                response.tool_calls = Some("$.tools".into())
            }
        }),
        ("side effects path", |c| {
            if let TargetKind::Http { response, .. } = kind(c) {
                response.side_effects = Some("$.fx".into())
            }
        }),
        ("conversation id path", |c| {
            if let TargetKind::Http { response, .. } = kind(c) {
                response.conversation_id = None
            }
        }),
    ];
    let mut neutral: Vec<Change> = limits_and_names().to_vec();
    neutral.push(("observability", |c| {
        c.observability = ObservabilityLevel::ToolCalls
    }));
    let id = check_identity(&base, &changes, &neutral);
    // The secret's value may change without changing the identity.
    std::env::set_var(VAR, "another-http-secret");
    assert_eq!(identity(&base), id);
    let shown = id.to_string();
    assert!(
        !shown.contains("http-identity-secret") && !shown.contains(VAR),
        "{shown}"
    );
    insta::assert_snapshot!(
        "identity_http",
        serde_json::to_string_pretty(&id).expect("json")
    );
}

#[test]
fn exec_identity_covers_what_changes_an_answer() {
    let mut base = echo_cfg();
    if let TargetKind::Exec { env, command, .. } = kind(&mut base) {
        command[0] = "python3".into();
        env.insert("MODE".into(), "strict".into());
    }
    let changes: [Change; 5] = [
        ("mode", |c| {
            if let TargetKind::Exec { mode, .. } = kind(c) {
                *mode = ExecMode::Persistent
            }
        }),
        ("argument", |c| {
            if let TargetKind::Exec { command, .. } = kind(c) {
                command.push("--fast".into())
            }
        }),
        ("cwd", |c| {
            if let TargetKind::Exec { cwd, .. } = kind(c) {
                *cwd = std::env::temp_dir()
            }
        }),
        ("env value", |c| {
            if let TargetKind::Exec { env, .. } = kind(c) {
                env.insert("MODE".into(), "lax".into());
            }
        }),
        ("env added", |c| {
            if let TargetKind::Exec { env, .. } = kind(c) {
                env.insert("LANG".into(), "C".into());
            }
        }),
    ];
    let mut neutral: Vec<Change> = limits_and_names().to_vec();
    neutral.push(("observability", |c| {
        c.observability = ObservabilityLevel::ResponseOnly
    }));
    let id = check_identity(&base, &changes, &neutral);
    let cwd = repo().to_string_lossy().into_owned();
    let pattern = regex_escape(&cwd);
    insta::with_settings!({filters => vec![(pattern.as_str(), "[REPO]")]}, {
        insta::assert_snapshot!("identity_exec", serde_json::to_string_pretty(&id).expect("json"));
    });
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

// ---- a tiny join, so the tests need no futures crate ------------------------

async fn futures_join<F, T>(futs: impl Iterator<Item = F>) -> Vec<T>
where
    F: std::future::Future<Output = T>,
{
    let mut set = Vec::new();
    for f in futs {
        set.push(Box::pin(f));
    }
    let mut out: Vec<Option<T>> = set.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in set.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}
