//! A contract's text read block by block as a Markdown renderer shows
//! it (`pulldown-cmark`, tables on): each paragraph, heading, list
//! item's own text and table row, its lines joined and its markup gone
//! (`The sum**mary** has at` / `least 90 words.` reads `The summary has
//! at least 90 words.`). The line-by-line reader of [`crate::contract`]
//! finds the sections; this one finds, outside the sections of clauses,
//! a commitment however it is wrapped or marked up.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// One block of rendered text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    /// 1-based line the block starts on.
    pub line: usize,
    /// `Some(level)` for a heading.
    pub heading: Option<usize>,
    /// Its text as shown: code spans' text kept, breaks as spaces, tags
    /// and markup dropped.
    pub text: String,
    /// The texts it shows in code or emphasis (`` `summary` ``,
    /// `**summary**`).
    pub marked: Vec<String>,
    /// A list item's own text (its text, or its first paragraph), not a
    /// paragraph of its own after it.
    pub item: bool,
}

/// Every block of `text` with text of its own, in order. Code blocks and
/// HTML blocks are not read (the line reader reads HTML headings).
pub(crate) fn blocks(text: &str) -> Vec<Block> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| starts.partition_point(|&s| s <= offset);
    let mut out = Vec::new();
    let mut open: Vec<Block> = Vec::new();
    // How deep inside emphasis, strong or struck text the events are.
    let mut marked_depth = 0usize;
    let mut marked_text = String::new();
    // An HTML block being read: its first line and its text.
    let mut html: Option<(usize, String)> = None;
    // A table being read whole.
    let mut table: Option<Block> = None;
    let parser = Parser::new_ext(
        text,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS,
    );
    for (event, range) in parser.into_offset_iter() {
        match event {
            Event::Start(tag) => {
                let heading = match &tag {
                    Tag::Heading { level, .. } => Some(*level as usize),
                    _ => None,
                };
                match tag {
                    Tag::Paragraph
                    | Tag::Heading { .. }
                    | Tag::Item
                    | Tag::TableHead
                    | Tag::TableRow => {
                        let line = line_of(range.start);
                        let item = matches!(tag, Tag::Item)
                            || (matches!(tag, Tag::Paragraph)
                                && open.last().is_some_and(|b| b.item && b.line == line));
                        open.push(Block {
                            line,
                            heading,
                            text: String::new(),
                            marked: Vec::new(),
                            item,
                        })
                    }
                    // A list inside an item ends the item's own text.
                    Tag::List(_) => {
                        if let Some(b) = open.last_mut() {
                            b.text.push(' ');
                        }
                    }
                    Tag::Emphasis | Tag::Strong | Tag::Strikethrough => {
                        marked_depth += 1;
                    }
                    Tag::HtmlBlock => {
                        html = Some((line_of(range.start), String::new()));
                    }
                    // A table is read whole as well: a unit in its header
                    // and a number in a row are one statement.
                    Tag::Table(_) => {
                        table = Some(Block {
                            line: line_of(range.start),
                            heading: None,
                            text: String::new(),
                            marked: Vec::new(),
                            item: false,
                        });
                    }
                    _ => {}
                }
            }
            Event::End(TagEnd::Table) => {
                if let Some(mut t) = table.take() {
                    t.text = t.text.split_whitespace().collect::<Vec<_>>().join(" ");
                    if !t.text.is_empty() {
                        out.push(t);
                    }
                }
            }
            Event::End(TagEnd::HtmlBlock) => {
                if let Some((line, raw)) = html.take() {
                    let (text, marked) = html_text(&raw);
                    if !text.is_empty() {
                        out.push(Block {
                            line,
                            heading: None,
                            text,
                            marked,
                            item: false,
                        });
                    }
                }
            }
            Event::Html(t) => {
                if let Some((_, raw)) = html.as_mut() {
                    raw.push_str(&t);
                }
            }
            Event::InlineHtml(t) => {
                // `<code>summary</code>`, `<em>summary</em>` mark a name as
                // `` `summary` `` does.
                match marking_tag(&t) {
                    Some(true) => marked_depth += 1,
                    Some(false) => close_mark(&mut marked_depth, &mut marked_text, &mut open),
                    None => {}
                }
            }
            Event::End(tag) => match tag {
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::TableHead
                | TagEnd::TableRow => {
                    if let Some(mut b) = open.pop() {
                        b.text = b.text.split_whitespace().collect::<Vec<_>>().join(" ");
                        if !b.text.is_empty() {
                            out.push(b);
                        }
                    }
                }
                TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                    close_mark(&mut marked_depth, &mut marked_text, &mut open);
                }
                TagEnd::TableCell => {
                    if let Some(b) = open.last_mut() {
                        b.text.push_str(" | ");
                    }
                }
                _ => {}
            },
            Event::Text(t) => {
                if let Some(b) = open.last_mut() {
                    b.text.push_str(&t);
                }
                if let Some(b) = table.as_mut() {
                    b.text.push_str(&t);
                    b.text.push(' ');
                }
                if marked_depth > 0 {
                    marked_text.push_str(&t);
                }
            }
            Event::Code(t) => {
                if let Some(b) = open.last_mut() {
                    b.text.push_str(&t);
                    b.marked.push(t.to_string());
                }
                if let Some(b) = table.as_mut() {
                    b.text.push_str(&t);
                    b.text.push(' ');
                    b.marked.push(t.to_string());
                }
                if marked_depth > 0 {
                    marked_text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(b) = open.last_mut() {
                    b.text.push(' ');
                }
            }
            _ => {}
        }
    }
    out
}

/// Ends one level of marking (emphasis, a marking tag): the text the
/// outermost level held is a marked text of the open block.
fn close_mark(depth: &mut usize, text: &mut String, open: &mut [Block]) {
    *depth = depth.saturating_sub(1);
    if *depth == 0 {
        let t = std::mem::take(text);
        if let Some(b) = open.last_mut() {
            if !t.trim().is_empty() {
                b.marked.push(t.trim().to_string());
            }
        }
    }
}

/// The tags that show their text marked as code or emphasis.
const MARKING: &[&str] = &[
    "code", "em", "strong", "b", "i", "kbd", "var", "samp", "tt", "mark", "u", "cite", "dfn",
];

/// `Some(true)` for an opening marking tag (`<code>`, `<em class=x>`),
/// `Some(false)` for a closing one, `None` for any other text.
fn marking_tag(t: &str) -> Option<bool> {
    let t = t.trim();
    let inner = t.strip_prefix('<')?.strip_suffix('>')?;
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let name: String = inner
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    MARKING.contains(&name.as_str()).then_some(!closing)
}

/// An HTML block's text as shown: its tags dropped (each a space),
/// character references decoded, white space folded; and the texts its
/// marking tags hold.
fn html_text(raw: &str) -> (String, Vec<String>) {
    use std::sync::LazyLock;
    static TAG: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^<>]*>")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let mut text = String::new();
    let mut marked = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    let mut at = 0;
    for c in TAG.captures_iter(raw) {
        let (Some(whole), Some(name)) = (c.get(0), c.get(2)) else {
            continue;
        };
        let piece = &raw[at..whole.start()];
        text.push_str(piece);
        if depth > 0 {
            current.push_str(piece);
        }
        at = whole.end();
        let name = name.as_str().to_ascii_lowercase();
        // Inline tags join what they stand between; block tags part it.
        if !MARKING.contains(&name.as_str())
            && !matches!(
                name.as_str(),
                "a" | "span" | "sub" | "sup" | "small" | "abbr"
            )
        {
            text.push(' ');
        }
        if MARKING.contains(&name.as_str()) {
            if c.get(1).is_some_and(|m| m.as_str() == "/") {
                depth = depth.saturating_sub(1);
                if depth == 0 && !current.trim().is_empty() {
                    marked.push(crate::check::decode_entities(current.trim()).into_owned());
                    current.clear();
                }
            } else {
                depth += 1;
            }
        }
    }
    text.push_str(&raw[at..]);
    let text = crate::check::decode_entities(&text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (text, marked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_reads_as_rendered_whatever_its_lines_and_markup() {
        let b = blocks(
            "## Notes\n\nThe sum**mary** has at\nleast `90`\\\nwords.\n\n- a bullet\n  continued\n  - nested\n\n| a | b |\n|---|---|\n| c | d |\n",
        );
        let texts: Vec<(usize, Option<usize>, &str)> = b
            .iter()
            .map(|b| (b.line, b.heading, b.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            vec![
                (1, Some(2), "Notes"),
                (3, None, "The summary has at least 90 words."),
                (9, None, "nested"),
                (7, None, "a bullet continued"),
                (11, None, "a | b |"),
                (13, None, "c | d |"),
                (11, None, "a b c d"),
            ]
        );
        assert_eq!(b[1].marked, vec!["mary".to_string(), "90".to_string()]);
    }

    #[test]
    fn html_blocks_and_tags_read_as_shown() {
        let b = blocks(
            "<p>The summary has at least\n90 words.</p>\n\nThen write the <code>summary</code> with 90+ words.\n\n<table><tr><th>output</th><th>min words</th></tr><tr><td>summary</td><td>90</td></tr></table>\n",
        );
        let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "The summary has at least 90 words.",
                "Then write the summary with 90+ words.",
                "output min words summary 90",
            ]
        );
        assert_eq!(b[1].marked, vec!["summary".to_string()]);
        assert_eq!(b[0].line, 1);
        assert_eq!(b[2].line, 6);
    }
}
