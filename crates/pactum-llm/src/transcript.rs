//! The transcript a judge reads (SPEC §3.4): how it is rendered, how a
//! transcript too long for one request is cut into windows, and the check
//! that a judge's quote is the target's own output.
//!
//! All of it walks the same list of text fields, so a quote copied from
//! what the judge was shown verifies, and a quote of text that was never
//! in the trace (or only in pactum's own labels) does not. A verified
//! quote backs a verdict about the target only when it is the target's own
//! output, not an echo of the user, and identifies something
//! ([`Located::backs`]).

use std::borrow::Cow;

use pactum_core::echo;
use pactum_core::outcome::Evidence;
use pactum_core::trace::{Channel, Role, Trace};
use serde_json::Value;
use unicode_general_category::{get_general_category, GeneralCategory};

/// The longest transcript text put in one judge request, in characters. A
/// longer transcript is judged in several windows of at most this size
/// ([`windows`]); nothing is cut silently.
pub const JUDGE_WINDOW_CHARS: usize = 60_000;

/// Characters of the preceding items a window repeats at its start, at
/// most: whole items that end a window are carried into the next one while
/// they fit in this budget, so an exchange that straddles the border (a
/// question and its answer, a tool call and the reply after it) is also
/// seen together. The parts of an item too long for a window overlap by
/// this much too.
pub const JUDGE_WINDOW_OVERLAP_CHARS: usize = 6_000;

/// The most windows judged per clause (SPEC §3.4): each is one request (and
/// its malformed retries). A transcript that needs more is judged on its
/// first this many; the rest is unseen, and the clause can then only be
/// settled by a window that shows the behaviour.
pub const MAX_JUDGE_WINDOWS: usize = 8;

/// The longest part of one item (a message, a tool call, a side effect, a
/// response) put in a window, in characters: an item longer than this is
/// cut into overlapping parts. A part and the overlap before it always fit
/// in one window, with room for the turn headers and part markers.
const PART_CHARS: usize = JUDGE_WINDOW_CHARS - JUDGE_WINDOW_OVERLAP_CHARS - 1_000;

/// How far back from a part's end a cut looks for whitespace, in
/// characters, so a part ends between words where it can.
const CUT_SLACK: usize = 400;

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
    /// The item the field belongs to (index in [`items`]): a message, a
    /// tool call (name, arguments, result, error), a side effect (kind,
    /// details) or a response. Windows never cut between the fields of an
    /// item.
    item: usize,
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
    let mut item = 0usize;
    for (i, turn) in trace.turns.iter().enumerate() {
        let n = i + 1;
        for m in &turn.input {
            let (src, label) = match m.role {
                Role::System => ("system", "[system message]"),
                Role::User => ("user", "[user message]"),
            };
            out.push(Field {
                turn: n,
                item,
                place: Place::Quote(src),
                label: label.to_string(),
                text: m.content.clone(),
                words: true,
            });
            item += 1;
        }
        for call in &turn.tool_calls {
            out.push(Field {
                turn: n,
                item,
                place: Place::ToolCall(call_index),
                label: format!("[target tool call {}: name]", call_index + 1),
                text: call.name.clone(),
                words: true,
            });
            out.push(Field {
                turn: n,
                item,
                place: Place::ToolCall(call_index),
                label: format!("[target tool call {}: arguments]", call_index + 1),
                text: json_text(&call.arguments),
                words: false,
            });
            if let Some(r) = &call.result {
                out.push(Field {
                    turn: n,
                    item,
                    place: Place::Quote("tool_results"),
                    label: format!("[tool result of call {}]", call_index + 1),
                    text: json_text(r),
                    words: false,
                });
            }
            if let Some(e) = &call.error {
                out.push(Field {
                    turn: n,
                    item,
                    place: Place::Quote("tool_results"),
                    label: format!("[tool error of call {}]", call_index + 1),
                    text: e.clone(),
                    words: true,
                });
            }
            call_index += 1;
            item += 1;
        }
        for (j, effect) in turn.side_effects.iter().enumerate() {
            out.push(Field {
                turn: n,
                item,
                place: Place::SideEffect(j),
                label: "[side effect: kind]".to_string(),
                text: effect.kind.clone(),
                words: false,
            });
            out.push(Field {
                turn: n,
                item,
                place: Place::SideEffect(j),
                label: "[side effect: details]".to_string(),
                text: json_text(&effect.details),
                words: false,
            });
            item += 1;
        }
        match &turn.response {
            None => out.push(Field {
                turn: n,
                item,
                place: Place::Quote("response"),
                label: "[target response: none recorded]".to_string(),
                text: String::new(),
                words: true,
            }),
            Some(r) => out.push(Field {
                turn: n,
                item,
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
        item += 1;
    }
    out
}

/// One item of the transcript, rendered: a message, a tool call, a side
/// effect or a response, each field under its bracketed label line; or,
/// with turn 0, a line about the whole trace (no turns, a capture error).
#[derive(Debug, Clone)]
struct Item {
    /// 1-based turn; 0 for the trace's own lines.
    turn: usize,
    text: String,
}

/// The items of `trace`, in transcript order.
fn items(trace: &Trace) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut current: Option<usize> = None;
    for f in fields(trace) {
        if current != Some(f.item) {
            out.push(Item {
                turn: f.turn,
                text: String::new(),
            });
            current = Some(f.item);
        }
        if let Some(item) = out.last_mut() {
            item.text.push_str(&f.label);
            item.text.push('\n');
            if !f.text.is_empty() {
                item.text.push_str(&f.text);
                item.text.push('\n');
            }
        }
    }
    if trace.turns.is_empty() {
        out.push(Item {
            turn: 0,
            text: "[no turns recorded]\n".into(),
        });
    }
    if let Some(e) = &trace.error {
        out.push(Item {
            turn: 0,
            text: format!("[capture error]\n{e}\n"),
        });
    }
    out
}

/// Lays out item texts with their turn headers (`=== turn N ===`, after a
/// blank line unless first): the transcript, or one window of it. Returns
/// the text and, for each item, the character offset where it starts.
fn layout<'a>(parts: impl Iterator<Item = (usize, &'a str)>) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut chars = 0usize;
    let mut starts = Vec::new();
    let mut last_turn: Option<usize> = None;
    let mut push = |out: &mut String, s: &str| {
        out.push_str(s);
        chars += s.chars().count();
        chars
    };
    for (turn, text) in parts {
        let first = last_turn.is_none();
        if turn == 0 {
            if !first {
                push(&mut out, "\n");
            }
        } else if last_turn != Some(turn) {
            if !first {
                push(&mut out, "\n");
            }
            push(&mut out, &format!("=== turn {turn} ===\n"));
        }
        last_turn = Some(turn);
        let at = push(&mut out, "");
        starts.push(at);
        push(&mut out, text);
    }
    (out, starts)
}

/// The judge's transcript of the whole of `trace`, before windowing and
/// fencing: per turn, a `=== turn N ===` line, then each input message,
/// tool call (name, arguments, result or error), side effect (kind,
/// details) and the response, each under a bracketed label line. Labels
/// are pactum's own: quotes of them never verify ([`find`]).
pub fn render(trace: &Trace) -> String {
    let items = items(trace);
    layout(items.iter().map(|i| (i.turn, i.text.as_str()))).0
}

/// One piece a window is made of: a whole item, or one part of an item too
/// long for a window.
#[derive(Debug, Clone)]
struct Piece {
    turn: usize,
    text: String,
    /// What the piece covers of [`render`]'s text, in characters.
    span: (usize, usize),
    /// Characters the piece costs a window, turn header included.
    cost: usize,
    /// `true` for a part of an item cut for length.
    part: bool,
}

/// The character offset just past the last whitespace in
/// `chars[from..to]`'s final [`CUT_SLACK`] characters, else `to`.
fn cut_at(chars: &[char], from: usize, to: usize) -> usize {
    if to >= chars.len() {
        return chars.len();
    }
    let floor = to.saturating_sub(CUT_SLACK).max(from + 1);
    (floor..to)
        .rev()
        .find(|&i| chars[i].is_whitespace())
        .map_or(to, |i| i + 1)
}

/// The pieces of the transcript: each item whole when it fits in
/// [`PART_CHARS`], else its parts, each at most that long, each starting
/// [`JUDGE_WINDOW_OVERLAP_CHARS`] before the previous one ended (at a
/// word boundary where one is near) and introduced by a marker line
/// `[pactum: part k of n of an item of turn t cut for length: characters
/// a–b of its N]`.
fn pieces(items: &[Item], starts: &[usize]) -> Vec<Piece> {
    let header = |turn: usize| format!("\n=== turn {turn} ===\n").chars().count();
    let mut out = Vec::new();
    for (item, &start) in items.iter().zip(starts) {
        let chars: Vec<char> = item.text.chars().collect();
        if chars.len() <= PART_CHARS {
            out.push(Piece {
                turn: item.turn,
                text: item.text.clone(),
                span: (start, start + chars.len()),
                cost: chars.len() + header(item.turn),
                part: false,
            });
            continue;
        }
        let mut bounds = Vec::new();
        let mut from = 0usize;
        loop {
            let to = cut_at(&chars, from, (from + PART_CHARS).min(chars.len()));
            bounds.push((from, to));
            if to >= chars.len() {
                break;
            }
            let back = to.saturating_sub(JUDGE_WINDOW_OVERLAP_CHARS).max(from + 1);
            // Start the next part at a word where one is near.
            from = (back..to)
                .take(CUT_SLACK)
                .find(|&i| i > 0 && chars[i - 1].is_whitespace())
                .unwrap_or(back);
        }
        let n = bounds.len();
        for (k, (a, b)) in bounds.into_iter().enumerate() {
            let body: String = chars[a..b].iter().collect();
            let nl = if body.ends_with('\n') { "" } else { "\n" };
            let text = format!(
                "[pactum: part {} of {n} of an item of turn {} cut for length: characters {}–{} of its {}]\n{body}{nl}",
                k + 1,
                item.turn,
                a + 1,
                b,
                chars.len()
            );
            let cost = text.chars().count() + header(item.turn);
            out.push(Piece {
                turn: item.turn,
                text,
                span: (start + a, start + b),
                cost,
                part: true,
            });
        }
    }
    out
}

/// One window of a transcript: the text one judge request shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// 0-based position among the windows the transcript needs.
    pub index: usize,
    /// The text, laid out like [`render`] (turn headers repeated where a
    /// window starts mid-turn), at most [`JUDGE_WINDOW_CHARS`] characters.
    pub text: String,
    /// The first and last turn it shows (0 for the trace's own lines).
    pub turns: (usize, usize),
    /// Characters at its start repeated from the window before.
    pub overlap_chars: usize,
    /// It holds a part of an item cut for length (marked in the text).
    pub parts: bool,
    /// The character ranges of [`render`]'s text it shows, `[a, b)`.
    pub spans: Vec<(usize, usize)>,
}

/// A transcript cut into the windows one judge request each can hold
/// (SPEC §3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Windows {
    /// Characters of the whole transcript ([`render`]).
    pub total_chars: usize,
    /// How many windows the whole transcript needs.
    pub needed: usize,
    /// The first [`MAX_JUDGE_WINDOWS`] of them (all, when it needs no
    /// more): every window that is sent.
    pub windows: Vec<Window>,
    /// Characters of all items, turn headers aside.
    content_chars: usize,
}

impl Windows {
    /// Characters of the transcript that no window in `seen` (indexes
    /// into [`Windows::windows`]) shows. Turn headers and the blank lines
    /// between turns are not counted as unseen.
    pub fn unseen_chars(&self, seen: &[usize]) -> usize {
        let mut spans: Vec<(usize, usize)> = seen
            .iter()
            .filter_map(|&i| self.windows.get(i))
            .flat_map(|w| w.spans.iter().copied())
            .collect();
        spans.sort_unstable();
        let mut covered = 0usize;
        let mut reach = 0usize;
        for (a, b) in spans {
            let a = a.max(reach);
            if b > a {
                covered += b - a;
                reach = b;
            }
        }
        self.content_chars.saturating_sub(covered)
    }
}

/// Cuts the transcript of `trace` into windows (SPEC §3.4). A transcript
/// of at most [`JUDGE_WINDOW_CHARS`] characters is one window, exactly
/// [`render`]'s text. A longer one is packed item by item into windows of
/// at most that size: an item (a message, a whole tool call, a side
/// effect, a response) is never cut while it fits in a window, so a
/// behaviour inside one is always seen whole by one window; each window
/// after the first repeats the items that ended the window before while
/// they fit in [`JUDGE_WINDOW_OVERLAP_CHARS`]; an item too long for a
/// window is cut into parts that overlap by that much, each marked as a
/// part. At most [`MAX_JUDGE_WINDOWS`] windows are returned;
/// [`Windows::needed`] says how many the whole needs.
pub fn windows(trace: &Trace) -> Windows {
    let items = items(trace);
    let (full, starts) = layout(items.iter().map(|i| (i.turn, i.text.as_str())));
    let total_chars = full.chars().count();
    let content_chars = items.iter().map(|i| i.text.chars().count()).sum();
    let turns_of = |turns: &mut dyn Iterator<Item = usize>| {
        let all: Vec<usize> = turns.collect();
        (
            all.first().copied().unwrap_or(0),
            all.last().copied().unwrap_or(0),
        )
    };
    if total_chars <= JUDGE_WINDOW_CHARS {
        let spans = items
            .iter()
            .zip(&starts)
            .map(|(i, &s)| (s, s + i.text.chars().count()))
            .collect();
        let turns = turns_of(&mut items.iter().map(|i| i.turn).filter(|t| *t > 0));
        return Windows {
            total_chars,
            needed: 1,
            windows: vec![Window {
                index: 0,
                text: full,
                turns,
                overlap_chars: 0,
                parts: false,
                spans,
            }],
            content_chars,
        };
    }
    let pieces = pieces(&items, &starts);
    let mut ranges: Vec<(usize, usize, usize)> = Vec::new();
    let (mut start, mut carried) = (0usize, 0usize);
    while start < pieces.len() {
        let (mut end, mut used) = (start, 0usize);
        while end < pieces.len() && (end == start || used + pieces[end].cost <= JUDGE_WINDOW_CHARS)
        {
            used += pieces[end].cost;
            end += 1;
        }
        ranges.push((start, end, carried));
        if end == pieces.len() {
            break;
        }
        // Carry the items that end this window into the next while they
        // fit in the overlap; always leave room for a new piece.
        let (mut next, mut overlap) = (end, 0usize);
        while next > start + 1 && overlap + pieces[next - 1].cost <= JUDGE_WINDOW_OVERLAP_CHARS {
            next -= 1;
            overlap += pieces[next].cost;
        }
        carried = end - next;
        start = next;
    }
    let needed = ranges.len();
    let windows = ranges
        .into_iter()
        .take(MAX_JUDGE_WINDOWS)
        .enumerate()
        .map(|(index, (a, b, carried))| {
            let slice = &pieces[a..b];
            let text = layout(slice.iter().map(|p| (p.turn, p.text.as_str()))).0;
            let turns = turns_of(&mut slice.iter().map(|p| p.turn).filter(|t| *t > 0));
            Window {
                index,
                text,
                turns,
                overlap_chars: slice[..carried]
                    .iter()
                    .map(|p| p.text.chars().count())
                    .sum(),
                parts: slice.iter().any(|p| p.part),
                spans: slice.iter().map(|p| p.span).collect(),
            }
        })
        .collect();
    Windows {
        total_chars,
        needed,
        windows,
        content_chars,
    }
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

/// The most occurrences of one quote checked against the echo rule: past
/// that many, an occurrence not yet shown to be the target's own words is
/// counted as an echo (a quote that needs more work to clear is not
/// cleared).
pub const MAX_ECHO_CHECKS: usize = 64;

/// Where a judge's quote was found in a trace ([`find`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// The evidence the quote is, copied verbatim from the trace.
    pub evidence: Evidence,
    /// Found in the target's own output: a response, a tool call's name or
    /// arguments, a side effect. `false`: only in what the target was
    /// given (user or system messages, tool results).
    pub by_target: bool,
    /// Found in the target's output only where the target repeats the
    /// user's words ([`pactum_core::echo::is_echo`], the rule of the
    /// `contains` predicate): a response that quotes the user back.
    pub echo: bool,
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
    /// Whether the quote is the target's own output (SPEC §3.4): found in
    /// its responses, tool calls or side effects, and not only where it
    /// repeats the user. A judge's verdict with any quote that is not is
    /// `not_evaluable` (`fabricated-evidence`).
    pub fn own_output(&self) -> bool {
        self.by_target && !self.echo
    }

    /// Whether the quote identifies something: rule (a) or (b) of
    /// [`Located::backs`] (SPEC §3.4). One that does not (`with`, `efun`
    /// inside `refund`, `null`, `{}`, `....`) occurs almost anywhere and is
    /// evidence of nothing.
    pub fn identifies(&self) -> bool {
        self.whole_field || self.whole_words
    }

    /// Whether the quote can back a verdict that says the target showed a
    /// behaviour (SPEC §3.4). It must be the target's own output
    /// ([`Located::own_output`]: its response, a tool call's name or
    /// arguments, a side effect; not words it was given, not words it only
    /// repeated from the user), and either:
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
        self.own_output() && self.identifies()
    }
}

/// Every text field of one trace, collected and whitespace-folded once in
/// the order quotes are searched, so checking many quotes against a trace
/// reads it once rather than once per quote ([`find`]).
pub struct QuoteIndex<'a> {
    trace: &'a Trace,
    /// Each field with its folded text, the target's own output first.
    fields: Vec<(Field, String)>,
    /// The user's messages, in turn order: what a response can echo
    /// ([`echo::echoable`]).
    user_texts: Vec<Cow<'a, str>>,
    /// For each turn (1-based index), how many of `user_texts` come from
    /// turns up to it.
    user_upto: Vec<usize>,
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
        let mut user_texts = Vec::new();
        let mut user_upto = vec![0];
        for turn in &trace.turns {
            user_texts.extend(echo::echoable(turn).map(Cow::Borrowed));
            user_upto.push(user_texts.len());
        }
        QuoteIndex {
            trace,
            fields: all,
            user_texts,
            user_upto,
        }
    }

    /// Whether the folded quote `q` at byte `at` of the folded text of
    /// `f` is, in the verbatim text, the target repeating the user: only a
    /// response can echo, and only the user's messages up to its turn.
    fn echoes(&self, f: &Field, spans: &[(usize, usize)], at: usize, q: &str) -> bool {
        if f.place != Place::Quote("response") {
            return false;
        }
        let (Some(&(start, _)), Some(&(_, end))) = (
            spans.get(at),
            q.len().checked_sub(1).and_then(|l| spans.get(at + l)),
        ) else {
            return false;
        };
        let upto = self.user_upto.get(f.turn).copied().unwrap_or(0);
        echo::is_echo(
            &f.text,
            start,
            end,
            &self.user_texts[..upto],
            echo::Quoting::MarksAndFormatting,
        )
    }

    /// [`find`] against this index.
    pub fn find(&self, quote: &str) -> Option<Located> {
        let q = fold_whitespace(quote);
        if q.is_empty() {
            return None;
        }
        let shape = Shape::of(&q);
        // The best occurrence so far: its rank, field, offset and flags.
        let mut best: Option<(u8, &Field, usize, bool, bool, bool)> = None;
        let mut echo_checks = 0usize;
        'fields: for (f, folded) in &self.fields {
            let by_target = f.place.by_target();
            let whole_field = f.words && shape.alphanumeric && *folded == q;
            let mut spans: Option<Vec<(usize, usize)>> = None;
            // Non-overlapping occurrences, left to right: linear in the
            // field, however often the quote occurs.
            for (at, _) in folded.match_indices(q.as_str()) {
                let whole_words = shape.whole_words_at(folded, at, q.len());
                let identifies = whole_field || whole_words;
                let rank_if_not_echo = match (by_target, identifies) {
                    (true, true) => 0,
                    (true, false) => 1,
                    (false, true) => 4,
                    (false, false) => 5,
                };
                if best.is_some_and(|b| b.0 <= rank_if_not_echo) {
                    continue;
                }
                let echo = f.place == Place::Quote("response") && {
                    echo_checks += 1;
                    echo_checks > MAX_ECHO_CHECKS || {
                        let spans = spans.get_or_insert_with(|| fold_spans(&f.text));
                        self.echoes(f, spans, at, &q)
                    }
                };
                let rank = if echo {
                    if identifies {
                        2
                    } else {
                        3
                    }
                } else {
                    rank_if_not_echo
                };
                if best.is_none_or(|b| rank < b.0) {
                    best = Some((rank, f, at, echo, whole_field, whole_words));
                }
                if rank == 0 {
                    break 'fields;
                }
            }
        }
        let (_, f, at, echo, whole_field, whole_words) = best?;
        located(self.trace, f, at, &q, echo, whole_field, whole_words)
    }
}

/// Finds `quote` in the trace, comparing with whitespace runs folded, and
/// returns the evidence it is (see [`locate`]), where it was found, and
/// whether it can back a verdict ([`Located::backs`], SPEC §3.4).
///
/// Fields are searched in this order: the target's own output (responses,
/// tool calls' names and arguments, side effects), then tool results, then
/// input messages. The quote is attributed to its best occurrence: one in
/// the target's own output, not an echo of the user, that identifies
/// something ([`Located::identifies`]); else one in its own output; else
/// an echo; else one in what it was given — each time the first such
/// occurrence. `None` when it occurs nowhere (or is blank). To check many
/// quotes against one trace, build a [`QuoteIndex`] once.
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
    echo: bool,
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
        echo,
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
            ended_by: None,
            source: None,
            offered_tools: None,
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

    /// A trace of `turns` turns, each a user message and a response of
    /// about `chars` characters (distinct words, so every passage is
    /// unique).
    fn long_trace(turns: usize, chars: usize) -> Trace {
        let mut t = sample();
        t.turns = (0..turns)
            .map(|i| {
                let words = (0..chars / 12)
                    .map(|j| format!("t{i:03}w{j:06}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                Turn {
                    input: vec![Message {
                        role: Role::User,
                        content: format!("question {i}"),
                    }],
                    response: Some(words),
                    ..Turn::default()
                }
            })
            .collect();
        t
    }

    /// The invariants of any windowing: each window within its budget,
    /// together they show every character, every item that fits in a
    /// window is shown whole by one.
    fn check_windows(t: &Trace) -> Windows {
        let w = windows(t);
        assert!(!w.windows.is_empty());
        assert!(w.windows.len() <= MAX_JUDGE_WINDOWS);
        assert_eq!(w.windows.len(), w.needed.min(MAX_JUDGE_WINDOWS));
        for (i, win) in w.windows.iter().enumerate() {
            assert_eq!(win.index, i);
            assert!(
                win.text.chars().count() <= JUDGE_WINDOW_CHARS,
                "window {i}: {}",
                win.text.chars().count()
            );
        }
        if w.needed <= MAX_JUDGE_WINDOWS {
            let all: Vec<usize> = (0..w.windows.len()).collect();
            assert_eq!(w.unseen_chars(&all), 0);
            for item in items(t) {
                if item.text.chars().count() <= PART_CHARS {
                    assert!(
                        w.windows.iter().any(|win| win.text.contains(&item.text)),
                        "an item is split: {:?}",
                        one_line_start(&item.text)
                    );
                }
            }
        }
        w
    }

    fn one_line_start(s: &str) -> String {
        s.chars().take(80).collect()
    }

    #[test]
    fn a_short_transcript_is_one_window_exactly_as_rendered() {
        let t = sample();
        let w = check_windows(&t);
        assert_eq!(w.needed, 1);
        assert_eq!(w.windows[0].text, render(&t));
        assert_eq!(w.windows[0].turns, (1, 2));
        assert_eq!(w.total_chars, render(&t).chars().count());
        assert_eq!(w.unseen_chars(&[]), w.content_chars);
    }

    #[test]
    fn a_long_conversation_is_cut_between_items_with_overlap() {
        // 40 turns of about 4,000 characters: about 160,000 in all.
        let t = long_trace(40, 4_000);
        let w = check_windows(&t);
        assert!(
            w.needed >= 3 && w.needed <= MAX_JUDGE_WINDOWS,
            "{}",
            w.needed
        );
        for pair in w.windows.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            // The next window starts with what ended this one.
            assert!(b.overlap_chars > 0 && b.overlap_chars <= JUDGE_WINDOW_OVERLAP_CHARS);
            assert!(b.turns.0 <= a.turns.1, "{:?} {:?}", a.turns, b.turns);
            let last = a.spans.last().expect("spans");
            assert!(b.spans.contains(last), "the last item is repeated");
            // Every window starts with a turn header.
            assert!(
                b.text.starts_with("=== turn "),
                "{}",
                one_line_start(&b.text)
            );
            assert!(!a.parts && !b.parts);
        }
        // Dropping a window leaves its items unseen, save what overlaps.
        let all: Vec<usize> = (0..w.windows.len()).collect();
        let without_second: Vec<usize> = all.iter().copied().filter(|&i| i != 1).collect();
        let unseen = w.unseen_chars(&without_second);
        let second: usize = w.windows[1].text.chars().count();
        assert!(unseen > 0 && unseen < second, "{unseen} of {second}");
    }

    #[test]
    fn an_item_longer_than_a_window_is_cut_into_marked_overlapping_parts() {
        // One response of about 150,000 characters.
        let t = long_trace(1, 150_000);
        let w = check_windows(&t);
        assert!(w.needed >= 3, "{}", w.needed);
        let response = t.turns[0].response.clone().expect("response");
        for win in &w.windows[1..] {
            assert!(win.parts);
            assert!(
                win.text.contains("[pactum: part "),
                "{}",
                one_line_start(&win.text)
            );
        }
        // Every passage shorter than the overlap is shown whole by a
        // window, wherever it is.
        let chars: Vec<char> = response.chars().collect();
        let len = JUDGE_WINDOW_OVERLAP_CHARS - CUT_SLACK - 10;
        for start in (0..chars.len().saturating_sub(len)).step_by(997) {
            let passage: String = chars[start..start + len].iter().collect();
            assert!(
                w.windows.iter().any(|win| win.text.contains(&passage)),
                "the passage at {start} is split"
            );
        }
        let all: Vec<usize> = (0..w.windows.len()).collect();
        assert_eq!(w.unseen_chars(&all), 0);
    }

    #[test]
    fn a_transcript_needing_too_many_windows_names_what_is_unseen() {
        let t = long_trace(120, 5_000);
        let w = check_windows(&t);
        assert!(w.needed > MAX_JUDGE_WINDOWS, "{}", w.needed);
        assert_eq!(w.windows.len(), MAX_JUDGE_WINDOWS);
        let all: Vec<usize> = (0..w.windows.len()).collect();
        let unseen = w.unseen_chars(&all);
        // About what the windows not sent would have shown.
        assert!(unseen > 100_000, "{unseen}");
        assert!(unseen < w.total_chars, "{unseen}");
        // The last turn is among the unseen.
        let last = t
            .turns
            .last()
            .and_then(|x| x.response.clone())
            .expect("last");
        assert!(!w.windows.iter().any(|win| win.text.contains(&last)));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// Random conversations: responses, tool calls and messages of
        /// random sizes, some longer than a window.
        #[test]
        fn windows_keep_their_promises(
            sizes in proptest::collection::vec((0usize..3, 1usize..90_000), 1..14)
        ) {
            let mut t = sample();
            t.turns = sizes
                .iter()
                .enumerate()
                .map(|(i, (kind, n))| {
                    let text: String = (0..*n / 8).map(|j| format!("{i}x{j:05} ")).collect();
                    let mut turn = Turn {
                        input: vec![Message { role: Role::User, content: format!("q{i}") }],
                        ..Turn::default()
                    };
                    match kind {
                        0 => turn.response = Some(text),
                        1 => {
                            turn.tool_calls.push(ToolCall {
                                id: None,
                                name: "write".into(),
                                arguments: serde_json::json!({"body": text}),
                                result: Some(serde_json::json!("ok")),
                                error: None,
                            });
                            turn.response = Some("done".into());
                        }
                        _ => {
                            turn.input.push(Message { role: Role::User, content: text });
                            turn.response = Some("noted".into());
                        }
                    }
                    turn
                })
                .collect();
            check_windows(&t);
        }
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
        // it occurs in the target's own output, so it is attributed there
        // (not fabricated), but identifies nothing and backs nothing.
        t.turns[0].response = Some("The refund policy".into());
        t.turns[0].input[1].content = "What is the fund policy?".into();
        let l = find(&t, "fund policy").expect("found");
        assert!(l.own_output() && !l.identifies() && !l.backs(), "{l:?}");
        // Only in the user's message: attributed to the user.
        let l = find(&t, "What is the fund").expect("found");
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
