//! What a Markdown output renders as, read with a CommonMark/GFM parser
//! (`pulldown-cmark`, tables on): the list items, headings, paragraphs,
//! table rows and words a reader sees, wherever they render (in a
//! blockquote, a list item, a list indented by up to three spaces), and
//! the HTML the counts do not read. The structural counts of
//! [`crate::check`] are taken here, each as a range (SPEC §3.4: a count
//! that cannot be exact over what renders is not decided).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use regex::Regex;

/// One unit that renders (an item, a heading, a paragraph, a row): its
/// text as shown and the first source line it starts on, for a quote.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    /// The rendered text (character references decoded, marks removed).
    pub text: String,
    /// The first line of the source it renders from, trimmed.
    pub line: String,
    /// It shows an image (Markdown `![…](…)` or `<img>`): something is
    /// shown, whatever its text.
    pub image: bool,
}

/// A GFM table: its header cells' texts and its body rows.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Piece>,
    /// Each body row's cells, as rendered.
    pub cells: Vec<Vec<String>>,
}

/// What an output renders as. Units are kept as written (blank and
/// placeholder ones too); [`meaningful`] tells which a reader can use.
#[derive(Debug, Default)]
pub(crate) struct Rendered {
    /// Items of lists not nested in another list (in any blockquote).
    pub items: Vec<Piece>,
    /// Top-level lists, grouped where only blank lines part them: for
    /// each group, whether each of its lists is numbered.
    pub groups: Vec<Vec<bool>>,
    /// The first item line of each group.
    pub group_lines: Vec<String>,
    /// The items of each group with text a reader can use.
    pub group_items: Vec<usize>,
    /// A numbered / bulleted list renders anywhere (nested too).
    pub any_ordered: bool,
    pub any_bullet: bool,
    pub headings: Vec<Piece>,
    /// Paragraphs outside list items.
    pub paragraphs: Vec<Piece>,
    pub tables: Vec<Table>,
    /// Words shown, tags that join text joining it.
    pub words_lo: u64,
    /// Words shown with every tag a separator, counted high
    /// ([`words_high`]), plus the words of HTML blocks (which the parser
    /// does not render as Markdown).
    pub words_hi: u64,
    /// Lower-case names of the HTML tags written (blocks and inline).
    pub tags: BTreeSet<String>,
    /// HTML headings (`<h1>`…`<h6>` opening tags).
    pub html_headings: u64,
    /// URLs in text outside code (`www.` autolinks too), and the
    /// destinations of links whose text shows something (a link with
    /// empty or invisible text is nothing a reader can click).
    pub urls: Vec<String>,
    /// Images that render (Markdown `![…](…)`).
    pub images: u64,
    /// A footnote definition renders (at the end of the page): its
    /// content is not placed in the counts, so no upper bound is decided.
    pub footnotes: bool,
    /// Paragraphs inside list items (not in `paragraphs`).
    pub item_paragraphs: u64,
    /// The text shown, inline markup (a comment, a link, a tag that does
    /// not break text) joining what is on either side.
    pub plain: String,
    /// The text of raw HTML (blocks and inline), tags removed and
    /// character references decoded: shown by a browser, not in `plain`.
    pub html_text: String,
    /// A list renders inside a list item.
    pub nested_lists: bool,
    /// An HTML block shows text of its own (`<!-- c --> text` on one
    /// line is one HTML block): a block a browser shows that no count of
    /// paragraphs sees.
    pub html_block_text: bool,
}

static TAG_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)<(/?)([a-z][a-z0-9-]*)").unwrap_or_else(|_| unreachable!("valid pattern"))
});
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"https?://[^\s)\]>"'|<]+"#).unwrap_or_else(|_| unreachable!("valid pattern"))
});
/// A GFM extended autolink: `www.` after a line start, a space or an
/// opening mark, and what follows up to a space or a closing mark.
static WWW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?:^|[\s*_~(])(www\.[^\s)\]>"'|<]+)"#)
        .unwrap_or_else(|_| unreachable!("valid pattern"))
});

/// The URLs GFM links in `text` outside code and links: those with a
/// scheme, and `www.` ones (read as `http://www.…`).
fn text_urls(text: &str) -> impl Iterator<Item = String> + '_ {
    URL.find_iter(text).map(|m| m.as_str().to_string()).chain(
        WWW.captures_iter(text)
            .filter_map(|c| c.get(1))
            .map(|m| format!("http://{}", m.as_str())),
    )
}

/// Whether `s` shows anything: a character that is neither white space
/// nor one pactum shows as a code point (a zero-width space, a soft
/// hyphen draws as nothing).
pub(crate) fn shows_something(s: &str) -> bool {
    s.chars()
        .any(|c| !c.is_whitespace() && !pactum_core::text::shown_as_code_point(c))
}

static ANY_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<[^>]*>").unwrap_or_else(|_| unreachable!("valid pattern")));

/// Tags a renderer breaks text at: words on either side are apart.
fn breaks_text(name: &str) -> bool {
    matches!(
        name,
        "br" | "p"
            | "div"
            | "li"
            | "td"
            | "th"
            | "tr"
            | "hr"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "table"
            | "ul"
            | "ol"
            | "dt"
            | "dd"
            | "blockquote"
            | "pre"
            | "img"
    )
}

/// Words as spaces part them (the low count): a run of non-space
/// characters with a letter or digit.
fn words(s: &str) -> u64 {
    s.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count() as u64
}

/// A character of a script written without spaces between words (Han,
/// kana, Hangul, Thai, Lao, Khmer, Myanmar, Tibetan, Yi…): each is
/// counted as a word in the high count.
pub(crate) fn unspaced_script(c: char) -> bool {
    matches!(c,
        '\u{0e00}'..='\u{0eff}' // Thai, Lao
        | '\u{0f00}'..='\u{0fff}' // Tibetan
        | '\u{1000}'..='\u{109f}' // Myanmar
        | '\u{1100}'..='\u{11ff}' // Hangul Jamo
        | '\u{1780}'..='\u{17ff}' // Khmer
        | '\u{19e0}'..='\u{19ff}' // Khmer symbols
        | '\u{1a20}'..='\u{1aaf}' // Tai Tham
        | '\u{2e80}'..='\u{2fdf}' // CJK radicals
        | '\u{3040}'..='\u{31ff}' // kana, Bopomofo, Hangul compatibility Jamo
        | '\u{3400}'..='\u{4dbf}' // CJK extension A
        | '\u{4e00}'..='\u{9fff}' // CJK unified ideographs
        | '\u{a000}'..='\u{a4cf}' // Yi
        | '\u{a960}'..='\u{a97f}' // Hangul Jamo extended
        | '\u{aa60}'..='\u{aa7f}' // Myanmar extended
        | '\u{ac00}'..='\u{d7ff}' // Hangul syllables
        | '\u{f900}'..='\u{faff}' // CJK compatibility ideographs
        | '\u{ff66}'..='\u{ffdc}' // half-width kana and Hangul
        | '\u{1b000}'..='\u{1b16f}' // kana supplement
        | '\u{20000}'..='\u{3134f}' // CJK extensions B–H
    )
}

/// A letter of a script whose words spaces (or marks) part: Latin,
/// Greek, Cyrillic, Armenian, Hebrew, Arabic, Syriac, Thaana, N'Ko, the
/// Indic scripts of India and Sri Lanka, Georgian, Ethiopic, Cherokee,
/// Canadian syllabics, Mongolian, Tifinagh, Coptic, Glagolitic, and
/// their compatibility and mathematical forms.
fn spaced_script(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{7ff}' // Latin to N'Ko
        | '\u{860}'..='\u{dff}' // Syriac, Arabic extensions, Indic
        | '\u{10a0}'..='\u{10ff}' // Georgian
        | '\u{1200}'..='\u{139f}' // Ethiopic
        | '\u{13a0}'..='\u{18ff}' // Cherokee, syllabics, Ogham, Runic, Mongolian
        | '\u{1c80}'..='\u{1cbf}' // Cyrillic C, Georgian extended
        | '\u{1d00}'..='\u{1fff}' // phonetic, Latin and Greek extended
        | '\u{2070}'..='\u{218f}' // super- and subscripts, letterlike, number forms
        | '\u{2460}'..='\u{24ff}' // enclosed letters
        | '\u{2c00}'..='\u{2d7f}' // Glagolitic, Latin C, Coptic, Georgian, Tifinagh
        | '\u{2de0}'..='\u{2dff}' // Cyrillic A
        | '\u{3000}'..='\u{303f}' // CJK symbols (the iteration mark 々)
        | '\u{a640}'..='\u{a69f}' // Cyrillic B
        | '\u{a720}'..='\u{a7ff}' // Latin D
        | '\u{a8e0}'..='\u{a8ff}' // Devanagari extended
        | '\u{ab30}'..='\u{abbf}' // Latin E, Cherokee supplement
        | '\u{fb00}'..='\u{fdff}' // presentation forms
        | '\u{fe70}'..='\u{feff}' // Arabic presentation forms B
        | '\u{ff00}'..='\u{ff65}' // fullwidth forms
        | '\u{1d400}'..='\u{1d7ff}' // mathematical letters
        | '\u{1f100}'..='\u{1f1ff}' // enclosed letters supplement
    )
}

/// The first letter of `s` whose script pactum cannot part into words:
/// written without spaces ([`unspaced_script`] lists those it splits) or
/// unknown (Javanese, Balinese, Buginese…). A word count over such text
/// is not decided.
pub(crate) fn unparted_letter(s: &str) -> Option<char> {
    s.chars()
        .find(|c| c.is_alphabetic() && !spaced_script(*c) && !unspaced_script(*c))
}

/// Words counted high: every character of a script written without
/// spaces a word ([`unspaced_script`]), and other runs of letters and
/// digits split at every other character (a hyphen, a slash, a dot, an
/// underscore, an apostrophe, a word joiner), combining marks part of
/// the letter before them.
pub(crate) fn words_high(s: &str) -> u64 {
    let mut n = 0u64;
    let mut in_word = false;
    for c in s.chars() {
        if unspaced_script(c) {
            if c.is_alphanumeric() {
                n += 1;
            }
            in_word = false;
        } else if c.is_alphanumeric() {
            if !in_word {
                n += 1;
            }
            in_word = true;
        } else if !(in_word && unicode_normalization::char::is_combining_mark(c)) {
            in_word = false;
        }
    }
    n
}

fn source_line(content: &str, at: usize) -> String {
    content
        .get(at..)
        .and_then(|r| r.lines().next())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// A block being read: what kind, where its text goes.
enum Open {
    Item { top: bool, at: usize },
    Heading(usize),
    Paragraph { counted: bool, at: usize },
    Cell,
    Row { head: bool, at: usize },
    Other,
}

/// Reads `content` as CommonMark with GFM tables. Linear in its length.
pub(crate) fn render(content: &str) -> Rendered {
    let mut r = Rendered::default();
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    opts.insert(Options::ENABLE_FOOTNOTES);
    let mut lo = String::new();
    let mut hi = String::new();
    let mut html_words = 0u64;
    // Open blocks, with a text buffer each and whether an image shows
    // in it.
    let mut stack: Vec<(Open, String, bool)> = Vec::new();
    let mut list_depth = 0usize;
    let mut item_depth = 0usize;
    let mut code = 0usize;
    let mut image = 0usize;
    // Inside a link: a URL written as its text is not where it leads.
    let mut link = 0usize;
    // Open links: each destination, and whether its text shows anything.
    let mut links: Vec<(String, bool)> = Vec::new();
    // Per container: whether its last block was a top-level list.
    let mut last_was_list: Vec<bool> = vec![false];
    let mut header: Vec<String> = Vec::new();
    let mut cells: Vec<String> = Vec::new();
    // Inside a footnote definition: shown at the end of the page, its
    // lists, tables, headings and paragraphs are in no count.
    let mut footnote = 0usize;
    let push_text = |stack: &mut Vec<(Open, String, bool)>, s: &str| {
        for (_, buf, _) in stack.iter_mut() {
            buf.push_str(s);
        }
    };
    for (ev, range) in Parser::new_ext(content, opts).into_offset_iter() {
        let block = matches!(ev, Event::Html(_));
        match ev {
            Event::Start(tag) => {
                let block = !matches!(
                    tag,
                    Tag::Emphasis
                        | Tag::Strong
                        | Tag::Strikethrough
                        | Tag::Link { .. }
                        | Tag::Image { .. }
                        | Tag::Superscript
                        | Tag::Subscript
                );
                if block {
                    lo.push(' ');
                    hi.push(' ');
                }
                // A block starting in a container other than a top list
                // parts the lists before it from those after.
                if block && !matches!(tag, Tag::List(_)) && !matches!(tag, Tag::Item) {
                    if let Some(l) = last_was_list.last_mut() {
                        if list_depth == 0 {
                            *l = false;
                        }
                    }
                }
                let open = match tag {
                    Tag::List(start) => {
                        r.nested_lists |= item_depth > 0;
                        if start.is_some() {
                            r.any_ordered = true;
                        } else {
                            r.any_bullet = true;
                        }
                        if list_depth == 0 && footnote == 0 {
                            let adjacent = last_was_list.last().copied().unwrap_or(false);
                            if adjacent {
                                if let Some(g) = r.groups.last_mut() {
                                    g.push(start.is_some());
                                }
                            } else {
                                r.groups.push(vec![start.is_some()]);
                                r.group_lines.push(source_line(content, range.start));
                                r.group_items.push(0);
                            }
                        }
                        list_depth += 1;
                        Open::Other
                    }
                    Tag::Item => {
                        item_depth += 1;
                        last_was_list.push(false);
                        Open::Item {
                            top: list_depth == 1,
                            at: range.start,
                        }
                    }
                    Tag::BlockQuote(_) | Tag::FootnoteDefinition(_) => {
                        if matches!(tag, Tag::FootnoteDefinition(_)) {
                            r.footnotes = true;
                            footnote += 1;
                        }
                        last_was_list.push(false);
                        Open::Other
                    }
                    Tag::Heading { .. } => Open::Heading(range.start),
                    Tag::Paragraph => Open::Paragraph {
                        counted: item_depth == 0,
                        at: range.start,
                    },
                    Tag::CodeBlock(_) => {
                        code += 1;
                        Open::Other
                    }
                    Tag::Image { .. } => {
                        image += 1;
                        r.images += 1;
                        stack.iter_mut().for_each(|(_, _, img)| *img = true);
                        // An image is something to click.
                        links.iter_mut().for_each(|l| l.1 = true);
                        Open::Other
                    }
                    Tag::Link { dest_url, .. } => {
                        link += 1;
                        links.push((dest_url.to_string(), false));
                        Open::Other
                    }
                    Tag::Table(_) if footnote == 0 => {
                        r.tables.push(Table {
                            header: Vec::new(),
                            rows: Vec::new(),
                            cells: Vec::new(),
                        });
                        Open::Other
                    }
                    Tag::TableHead => {
                        cells.clear();
                        Open::Row {
                            head: true,
                            at: range.start,
                        }
                    }
                    Tag::TableRow => {
                        cells.clear();
                        Open::Row {
                            head: false,
                            at: range.start,
                        }
                    }
                    Tag::TableCell => Open::Cell,
                    _ => Open::Other,
                };
                stack.push((open, String::new(), false));
            }
            Event::End(end) => {
                let Some((open, text, image_shown)) = stack.pop() else {
                    continue;
                };
                let inline = matches!(
                    end,
                    TagEnd::Emphasis
                        | TagEnd::Strong
                        | TagEnd::Strikethrough
                        | TagEnd::Link
                        | TagEnd::Image
                        | TagEnd::Superscript
                        | TagEnd::Subscript
                );
                if !inline {
                    lo.push(' ');
                    hi.push(' ');
                }
                match end {
                    TagEnd::List(_) => {
                        list_depth = list_depth.saturating_sub(1);
                        if list_depth == 0 {
                            if let Some(l) = last_was_list.last_mut() {
                                *l = true;
                            }
                        }
                    }
                    TagEnd::Item => {
                        item_depth = item_depth.saturating_sub(1);
                        last_was_list.pop();
                    }
                    TagEnd::BlockQuote(_) | TagEnd::FootnoteDefinition => {
                        if end == TagEnd::FootnoteDefinition {
                            footnote = footnote.saturating_sub(1);
                        }
                        last_was_list.pop();
                    }
                    TagEnd::CodeBlock => code = code.saturating_sub(1),
                    TagEnd::Image => image = image.saturating_sub(1),
                    TagEnd::Link => {
                        link = link.saturating_sub(1);
                        if let Some((dest, true)) = links.pop() {
                            r.urls.push(dest);
                        }
                    }
                    TagEnd::TableCell => cells.push(text.trim().to_string()),
                    TagEnd::TableHead => header = std::mem::take(&mut cells),
                    TagEnd::Table if footnote == 0 => {
                        if let Some(t) = r.tables.last_mut() {
                            t.header = std::mem::take(&mut header);
                        }
                    }
                    _ => {}
                }
                match open {
                    // A footnote's own blocks (its end closes it first).
                    _ if footnote > 0 => {}
                    Open::Item { top: true, at } => {
                        if meaningful(&text) {
                            if let Some(n) = r.group_items.last_mut() {
                                *n += 1;
                            }
                        }
                        r.items.push(Piece {
                            text,
                            line: source_line(content, at),
                            image: image_shown,
                        });
                    }
                    Open::Heading(at) => r.headings.push(Piece {
                        text,
                        line: source_line(content, at),
                        image: image_shown,
                    }),
                    Open::Paragraph { counted: false, .. }
                        if text.chars().any(|c| !c.is_whitespace()) =>
                    {
                        r.item_paragraphs += 1;
                    }
                    Open::Paragraph { counted: true, at } => r.paragraphs.push(Piece {
                        text,
                        line: source_line(content, at),
                        image: image_shown,
                    }),
                    Open::Row { head: false, at } => {
                        if let Some(t) = r.tables.last_mut() {
                            let row = std::mem::take(&mut cells);
                            // Cells parted by `|` as written, so that a cell
                            // is a part of the row ([`crate::check::said_part`]).
                            let text = row
                                .iter()
                                .map(|c| c.trim())
                                .filter(|c| !c.is_empty())
                                .collect::<Vec<_>>()
                                .join(" | ");
                            t.rows.push(Piece {
                                text,
                                line: source_line(content, at),
                                image: image_shown,
                            });
                            t.cells.push(row);
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(t) => {
                if image > 0 {
                    // Alt text is not shown.
                    continue;
                }
                if code == 0 && link == 0 {
                    r.urls.extend(text_urls(&t));
                }
                if !links.is_empty() && shows_something(&t) {
                    links.iter_mut().for_each(|l| l.1 = true);
                }
                lo.push_str(&t);
                hi.push_str(&t);
                push_text(&mut stack, &t);
            }
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                if !links.is_empty() && shows_something(&t) {
                    links.iter_mut().for_each(|l| l.1 = true);
                }
                lo.push_str(&t);
                hi.push_str(&t);
                push_text(&mut stack, &t);
            }
            Event::SoftBreak | Event::HardBreak => {
                lo.push(' ');
                hi.push(' ');
                push_text(&mut stack, " ");
            }
            Event::Rule => {
                lo.push(' ');
                hi.push(' ');
                if let Some(l) = last_was_list.last_mut() {
                    if list_depth == 0 {
                        *l = false;
                    }
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                let mut breaks = false;
                let mut img = false;
                for c in TAG_NAME.captures_iter(&h) {
                    let name = c.get(2).map_or("", |m| m.as_str()).to_ascii_lowercase();
                    if c.get(1).is_some_and(|m| m.is_empty())
                        && matches!(name.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
                    {
                        r.html_headings += 1;
                    }
                    breaks |= breaks_text(&name);
                    img |= name == "img";
                    r.tags.insert(name);
                }
                if img {
                    stack.iter_mut().for_each(|(_, _, shown)| *shown = true);
                }
                let stripped = ANY_TAG.replace_all(&h, " ");
                let decoded = crate::check::decode_entities(&stripped);
                // HTML in a link's text (an `<img>`, text) may show it.
                if !links.is_empty() && (img || shows_something(&decoded)) {
                    links.iter_mut().for_each(|l| l.1 = true);
                }
                if block
                    && ANY_TAG
                        .replace_all(&crate::check::without_comments(&h), " ")
                        .chars()
                        .any(char::is_alphanumeric)
                {
                    r.html_block_text = true;
                }
                if decoded.chars().any(char::is_alphanumeric) {
                    r.html_text.push_str(&decoded);
                    r.html_text.push(' ');
                    html_words += words_high(&decoded);
                    // Text inside HTML is a separate piece of a unit.
                    push_text(&mut stack, &decoded);
                }
                if breaks {
                    lo.push(' ');
                    push_text(&mut stack, " ");
                }
                hi.push(' ');
            }
            Event::FootnoteReference(_) | Event::TaskListMarker(_) => {}
        }
    }
    r.words_lo = words(&lo);
    r.plain = lo;
    r.words_hi = words_high(&hi) + html_words;
    r
}

/// An unfilled template slot, as template engines write one: `{{name}}`,
/// `{{ name }}`, `{% … %}`.
static TEMPLATE_SLOT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{[^{}\n]{0,80}\}\}|\{%[^%\n]{0,80}%\}")
        .unwrap_or_else(|_| unreachable!("valid pattern"))
});

/// A slot alone ([`TEMPLATE_SLOT`], `${name}`, `{name}`), or a fill-in
/// blank (`____`).
static SLOT_ALONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\{\{[^{}\n]{0,80}\}\}|\{%[^%\n]{0,80}%\}|\$\{[^{}\n]{1,80}\}|\{[\p{L}_][\p{L}\p{N}_ .-]{0,40}\}|_{3,})$",
    )
    .unwrap_or_else(|_| unreachable!("valid pattern"))
});

/// Whether `t` holds an unfilled template slot (`{{body}}`, `{% if %}`)
/// anywhere: a template, or part of one, left unfilled.
pub(crate) fn holds_template_slot(t: &str) -> bool {
    TEMPLATE_SLOT.is_match(t)
}

/// Placeholders written where content should be (`N/A`, `N/A.`,
/// `[insert …]`, `???`, `not specified`), an unfilled template slot
/// alone (`{{body}}`, `{{ title }}`, `${name}`, `{name}`) or a fill-in
/// blank (`____`).
pub(crate) fn placeholder_phrase(t: &str) -> bool {
    if SLOT_ALONE.is_match(t.trim()) {
        return true;
    }
    let l = t.trim().to_lowercase();
    let l = l.trim_matches(|c: char| matches!(c, '[' | ']' | '<' | '>' | '{' | '}' | '(' | ')'));
    // A full stop or an exclamation mark after it changes nothing.
    let bare = l.trim_end_matches(['.', '!']).trim();
    let phrase = |p: &str| {
        matches!(
            p,
            "n/a"
                | "n.a."
                | "na"
                | "-"
                | "..."
                | "…"
                | "tbd."
                | "todo."
                | "to do"
                | "to be done"
                | "to be determined"
                | "to be decided"
                | "to be confirmed"
                | "to be announced"
                | "to be added"
                | "to be written"
                | "to come"
                | "coming soon"
                | "more to come"
                | "t.b.d"
                | "t.b.a"
                | "t.b.c"
                | "not yet available"
                | "not available yet"
                | "not yet written"
                | "?"
                | "??"
                | "???"
                | "not specified"
                | "unspecified"
                | "not given"
                | "not provided"
                | "not stated"
        )
    };
    phrase(l.trim())
        || (!bare.is_empty() && phrase(bare))
        || l.starts_with("insert ")
        || l.starts_with("your ")
        || l.starts_with("add ") && l.ends_with(" here")
        || l.ends_with(" goes here")
}

/// A bracketed word or two standing where content should be: `(blank)`,
/// `(empty)`, `[Summary]`. The one pattern the whole-output template
/// check and [`placeholder_value`] share.
pub(crate) const BRACKETED_SLOT: &str = r"\([\p{L}\p{N} _-]{0,40}\)|\[[\p{L}\p{N} _-]{0,40}\]";

/// Whether `t` is nothing but placeholders: a placeholder phrase
/// ([`placeholder_phrase`]) or placeholder words only (`TODO`, `TBD`,
/// `lorem ipsum`: [`crate::check::is_placeholder_word`]).
pub(crate) fn placeholder_text(t: &str) -> bool {
    let ws: Vec<String> = t
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    placeholder_phrase(t)
        || (!ws.is_empty() && ws.iter().all(|w| crate::check::is_placeholder_word(w)))
}

/// Whether a value written where content should be is a placeholder: as
/// in Markdown ([`placeholder_text`]), a bracketed slot
/// ([`BRACKETED_SLOT`], or in angle brackets: `<string>`), a type name
/// (`string`, `number`, `text`…), or the name of the field it fills
/// (`key`, case and marks folded: `"title": "Title"`).
pub(crate) fn placeholder_value(v: &str, key: Option<&str>) -> bool {
    static SLOT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"^(?:{BRACKETED_SLOT}|<[\p{{L}}\p{{N}} _-]{{1,40}}>)$"
        ))
        .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    const TYPE_NAMES: &[&str] = &[
        "string", "str", "text", "number", "integer", "int", "float", "double", "boolean", "bool",
        "object", "array", "any", "date", "datetime", "url", "uri",
    ];
    let t = v.trim();
    let bare = t
        .trim_matches(|c: char| matches!(c, '<' | '>' | '[' | ']' | '(' | ')' | '{' | '}'))
        .trim()
        .to_lowercase();
    placeholder_text(t)
        || scaffold_text(t)
        || SLOT.is_match(t)
        || TYPE_NAMES.contains(&bare.as_str())
        || key.is_some_and(|k| !norm(k).is_empty() && norm(k) == norm(t))
}

/// Words that stand where content should be in a scaffold, or only
/// point at more (`Item`, `Column`, `etc.`, `and more`, `None`): with
/// [`crate::check::is_placeholder_word`], what [`scaffold_text`] reads.
pub(crate) const SCAFFOLD: &[&str] = &[
    "item",
    "items",
    "heading",
    "column",
    "col",
    "row",
    "cell",
    "entry",
    "bullet",
    "foo",
    "bar",
    "baz",
    "qux",
    "quux",
    // "Example", "sample", "placeholder", "entry" in the other
    // languages whose prose pactum reads.
    "beispiel",
    "muster",
    "platzhalter",
    "eintrag",
    "exemple",
    "échantillon",
    "ejemplo",
    "esempio",
    "exemplo",
    "voorbeeld",
    // Companies made up for examples.
    "acme",
    "globex",
    "initech",
    "contoso",
    "fabrikam",
    "northwind",
    "corp",
    "corporation",
    "inc",
    "ltd",
    "llc",
    "none",
    "etc",
    "and",
    "more",
    "others",
    "so",
    "on",
    "untitled",
    "unnamed",
    "text",
    "ellipsis",
    "header",
    "title",
    "subheading",
    "here",
    "sample",
    "example",
    "dummy",
    "test",
    "blah",
    "data",
    "value",
    "output",
    "my",
    "main",
    "new",
    "level",
    "document",
    "hello",
    "world",
    "goes",
    "bla",
    "yada",
    "et",
    "cetera",
    "forth",
    // "Others", "and so on" and a generic maker or company, in the other
    // languages whose prose pactum reads.
    "andere",
    "sonstige",
    "weitere",
    "autres",
    "otros",
    "otras",
    "altri",
    "outros",
    "overige",
    "usw",
    "weiter",
    "cétera",
    "firma",
    "unternehmen",
    "hersteller",
    "anbieter",
    "fabricant",
    "entreprise",
    "fabricante",
    "empresa",
    "produttore",
    "azienda",
    "fabrikant",
    "bedrijf",
    "manufacturer",
    "maker",
    "vendor",
    "brand",
    "company",
    "name",
    "similar",
    // Sample companies, and a name withheld.
    "musterfirma",
    "beispielfirma",
    "testfirma",
    "anonymous",
    "anon",
    "nameless",
    "redacted",
    "withheld",
    "confidential",
];

/// Legal forms of companies in the countries whose prose pactum reads
/// (`GmbH`, `AG`, `SARL`, `SpA`, `BV`, `KK`), dotted forms read without
/// their dots: `Daikin`, `Daikin GmbH` and `Daikin AG` name one maker.
const LEGAL_FORMS: &[&str] = &[
    "gruppe",
    "grupo",
    "gruppo",
    "groep",
    "groupe",
    "konzern",
    "bvba",
    "sprl",
    "scrl",
    "cvba",
    "gmbh",
    "mbh",
    "ag",
    "kg",
    "kgaa",
    "ohg",
    "ug",
    "gbr",
    "ev",
    "se",
    "sa",
    "sas",
    "sasu",
    "sarl",
    "eurl",
    "sca",
    "snc",
    "spa",
    "srl",
    "srls",
    "sapa",
    "sl",
    "slu",
    "sau",
    "ltda",
    "lda",
    "bv",
    "nv",
    "vof",
    "cv",
    "kk",
    "gk",
    "yk",
    "oy",
    "oyj",
    "ab",
    "asa",
    "aps",
    "hf",
    "pty",
    "pvt",
    "plc",
    "llp",
    "lp",
    "pc",
    "co",
    "cie",
    "company",
    "limited",
    "incorporated",
    "group",
    "holding",
    "holdings",
    "sro",
    "as",
    "kft",
    "zrt",
    "nyrt",
    "doo",
    "dd",
    "ooo",
    "zao",
    "oao",
    "pjsc",
    "jsc",
    "bhd",
    "sdn",
    "tbk",
    "pt",
];

/// Words that, numbered (`Step 1`, `Title 2`, `Word3`), stand where
/// content should be; alone they may be a real heading (`Summary`).
const NUMBERED_SCAFFOLD: &[&str] = &[
    "h",
    "word",
    "words",
    "point",
    "step",
    "title",
    "name",
    "example",
    "sample",
    "source",
    "link",
    "section",
    "paragraph",
    "value",
    "field",
    "text",
    "option",
    "element",
    "thing",
    "test",
    "line",
    "header",
    "label",
    "content",
    "description",
    "summary",
    "note",
    "part",
    "chapter",
    "slide",
    "answer",
    "result",
    "reference",
    "citation",
    "url",
    "topic",
    "idea",
    "reason",
];

/// Whether `t` is scaffolding rather than content: with its digits
/// dropped, nothing but [`SCAFFOLD`] or placeholder words (`TODO 1`,
/// `Item 2`, `# Heading 1`, `etc.`, `and more`), or a template slot
/// written for a program to fill (`%s`, `%(summary)s`, `{0}`, `${name}`,
/// `SUMMARY_PLACEHOLDER`).
pub(crate) fn scaffold_text(t: &str) -> bool {
    static SLOT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?:^|[^\w%])%(?:\d+\$)?(?:\([A-Za-z_]\w*\))?[-+ #0]*\d*(?:\.\d+)?[sdifrvqTxXeEgGcbo](?:$|[^\w])|\{\d*\}|\$\{\w+\}|(?:^|[^\w$])\$\d+\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:PLACEHOLDER|TODO|TBD|HERE)\b|\b(?:PLACEHOLDER|INSERT|YOUR|REPLACE)_[A-Z0-9_]+\b",
        )
        .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    if SLOT.is_match(t) {
        return true;
    }
    let (ws, numbered) = unit_words(t);
    if ws.is_empty() {
        // A bare number or letter may be the content asked for (a list
        // of years, grades, options): read as ever.
        return false;
    }
    // A word that may be a real heading (`Summary`) is scaffolding beside
    // a template's own word (`Summary here`, `Section title`).
    let templated = ws.iter().any(|w| SCAFFOLD.contains(&w.as_str()));
    ws.iter().all(|w| {
        SCAFFOLD.contains(&w.as_str())
            || crate::check::is_placeholder_word(w)
            || (templated && NUMBERED_SCAFFOLD.contains(&w.as_str()))
            // One letter repeated (`xxxxx`, `aaaa`).
            || one_letter_repeated(w)
            || (numbered && NUMBERED_SCAFFOLD.contains(&w.as_str()))
    })
}

/// Number words and ordinals a running index is written with (`Item
/// one`, `First item`), and the notes a repeat is marked with (`again`,
/// `ditto`, `cont.`).
const INDEX_WORDS: &[&str] = &[
    "again",
    "ditto",
    "same",
    "dup",
    "duplicate",
    "repeat",
    "repeated",
    "cont",
    "continued",
    "ibid",
    "idem",
    "as",
    "above",
    "below",
    "previous",
    "preceding",
    "likewise",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "ii",
    "iii",
    "iv",
    "vi",
    "vii",
    "viii",
    "ix",
    "xi",
    "xii",
    "also",
    "too",
    // The same in the other languages whose prose pactum reads: a
    // repeat (`erneut`, `encore`, `otra vez`, `di nuovo`, `opnieuw`,
    // `de novo`), a number word or an ordinal.
    "erneut",
    "nochmals",
    "nochmal",
    "wieder",
    "ebenso",
    "dito",
    "gleich",
    "gleiche",
    "wiederholt",
    "zwei",
    "drei",
    "vier",
    "fünf",
    "erste",
    "erster",
    "erstes",
    "zweite",
    "zweiter",
    "zweites",
    "dritte",
    "dritter",
    "drittes",
    "encore",
    "nouveau",
    "pareil",
    "répété",
    "bis",
    "deux",
    "trois",
    "quatre",
    "cinq",
    "premier",
    "première",
    "deuxième",
    "troisième",
    "seconde",
    "otra",
    "vez",
    "nuevo",
    "igual",
    "repetido",
    "dos",
    "tres",
    "cuatro",
    "cinco",
    "primero",
    "primera",
    "segundo",
    "segunda",
    "tercero",
    "tercera",
    "ancora",
    "nuovo",
    "pure",
    "ripetuto",
    "due",
    "tre",
    "quattro",
    "primo",
    "secondo",
    "seconda",
    "terzo",
    "terza",
    "opnieuw",
    "weer",
    "nogmaals",
    "eveneens",
    "herhaald",
    "twee",
    "drie",
    "vijf",
    "eerste",
    "tweede",
    "derde",
    "novo",
    "novamente",
    "igualmente",
    "dois",
    "duas",
    "três",
    "primeiro",
    "terceiro",
];

/// The words of a unit's text once what only numbers it, or notes it, is
/// dropped: a parenthesised or bracketed note (`Daikin (again)`), a
/// number in any digits (`1`, `①`, `¹`), an ordinal (`1st`, `first`), a
/// number word, a Roman numeral or a single letter (`Item A`), and digits
/// glued to a word (`word1`); lower case, NFKC-folded. The flag says
/// whether anything was dropped: an index a template numbers its
/// scaffolding with.
pub(crate) fn unit_words(t: &str) -> (Vec<String>, bool) {
    use unicode_normalization::UnicodeNormalization;
    static NOTE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\([^()]*\)|\[[^\[\]]*\]").unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let folded: String = t.nfkc().collect();
    let unnoted = NOTE.replace_all(&folded, " ");
    let mut dropped = unnoted.len() != folded.len();
    let mut words = Vec::new();
    // Whole tokens only: a URL or a path (`a.net/1`) is one word.
    for token in unnoted.split_whitespace() {
        let original = token.trim_matches(|c: char| !c.is_alphanumeric());
        if original.is_empty() {
            continue;
        }
        // The article `a` and the pronoun `I` are words, not indexes.
        if matches!(original, "a" | "I") {
            words.push(original.to_lowercase());
            continue;
        }
        // A token with no letter (`1.1`, `§2`, `10:05`, `2026-12-01`,
        // `$100`) numbers, dates or prices a unit: no word of content.
        if !original.chars().any(char::is_alphabetic) {
            dropped = true;
            continue;
        }
        let lower = original.to_lowercase();
        let w = lower.as_str();
        // A hash or a uuid (`3f2b9c1e`, `7d1e0b2a-4c5d-…`) ids a unit: no
        // word of content.
        let hex: String = w.chars().filter(|&c| c != '-').collect();
        if hex.len() >= 6
            && hex.chars().all(|c| c.is_ascii_hexdigit())
            && hex.chars().any(|c| c.is_ascii_digit())
            && hex.chars().any(|c| c.is_ascii_alphabetic())
        {
            dropped = true;
            continue;
        }
        if !w.chars().all(char::is_alphanumeric) {
            words.push(w.to_string());
            continue;
        }
        let digits = w.chars().filter(|c| c.is_numeric()).count();
        let letters: String = w.chars().filter(|c| !c.is_numeric()).collect();
        let ordinal = digits > 0 && matches!(letters.as_str(), "st" | "nd" | "rd" | "th");
        if digits == w.chars().count()
            || ordinal
            || INDEX_WORDS.contains(&w)
            || (w.chars().count() == 1 && w.chars().all(char::is_alphabetic))
        {
            dropped = true;
            continue;
        }
        // Digits glued after letters (`word1`, `Item2`) number them.
        if digits > 0
            && w.chars()
                .skip_while(|c| !c.is_numeric())
                .all(char::is_numeric)
        {
            dropped = true;
            words.push(letters);
        } else {
            words.push(w.to_string());
        }
    }
    (words, dropped)
}

/// Whether a unit's rendered text is something a reader can use: a word
/// with a letter or digit, not only placeholders (`TODO`, `TBD`, `N/A`)
/// or scaffolding ([`scaffold_text`]).
pub(crate) fn meaningful(text: &str) -> bool {
    if pactum_core::text::is_blank(text) || placeholder_phrase(text) || scaffold_text(text) {
        return false;
    }
    let ws: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    !ws.is_empty() && !ws.iter().all(|w| crate::check::is_placeholder_word(w))
}

/// What a unit says, as a set a repeat in another order or with another
/// index, date or note has too: its [`unit_words`] that hold a letter
/// and are no scaffolding or placeholder (`Item`, `TODO`, `Acme`),
/// lookalike-folded. Empty for a unit recognised as no content (`1`,
/// `A`, `§2`, `10:05`, `Ditto`): such a unit meets no lower bound.
pub(crate) fn content_words(t: &str) -> BTreeSet<String> {
    unit_words(t)
        .0
        .into_iter()
        // A link to a public page says where to read something.
        .map(|w| match w.contains("://").then(|| page(&w)).flatten() {
            Some(p) => format!("://{p}"),
            None => w,
        })
        .filter(|w| {
            if w.starts_with("://") {
                return true;
            }
            // One letter is a word only in a script that writes words
            // with one character (`猫`); `a`, `I` or `x` says nothing.
            let letters = w.chars().filter(|c| c.is_alphabetic()).count();
            // A program's name (`item.name`, `heat_pump`, `a/b`) or an
            // address is no word a reader is told something with.
            (letters >= 2 || w.chars().any(|c| c >= '\u{2E80}'))
                && !w.contains(['.', '_', '/', ':', '@', '$', '=', '<', '>', '{', '}'])
                && !SCAFFOLD.contains(&w.as_str())
                && !crate::check::is_placeholder_word(w)
                && !one_letter_repeated(w)
                // An article or a conjunction (`der`, `les`, `und`) names
                // nothing; a company's legal form (`GmbH`, `SARL`) names
                // no other company.
                && !crate::plain::is_function_word(w)
                && !LEGAL_FORMS.contains(&w.as_str())
                // A word saying there is none (`unknown`, `Inconnu`)
                // tells nothing apart: `Maker: unknown` and `Maker:
                // Inconnu` are one unit.
                && !crate::check::non_answer(w)
        })
        // A possessive or a plural names the same thing (`Daikin's`,
        // `Daikins`).
        .map(|w| {
            let w = w.trim_end_matches("'s").trim_end_matches("’s");
            let w = match w.strip_suffix('s') {
                Some(stem) if stem.chars().count() >= 3 => stem,
                _ => w,
            };
            lookalike_fold(w)
        })
        .collect()
}

/// Whether `t`, written as a field's value, names nothing: it holds
/// words, and each is a function word, a company's legal form or a
/// generic maker (`GmbH`, `der`, `the`, `Andere`), which tell no unit
/// apart in a count either ([`content_words`]).
pub(crate) fn names_nothing(t: &str) -> bool {
    let (words, _) = unit_words(t);
    !words.is_empty()
        && words.iter().all(|w| {
            crate::plain::is_function_word(w)
                || LEGAL_FORMS.contains(&w.as_str())
                || SCAFFOLD.contains(&w.as_str())
        })
}

/// `units` counted both ways: those recognised as content, each with
/// words of its own ([`content_words`]) no earlier one has (low), and
/// every unit that shows anything (high: a placeholder, a repeat, a
/// number, an emoji, a mark or an image too; only a blank one, or one of
/// invisible characters, not).
pub(crate) fn range_of(units: &[Piece]) -> (u64, u64, Option<String>) {
    range_of_beside(units, &BTreeSet::new(), 1)
}

/// The words of `words` the service was not `given` ([`content_words`]
/// of its inputs), or all of them where every one was given: a word
/// copied from the input tells two units apart no more than an index
/// does (`Vaillant` and `Vaillant heat pumps` over the topic "Heat pumps
/// in Europe" are one unit, SPEC §3.4), while a unit naming only what it
/// was given (`Daikin` from "compare Daikin and Bosch") is still itself.
pub(crate) fn own_words(words: BTreeSet<String>, given: &BTreeSet<String>) -> BTreeSet<String> {
    if given.is_empty() {
        return words;
    }
    let own: BTreeSet<String> = words.difference(given).cloned().collect();
    if own.is_empty() {
        words
    } else {
        own
    }
}

/// The words of `inputs` as [`content_words`] reads a unit's, each
/// distinct token read once. Every count of a contract reads the same
/// inputs, which may be megabytes: the last set made is kept per
/// thread, found again by a hash of the inputs' text.
pub(crate) fn given_words(inputs: &[std::borrow::Cow<'_, str>]) -> std::rc::Rc<BTreeSet<String>> {
    use std::hash::{Hash, Hasher};
    thread_local! {
        static LAST: std::cell::RefCell<Option<(u64, std::rc::Rc<BTreeSet<String>>)>> =
            const { std::cell::RefCell::new(None) };
    }
    let mut h = std::hash::DefaultHasher::new();
    for i in inputs {
        i.as_ref().hash(&mut h);
    }
    let key = h.finish();
    if let Some(words) = LAST.with_borrow(|l| {
        l.as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, w)| std::rc::Rc::clone(w))
    }) {
        return words;
    }
    let tokens: std::collections::HashSet<&str> =
        inputs.iter().flat_map(|i| i.split_whitespace()).collect();
    let words: std::rc::Rc<BTreeSet<String>> =
        std::rc::Rc::new(tokens.into_iter().flat_map(content_words).collect());
    LAST.set(Some((key, std::rc::Rc::clone(&words))));
    words
}

/// [`range_of`], units told apart by the words they were not `given`
/// ([`own_words`]), a unit of fewer than `fewest` words of content
/// counting for nothing in the low count.
pub(crate) fn range_of_beside(
    units: &[Piece],
    given: &BTreeSet<String>,
    fewest: usize,
) -> (u64, u64, Option<String>) {
    let mut seen = BTreeSet::new();
    let mut first = None;
    for u in units {
        // Told apart only by an index or a note (`Daikin 1`, `Daikin
        // (again)`), a unit repeats an earlier one.
        let words = own_words(content_words(&crate::check::said_part(&u.text)), given);
        // A unit that says there is none (`unknown`, `Ohne Titel`, `不明`)
        // is no item, as no field is filled by it, and nor is a note that
        // there is nothing (`Done.`, `Insufficient data.`).
        if words.len() < fewest.max(1)
            || !meaningful(&u.text)
            || crate::check::non_answer(&u.text)
            || crate::check::non_answer(&unit_words(&u.text).0.join(" "))
            || crate::check::says_nothing(&u.text)
        {
            continue;
        }
        if seen.insert(words) && first.is_none() {
            first = Some(u.line.clone());
        }
    }
    let shown = units
        .iter()
        .filter(|u| {
            u.image
                || u.text
                    .chars()
                    .any(|c| !c.is_whitespace() && !pactum_core::text::shown_as_code_point(c))
        })
        .count();
    (seen.len() as u64, shown as u64, first)
}

/// `s` as a reader tells texts apart: invisible characters dropped,
/// NFKC-folded (fullwidth and mathematical letters are letters), each
/// lookalike letter mapped to its UTS #39 skeleton (a Greek `Α` or a
/// Cyrillic `А` is an `A`, a Cherokee `Ꮮ` or a digit `1` an `l`), case
/// folded; `i` and `l` are one letter, as a capital `I` is both.
pub(crate) fn lookalike_fold(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let visible: String = s
        .chars()
        .filter(|c| !pactum_core::text::shown_as_code_point(*c))
        .nfkc()
        .map(|c| pactum_core::text::small_capital(c).unwrap_or(c))
        .collect();
    let skeleton = |t: &str| -> String {
        unicode_security::confusable_detection::skeleton(t)
            .collect::<String>()
            .to_lowercase()
    };
    skeleton(&skeleton(&visible)).replace('i', "l")
}

/// `s` read loosely, for a forbidden text only: [`lookalike_fold`] with
/// combining marks dropped, dashes after a letter (with the white space
/// and one line break after them) and hard line breaks removed, and letter-spaced runs (`l i t h`) joined. A match here only
/// ever leaves the clause to the judge.
pub(crate) fn loose_fold(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let unmarked: String = s
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect();
    let chars: Vec<char> = unmarked.chars().collect();
    let dash = |c: char| matches!(c, '-' | '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{00AD}');
    let mut joined = String::with_capacity(unmarked.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev_alnum = joined
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        // A hard line break (`\` or two spaces before the newline)
        // inside a word.
        if prev_alnum && (c == '\\' || c == ' ') {
            let mut j = i;
            if c == '\\' {
                j += 1;
            } else {
                while chars.get(j) == Some(&' ') {
                    j += 1;
                }
            }
            let spaces = j - i;
            if chars.get(j) == Some(&'\n')
                && (c == '\\' || spaces >= 2)
                && chars.get(j + 1).is_some_and(|n| n.is_alphanumeric())
            {
                i = j + 1;
                continue;
            }
        }
        if prev_alnum && dash(c) {
            // A word hyphenated at a line end (`lith-` then `ium`), or
            // with white space after its hyphen, reads as one word.
            let mut j = i + 1;
            let mut breaks = 0;
            while let Some(&w) = chars.get(j) {
                if w == '\n' {
                    breaks += 1;
                } else if !pactum_core::text::is_blank(w.encode_utf8(&mut [0; 4])) {
                    break;
                }
                j += 1;
            }
            if breaks <= 1 && chars.get(j).is_some_and(|n| n.is_alphanumeric()) {
                i = j;
                continue;
            }
        }
        joined.push(c);
        i += 1;
    }
    // Letter-spaced runs: single letters separated by spaces are one word.
    let mut out = String::with_capacity(joined.len());
    let mut single_run = false;
    for w in joined.split_whitespace() {
        let single = w.chars().count() == 1 && w.chars().all(char::is_alphanumeric);
        let joins = single && single_run;
        if !joins && !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
        single_run = single;
    }
    lookalike_fold(&out)
}

fn norm(s: &str) -> String {
    lookalike_fold(s)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether HTML tags that make items (`<li>`, `<ul>`, `<ol>`, `<dl>`,
/// `<menu>`) are written.
pub(crate) fn html_items(r: &Rendered) -> bool {
    ["li", "ul", "ol", "dl", "dt", "dd", "menu"]
        .iter()
        .any(|t| r.tags.contains(*t))
}

/// Whether HTML table tags are written.
pub(crate) fn html_rows(r: &Rendered) -> bool {
    ["table", "tr", "td", "th", "tbody", "thead"]
        .iter()
        .any(|t| r.tags.contains(*t))
}

/// Whether HTML that breaks text into blocks is written (any block tag).
pub(crate) fn html_blocks(r: &Rendered) -> bool {
    r.html_block_text
        || r.tags
            .iter()
            .any(|t| breaks_text(t) || t == "section" || t == "article")
}

/// A URL as one page: read as a browser reads it (the WHATWG URL
/// parser: the host IDNA-mapped to ASCII, `\` a `/`, non-ASCII in the
/// path and query percent-encoded, the port a number), then `http` and
/// `https` alike, host without `www.`, no user info, port 80 or 443 or
/// fragment, unreserved characters percent-decoded and other escapes
/// upper case, dot segments removed (RFC 3986 §5.2.4), no trailing `/`,
/// and no tracking parameter in the query (`utm_…`, `ref`, `fbclid`,
/// `gclid`). `None` when its host has no dot (no page on the web).
///
/// Only an `http` or `https` URL that the WHATWG parser reads, on a
/// public host, is a page: one it cannot read, a `file:`,
/// `ftp:` or made-up scheme, and a loopback, private or local host
/// (`localhost`, `127.0.0.1`, `10.…`, `….local`), and a name reserved
/// for examples (`example.org`, `a.example`, `….test`), are not on the
/// web.
pub(crate) fn page(url: &str) -> Option<String> {
    let scheme = url
        .trim_start()
        .split_once("://")
        .map(|(s, _)| s.to_ascii_lowercase());
    if !matches!(scheme.as_deref(), Some("http" | "https")) {
        return None;
    }
    // A link no browser can open (a port out of range, a NUL in the host,
    // a host ending in a number that is no IPv4 address) is no page.
    let opens = url::Url::parse(url.trim_end_matches(['.', ',', ';', ':', '!', '?']))
        .is_ok_and(|p| matches!(p.scheme(), "http" | "https") && p.host_str().is_some());
    if !opens {
        return None;
    }
    if placeholder_tail(url) {
        return None;
    }
    page_of(url, true).filter(|p| public_host(p) && !placeholder_page(p))
}

/// The site of a `page` ([`page`]: `host[:port]/path?query`), which the
/// first count of sources counts once: its registrable domain, read
/// without the Public Suffix List (the last two labels of the host, three
/// under a country's second level such as `co.uk`; an IP address
/// whole; the port dropped), so that pages of one site (its home page
/// written three ways, three articles of one paper, `en.` and `de.`
/// editions, `www2.`, another port) are one source there and the second
/// count decides no lower bound alone. `None` for no source at all: a
/// search engine's results page (`/search`, `?q=…`), a
/// link shortener's (`bit.ly`, `t.co`: where it leads is not written) or
/// a chatbot's shared conversation (`chatgpt.com/share/…`).
pub(crate) fn site(page: &str) -> Option<String> {
    const SHORTENERS: &[&str] = &[
        "bit.ly",
        "t.co",
        "tinyurl.com",
        "goo.gl",
        "ow.ly",
        "is.gd",
        "buff.ly",
        "rebrand.ly",
        "cutt.ly",
        "shorturl.at",
        "rb.gy",
        "t.ly",
        "lnkd.in",
        "youtu.be",
        "tiny.cc",
        "s.id",
        "amzn.to",
        "aka.ms",
        "share.google",
        "w.wiki",
        "qr.ae",
        "sl.bing.net",
        "linktr.ee",
        "trib.al",
        "dlvr.it",
        "fb.me",
        "wp.me",
        "bit.do",
        "ift.tt",
        "apple.co",
        "spoti.fi",
        "v.gd",
        "x.gd",
        "clck.ru",
        "surl.li",
        "bl.ink",
        "shorturl.asia",
        "t.me",
        "goo.su",
        "urlz.fr",
        "db.tt",
        "on.soundcloud.com",
        "tiny.one",
        "t1p.de",
        "kurzelinks.de",
        "vk.cc",
        "l.ead.me",
        "hubs.ly",
        "forms.gle",
        "goo.gl",
        "g.page",
        "nyti.ms",
        "reut.rs",
        "bbc.in",
        "ow.ly",
        "lnk.to",
        "l.facebook.com",
        "lm.facebook.com",
        "out.reddit.com",
        "search.app",
        "a.co",
        "amzn.eu",
        "dub.sh",
        "spoo.me",
        "urlr.me",
        "ln.run",
        "qrco.de",
        "vm.tiktok.com",
    ];
    // Hosts that serve nothing but a chatbot's conversations and
    // artifacts: no page there is a source.
    const CHAT_APPS: &[&str] = &[
        "chatgpt.com",
        "chat.openai.com",
        "claude.ai",
        "claude.site",
        "gemini.google.com",
        "bard.google.com",
        "aistudio.google.com",
        "notebooklm.google.com",
        "grok.com",
        "chat.deepseek.com",
        "meta.ai",
        "chat.qwen.ai",
        "tongyi.aliyun.com",
        "pi.ai",
        "poe.com",
        "character.ai",
        "chat.mistral.ai",
        "copilot.microsoft.com",
        "manus.im",
        "kimi.moonshot.cn",
        "kimi.com",
        "t3.chat",
        "lmarena.ai",
        "chat.lmsys.org",
        "doubao.com",
        "yiyan.baidu.com",
        "chatglm.cn",
        "chat.z.ai",
        "phind.com",
        "typingmind.com",
        "chatbotui.com",
        "sharegpt.com",
        "gemini.google",
        "claudeusercontent.com",
        "oaiusercontent.com",
        "yuanbao.tencent.com",
        "m365copilot.com",
        "le-chat.mistral.ai",
        // Model consoles and agent traces: the agent's own tools.
        "platform.openai.com",
        "console.anthropic.com",
        "smith.langchain.com",
        "genspark.ai",
        "notebooklm.google",
        "chatbase.co",
        // Proxies show another site's page as their own.
        "translate.goog",
    ];
    // Search engines and archives: their front page is the search itself.
    const ENGINES: &[&str] = &[
        "bing.com",
        "duckduckgo.com",
        "yahoo.com",
        "yandex.com",
        "yandex.ru",
        "baidu.com",
        "ecosia.org",
        "startpage.com",
        "search.brave.com",
        "qwant.com",
        "archive.org",
        "archive.ph",
        "archive.today",
    ];
    // Hosts that serve a chatbot's shared conversations beside other
    // pages: a share there is no source.
    const CHATBOTS: &[&str] = &[
        "openai.com",
        "g.co",
        "perplexity.ai",
        "x.com",
        "huggingface.co",
        "you.com",
        "mistral.ai",
        "deepseek.com",
        "qwen.ai",
        "hf.co",
        "v0.dev",
        "bing.com",
        "translate.google.com",
    ];
    let (authority, rest) = match page.find(['/', '?']) {
        Some(i) => page.split_at(i),
        None => (page, ""),
    };
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    // A results page names its query (`?q=`, PubMed's `?term=`, eBay's
    // `?_nkw=`, Amazon's `/s?k=`), or its path says it searches
    // (`/search`, `searchresults.html`, Yahoo's `/yhs`, Google's
    // `/webhp`, eBay's `/sch/`).
    // `research` is no search.
    let searches = |w: &str| {
        let w = w.to_ascii_lowercase();
        w.starts_with("search")
            || (w.ends_with("search") && !w.ends_with("research"))
            || w.contains(":search")
            || [
                "such", "recherch", "busc", "busqueda", "zoek", "ricerca", "pesquis",
            ]
            .iter()
            .any(|p| w.starts_with(p))
    };
    let searched = path.split('/').any(|seg| {
        let seg = seg.split('.').next().unwrap_or(seg);
        searches(seg)
            || matches!(
                seg,
                "results"
                    | "yhs"
                    | "webhp"
                    | "sch"
                    | "find"
                    | "lookup"
                    | "q"
                    | "wholesale"
                    | "cerca"
            )
    }) || query.split('&').any(|kv| {
        let key = kv.split('=').next().unwrap_or("");
        matches!(
            key,
            "q" | "query"
                | "search"
                | "text"
                | "wd"
                | "keywords"
                | "keyword"
                | "kw"
                | "term"
                | "terms"
                | "_nkw"
                | "ss"
                | "searchterm"
                | "search_term"
                | "st"
                | "qs"
                | "s"
                | "qt"
                | "field-keywords"
        ) || searches(key)
            || (key == "k" && path == "/s")
            || (key == "p" && path.starts_with("/yhs"))
    });
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => authority.split(':').next().unwrap_or(authority),
    };
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    let ip = host.contains(':') || labels.iter().all(|l| l.bytes().all(|b| b.is_ascii_digit()));
    let domain = if ip || labels.len() <= 2 {
        host.to_string()
    } else {
        let n = labels.len();
        let country_second = labels[n - 1].len() == 2
            && matches!(
                labels[n - 2],
                "co" | "com"
                    | "org"
                    | "net"
                    | "ac"
                    | "gov"
                    | "edu"
                    | "ne"
                    | "or"
                    | "go"
                    | "gob"
                    | "gv"
                    | "nic"
                    | "mil"
                    | "ltd"
                    | "plc"
                    | "sch"
                    | "nhs"
            );
        labels[n - if country_second { 3 } else { 2 }..].join(".")
    };
    // The host is `c` or one of its subdomains.
    let under = |c: &&str| {
        host.strip_suffix(*c)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
    };
    let chat = CHAT_APPS.iter().any(under)
        || (CHATBOTS.iter().any(under)
            && (path.contains("/share")
                || path.contains("/c/")
                || path.contains("/chat")
                || path.contains("/grok")
                || path.contains("/search/")
                || path.starts_with("/translate")));
    let short = SHORTENERS.iter().any(under);
    let front = path.trim_matches('/').is_empty()
        && (ENGINES.iter().any(under) || labels.iter().rev().skip(1).any(|l| *l == "google"));
    (!searched && !chat && !short && !front).then_some(domain)
}

/// `s` in lower case with the brackets a URL parser escapes (`%7B`,
/// `%3C`, `%5B` and their pairs) read back: a slot (`{id}`) shows as
/// written.
fn unescaped_brackets(s: &str) -> String {
    s.to_lowercase()
        .replace("%7b", "{")
        .replace("%7d", "}")
        .replace("%3c", "<")
        .replace("%3e", ">")
        .replace("%5b", "[")
        .replace("%5d", "]")
}

/// Whether `w` is one letter repeated, at least three times (`xxxxx`,
/// `XXXX`): a placeholder, not a word.
fn one_letter_repeated(w: &str) -> bool {
    w.chars().count() >= 3 && w.chars().all(|c| w.starts_with(c))
}

/// Whether a URL's query or fragment holds a slot or a placeholder
/// (`?id={id}`, `?ref=TODO`, `?url=URL`, `#TODO`): a link left to fill.
fn placeholder_tail(url: &str) -> bool {
    let lower = unescaped_brackets(url);
    let Some(at) = lower.find(['?', '#']) else {
        return false;
    };
    let (query, fragment) = match lower[at..].split_once('#') {
        Some((q, f)) => (q.trim_start_matches('?'), f),
        None => (lower[at..].trim_start_matches('?'), ""),
    };
    // The values of the query (not its names: `?id=3` is a page) and
    // the fragment.
    let values = query
        .split(['&', ';'])
        .filter_map(|pair| pair.split_once('=').map(|(_, v)| v))
        .chain(std::iter::once(fragment));
    values.filter(|v| !v.is_empty()).any(|v| {
        let bare = v.trim_matches(|c: char| matches!(c, '[' | ']' | '{' | '}' | '<' | '>' | ':'));
        v != bare
            || crate::check::is_placeholder_word(bare)
            || matches!(bare, "url" | "link" | "n/a" | "slug")
            || one_letter_repeated(bare)
    })
}

/// Whether a [`page_of`] page is a placeholder written where a link
/// should be: its host's name under the top-level domain made only of
/// template words (`url.com`, `xxx.com`, `your-website.com`), or a path
/// segment that is a slot or a placeholder (`/TODO`, `/[slug]`,
/// `/{id}`, `/<page>`, `/N/A`, `/...`).
fn placeholder_page(page: &str) -> bool {
    let (host, path) = page.split_once('/').unwrap_or((page, ""));
    let host = host.split(':').next().unwrap_or("").to_lowercase();
    let mut labels = host.rsplit('.').skip(1);
    let name = labels.next().unwrap_or("");
    let name = if name == "www" { "" } else { name };
    let template = |w: &str| {
        crate::check::is_placeholder_word(w)
            || SCAFFOLD.contains(&w)
            || matches!(
                w,
                "url"
                    | "uri"
                    | "link"
                    | "your"
                    | "my"
                    | "website"
                    | "site"
                    | "domain"
                    | "yoursite"
                    | "yourdomain"
                    | "yourwebsite"
                    | "mysite"
                    | "company"
                    | "insert"
                    | "here"
                    | "dummy"
                    | "fake"
                    | "replace"
                    | "me"
                    | "sitename"
                    | "domainname"
                    | "source"
                    | "sample"
                    | "test"
                    | "example"
            )
    };
    // A running number makes no new name (`source1.com`, `url2.com`).
    let name: String = name.chars().filter(|c| !c.is_ascii_digit()).collect();
    let name = name.as_str();
    let named_by_template = !name.is_empty()
        && name
            .split(['-', '_'])
            .filter(|w| !w.is_empty())
            .all(template);
    let path = path.split(['?', '#']).next().unwrap_or("");
    // The parser escapes braces and angle brackets in a path.
    let lower = unescaped_brackets(path);
    // The documentation's own placeholder paths.
    let doc_path = lower.contains("/path/to/")
        || lower.split('/').any(|s| {
            let s: String = s.chars().filter(|c| !c.is_ascii_digit()).collect();
            s.starts_with("insert-")
                || s.starts_with("your-")
                // One letter repeated (`/XXXX`).
                || one_letter_repeated(&s)
                || s.ends_with("-here")
                || matches!(s.as_str(), "page" | "link" | "url" | "slug" | "path" | "id")
        });
    let slot_segment = doc_path
        || lower.split('/').any(|s| {
            let bare =
                s.trim_matches(|c: char| matches!(c, '[' | ']' | '{' | '}' | '<' | '>' | ':'));
            (s != bare && !bare.is_empty())
                || s.chars().all(|c| c == '.' || c == '…') && !s.is_empty() && s != "." && s != ".."
                || (!s.is_empty() && s.split(['-', '_']).all(crate::check::is_placeholder_word))
        });
    named_by_template || slot_segment || lower.contains("n/a")
}

/// The top-level domains of the DNS root zone (`tlds.txt`), each as a
/// browser writes it in a host (IDN ones in their `xn--` form) and as
/// written in Unicode.
static TOP_LEVEL_DOMAINS: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    let mut set = BTreeSet::new();
    for tld in include_str!("tlds.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        if let Some(ascii) = url::Url::parse(&format!("http://a.{tld}/"))
            .ok()
            .and_then(|u| {
                u.host_str()
                    .and_then(|h| h.rsplit('.').next())
                    .map(str::to_string)
            })
        {
            set.insert(ascii);
        }
        set.insert(tld.to_lowercase());
    }
    set
});

/// Whether the host of a [`page_of`] page (`host[:port]/path…`) may be
/// on the public web: not a loopback, private, link-local or
/// documentation or benchmarking address, not an IPv6 literal, not a
/// local name, not a name reserved for examples (`example.com`,
/// `….test`) or outside the DNS (`….alt`, `….onion`), and under a
/// top-level domain that exists ([`TOP_LEVEL_DOMAINS`]).
fn public_host(page: &str) -> bool {
    let host = page.split(['/', '?']).next().unwrap_or("");
    if host.starts_with('[') {
        return false;
    }
    let host = host.split(':').next().unwrap_or("");
    if let Ok(ip) = host.parse::<std::net::Ipv4Addr>() {
        return !(ip.is_loopback()
            || ip.is_private()
            || ip.is_link_local()
            || ip.is_unspecified()
            || ip.is_broadcast()
            || ip.is_documentation()
            || ip.octets()[0] == 0
            || ip.octets()[0] >= 224
            || (ip.octets()[0] == 100 && (64..128).contains(&ip.octets()[1]))
            // Benchmarking (RFC 2544) and protocol assignments (RFC 6890).
            || (ip.octets()[0] == 198 && (18..20).contains(&ip.octets()[1]))
            || ip.octets()[..3] == [192, 0, 0]);
    }
    // Reserved for documentation and testing (RFC 2606, RFC 6761): no
    // page there is a source.
    if ["example.com", "example.net", "example.org"]
        .iter()
        .any(|r| host == *r || host.strip_suffix(r).is_some_and(|h| h.ends_with('.')))
    {
        return false;
    }
    let local = [
        "example",
        "test",
        "invalid",
        "localhost",
        "localdomain",
        "local",
        "internal",
        "lan",
        "home.arpa",
        "arpa",
        // Outside the DNS (RFC 9476), or reached only through Tor
        // (RFC 7686).
        "alt",
        "onion",
    ];
    let tld = host.rsplit('.').next().unwrap_or_default().to_lowercase();
    TOP_LEVEL_DOMAINS.contains(&tld)
        && !local
            .iter()
            .any(|l| host == *l || host.strip_suffix(*l).is_some_and(|h| h.ends_with('.')))
}

/// [`page`] with a `ref` parameter kept: it may name a branch or a
/// revision of the page (`?ref=main`), so an upper bound counts pages
/// this way.
pub(crate) fn page_as_written(url: &str) -> Option<String> {
    page_of(url, false)
}

/// A query parameter that names where a reader came from, not a page
/// (`ref` too unless `strict`).
fn tracking(param: &str, strict: bool) -> bool {
    let name = param.split('=').next().unwrap_or("").to_ascii_lowercase();
    name.starts_with("utm_")
        || matches!(name.as_str(), "fbclid" | "gclid")
        || !strict && name == "ref"
}

/// `s` with each percent-encoded unreserved character decoded.
fn decode_unreserved(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let c = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~'));
            if let Some(c) = c {
                out.push(char::from(c));
                i += 3;
                continue;
            }
        }
        let Some(ch) = s.get(i..).and_then(|r| r.chars().next()) else {
            break;
        };
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A path with its `.` and `..` segments removed (RFC 3986 §5.2.4).
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    // Whether the path ends in a directory (`/`, `/.`, `/..`).
    let mut dir = false;
    for (i, seg) in segments.iter().enumerate() {
        if i == 0 && seg.is_empty() {
            continue;
        }
        match *seg {
            "." => dir = i == last,
            ".." => {
                out.pop();
                dir = i == last;
            }
            s => {
                out.push(s);
                dir = false;
            }
        }
    }
    let mut p = String::new();
    for s in &out {
        p.push('/');
        p.push_str(s);
    }
    if dir || p.is_empty() && path.starts_with('/') {
        p.push('/');
    }
    p
}

/// Upper-case hex digits in every percent escape of `s`.
fn upper_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut after = 0usize;
    for c in s.chars() {
        if c == '%' {
            after = 2;
            out.push(c);
        } else if after > 0 {
            after -= 1;
            out.push(c.to_ascii_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn page_of(url: &str, drop_ref: bool) -> Option<String> {
    let u = url.trim_end_matches(['.', ',', ';', ':', '!', '?']);
    // Read as a browser reads it; a URL it cannot read is read as written.
    let parsed = url::Url::parse(u)
        .ok()
        .filter(|p| matches!(p.scheme(), "http" | "https") && p.host_str().is_some());
    let whatwg;
    let u = match &parsed {
        Some(p) => {
            let host = p.host_str().unwrap_or("");
            let port = p
                .port()
                .filter(|n| *n != 80 && *n != 443)
                .map(|n| format!(":{n}"))
                .unwrap_or_default();
            let query = p.query().map(|q| format!("?{q}")).unwrap_or_default();
            whatwg = format!("http://{host}{port}{}{query}", upper_escapes(p.path()));
            whatwg.as_str()
        }
        None => u,
    };
    let (_, rest) = u.split_once("://")?;
    let rest = rest.split('#').next().unwrap_or("");
    let (auth, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let host = decode_unreserved(auth.rsplit('@').next().unwrap_or("")).to_lowercase();
    let host = host
        .strip_suffix(":80")
        .or_else(|| host.strip_suffix(":443"))
        .unwrap_or(&host);
    let host = host.strip_prefix("www.").unwrap_or(host);
    let bare = host.split(':').next().unwrap_or("");
    if !bare.contains('.') || bare.starts_with('.') || bare.ends_with('.') {
        return None;
    }
    let p = decode_unreserved(path);
    let (p, query) = match p.split_once('?') {
        Some((a, q)) => (a.to_string(), Some(q.to_string())),
        None => (p, None),
    };
    let p = remove_dot_segments(&p);
    let p = p.trim_end_matches('/');
    let query = query.map(|q| {
        q.split('&')
            .filter(|kv| !kv.is_empty() && !tracking(kv, !drop_ref))
            .collect::<Vec<_>>()
            .join("&")
    });
    Some(match query {
        Some(q) if !q.is_empty() => format!("{host}{p}?{q}"),
        _ => format!("{host}{p}"),
    })
}
