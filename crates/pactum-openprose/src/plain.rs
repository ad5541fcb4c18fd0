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

use crate::check::{Measure, Unit};

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

/// Whether a line is written like values of a program rather than
/// Markdown: near-JSON or values in sequence ([`crate::json_view`]: `{`
/// opening no JSON, `['a', 'b']`, `[a, b]`, `("a", "b")`, `"a", "b"`),
/// or one JSON object, array or string alone (`{"a": 1}`, `"Daikin"`). A
/// Markdown link or task-list box opening a line (`[text](url)`, `[ ] x`)
/// is none.
fn written_values(t: &str) -> bool {
    let t = t.trim();
    crate::json_view::near_json(t)
        || crate::json_view::sequence(t)
        || (t.starts_with(['{', '[', '"']) && pactum_core::json::parse_strict(t).is_ok())
}

/// Why a measure `m` that held over the Markdown output `content` is no
/// evidence on its own: a bound that says "no more than" (an upper bound
/// on a count, a format the output must not have) holds only where the
/// output shows no instance in a form the count does not read, and a
/// quote is said only where it is used, not mentioned or denied. `None`
/// when what held is evidence, and for one JSON value.
///
/// - items: a list nested in an item, a paragraph or item of several
///   lines, several enumeration marks in one text (`1) a 2) b`), or a
///   series (`a, b and c`, `a; b; c`): each may be entries a reader
///   counts;
/// - paragraphs: a line break, or a line ending a sentence, inside one:
///   a reader may see several paragraphs;
/// - headings (an upper bound, or `without headings`): a paragraph that
///   is all emphasis, a short label ending with `:`, or short capitals;
/// - rows (an upper bound, or `no table`): a tab between words, a `|`
///   outside a table, or a line of `+---+` art;
/// - sources (an upper bound): a bare domain under a real top-level
///   domain (`daikin.com`), which a reader takes for a source;
/// - a quote (`saying "…"`): every place it is found is in quotation
///   marks, or after a negation in its sentence (`it is not true that
///   …`).
pub(crate) fn held_unread(m: &Measure, content: &str) -> Option<String> {
    // A JSON output is read by what its string values say, each with the
    // key that frames it (`excluded: Daikin`); an upper bound on items
    // over arrays nested in elements is the judge's.
    if let Some(v) = crate::check::as_json(content) {
        if matches!(
            m,
            Measure::Count {
                unit: Unit::Items,
                max: Some(_),
                ..
            }
        ) && crate::json_view::nested_arrays(&v)
        {
            return Some("an element of the JSON output holds an array, whose elements may be the items counted: how many items it lists is for the judge".into());
        }
        return held_unread_text(m, &crate::json_view::keyed(&v));
    }
    held_unread_text(m, content)
}

/// [`held_unread`] over Markdown text.
fn held_unread_text(m: &Measure, content: &str) -> Option<String> {
    match m {
        Measure::Count {
            unit, max: Some(_), ..
        } => unit_unread(unit, content),
        Measure::Not(inner) => match inner.as_ref() {
            Measure::Table => unit_unread(&Unit::Rows, content),
            Measure::Headings => unit_unread(&Unit::Headings, content),
            Measure::List | Measure::NumberedList | Measure::BulletList => {
                unit_unread(&Unit::Items, content)
            }
            _ => None,
        },
        Measure::Contains(quote) => unsaid(quote, content),
        Measure::Count {
            unit: Unit::Words,
            min,
            ..
        } if *min > 1 => degenerate_words(content),
        _ => None,
    }
}

/// The blocks of an output as they render, for [`unit_unread`].
#[derive(Default)]
struct Blocks {
    /// Texts of paragraphs, headings and list items, each with whether a
    /// line break (soft or hard) is inside it and whether a line of it
    /// ends a sentence before another starts.
    texts: Vec<(String, bool, bool)>,
    /// Paragraphs that are all emphasis or strong text.
    emphasis_only: Vec<String>,
    /// Paragraphs outside list items.
    paragraphs: Vec<String>,
    /// A list starts inside a list item.
    nested_list: bool,
    /// Raw lines outside code blocks and tables.
    loose_lines: Vec<String>,
}

fn blocks(content: &str) -> Blocks {
    use pulldown_cmark::TagEnd;
    let mut b = Blocks::default();
    let mut item_depth = 0usize;
    let mut current: Option<(String, bool, bool)> = None;
    let mut emphasis_depth = 0usize;
    let mut outside_emphasis = false;
    let mut in_paragraph = false;
    let mut in_table = false;
    let mut table_lines: Vec<std::ops::Range<usize>> = Vec::new();
    let parser = Parser::new_ext(
        content,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS,
    )
    .into_offset_iter();
    for (ev, range) in parser {
        match ev {
            Event::Start(Tag::Item) => {
                item_depth += 1;
                current.get_or_insert_with(Default::default);
            }
            Event::End(TagEnd::Item) => {
                item_depth = item_depth.saturating_sub(1);
                if let Some(c) = current.take() {
                    b.texts.push(c);
                }
            }
            Event::Start(Tag::List(_)) if item_depth > 0 => b.nested_list = true,
            Event::Start(Tag::Paragraph) => {
                in_paragraph = true;
                outside_emphasis = false;
                current.get_or_insert_with(Default::default);
            }
            Event::Start(Tag::Heading { .. }) => {
                current.get_or_insert_with(Default::default);
            }
            Event::End(TagEnd::Paragraph) => {
                in_paragraph = false;
                if item_depth == 0 {
                    if let Some(c) = current.take() {
                        if !outside_emphasis && !c.0.trim().is_empty() {
                            b.emphasis_only.push(c.0.clone());
                        }
                        b.paragraphs.push(c.0.clone());
                        b.texts.push(c);
                    }
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(c) = current.take() {
                    b.texts.push(c);
                }
            }
            Event::Start(Tag::Emphasis | Tag::Strong) => emphasis_depth += 1,
            Event::End(TagEnd::Emphasis | TagEnd::Strong) => {
                emphasis_depth = emphasis_depth.saturating_sub(1);
            }
            Event::Start(Tag::Table(_)) => {
                in_table = true;
                table_lines.push(range.clone());
            }
            Event::End(TagEnd::Table) => in_table = false,
            Event::Text(t) | Event::Code(t) => {
                if in_paragraph && emphasis_depth == 0 && !t.trim().is_empty() {
                    outside_emphasis = true;
                }
                if !in_table {
                    if let Some(c) = current.as_mut() {
                        c.0.push_str(&t);
                    }
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(c) = current.as_mut() {
                    c.1 = true;
                    if c.0.trim_end().ends_with(['.', '!', '?', ':', ';']) {
                        c.2 = true;
                    }
                    c.0.push('\n');
                }
            }
            _ => {}
        }
    }
    let mut at = 0usize;
    for line in content.split_inclusive('\n') {
        let here = at..at + line.len();
        at += line.len();
        if !table_lines
            .iter()
            .any(|r| r.start <= here.start && here.end <= r.end)
        {
            b.loose_lines.push(line.trim_end_matches('\n').to_string());
        }
    }
    b
}

/// [`held_unread`] for an upper bound on `unit`.
fn unit_unread(unit: &Unit, content: &str) -> Option<String> {
    use std::sync::LazyLock;
    static ENUMERATION: LazyLock<regex::Regex> = LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?:^|[\s:;,])\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]\s").unwrap()
    });
    static SERIES: LazyLock<regex::Regex> = LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?i)[^\s,;][,;]\s*\S[^,;]*[,;]|[^\s,;],\s*\S[^,;]*\s(?:and|or|&)\s")
            .unwrap()
    });
    static DOMAIN: LazyLock<regex::Regex> = LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(
            r"(?i)(?:^|[^\w@/.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+([a-z]{2,63})\b",
        )
        .unwrap()
    });
    let b = blocks(content);
    match unit {
        Unit::Items => {
            if b.nested_list {
                return Some("a list is nested in an item, and its items may be counted too: how many items the output lists is for the judge".into());
            }
            for (text, broken, _) in &b.texts {
                let t = text.trim();
                if *broken {
                    return Some(format!("`{}` runs over several lines, each of which may be an entry: how many items the output lists is for the judge", excerpt(t)));
                }
                if ENUMERATION.find_iter(t).count() >= 2 || SERIES.is_match(t) {
                    return Some(format!("`{}` lists several things in its text: how many items the output lists is for the judge", excerpt(t)));
                }
            }
            None
        }
        Unit::Paragraphs => b.texts.iter().find(|(_, _, sentence_break)| *sentence_break).map(|(t, _, _)| {
            format!("`{}` breaks a line after a sentence, and a reader may see its lines as paragraphs: how many paragraphs the output has is for the judge", excerpt(t.trim()))
        }),
        Unit::Headings => {
            if let Some(t) = b.emphasis_only.first() {
                return Some(format!("`{}` is a paragraph of emphasis only, which a reader may take for a heading: how many headings the output has is for the judge", excerpt(t.trim())));
            }
            b.paragraphs.iter().map(|t| t.trim()).find(|t| {
                let words = t.split_whitespace().count();
                (1..=8).contains(&words)
                    && (t.ends_with(':')
                        || (t.chars().any(char::is_alphabetic)
                            && !t.chars().any(char::is_lowercase)))
            }).map(|t| format!("`{}` is a short label, which a reader may take for a heading: how many headings the output has is for the judge", excerpt(t)))
        }
        Unit::Rows => b.loose_lines.iter().find(|l| {
            let t = l.trim();
            t.contains('|') || t.trim_matches('\t').contains('\t') || t.starts_with("+-") || t.starts_with("+=")
        }).map(|l| format!("`{}` may be a table's row that Markdown does not make one: how many rows the output shows is for the judge", excerpt(l.trim()))),
        Unit::Sources => b.texts.iter().find_map(|(t, _, _)| {
            // `www.` opens a link the source count reads (an autolink).
            DOMAIN.captures_iter(t).find(|c| {
                c.get(1).is_some_and(|tld| crate::rendered::is_top_level_domain(tld.as_str()))
                    && c.get(0).is_some_and(|m| {
                        !m.as_str()
                            .trim_start_matches(|c: char| !c.is_alphanumeric())
                            .to_lowercase()
                            .starts_with("www.")
                    })
            })
                .and_then(|c| c.get(0))
                .map(|m| format!("`{}` names a site without a link, which a reader may count as a source: how many sources the output cites is for the judge", m.as_str().trim_start_matches(|c: char| !c.is_alphanumeric())))
        }),
        Unit::Words => None,
    }
}

/// At most 40 characters of `t`, for a note.
fn excerpt(t: &str) -> String {
    pactum_core::text::truncate_chars(t, 40)
}

/// Why the quote `q` is not said by `content` although found in it:
/// every place it is found is set in quotation marks (mentioned, not
/// used), or follows a negation in its sentence.
fn unsaid(q: &str, content: &str) -> Option<String> {
    use std::sync::LazyLock;
    static NEGATION: LazyLock<regex::Regex> = LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?i)\b(?:not|no|never|nor|neither|none|nothing|nobody|cannot|false|untrue|wrong|incorrect|without|deny|denies|denied|rather than|instead of|exclude|excluded|excluding|reject|rejected|avoid|avoided|forbidden|banned|blocked|removed|missing|invalid|unverified|unconfirmed|negative|if|whether|unless|until|once|would|could|might|should|may|hardly|barely|fake|fictional|hypothetical|example)\b|n't\b|n’t\b").unwrap()
    });
    let words: Vec<String> = q.split_whitespace().map(regex::escape).collect();
    if words.is_empty() {
        return None;
    }
    let pattern = format!(r"(?i){}", words.join(r"\s+"));
    let Ok(found) = regex::Regex::new(&pattern) else {
        return Some("the quote could not be looked for in the output as written: whether it is said is for the judge".into());
    };
    let quotes = [
        '"', '\'', '\u{201c}', '\u{201d}', '\u{2018}', '\u{2019}', '\u{ab}', '\u{bb}', '`',
    ];
    let mut any = false;
    for m in found.find_iter(content) {
        any = true;
        let before = &content[..m.start()];
        let after = &content[m.end()..];
        let quoted = before.trim_end().ends_with(quotes) || after.trim_start().starts_with(quotes);
        let start = before
            .rfind(['.', '!', '?', '\n'])
            .map_or(before, |i| &before[i + 1..]);
        let end_at = after.find(['.', '!', '?', '\n']).unwrap_or(after.len());
        let asked = after[end_at..].starts_with('?');
        // After the quote, its own clause: what follows a colon, a
        // semicolon, a comma or a dash is another statement (`all clear:
        // nothing to report`).
        let rest = &after[..end_at];
        let rest = &rest[..rest
            .find([':', ';', ',', '\u{2013}', '\u{2014}'])
            .unwrap_or(rest.len())];
        // The quote's own words may hold a negation (`no sources were
        // found`): only the other words of its sentence are read. A
        // question, a condition or a negation anywhere in them says
        // nothing for certain (`is it all clear?`, `all clear (not
        // really)`, `if it were all clear`).
        if !quoted && !asked && !NEGATION.is_match(start) && !NEGATION.is_match(rest) {
            return None;
        }
    }
    Some(if any {
        "every place the quote is found is set in quotation marks, asked, or in a sentence with a negation or a condition: whether the output says it is for the judge".into()
    } else {
        "the quote is found only as the output renders, not as written: whether the output says it is for the judge".into()
    })
}

/// Why the words of `content` are no evidence for a lower bound on
/// words: too few of them differ (`word word word…`: fewer distinct
/// words than a quarter of them, or than three), or most are single
/// characters (`a b c d…`). Prose repeats words, never that much.
fn degenerate_words(content: &str) -> Option<String> {
    let words: Vec<String> = content
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        return None;
    }
    let distinct = words
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let single = words.iter().filter(|w| w.chars().count() == 1).count();
    (distinct * 4 < words.len() || distinct < 3.min(words.len()) || single * 2 > words.len())
        .then(|| format!("{} words, {distinct} of them different and {single} single characters: whether that is text a reader can use is for the judge", words.len()))
}
