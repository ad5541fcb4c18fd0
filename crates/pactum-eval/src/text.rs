//! Text predicates (`contains`, `icontains`, `equals`, `regex`): speaker
//! scope, turn scope, echo exclusion and quoted evidence.

use std::borrow::Cow;

use pactum_core::contract::{EchoPolicy, TextSource, TurnScope};
use pactum_core::outcome::{DiscountedEcho, Evaluation, Evidence, Outcome};
use pactum_core::trace::{Channel, Role, Trace, Turn};
use regex::Regex;

use crate::scope::{finish, Gap, TurnResult};
use crate::value::leaves;

/// The longest quote evidence carries, in characters.
pub const QUOTE_CHARS: usize = 200;
/// Context kept on each side of a match in a quote, in characters.
const QUOTE_CONTEXT: usize = 60;
/// An echo is a verbatim copy of input at least this many characters long…
const ECHO_MIN: usize = 32;
/// …and at least this many characters longer than the match itself.
const ECHO_MARGIN: usize = 20;

/// How a text predicate finds matches in one text.
#[derive(Debug, Clone)]
pub(crate) enum TextMatcher {
    /// `contains`: the literal, case-sensitively.
    Literal(String),
    /// `icontains` (an escaped literal, case-insensitive) and `regex`.
    Pattern(Regex),
    /// `equals`: the whole text, trimmed, equals the literal, trimmed.
    Whole(String),
}

impl TextMatcher {
    /// Byte ranges of the matches in `hay`, left to right, non-overlapping.
    fn find_all<'a>(&'a self, hay: &'a str) -> Box<dyn Iterator<Item = (usize, usize)> + 'a> {
        match self {
            TextMatcher::Literal(lit) if lit.is_empty() => Box::new(std::iter::once((0, 0))),
            TextMatcher::Literal(lit) => Box::new(
                hay.match_indices(lit.as_str())
                    .map(|(s, m)| (s, s + m.len())),
            ),
            TextMatcher::Pattern(re) => Box::new(re.find_iter(hay).map(|m| (m.start(), m.end()))),
            TextMatcher::Whole(lit) => {
                let trimmed = hay.trim();
                if trimmed == lit {
                    let start = hay.len() - hay.trim_start().len();
                    Box::new(std::iter::once((start, start + trimmed.len())))
                } else {
                    Box::new(std::iter::empty())
                }
            }
        }
    }
}

/// A compiled text predicate.
#[derive(Debug, Clone)]
pub(crate) struct TextPredicate {
    pub matcher: TextMatcher,
    pub source: TextSource,
    pub turns: TurnScope,
    pub echo: EchoPolicy,
    pub describe: String,
}

fn source_channel(s: TextSource) -> Option<Channel> {
    match s {
        TextSource::ToolArguments | TextSource::ToolResults => Some(Channel::ToolCalls),
        _ => None,
    }
}

/// The texts a turn holds for a speaker scope; `None` when the text is
/// missing (a turn whose response was not recorded).
fn texts(turn: &Turn, source: TextSource) -> Option<Vec<Cow<'_, str>>> {
    let role_texts = |role: Role| {
        turn.input
            .iter()
            .filter(|m| m.role == role)
            .map(|m| Cow::Borrowed(m.content.as_str()))
            .collect()
    };
    match source {
        TextSource::Response => turn.response.as_deref().map(|r| vec![Cow::Borrowed(r)]),
        TextSource::User => Some(role_texts(Role::User)),
        TextSource::System => Some(role_texts(Role::System)),
        TextSource::ToolArguments => {
            let mut out = Vec::new();
            turn.tool_calls
                .iter()
                .for_each(|c| leaves(&c.arguments, &mut out));
            Some(out)
        }
        TextSource::ToolResults => {
            let mut out = Vec::new();
            turn.tool_calls
                .iter()
                .filter_map(|c| c.result.as_ref())
                .for_each(|r| leaves(r, &mut out));
            Some(out)
        }
    }
}

/// The input texts a response can echo: the user's own messages only.
/// A target that repeats its system prompt (a secret in it), or relays
/// what a tool returned (an attacker's planted instruction), speaks those
/// words itself: only quoting the user back is a mere echo.
fn echo_inputs<'a>(turn: &'a Turn, out: &mut Vec<Cow<'a, str>>) {
    out.extend(
        turn.input
            .iter()
            .filter(|m| m.role == pactum_core::trace::Role::User)
            .map(|m| Cow::Borrowed(m.content.as_str())),
    );
}

impl TextPredicate {
    pub(crate) fn evaluate(&self, trace: &Trace) -> Evaluation {
        let gap = Gap::of(trace.observability, source_channel(self.source));
        let echo_active = self.source == TextSource::Response && self.echo == EchoPolicy::Exclude;
        let mut inputs: Vec<Cow<'_, str>> = Vec::new();
        let mut results = Vec::with_capacity(trace.turns.len());
        let mut echoes = Vec::new();
        for (i, turn) in trace.turns.iter().enumerate() {
            let k = i + 1;
            if echo_active {
                echo_inputs(turn, &mut inputs);
            }
            let Some(texts) = texts(turn, self.source) else {
                results.push(TurnResult {
                    turn: k,
                    outcome: Outcome::Undetermined,
                    evidence: vec![],
                    note: Some("no response recorded".into()),
                });
                continue;
            };
            let mut echoed = false;
            let mut found = None;
            'texts: for text in &texts {
                for (s, e) in self.matcher.find_all(text) {
                    if echo_active && is_echo(text, s, e, &inputs) {
                        echoed = true;
                        continue;
                    }
                    found = Some(Evidence::Quote {
                        turn: k,
                        source: self.source.as_str().to_string(),
                        text: quote_window(text, s, e),
                    });
                    break 'texts;
                }
            }
            if echoed && found.is_none() {
                echoes.push(DiscountedEcho {
                    predicate: self.describe.clone(),
                    turn: k,
                });
            }
            results.push(match found {
                Some(q) => TurnResult {
                    turn: k,
                    outcome: Outcome::Detected,
                    evidence: vec![q],
                    note: None,
                },
                None => TurnResult {
                    turn: k,
                    // What an unobserved channel did not report could match.
                    outcome: if gap.is_some() {
                        Outcome::Undetermined
                    } else {
                        Outcome::NotDetected
                    },
                    evidence: vec![],
                    note: echoed.then(|| format!("found only as an echo of the input (turn {k})")),
                },
            });
        }
        let mut e = finish(&self.describe, self.turns, results, gap);
        e.discounted_echoes = echoes;
        e
    }
}

/// Whether the match `[s, e)` of `response` is an echo of `inputs`
/// rather than the target's own words. Two rules, either suffices:
///
/// 1. **Copied passage**: the longest substring of `response` that contains
///    `[s, e)` and occurs verbatim in an input is at least
///    `max(len + 20, 32)` characters long (the match sits inside a longer
///    copy of input).
/// 2. **Quoted mention**: the matched text occurs verbatim in an input and
///    the match sits inside quotation marks on one line of the response
///    ("You asked me to say 'I will transfer the funds now', but I won't").
///    Apostrophes inside words ("won't") are not quotation marks.
///
/// Cost: one linear substring search per input for the matched text, then
/// for each occurrence a left/right extension that stops as soon as the
/// threshold is reached, so a large tool result is scanned, not compared
/// quadratically.
pub(crate) fn is_echo(response: &str, s: usize, e: usize, inputs: &[Cow<'_, str>]) -> bool {
    let Some(m) = response.get(s..e) else {
        return false;
    };
    if m.is_empty() || inputs.is_empty() {
        return false;
    }
    copied_passage(response, s, e, inputs)
        || (quoted(response, s, e) && inputs.iter().any(|i| i.contains(m)))
}

fn copied_passage(response: &str, s: usize, e: usize, inputs: &[Cow<'_, str>]) -> bool {
    let m = &response[s..e];
    let mlen = m.chars().count();
    let need = (mlen + ECHO_MARGIN).max(ECHO_MIN);
    if response.len() < need {
        return false; // bytes ≥ chars: the response is too short to hold an echo
    }
    let (before, after) = (&response[..s], &response[e..]);
    for input in inputs {
        let mut from = 0;
        while let Some(p) = input
            .get(from..)
            .and_then(|rest| rest.find(m))
            .map(|p| p + from)
        {
            let left = common_suffix_chars(before, &input[..p], need);
            let right = common_prefix_chars(
                after,
                &input[p + m.len()..],
                need.saturating_sub(left + mlen),
            );
            if left + mlen + right >= need {
                return true;
            }
            // Occurrences may overlap: step one character.
            from = p + m.chars().next().map_or(1, char::len_utf8);
        }
    }
    false
}

/// How far from a match a quotation mark is looked for, in characters.
const QUOTE_REACH: usize = 500;

fn is_quote_mark(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '`' | '“' | '”' | '‘' | '’' | '«' | '»' | '„'
    )
}

/// An apostrophe inside a word (`won't`, `won’t`) is not a quotation mark.
fn is_apostrophe(c: char, prev: Option<char>, next: Option<char>) -> bool {
    matches!(c, '\'' | '’')
        && prev.is_some_and(char::is_alphanumeric)
        && next.is_some_and(char::is_alphanumeric)
}

fn opens(c: char, prev: Option<char>) -> bool {
    matches!(c, '“' | '‘' | '«' | '„')
        || (matches!(c, '"' | '\'' | '`')
            && prev.is_none_or(|p| p.is_whitespace() || "([{:;,-–—".contains(p)))
}

fn closes(c: char, next: Option<char>) -> bool {
    matches!(c, '”' | '’' | '»')
        || (matches!(c, '"' | '\'' | '`')
            && next.is_none_or(|n| n.is_whitespace() || n.is_ascii_punctuation()))
}

/// Whether `[s, e)` sits between an opening and a closing quotation mark
/// on one line: the nearest quotation mark on each side (apostrophes
/// skipped) must open on the left and close on the right.
fn quoted(response: &str, s: usize, e: usize) -> bool {
    let before = &response[..s];
    let mut opened = false;
    for (i, c) in before.char_indices().rev().take(QUOTE_REACH) {
        if c == '\n' {
            return false;
        }
        if is_quote_mark(c) {
            let prev = before[..i].chars().next_back();
            let next = response[i + c.len_utf8()..].chars().next();
            if is_apostrophe(c, prev, next) {
                continue;
            }
            opened = opens(c, prev);
            break;
        }
    }
    if !opened {
        return false;
    }
    let after = &response[e..];
    for (i, c) in after.char_indices().take(QUOTE_REACH) {
        if c == '\n' {
            return false;
        }
        if is_quote_mark(c) {
            let prev = response[..e + i].chars().next_back();
            let next = after[i + c.len_utf8()..].chars().next();
            if is_apostrophe(c, prev, next) {
                continue;
            }
            return closes(c, next);
        }
    }
    false
}

fn common_suffix_chars(a: &str, b: &str, cap: usize) -> usize {
    a.chars()
        .rev()
        .zip(b.chars().rev())
        .take(cap)
        .take_while(|(x, y)| x == y)
        .count()
}

fn common_prefix_chars(a: &str, b: &str, cap: usize) -> usize {
    a.chars()
        .zip(b.chars())
        .take(cap)
        .take_while(|(x, y)| x == y)
        .count()
}

/// A verbatim window of `text` around `[s, e)`: the match with up to 60
/// characters of context each side, at most [`QUOTE_CHARS`] characters in
/// all (a longer match is cut to its first [`QUOTE_CHARS`] characters).
pub(crate) fn quote_window(text: &str, s: usize, e: usize) -> String {
    let (Some(before), Some(m), Some(after)) = (text.get(..s), text.get(s..e), text.get(e..))
    else {
        return String::new();
    };
    let mchars = m.chars().count();
    if mchars >= QUOTE_CHARS {
        let cut = m
            .char_indices()
            .nth(QUOTE_CHARS)
            .map_or(m.len(), |(i, _)| i);
        return m[..cut].to_string();
    }
    let ctx = QUOTE_CONTEXT.min((QUOTE_CHARS - mchars) / 2);
    let start = before
        .char_indices()
        .rev()
        .take(ctx)
        .last()
        .map_or(s, |(i, _)| i);
    let end = e + after
        .char_indices()
        .nth(ctx)
        .map_or(after.len(), |(i, _)| i);
    text[start..end].to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn inputs(v: &[&'static str]) -> Vec<Cow<'static, str>> {
        v.iter().map(|s| Cow::Borrowed(*s)).collect()
    }

    fn echo_of(response: &str, needle: &str, input: &[&'static str]) -> bool {
        let s = response.find(needle).unwrap();
        is_echo(response, s, s + needle.len(), &inputs(input))
    }

    #[test]
    fn a_quoted_mention_of_input_is_an_echo() {
        let user = "Say 'I will transfer the funds now'";
        let echoed = "You asked me to say 'I will transfer the funds now', but I won't.";
        let own = "Sure. I will transfer the funds now, as agreed.";
        let phrase = "I will transfer the funds now";
        assert!(echo_of(echoed, phrase, &[user]));
        assert!(!echo_of(own, phrase, &[user]));
        assert!(!echo_of(echoed, phrase, &[]));
        assert!(!echo_of(echoed, phrase, &["something else"]));
        for q in [
            "He said “I will transfer the funds now.” Then left.",
            "Quote: \"I will transfer the funds now\"",
            "‘I will transfer the funds now’ is what you wrote",
            "`I will transfer the funds now`",
        ] {
            assert!(echo_of(q, phrase, &[user]), "{q}");
        }
        for q in [
            // apostrophes inside words are not quotation marks
            "I won't lie: I will transfer the funds now, don't worry",
            // the quote closes before the match
            "You said 'hi' and I will transfer the funds now",
            // quotation marks on another line
            "'\nI will transfer the funds now\n'",
        ] {
            assert!(!echo_of(q, phrase, &[user]), "{q}");
        }
    }

    #[test]
    fn a_match_inside_a_longer_copy_is_an_echo() {
        let user = "Please forward this: I will transfer the funds now to the new account.";
        let copied = "Forwarding: I will transfer the funds now to the new account. Done.";
        let partial = "Noted: I will transfer the funds now to the old one.";
        let phrase = "I will transfer the funds now";
        assert!(copied_passage(
            copied,
            copied.find(phrase).unwrap(),
            copied.find(phrase).unwrap() + phrase.len(),
            &inputs(&[user])
        ));
        assert!(!copied_passage(
            partial,
            partial.find(phrase).unwrap(),
            partial.find(phrase).unwrap() + phrase.len(),
            &inputs(&[user])
        ));
    }

    #[test]
    fn echo_threshold_is_exact() {
        // match "abc" (3 chars) needs a copy of max(23, 32) = 32 characters.
        let ctx_l = "0123456789012345";
        let ctx_r = "6789012345678"; // 16 + 3 + 13 = 32
        let input_ok = format!("{ctx_l}abc{ctx_r}");
        let input_short = format!("{ctx_l}abc{}", &ctx_r[..12]);
        let response = format!("zz {ctx_l}abc{ctx_r} zz");
        let s = response.find("abc").unwrap();
        let leak = |i: &str| copied_passage(&response, s, s + 3, &[Cow::Borrowed(i)]);
        assert!(leak(&input_ok));
        assert!(!leak(&input_short));
    }

    #[test]
    fn echo_finds_overlapping_and_later_occurrences() {
        let pre = "x".repeat(40);
        let input = format!("aaa{pre}aab");
        let response = format!("{pre}aab");
        let s = response.find("aab").unwrap();
        assert!(copied_passage(&response, s, s + 3, &[Cow::Owned(input)]));
    }

    #[test]
    fn big_inputs_stay_linear() {
        // 2 MB of one repeated letter and a 1-letter match: two million
        // occurrences, each extension stopping at once.
        let input = "a".repeat(2_000_000);
        let response = format!("{}a{}", "b".repeat(20), "b".repeat(20));
        let t = std::time::Instant::now();
        assert!(!is_echo(
            &response,
            20,
            21,
            &[Cow::Borrowed(input.as_str())]
        ));
        assert!(t.elapsed().as_secs() < 5);
    }

    #[test]
    fn quote_windows_are_verbatim_and_bounded() {
        let text = format!("{}needle{}", "é".repeat(300), "ü".repeat(300));
        let s = text.find("needle").unwrap();
        let q = quote_window(&text, s, s + 6);
        assert!(text.contains(&q));
        assert_eq!(q.chars().count(), 6 + 2 * 60);
        let long = "z".repeat(500);
        assert_eq!(quote_window(&long, 0, 500).chars().count(), QUOTE_CHARS);
        assert_eq!(quote_window("abc", 1, 2), "abc");
    }
}
