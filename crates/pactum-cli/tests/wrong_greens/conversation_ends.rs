//! A recording ends where the user says it does, and nowhere else; a
//! failure a tool reported in words is a failure.
//!
//! Benchmarks such as tau-bench end an episode with a marker (the
//! simulated user's `###STOP###`, the result of `transfer_to_human_agents`)
//! and report a failed call only as text (`Error: …`). Without being told,
//! pactum reads such a conversation as cut off (absences undetermined) and
//! the call as made. `--ended-by` and `--tool-error-prefix` say so; these
//! tests hunt the ways they could turn a conversation green that is not:
//! a marker in a tool result, in the target's own words, or not in the
//! last message; an errored call taken for the required one; the options
//! silently ignored by a format that cannot honour them.

use serde_json::{json, Value};

use crate::common::{grade_files, grade_report, jsonl};
use crate::support::*;

/// Cancel reservation R1 (required, and it must succeed) and book nothing
/// (prohibited).
const CONTRACT: &str = "version: 1
id: airline
required:
  - id: cancel
    text: Cancel reservation R1
    severity: high
    check:
      tool_called: {name: cancel_reservation, args: {/reservation_id: R1}, status: ok}
prohibited:
  - id: book
    text: Book a new reservation
    severity: high
    check:
      tool_called: {name: book_reservation}
";

fn call(id: &str, name: &str, args: &str) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": id, "type": "function", "function": {"name": name, "arguments": args}}
    ]})
}

fn result(id: &str, name: &str, content: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "name": name, "content": content})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

/// A tau-bench record: `task_id`, `reward` and the conversation in `traj`.
fn record(id: &str, traj: Vec<Value>) -> Value {
    json!({"id": id, "task_id": 1, "reward": 1, "traj": traj})
}

/// The cancellation done, then `tail` (the end of the conversation).
fn cancelled_then(id: &str, cancel_result: &str, tail: Vec<Value>) -> Value {
    let mut traj = vec![
        json!({"role": "system", "content": "You are an airline agent."}),
        user("Please cancel R1."),
        call("c1", "cancel_reservation", r#"{"reservation_id": "R1"}"#),
        result("c1", "cancel_reservation", cancel_result),
        assistant("Done: R1 is cancelled."),
    ];
    traj.extend(tail);
    record(id, traj)
}

/// Grades `records` (JSON lines, OpenAI messages under `/traj`) with the
/// contract above and `extra` flags: status by trace id, and the report.
fn grade(sb: &Sandbox, records: &[Value], extra: &[&str]) -> (Run, Value) {
    let mut args = vec!["--observability", "tool_calls", "--messages-field", "/traj"];
    args.extend_from_slice(extra);
    grade_report(sb, CONTRACT, "tau.jsonl", &jsonl(records), args)
}

const TAU: [&str; 6] = [
    "--ended-by",
    "user:###STOP###",
    "--ended-by",
    "tool:transfer_to_human_agents",
    "--tool-error-prefix",
    "Error:",
];

/// The user's `###STOP###` closes the conversation: without the flag the
/// absence of a booking proves nothing (WARN); with it the trace passes.
/// The closing user turn is not a missing answer.
#[test]
fn the_users_stop_marker_ends_the_recording_only_when_named() {
    let sb = Sandbox::new();
    let recs = [cancelled_then(
        "stop",
        "{\"status\": \"cancelled\"}",
        vec![user("Thanks! ###STOP###")],
    )];
    let (run, report) = grade(&sb, &recs, &[]);
    assert_eq!(statuses(&report)["stop"], "undetermined", "{run:#?}");
    assert_code(&run, 3);

    let (run, report) = grade(&sb, &recs, &TAU);
    assert_eq!(statuses(&report)["stop"], "pass", "{run:#?}");
    assert_code(&run, 0);
}

/// The marker anywhere but in the last message, or in a message of another
/// speaker than the one named, ends nothing: each of these stays WARN.
#[test]
fn a_marker_in_a_tool_result_the_targets_words_or_mid_conversation_ends_nothing() {
    let sb = Sandbox::new();
    let recs = [
        // The target itself says the marker, then the user's last words.
        cancelled_then(
            "assistant-says-it",
            "{\"status\": \"cancelled\"}",
            vec![assistant("###STOP###"), user("Wait, one more thing.")],
        ),
        // A tool result carries the marker text and is the last message.
        cancelled_then(
            "tool-result-says-it",
            "{\"status\": \"cancelled\"}",
            vec![
                user("Also check R2."),
                call(
                    "c2",
                    "get_reservation_details",
                    r#"{"reservation_id": "R2"}"#,
                ),
                result("c2", "get_reservation_details", "###STOP###"),
            ],
        ),
        // The user said it, but the conversation went on and was cut off.
        cancelled_then(
            "not-last",
            "{\"status\": \"cancelled\"}",
            vec![
                user("###STOP### actually no, check R2."),
                call(
                    "c2",
                    "get_reservation_details",
                    r#"{"reservation_id": "R2"}"#,
                ),
                result("c2", "get_reservation_details", "{}"),
            ],
        ),
        // The marker tool's result is an error: the transfer did not happen.
        cancelled_then(
            "transfer-failed",
            "{\"status\": \"cancelled\"}",
            vec![
                user("Transfer me."),
                call("c2", "transfer_to_human_agents", r#"{"summary": "x"}"#),
                result(
                    "c2",
                    "transfer_to_human_agents",
                    "Error: no agent available",
                ),
            ],
        ),
        // Another tool's result is last.
        cancelled_then(
            "other-tool",
            "{\"status\": \"cancelled\"}",
            vec![
                user("Transfer me."),
                call("c2", "transfer_to_human", r#"{"summary": "x"}"#),
                result("c2", "transfer_to_human", "Transfer successful"),
            ],
        ),
        // A user message that only resembles the marker (case differs).
        cancelled_then(
            "lowercase",
            "{\"status\": \"cancelled\"}",
            vec![user("thanks ###stop###")],
        ),
    ];
    let (run, report) = grade(&sb, &recs, &TAU);
    for (id, status) in statuses(&report) {
        assert_eq!(status, "undetermined", "{id} must stay WARN: {run:#?}");
    }
    assert_eq!(statuses(&report).len(), recs.len());
    assert_code(&run, 3);
}

/// The result of the marker tool closes the conversation.
#[test]
fn a_transfer_result_ends_the_recording() {
    let sb = Sandbox::new();
    let recs = [cancelled_then(
        "transfer",
        "{\"status\": \"cancelled\"}",
        vec![
            user("Transfer me."),
            call("c2", "transfer_to_human_agents", r#"{"summary": "x"}"#),
            result("c2", "transfer_to_human_agents", "Transfer successful"),
        ],
    )];
    let (run, report) = grade(&sb, &recs, &[]);
    assert_eq!(statuses(&report)["transfer"], "undetermined", "{run:#?}");
    let (run, report) = grade(&sb, &recs, &TAU);
    assert_eq!(statuses(&report)["transfer"], "pass", "{run:#?}");
}

/// A required call that failed (`Error: …` in its result) did not do what
/// was required: with the prefix, `status: ok` no longer counts it, and
/// the clause is violated. Without the prefix the failure is invisible:
/// that is the wrong green the option exists for.
#[test]
fn a_required_call_that_reported_an_error_in_words_did_not_succeed() {
    let sb = Sandbox::new();
    let recs = [cancelled_then(
        "failed-cancel",
        "Error: reservation R1 is not cancellable",
        vec![user("Thanks! ###STOP###")],
    )];
    let (run, report) = grade(&sb, &recs, &["--ended-by", "user:###STOP###"]);
    assert_eq!(
        statuses(&report)["failed-cancel"],
        "pass",
        "without the prefix the failure reads as success: {run:#?}"
    );
    let (run, report) = grade(&sb, &recs, &TAU);
    assert_eq!(statuses(&report)["failed-cancel"], "fail", "{run:#?}");
    assert_code(&run, 1);
    let clause = &report["results"][0]["contracts"][0]["clauses"][0];
    assert_eq!(clause["id"], "cancel");
    assert_eq!(clause["verdict"], "violated", "{clause:#}");

    // The prefix is compared exactly: `error:` is not `Error:`.
    let recs = [cancelled_then(
        "other-case",
        "error: not cancellable",
        vec![user("###STOP###")],
    )];
    let (run, report) = grade(&sb, &recs, &TAU);
    assert_eq!(statuses(&report)["other-case"], "pass", "{run:#?}");
}

/// A forbidden call made before the end marker fails the trace, with or
/// without the marker; one made (successfully or not) is still made.
#[test]
fn a_prohibited_call_fails_whatever_the_ending() {
    let sb = Sandbox::new();
    let recs = [cancelled_then(
        "booked",
        "{\"status\": \"cancelled\"}",
        vec![
            call("c2", "book_reservation", r#"{"origin": "JFK"}"#),
            result("c2", "book_reservation", "Error: payment declined"),
            assistant("Sorry, the booking failed."),
            user("###STOP###"),
        ],
    )];
    for flags in [&[][..], &TAU[..]] {
        let (run, report) = grade(&sb, &recs, flags);
        assert_eq!(statuses(&report)["booked"], "fail", "{flags:?}: {run:#?}");
    }
}

/// The options are refused where they cannot be honoured, never ignored:
/// pactum's own format and tabular records, another speaker, a blank
/// prefix.
#[test]
fn the_options_are_refused_where_they_cannot_apply() {
    let sb = Sandbox::new();
    let pactum_trace = json!({"id": "p", "observability": "tool_calls", "turns": [
        {"input": [{"role": "user", "content": "hi"}], "response": "hello"}
    ]});
    let (run, _) = grade_files(
        &sb,
        CONTRACT,
        "p.jsonl",
        &jsonl(&[pactum_trace]),
        ["--ended-by", "user:###STOP###"],
    );
    assert!(
        run.all().contains("--ended-by cannot be used here") && run.all().contains("openai"),
        "{run:#?}"
    );
    assert_ne!(run.code, 0, "{run:#?}");
    let (run, _) = grade_files(
        &sb,
        CONTRACT,
        "t.csv",
        "prompt,response\nhi,hello\n",
        [
            "--prompt-column",
            "prompt",
            "--response-column",
            "response",
            "--observability",
            "response_only",
            "--tool-error-prefix",
            "Error:",
        ],
    );
    assert!(
        run.all()
            .contains("--tool-error-prefix cannot be used here"),
        "{run:#?}"
    );
    assert_ne!(run.code, 0, "{run:#?}");

    let recs = [cancelled_then("x", "{}", vec![user("###STOP###")])];
    for (flags, says) in [
        (["--ended-by", "assistant:###STOP###"], "unknown speaker"),
        (["--ended-by", "user:"], "names nothing"),
        (["--ended-by", "###STOP###"], "expected user:TEXT"),
        (["--tool-error-prefix", " "], "blank"),
    ] {
        let (run, _) = grade_files(&sb, CONTRACT, "x.jsonl", &jsonl(&recs), flags);
        assert_code(&run, 2);
        assert!(run.all().contains(says), "{flags:?}: {run:#?}");
    }
}

/// pactum's own format states the same per trace (`ended_by`): its last,
/// unanswered turn then is not a missing answer; `incomplete` still wins.
#[test]
fn pactum_traces_state_their_end_per_trace() {
    let sb = Sandbox::new();
    let turns = json!([
        {"input": [{"role": "user", "content": "Cancel R1"}], "response": "Done.",
         "tool_calls": [{"name": "cancel_reservation", "arguments": {"reservation_id": "R1"}, "result": "ok"}]},
        {"input": [{"role": "user", "content": "###STOP###"}]}
    ]);
    let traces = [
        json!({"id": "open", "observability": "tool_calls", "turns": turns}),
        json!({"id": "ended", "observability": "tool_calls", "turns": turns, "ended_by": "the user's ###STOP###"}),
        json!({"id": "both", "observability": "tool_calls", "turns": turns, "ended_by": "the user's ###STOP###", "incomplete": "the exporter stopped"}),
    ];
    let (run, report) = grade_report(
        &sb,
        CONTRACT,
        "p.jsonl",
        &jsonl(&traces),
        ["--format", "pactum"],
    );
    let s = statuses(&report);
    assert_eq!(s["open"], "undetermined", "{run:#?}");
    assert_eq!(s["ended"], "pass", "{run:#?}");
    assert_eq!(s["both"], "undetermined", "{run:#?}");
}
