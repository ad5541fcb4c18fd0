//! The forms of Markdown output pactum reads whole: what a measure that
//! held over an output backs only when the output is in one of them.
//!
//! Deterministic measures read headings, paragraphs, list items, GFM
//! tables, emphasis and links. Text a reader sees in any other form (a
//! code block, a line opening with a typed bullet, a bracketed list or a
//! JSON value written in the text, invisible characters) may hold items,
//! fields or words those measures never counted, so a measure that held
//! is no evidence on its own there: the clause goes to the judge (SPEC
//! §3.4: evidence pactum did not read is never read as absence). A
//! measure that failed still fails. Outputs that are one JSON value are
//! read as JSON ([`crate::check::as_json`]), not here.

use pulldown_cmark::{Event, Options, Parser, Tag};

/// Characters that open a line as a list item to a reader although
/// Markdown makes no list of them.
const TYPED_BULLETS: &[char] = &[
    '•', '◦', '▪', '▫', '‣', '⁃', '●', '○', '■', '□', '►', '▸', '▹', '➢', '➤', '➔', '→', '⇒', '✓',
    '✔', '✗', '✘', '☐', '☑', '☒', '⦿', '⦾', '∙', '·', '⋅', '–', '—', '―', '・',
];

/// Why a measure that held over the Markdown output `content` is not
/// evidence on its own: the first form it holds that pactum does not read
/// whole, described for the clause's note. `None` for an output in the
/// forms read (module docs), and for one JSON value.
pub(crate) fn unread_form(content: &str) -> Option<String> {
    if crate::check::as_json(content).is_some() {
        return None;
    }
    let body = content.strip_prefix('\u{feff}').unwrap_or(content);
    if let Some(c) = body
        .chars()
        .find(|c| *c != '\t' && *c != '\n' && pactum_core::text::shown_as_code_point(*c))
    {
        return Some(format!(
            "the output holds an invisible or control character (U+{:04X}), which may change what a reader sees: what it shows is for the judge",
            u32::from(c)
        ));
    }
    let parser = Parser::new_ext(
        body,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS,
    );
    for ev in parser {
        if let Event::Start(Tag::CodeBlock(_)) = ev {
            return Some("the output holds a code block, whose contents (a list, a JSON value, text) pactum does not read as the output's: what it shows is for the judge".into());
        }
    }
    for (n, line) in body.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with(TYPED_BULLETS) {
            return Some(format!(
                "line {} opens with `{}`, which a reader takes for a list item that Markdown does not make one: what the output lists is for the judge",
                n + 1,
                t.chars().next().unwrap_or_default()
            ));
        }
        if written_values(t) {
            return Some(format!(
                "line {} is written like a list or a JSON value (`{}`), whose elements pactum does not read as items or text: what it holds is for the judge",
                n + 1,
                pactum_core::text::truncate_chars(t, 40)
            ));
        }
    }
    None
}

/// Whether a line (trimmed at its start) is written like values of a
/// program rather than Markdown: a JSON object or array (`{"a": 1}`,
/// `[{…}]`, `["a", "b"]`), a bracketed or parenthesised sequence of
/// quoted or bare values (`['a', 'b']`, `[a, b]`, `("a", "b")`), or a
/// quoted string alone (`"Daikin"`, one JSON value a line). A Markdown
/// link or task-list box opening a line (`[text](url)`, `[ ] x`) is none.
fn written_values(t: &str) -> bool {
    let t = t.trim_end();
    let mut chars = t.chars();
    let first = chars.next();
    let second = chars.find(|c| !c.is_whitespace());
    match first {
        Some('{') => true,
        Some('[') => {
            matches!(second, Some('{' | '[' | '"' | '\'' | '\u{201c}'))
                || second.is_some_and(|c| c.is_ascii_digit() || c == '-') && t.ends_with(']')
                || bracketed_sequence(t, '[', ']')
        }
        Some('(') => {
            matches!(second, Some('"' | '\'' | '\u{201c}')) || bracketed_sequence(t, '(', ')')
        }
        Some('"') => {
            t.len() > 1
                && t.ends_with(['"', ','])
                && !t[1..]
                    .trim_end_matches(',')
                    .trim_end_matches('"')
                    .contains('"')
        }
        _ => false,
    }
}

/// Whether `t` is `open`, comma-separated values, `close`, and nothing
/// after (so no Markdown link `[a, b](url)` or reference `[a, b][r]`).
fn bracketed_sequence(t: &str, open: char, close: char) -> bool {
    t.strip_prefix(open)
        .and_then(|r| r.strip_suffix(close))
        .is_some_and(|inner| inner.contains(',') && !inner.contains([open, close]))
}
