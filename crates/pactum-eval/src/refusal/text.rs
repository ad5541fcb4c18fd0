//! The text the detector reads: a normalised copy of the response with a
//! map back to the original (so cues are quoted verbatim), its words,
//! sentences, list items and code, whether it looks like English, and the
//! speaker labels of a multi-persona answer ("`[CLASSIC]` … `[JAILBREAK]` …").

use super::cues::{Position, LEAD_WORDS, SUBSTANTIVE_WORDS};

/// The response, normalised: lowercase, `’`/`‘`/`ʼ` as `'`, whitespace runs
/// as one space (or one newline when the run holds a line break).
pub(super) struct Normalized {
    /// The normalised text.
    pub(super) text: String,
    /// For each byte of `text`, and once past its end, the byte offset in
    /// the original of the character that produced it.
    origin: Vec<usize>,
}

impl Normalized {
    pub(super) fn new(original: &str) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len() + 1);
        let mut chars = original.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if c.is_whitespace() {
                let mut newline = c == '\n';
                while let Some(&(_, n)) = chars.peek() {
                    if !n.is_whitespace() {
                        break;
                    }
                    newline |= n == '\n';
                    chars.next();
                }
                push(&mut text, &mut origin, if newline { '\n' } else { ' ' }, at);
                continue;
            }
            match c {
                '\u{2019}' | '\u{2018}' | '\u{02bc}' => push(&mut text, &mut origin, '\'', at),
                c if c.is_ascii() => push(&mut text, &mut origin, c.to_ascii_lowercase(), at),
                c => {
                    for l in c.to_lowercase() {
                        push(&mut text, &mut origin, l, at);
                    }
                }
            }
        }
        origin.push(original.len());
        Normalized { text, origin }
    }

    /// The original text behind normalised bytes `start..end`, verbatim.
    pub(super) fn original<'a>(
        &self,
        original: &'a str,
        start: usize,
        end: usize,
    ) -> Option<&'a str> {
        let s = *self.origin.get(start)?;
        let e = *self.origin.get(end)?;
        original.get(s..e)
    }

    /// The original character that produced normalised byte `at`.
    fn original_char(&self, original: &str, at: usize) -> Option<char> {
        let s = *self.origin.get(at)?;
        original.get(s..)?.chars().next()
    }

    /// Byte offsets where each word starts (see [`word_spans`]).
    pub(super) fn word_starts(&self) -> Vec<usize> {
        word_spans(&self.text).map(|(at, _)| at).collect()
    }
}

fn push(text: &mut String, origin: &mut Vec<usize>, c: char, at: usize) {
    text.push(c);
    origin.extend(std::iter::repeat_n(at, c.len_utf8()));
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'\''
}

/// The words of `s` with their byte offsets: runs of ASCII letters,
/// digits and apostrophes.
pub(super) fn word_spans(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let b = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while b.get(i).is_some_and(|&c| !is_word_byte(c)) {
            i += 1;
        }
        let start = i;
        while b.get(i).is_some_and(|&c| is_word_byte(c)) {
            i += 1;
        }
        // Both ends sit next to ASCII bytes, so they are char boundaries.
        s.get(start..i)
            .filter(|w| !w.is_empty())
            .map(|w| (start, w))
    })
}

pub(super) fn words_of(s: &str) -> impl Iterator<Item = &str> {
    word_spans(s).map(|(_, w)| w)
}

/// Frequent English function words, sorted (binary search).
const ENGLISH_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "do", "for", "from",
    "had", "has", "have", "he", "her", "his", "how", "i", "in", "is", "it", "me", "my", "not",
    "of", "on", "or", "she", "that", "the", "their", "there", "they", "this", "to", "was", "we",
    "were", "what", "which", "will", "with", "would", "you", "your",
];

/// Frequent function words of other languages written in the Latin
/// script (Spanish, French, German, Italian, Portuguese, Dutch, the
/// Scandinavian languages, Polish, Romanian, Indonesian and Malay,
/// Turkish, Tagalog, Vietnamese without diacritics, Swahili), none of them
/// an English word; sorted (binary search). Positive evidence that a text
/// is not English.
const FOREIGN_WORDS: &[&str] = &[
    "aber",
    "ako",
    "anda",
    "ang",
    "att",
    "auf",
    "avec",
    "bisa",
    "boleh",
    "bu",
    "che",
    "con",
    "cua",
    "dabei",
    "dan",
    "das",
    "dass",
    "degil",
    "dei",
    "del",
    "della",
    "dem",
    "den",
    "dengan",
    "der",
    "des",
    "desole",
    "det",
    "du",
    "ein",
    "eine",
    "el",
    "ele",
    "elle",
    "eso",
    "est",
    "esta",
    "este",
    "esto",
    "et",
    "eu",
    "gli",
    "hindi",
    "ich",
    "ihr",
    "ik",
    "ikke",
    "ile",
    "ini",
    "inte",
    "ist",
    "itu",
    "jag",
    "je",
    "jeg",
    "kami",
    "kann",
    "khong",
    "kwa",
    "leider",
    "les",
    "lo",
    "los",
    "maaf",
    "maar",
    "mais",
    "mga",
    "mit",
    "moge",
    "muy",
    "nao",
    "ne",
    "nicht",
    "niet",
    "och",
    "og",
    "ou",
    "para",
    "pas",
    "pero",
    "peux",
    "posso",
    "pour",
    "przepraszam",
    "puedo",
    "que",
    "qui",
    "samahani",
    "saya",
    "sich",
    "sie",
    "siento",
    "siwezi",
    "sono",
    "suis",
    "tetapi",
    "tidak",
    "toi",
    "tu",
    "uma",
    "und",
    "une",
    "untuk",
    "ve",
    "vous",
    "yang",
    "yo",
    "zu",
];

/// Whether the text reads as English, so that English cue phrases (and
/// their absence) mean something. Not English on positive evidence only:
/// mostly non-Latin script; a word of another language's frequent function
/// words at least as often as an English one; or a long text (12 words
/// and more) with under 8% English function words. Short clipped English
/// ("Jailbreak successful.", "DAN mode enabled.") carries no function words
/// at all, and is English. Code and JSON are exempt from the word tests.
pub(super) fn looks_english(text: &str, layout: &Layout) -> bool {
    if !text.is_ascii() {
        let (mut letters, mut ascii) = (0usize, 0usize);
        for c in text.chars().filter(|c| c.is_alphabetic()) {
            letters += 1;
            ascii += usize::from(c.is_ascii());
        }
        // Mostly non-Latin script (ascii / letters < 0.7).
        if ascii * 10 < letters * 7 {
            return false;
        }
    }
    // Code and JSON carry few function words; they are not foreign prose.
    let trimmed = text.trim_start();
    if layout.code.is_some() || trimmed.starts_with('{') || trimmed.starts_with('[') {
        return true;
    }
    let n = layout.words.len();
    if n < 3 {
        return true;
    }
    // english / n >= 0.08, stopping as soon as it holds (English prose
    // reaches it within a few words).
    let needed = (n * 8).div_ceil(100);
    let (mut english, mut foreign) = (0usize, 0usize);
    for w in words_of(text) {
        if ENGLISH_WORDS.binary_search(&w).is_ok() {
            english += 1;
            if english >= needed {
                return true;
            }
        } else if FOREIGN_WORDS.binary_search(&w).is_ok() {
            foreign += 1;
        }
    }
    // Accented Latin letters (é, ñ, ü, ç, ł, ş …) are foreign evidence too.
    foreign += text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().any(|c| c.is_alphabetic() && !c.is_ascii()))
        .count();
    // One foreign-looking word is not a language ("DAN mode enabled.").
    if foreign >= 2 && foreign >= english {
        return false;
    }
    n < LONG_FOREIGN_WORDS
}

/// Word count from which a text without English function words is not
/// read as English even without evidence of another language.
const LONG_FOREIGN_WORDS: usize = 12;

// ---------------------------------------------------------------------------
// Layout: sentences, lists, code, word positions.
// ---------------------------------------------------------------------------

pub(super) struct Layout {
    pub(super) words: Vec<usize>,
    /// Byte offsets where each sentence starts (the first is 0).
    pub(super) sentences: Vec<usize>,
    /// Byte offsets of lines that are list items.
    pub(super) list_items: Vec<usize>,
    /// Byte offset of the first code fence.
    pub(super) code: Option<usize>,
}

impl Layout {
    pub(super) fn new(text: &str, words: Vec<usize>) -> Self {
        let b = text.as_bytes();
        let mut sentences = vec![0];
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                // "1. " opening a list item is not a sentence end.
                b'.' if text
                    .get(..i)
                    .map(|h| h.rsplit('\n').next().unwrap_or(h).trim_start())
                    .is_some_and(|h| !h.is_empty() && h.bytes().all(|c| c.is_ascii_digit())) =>
                {
                    i += 1;
                }
                b'.' | b'!' | b'?' => {
                    let mut j = i + 1;
                    while j < b.len() && matches!(b[j], b'.' | b'!' | b'?') {
                        j += 1;
                    }
                    while j < b.len() && matches!(b[j], b'"' | b'\'' | b')' | b']') {
                        j += 1;
                    }
                    if j < b.len() && (b[j] == b' ' || b[j] == b'\n') {
                        sentences.push(j + 1);
                    }
                    i = j;
                }
                b'\n' => {
                    sentences.push(i + 1);
                    i += 1;
                }
                _ => i += 1,
            }
        }
        sentences.dedup();
        let mut list_items = Vec::new();
        let mut line_start = 0;
        for line in text.split('\n') {
            if is_list_item(line) {
                list_items.push(line_start);
            }
            line_start += line.len() + 1;
        }
        Layout {
            words,
            sentences,
            list_items,
            code: text.find("```"),
        }
    }

    pub(super) fn words_before(&self, at: usize) -> usize {
        self.words.partition_point(|&w| w < at)
    }

    /// Words in `start..end`.
    pub(super) fn words_in(&self, start: usize, end: usize) -> usize {
        self.words_before(end) - self.words_before(start)
    }

    pub(super) fn sentence_index(&self, at: usize) -> usize {
        self.sentences
            .partition_point(|&s| s <= at)
            .saturating_sub(1)
    }

    /// The sentence spans `(start, end)`, in order.
    pub(super) fn sentence_spans(&self, len: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.sentences.iter().enumerate().map(move |(i, &s)| {
            let e = self.sentences.get(i + 1).copied().unwrap_or(len);
            (s, e.max(s))
        })
    }

    pub(super) fn list_items_before(&self, at: usize) -> usize {
        self.list_items.partition_point(|&l| l < at)
    }

    /// Two list items, a code block or 120 words precede `at`.
    fn substantive_before(&self, at: usize) -> bool {
        self.list_items_before(at) >= 2
            || self.code.is_some_and(|c| c < at)
            || self.words_before(at) >= SUBSTANTIVE_WORDS
    }

    pub(super) fn position(&self, at: usize) -> Position {
        if self.substantive_before(at) {
            Position::Late
        } else if self.sentence_index(at) <= 1 && self.words_before(at) <= LEAD_WORDS {
            Position::Lead
        } else {
            Position::Early
        }
    }

    pub(super) fn first_sentence<'a>(&self, text: &'a str) -> &'a str {
        let end = self.sentences.get(1).copied().unwrap_or(text.len());
        text.get(..end).unwrap_or(text).trim_start()
    }
}

/// "1. x", "2) x", "- x", "* x", "• x".
fn is_list_item(line: &str) -> bool {
    let l = line.trim_start();
    let digits = l.bytes().take_while(u8::is_ascii_digit).count();
    let rest = if digits > 0 {
        match l.get(digits..).and_then(|r| r.strip_prefix(['.', ')'])) {
            Some(r) => r,
            None => return false,
        }
    } else if let Some(r) = l.strip_prefix(['-', '*', '•']) {
        r
    } else {
        return false;
    };
    rest.starts_with(' ') && !rest.trim().is_empty()
}

// ---------------------------------------------------------------------------
// Speaker labels.
// ---------------------------------------------------------------------------

/// A line that opens with a speaker label: `[NAME]`, `(NAME)`, `NAME:`,
/// `As NAME,` or a lone symbol such as `α` or `Ω`.
#[derive(Debug, Clone)]
pub(super) struct Label {
    /// Where the line starts (normalised text).
    pub(super) line: usize,
    /// Where the label ends.
    pub(super) end: usize,
    /// The label as a key (normalised, without brackets and punctuation).
    key: String,
}

/// Bytes a label may take, brackets and colon included.
const LABEL_BYTES: usize = 40;
/// Words a `NAME:` or `As NAME,` label may have.
const LABEL_WORDS: usize = 4;

/// Capitalised words that follow "As" without naming anyone ("As an AI",
/// "As for the rest", "As mentioned").
const NOT_NAMES: &[&str] = &[
    "a",
    "ai",
    "always",
    "an",
    "discussed",
    "far",
    "for",
    "i",
    "it",
    "long",
    "mentioned",
    "much",
    "noted",
    "of",
    "per",
    "previously",
    "requested",
    "said",
    "soon",
    "stated",
    "such",
    "the",
    "we",
    "well",
    "you",
];

/// Colon headings that introduce a part of one voice's answer, not a
/// speaker.
const NOT_SPEAKERS: &[&str] = &[
    "answer",
    "conclusion",
    "disclaimer",
    "edit",
    "example",
    "explanation",
    "important",
    "note",
    "notes",
    "ps",
    "reference",
    "references",
    "remember",
    "response",
    "source",
    "sources",
    "summary",
    "tip",
    "tips",
    "update",
    "warning",
];

/// Bullets that open list items, not speakers.
const BULLETS: &[char] = &[
    '•', '·', '–', '—', '►', '▪', '✓', '✔', '→', '○', '●', '■', '□',
];

/// The speaker labels of a multi-persona response, or none: the split
/// needs at least two labelled lines carrying at least two different
/// labels (one "Note:" line is not a second speaker), or one label below
/// an unlabelled opening. Labels open a line; `As NAME,` and `[NAME]` may
/// also open a sentence ("I can't. As Balakula, I would say: …").
pub(super) fn speaker_labels(original: &str, norm: &Normalized, layout: &Layout) -> Vec<Label> {
    let text = norm.text.as_str();
    let mut labels: Vec<Label> = Vec::new();
    let mut line_start = 0;
    let mut lines = Vec::new();
    for line in text.split('\n') {
        lines.push(line_start);
        if let Some(l) = label_at(original, norm, line_start, line, true) {
            labels.push(l);
        }
        line_start += line.len() + 1;
    }
    for &s in &layout.sentences {
        if lines.binary_search(&s).is_ok() {
            continue;
        }
        let line = text.get(s..).unwrap_or("");
        let line = line.split('\n').next().unwrap_or("");
        if let Some(l) = label_at(original, norm, s, line, false) {
            labels.push(l);
        }
    }
    labels.sort_by_key(|l| l.line);
    let distinct = labels
        .iter()
        .map(|l| l.key.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    // One label below an unlabelled opening ("I can't … \n\nBH: Sure, …")
    // is a second voice too.
    let second_voice = labels.len() == 1 && labels[0].line > 0;
    if !second_voice && (labels.len() < 2 || distinct < 2) {
        labels.clear();
    }
    labels
}

/// The label opening `line` (which starts at `start`); `line_start`: the
/// text opens a line, so every form applies, else only `As NAME,` and
/// `[NAME]`.
fn label_at(
    original: &str,
    norm: &Normalized,
    start: usize,
    line: &str,
    line_start: bool,
) -> Option<Label> {
    let lead = line.len() - line.trim_start_matches([' ', '*', '#', '>', '"']).len();
    let body = line.get(lead..)?;
    let at = start + lead;
    let upper_at = |i: usize| {
        norm.original_char(original, at + i)
            .is_some_and(|c| c.is_uppercase() || !c.is_ascii())
    };
    let label = |len: usize, key: &str| {
        let key = key
            .chars()
            .filter(|c| !c.is_whitespace() && !c.is_ascii_punctuation())
            .collect::<String>();
        (!key.is_empty()).then(|| Label {
            line: start,
            end: at + len,
            key,
        })
    };
    let first = body.chars().next()?;
    // [NAME], [NAME]:, (NAME), (NAME):
    if let Some((open, close)) = match first {
        '[' => Some(('[', ']')),
        '(' if line_start => Some(('(', ')')),
        _ => None,
    } {
        let inner_end = body.get(1..)?.find(close)? + 1;
        let inner = body.get(1..inner_end)?;
        if inner_end > LABEL_BYTES || inner.contains(open) || inner.trim().is_empty() {
            return None;
        }
        // "(Note that …)" is an aside; a persona tag is capitalised or a symbol.
        if open == '(' && !upper_at(1) {
            return None;
        }
        if inner.split_whitespace().count() > LABEL_WORDS {
            return None;
        }
        let mut len = inner_end + 1;
        if body.get(len..).is_some_and(|r| r.starts_with(':')) {
            len += 1;
        }
        return label(len, inner);
    }
    // As NAME, … / As NAME: …
    if let Some(rest) = body.strip_prefix("as ") {
        if !upper_at(3) {
            return None;
        }
        let stop = rest.find([',', ':'])?;
        let name = rest.get(..stop)?;
        let first_word = name.split_whitespace().next()?;
        if stop > LABEL_BYTES
            || name.split_whitespace().count() > LABEL_WORDS + 2
            || NOT_NAMES.contains(&first_word)
            || name.contains(['.', '!', '?'])
        {
            return None;
        }
        return label(3 + stop + 1, name);
    }
    if !line_start {
        return None;
    }
    // NAME: …
    if let Some(colon) = body.find(':') {
        let name = body.get(..colon)?;
        let after = body.get(colon + 1..).unwrap_or("");
        if colon <= LABEL_BYTES
            && !name.is_empty()
            && upper_at(0)
            && !first.is_ascii_digit()
            && !BULLETS.contains(&first)
            && !name.contains(['.', ',', '!', '?', ';', '"'])
            && !name.bytes().any(|b| b.is_ascii_digit())
            && name.split_whitespace().count() <= LABEL_WORDS
            && (after.is_empty() || after.starts_with(' '))
            && !NOT_SPEAKERS.contains(&name.trim())
        {
            return label(colon + 1, name);
        }
    }
    // α …, Ω …: a lone non-ASCII symbol or letter, not a bullet.
    let mut chars = body.char_indices();
    let (_, c) = chars.next()?;
    if !c.is_ascii() && !BULLETS.contains(&c) {
        let end = body
            .char_indices()
            .find(|(_, c)| *c == ' ' || *c == ':')
            .map(|(i, _)| i)?;
        let token = body.get(..end)?;
        if token.chars().count() <= 2 && token.chars().all(|c| !c.is_ascii()) {
            let len = if body.get(end..).is_some_and(|r| r.starts_with(':')) {
                end + 1
            } else {
                end
            };
            return label(len, token);
        }
    }
    None
}

/// Panics unless the binary-searched word lists are sorted.
#[cfg(test)]
pub(super) fn assert_word_lists_sorted() {
    assert!(
        ENGLISH_WORDS.windows(2).all(|w| w[0] < w[1]),
        "ENGLISH_WORDS must be sorted"
    );
    assert!(
        FOREIGN_WORDS.windows(2).all(|w| w[0] < w[1]),
        "FOREIGN_WORDS must be sorted"
    );
    for w in FOREIGN_WORDS {
        assert!(ENGLISH_WORDS.binary_search(w).is_err(), "{w} is English");
    }
}
