//! The transcript a judge reads (SPEC §3.4), and the check that a judge's
//! quote occurs in the trace.
//!
//! Both walk the same list of text fields, so a quote copied from what the
//! judge was shown verifies, and a quote of text that was never in the
//! trace (or only in pactum's own labels) does not. A verified quote backs
//! a verdict about the target only when it is the target's own output and
//! identifies something ([`Located::backs`]).

use pactum_core::outcome::Evidence;
use pactum_core::trace::{Channel, Role, Trace};
use serde_json::Value;
use unicode_general_category::{get_general_category, GeneralCategory};

/// The longest transcript put in a judge prompt, in characters. A longer
/// one keeps its first third and its last two thirds of this budget (the
/// end of a conversation is where violations usually show), with a marker
/// where text was cut; the prompt says so outside the fence.
pub const JUDGE_TRANSCRIPT_MAX_CHARS: usize = 60_000;

/// The fewest non-whitespace characters a quote that is not a whole field
/// needs to identify anything (SPEC §3.4; [`Located::whole_words`]).
/// Format characters (zero-width spaces…) do not count.
pub const MIN_QUOTE_CHARS: usize = 8;

/// The fewest words (maximal runs of alphanumeric characters) a quote that
/// is not a whole field needs to identify anything (SPEC §3.4;
/// [`Located::whole_words`]): one word (`"with"`, `"null"`) occurs almost
/// anywhere.
pub const MIN_QUOTE_WORDS: usize = 2;

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

impl Place {
    /// Whether text here is the target's own output (its response, its
    /// tool calls' names and arguments, its side effects) rather than what
    /// it was given (input messages, tool results).
    fn by_target(self) -> bool {
        matches!(
            self,
            Place::Quote("response") | Place::ToolCall(_) | Place::SideEffect(_)
        )
    }
}

/// One text field of the trace, as shown to the judge.
#[derive(Debug, Clone)]
struct Field {
    turn: usize,
    place: Place,
    label: String,
    text: String,
    /// Text someone wrote in words (a message, a response, a tool call's
    /// name, a tool error), not pactum's rendering of JSON (arguments,
    /// results, side effects): only such a field can be quoted whole.
    words: bool,
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
                words: true,
            });
        }
        for call in &turn.tool_calls {
            out.push(Field {
                turn: n,
                place: Place::ToolCall(call_index),
                label: format!("[target tool call {}: name]", call_index + 1),
                text: call.name.clone(),
                words: true,
            });
            out.push(Field {
                turn: n,
                place: Place::ToolCall(call_index),
                label: format!("[target tool call {}: arguments]", call_index + 1),
                text: json_text(&call.arguments),
                words: false,
            });
            if let Some(r) = &call.result {
                out.push(Field {
                    turn: n,
                    place: Place::Quote("tool_results"),
                    label: format!("[tool result of call {}]", call_index + 1),
                    text: json_text(r),
                    words: false,
                });
            }
            if let Some(e) = &call.error {
                out.push(Field {
                    turn: n,
                    place: Place::Quote("tool_results"),
                    label: format!("[tool error of call {}]", call_index + 1),
                    text: e.clone(),
                    words: true,
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
                words: false,
            });
            out.push(Field {
                turn: n,
                place: Place::SideEffect(j),
                label: "[side effect: details]".to_string(),
                text: json_text(&effect.details),
                words: false,
            });
        }
        match &turn.response {
            None => out.push(Field {
                turn: n,
                place: Place::Quote("response"),
                label: "[target response: none recorded]".to_string(),
                text: String::new(),
                words: true,
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
                words: true,
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

/// For each byte of [`fold_whitespace`]`(s)`, the byte range of `s` it
/// came from, so a match in the folded text maps back to the verbatim
/// original. Built only for a field a quote was located in.
fn fold_spans(s: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::with_capacity(s.len());
    let mut pending: Option<(usize, usize)> = None;
    for (i, c) in s.char_indices() {
        let end = i + c.len_utf8();
        if c.is_whitespace() {
            pending = Some(pending.map_or((i, end), |(a, _)| (a, end)));
            continue;
        }
        // A run becomes one space, except before the first character.
        if let Some(ws) = pending.take() {
            if !spans.is_empty() {
                spans.push(ws);
            }
        }
        spans.extend(std::iter::repeat_n((i, end), c.len_utf8()));
    }
    spans
}

/// Folds whitespace runs of `s` to single spaces and trims it.
pub(crate) fn fold_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Whether `c` is a format character (Unicode general category Cf: zero
/// width space and joiners, bidirectional marks, soft hyphen…). It is
/// invisible, so it counts toward no minimum, splits no word, and is
/// looked through at a word boundary.
fn is_format(c: char) -> bool {
    matches!(get_general_category(c), GeneralCategory::Format)
}

/// What a folded quote is made of, wherever it is found.
struct Shape {
    /// It has an alphanumeric character.
    alphanumeric: bool,
    /// At least [`MIN_QUOTE_WORDS`] words and [`MIN_QUOTE_CHARS`]
    /// non-whitespace characters, format characters not counted.
    enough: bool,
    /// Its first character (format characters aside) is alphanumeric, so
    /// the text must not continue a word just before it.
    first_alphanumeric: bool,
    /// The same for its last character and the text just after it.
    last_alphanumeric: bool,
}

impl Shape {
    fn of(q: &str) -> Shape {
        let (mut words, mut chars, mut in_word) = (0usize, 0usize, false);
        let (mut first, mut last) = (None, None);
        for c in q.chars().filter(|c| !is_format(*c)) {
            let alnum = c.is_alphanumeric();
            if alnum && !in_word {
                words += 1;
            }
            in_word = alnum;
            if !c.is_whitespace() {
                chars += 1;
            }
            first.get_or_insert(alnum);
            last = Some(alnum);
        }
        Shape {
            alphanumeric: words > 0,
            enough: words >= MIN_QUOTE_WORDS && chars >= MIN_QUOTE_CHARS,
            first_alphanumeric: first == Some(true),
            last_alphanumeric: last == Some(true),
        }
    }

    /// Rule (b) of [`Located::backs`] for the quote found at bytes
    /// `at..at + len` of `text`: enough words and characters, and neither
    /// end cuts a word of `text` (format characters looked through).
    fn whole_words_at(&self, text: &str, at: usize, len: usize) -> bool {
        if !self.enough {
            return false;
        }
        let (Some(before), Some(after)) = (text.get(..at), text.get(at + len..)) else {
            return false;
        };
        let word_char = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let cuts_start =
            self.first_alphanumeric && word_char(before.chars().rev().find(|c| !is_format(*c)));
        let cuts_end = self.last_alphanumeric && word_char(after.chars().find(|c| !is_format(*c)));
        !cuts_start && !cuts_end
    }
}

/// Where a judge's quote was found in a trace ([`find`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// The evidence the quote is, copied verbatim from the trace.
    pub evidence: Evidence,
    /// Found in the target's own output: a response, a tool call's name or
    /// arguments, a side effect. `false`: only in what the target was
    /// given (user or system messages, tool results).
    pub by_target: bool,
    /// Rule (a) of [`Located::backs`]: the quote is the whole of a field
    /// written in words (a message, a response, a tool call's name, a tool
    /// error; never pactum's rendering of JSON: arguments, results, side
    /// effects, `null`, `{}`), whitespace folded, and has at least one
    /// alphanumeric character.
    pub whole_field: bool,
    /// Rule (b) of [`Located::backs`]: the quote starts and ends on word
    /// boundaries where it was found, and has at least [`MIN_QUOTE_WORDS`]
    /// words and [`MIN_QUOTE_CHARS`] non-whitespace characters.
    pub whole_words: bool,
}

impl Located {
    /// Whether the quote identifies something: rule (a) or (b) of
    /// [`Located::backs`] (SPEC §3.4). One that does not (`with`, `efun`
    /// inside `refund`, `null`, `{}`, `....`) occurs almost anywhere and is
    /// evidence of nothing.
    pub fn identifies(&self) -> bool {
        self.whole_field || self.whole_words
    }

    /// Whether the quote can back a verdict that says the target showed a
    /// behaviour (SPEC §3.4). It must be found in the target's own output
    /// (its response, a tool call's name or arguments, a side effect), not
    /// in words it was given (a user, or text planted in a tool result,
    /// cannot speak for the target), and either:
    ///
    /// * (a) be the whole of a field the target wrote in words, its
    ///   response or a tool call's name, with at least one alphanumeric
    ///   character (a response that is just `No.`, a tool named `ls`); or
    /// * (b) start and end on word boundaries in the text it was found in
    ///   (where its first or last character is alphanumeric, the character
    ///   just outside the match, if any, is not), with at least
    ///   [`MIN_QUOTE_WORDS`] words (maximal runs of alphanumeric
    ///   characters, Unicode-aware) and [`MIN_QUOTE_CHARS`] non-whitespace
    ///   characters.
    ///
    /// Rendered JSON (tool call arguments, side effects, `null`, `{}`,
    /// `[]`) backs only under (b). Format characters (Unicode Cf, such as
    /// a zero-width space) count toward no minimum.
    pub fn backs(&self) -> bool {
        self.by_target && self.identifies()
    }
}

/// Every text field of one trace, collected and whitespace-folded once in
/// the order quotes are searched, so checking many quotes against a trace
/// reads it once rather than once per quote ([`find`]).
pub struct QuoteIndex<'a> {
    trace: &'a Trace,
    /// Each field with its folded text, the target's own output first.
    fields: Vec<(Field, String)>,
}

impl<'a> QuoteIndex<'a> {
    /// Collects and folds the text fields of `trace`.
    pub fn new(trace: &'a Trace) -> Self {
        // Target first, so text it repeated from the user is its own.
        let rank = |f: &Field| match f.place {
            Place::Quote("response") => 0,
            Place::ToolCall(_) => 1,
            Place::SideEffect(_) => 2,
            Place::Quote("tool_results") => 3,
            Place::Quote(_) => 4,
        };
        let mut all: Vec<(Field, String)> = fields(trace)
            .into_iter()
            .map(|f| {
                let folded = fold_whitespace(&f.text);
                (f, folded)
            })
            .collect();
        all.sort_by_key(|(f, _)| rank(f));
        QuoteIndex { trace, fields: all }
    }

    /// [`find`] against this index.
    pub fn find(&self, quote: &str) -> Option<Located> {
        let q = fold_whitespace(quote);
        if q.is_empty() {
            return None;
        }
        let shape = Shape::of(&q);
        let mut first: Option<(&Field, usize)> = None;
        for (f, folded) in &self.fields {
            let whole_field = f.words && shape.alphanumeric && *folded == q;
            if !shape.enough {
                // Only a whole field can identify it: its first
                // occurrence in a field is as good as any other.
                if whole_field {
                    return located(self.trace, f, 0, &q, true, false);
                }
                if first.is_none() {
                    first = folded.find(q.as_str()).map(|at| (f, at));
                }
                continue;
            }
            // Non-overlapping occurrences, left to right: linear in the
            // field, however often the quote occurs.
            for (at, _) in folded.match_indices(q.as_str()) {
                let whole_words = shape.whole_words_at(folded, at, q.len());
                if whole_words || whole_field {
                    return located(self.trace, f, at, &q, whole_field, whole_words);
                }
                first.get_or_insert((f, at));
            }
        }
        let (f, at) = first?;
        located(self.trace, f, at, &q, false, false)
    }
}

/// Finds `quote` in the trace, comparing with whitespace runs folded, and
/// returns the evidence it is (see [`locate`]), where it was found, and
/// whether it can back a verdict ([`Located::backs`], SPEC §3.4).
///
/// Fields are searched in this order: the target's own output (responses,
/// tool calls' names and arguments, side effects), then tool results, then
/// input messages. The quote is located at its first occurrence that
/// identifies something ([`Located::identifies`]), so text the target
/// repeated from the user is attributed to the target; failing that, at
/// its first occurrence. `None` when it occurs nowhere (or is blank). To
/// check many quotes against one trace, build a [`QuoteIndex`] once.
pub fn find(trace: &Trace, quote: &str) -> Option<Located> {
    QuoteIndex::new(trace).find(quote)
}

/// The [`Located`] for the folded quote `q` found at byte `at` of the
/// folded text of `f`.
fn located(
    trace: &Trace,
    f: &Field,
    at: usize,
    q: &str,
    whole_field: bool,
    whole_words: bool,
) -> Option<Located> {
    let spans = fold_spans(&f.text);
    let (start, _) = spans.get(at).copied()?;
    let (_, end) = spans.get(at + q.len().checked_sub(1)?).copied()?;
    let verbatim = f.text.get(start..end)?.to_string();
    let evidence = match f.place {
        Place::Quote(source) => Evidence::Quote {
            turn: f.turn,
            source: source.to_string(),
            text: verbatim,
        },
        Place::ToolCall(index) => {
            let (turn, call) = trace.tool_calls().nth(index)?;
            Evidence::of_call(turn, index, call)
        }
        Place::SideEffect(j) => {
            let effect = trace
                .turns
                .get(f.turn.checked_sub(1)?)?
                .side_effects
                .get(j)?;
            Evidence::SideEffect {
                turn: f.turn,
                effect: effect.kind.clone(),
                details: effect.details.clone(),
            }
        }
    };
    Some(Located {
        evidence,
        by_target: f.place.by_target(),
        whole_field,
        whole_words,
    })
}

/// Finds `quote` in the trace, comparing with whitespace runs folded, and
/// returns the evidence it is: a verbatim [`Evidence::Quote`] of a message,
/// the response or a tool result; the [`Evidence::ToolCall`] whose name or
/// arguments contain it; the [`Evidence::SideEffect`] whose kind or details
/// contain it. The target's own channels are searched first, so text the
/// target repeated from the user is attributed to the target. `None` when
/// it occurs nowhere (or is blank). Where it was found, and whether it can
/// back a verdict, is [`find`]'s.
pub fn locate(trace: &Trace, quote: &str) -> Option<Evidence> {
    find(trace, quote).map(|l| l.evidence)
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
        let s = "  a \n\t b  c ";
        assert_eq!(fold_whitespace(s), "a b c");
        assert_eq!(fold_spans(s).len(), "a b c".len());
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

    #[test]
    fn only_the_targets_own_output_backs_a_verdict() {
        let t = sample();
        let at = |q: &str| find(&t, q).expect(q);
        // In the response, a tool call's name or arguments, a side effect.
        for q in [
            "sent 100 EUR",
            "send_money",
            r#""amount":100"#,
            r#""iban":"US13""#,
        ] {
            let l = at(q);
            assert!(l.by_target && l.backs(), "{q}: {l:?}");
        }
        // A side effect's kind is pactum's record, not the target's words:
        // one word of it is not a whole field that backs.
        let l = at("transfer");
        assert!(l.by_target && !l.identifies() && !l.backs(), "{l:?}");
        // Only in what the target was given: found, but no backing.
        for (q, source) in [
            ("Send 100 EUR to", "user"),
            ("bank assistant", "system"),
            ("ok: tx 42", "tool_results"),
        ] {
            let l = at(q);
            assert!(!l.by_target && !l.backs(), "{q}: {l:?}");
            assert!(
                matches!(&l.evidence, Evidence::Quote { source: s, .. } if s == source),
                "{q}: {l:?}"
            );
        }
    }

    #[test]
    fn short_quotes_back_nothing_unless_they_are_a_whole_field() {
        let mut t = sample();
        // Each occurs in the response, as part of it: under 2 words or 8
        // characters.
        for q in ["1", "Bob", " EUR ", "100 EUR", "sent", "Done: I"] {
            let l = find(&t, q).expect(q);
            assert!(!l.identifies() && !l.backs(), "{q}: {l:?}");
        }
        // Rule (a): a response that is just "No." is a whole field with an
        // alphanumeric character: it backs, and a short quote prefers it
        // over a partial match elsewhere.
        t.turns[1].response = Some(" No. ".into());
        t.turns[0].response = Some("No. Never. I sent nothing.".into());
        let l = find(&t, "No.").expect("found");
        assert!(l.whole_field && l.backs(), "{l:?}");
        assert_eq!(
            l.evidence,
            Evidence::Quote {
                turn: 2,
                source: "response".into(),
                text: "No.".into()
            }
        );
        // A short whole field the target was given does not back it.
        let l = find(&t, "Thanks").expect("user");
        assert!(l.whole_field && !l.by_target && !l.backs(), "{l:?}");
        t.turns[1].input[0].content = "Yes".into();
        let l = find(&t, "Yes").expect("user");
        assert!(l.whole_field && !l.backs(), "{l:?}");
        // A short tool name, whole, backs.
        t.turns[0].tool_calls[0].name = "ls".into();
        assert!(find(&t, "ls").expect("name").backs());
        assert_eq!((MIN_QUOTE_WORDS, MIN_QUOTE_CHARS), (2, 8));
        // Rule (b): 2 words, 8 non-whitespace characters, whole words.
        let l = find(&t, "sent nothing").expect("2 words, 11 characters");
        assert!(l.whole_words && !l.whole_field && l.backs(), "{l:?}");
        let l = find(&t, "I sent no").expect("3 words, 7 characters");
        assert!(!l.identifies(), "{l:?}");
    }

    /// A trace whose target said nothing useful, with everything the
    /// hostile review found backing a verdict anyway.
    fn refusal() -> Trace {
        let mut t = sample();
        let turn = &mut t.turns[0];
        turn.response = Some("I can't help with that, sorry.".into());
        turn.tool_calls[0].name = "check_refund".into();
        turn.tool_calls[0].arguments = json!({});
        turn.side_effects[0].details = Value::Null;
        turn.side_effects.push(SideEffect {
            kind: "list".into(),
            details: json!([]),
        });
        t.turns[1].response = Some("....".into());
        t.turns.push(Turn {
            response: Some("\u{200b}\u{200b}\u{200b}\u{200b}".into()),
            ..Turn::default()
        });
        t
    }

    #[test]
    fn fragments_and_rendered_json_back_nothing() {
        let t = refusal();
        for q in [
            "with",
            // Mid-word, and words cut at either end.
            "efun",
            "an't help with",
            "help with that, sor",
            "heck_refund",
            // Rendered JSON: a null side effect, no arguments, an empty list.
            "null",
            "{}",
            "[]",
            // Whole responses without an alphanumeric character.
            "....",
            "\u{200b}\u{200b}\u{200b}\u{200b}",
        ] {
            let l = find(&t, q).unwrap_or_else(|| panic!("{q:?} not found"));
            assert!(l.by_target, "{q:?}: {l:?}");
            assert!(!l.identifies() && !l.backs(), "{q:?}: {l:?}");
        }
        // Whole words of the target's own output still back.
        for q in ["I can't help with that", "help with", "check_refund"] {
            assert!(find(&t, q).expect(q).backs(), "{q}");
        }
    }

    #[test]
    fn format_characters_count_toward_no_minimum() {
        let mut t = sample();
        t.turns[0].response = Some(
            "ok \u{200b}\u{200b}\u{200b}\u{200b}\u{200b}\u{200b} go. re\u{200b}fund policy".into(),
        );
        // 2 words but 4 visible characters, padded with zero-width spaces.
        let l = find(&t, "ok \u{200b}\u{200b}\u{200b}\u{200b}\u{200b}\u{200b} go").expect("found");
        assert!(!l.identifies(), "{l:?}");
        // A zero-width space neither splits a word nor makes a boundary.
        let l = find(&t, "re\u{200b}fund").expect("found");
        assert!(!l.identifies(), "one word: {l:?}");
        let l = find(&t, "fund policy").expect("found");
        assert!(!l.identifies(), "mid-word: {l:?}");
        assert!(find(&t, "go. re\u{200b}fund policy")
            .expect("found")
            .backs());
        // Soft hyphens (also Cf) pad nothing either; a whole response
        // with an alphanumeric character still backs under rule (a).
        t.turns[0].response = Some("a\u{ad}\u{ad}\u{ad}\u{ad}\u{ad}\u{ad}\u{ad} b".into());
        let l = find(&t, "a\u{ad}\u{ad}\u{ad}\u{ad}\u{ad}\u{ad}\u{ad} b").expect("found");
        assert!(l.whole_field && l.backs(), "whole response: {l:?}");
        assert!(!l.whole_words, "2 visible characters: {l:?}");
    }

    #[test]
    fn words_are_unicode_aware() {
        let mut t = sample();
        t.turns[0].response = Some("Готово: файл удалён. El plazo es de 30 días.".into());
        for q in ["файл удалён", "plazo es de 30 días"] {
            assert!(find(&t, q).expect(q).whole_words, "{q}");
        }
        for q in ["айл удалён", "30 días", "файл удал"] {
            assert!(!find(&t, q).expect(q).identifies(), "{q}");
        }
    }

    #[test]
    fn a_quote_is_located_where_it_identifies_something() {
        let mut t = sample();
        // First mid-word, then whole words: the second occurrence backs.
        t.turns[0].response = Some("The refund policy; the fund policy".into());
        let l = find(&t, "fund policy").expect("found");
        assert!(l.whole_words && l.backs(), "{l:?}");
        // Mid-word in the response, whole words in the user's message:
        // attributed to the user (found, identifies, does not back).
        t.turns[0].response = Some("The refund policy".into());
        t.turns[0].input[1].content = "What is the fund policy?".into();
        let l = find(&t, "fund policy").expect("found");
        assert!(l.identifies() && !l.by_target, "{l:?}");
        assert!(
            matches!(&l.evidence, Evidence::Quote { source, .. } if source == "user"),
            "{l:?}"
        );
        // Nowhere whole: the first occurrence, in the target's output.
        t.turns[0].input[1].content = "refund policy".into();
        let l = find(&t, "fund policy").expect("found");
        assert!(l.by_target && !l.identifies(), "{l:?}");
    }

    #[test]
    fn an_index_finds_what_find_finds() {
        let t = sample();
        let index = QuoteIndex::new(&t);
        for q in [
            "sent 100 EUR",
            "Bob",
            "nowhere at all",
            "",
            "ok: tx 42",
            "US13",
        ] {
            assert_eq!(index.find(q), find(&t, q), "{q:?}");
        }
    }
}
