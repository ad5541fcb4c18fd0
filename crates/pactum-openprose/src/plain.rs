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
//!
//! [`held_unread`] then says which measures that held are no evidence
//! over any output: a bound that says "no more than" on items, sources,
//! rows or headings (never met by a count), and words that barely
//! differ. A quote is said only by an output that is the quote alone
//! ([`crate::check::measure_against`]).

use pulldown_cmark::{Event, Options, Parser, Tag};

use crate::check::{Measure, Unit};

/// Characters that open a line as a list item to a reader although
/// Markdown makes no list of them.
pub(crate) const TYPED_BULLETS: &[char] = &[
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
    // A list or quote marker, code-span backticks or a `<pre>`/`<code>`
    // tag around the value change nothing a program parses.
    static WRAPPING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?i)^(?:(?:[-*+>]|\d{1,9}[.)])\s+)*|</?(?:pre|code|tt|samp|kbd|p|div|span)(?:\s[^>]*)?>|`+").unwrap()
    });
    let unwrapped = WRAPPING.replace_all(t.trim(), "");
    let t = unwrapped.trim();
    crate::json_view::near_json(t)
        || crate::json_view::sequence(t)
        || (t.starts_with(['{', '[', '"']) && pactum_core::json::parse_strict(t).is_ok())
}

/// Why a measure `m` that held over the output `content` is no evidence
/// on its own:
///
/// - a bound that says "no more than" on items, sources, rows or
///   headings (an upper or exact bound, or `no table`, `no list`,
///   `without headings`) is never met by a count: items, sources, rows
///   and headings can be written in more forms than any count reads (a
///   series in a sentence, a reference without a link, a CSV line, a
///   heading of another markup), so "there are no more" is the judge's.
///   Over the count it still fails;
/// - paragraphs (an upper bound): a line break after a sentence inside
///   one, where a reader may see two;
/// - words (a lower bound): words that barely differ (a number glued to
///   a word makes no new one: `word1`, `word2`).
///
/// A JSON output is read by its string values, each after the key that
/// frames it (`excluded: Daikin`). `None` when what held is evidence.
pub(crate) fn held_unread(m: &Measure, content: &str) -> Option<String> {
    let universal = match m {
        Measure::Count {
            unit: unit @ (Unit::Items | Unit::Sources | Unit::Rows | Unit::Headings),
            max: Some(_),
            ..
        } => Some(unit_name(unit)),
        Measure::Not(inner) => match inner.as_ref() {
            Measure::Table => Some("tables"),
            Measure::Headings => Some("headings"),
            Measure::List | Measure::NumberedList | Measure::BulletList => Some("lists"),
            _ => None,
        },
        _ => None,
    };
    if let Some(what) = universal {
        return Some(format!("a bound that says no more {what} than counted is never met by a count, since {what} can be written in forms no count reads: whether the output keeps it is for the judge"));
    }
    match crate::check::as_json(content) {
        Some(v) => held_unread_text(m, &crate::json_view::keyed(&v)),
        None => held_unread_text(m, content),
    }
}

/// The plural name of `unit`, for a note.
fn unit_name(unit: &Unit) -> &'static str {
    match unit {
        Unit::Items => "items",
        Unit::Sources => "sources",
        Unit::Rows => "rows",
        Unit::Headings => "headings",
        Unit::Paragraphs => "paragraphs",
        Unit::Words => "words",
    }
}

/// [`held_unread`] over Markdown text.
fn held_unread_text(m: &Measure, content: &str) -> Option<String> {
    match m {
        Measure::Count {
            unit: Unit::Paragraphs,
            max: Some(_),
            ..
        } => paragraphs_unread(content),
        Measure::Count {
            unit: Unit::Words,
            min,
            ..
        } if *min > 1 => degenerate_words(content)
            .or_else(|| repeated_sentences(content, *min))
            .or_else(|| not_prose(content)),
        Measure::Count {
            unit: Unit::Words,
            max: Some(_),
            ..
        } => images_or_titles(content),
        Measure::Count {
            unit: Unit::Sources,
            min,
            ..
        } if *min > 0 => dead_links(content),
        _ => None,
    }
}

/// Why a lower bound on sources that held is no evidence: a line linking
/// a page says the link is dead or doubts it (`(404)`, `dead link`,
/// `offline`, `unverified`): a page no reader can open is no source,
/// and which pages are meant is for the judge.
///
/// A line that speaks of the links around it does too: a heading, a line
/// introducing a list (ending in `:`), an HTML comment, a line naming
/// links, sources or pages (`## Sources not used`, `All links above
/// returned errors.`, `<!-- the sources are made up -->`), or a short
/// line pointing at them (`None were used.`, `I have not read these.`).
fn dead_links(content: &str) -> Option<String> {
    static OF_LINKS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?i)^\s*#|:\s*$|<!--|\b(?:links?|urls?|sources?|pages?|sites?|websites?|references?|citations?|quellen?|seiten?|liens?|fuentes?|enlaces?|páginas?|fonti|collegamenti|pagine|fontes?|bronn?en|pagina's)\b|^\W*(?:\w+\W+){0,6}?(?:these|those|them|they|none|the above|diese|ces|estos|estas|questi|queste|deze|estes)\b\W*(?:\w+\W*){0,6}$").unwrap()
    });
    static DISOWNED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?i)\b(?:errors?|excluded|made[ -]up|made (?:\w+ ){1,3}up|todo|replace|none (?:were|was|is|are|of them (?:were|was)) (?:used|opened|read|checked|visited|consulted|accessed)|fabricated|invented|fictional|fictitious|fake|hallucinated|placeholders?|(?:nicht |un)erreichbar\w*|ungeprüft\w*|introuvables?|inaccessibles?|inaccesibles?|irraggiungibil[ei]|onbereikbaar|check later|to check|not (?:yet )?(?:read|opened|visited|working|available|accessed)|(?:were|was|are|is|been) (?:not|never) (?:opened|read|checked|visited|used|accessed|verified)|none of (?:these|the|them)|hypothetical|from memory|guessed|no internet|verify|ai-generated|would consult|suggestions?|examples?|nicht (?:geprüft|überprüft|gelesen|besucht|verwendet|genutzt|aufgerufen)|erfunden\w*|non (?:vérifié|consulté|lu|utilisé)\w*|inventé\w*|no (?:consultad|verificad|usad|leíd)\w*|inventad\w*|non (?:verificat|consultat|usat|lett)\w*|inventat\w*|niet (?:gecontroleerd|gelezen|gebruikt|geverifieerd|bezocht)|verzonnen|não (?:consultad|verificad|usad|lid)\w*|(?:did|do|does|have|has)(?: not|n[’']t) (?:use|open|read|check|visit|verify)|never (?:used|opened|read|checked|visited|verified))\b").unwrap()
    });
    content
        .lines()
        .find(|l| {
            let said = crate::check::marks_dead(l) || crate::check::doubtful_note(l);
            ((l.contains("://") || l.contains("www.")) && said)
                || (OF_LINKS.is_match(l) && (said || DISOWNED.is_match(l)))
        })
        .map(|l| format!("`{}` says links are dead, doubts them or disowns them: which pages are sources is for the judge", excerpt(l.trim())))
}

/// Why an upper bound on words that held is no evidence: the output
/// holds an image (its alt text is shown when it does not load and read
/// aloud, and the picture may hold words) or a link title, whose words
/// the count does not read.
fn images_or_titles(content: &str) -> Option<String> {
    static SHOWN_ELSEWHERE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r#"(?i)!\[|<img\b|\]\([^)\s]*\s+["'(]|\btitle\s*="#).unwrap()
    });
    SHOWN_ELSEWHERE.is_match(content).then(|| "the output holds an image or a link title, whose words (alt text, a title, text in the picture) the count does not read: whether it keeps the bound is for the judge".to_string())
}

/// Why an upper bound on paragraphs that held over Markdown `content` is
/// no evidence: a paragraph holding a line break after a sentence (soft
/// or hard), whose lines a reader may see as paragraphs.
fn paragraphs_unread(content: &str) -> Option<String> {
    use pulldown_cmark::TagEnd;
    let mut text: Option<String> = None;
    let parser = Parser::new_ext(
        content,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS,
    );
    for ev in parser {
        match ev {
            Event::Start(Tag::Paragraph) => text = Some(String::new()),
            Event::End(TagEnd::Paragraph) => text = None,
            Event::Text(t) | Event::Code(t) => {
                if let Some(p) = text.as_mut() {
                    p.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(p) = text.as_mut() {
                    if p.trim_end().ends_with(['.', '!', '?', ':', ';']) {
                        return Some(format!("`{}` breaks a line after a sentence, and a reader may see its lines as paragraphs: how many paragraphs the output has is for the judge", excerpt(p.trim())));
                    }
                    p.push(' ');
                }
            }
            _ => {}
        }
    }
    None
}

/// At most 40 characters of `t`, for a note.
fn excerpt(t: &str) -> String {
    pactum_core::text::truncate_chars(t, 40)
}

/// Why the words of `content` are no evidence for a lower bound of `min`
/// words: its distinct sentences hold fewer (a sentence repeated to
/// reach the bound).
fn repeated_sentences(content: &str, min: u64) -> Option<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut words = 0u64;
    for s in content.split(['.', '!', '?', '\n']) {
        let key: Vec<String> = s
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if !key.is_empty() && seen.insert(key.join(" ")) {
            words += key.len() as u64;
        }
    }
    (words < min).then(|| format!("its distinct sentences hold {words} words, the rest repeats them: whether that is text of that length is for the judge"))
}

/// Function words of the languages whose prose pactum recognises
/// (English, German, French, Spanish, Italian, Portuguese, Dutch): prose
/// in any of them is glued by these, a list of names, call signs, codes
/// or pseudo-Latin is not.
const FUNCTION_WORDS: &[&str] = &[
    // English
    "the", "of", "and", "to", "in", "is", "are", "was", "were", "that", "it", "for", "on", "with",
    "as", "by", "at", "from", "this", "be", "has", "have", "had", "not", "or", "but", "which",
    "their", "its", "an", "they", "we", "you", "he", "she", "will", "can", "than", "more", "into",
    // German
    "der", "die", "das", "und", "ist", "sind", "von", "zu", "den", "dem", "des", "mit", "sich",
    "nicht", "ein", "eine", "auf", "für", "im", "auch", "dass", "wird", "werden", "als", "bei",
    // French
    "le", "la", "les", "et", "est", "sont", "du", "un", "une", "que", "qui", "dans", "pour", "pas",
    "sur", "au", "aux", "avec", "ce", "il", "elle", "ont",
    // Spanish, Italian, Portuguese
    "el", "los", "las", "y", "es", "son", "del", "al", "con", "por", "para", "una", "lo", "se",
    "di", "che", "è", "per", "gli", "della", "e", "o", "os", "da", "do", "em", "não", "uma",
    // Dutch
    "de", "het", "een", "en", "van", "zijn", "op", "te", "niet", "met", "voor", "dat",
    // Pronouns and contracted articles.
    "zum", "zur", "vom", "beim", "wir", "ihr", "sie", "er", "nous", "vous", "ils", "elles", "je",
    "nosotros", "ellos", "ellas", "noi", "voi", "loro", "wij", "jullie", "zij", "ik", "nós",
    "eles", "elas",
];

/// Whether `w` (lower case) is one of the [`FUNCTION_WORDS`].
pub(crate) fn is_function_word(w: &str) -> bool {
    FUNCTION_WORDS.contains(&w)
}

/// Why the words of `content` are no evidence for a lower bound on
/// words: they do not read as prose in a language pactum recognises
/// (fewer than one word in ten is a function word, [`FUNCTION_WORDS`],
/// or, from 20 words on, fewer than two or three distinct ones):
/// a list of names, the spelling alphabet, hex codes or pseudo-Latin
/// reach a count of words without being text of that length. Prose in
/// another language is left to the judge too.
fn not_prose(content: &str) -> Option<String> {
    let words: Vec<String> = content
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let glue: Vec<&String> = words
        .iter()
        .filter(|w| FUNCTION_WORDS.contains(&w.as_str()))
        .collect();
    // Names joined by one word (`Daikin and Vaillant and Bosch…`) are a
    // list: prose glues with several.
    let kinds = glue.iter().collect::<std::collections::BTreeSet<_>>().len();
    let glue = glue.len();
    (words.len() >= 2 && (glue * 10 < words.len() || kinds < 3.min(words.len() / 10).max(1))).then(|| format!("of its {} words, {glue} glue a sentence (`the`, `of`, `and`…, in the languages pactum recognises): a list of names or codes is no text of that length, and prose in another language is read by the judge", words.len()))
}

/// Why the words of `content` are no evidence for a lower bound on
/// words: too few of them differ (`word word word…`: fewer distinct
/// words than a quarter of them, or than three), or most are single
/// characters (`a b c d…`). Prose repeats words, never that much.
fn degenerate_words(content: &str) -> Option<String> {
    // A number or a letter glued to a word makes no new word (`word1`,
    // `word2`; `worda`, `wordb`).
    let words: Vec<String> = content
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let letters: String = w.chars().filter(|c| !c.is_ascii_digit()).collect();
            if letters.is_empty() { w } else { &letters }.to_lowercase()
        })
        .collect();
    let stems = words
        .iter()
        .filter(|w| w.chars().count() >= 4)
        .map(|w| w.chars().take(w.chars().count() - 1).collect::<String>())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let long = words.iter().filter(|w| w.chars().count() >= 4).count();
    if long >= 8 && stems * 4 < long {
        return Some(format!("{} words, most of them one stem with a letter added (`worda`, `wordb`): whether that is text a reader can use is for the judge", words.len()));
    }
    if words.is_empty() {
        return None;
    }
    let distinct = words
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let single = words.iter().filter(|w| w.chars().count() == 1).count();
    // Filler: number words, `blah`, `etc`, `and so on` (scaffolding words).
    let filler = words
        .iter()
        .filter(|w| {
            crate::rendered::scaffold_text(w) || crate::rendered::unit_words(w).0.is_empty()
        })
        .count();
    (distinct * 4 < words.len()
        || distinct < 3.min(words.len())
        || single * 2 > words.len()
        || filler * 2 > words.len())
        .then(|| format!("{} words, {distinct} of them different and {single} single characters: whether that is text a reader can use is for the judge", words.len()))
}
