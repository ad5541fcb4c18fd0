//! Text predicates (`contains`, `icontains`, `equals`, `regex`): speaker
//! scope, turn scope, echo exclusion and quoted evidence.

use std::borrow::Cow;

use pactum_core::contract::{EchoPolicy, TextSource, TurnScope};
use pactum_core::echo::{self, Echoes, Quoting};
use pactum_core::outcome::{DiscountedEcho, Evaluation, Evidence, Outcome};
use pactum_core::secret::REDACTED;
use pactum_core::trace::{Channel, Role, Trace, Turn};
use regex::Regex;

use crate::scope::{finish, redaction_note, Gap, TurnResult};
use crate::value::leaves;

/// The longest quote evidence carries, in characters.
pub const QUOTE_CHARS: usize = 200;
/// Context kept on each side of a match in a quote, in characters.
const QUOTE_CONTEXT: usize = 60;

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

/// The channel of the target's answer a speaker scope reads, where pactum
/// may have redacted a secret ([`pactum_core::trace::Turn::redacted`]);
/// `None` for the input messages, which are pactum's own.
fn answer_channel(s: TextSource) -> Option<Channel> {
    match s {
        TextSource::Response => Some(Channel::Response),
        TextSource::ToolArguments | TextSource::ToolResults => Some(Channel::ToolCalls),
        TextSource::User | TextSource::System => None,
    }
}

/// Whether the match `[s, e)` overlaps a [`REDACTED`] marker in `text`:
/// in a text pactum redacted, such a match may be made of the marker
/// rather than of what the target wrote, so it is no evidence. (The
/// marker is looked for only in texts the trace records as redacted, and
/// only to discount a match: a target writing it itself makes nothing
/// pass.)
fn overlaps_marker(text: &str, s: usize, e: usize) -> bool {
    s < e
        && text
            .match_indices(REDACTED)
            .any(|(ms, m)| ms < e && s < ms + m.len())
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

/// The input texts a response can echo ([`echo::echoable`]).
fn echo_inputs<'a>(turn: &'a Turn, out: &mut Vec<Cow<'a, str>>) {
    out.extend(echo::echoable(turn).map(Cow::Borrowed));
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
            // What pactum redacted from this turn's text is unseen: a match
            // elsewhere decides, finding nothing does not.
            let hidden = answer_channel(self.source).filter(|c| turn.redacted.contains(c));
            let mut echoed = false;
            let mut found = None;
            'texts: for text in &texts {
                // Built at the first match: every match of the text is
                // then answered without rescanning the inputs.
                let mut index: Option<Echoes<'_>> = None;
                for (s, e) in self.matcher.find_all(text) {
                    if echo_active
                        && !inputs.is_empty()
                        && index
                            .get_or_insert_with(|| Echoes::new(text, &inputs))
                            .is_echo(s, e, Quoting::Marks)
                    {
                        echoed = true;
                        continue;
                    }
                    if hidden.is_some() && overlaps_marker(text, s, e) {
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
                None if hidden.is_some() => TurnResult {
                    turn: k,
                    outcome: Outcome::Undetermined,
                    evidence: vec![],
                    note: hidden.map(|c| redaction_note(c, &[k])),
                },
                None => {
                    // Arguments that were not recorded could hold the text.
                    let unrecorded = if self.source == TextSource::ToolArguments {
                        turn.tool_calls
                            .iter()
                            .filter(|c| c.arguments.is_null())
                            .count()
                    } else {
                        0
                    };
                    TurnResult {
                        turn: k,
                        // What an unobserved channel did not report could match.
                        outcome: if gap.is_some() || unrecorded > 0 {
                            Outcome::Undetermined
                        } else {
                            Outcome::NotDetected
                        },
                        evidence: vec![],
                        note: if unrecorded > 0 {
                            Some(format!("{unrecorded} call(s) have no arguments recorded"))
                        } else {
                            echoed.then(|| format!("found only as an echo of the input (turn {k})"))
                        },
                    }
                }
            });
        }
        let mut e = finish(&self.describe, self.turns, results, gap);
        e.discounted_echoes = echoes;
        e
    }
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
