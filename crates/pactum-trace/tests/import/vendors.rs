//! Tool calls in other vendors' layouts: Anthropic content blocks, Gemini
//! `contents` and `parts`, LangChain message dumps, and the odd shapes of
//! OpenAI-compatible logs. Every call is read with its arguments, or the
//! record is an error naming the field: never `{}`, never dropped.

use super::util::*;
use super::*;

/// Writes `records` as JSONL and imports them as OpenAI-format chat logs.
fn import(records: &[Value]) -> (Vec<Item>, ReadStats) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).unwrap();
    read(&path, &opts(TraceFormat::Auto, Some(L::ToolCalls))).unwrap()
}

fn calls(t: &Trace) -> Vec<(String, Value, Option<Value>, Option<String>)> {
    t.tool_calls()
        .map(|(_, c)| {
            (
                c.name.clone(),
                c.arguments.clone(),
                c.result.clone(),
                c.error.clone(),
            )
        })
        .collect()
}

#[test]
fn real_anthropic_gemini_and_langchain_logs_read_every_call_and_result() {
    let (items, stats) = read(
        &fixture("anthropic_messages.jsonl"),
        &opts(TraceFormat::Auto, Some(L::ToolCalls)),
    )
    .unwrap();
    assert_eq!(
        (stats.traces, stats.errors),
        (2, 0),
        "{:?}",
        describe(&items)
    );
    let t = traces(&items);
    // A tool_use block, answered by a tool_result block in a user message
    // (which starts no turn), then the final answer.
    assert_eq!(t[0].turns.len(), 1);
    assert_eq!(
        calls(t[0]),
        [(
            "get_weather".to_string(),
            json!({"location": "San Francisco, CA", "unit": "fahrenheit"}),
            Some(json!("{\"weather\": \"sunny\", \"temperature\": \"75\"}")),
            None
        )]
    );
    let response = t[0].turns[0].response.as_deref().unwrap();
    assert!(
        response.starts_with("Certainly!") && response.contains("**sunny**"),
        "{response}"
    );
    assert_eq!(t[0].incomplete, None);
    // Two parallel tool_use blocks (with Anthropic's `caller` key), not
    // answered: the recording ends on the calls.
    let names: Vec<(String, Value)> = calls(t[1]).into_iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(
        names,
        [
            (
                "get_weather".to_string(),
                json!({"location": "New York, NY"})
            ),
            (
                "get_time".to_string(),
                json!({"timezone": "America/New_York"})
            )
        ]
    );
    assert_eq!(
        t[1].turns[0].tool_calls[0].id.as_deref(),
        Some("toolu_01VLL6XYAAGrtc7CDpmpKZMB")
    );

    // Gemini: `contents` is found without --messages-field; results carry
    // no id and attach by name and order.
    let (items, stats) = read(
        &fixture("gemini_contents.jsonl"),
        &opts(TraceFormat::Auto, Some(L::ToolCalls)),
    )
    .unwrap();
    assert_eq!(
        (stats.traces, stats.errors),
        (2, 0),
        "{:?}",
        describe(&items)
    );
    let t = traces(&items);
    let got: Vec<(Value, Option<Value>)> = calls(t[0]).into_iter().map(|c| (c.1, c.2)).collect();
    assert_eq!(
        got,
        [
            (
                json!({"location": "New Delhi"}),
                Some(json!({"content": "{\"temperature\": 35, \"unit\": \"C\"}"}))
            ),
            (
                json!({"location": "San Francisco"}),
                Some(json!({"content": "{\"temperature\": 25, \"unit\": \"C\"}"}))
            ),
        ]
    );
    assert_eq!(t[0].turns.len(), 1, "function responses start no turn");
    assert!(t[0].turns[0].response.as_deref().unwrap().contains("35°C"));
    // An ADK agent: one call per model step, a thoughtSignature beside the
    // first; both answered.
    let got: Vec<(String, Value, bool)> = calls(t[1])
        .into_iter()
        .map(|c| (c.0, c.1, c.2.is_some()))
        .collect();
    assert_eq!(
        got,
        [
            ("get_weather".to_string(), json!({"city": "New York"}), true),
            ("get_weather".to_string(), json!({"city": "London"}), true)
        ]
    );
    assert_eq!(t[1].incomplete, None);

    // LangChain (LangGraph): `type` names the speaker; the calls stated in
    // both `tool_calls` and `additional_kwargs.tool_calls` are read once.
    let (items, stats) = read(
        &fixture("langchain_messages.jsonl"),
        &opts(TraceFormat::Auto, Some(L::ToolCalls)),
    )
    .unwrap();
    assert_eq!(
        (stats.traces, stats.errors),
        (1, 0),
        "{:?}",
        describe(&items)
    );
    let t = traces(&items);
    assert_eq!(t[0].turns.len(), 1);
    assert_eq!(
        t[0].turns[0].input[0].content,
        "Search the web for 'example' and summarize."
    );
    let c = calls(t[0]);
    assert_eq!(c.len(), 1);
    assert_eq!(
        (c[0].0.as_str(), &c[0].1),
        ("Web-Search", &json!({"query": "example"}))
    );
    assert!(c[0]
        .2
        .as_ref()
        .unwrap()
        .as_str()
        .unwrap()
        .contains("example.com"));
    insta::assert_json_snapshot!("vendor_logs", t);
}

/// One assistant message per recorded shape, each sending money to the
/// attacker: every one is read as a `send_money` call with its recipient.
#[test]
fn every_odd_call_shape_is_read_with_its_arguments() {
    let args = json!({"recipient": "EVIL", "amount": 100});
    let text = args.to_string();
    let shapes = [
        (
            "LangChain tool_call",
            json!({"role": "assistant", "content": "", "tool_calls": [{"name": "send_money", "args": args, "id": "c1", "type": "tool_call"}]}),
        ),
        (
            "additional_kwargs",
            json!({"type": "ai", "content": "", "additional_kwargs": {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "send_money", "arguments": text}}]}}),
        ),
        (
            "Anthropic tool_use",
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "send_money", "input": args}]}),
        ),
        (
            "Gemini functionCall",
            json!({"role": "model", "parts": [{"functionCall": {"name": "send_money", "args": args}}]}),
        ),
        (
            "legacy function_call",
            json!({"role": "assistant", "content": null, "function_call": {"name": "send_money", "arguments": text}}),
        ),
        (
            "function.input",
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "send_money", "input": args}}]}),
        ),
        (
            "function.args",
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "send_money", "args": text}}]}),
        ),
        (
            "flat parameters",
            json!({"role": "assistant", "content": null, "tool_calls": [{"name": "send_money", "parameters": args}]}),
        ),
        (
            "AgentDojo native",
            json!({"role": "assistant", "content": null, "tool_calls": [{"function": "send_money", "args": args, "id": null}]}),
        ),
        (
            "double-encoded",
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "send_money", "arguments": json!(text).to_string()}}]}),
        ),
        (
            "OpenTelemetry parts",
            json!({"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "send_money", "arguments": args}]}),
        ),
    ];
    let records: Vec<Value> = shapes
        .iter()
        .map(|(what, m)| json!({"id": what, "messages": [{"role": "user", "content": "pay my rent"}, m]}))
        .collect();
    let (items, stats) = import(&records);
    assert_eq!(
        (stats.traces, stats.errors),
        (shapes.len() as u64, 0),
        "{:?}",
        describe(&items)
    );
    for t in traces(&items) {
        let c = calls(t);
        assert_eq!(c.len(), 1, "{}", t.id);
        assert_eq!(
            (c[0].0.as_str(), &c[0].1),
            ("send_money", &args),
            "{}",
            t.id
        );
        assert_eq!(
            t.turns[0].response.as_deref(),
            Some(""),
            "{}: a call is an answer",
            t.id
        );
    }
}

/// Arguments pactum could not read stay what they were: text, or nothing
/// recorded (`null`), never `{}`; a LangChain invalid call still counts.
#[test]
fn unreadable_arguments_are_kept_unread_never_empty() {
    let records = [
        json!({"id": "truncated", "messages": [{"role": "user", "content": "pay"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "send_money", "arguments": "{\"recipient\": \"EV"}}]}]}),
        json!({"id": "absent", "messages": [{"role": "user", "content": "pay"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "send_money"}}]}]}),
        json!({"id": "null", "messages": [{"role": "user", "content": "pay"}, {"role": "model", "parts": [{"functionCall": {"name": "send_money", "args": null}}]}]}),
        json!({"id": "invalid", "messages": [{"role": "user", "content": "pay"}, {"type": "ai", "content": "", "tool_calls": [], "invalid_tool_calls": [{"name": "send_money", "args": "{'recipient': 'EVIL'}", "id": "c", "error": "bad JSON", "type": "invalid_tool_call"}]}]}),
        json!({"id": "blank", "messages": [{"role": "user", "content": "pay"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "list_accounts", "arguments": ""}}]}]}),
    ];
    let (items, stats) = import(&records);
    assert_eq!(
        (stats.traces, stats.errors),
        (5, 0),
        "{:?}",
        describe(&items)
    );
    let got: Vec<(String, Value, Option<String>)> = traces(&items)
        .iter()
        .map(|t| {
            let c = &calls(t)[0];
            (t.id.clone(), c.1.clone(), c.3.clone())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("truncated".to_string(), json!("{\"recipient\": \"EV"), None),
            ("absent".to_string(), Value::Null, None),
            ("null".to_string(), Value::Null, None),
            (
                "invalid".to_string(),
                json!("{'recipient': 'EVIL'}"),
                Some("bad JSON".to_string())
            ),
            ("blank".to_string(), json!({}), None),
        ]
    );
}

/// What looks like a call but is none of the shapes pactum reads is a
/// record error naming the field, and reading goes on.
#[test]
fn call_like_things_nobody_reads_are_record_errors_naming_the_field() {
    let user = json!({"role": "user", "content": "pay"});
    let cases = [
        (
            json!({"role": "assistant", "tool_call_chunks": [{"name": "send_money", "args": "{}"}]}),
            "/messages/1/tool_call_chunks",
        ),
        (
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "send_money", "input": {}, "arguments": {"recipient": "EVIL"}}]}),
            "/messages/1/content/0/arguments",
        ),
        (
            json!({"role": "model", "parts": [{"executableCode": {"language": "PYTHON", "code": "pay('EVIL')"}}]}),
            "/messages/1/parts/0/executableCode",
        ),
        (
            json!({"role": "assistant", "content": [{"type": "tool_call_chunk", "name": "send_money"}]}),
            "/messages/1/content/0/type",
        ),
        (
            json!({"type": "ai", "content": "", "tool_calls": [{"name": "send_money", "args": {"recipient": "EVIL"}, "id": "c", "type": "tool_call"}], "additional_kwargs": {"tool_calls": [{"id": "c", "type": "function", "function": {"name": "send_money", "arguments": "{\"recipient\": \"bob\"}"}}]}}),
            "/messages/1/additional_kwargs/tool_calls",
        ),
        (
            json!({"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "", "arguments": "{}"}}]}),
            "/messages/1/tool_calls/0/function/name",
        ),
        (
            json!({"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "send_money", "arguments": [1]}}]}),
            "/messages/1/tool_calls/0/function/arguments",
        ),
        (
            json!({"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "send_money", "input": {}}]}),
            "/messages/1",
        ),
    ];
    let records: Vec<Value> = cases
        .iter()
        .map(|(m, _)| json!({"messages": [user, m]}))
        .chain([json!({"id": "fine", "messages": [user, {"role": "assistant", "content": "no"}]})])
        .collect();
    let (items, stats) = import(&records);
    assert_eq!(
        (stats.traces, stats.errors),
        (1, cases.len() as u64),
        "{:?}",
        describe(&items)
    );
    for (item, (_, field)) in items.iter().zip(&cases) {
        let Item::Error(e) = item else {
            panic!("{item:?}")
        };
        assert_eq!(e.field.as_deref(), Some(*field), "{e}");
    }
}

/// Results attach to their calls by id, by name and order (Gemini), or by
/// order; one that answers no call, or a call already answered, makes the
/// recording incomplete rather than vanishing.
#[test]
fn results_pair_with_their_calls_or_mark_the_recording_incomplete() {
    let gemini_calls = json!({"role": "model", "parts": [
        {"functionCall": {"name": "lookup", "args": {"q": 1}}},
        {"functionCall": {"name": "pay", "args": {"to": "EVIL"}}},
        {"functionCall": {"name": "lookup", "args": {"q": 2}}}
    ]});
    let records = [
        // Out of order by name: each lookup gets its own answer, in order.
        json!({"id": "by-name", "messages": [
            {"role": "user", "parts": [{"text": "go"}]},
            gemini_calls,
            {"role": "user", "parts": [
                {"functionResponse": {"name": "pay", "response": {"error": "insufficient funds"}}},
                {"functionResponse": {"name": "lookup", "response": {"r": 1}}},
                {"functionResponse": {"name": "lookup", "response": {"r": 2}}}
            ]},
            {"role": "model", "parts": [{"text": "done"}]}
        ]}),
        // A third lookup result: it proves a call the recording lost.
        json!({"id": "one-too-many", "messages": [
            {"role": "user", "parts": [{"text": "go"}]},
            gemini_calls,
            {"role": "user", "parts": [
                {"functionResponse": {"name": "lookup", "response": {"r": 1}}},
                {"functionResponse": {"name": "lookup", "response": {"r": 2}}},
                {"functionResponse": {"name": "lookup", "response": {"r": 3}}}
            ]},
            {"role": "model", "parts": [{"text": "done"}]}
        ]}),
        // Two Anthropic results for one tool_use id.
        json!({"id": "twice", "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "pay", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok again", "is_error": true}
            ]},
            {"role": "assistant", "content": "done"}
        ]}),
        // An error result by id; a result with text starts the next turn.
        json!({"id": "error-then-text", "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "pay", "input": {"to": "EVIL"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "denied"}], "is_error": true},
                {"type": "text", "text": "try again"}
            ]},
            {"role": "assistant", "content": "I cannot."}
        ]}),
        // Ids on the results only: the calls without one, by order.
        json!({"id": "ids-on-results", "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                {"id": "", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "x1", "content": "ra"},
            {"role": "tool", "tool_call_id": "x2", "content": "rb"},
            {"role": "assistant", "content": "done"}
        ]}),
    ];
    let (items, stats) = import(&records);
    assert_eq!(
        (stats.traces, stats.errors),
        (5, 0),
        "{:?}",
        describe(&items)
    );
    let t = traces(&items);
    let by_name: Vec<(Value, Option<Value>, Option<String>)> =
        calls(t[0]).into_iter().map(|c| (c.1, c.2, c.3)).collect();
    assert_eq!(
        by_name,
        [
            (json!({"q": 1}), Some(json!({"r": 1})), None),
            (
                json!({"to": "EVIL"}),
                Some(json!({"error": "insufficient funds"})),
                Some("insufficient funds".to_string())
            ),
            (json!({"q": 2}), Some(json!({"r": 2})), None),
        ]
    );
    assert_eq!(t[0].incomplete, None);
    assert!(
        t[1].incomplete
            .as_deref()
            .unwrap()
            .contains("does not show"),
        "{:?}",
        t[1].incomplete
    );
    assert!(
        t[2].incomplete
            .as_deref()
            .unwrap()
            .contains("two tool results answer one call"),
        "{:?}",
        t[2].incomplete
    );
    assert_eq!(t[2].turns[0].tool_calls[0].result, Some(json!("ok")));
    assert_eq!(t[3].turns.len(), 2);
    assert_eq!(t[3].turns[0].tool_calls[0].error.as_deref(), Some("denied"));
    assert_eq!(t[3].turns[1].input[0].content, "try again");
    assert_eq!(t[3].incomplete, None);
    let results: Vec<Option<Value>> = calls(t[4]).into_iter().map(|c| c.2).collect();
    assert_eq!(results, [Some(json!("ra")), Some(json!("rb"))]);
    assert_eq!(t[4].incomplete, None);
}

/// pactum's own format reads each tool call through the same decoder:
/// a JSON-encoded argument string is decoded, a vendor shape is read, and
/// anything unread is an error naming the field.
#[test]
fn pactum_traces_decode_their_calls_the_same_way() {
    let records = [
        json!({"id": "encoded", "observability": "tool_calls", "turns": [{"response": "", "tool_calls": [{"name": "send_money", "arguments": "{\"recipient\": \"EVIL\"}"}]}]}),
        json!({"id": "vendor", "observability": "tool_calls", "turns": [{"response": "", "tool_calls": [{"type": "tool_use", "id": "t", "name": "send_money", "input": {"recipient": "EVIL"}}]}]}),
        json!({"id": "no-args", "observability": "tool_calls", "turns": [{"response": "", "tool_calls": [{"name": "send_money"}]}]}),
        json!({"id": "bad", "observability": "tool_calls", "turns": [{"response": "", "tool_calls": [{"name": "send_money", "kwargs": {"recipient": "EVIL"}}]}]}),
        json!({"id": "empty-name", "observability": "tool_calls", "turns": [{"response": "", "tool_calls": [{"name": "", "arguments": {}}]}]}),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own.jsonl");
    std::fs::write(
        &path,
        records.iter().map(|r| format!("{r}\n")).collect::<String>(),
    )
    .unwrap();
    let (items, stats) = read(&path, &opts(TraceFormat::Pactum, None)).unwrap();
    assert_eq!(
        (stats.traces, stats.errors),
        (3, 2),
        "{:?}",
        describe(&items)
    );
    let t = traces(&items);
    assert_eq!(
        t[0].turns[0].tool_calls[0].arguments,
        json!({"recipient": "EVIL"})
    );
    assert_eq!(
        t[1].turns[0].tool_calls[0].arguments,
        json!({"recipient": "EVIL"})
    );
    assert_eq!(t[2].turns[0].tool_calls[0].arguments, Value::Null);
    let errors: Vec<Option<&str>> = items
        .iter()
        .filter_map(|i| match i {
            Item::Error(e) => Some(e.field.as_deref()),
            _ => None,
        })
        .collect();
    assert_eq!(
        errors,
        [
            Some("/turns/0/tool_calls/0/kwargs"),
            Some("/turns/0/tool_calls/0/name")
        ]
    );
}
