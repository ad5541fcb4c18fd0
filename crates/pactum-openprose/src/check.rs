//! Which clause phrasings pactum measures itself, and the measurements
//! (the grader's strategies, `docs/openprose.md` lists them):
//!
//! * a format: `JSON` (`valid JSON`, `JSON object`, `JSON array`), `a
//!   markdown table` / `a table` (not `a table of contents`), `a numbered
//!   list` / `an ordered list`, `a bulleted list` / `bullet points`,
//!   `headings`; after a negation (`not`, `no`, `without`, `never`,
//!   `non-`, `…n't`) a format or a quote is measured as absent;
//! * `a list` (any Markdown list, a JSON array), `an array`, `an object`;
//! * a count: `at least N`, `no fewer than N`, `N+`, `N or more`, `min
//!   N`, `>= N`, `≥ N`, `more than N`, `> N` (N+1), `at most N`, `no more
//!   than N`, `up to N`, `max N`, `N or fewer`, `<= N`, `≤ N`, `fewer than
//!   N`, `< N` (N−1), `exactly N`, `N-M` / `N–M` / `N to M` / `between N
//!   and M` (N ≤ M), or a bare `N`, each followed by a unit
//!   (numbers as digits or `one`…`ten`): items / list items / bullets /
//!   bullet points / points / entries / steps (list items, or the
//!   elements of a JSON array), sources / citations / references / links /
//!   URLs (distinct `http(s)://` URLs; in a JSON array, the elements with
//!   a URL of their own), paragraphs, words, rows (table body rows),
//!   headings / sections (Markdown headings); a number before any other
//!   noun, a negated count and a bare number after `over`, `about`… are
//!   no count; a count per item (`each … at least 20 words`), a choice
//!   (`or` between what is asked: no measure of the clause is taken) and
//!   a reversed range are not read ([`Reading::unread`]);
//! * quoted text after `saying`, `says`, `containing`, `contains`,
//!   `including`, `includes`, `mentions`, `reads`, `stating`, `states`: the
//!   output contains it (case-insensitively) where it does not only
//!   repeat its input (the echo rule, `pactum_core::echo`); each of several quotes
//!   joined by `,` or `and` is required, quotes joined by `or` are left to
//!   the judge, and so is a quote no such verb introduces;
//! * `each X has: a, b, c` (up to the end of its sentence, `;` or `.`) and
//!   `…, each with a URL`: every X (JSON array element, table row, list
//!   item) has every field (a JSON key, a table column with a value, a
//!   `field:` label; a `url`/`link` field is also met by a URL), one X
//!   without one failing it, quoted; a field of more than three words or
//!   with a number is left to the judge.
//!
//! Structure is read as CommonMark with GFM tables renders it
//! (the `rendered` module): nothing inside a code block is a list item,
//! heading, table or source; an item is top level when no other list
//! holds it (in a blockquote too); an item with no text (`- `) and a
//! thematic break (`* * *`) are no items; a count is decided only where
//! the units a reader can use (blank, placeholder and repeated ones left
//! out) and every unit written agree, HTML the count does not read
//! leaving an upper bound undecided; a field is present only with a
//! value that is not blank (`" "`, `[]`, `{}` are absent), not a
//! placeholder and not the next label, under its own name as a whole
//! word (`subtitle:` is no `title`).
//!
//! What the text says beyond those phrasings (filler words and generic
//! nouns such as "summary" or "report" aside; a quality word such as
//! "valid" is no filler) is left to a judge; a
//! clause whose only other words are vague ("good", "comprehensive",
//! "high-quality") is not evaluable, with a suggested rewrite.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use pactum_core::echo::{only_copied, Echoes, Quoting};

use regex::Regex;

use crate::json_view::{self, View};
use crate::rendered::{self, meaningful, range_of, render};
use serde_json::Value;

/// A unit a count applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unit {
    /// List items, or the elements of a JSON array.
    Items,
    /// Distinct `http(s)://` URLs.
    Sources,
    /// Paragraphs: blocks of prose separated by blank lines (headings,
    /// lists, tables and code blocks are not paragraphs).
    Paragraphs,
    /// Whitespace-separated words.
    Words,
    /// Body rows of Markdown tables.
    Rows,
    /// Markdown headings.
    Headings,
}

/// A JSON shape a clause asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonShape {
    /// Any JSON value.
    Any,
    /// An object.
    Object,
    /// An array.
    Array,
}

/// One measurable requirement read from a clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Measure {
    /// The output is JSON of this shape.
    Json(JsonShape),
    /// It holds a Markdown table (header, delimiter, at least one row).
    Table,
    /// It holds a numbered list.
    NumberedList,
    /// It holds a bulleted list.
    BulletList,
    /// It holds at least one heading.
    Headings,
    /// It holds a list: a Markdown list of any kind, or is a JSON array.
    List,
    /// A count of `unit` between `min` and `max` (inclusive).
    Count {
        /// What is counted.
        unit: Unit,
        /// Fewest allowed.
        min: u64,
        /// Most allowed, `None` for no bound.
        max: Option<u64>,
    },
    /// It contains this text (case-insensitively).
    Contains(String),
    /// Every `item` has every field.
    Each {
        /// The noun (`source`).
        item: String,
        /// The fields.
        fields: Vec<String>,
    },
    /// The negation of a format or a quote ("not JSON", "without
    /// headings", "not mentioning \"x\""): holds when that one fails.
    Not(Box<Measure>),
}

impl Measure {
    /// Whether this measure asks only for a shape: a format, a list, a
    /// table, headings or JSON, which a placeholder or a non-answer has
    /// as well (`- Done.` is a bulleted list).
    pub fn is_shape(&self) -> bool {
        matches!(
            self,
            Measure::Json(_)
                | Measure::Table
                | Measure::NumberedList
                | Measure::BulletList
                | Measure::Headings
                | Measure::List
        )
    }
}

/// How a clause's text reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// Each measurable requirement, with the phrase it came from.
    pub measures: Vec<(String, Measure)>,
    /// The words left once the measured phrases, filler words and generic
    /// nouns are removed: what only a judge can grade.
    pub residual: Vec<String>,
    /// Whether the residual consists only of vague words.
    pub vague: bool,
    /// Why phrases that look measurable were not measured (a choice
    /// between alternatives, a per-item count, a reversed range): the
    /// clause goes to the judge, never to a guess.
    pub unread: Vec<String>,
}

const NUM: &str = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten)";

#[allow(clippy::unwrap_used)] // constant patterns
fn re(p: &str) -> Regex {
    Regex::new(p).unwrap()
}

static COUNTS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    let unit = r"([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})";
    vec![
        (
            re(&format!(r"(?i)\bbetween\s+{NUM}\s+and\s+{NUM}\s+{unit}")),
            "range",
        ),
        (
            re(&format!(r"(?i)\b{NUM}\s*(?:-|–|—|to)\s*{NUM}\s+{unit}")),
            "range",
        ),
        (
            re(&format!(
                r"(?i)\b(?:at\s+least|no\s+fewer\s+than|a\s+minimum\s+of|minimum\s+of)\s+{NUM}\s+{unit}"
            )),
            "min",
        ),
        (
            re(&format!(
                r"(?i)\b(?:at\s+most|no\s+more\s+than|up\s+to|a\s+maximum\s+of|maximum\s+of)\s+{NUM}\s+{unit}"
            )),
            "max",
        ),
        (re(&format!(r"(?i)(?:>=|=>|≥)\s*{NUM}\s+{unit}")), "min"),
        (re(&format!(r"(?i)(?:<=|=<|≤)\s*{NUM}\s+{unit}")), "max"),
        (
            re(&format!(
                r"(?i)(?:>|\bmore\s+than|\bgreater\s+than)\s*{NUM}\s+{unit}"
            )),
            "gt",
        ),
        (
            re(&format!(
                r"(?i)(?:<|\bfewer\s+than|\bless\s+than)\s*{NUM}\s+{unit}"
            )),
            "lt",
        ),
        (
            re(&format!(r"(?i)\b(?:max|maximum)\.?:?\s*{NUM}\s+{unit}")),
            "max",
        ),
        (
            re(&format!(r"(?i)\b(?:min|minimum)\.?:?\s*{NUM}\s+{unit}")),
            "min",
        ),
        (re(&format!(r"(?i)\b{NUM}\s*\+\s*{unit}")), "min"),
        (re(&format!(r"(?i)\b{NUM}\s+or\s+more\s+{unit}")), "min"),
        (
            re(&format!(r"(?i)\b{NUM}\s+or\s+(?:fewer|less)\s+{unit}")),
            "max",
        ),
        (re(&format!(r"(?i)\bexactly\s+{NUM}\s+{unit}")), "exact"),
        (re(&format!(r"(?i)\b{NUM}\s+{unit}")), "bare"),
    ]
});

static JSON: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:valid\s+)?json(?:\s+(object|array|list))?\b"));
static TABLE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:markdown\s+)?table\b(\s+of\s+contents\b)?"));
/// A negation right before a phrase (`not`, `no`, `without`, `never`,
/// `nor`, `non-`, `…n't`, an article allowed after it).
static NEGATED: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)(?:\b(?:not|no|without|never|nor)|\b\w+n['’]t|\bnon)[\s-]+(?:(?:a|an|any)\s+)?$")
});
/// Words before a bare count that make it no exact count ("more than 3
/// items", "about 5 words", "exceeding 20 words"), a count phrase not
/// taken right before it (masked: "at least 3 and at most 4 paragraphs")
/// and another number or a number's first part ("3..4 paragraphs",
/// "twenty-five words", "10^2 words").
static NOT_EXACT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:\b(?:than|over|under|above|below|about|around|nearly|almost|approximately|roughly|max|min|maximum|minimum|least|most|exceed|exceeds|exceeding|beyond|past|within|upwards\s+of|in\s+excess\s+of|short\s+of|surpassing|topping)\W*|[<>=≤≥~≈]\s*|\x{1}\s*|(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand))\s*(?:\.\.\.?|…|/|,|&|\^|-|\band\b|\bor\b)?\s*)$",
    )
});
/// Words right after a bare count's unit that make it no exact count
/// ("3 paragraphs minimum", "20 words or so").
static NOT_EXACT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*[,(\[—–-]?\s*(?:minimum|maximum|min|max|tops|at\s+(?:the\s+)?(?:least|most|minimum|maximum|min|max)|or\s+(?:more|fewer|less|so|thereabouts|above|below|over|under)|and\s+(?:up|above|over|more)|plus|approximately|roughly)\b",
    )
});
/// Words in the sentence before a count that make it a count per item
/// ("each source has at least 20 words", "3 paragraphs, each at least 10
/// words").
static PER_ITEM_BEFORE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:each|every|per|apiece)\b"));
/// Words right after a count that make it a count per item ("10 words
/// each", "20 words per source", "5 words in each item").
static PER_ITEM_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:(?:each|apiece)\s*(?:$|[.;,)])|(?:per|a\s+piece|(?:in|for|of|on)\s+(?:each|every))\b)",
    )
});
/// A counted unit followed by `of`, `with`, `having`…, right before a
/// count ("3 items of at least 5 words"): that count is per unit.
static OF_COUNTED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:items?|bullets?|points?|entries|entry|steps?|paragraphs?|sources?|rows?|headings?|sections?|citations?|references?|links?)\s+(?:of|with|having|containing|that\s+(?:are|have|has))\s*$",
    )
});
/// Words that offer a choice: measures joined by them cannot all be
/// required, and which one is meant is the judge's to say.
static ALTERNATIVE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:or|either|neither|nor|otherwise|alternatively)\b"));
/// `a list`, `an array`, `an object` on their own.
static BARE_SHAPE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(list|array|object)\b"));

/// Where a negation of the phrase at `at` starts, if one stands right
/// before it.
fn negation_before(text: &str, at: usize) -> Option<usize> {
    NEGATED.find(&text[..at]).map(|m| m.start())
}
static NUMBERED: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:numbered|ordered)\s+list\b"));
static BULLETED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:bullet(?:ed)?\s+list|bullet\s+points)\b"));
static HEADINGS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:(?:sections\s+)?with\s+)?headings?\b"));
static CONTAINS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:saying|says|say|containing|contains|including|includes|mentions|mentioning|reads|stating|states)\s+((?:["“][^"”]+["”])(?:\s*(?:,\s*and|,|and|&)\s*["“][^"”]+["”])*)(\s*,?\s*(?:or|nor)\s+["“])?"#,
    )
});
static QUOTED: LazyLock<Regex> = LazyLock::new(|| re(r#"["“]([^"”]+)["”]"#));
static EACH_HAS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\beach\s+([a-z][a-z -]*?)\s+(?:has|have|contains|includes)\s*:?\s*([^;.]+)")
});
static EACH_WITH: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i),?\s*each\s+with\s+(?:a|an)?\s*(.+?)(?:[.;]|$)"));

fn number(s: &str) -> Option<u64> {
    let words = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    let l = s.to_ascii_lowercase();
    words
        .iter()
        .position(|w| *w == l)
        .map(|i| i as u64 + 1)
        .or_else(|| l.parse().ok())
}

/// The unit a noun names, and whether it is a known unit.
fn unit_of(noun: &str) -> Option<Unit> {
    let n = noun.trim().to_ascii_lowercase();
    let singular = n.strip_suffix("ies").map_or_else(
        || n.strip_suffix('s').unwrap_or(&n).to_string(),
        |s| format!("{s}y"),
    );
    Some(match singular.as_str() {
        "item" | "list item" | "bullet" | "bullet point" | "point" | "entry" | "step" => {
            Unit::Items
        }
        "source" | "citation" | "reference" | "link" | "url" => Unit::Sources,
        "paragraph" => Unit::Paragraphs,
        "word" => Unit::Words,
        "row" | "table row" => Unit::Rows,
        "heading" | "section" => Unit::Headings,
        _ => return None,
    })
}

/// Words that carry no requirement. A quality word the measures cannot
/// check ("valid", "correct") is not one: it goes to the judge.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "with",
    "in",
    "as",
    "and",
    "or",
    "that",
    "which",
    "is",
    "are",
    "be",
    "containing",
    "contains",
    "list",
    "formatted",
    "format",
    "markdown",
    "each",
    "has",
    "have",
    "its",
    "their",
    "it",
    "to",
    "for",
    "per",
    "plus",
    "including",
    "includes",
    "where",
    "from",
    "on",
    "at",
    "by",
    "written",
    "one",
    "object",
    "array",
    "there",
    "this",
    "these",
    "should",
    "must",
    "will",
    "all",
    "every",
    "saying",
    "stating",
    "mentions",
    "reads",
];

const GENERIC: &[&str] = &[
    "report", "summary", "note", "answer", "document", "text", "content", "response", "result",
    "results", "output", "outputs", "data", "file", "string", "value", "values", "list", "items",
    "item", "entries", "message", "draft", "table", "doc",
];

const VAGUE: &[&str] = &[
    "good",
    "great",
    "quality",
    "high-quality",
    "high",
    "nice",
    "useful",
    "helpful",
    "comprehensive",
    "appropriate",
    "proper",
    "relevant",
    "clear",
    "well-written",
    "well",
    "excellent",
    "thorough",
    "solid",
    "reasonable",
    "adequate",
    "meaningful",
    "insightful",
    "interesting",
    "polished",
    "professional",
    "detailed",
    "engaging",
    "best",
    "better",
    "sensible",
    "robust",
    "effective",
    "nice-looking",
    "concise",
];

/// Reads a clause's text: its measurable requirements and what is left.
pub fn read(text: &str) -> Reading {
    let mut rest = text.to_string();
    let mut measures: Vec<(String, Measure)> = Vec::new();
    let mut early_unread: Vec<String> = Vec::new();
    // A verb before an empty quote (`saying ""`) asks for nothing that can
    // be found: the judge reads the clause.
    static EMPTY_QUOTE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r#"(?i)\b(?:saying|says|say|containing|contains|including|includes|mentions|mentioning|reads|stating|states)\s+(?:""|“”|''|‘’)"#,
        )
    });
    if let Some(m) = EMPTY_QUOTE.find(text) {
        early_unread.push(format!("\"{}\" quotes nothing", m.as_str()));
    }
    static EMPTY_EACH: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?i)\beach\s+[a-z][a-z -]*?\s+(?:has|have|contains|includes)\s*:[\s,]*(?:$|[;.])")
    });
    if let Some(m) = EMPTY_EACH.find(text) {
        early_unread.push(format!("\"{}\" names no field", m.as_str().trim()));
    }
    let cut = |rest: &mut String, start: usize, end: usize| {
        rest.replace_range(start..end, " ");
    };

    // `each X has: a, b, c` takes the text up to the end of its sentence
    // (`;` or `.`); a field it cannot measure is left to the judge.
    if let Some((m, item, fields)) = EACH_HAS
        .captures(&rest.clone())
        .and_then(|c| Some((c.get(0)?, c.get(1)?, c.get(2)?)))
    {
        let (fields, unread) = split_fields(fields.as_str());
        if fields.is_empty() && unread.is_empty() {
            // `each item has:` naming no field asks nothing measurable.
            early_unread.push(format!("\"{}\" names no field", m.as_str().trim()));
        }
        if !fields.is_empty() {
            measures.push((
                m.as_str().trim().to_string(),
                Measure::Each {
                    item: item.as_str().trim().to_string(),
                    fields,
                },
            ));
            // A field left unread stays in the text after `each`, so a count
            // in it is read as per item, never over the whole output.
            let kept: Vec<String> = unread.iter().map(|f| format!("each {f}")).collect();
            rest.replace_range(m.start()..m.end(), &format!(" {} ", kept.join(" ; ")));
        }
    }
    // Every quoted string a verb introduces is a measure; quotes joined by
    // `or` are a choice left to the judge, and a quote no verb introduces
    // stays in the residual.
    let found: Vec<(usize, usize, Vec<String>, String)> = CONTAINS
        .captures_iter(&rest)
        .filter(|c| c.get(2).is_none())
        .filter_map(|c| {
            let (m, list) = (c.get(0)?, c.get(1)?);
            let quotes = QUOTED
                .captures_iter(list.as_str())
                .filter_map(|q| q.get(1).map(|q| q.as_str().to_string()))
                .collect();
            Some((m.start(), m.end(), quotes, m.as_str().to_string()))
        })
        .collect();
    for (start, end, quotes, phrase) in found.into_iter().rev() {
        let negated = negation_before(&rest, start);
        for q in quotes {
            match negated {
                Some(n) => measures.push((
                    format!("{}{phrase}", &rest[n..start]),
                    Measure::Not(Box::new(Measure::Contains(q))),
                )),
                None => measures.push((phrase.clone(), Measure::Contains(q))),
            }
        }
        cut(&mut rest, negated.unwrap_or(start), end);
    }
    let mut unread: Vec<String> = early_unread;
    // A count written with thousands separators (`1,000`, `1 000`,
    // `1’000`) is that number; one written with a decimal point or a
    // separator read either way (`10.0`, `1.000`, `2,5`) is not read:
    // the count is the judge's, never a guess at which it means.
    static THOUSANDS: LazyLock<Regex> =
        LazyLock::new(|| re(r"\b\d{1,3}(?:[,’' \u{A0}\u{202F}]\d{3})+\b"));
    static DECIMAL: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d+[.,]\d+\b"));
    rest = THOUSANDS
        .replace_all(&rest, |c: &regex::Captures<'_>| {
            c[0].chars()
                .filter(char::is_ascii_digit)
                .collect::<String>()
        })
        .into_owned();
    if let Some(m) = DECIMAL.find(&rest) {
        unread.push(format!(
            "\"{}\" is written with a decimal point or a separator that may mean either: the count is for the judge",
            m.as_str()
        ));
        rest = DECIMAL.replace_all(&rest, " some ").into_owned();
    }
    let mut count_unit: Option<String> = None;
    let mut masked: Vec<String> = Vec::new();
    for (r, form) in COUNTS.iter() {
        while let Some(c) = r.captures(&rest.clone()) {
            let Some(m) = c.get(0) else { break };
            let groups: Vec<&str> = (1..c.len())
                .filter_map(|i| c.get(i).map(|g| g.as_str()))
                .collect();
            let (nums, noun) = groups.split_at(groups.len().saturating_sub(1));
            let Some(noun) = noun.first() else { break };
            let parsed: Option<Vec<u64>> = nums.iter().map(|n| number(n)).collect();
            let Some(parsed) = parsed else { break };
            // The unit is the first word (or two words) that names one;
            // words before it are qualifiers left to the judge ("3+
            // credible sources"), words after it are not part of the count.
            let words: Vec<&str> = noun.split_whitespace().collect();
            let mut found = None;
            for i in 0..words.len() {
                if i + 1 < words.len() {
                    if let Some(u) = unit_of(&words[i..i + 2].join(" ")) {
                        found = Some((i, i + 2, u));
                        break;
                    }
                }
                if let Some(u) = unit_of(words[i]) {
                    found = Some((i, i + 1, u));
                    break;
                }
            }
            // A number before a noun that names no unit ("at least 3
            // competitors", "from 2019 to 2024 as"), a negated count and a
            // bare number after "more than" are not counts pactum takes:
            // their words stay for the judge.
            let sentence = rest[..m.start()]
                .rfind(['.', ';'])
                .map_or(&rest[..m.start()], |i| &rest[i + 1..m.start()]);
            let after = found.as_ref().map_or(String::new(), |(_, to, _)| {
                format!("{} {}", words[*to..].join(" "), &rest[m.end()..])
            });
            let per_item = PER_ITEM_BEFORE.is_match(sentence)
                || PER_ITEM_AFTER.is_match(&after)
                || OF_COUNTED.is_match(sentence);
            let reversed = *form == "range" && parsed.first() > parsed.get(1);
            let impossible = *form == "lt" && parsed.first() == Some(&0);
            if found.is_some() && (per_item || reversed || impossible) {
                unread.push(if per_item {
                    format!("\"{}\" is a count per item, which pactum does not measure item by item", m.as_str().trim())
                } else if reversed {
                    format!("\"{}\" is a range written high to low: which bound is meant is not guessed", m.as_str().trim())
                } else {
                    format!("\"{}\" asks for fewer than none", m.as_str().trim())
                });
            }
            let unread_here = negation_before(&rest, m.start()).is_some()
                || (*form == "bare"
                    && (NOT_EXACT.is_match(&rest[..m.start()])
                        || NOT_EXACT_AFTER.is_match(&after)))
                || per_item
                || reversed
                || impossible;
            let Some((from, to, unit)) = found.filter(|_| !unread_here) else {
                masked.push(m.as_str().to_string());
                rest.replace_range(m.start()..m.end(), &"\u{1}".repeat(m.len()));
                continue;
            };
            let kept = format!("{} {}", words[..from].join(" "), words[to..].join(" "));
            let (min, max) = match (*form, parsed.as_slice()) {
                ("range", [a, b]) => (*a, Some(*b)),
                ("min", [a]) => (*a, None),
                ("max", [a]) => (0, Some(*a)),
                ("gt", [a]) => (a.saturating_add(1), None),
                ("lt", [a]) => (0, Some(a.saturating_sub(1))),
                ("exact" | "bare", [a]) => (*a, Some(*a)),
                _ => break,
            };
            count_unit = Some(words[from..to].join(" "));
            let phrase = format!(
                "{}{}",
                &rest[m.start()..c.get(c.len() - 1).map_or(m.end(), |g| g.start())],
                words[..to].join(" ")
            );
            measures.push((phrase.trim().to_string(), Measure::Count { unit, min, max }));
            rest.replace_range(m.start()..m.end(), &format!(" {kept} "));
        }
    }
    for original in masked {
        rest = rest.replacen(&"\u{1}".repeat(original.len()), &original, 1);
    }
    if let Some(c) = EACH_WITH.captures(&rest.clone()) {
        if let (Some(m), Some(f)) = (c.get(0), c.get(1)) {
            let (fields, unread) = split_fields(f.as_str());
            if let (Some(item), false) = (count_unit.clone(), fields.is_empty()) {
                measures.push((
                    m.as_str().trim().to_string(),
                    Measure::Each { item, fields },
                ));
                rest.replace_range(m.start()..m.end(), &format!(" {} ", unread.join(" ; ")));
            }
        }
    }
    if let Some(c) = JSON.captures(&rest.clone()) {
        if let Some(m) = c.get(0) {
            let shape = match c.get(1).map(|s| s.as_str().to_ascii_lowercase()) {
                Some(s) if s == "object" => JsonShape::Object,
                Some(_) => JsonShape::Array,
                None => JsonShape::Any,
            };
            let negated = negation_before(&rest, m.start());
            let from = negated.unwrap_or(m.start());
            let phrase = rest[from..m.end()].to_string();
            let json = Measure::Json(shape);
            measures.push(match negated {
                Some(_) => (phrase, Measure::Not(Box::new(json))),
                None => (phrase, json),
            });
            cut(&mut rest, from, m.end());
        }
    }
    for (r, measure) in [
        (&*NUMBERED, Measure::NumberedList),
        (&*BULLETED, Measure::BulletList),
        (&*TABLE, Measure::Table),
        (&*HEADINGS, Measure::Headings),
    ] {
        // "a table of contents" is no table: it stays for the judge.
        let now = rest.clone();
        let Some(m) = r
            .captures_iter(&now)
            .filter(|c| c.get(1).is_none())
            .find_map(|c| c.get(0))
        else {
            continue;
        };
        let negated = negation_before(&rest, m.start());
        let from = negated.unwrap_or(m.start());
        let phrase = rest[from..m.end()].to_string();
        measures.push(match negated {
            Some(_) => (phrase, Measure::Not(Box::new(measure))),
            None => (phrase, measure),
        });
        cut(&mut rest, from, m.end());
    }
    // "a list", "an array", "an object" on their own ask for that shape.
    while let Some(m) = BARE_SHAPE.captures(&rest.clone()).and_then(|c| c.get(1)) {
        let negated = negation_before(&rest, m.start());
        let from = negated.unwrap_or(m.start());
        let measure = match m.as_str().to_ascii_lowercase().as_str() {
            "list" => Measure::List,
            "array" => Measure::Json(JsonShape::Array),
            _ => Measure::Json(JsonShape::Object),
        };
        let phrase = rest[from..m.end()].to_string();
        measures.push(match negated {
            Some(_) => (phrase, Measure::Not(Box::new(measure))),
            None => (phrase, measure),
        });
        cut(&mut rest, from, m.end());
    }
    // Measures offered as alternatives ("3 items or 2 paragraphs", "a
    // table or a list", "one or two paragraphs") are not all required:
    // none is taken, the judge reads the choice.
    if let Some(m) = ALTERNATIVE.find(&rest).filter(|_| !measures.is_empty()) {
        unread.push(format!(
            "the clause offers a choice (\"{}\") between what it asks: pactum does not pick one",
            m.as_str()
        ));
        measures.clear();
    }
    let residual: Vec<String> = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| !w.is_empty())
        .filter(|w| !FILLER.contains(&w.as_str()) && !GENERIC.contains(&w.as_str()))
        .collect();
    let vague = !residual.is_empty() && residual.iter().all(|w| VAGUE.contains(&w.as_str()));
    Reading {
        measures,
        residual,
        vague,
        unread,
    }
}

/// The fields of an `each` phrase that can be looked up by name (three
/// words at most, no number), and the others, left to the judge.
fn split_fields(s: &str) -> (Vec<String>, Vec<String>) {
    let (mut named, mut unread) = (Vec::new(), Vec::new());
    for f in s.split([',', ';']).flat_map(|p| p.split(" and ")) {
        let f = f
            .trim()
            .trim_end_matches('.')
            .trim_start_matches("and ")
            .trim_start_matches("a ")
            .trim_start_matches("an ")
            .trim_matches('`')
            .trim()
            .to_string();
        if f.is_empty() {
            continue;
        }
        let words = f.split_whitespace().count();
        // `etc.`, `and so on`, `…`: the list is open, which fields it
        // asks for is the judge's.
        let open_list = matches!(
            f.to_lowercase().trim_end_matches('.'),
            "etc" | "so on" | "so forth" | "more" | "others" | "other fields" | "…" | "..."
        );
        if open_list {
            unread.push(f);
            continue;
        }
        if words <= 3
            && !ALTERNATIVE.is_match(&f)
            && !f.chars().any(|c| c.is_ascii_digit())
            && f.chars().any(char::is_alphanumeric)
            // `name/country`, `name + country`, `name (and country)`:
            // fields joined in a way not read, the judge's.
            && f.chars()
                .all(|c| c.is_alphanumeric() || c.is_whitespace() || matches!(c, '_' | '-' | '.' | '\''))
        {
            named.push(f);
        } else {
            unread.push(f);
        }
    }
    (named, unread)
}

/// The result of one measurement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `Some(true)` held, `Some(false)` failed, `None` could not be taken
    /// (the output's structure does not let it be measured).
    pub held: Option<bool>,
    /// What was measured, for the rationale.
    pub detail: String,
    /// An exact excerpt of the output backing it, if one.
    pub quote: Option<String>,
}

fn finding(held: Option<bool>, detail: String, quote: Option<String>) -> Finding {
    Finding {
        held,
        detail,
        quote,
    }
}

/// The output as JSON: a `.json` binding, or a Markdown one that is one
/// JSON value (optionally in one fenced block, of backticks or tildes,
/// untagged or tagged `json`, with nothing else shown around it).
pub fn as_json(content: &str) -> Option<Value> {
    let t = json_trim(content);
    let inner = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|r| r.strip_suffix("```"))
        .unwrap_or(t);
    pactum_core::json::parse_strict(json_trim(inner))
        .ok()
        .or_else(|| fenced_json(content))
}

/// `s` without the white space JSON allows around a value: space, tab,
/// line feed and carriage return (RFC 8259 §2). Any other (a no-break
/// space, U+2028, a form feed) is no JSON, as every strict parser reads it.
pub(crate) fn json_trim(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\n', '\r'])
}

/// The JSON value of the one fenced code block that is all `content`
/// shows (CommonMark fences: three or more backticks or tildes; hidden
/// content such as a comment around it aside), its info string empty or
/// `json`. What only some renderers hide (front matter, struck text, an
/// unreferenced footnote) is read both ways: the fence must be all the
/// output shows in both.
fn fenced_json(content: &str) -> Option<Value> {
    if !content.contains("```") && !content.contains("~~~") {
        return None;
    }
    let most = fenced_json_of(&without_hidden(content))?;
    (fenced_json_of(&without_hidden_least(content)).as_ref() == Some(&most)).then_some(most)
}

/// Whether `content` is one fenced JSON block only where what some
/// renderers hide is hidden: JSON or not is then for the judge.
fn fenced_json_one_reading(content: &str) -> bool {
    (content.contains("```") || content.contains("~~~"))
        && fenced_json_of(&without_hidden(content)).is_some()
}

/// [`fenced_json`] over one reading of the output, `visible`.
fn fenced_json_of(visible: &str) -> Option<Value> {
    use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
    let mut body: Option<String> = None;
    let mut inside = false;
    for ev in Parser::new(visible) {
        match ev {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if body.is_none() => {
                let lang = info.split_whitespace().next().unwrap_or("");
                if !(lang.is_empty() || lang.eq_ignore_ascii_case("json")) {
                    return None;
                }
                inside = true;
                body = Some(String::new());
            }
            Event::Text(t) if inside => body.get_or_insert_with(String::new).push_str(&t),
            Event::End(TagEnd::CodeBlock) if inside => inside = false,
            Event::Html(h) | Event::InlineHtml(h) if !rendered::shows_something(&h) => {}
            _ => return None,
        }
    }
    pactum_core::json::parse_strict(json_trim(&body?)).ok()
}

/// Whether a fenced code block of `content` (whatever its info string,
/// wherever it is) holds one JSON array or object, or near-JSON
/// ([`json_view::near_json`]): its elements may be the items or sources
/// a clause counts, which the Markdown count does not see inside code.
fn fences_json_list(content: &str) -> bool {
    fenced_bodies(content).iter().any(|b| {
        matches!(
            pactum_core::json::parse_strict(b.trim()),
            Ok(serde_json::Value::Array(_) | serde_json::Value::Object(_))
        ) || json_view::near_json(b)
    })
}

/// The bodies of `content`'s fenced code blocks, whatever their info
/// strings.
fn fenced_bodies(content: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut out = Vec::new();
    if !content.contains("```") && !content.contains("~~~") {
        return out;
    }
    let mut body: Option<String> = None;
    for ev in Parser::new(content) {
        match ev {
            Event::Start(Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced(_))) => {
                body = Some(String::new());
            }
            Event::Text(t) => {
                if let Some(b) = body.as_mut() {
                    b.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.extend(body.take()),
            _ => {}
        }
    }
    out
}

/// Whether `content` shows one short line of prose (a paragraph with no
/// line break, "Here is the result:") and then one fenced block, its info
/// string empty or `json`, holding one JSON value, and nothing else.
fn lead_in_json(content: &str) -> bool {
    use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
    if !content.contains("```") && !content.contains("~~~") {
        return false;
    }
    let visible = without_hidden(content);
    // 0: before the paragraph, 1: in it, 2: after it, 3: in the fence,
    // 4: after the fence.
    let mut state = 0;
    let mut lead = String::new();
    let mut body = String::new();
    for ev in Parser::new(&visible) {
        match (state, ev) {
            (_, Event::Html(h) | Event::InlineHtml(h)) if !rendered::shows_something(&h) => {}
            (0, Event::Start(Tag::Paragraph)) => state = 1,
            (1, Event::End(TagEnd::Paragraph)) => state = 2,
            (1, Event::SoftBreak | Event::HardBreak) => return false,
            (1, Event::Text(t) | Event::Code(t)) => lead.push_str(&t),
            (
                1,
                Event::Start(Tag::Emphasis | Tag::Strong)
                | Event::End(TagEnd::Emphasis | TagEnd::Strong),
            ) => {}
            (2, Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))) => {
                let lang = info.split_whitespace().next().unwrap_or("");
                if !(lang.is_empty() || lang.eq_ignore_ascii_case("json")) {
                    return false;
                }
                state = 3;
            }
            (3, Event::Text(t)) => body.push_str(&t),
            (3, Event::End(TagEnd::CodeBlock)) => state = 4,
            _ => return false,
        }
    }
    state == 4
        && lead.chars().count() <= 200
        && pactum_core::json::parse_strict(json_trim(&body)).is_ok()
}

/// The headings of `r` that name something: one that only numbers (`#
/// 1`, `# A`, `# II`) names nothing.
fn named_headings(r: &rendered::Rendered) -> Vec<rendered::Piece> {
    r.headings
        .iter()
        .filter(|h| {
            let (words, indexed) = rendered::unit_words(&h.text);
            !(words.is_empty() && indexed)
        })
        .cloned()
        .collect()
}

/// `f`, a list format that held, left to the judge when no item of the
/// output is one a reader can use (`Item A`, `TODO: first`: scaffolding,
/// [`rendered::scaffold_text`]).
fn scaffold_items(f: Finding, content: &str) -> Finding {
    if f.held != Some(true) {
        return f;
    }
    let r = render(content);
    if !r.items.is_empty() && range_of(&r.items).0 == 0 {
        return finding(
            None,
            format!("{}, but every item is a placeholder or scaffolding (`Item A`, `TODO: first`): whether it is the list asked for is for the judge", f.detail),
            None,
        );
    }
    f
}

/// Whether a table row's text, under `header`, is a template's: words
/// of scaffolding ([`rendered::SCAFFOLD`]) and of the header only, one of
/// scaffolding at least (`| Maker name | Country name |` under `| Maker
/// | Country |`, `Name here | Year here`).
fn template_row(header: &[String]) -> impl Fn(&str) -> bool {
    let header_words: BTreeSet<String> = rendered::unit_words(&header.join(" "))
        .0
        .into_iter()
        .collect();
    move |text: &str| {
        let words = rendered::unit_words(text).0;
        let scaffold = |w: &String| rendered::SCAFFOLD.contains(&w.as_str());
        words.iter().any(scaffold)
            && words
                .iter()
                .all(|w| scaffold(w) || header_words.contains(w))
    }
}

/// Why a list or table format and a count of one clause may be of
/// different parts of `content`, if they may. `a numbered list of at
/// least 3 items` counts the items of every list: over more than one
/// list, or beside an HTML list (not counted), which list the count is
/// of is not told; `a markdown table with at least 3 rows` likewise over
/// tables. A format with a count of another unit (`a bulleted list of
/// at least 3 sources`, `a markdown table of at least 3 items`, `a
/// numbered list of at least 12 words`) counts over the whole output: it
/// is the list's or table's count only where the output shows nothing
/// but that one list or table. Then the judge's. A JSON array is one
/// list.
pub(crate) fn format_and_count_apart(
    measures: &[(String, Measure)],
    content: &str,
) -> Option<String> {
    let units: Vec<&Unit> = measures
        .iter()
        .filter_map(|(_, m)| match m {
            Measure::Count { unit, .. } => Some(unit),
            _ => None,
        })
        .collect();
    let list = measures.iter().any(|(_, m)| {
        matches!(
            m,
            Measure::NumberedList | Measure::BulletList | Measure::List
        )
    });
    let table = measures.iter().any(|(_, m)| matches!(m, Measure::Table));
    if units.is_empty() || !(list || table) || as_json(content).is_some() {
        return None;
    }
    let r = render(content);
    let html_list = HTML_OL.is_match(content) || HTML_UL.is_match(content);
    let html_table = HTML_TABLE.is_match(content);
    let (lists, tables) = (r.groups.len(), r.tables.len());
    for unit in units {
        let apart = match unit {
            Unit::Items if list && !table => lists > 1 || html_list,
            Unit::Rows if table && !list => tables > 1 || html_table,
            // Counted over the whole output: of the one list or table
            // only when nothing else shows.
            _ => {
                let shapes = lists + tables + usize::from(html_list) + usize::from(html_table);
                shapes != 1
                    || (list && tables > 0)
                    || (table && lists > 0)
                    || !r.paragraphs.is_empty()
                    || !r.headings.is_empty()
                    || rendered::html_blocks(&r)
                    || r.footnotes
            }
        };
        if apart {
            let counted = match unit {
                Unit::Items => "items",
                Unit::Sources => "sources",
                Unit::Paragraphs => "paragraphs",
                Unit::Words => "words",
                Unit::Rows => "rows",
                Unit::Headings => "headings",
            };
            let shape = if list { "list" } else { "table" };
            return Some(format!("the clause asks a count of {counted} of its {shape}, and the output shows more than that one {shape}: which part the count is of is for the judge"));
        }
    }
    None
}

/// Whether the output holds a list whose every top-level item is of the
/// kind `ordered` tells (a list mixing `1.` and `-` items, parted only by
/// blank lines, is neither a numbered nor a bulleted list), read over
/// what renders (in a blockquote too).
fn one_kind_of_list(content: &str, ordered: bool, kind: &str, example: &str) -> Finding {
    let r = render(content);
    let pure = (0..r.groups.len())
        .find(|i| r.group_items[*i] > 0 && r.groups[*i].iter().all(|o| *o == ordered));
    match pure {
        Some(i) => finding(
            Some(true),
            format!("a {kind} list of {} item(s)", r.group_items[i]),
            Some(r.group_lines[i].clone()),
        ),
        None if r.groups.iter().any(|g| g.contains(&ordered)) => finding(
            Some(false),
            format!("a list mixing {kind} items ({example}) with items of another kind is no {kind} list"),
            None,
        ),
        None => finding(Some(false), format!("no {kind} list item ({example})"), None),
    }
}

/// Whether the format `m` renders anywhere in `content` (an empty item,
/// heading or header-only table too), for a negated format: `None` when
/// `m` is no format.
fn format_renders(m: &Measure, content: &str, json: Option<&Value>) -> Option<(bool, String)> {
    let r = render(content);
    let (present, what) = match m {
        Measure::Headings => (
            !r.headings.is_empty() || r.html_headings > 0,
            "a heading renders",
        ),
        Measure::Table => (
            !r.tables.is_empty() || rendered::html_rows(&r),
            "a table renders",
        ),
        Measure::NumberedList => (
            r.any_ordered || r.tags.contains("ol"),
            "a numbered list renders",
        ),
        Measure::BulletList => (
            r.any_bullet || r.tags.contains("ul") || r.tags.contains("menu"),
            "a bulleted list renders",
        ),
        Measure::List => (
            matches!(json, Some(Value::Array(_)))
                || r.any_ordered
                || r.any_bullet
                || rendered::html_items(&r),
            "a list renders",
        ),
        _ => return None,
    };
    Some((
        present,
        if present {
            what.to_string()
        } else {
            format!("no such format renders ({})", what.replace(" renders", ""))
        },
    ))
}

/// Whether an item's text shows anything besides list and break markers
/// (`- `, `* * *` and `- - -` are no items).
fn has_content(s: &str) -> bool {
    !pactum_core::text::is_blank(&s.replace(['-', '*', '+', '_'], ""))
}

static URL: LazyLock<Regex> = LazyLock::new(|| re(r#"https?://[^\s)\]>"'|]+"#));

/// `text` with every `http(s)://` URL taken out.
pub(crate) fn without_urls(text: &str) -> String {
    URL.replace_all(text, " ").into_owned()
}

/// A `www.` host GFM links without a scheme (not one a `//` precedes).
static WWW: LazyLock<Regex> = LazyLock::new(|| re(r#"(?i)(?:^|[^\w./@-])(www\.[^\s)\]>"'|<]+)"#));

/// The URLs written in `content`: with a scheme, or `www.` ones (read
/// as `http://www.…`).
pub(crate) fn urls(content: &str) -> BTreeSet<String> {
    let trim = |u: &str| u.trim_end_matches(['.', ',', ';']).to_string();
    URL.find_iter(content)
        .map(|m| trim(m.as_str()))
        .chain(
            WWW.captures_iter(content)
                .filter_map(|c| c.get(1))
                .map(|m| format!("http://{}", trim(m.as_str()))),
        )
        .collect()
}

/// Whether `u` opens with a URL scheme (`ftp:`, `x-y:`): a link away
/// from the output, not an anchor or a relative path in it.
fn has_scheme(u: &str) -> bool {
    u.split_once(':').is_some_and(|(s, _)| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// The URLs of the `href` attributes of `raw`'s HTML tags (comments
/// aside; `//host` read as `https://host`).
fn html_links(raw: &str) -> impl Iterator<Item = String> {
    static HREF: LazyLock<Regex> =
        LazyLock::new(|| re(r#"(?i)<[a-z][^>]*?\shref\s*=\s*["']?\s*((?:https?:)?//[^\s"'<>]+)"#));
    let visible = without_comments(raw);
    HREF.captures_iter(&visible)
        .filter_map(|c| c.get(1))
        .map(|m| {
            let u = m.as_str();
            if u.starts_with("//") {
                format!("https:{u}")
            } else {
                u.to_string()
            }
        })
        .collect::<Vec<_>>()
        .into_iter()
}

fn first_line(s: &str) -> String {
    pactum_core::text::truncate_chars(s.lines().next().unwrap_or("").trim(), 200)
}

/// Measures `m` over an output's content.
pub fn measure(m: &Measure, content: &str) -> Finding {
    measure_against(m, content, &[])
}

/// Measures `m` over an output's content, given the `inputs` the service
/// was given: a quoted text found only where the output repeats an input
/// (the echo rule of SPEC §3.4, [`pactum_core::echo::is_echo`], or an
/// output that is all copied input, [`pactum_core::echo::only_copied`])
/// is not there. A negated quote is measured without that discount: an
/// echo still says the words.
///
/// Text inside an HTML comment (`<!-- … -->`) is not shown when the
/// Markdown renders: no positive measure sees it (a heading, a list item,
/// a quoted text there is no evidence). A negated one still does: a
/// forbidden text hidden in a comment is still written.
///
/// A JSON output is read once (`json_view::view`): over one strict JSON
/// value a quote and the words and sources counted are read in its
/// decoded string values, never in its keys; over text that looks like
/// JSON pactum does not decode exactly (a repeated key, several values, a
/// Python list), every measure but the JSON format itself is the judge's.
pub fn measure_against(m: &Measure, content: &str, inputs: &[Cow<'_, str>]) -> Finding {
    let f = measure_viewed(m, content, inputs);
    // Whether a text found is said, and not denied, supposed, labelled,
    // left to do or framed by a key, depends on the words around it: no
    // closed list of those words is complete, so only an output that is
    // the quote and nothing else says it for pactum; anywhere else the
    // finding is the judge's.
    if let Measure::Contains(text) = m {
        if f.held == Some(true) && !only_the_quote(content, text) {
            return finding(
                None,
                format!("{}, but the output holds more than \"{text}\" alone: whether it says it (rather than denies, supposes, labels or plans it) is for the judge", f.detail),
                None,
            );
        }
    }
    f
}

/// Whether `content` is the quoted `text` and nothing else: the same
/// words in the same case-insensitive spelling, with white space
/// collapsed, at most one final `.` or `!`, and emphasis (`*`, `_`)
/// around the whole. Any other character (a list marker, a heading mark,
/// a quotation mark, a tag, an entity, an invisible character) makes it
/// more than the quote.
pub(crate) fn only_the_quote(content: &str, text: &str) -> bool {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let want = squash(text).to_lowercase();
    let mut got = squash(content.trim_start_matches('\u{feff}'));
    if !text.contains(['*', '_']) {
        let bare = got.trim_matches(['*', '_']);
        if bare.len() + 4 >= got.len() && !bare.contains(['*', '_']) {
            got = bare.to_string();
        }
    }
    let got = got.to_lowercase();
    let got = got
        .strip_suffix(['.', '!'])
        .filter(|_| !want.ends_with(['.', '!']))
        .unwrap_or(&got);
    let got = if text.contains(['*', '_']) {
        got
    } else {
        got.trim_matches(['*', '_'])
    };
    !want.is_empty() && got == want
}

/// [`measure_against`] before a found quote is weighed.
fn measure_viewed(m: &Measure, content: &str, inputs: &[Cow<'_, str>]) -> Finding {
    match json_view::view(content) {
        View::JsonLike(what) => {
            let f = measure_view(m, content, None, inputs);
            // Not JSON is measured as written; a forbidden text found as
            // written is there however the rest reads.
            let written = match m {
                Measure::Json(_) => true,
                Measure::Not(inner) => {
                    matches!(**inner, Measure::Contains(_)) && f.held == Some(false)
                }
                _ => false,
            };
            if written {
                return f;
            }
            finding(
                None,
                format!("the output {what}, which pactum does not decode exactly: what it holds, and so whether this is met, is for the judge"),
                None,
            )
        }
        View::Json(v) => measure_json(m, content, &v, inputs),
        View::Text => measure_view(m, content, None, inputs),
    }
}

/// [`measure_against`] over an output that is the strict JSON value `v`.
fn measure_json(m: &Measure, content: &str, v: &Value, inputs: &[Cow<'_, str>]) -> Finding {
    match m {
        Measure::Contains(text) => {
            let f = measure_view(m, &json_view::said(v), Some(v), inputs);
            let folded = rendered_fold(text);
            if f.held == Some(false)
                && !folded.is_empty()
                && rendered_fold(&json_view::structure(v)).contains(&folded)
            {
                return finding(
                    None,
                    format!("{}, but it is written in a key, a number or a boolean of the JSON: a key names a field and says nothing by itself (its value may deny it), so whether the output says \"{text}\" is for the judge", f.detail),
                    None,
                );
            }
            f
        }
        Measure::Table
        | Measure::NumberedList
        | Measure::BulletList
        | Measure::Headings
        | Measure::List => {
            let f = measure_view(m, content, Some(v), inputs);
            if f.held == Some(false) && format_in_strings(m, v) {
                return finding(
                    None,
                    format!("{}, but a string value of the JSON output holds it as Markdown: whether that is the output's format is for the judge", f.detail),
                    None,
                );
            }
            f
        }
        Measure::Count {
            unit: Unit::Words,
            min,
            ..
        } if *min > 0 => {
            let f = measure_view(m, content, Some(v), inputs);
            // Over several string values, which of them is the text asked
            // for (a summary, not a comment or a debug field beside it) is
            // not told by their keys: whether it is long enough is the
            // judge's.
            let strings = json_view::strings(v);
            let worded = strings
                .iter()
                .filter(|s| s.split_whitespace().next().is_some())
                .count();
            // A string that is JSON itself (encoded twice) holds values.
            let encoded = strings.iter().any(|s| {
                matches!(
                    pactum_core::json::parse_strict(s.trim()),
                    Ok(Value::Object(_) | Value::Array(_))
                )
            });
            let worded = if encoded { worded.max(2) } else { worded };
            if f.held == Some(true) && worded > 1 {
                return finding(
                    None,
                    format!("{}, but over {worded} string values: which of them is the text asked for (not a comment or a note beside it) is for the judge", f.detail),
                    None,
                );
            }
            f
        }
        _ => measure_view(m, content, Some(v), inputs),
    }
}

/// Whether `content` holds a JSON object or array in a code span or an
/// HTML `<pre>`/`<code>` element.
fn json_in_code(content: &str) -> bool {
    static CODE: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?is)`+([^`]+)`+|<(?:pre|code)\b[^>]*>(.*?)</(?:pre|code)>"));
    CODE.captures_iter(content).any(|c| {
        let body = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
        matches!(
            pactum_core::json::parse_strict(decode_entities(body.trim()).trim()),
            Ok(Value::Object(_) | Value::Array(_))
        )
    })
}

/// Whether the format `m` renders in a string value of `v` read as
/// Markdown.
fn format_in_strings(m: &Measure, v: &Value) -> bool {
    json_view::strings(v)
        .into_iter()
        .any(|s| format_renders(m, s, None).is_some_and(|(present, _)| present))
}

/// [`measure_against`] over `content` read as text, `json` the JSON
/// value it is, if one.
fn measure_view(
    m: &Measure,
    content: &str,
    json: Option<&Value>,
    inputs: &[Cow<'_, str>],
) -> Finding {
    match m {
        Measure::Not(inner) => {
            // A forbidden text is looked for as written and as it reads
            // when rendered: a soft hyphen, a character reference or
            // emphasis inside the word does not hide it.
            if let Measure::Contains(text) = &**inner {
                let folded = rendered_fold(text);
                let written = rendered_fold(content);
                let plain = render(content).plain;
                let shown = rendered_fold(&plain);
                // In JSON, decoded: keys and values alike.
                let decoded = json.map_or_else(String::new, |v| {
                    rendered_fold(&format!(
                        "{}\n\n{}",
                        json_view::said(v),
                        json_view::structure(v)
                    ))
                });
                if !folded.is_empty()
                    && (written.contains(&folded)
                        || shown.contains(&folded)
                        || decoded.contains(&folded))
                {
                    return finding(
                        Some(false),
                        format!("the clause negates it, and the output contains \"{text}\" as it reads when rendered"),
                        None,
                    );
                }
                // Spelled with other lookalikes (a Cherokee `Ꮮ`, a digit
                // `1` for `l`), it may read the same: for the judge. Read
                // in its own case too: a lower-case form may look like no
                // Latin letter.
                let skeleton = rendered::lookalike_fold(&folded);
                if rendered::shows_something(&skeleton)
                    && [content, &plain, &written, &shown]
                        .iter()
                        .any(|t| rendered::lookalike_fold(t).contains(&skeleton))
                {
                    return finding(
                        None,
                        format!("the clause negates \"{text}\", and the output holds text that reads like it once lookalike letters are read as the letters they look like: whether it says \"{text}\" is for the judge"),
                        None,
                    );
                }
                // Split by a dash, a hard line break or letter spacing,
                // or with a combining mark inside, it may still read as
                // the word: for the judge, never satisfied nor violated.
                let loose = rendered::loose_fold(text);
                // Comments hidden and references decoded too: what shows
                // between a line-end hyphen and the rest of the word.
                static COMMENT: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)<!--.*?(?:-->|$)"));
                let uncommented = decode_entities(&COMMENT.replace_all(content, "")).into_owned();
                if rendered::shows_something(&loose)
                    && [content, &plain, &uncommented]
                        .iter()
                        .any(|t| rendered::loose_fold(t).contains(&loose))
                {
                    return finding(
                        None,
                        format!("the clause negates \"{text}\", and the output holds text that may read like it once combining marks, dashes, line breaks or letter spacing inside a word are read through: whether it says \"{text}\" is for the judge"),
                        None,
                    );
                }
                // A number written in digit groups (`1’100`, `1 100`,
                // `1，100`, `1٬100`), or in digits other than ASCII ones
                // (`١١٠٠`), may read as the number: for the judge.
                if folded.chars().any(char::is_numeric)
                    && [content, &plain].iter().any(|t| {
                        rendered_fold(&ungrouped(t)).contains(&folded)
                            || t.chars().any(|c| c.is_numeric() && !c.is_ascii_digit())
                    })
                {
                    return finding(
                        None,
                        format!("the clause negates \"{text}\", and the output holds a number that reads like it once its digit group separators are read through: whether it says \"{text}\" is for the judge"),
                        None,
                    );
                }
                // A bidirectional control shows text in another order
                // than written: what it shows is not looked up.
                if has_bidi_control(content) {
                    return finding(
                        None,
                        format!("the clause negates \"{text}\", and the output holds a bidirectional override, embedding or isolate control, which shows text in another order than it is written: whether it shows \"{text}\" is for the judge"),
                        None,
                    );
                }
                // A JSON string escape (`T\u0065sla`, `\"`) is read
                // decoded by every reader of the JSON: what it spells is
                // not looked up.
                if has_json_escape(content) {
                    return finding(
                        None,
                        format!("the clause negates \"{text}\", and the output holds a JSON string escape (`\\u0065`, `\\\"`), which a reader of the JSON reads decoded: whether it says \"{text}\" is for the judge"),
                        None,
                    );
                }
            }
            // JSON in a code span or a `<pre>`/`<code>` block is JSON to
            // whoever reads the output as data.
            if matches!(**inner, Measure::Json(_)) && json.is_none() && json_in_code(content) {
                return finding(
                    None,
                    "the clause negates JSON, and the output holds a JSON object or array in a code span or a `<pre>`/`<code>` block: whether the output is JSON is for the judge".into(),
                    None,
                );
            }
            if let Some((present, why)) = format_renders(inner, content, json) {
                // Markdown in a JSON string may render as the format.
                if !present && json.is_some_and(|v| format_in_strings(inner, v)) {
                    return finding(
                        None,
                        format!("the clause negates it, and {why} as written, but a string value of the JSON output holds it as Markdown: whether the output shows it is for the judge"),
                        None,
                    );
                }
                return finding(
                    Some(!present),
                    format!("the clause negates it, and {why}"),
                    None,
                );
            }
            let f = measure_in(inner, content, content, json, &[]);
            match f.held {
                Some(held) => finding(
                    Some(!held),
                    format!("the clause negates it, and {}", f.detail),
                    f.quote.filter(|_| held),
                ),
                None => f,
            }
        }
        _ => {
            let f = measure_both(m, content, json, inputs);
            if f.held != Some(true) {
                return f;
            }
            // A bidirectional control shows text in another order than
            // written: a quote found as written may not be shown.
            if matches!(m, Measure::Contains(_)) && has_bidi_control(content) {
                return finding(
                    None,
                    format!("{}, but the output holds a bidirectional override, embedding or isolate control, which shows text in another order than it is written: whether it shows it is for the judge", f.detail),
                    None,
                );
            }
            // Found as written, a quoted word may render joined to
            // another (`un*safe*`, a soft hyphen): not said there. A quote
            // of markup (`<html>`) is sought as written only.
            if let Measure::Contains(text) = m {
                let markup =
                    text.contains(['<', '>', '&', '*', '_', '`', '~', '[', ']', '\\', '|', '#']);
                if !markup && shown_only_joined(content, text) {
                    return finding(
                        None,
                        format!("{}, but where the output renders, \"{text}\" is never a word of its own (emphasis, a tag, a soft hyphen, a hyphen or a digit group separator joins it to the text beside it): whether it says it is for the judge", f.detail),
                        None,
                    );
                }
                let rendered =
                    renders_words(&without_hidden(content), text) && renders_words(content, text);
                if !markup && !rendered {
                    return finding(
                        None,
                        format!("{}, but the output, rendered, does not show \"{text}\" (a table cell beyond its header's count, a code fence's info string, a footnote's label or a list number is not shown as written): whether it says it is for the judge", f.detail),
                        None,
                    );
                }
            }
            // GitHub's math rendering can hide text (`\phantom`, a white
            // `\color`): what held there may not be shown.
            if hiding_math(content) {
                return finding(
                    None,
                    format!("{}, but the output holds math with a command that can hide text (`\\phantom`, `\\color`…): whether it is shown is for the judge", f.detail),
                    None,
                );
            }
            f
        }
    }
}

/// Whether `c` joins the words or digits on either side of it: `-`, `.`
/// or `,` in any form NFKC reads as one (fullwidth `－`, `．`, `，`, the
/// small forms), every Unicode hyphen that joins (U+2010, U+2011, the
/// figure dash, the Armenian and Hebrew hyphens, U+2E17, U+30A0…; not
/// the en and em dashes, which part), the minus signs (U+2212, `˗`,
/// `➖`), the hyphenation point U+2027, the hyphen bullet U+2043, the
/// middle dot (`1·100`), and the Arabic decimal and thousands separators.
fn joiner(c: char) -> bool {
    use unicode_normalization::UnicodeNormalization;
    matches!(
        c,
        '\u{058A}'
            | '\u{05BE}'
            | '\u{066B}'
            | '\u{066C}'
            | '\u{1400}'
            | '\u{1806}'
            | '\u{2010}'
            | '\u{2011}'
            | '\u{2012}'
            | '\u{2E17}'
            | '\u{2E1A}'
            | '\u{2E40}'
            | '\u{2E5D}'
            | '\u{30A0}'
            | '\u{10EAD}'
            | '\u{2212}'
            | '\u{2027}'
            | '\u{02D7}'
            | '\u{2043}'
            | '\u{2796}'
            | '\u{00B7}'
    ) || {
        let mut folded = std::iter::once(c).nfkc();
        matches!(
            (folded.next(), folded.next()),
            (Some('-' | '.' | ','), None)
        )
    }
}

/// Whether `c` is a minus sign before a number (`-100`, `−100`, `˗100`): a
/// negative number is not the number.
fn minus(c: char) -> bool {
    use unicode_normalization::UnicodeNormalization;
    matches!(c, '\u{2212}' | '\u{2012}' | '\u{02D7}' | '\u{2796}')
        || std::iter::once(c).nfkc().eq(std::iter::once('-'))
}

/// Whether the match `start..end` of `content` is part of a longer word
/// or number: a letter or digit at its edge is joined to one outside it,
/// directly or by a [`joiner`] (`un-safe`, `un－safe`, `1,100`, `1٬100`,
/// `100.5`), or a number follows a minus sign (`-100`). A sentence's own
/// `.` or `,` is followed by no letter or digit.
fn joined(content: &str, start: usize, end: usize) -> bool {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let digit = |c: Option<char>| c.is_some_and(|c| c.is_numeric());
    let joiner = |c: Option<char>| c.is_some_and(joiner);
    // A digit group separator (`1’100`, `1 100` with a no-break space)
    // joins digits.
    let grouping = |c: Option<char>| {
        matches!(
            c,
            Some('\'' | '\u{2019}' | '\u{a0}' | '\u{202f}' | '\u{2009}' | '\u{2007}')
        )
    };
    let (Some(before), Some(after), Some(inside)) = (
        content.get(..start),
        content.get(end..),
        content.get(start..end),
    ) else {
        return false;
    };
    let mut back = before.chars().rev();
    let mut ahead = after.chars();
    let (b1, a1) = (back.next(), ahead.next());
    let (b2, a2) = (back.next(), ahead.next());
    let (first, last) = (inside.chars().next(), inside.chars().next_back());
    let left = word(first)
        && (word(b1)
            || (joiner(b1) && word(b2))
            || (digit(first) && grouping(b1) && digit(b2))
            || (digit(first) && b1.is_some_and(minus))
            // An en dash, `±` or `∓` right before a number that follows
            // no word is a sign, not a range: `–100`, `±100`.
            || (digit(first)
                && matches!(b1, Some('\u{2013}' | '\u{b1}' | '\u{2213}'))
                && !word(b2)));
    let right = word(last)
        && (word(a1) || (joiner(a1) && word(a2)) || (digit(last) && grouping(a1) && digit(a2)));
    left || right
}

/// Whether the words of `quote` (character references decoded) occur, in
/// order and adjacent, among the words `shown` renders to: its text, code
/// and raw HTML's text. A table cell beyond the header's count, a fence's
/// info string, a footnote's label and a list's numbers after the first
/// render no words of theirs, so a quote found only there is not shown.
/// A quote of no word is not looked for (`true`).
pub(crate) fn renders_words(shown: &str, quote: &str) -> bool {
    let want = pactum_core::echo::words(&decode_entities(quote));
    if want.is_empty() {
        return true;
    }
    let r = render(shown);
    let mut have = pactum_core::echo::words(&r.plain);
    have.extend(pactum_core::echo::words(&r.html_text));
    have.windows(want.len()).any(|w| w == want.as_slice())
}

/// Whether `text`, where the rendered output shows it, is only ever
/// joined to a word or number beside it: emphasis, tags and invisible
/// characters such as a soft hyphen join what is on either side
/// (`un*safe*` shows `unsafe`). Text the rendered reading does not hold
/// at all is left to the other readings.
fn shown_only_joined(content: &str, text: &str) -> bool {
    let plain: String = render(content)
        .plain
        .chars()
        .filter(|c| c.is_whitespace() || !pactum_core::text::shown_as_code_point(*c))
        .collect();
    let Ok(r) = regex::RegexBuilder::new(&regex::escape(text))
        .case_insensitive(true)
        .build()
    else {
        return false;
    };
    let mut found = false;
    for f in r.find_iter(&plain) {
        if !joined(&plain, f.start(), f.end()) {
            return false;
        }
        found = true;
    }
    found
}

/// `s` with character references decoded and digit group separators
/// between digits (`,`, `.`, `'`, `’`, a no-break, thin or figure space)
/// removed: `1’100` reads `1100`.
fn ungrouped(s: &str) -> String {
    let decoded = decode_entities(s);
    let chars: Vec<char> = decoded.chars().collect();
    let mut out = String::with_capacity(decoded.len());
    for (i, c) in chars.iter().enumerate() {
        let between =
            i > 0 && chars[i - 1].is_numeric() && chars.get(i + 1).is_some_and(|n| n.is_numeric());
        if between
            && (matches!(
                c,
                ',' | '.' | '\'' | '\u{2019}' | '\u{a0}' | '\u{202f}' | '\u{2009}' | '\u{2007}'
            ) || (joiner(*c) && !minus(*c)))
        {
            continue;
        }
        out.push(*c);
    }
    out
}

/// Whether `content` holds a TeX command that can hide text when GitHub
/// renders math (`$…$`, `$$…$$`, a `math` fence): phantoms, colours,
/// overlaps and smashes.
fn hiding_math(content: &str) -> bool {
    static HIDING_TEX: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"\\(?:[hv]?phantom|(?:text|math|page)?color|colorbox|fcolorbox|smash|[lrc]lap|mathrlap|mathllap|mathclap|style|class|cssId|href|raise|lower|kern|mkern|hspace|hskip|mskip)\b",
        )
    });
    (content.contains('$') || content.contains("math")) && HIDING_TEX.is_match(content)
}

/// [`measure_in`] over what the output shows, held only where it holds
/// both where what only some renderers hide is hidden
/// ([`without_hidden`]) and where it is shown ([`without_hidden_least`]).
fn measure_both(
    m: &Measure,
    content: &str,
    json: Option<&Value>,
    inputs: &[Cow<'_, str>],
) -> Finding {
    let most = without_hidden(content);
    let f = measure_in(m, &most, content, json, inputs);
    let least = without_hidden_least(content);
    if least == most {
        return f;
    }
    // Held only where it holds in both readings.
    let g = measure_in(m, &least, content, json, inputs);
    match (f.held, g.held) {
                (Some(false), _) | (Some(true), Some(true)) => f,
                (_, Some(false)) => Finding {
                    detail: format!("{}, reading as shown what only some renderers hide (YAML front matter; an HTML comment, processing instruction or declaration left open where its block ends)", g.detail),
                    ..g
                },
                _ => finding(None, f.detail, None),
            }
}

/// Whether the output shows entries the count of list items does not
/// read: a table (GFM or HTML), a bullet-like character (`•`, `◦`, `‣`,
/// or any symbol opening a line), a `<br>` line break, a JSON array
/// or object not read as the output's JSON ([`shows_json_value`]), or a
/// line of values in sequence ([`json_view::sequence`]: `"a", "b"`,
/// `['a', 'b']`, `[a, b]`). An upper or
/// exact bound on items over it is left to the judge, never met.
fn uncounted_entries(r: &rendered::Rendered, raw: &str) -> bool {
    const BULLETS: &[char] = &[
        '\u{2022}', '\u{25e6}', '\u{2023}', '\u{2043}', '\u{2219}', '\u{25aa}', '\u{25ab}',
        '\u{25cf}', '\u{25cb}', '\u{25a0}', '\u{25a1}', '\u{25c6}', '\u{25c7}', '\u{25ba}',
        '\u{25b8}', '\u{25b9}', '\u{27a2}', '\u{27a4}', '\u{2192}', '\u{2713}', '\u{2714}',
        '\u{2717}', '\u{2718}', '\u{2610}', '\u{2611}', '\u{2612}', '\u{2605}', '\u{2606}',
        '\u{00b7}', '\u{30fb}', '\u{ff65}',
    ];
    !r.tables.is_empty()
        || rendered::html_rows(r)
        || r.tags.contains("br")
        || raw.to_ascii_lowercase().contains("<br")
        || raw.contains(BULLETS)
        || shows_json_value(raw)
        || raw.lines().any(json_view::sequence)
        || raw.lines().any(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| !c.is_ascii() && !c.is_alphanumeric())
        })
}

/// Whether `raw` holds, anywhere, what reads as the start of a JSON
/// array or object (a bracket or brace, then a string in double or
/// single quotes, a number, `true`,
/// `false` or `null`, then `,`, `:` or a closing mark), as written or
/// with character references decoded: one after a byte order mark or a
/// comment, in `<pre>` or a code span, is not read as the output's JSON,
/// yet its elements may be the items a reader counts.
fn shows_json_value(raw: &str) -> bool {
    static START: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"[\[{]\s*("[^"\n]*"|'[^'\n]*'|-?[0-9][0-9.eE+-]*|true|false|null)\s*[,:\]}]"#)
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    START.is_match(raw) || START.is_match(&decode_entities(raw))
}

/// Whether `raw` holds, as written or with character references
/// decoded, what reads as a scheme-relative reference (`//host/path`,
/// `///host/path`, not the `[//]: #` comment) opening a line or after a
/// space, a bracket, a quote or `=`: a browser opens it as a page, which
/// the count of sources does not read, so an upper or exact bound on
/// sources over it is never met.
fn scheme_relative(raw: &str) -> bool {
    static REF: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?m)(^|[\s(<\["'=])/{2,}[^\s/\])>]"#)
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    REF.is_match(raw) || REF.is_match(&decode_entities(raw))
}

/// Whether `content` holds what reads as a JSON string escape: a
/// backslash before `u` and four hex digits, or before `"`, `\`, `/`,
/// `b`, `f`, `n`, `r` or `t`.
fn has_json_escape(content: &str) -> bool {
    static ESCAPE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\\(u[0-9a-fA-F]{4}|["\\/bfnrt])"#)
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    ESCAPE.is_match(content)
}

/// Whether `content` holds a bidirectional override, embedding or
/// isolate control (U+202A–U+202E, U+2066–U+2069), as a character or a
/// character reference.
fn has_bidi_control(content: &str) -> bool {
    decode_entities(content)
        .chars()
        .any(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
}

/// `content` with every HTML comment (`<!--` to the next `-->`, or to the
/// end when none closes it) blanked: each of its characters but line
/// breaks made a space, so offsets and lines stay where they were.
pub fn without_comments(content: &str) -> Cow<'_, str> {
    if !content.contains("<!--") {
        return Cow::Borrowed(content);
    }
    comments_blanked(content, &Literal::of(content), true)
}

/// [`without_comments`], with where `content` shows text as written
/// (`code`) already read.
///
/// Readers differ over a comment left open where its block ends: a
/// CommonMark parser reads an inline `<!--` left open in its block as
/// text, and ends a comment block with its container (a list item); a
/// renderer passing it on as HTML hides the rest. The `most` reading
/// hides to the next `-->`; the other shows the text and ends a block's
/// comment with the block.
fn comments_blanked<'a>(content: &'a str, code: &Literal, most: bool) -> Cow<'a, str> {
    if !content.contains("<!--") {
        return Cow::Borrowed(content);
    }
    let mut spans = Vec::new();
    // Every `-->`, found once: a comment read as ending with its block
    // must not search the rest of the text again for each one.
    let closes: Vec<usize> = content.match_indices("-->").map(|(i, _)| i).collect();
    let mut at = 0;
    while let Some(open) = content[at..].find("<!--").map(|i| at + i) {
        // Inside code, or escaped, `<!--` is shown as written.
        if code.holds(open) {
            at = open + 4;
            continue;
        }
        // `<!-->` and `<!--->` are whole (empty) comments.
        let end = if content[open..].starts_with("<!-->") {
            open + 5
        } else if content[open..].starts_with("<!--->") {
            open + 6
        } else {
            let i = closes.partition_point(|c| *c < open + 4);
            closes.get(i).map_or(content.len(), |c| c + 3)
        };
        let end = match (most, code.html_end(open)) {
            (true, _) => end,
            (false, Some(block_end)) => end.min(block_end),
            (false, None) => {
                at = open + 4;
                continue;
            }
        };
        spans.push((open, end));
        at = end;
    }
    Cow::Owned(blank_spans(content, &spans))
}

/// `content` with each byte range of `spans` blanked (every character but
/// line breaks made spaces of the same byte length).
fn blank_spans(content: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(content.len());
    let mut blank_until = 0;
    let mut sorted = spans.to_vec();
    sorted.sort_unstable();
    let mut next = sorted.into_iter().peekable();
    for (i, c) in content.char_indices() {
        while let Some((s, e)) = next.peek().copied() {
            if s <= i {
                blank_until = blank_until.max(e);
                next.next();
            } else {
                break;
            }
        }
        if i < blank_until && c != '\n' && c != '\r' {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// An HTML unordered list's opening tag.
static HTML_UL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<ul(?:\s[^>]*)?>"));
/// An HTML ordered list's opening tag.
static HTML_OL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<ol(?:\s[^>]*)?>"));

/// `f`, or held when it failed and the output holds an HTML list of the
/// kind `tag` opens (`<ul>`, `<ol>`): it renders as that list, and a
/// negated measure must see it.
fn html_list_or(f: Finding, content: &str, tag: &Regex) -> Finding {
    match (f.held, tag.find(content)) {
        (Some(false), Some(m)) => finding(
            Some(true),
            format!("an HTML list (`{}`)", m.as_str()),
            Some(m.as_str().to_string()),
        ),
        _ => f,
    }
}

/// An HTML table's opening tag.
static HTML_TABLE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<table(?:\s[^>]*)?>"));
/// An HTML tag (`<name …>`, `</name>`): markup, never shown itself.
/// A quoted attribute value may hold `>`.
static TAG: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?is)<(/?)([a-z][a-z0-9-]*)((?:\s(?:[^>"']|"[^"]*"|'[^']*')*)?)/?>"#));
/// An attribute that hides an element.
static HIDING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)(?:^|\s)(?:hidden|aria-hidden\s*=\s*["']?true)\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0*(?:\.0*)?\s*(?:[;"']|$)|(?:^|[;\s"'])(?:max-)?(?:height|width)\s*:\s*0|(?:left|top|right|text-indent)\s*:\s*-\d{3,}|clip|(?:^|[;\s"'])color\s*:\s*(?:#fff\b|#ffffff\b|white\b|transparent\b)"#,
    )
});
/// A link reference definition (`[label]: url "title"`), never rendered
/// itself; `[//]: # (…)` is the usual Markdown comment.
static LINK_DEF: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^ {0,3}\[([^\]\n]+)\]:[ \t]*(\S+)([^\n]*)$"));
/// A link's title (`[text](url "title")`): shown only on hover.
static LINK_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"\]\(\s*(?:<[^>\n]*>|[^\s)]+)\s+("[^"\n]*"|'[^'\n]*'|\([^)\n]*\))\s*\)"#)
});

/// Where Markdown shows `<` and `[` as written, so no HTML or link
/// syntax starts there: code spans and code blocks (as `pulldown-cmark`
/// reads them) and a backslash-escaped character. Byte ranges, sorted.
/// Also where it reads raw HTML: each HTML block whole, each run of
/// inline HTML (a comment, a processing instruction…) within its block.
pub(crate) struct Literal(Vec<(usize, usize)>, Vec<(usize, usize)>);

impl Literal {
    pub(crate) fn of(content: &str) -> Self {
        use pulldown_cmark::{Event, Options, Parser, Tag as MdTag};
        let mut spans = Vec::new();
        let mut html: Vec<(usize, usize)> = Vec::new();
        let with_code =
            content.contains(['`', '~']) || content.contains("    ") || content.contains('\t');
        if with_code || content.contains('<') {
            // Inline HTML split over lines is one run.
            let mut inline_run = false;
            for (ev, range) in Parser::new_ext(content, Options::ENABLE_TABLES).into_offset_iter() {
                match ev {
                    Event::Code(_) | Event::Start(MdTag::CodeBlock(_)) => {
                        spans.push((range.start, range.end));
                    }
                    Event::Start(MdTag::HtmlBlock) => html.push((range.start, range.end)),
                    Event::InlineHtml(_) => match html.last_mut() {
                        Some(last) if inline_run => last.1 = last.1.max(range.end),
                        _ => html.push((range.start, range.end)),
                    },
                    Event::SoftBreak if inline_run => continue,
                    _ => {}
                }
                inline_run = matches!(ev, Event::InlineHtml(_));
            }
            html.sort_unstable();
        }
        let bytes = content.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'\\' && i + 1 < bytes.len() {
                let run = bytes[..=i]
                    .iter()
                    .rev()
                    .take_while(|c| **c == b'\\')
                    .count();
                if run % 2 == 1 {
                    spans.push((i + 1, i + 2));
                }
            }
        }
        spans.sort_unstable();
        // Merged, so one look-up finds the range holding a byte.
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        for (s, e) in spans {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        Self(merged, html)
    }

    /// Where raw HTML that starts at byte `at` ends for the parser (its
    /// block's or its inline run's end); `None` when `at` starts no raw
    /// HTML (it is text, shown as written).
    pub(crate) fn html_end(&self, at: usize) -> Option<usize> {
        let i = self.1.partition_point(|(s, _)| *s <= at);
        (i > 0 && at < self.1[i - 1].1).then(|| self.1[i - 1].1)
    }

    /// Whether byte `at` is shown as written.
    pub(crate) fn holds(&self, at: usize) -> bool {
        let i = self.0.partition_point(|(s, _)| *s <= at);
        i > 0 && at < self.0[i - 1].1
    }
}

/// Link reference definitions as `pulldown-cmark` reads them: a line
/// written like one is text where it continues a paragraph, an item or a
/// table, and a definition's title may stand on the next line.
struct LinkDefs {
    /// Each definition: its lower-case label, its byte span, and where
    /// its title starts when it has one (after its destination).
    spans: Vec<(String, (usize, usize), Option<usize>)>,
    /// The start of each run of text the parser shows, sorted.
    text: Vec<usize>,
}

impl LinkDefs {
    fn of(content: &str) -> Self {
        use pulldown_cmark::{Event, Options, Parser};
        let mut out = LinkDefs {
            spans: Vec::new(),
            text: Vec::new(),
        };
        if !content.contains("]:") {
            return out;
        }
        let parser = Parser::new_ext(content, Options::ENABLE_TABLES);
        for (label, def) in parser.reference_definitions().iter() {
            let (start, end) = (def.span.start, def.span.end);
            let Some(written) = content.get(start..end) else {
                continue;
            };
            // The title follows the destination as written (the label
            // and its colon first); unfound (escaped), the rest is kept.
            let after_label = written.find("]:").map_or(0, |i| i + 2);
            let title_from = def.title.as_ref().and_then(|_| {
                let dest = def.dest.as_ref();
                (!dest.is_empty())
                    .then(|| written[after_label..].find(dest))
                    .flatten()
                    .map(|i| start + after_label + i + dest.len())
            });
            out.spans
                .push((label.to_lowercase(), (start, end), title_from));
        }
        for (ev, r) in parser.into_offset_iter() {
            if matches!(ev, Event::Text(_) | Event::Code(_)) {
                out.text.push(r.start);
            }
        }
        out.text.sort_unstable();
        out
    }

    /// Whether the parser shows text starting in `start..end`.
    fn text_in(&self, start: usize, end: usize) -> bool {
        let i = self.text.partition_point(|t| *t < start);
        self.text.get(i).is_some_and(|t| *t < end)
    }
}

/// Elements a browser does not render (their content is not shown), by
/// default or as replaced content: `<dialog>` only when not `open`.
const UNRENDERED: &[&str] = &[
    "script", "style", "template", "noscript", "title", "datalist", "noembed", "noframes", "video",
    "audio", "canvas", "object", "iframe", "svg", "math", "head", "select",
];

/// Whether a tag's attributes (as written) hide its element: the
/// attribute text with character references decoded and CSS comments
/// dropped is matched against [`HIDING`]; a CSS escape (`\6e`) is read as
/// hiding, never decoded.
fn attrs_hide(name: &str, attrs: &str) -> bool {
    static CSS_COMMENT: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)/\*.*?(?:\*/|\z)"));
    let decoded = decode_entities(attrs);
    let plain = CSS_COMMENT.replace_all(&decoded, "");
    static OPEN: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)(?:^|\s)open\b"));
    let open = OPEN.is_match(&plain);
    UNRENDERED.contains(&name)
        || (name == "dialog" && !open)
        || HIDING.is_match(&plain)
        || (plain.contains('\\') && plain.to_ascii_lowercase().contains("style"))
}

/// The byte span of a YAML front matter block opening `text` (`---`,
/// `key: value` lines, `---` or `...`): metadata GitHub shows as a table,
/// a CommonMark renderer as text, and others not at all.
fn front_matter(text: &str) -> Option<(usize, usize)> {
    static KEY: LazyLock<Regex> = LazyLock::new(|| re(r"^[A-Za-z0-9_][A-Za-z0-9_ -]*:(\s|$)"));
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let mut at = first.len();
    let mut keys = 0;
    for l in lines.take(200) {
        let t = l.trim_end();
        at += l.len();
        if t == "---" || t == "..." {
            return (keys > 0).then_some((0, at));
        }
        if KEY.is_match(t) {
            keys += 1;
        } else if !(t.is_empty() || t.starts_with([' ', '\t', '-', '#'])) {
            return None;
        }
    }
    None
}

/// `content` with what a link does not show blanked (offsets kept): an
/// inline link's destination (`[text](dest)`, `[text](<dest with
/// spaces>)`) and the label of a full reference link (`[text][label]`)
/// whose label is defined. Not in code.
pub(crate) fn without_destinations(content: &str) -> Cow<'_, str> {
    static DEST: LazyLock<Regex> = LazyLock::new(|| re(r"\]\(\s*(<[^>\n]*>|[^\s)]+)"));
    static LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"\]\[([^\]\n]+)\]"));
    if !content.contains(']') {
        return Cow::Borrowed(content);
    }
    let code = Literal::of(content);
    let defined: BTreeSet<String> = LINK_DEF
        .captures_iter(content)
        .filter_map(|c| c.get(1).map(|l| l.as_str().to_lowercase()))
        .collect();
    let mut spans = Vec::new();
    for c in DEST.captures_iter(content) {
        if let (Some(m), Some(d)) = (c.get(0), c.get(1)) {
            if !code.holds(m.start()) {
                spans.push((d.start(), d.end()));
            }
        }
    }
    // A definition (`[label]: url`) is never shown itself; a line written
    // like one that the parser reads as text (continuing a paragraph) is.
    let defs = LinkDefs::of(content);
    for m in LINK_DEF.find_iter(content) {
        if !code.holds(m.start()) && !defs.text_in(m.start(), m.end()) {
            spans.push((m.start(), m.end()));
        }
    }
    for c in LABEL.captures_iter(content) {
        if let (Some(m), Some(l)) = (c.get(0), c.get(1)) {
            if !code.holds(m.start()) && defined.contains(&l.as_str().to_lowercase()) {
                spans.push((l.start(), l.end()));
            }
        }
    }
    if spans.is_empty() {
        return Cow::Borrowed(content);
    }
    Cow::Owned(blank_spans(content, &spans))
}

/// HTML elements that show their content as it is written (text
/// formatting and document structure), when written with no attribute
/// but [`PLAIN_ATTRS`]. Any other raw HTML may hide text in ways pactum
/// does not read (a style, a class, an element a browser does not
/// render).
const PLAIN_TAGS: &[&str] = &[
    "a",
    "abbr",
    "article",
    "aside",
    "b",
    "big",
    "blockquote",
    "body",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "dd",
    "del",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "html",
    "i",
    "img",
    "ins",
    "kbd",
    "li",
    "main",
    "mark",
    "nav",
    "ol",
    "p",
    "pre",
    "q",
    "s",
    "samp",
    "section",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "wbr",
];
/// Attributes that hide nothing.
const PLAIN_ATTRS: &[&str] = &[
    "href", "title", "alt", "src", "colspan", "rowspan", "align", "start", "type", "lang",
];

/// Whether a tag (its lower-case name and its attributes as written) is
/// one of [`PLAIN_TAGS`] with only [`PLAIN_ATTRS`].
fn plain_tag(name: &str, attrs: &str) -> bool {
    static ATTR: LazyLock<Regex> = LazyLock::new(|| {
        re(r#"([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?"#)
    });
    if !PLAIN_TAGS.contains(&name) {
        return false;
    }
    let mut rest = attrs.to_string();
    for c in ATTR.captures_iter(attrs) {
        let Some(n) = c.get(1) else { continue };
        if !PLAIN_ATTRS.contains(&n.as_str().to_ascii_lowercase().as_str()) {
            return false;
        }
        if let Some(m) = c.get(0) {
            rest = rest.replacen(m.as_str(), "", 1);
        }
    }
    rest.trim().trim_end_matches('/').trim().is_empty()
}

/// The first raw HTML tag of `content` that renders as HTML (not in code,
/// not escaped) and is not [`plain_tag`], as written (at most 80
/// characters). HTML comments are read by [`without_hidden`].
pub(crate) fn unplain_html(content: &str) -> Option<String> {
    use pulldown_cmark::{Event, Options, Parser};
    if !content.contains('<') {
        return None;
    }
    for (ev, _) in Parser::new_ext(content, Options::ENABLE_TABLES).into_offset_iter() {
        let (Event::Html(h) | Event::InlineHtml(h)) = ev else {
            continue;
        };
        let h = without_comments(&h).into_owned();
        for c in TAG.captures_iter(&h) {
            let name = c.get(2).map_or("", |m| m.as_str()).to_ascii_lowercase();
            let attrs = c.get(3).map_or("", |m| m.as_str());
            if !plain_tag(&name, attrs) {
                return c
                    .get(0)
                    .map(|m| pactum_core::text::truncate_chars(m.as_str(), 80));
            }
        }
        // A tag the pattern does not read (`<span style="…` unclosed)
        // may hide the rest.
        let opened = h.matches('<').count();
        let read = TAG.find_iter(&h).count();
        if opened > read {
            return Some(pactum_core::text::truncate_chars(h.trim(), 80));
        }
    }
    None
}

/// `content` as [`without_hidden`] shows it, with the content of every
/// element whose tag is not [`plain_tag`] blanked too (to its matching
/// close, or to the end): the text a judge's quote must be found in when
/// raw HTML might hide it. Offsets and lines kept.
pub(crate) fn shown_strictly(content: &str) -> String {
    let shown = without_hidden(content).into_owned();
    if unplain_html(content).is_none() {
        return shown;
    }
    let code = Literal::of(content);
    let tags = tags_in(content, &code, |name, attrs| !plain_tag(name, attrs));
    blank_spans(&shown, &hidden_elements(content, &tags))
}

/// What `content` shows, read the strictest way for a judge's quote:
/// [`shown_strictly`] with link destinations and reference labels
/// blanked ([`without_destinations`]), and cut where text may be shown
/// otherwise than written: at the first bidirectional control (or
/// numeric character reference, which may write one), and at the first
/// math when it holds a command that can hide text.
pub(crate) fn shown_for_quotes(content: &str) -> String {
    let shown = shown_strictly(content);
    let mut shown = without_destinations(&shown).into_owned();
    let mut cut = shown.len();
    if has_bidi_control(content) {
        let control = shown
            .char_indices()
            .find(|(_, c)| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
            .map(|(i, _)| i);
        cut = [control, shown.find("&#")]
            .into_iter()
            .flatten()
            .fold(cut, usize::min);
    }
    if hiding_math(content) {
        cut = [shown.find('$'), shown.find("math")]
            .into_iter()
            .flatten()
            .fold(cut, usize::min);
    }
    shown.truncate(cut);
    shown
}

/// The HTML tags of `text` outside code and escapes (`code`), each
/// opening one marked hiding when `hides(name, attributes)` says so.
fn tags_in(text: &str, code: &Literal, hides: impl Fn(&str, &str) -> bool) -> Vec<Tag> {
    TAG.captures_iter(text)
        .filter_map(|c| {
            let m = c.get(0)?;
            if code.holds(m.start()) {
                return None;
            }
            let closing = !c.get(1)?.as_str().is_empty();
            let name = c.get(2)?.as_str().to_ascii_lowercase();
            let a = c.get(3)?;
            let hidden = !closing && hides(&name, a.as_str());
            Some((m.start(), (a.start(), a.end()), closing, name, hidden))
        })
        .collect()
}

/// The byte spans of the elements `tags` marks hiding, each from its tag
/// to its matching close tag (or the end of `text`). The tags inside one
/// are passed over, so the work is linear in the tags.
fn hidden_elements(text: &str, tags: &[Tag]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < tags.len() {
        let (start, _, closing, name, hides) = &tags[i];
        if !*hides || *closing {
            i += 1;
            continue;
        }
        let mut depth = 1usize;
        let mut stop = text.len();
        let mut j = i + 1;
        while j < tags.len() {
            let (_, (_, attrs_end), c2, n2, _) = &tags[j];
            if n2 == name {
                if *c2 {
                    depth -= 1;
                } else {
                    depth += 1;
                }
                if depth == 0 {
                    stop = text[*attrs_end..]
                        .find('>')
                        .map_or(text.len(), |k| attrs_end + k + 1);
                    break;
                }
            }
            j += 1;
        }
        spans.push((*start, stop));
        i = j + 1;
    }
    spans
}

/// One HTML tag found: where it starts, the byte span of its attributes,
/// whether it closes an element, its lower-case name, whether it hides
/// its element's content.
type Tag = (usize, (usize, usize), bool, String, bool);

/// `content` as far as a reader of the rendered Markdown sees it: HTML
/// comments, HTML tags' attributes, the content of hidden elements
/// (`hidden`, `display:none`, `<script>`, `<style>`, `<template>`), link
/// reference definitions no link uses (`[//]: # (…)` among them), the
/// titles of links and definitions all blanked, offsets and lines kept.
/// No positive measure sees what is blanked: hidden text is no evidence.
///
/// Where readers differ (front matter, a comment left open where its
/// HTML block ends),
/// this is the reading that hides the most; [`without_hidden_least`] the
/// one that hides the least.
pub fn without_hidden(content: &str) -> Cow<'_, str> {
    hidden_blanked(content, true)
}

/// [`without_hidden`], reading a comment, processing instruction, CDATA
/// section or declaration as a CommonMark parser does: one left open in
/// a paragraph, item, heading or quote is text, and one ends with its
/// HTML block; and YAML front matter is shown (GitHub shows it as a
/// table). What some renderers hide is shown here, so a measure holds
/// only where it holds in both readings.
pub fn without_hidden_least(content: &str) -> Cow<'_, str> {
    hidden_blanked(content, false)
}

fn hidden_blanked(content: &str, most: bool) -> Cow<'_, str> {
    if !content.contains(['<', '[', '~']) && !content.starts_with("---") {
        return Cow::Borrowed(content);
    }
    // One reading of the code spans serves comments and tags.
    let code = Literal::of(content);
    let base = comments_blanked(content, &code, most);
    let text: &str = &base;
    // Front matter: GitHub shows it as a table, a CommonMark renderer as
    // text; other renderers drop it. Hidden in the `most` reading only.
    let mut spans: Vec<(usize, usize)> = if most {
        front_matter(text).into_iter().collect()
    } else {
        Vec::new()
    };
    // Hidden elements, to their matching close tag (or to the end); a
    // tag inside code, or escaped, is text. A tag's attributes (a
    // `title`, an `alt`) are not shown; the tag itself stays, so a quoted
    // `<html>` is still found.
    // Struck-through text is shown as withdrawn: hidden in the `most`
    // reading only, so a negated or upper measure still counts it.
    let struck = |name: &str| most && matches!(name, "del" | "s" | "strike");
    let tags = tags_in(text, &code, |n, a| attrs_hide(n, a) || struck(n));
    spans.extend(tags.iter().map(|t| t.1));
    spans.extend(hidden_elements(text, &tags));
    if most {
        spans.extend(struck_or_unreferenced(text));
    }
    // Link reference definitions: unused ones whole, used ones' titles.
    // Every `[label]` is counted once, in one pass: a definition is used
    // when its label is written more often than by the definition itself
    // (a label holding a bracket is never used: it is hidden).
    static BRACKETED: LazyLock<Regex> = LazyLock::new(|| re(r"\[([^\[\]\n]+)\]"));
    let mut written: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let defs = LinkDefs::of(text);
    if LINK_DEF.is_match(text) || !defs.spans.is_empty() {
        for c in BRACKETED.captures_iter(text) {
            if let Some(l) = c.get(1) {
                *written.entry(l.as_str().to_lowercase()).or_default() += 1;
            }
        }
    }
    // The definitions the parser read (a title on the next line too).
    for (label, span, title_from) in &defs.spans {
        let used = written.get(label).is_some_and(|n| *n > 1);
        match (used, title_from) {
            (false, _) => spans.push(*span),
            (true, Some(from)) => spans.push((*from, span.1)),
            (true, None) => {}
        }
    }
    // Looked up once per definition line, so kept sorted and hashed.
    let def_labels: std::collections::HashSet<&str> =
        defs.spans.iter().map(|(l, _, _)| l.as_str()).collect();
    let mut def_spans: Vec<(usize, usize)> = defs.spans.iter().map(|(_, sp, _)| *sp).collect();
    def_spans.sort_unstable();
    for c in LINK_DEF.captures_iter(text) {
        let (Some(m), Some(label)) = (c.get(0), c.get(1)) else {
            continue;
        };
        // `[^1]: …` is a footnote: shown, at the end of the page. A line
        // the parser reads as text (continuing a paragraph, an item, a
        // table) is no definition.
        if label.as_str().starts_with('^') || defs.text_in(m.start(), m.end()) {
            continue;
        }
        // A second definition of a defined label is ignored by the
        // parser, whole: its title on the next lines too.
        let key = label.as_str().to_lowercase();
        let i = def_spans.partition_point(|sp| sp.0 <= m.start());
        let inside = i > 0 && m.start() < def_spans[i - 1].1;
        if def_labels.contains(key.as_str()) && !inside {
            let mut end = m.end();
            while let Some(line) = text.get(end..).and_then(|r| r.strip_prefix('\n')) {
                let len = line.find('\n').unwrap_or(line.len());
                let (from, to) = (end + 1, end + 1 + len);
                // A title's lines only: another definition's line (each
                // line is then passed over once) or shown text ends it.
                let t = line[..len].trim_start();
                let title = if end == m.end() {
                    t.starts_with(['"', '\'', '('])
                } else {
                    !t.starts_with('[')
                };
                if !title || t.trim().is_empty() || defs.text_in(from, to) {
                    break;
                }
                end = to;
            }
            spans.push((m.start(), end));
            continue;
        }
        let used = written
            .get(&label.as_str().to_lowercase())
            .is_some_and(|n| *n > 1);
        match (used, c.get(3)) {
            (false, _) => spans.push((m.start(), m.end())),
            (true, Some(title)) => spans.push((title.start(), title.end())),
            (true, None) => {}
        }
    }
    for c in LINK_TITLE.captures_iter(text) {
        if let Some(t) = c.get(1) {
            spans.push((t.start(), t.end()));
        }
    }
    // Processing instructions, CDATA sections and declarations (HTML
    // blocks a browser does not show), each to its end or the end of the
    // text; a Markdown image's alt text.
    static UNSHOWN: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?s)<\?.*?(?:\?>|\z)|<!\[CDATA\[.*?(?:\]\]>|\z)|<![A-Za-z][^>]*(?:>|\z)")
    });
    static IMAGE_ALT: LazyLock<Regex> = LazyLock::new(|| re(r"!\[([^\]\n]*)\][\[(]"));
    // Read as for comments: in the reading hiding the least, only where
    // the parser reads raw HTML, to its block's end.
    spans.extend(UNSHOWN.find_iter(text).filter_map(|m| {
        if most {
            return Some((m.start(), m.end()));
        }
        let block_end = code.html_end(m.start())?;
        Some((m.start(), m.end().min(block_end)))
    }));
    for c in IMAGE_ALT.captures_iter(text) {
        if let Some(t) = c.get(1) {
            spans.push((t.start(), t.end()));
        }
    }
    if spans.is_empty() {
        return base;
    }
    spans.retain(|(s, _)| !code.holds(*s));
    Cow::Owned(blank_spans(text, &spans))
}

/// The byte spans of struck-through text (`~~…~~`) and of footnote
/// definitions no footnote reference uses (GitHub does not render them),
/// as `pulldown-cmark` reads them.
fn struck_or_unreferenced(text: &str) -> Vec<(usize, usize)> {
    use pulldown_cmark::{Event, Options, Parser, Tag as MdTag};
    if !text.contains('~') && !text.contains("[^") {
        return Vec::new();
    }
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES;
    let mut spans = Vec::new();
    let mut notes: Vec<(String, (usize, usize))> = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for (ev, r) in Parser::new_ext(text, opts).into_offset_iter() {
        match ev {
            Event::Start(MdTag::Strikethrough) => spans.push((r.start, r.end)),
            Event::Start(MdTag::FootnoteDefinition(l)) => {
                notes.push((l.to_lowercase(), (r.start, r.end)));
            }
            Event::FootnoteReference(l) => {
                used.insert(l.to_lowercase());
            }
            _ => {}
        }
    }
    spans.extend(
        notes
            .into_iter()
            .filter(|(l, _)| !used.contains(l))
            .map(|(_, sp)| sp),
    );
    spans
}

/// `s` with the HTML character references a renderer decodes decoded:
/// numeric (`&#98;`, `&#x61;`) and the common named ones (`&nbsp;`,
/// `&shy;`, `&amp;`…). An unknown name is kept as written.
pub fn decode_entities(s: &str) -> Cow<'_, str> {
    static ENTITY: LazyLock<Regex> = LazyLock::new(|| {
        // As HTML5 reads them: a numeric reference ends at its last digit,
        // its `;` optional, and the legacy names (`&amp`, `&lt`…) are read
        // without one (`T&#101sla` and `AT&ampT` show `Tesla`, `AT&T`).
        re(
            r"&(?:#([0-9]{1,7});?|#[xX]([0-9a-fA-F]{1,6});?|([A-Za-z][A-Za-z0-9]{1,31});|(amp|lt|gt|quot|nbsp|shy|AMP|LT|GT|QUOT))",
        )
    });
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    ENTITY.replace_all(s, |c: &regex::Captures<'_>| {
        let code = if let Some(d) = c.get(1) {
            d.as_str().parse::<u32>().ok()
        } else if let Some(h) = c.get(2) {
            u32::from_str_radix(h.as_str(), 16).ok()
        } else {
            let name = c.get(3).or_else(|| c.get(4)).map_or("", |n| n.as_str());
            Some(match name {
                "nbsp" | "ensp" | "emsp" | "thinsp" | "NonBreakingSpace" => 0xa0,
                "shy" => 0xad,
                "zwj" => 0x200d,
                "zwnj" => 0x200c,
                "ZeroWidthSpace" => 0x200b,
                "amp" | "AMP" => u32::from('&'),
                "lt" | "LT" => u32::from('<'),
                "gt" | "GT" => u32::from('>'),
                "quot" | "QUOT" => u32::from('"'),
                "apos" => u32::from('\''),
                "hyphen" | "dash" => u32::from('-'),
                "lowbar" => u32::from('_'),
                "ast" => u32::from('*'),
                "num" => u32::from('#'),
                _ => return c.get(0).map_or(String::new(), |m| m.as_str().to_string()),
            })
        };
        code.and_then(char::from_u32)
            .map_or_else(|| "\u{fffd}".to_string(), |ch| ch.to_string())
    })
}

/// Whether `content` is nothing but pieces copied from `texts`: every one
/// of its words lies in a run of four words found, in order, in one of
/// them, or in a whole copy of a text shorter than that. Two inputs
/// joined, an input repeated, an input followed by the program's own
/// text are copies, though no one text holds them whole
/// ([`pactum_core::echo::only_copied`] asks for that). Compared as word
/// sequences (case-insensitive); linear in the texts' lengths.
pub fn pieced_copy(content: &str, texts: &[&str]) -> bool {
    use std::collections::HashSet;
    use std::hash::{Hash, Hasher};
    const N: usize = 4;
    let mine = pactum_core::echo::words(content);
    if mine.is_empty() {
        return false;
    }
    let hash = |w: &[String]| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        w.hash(&mut h);
        h.finish()
    };
    let mut grams: HashSet<u64> = HashSet::new();
    let mut short: Vec<Vec<String>> = Vec::new();
    for t in texts {
        let w = pactum_core::echo::words(t);
        if w.len() < N {
            if !w.is_empty() {
                short.push(w);
            }
            continue;
        }
        grams.extend(w.windows(N).map(hash));
    }
    let mut covered = vec![false; mine.len()];
    if mine.len() >= N {
        for (i, w) in mine.windows(N).enumerate() {
            if grams.contains(&hash(w)) {
                covered[i..i + N].iter_mut().for_each(|c| *c = true);
            }
        }
    }
    for s in &short {
        for (i, w) in mine.windows(s.len()).enumerate() {
            if w == s.as_slice() {
                covered[i..i + s.len()].iter_mut().for_each(|c| *c = true);
            }
        }
    }
    covered.iter().all(|c| *c)
}

/// The body of an output as a reader sees it: its paragraphs, list items
/// and table rows, without its headings, table headers, link
/// destinations, alt text or code blocks. Copies are looked for here: a
/// heading written over a copy, or a copy made link text, is still a
/// copy. Leaving text out only makes an output look more copied, so a
/// part this misses never clears one.
pub(crate) fn body_text(content: &str) -> String {
    let r = render(&without_hidden(content));
    let mut out = String::new();
    let pieces = r
        .paragraphs
        .iter()
        .chain(&r.items)
        .chain(r.tables.iter().flat_map(|t| &t.rows));
    for p in pieces {
        out.push_str(&p.text);
        out.push('\n');
    }
    out
}

/// Whether `body` (`body_text`) is the given text rearranged: fewer than
/// one in ten of its words are new (found in none of `inputs` nor in
/// `program`, the service's own source), and it holds at least half of
/// the distinct words of one input. Reordered input, or input with the
/// program's own words added, says nothing of the service's own; a
/// selection of a few of an input's items is not caught. A ranking of
/// every item is, and is left to the judge: words alone cannot tell it
/// from a shuffled copy (SPEC §3.4, copied input is no evidence).
pub fn rearranged_copy(body: &str, inputs: &[&str], program: &str) -> bool {
    use std::collections::HashSet;
    // A word and its plural are one word (`pumps`, `pump`; `batteries`,
    // `battery`).
    let words = |t: &str| -> Vec<String> {
        pactum_core::echo::words(t)
            .into_iter()
            .map(|w| {
                if let Some(stem) = w.strip_suffix("ies").filter(|s| s.chars().count() >= 2) {
                    return format!("{stem}y");
                }
                match w.strip_suffix('s') {
                    Some(stem) if stem.chars().count() >= 3 && !stem.ends_with('s') => {
                        stem.to_string()
                    }
                    _ => w,
                }
            })
            .collect()
    };
    let mine = words(body);
    if mine.is_empty() {
        return false;
    }
    let given: Vec<HashSet<String>> = inputs
        .iter()
        .map(|t| words(t).into_iter().collect())
        .collect();
    let own_source: HashSet<String> = words(program).into_iter().collect();
    let new = mine
        .iter()
        .filter(|w| !own_source.contains(*w) && !given.iter().any(|g| g.contains(*w)))
        .count();
    if new * 10 >= mine.len() {
        return false;
    }
    let used: HashSet<&String> = mine.iter().collect();
    given
        .iter()
        .any(|g| !g.is_empty() && g.iter().filter(|w| used.contains(w)).count() * 2 >= g.len())
}

/// Whether `t` may be an unfilled template: a slot shape of a template
/// engine anywhere (`<%= x %>`, `#{x}`, `[[x]]`, `%NAME%`, `$NAME`,
/// `__NAME__`), or, in an output of three lines or fewer, a line that
/// is only, after a short label, a
/// bracketed word or two (`(blank)`, `[Summary]`), a dash, `No content`,
/// a note to write something here (`Write the summary here.`) or
/// scaffolding ([`rendered::scaffold_text`]: `%s`, `None`, `Item 1`).
fn looks_unfilled(t: &str) -> bool {
    static SLOT: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"<%.{0,80}?%>|#\{[^{}\n]{0,80}\}|\[\[[^\[\]\n]{1,80}\]\]|%[A-Za-z_][A-Za-z0-9_]{0,40}%|\$[A-Z][A-Z0-9_]{1,40}\b|\b__[A-Za-z][A-Za-z0-9_]{0,40}__\b",
        )
    });
    static LINE: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r"(?i)^(?:[\p{{L}}\p{{N}} ]{{1,40}}:\s*)?(?:{}|\p{{Pd}}+|\u{{2212}}|no content|(?:write|add|insert|put|enter|fill in|type)\b.{{0,80}}\bhere)[.!]?$",
            rendered::BRACKETED_SLOT
        ))
    });
    let lines: Vec<&str> = t
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(['#', '>', '-', '*', '+', ' '])
                .trim()
        })
        .filter(|l| !l.is_empty())
        .collect();
    static LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"^[\p{L}\p{N} ]{1,40}:\s*"));
    SLOT.is_match(t)
        || (lines.len() <= 3
            && lines
                .iter()
                .any(|l| LINE.is_match(l) || rendered::scaffold_text(&LABEL.replace(l, ""))))
}

/// Why what held over `content` is not evidence enough on its own, when
/// a reader would not see it as measured: part of it folded in
/// `<details>` (shown only on a click), an unfilled template slot shown
/// (`{{body}}`), or nothing shown but images (which pactum cannot see). A measure that failed still fails.
pub(crate) fn unseen_part(content: &str) -> Option<String> {
    // What it holds is unknown: even that it holds anything.
    if let View::JsonLike(what) = json_view::view(content) {
        return Some(format!("the output {what}, which pactum does not decode exactly: what it holds is for the judge"));
    }
    if as_json(content).is_some_and(|v| json_view::placeholder_strings(&v)) {
        return Some("every string value of the JSON output is a placeholder (`(blank)`, `[Summary]`, a type name, a value repeating its key): whether its numbers or booleans alone are the output asked for is for the judge".into());
    }
    if fenced_bodies(content)
        .iter()
        .any(|b| json_view::near_json(b))
    {
        return Some("a fenced block of the output holds near-JSON (a repeated key, several values, a bracketed sequence that is no JSON), which pactum does not decode exactly: what it holds is for the judge".into());
    }
    let visible = without_hidden(content);
    let r = render(&visible);
    if r.tags.contains("details") {
        return Some("part of the output is folded in <details>, shown only on a click: what a reader sees of it is for the judge".into());
    }
    if let Some(tag) = unplain_html(content) {
        return Some(format!("the output holds raw HTML (`{tag}`) that may hide text in ways pactum does not read: what a reader sees of it is for the judge"));
    }
    if rendered::holds_template_slot(&r.plain) {
        return Some("the output shows an unfilled template slot (`{{…}}`): whether it was filled in is for the judge".into());
    }
    if looks_unfilled(content) || looks_unfilled(&r.plain) {
        return Some("the output may be an unfilled template (a slot such as `$NAME`, `%NAME%`, `<%= %>`, `[Label]` or `(blank)`, a dash after a label, a note to write it): whether it was filled in is for the judge".into());
    }
    static IMAGE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)!\[|<img\b"));
    let shown = r.plain.chars().any(char::is_alphanumeric)
        || r.headings
            .iter()
            .chain(&r.items)
            .chain(&r.paragraphs)
            .any(|p| meaningful(&p.text))
        || r.tables
            .iter()
            .any(|t| !t.rows.is_empty() || !t.header.is_empty());
    if !shown && IMAGE.is_match(&visible) {
        return Some("the output shows nothing but images, which pactum cannot see: what they show is for the judge".into());
    }
    None
}

/// Words that hold no content of their own: a placeholder left where the
/// output should be.
const PLACEHOLDER: &[&str] = &[
    "todo",
    "tbd",
    "tba",
    "tbc",
    "fixme",
    "xxx",
    "placeholder",
    "null",
    "undefined",
    "nil",
    "nan",
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "eiusmod",
    "incididunt",
    "wip",
    "pending",
];

/// Whether `w` (lower case) is a placeholder word ([`PLACEHOLDER`]).
pub(crate) fn is_placeholder_word(w: &str) -> bool {
    PLACEHOLDER.contains(&w)
}

/// Whether an output renders as nothing a reader could use: blank once
/// hidden content ([`without_hidden`]) and character references are
/// removed, nothing but Markdown marks (`-`, `#`, `* * *`, `>`, an empty
/// fence), a JSON value holding nothing (`null`, `{}`, `[]`, `""`), or a
/// placeholder (`TODO`, `TBD`, `N/A.`, `lorem ipsum…`, alone, under
/// headings or after labels: `Summary: TBD`), or a note that it is still
/// to be written (`TODO: write summary`) — every line one of these; or
/// whose rendering shows nothing (links with empty text, list markers
/// with no item text: `1.`), no image and no HTML.
pub fn renders_nothing(content: &str) -> bool {
    nothing_written(content) || {
        let r = render(&without_hidden(content));
        !rendered::shows_something(&r.plain) && r.images == 0 && r.tags.is_empty()
    }
}

/// What an output that [`renders_nothing`] may still be: an answer that
/// is empty or short by design.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sparse {
    /// A valid JSON value holding nothing but empty values (`[]`, `{}`,
    /// `null`, `""`, `{"errors": []}`): an empty result may be the answer.
    EmptyJson,
    /// `N/A` or `Pending` alone: a real value in some outputs (a status,
    /// a discount code that does not apply).
    ShortValue,
}

/// Whether an output that [`renders_nothing`] may still be an answer
/// ([`Sparse`]); `None` when it is clearly nothing (blank, marks, `TODO`,
/// `TBD`, lorem ipsum, a placeholder string inside JSON).
pub fn sparse_answer(content: &str) -> Option<Sparse> {
    fn empty(v: &Value) -> bool {
        match v {
            Value::Null => true,
            Value::String(s) => s.trim().is_empty(),
            Value::Array(a) => a.iter().all(empty),
            Value::Object(o) => o.values().all(empty),
            Value::Bool(_) | Value::Number(_) => false,
        }
    }
    let visible = without_hidden(content);
    if as_json(&visible).is_some_and(|v| empty(&v)) {
        return Some(Sparse::EmptyJson);
    }
    let l = visible.trim().trim_end_matches('.').trim().to_lowercase();
    matches!(l.as_str(), "n/a" | "n.a" | "pending").then_some(Sparse::ShortValue)
}

/// [`renders_nothing`] as written: blank, marks or placeholders only.
fn nothing_written(content: &str) -> bool {
    let visible = without_hidden(content);
    if let Some(v) = as_json(&visible) {
        // Placeholder strings only (`{"summary": "(blank)"}`, a value
        // repeating its key) render nothing either.
        if !has_value(&v) || json_view::placeholders_only(&v) {
            return true;
        }
    }
    // Terminal escape sequences and control characters show nothing.
    static ESCAPE: LazyLock<Regex> = LazyLock::new(|| re(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|.)?"));
    let unescaped = ESCAPE.replace_all(&visible, " ");
    let untagged = TAG.replace_all(&unescaped, " ");
    let decoded = decode_entities(&untagged);
    // Invisible characters (a Hangul filler, a zero-width space) show
    // nothing either.
    let text: String = decoded
        .chars()
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .filter(|c| *c == '\n' || !pactum_core::text::shown_as_code_point(*c))
        .collect();
    if text.to_lowercase().contains("lorem ipsum") || rendered::placeholder_phrase(&text) {
        return true;
    }
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let all = words(&text);
    if all.iter().all(|w| PLACEHOLDER.contains(&w.as_str())) {
        return true;
    }
    // Nothing but headings, labels and placeholders, one placeholder at
    // least: a heading or a label alone is a (short) output of its own.
    let mut placeholder = false;
    // A table's header is its heading; its body cells are read one by
    // one (`| TBD |` is a placeholder).
    let delimiter =
        |l: &str| l.contains('-') && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'));
    let lines: Vec<&str> = text.lines().collect();
    let mut in_table = false;
    for (i, line) in lines.iter().enumerate() {
        if pactum_core::text::is_blank(line) {
            in_table = false;
        }
        let header = line.contains('|')
            && lines
                .get(i + 1)
                .is_some_and(|n| n.contains('|') && delimiter(n.trim()));
        let kinds: Vec<Line> = if header {
            in_table = true;
            vec![Line::Heading]
        } else if in_table && line.contains('|') {
            line.split('|').map(line_kind).collect()
        } else {
            vec![line_kind(line)]
        };
        for kind in kinds {
            match kind {
                Line::Content => return false,
                Line::Placeholder => placeholder = true,
                Line::Heading | Line::Marks => {}
            }
        }
    }
    placeholder
}

/// What one line of an output holds, for [`renders_nothing`].
enum Line {
    /// No letter or digit.
    Marks,
    /// A heading (`# …`) or a label alone (`Summary:`).
    Heading,
    /// A placeholder ([`PLACEHOLDER`], [`rendered::placeholder_phrase`]),
    /// alone or after a label (`Summary: TBD`), or a note that the
    /// content is still to be written (`TODO:`, `FIXME:` or `TBD:` and a
    /// verb of [`TO_WRITE`]: `TODO: write summary`).
    Placeholder,
    Content,
}

/// Verbs that open a to-do note about content not written yet (`TODO:
/// write summary`); a note about anything else (`TODO: call the
/// supplier`) is content.
const TO_WRITE: &[&str] = &[
    "write",
    "add",
    "fill",
    "insert",
    "complete",
    "finish",
    "draft",
    "expand",
    "provide",
    "populate",
    "summarise",
    "summarize",
    "describe",
    "document",
    "update",
];

fn line_kind(line: &str) -> Line {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let placeholder = rendered::placeholder_text;
    let marks = |c: char| matches!(c, '*' | '_' | '>' | '-' | '+') || c.is_whitespace();
    let s = line.trim_start_matches(marks);
    if s.starts_with('#') {
        return Line::Heading;
    }
    if words(s).is_empty() {
        return Line::Marks;
    }
    if placeholder(s.trim_end_matches(marks)) {
        return Line::Placeholder;
    }
    // A label: up to four words before a colon or a dash (emphasis
    // around it too).
    let split = s.split_once(':').or_else(|| {
        [" - ", " – ", " — "]
            .iter()
            .filter_map(|d| s.split_once(d))
            .min_by_key(|(l, _)| l.len())
    });
    if let Some((label, value)) = split {
        let label = label.trim_matches(marks);
        // A blank to fill in (`____`) or marks standing for a value
        // (`...`, `???`) after a label are a placeholder, not the label
        // alone.
        // The label's closing emphasis (`**Text:** ___`) set aside.
        let written = ["**", "__"]
            .iter()
            .fold(value.trim(), |v, m| {
                v.strip_prefix(m).map_or(v, |r| {
                    if r.starts_with(char::is_whitespace) {
                        r.trim_start()
                    } else {
                        v
                    }
                })
            })
            .trim();
        let value = value.trim_matches(marks);
        let is_label = !label.is_empty()
            && label.split_whitespace().count() <= 4
            && label.chars().all(|c| c.is_alphanumeric() || c == ' ');
        if is_label {
            let first = |t: &str| t.split_whitespace().next().unwrap_or("").to_lowercase();
            if matches!(first(label).as_str(), "todo" | "fixme" | "tbd")
                && TO_WRITE.contains(&first(value).as_str())
            {
                return Line::Placeholder;
            }
            if !written.is_empty() && placeholder(written) {
                return Line::Placeholder;
            }
            if words(value).is_empty() {
                return Line::Heading;
            }
            if placeholder(value) {
                return Line::Placeholder;
            }
        }
    }
    Line::Content
}

/// A text folded the way it reads when rendered, for looking a forbidden
/// text up: character references decoded, HTML tags, emphasis and code
/// marks, backslash escapes and invisible characters (the soft hyphen,
/// zero-width characters) removed, whitespace folded, lower case.
fn rendered_fold(s: &str) -> String {
    let decoded = decode_entities(s);
    let untagged = TAG.replace_all(&decoded, "");
    let kept: String = untagged
        .chars()
        .filter(|c| {
            !matches!(c, '*' | '_' | '`' | '~' | '\\')
                && (c.is_whitespace() || !pactum_core::text::is_blank(c.encode_utf8(&mut [0; 4])))
        })
        .collect();
    use unicode_normalization::UnicodeNormalization;
    kept.nfkc()
        .map(lookalike)
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The Latin letter a Cyrillic or Greek letter (or a dotless i) is read
/// as: a forbidden word spelled with lookalikes is still that word.
fn lookalike(c: char) -> char {
    match c {
        'а' | 'α' | 'А' | 'Α' => 'a',
        'в' | 'В' | 'β' | 'Β' => 'b',
        'с' | 'С' | 'ϲ' => 'c',
        'е' | 'Е' | 'ε' | 'Ε' => 'e',
        'н' | 'Н' | 'Η' => 'h',
        'і' | 'І' | 'ı' | 'ι' | 'Ι' | 'ӏ' => 'i',
        'ј' | 'Ј' => 'j',
        'к' | 'К' | 'κ' | 'Κ' => 'k',
        'м' | 'М' | 'Μ' => 'm',
        'о' | 'О' | 'ο' | 'Ο' => 'o',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'ѕ' | 'Ѕ' => 's',
        'т' | 'Т' | 'τ' | 'Τ' => 't',
        'у' | 'У' | 'υ' | 'Υ' => 'y',
        'х' | 'Х' | 'χ' | 'Χ' => 'x',
        'ν' | 'Ν' => 'v',
        'ω' => 'w',
        'ԁ' => 'd',
        'ɡ' => 'g',
        'ⅼ' | 'Ӏ' => 'l',
        'Ζ' => 'z',
        _ => c,
    }
}

/// [`measure_against`] over the visible `content`, `json` read from the
/// `raw` one (whose HTML links an upper bound on sources counts).
fn measure_in(
    m: &Measure,
    content: &str,
    raw: &str,
    json: Option<&Value>,
    inputs: &[Cow<'_, str>],
) -> Finding {
    match m {
        Measure::Json(shape) => match (json, shape) {
            (Some(Value::Object(_)), JsonShape::Object | JsonShape::Any)
            | (Some(Value::Array(_)), JsonShape::Array | JsonShape::Any) => {
                finding(Some(true), "the output is JSON".into(), None)
            }
            (Some(_), JsonShape::Any) => finding(Some(true), "the output is JSON".into(), None),
            (Some(_), s) => finding(
                Some(false),
                format!(
                    "the output is JSON but not {}",
                    if *s == JsonShape::Object {
                        "an object"
                    } else {
                        "an array"
                    }
                ),
                None,
            ),
            (None, _) if fenced_json_one_reading(content) => finding(
                None,
                "the output is one fenced JSON block only where front matter, struck text or an unreferenced footnote around it is hidden (some renderers show it): whether it is the JSON output asked for is for the judge".into(),
                None,
            ),
            (None, _) if lead_in_json(content) => finding(
                None,
                "the output is one line of prose and then one fenced block holding one JSON value: whether that is the JSON output asked for is for the judge".into(),
                None,
            ),
            (None, _) => finding(
                Some(false),
                "the output is not one JSON value (strict parse, no repeated key)".into(),
                Some(first_line(content)),
            ),
        },
        Measure::Table => {
            let r = render(content);
            // A row repeating the header is a template's, not data.
            let best = r.tables.iter().find_map(|t| {
                let header: Vec<String> = t.header.iter().map(|h| norm(h)).collect();
                // A row of the header's words beside a template's own
                // (`Name here | Year here`) is one too.
                let templated = template_row(&t.header);
                let rows = t
                    .rows
                    .iter()
                    .zip(&t.cells)
                    .filter(|(p, cells)| {
                        meaningful(&p.text)
                            && !templated(&p.text)
                            && cells.iter().map(|c| norm(c)).collect::<Vec<_>>() != header
                    })
                    .count();
                (rows > 0).then_some((t, rows))
            });
            match best {
                Some((t, rows)) => finding(
                    Some(true),
                    format!(
                        "a table with {} column(s) and {rows} row(s)",
                        t.header.len()
                    ),
                    Some(format!("| {} |", t.header.join(" | "))),
                ),
                // An HTML table (seen only where tags are: a negated measure
                // reads the output as written).
                None if HTML_TABLE.is_match(content) => finding(
                    Some(true),
                    "an HTML table (`<table>`)".into(),
                    HTML_TABLE.find(content).map(|m| m.as_str().to_string()),
                ),
                None => finding(
                    Some(false),
                    "no Markdown table (header, `|---|` row, at least one row)".into(),
                    None,
                ),
            }
        }
        Measure::NumberedList => scaffold_items(
            html_list_or(
                one_kind_of_list(content, true, "numbered", "`1. …`"),
                content,
                &HTML_OL,
            ),
            content,
        ),
        Measure::BulletList => scaffold_items(
            html_list_or(
                one_kind_of_list(content, false, "bulleted", "`- …`"),
                content,
                &HTML_UL,
            ),
            content,
        ),
        Measure::List => {
            let r = render(content);
            let group = r
                .group_items
                .iter()
                .position(|n| *n > 0)
                .map(|i| (r.group_items[i], r.group_lines[i].clone()));
            match (json, group) {
                (Some(Value::Array(_)), _) => {
                    finding(Some(true), "the output is a JSON array".into(), None)
                }
                (_, Some((n, line))) => {
                    finding(Some(true), format!("a list of {n} item(s)"), Some(line))
                }
                _ if HTML_UL.is_match(content) || HTML_OL.is_match(content) => {
                    finding(Some(true), "an HTML list (`<ul>` / `<ol>`)".into(), None)
                }
                _ => finding(
                    Some(false),
                    "no list (a Markdown list item `- …` / `1. …`, or a JSON array)".into(),
                    None,
                ),
            }
        }
        Measure::Headings => {
            let r = render(content);
            let (lo, _, first) = range_of(&named_headings(&r));
            match first {
                Some(h) => finding(Some(true), format!("{lo} heading(s)"), Some(h)),
                None if r.html_headings > 0 => finding(
                    Some(true),
                    format!("{} HTML heading(s)", r.html_headings),
                    None,
                ),
                None => finding(Some(false), "no Markdown heading (`# …`)".into(), None),
            }
        }
        Measure::Contains(text) => {
            // A link's destination and a reference link's label are not
            // shown: never what the output says.
            let unlinked = without_destinations(content);
            let content: &str = &unlinked;
            // A quoted word is a word: "safe" is not found in "unsafe".
            let edge = |c: Option<char>| {
                if c.is_some_and(char::is_alphanumeric) {
                    r"\b"
                } else {
                    ""
                }
            };
            let pattern = format!(
                "{}{}{}",
                edge(text.chars().next()),
                regex::escape(text),
                edge(text.chars().next_back())
            );
            let Ok(r) = regex::RegexBuilder::new(&pattern)
                .case_insensitive(true)
                .build()
            else {
                return finding(None, format!("\"{text}\" cannot be looked for"), None);
            };
            let mut echoed = None;
            // Once per output, not per match: an output that is all copied
            // input echoes every match, and the echo index answers each
            // match without rescanning the inputs.
            let all_copied = !inputs.is_empty() && only_copied(content, inputs);
            let mut index: Option<Echoes<'_>> = None;
            for f in r.find_iter(content) {
                if joined(content, f.start(), f.end()) {
                    continue;
                }
                if all_copied
                    || (!inputs.is_empty()
                        && index
                            .get_or_insert_with(|| Echoes::new(content, inputs))
                            .is_echo(f.start(), f.end(), Quoting::Marks))
                {
                    echoed.get_or_insert(f.as_str().to_string());
                    continue;
                }
                return finding(
                    Some(true),
                    format!("the output contains \"{text}\""),
                    Some(f.as_str().to_string()),
                );
            }
            match echoed {
                Some(q) => finding(
                    Some(false),
                    format!("the output contains \"{text}\" only where it repeats its input: text copied from the input is no evidence"),
                    Some(q),
                ),
                None => finding(
                    Some(false),
                    format!("the output does not contain \"{text}\""),
                    None,
                ),
            }
        }
        Measure::Not(inner) => {
            if let Some((present, why)) = format_renders(inner, content, json) {
                return finding(
                    Some(!present),
                    format!("the clause negates it, and {why}"),
                    None,
                );
            }
            let f = measure_in(inner, content, raw, json, &[]);
            match f.held {
                Some(held) => finding(
                    Some(!held),
                    format!("the clause negates it, and {}", f.detail),
                    f.quote.filter(|_| held),
                ),
                None => f,
            }
        }
        Measure::Count { unit, min, max } => {
            // A fenced JSON value that may or may not be the output (a
            // lead-in line before it, front matter around it): its
            // elements are items only in one reading, for the judge.
            if json.is_none()
                && matches!(unit, Unit::Items | Unit::Sources)
                && (lead_in_json(raw) || fenced_json_one_reading(raw) || fences_json_list(raw))
            {
                return finding(
                    None,
                    "the output is a fenced JSON value with prose or front matter around it: whether its elements are the items counted is for the judge".into(),
                    None,
                );
            }
            let (lo, hi, what, quote) = match count(unit, content, raw, json, inputs) {
                Ok(x) => x,
                Err(why) => return finding(None, why, None),
            };
            let want = match max {
                None => format!("at least {min}"),
                Some(m) if m == min => format!("exactly {min}"),
                Some(m) if *min == 0 => format!("at most {m}"),
                Some(m) => format!("{min} to {m}"),
            };
            // Held only when every reading of the count meets the bounds;
            // broken only when none can.
            let held = lo >= *min && max.is_none_or(|m| hi.is_some_and(|h| h <= m));
            let broken = hi.is_some_and(|h| h < *min) || max.is_some_and(|m| lo > m);
            let verdict = if held {
                Some(true)
            } else if broken {
                Some(false)
            } else {
                None
            };
            let detail = match hi {
                Some(h) if h == lo => format!("counted {lo} {what}; the clause asks for {want}"),
                Some(h) if matches!(unit, Unit::Words) => format!(
                    "counted {lo} {what} as spaces part them, {h} parting them at every hyphen, slash, dot or other mark and counting each character of a script written without spaces (Chinese, Japanese, Thai…) as a word; the clause asks for {want}"
                ),
                Some(h) => format!(
                    "counted {lo} {what} a reader can use, {h} as written (blank, placeholder or repeated ones too); the clause asks for {want}"
                ),
                None => format!(
                    "counted {lo} {what}, and the output holds HTML, table rows, bullet characters or line breaks whose {what} are not counted; the clause asks for {want}"
                ),
            };
            finding(verdict, detail, quote)
        }
        Measure::Each { item, fields } => each(item, fields, content, json),
    }
}

/// A count read two ways: the units a reader can use, each once (low),
/// and every unit as written (high; `None` when HTML the count does not
/// read may hold more), what was counted, a quote.
type Counted = (u64, Option<u64>, String, Option<String>);

/// The pages of the URLs in `text` ([`rendered::page`]).
fn pages(text: &str) -> BTreeSet<String> {
    urls(text)
        .iter()
        .filter_map(|u| rendered::page(u))
        .collect()
}

/// Counts `unit` in `content`, over what renders. A source is a page
/// ([`rendered::page`]) not copied from one of the `inputs` (SPEC §3.4:
/// copied input is no evidence); the high count of sources takes in the
/// pages HTML links (`<a href>`) of the `raw` output lead to.
fn count(
    unit: &Unit,
    content: &str,
    raw: &str,
    json: Option<&Value>,
    inputs: &[Cow<'_, str>],
) -> Result<Counted, String> {
    let given: BTreeSet<String> = inputs.iter().flat_map(|i| pages(i)).collect();
    let told = rendered::given_words(inputs);
    let exact = |n: u64, what: String, quote: Option<String>| Ok((n, Some(n), what, quote));
    if json.is_some() && !matches!(unit, Unit::Items | Unit::Sources | Unit::Words) {
        // A string value may render as Markdown: its rows, headings and
        // paragraphs are then for the judge to count.
        if json.is_some_and(json_view::holds_markdown) {
            return Err("a string value of the JSON output holds Markdown (a table, headings, list items or paragraphs): whether it renders, and so what is counted, is for the judge".into());
        }
        return match unit {
            Unit::Paragraphs => Err("the output is JSON: it has no paragraphs to count".into()),
            Unit::Rows => exact(0, "table rows (no table)".into(), None),
            _ => exact(0, "headings".into(), None),
        };
    }
    let r = render(content);
    match unit {
        Unit::Items => {
            if let Some(Value::Array(a)) = json {
                // A blank string, `null`, or an array or object of such
                // only, is no item; an element repeating an earlier one
                // counts once in the first reading.
                let held: Vec<&Value> = a.iter().filter(|v| has_value(v)).collect();
                // A string is told apart by its words of content
                // ([`rendered::content_words`]: a number, a date, an
                // index or a program's name is none), an array by the
                // words of all its strings, in whatever shape it is
                // written (`"Vaillant"`, `["Vaillant"]`, `["Vaillant",
                // null]` are one item), an object by its longest string
                // (its name, not an `id` or a note beside it); one
                // holding no string is only an index and counts for
                // nothing there. Scaffolding (`"Item 3"`, `"[name]"`) and
                // a non-answer (`"unknown"`) are no item, as in Markdown.
                let said = |s: &&str| {
                    meaningful(s)
                        && !rendered::placeholder_value(s, None)
                        && !non_answer(s)
                        && !says_nothing(s)
                };
                let distinct: BTreeSet<String> = held
                    .iter()
                    .filter_map(|v| match v {
                        Value::Object(_) => json_view::strings(v)
                            .into_iter()
                            .filter(|s| s.chars().any(char::is_alphanumeric))
                            .max_by_key(|s| s.chars().count())
                            .filter(said)
                            .map(rendered::content_words)
                            .map(|w| rendered::own_words(w, &told))
                            .filter(|w| !w.is_empty())
                            .map(|w| w.into_iter().collect::<Vec<_>>().join(" ")),
                        _ => {
                            let words: BTreeSet<String> = json_view::strings(v)
                                .into_iter()
                                .filter(said)
                                .flat_map(rendered::content_words)
                                .collect();
                            let words = rendered::own_words(words, &told);
                            (!words.is_empty())
                                .then(|| words.into_iter().collect::<Vec<_>>().join(" "))
                        }
                    })
                    .collect();
                return Ok((
                    distinct.len() as u64,
                    Some(held.len() as u64),
                    "items (JSON array elements holding a value, each distinct one once)".into(),
                    None,
                ));
            }
            if json.is_some() {
                return Err(
                    "the output is JSON but not an array: its items cannot be counted".into(),
                );
            }
            let (lo, hi, first) = rendered::range_of_beside(&r.items, &told, 1);
            Ok((
                lo,
                (!rendered::html_items(&r) && !r.footnotes && !uncounted_entries(&r, raw))
                    .then_some(hi),
                "items (list items)".into(),
                first,
            ))
        }
        // In a JSON array the sources are its elements: one element
        // holding three URLs is one source, and an element whose URLs all
        // appeared before is none.
        Unit::Sources => match json {
            Some(Value::Array(a)) => {
                // Counted with a `ref` parameter dropped (low) and kept
                // (high): it may be all that tells two pages apart.
                // The low count reads an element's string values, the
                // high one its keys too.
                let elements = |page: fn(&str) -> Option<String>,
                                text: fn(&Value) -> String,
                                by_site: bool| {
                    let mut seen = BTreeSet::new();
                    let mut first = None;
                    let n = a
                        .iter()
                        .filter(|e| {
                            let text = text(e);
                            let mine: Vec<(String, String)> = urls(&text)
                                .into_iter()
                                .filter_map(|u| page(&u).map(|p| (p, u)))
                                .filter(|(p, _)| !given.contains(p))
                                .filter_map(|(p, u)| {
                                    if by_site {
                                        rendered::site(&p).map(|s| (s, u))
                                    } else {
                                        Some((p, u))
                                    }
                                })
                                .collect();
                            let new = mine
                                .iter()
                                .find(|(p, _)| !seen.contains(p))
                                .map(|(_, u)| u.clone());
                            seen.extend(mine.into_iter().map(|(p, _)| p));
                            if first.is_none() {
                                first.clone_from(&new);
                            }
                            new.is_some()
                        })
                        .count() as u64;
                    (n, first)
                };
                let (lo, first) = elements(rendered::page, json_view::said, true);
                let (hi, _) = elements(rendered::page_as_written, Value::to_string, false);
                Ok((
                    lo,
                    (!scheme_relative(raw)).then_some(hi.max(lo)),
                    if given.is_empty() {
                        "sources (JSON array elements with a URL not in an earlier one)".into()
                    } else {
                        "sources (JSON array elements with a URL not in an earlier one nor in the input)".into()
                    },
                    first,
                ))
            }
            _ => {
                // In a JSON value, the pages of its decoded string values
                // (keys too, for the high count).
                let (said, all);
                let (r, content, raw) = match json {
                    Some(v) => {
                        said = json_view::said(v);
                        all = format!("{said}\n\n{}\n\n{raw}", json_view::structure(v));
                        (render(&said), all.as_str(), all.as_str())
                    }
                    None => (r, content, raw),
                };
                // Each page once, quoted as first written.
                let mut shown: std::collections::BTreeMap<String, String> = Default::default();
                for u in &r.urls {
                    let site = rendered::page(u)
                        .filter(|p| !given.contains(p))
                        .and_then(|p| rendered::site(&p));
                    if let Some(p) = site {
                        shown
                            .entry(p)
                            .or_insert_with(|| u.trim_end_matches(['.', ',', ';']).to_string());
                    }
                }
                // Links of any scheme or host count towards the high
                // count: a reader may take them for sources.
                let written: BTreeSet<String> = urls(content)
                    .into_iter()
                    .chain(html_links(raw))
                    .chain(r.urls.iter().filter(|u| has_scheme(u)).cloned())
                    .map(|u| rendered::page_as_written(&u).unwrap_or(u))
                    .filter(|u| !given.contains(u))
                    .collect();
                let lo = shown.len() as u64;
                Ok((
                    lo,
                    (!scheme_relative(raw)).then_some(lo.max(written.len() as u64)),
                    if given.is_empty() {
                        "sources (distinct URLs)".into()
                    } else {
                        "sources (distinct URLs not copied from the input)".into()
                    },
                    shown.values().next().cloned(),
                ))
            }
        },
        Unit::Paragraphs => {
            // A paragraph of one word of content (`Yes.`, `Introduction`)
            // is a label or a note, not a paragraph of an answer.
            let (lo, hi, first) = rendered::range_of_beside(&r.paragraphs, &told, 2);
            // Text after a comment on its line is an HTML block as
            // written (`<!-- c --> text`), shown, though no paragraph
            // once the comment is blanked.
            let shown_html = content != raw && render(raw).html_block_text;
            // Paragraphs inside list items count in the second reading:
            // prose wrapped under one `- ` is still paragraphs shown.
            Ok((
                lo,
                (!rendered::html_blocks(&r) && !r.footnotes && !shown_html)
                    .then_some(hi + r.item_paragraphs),
                "paragraphs".into(),
                first,
            ))
        }
        Unit::Words => {
            if let Some(c) = rendered::unparted_letter(content) {
                return Err(format!(
                    "the output holds text in a script pactum cannot part into words (U+{:04X}): its word count is for the judge",
                    u32::from(c)
                ));
            }
            // In a JSON value, the words of its decoded string values;
            // its keys and numbers too for the high count.
            if let Some(v) = json {
                let r = render(&json_view::said(v));
                let lo = r.words_lo;
                return Ok((
                    lo,
                    Some(rendered::words_high(content).max(r.words_hi).max(lo)),
                    "words (of the JSON's string values)".into(),
                    None,
                ));
            }
            Ok((
                r.words_lo,
                (!r.footnotes).then_some(r.words_hi.max(r.words_lo)),
                "words".into(),
                None,
            ))
        }
        Unit::Rows => {
            if r.tables.is_empty() && !rendered::html_rows(&r) {
                return exact(0, "table rows (no table)".into(), None);
            }
            let rows: Vec<rendered::Piece> = r
                .tables
                .iter()
                .flat_map(|t| t.rows.iter().cloned())
                .collect();
            let (_, hi, _) = rendered::range_of(&rows);
            // A row holding only its index beside empty cells (`| 2 | |`)
            // is no row of data.
            let index_only = |cells: &Vec<String>| {
                cells.len() > 1
                    && cells.iter().any(|c| c.trim().is_empty())
                    && cells.iter().filter(|c| !c.trim().is_empty()).all(|c| {
                        let (words, indexed) = rendered::unit_words(c);
                        words.is_empty() && indexed
                    })
            };
            // A row repeating its header (`| Makers | Countries |` under
            // `| Maker | Country |`) is no row, as the format says.
            let folded = |cells: &[String]| -> Vec<String> {
                cells
                    .iter()
                    .flat_map(|c| norm(c).split(' ').map(str::to_string).collect::<Vec<_>>())
                    .filter(|w| !w.is_empty())
                    .map(|w| match w.strip_suffix("ies") {
                        Some(stem) => format!("{stem}y"),
                        None => w.strip_suffix('s').map_or(w.clone(), str::to_string),
                    })
                    .collect()
            };
            let named: Vec<rendered::Piece> = r
                .tables
                .iter()
                .flat_map(|t| {
                    let header = folded(&t.header);
                    // A row of the header's words beside a template's own
                    // (`| Maker name | Country name |`) is a template's,
                    // as the format says too.
                    let templated = template_row(&t.header);
                    t.rows.iter().zip(&t.cells).filter(move |(p, cells)| {
                        (header.is_empty() || folded(cells) != header) && !templated(&p.text)
                    })
                })
                .filter(|(_, cells)| !index_only(cells))
                .map(|(p, _)| p.clone())
                .collect();
            let (lo, _, _) = rendered::range_of_beside(&named, &told, 1);
            Ok((
                lo,
                (!rendered::html_rows(&r) && !r.footnotes).then_some(hi),
                "table rows".into(),
                None,
            ))
        }
        Unit::Headings => {
            let (lo, hi, first) = rendered::range_of_beside(&named_headings(&r), &told, 1);
            Ok((
                lo,
                (!r.footnotes).then_some(hi + r.html_headings),
                "headings".into(),
                first,
            ))
        }
    }
}

fn norm(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first of `fields` that `o` names under two keys read alike
/// (`url` and `URL`, `source_url` and `source-url`).
fn named_twice<'a>(o: &serde_json::Map<String, Value>, fields: &'a [String]) -> Option<&'a str> {
    fields.iter().map(String::as_str).find(|f| {
        let name = norm(f);
        o.keys().filter(|k| norm(k) == name).count() > 1
    })
}

/// Whether a JSON key names a field as a program reads it: words of
/// letters and digits joined by one `_`, `-` or space, nothing before or
/// after them (`url`, `source_url`, `Source URL`; not ` url`, `url:`,
/// `_url`, `url` and a zero-width space, a soft hyphen or a control
/// character: `item["url"]` finds none of those).
fn plain_key(k: &str) -> bool {
    k.split(['_', '-', ' '])
        .all(|w| !w.is_empty() && w.chars().all(char::is_alphanumeric))
}

/// Whether a JSON value holds something: not null, a blank string, or an
/// array or object of such only.
fn has_value(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !nothing_written(s),
        Value::Array(a) => a.iter().any(has_value),
        Value::Object(o) => o.values().any(has_value),
        Value::Bool(_) | Value::Number(_) => true,
    }
}

/// The pattern of a list item that labels `field` as a whole word
/// (`field: value`, `**field**: value`, `**field:** value`), the value
/// read up to the next `,`, `;`, `|` or line end; `None` when no pattern
/// can be built (the field is then absent).
fn label_pattern(field: &str) -> Option<Regex> {
    let name: Vec<String> = norm(field).split(' ').map(regex::escape).collect();
    let name = name.join(r"[\s_-]+");
    if name.is_empty() {
        return None;
    }
    Regex::new(&format!(
        r"(?im)(?:^|[^\p{{L}}\p{{N}}_-])(?:\*\*|__)?{name}(?:[ \t]*:[ \t]*(?:\*\*|__)?|(?:\*\*|__)[ \t]*:?)([^\n,;|]*)"
    ))
    .ok()
}

/// Whether `block` holds a label of `pattern` with a value for `field`
/// ([`field_value`]) before the next label (`title: url: x` gives the
/// title no value).
fn labelled(block: &str, field: &str, pattern: Option<&Regex>) -> bool {
    label_values(block, pattern)
        .iter()
        .any(|v| field_value(field, v))
}

/// The values `block` writes after the labels of `pattern`, each up to
/// the next label (that label's word left out), code and emphasis marks
/// dropped.
fn label_values(block: &str, pattern: Option<&Regex>) -> Vec<String> {
    // A label's colon: followed by a space, emphasis or the end (a URL's
    // `https:` is none).
    static COLON: LazyLock<Regex> = LazyLock::new(|| re(r":(?:\s|\*|_|$)"));
    let block = decode_entities(block);
    let Some(r) = pattern else {
        return Vec::new();
    };
    r.captures_iter(&block)
        .filter_map(|c| c.get(1))
        .map(|v| {
            let v = v.as_str().replace(['`', '_', '*'], "");
            match COLON.find(&v) {
                Some(m) => {
                    let before = v[..m.start()].trim_end();
                    before
                        .rfind(char::is_whitespace)
                        .map_or("", |i| &before[..i])
                        .to_string()
                }
                None => v,
            }
        })
        .collect()
}

/// Whether a field's value shows something: not blank, not only marks,
/// not a placeholder (`N/A`, `-`, `...`, `TBD`, `TODO`).
fn a_value(v: &str) -> bool {
    has_content(v)
        && !nothing_written(v)
        && !rendered::placeholder_phrase(v)
        && !non_answer(v)
        && v.chars().any(char::is_alphanumeric)
}

/// Whether a counted unit (a list item, a row, a heading, a paragraph,
/// a JSON element) is, whole, a note that there is nothing: a status
/// word (`Done.`, `OK`), a non-answer (`Insufficient data.`, `I have no
/// idea.`, `No results found.`, `Please provide more details.`), an
/// apology or a pointer elsewhere (`See the other file.`), in the seven
/// languages pactum reads and in Chinese and Japanese. Such a unit
/// counts for nothing among the units recognised as content; it still
/// counts among those shown, so a bound it alone meets is the judge's,
/// never violated by it.
pub(crate) fn says_nothing(unit: &str) -> bool {
    static WHOLE: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(?i)^(?:done|done and done|ok|okay|ok ok|completed?|finished|all done|task (?:done|complete|completed)|n/?a|nothing|nothing (?:else|here|yet|more|to (?:add|report|show))|nope|yes|no|maybe|hmm+|well|noted|understood|ack|roger|thanks|thank you|will do|working on it|will report back|no idea|i have no idea|i don'?t know|i do not know|not sure|unsure|unknown at this time|unfortunately not|not possible|cannot comply|same as (?:before|above)|as (?:previously )?stated|as above|as before",
            r"|(?:insufficient|not enough|no|missing|need more|more) (?:data|information|info|context|details|evidence|results?|sources?|answers?|content|output|response)(?: (?:found|available|provided|given|returned|yet|needed))?",
            r"|please (?:provide|give|share|send|clarify|specify)[^.?!]{0,60}|(?:could|can) you (?:provide|clarify|give|specify|explain) [^.?!]{0,60}",
            r"|(?:please )?(?:see|refer to|check|visit|click|go to|details in|sources in|read more)\b[^.?!]{0,40}|(?:more )?(?:information|details|info) (?:at|here|in)\b[^.?!]{0,40}|for (?:a|an|the|more) [^.?!,]{0,30}|(?:the )?(?:answer|summary|result|results|report|details|information|output|sources?) (?:is|are) (?:here|there|below|above|attached)\b[^.?!]{0,20}|output omitted[^.?!]{0,40}|omitted(?: for brevity)?|(?:to be|will be) (?:added|determined|completed|provided|filled in)(?: later)?|coming soon|work in progress|wip|pending|tbd|todo|to do|more later|fixme",
            // A catch-all or an end of the list (`Others`, `Total`, `No
            // other makers`, `End of list`): no item of its own.
            r"|others?|(?:all |the )?rest|total|subtotal|sum|various|misc(?:ellaneous)?|etc|and (?:more|others|so on)|no (?:other|further|more|additional)(?: [\w-]+){0,3}|none (?:other|further|more)|that(?:'s| is| was) (?:all|it|everything)|end of (?:the )?(?:list|results?)|keine (?:weiteren|anderen)(?: [\w-]+){0,2}|übrige|sonstige|andere|aucune? autres?(?: [\w-]+){0,2}|autres|otros|no hay más(?: [\w-]+){0,2}|altri|nessun altro(?: [\w-]+){0,2}|outros|overige|geen andere(?: [\w-]+){0,2}",
            r"|sorry[^.?!]{0,60}|(?:i|we) apologi[sz]e[^.?!]{0,60}|(?:my )?apologies[^.?!]{0,60}|as an ai[^.?!]{0,80}",
            r"|(?:the )?(?:requested |relevant )?(?:information|data|answer|result|results|summary|output|content|sources?) (?:(?:is|are|was|were) (?:not|un)(?:available| available|known|found| found)|could not be (?:found|determined|retrieved|generated)|cannot be (?:found|determined|retrieved|generated))",
            r"|(?:i )?(?:could not|couldn'?t|cannot|can'?t|was unable to|am unable to|unable to|did not|didn'?t) (?:find|determine|retrieve|access|generate|produce|complete|answer)[^.?!]{0,60}",
            // The same in the other languages pactum reads.
            r"|erledigt|fertig|keine (?:ahnung|daten|angaben|informationen|ergebnisse|quellen)(?: (?:gefunden|verfügbar|vorhanden))?|nicht genügend (?:daten|informationen)|weiß (?:ich )?nicht|ich weiß (?:es )?nicht|ich habe keine ahnung|bitte [^.?!]{0,60}|siehe\b[^.?!]{0,40}|die angeforderten informationen [^.?!]{0,60}|entschuldigung[^.?!]{0,60}|leider [^.?!]{0,60}",
            r"|fait|c'est fait|terminé|rien(?: trouvé| à signaler)?|aucune? (?:idée|donnée|information|réponse|source|résultat)s?(?: (?:trouvée?|disponible)s?)?|je n'ai aucune idée|pas (?:assez|suffisamment) d'(?:informations?|données)|données insuffisantes|je ne sais pas|veuillez [^.?!]{0,60}|voir\b[^.?!]{0,40}|désolée?[^.?!]{0,60}",
            r"|hecho|listo|ni idea|no tengo (?:ni )?idea|sin (?:datos|información|resultados|fuentes)|no se encontraron [^.?!]{0,40}|(?:datos|información) insuficientes?|no (?:lo )?sé|no hay (?:datos|información|resultados)|por favor[^.?!]{0,60}|ver (?:el|la|los|las)\b[^.?!]{0,40}|véase\b[^.?!]{0,40}|lo siento[^.?!]{0,60}",
            r"|fatto|finito|non ne ho idea|nessun(?:a)? (?:idea|dato|informazione|risultato|fonte)(?: trovat[oa])?|dati insufficienti|non lo so|non so|vedi\b[^.?!]{0,40}|mi dispiace[^.?!]{0,60}|per favore[^.?!]{0,60}",
            r"|feito|concluído|pronto|não faço ideia|nenhuma? (?:ideia|informação|resultado)(?: encontrad[oa])?|sem (?:dados|informações|resultados|fontes)|dados insuficientes|não sei|veja\b[^.?!]{0,40}|desculpe[^.?!]{0,60}|por favor[^.?!]{0,60}",
            r"|klaar|gedaan|ik heb geen idee|geen (?:idee|gegevens|informatie|resultaten|bronnen)(?: gevonden)?|onvoldoende (?:gegevens|informatie)|ik weet het niet|weet ik niet|zie\b[^.?!]{0,40}|sorry[^.?!]{0,60}",
            r"|完成|已完成|完了|完了しました|没有数据|无数据|暂无(?:数据|信息)?|数据不足|信息不足|不知道|我不知道|未找到(?:结果)?|请参阅[^。]{0,20}|データなし|データがありません|データ不足(?:です)?|情報なし|情報不足|わかりません|分かりません|(?:結果が)?見つかりませんでした|[^。]{0,20}を参照してください|申し訳ありません[^。]{0,40}",
            r")$",
        ))
    });
    // A clarifying question back to the caller is no unit of an answer.
    static NOTE: LazyLock<Regex> =
        LazyLock::new(|| re(r"\([^()]*\)|\[[^\[\]]*\]|:\(|:\)|;\)|:-?[()DPp/]"));
    let t = NOTE.replace_all(unit, " ");
    if t.trim_end().ends_with(['?', '？']) && t.split_whitespace().count() <= 12 {
        return true;
    }
    // A label with nothing after it (`Summary:`, `**Details:**`).
    let bare = t.trim().trim_matches(['*', '_', ' ']);
    if bare.ends_with([':', '：']) && bare.split_whitespace().count() <= 3 {
        return true;
    }
    // Its pieces, parted by sentence marks, dashes or an index, each a
    // note that there is nothing (`Done ✅`, `Ok, done.`, `| 1 | Done. |`,
    // `Done - see above`).
    static PARTS: LazyLock<Regex> =
        LazyLock::new(|| re(r"[.!?;,:](?:\s+|$)|[|–—→…。！？、]|\s-\s"));
    let mut any = false;
    for piece in PARTS.split(&t) {
        let words: Vec<&str> = piece
            .split(|c: char| {
                !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '/' || c == '-')
            })
            .map(|w| w.trim_matches('-'))
            .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
            .collect();
        if words.is_empty() {
            continue;
        }
        let text = words.join(" ").replace('’', "'");
        if !WHOLE.is_match(&text) {
            return false;
        }
        any = true;
    }
    any
}

/// `unit` without its parts (parted by `|`, a dash, `:`, `;` or `,`)
/// that say there is nothing ([`says_nothing`], [`non_answer`]): what
/// tells it apart from another unit (`Daikin – Done.` and `Daikin –
/// Insufficient data.` are one maker). The whole unit where every part
/// says nothing.
pub(crate) fn said_part(unit: &str) -> std::borrow::Cow<'_, str> {
    static PARTS: LazyLock<Regex> = LazyLock::new(|| re(r"[|–—;,]|:\s|\s-\s"));
    if !PARTS.is_match(unit) {
        return std::borrow::Cow::Borrowed(unit);
    }
    let kept: Vec<&str> = PARTS
        .split(unit)
        .filter(|p| !p.trim().is_empty() && !says_nothing(p) && !non_answer(p))
        .collect();
    if kept.is_empty() {
        std::borrow::Cow::Borrowed(unit)
    } else {
        std::borrow::Cow::Owned(kept.join(" "))
    }
}

/// A field value that says there is none (`unknown`, `none`, `not
/// available`, `see below`), or a year or date left as a slot (`20XX`,
/// `202X`, `0000`, `0000-00-00`): the field is absent, as with `N/A`.
pub(crate) fn non_answer(v: &str) -> bool {
    let l = v
        .trim()
        .trim_matches(['(', ')', '[', ']'])
        .trim()
        .trim_end_matches(['.', '!'])
        .trim()
        .to_lowercase();
    let year_slot = l.chars().count() == 4
        && l.ends_with('x')
        && l.chars().all(|c| c.is_ascii_digit() || c == 'x');
    year_slot
        || matches!(
            l.as_str(),
            "unknown"
                | "not known"
                | "unidentified"
                | "unnamed"
                | "none"
                | "not available"
                | "not found"
                | "not applicable"
                | "see below"
                | "see above"
                | "?"
                | "??"
                | "???"
                | "null"
                | "nil"
                | "tba"
                | "tbc"
                | "missing"
                | "untitled"
                | "not yet available"
                | "not available yet"
                | "t.b.d"
                | "t.b.a"
                | "t.b.c"
                | "not specified"
                | "unspecified"
                | "not given"
                | "not provided"
                | "not stated"
                | "n.d"
                | "blank"
                | "empty"
                | "yyyy"
                | "yyyy-mm-dd"
                | "mm/dd/yyyy"
                | "dd/mm/yyyy"
                | "xxxx"
                | "0000"
                | "0000-00-00"
                | "00/00/0000"
                | "00.00.0000"
                // The same in the languages whose prose pactum reads, and
                // in Chinese and Japanese.
                | "ohne titel"
                | "unbekannt"
                | "keine angabe"
                | "k. a"
                | "k.a"
                | "nicht verfügbar"
                | "sans titre"
                | "inconnu"
                | "inconnue"
                | "non disponible"
                | "non renseigné"
                | "sin título"
                | "sin titulo"
                | "desconocido"
                | "no disponible"
                | "senza titolo"
                | "sconosciuto"
                | "non disponibile"
                | "sem título"
                | "sem titulo"
                | "desconhecido"
                | "indisponível"
                | "zonder titel"
                | "onbekend"
                | "niet beschikbaar"
                | "不明"
                | "未知"
                | "无"
                | "無"
                | "なし"
                | "無題"
                | "无标题"
                | "未命名"
                | "タイトルなし"
                | "不明です"
                | "わからない"
                | "該当なし"
                | "待定"
                | "nicht bekannt"
                | "niet bekend"
                | "não identificado"
                | "no identificado"
                | "non identificato"
                | "non connu"
                // And in Korean, Russian and Polish.
                | "모름"
                | "없음"
                | "미상"
                | "неизвестно"
                | "нет данных"
                | "не указано"
                | "nieznany"
                | "nieznana"
                | "brak"
                | "brak danych"
        )
}

/// An exact excerpt of `content` around the first of `needles` found in
/// it: its line, or at most 100 characters either side in a long line.
fn excerpt_of(content: &str, needles: &[String]) -> Option<String> {
    needles.iter().find_map(|n| {
        let at = content.find(n.as_str()).filter(|_| !n.is_empty())?;
        let line_start = content[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = content[at..].find('\n').map_or(content.len(), |i| at + i);
        let mut from = line_start.max(at.saturating_sub(100));
        while !content.is_char_boundary(from) {
            from -= 1;
        }
        let mut to = line_end.min(at + n.len() + 100);
        while !content.is_char_boundary(to) {
            to += 1;
        }
        Some(content[from..to].trim().to_string())
    })
}

/// The JSON string literals of `v`'s non-blank leaves, as they may be
/// written in the file (for quoting an element).
fn literals(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) if !pactum_core::text::is_blank(s) => {
            vec![serde_json::to_string(s).unwrap_or_default(), s.clone()]
        }
        Value::Array(a) => a.iter().flat_map(literals).collect(),
        Value::Object(o) => o.values().flat_map(literals).collect(),
        Value::Number(n) => vec![n.to_string()],
        _ => vec![],
    }
}

/// `each item has: fields`: universal, so one item lacking a field (or
/// holding it blank) fails it, the first such item quoted. It holds only
/// where every item a reader sees was read: entries in a form it does
/// not read ([`unread_entries`], [`json_entries_beside`],
/// [`holds_items`]) leave it to the judge.
fn each(item: &str, fields: &[String], content: &str, json: Option<&Value>) -> Finding {
    let is_url_field = url_field;
    // Entries that may be X's, not read: the clause holds nowhere then,
    // but one X read lacking a field still breaks it.
    let mut unread: Option<String> = None;
    // Each X's fields present, as booleans, and an exact excerpt of it.
    let rows: Vec<(Vec<bool>, Option<String>)> = if let Some(v) = json {
        let arr = match v {
            Value::Array(a) => a,
            Value::Object(o) => {
                // An object with one array of items: that array, when
                // nothing else in it may hold items.
                let arrays: Vec<&Vec<Value>> = o.values().filter_map(Value::as_array).collect();
                match arrays.as_slice() {
                    [a] if !json_entries_beside(o, fields) => *a,
                    [_] => {
                        return finding(
                            None,
                            format!("the output is a JSON object holding, beside its one list of {item}s, another object (nested too) or a string showing a list, JSON or a field's label: whether it holds {item}s too is for the judge"),
                            None,
                        );
                    }
                    _ => {
                        return finding(
                            None,
                            format!("the output is a JSON object with no single list of {item}s"),
                            None,
                        );
                    }
                }
            }
            _ => {
                return finding(
                    None,
                    format!("the output is JSON with no list of {item}s"),
                    None,
                )
            }
        };
        if let Some(f) = arr
            .iter()
            .filter_map(Value::as_object)
            .find_map(|o| named_twice(o, fields))
        {
            unread = Some(format!("an element of the output's list of {item}s names the field `{f}` under two keys (`url` and `URL`): which one its readers take is not told"));
        } else if arr.iter().any(|e| holds_items(e, fields)) {
            unread = Some(format!("an element of the output's list of {item}s holds a list of records, or an object naming a field the clause asks for"));
        } else if arr.iter().any(|e| {
            let patterns: Vec<Regex> = fields.iter().filter_map(|f| label_pattern(f)).collect();
            let mut strings = Vec::new();
            keyed_strings(e, None, &mut strings);
            strings.iter().any(|(k, s)| {
                shows_entries(s, &patterns)
                    || writes_another_item(s)
                    || names_a_field(*k, s, fields)
            })
        }) {
            unread = Some(format!("an element of the output's list of {item}s holds a string showing a list, JSON, HTML, lines, bullets, an enumeration or a field's label or name: another {item}, perhaps"));
        } else if let Some(v) = {
            let seen = Seen::new(
                content,
                arr.iter()
                    .filter_map(Value::as_object)
                    .flat_map(|o| o.iter())
                    .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?))),
            );
            arr.iter().find_map(|e| {
                e.as_object().and_then(|o| {
                    o.iter()
                        .filter(|(k, _)| fields.iter().any(|f| norm(f) == norm(k)))
                        .find_map(|(k, v)| doubtful_value(k, v, &seen))
                })
            })
        } {
            unread = Some(format!(
                "a field's value ({v}) is not recognisably one: it may say there is none"
            ));
        }
        arr.iter()
            .map(|e| {
                let keys: Vec<String> = e
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .filter(|(k, v)| {
                                plain_key(k)
                                    && json_field_value(k, v)
                                    && (!is_url_field(k)
                                        || literals(v).iter().any(|s| shows_page(s)))
                            })
                            .map(|(k, _)| norm(k))
                            .collect()
                    })
                    .unwrap_or_default();
                let present = fields.iter().map(|f| keys.contains(&norm(f))).collect();
                (present, excerpt_of(content, &literals(e)))
            })
            .collect()
    } else {
        // Every item of every table and every list that renders is an X.
        let r = render(content);
        let patterns: Vec<Option<Regex>> = fields.iter().map(|f| label_pattern(f)).collect();
        unread = unread_entries(&r, content, &patterns).map(|why| {
            format!("besides the list items and table rows read, the output holds {why}")
        });
        // Where each item and cell links to; read apart from the text,
        // so checked to line up with it.
        let linked = linked_pages(content);
        let lined_up = linked.items.len() == r.items.len()
            && linked.tables.len() == r.tables.len()
            && linked
                .tables
                .iter()
                .zip(&r.tables)
                .all(|(l, t)| l.len() == t.cells.len());
        if !lined_up && unread.is_none() {
            unread = Some("links pactum could not place in the items and rows read".into());
        }
        // Every value read, by field, for telling a field written in
        // lower case throughout.
        let mut values: Vec<(String, String)> = Vec::new();
        for t in &r.tables {
            for (i, h) in t.header.iter().enumerate() {
                values.extend(
                    t.cells
                        .iter()
                        .filter_map(|c| Some((h.clone(), c.get(i)?.clone()))),
                );
            }
        }
        for it in &r.items {
            for (f, p) in fields.iter().zip(&patterns) {
                values.extend(
                    label_values(&it.text, p.as_ref())
                        .into_iter()
                        .map(|v| (f.clone(), v)),
                );
            }
        }
        let seen = Seen::new(
            content,
            values.iter().map(|(f, v)| (f.as_str(), v.as_str())),
        );
        let mut rows: Vec<(Vec<bool>, Option<String>)> = Vec::new();
        for (ti, t) in r.tables.iter().enumerate() {
            let cols: Vec<Option<usize>> = fields
                .iter()
                .map(|f| t.header.iter().position(|h| norm(h) == norm(f)))
                .collect();
            for (ri, (cells, piece)) in t.cells.iter().zip(&t.rows).enumerate() {
                if !meaningful(&piece.text) && !piece.text.chars().any(char::is_alphanumeric) {
                    continue;
                }
                // A cell links to a page by where its link leads.
                let links_page = |i: usize| match linked.tables.get(ti).and_then(|l| l.get(ri)) {
                    Some(row) if lined_up => row.get(i).is_some_and(|p| !p.is_empty()),
                    _ => cells.get(i).is_some_and(|v| shows_page(v)),
                };
                let present = cols
                    .iter()
                    .zip(fields)
                    .map(|(c, f)| match c {
                        // A cell repeating its column's header is a row
                        // left unfilled.
                        Some(i) => cells.get(*i).is_some_and(|v| {
                            field_value(&t.header[*i], v) && (!is_url_field(f) || links_page(*i))
                        }),
                        None => is_url_field(f) && (0..cells.len()).any(links_page),
                    })
                    .collect();
                if unread.is_none() {
                    if let Some(v) = cols.iter().flatten().find_map(|i| {
                        let v = cells.get(*i)?;
                        let h = &t.header[*i];
                        (doubtful_text(v) || field_value(h, v) && unsure_value(h, v, &seen))
                            .then_some(v)
                    }) {
                        unread = Some(format!(
                            "a field's value (`{v}`) is not recognisably one: it may say there is none"
                        ));
                    }
                }
                if unread.is_none() && fields.iter().any(|f| is_url_field(f)) {
                    unread = links_no_source(&piece.line);
                }
                rows.push((present, Some(piece.line.clone())));
            }
        }
        for (ii, it) in r.items.iter().enumerate() {
            if !it.text.chars().any(char::is_alphanumeric) {
                continue;
            }
            let present = fields
                .iter()
                .zip(&patterns)
                .map(|(f, p)| {
                    // A `url` field is there only where the item links to
                    // a page (by a link's destination, not its text).
                    if is_url_field(f) {
                        match linked.items.get(ii) {
                            Some(pages) if lined_up => !pages.is_empty(),
                            _ => shows_page(&it.text),
                        }
                    } else {
                        labelled(&it.text, f, p.as_ref())
                    }
                })
                .collect();
            let unsure = fields.iter().zip(&patterns).any(|(f, p)| {
                (is_url_field(f) && marks_dead(&it.text))
                    || label_values(&it.text, p.as_ref())
                        .iter()
                        .any(|v| field_value(f, v) && unsure_value(f, v, &seen))
            });
            if unread.is_none() && (doubtful_text(&it.text) || unsure) {
                unread = Some(format!(
                    "an item (`{}`) may say a field has no value, or holds one pactum does not recognise",
                    it.text.trim()
                ));
            }
            if unread.is_none() && fields.iter().any(|f| is_url_field(f)) {
                unread = links_no_source(&it.line);
            }
            rows.push((present, Some(it.line.clone())));
        }
        if rows.is_empty() {
            return finding(
                None,
                format!("the output holds no JSON array, table or list of {item}s"),
                None,
            );
        }
        rows
    };
    if rows.is_empty() {
        return finding(Some(false), format!("no {item} found"), None);
    }
    let total = rows.len() * fields.len();
    let present: usize = rows
        .iter()
        .map(|(r, _)| r.iter().filter(|b| **b).count())
        .sum();
    let lacking: Vec<(usize, Vec<&str>, &Option<String>)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, (r, q))| {
            let m: Vec<&str> = r
                .iter()
                .zip(fields)
                .filter(|(b, _)| !**b)
                .map(|(_, f)| f.as_str())
                .collect();
            (!m.is_empty()).then_some((i + 1, m, q))
        })
        .collect();
    let detail = format!(
        "{} {item}(s), {present} of {total} field(s) present{}",
        rows.len(),
        if lacking.is_empty() {
            String::new()
        } else {
            format!(
                ": {}{}",
                lacking
                    .iter()
                    .take(3)
                    .map(|(i, m, _)| format!("{item} {i} lacks {}", m.join(", ")))
                    .collect::<Vec<_>>()
                    .join("; "),
                if lacking.len() > 3 {
                    format!(" ({} {item}s lack a field)", lacking.len())
                } else {
                    String::new()
                }
            )
        }
    );
    match (lacking.first(), unread) {
        (Some((_, _, q)), _) => finding(Some(false), detail, (*q).clone()),
        (None, Some(why)) => finding(
            None,
            format!("{detail}, but {why}, which `each` does not read: whether every {item} has every field is for the judge"),
            None,
        ),
        (None, None) => finding(Some(true), detail, None),
    }
}

/// A field's JSON value that is not recognisably a value for `field`,
/// as written, for a note: a boolean (`true` as much as `false` may say
/// there is none), a number where a year is asked that is no plausible
/// year (`0`, `-1`, `12`), or a string [`unsure_value`] (at any depth).
fn doubtful_value(field: &str, v: &Value, seen: &Seen) -> Option<String> {
    match v {
        Value::Bool(b) => Some(format!("`{b}`")),
        Value::Number(n) if dated_field(field) && !a_year_number(n) => Some(format!("`{n}`")),
        Value::String(s) if field_value(field, s) && unsure_value(field, s, seen) => {
            Some(format!("`{s}`"))
        }
        Value::Array(a) => a.iter().find_map(|e| doubtful_value(field, e, seen)),
        Value::Object(o) => o.values().find_map(|e| doubtful_value(field, e, seen)),
        _ => None,
    }
}

/// Whether text written as a field's value may say the field has none,
/// in words no list of non-answers holds (`not known`, `unavailable`,
/// `could not find`, `no year given`): a word that negates or says
/// something is missing. Such a value is no evidence the field is there;
/// it is the judge's, never a miss on its own.
fn doubtful_text(t: &str) -> bool {
    static DOUBT: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:not?|none|never|nothing|without|cannot|can't|couldn't|could|false|null|nil|undefined|unknown|unavailable|unclear|undated|undisclosed|unnamed|unpublished|missing|absent|lacking|n/?a|tbd|tba|pending|redacted|withheld|omitted|unsure|uncertain|maybe|perhaps|approx(?:imately)?|circa|unverified|unconfirmed|unchecked|probably|probable|possibly|possible|likely|presumably|presumed|allegedly|alleged|supposedly|reportedly|estimated|est|guess(?:ed)?|roughly|ish|tentative(?:ly)?|assumed|speculative|disputed|contested|rumou?red|questionable|doubtful|dubious|idk|dunno|hm+|meh|nah|nope|whatever|asdf\w*|lol|tbh)\b|n't\b|n’t\b",
        )
    });
    DOUBT.is_match(t)
}

/// Whether `v`, written as the value of `field`, shows something a
/// reader can use ([`a_value`]) that is no placeholder for it: not the
/// field's own name once case and marks are folded (`title: title`, a
/// table cell repeating its column's header), nor that name numbered,
/// lettered or with template words ([`names_itself`]: `Title 1`, `The
/// title`), not numbered scaffolding ([`rendered::scaffold_text`]: `Item
/// 1`), not a bracketed slot (`[title]`, `<title>`, `{Title of the
/// item}`), and not a type name (`string`, `integer`) unless the field
/// names a type or kind.
fn field_value(field: &str, v: &str) -> bool {
    static SLOT: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:\[[^\[\]]*\]|<[^<>]*>|\{[^{}]*\})$"));
    const TYPES: &[&str] = &[
        "string", "str", "number", "integer", "int", "float", "double", "boolean", "bool",
        "object", "array", "date", "datetime", "uri",
    ];
    let t = v.trim();
    let name = norm(field);
    let slot = SLOT.is_match(t) && t.chars().any(char::is_alphabetic) && !t.contains("://");
    let typed = ["type", "kind", "format"].iter().any(|w| name.contains(w));
    // What a program or a spreadsheet writes for none (`not_found`,
    // `Optional.empty`, `#REF!`).
    static NONE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:#[A-Z0-9/]+[!?]?|#N/A|optional(?:\.empty|\[empty\]|\.none)|none|null|nil|nan|undefined|void|empty)$",
        )
    });
    a_value(t)
        && a_value(&t.replace(['_', '.'], " "))
        && !NONE.is_match(t)
        && !slot
        && norm(t) != name
        && (typed || !TYPES.contains(&norm(t).as_str()))
        && !names_itself(field, t)
        && !rendered::scaffold_text(t)
}

/// Words a template writes beside a field's name where its value should
/// be (`The title`, `Title here`, `Sample Title`, `Book title`).
const TEMPLATE_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "some",
    "my",
    "your",
    "our",
    "their",
    "its",
    "this",
    "sample",
    "example",
    "here",
    "goes",
    "placeholder",
    "dummy",
    "test",
    "demo",
    "new",
    "default",
    "generic",
    "book",
    "item",
    "entry",
    "enter",
    "insert",
];

/// The words of `v` once case and marks are folded and digits glued to
/// a word dropped (`title1`), without numbers, single letters and
/// template words ([`TEMPLATE_WORDS`]); and whether a number or a
/// letter, and whether a template word, was dropped.
fn bare_words(v: &str) -> (Vec<String>, bool, bool) {
    let (mut numbered, mut templated) = (false, false);
    let mut out = Vec::new();
    for w in norm(v).split(' ').filter(|w| !w.is_empty()) {
        let stem = w.trim_end_matches(|c: char| c.is_ascii_digit());
        if stem.len() < w.len() || stem.chars().count() == 1 {
            numbered = true;
        }
        if TEMPLATE_WORDS.contains(&stem) {
            templated = true;
        } else if stem.chars().count() > 1 {
            out.push(stem.to_string());
        }
    }
    (out, numbered, templated)
}

/// Whether `v` is `field`'s own name numbered, lettered or with template
/// words around it (`Title 1`, `title1`, `TITLE_1`, `Title A`, `The
/// title`, `Title here`, `Sample Title`), or a placeholder for none
/// numbered (`Untitled 2`): a template row left unfilled.
fn names_itself(field: &str, v: &str) -> bool {
    let (words, numbered, templated) = bare_words(v);
    let rest = words.join(" ");
    !rest.is_empty()
        && ((numbered || templated) && rest == norm(field) || numbered && non_answer(&rest))
}

/// Whether `v` is `field`'s own name with one word of its own beside it
/// (`Title Fight`, `Model Year`): a real value or a template's label,
/// which pactum cannot tell apart.
fn name_and_a_word(field: &str, v: &str) -> bool {
    let name = norm(field);
    let (words, _, _) = bare_words(v);
    !name.is_empty()
        && words.len() == name.split(' ').count() + 1
        && format!(" {} ", words.join(" ")).contains(&format!(" {name} "))
}

/// Whether `field` is a `url`/`link` field: filled only by a page.
fn url_field(field: &str) -> bool {
    matches!(norm(field).as_str(), "url" | "link" | "source url" | "urls")
}

/// Whether `field` is named like a year or a date (`year`, `date`,
/// `published`, `founded`, `born`, `released`, `pub_year`,
/// `releaseDate`): its value is one only when it is a year or a date.
fn dated_field(field: &str) -> bool {
    // camelCase parts words too.
    let mut parted = String::new();
    let mut lower = false;
    for c in field.chars() {
        if c.is_uppercase() && lower {
            parted.push(' ');
        }
        lower = c.is_lowercase() || c.is_ascii_digit();
        parted.push(c);
    }
    norm(&parted).split(' ').any(|w| {
        matches!(
            w,
            "year" | "date" | "dated" | "published" | "founded" | "born" | "released"
        ) || (w.ends_with("year") && w != "years")
    })
}

/// Whether a JSON number is a plausible year: a whole number from 1000
/// to 2999.
fn a_year_number(n: &serde_json::Number) -> bool {
    n.as_f64()
        .is_some_and(|f| f.fract() == 0.0 && (1000.0..3000.0).contains(&f))
}

/// Whether `v` is written as a date (`2020-02-30`, `1970-01-01`,
/// `31.04.2020`, `2020/13/01`), whether or not the calendar has it.
fn date_shaped(v: &str) -> bool {
    static SHAPE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"^\d{4}[-/]\d{1,2}[-/]\d{1,2}(?:[T ][\d:.]+(?:Z|[+-][\d:]+)?)?$|^\d{1,2}[./-]\d{1,2}[./-]\d{4}$",
        )
    });
    SHAPE.is_match(v.trim().trim_end_matches(['.', ',', ';']).trim_end())
}

/// Whether `v` is, whole, a plausible year (`2020`, 1000 to 2999) or a
/// date (`2020-05-03`, `2020-05`, an ISO time stamp, `3.5.2020`,
/// `05/03/2020`, `2020/05/03`, `May 2020`, `3 May 2020`, `May 3, 2020`).
fn a_date(v: &str) -> bool {
    static DATE: LazyLock<Regex> = LazyLock::new(|| {
        const MONTH: &str = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";
        const YEAR: &str = r"[12]\d{3}";
        const DAY: &str = r"(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?";
        re(&format!(
            r"(?i)^(?:{YEAR}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01])(?:[T ]\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?(?:Z|[+-]\d{{2}}:?\d{{2}})?)?)?)?|{YEAR}/\d{{1,2}}/\d{{1,2}}|\d{{1,2}}[./-]\d{{1,2}}[./-]{YEAR}|(?:{DAY}\.?\s+)?{MONTH}\s+(?:{DAY},?\s+)?{YEAR})$"
        ))
    });
    // A full stop ending the sentence it is written in is no part of it.
    let t = v.trim().trim_end_matches(['.', ',', ';']).trim_end();
    DATE.is_match(t) && a_calendar_day(t)
}

/// Whether the day a date that [`a_date`]'s pattern matched names is one
/// the calendar has (`2020-02-30`, `31.04.2020`, `30 February 2021` are
/// not): read day first and month first where digits leave both open.
fn a_calendar_day(t: &str) -> bool {
    static PARTS: LazyLock<Regex> = LazyLock::new(|| re(r"\d+|\p{L}+"));
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let fits = |y: u32, m: u32, d: u32| {
        let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
        let days = match m {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => 0,
        };
        (1..=days).contains(&d)
    };
    let date = t.split(['T', ' ']).next().unwrap_or(t);
    // A default a program writes for no date: the Unix epoch, a
    // spreadsheet's day zero.
    if matches!(
        date,
        "1970-01-01" | "1900-01-01" | "1899-12-30" | "1899-12-31"
    ) {
        return false;
    }
    let mut numbers = Vec::new();
    let mut month = None;
    for p in PARTS.find_iter(t) {
        let p = p.as_str();
        match p.parse::<u32>() {
            Ok(n) => numbers.push(n),
            Err(_) => {
                let lower = p.to_lowercase();
                if let Some(i) = MONTHS.iter().position(|m| lower.starts_with(m)) {
                    month = Some(i as u32 + 1);
                }
            }
        }
    }
    let year_first = date.len() >= 4 && date.chars().take(4).all(|c| c.is_ascii_digit());
    match (month, numbers.as_slice()) {
        // `May 2020`, `3 May 2020`, `May 3, 2020`.
        (Some(_), [_]) => true,
        (Some(m), [d, y, ..]) if *y >= 1000 => fits(*y, m, *d),
        (Some(m), [y, d, ..]) => fits(*y, m, *d),
        (None, [_]) | (None, [_, _]) if year_first => {
            numbers.get(1).is_none_or(|m| (1..=12).contains(m))
        }
        (None, [y, m, d, ..]) if year_first => fits(*y, *m, *d),
        (None, [a, b, y, ..]) => fits(*y, *b, *a) || fits(*y, *a, *b),
        _ => true,
    }
}

/// Whether a value read for `field` (one [`field_value`] takes) is not
/// recognisably a value, so that it is the judge's, never a green: for
/// a year or date field ([`dated_field`]), anything but a year or a
/// date ([`a_date`]); for a `url` field, a note beside its URL (a
/// parenthesis, a bracket, a `?`, a code mark, a word saying it is dead
/// or doubting it); for any other, a word of doubt ([`doubtful_text`]),
/// a `?`, a parenthesised or bracketed note (`2020 (unverified)`,
/// `[citation needed]`), a slash abbreviation (`n/k`), its own name with
/// a word beside it ([`name_and_a_word`]), or one or two short
/// lower-case words the output shows nowhere else and writes for no
/// other item ([`lone_words`]: `idk`, `later`, `to follow`), or only
/// words that name nothing ([`rendered::names_nothing`]: `GmbH`, `der`).
fn unsure_value(field: &str, v: &str, seen: &Seen) -> bool {
    static NOTE: LazyLock<Regex> = LazyLock::new(|| re(r"[?¿？()\[\]（）［］【】`]"));
    static ABBREVIATION: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?:^|[^\p{L}/])(?:\p{L}\.?){1,2}\s*/\s*(?:\p{L}\.?){1,2}(?:$|[^\p{L}/])")
    });
    let t = v.trim();
    if url_field(field) {
        let rest = URL.replace_all(t, " ");
        return NOTE.is_match(&rest)
            || marks_dead(&rest)
            || doubtful_text(&rest)
            || links_no_source(t).is_some();
    }
    if dated_field(field) {
        return !a_date(t);
    }
    // A value written as a URL or a date is one whatever the field's
    // name: a placeholder URL, one that is no source, or a day the
    // calendar lacks (or a program's default) fills no field.
    if URL.is_match(t) && (!shows_page(t) || links_no_source(t).is_some()) {
        return true;
    }
    if date_shaped(t) && !a_date(t) {
        return true;
    }
    doubtful_text(t)
        || NOTE.is_match(t)
        || ABBREVIATION.is_match(t)
        || name_and_a_word(field, t)
        || lone_words(field, t, seen)
        || rendered::names_nothing(t)
}

/// Whether `t`, its URLs aside, doubts what it links (`unverified`,
/// `may be outdated`, `not checked`): [`doubtful_text`] over the rest.
pub(crate) fn doubtful_note(t: &str) -> bool {
    static DOUBT: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:unverified|unconfirmed|unchecked|unused|not (?:verified|checked|confirmed|used|consulted|read)|ignored|unsure|uncertain|questionable|dubious|doubtful|may be (?:wrong|outdated|dead|broken|gone)|might not (?:work|exist|load)|(?:could|can) ?not (?:open|load|reach|access|verify))\b",
        )
    });
    DOUBT.is_match(&URL.replace_all(t, " "))
}

/// Whether `t`, its URLs aside, says a link is dead (`404`, `dead
/// link`, `broken`, `offline`): a URL no reader can follow.
pub(crate) fn marks_dead(t: &str) -> bool {
    static DEAD: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:404|410|dead|broken|defunct|offline|unreachable|expired|invalid|inactive|down|gone|removed|moved|parked|archived|obsolete|outdated)\b",
        )
    });
    DEAD.is_match(&URL.replace_all(t, " "))
}

/// What the output shows beside one value, for telling whether a value
/// in lower case is one of its own ([`lone_words`]).
#[derive(Debug, Default)]
struct Seen {
    /// The whole output, its words folded ([`norm`]).
    words: String,
    /// The fields ([`norm`]) two items or more write in lower-case words
    /// ([`lower_words`]): a field of codes, roles or tags.
    lower_case: BTreeSet<String>,
}

impl Seen {
    /// `content` folded, and the fields whose `values` (field, value:
    /// one per item) are lower-case words in two items or more.
    fn new<'a>(content: &str, values: impl Iterator<Item = (&'a str, &'a str)>) -> Seen {
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for (f, v) in values {
            if lower_words(v) {
                *counts.entry(norm(f)).or_default() += 1;
            }
        }
        Seen {
            words: norm(content),
            lower_case: counts
                .into_iter()
                .filter(|(_, n)| *n > 1)
                .map(|(f, _)| f)
                .collect(),
        }
    }
}

/// Whether `t` is one or two short lower-case words (`idk`, `hmm`, `to
/// follow`, `lead`), a full stop after them aside.
fn lower_words(t: &str) -> bool {
    let t = t.trim().trim_end_matches(['.', '!']);
    let ws: Vec<&str> = t.split_whitespace().collect();
    let short_lower = |w: &&str| {
        w.chars().count() <= 12
            && w.chars().any(char::is_alphabetic)
            && w.chars()
                .all(|c| c.is_lowercase() || matches!(c, '.' | '-' | '\'' | '’'))
    };
    (1..=2).contains(&ws.len()) && ws.iter().all(short_lower)
}

/// Whether `t`, written for `field`, is lower-case words ([`lower_words`]:
/// `idk`, `later`, `to follow`) that the output shows nowhere else and
/// writes for no other item's `field` (as a list of roles, `lead`,
/// `review`, would): no name, title or number it recognises.
fn lone_words(field: &str, t: &str, seen: &Seen) -> bool {
    if !lower_words(t) || seen.lower_case.contains(&norm(field)) {
        return false;
    }
    let phrase = format!(" {} ", norm(t.trim().trim_end_matches(['.', '!'])));
    format!(" {} ", seen.words).matches(phrase.as_str()).count() < 2
}

/// Why a `url` field on `line` (as written) is not read as filled or
/// empty: it links a page that is no source ([`rendered::site`]: a
/// search page, a shortened link, a chatbot's conversation), which the
/// item may or may not be about.
fn links_no_source(line: &str) -> Option<String> {
    URL.find_iter(line)
        .find(|m| rendered::page(m.as_str()).is_some_and(|p| rendered::site(&p).is_none()))
        .map(|m| format!("`{}` is a search page, a shortened link or a chatbot's conversation: whether it fills a `url` field is for the judge", pactum_core::text::truncate_chars(m.as_str(), 60)))
}

/// Whether `v` shows the URL of a page on a public host, as the count of
/// sources reads one ([`rendered::page`]): a placeholder host
/// (`https://URL`, `https://...`, `https://TBD`), a host reserved for
/// examples (`example.com`) or one under no top-level domain
/// (`https://a.b`) is none.
fn shows_page(v: &str) -> bool {
    URL.find_iter(v)
        .any(|m| rendered::page(m.as_str()).is_some())
}

/// The pages ([`rendered::page`]) each top-level list item and each
/// table cell of `content` links to, as the count of sources reads
/// them: a link's destination (its text is no page, a URL written there
/// leading elsewhere), a URL in text outside code and links; a URL in a
/// code span or block, or an image's, none.
#[derive(Debug, Default)]
struct LinkedPages {
    /// One set per top-level list item, in the order [`render`] reads them.
    items: Vec<BTreeSet<String>>,
    /// Per table, per body row, one set per cell.
    tables: Vec<Vec<Vec<BTreeSet<String>>>>,
}

/// [`LinkedPages`] of `content`, parsed as [`render`] parses it.
fn linked_pages(content: &str) -> LinkedPages {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    opts.insert(Options::ENABLE_FOOTNOTES);
    let mut out = LinkedPages::default();
    let (mut lists, mut code, mut image) = (0usize, 0usize, 0usize);
    // Open items: whether each is a top-level one.
    let mut open_items: Vec<bool> = Vec::new();
    // Open links: each destination, and whether its text shows anything.
    let mut links: Vec<(String, bool)> = Vec::new();
    let mut head = false;
    let mut row: Vec<BTreeSet<String>> = Vec::new();
    let mut cell: Option<BTreeSet<String>> = None;
    let add = |u: &str,
               out: &mut LinkedPages,
               open_items: &[bool],
               cell: &mut Option<BTreeSet<String>>| {
        let Some(p) = rendered::page(u) else { return };
        if open_items.contains(&true) {
            if let Some(it) = out.items.last_mut() {
                it.insert(p.clone());
            }
        }
        if let Some(c) = cell.as_mut() {
            c.insert(p);
        }
    };
    for ev in Parser::new_ext(content, opts) {
        match ev {
            Event::Start(Tag::List(_)) => lists += 1,
            Event::End(TagEnd::List(_)) => lists = lists.saturating_sub(1),
            Event::Start(Tag::Item) => {
                open_items.push(lists == 1);
                if lists == 1 {
                    out.items.push(BTreeSet::new());
                }
            }
            Event::End(TagEnd::Item) => {
                open_items.pop();
            }
            Event::Start(Tag::CodeBlock(_)) => code += 1,
            Event::End(TagEnd::CodeBlock) => code = code.saturating_sub(1),
            Event::Start(Tag::Image { .. }) => {
                image += 1;
                links.iter_mut().for_each(|l| l.1 = true);
            }
            Event::End(TagEnd::Image) => image = image.saturating_sub(1),
            Event::Start(Tag::Link { dest_url, .. }) => links.push((dest_url.to_string(), false)),
            Event::End(TagEnd::Link) => {
                if let Some((dest, true)) = links.pop() {
                    add(&dest, &mut out, &open_items, &mut cell);
                }
            }
            Event::Start(Tag::Table(_)) => out.tables.push(Vec::new()),
            Event::Start(Tag::TableHead) => head = true,
            Event::End(TagEnd::TableHead) => head = false,
            Event::Start(Tag::TableRow) => row.clear(),
            Event::End(TagEnd::TableRow) => {
                if let Some(t) = out.tables.last_mut() {
                    t.push(std::mem::take(&mut row));
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(BTreeSet::new()),
            Event::End(TagEnd::TableCell) => {
                let c = cell.take().unwrap_or_default();
                if !head {
                    row.push(c);
                }
            }
            Event::Text(t) if image == 0 => {
                if !links.is_empty() && rendered::shows_something(&t) {
                    links.iter_mut().for_each(|l| l.1 = true);
                }
                if code == 0 && links.is_empty() {
                    for u in urls(&t) {
                        add(&u, &mut out, &open_items, &mut cell);
                    }
                }
            }
            // Code or HTML in a link's text shows it.
            Event::Code(t) | Event::InlineHtml(t) | Event::Html(t)
                if !links.is_empty() && t.chars().any(char::is_alphanumeric) =>
            {
                links.iter_mut().for_each(|l| l.1 = true);
            }
            _ => {}
        }
    }
    out
}

/// Whether a JSON value written for `field` holds something: a string
/// that is a value for it ([`field_value`]), a number, a boolean, or an
/// array or object holding one of these.
fn json_field_value(field: &str, v: &Value) -> bool {
    match v {
        Value::String(s) => field_value(field, s),
        Value::Number(_) | Value::Bool(_) => true,
        Value::Null => false,
        Value::Array(a) => a.iter().any(|e| json_field_value(field, e)),
        Value::Object(o) => o.values().any(|e| json_field_value(field, e)),
    }
}

/// Whether a JSON object read for its one array of items holds, beside
/// that array, an object holding a value (at any depth: `next_page`,
/// `meta.more`, a lone `item`), or a string showing items in another
/// form (a list, a table, a JSON value, a label of one of the `fields`:
/// [`shows_entries`]; another item's forms, [`writes_another_item`]; a
/// field's name, [`names_a_field`]; a series parted by `,`, `;`, `/` or
/// `|`; names only, [`names_only`]): it may hold items pactum did not
/// read. So does a flag saying the list is cut (`"truncated": true`,
/// `"has_more": true`), or a count above the list's length (`"total":
/// 5` beside 2 items).
fn json_entries_beside(o: &serde_json::Map<String, Value>, fields: &[String]) -> bool {
    static SERIES: LazyLock<Regex> = LazyLock::new(|| re(r"\S\s*[,;/|]\s*\S"));
    // Words a page, a cursor or a cut list is told by, in a key or a
    // value (`isLastPage`, `nextPageToken`, `"showing": "2 of 5"`).
    static CUT: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)more|truncat|partial|incomplete|next|remaining|omitted|cut|page|cursor|token|last|continu|offset|limit|skip|show|display|left|rest|hidden|elided|abbrev|abridg|shorten|excerpt|sample|subset|selection|top \w+ only|only the (?:first|top)|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s*(?:of|out of|/|von|sur|de|di|van)\s*(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|many|more)\b",
        )
    });
    static TOTAL: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)total|count|^n$|^num|number|found|matches|results"));
    let listed = o
        .values()
        .filter_map(Value::as_array)
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    let patterns: Vec<Regex> = fields.iter().filter_map(|f| label_pattern(f)).collect();
    o.iter().any(|(k, v)| match v {
        // A flag beside the list says something of it, under names no
        // list closes (`isLastPage: false`).
        Value::Bool(_) => true,
        // A number beside it other than its own length may count items
        // not listed (`"remaining": 3`, `"omitted": 2`).
        Value::Number(n) => !(TOTAL.is_match(k) && n.as_f64().is_some_and(|n| n <= listed as f64)),
        Value::Object(_) => has_value(v),
        Value::String(t) => {
            CUT.is_match(k)
                || CUT.is_match(t)
                // A count written as text (`"total": "5"`).
                || (TOTAL.is_match(k) && t.chars().any(|c| c.is_ascii_digit()))
                || shows_entries(t, &patterns)
                || writes_another_item(t)
                || names_a_field(Some(k), t, fields)
                || SERIES.is_match(t)
                // One more name (`"also": "Bosch"`), or names joined by
                // words: it may be another X, outside the list read.
                || names_only(t)
        }
        _ => false,
    })
}

/// Whether `t` is only names (`Bosch`, `Bosch and Viessmann`, `Bosch
/// Viessmann Mitsubishi`): up to six words, each capitalised or a word
/// joining names (`and`, `&`, `or`, `und`, `et`, `y`), one capitalised at
/// least. A sentence (`One maker found.`) or a status (`ok`) is none.
fn names_only(t: &str) -> bool {
    const JOINING: &[&str] = &["and", "&", "or", "und", "et", "y", "e", "plus"];
    let words: Vec<&str> = t
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | ';' | '.' | '!' | '"' | '\'')))
        .filter(|w| !w.is_empty())
        .collect();
    let capital = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    (1..=6).contains(&words.len())
        && words.iter().any(capital)
        && words
            .iter()
            .all(|w| capital(w) || JOINING.contains(&w.to_lowercase().as_str()))
}

/// Whether the string `t` shows entries of its own: a list, a table, a
/// JSON value, or a label matching one of `patterns` (`title: …`).
fn shows_entries(t: &str, patterns: &[Regex]) -> bool {
    let r = render(t);
    shows_json_value(t)
        || patterns.iter().any(|p| p.is_match(t))
        || !r.items.is_empty()
        || !r.tables.is_empty()
}

/// Whether a string of a JSON item may write another item in a form
/// Markdown does not make one: more than one line, an HTML tag, a
/// bullet-like character ([`crate::plain::TYPED_BULLETS`]; a dash only
/// opening it), an enumeration (`a) x`, `a) x b) y`), a CSV row
/// (`Vaillant,2021`), or a label written with `=`, `->`, `=>` or a tab,
/// URLs aside.
fn writes_another_item(t: &str) -> bool {
    static FORMS: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)</?[a-z][a-z0-9-]*(?:\s[^<>]*)?/?>|\t|->|=>|[\p{L}\p{N}_)\]]\s*=|\p{L},[\p{L}\p{N}]|\p{N},\p{L}|^\s*\(?[a-z]\)\s|(?:^|\s)\(?(?:[a-z]|\d{1,2})\)\s.*\s\(?(?:[a-z]|\d{1,2})\)\s",
        )
    });
    let dash = |c: char| matches!(c, '–' | '—' | '―' | '⁃');
    // A URL's query (`?a=1`) is no label.
    let t = URL.replace_all(t.trim(), "URL");
    let t = t.as_ref();
    t.contains([
        '\n', '\r', '\u{0085}', '\u{2028}', '\u{2029}', '\u{000B}', '\u{000C}',
    ]) || t
        .chars()
        .any(|c| crate::plain::TYPED_BULLETS.contains(&c) && !dash(c))
        || t.starts_with(dash)
        || FORMS.is_match(t)
}

/// Whether `t`, a value written under `key`, holds the name of one of
/// the clause's `fields` other than `key` as a word (`"notes": "Title —
/// Vaillant"`, `"also": "year 2021"`), URLs aside: a label of another
/// item, perhaps.
fn names_a_field(key: Option<&str>, t: &str, fields: &[String]) -> bool {
    // A URL's path (`/title/123`) names no field.
    let text = format!(" {} ", norm(&URL.replace_all(t, " ")));
    fields.iter().any(|f| {
        let name = norm(f);
        !name.is_empty()
            && key.is_none_or(|k| norm(k) != name)
            && text.contains(&format!(" {name} "))
    })
}

/// Each string value of `v` with the key nearest above it (an array's
/// elements under the array's key).
fn keyed_strings<'a>(
    v: &'a Value,
    key: Option<&'a str>,
    out: &mut Vec<(Option<&'a str>, &'a str)>,
) {
    match v {
        Value::String(s) => out.push((key, s)),
        Value::Array(a) => a.iter().for_each(|x| keyed_strings(x, key, out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| keyed_strings(x, Some(k), out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Whether an item `v` of a JSON list may hold items of its own: one of
/// its values, at any depth, is a list holding an object (a list of
/// records: `children`, `sources`, `authors`), or an object naming a
/// field the clause asks for (`related: {"title": …}`). A list of plain
/// values (`tags`, `[[1, 2]]`) or an object of other keys (`price:
/// {amount, currency}`) is one of the item's fields.
fn holds_items(v: &Value, fields: &[String]) -> bool {
    let inner = |e: &Value| match e {
        Value::Array(a) => a
            .iter()
            .any(|x| matches!(x, Value::Object(_)) && has_value(x)),
        Value::Object(o) => o
            .iter()
            .any(|(k, x)| has_value(x) && fields.iter().any(|f| norm(f) == norm(k))),
        _ => false,
    };
    match v {
        Value::Array(a) => a.iter().any(|e| inner(e) || holds_items(e, fields)),
        Value::Object(o) => o.values().any(|e| inner(e) || holds_items(e, fields)),
        _ => false,
    }
}

/// What a Markdown output shows as entries besides the list items and
/// table rows `each` reads: HTML list items or table rows, a line break
/// (`<br>`), a footnote, a JSON array or object (fenced, bare, in
/// `<pre>`), a bullet-like character or a line opening with a symbol
/// (the entries the count of items does not read either,
/// [`uncounted_entries`]), a paragraph, heading or HTML text labelling a
/// field (`title: …`) or with a mark glued to a word (`-Vaillant`), an
/// item labelling one field twice (a list nested in it), or a label
/// written where no item read shows it (in code). `None` when there is
/// none.
fn unread_entries(
    r: &rendered::Rendered,
    content: &str,
    patterns: &[Option<Regex>],
) -> Option<&'static str> {
    let labels = |text: &str, p: &Regex| {
        p.captures_iter(text)
            .filter(|c| c.get(1).is_some_and(|v| has_content(v.as_str())))
            .count()
    };
    // A mark glued to a word opening a line (`-Vaillant`): no list item,
    // yet read as one.
    static GLUED: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|\s)[-*+]\p{L}"));
    let labelled_outside = r
        .paragraphs
        .iter()
        .chain(&r.headings)
        .map(|p| p.text.as_str())
        .chain([r.html_text.as_str()])
        .any(|t| GLUED.is_match(t) || patterns.iter().flatten().any(|p| labels(t, p) > 0));
    if rendered::html_items(r) || rendered::html_rows(r) {
        Some("HTML list items or table rows")
    } else if fences_json_list(content) || lead_in_json(content) {
        Some("a fenced JSON array or object")
    } else if r.tags.contains("br")
        || r.footnotes
        || uncounted_entries(&rendered::Rendered::default(), content)
    {
        Some("a JSON array or object, a line break, a footnote, a bullet-like character or a line opening with a symbol")
    } else if labelled_outside {
        Some("a paragraph, heading or HTML text outside any list labelling a field or opening a line with a mark (`-Vaillant`)")
    } else if r
        .items
        .iter()
        .any(|it| patterns.iter().flatten().any(|p| labels(&it.text, p) > 1))
    {
        Some("a list item labelling one field twice (a list nested in it)")
    } else if r.nested_lists {
        Some("a list nested in a list item (its items may be more items, read as part of the one they are in)")
    } else if r.tables.iter().any(|t| {
        t.header
            .iter()
            .enumerate()
            .any(|(i, h)| t.header[i + 1..].iter().any(|g| norm(g) == norm(h)))
    }) {
        Some("a table with two columns of one name (`url` and `URL`)")
    } else if patterns.iter().flatten().any(|p| {
        // Colon labels only: a bold table header (`**Title**`) is none.
        let colons = |t: &str| {
            p.captures_iter(t)
                .filter(|c| {
                    c.get(0).is_some_and(|m| m.as_str().contains(':'))
                        && c.get(1).is_some_and(|v| has_content(v.as_str()))
                })
                .count()
        };
        colons(content) > r.items.iter().map(|it| colons(&it.text)).sum::<usize>()
    }) {
        Some("a label of a field written where no list item read shows it (in code, in a list nested in an item)")
    } else {
        None
    }
}

/// A rewrite that would make a vague clause testable.
pub fn suggest_rewrite(text: &str) -> String {
    let noun = text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .rfind(|w| GENERIC.contains(&w.as_str()))
        .unwrap_or_else(|| "output".into());
    format!(
        "change \"{}\" to something measurable, e.g. \"a {noun} with at least 3 headings, naming X, Y and Z, each with a source URL\" (name the items it must contain, a format and a count)",
        pactum_core::text::one_line(text, 120)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> (Vec<Measure>, Vec<String>, bool) {
        let r = read(text);
        (
            r.measures.into_iter().map(|(_, m)| m).collect(),
            r.residual,
            r.vague,
        )
    }

    #[test]
    fn every_phrasing_read() {
        use Measure as M;
        let cases: Vec<(&str, Vec<Measure>)> = vec![
            ("a JSON object", vec![M::Json(JsonShape::Object)]),
            ("JSON", vec![M::Json(JsonShape::Any)]),
            ("a JSON array", vec![M::Json(JsonShape::Array)]),
            ("a markdown table", vec![M::Table]),
            ("a numbered list", vec![M::NumberedList]),
            ("an ordered list", vec![M::NumberedList]),
            ("bullet points", vec![M::BulletList]),
            ("a bulleted list", vec![M::BulletList]),
            ("headings", vec![M::Headings]),
            (
                "at least 5 items",
                vec![M::Count {
                    unit: Unit::Items,
                    min: 5,
                    max: None,
                }],
            ),
            (
                "no fewer than five entries",
                vec![M::Count {
                    unit: Unit::Items,
                    min: 5,
                    max: None,
                }],
            ),
            (
                "3+ sources",
                vec![M::Count {
                    unit: Unit::Sources,
                    min: 3,
                    max: None,
                }],
            ),
            (
                "3 or more citations",
                vec![M::Count {
                    unit: Unit::Sources,
                    min: 3,
                    max: None,
                }],
            ),
            (
                "2-3 paragraphs",
                vec![M::Count {
                    unit: Unit::Paragraphs,
                    min: 2,
                    max: Some(3),
                }],
            ),
            (
                "a 2–3 paragraph summary",
                vec![M::Count {
                    unit: Unit::Paragraphs,
                    min: 2,
                    max: Some(3),
                }],
            ),
            (
                "between 2 and 4 rows",
                vec![M::Count {
                    unit: Unit::Rows,
                    min: 2,
                    max: Some(4),
                }],
            ),
            (
                "at most 200 words",
                vec![M::Count {
                    unit: Unit::Words,
                    min: 0,
                    max: Some(200),
                }],
            ),
            (
                "exactly 3 headings",
                vec![M::Count {
                    unit: Unit::Headings,
                    min: 3,
                    max: Some(3),
                }],
            ),
            (
                "5 bullet points",
                vec![M::Count {
                    unit: Unit::Items,
                    min: 5,
                    max: Some(5),
                }],
            ),
            (
                "a note saying \"no sources were found\"",
                vec![M::Contains("no sources were found".into())],
            ),
            (
                "each source has: title, url, date",
                vec![M::Each {
                    item: "source".into(),
                    fields: vec!["title".into(), "url".into(), "date".into()],
                }],
            ),
            (
                "at least 3 sources, each with a URL",
                vec![
                    M::Count {
                        unit: Unit::Sources,
                        min: 3,
                        max: None,
                    },
                    M::Each {
                        item: "sources".into(),
                        fields: vec!["URL".into()],
                    },
                ],
            ),
        ];
        for (text, want) in cases {
            let (got, residual, _) = kinds(text);
            assert_eq!(got, want, "{text}");
            assert!(residual.is_empty(), "{text}: {residual:?}");
        }
    }

    /// Comparison words and signs before a count read as what they say;
    /// a choice, a count per item and a reversed range are not read.
    #[test]
    fn comparisons_choices_and_per_item_counts() {
        for (text, min, max) in [
            ("more than 3 items", 4, None),
            ("> 3 items", 4, None),
            (">= 3 items", 3, None),
            ("≥ 3 items", 3, None),
            ("min 3 items", 3, None),
            ("fewer than 3 items", 0, Some(2)),
            ("< 3 items", 0, Some(2)),
            ("<= 3 items", 0, Some(3)),
            ("≤ 3 items", 0, Some(3)),
            ("max 3 items", 0, Some(3)),
            ("maximum: 3 items", 0, Some(3)),
            ("3 or fewer items", 0, Some(3)),
        ] {
            let (m, residual, _) = kinds(text);
            assert_eq!(
                m,
                vec![Measure::Count {
                    unit: Unit::Items,
                    min,
                    max
                }],
                "{text}"
            );
            assert!(residual.is_empty(), "{text}: {residual:?}");
        }
        for text in [
            "3 items or 2 paragraphs",
            "one or two paragraphs",
            "5-3 items",
            "between 5 and 3 items",
            "fewer than 0 items",
            "each source has at least 20 words",
            "3 paragraphs, each at least 10 words",
            "at least 10 words per paragraph",
            "at least 10 words each",
        ] {
            let r = read(text);
            assert!(!r.unread.is_empty(), "{text}: {r:?}");
            assert!(
                !r.measures.iter().any(|(_, m)| matches!(
                    m,
                    Measure::Count {
                        unit: Unit::Words,
                        ..
                    }
                )) && !text.contains(" or ")
                    || r.measures.is_empty(),
                "{text}: {r:?}"
            );
        }
    }

    #[test]
    fn judged_and_vague() {
        let (m, residual, vague) = kinds("3+ credible sources");
        assert_eq!(m.len(), 1);
        assert_eq!(residual, vec!["credible".to_string()]);
        assert!(!vague);
        let (m, _, vague) = kinds("a good report");
        assert!(m.is_empty());
        assert!(vague);
        let (_, residual, vague) = kinds("a summary preserving key claims");
        assert!(!vague);
        assert_eq!(residual, vec!["preserving", "key", "claims"]);
        // A bare number before a noun that names no unit is not a count.
        let (m, residual, _) = kinds("covers the 3 branches of government");
        assert!(m.is_empty(), "{m:?}");
        assert!(residual.contains(&"branches".to_string()));
        assert!(suggest_rewrite("a good report").contains("a report with"));
        // A count of a noun that is no unit, a range of years and a count
        // after "more than" are the judge's, never list items.
        for text in [
            "at least 4 competitors",
            "events from 2019 to 2024 as",
            "not at least 3 items",
            "over 3 items",
        ] {
            let (m, residual, _) = kinds(text);
            assert!(m.is_empty(), "{text}: {m:?}");
            assert!(!residual.is_empty(), "{text}");
        }
        // A quality word is no filler; "valid JSON" is the JSON measure.
        let (m, residual, _) = kinds("a valid report");
        assert!(m.is_empty());
        assert_eq!(residual, vec!["valid".to_string()]);
        let (m, residual, _) = kinds("valid JSON");
        assert_eq!(m, vec![Measure::Json(JsonShape::Any)]);
        assert!(residual.is_empty());
        // A table of contents is no table.
        let (m, residual, _) = kinds("a report with a table of contents");
        assert!(m.is_empty(), "{m:?}");
        assert_eq!(residual, vec!["contents".to_string()]);
    }

    #[test]
    fn negations_are_measured_as_negations() {
        use Measure as M;
        let not = |m: Measure| M::Not(Box::new(m));
        for (text, want) in [
            ("not JSON", not(M::Json(JsonShape::Any))),
            ("a non-JSON note", not(M::Json(JsonShape::Any))),
            ("a report without headings", not(M::Headings)),
            ("a report with no headings", not(M::Headings)),
            ("never a table", not(M::Table)),
            ("isn't a numbered list", not(M::NumberedList)),
            ("not mentioning \"x\"", not(M::Contains("x".into()))),
        ] {
            let (m, residual, _) = kinds(text);
            assert_eq!(m, vec![want], "{text}");
            assert!(residual.is_empty(), "{text}: {residual:?}");
        }
        assert_eq!(held(not(M::Headings), "# T\n"), Some(false));
        assert_eq!(held(not(M::Headings), "prose"), Some(true));
        assert_eq!(held(not(M::Json(JsonShape::Any)), "{}"), Some(false));
        assert_eq!(held(not(M::Contains("x".into())), "X marks"), Some(false));
    }

    #[test]
    fn an_echo_of_the_input_is_no_mention() {
        let m = Measure::Contains("solid-state batteries".into());
        let inputs = [Cow::Borrowed("Solid-state batteries")];
        let f = measure_against(&m, "Solid-state batteries\n", &inputs);
        assert_eq!(f.held, Some(false), "{f:?}");
        let long = [Cow::Borrowed(
            "Please write about solid-state batteries for electric cars",
        )];
        let f = measure_against(
            &m,
            "Please write about solid-state batteries for electric cars, he said.",
            &long,
        );
        assert_eq!(f.held, Some(false), "{f:?}");
        // Not an echo: found in a sentence of its own, it is the judge's
        // to say whether the sentence says it.
        let f = measure_against(
            &m,
            "Solid-state batteries use a solid electrolyte.",
            &inputs,
        );
        assert_eq!(f.held, None, "{f:?}");
        // A negated quote takes no discount: the echo still says it.
        let f = measure_against(&Measure::Not(Box::new(m)), "Solid-state batteries", &inputs);
        assert_eq!(f.held, Some(false));
    }

    #[test]
    fn sources_in_a_json_array_are_elements() {
        let m = Measure::Count {
            unit: Unit::Sources,
            min: 3,
            max: None,
        };
        let one = r#"[{"url": "https://a.net", "notes": "see https://b.net and https://c.net"}]"#;
        assert_eq!(held(m.clone(), one), Some(false));
        let dup =
            r#"[{"url": "https://a.net"}, {"url": "https://a.net"}, {"url": "https://b.net"}]"#;
        assert_eq!(held(m.clone(), dup), Some(false));
        let three =
            r#"[{"url": "https://a.net"}, {"url": "https://b.net"}, {"u": "https://c.net"}]"#;
        assert_eq!(held(m, three), Some(true));
    }

    fn held(m: Measure, content: &str) -> Option<bool> {
        measure(&m, content).held
    }

    #[test]
    fn measurements() {
        use Measure as M;
        assert_eq!(held(M::Json(JsonShape::Object), "{\"a\": 1}"), Some(true));
        assert_eq!(
            held(M::Json(JsonShape::Object), "```json\n{\"a\": 1}\n```"),
            Some(true)
        );
        assert_eq!(held(M::Json(JsonShape::Object), "[1]"), Some(false));
        assert_eq!(
            held(M::Json(JsonShape::Any), "{\"a\": 1, \"a\": 2}"),
            Some(false)
        );
        assert_eq!(held(M::Json(JsonShape::Any), "not json"), Some(false));
        assert_eq!(
            held(M::Table, "| a | b |\n|---|---|\n| 1 | 2 |"),
            Some(true)
        );
        assert_eq!(held(M::Table, "| a | b |\n|---|---|\n"), Some(false));
        assert_eq!(held(M::Table, "a | b"), Some(false));
        assert_eq!(held(M::NumberedList, "1. apple\n2) birch"), Some(true));
        assert_eq!(held(M::NumberedList, "- apple"), Some(false));
        assert_eq!(held(M::BulletList, "* apple"), Some(true));
        assert_eq!(held(M::Headings, "## Intro\ntext"), Some(true));
        assert_eq!(
            held(M::Headings, "```\n# not a heading\n```\n#nospace"),
            Some(false)
        );
        let items = |min, max| M::Count {
            unit: Unit::Items,
            min,
            max,
        };
        assert_eq!(
            held(items(3, None), "- apple\n- birch\n- cedar\n  - nested"),
            Some(true)
        );
        assert_eq!(
            held(items(4, None), "- apple\n- birch\n- cedar\n  - nested"),
            Some(false)
        );
        assert_eq!(held(items(2, Some(2)), "[\"oak\", \"pine\"]"), Some(true));
        assert_eq!(held(items(1, None), "{\"a\": 1}"), None);
        assert_eq!(held(items(1, None), "plain prose"), Some(false));
        let sources = M::Count {
            unit: Unit::Sources,
            min: 3,
            max: None,
        };
        assert_eq!(
            held(
                sources.clone(),
                "see https://a.org/x, https://a.org/x and https://b.org."
            ),
            Some(false)
        );
        assert_eq!(
            held(sources, "https://a.org https://b.org https://c.org"),
            Some(true)
        );
        let paras = M::Count {
            unit: Unit::Paragraphs,
            min: 2,
            max: Some(3),
        };
        assert_eq!(
            held(
                paras.clone(),
                "# T\n\nIntro\nstill intro.\n\nBody text follows.\n\n- list"
            ),
            Some(true)
        );
        assert_eq!(
            held(
                paras.clone(),
                "Oak trees.\n\nPine trees.\n\nElm trees.\n\nAsh trees."
            ),
            Some(false)
        );
        assert_eq!(held(paras, "{\"a\": 1}"), None);
        let words = M::Count {
            unit: Unit::Words,
            min: 0,
            max: Some(3),
        };
        assert_eq!(held(words, "one two three four"), Some(false));
        let rows = M::Count {
            unit: Unit::Rows,
            min: 2,
            max: None,
        };
        assert_eq!(held(rows, "| a |\n|---|\n| oak |\n| pine |"), Some(true));
        assert_eq!(
            held(
                M::Contains("No Sources were found".into()),
                "no sources were found."
            ),
            Some(true)
        );
        assert_eq!(
            held(M::Contains("No Sources".into()), "no sources were found"),
            None
        );
        assert_eq!(held(M::Contains("x".into()), "y"), Some(false));
    }

    #[test]
    fn no_part_of_a_clause_is_dropped() {
        // A field longer than three words is left to the judge.
        let (m, residual, _) =
            kinds("each source has: title, url, a one-line summary of its findings");
        assert!(residual.contains(&"findings".to_string()), "{residual:?}");
        assert!(
            m.contains(&Measure::Each {
                item: "source".into(),
                fields: vec!["title".into(), "url".into()],
            }),
            "{m:?}"
        );
        let (_, residual, _) =
            kinds("at least 3 sources, each with a URL and a one-line summary of its findings");
        assert!(residual.contains(&"findings".to_string()), "{residual:?}");
        // A count after the fields is read.
        let (m, residual, _) =
            kinds("each source has: title, url and year; there are at least 3 sources");
        assert!(
            m.contains(&Measure::Count {
                unit: Unit::Sources,
                min: 3,
                max: None,
            }),
            "{m:?}"
        );
        assert!(residual.is_empty(), "{residual:?}");
        // Every quoted string is checked.
        let (m, _, _) = kinds("a report containing \"batteries\" and \"Summary\"");
        assert!(m.contains(&Measure::Contains("batteries".into())), "{m:?}");
        assert!(m.contains(&Measure::Contains("Summary".into())), "{m:?}");
        let (m, _, _) = kinds("mentions \"alpha\", \"beta\"; says \"gamma\"");
        assert_eq!(m.len(), 3, "{m:?}");
        // A choice between quotes is the judge's; no quote is read alone.
        let (m, residual, _) = kinds("a note saying \"alpha\" or \"beta\"");
        assert!(m.is_empty(), "{m:?}");
        assert!(residual.contains(&"beta".to_string()), "{residual:?}");
        // A quoted string no verb introduces is left to the judge.
        let (_, residual, _) = kinds("a report titled \"Zebra\"");
        assert!(residual.contains(&"zebra".to_string()), "{residual:?}");
    }

    #[test]
    fn structure_cannot_be_faked() {
        use Measure as M;
        let items = |min, max| M::Count {
            unit: Unit::Items,
            min,
            max,
        };
        let rows = |min, max| M::Count {
            unit: Unit::Rows,
            min,
            max,
        };
        // Nothing inside a ``` or ~~~ fence counts, closed or not.
        for fence in ["```", "~~~", "````"] {
            let code = format!("{fence}\n- apple\n1. birch\n# h\n| a |\n|---|\n| 1 |\n{fence}\n");
            assert_eq!(held(items(1, None), &code), Some(false), "{code}");
            assert_eq!(held(M::BulletList, &code), Some(false), "{code}");
            assert_eq!(held(M::NumberedList, &code), Some(false), "{code}");
            assert_eq!(held(M::Headings, &code), Some(false), "{code}");
            assert_eq!(held(M::Table, &code), Some(false), "{code}");
            assert_eq!(held(rows(1, None), &code), Some(false), "{code}");
        }
        assert_eq!(held(items(1, None), "~~~\n- apple\n"), Some(false));
        // A ``` line does not close a ~~~ fence.
        assert_eq!(held(items(1, None), "~~~\n```\n- apple\n"), Some(false));
        // A tab-indented item is nested.
        assert_eq!(
            held(items(2, Some(2)), "- apple\n\t- nested\n- birch"),
            Some(true)
        );
        assert_eq!(held(items(1, Some(1)), "- apple\n \t- nested"), Some(true));
        // Empty items and thematic breaks are not items.
        let fake = "- \n-\n* * *\n- - -\n***\n_ _ _\n1. \n2.\n+ \u{200b}\n";
        assert_eq!(held(items(1, None), fake), Some(false));
        assert_eq!(held(M::BulletList, fake), Some(false));
        assert_eq!(held(M::NumberedList, fake), Some(false));
        // Empty rows and a lone `|` are not rows; a repeated delimiter
        // row renders as a row of dashes: no row a reader can use, but
        // shown, so an upper bound of one is not decided.
        let table = "| a | b |\n|---|---|\n| oak | pine |\n| | |\n|---|---|\n|\n| \u{200b} |\n";
        assert_eq!(held(rows(1, Some(1)), table), None);
        assert_eq!(held(rows(1, Some(2)), table), Some(true));
        assert_eq!(held(M::Table, "| a |\n|---|\n| |\n|\n"), Some(false));
    }

    #[test]
    fn each_field_needs_a_value_under_its_own_name() {
        let m = Measure::Each {
            item: "source".into(),
            fields: vec!["title".into(), "url".into(), "year".into()],
        };
        let blank = r#"[{"title": "A", "url": "https://a.org", "year": 2025}, {"title": " ", "url": [], "year": {}}]"#;
        let f = measure(&m, blank);
        assert_eq!(f.held, Some(false));
        // An element of blank values only has nothing to quote: its
        // number says which.
        assert!(f.detail.contains("source 2 lacks"), "{f:?}");
        let blank = r#"[{"title": "\u200b", "url": [""], "year": {"a": null}}]"#;
        assert_eq!(measure(&m, blank).held, Some(false));
        let labels = "- title:\n  url:\n  year:\n- subtitle: x, curl: y, leapyear: z\n- **title**:\n  url: , year: ";
        let f = measure(&m, labels);
        assert_eq!(f.held, Some(false), "{f:?}");
        let ok = "- Title: A, URL: https://a.org, year: 2025\n- **title**: B\n  **url:** https://b.org\n  year: 1999";
        assert_eq!(measure(&m, ok).held, Some(true), "{:?}", measure(&m, ok));
        let table = "| title | url | year |\n|---|---|---|\n| \u{200b} | https://a.org | 2025 |";
        let f = measure(&m, table);
        assert_eq!(f.held, Some(false));
        assert_eq!(
            f.quote.as_deref(),
            Some("| \u{200b} | https://a.org | 2025 |")
        );
        // A list inside a fence is not a list of sources.
        assert_eq!(
            measure(&m, "```\n- title: A\n  url: https://a.org\n  year: 1\n```").held,
            None
        );
    }

    #[test]
    fn each_item_has_every_field() {
        let m = Measure::Each {
            item: "source".into(),
            fields: vec!["title".into(), "url".into()],
        };
        let json_ok =
            r#"[{"title": "A", "url": "https://a.org"}, {"Title": "B", "URL": "https://b.org"}]"#;
        assert_eq!(measure(&m, json_ok).held, Some(true));
        let json_part = r#"[{"title": "A", "url": "https://a.org"}, {"title": "B"}]"#;
        let f = measure(&m, json_part);
        assert_eq!(f.held, Some(false));
        assert_eq!(f.quote.as_deref(), Some(json_part), "{f:?}");
        let json_none = r#"[{"x": 1}]"#;
        assert_eq!(measure(&m, json_none).held, Some(false));
        let wrapped = r#"{"sources": [{"title": "A", "url": "https://u.net"}]}"#;
        assert_eq!(measure(&m, wrapped).held, Some(true));
        // A `url` field holding no URL is no URL.
        let no_url = r#"{"sources": [{"title": "A", "url": "u"}]}"#;
        assert_eq!(measure(&m, no_url).held, Some(false));
        assert_eq!(measure(&m, "[]").held, Some(false));
        let table = "| title | url |\n|---|---|\n| A | https://a.org |\n| B | |";
        let f = measure(&m, table);
        assert_eq!(f.held, Some(false));
        assert_eq!(f.quote.as_deref(), Some("| B | |"), "{f:?}");
        let list = "- title: A\n  url: https://a.org\n- **title**: B https://b.org";
        assert_eq!(measure(&m, list).held, Some(true));
        // A list of lists of plain values is an item's field; a list
        // of records may hold items.
        let nested = r#"[{"title": "A", "url": "https://a.org", "at": [[1, 2]]}]"#;
        assert_eq!(measure(&m, nested).held, Some(true));
        let nested = r#"[{"title": "A", "url": "https://a.org", "at": [[{"title": "B"}]]}]"#;
        assert_eq!(measure(&m, nested).held, None);
        assert_eq!(measure(&m, "just prose").held, None);
    }
}
