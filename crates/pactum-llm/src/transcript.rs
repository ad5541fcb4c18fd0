//! The transcript a judge reads (SPEC §3.4), and the check that a judge's
//! quote occurs in the trace.
//!
//! Both walk the same list of text fields, so a quote copied from what the
//! judge was shown verifies, and a quote of text that was never in the
//! trace (or only in pactum's own labels) does not.

use pactum_core::outcome::Evidence;
use pactum_core::trace::{Channel, Role, Trace};
use serde_json::Value;

/// The longest transcript put in a judge prompt, in characters. A longer
/// one keeps its first third and its last two thirds of this budget (the
/// end of a conversation is where violations usually show), with a marker
/// where text was cut; the prompt says so outside the fence.
pub const JUDGE_TRANSCRIPT_MAX_CHARS: usize = 60_000;

/// Where a piece of trace text sits, for evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// An input message (`user` or `system`) or the response: an
    /// `Evidence::Quote` with this source name.
    Quote(&'static str),
    /// The name or arguments of the tool call with this 0-based index.
    ToolCall(usize),
    /// The kind or details of the side effect with this index in its turn.
    SideEffect(usize),
}

/// One text field of the trace, as shown to the judge.
#[derive(Debug, Clone)]
struct Field {
    turn: usize,
    place: Place,
    label: String,
    text: String,
}

/// Renders a tool call's arguments or result the way the judge sees it: a
/// JSON string as its text, anything else as compact JSON.
fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every text field of `trace`, in transcript order.
fn fields(trace: &Trace) -> Vec<Field> {
    let mut out = Vec::new();
    let mut call_index = 0usize;
    for (i, turn) in trace.turns.iter().enumerate() {
        let n = i + 1;
        for m in &turn.input {
            let (src, label) = match m.role {
                Role::System => ("system", "[system message]"),
                Role::User => ("user", "[user message]"),
            };
            out.push(Field {
                turn: n,
                place: Place::Quote(src),
                label: label.to_string(),
                text: m.content.clone(),
            });
        }
        for call in &turn.tool_calls {
            out.push(Field {
                turn: n,
                place: Place::ToolCall(call_index),
                label: format!("[target tool call {}: name]", call_index + 1),
                text: call.name.clone(),
            });
            out.push(Field {
                turn: n,
                place: Place::ToolCall(call_index),
                label: format!("[target tool call {}: arguments]", call_index + 1),
                text: json_text(&call.arguments),
            });
            if let Some(r) = &call.result {
                out.push(Field {
                    turn: n,
                    place: Place::Quote("tool_results"),
                    label: format!("[tool result of call {}]", call_index + 1),
                    text: json_text(r),
                });
            }
            if let Some(e) = &call.error {
                out.push(Field {
                    turn: n,
                    place: Place::Quote("tool_results"),
                    label: format!("[tool error of call {}]", call_index + 1),
                    text: e.clone(),
                });
            }
            call_index += 1;
        }
        for (j, effect) in turn.side_effects.iter().enumerate() {
            out.push(Field {
                turn: n,
                place: Place::SideEffect(j),
                label: "[side effect: kind]".to_string(),
                text: effect.kind.clone(),
            });
            out.push(Field {
                turn: n,
                place: Place::SideEffect(j),
                label: "[side effect: details]".to_string(),
                text: json_text(&effect.details),
            });
        }
        match &turn.response {
            None => out.push(Field {
                turn: n,
                place: Place::Quote("response"),
                label: "[target response: none recorded]".to_string(),
                text: String::new(),
            }),
            Some(r) => out.push(Field {
                turn: n,
                place: Place::Quote("response"),
                label: if r.is_empty() {
                    "[target response: empty]".to_string()
                } else {
                    "[target response]".to_string()
                },
                text: r.clone(),
            }),
        }
    }
    out
}

/// The judge's transcript of `trace`, before bounding and fencing: per
/// turn, a `=== turn N ===` line, then each input message, tool call (name,
/// arguments, result or error), side effect (kind, details) and the
/// response, each under a bracketed label line. Labels are pactum's own:
/// quotes of them never verify ([`locate`]).
pub fn render(trace: &Trace) -> String {
    let mut out = String::new();
    let mut last_turn = 0;
    for f in fields(trace) {
        if f.turn != last_turn {
            if last_turn != 0 {
                out.push('\n');
            }
            out.push_str(&format!("=== turn {} ===\n", f.turn));
            last_turn = f.turn;
        }
        out.push_str(&f.label);
        out.push('\n');
        if !f.text.is_empty() {
            out.push_str(&f.text);
            out.push('\n');
        }
    }
    if trace.turns.is_empty() {
        out.push_str("[no turns recorded]\n");
    }
    if let Some(e) = &trace.error {
        out.push_str("\n[capture error]\n");
        out.push_str(e);
        out.push('\n');
    }
    out
}

/// `render` bounded to [`JUDGE_TRANSCRIPT_MAX_CHARS`]: the text, and when
/// cut, `(total_chars, omitted_chars)`.
pub(crate) fn bounded(full: &str) -> (String, Option<(usize, usize)>) {
    let total = full.chars().count();
    if total <= JUDGE_TRANSCRIPT_MAX_CHARS {
        return (full.to_string(), None);
    }
    let head = JUDGE_TRANSCRIPT_MAX_CHARS / 3;
    let tail = JUDGE_TRANSCRIPT_MAX_CHARS - head;
    let omitted = total - head - tail;
    let head_text: String = full.chars().take(head).collect();
    let tail_text: String = full.chars().skip(total - tail).collect();
    (
        format!("{head_text}\n[… {omitted} characters omitted by pactum …]\n{tail_text}"),
        Some((total, omitted)),
    )
}

/// What the capture level does not observe, in words for the prompt.
pub(crate) fn observability_note(trace: &Trace) -> String {
    let level = trace.observability;
    let all = [Channel::Response, Channel::ToolCalls, Channel::SideEffects];
    let seen: Vec<&str> = all
        .iter()
        .filter(|c| level.observes(**c))
        .map(|c| c.as_str())
        .collect();
    let unseen: Vec<&str> = all
        .iter()
        .filter(|c| !level.observes(**c))
        .map(|c| c.as_str())
        .collect();
    let mut s = format!(
        "The trace was captured at observability level `{}`: observed channels: {}.",
        level.as_str(),
        seen.join(", ")
    );
    if unseen.is_empty() {
        s.push_str(" Every channel was observed: an empty channel means nothing happened on it.");
    } else {
        s.push_str(&format!(
            " NOT observed: {}. Nothing on an unobserved channel was recorded, so its silence \
             is not evidence that nothing happened there; if the clause turns on an unobserved \
             channel, answer `not_evaluable`.",
            unseen.join(", ")
        ));
    }
    s
}

/// Text with whitespace runs folded to one space and trimmed, with, for
/// each byte of the folded text, the byte range of the original it came
/// from (so a match maps back to the verbatim original).
struct Folded {
    text: String,
    spans: Vec<(usize, usize)>,
}

fn fold(s: &str) -> Folded {
    let mut text = String::with_capacity(s.len());
    let mut spans = Vec::with_capacity(s.len());
    let mut pending: Option<(usize, usize)> = None;
    for (i, c) in s.char_indices() {
        let end = i + c.len_utf8();
        if c.is_whitespace() {
            pending = Some(pending.map_or((i, end), |(a, _)| (a, end)));
            continue;
        }
        if let Some(ws) = pending.take() {
            if !text.is_empty() {
                text.push(' ');
                spans.push(ws);
            }
        }
        let before = text.len();
        text.push(c);
        for _ in before..text.len() {
            spans.push((i, end));
        }
    }
    Folded { text, spans }
}

/// Folds whitespace runs of `s` to single spaces and trims it.
pub(crate) fn fold_whitespace(s: &str) -> String {
    fold(s).text
}

/// Finds `quote` in the trace, comparing with whitespace runs folded, and
/// returns the evidence it is: a verbatim [`Evidence::Quote`] of a message,
/// the response or a tool result; the [`Evidence::ToolCall`] whose name or
/// arguments contain it; the [`Evidence::SideEffect`] whose kind or details
/// contain it. The target's own channels are searched first, so text the
/// target repeated from the user is attributed to the target. `None` when
/// it occurs nowhere (or is blank).
pub fn locate(trace: &Trace, quote: &str) -> Option<Evidence> {
    let q = fold_whitespace(quote);
    if q.is_empty() {
        return None;
    }
    let all = fields(trace);
    let rank = |f: &Field| match f.place {
        Place::Quote("response") => 0,
        Place::ToolCall(_) => 1,
        Place::SideEffect(_) => 2,
        Place::Quote("tool_results") => 3,
        Place::Quote(_) => 4,
    };
    let mut order: Vec<&Field> = all.iter().collect();
    order.sort_by_key(|f| rank(f));
    for f in order {
        let folded = fold(&f.text);
        let Some(at) = folded.text.find(&q) else {
            continue;
        };
        let (start, _) = folded.spans.get(at).copied()?;
        let (_, end) = folded.spans.get(at + q.len() - 1).copied()?;
        let verbatim = f.text.get(start..end)?.to_string();
        return Some(match f.place {
            Place::Quote(source) => Evidence::Quote {
                turn: f.turn,
                source: source.to_string(),
                text: verbatim,
            },
            Place::ToolCall(index) => {
                let (turn, call) = trace.tool_calls().nth(index)?;
                Evidence::ToolCall {
                    turn,
                    index,
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                    errored: call.error.is_some(),
                }
            }
            Place::SideEffect(j) => {
                let effect = trace.turns.get(f.turn - 1)?.side_effects.get(j)?;
                Evidence::SideEffect {
                    turn: f.turn,
                    effect: effect.kind.clone(),
                    details: effect.details.clone(),
                }
            }
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use pactum_core::trace::{Message, ObservabilityLevel, SideEffect, ToolCall, Turn};
    use serde_json::json;

    fn sample() -> Trace {
        Trace {
            id: "t1".into(),
            observability: ObservabilityLevel::Full,
            turns: vec![
                Turn {
                    input: vec![
                        Message {
                            role: Role::System,
                            content: "You are a bank assistant.".into(),
                        },
                        Message {
                            role: Role::User,
                            content: "Send   100 EUR\nto Bob.".into(),
                        },
                    ],
                    response: Some("Done: I sent 100 EUR\n\nto Bob.".into()),
                    tool_calls: vec![ToolCall {
                        id: Some("c1".into()),
                        name: "send_money".into(),
                        arguments: json!({"to": "Bob", "amount": 100}),
                        result: Some(json!("ok: tx 42")),
                        error: None,
                    }],
                    side_effects: vec![SideEffect {
                        kind: "transfer".into(),
                        details: json!({"iban": "US13"}),
                    }],
                    ..Turn::default()
                },
                Turn {
                    input: vec![Message {
                        role: Role::User,
                        content: "Thanks".into(),
                    }],
                    response: None,
                    ..Turn::default()
                },
            ],
            metadata: Value::Null,
            error: None,
            incomplete: None,
            source: None,
        }
    }

    #[test]
    fn fold_maps_back_to_verbatim_text() {
        let f = fold("  a \n\t b  c ");
        assert_eq!(f.text, "a b c");
        assert_eq!(f.spans.len(), f.text.len());
        let ev = locate(&sample(), "sent 100 EUR to Bob").expect("found");
        assert_eq!(
            ev,
            Evidence::Quote {
                turn: 1,
                source: "response".into(),
                text: "sent 100 EUR\n\nto Bob".into()
            }
        );
    }

    #[test]
    fn quotes_are_attributed_to_the_target_first() {
        // "100 EUR" is in the user's message and in the response.
        match locate(&sample(), "100 EUR").expect("found") {
            Evidence::Quote { source, .. } => assert_eq!(source, "response"),
            other => panic!("{other:?}"),
        }
        match locate(&sample(), "bank assistant").expect("found") {
            Evidence::Quote { source, .. } => assert_eq!(source, "system"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            locate(&sample(), r#""amount":100"#),
            Some(Evidence::ToolCall {
                index: 0,
                turn: 1,
                ..
            })
        ));
        assert!(matches!(
            locate(&sample(), "send_money"),
            Some(Evidence::ToolCall { index: 0, .. })
        ));
        assert!(matches!(
            locate(&sample(), "tx 42"),
            Some(Evidence::Quote { source, .. }) if source == "tool_results"
        ));
        assert!(matches!(
            locate(&sample(), "US13"),
            Some(Evidence::SideEffect { turn: 1, .. })
        ));
    }

    #[test]
    fn labels_blanks_and_absent_text_do_not_verify() {
        for q in [
            "",
            "   ",
            "[target response]",
            "=== turn 1 ===",
            "sent 200 EUR",
            "Bob. Thanks",
        ] {
            assert_eq!(locate(&sample(), q), None, "{q:?}");
        }
    }

    #[test]
    fn render_marks_missing_and_empty_responses() {
        let r = render(&sample());
        assert!(
            r.contains("=== turn 2 ===\n[user message]\nThanks\n[target response: none recorded]")
        );
        let mut t = sample();
        t.turns[1].response = Some(String::new());
        assert!(render(&t).contains("[target response: empty]"));
    }

    #[test]
    fn bounding_keeps_head_and_tail() {
        let long = "x".repeat(JUDGE_TRANSCRIPT_MAX_CHARS + 1000) + "END";
        let (b, cut) = bounded(&long);
        let (total, omitted) = cut.expect("cut");
        assert_eq!(total, JUDGE_TRANSCRIPT_MAX_CHARS + 1003);
        assert_eq!(omitted, 1003);
        assert!(b.ends_with("END"));
        assert!(b.contains("1003 characters omitted"));
        let (same, none) = bounded("short");
        assert_eq!((same.as_str(), none), ("short", None));
    }
}
