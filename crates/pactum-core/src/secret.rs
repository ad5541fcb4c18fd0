//! Secrets (SPEC §4): API keys and every other value pactum reads from the
//! environment, and credentials written in a suite's URLs, never reach the
//! store, a report, a log, a prompt or a terminal.
//!
//! [`Redactor`] is the one place that finds them in untrusted text and
//! replaces them with [`REDACTED`]. Every crate that stores, prints or
//! bounds untrusted text redacts through it, and redacts **before** it
//! bounds ([`Redactor::excerpt`]): cutting first could leave half a key
//! that no longer matches.
//!
//! It sees through the encodings a server, an agent or a terminal may wrap
//! a key in, mixed and nested up to [`DECODE_ROUNDS`] levels deep:
//!
//! * backslash escapes, however many backslashes lead them: JSON's
//!   `\u0073` (surrogate pairs too), `\/` and `\"`, `\x73`, `\U00000073`,
//!   and a backslash before any other character (`\s\k\-`, `\n` read as
//!   `n`);
//! * percent-encoding (`%2F`, `%2f`, UTF-8 sequences);
//! * HTML character references (`&#115;`, `&#x73;`, `&amp;`…);
//! * terminal escape sequences, control characters and invisible format
//!   characters (zero-width spaces, bidirectional overrides) interleaved
//!   with the key's characters;
//! * a key holding `"` or `\` written JSON-escaped;
//! * letters and hyphens a reader takes for ASCII ones: fullwidth forms,
//!   NFKC-equal letters (a long `ſ`, mathematical `𝐬𝐤`), look-alikes by
//!   the UTS #39 skeleton (a Cyrillic `ѕ`) and small capitals (`ꜱᴋ`).
//!
//! It also finds **fragments**: any run of the text that, once separators
//! and formatting between its characters are removed ([`is_separator`]:
//! whitespace and line breaks, control and invisible format characters,
//! markdown's `*` `_` `~` `` ` `` `|` `>`, hyphens and dashes), holds
//! [`FRAGMENT_CHARS`] or more consecutive characters of a secret (compared
//! the same way) is redacted, separators included. So a key split by a
//! newline or a space, wrapped in `**`, with a zero-width character inside,
//! with one character changed (the parts on either side of the change), or
//! only a long part of it, is not shown. Cost: one pass to build the
//! separator-free view and one Aho-Corasick pass over it per view, linear
//! in the text plus the matches.
//!
//! Matching is otherwise exact: a key in another case is not found.
//!
//! A secret shorter than [`MIN_SECRET_CHARS`] characters is refused
//! ([`SecretError::TooShort`]): redacting every occurrence of a short value
//! would shred ordinary text — and change what is graded — while skipping
//! it would leak it silently. The caller names the variable in its error.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;

use crate::text::{escape_len, one_line};
use crate::trace::{Channel, SideEffect, ToolCall};

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// The fewest characters a secret may have (after trimming whitespace).
pub const MIN_SECRET_CHARS: usize = 8;

/// The fewest consecutive characters of a secret (separators removed) that
/// count as a fragment of it and are redacted.
pub const FRAGMENT_CHARS: usize = 8;

/// The fewest characters of a secret's beginning (or end) redacted where
/// a text was cut short: just before (or after) the `…` that bounding a
/// text puts at its cut. A bound made before redaction can leave fewer
/// than [`FRAGMENT_CHARS`] of a key there (`password=Hun…`); fewer than
/// this many are too common a beginning to redact.
pub const CUT_CHARS: usize = 3;

/// How many characters on each side of a cut's `…` are looked at for the
/// beginning or the end of a secret ([`CUT_CHARS`]).
pub const CUT_REACH: usize = 32;

/// How many layers of encoding are seen through (`\u0025` `2F` is two:
/// JSON, then percent-encoding).
pub const DECODE_ROUNDS: usize = 3;

/// Why a value cannot be a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The value is empty or only whitespace.
    #[error("is empty")]
    Empty,
    /// The value is too short to be redacted safely.
    #[error(
        "holds {chars} character(s): pactum redacts every secret it reads from what it \
         stores and prints, and cannot tell one shorter than {MIN_SECRET_CHARS} characters \
         from ordinary text"
    )]
    TooShort {
        /// The value's length in characters, after trimming.
        chars: usize,
    },
    /// The matcher could not be built (an absurd number or size of secrets).
    #[error("cannot be searched for: {0}")]
    Matcher(String),
}

/// Checks that `value` can be a secret and returns it trimmed (a key read
/// from a file often ends with a newline; the trimmed value is what is
/// sent and what is redacted).
///
/// # Errors
/// [`SecretError::Empty`], [`SecretError::TooShort`].
pub fn check_secret(value: &str) -> Result<&str, SecretError> {
    let v = value.trim();
    if v.is_empty() {
        return Err(SecretError::Empty);
    }
    let chars = v.chars().count();
    if chars < MIN_SECRET_CHARS {
        return Err(SecretError::TooShort { chars });
    }
    Ok(v)
}

/// Finds secrets in untrusted text and replaces them with [`REDACTED`]
/// (see the module documentation for what it sees through). Cheap to
/// clone; the default redacts nothing. Its `Debug` output counts the
/// secrets and shows none.
#[derive(Clone, Default)]
pub struct Redactor {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    /// The secrets, trimmed, sorted, each once.
    secrets: Vec<String>,
    /// Each secret, and its JSON-escaped form where that differs.
    patterns: AhoCorasick,
    /// Every window of [`FRAGMENT_CHARS`] characters of every secret,
    /// separators removed; `None` when no secret is that long.
    fragments: Option<AhoCorasick>,
    /// Each secret with its separators removed, for cut ends.
    bare: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} secret(s))", self.len())
    }
}

impl Redactor {
    /// A redactor for `values`, each checked by [`check_secret`].
    ///
    /// # Errors
    /// The first value that cannot be a secret (the caller names it).
    pub fn new<I, S>(values: I) -> Result<Redactor, SecretError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut secrets = Vec::new();
        for v in values {
            secrets.push(check_secret(v.as_ref())?.to_string());
        }
        Redactor::build(secrets)
    }

    fn build(mut secrets: Vec<String>) -> Result<Redactor, SecretError> {
        secrets.sort();
        secrets.dedup();
        if secrets.is_empty() {
            return Ok(Redactor::default());
        }
        let mut patterns: Vec<String> = Vec::with_capacity(secrets.len());
        for s in &secrets {
            patterns.push(s.clone());
            let escaped = serde_json::to_string(s).unwrap_or_default();
            let escaped = escaped
                .strip_prefix('"')
                .and_then(|e| e.strip_suffix('"'))
                .unwrap_or_default();
            if !escaped.is_empty() && escaped != s {
                patterns.push(escaped.to_string());
            }
        }
        // ASCII case is ignored: a hex key upper-cased (or a token a
        // target "formatted") is still the credential.
        let patterns = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(true)
            .build(&patterns)
            .map_err(|e| SecretError::Matcher(e.to_string()))?;
        let mut windows: Vec<String> = Vec::new();
        for s in &secrets {
            let bare: Vec<char> = s.chars().filter(|c| !is_separator(*c)).collect();
            windows.extend(bare.windows(FRAGMENT_CHARS).map(|w| w.iter().collect()));
        }
        windows.sort();
        windows.dedup();
        let fragments = if windows.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    .ascii_case_insensitive(true)
                    .build(&windows)
                    .map_err(|e| SecretError::Matcher(e.to_string()))?,
            )
        };
        let bare = secrets
            .iter()
            .map(|s| s.chars().filter(|c| !is_separator(*c)).collect())
            .collect();
        Ok(Redactor {
            inner: Some(Arc::new(Inner {
                secrets,
                patterns,
                fragments,
                bare,
            })),
        })
    }

    /// A redactor for the secrets of both.
    ///
    /// # Errors
    /// [`SecretError::Matcher`] only.
    pub fn with(&self, other: &Redactor) -> Result<Redactor, SecretError> {
        match (&self.inner, &other.inner) {
            (_, None) => Ok(self.clone()),
            (None, _) => Ok(other.clone()),
            (Some(a), Some(b)) => {
                Redactor::build(a.secrets.iter().chain(&b.secrets).cloned().collect())
            }
        }
    }

    /// Whether it knows no secret (and so changes nothing).
    pub fn is_empty(&self) -> bool {
        self.inner.is_none()
    }

    /// Whether `other` is this very redactor or a clone of it (so it
    /// redacts exactly alike), not merely one that holds the same secrets:
    /// a constant-time check for a redaction done ahead on another thread.
    pub fn is_same(&self, other: &Redactor) -> bool {
        match (&self.inner, &other.inner) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// How many secrets it knows.
    pub fn len(&self) -> usize {
        self.inner.as_ref().map_or(0, |i| i.secrets.len())
    }

    /// `text` with every secret, in any encoding it sees through, replaced
    /// by [`REDACTED`]. A span where two secrets overlap is replaced once.
    /// Borrowed when nothing was found.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(inner) = &self.inner else {
            return Cow::Borrowed(text);
        };
        // Reports repeat texts from result to result (clause texts, quoted
        // evidence): a thread remembers, for the redactor it used last, the
        // texts it found nothing in, compared whole, so a repeat costs a
        // hash and a comparison instead of a search. The answer is the
        // same either way: redaction is a function of the secrets and the
        // text alone.
        if text.len() < CLEAN_MIN_BYTES {
            return inner.redact(text);
        }
        let hash = {
            use std::hash::BuildHasher;
            foldhash::fast::FixedState::with_seed(0).hash_one(text)
        };
        if CLEAN.with(|m| m.borrow().knows(inner, hash, text)) {
            return Cow::Borrowed(text);
        }
        let out = inner.redact(text);
        if matches!(out, Cow::Borrowed(_)) {
            CLEAN.with(|m| m.borrow_mut().learn(inner, hash, text));
        }
        out
    }

    /// [`Self::redact`] of an owned string.
    pub fn redact_string(&self, text: String) -> String {
        match self.redact(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(o) => o,
        }
    }

    /// [`Self::redact`] over every string of a JSON value, object keys
    /// included, and every number's text (one holding a secret becomes
    /// its redacted text, a string); returns whether it replaced
    /// anything. Two keys of one object that redact to the same text are
    /// both kept: the later ones get ` (2)`, ` (3)`… appended, so
    /// redaction never drops a value.
    pub fn redact_value(&self, v: &mut Value) -> bool {
        if self.is_empty() {
            return false;
        }
        match v {
            Value::String(s) => {
                if let Cow::Owned(o) = self.redact(s) {
                    *s = o;
                    return true;
                }
                false
            }
            // A number holding a secret (a PIN learnt as a password) is
            // shown as its redacted text.
            Value::Number(n) => {
                if let Cow::Owned(o) = self.redact(&n.to_string()) {
                    *v = Value::String(o);
                    return true;
                }
                false
            }
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |any, i| self.redact_value(i) | any),
            Value::Object(map) => {
                let keys_change = map.keys().any(|k| matches!(self.redact(k), Cow::Owned(_)));
                if !keys_change {
                    return map
                        .values_mut()
                        .fold(false, |any, val| self.redact_value(val) | any);
                }
                let old = std::mem::take(map);
                for (k, mut val) in old {
                    self.redact_value(&mut val);
                    let base = self.redact_string(k);
                    let mut key = base.clone();
                    let mut n = 1;
                    while map.contains_key(&key) {
                        n += 1;
                        key = format!("{base} ({n})");
                    }
                    map.insert(key, val);
                }
                true
            }
            _ => false,
        }
    }

    /// Whether [`Self::redact_value`] would replace anything in `value`'s
    /// JSON value, found without building it: every string of it (keys,
    /// field and variant names too) is searched. `true` also when the
    /// value would not serialize, or holds a map key JSON writes in no
    /// way the search knows (the caller then redacts the JSON value).
    pub fn changes<T: serde::Serialize + ?Sized>(&self, value: &T) -> bool {
        !self.is_empty() && value.serialize(probe::Probe(self)).is_err()
    }

    /// Redacts a target's answer field by field and returns the channels
    /// in which it replaced something — the record a trace keeps in
    /// [`crate::trace::Turn::redacted`] (SPEC §4). The one rule of which field is which
    /// channel: the response `text` is [`Channel::Response`]; each tool
    /// call's name, id, arguments (keys and values), result and error are
    /// [`Channel::ToolCalls`]; each side effect's kind and details are
    /// [`Channel::SideEffects`].
    pub fn redact_answer(
        &self,
        text: Option<&mut String>,
        calls: &mut [ToolCall],
        effects: &mut [SideEffect],
    ) -> BTreeSet<Channel> {
        let mut found = BTreeSet::new();
        if self.is_empty() {
            return found;
        }
        let red = |s: &mut String| match self.redact(s) {
            Cow::Owned(o) => {
                *s = o;
                true
            }
            Cow::Borrowed(_) => false,
        };
        if text.is_some_and(red) {
            found.insert(Channel::Response);
        }
        let mut in_calls = false;
        for c in calls {
            in_calls |= red(&mut c.name);
            in_calls |= c.id.as_mut().is_some_and(red);
            in_calls |= self.redact_value(&mut c.arguments);
            in_calls |= c.result.as_mut().is_some_and(|v| self.redact_value(v));
            in_calls |= c.error.as_mut().is_some_and(red);
        }
        if in_calls {
            found.insert(Channel::ToolCalls);
        }
        let mut in_effects = false;
        for e in effects {
            in_effects |= red(&mut e.kind);
            in_effects |= self.redact_value(&mut e.details);
        }
        if in_effects {
            found.insert(Channel::SideEffects);
        }
        found
    }

    /// Redacts a recorded trace in place before anything reads it (a check,
    /// a judge's prompt, a report): each turn's answer as
    /// [`Redactor::redact_answer`] does, the channels recorded in
    /// [`crate::trace::Turn::redacted`], and the turn's input messages
    /// (what a judge is shown as context). Returns whether anything was
    /// replaced. SPEC §4: a key pactum holds never reaches a prompt.
    pub fn redact_trace(&self, trace: &mut crate::trace::Trace) -> bool {
        if self.is_empty() {
            return false;
        }
        let mut any = false;
        for turn in &mut trace.turns {
            let found = self.redact_answer(
                turn.response.as_mut(),
                &mut turn.tool_calls,
                &mut turn.side_effects,
            );
            any |= !found.is_empty();
            turn.redacted.extend(found);
            for m in &mut turn.input {
                if let Cow::Owned(o) = self.redact(&m.content) {
                    m.content = o;
                    any = true;
                }
            }
        }
        any
    }

    /// Where a secret was in an answer that was redacted whole before it
    /// was read (`raw` as received, `redacted` as read): none when the two
    /// are the same; else `raw` is read again by `read` — in memory only,
    /// the copy dropped — and [`Self::redact_answer`] names the channels
    /// of its (text, tool calls, side effects) that hold a secret. When the
    /// raw answer cannot be read (a secret written across its syntax),
    /// every channel counts: not knowing where is never "nowhere".
    pub fn channels_in_raw(
        &self,
        raw: &str,
        redacted: &str,
        read: impl FnOnce(&str) -> Option<RawAnswer>,
    ) -> BTreeSet<Channel> {
        if raw == redacted || self.is_empty() {
            return BTreeSet::new();
        }
        match read(raw) {
            Some((mut text, mut calls, mut effects)) => {
                self.redact_answer(text.as_mut(), &mut calls, &mut effects)
            }
            None => [Channel::Response, Channel::ToolCalls, Channel::SideEffects].into(),
        }
    }

    /// Redact, then bound: `text` redacted, then made one terminal-safe
    /// line of at most `max_chars` characters
    /// ([`crate::text::one_line`]). The one way to excerpt untrusted text
    /// that may hold a secret.
    pub fn excerpt(&self, text: &str, max_chars: usize) -> String {
        one_line(&self.redact(text), max_chars)
    }

    /// Whether `text` holds a secret, in any encoding seen through.
    pub fn finds_secret_in(&self, text: &str) -> bool {
        matches!(self.redact(text), Cow::Owned(_))
    }
}

impl Inner {
    /// [`Redactor::redact`], searched.
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut spans: Vec<(usize, usize)> = Vec::new();
        self.find(text, |o| o, &mut spans);
        self.find_cut(text, &mut spans);
        if may_be_encoded(text) {
            let mut view: Cow<'_, str> = Cow::Borrowed(text);
            // Original offset of each byte of `view` (and of its end).
            let mut origin: Option<Vec<usize>> = None;
            for _ in 0..DECODE_ROUNDS {
                let Some((decoded, map)) = decode_round(&view) else {
                    break;
                };
                let map = match &origin {
                    None => map,
                    Some(prev) => map.into_iter().map(|o| prev[o]).collect(),
                };
                self.find(&decoded, |o| map[o], &mut spans);
                if !may_be_encoded(&decoded) {
                    break;
                }
                view = Cow::Owned(decoded);
                origin = Some(map);
            }
        }
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        spans.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        let mut i = 0;
        while i < spans.len() {
            let (start, mut end) = spans[i];
            i += 1;
            while i < spans.len() && spans[i].0 < end {
                end = end.max(spans[i].1);
                i += 1;
            }
            let start = start.max(at);
            out.push_str(&text[at..start]);
            out.push_str(REDACTED);
            at = end.max(start);
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }

    /// The spans of `text` where a secret was cut short by a bound: the
    /// last characters before a `…` that begin a secret, and the first
    /// ones after it that end one: at least [`CUT_CHARS`] characters, up
    /// to [`CUT_REACH`] from the cut, starting and ending on a character of
    /// the key (a key cut after `Hu~` or `Hu-nt-er`). Compared as
    /// fragments are: separators removed on both sides, ASCII case
    /// ignored.
    fn find_cut(&self, text: &str, spans: &mut Vec<(usize, usize)>) {
        const CUT: char = '\u{2026}';
        let word = |c: &char| !c.is_whitespace() && *c != CUT;
        let bare =
            |piece: &str| -> String { piece.chars().filter(|c| !is_separator(*c)).collect() };
        let begins = |b: &str| {
            !b.is_empty()
                && self
                    .bare
                    .iter()
                    .any(|s| s.get(..b.len()).is_some_and(|p| p.eq_ignore_ascii_case(b)))
        };
        let ends = |b: &str| {
            !b.is_empty()
                && self.bare.iter().any(|s| {
                    s.len()
                        .checked_sub(b.len())
                        .and_then(|i| s.get(i..))
                        .is_some_and(|p| p.eq_ignore_ascii_case(b))
                })
        };
        for (at, _) in text.match_indices(CUT) {
            // Farthest start first: the longest piece that begins a secret.
            let starts: Vec<usize> = text[..at]
                .char_indices()
                .rev()
                .take_while(|(_, c)| word(c))
                .take(CUT_REACH)
                .map(|(i, _)| i)
                .collect();
            // A piece starts and ends on a character of the key: the
            // separators around it (a quote mark, `_`) stay.
            let on_key = |i: usize| text[i..].chars().next().is_some_and(|c| !is_separator(c));
            let long_enough = |i: usize, j: usize| text[i..j].chars().count() >= CUT_CHARS;
            if let Some(&start) = starts
                .iter()
                .rev()
                .find(|&&i| on_key(i) && long_enough(i, at) && begins(&bare(&text[i..at])))
            {
                spans.push((start, at));
            }
            let from = at + CUT.len_utf8();
            let stops: Vec<usize> = text[from..]
                .char_indices()
                .take_while(|(_, c)| word(c))
                .take(CUT_REACH)
                .map(|(i, c)| from + i + c.len_utf8())
                .collect();
            let ends_on_key = |e: usize| {
                text[..e]
                    .chars()
                    .next_back()
                    .is_some_and(|c| !is_separator(c))
            };
            if let Some(&stop) = stops
                .iter()
                .rev()
                .find(|&&e| ends_on_key(e) && long_enough(from, e) && ends(&bare(&text[from..e])))
            {
                spans.push((from, stop));
            }
        }
    }

    /// The spans of `view` that hold a secret or a fragment of one, as
    /// offsets of the original text (`to_orig` maps an offset of `view`,
    /// its end included).
    fn find(&self, view: &str, to_orig: impl Fn(usize) -> usize, spans: &mut Vec<(usize, usize)>) {
        spans.extend(
            self.patterns
                .find_overlapping_iter(view)
                .map(|m| (to_orig(m.start()), to_orig(m.end()))),
        );
        let Some(fragments) = &self.fragments else {
            return;
        };
        let bare = Bare::of(view);
        for m in fragments.find_overlapping_iter(bare.text.as_ref()) {
            // The run from the fragment's first character to its last, the
            // separators between them included.
            let start = bare.origin(m.start());
            let end = bare.origin(m.end() - 1) + 1;
            spans.push((to_orig(start), to_orig(end)));
        }
    }
}

/// Separators and formatting a secret's characters may be spread over
/// without hiding it: whitespace (line breaks included), control and
/// invisible format characters, markdown emphasis, code, table and quote
/// marks (`*` `_` `~` `` ` `` `|` `>`), hyphens and dashes. Removed from
/// both the text and the secrets before fragments are compared.
pub fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || is_invisible(c)
        || matches!(
            c,
            '*' | '_' | '~' | '`' | '|' | '>' | '-' | '\u{2010}'
                ..='\u{2015}' | '\u{2212}' | '\u{180e}' | '\u{034f}'
        )
}

/// Whether each ASCII byte is an [`is_separator`] character: a table, so
/// that most bytes of a text cost one load.
static ASCII_SEPARATOR: [bool; 128] = {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = c.is_ascii_whitespace()
            || c == 0x0b
            || c.is_ascii_control()
            || matches!(c, b'*' | b'_' | b'~' | b'`' | b'|' | b'>' | b'-');
        b += 1;
    }
    t
};

/// The byte length of the [`is_separator`] character at byte `at` of
/// `text` (a character boundary), or `None` when there is none there.
fn separator_len_at(text: &str, at: usize) -> Option<usize> {
    let &b = text.as_bytes().get(at)?;
    if b.is_ascii() {
        return ASCII_SEPARATOR[usize::from(b)].then_some(1);
    }
    let c = text[at..].chars().next()?;
    is_separator(c).then(|| c.len_utf8())
}

/// The offset of the first [`is_separator`] character of `text` at or
/// after byte `from` (a character boundary).
fn next_separator(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = from;
    while i < b.len() {
        if b[i].is_ascii() {
            if ASCII_SEPARATOR[usize::from(b[i])] {
                return Some(i);
            }
            i += 1;
        } else {
            let c = text[i..].chars().next()?;
            if is_separator(c) {
                return Some(i);
            }
            i += c.len_utf8();
        }
    }
    None
}

/// A text with its separators removed, and where each of its bytes was.
struct Bare<'a> {
    text: Cow<'a, str>,
    /// `(offset in text, offset in the source)` at the start of each run
    /// copied after a removed separator, in order; empty when nothing was
    /// removed.
    jumps: Vec<(usize, usize)>,
}

impl<'a> Bare<'a> {
    fn of(src: &'a str) -> Bare<'a> {
        let Some(first) = next_separator(src, 0) else {
            return Bare {
                text: Cow::Borrowed(src),
                jumps: Vec::new(),
            };
        };
        let mut text = String::with_capacity(src.len());
        let mut jumps = Vec::new();
        // Runs of kept characters are copied whole; a jump is recorded at
        // the start of each run that follows a removed separator.
        let mut kept = 0;
        let mut sep = first;
        loop {
            text.push_str(&src[kept..sep]);
            let mut after = sep;
            while let Some(len) = separator_len_at(src, after) {
                after += len;
            }
            if after == src.len() {
                break;
            }
            jumps.push((text.len(), after));
            kept = after;
            match next_separator(src, after) {
                Some(next) => sep = next,
                None => {
                    text.push_str(&src[kept..]);
                    break;
                }
            }
        }
        Bare {
            text: Cow::Owned(text),
            jumps,
        }
    }

    /// The source offset of byte `at` of the separator-free text.
    fn origin(&self, at: usize) -> usize {
        match self.jumps.partition_point(|&(b, _)| b <= at) {
            0 => at,
            k => {
                let (b, o) = self.jumps[k - 1];
                o + (at - b)
            }
        }
    }
}

/// A target's answer as [`Redactor::channels_in_raw`] reads it: the
/// response text, the tool calls, the side effects.
pub type RawAnswer = (Option<String>, Vec<ToolCall>, Vec<SideEffect>);

/// GitLab's token prefixes: personal access, deploy, runner, pipeline
/// trigger, OAuth app, CI job, feed, incoming mail, agent, SCIM, runner
/// registration. No word holds them: they are in both [`KEY_PREFIXES`] and
/// [`GLUED_KEY_PREFIXES`].
const GITLAB_KEY_PREFIXES: [&str; 11] = [
    "glpat-",
    "gldt-",
    "glrt-",
    "glptt-",
    "gloas-",
    "glcbt-",
    "glft-",
    "glimt-",
    "glagent-",
    "glsoat-",
    "GR1348941",
];

/// `a` then `b`, in a constant (`N` must be their lengths' sum).
const fn joined<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N, "N is the sum of the lengths");
    let mut out = [""; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

/// Prefixes of well-known API key and token formats.
const KEY_PREFIXES: [&str; 57] = joined(OTHER_KEY_PREFIXES, GITLAB_KEY_PREFIXES);

/// [`KEY_PREFIXES`] but GitLab's.
const OTHER_KEY_PREFIXES: [&str; 46] = [
    "sk-",
    "sk_",
    "Bearer ",
    "bearer ",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxr-",
    "xapp-",
    "AIza",
    "AKIA",
    "ASIA",
    "hf_",
    "npm_",
    "pypi-",
    "rk_live_",
    "rk_test_",
    "SG.",
    "dop_v1_",
    "shpat_",
    // Model and search providers: Tavily, Groq, xAI, Perplexity,
    // Replicate, NVIDIA, Cerebras, Fireworks.
    "tvly-",
    "gsk_",
    "xai-",
    "pplx-",
    "r8_",
    "nvapi-",
    "csk-",
    "fw_",
    // Stripe webhooks, Google OAuth client secrets and access tokens,
    // Alibaba Cloud, Grafana, HashiCorp Vault, Linear, Square,
    // Atlassian, Databricks, age.
    "whsec_",
    "GOCSPX-",
    "ya29.",
    "LTAI",
    "glsa_",
    "hvs.",
    "lin_api_",
    "sq0atp-",
    "sq0csp-",
    "ATATT",
    "dapi",
    "AGE-SECRET-KEY-",
];

/// Key prefixes no word or identifier holds: a key is found after one
/// even glued to other characters (`convsk-proj-…`, `123ghp_…`). The
/// others (`sk-`, `hf_`, `ghs_`, `ASIA`…) are found only at a token's
/// start or after `-`, `_` or `.`: words hold them (`risk-assessment-2024…`,
/// `bookshelf_2024…`, `highs_2024…`, `EURASIA_2024…`).
const GLUED_KEY_PREFIXES: [&str; 29] = joined(OTHER_GLUED_KEY_PREFIXES, GITLAB_KEY_PREFIXES);

/// [`GLUED_KEY_PREFIXES`] but GitLab's.
const OTHER_GLUED_KEY_PREFIXES: [&str; 18] = [
    "sk-proj-",
    "sk-ant-",
    "sk-svcacct-",
    "sk-admin-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxr-",
    "xapp-",
    "AIza",
    "AKIA",
    "dop_v1_",
    "sk-or-v1-",
];

/// Key prefixes that words hold too (`highs_…`, `EURASIA_…`, `risk-…`),
/// found glued to other characters only when a key's run of letters and
/// digits follows, at least this long: GitHub's `gh?_` and npm's tokens
/// have 36, Shopify's 32, Hugging Face's 34, AWS's `ASIA` ids 16, the
/// older OpenAI keys 48.
const GLUED_IF_LONG: [(&str, usize); 11] = [
    ("gho_", 30),
    ("ghs_", 30),
    ("ghu_", 30),
    ("ghr_", 30),
    ("npm_", 30),
    ("shpat_", 30),
    ("hf_", 30),
    ("pypi-", 40),
    ("ASIA", 16),
    ("rk_test_", 20),
    ("sk-", 40),
];

/// Whether `t` starts with a key that may be glued to what precedes it
/// ([`GLUED_KEY_PREFIXES`], [`GLUED_IF_LONG`]).
fn glued_key(t: &str) -> bool {
    GLUED_KEY_PREFIXES.iter().any(|p| t.starts_with(p))
        || GLUED_IF_LONG.iter().any(|(p, n)| {
            t.strip_prefix(p).is_some_and(|tail| {
                tail.chars().take_while(char::is_ascii_alphanumeric).count() >= *n
            })
        })
}

/// The fewest characters after `hf_` for a Hugging Face token written
/// without a digit (its tail is 34 random letters, which may hold none).
const HF_TAIL_WITHOUT_DIGIT: usize = 30;

/// The fewest characters after a prefix no word holds
/// ([`GLUED_KEY_PREFIXES`]) for a token of mixed-case letters without a
/// digit to be a key: GitLab's `glpat-` tokens have 20.
const PREFIXED_TAIL_WITHOUT_DIGIT: usize = 20;

/// The fewest characters after a known key prefix for [`key_tokens`] to
/// take a token for a key (`sk-learn` is a word, not a key).
pub const KEY_TOKEN_MIN_TAIL: usize = 12;

/// The tokens of untrusted text that are written like API keys: a run of
/// ASCII letters, digits, `-`, `_` and `.` that starts with a known key
/// prefix (`sk-`, `sk_`, `ghp_`, `github_pat_`, `xoxb-`, `xoxp-`, `AIza`,
/// AWS's `AKIA` and `ASIA`, Hugging Face's `hf_`) followed by at least
/// [`KEY_TOKEN_MIN_TAIL`] characters holding a digit (for `hf_`, also 30
/// or more of mixed-case letters without one),
/// trailing `.` and `-` removed. They are secrets to redact where pactum holds no key
/// of its own: text an agent wrote that quotes one (SPEC §4). Each once,
/// in text order.
///
/// Invisible characters ([`is_separator`]'s invisible format and control
/// characters: zero-width spaces and joiners, the soft hyphen, byte order
/// and bidirectional marks) break no token, nor does a line break after a
/// token that starts with a key prefix when a token character follows
/// (indentation allowed: a key wrapped over two lines, found both whole
/// and as its first line); a blank line does. They are dropped before
/// tokens are cut, and the token returned is the key without them; the
/// [`Redactor`] finds it in the original text through them and replaces
/// the whole span.
///
/// A prefix written with letters a reader takes for its own (fullwidth,
/// NFKC-equal or look-alike: `ｓｋ-`, `ſk-`, `𝐬𝐤-`, `ѕk-`, `ꜱᴋ-`) is
/// read through the decoded view, which folds them; an `sk-` or `sk_`
/// prefix capitalised (`Sk-proj-…`, `SK-PROJ-…`) is read with its case
/// folded, and the token is returned as written.
pub fn key_tokens(text: &str) -> Vec<String> {
    // Agents' logs repeat texts from trace to trace (a system prompt,
    // tool descriptions, argument names and values): each thread
    // remembers the texts it read by their hash, and keeps the keys of
    // one read twice, compared whole on the next read, so that a repeat
    // costs a hash and a comparison instead of a scan. The result is the
    // same either way. Only the shortest texts cost less to scan.
    if text.len() < MEMO_MIN_BYTES {
        return key_tokens_scanned(text);
    }
    MEMO.with(|m| m.borrow_mut().keys(text))
}

/// Texts shorter than this are scanned each time ([`key_tokens`]).
const MEMO_MIN_BYTES: usize = 24;
/// The most text, in bytes, a thread's memo keeps ([`KeyMemo`]).
const MEMO_BYTES: usize = 8 << 20;
/// The most texts a thread's memo remembers having read.
const MEMO_TEXTS: usize = 1 << 16;

/// What a thread remembers of the texts it read (from [`MEMO_MIN_BYTES`]
/// up): by hash, that it read one once (no copy), or, for one read twice,
/// the text and its keys. Bounded by [`MEMO_TEXTS`] and [`MEMO_BYTES`]:
/// past either, it starts afresh.
#[derive(Default)]
struct KeyMemo {
    texts: std::collections::HashMap<u64, Option<KeptText>>,
    bytes: usize,
}

impl KeyMemo {
    /// [`key_tokens_scanned`] of `text`, remembered.
    fn keys(&mut self, text: &str) -> Vec<String> {
        use std::hash::BuildHasher;
        let hash = foldhash::fast::FixedState::with_seed(0).hash_one(text);
        match self.texts.get(&hash) {
            Some(Some((kept, keys))) if &**kept == text => return keys.clone(),
            Some(Some(_)) => return key_tokens_scanned(text),
            Some(None) => {
                let keys = key_tokens_scanned(text);
                if self.bytes + text.len() > MEMO_BYTES {
                    self.texts.clear();
                    self.bytes = 0;
                }
                if text.len() <= MEMO_BYTES / 16 {
                    self.bytes += text.len();
                    self.texts.insert(hash, Some((text.into(), keys.clone())));
                }
                return keys;
            }
            None => {}
        }
        if self.texts.len() >= MEMO_TEXTS {
            self.texts.clear();
            self.bytes = 0;
        }
        self.texts.insert(hash, None);
        key_tokens_scanned(text)
    }
}

/// Texts shorter than this are searched each time ([`Redactor::redact`]).
const CLEAN_MIN_BYTES: usize = 16;

/// The texts a thread found no secret in, for the one redactor it used
/// last ([`Redactor::redact`]). Holding that redactor keeps its address
/// from being reused by another. Bounded by [`MEMO_TEXTS`] and
/// [`MEMO_BYTES`]: past either, it starts afresh.
#[derive(Default)]
struct CleanMemo {
    under: Option<Arc<Inner>>,
    texts: std::collections::HashMap<u64, Box<str>>,
    bytes: usize,
}

impl CleanMemo {
    /// Whether `text` (of hash `hash`) was found clean under `under`.
    fn knows(&self, under: &Arc<Inner>, hash: u64, text: &str) -> bool {
        self.under.as_ref().is_some_and(|u| Arc::ptr_eq(u, under))
            && self.texts.get(&hash).is_some_and(|t| &**t == text)
    }

    /// Remembers that `text` was found clean under `under`.
    fn learn(&mut self, under: &Arc<Inner>, hash: u64, text: &str) {
        if !self.under.as_ref().is_some_and(|u| Arc::ptr_eq(u, under)) {
            self.under = Some(Arc::clone(under));
            self.texts.clear();
            self.bytes = 0;
        }
        if text.len() > MEMO_BYTES / 16 {
            return;
        }
        if self.texts.len() >= MEMO_TEXTS || self.bytes + text.len() > MEMO_BYTES {
            self.texts.clear();
            self.bytes = 0;
        }
        self.bytes += text.len();
        self.texts.insert(hash, text.into());
    }
}

/// A text read twice and its keys ([`KeyMemo`]).
type KeptText = (Box<str>, Vec<String>);

thread_local! {
    static MEMO: std::cell::RefCell<KeyMemo> = std::cell::RefCell::new(KeyMemo::default());
    static CLEAN: std::cell::RefCell<CleanMemo> = std::cell::RefCell::new(CleanMemo::default());
}

/// [`key_tokens`] without the memo.
fn key_tokens_scanned(text: &str) -> Vec<String> {
    // The text as written, then as it reads once decoded (backslash
    // escapes such as `\_`, character references such as `&#45;`,
    // percent-encoding, up to [`DECODE_ROUNDS`] levels), each also with
    // Markdown's emphasis and code marks removed (`sk-ab**cd**…`): a key
    // written through any of them is found, and the [`Redactor`] sees
    // through the same encodings to redact it where it is written.
    let mut views: Vec<(Cow<'_, str>, u8)> = vec![(Cow::Borrowed(text), classes(text))];
    for _ in 0..DECODE_ROUNDS {
        let (current, cls) = &views[views.len() - 1];
        if cls & (DECODES | WIDE) == 0 {
            break;
        }
        let Some(decoded) = decoded_once(current) else {
            break;
        };
        let cls = classes(&decoded);
        views.push((Cow::Owned(decoded), cls));
    }
    let marked: Vec<(Cow<'_, str>, u8)> = views
        .iter()
        .filter(|(_, cls)| cls & MARK != 0)
        .map(|(v, cls)| (Cow::Owned(v.replace(['*', '`', '~'], "")), cls & !MARK))
        .collect();
    views.extend(marked);
    let mut found = Found::default();
    for (v, cls) in &views {
        for k in key_tokens_of(v, *cls) {
            found.push(k);
        }
    }
    found.keys
}

/// The ASCII skeleton (UTS #39) of a byte of a key prefix: `I` and `1`
/// are drawn as `l`, `0` as `O`, `d` as `cl`, `m` as `rn`, `w` as `vv`;
/// every other byte is itself.
fn ascii_skeleton(b: u8) -> &'static [u8] {
    static SELF: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = i as u8;
            i += 1;
        }
        t
    };
    match b {
        b'I' | b'1' => b"l",
        b'0' => b"O",
        b'd' => b"cl",
        b'm' => b"rn",
        b'w' => b"vv",
        b => std::slice::from_ref(&SELF[usize::from(b)]),
    }
}

/// The first two bytes of the skeleton of `b` (at least two bytes long),
/// as an index of a table of pairs ([`Confusable::raw`]).
fn skeleton_pair(b: &[u8]) -> usize {
    let first = ascii_skeleton(b[0]);
    let second = match first {
        [_, s, ..] => *s,
        _ => ascii_skeleton(b[1])[0],
    };
    usize::from(first[0]) << 8 | usize::from(second)
}

/// How many bytes of `token` have `skeleton` as their skeleton, ending
/// where one of the token's bytes does; `None` when no start of it does.
fn skeleton_len(token: &[u8], skeleton: &[u8]) -> Option<usize> {
    let mut k = 0;
    for (j, &x) in token.iter().enumerate() {
        let e = ascii_skeleton(x);
        if skeleton.get(k..k + e.len())? != e {
            return None;
        }
        k += e.len();
        if k == skeleton.len() {
            return Some(j + 1);
        }
    }
    None
}

/// The key prefixes with their skeletons, by the skeleton's first two
/// bytes ([`skeleton_pair`]), and the bits telling which of a token's
/// own first two bytes may open one: most positions are passed over on
/// that one look-up.
struct Confusable {
    prefixes: Vec<(&'static str, Vec<u8>, bool)>,
    /// By a token's own first two bytes (`first << 8 | second`):
    /// [`ANY_PREFIX`] when their skeleton opens a prefix's,
    /// [`GLUED_PREFIX`] when it opens one no word holds.
    raw: Box<[u8]>,
    by_pair: std::collections::HashMap<usize, Vec<usize>>,
}

/// [`Confusable::raw`] bit: some prefix's skeleton starts with the pair.
const ANY_PREFIX: u8 = 1;
/// [`Confusable::raw`] bit: a glued prefix's does ([`GLUED_KEY_PREFIXES`]).
const GLUED_PREFIX: u8 = 2;

static CONFUSABLE: std::sync::LazyLock<Confusable> = std::sync::LazyLock::new(|| {
    let prefixes: Vec<(&'static str, Vec<u8>, bool)> = KEY_PREFIXES
        .iter()
        .filter(|p| !p.ends_with(' '))
        .map(|p| {
            let skeleton = p
                .bytes()
                .flat_map(|b| ascii_skeleton(b).iter().copied())
                .collect();
            (*p, skeleton, GLUED_KEY_PREFIXES.contains(p))
        })
        .collect();
    let mut starts = vec![0u8; 1 << 16];
    let mut by_pair: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for (i, (_, k, glued)) in prefixes.iter().enumerate() {
        if let [a, b, ..] = k.as_slice() {
            let pair = usize::from(*a) << 8 | usize::from(*b);
            starts[pair] |= ANY_PREFIX | if *glued { GLUED_PREFIX } else { 0 };
            by_pair.entry(pair).or_default().push(i);
        }
    }
    let mut raw = vec![0u8; 1 << 16];
    for x in 0..=u8::MAX {
        for y in 0..=u8::MAX {
            raw[usize::from(x) << 8 | usize::from(y)] = starts[skeleton_pair(&[x, y])];
        }
    }
    Confusable {
        prefixes,
        raw: raw.into_boxed_slice(),
        by_pair,
    }
});

/// Whether a look-alike of `prefix` is written with a small `l` where
/// the prefix has a capital `I`: that spells words and names (`Alza…`
/// beside `AIza`), which a key's prefix drawn alike does not need.
fn spells_a_word(written: &[u8], prefix: &[u8]) -> bool {
    written.len() == prefix.len()
        && written
            .iter()
            .zip(prefix)
            .any(|(w, p)| *w == b'l' && *p == b'I')
}

/// Whether `t` (the rest of a token from a position [`prefixed_key_in`]
/// reads) is a key whose prefix is written with ASCII characters drawn
/// like its own (`gIpat-…` with a capital I, `g1pat-…`, `AKlA…`,
/// `GRl348941…`, `glclt-…` for `gldt-`); a prefix words hold only
/// `after_separator`.
fn lookalike_at(t: &str, after_separator: bool) -> bool {
    let conf = &*CONFUSABLE;
    let token = t.as_bytes();
    if token.len() <= KEY_TOKEN_MIN_TAIL {
        return false;
    }
    conf.by_pair
        .get(&skeleton_pair(token))
        .is_some_and(|group| {
            group.iter().any(|&k| {
                let (p, skeleton, glued) = &conf.prefixes[k];
                (after_separator || *glued)
                    && skeleton_len(token, skeleton).is_some_and(|n| {
                        token.len() > n
                            && &token[..n] != p.as_bytes()
                            && !spells_a_word(&token[..n], p.as_bytes())
                            && is_prefixed_key(&format!("{p}{}", &t[n..]))
                    })
            })
        })
}

/// Key tokens, each once, in the order found: a text may quote thousands
/// of keys, so whether one is found already is not a pass over them all.
#[derive(Default)]
struct Found<'w> {
    keys: Vec<String>,
    set: std::collections::HashSet<String>,
    /// Values found wherever they are written whole, whatever their
    /// shape (a credential variable's: [`trace_secrets`]).
    watched: &'w [String],
}

impl Found<'_> {
    /// Adds `key` unless found already.
    fn push(&mut self, key: String) {
        if !self.set.contains(&key) {
            self.set.insert(key.clone());
            self.keys.push(key);
        }
    }

    /// Adds each of `candidates`, in order, that no key found so far (the
    /// candidates added before it included) holds: a part of a key
    /// already found (its first line) adds nothing.
    fn push_unheld(&mut self, candidates: Vec<&str>) {
        // Few candidates: each compared with every key. Many: which key
        // holds which candidate is found in one Aho-Corasick pass over
        // the keys, so that the cost is not their product.
        if candidates.len() <= 16 {
            for c in candidates {
                if !self.keys.iter().any(|t| t.contains(c)) {
                    self.push(c.to_string());
                }
            }
            return;
        }
        let Ok(ac) = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(&candidates)
        else {
            // Unreachable in practice (the automaton fits): one by one.
            for c in candidates {
                if !self.keys.iter().any(|t| t.contains(c)) {
                    self.push(c.to_string());
                }
            }
            return;
        };
        let mut held = vec![false; candidates.len()];
        let mark = |text: &str, from: usize, held: &mut [bool]| {
            for m in ac.find_overlapping_iter(text) {
                let j = m.pattern().as_usize();
                if j >= from {
                    held[j] = true;
                }
            }
        };
        for k in &self.keys {
            mark(k, 0, &mut held);
        }
        for j in 0..candidates.len() {
            if held[j] {
                continue;
            }
            self.push(candidates[j].to_string());
            mark(candidates[j], j + 1, &mut held);
        }
    }
}

/// [`key_tokens`] of one view of a text, whose bytes' [`classes`] are
/// `cls` (or more).
fn key_tokens_of(text: &str, cls: u8) -> Vec<String> {
    let mut out = Found::default();
    // The text with its invisible characters dropped, then the same with
    // a key's wraps undone too (a key at a line's start is found by the
    // first).
    let seen: Cow<'_, str> = if cls & UNSEEN != 0 || (cls & WIDE != 0 && text.chars().any(unseen)) {
        Cow::Owned(text.chars().filter(|c| !unseen(*c)).collect())
    } else {
        Cow::Borrowed(text)
    };
    let joined = if cls & NEWLINE != 0 {
        joined_tokens(&seen)
    } else {
        Cow::Borrowed(&*seen)
    };
    let views: &[&str] = match &joined {
        Cow::Borrowed(_) => &[&seen],
        Cow::Owned(j) => &[&seen, j],
    };
    // Tokens are ASCII: they are cut over bytes, not decoded characters,
    // in one pass over the runs of bytes either kind of token may hold (a
    // run shorter than the shortest key is passed over whole).
    let mut aws: Vec<Vec<&str>> = vec![Vec::new(); views.len()];
    let mut loose: Vec<&str> = Vec::new();
    let mut split: Vec<String> = Vec::new();
    for (n, v) in views.iter().enumerate() {
        for run in long_runs(v, TOKEN | AWS, KEY_TOKEN_MIN_TAIL + 2) {
            for whole in runs(run, TOKEN) {
                if let Some(token) = prefixed_key_in(whole) {
                    if check_secret(token).is_ok() {
                        out.push(token.to_string());
                    }
                }
                if whole.len() >= RANDOM_TOKEN_MIN {
                    loose.extend(random_tokens(whole));
                }
            }
            aws[n].extend(aws_secrets(run));
        }
        split.extend(split_key(v));
    }
    let mut candidates: Vec<&str> = Vec::new();
    for (n, v) in views.iter().enumerate() {
        let mut named = if may_name_credential(v) {
            named_credentials(v)
        } else {
            Vec::new()
        };
        if may_say_credential(v) {
            named.extend(said_credentials(v));
        }
        candidates.extend(
            named
                .into_iter()
                .chain(aws[n].iter().copied())
                .map(|t| t.trim_end_matches(['.', '-']))
                .filter(|t| check_secret(t).is_ok()),
        );
    }
    out.push_unheld(candidates);
    // A bearer credential: whatever token follows `Bearer ` in an
    // `Authorization` value, of any shape (base64 and `~+/=` included).
    for v in views {
        for token in bearer_tokens(v) {
            if token.len() >= KEY_TOKEN_MIN_TAIL && check_secret(token).is_ok() {
                out.push(token.to_string());
            }
        }
        for token in pem_lines(v).into_iter().chain(shaped_tokens(v)) {
            if check_secret(token).is_ok() {
                out.push(token.to_string());
            }
        }
    }
    // Keys without a prefix, and the parts of a split key: each only
    // where no key found already holds it.
    loose.retain(|t| check_secret(t).is_ok());
    out.push_unheld(loose);
    for k in split {
        out.push(k);
    }
    out.keys
}

/// The base64 lines of a PEM private key (`-----BEGIN … PRIVATE
/// KEY-----` to `-----END … PRIVATE KEY-----`, or to the end of the
/// text), each of 8 characters or more: its lines parted by line breaks,
/// white space or a written `\n` (a key in a JSON string as printed).
fn pem_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    static MARK: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"PRIVATE KEY-----"));
    while let Some(at) = MARK.find(&text.as_bytes()[from..]) {
        let start = from + at + "PRIVATE KEY-----".len();
        let body = &text[start..];
        let end = memchr::memmem::find(body.as_bytes(), b"-----END").unwrap_or(body.len());
        for part in body[..end].split(|c: char| c.is_whitespace() || c == '\\' || c == '"') {
            if part.len() >= 8
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
            {
                out.push(part);
                // A written `\n` leaves an `n` before the line's text.
                if let Some(line) = part.strip_prefix('n').filter(|l| l.len() >= 8) {
                    out.push(line);
                }
            }
        }
        from = start + end;
    }
    out
}

/// Whether `b` may hold a Discord bot token: a `.`, six token bytes and
/// another `.`.
fn discord_shaped(b: &[u8]) -> bool {
    memchr::memchr_iter(b'.', b).any(|i| {
        b.get(i + 7) == Some(&b'.')
            && b[i + 1..i + 7]
                .iter()
                .all(|&x| x.is_ascii_alphanumeric() || matches!(x, b'-' | b'_'))
    })
}

/// Tokens of shapes with no prefix of their own that are credentials
/// whole: a Telegram bot token (`123456789:AA…`, 35 characters after the
/// colon), a Twilio API key (`SK` and 32 hexadecimal digits), HTTP Basic
/// credentials (`Basic` and base64 holding a digit or `=`), a Mailgun key
/// (`key-` and 32 lower-case letters and digits), a Discord bot token (three
/// base64url parts joined by `.`, the middle one of six).
fn shaped_tokens(text: &str) -> Vec<&str> {
    use std::sync::LazyLock;
    static SHAPED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r"\b(\d{8,10}:AA[A-Za-z0-9_-]{33})\b|\b(SK[0-9a-fA-F]{32})\b|\b[Bb][Aa][Ss][Ii][Cc]\s+([A-Za-z0-9+/]{10,}={0,2})|\b(key-[0-9a-z]{32})\b|\b([MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})\b",
        )
        .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    // Built once: a searcher costs more to build than most texts to scan.
    static MARKS: LazyLock<[memchr::memmem::Finder<'static>; 3]> =
        LazyLock::new(|| [b":AA".as_slice(), b"SK", b"key-"].map(memchr::memmem::Finder::new));
    let b = text.as_bytes();
    if MARKS.iter().all(|f| f.find(b).is_none())
        && !discord_shaped(b)
        && !memchr::memchr2_iter(b'b', b'B', b).any(|i| {
            b.get(i..i + 5)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"basic"))
        })
    {
        return Vec::new();
    }
    SHAPED
        .captures_iter(text)
        .filter_map(|c| (1..=5).find_map(|i| c.get(i)))
        .map(|m| m.as_str())
        .filter(|t| {
            !t.starts_with(|c: char| c.is_ascii_alphabetic())
                || t.starts_with("SK")
                || t.bytes().any(|b| b.is_ascii_digit() || b == b'=')
        })
        .collect()
}

/// The parts of a token ([`is_token_byte`] run) between `-`, `_` and `.`
/// that no word, number, id or hash is written like: at least [`RANDOM_TOKEN_MIN`] characters with two
/// upper-case letters, two lower-case letters and two digits or more,
/// and not hexadecimal (a hash, a trace id). Keys of providers with no
/// prefix (Mistral, Cohere, many others) are written so; a commit hash,
/// a UUID, a long `camelCaseName` or a SHA-256 digest is not.
fn random_tokens(token: &str) -> impl Iterator<Item = &str> {
    token.split(['-', '_', '.']).filter(|part| {
        let count = |f: fn(&u8) -> bool| part.as_bytes().iter().filter(|b| f(b)).count();
        part.len() >= RANDOM_TOKEN_MIN
            && count(u8::is_ascii_uppercase) >= 2
            && count(u8::is_ascii_lowercase) >= 2
            && count(u8::is_ascii_digit) >= 2
            && !part.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// The fewest characters of a [`random_tokens`] token: the shortest keys
/// written without a prefix have 32.
const RANDOM_TOKEN_MIN: usize = 32;

/// Keys with a known prefix written apart in groups (`sk-proj- Hq7…`,
/// `` `sk-proj-Hq7` `Lm2…` ``, `sk-proj-Hq7L m2Zx 9Vb4 …`, `AKIA⇥Q3VX…`),
/// joined as a reader joins them: a token that starts with a prefix and
/// is no key alone (at a token's start; after anything for a prefix no
/// word holds), then each run of token characters that follows across at
/// most three spaces, tabs, thin or hair spaces or code and emphasis
/// marks, up to a run of lower-case letters alone (a word) or 128
/// characters, when what is joined is a key. The [`Redactor`] finds the
/// key through the separators where it is written.
fn split_key(text: &str) -> Vec<String> {
    use std::sync::LazyLock;
    // One pass finds where a prefix is written; most texts hold none.
    static PREFIXES: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(KEY_PREFIXES.iter().filter(|p| !p.ends_with(' ')))
            .ok()
    });
    let Some(ac) = PREFIXES.as_ref() else {
        return Vec::new();
    };
    let b = text.as_bytes();
    let token_len = |at: usize| b[at..].iter().take_while(|&&x| is_token_byte(x)).count();
    let mut out = Vec::new();
    for m in ac.find_iter(text) {
        let start = m.start();
        let glued = GLUED_KEY_PREFIXES
            .iter()
            .any(|p| text[start..].starts_with(p));
        if start > 0 && is_token_byte(b[start - 1]) && !glued {
            continue;
        }
        let end = start + token_len(start);
        if is_prefixed_key(&text[start..end]) {
            continue;
        }
        let mut joined = text[start..end].to_string();
        let mut at = end;
        loop {
            let mut next = at;
            let mut gap = 0;
            while let Some(c) = text[next..].chars().next() {
                if gap < 3
                    && matches!(
                        c,
                        ' ' | '\t'
                            | '`'
                            | '*'
                            | '~'
                            | '\u{2009}'
                            | '\u{200A}'
                            | '\u{202F}'
                            | '\u{A0}'
                    )
                {
                    next += c.len_utf8();
                    gap += 1;
                } else {
                    break;
                }
            }
            let n = token_len(next);
            let group = &text[next..next + n];
            if gap == 0
                || n == 0
                || group.bytes().all(|x| x.is_ascii_lowercase())
                || joined.len() + n > 128
            {
                break;
            }
            joined.push_str(group);
            at = next + n;
        }
        if at > end && is_prefixed_key(&joined) {
            out.push(joined);
        }
    }
    out
}

/// Whether [`said_credentials`] may find anything in `text`: a
/// credential's name, then ` is `, ` was `, ` - ` or ` – `, then a value
/// as [`credential_value_at`] reads one.
fn may_say_credential(text: &str) -> bool {
    use std::sync::LazyLock;
    /// Words between a name and its value (the first `SEPARATORS`),
    /// then names in capitals and command-line flags.
    const SEPARATORS: usize = 9;
    const SAYING: [&str; 23] = [
        " is ",
        " was ",
        " - ",
        " \u{2013} ",
        " ist ",
        " est ",
        " es ",
        " lautet ",
        " è ",
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "--password",
        "--passwd",
        "--token",
        "--api-key",
        "--apikey",
        "--pass",
        "--secret",
        "--client-secret",
        "--auth-token",
        "--access-token",
    ];
    // One pass over the text for all of them (a search with a prefilter:
    // no two of them overlap but at a name's end, which a name leaves
    // to the next match).
    static FINDER: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(SAYING)
            .ok()
    });
    let Some(ac) = FINDER.as_ref() else {
        return true;
    };
    ac.find_iter(text).any(|m| {
        let after = &text[m.end()..];
        let before = &text[..m.start()];
        if m.pattern().as_usize() < SEPARATORS {
            ends_with_credential_name(before)
                && credential_value_at(after, ends_with_password_name(before))
        } else {
            let password = matches!(
                SAYING[m.pattern().as_usize()],
                "PASSWORD" | "--password" | "--passwd" | "--pass"
            );
            after.starts_with([' ', '\t']) && credential_value_at(after, password)
        }
    })
}

/// The values a sentence gives a credential's name (`password is …`,
/// `COHERE_API_KEY is …`, `Password - …`), or that follow a credential
/// variable's name written in capitals (`HEROKU_API_KEY 8f3c…`): a token
/// of at least 8 characters holding a digit.
fn said_credentials(text: &str) -> Vec<&str> {
    use std::sync::LazyLock;
    static SAID: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r#"(?i:(api[_ -]?key|key|token|secret|password|passwd|passphrase|pwd|pass|credentials?|authorization|cookie|session|otp|passwort|kennwort|wachtwoord|senha|contrase(?:ñ|n)a|mot de passe))\s+(?i:is|was|ist|lautet|est|es|é|è|-|–)\s+["'`]?(?i:(?:token|basic|bearer)\s+)?([\p{L}\p{N}._~+/!@#$%^*-]{8,}={0,2})|\b([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD))[ \t]+["'`]?([\p{L}\p{N}._~+/!@#$%^*-]{8,}={0,2})|--(password|passwd|pass|token|api-?key|secret|client-secret|auth-token|access-token)[ \t]+["'`]?([\p{L}\p{N}._~+/!@#$%^*-]{8,}={0,2})"#,
        )
        .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    // A value refused is searched again from its start, as in
    // [`named_credentials`] (`the key is password is …`).
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(c) = SAID.captures_at(text, at) {
        let Some(whole) = c.get(0) else { break };
        at = whole.end();
        let Some((name, m)) = [(1, 2), (3, 4), (5, 6)]
            .into_iter()
            .find_map(|(n, v)| Some((c.get(n)?.as_str(), c.get(v)?)))
        else {
            continue;
        };
        let t = m.as_str().trim_end_matches(['.', '-']);
        if credential_value(t, ends_with_password_name(name)) {
            out.push(t);
        } else {
            at = m.start();
        }
    }
    out
}

/// Whether `before` ends with a name of a password, folded as
/// [`ends_with_credential_name`] folds it: `password`, `passwd`, `pwd`,
/// `pass`, `pw`, `passphrase`, and "password" in German, Dutch,
/// Portuguese, Spanish and French.
fn ends_with_password_name(before: &str) -> bool {
    const NAMES: [&[u8]; 12] = [
        b"pass",
        b"passwd",
        b"pwd",
        b"pw",
        b"password",
        b"phrase",
        b"passwort",
        b"kennwort",
        b"htwoord",
        b"senha",
        b"rasena",
        b"passe",
    ];
    const PACKED: Tails<12> = Tails::of(&NAMES);
    tail_ends_with_any(before, &PACKED)
}

/// Whether `value`, written after a credential's name, is one: it holds
/// a digit; or, after a password's name, it is written as a password of
/// words is, two capitals and two small letters in it
/// (`CorrectHorseBatteryStaple`, `ChangeMe`) or three words or more
/// joined by `-` (`correct-horse-battery-staple`).
fn credential_value(value: &str, password: bool) -> bool {
    value.bytes().any(|c| c.is_ascii_digit())
        || password
            && ((value.bytes().filter(u8::is_ascii_uppercase).count() >= 2
                && value.bytes().filter(u8::is_ascii_lowercase).count() >= 2)
                || (value.len() >= 16
                    && value.bytes().filter(|&c| c == b'-').count() >= 2
                    && value.bytes().all(|c| c.is_ascii_lowercase() || c == b'-')))
}

/// The key in a token ([`is_token_byte`] run) of [`key_tokens`], if any:
/// from a known prefix that starts the token or follows a `-`, `_` or `.`
/// (`conv-sk-proj-…` as a conversation id), or is glued to anything when
/// no word holds it (`convsk-proj-…`); else the whole token when it is a
/// JSON Web Token. Trailing `.` and `-` are not part of it.
fn prefixed_key_in(whole: &str) -> Option<&str> {
    let whole = whole.trim_end_matches(['.', '-']);
    // The shortest key: a prefix of two bytes and its tail.
    if whole.len() < KEY_TOKEN_MIN_TAIL + 2 {
        return None;
    }
    let b = whole.as_bytes();
    let alike = &CONFUSABLE.raw;
    // One pass: where a prefix is written, or one drawn alike
    // ([`lookalike_at`]).
    for i in 0..b.len() - 1 {
        let pair = usize::from(b[i]) << 8 | usize::from(b[i + 1]);
        let (real, drawn) = (STARTS_A_PREFIX[pair], alike[pair]);
        if !real && drawn == 0 {
            continue;
        }
        let after_separator = i == 0 || matches!(b[i - 1], b'-' | b'_' | b'.');
        let t = &whole[i..];
        if real && (after_separator || glued_key(t)) && is_prefixed_key(t) {
            return Some(t);
        }
        let need = if after_separator {
            ANY_PREFIX
        } else {
            GLUED_PREFIX
        };
        if drawn & need != 0 && lookalike_at(t, after_separator) {
            return Some(t);
        }
    }
    capitalised_key_in(whole).or_else(|| is_jwt(whole).then_some(whole))
}

/// A key in a token whose `sk-` or `sk_` prefix is written with an
/// upper-case letter (`Sk-proj-…` opening a sentence, `SK-PROJ-…`): the
/// same secret, read with the prefix's case folded. Only at a token's
/// start or after `-`, `_` or `.` (`TASK-PROJ-2024-…` is an id, not a
/// key). Tokens without an upper-case `S` or `K` are passed over at once.
fn capitalised_key_in(whole: &str) -> Option<&str> {
    let b = whole.as_bytes();
    memchr::memchr2(b'S', b'K', b)?;
    (0..b.len().saturating_sub(2))
        .filter(|&i| {
            matches!(b[i], b's' | b'S')
                && matches!(b[i + 1], b'k' | b'K')
                && (b[i] == b'S' || b[i + 1] == b'K')
                && matches!(b[i + 2], b'-' | b'_')
                && (i == 0 || matches!(b[i - 1], b'-' | b'_' | b'.'))
        })
        .map(|i| &whole[i..])
        .find(|t| {
            let head = t.len().min(3);
            let folded = format!("{}{}", t[..head].to_ascii_lowercase(), &t[head..]);
            is_prefixed_key(&folded)
        })
}

/// The maximal runs of `text`'s bytes of a [`BYTE_CLASS`] class that are
/// at least `min` bytes long (`min` ≥ 1), in text order.
fn long_runs(text: &str, class: u8, min: usize) -> Vec<&str> {
    let b = text.as_bytes();
    let keep = |x: u8| BYTE_CLASS[usize::from(x)] & class != 0;
    // A run of `min` bytes holds a whole block of `k` aligned at a
    // multiple of `k`: only blocks are tested, without a branch a byte,
    // and a run is looked for only around a block that is all of it.
    let k = min.div_ceil(2).max(1);
    let mut out = Vec::new();
    let mut at = 0;
    let mut done = 0;
    while at + k <= b.len() {
        if at >= done && b[at..at + k].iter().fold(true, |all, &x| all & keep(x)) {
            let start = b[..at].iter().rposition(|&x| !keep(x)).map_or(0, |p| p + 1);
            let end = b[at..]
                .iter()
                .position(|&x| !keep(x))
                .map_or(b.len(), |p| at + p);
            if end - start >= min {
                if let Some(run) = text.get(start..end) {
                    out.push(run);
                }
            }
            done = end;
        }
        at += k;
    }
    out
}

/// Whether `b` may be part of a key token ([`key_tokens`]): an ASCII
/// letter or digit, `-`, `_` or `.`.
fn is_token_byte(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] & TOKEN != 0
}

/// [`BYTE_CLASS`] bit of a key token's bytes ([`is_token_byte`]).
const TOKEN: u8 = 1;
/// [`BYTE_CLASS`] bit of an AWS secret's bytes ([`aws_secrets`]).
const AWS: u8 = 2;
/// [`BYTE_CLASS`] bit of the ASCII bytes a round of decoding may change
/// ([`decode_unit`]): `\`, `%`, `&` and the invisible controls.
const DECODES: u8 = 4;
/// [`BYTE_CLASS`] bit of Markdown's emphasis and code marks: `*`, `` ` ``
/// and `~`.
const MARK: u8 = 8;
/// [`BYTE_CLASS`] bit of the line feed.
const NEWLINE: u8 = 16;
/// [`BYTE_CLASS`] bit of the bytes of non-ASCII characters.
const WIDE: u8 = 32;
/// [`BYTE_CLASS`] bit of the ASCII characters [`unseen`] drops: the
/// controls but tab, line feed and carriage return.
const UNSEEN: u8 = 64;

/// The [`BYTE_CLASS`] bits of every byte of `text`, together: one pass
/// that tells which of [`key_tokens`]'s views and searches a text needs.
fn classes(text: &str) -> u8 {
    // Without an early exit, so that the loop has no branch.
    text.as_bytes()
        .iter()
        .fold(0, |acc, &b| acc | BYTE_CLASS[usize::from(b)])
}

/// The classes of each byte value, a table so that the passes over every
/// byte of a text cost one load a byte.
static BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            t[b] = TOKEN | AWS;
        } else if matches!(c, b'-' | b'_' | b'.') {
            t[b] = TOKEN;
        } else if matches!(c, b'/' | b'+') {
            t[b] = AWS;
        } else if matches!(c, b'\\' | b'%' | b'&') {
            t[b] = DECODES;
        } else if c == 0x7f || (c < 0x20 && !matches!(c, b'\n' | b'\t' | b'\r')) {
            t[b] = DECODES | UNSEEN;
        } else if matches!(c, b'*' | b'`' | b'~') {
            t[b] = MARK;
        } else if c == b'\n' {
            t[b] = NEWLINE;
        } else if !c.is_ascii() {
            t[b] = WIDE;
        }
        b += 1;
    }
    t
};

/// The maximal non-empty runs of `text`'s bytes of a [`BYTE_CLASS`]
/// class (all ASCII), as slices of `text` (a run starts and ends at ASCII bytes, so
/// at character boundaries).
fn runs(text: &str, class: u8) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    let keep = move |x: u8| BYTE_CLASS[usize::from(x)] & class != 0;
    std::iter::from_fn(move || {
        i += b.get(i..)?.iter().position(|&x| keep(x))?;
        let start = i;
        i += b[i..].iter().position(|&x| !keep(x)).unwrap_or(b.len() - i);
        text.get(start..i)
    })
}

/// The first two bytes of [`KEY_PREFIXES`] (all are longer), by
/// `first << 8 | second`: a key starts only where they are, so
/// [`key_tokens`] passes over every other position of a token without
/// comparing prefixes (most of the cost of reading a trace before).
static STARTS_A_PREFIX: std::sync::LazyLock<Box<[bool]>> = std::sync::LazyLock::new(|| {
    let mut t = vec![false; 1 << 16];
    for p in KEY_PREFIXES {
        if let [a, b, ..] = p.as_bytes() {
            t[usize::from(*a) << 8 | usize::from(*b)] = true;
        }
    }
    t.into_boxed_slice()
});

/// Whether a key prefix's tail is words and numbers a person joined
/// (`runs_2026_12_01`, `test-data-2024`), after a prefix words hold
/// (`hf_`, `sk-`): each part between `_` or `-` all
/// small letters or all digits, one a word of three letters or more. A
/// key's random tail mixes cases, or letters and digits, within a part.
fn named_with_numbers(tail: &str) -> bool {
    let parts: Vec<&str> = tail.split(['_', '-']).collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && (p.chars().all(|c| c.is_ascii_lowercase())
                    || p.chars().all(|c| c.is_ascii_digit()))
        })
        && parts
            .iter()
            .any(|p| p.len() >= 3 && p.chars().all(|c| c.is_ascii_lowercase()))
}

/// Whether a token starts with a known key prefix followed by a key's tail
/// ([`key_tokens`]).
fn is_prefixed_key(token: &str) -> bool {
    KEY_PREFIXES.iter().filter(|p| !p.ends_with(' ')).any(|p| {
        token.strip_prefix(p).is_some_and(|tail| {
            let mixed = tail.chars().any(|c| c.is_ascii_lowercase())
                && tail.chars().any(|c| c.is_ascii_uppercase());
            (tail.len() >= KEY_TOKEN_MIN_TAIL
                && tail.chars().any(|c| c.is_ascii_digit())
                && (GLUED_KEY_PREFIXES.contains(p) || !named_with_numbers(tail)))
                || (*p == "hf_" && tail.len() >= HF_TAIL_WITHOUT_DIGIT && mixed)
                // A prefix no word holds (`glpat-`, `ghp_`), then random
                // letters that happen to hold no digit.
                || (GLUED_KEY_PREFIXES.contains(p) && tail.len() >= PREFIXED_TAIL_WITHOUT_DIGIT && mixed)
        })
    })
}

/// The values written after a credential's name (`api_key=…`,
/// `access_token=…`, `password: …`, `secret=…`) and the passwords of URL
/// user info (`https://user:…@host`): a token of at least
/// [`MIN_SECRET_CHARS`] holding a digit.
fn named_credentials(text: &str) -> Vec<&str> {
    use std::sync::LazyLock;
    static NAMED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r#"(?i)(x-amz-signature|x-goog-signature|signature|sig|auth|api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|passphrase|pwd|pw|accountkey|sharedaccesskey|client[_-]?secret|api[ ]key|access[ _-]?key|private[_-]?key(?:[_-]?id)?|key|pass|authorization|cookie|session|sid|credentials?|otp|passwort|kennwort|wachtwoord|senha|contrase(?:ñ|n)a|mot[ _]de[ _]passe)["']?\s*(?:[=:]>?|=>)\s*["']?(?:(?:token|basic|bearer)\s+)?([\p{L}\p{N}._~+/!@#$%^*-]{8,}={0,2})|://[^\s/@:]*:([^\s/@]{8,})@"#,
        )
        .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    // A URL's password whatever its shape; a named value holding a digit,
    // or a password's value written in words ([`credential_value`]). A
    // value refused is searched again from its start: it may name the
    // credential itself (`the token: password=…`).
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(c) = NAMED.captures_at(text, at) {
        let Some(whole) = c.get(0) else { break };
        at = whole.end();
        match (c.get(1), c.get(2)) {
            (Some(name), Some(v)) => {
                if credential_value(v.as_str(), ends_with_password_name(name.as_str())) {
                    out.push(v.as_str());
                } else {
                    at = v.start();
                }
            }
            _ => out.extend(c.get(3).map(|m| m.as_str())),
        }
    }
    out
}

/// Whether [`named_credentials`] may find anything in `text`: somewhere
/// its pattern could match with a value holding a digit. Either a `=` or
/// `:` after a credential's name (in any case, the Kelvin sign and the
/// long s included, as `(?i)` folds them; a quote and white space
/// between), followed by white space, a quote and at least 8 value
/// bytes holding a digit; or a `://`, a user
/// name, `:` and at least 6 characters holding a digit before an `@`.
/// Most texts have neither, and are spared the search; the search itself
/// still decides what is found.
fn may_name_credential(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr2_iter(b'=', b':', b).any(|i| {
        if b[i] == b':' && b[i + 1..].starts_with(b"//") && url_password_at(&text[i + 3..]) {
            return true;
        }
        // Every name ends in `n`, `t`, `d`, `y`, `s`, `e`, `p`, `l`, `a`,
        // `w`, `g` or `h`: other `:` are passed over at one byte's cost.
        if i > 0
            && b[i - 1].is_ascii()
            && !matches!(
                b[i - 1],
                b'n' | b't'
                    | b'd'
                    | b'y'
                    | b's'
                    | b'e'
                    | b'p'
                    | b'l'
                    | b'a'
                    | b'w'
                    | b'g'
                    | b'h'
                    | b'A'
                    | b'W'
                    | b'G'
                    | b'H'
                    | b'N'
                    | b'T'
                    | b'D'
                    | b'Y'
                    | b'S'
                    | b'E'
                    | b'P'
                    | b'L'
                    | b'"'
                    | b'\''
            )
            && !b[i - 1].is_ascii_whitespace()
            && b[i - 1] != 0x0b
        {
            return false;
        }
        let before = text[..i].trim_end_matches(char::is_whitespace);
        let before = before.strip_suffix(['"', '\'']).unwrap_or(before);
        ends_with_credential_name(before)
            && credential_value_at(&text[i + 1..], ends_with_password_name(before))
    })
}

/// Whether `before` ends with a name [`named_credentials`] reads
/// (`api_key`, `token`, `secret`, `password`, `passwd`, `pwd`…), folded
/// as its `(?i)` folds them: ASCII case, `K` (U+212A) as `k`, `ſ` (U+017F)
/// as `s`.
fn ends_with_credential_name(before: &str) -> bool {
    const NAMES: [&[u8]; 30] = [
        b"session",
        // A pre-signed URL's signature (`sig=`, `X-Amz-Signature=`) and
        // an `auth=` parameter.
        b"ignature",
        b"sig",
        b"auth",
        b"sid",
        // `AccountKey`, `SharedAccessKey` (Azure connection strings),
        // `private_key`, `api key`, any `…key`.
        b"key",
        // A service account's `private_key_id`, `privateKeyId`.
        b"key_id",
        b"keyid",
        b"phrase",
        b"pw",
        // "Password" in German, Dutch, Portuguese, Spanish, French (the
        // tail read is 8 bytes: `wachtwoord` ends `htwoord`).
        b"passwort",
        b"kennwort",
        b"htwoord",
        b"senha",
        b"rasena",
        b"passe",
        b"pass",
        b"cookie",
        b"otp",
        b"ization",
        b"ential",
        b"entials",
        b"token",
        b"secret",
        b"password",
        b"passwd",
        b"pwd",
        b"apikey",
        b"api_key",
        b"api-key",
    ];
    const PACKED: Tails<30> = Tails::of(&NAMES);
    tail_ends_with_any(before, &PACKED)
}

/// Whether the last (at most) 8 characters of `before`, folded as the
/// names' `(?i)` folds them (ASCII case, `K` (U+212A) as `k`, `ſ`
/// (U+017F) as `s`, `ñ` as `n`; stopping at any other character), end
/// with one of `names`. It runs at nearly every `=` and `:` of every
/// text, so a last character no name ends with stops it at once, the
/// tail is one integer and a name one comparison.
fn tail_ends_with_any<const N: usize>(before: &str, names: &Tails<N>) -> bool {
    let mut tail = 0u64;
    let mut n = 0u32;
    for c in before.chars().rev().take(8) {
        let Some(folded) = folded_name_char(c) else {
            break;
        };
        if n == 0 && !names.last[usize::from(folded)] {
            return false;
        }
        tail |= u64::from(folded) << (8 * n);
        n += 1;
    }
    names.names.iter().any(|&(name, len)| {
        let mask = u64::MAX >> (8 * (8 - len));
        len <= n && tail & mask == name
    })
}

/// `c` as the credential names' `(?i)` folds it: ASCII in lower case,
/// `K` (U+212A) as `k`, `ſ` (U+017F) as `s`, `ñ` as `n`; `None` for any
/// other character, which no name holds.
fn folded_name_char(c: char) -> Option<u8> {
    match c {
        '\u{212A}' => Some(b'k'),
        '\u{17F}' => Some(b's'),
        'ñ' | 'Ñ' => Some(b'n'),
        c if c.is_ascii() => Some(c.to_ascii_lowercase() as u8),
        _ => None,
    }
}

/// Names of 1 to 8 bytes as [`tail_ends_with_any`] compares them.
struct Tails<const N: usize> {
    /// The bytes of each name in an integer, its last byte lowest, and
    /// its length.
    names: [(u64, u32); N],
    /// Whether a name ends with the byte.
    last: [bool; 256],
}

impl<const N: usize> Tails<N> {
    /// The names, packed at compile time: a longer name does not compile.
    const fn of(names: &[&[u8]; N]) -> Tails<N> {
        let mut out = Tails {
            names: [(0u64, 0u32); N],
            last: [false; 256],
        };
        let mut i = 0;
        while i < N {
            let name = names[i];
            assert!(
                !name.is_empty() && name.len() <= 8,
                "a name is 1 to 8 bytes"
            );
            let mut v = 0u64;
            let mut j = 0;
            while j < name.len() {
                v = (v << 8) | name[j] as u64;
                j += 1;
            }
            out.names[i] = (v, name.len() as u32);
            out.last[name[name.len() - 1] as usize] = true;
            i += 1;
        }
        out
    }
}

/// Whether `after` (what follows a `=` or `:`) starts as the value of a
/// named credential does: white space, a quote, then at least 8 letters
/// or digits of any script or `._~+/!@#$%^*-`, holding a digit, or after a
/// `password`'s name written in words ([`credential_value`]).
fn credential_value_at(after: &str, password: bool) -> bool {
    // `=>` and a scheme word (`Authorization: token …`) before the value.
    let after = after.strip_prefix('>').unwrap_or(after);
    let after = after.trim_start_matches(char::is_whitespace);
    let after = after.strip_prefix(['"', '\'']).unwrap_or(after);
    let after = ["token", "basic", "bearer"]
        .iter()
        .find(|w| {
            after
                .get(..w.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(w))
                && after[w.len()..].starts_with(char::is_whitespace)
        })
        .map_or(after, |w| after[w.len()..].trim_start());
    // Letters and digits of any script (the pattern's `\p{L}\p{N}`; this
    // test takes a few more, which only lets the search decide).
    let value = |c: char| c.is_alphanumeric() || "._~+/!@#$%^*-".contains(c);
    let end = after.find(|c: char| !value(c)).unwrap_or(after.len());
    // The pattern's `{8,}`, in characters.
    after[..end].chars().count() >= 8 && credential_value(&after[..end], password)
}

/// Whether `after` (what follows a `://`) is `user:password@` as
/// [`named_credentials`] reads it: a user name of characters other than
/// white space, `/`, `@` and `:`, then `:`, then at least 6 characters
/// other than white space, `/` and `@`, holding a digit, then `@`.
fn url_password_at(after: &str) -> bool {
    let stop = |c: char| c.is_whitespace() || matches!(c, '/' | '@');
    let user_end = after
        .find(|c: char| stop(c) || c == ':')
        .unwrap_or(after.len());
    // The user name may be empty (`redis://:password@host`).
    if !after[user_end..].starts_with(':') {
        return false;
    }
    let rest = &after[user_end + 1..];
    let end = rest.find(stop).unwrap_or(rest.len());
    rest[end..].starts_with('@') && rest[..end].chars().count() >= 8
}

/// Tokens written like an AWS secret access key: 40 characters of
/// letters, digits, `/` and `+`, with upper and lower case and a digit.
fn aws_secrets(text: &str) -> Vec<&str> {
    runs(text, AWS)
        .filter(|t| {
            t.len() == 40
                && t.chars().any(|c| c.is_ascii_uppercase())
                && t.chars().any(|c| c.is_ascii_lowercase())
                && t.chars().any(|c| c.is_ascii_digit())
                && !is_path(t)
        })
        .collect()
}

/// Whether a run of 40 such characters is a file path rather than a key:
/// three `/` or more, and no part between them mixing upper and lower
/// case (`/work/op25/scratch/out/A1/workspace/svc/`). A key's 40 random
/// characters hold that many `/` about once in forty, and then parts of
/// mixed case.
fn is_path(t: &str) -> bool {
    t.matches('/').count() >= 3
        && t.split('/').all(|part| {
            !(part.chars().any(|c| c.is_ascii_uppercase())
                && part.chars().any(|c| c.is_ascii_lowercase()))
        })
}

/// Whether `token` is written like a JSON Web Token: three base64url
/// segments joined by `.`, the first a JSON object's encoding (`eyJ`).
fn is_jwt(token: &str) -> bool {
    let mut parts = token.split('.');
    let (Some(head), Some(body), Some(sig), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    head.starts_with("eyJ")
        && head.len() >= 10
        && body.len() >= 4
        && !sig.is_empty()
        && [head, body, sig].iter().all(|p| {
            p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        })
}

/// The tokens that follow the word `Bearer` (any case) and white space:
/// runs of the characters of RFC 6750's `b64token`.
fn bearer_tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // Most texts name no bearer: no lower-case copy of them.
    let b = text.as_bytes();
    if !memchr::memchr2_iter(b'b', b'B', b).any(|i| {
        b.get(i..i + 6)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"bearer"))
    }) {
        return out;
    }
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("bearer") {
        let start = from + at;
        from = start + "bearer".len();
        // A word of its own, not the end of another one.
        if lower[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            continue;
        }
        let rest = &text[from..];
        let gap = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if gap == 0 {
            continue;
        }
        let body = &rest[gap..];
        let end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/=".contains(c)))
            .unwrap_or(body.len());
        if end > 0 {
            out.push(&body[..end]);
        }
    }
    out
}

/// Whether `c` is shown as nothing: an invisible format or control
/// character (not a line break or tab), or one of the other
/// zero-width marks [`is_separator`] removes.
fn unseen(c: char) -> bool {
    is_invisible(c) || matches!(c, '\u{180e}' | '\u{034f}')
}

/// `text` without a line break (and the indentation after it) that ends
/// a line whose last token starts with a key prefix and is followed by a
/// token character: a key wrapped over two lines, made whole. Borrowed
/// when no break is undone.
fn joined_tokens(text: &str) -> Cow<'_, str> {
    // The common case, no key wrapped, is found without a copy: the first
    // break undone is one where the text as written is wrapped like a key.
    let b = text.as_bytes();
    let wrapped = memchr::memchr_iter(b'\n', b).any(|j| {
        let end = if j > 0 && b[j - 1] == b'\r' { j - 1 } else { j };
        let start = b[..end]
            .iter()
            .rposition(|&c| !is_token_byte(c))
            .map_or(0, |p| p + 1);
        keyed(&b[start..end]) && continues_token(&b[j + 1..])
    });
    if !wrapped {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let brk = if text[i..].starts_with("\r\n") {
            2
        } else if c == '\n' {
            1
        } else {
            0
        };
        if brk > 0 {
            // The token the line ends with (a key joined before included).
            let o = out.as_bytes();
            let tail = o
                .iter()
                .rposition(|&x| !is_token_byte(x))
                .map_or(0, |p| p + 1);
            let rest = &text[i + brk..];
            if keyed(&o[tail..]) && continues_token(rest.as_bytes()) {
                let k = rest
                    .find(|x: char| !matches!(x, ' ' | '\t'))
                    .unwrap_or(rest.len());
                i += brk + k;
                continue;
            }
        }
        out.push(c);
        i += c.len_utf8();
    }
    Cow::Owned(out)
}

/// Whether a token starts with a known key prefix ([`KEY_PREFIXES`]).
fn keyed(token: &[u8]) -> bool {
    let [a, b, ..] = token else {
        return false;
    };
    STARTS_A_PREFIX[usize::from(*a) << 8 | usize::from(*b)]
        && KEY_PREFIXES
            .iter()
            .any(|p| !p.ends_with(' ') && token.starts_with(p.as_bytes()))
}

/// Whether a line's text, after its indentation (spaces and tabs), starts
/// with a token character ([`is_token_byte`]).
fn continues_token(rest: &[u8]) -> bool {
    rest.iter()
        .find(|&&x| !matches!(x, b' ' | b'\t'))
        .is_some_and(|&x| is_token_byte(x))
}

/// Whether `s` looks like a key rather than a name or a word: a known key
/// prefix, or a long token of mixed-case letters and digits without the
/// `_` that variable names use (`OPENAI_API_KEY` is a name; `a8Fk2…` of 32
/// characters is a key).
pub fn looks_like_key(s: &str) -> bool {
    if KEY_PREFIXES.iter().any(|p| s.starts_with(p)) {
        return true;
    }
    let long = s.chars().count() >= 24;
    let token = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    let has_digit = s.chars().any(|c| c.is_ascii_digit());
    let has_lower = s.chars().any(|c| c.is_ascii_lowercase());
    let has_upper = s.chars().any(|c| c.is_ascii_uppercase());
    long && token && has_digit && (has_lower && has_upper || !s.contains('_'))
}

/// The values of the environment variables pactum reads keys from, as the
/// caller read them (this crate does no I/O).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvKeys {
    /// Values of the variables a suite or a flag names as `api_key_env`
    /// (or `{{ env.NAME }}`): keys by declaration.
    pub named: Vec<String>,
    /// Values of the other `*_API_KEY` variables set in the environment:
    /// keys only when they look like one ([`looks_like_key`]).
    pub ambient: Vec<String>,
}

/// The endings of the names of the usual credential variables
/// ([`is_key_var`]).
pub const KEY_VAR_SUFFIXES: [&str; 6] = [
    "_KEY",
    "_TOKEN",
    "_SECRET",
    "_PASSWORD",
    "_PAT",
    "_CREDENTIALS",
];

/// Whether an environment variable's name is one of the usual credential
/// variables ([`EnvKeys::ambient`]): it ends, in any ASCII case, in one of
/// [`KEY_VAR_SUFFIXES`] after a name, or a part of it after the first
/// names a credential (`API_KEY_2`, `MISTRAL_KEY_PROD`, `OPENAI_APIKEY`,
/// `DB_PASSWD`), or it is `APIKEY` (`OPENAI_API_KEY`,
/// `anthropic_api_key`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
/// `HF_TOKEN`). Its value is redacted only when it also looks like a key
/// ([`looks_like_key`]), so a variable such as `SORT_KEY=name` hides
/// nothing.
pub fn is_key_var(name: &str) -> bool {
    // A part of the name, between `_`, that names a credential
    // (`API_KEY_2`, `MISTRAL_KEY_PROD`, `OPENAI_APIKEY`, `DB_PASSWD`), or
    // the whole name `APIKEY`.
    const PARTS: [&str; 9] = [
        "KEY",
        "APIKEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "PWD",
        "PAT",
        "CREDENTIALS",
    ];
    let parts: Vec<&str> = name.split('_').collect();
    name.eq_ignore_ascii_case("apikey")
        || KEY_VAR_SUFFIXES.iter().any(|suffix| {
            name.len() > suffix.len()
                && name
                    .get(name.len() - suffix.len()..)
                    .is_some_and(|t| t.eq_ignore_ascii_case(suffix))
        })
        || (parts.len() > 1
            && !parts[0].is_empty()
            && parts[1..]
                .iter()
                .any(|p| PARTS.iter().any(|w| p.eq_ignore_ascii_case(w))))
}

/// The one rule of what is redacted from everything pactum shows or
/// stores (SPEC §4), whatever the command: the secrets `known` holds (the
/// judge's key, the secrets written in a suite), the values of the key
/// variables in `env` ([`EnvKeys`]: a named one when [`check_secret`]
/// accepts it, an ambient one when it also [`looks_like_key`]), and every
/// key-shaped token of `texts` ([`key_tokens`]: the untrusted text about
/// to be shown). A named variable too short to redact is left out here:
/// whatever reads it refuses it by name.
///
/// # Errors
/// [`SecretError::Matcher`] only (absurdly many or long secrets).
pub fn redaction_rule<'a>(
    known: &Redactor,
    env: &EnvKeys,
    texts: impl IntoIterator<Item = &'a str>,
) -> Result<Redactor, SecretError> {
    let mut values: Vec<String> = Vec::new();
    for v in &env.named {
        if let Ok(v) = check_secret(v) {
            values.push(v.to_string());
        }
    }
    let texts: Vec<&str> = texts.into_iter().collect();
    for v in &env.ambient {
        if let Ok(v) = check_secret(v) {
            // A credential variable's value written in the text about to
            // be shown is that credential, whatever its shape.
            if looks_like_key(v)
                || (!v.contains(char::is_whitespace) && texts.iter().any(|t| t.contains(v)))
            {
                values.push(v.to_string());
            }
        }
    }
    for t in &texts {
        values.extend(key_tokens(t));
    }
    Redactor::new(values)?.with(known)
}

/// The key-shaped tokens ([`key_tokens`]) of every string of a JSON
/// value, object keys included. Each once, in the order found.
pub fn json_key_tokens(v: &Value) -> Vec<String> {
    let mut out = Found::default();
    walk_value(v, &mut out);
    out.keys
}

fn walk_value(v: &Value, out: &mut Found) {
    match v {
        Value::String(s) => {
            push_tokens(out, s);
            // Arguments written as a JSON text (`"{\"password\": …}"`)
            // are read as the object they write too.
            let t = s.trim_start();
            if t.starts_with(['{', '[']) {
                if let Ok(inner) = crate::json::parse_strict(s.trim()) {
                    walk_value(&inner, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk_value(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                push_tokens(out, k);
                // A value under a credential's name (`"password":
                // "hunter2xyz9"`, `"api_key": 12345678`) is read as the
                // text `password=hunter2xyz9` is.
                let value = match x {
                    Value::String(s) => Some(Cow::Borrowed(s.as_str())),
                    Value::Number(n) => Some(Cow::Owned(n.to_string())),
                    _ => None,
                };
                if let Some(value) = value.filter(|_| ends_with_credential_name(k)) {
                    push_tokens(out, &format!("{k}={value}"));
                }
                walk_value(x, out);
            }
        }
        Value::Number(n) => push_watched(out, &n.to_string()),
        _ => {}
    }
}

/// Adds the key-shaped tokens of `text` not in `out` yet, and the
/// watched values `text` holds.
fn push_tokens(out: &mut Found, text: &str) {
    for t in key_tokens(text) {
        out.push(t);
    }
    push_watched(out, text);
}

/// Adds the watched values `text` holds ([`trace_secrets`]).
fn push_watched(out: &mut Found, text: &str) {
    if out.watched.is_empty() {
        return;
    }
    let watched = out.watched;
    for w in watched.iter().filter(|w| text.contains(w.as_str())) {
        out.push(w.clone());
    }
}

/// The key-shaped tokens ([`key_tokens`]) of every string of a trace: its
/// id, its turns' input messages, responses, tool calls (names, ids,
/// argument keys and values, results, errors) and side effects (kinds and
/// details), its metadata, error, incompleteness note, source file and
/// offered tools' names. Each once, in the order found.
pub fn trace_key_tokens(trace: &crate::trace::Trace) -> Vec<String> {
    trace_secrets(trace, &[])
}

/// [`key_tokens`] of `text`, and each of `watched` it holds whole (as
/// [`trace_secrets`] reads a trace's texts).
pub fn text_secrets(text: &str, watched: &[String]) -> Vec<String> {
    let mut out = Found {
        watched,
        ..Found::default()
    };
    push_tokens(&mut out, text);
    out.keys
}

/// [`trace_key_tokens`], and each of `watched` written whole in any text
/// of the trace (a number's text too): the values of credential
/// variables that do not look like keys, which are secrets where they
/// are written ([`redaction_rule`]).
pub fn trace_secrets(trace: &crate::trace::Trace, watched: &[String]) -> Vec<String> {
    let mut out = Found {
        watched,
        ..Found::default()
    };
    push_tokens(&mut out, &trace.id);
    for turn in &trace.turns {
        for m in &turn.input {
            push_tokens(&mut out, &m.content);
        }
        if let Some(r) = &turn.response {
            push_tokens(&mut out, r);
        }
        for c in &turn.tool_calls {
            push_tokens(&mut out, &c.name);
            if let Some(id) = &c.id {
                push_tokens(&mut out, id);
            }
            walk_value(&c.arguments, &mut out);
            if let Some(r) = &c.result {
                walk_value(r, &mut out);
            }
            if let Some(e) = &c.error {
                push_tokens(&mut out, e);
            }
        }
        for e in &turn.side_effects {
            push_tokens(&mut out, &e.kind);
            walk_value(&e.details, &mut out);
        }
    }
    walk_value(&trace.metadata, &mut out);
    for t in [&trace.error, &trace.incomplete, &trace.ended_by]
        .into_iter()
        .flatten()
    {
        push_tokens(&mut out, t);
    }
    if let Some(src) = &trace.source {
        push_tokens(&mut out, &src.file);
    }
    for t in trace.offered_tools.iter().flatten() {
        push_tokens(&mut out, t);
    }
    out.keys
}

/// Whether a URL query parameter's name marks its value as a credential
/// (`api_key`, `access_token`, `client_secret`, `password`, `sig`,
/// `auth`…), compared case-insensitively.
pub fn is_secret_query_name(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    ["key", "token", "secret", "passw", "pwd", "credential"]
        .iter()
        .any(|w| n.contains(w))
        || matches!(n.as_str(), "sig" | "signature" | "auth" | "authorization")
}

/// The credentials written in a URL, and the URL without them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlSecrets {
    /// The URL with its userinfo, and the value of each secret query
    /// parameter, replaced by [`REDACTED`]; otherwise as written.
    pub shown: String,
    /// The secret values as sent (the userinfo's password, or its user name
    /// when it has no password; secret query values; percent-decoded; and
    /// the userinfo as an HTTP client sends it,
    /// `base64(user:password)` in a `Basic` authorization header), each
    /// once, in URL order.
    pub values: Vec<String>,
    /// Where they are written: byte ranges of the URL (the whole userinfo,
    /// each secret query value), in order.
    pub spans: Vec<(usize, usize)>,
}

impl UrlSecrets {
    /// `url` (the text these were found in) with every character of every
    /// span replaced by `*`: as many characters as before, so columns
    /// after them do not move.
    pub fn masked(&self, url: &str) -> String {
        let mut out = String::with_capacity(url.len());
        for (i, c) in url.char_indices() {
            if self.spans.iter().any(|&(a, b)| a <= i && i < b) {
                out.push('*');
            } else {
                out.push(c);
            }
        }
        out
    }
}

/// Finds the credentials in a URL (or URL template): the userinfo
/// (`https://user:pass@host/…`), and the value of every query parameter
/// whose name marks a credential ([`is_secret_query_name`]) or whose value
/// looks like a key ([`looks_like_key`]). Text that is not a URL has none.
/// A URL's fragment is never sent, so it is left alone; a value written as
/// a template (`{{ … }}`, `{% … %}`) is filled in from elsewhere, so it is
/// not a credential written in the URL.
pub fn url_secrets(url: &str) -> UrlSecrets {
    let mut values: Vec<String> = Vec::new();
    let mut push = |v: String| {
        if !v.is_empty() && !values.contains(&v) {
            values.push(v);
        }
    };
    let mut spans = Vec::new();
    let Some((scheme, rest)) = url.split_once("://") else {
        return UrlSecrets {
            shown: url.to_string(),
            values: vec![],
            spans,
        };
    };
    let base = scheme.len() + 3;
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let mut shown = format!("{scheme}://");
    let is_template = |s: &str| s.contains("{{") || s.contains("{%");
    let after_authority = match rest[..authority_end]
        .rfind('@')
        .filter(|&at| !is_template(&rest[..at]))
    {
        Some(at) => {
            let (user, pass) = match rest[..at].split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (&rest[..at], None),
            };
            // With a password, the user name names the account; without
            // one, it is the credential (`https://TOKEN@host/`).
            match pass {
                Some(p) => push(percent_decoded(p)),
                None => push(percent_decoded(user)),
            }
            push(base64(
                format!(
                    "{}:{}",
                    percent_decoded(user),
                    percent_decoded(pass.unwrap_or_default())
                )
                .as_bytes(),
            ));
            spans.push((base, base + at));
            shown.push_str(REDACTED);
            shown.push('@');
            shown.push_str(&rest[at + 1..authority_end]);
            &rest[authority_end..]
        }
        None => {
            shown.push_str(&rest[..authority_end]);
            &rest[authority_end..]
        }
    };
    let (before_fragment, fragment) = match after_authority.find('#') {
        Some(i) => after_authority.split_at(i),
        None => (after_authority, ""),
    };
    match before_fragment.split_once('?') {
        None => shown.push_str(before_fragment),
        Some((path, query)) => {
            shown.push_str(path);
            shown.push('?');
            let mut first = true;
            // Where the pair starts in `url`.
            let mut at = url.len() - after_authority.len() + path.len() + 1;
            for pair in query.split('&') {
                let pair_at = at;
                at += pair.len() + 1;
                if !first {
                    shown.push('&');
                }
                first = false;
                let (name, value) = match pair.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (pair, None),
                };
                match value {
                    Some(v)
                        if !v.is_empty()
                            && !is_template(v)
                            && (is_secret_query_name(&percent_decoded(name))
                                || looks_like_key(&percent_decoded(v))) =>
                    {
                        push(percent_decoded(v));
                        let v_at = pair_at + name.len() + 1;
                        spans.push((v_at, v_at + v.len()));
                        shown.push_str(name);
                        shown.push('=');
                        shown.push_str(REDACTED);
                    }
                    _ => shown.push_str(pair),
                }
            }
        }
    }
    shown.push_str(fragment);
    UrlSecrets {
        shown,
        values,
        spans,
    }
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ABC[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `s` with `%XX` sequences decoded (invalid ones kept as written), and
/// `+` kept: a credential holds `+` more often than a space.
fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if let Some(v) = hex_at(s, i + 1, 2).and_then(|v| u8::try_from(v).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Whether `text` has anything [`decode_round`] would change: a mark of
/// an encoding (`\\`, `%`, `&`), an invisible character or a look-alike
/// of an ASCII one.
fn may_be_encoded(text: &str) -> bool {
    // Every text redacted passes here: one look-up a byte, and only the
    // characters beyond ASCII (which has no look-alike, and whose
    // invisible characters the bytes answered for) are read as such.
    const MARK: u8 = 1;
    const WIDE: u8 = 2;
    static CLASS: std::sync::LazyLock<[u8; 256]> = std::sync::LazyLock::new(|| {
        let mut t = [0u8; 256];
        for (b, class) in (0..=u8::MAX).zip(t.iter_mut()) {
            *class = if !b.is_ascii() {
                WIDE
            } else if matches!(b, b'\\' | b'%' | b'&') || is_invisible(char::from(b)) {
                MARK
            } else {
                0
            };
        }
        t
    });
    let class = &*CLASS;
    let mut wide = false;
    for &b in text.as_bytes() {
        match class[usize::from(b)] {
            0 => {}
            MARK => return true,
            _ => wide = true,
        }
    }
    wide && text
        .chars()
        .any(|c| !c.is_ascii() && (is_invisible(c) || ascii_lookalike(c).is_some()))
}

/// Characters a reader does not see, dropped from the decoded view: every
/// character [`crate::text::shown_as_code_point`] names (controls, format
/// and default-ignorable characters) but newline, tab and carriage return.
pub(crate) fn is_invisible(c: char) -> bool {
    crate::text::shown_as_code_point(c) && !matches!(c, '\n' | '\t' | '\r')
}

/// One round of decoding: the decoded text and, for each of its bytes and
/// its end, the offset in `src` of the unit it came from. `None` when the
/// round changes nothing.
fn decode_round(src: &str) -> Option<(String, Vec<usize>)> {
    let first = first_decoded(src)?;
    let mut origin: Vec<usize> = Vec::with_capacity(src.len() + 1);
    origin.extend(0..first);
    let out = decode_from(src, first, Some(&mut origin));
    origin.push(src.len());
    Some((out, origin))
}

/// [`decode_round`]'s text alone, without the offsets.
fn decoded_once(src: &str) -> Option<String> {
    let first = first_decoded(src)?;
    Some(decode_from(src, first, None))
}

/// `src` decoded by one round from `first` on (the bytes before it kept
/// as they are), recording each output byte's source offset in `origin`
/// when given.
fn decode_from(src: &str, first: usize, mut origin: Option<&mut Vec<usize>>) -> String {
    let mut out = String::with_capacity(src.len());
    out.push_str(&src[..first]);
    let mut i = first;
    let b = src.as_bytes();
    while let Some(c) = src[i..].chars().next() {
        // A span of plain ASCII is its own decoding: copied whole.
        let plain = b[i..]
            .iter()
            .position(|&x| !x.is_ascii() || BYTE_CLASS[usize::from(x)] & DECODES != 0)
            .unwrap_or(b.len() - i);
        if plain > 0 {
            out.push_str(&src[i..i + plain]);
            if let Some(o) = origin.as_deref_mut() {
                o.extend(i..i + plain);
            }
            i += plain;
            continue;
        }
        let (decoded, len) = decode_unit(src, i, c);
        if let Some(d) = decoded {
            out.push(d);
            if let Some(o) = origin.as_deref_mut() {
                o.extend(std::iter::repeat_n(i, d.len_utf8()));
            }
        }
        i += len;
    }
    out
}

/// The character that the unit of `src` at `i` (whose first character is
/// `c`) decodes to, if any, and the unit's length in bytes.
fn decode_unit(src: &str, i: usize, c: char) -> (Option<char>, usize) {
    match c {
        '\\' => backslash(src, i),
        '%' => percent(src, i),
        '&' => reference(src, i),
        '\u{1b}' => (None, escape_len(src, i).max(1)),
        c if is_invisible(c) => (None, c.len_utf8()),
        c => (Some(ascii_lookalike(c).unwrap_or(c)), c.len_utf8()),
    }
}

/// The ASCII character a reader takes `c` for, when `c` is a fullwidth
/// form (`ｓｋ` for `sk`, U+FF01–U+FF5E), a hyphen or minus drawn like
/// `-` (U+2010–U+2015, U+2212, U+FE58, U+FE63), or a letter or digit that
/// reads as an ASCII one ([`folded_alphanumeric`]: `ſ`, `𝐬`, a Cyrillic
/// `ѕ`, a small capital `ᴋ`): a key written with them reads as the key,
/// so its decoded view is the key.
fn ascii_lookalike(c: char) -> Option<char> {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0),
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' => Some('-'),
        // ASCII is itself; CJK, kana, Yi and Hangul (most non-ASCII text)
        // hold no character that folds to one ASCII letter or digit, and
        // are passed over without normalising each character.
        '\0'..='\u{7F}' | '\u{2E80}'..='\u{A4CF}' | '\u{AC00}'..='\u{D7FF}' => None,
        c => folded_alphanumeric(c),
    }
}

/// The ASCII letter, digit, hyphen or underscore a non-ASCII `c` reads as, if one: its NFKC
/// form (a long `ſ`, mathematical `𝐬𝐤`, circled or superscript digits),
/// else its UTS #39 confusable skeleton (a Cyrillic `ѕ` or `к`, a Greek
/// `ο`, a Lisu `ꓢ`), else the letter a small capital (`ꜱ`, `ᴋ`) is drawn
/// as. Only a single ASCII letter or digit counts: `é` stays `é`.
fn folded_alphanumeric(c: char) -> Option<char> {
    // Every text in a script with look-alikes (Cyrillic, Greek) asks for
    // each of its characters: the Basic Multilingual Plane's answers are
    // kept by blocks of 256 code points, each worked out once.
    static BLOCKS: [std::sync::OnceLock<[u8; 256]>; 256] =
        [const { std::sync::OnceLock::new() }; 256];
    let cp = u32::from(c);
    let Some(block) = usize::try_from(cp >> 8).ok().and_then(|b| BLOCKS.get(b)) else {
        return folded_uncached(c);
    };
    let table = block.get_or_init(|| {
        let mut t = [0u8; 256];
        for (i, slot) in (0u32..).zip(t.iter_mut()) {
            if let Some(a) = char::from_u32((cp & !0xFF) | i).and_then(folded_uncached) {
                *slot = u8::try_from(a).unwrap_or(0);
            }
        }
        t
    });
    let a = table[(cp & 0xFF) as usize];
    (a != 0).then_some(char::from(a))
}

/// [`folded_alphanumeric`], worked out.
fn folded_uncached(c: char) -> Option<char> {
    use unicode_normalization::UnicodeNormalization;
    fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
        let first = it.next()?;
        it.next().is_none().then_some(first)
    }
    // A hyphen or an underscore too: a key's `-` drawn with a confusable
    // of it (`˗`, `⁃`, `➖`, `۔`) or a superscript or subscript minus
    // reads as `-`, a `_` drawn as `﹍` or `﹏` as `_`.
    let ascii = |a: char| {
        if a == '\u{2212}' {
            return Some('-');
        }
        (a.is_ascii_alphanumeric() || a == '-' || a == '_').then_some(a)
    };
    if let Some(a) = single(std::iter::once(c).nfkc()).and_then(ascii) {
        return Some(a);
    }
    // The skeleton draws some letters as small capitals (a Cyrillic `к`
    // as `ĸ`, `т` as `ᴛ`): those are read as their letter too.
    match single(unicode_security::confusable_detection::skeleton(
        c.encode_utf8(&mut [0; 4]),
    )) {
        Some(a) if a.is_ascii() => ascii(a),
        Some(a) => crate::text::small_capital(a),
        None => crate::text::small_capital(c),
    }
}

/// The offset of the first unit of `src` that a round of decoding
/// changes, without a copy: most texts have none.
fn first_decoded(src: &str) -> Option<usize> {
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        i += b[i..]
            .iter()
            .position(|&x| !x.is_ascii() || BYTE_CLASS[usize::from(x)] & DECODES != 0)?;
        let x = b[i];
        if x.is_ascii() {
            let c = char::from(x);
            let (decoded, len) = decode_unit(src, i, c);
            if decoded != Some(c) || len != 1 {
                return Some(i);
            }
            i += 1;
        } else {
            let c = src[i..].chars().next()?;
            if is_invisible(c) || ascii_lookalike(c).is_some() {
                return Some(i);
            }
            i += c.len_utf8();
        }
    }
    None
}

fn hex_at(src: &str, at: usize, digits: usize) -> Option<u32> {
    let h = src.get(at..at + digits)?;
    if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

/// A run of backslashes and the escape it leads: the character and the
/// length of the whole unit. A lone or trailing backslash is itself.
fn backslash(src: &str, i: usize) -> (Option<char>, usize) {
    let run = src[i..].bytes().take_while(|&b| b == b'\\').count();
    let j = i + run;
    let Some(c) = src[j..].chars().next() else {
        return (Some('\\'), 1);
    };
    let unit = |ch: char, end: usize| (Some(ch), end - i);
    match c {
        'u' => {
            let Some(cp) = hex_at(src, j + 1, 4) else {
                return unit('u', j + 1);
            };
            if (0xD800..0xDC00).contains(&cp) {
                // A high surrogate: its low half is another escape.
                let p = j + 5;
                let run2 = src[p..].bytes().take_while(|&b| b == b'\\').count();
                if run2 > 0 && src[p + run2..].starts_with('u') {
                    if let Some(lo) = hex_at(src, p + run2 + 1, 4) {
                        if (0xDC00..0xE000).contains(&lo) {
                            let full = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            if let Some(ch) = char::from_u32(full) {
                                return unit(ch, p + run2 + 5);
                            }
                        }
                    }
                }
                return (Some('\\'), 1);
            }
            match char::from_u32(cp) {
                Some(ch) => unit(ch, j + 5),
                None => (Some('\\'), 1),
            }
        }
        'U' => match hex_at(src, j + 1, 8).and_then(char::from_u32) {
            Some(ch) => unit(ch, j + 9),
            None => unit('U', j + 1),
        },
        'x' => match hex_at(src, j + 1, 2).and_then(char::from_u32) {
            Some(ch) => unit(ch, j + 3),
            None => unit('x', j + 1),
        },
        // `\n` reads as `n`, not a newline: a key holds no newline, and
        // a key whose every character is escaped may hold an `n`.
        c => unit(c, j + c.len_utf8()),
    }
}

/// `%XX` (or a UTF-8 sequence of them); a `%` that leads no valid
/// sequence is itself.
fn percent(src: &str, i: usize) -> (Option<char>, usize) {
    let Some(first) = hex_at(src, i + 1, 2) else {
        return (Some('%'), 1);
    };
    let Ok(first) = u8::try_from(first) else {
        return (Some('%'), 1);
    };
    if first < 0x80 {
        return (Some(char::from(first)), 3);
    }
    let n = match first {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (Some('%'), 1),
    };
    let mut bytes = vec![first];
    for k in 1..n {
        let at = i + 3 * k;
        if !src.get(at..).is_some_and(|r| r.starts_with('%')) {
            return (Some('%'), 1);
        }
        match hex_at(src, at + 1, 2).and_then(|b| u8::try_from(b).ok()) {
            Some(b) => bytes.push(b),
            None => return (Some('%'), 1),
        }
    }
    match std::str::from_utf8(&bytes)
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(ch) => (Some(ch), 3 * n),
        None => (Some('%'), 1),
    }
}

/// An HTML character reference (`&#115;`, `&#x73;`, `&amp;`…), read as
/// HTML5 reads it: a numeric one ends at its last digit, its `;` optional
/// (`sk&#45proj…` shows `sk-proj…` in a browser), and the names below are
/// read with or without their `;` (over-reading one is harmless: it only
/// redacts more). Any other `&` is itself.
fn reference(src: &str, i: usize) -> (Option<char>, usize) {
    let rest = &src[i..];
    const NAMED: [(&str, char); 16] = [
        ("&amp", '&'),
        ("&lt", '<'),
        ("&gt", '>'),
        ("&quot", '"'),
        ("&apos", '\''),
        ("&sol", '/'),
        ("&plus", '+'),
        ("&equals", '='),
        ("&hyphen", '\u{2010}'),
        ("&dash", '\u{2010}'),
        ("&minus", '\u{2212}'),
        ("&lowbar", '_'),
        ("&UnderBar", '_'),
        ("&period", '.'),
        ("&colon", ':'),
        ("&num", '#'),
    ];
    for (name, ch) in NAMED {
        if let Some(after) = rest.strip_prefix(name) {
            let semicolon = usize::from(after.starts_with(';'));
            return (Some(ch), name.len() + semicolon);
        }
    }
    let Some(num) = rest.strip_prefix("&#") else {
        return (Some('&'), 1);
    };
    let (digits, radix, skip) = match num.strip_prefix(['x', 'X']) {
        Some(h) => (h, 16, 3),
        None => (num, 10, 2),
    };
    let len = digits
        .bytes()
        .take(8)
        .take_while(|b| char::from(*b).is_digit(radix))
        .count();
    if len == 0 {
        return (Some('&'), 1);
    }
    let semicolon = usize::from(digits[len..].starts_with(';'));
    match u32::from_str_radix(&digits[..len], radix)
        .ok()
        .and_then(char::from_u32)
    {
        Some(ch) => (Some(ch), skip + len + semicolon),
        None => (Some('&'), 1),
    }
}

mod probe;

#[cfg(test)]
mod tests;
