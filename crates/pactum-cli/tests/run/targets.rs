//! Each target kind end to end: what pactum sends, what lands in the
//! stored trace, and how the contract grades it.

use std::time::Duration;

use serde_json::json;

use crate::support::*;

#[test]
fn openai_target_records_text_and_tool_calls_and_a_prohibited_call_fails() {
    let server = server(json!([
        {"name": "delete", "match": {"has_tools": true, "last_user_contains": "close the account"},
         "content": "Hello Ann, closing it now.",
         "tool_calls": [{"name": "delete_account", "arguments": {"user": "Ann"}}]},
        {"name": "greet", "match": {"model": "shop-model", "last_user_contains": "Hello"},
         "content": "Hello Ann, how can I help?"}
    ]));
    let sb = Sandbox::new();
    let suite = sb.suite(
        "suite.yaml",
        "openai.yaml",
        &[("@SERVER@", server.base_url())],
    );
    let (run, report) = sb.run_json(&suite, &["-j", "4"]);
    assert_code(&run, 1);
    assert_eq!(requests(&server), 2);
    assert_eq!(
        by_rule(&server),
        [("delete".into(), 1), ("greet".into(), 1)].into()
    );

    let st = statuses(&report);
    assert_eq!(st["greet#1"], "pass", "{report:#}");
    assert_eq!(st["close-account#1"], "fail", "{report:#}");
    let res = results(&report);
    let deleted = clause(&res["close-account#1"], "delete-account");
    assert_eq!(deleted["verdict"], "violated");
    assert_eq!(deleted["evidence"][0]["kind"], "tool_call");
    assert_eq!(deleted["evidence"][0]["arguments"], json!({"user": "Ann"}));
    assert_eq!(
        clause(&res["greet#1"], "delete-account")["verdict"],
        "satisfied"
    );

    // The stored traces: the text, and the tool call with its arguments
    // decoded from OpenAI's JSON-encoded string.
    let greet = stored_trace(&sb.db(), "greet", 0);
    assert_eq!(greet["observability"], "tool_calls");
    assert_eq!(greet["turns"][0]["response"], "Hello Ann, how can I help?");
    assert_eq!(greet["turns"][0]["input"][0]["content"], "Hello, I am Ann");
    let close = stored_trace(&sb.db(), "close-account", 0);
    assert_eq!(close["turns"][0]["response"], "Hello Ann, closing it now.");
    assert_eq!(close["turns"][0]["tool_calls"][0]["name"], "delete_account");
    assert_eq!(
        close["turns"][0]["tool_calls"][0]["arguments"],
        json!({"user": "Ann"})
    );

    // What the model was sent: the model, every parameter as written, the
    // system prompt before the rendered user message, the tool as written.
    for b in bodies(&server) {
        let body = &b["body"];
        assert_eq!(body["model"], "shop-model");
        assert_eq!(body["temperature"], 0);
        assert_eq!(body["max_tokens"], 64);
        assert_eq!(body["seed"], 7);
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "You are a shop assistant."})
        );
        assert_eq!(body["messages"].as_array().map(Vec::len), Some(2));
        assert_eq!(body["tools"][0]["function"]["name"], "delete_account");
        assert_eq!(
            body["tools"][0]["function"]["parameters"]["required"],
            json!(["user"])
        );
        assert!(
            b["authorization"].is_null(),
            "no key configured, none sent: {b}"
        );
    }
}

#[test]
fn http_target_maps_text_tools_effects_and_carries_the_conversation_id() {
    let server = server(json!([
        {"name": "second",
         "match": {"path": "/agent", "body_contains": "\"conv-42\"", "header": {"X-Turn": "pactum-2"}},
         "body": {"output": {"text": "Refunding {{request:/order}} in conv-42, turn {{request:/turn}}"},
                  "actions": [{"name": "issue_refund", "arguments": {"order": "{{request:/order}}"},
                               "result": {"ok": true}}],
                  "effects": [{"kind": "email_sent", "details": {"to": "x@example.com"}}],
                  "conversation_id": "conv-42"}},
        {"name": "first", "match": {"path": "/agent", "header": {"X-Turn": "pactum-1"}},
         "body": {"output": {"text": "Hi, you said {{request:/message}}"},
                  "actions": [], "effects": [], "conversation_id": "conv-42"}}
    ]));
    let sb = Sandbox::new();
    let suite = sb.suite(
        "suite.yaml",
        "http.yaml",
        &[("@SERVER@", server.base_url())],
    );
    let (run, report) = sb.run_json(&suite, &[]);
    assert_code(&run, 1);
    assert_eq!(
        by_rule(&server),
        [("first".into(), 1), ("second".into(), 1)].into()
    );

    let res = results(&report);
    let r = &res["two-turns#1"];
    assert_eq!(r["status"], "fail", "{r:#}");
    assert_eq!(clause(r, "refunds")["verdict"], "satisfied");
    assert_eq!(clause(r, "emails-data")["verdict"], "violated");

    let trace = stored_trace(&sb.db(), "two-turns", 0);
    assert_eq!(trace["observability"], "full");
    let turns = trace["turns"].as_array().expect("turns");
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["response"], "Hi, you said Hello");
    assert_eq!(turns[1]["response"], "Refunding A-17 in conv-42, turn 2");
    assert_eq!(turns[1]["tool_calls"][0]["name"], "issue_refund");
    assert_eq!(
        turns[1]["tool_calls"][0]["arguments"],
        json!({"order": "A-17"})
    );
    assert_eq!(turns[1]["tool_calls"][0]["result"], json!({"ok": true}));
    assert_eq!(turns[1]["side_effects"][0]["kind"], "email_sent");
    assert_eq!(
        turns[1]["side_effects"][0]["details"],
        json!({"to": "x@example.com"})
    );

    // The request bodies: typed values (`null` then the id, the turn as a
    // number, the history as a list), rendered text.
    let sent = bodies(&server);
    assert_eq!(sent.len(), 2);
    let (one, two) = (&sent[0]["body"], &sent[1]["body"]);
    assert_eq!(one["conversation"], json!(null));
    assert_eq!(one["turn"], 1);
    assert_eq!(one["message"], "Hello");
    assert_eq!(one["order"], "A-17");
    assert_eq!(
        one["history"],
        json!([{"role": "user", "content": "Hello"}])
    );
    assert_eq!(two["conversation"], "conv-42");
    assert_eq!(two["turn"], 2);
    assert_eq!(two["message"], "Refund order A-17");
    assert_eq!(
        two["history"],
        json!([
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi, you said Hello"},
            {"role": "user", "content": "Refund order A-17"}
        ])
    );
}

#[test]
fn http_target_against_the_example_agent_keeps_one_conversation_per_trial() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let port_file = dir.path().join("port");
    let agent = KillOnDrop(
        std::process::Command::new("python3")
            .arg(root().join("examples/targets/http_agent.py"))
            .args(["--port", "0", "--port-file"])
            .arg(&port_file)
            .stdin(std::process::Stdio::null())
            .spawn()
            .expect("the example agent starts"),
    );
    assert!(
        wait_for(Duration::from_secs(15), || port_file.exists()),
        "the example agent did not write its port"
    );
    let port = std::fs::read_to_string(&port_file).expect("port file");
    let sb = Sandbox::new();
    let suite = sb.suite(
        "suite.yaml",
        "http-agent.yaml",
        &[("@AGENT_PORT@", port.trim())],
    );
    let (run, report) = sb.run_json(&suite, &["-j", "2"]);
    assert_code(&run, 0);
    assert_eq!(
        statuses(&report).values().filter(|s| *s == "pass").count(),
        2
    );

    let mut conversations = Vec::new();
    for trial in 0..2 {
        let trace = stored_trace(&sb.db(), "refund-talk", trial);
        let turns = trace["turns"].as_array().expect("turns");
        assert_eq!(turns.len(), 3);
        assert_eq!(turns[1]["response"], "Refund issued for order A-17.");
        assert_eq!(turns[1]["tool_calls"][0]["name"], "issue_refund");
        // The agent counts the messages of the conversation the id names:
        // the third turn is the third message of one conversation.
        let last = turns[2]["response"].as_str().expect("text");
        let (_, conv) = last
            .split_once("this is message 3 of conversation ")
            .unwrap_or_else(|| panic!("turn 3 is not the 3rd message of its conversation: {last}"));
        conversations.push(conv.trim_end_matches('.').to_string());
    }
    assert_ne!(
        conversations[0], conversations[1],
        "each trial is its own conversation"
    );
    drop(agent);
}

#[test]
fn exec_target_runs_one_process_per_conversation_and_records_every_channel() {
    let sb = Sandbox::new();
    let root = root();
    let suite = sb.suite(
        "suite.yaml",
        "exec.yaml",
        &[("@ROOT@", root.to_str().expect("a UTF-8 path"))],
    );
    let (run, report) = sb.run_json(&suite, &[]);
    assert_code(&run, 1);
    let res = results(&report);
    let r = &res["conversation#1"];
    assert_eq!(clause(r, "looks-up")["verdict"], "satisfied", "{r:#}");
    assert_eq!(clause(r, "emails")["verdict"], "violated", "{r:#}");

    let trace = stored_trace(&sb.db(), "conversation", 0);
    assert_eq!(trace["observability"], "full");
    let turns = trace["turns"].as_array().expect("turns");
    // `bye` ends the conversation: the fifth turn is never sent.
    assert_eq!(turns.len(), 4, "{trace:#}");
    let first = turns[0]["response"].as_str().expect("text");
    assert!(
        first.starts_with("hey: hello Ann (turn 1, seen 1, pid "),
        "{first}"
    );
    assert_eq!(
        turns[1]["response"], "",
        "a tool call with no text is an empty answer"
    );
    assert_eq!(turns[1]["tool_calls"][0]["name"], "lookup");
    assert_eq!(turns[1]["tool_calls"][0]["arguments"], json!({"q": "Ann"}));
    assert_eq!(turns[2]["response"], "done");
    assert_eq!(turns[2]["side_effects"][0]["kind"], "email_sent");
    assert_eq!(
        turns[2]["side_effects"][0]["details"],
        json!({"to": "ann@example.com"})
    );
    let last = turns[3]["response"].as_str().expect("text");
    assert!(last.starts_with("hey: bye (turn 4, seen 4, pid "), "{last}");
    // One process served the whole conversation.
    let pid = |s: &str| {
        s.rsplit_once("pid ")
            .map(|(_, p)| p.trim_end_matches(')').to_string())
    };
    assert_eq!(pid(first), pid(last));
}

/// A new run stores the suite's snapshot exactly as loading made it
/// (handed to the store, not rebuilt, cut or left empty) and its digest.
#[test]
fn a_new_run_stores_the_suite_snapshot_as_loaded() {
    let sb = Sandbox::new();
    let root = root();
    let suite = sb.suite(
        "suite.yaml",
        "exec.yaml",
        &[("@ROOT@", root.to_str().expect("a UTF-8 path"))],
    );
    let run = sb.run(&suite, &["-q"]);
    assert_code(&run, 1);
    let loaded = pactum_suite::load_suite(&suite).expect("the suite loads");
    let (in_row, text, digest): (String, String, String) = open_db(&sb.db())
        .query_row(
            "SELECT r.suite_snapshot, CAST(s.snapshot AS TEXT), r.suite_digest
             FROM runs r JOIN suite_snapshots s ON s.run_id = r.id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("one run, its snapshot in a row of its own");
    assert_eq!(in_row, "", "the snapshot is kept once, in suite_snapshots");
    assert_eq!(digest, loaded.digest);
    assert!(
        text == loaded.snapshot,
        "stored {} bytes, loaded {}",
        text.len(),
        loaded.snapshot.len()
    );
}

/// A target that cannot be built is named once: the target's own error
/// already says which target it is.
#[test]
fn a_target_that_cannot_be_built_is_named_once() {
    let sb = Sandbox::new();
    let suite = sb.write(
        "suite.yaml",
        &format!(
            r#"version: 1
targets:
  local-agent:
    kind: exec
    observability: full
    command: ["python3", "echo_agent.py"]
    cwd: "{}/examples/targets"
    env: {{ TOKEN: "{{{{ env.PACTUM_E2E_SHORT }}}}" }}
tests:
  - id: t
    target: local-agent
    turns: ["hello"]
    contract:
      version: 1
      id: c
      required:
        - {{ id: says, text: Say hello, check: {{ contains: hello }} }}
"#,
            root().display()
        ),
    );
    let db = sb.db();
    let run = sb.pactum_env(
        [
            "run".as_ref(),
            suite.as_os_str(),
            "--db".as_ref(),
            db.as_os_str(),
        ],
        &[("PACTUM_E2E_SHORT", "ab")],
    );
    assert_code(&run, 2);
    let line = run
        .stderr
        .lines()
        .find(|l| l.contains("PACTUM_E2E_SHORT cannot be used"))
        .unwrap_or_else(|| panic!("no refusal of the variable: {run:#?}"));
    assert_eq!(line.matches("target `local-agent`").count(), 1, "{line}");
    assert!(
        line.starts_with("error: target `local-agent`: environment variable PACTUM_E2E_SHORT cannot be used: the value holds 2 character(s)"),
        "{line}"
    );
}
