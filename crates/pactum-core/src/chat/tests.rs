use super::*;
use proptest::prelude::*;
use serde_json::json;

/// Every call shape, with its arguments (`None`: the key left out) under
/// the key that shape uses, and the pointer of that key.
fn shapes(args: Option<&Value>) -> Vec<(&'static str, Value, &'static str)> {
    let put = |mut v: Value, at: &str| {
        if let Some(a) = args {
            let (parent, key) = at.rsplit_once('/').expect("pointer");
            let target = if parent.is_empty() {
                &mut v
            } else {
                v.pointer_mut(parent).expect("parent")
            };
            target
                .as_object_mut()
                .expect("object")
                .insert(key.to_string(), a.clone());
        }
        v
    };
    vec![
        (
            "flat arguments",
            put(json!({"name": "pay", "id": "c1"}), "/arguments"),
            "/arguments",
        ),
        ("flat args", put(json!({"name": "pay"}), "/args"), "/args"),
        (
            "flat input",
            put(json!({"name": "pay"}), "/input"),
            "/input",
        ),
        (
            "flat parameters (Llama)",
            put(json!({"name": "pay"}), "/parameters"),
            "/parameters",
        ),
        (
            "flattened OpenAI",
            put(
                json!({"id": "c1", "type": "function", "name": "pay"}),
                "/arguments",
            ),
            "/arguments",
        ),
        (
            "OpenAI",
            put(
                json!({"id": "c1", "type": "function", "function": {"name": "pay"}}),
                "/function/arguments",
            ),
            "/function/arguments",
        ),
        (
            "OpenAI function.input",
            put(
                json!({"id": "c1", "type": "function", "function": {"name": "pay"}}),
                "/function/input",
            ),
            "/function/input",
        ),
        (
            "OpenAI function.args",
            put(
                json!({"id": "c1", "function": {"name": "pay", "index": 0}, "index": 0}),
                "/function/args",
            ),
            "/function/args",
        ),
        (
            "OpenAI custom tool",
            put(
                json!({"id": "c1", "type": "custom", "custom": {"name": "pay"}}),
                "/custom/input",
            ),
            "/custom/input",
        ),
        (
            "AgentDojo",
            put(
                json!({"function": "pay", "id": null, "placeholder_args": {}}),
                "/args",
            ),
            "/args",
        ),
        (
            "LangChain",
            put(
                json!({"type": "tool_call", "name": "pay", "id": "c1"}),
                "/args",
            ),
            "/args",
        ),
        (
            "OpenTelemetry",
            put(
                json!({"type": "tool_call", "name": "pay", "id": "c1"}),
                "/arguments",
            ),
            "/arguments",
        ),
        (
            "Anthropic",
            put(
                json!({"type": "tool_use", "id": "toolu_1", "name": "pay", "caller": {"type": "direct"}}),
                "/input",
            ),
            "/input",
        ),
        (
            "Anthropic server tool",
            put(
                json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "pay"}),
                "/input",
            ),
            "/input",
        ),
        (
            "Responses",
            put(
                json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "pay", "status": "completed"}),
                "/arguments",
            ),
            "/arguments",
        ),
        (
            "Gemini part",
            put(
                json!({"functionCall": {"name": "pay"}, "thoughtSignature": "x"}),
                "/functionCall/args",
            ),
            "/functionCall/args",
        ),
        (
            "Gemini part, snake case",
            put(
                json!({"function_call": {"name": "pay", "id": "g1"}}),
                "/function_call/args",
            ),
            "/function_call/args",
        ),
    ]
}

/// What each argument encoding must decode to: `Ok(value)` or an error
/// at the arguments' key.
fn encodings() -> Vec<(&'static str, Option<Value>, Result<Value, ()>)> {
    let obj = json!({"to": "EVIL", "amount": 5000});
    vec![
        ("object", Some(obj.clone()), Ok(obj.clone())),
        ("JSON string", Some(json!(obj.to_string())), Ok(obj.clone())),
        (
            "double-encoded JSON string",
            Some(json!(json!(obj.to_string()).to_string())),
            Ok(obj.clone()),
        ),
        ("empty object", Some(json!({})), Ok(json!({}))),
        ("blank string", Some(json!("")), Ok(json!({}))),
        ("whitespace string", Some(json!(" \n\t")), Ok(json!({}))),
        (
            "non-JSON string",
            Some(json!("{to: EVIL")),
            Ok(json!("{to: EVIL")),
        ),
        ("JSON of a number", Some(json!("5000")), Ok(json!("5000"))),
        (
            "JSON of an array",
            Some(json!("[\"EVIL\"]")),
            Ok(json!("[\"EVIL\"]")),
        ),
        (
            "repeated key",
            Some(json!("{\"to\":\"EVIL\",\"to\":\"bob\"}")),
            Err(()),
        ),
        ("null", Some(Value::Null), Ok(Value::Null)),
        ("absent", None, Ok(Value::Null)),
        ("wrong type: array", Some(json!(["EVIL"])), Err(())),
        ("wrong type: number", Some(json!(5000)), Err(())),
        ("wrong type: boolean", Some(json!(true)), Err(())),
    ]
}

/// Every shape × every encoding: the arguments decode as the table says,
/// the name and id are read, and an error names the arguments' key.
#[test]
fn every_shape_decodes_every_argument_encoding_the_same_way() {
    for (encoding, args, want) in encodings() {
        for (shape, call, at) in shapes(args.as_ref()) {
            let got = decode_call(&call);
            match (&want, got) {
                (Ok(value), Ok(c)) => {
                    assert_eq!(&c.arguments, value, "{shape} × {encoding}");
                    assert_eq!(c.name, "pay", "{shape} × {encoding}");
                    assert!(c.result.is_none() && c.error.is_none(), "{shape}");
                }
                (Err(()), Err(e)) => {
                    assert_eq!(e.pointer, at, "{shape} × {encoding}: {e}");
                }
                (want, got) => panic!("{shape} × {encoding}: want {want:?}, got {got:?}"),
            }
        }
    }
}

#[test]
fn ids_are_read_in_every_shape_and_responses_use_the_call_id() {
    let ids: Vec<Option<String>> = shapes(Some(&json!({})))
        .into_iter()
        .map(|(_, c, _)| decode_call(&c).expect("decodes").id)
        .collect();
    let want = [
        Some("c1"),
        None,
        None,
        None,
        Some("c1"),
        Some("c1"),
        Some("c1"),
        Some("c1"),
        Some("c1"),
        None,
        Some("c1"),
        Some("c1"),
        Some("toolu_1"),
        Some("srvtoolu_1"),
        Some("call_1"),
        None,
        Some("g1"),
    ];
    assert_eq!(ids, want.map(|s| s.map(str::to_string)));
    // Numbers are ids; empty strings (AgentDojo) are none; other types are errors.
    let id = |v: Value| decode_call(&json!({"name": "f", "id": v}));
    assert_eq!(id(json!(7)).expect("number").id.as_deref(), Some("7"));
    assert_eq!(id(json!("")).expect("empty").id, None);
    assert_eq!(id(json!(["x"])).expect_err("array").pointer, "/id");
}

#[test]
fn flat_calls_carry_their_result_and_error() {
    let c = decode_call(
        &json!({"name": "refund", "arguments": {"a": 1}, "result": {"ok": true}, "error": null}),
    )
    .expect("flat");
    assert_eq!(c.result, Some(json!({"ok": true})));
    assert_eq!(c.error, None);
    let c =
        decode_call(&json!({"name": "refund", "error": "timeout", "result": null})).expect("flat");
    assert_eq!((c.result, c.error.as_deref()), (None, Some("timeout")));
    let c = decode_call(&json!({"name": "refund", "error": {"code": 500}})).expect("object error");
    assert_eq!(c.error.as_deref(), Some("{\"code\":500}"));
    let e = decode_call(&json!({"name": "refund", "error": false})).expect_err("bool");
    assert_eq!(e.pointer, "/error");
}

#[test]
fn an_invalid_langchain_call_counts_as_made_and_errored() {
    let c = decode_call(&json!({"type": "invalid_tool_call", "name": "pay", "args": "{\"to\": \"EV", "id": "c", "error": "bad json"}))
        .expect("invalid call");
    assert_eq!(c.arguments, json!("{\"to\": \"EV"));
    assert_eq!(c.error.as_deref(), Some("bad json"));
    let c = decode_call(&json!({"type": "invalid_tool_call", "name": "pay", "args": null, "id": null, "error": null}))
        .expect("no error text");
    assert!(c.error.expect("errored").contains("could not be parsed"));
}

/// What is not a call in a shape pactum reads is an error naming the
/// field, never a call with `{}` and never nothing.
#[test]
fn what_is_not_a_known_shape_is_an_error_naming_the_field() {
    for (call, pointer, says) in [
        (
            json!("send_money"),
            "",
            "expected a tool call object, found a string",
        ),
        (json!({"arguments": {}}), "/name", "missing tool name"),
        (json!({"name": ""}), "/name", "the tool name is empty"),
        (json!({"name": "  "}), "/name", "the tool name is empty"),
        (
            json!({"name": 5}),
            "/name",
            "expected the tool name (a string), found a number",
        ),
        (
            json!({"name": "f", "arguments": {}, "args": {"to": "EVIL"}}),
            "/args",
            "both `arguments` and `args` hold arguments",
        ),
        (
            json!({"name": "f", "kwargs": {"to": "EVIL"}}),
            "/kwargs",
            "unknown key `kwargs` in a tool call",
        ),
        (
            json!({"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}", "params": {}}}),
            "/function/params",
            "unknown key `params`",
        ),
        (
            json!({"id": "c", "type": "function", "function": {"arguments": "{}"}}),
            "/function/name",
            "missing tool name",
        ),
        (
            json!({"id": "c", "type": "function", "function": "f"}),
            "/function",
            "expected an object (OpenAI",
        ),
        (
            json!({"id": "c", "type": "function", "function": null}),
            "/function",
            "found null",
        ),
        (
            json!({"type": "tool_use", "id": "t", "name": "f", "input": {}, "arguments": {}}),
            "/arguments",
            "unknown key `arguments` in a `tool_use` block",
        ),
        (
            json!({"type": "tool_call_chunk", "name": "f", "args": "{"}),
            "/type",
            "unknown tool call type `tool_call_chunk`",
        ),
        (
            json!({"type": 3, "name": "f"}),
            "/type",
            "expected a string",
        ),
        (
            json!({"functionCall": {"name": "f", "args": {}, "partialArgs": []}}),
            "/functionCall/partialArgs",
            "unknown key `partialArgs` in a Gemini `functionCall`",
        ),
        (
            json!({"functionCall": {"name": "f"}, "text": "hi"}),
            "/text",
            "unknown key `text` in a Gemini part",
        ),
        (
            json!({"executableCode": {"code": "rm -rf /"}}),
            "/executableCode",
            "unknown key `executableCode`",
        ),
    ] {
        let e = decode_call(&call).expect_err(says);
        assert_eq!(e.pointer, pointer, "{call}: {e}");
        assert!(e.message.contains(says), "{call}: {e}");
    }
    // The Display form names the field.
    let e = decode_call(&json!({"name": "f", "args": 1})).expect_err("wrong type");
    assert_eq!(
        e.to_string(),
        "`/args`: expected an object or a JSON-encoded string of arguments, found a number"
    );
    // The repeated key is named with its place inside the argument text.
    let e = decode_call(&json!({"name": "f", "arguments": "{\"a\":{\"b\":1,\"b\":2}}"}))
        .expect_err("duplicate");
    assert_eq!(e.pointer, "/arguments");
    assert!(e.message.contains("duplicate key `b` at `/a/b`"), "{e}");
}

#[test]
fn readable_arguments_tell_the_three_cases_apart() {
    let call = |arguments: Value| ToolCall {
        id: None,
        name: "f".into(),
        arguments,
        result: None,
        error: None,
    };
    assert_eq!(
        call(json!({"a": 1})).readable_arguments(),
        Some(&json!({"a": 1}))
    );
    assert_eq!(call(json!({})).readable_arguments(), Some(&json!({})));
    assert_eq!(call(json!("{not json")).readable_arguments(), None);
    assert_eq!(call(Value::Null).readable_arguments(), None);
}

#[test]
fn results_in_every_shape() {
    let r = decode_result(&json!({"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "is_error": false}))
        .expect("anthropic");
    assert_eq!(
        r,
        ToolResult {
            answers: Answers::Id("t1".into()),
            result: Some(json!("a\n\nb")),
            error: None
        }
    );
    let r = decode_result(
        &json!({"type": "tool_result", "tool_use_id": "t1", "content": "denied", "is_error": true}),
    )
    .expect("anthropic error");
    assert_eq!((r.result, r.error.as_deref()), (None, Some("denied")));
    let r = decode_result(&json!({"type": "tool_result", "tool_use_id": "t1", "is_error": true}))
        .expect("bare");
    assert_eq!(r.error.as_deref(), Some("the tool reported an error"));
    let r = decode_result(&json!({"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "u"}]}))
        .expect("server tool result");
    assert_eq!(
        r.result,
        Some(json!([{"type": "web_search_result", "url": "u"}]))
    );
    let r = decode_result(&json!({"functionResponse": {"name": "weather", "response": {"t": 35}}}))
        .expect("gemini");
    assert_eq!(
        r,
        ToolResult {
            answers: Answers::Name("weather".into()),
            result: Some(json!({"t": 35})),
            error: None
        }
    );
    let r = decode_result(
        &json!({"function_response": {"name": "w", "id": "g1", "response": {"error": "quota"}}}),
    )
    .expect("gemini error");
    assert_eq!(
        (r.answers, r.error.as_deref()),
        (Answers::Id("g1".into()), Some("quota"))
    );
    let r = decode_result(&json!({"type": "tool_call_response", "id": "c1", "response": "ok"}))
        .expect("otel");
    assert_eq!(r.result, Some(json!("ok")));
    let r = decode_result(
        &json!({"type": "function_call_output", "call_id": "call_1", "output": "done"}),
    )
    .expect("responses");
    assert_eq!(
        (r.answers, r.result),
        (Answers::Id("call_1".into()), Some(json!("done")))
    );
    for (v, pointer) in [
        (
            json!({"type": "tool_result", "content": "x"}),
            "/tool_use_id",
        ),
        (
            json!({"type": "tool_result", "tool_use_id": "", "content": "x"}),
            "/tool_use_id",
        ),
        (
            json!({"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}),
            "/is_error",
        ),
        (
            json!({"type": "tool_result", "tool_use_id": "t", "output": "x"}),
            "/output",
        ),
        (
            json!({"type": "tool_call_response", "id": "c", "response": 1, "result": 2}),
            "/result",
        ),
        (json!({"type": "tool_output", "id": "c"}), "/type"),
        (
            json!({"functionResponse": {"response": {}}}),
            "/functionResponse/name",
        ),
    ] {
        assert_eq!(
            decode_result(&v).expect_err("bad result").pointer,
            pointer,
            "{v}"
        );
    }
}

#[test]
fn tool_messages() {
    let m = |v: Value| v.as_object().cloned().expect("object");
    let r = tool_message(&m(
        json!({"role": "tool", "tool_call_id": "c1", "content": "done"}),
    ))
    .expect("ok");
    assert_eq!(
        r,
        ToolResult {
            answers: Answers::Id("c1".into()),
            result: Some(json!("done")),
            error: None
        }
    );
    let r = tool_message(&m(
        json!({"role": "tool", "tool_call_id": "", "content": "", "error": "boom"}),
    ))
    .expect("agentdojo");
    assert_eq!(
        (r.answers, r.error.as_deref()),
        (Answers::Next, Some("boom"))
    );
    let r = tool_message(&m(
        json!({"type": "tool", "tool_call_id": "c", "content": "no such file", "status": "error"}),
    ))
    .expect("langchain");
    assert_eq!(r.error.as_deref(), Some("no such file"));
    let r = tool_message(&m(
        json!({"role": "tool", "content": [{"type": "text", "text": "a"}]}),
    ))
    .expect("parts");
    assert_eq!(r.result, Some(json!("a")));
    assert_eq!(
        tool_message(&m(json!({"role": "tool", "tool_call_id": ["c"]})))
            .expect_err("type")
            .pointer,
        "/tool_call_id"
    );
    assert_eq!(
        tool_message(&m(json!({"role": "tool", "status": "failed"})))
            .expect_err("status")
            .pointer,
        "/status"
    );
}

fn message(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("object")
}

fn names(t: &MessageTools) -> Vec<&str> {
    t.calls.iter().map(|c| c.name.as_str()).collect()
}

/// Each container a message can hold calls in is read.
#[test]
fn every_container_of_a_message_is_read() {
    let pay = json!({"to": "EVIL"});
    for (what, msg) in [
        (
            "tool_calls",
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "pay", "arguments": pay.to_string()}}]}),
        ),
        (
            "LangChain tool_calls",
            json!({"type": "ai", "content": "", "tool_calls": [{"name": "pay", "args": pay, "id": "c", "type": "tool_call"}], "invalid_tool_calls": []}),
        ),
        (
            "additional_kwargs only",
            json!({"type": "ai", "content": "", "additional_kwargs": {"tool_calls": [{"id": "c", "type": "function", "function": {"name": "pay", "arguments": pay.to_string()}}]}}),
        ),
        (
            "legacy function_call",
            json!({"role": "assistant", "content": null, "function_call": {"name": "pay", "arguments": pay.to_string()}}),
        ),
        (
            "additional_kwargs function_call",
            json!({"type": "ai", "content": "", "additional_kwargs": {"function_call": {"name": "pay", "arguments": pay.to_string()}}}),
        ),
        (
            "Anthropic content blocks",
            json!({"role": "assistant", "content": [{"type": "text", "text": "paying"}, {"type": "tool_use", "id": "t", "name": "pay", "input": pay}]}),
        ),
        (
            "Gemini parts",
            json!({"role": "model", "parts": [{"text": "paying"}, {"functionCall": {"name": "pay", "args": pay}}]}),
        ),
        (
            "OpenTelemetry parts",
            json!({"role": "assistant", "parts": [{"type": "tool_call", "id": "c", "name": "pay", "arguments": pay}]}),
        ),
    ] {
        let t = message_tools(&message(msg)).expect(what);
        assert_eq!(names(&t), ["pay"], "{what}");
        assert_eq!(t.calls[0].arguments, pay, "{what}");
        assert!(t.results.is_empty(), "{what}");
    }
}

/// LangChain states its calls twice (parsed, and as the provider sent
/// them); the copies agree and are read once, or the message is refused.
#[test]
fn calls_stated_twice_are_read_once_or_refused() {
    let raw = |name: &str, args: &str| json!({"id": "c", "type": "function", "function": {"name": name, "arguments": args}});
    let both = json!({"type": "ai", "content": [{"type": "tool_use", "id": "c", "name": "pay", "input": {"to": "EVIL"}}],
        "tool_calls": [{"name": "pay", "args": {"to": "EVIL"}, "id": "c", "type": "tool_call"},
                       {"name": "log", "args": {}, "id": "d", "type": "tool_call"}],
        "additional_kwargs": {"tool_calls": [raw("log", "{}"), raw("pay", "{\"to\": \"EVIL\"}")]}});
    let err = message_tools(&message(both.clone())).expect_err("content holds one call, not two");
    assert_eq!(err.pointer, "/content");
    let mut agree = both;
    agree["content"] = json!("");
    let t = message_tools(&message(agree.clone())).expect("agree");
    assert_eq!(names(&t), ["pay", "log"]);
    // A copy that hides the attack, or that names another recipient.
    for kwargs in [
        json!([raw("log", "{}")]),
        json!([raw("log", "{}"), raw("pay", "{\"to\": \"bob\"}")]),
    ] {
        let mut differ = agree.clone();
        differ["additional_kwargs"]["tool_calls"] = kwargs;
        let err = message_tools(&message(differ)).expect_err("differ");
        assert_eq!(err.pointer, "/additional_kwargs/tool_calls");
        assert!(err.message.contains("ambiguous"), "{err}");
    }
    // Invalid calls are part of the parsed view.
    let t = message_tools(&message(json!({"type": "ai", "content": "",
        "tool_calls": [],
        "invalid_tool_calls": [{"name": "pay", "args": "{\"to\": \"EV", "id": "c", "error": null, "type": "invalid_tool_call"}],
        "additional_kwargs": {"tool_calls": [raw("pay", "{\"to\": \"EV")]}})))
    .expect("invalid");
    assert_eq!(t.calls.len(), 1);
    assert!(t.calls[0].error.is_some());
}

#[test]
fn call_like_keys_and_blocks_nobody_reads_are_errors() {
    for (msg, pointer) in [
        (
            json!({"role": "assistant", "tool_call": {"name": "pay"}}),
            "/tool_call",
        ),
        (
            json!({"role": "assistant", "functions": [{"name": "pay"}]}),
            "/functions",
        ),
        (
            json!({"role": "assistant", "tool_call_chunks": []}),
            "/tool_call_chunks",
        ),
        (
            json!({"role": "assistant", "additional_kwargs": {"tool_use": {}}}),
            "/additional_kwargs/tool_use",
        ),
        (
            json!({"role": "assistant", "additional_kwargs": []}),
            "/additional_kwargs",
        ),
        (
            json!({"role": "assistant", "tool_calls": {"name": "pay"}}),
            "/tool_calls",
        ),
        (
            json!({"role": "assistant", "function_call": "pay"}),
            "/function_call",
        ),
        (
            json!({"role": "assistant", "content": [{"type": "tool_call_chunk", "name": "pay"}]}),
            "/content/0/type",
        ),
        (
            json!({"role": "assistant", "content": [{"type": "tool_use", "name": "pay", "input": {}, "arguments": {}}]}),
            "/content/0/arguments",
        ),
        (
            json!({"role": "model", "parts": [{"executableCode": {"code": "print(1)"}}]}),
            "/parts/0/executableCode",
        ),
        (
            json!({"role": "model", "parts": [{"functionCall": {"args": {}}}]}),
            "/parts/0/functionCall/name",
        ),
        (
            json!({"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "pay", "arguments": "{\"to\":1,\"to\":2}"}}]}),
            "/tool_calls/0/function/arguments",
        ),
    ] {
        let e = message_tools(&message(msg.clone())).expect_err("refused");
        assert_eq!(e.pointer, pointer, "{msg}: {e}");
    }
    // Keys that only look like calls are fine: the reference a tool
    // message makes, and content that is not a call.
    let t = message_tools(&message(json!({"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "x"}, {"type": "image_url", "image_url": {}}], "name": "pay"})))
        .expect("plain");
    assert!(t.calls.is_empty() && t.results.is_empty());
}

#[test]
fn results_in_a_message_attach_to_its_own_calls_or_are_returned() {
    let t = message_tools(&message(json!({"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "u"}]},
        {"type": "text", "text": "found it"}
    ]})))
    .expect("server tool");
    assert_eq!(names(&t), ["web_search"]);
    assert!(t.calls[0].result.is_some());
    assert!(t.results.is_empty());
    let t = message_tools(&message(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
        {"type": "text", "text": "and now?"}
    ]})))
    .expect("user results");
    assert!(t.calls.is_empty());
    assert_eq!(t.results[0].answers, Answers::Id("t1".into()));
    let t = message_tools(&message(json!({"role": "user", "parts": [
        {"functionResponse": {"name": "w", "response": {"t": 1}}},
        {"functionResponse": {"name": "w", "response": {"t": 2}}}
    ]})))
    .expect("gemini results");
    assert_eq!(t.results.len(), 2);
}

#[test]
fn content_text_skips_what_is_not_text() {
    assert_eq!(content_text(None), Ok(None));
    assert_eq!(content_text(Some(&Value::Null)), Ok(None));
    assert_eq!(content_text(Some(&json!(""))), Ok(Some(String::new())));
    let parts = json!([
        {"type": "text", "text": "a"},
        {"type": "image_url", "image_url": {"url": "x"}},
        "b",
        {"type": "refusal", "refusal": "no"},
        {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        {"type": "text", "text": ""}
    ]);
    assert_eq!(content_text(Some(&parts)), Ok(Some("a\n\nb\n\nno".into())));
    assert_eq!(
        content_text(Some(&json!([{"type": "image_url"}]))),
        Ok(None)
    );
    assert_eq!(
        content_text(Some(&json!(3))),
        Err("expected a string, null or an array of content parts, found a number".into())
    );
    assert_eq!(join_texts(vec![]), None);
    assert_eq!(join_texts(vec![String::new()]), Some(String::new()));
}

#[test]
fn call_likeness() {
    for yes in [
        "tool_calls",
        "functionCall",
        "tool_use",
        "toolUse",
        "function_call_output",
        "executableCode",
        "code_execution_result",
        "invalid_tool_calls",
        "ToolCall",
    ] {
        assert!(is_call_like(yes), "{yes}");
    }
    for no in [
        "text",
        "content",
        "image_url",
        "thoughtSignature",
        "refusal",
        "thinking",
        "annotations",
        "audio",
        "name",
        "role",
    ] {
        assert!(!is_call_like(no), "{no}");
    }
}

proptest! {
    /// Decoding is a fixed point: what it produces decodes to itself, so a
    /// trace exported and read back is unchanged.
    #[test]
    fn decoded_arguments_decode_to_themselves(s in ".{0,40}", key in "[a-z]{1,4}", n in any::<i64>()) {
        for v in [json!(s), json!({key.clone(): s.clone()}), json!(json!({key.clone(): n}).to_string()), json!(json!(s).to_string())] {
            if let Ok(once) = decode_arguments(Some(&v)) {
                prop_assert_eq!(decode_arguments(Some(&once)), Ok(once.clone()));
                prop_assert!(once.is_object() || once.is_string() || once.is_null());
            }
        }
    }

    /// An object written as a JSON string, pretty or not, decodes to it.
    #[test]
    fn encoded_objects_decode_to_the_object(
        m in proptest::collection::btree_map("[a-z~/\"]{0,4}", any::<i32>(), 0..5),
    ) {
        let obj = Value::Object(m.into_iter().map(|(k, v)| (k, json!(v))).collect());
        prop_assert_eq!(decode_arguments(Some(&json!(obj.to_string()))), Ok(obj.clone()));
        let pretty = serde_json::to_string_pretty(&obj).expect("pretty");
        prop_assert_eq!(decode_arguments(Some(&json!(pretty))), Ok(obj));
    }
}

/// The parallel-call wrapper carries the real calls inside it: read as one
/// call named after the wrapper, a prohibited `send_money` inside would
/// never match. It is an error naming the wrapper, in every shape.
#[test]
fn a_parallel_call_wrapper_is_refused_not_read_as_one_call() {
    let inner = json!({"tool_uses": [{"recipient_name": "functions.send_money",
        "parameters": {"recipient": "US13", "amount": 100}}]});
    for call in [
        json!({"id": "c1", "type": "function", "function": {"name": "multi_tool_use.parallel",
            "arguments": inner.to_string()}}),
        json!({"name": "multi_tool_use.parallel", "args": inner, "id": "c1", "type": "tool_call"}),
        json!({"type": "tool_use", "id": "c1", "name": "multi_tool_use.parallel", "input": inner}),
    ] {
        let e = decode_call(&call).expect_err("a wrapper is not a call");
        assert!(e.to_string().contains("multi_tool_use.parallel"), "{e}");
    }
}

/// A key is call-like when it holds a call word in any ASCII case, as
/// lowering it and searching would say; other letters never match one.
#[test]
fn call_like_keys_are_found_in_any_ascii_case() {
    for (key, call_like) in [
        ("tool_calls", true),
        ("TOOL_USE", true),
        ("myFunction", true),
        ("Call", true),
        ("executableCode", true),
        ("code_execution_result", true),
        ("CodeExecution", true),
        ("content", false),
        ("role", false),
        ("", false),
        ("too", false),
        ("ŧool", false),
        ("ｔｏｏｌ", false),
        ("caĺl", false),
    ] {
        let lowered = key.to_ascii_lowercase();
        let expected = [
            "tool",
            "function",
            "call",
            "executable",
            "code_execution",
            "codeexecution",
        ]
        .iter()
        .any(|w| lowered.contains(w));
        assert_eq!(expected, call_like, "{key}");
        assert_eq!(is_call_like(key), call_like, "{key}");
    }
}
