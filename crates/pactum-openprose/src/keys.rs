//! Keys a reader sees once Markdown renders (SPEC §4): a key split by an
//! HTML tag (`sk-…<wbr>…`, `<span>…</span>`), by a character reference
//! (`&shy;`) or by a link around part of it reads whole on the page, and
//! is recovered by deleting the markup, though no key-shaped token is
//! written. [`shown_keys`] finds them in the rendered view and names the
//! source text each renders from, so both are redacted.

use std::collections::HashSet;

use aho_corasick::{AhoCorasick, MatchKind};
use pactum_core::secret::{check_secret, key_tokens};
use pactum_core::text::shown_as_code_point;
use pulldown_cmark::{Event, Options, Parser, TagEnd};

/// The keys [`shown_keys`] found in a text's rendered view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownKeys {
    /// Each key as it reads rendered (markup and invisible characters
    /// removed), when the text as written holds no such token: each once,
    /// in text order.
    pub keys: Vec<String>,
    /// The source text each occurrence of a key renders from, from its
    /// first character to its last (the markup between them included),
    /// where it differs from the key: each once.
    pub sources: Vec<String>,
}

impl ShownKeys {
    /// Every secret to redact: the keys, then their sources.
    pub fn secrets(&self) -> impl Iterator<Item = &str> + '_ {
        self.keys.iter().chain(&self.sources).map(String::as_str)
    }
}

/// The rendered view of `text` and, for each of its bytes, the source
/// range it renders from.
struct View {
    text: String,
    from: Vec<(usize, usize)>,
}

impl View {
    fn push(&mut self, c: char, range: (usize, usize)) {
        self.text.push(c);
        for _ in 0..c.len_utf8() {
            self.from.push(range);
        }
    }

    /// `shown` rendered from `src[start..end]`: mapped character by
    /// character when written as is, else each character to the whole
    /// range (a character reference, an escape).
    fn text(&mut self, src: &str, start: usize, end: usize, shown: &str) {
        let exact = src.get(start..end) == Some(shown);
        for (i, c) in shown.char_indices() {
            if unseen(c) {
                continue;
            }
            let range = if exact {
                (start + i, start + i + c.len_utf8())
            } else {
                (start, end)
            };
            self.push(c, range);
        }
    }

    /// The text of raw HTML outside its tags, each character mapped.
    fn html(&mut self, src: &str, start: usize, end: usize, shown: &str) {
        let exact = src.get(start..end) == Some(shown);
        let mut in_tag = false;
        for (i, c) in shown.char_indices() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                _ if in_tag || unseen(c) => {}
                _ => {
                    let range = if exact {
                        (start + i, start + i + c.len_utf8())
                    } else {
                        (start, end)
                    };
                    self.push(c, range);
                }
            }
        }
    }

    /// A break no key spans (a blank line).
    fn part(&mut self, at: usize) {
        self.push('\n', (at, at));
        self.push('\n', (at, at));
    }
}

/// Characters a reader does not see (controls but line breaks and tabs,
/// format and default-ignorable characters: a soft hyphen, a zero-width
/// space).
fn unseen(c: char) -> bool {
    shown_as_code_point(c) && !matches!(c, '\n' | '\t' | '\r')
}

/// The rendered view of `src`: text and code as shown (character
/// references decoded), HTML tags and comments removed (a tag that joins
/// text joins it; one that breaks a line may not, but deleting it
/// recovers the key), link text joined to what surrounds it, a blank line
/// between blocks.
fn view(src: &str) -> View {
    let mut v = View {
        text: String::with_capacity(src.len()),
        from: Vec::with_capacity(src.len()),
    };
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_TASKLISTS;
    for (ev, r) in Parser::new_ext(src, opts).into_offset_iter() {
        match ev {
            Event::Text(t) | Event::Code(t) => v.text(src, r.start, r.end, &t),
            Event::Html(t) | Event::InlineHtml(t) => v.html(src, r.start, r.end, &t),
            Event::SoftBreak | Event::HardBreak => v.push('\n', (r.start, r.end)),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::TableCell
                | TagEnd::CodeBlock
                | TagEnd::HtmlBlock
                | TagEnd::BlockQuote(_)
                | TagEnd::FootnoteDefinition,
            ) => v.part(r.end),
            _ => {}
        }
    }
    v.from.push((src.len(), src.len()));
    v
}

/// The keys (`pactum_core::secret::key_tokens`) a reader sees in `text`
/// rendered as Markdown that the text as written does not hold as
/// tokens, and the source text each renders from. Linear in `text` plus
/// the matches.
pub fn shown_keys(text: &str) -> ShownKeys {
    let mut out = ShownKeys::default();
    // Only text with markup can render a key its source does not show.
    if !text.contains(['<', '&', '[', '\\']) {
        return out;
    }
    let written: HashSet<String> = key_tokens(text).into_iter().collect();
    let v = view(text);
    let mut all: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut sources: HashSet<String> = HashSet::new();
    for k in key_tokens(&v.text) {
        if check_secret(&k).is_err() || !seen.insert(k.clone()) {
            continue;
        }
        if !written.contains(&k) {
            out.keys.push(k.clone());
        }
        all.push(k);
    }
    if all.is_empty() {
        return out;
    }
    let Ok(ac) = AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(&all)
    else {
        return out;
    };
    for m in ac.find_iter(&v.text) {
        let (Some(first), Some(last)) = (v.from.get(m.start()), v.from.get(m.end() - 1)) else {
            continue;
        };
        let Some(source) = text.get(first.0..last.1.max(first.0)) else {
            continue;
        };
        if source != all[m.pattern().as_usize()]
            && check_secret(source).is_ok()
            && sources.insert(source.to_string())
        {
            out.sources.push(source.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-ABCDEF0123456789abcdef0123456789";

    #[test]
    fn keys_split_by_markup_are_found_with_their_source() {
        for (written, source) in [
            (
                "Key sk-proj-ABCDEF<wbr>0123456789abcdef0123456789 end.",
                "sk-proj-ABCDEF<wbr>0123456789abcdef0123456789",
            ),
            (
                "Key sk-proj-ABCDEF<span>0123456789abcdef0123456789</span> end.",
                "sk-proj-ABCDEF<span>0123456789abcdef0123456789",
            ),
            (
                "Key sk-proj-ABCDEF&shy;0123456789abcdef0123456789 end.",
                "sk-proj-ABCDEF&shy;0123456789abcdef0123456789",
            ),
            (
                "Key sk-proj-ABCDEF[0123456789abcdef0123456789](x) end.",
                "sk-proj-ABCDEF[0123456789abcdef0123456789",
            ),
        ] {
            let found = shown_keys(written);
            assert_eq!(found.keys, vec![KEY.to_string()], "{written}");
            assert_eq!(found.sources, vec![source.to_string()], "{written}");
        }
    }

    #[test]
    fn plain_text_and_written_keys_add_nothing() {
        assert_eq!(shown_keys("no markup here"), ShownKeys::default());
        assert_eq!(shown_keys(&format!("<b>{KEY}</b>")), ShownKeys::default());
        assert_eq!(
            shown_keys("a <b>b</b> [c](d) &amp; e"),
            ShownKeys::default()
        );
    }
}
