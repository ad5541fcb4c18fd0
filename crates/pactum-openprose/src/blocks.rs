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
                    _ => {}
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
                    marked_depth = marked_depth.saturating_sub(1);
                    if marked_depth == 0 {
                        let t = std::mem::take(&mut marked_text);
                        if let Some(b) = open.last_mut() {
                            if !t.trim().is_empty() {
                                b.marked.push(t.trim().to_string());
                            }
                        }
                    }
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
                if marked_depth > 0 {
                    marked_text.push_str(&t);
                }
            }
            Event::Code(t) => {
                if let Some(b) = open.last_mut() {
                    b.text.push_str(&t);
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
            ]
        );
        assert_eq!(b[1].marked, vec!["mary".to_string(), "90".to_string()]);
    }
}
