//! The contract sections of an OpenProse file (`*.prose.md`): YAML
//! frontmatter (`name`, `kind`), then Markdown headings. The sections that
//! declare what a contract commits to are `Ensures`, `Returns` and
//! `Maintains` (its deeper headings are facets); `Errors` names the
//! declared errors. `Requires`, `Parameters`, `Invariants`, `Strategies`,
//! `Execution` and every other section hold no clause: a bullet there,
//! `- if …` included, is not a clause.
//!
//! A clause is a bullet (`-`, `*`, `+`, `1.`, `1)`) of a commitment
//! section, however indented (after prose or right under the heading an
//! indented bullet is still one). Its wrapped lines (indented, or an
//! unindented line right after it) are joined to it; its sub-bullets
//! (indented further) are kept as sub-requirements, and a sub-bullet
//! `- if …: …` is a conditional clause on the same output. Prose after a
//! blank line and fenced code blocks are not clauses. A note after a
//! section's name (`Ensures (outputs)`) is allowed; a heading that starts
//! like one but is none pactum knows (`Ensures and more`) is refused, and
//! `## Contract` wraps the file's own sections (never an inline service).
//! No bullet of a commitment section is ever dropped.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::ImportError;
use crate::rendered;

/// Which commitment section a clause was declared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// `Ensures` (services and systems).
    Ensures,
    /// `Returns` (functions).
    Returns,
    /// `Maintains` (responsibilities).
    Maintains,
}

/// One declared clause of a contract, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredClause {
    /// 1-based line of its bullet in the file.
    pub line: usize,
    /// The section it was declared in.
    pub section: Section,
    /// The `Maintains` facet (the heading it sits under), if any.
    pub facet: Option<String>,
    /// The output it names (`` `name`: … `` or `name: …`), if any.
    pub output: Option<String>,
    /// The clause text after the output name (the whole text when none),
    /// wrapped lines joined with one space.
    pub description: String,
    /// The bullet's whole text, wrapped lines joined, as a reader sees it.
    pub text: String,
    /// Sub-bullets (sub-requirements), in order, each joined to one line.
    pub sub: Vec<String>,
    /// For a conditional clause (`- if {condition}: {then}`): the condition.
    pub condition: Option<String>,
    /// Whether its output name opens a sentence (not a bullet) and no
    /// bullet names it (`Format: in French.`): it may be a label, not an
    /// output.
    pub label: bool,
}

/// A declared error (`Errors` section: `- name: description`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredError {
    /// The error's name.
    pub name: String,
    /// What it means, possibly empty.
    pub description: String,
}

/// The key an error name is matched by, between a contract's `Errors`
/// and what a run recorded (`__error.md`, a `✗` log line): terminal
/// escapes and control characters removed, one trailing parenthetical
/// dropped (`search-failed (timeout)`), lower case, and every run of
/// spaces, `-` and `_` one `-`. `Search-Failed`, `search_failed` and
/// `search-failed (timeout)` are all `search-failed`.
pub fn error_key(name: &str) -> String {
    let clean = pactum_core::text::strip_terminal_escapes(name);
    let mut t = clean.trim();
    if t.ends_with(')') {
        if let Some(open) = t.rfind('(').filter(|i| *i > 0) {
            t = t[..open].trim_end();
        }
    }
    t.to_lowercase()
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// One contract: the top level of a file, or one inline service
/// (`## name` section holding its own commitment sections).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedContract {
    /// The contract name: the frontmatter `name` (top level) or the
    /// section heading (inline service).
    pub name: String,
    /// Clauses in declaration order, conditional ones included.
    pub clauses: Vec<DeclaredClause>,
    /// Declared errors.
    pub errors: Vec<DeclaredError>,
    /// Whether it has any commitment section at all (an empty one counts).
    pub has_commitments: bool,
    /// 1-based line of an inline service's heading; 0 for a file's top
    /// level.
    pub line: usize,
    /// Sentences of a commitment section read as notes, not clauses:
    /// each states no commitment, names no output of the contract and
    /// points elsewhere ("See the README for details.").
    pub notes: Vec<DeclaredClause>,
}

/// A parsed `*.prose.md` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedFile {
    /// Frontmatter `name`.
    pub name: String,
    /// Frontmatter `kind` (`service`, `system`, `function`, …).
    pub kind: String,
    /// The top-level contract (outside any inline service section).
    pub main: ParsedContract,
    /// Inline services (`## name` sections with their own commitments).
    pub inline: Vec<ParsedContract>,
    /// The bullets, table rows and labels outside every section of
    /// clauses, and outside the sections of inputs and wiring
    /// (`Requires`, `Parameters`, `Services`, …), that may name an output.
    /// One naming an output of the run (another node's, or a binding it
    /// holds) is a commitment no clause grades, and the run reader
    /// refuses it.
    pub outside: Vec<Outside>,
}

/// A line outside every section of clauses that commits on an output if
/// it names one ([`Outside::names`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outside {
    /// 1-based line.
    pub line: usize,
    naming: Naming,
    /// Inside a clause's item, as a sub-item or a paragraph of its own
    /// (`` - `report`: … `` / `  - summary: at least 90 words`): a
    /// label naming an output the file's clauses declare is graded as a
    /// clause on it; one naming another output of the run is refused.
    pub inside: bool,
    /// In a section of inputs or wiring: it commits only on the
    /// contract's own outputs (a node may require another's).
    own: bool,
}

/// How a line outside the sections of clauses may name an output.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Naming {
    /// The text it opens with, as rendered ([`opens_with_name`]).
    Opening(String),
    /// The text of a step (`Execution`, `Strategies`, `Invariants`),
    /// which may open with a verb spelled as an output (`grade each
    /// clause`): it names an output it opens with only as a label
    /// (`grade: …`, `grade — …`, `grade → …`, alone).
    Label(String),
    /// A name in code or emphasis anywhere in it.
    Marked(String),
    /// The text of a line that states a measure (a count, a format, a
    /// quote: what [`crate::check::read`] measures in a clause): it names
    /// an output written anywhere in it as words ([`mentions_name`]).
    Stated(String),
    /// Names in code or emphasis in a line that states a measure.
    MarkedStated(Vec<String>),
    /// A heading over a line that states a measure: it names an output
    /// written anywhere in it as words.
    Heading(String),
}

impl Outside {
    /// Whether this line names the output `name`, in any spelling a
    /// reader takes for it: another case, a look-alike letter, an
    /// extension, `_`, `-` or a space between its words, a path to it.
    pub fn names(&self, name: &str) -> bool {
        match &self.naming {
            Naming::Opening(text) => opens_with_name(text, name),
            Naming::Label(text) => labels_name(text, name),
            Naming::Marked(n) => binding_key(n) == binding_key(name),
            Naming::Stated(text) => mentions_name(text, name),
            Naming::MarkedStated(names) => {
                names.iter().any(|n| binding_key(n) == binding_key(name))
            }
            Naming::Heading(text) => mentions_name(text, name),
        }
    }
}

impl ParsedFile {
    /// The contract of inline service `section` (matched by its heading,
    /// case-insensitively), if the file declares it.
    pub fn inline_service(&self, section: &str) -> Option<&ParsedContract> {
        self.inline
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(section))
    }
}

/// What a heading opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Commit(Section),
    Errors,
    /// A known section that holds no clause.
    Other,
}

/// Known section names; any other heading opens no section (it is a
/// title, a facet under `Maintains`, or an inline service at level 2).
fn section_kind(title: &str) -> Option<Kind> {
    let t = bare_title(title);
    let t = t.as_str();
    const NAMES: &[(&str, Kind)] = &[
        ("ensures", Kind::Commit(Section::Ensures)),
        ("ensure", Kind::Commit(Section::Ensures)),
        ("returns", Kind::Commit(Section::Returns)),
        ("return", Kind::Commit(Section::Returns)),
        ("maintains", Kind::Commit(Section::Maintains)),
        ("maintain", Kind::Commit(Section::Maintains)),
        ("errors", Kind::Errors),
        ("error", Kind::Errors),
        ("requires", Kind::Other),
        ("parameters", Kind::Other),
        ("invariants", Kind::Other),
        ("strategies", Kind::Other),
        ("execution", Kind::Other),
        ("goal", Kind::Other),
        ("services", Kind::Other),
        ("environment", Kind::Other),
        ("tools", Kind::Other),
        ("shape", Kind::Other),
        ("delegates", Kind::Other),
        ("notes", Kind::Other),
        ("examples", Kind::Other),
        ("description", Kind::Other),
    ];
    NAMES.iter().find(|(n, _)| same_name(t, n)).map(|(_, k)| *k)
}

/// A heading's name without its decoration: a note in parentheses
/// (`Ensures (outputs)`) or after a spaced dash (`Ensures — outputs`),
/// and trailing `:`, `.` or `!` (`Ensures.`), do not change it.
fn bare_title(title: &str) -> String {
    let plain = plain_title(title);
    let t = plain.split('(').next().unwrap_or_default();
    let t = [" — ", " – ", " - "]
        .iter()
        .fold(t, |t, dash| t.split(dash).next().unwrap_or_default());
    t.trim()
        .trim_end_matches([':', '.', '!'])
        .trim()
        .to_string()
}

/// Sections whose bullets are never clauses, wherever they are: inputs
/// (`Requires`, `Parameters`) and how the work is done (`Invariants`,
/// `Strategies`, `Execution`). Any other known name nested under a
/// section of clauses (`### Examples` under `## Ensures`, `### Tools`
/// under `## Maintains`) is a sub-heading or facet of it.
fn never_clauses(title: &str) -> bool {
    titled(
        title,
        &[
            "requires",
            "parameters",
            "invariants",
            "strategies",
            "execution",
        ],
    )
}

/// Whether a heading, its decoration aside ([`bare_title`]), reads as one
/// of `names` ([`same_name`]).
fn titled(title: &str, names: &[&str]) -> bool {
    let t = bare_title(title);
    names.iter().any(|n| same_name(&t, n))
}

/// A title as a reader takes it: invisible characters (those pactum shows
/// as `U+XXXX`) dropped, NFKC and case folded, and lookalike letters
/// mapped to their UTS #39 skeleton, so `Еnsures` with a Cyrillic `Е`,
/// a fullwidth `Ｅnsures` and `\u{200b}Ensures` all read `ensures`.
fn folded(t: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let visible: String = t
        .chars()
        .filter(|c| !pactum_core::text::shown_as_code_point(*c))
        .nfkc()
        .collect::<String>()
        .to_lowercase();
    unicode_security::confusable_detection::skeleton(&visible).collect()
}

/// The same title folded from upper case: NFKC, upper case, UTS #39
/// skeleton. Lookalikes whose lower case has no skeleton of its own
/// (Cherokee `Ꭼ` lowers to `ꭼ`) are caught here.
fn folded_upper(t: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let visible: String = t
        .chars()
        .filter(|c| !pactum_core::text::shown_as_code_point(*c))
        .nfkc()
        .collect::<String>()
        .to_uppercase();
    unicode_security::confusable_detection::skeleton(&visible).collect()
}

/// Whether `title` reads as the section name `name`, by either fold.
fn same_name(title: &str, name: &str) -> bool {
    folded(title) == folded(name) || folded_upper(title) == folded_upper(name)
}

/// Whether an unknown heading reads as naming a section that holds
/// clauses: it starts with one's name (`Ensures and guarantees`, `Errors
/// raised`), or, spaces, symbols and every other word aside, holds
/// `ensure`, `return` or `maintain` (`Part 2: Ensures`, `More ensures`,
/// `E n s u r e s`). Reading it as a title would drop its bullets, so it
/// is refused.
fn reads_like_a_commitment(title: &str) -> bool {
    let plain = plain_title(title);
    let plain = plain.trim();
    let first: String = folded(plain)
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect();
    let compact = |f: String| {
        f.chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
    };
    let (lower, upper) = (compact(folded(plain)), compact(folded_upper(plain)));
    ["ensure", "return", "maintain"].iter().any(|w| {
        first.starts_with(&folded(w))
            || lower.contains(&compact(folded(w)))
            || upper.contains(&compact(folded_upper(w)))
    }) || first == folded("error")
        || first == folded("errors")
}

/// A heading's title as it reads when rendered: emphasis and code marks
/// (`**Ensures**`, `` `Ensures` ``, `_Ensures_`) and a leading section
/// number (`2. Ensures`, `2) Ensures`) and symbols before the name
/// (`✅ Ensures`) removed, so every spelling of a
/// section name is that section.
/// Whether a heading's title shows a letter or digit once rendered:
/// comments and tags dropped, character references decoded, invisible
/// and filler characters (U+3164, U+115F…) set aside.
fn shows_a_name(title: &str) -> bool {
    use std::sync::LazyLock;
    static MARKUP: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"<!--.*?-->|<[^<>]*>").unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let bare = MARKUP.replace_all(title, "");
    crate::check::decode_entities(&bare).chars().any(|c| {
        c.is_alphanumeric()
            && !pactum_core::text::shown_as_code_point(c)
            && !matches!(c, '\u{3164}' | '\u{115F}' | '\u{1160}' | '\u{FFA0}')
    })
}

fn plain_title(title: &str) -> String {
    // A symbol or emoji before the name (`✅ Ensures`) is a decoration.
    let mut t = title
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '*' | '_' | '`'))
        .trim();
    if t.starts_with(|c: char| c.is_ascii_digit()) {
        let n = t
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .count();
        let (number, rest) = t.split_at(n);
        if let Some(r) = rest.strip_prefix(')') {
            t = r.trim_start();
        } else if number.ends_with('.') || rest.starts_with(' ') {
            t = rest.trim_start();
        }
    }
    t.chars()
        .filter(|c| !matches!(c, '*' | '_' | '`'))
        .collect::<String>()
        .trim()
        .to_string()
}

/// The setext headings of `lines` that name a section (a text line
/// underlined by `===`, level 1, or `---`, level 2), by the index of their
/// text line, from line `from` on: a paragraph line, not a bullet, outside
/// code fences, right after a blank line or a heading (a line continuing
/// a bullet is never one).
fn setext_headings(lines: &[&str], from: usize) -> BTreeSet<(usize, usize)> {
    let mut out = BTreeSet::new();
    let mut fence: Option<String> = None;
    for i in from..lines.len() {
        let t = lines[i].trim();
        if let Some(m) = &fence {
            if t.starts_with(m.as_str()) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(t.chars().take_while(|c| *c == '`' || *c == '~').collect());
            continue;
        }
        let Some(next) = lines.get(i + 1) else { break };
        let u = next.trim();
        let level = if !u.is_empty() && u.chars().all(|c| c == '=') {
            1
        } else if !u.is_empty() && u.chars().all(|c| c == '-') {
            2
        } else {
            continue;
        };
        let indent = lines[i].len() - lines[i].trim_start().len();
        let prev_free = i == from
            || i == 0
            || lines[i - 1].trim().is_empty()
            || heading(lines[i - 1]).is_some();
        if !t.is_empty()
            && indent < 4
            && bullet_text(t).is_none()
            && heading(lines[i]).is_none()
            && prev_free
            // Only a section's name: another underlined line (a note
            // before a thematic break) never closes the section it is in.
            && (section_kind(t).is_some() || reads_like_a_commitment(t))
        {
            out.insert((i, level));
        }
    }
    out
}

/// The lines of a file after its frontmatter (`end`, the line closing
/// it) as a CommonMark renderer (`pulldown-cmark`) shows them, one line
/// per line: the frontmatter is blank, and so are HTML comments
/// (inline, and HTML blocks as CommonMark ends them — an empty `<!-->`
/// at once, one inside a list item with the item, one never closed at
/// the end of the file) and HTML blocks holding only tags and comments
/// (`<details>`, `<summary>…</summary>`). An HTML block showing any
/// text is kept as written.
fn shown_lines(lines: &[&str], end: usize) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let mut body = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > end {
            body.push_str(l);
        }
        body.push('\n');
    }
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    let mut hidden: Vec<std::ops::Range<usize>> = Vec::new();
    for (ev, range) in Parser::new_ext(&body, opts).into_offset_iter() {
        match ev {
            Event::Start(Tag::HtmlBlock) if body.get(range.clone()).is_some_and(only_markup) => {
                hidden.push(range);
            }
            Event::InlineHtml(h) if h.starts_with("<!--") => hidden.push(range),
            _ => {}
        }
    }
    if hidden.is_empty() {
        return body;
    }
    let mut out = String::with_capacity(body.len());
    let mut next = hidden.iter().peekable();
    for (at, c) in body.char_indices() {
        while next.peek().is_some_and(|r| r.end <= at) {
            next.next();
        }
        let inside = next.peek().is_some_and(|r| r.start <= at);
        out.push(if inside && c != '\n' { ' ' } else { c });
    }
    out
}

/// Whether HTML shows no text but a disclosure label: once its comments
/// (`<!-- … -->`, one left open running to the end), `<summary>…
/// </summary>` labels and tags (`<…>`) are removed, only white space is
/// left.
fn only_markup(html: &str) -> bool {
    // ASCII lower case keeps every byte offset.
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    loop {
        let Some(open) = lower[at..].find('<').map(|o| at + o) else {
            return lower[at..].trim().is_empty();
        };
        if !lower[at..open].trim().is_empty() {
            return false;
        }
        // An empty comment (`<!-->`, `<!--->`) closes at once, as HTML
        // and CommonMark end it.
        let close = if lower[open..].starts_with("<!-->") {
            Some(open + 5)
        } else if lower[open..].starts_with("<!--->") {
            Some(open + 6)
        } else if lower[open..].starts_with("<!--") {
            lower[open + 4..].find("-->").map(|e| open + 4 + e + 3)
        } else if lower[open..].starts_with("<summary") {
            let end = lower[open..].find("</summary>").map(|e| open + e);
            // A label other than a generic disclosure word may state a
            // commitment: kept, to be read.
            let label = html
                .get(open..end.unwrap_or(html.len()))
                .unwrap_or_default();
            let label = label.split_once('>').map_or("", |(_, l)| l);
            if !generic_label(label) {
                return false;
            }
            end.map(|e| e + "</summary>".len())
        } else {
            match lower[open..].find('>') {
                Some(e) => Some(open + e + 1),
                None => return false,
            }
        };
        match close {
            Some(c) => at = c,
            // A comment or label left open runs to the end.
            None => return true,
        }
    }
}

/// Whether a `<summary>` label is only a disclosure word (`more`,
/// `Details`, `Click to expand`, `Examples`), nothing a commitment could
/// be read from.
fn generic_label(label: &str) -> bool {
    const WORDS: &[&str] = &[
        "more", "details", "detail", "show", "hide", "click", "to", "expand", "examples",
        "example", "notes", "note", "read", "the", "full", "output", "outputs", "format",
    ];
    label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| WORDS.contains(&w.to_lowercase().as_str()))
}

/// `Contract`: a heading that wraps the file's own sections (`## Contract`
/// then `### Ensures`), never an inline service.
fn is_wrapper(title: &str) -> bool {
    title
        .trim()
        .trim_end_matches(':')
        .eq_ignore_ascii_case("contract")
}

/// Parses one `*.prose.md` file.
///
/// # Errors
/// [`ImportError::Contract`] naming the file and line: no frontmatter, a
/// frontmatter that is not a YAML mapping or lacks `name`/`kind`, an
/// unterminated code fence, a commitment bullet that is empty, a heading
/// that reads like a commitment section pactum does not know.
pub fn parse_file(path: &Path, text: &str) -> Result<ParsedFile, ImportError> {
    let err = |line: usize, message: String| ImportError::Contract {
        file: path.display().to_string(),
        line,
        message,
    };
    let lines: Vec<&str> = text.lines().collect();
    if text.starts_with('\u{feff}') {
        return Err(err(
            1,
            "the file starts with a byte order mark (U+FEFF, bytes EF BB BF) before its frontmatter `---`: save it as UTF-8 without a BOM".into(),
        ));
    }
    // A bidirectional control shows its text in another order than it is
    // stored (`U+202E yrammus` shows `summary`): what a reader sees is not
    // what pactum would read.
    if let Some((i, l)) = lines.iter().enumerate().find(|(_, l)| {
        l.chars()
            .any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
    }) {
        let _ = l;
        return Err(err(
            i + 1,
            "the line holds a bidirectional control (U+202A–U+202E, U+2066–U+2069), which shows its text in another order than it is stored: what a reader sees would not be what is graded; remove it".into(),
        ));
    }
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err(err(
            1,
            "no YAML frontmatter (`---`, `name:`, `kind:`, `---`)".into(),
        ));
    }
    let Some(end) = lines
        .iter()
        .skip(1)
        .position(|l| l.trim_end() == "---")
        .map(|i| i + 1)
    else {
        return Err(err(1, "the frontmatter is not closed by `---`".into()));
    };
    let front = lines[1..end].join("\n");
    let docs = yaml_rust2::YamlLoader::load_from_str(&front)
        .map_err(|e| err(1, format!("frontmatter: {e}")))?;
    let map = docs.first().and_then(|d| d.as_hash()).ok_or_else(|| {
        err(
            1,
            "the frontmatter is not a YAML mapping with `name` and `kind`".into(),
        )
    })?;
    let field = |k: &str| {
        map.get(&yaml_rust2::Yaml::String(k.into()))
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .filter(|s| !s.trim().is_empty())
    };
    let name = field("name").ok_or_else(|| err(1, "frontmatter field `name` is missing".into()))?;
    let kind = field("kind").ok_or_else(|| err(1, "frontmatter field `kind` is missing".into()))?;

    // The file as a renderer shows it: comments and tag-only HTML blocks
    // blanked (lines kept), so a commented-out clause is no clause.
    let shown = shown_lines(&lines, end);
    // The lines as written, for what blanking a comment inside a word
    // (`En<!-- -->sures:`) would part.
    let written = lines;
    let lines: Vec<&str> = shown.lines().collect();
    let text = shown.as_str();

    let mut main = ParsedContract {
        name: name.clone(),
        ..ParsedContract::default()
    };
    let mut inline: Vec<ParsedContract> = Vec::new();
    // The open sections, outermost first, each (level, kind): a known
    // heading nested in a section (`### Examples` under `## Ensures`)
    // closes at its next sibling and the section around it goes on. The
    // innermost is `open`. (level, index) of the open
    // inline service.
    let mut sections: Vec<(usize, Kind)> = Vec::new();
    let mut open: Option<(usize, Kind)> = None;
    // The lines of the bullets read (clauses, sub-bullets, errors), for
    // the check against a Markdown renderer's reading.
    let mut read_items: BTreeSet<usize> = BTreeSet::new();
    // The lines read as text of a section of clauses (not code, not a
    // heading): a paragraph a renderer shows there must start on one.
    let mut seen_lines: BTreeSet<usize> = BTreeSet::new();
    let mut service: Option<(usize, usize)> = None;
    let mut facet: Option<(usize, String)> = None;
    // (level, name, line) of a `## name` heading not yet known to be an
    // inline service.
    let mut pending_service: Option<(usize, String, usize)> = None;
    // Whether the line before was blank (a lazy continuation line joins
    // its bullet only right after it).
    let mut after_blank = false;
    let mut fence: Option<(usize, String)> = None;
    let mut current: Option<Bullet> = None;
    // The lines of sentences opening with a bare `name:`.
    let mut labelled: BTreeSet<usize> = BTreeSet::new();
    // The lines outside every section of clauses that may name an output
    // ([`Outside`]), each with its inline service and whether it is in a
    // section of inputs or wiring: refused once every clause is read if
    // one names an output of the contract (the run's are checked by the
    // run reader).
    let mut outside: Vec<(Outside, Option<usize>, bool)> = Vec::new();
    // The level of the open section of inputs or wiring, if any.
    let mut wiring: Option<usize> = None;
    // The headings outside the sections of clauses open around a line,
    // each (level, text): one may be an output's name (`### summary`),
    // and a line under it stating a measure commits on it.
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut seen_section = false;
    // The level of an open section of how the work is done, if any.
    let mut steps: Option<usize> = None;
    // Notes outside the sections of clauses pointing below (`See
    // below.`): (line, inline service).
    let mut pointers: Vec<(usize, Option<usize>)> = Vec::new();
    // Names on lines outside every section of clauses, in code, emphasis
    // or as words (`` `out` ``, `**out**`, `out`): (line, name, inline
    // service), refused if a note of the contract points below to them.
    let mut mentions: Vec<(usize, String, Option<usize>)> = Vec::new();

    let setext = setext_headings(&lines, end + 1);
    let mut underline: Option<usize> = None;
    // Where each line stands, for the block reader below.
    let mut states: Vec<LineState> = vec![LineState::default(); lines.len() + 1];
    for (i, raw) in lines.iter().enumerate().skip(end + 1) {
        let lineno = i + 1;
        states[i] = LineState {
            clauses: matches!(open, Some((_, Kind::Commit(_)))),
            errors: matches!(open, Some((_, Kind::Errors))),
            steps: steps.is_some(),
            wiring: wiring.is_some(),
            service: service.map(|(_, i)| i),
        };
        let line = raw.trim_end();
        if underline == Some(i) {
            continue;
        }
        if let Some((_, marker)) = &fence {
            if closes_fence(line, marker) {
                fence = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if let Some(marker) = opens_fence(line) {
            fence = Some((lineno, marker));
            continue;
        }
        // A section heading inside a blockquote renders as one: its
        // clauses would be dropped, so it is refused.
        if trimmed.starts_with('>') {
            let unquoted = trimmed.trim_start_matches(['>', ' ', '\t']);
            if let Some((_, title)) = heading(unquoted) {
                if section_kind(&title).is_some() || reads_like_a_commitment(&title) {
                    return Err(err(
                        lineno,
                        format!("the heading `{title}` is inside a blockquote (`>`): a section that holds clauses is read only as a heading of its own, outside any quote"),
                    ));
                }
            }
        }
        // A heading indented to a list item's content belongs to the
        // item (CommonMark): part of its clause, never a section boundary.
        let in_item = current
            .as_ref()
            .and_then(|b| b.content)
            .is_some_and(|c| line.len() - trimmed.len() >= c);
        if in_item {
            if let (Some((_, title)), Some(b)) = (heading(trimmed), current.as_mut()) {
                let last = b.sub.last_mut().unwrap_or(&mut b.text);
                last.push(' ');
                last.push_str(&title);
                after_blank = false;
                continue;
            }
        }
        let setext_level = setext.range((i, 0)..=(i, 2)).next().map(|(_, l)| *l);
        if setext_level.is_some() {
            underline = Some(i + 1);
        }
        if let Some((level, title)) = setext_level
            .map(|l| (l, line.trim().to_string()))
            .or_else(|| heading(line))
        {
            // A heading that shows nothing (`##`, `## <!-- -->`, `## &nbsp;`)
            // would close a section of clauses unseen: the bullets after
            // it would read, to anyone, as more of the section's.
            if open.is_some_and(|(l, k)| level <= l && matches!(k, Kind::Commit(_)))
                && !shows_a_name(&title)
            {
                return Err(err(
                    lineno,
                    "a heading that shows no name closes the section of clauses above it: the bullets after it would be dropped; name the section it starts, or remove it".to_string(),
                ));
            }
            let target = target_mut(&mut main, &mut inline, service);
            flush(&mut current, open, target, &facet, path)?;
            if service.is_some_and(|(l, _)| level <= l) {
                service = None;
            }
            if pending_service
                .as_ref()
                .is_some_and(|(l, _, _)| level <= *l)
            {
                pending_service = None;
            }
            if open.is_some_and(|(l, _)| level <= l) {
                while sections.last().is_some_and(|(l, _)| level <= *l) {
                    sections.pop();
                }
                open = sections.last().copied();
                facet = None;
            }
            if facet.as_ref().is_some_and(|(l, _)| level <= *l) {
                facet = None;
            }
            if wiring.is_some_and(|l| level <= l) {
                wiring = None;
            }
            if is_wiring(&title) {
                wiring = Some(level);
            }
            while headings.last().is_some_and(|(l, _)| level <= *l) {
                headings.pop();
            }
            if steps.is_some_and(|l| level <= l) {
                steps = None;
            }
            // How the work is done (`Execution`, `Strategies`,
            // `Invariants`): its headings name phases, often after the
            // outputs they make (`#### grade`).
            if steps.is_none()
                && (never_clauses(&title) && !is_wiring(&title) || is_history(&title))
            {
                steps = Some(level);
            }
            // (A level-1 heading before any section is the file's title,
            // over everything.)
            if steps.is_none()
                && (level >= 2 || seen_section)
                && !matches!(section_kind(&title), Some(Kind::Commit(_) | Kind::Errors))
                && !is_wiring(&title)
            {
                headings.push((level, bare_title(&rendered_inline(&title))));
            }
            seen_section |= section_kind(&title).is_some();
            // Under a section of clauses, a deeper heading is a facet or a
            // sub-heading whatever its name (`### Environment` under
            // `## Maintains`): its bullets stay clauses.
            // `### Errors` under `## Ensures`: a facet of clauses, or the
            // declared errors, cannot be told (its bullets would be one or
            // the other).
            if let (Some(Kind::Errors), Some((l, Kind::Commit(_)))) = (section_kind(&title), open) {
                if level > l {
                    return Err(err(
                        lineno,
                        format!("the heading `{title}` is inside a section of clauses: whether its bullets are clauses or declared errors cannot be told; give the errors a section of their own at the level of `Ensures`"),
                    ));
                }
            }
            let kind = match (section_kind(&title), open) {
                (Some(Kind::Other), Some((l, Kind::Commit(_))))
                    if level > l && !never_clauses(&title) =>
                {
                    None
                }
                (k, _) => k,
            };
            if kind.is_none() && reads_like_a_commitment(&title) {
                return Err(err(
                    lineno,
                    format!("the heading `{title}` reads like a section that holds clauses but is none pactum knows: write `Ensures`, `Returns`, `Maintains` or `Errors` (a note may follow in parentheses)"),
                ));
            }
            match kind {
                Some(k) => {
                    if let Some((l, svc, at)) = pending_service.take() {
                        inline.push(ParsedContract {
                            name: svc,
                            line: at,
                            ..ParsedContract::default()
                        });
                        service = Some((l, inline.len() - 1));
                    }
                    sections.push((level, k));
                    open = Some((level, k));
                    if let Kind::Commit(_) = k {
                        target_mut(&mut main, &mut inline, service).has_commitments = true;
                    }
                }
                None => match open {
                    Some((_, Kind::Commit(Section::Maintains))) => {
                        facet = Some((level, title.trim().to_string()));
                    }
                    Some(_) => {}
                    None if level == 2 && service.is_none() && !is_wrapper(&title) => {
                        pending_service = Some((level, title.trim().to_string(), lineno));
                    }
                    None => {}
                },
            }
            continue;
        }
        // A label naming a section of clauses (`Ensures:`, `**Returns:**`)
        // opens none: the bullets after it, under whatever heading, would
        // be dropped. Only a lead-in to a list inside such a section is
        // left to the reading below.
        // Read as it renders, with or without a colon (`Ensures`,
        // `**Ensures**`, `Ensures.`, `<b>Ensures</b>`, `[Ensures](#x)`,
        // `Ensure&#115;`, `En<!-- -->sures`).
        let as_written = written
            .get(i)
            .map(|w| w.trim())
            .filter(|_| !trimmed.is_empty())
            .unwrap_or_default();
        let label = is_section_label;
        // A list item that is such a label (`- Ensures:`, `- Ensures`,
        // `- ## Ensures`) outside a section of clauses: the items under it
        // would be dropped.
        let item_label = (bullet_text(trimmed).is_some_and(label)
            || bullet_text(as_written).is_some_and(label))
            && !matches!(open, Some((_, Kind::Commit(_))));
        if item_label {
            return Err(err(
                lineno,
                format!("`{}` is a list item, not a section heading: the items under it would be read as no clause; write it as a heading (`## Ensures`)", trimmed.trim()),
            ));
        }
        if bullet_text(trimmed).is_none()
            && (current.is_none() || after_blank)
            && (label(trimmed) || label(as_written))
        {
            let list_follows = lines[i + 1..]
                .iter()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| bullet_text(l.trim_start()).is_some());
            if !(matches!(open, Some((_, Kind::Commit(_)))) && list_follows) {
                return Err(err(
                    lineno,
                    format!("`{}` is a label, not a section heading: the bullets after it would be read as no clause; write it as a heading (`## Ensures`)", trimmed.trim()),
                ));
            }
        }
        if matches!(open, Some((_, Kind::Errors))) {
            // An error's bullet opening with an output's name
            // (`` - `summary`: at least 90 words ``) is no error.
            let unquoted = trimmed.trim_start_matches(['>', ' ', '\t']);
            let item = bullet_text(unquoted).or_else(|| {
                unquoted
                    .strip_prefix('|')
                    .and_then(|r| r.split('|').next())
                    .map(str::trim)
            });
            // A line of prose there is read as an item is.
            let item = item.or_else(|| Some(unquoted.trim()).filter(|t| !t.is_empty()));
            if let Some(item) = item {
                let at = |naming| Outside {
                    line: lineno,
                    naming,
                    inside: false,
                    own: false,
                };
                let svc = service.map(|(_, i)| i);
                outside.push((
                    at(Naming::Opening(opening(&rendered_inline(item)))),
                    svc,
                    false,
                ));
                // An error's description may name an output; one that
                // states a measure of it (`` the `summary` then has at
                // least 90 words ``) is a commitment.
                if measured(&rendered_inline(item)) {
                    outside.push((at(Naming::MarkedStated(names_marked(unquoted))), svc, false));
                }
            }
        }
        if !matches!(open, Some((_, Kind::Commit(_) | Kind::Errors))) {
            // A quoted line is read as what it quotes; a table row's first
            // cell opens it as a bullet's text does; a line opening with a
            // name and a colon is a label too.
            let unquoted = trimmed.trim_start_matches(['>', ' ', '\t']);
            let svc = service.map(|(_, i)| i);
            let inputs = wiring.is_some();
            let at = |naming| {
                (
                    Outside {
                        line: lineno,
                        naming,
                        inside: false,
                        own: false,
                    },
                    svc,
                    inputs,
                )
            };
            let item = bullet_text(unquoted).or_else(|| {
                unquoted
                    .strip_prefix('|')
                    .and_then(|r| r.split('|').next())
                    .map(str::trim)
            });
            match item {
                // A bullet or table row opening with a name, however
                // written (`` `out` ``, `Out has …`, `out → …`,
                // `{out}`, `[out](out.md)`, `bindings/svc/out.md`),
                // naming one in code or emphasis anywhere (`- The \`out\`
                // list has at least 5 items`), or standing under a heading
                // that is a name (`### out`), commits on it as much as a
                // clause would.
                Some(item) => {
                    let text = opening(&rendered_inline(item));
                    // In a step, a name in code or emphasis opens a
                    // label as plainly as a colon does.
                    let marked = item.trim_start().starts_with(['`', '*', '_']);
                    outside.push(at(if steps.is_some() && !marked {
                        Naming::Label(text)
                    } else {
                        Naming::Opening(text)
                    }));
                    outside.extend(
                        names_marked(unquoted)
                            .into_iter()
                            .map(|n| at(Naming::Marked(n))),
                    );
                }
                None => {
                    let shown = rendered_inline(unquoted);
                    if split_name(&opening(&shown)).is_some() {
                        outside.push(at(Naming::Opening(opening(&shown))));
                    }
                }
            }
            // Any line stating a measure (a count, a format, a quote)
            // commits on an output it names anywhere as words, or that a
            // heading over it names (`The summary has at least 90 words.`,
            // `### summary` / `- at least 90 words`).
            // A heading the reader above does not take for one (`<h3>out</h3>`,
            // `> ### out`, `out` over a `---` or `===` line) stands over
            // what follows as well.
            if let Some((level, title)) = html_heading(unquoted)
                .or_else(|| (unquoted != trimmed).then(|| heading(unquoted)).flatten())
                .or_else(|| {
                    let under = lines.get(i + 1).map(|l| l.trim()).unwrap_or_default();
                    let ruled = |c: char| under.len() >= 2 && under.chars().all(|x| x == c);
                    let level = if ruled('=') {
                        1
                    } else if ruled('-') {
                        2
                    } else {
                        0
                    };
                    (level > 0 && item.is_none() && !unquoted.trim().is_empty())
                        .then(|| (level, unquoted.trim().to_string()))
                })
            {
                while headings.last().is_some_and(|(l, _)| level <= *l) {
                    headings.pop();
                }
                if steps.is_none() {
                    headings.push((level, bare_title(&rendered_inline(&title))));
                }
            }
            // (Not in a step: `Execution`, `Strategies` and `Invariants`
            // describe the work, and their data, in the words of its
            // outputs: `Each grade has: …` there is no clause.)
            let shown = rendered_inline(unquoted);
            if steps.is_none() && !shown.trim().is_empty() && measured(&shown) {
                outside.push(at(Naming::Stated(shown.clone())));
                outside.extend(headings.iter().map(|(_, h)| at(Naming::Heading(h.clone()))));
            }
            // A short sentence pointing below (`See below.`, `Details
            // below.`), a list item too.
            let words = shown.split_whitespace().count();
            if (1..=8).contains(&words) && points_below(&shown) {
                pointers.push((lineno, svc));
            }
            mentions.extend(
                names_marked(unquoted)
                    .into_iter()
                    .chain(
                        unquoted
                            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
                            .map(|w| w.trim_matches('.'))
                            .filter(|w| !w.is_empty())
                            .map(output_name),
                    )
                    .map(|n| (lineno, n, svc)),
            );
        }
        let Some((_, kind)) = open else { continue };
        if !matches!(kind, Kind::Commit(_) | Kind::Errors) {
            continue;
        }
        seen_lines.insert(lineno);
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() {
            after_blank = true;
            continue;
        }
        let was_blank = std::mem::replace(&mut after_blank, false);
        let bullet = bullet_text(trimmed);
        // A table, a quote, or a sentence naming an output in a section of
        // clauses would be a commitment no clause holds: refused.
        if bullet.is_none() && (current.is_none() || (was_blank && indent < 2)) {
            let what = if trimmed.starts_with('|') {
                Some("a table row")
            } else if trimmed.starts_with('>') {
                Some("a quoted line")
            } else if matches!(kind, Kind::Commit(_)) && names_in_code(trimmed) {
                Some("a sentence naming an output")
            } else {
                None
            };
            if let Some(what) = what {
                return Err(err(
                    lineno,
                    format!("{what} in a section of clauses: write each clause as a bullet (`- `output`: …`), or move the text out of the section"),
                ));
            }
        }
        let target = target_mut(&mut main, &mut inline, service);
        match (bullet, current.as_mut()) {
            // A sub-bullet: indented further than its bullet (a prose
            // sentence has none: a list interrupts it).
            (Some(text), Some(b)) if b.content.is_some() && indent > b.indent + 1 => {
                read_items.insert(lineno);
                b.sub.push(text.to_string());
            }
            // A bullet: a clause, however indented (after prose or a
            // heading an indented bullet is still one).
            (Some(text), _) => {
                read_items.insert(lineno);
                flush(&mut current, open, target, &facet, path)?;
                current = Some(Bullet {
                    line: lineno,
                    indent,
                    content: Some(indent + content_offset(trimmed)),
                    text: text.to_string(),
                    sub: Vec::new(),
                });
            }
            // A wrapped line: indented, or right after the bullet (a lazy
            // continuation line).
            (None, Some(b)) if indent >= 2 || !was_blank => {
                let last = b.sub.last_mut().unwrap_or(&mut b.text);
                last.push(' ');
                last.push_str(trimmed);
            }
            // Plain prose in a section of clauses: a sentence there may
            // be a commitment, so it is read as a clause of its own (one
            // that says nothing measurable goes to the judge); a line
            // ending in `:` introduces the bullets after it.
            (None, _) => {
                flush(&mut current, open, target, &facet, path)?;
                // A line underlined like a heading, or a thematic break,
                // is no sentence.
                let underlined = lines.get(i + 1).is_some_and(|n| {
                    let u = n.trim();
                    !u.is_empty() && (u.chars().all(|c| c == '=') || u.chars().all(|c| c == '-'))
                });
                // A line ending in `:` introduces the list after it; one
                // that no list follows, or that states a commitment
                // itself, is a sentence like any other.
                let lead_in = trimmed.ends_with(':')
                    && !states_measure(trimmed)
                    && is_generic_lead_in(trimmed)
                    && lines[i + 1..]
                        .iter()
                        .find(|l| !l.trim().is_empty())
                        .is_some_and(|l| bullet_text(l.trim()).is_some());
                if matches!(kind, Kind::Commit(_))
                    && !lead_in
                    && !underlined
                    && !is_thematic_break(trimmed)
                {
                    // `Format: …` opening a sentence may be a label, not
                    // an output: decided once every clause is read.
                    if !trimmed.starts_with(['`', '*', '_']) && split_name(trimmed).is_some() {
                        labelled.insert(lineno);
                    }
                    current = Some(Bullet {
                        line: lineno,
                        indent,
                        content: None,
                        text: trimmed.to_string(),
                        sub: Vec::new(),
                    });
                }
            }
        }
    }
    if let Some((line, _)) = fence {
        return Err(err(line, "this code fence is never closed".into()));
    }
    let target = target_mut(&mut main, &mut inline, service);
    flush(&mut current, open, target, &facet, path)?;
    match unread_item(text, &read_items, &seen_lines) {
        Some((line, Unread::Item)) => return Err(err(
            line,
            "this line renders as a list item of a section that holds clauses, but pactum did not read it as a clause (a code fence, heading or section read differently from a Markdown renderer): write the file so each clause is a bullet right under its section".into(),
        )),
        Some((line, Unread::Paragraph)) => return Err(err(
            line,
            "this line renders as text of a section that holds clauses, but pactum did not read it (a code fence, heading or section read differently from a Markdown renderer): close each code fence inside the bullet that opens it, or move the text out of the section".into(),
        )),
        None => {}
    }
    let clause_lines: std::collections::BTreeMap<usize, Option<String>> = std::iter::once(&main)
        .chain(inline.iter())
        .flat_map(|c| {
            c.clauses
                .iter()
                .map(|k| (k.line, k.output.clone().filter(|_| !k.label)))
        })
        .collect();
    outside.extend(rendered_blocks(&lines, end, &states, &clause_lines));
    // A bullet or table row on an output in a section that holds no
    // clause (`## Output details`, the section a note like "See below."
    // points to) reads as a commitment on it that would never be graded.
    for (o, svc, inputs) in outside.iter().filter(|(o, ..)| !o.inside) {
        let contract = svc.map_or(Some(&main), |i| inline.get(i));
        let named = contract.filter(|_| !inputs).and_then(|c| {
            c.clauses.iter().find_map(|k| {
                k.output
                    .as_ref()
                    .filter(|out| !labelled.contains(&k.line) && o.names(out))
            })
        });
        let line = &o.line;
        if let Some(name) = named {
            return Err(err(
                *line,
                format!("a line on the output `{name}` in a section that holds no clause: it reads as a commitment on `{name}` that would never be graded; move it under `Ensures` (or `Returns`, `Maintains`), or write it without a count or a quote of the output"),
            ));
        }
    }
    for c in std::iter::once(&mut main).chain(inline.iter_mut()) {
        labels_naming_no_output(c, &labelled);
        notes_naming_no_output(c);
        subs_on_other_outputs(c);
    }
    // A note pointing below ("See below.", "Refer to the appendix.") to
    // text outside the sections of clauses that names an output: what it
    // points to may commit, and would never be graded.
    for (svc, c) in
        std::iter::once((None, &main)).chain(inline.iter().enumerate().map(|(i, c)| (Some(i), c)))
    {
        // A pointer read as a clause of no output ("See the following
        // section.") points below all the same.
        let Some(note) = c
            .notes
            .iter()
            .chain(c.clauses.iter().filter(|k| {
                let first = k
                    .text
                    .split(|ch: char| !ch.is_alphanumeric())
                    .find(|w| !w.is_empty())
                    .unwrap_or_default()
                    .to_lowercase();
                k.output.is_none() && matches!(first.as_str(), "see" | "refer" | "for" | "as")
            }))
            .filter(|n| points_below(&n.text))
            .map(|n| n.line)
            .chain(pointers.iter().filter(|(_, s)| *s == svc).map(|(l, _)| *l))
            .min()
        else {
            continue;
        };
        let outputs: BTreeSet<String> = c
            .clauses
            .iter()
            .filter(|k| !k.label)
            .filter_map(|k| k.output.as_ref())
            .map(|o| binding_key(o))
            .collect();
        if let Some((line, name, _)) = mentions
            .iter()
            .find(|(l, n, s)| *s == svc && *l > note && outputs.contains(&binding_key(n)))
        {
            return Err(err(
                *line,
                format!("this line names the output `{name}` outside the sections of clauses, and the note on line {note} points below to it: what it says of `{name}` would never be graded; move it under `Ensures` (or `Returns`, `Maintains`), or remove the note"),
            ));
        }
    }
    inline.retain(|c| c.has_commitments || !c.clauses.is_empty());
    let outside = outside
        .into_iter()
        .filter(|(o, _, inputs)| !inputs && !o.own)
        .map(|(o, ..)| o)
        .collect();
    Ok(ParsedFile {
        name,
        kind,
        main,
        inline,
        outside,
    })
}

/// Where a line of a contract stands: in a section of clauses, of steps
/// (`Execution`, `Strategies`, `Invariants`, a history), of inputs or
/// wiring, and in which inline service.
#[derive(Debug, Clone, Copy, Default)]
struct LineState {
    clauses: bool,
    errors: bool,
    steps: bool,
    wiring: bool,
    service: Option<usize>,
}

/// The commitments outside the sections of clauses found block by block
/// as a renderer shows them ([`crate::blocks`]): a paragraph, list item,
/// table row or heading wrapped over lines or marked up
/// (`The sum**mary** has at` / `least 90 words.`) reads as one line.
///
/// * A heading anywhere that states a measure (`### summary: at least 90
///   words`) is no clause: it names an output it mentions.
/// * Outside the sections of clauses, steps and inputs, a block stating a
///   measure names an output it mentions as words, or that a heading
///   over it names (`## Errors` over a line on the output `errors`).
/// * In a step, a block stating a measure names an output only as a
///   label (`summary — at least 90 words`) or in code or emphasis, in it
///   or in a heading over it that is only a marked name (`` ### `summary` ``):
///   steps name phases after the outputs they make (`#### grade`).
fn rendered_blocks(
    lines: &[&str],
    frontmatter_end: usize,
    states: &[LineState],
    clause_lines: &std::collections::BTreeMap<usize, Option<String>>,
) -> Vec<(Outside, Option<usize>, bool)> {
    let declared: BTreeSet<&String> = clause_lines.values().flatten().collect();
    // The frontmatter blanked, lines kept.
    let body: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| if i <= frontmatter_end { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    // (level, text, in a step, wholly marked) of the headings open.
    let mut headings: Vec<(usize, String, bool, bool)> = Vec::new();
    let mut seen_section = false;
    for b in crate::blocks::blocks(&body) {
        let state = states.get(b.line - 1).copied().unwrap_or_default();
        let svc = state.service;
        let at = |naming| {
            (
                Outside {
                    line: b.line,
                    naming,
                    inside: false,
                    own: false,
                },
                svc,
                false,
            )
        };
        let measured = measured(&b.text);
        if let Some(level) = b.heading {
            if measured {
                if state.steps {
                    out.push(at(Naming::Label(b.text.clone())));
                    out.push(at(Naming::MarkedStated(b.marked.clone())));
                } else {
                    out.push(at(Naming::Stated(b.text.clone())));
                }
            }
            while headings.last().is_some_and(|(l, ..)| level <= *l) {
                headings.pop();
            }
            if level >= 2 || seen_section {
                let wholly_marked = !b.marked.is_empty()
                    && b.marked.concat().split_whitespace().collect::<String>()
                        == b.text.split_whitespace().collect::<String>();
                headings.push((level, b.text.clone(), state.steps, wholly_marked));
            }
            seen_section |= level >= 2;
            continue;
        }
        if state.clauses && !clause_lines.contains_key(&b.line) {
            // A paragraph of its own in a clause's item, labelled with
            // another output the file declares (`` - `report`: … `` /
            // blank / `  summary: at least 90 words`): read as the
            // parent's text, it would be measured on the parent's output.
            let parent = clause_lines
                .range(..b.line)
                .next_back()
                .and_then(|(_, o)| o.as_deref());
            if !b.item
                && declared
                    .iter()
                    .any(|d| Some(d.as_str()) != parent && labels_name(&b.text, d))
            {
                out.push(at(Naming::Label(b.text.clone())));
            }
            out.push((
                Outside {
                    line: b.line,
                    naming: Naming::Label(b.text.clone()),
                    inside: true,
                    own: false,
                },
                svc,
                false,
            ));
        }
        // A line on the contract's own output among its inputs (`##
        // Requires` / `` - `summary`: at least 90 words ``): a service
        // does not require what it makes.
        if state.wiring && !state.clauses && measured {
            for naming in [
                Naming::Stated(b.text.clone()),
                Naming::Label(b.text.clone()),
                Naming::MarkedStated(b.marked.clone()),
            ] {
                out.push((
                    Outside {
                        line: b.line,
                        naming,
                        inside: false,
                        own: true,
                    },
                    svc,
                    false,
                ));
            }
        }
        if !measured || state.clauses || state.wiring {
            continue;
        }
        if state.errors {
            // An error's description naming an output in plain words
            // describes the error (`- too-short: the draft summary had
            // fewer than 10 words`); in code or emphasis, or as a label,
            // it commits on it.
            out.push(at(Naming::Label(b.text.clone())));
            out.push(at(Naming::MarkedStated(b.marked.clone())));
            out.extend(
                headings
                    .iter()
                    .filter(|(_, _, steps, _)| !steps)
                    .map(|(_, h, ..)| at(Naming::Heading(h.clone()))),
            );
        } else if state.steps {
            out.push(at(Naming::Label(b.text.clone())));
            out.push(at(Naming::MarkedStated(b.marked.clone())));
            out.extend(
                headings
                    .iter()
                    .filter(|(.., marked)| *marked)
                    .map(|(_, h, ..)| at(Naming::MarkedStated(vec![h.clone()]))),
            );
        } else {
            out.push(at(Naming::Stated(b.text.clone())));
            out.extend(
                headings
                    .iter()
                    .filter(|(_, _, steps, _)| !steps)
                    .map(|(_, h, ..)| at(Naming::Heading(h.clone()))),
            );
        }
    }
    out
}

/// Whether a heading opens a record of the past (`Changelog`,
/// `History`, `Release notes`): what an output was, not what it is.
fn is_history(title: &str) -> bool {
    titled(
        title,
        &[
            "changelog",
            "change log",
            "changes",
            "history",
            "version history",
            "release notes",
            "revisions",
        ],
    )
}

/// Whether a heading opens a section of inputs or wiring, whose bullets
/// name what a contract reads, not what it commits to.
fn is_wiring(title: &str) -> bool {
    titled(
        title,
        &[
            "requires",
            "require",
            "parameters",
            "inputs",
            "services",
            "delegates",
            "environment",
            "tools",
        ],
    )
}

/// An item's text as a renderer shows it, near enough to tell which name
/// it opens with: character references decoded, tags dropped, a link or
/// a reference read as its text, backslash escapes and invisible
/// characters dropped.
fn rendered_inline(text: &str) -> String {
    use std::sync::LazyLock;
    static TAG: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"</?[A-Za-z][^<>\n]*>").unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    static LINK: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"!?\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])?")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    static ESCAPE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"\\([!-/:-@\[-`{-~])").unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    // A task box is no link.
    let trimmed = text.trim_start();
    let text = ["[ ] ", "[x] ", "[X] "]
        .iter()
        .find_map(|b| trimmed.strip_prefix(b))
        .unwrap_or(text);
    let decoded = crate::check::decode_entities(text);
    // A tag parts what it stands between (`<td>a</td><td>b</td>`).
    let untagged = TAG.replace_all(&decoded, " ");
    let unlinked = LINK.replace_all(&untagged, "$1");
    ESCAPE
        .replace_all(&unlinked, "$1")
        .chars()
        .filter(|c| !pactum_core::text::shown_as_code_point(*c))
        .collect()
}

/// An HTML heading written on one line (`<h3>summary</h3>`): its level
/// and text.
fn html_heading(line: &str) -> Option<(usize, String)> {
    use std::sync::LazyLock;
    static H: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?i)^\s*<h([1-6])\b[^>]*>(.*?)</h[1-6]\s*>\s*$")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let c = H.captures(line)?;
    Some((c[1].parse().ok()?, c[2].to_string()))
}

/// Where an item's text opens once its decoration is dropped: a task box
/// (`[x]`), list markers (`1.`, `-`), symbols and marks before the first
/// letter or digit (`✅`, `{`, `$`, `#`, `*`, quotes).
fn opening(text: &str) -> String {
    let mut t = text.trim();
    loop {
        let before = t;
        for mark in ["[ ]", "[x]", "[X]"] {
            t = t.strip_prefix(mark).unwrap_or(t).trim_start();
        }
        if let Some(rest) = bullet_text(t) {
            t = rest.trim_start();
        }
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            if let Some(rest) = t[digits..].strip_prefix(['.', ')']) {
                if rest.starts_with(char::is_whitespace) {
                    t = rest.trim_start();
                }
            }
        }
        t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
        if t == before {
            return t.to_string();
        }
    }
}

/// A name as compared with text: [`rendered::lookalike_fold`]ed, its
/// accents dropped (`résumé` is `resume`).
fn name_fold(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    rendered::lookalike_fold(s)
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect()
}

/// Whether `text` opens with the output `name` as a reader takes it:
/// folded ([`name_fold`]), with `_`, `-`, `.` or spaces between its
/// letters or not (`key_points`, `Key points`, `key-points`), followed by
/// no letter or digit and going on as no longer name (`sources-empty`),
/// an extension aside (`out.md`); or, in a first word that is a path or a dotted
/// name, after a `/` or `.` (`bindings/svc/summary.md`, `svc.summary`).
pub(crate) fn opens_with_name(text: &str, name: &str) -> bool {
    let Some((t, want)) = folded_pair(text, name) else {
        return false;
    };
    let first = t.iter().position(|c| c.is_whitespace()).unwrap_or(t.len());
    std::iter::once(0)
        .chain(
            (0..first)
                .filter(|&i| matches!(t[i], '/' | '.'))
                .map(|i| i + 1),
        )
        .any(|from| name_end(&t, &want, from).is_some())
}

/// Whether `text` opens with the output `name` ([`opens_with_name`]) as
/// a label: the name alone, or followed by `:`, a dash, an arrow, `=`,
/// `(`, `.`, `|`, `>` or `~`.
fn labels_name(text: &str, name: &str) -> bool {
    let Some((t, want)) = folded_pair(text, name) else {
        return false;
    };
    name_end(&t, &want, 0).is_some_and(|end| {
        let rest: String = t[end..].iter().collect();
        let rest = rest.trim_start();
        // The marks folded as the text was (an em dash folds to `ー`).
        let marks: Vec<char> = name_fold(":-–—―‒→⟶⇒=(.|>~»›").chars().collect();
        rest.is_empty() || rest.starts_with(marks.as_slice())
    })
}

/// Whether `text` names the output `name` anywhere as words, spelled as
/// [`opens_with_name`] reads a name, starting after no letter or digit.
pub(crate) fn mentions_name(text: &str, name: &str) -> bool {
    let Some((t, want)) = folded_pair(text, name) else {
        return false;
    };
    (0..t.len())
        .any(|i| (i == 0 || !t[i - 1].is_alphanumeric()) && name_end(&t, &want, i).is_some())
}

/// Whether a line states what a clause would measure of an output's
/// content ([`crate::check::read`]): a count (or one it would leave to
/// the judge, or any number before a counted unit), a quote (whatever
/// verb introduces it), the fields of each item. A format alone (`writes
/// the report as JSON`) is how a description says what an output is.
fn measured(text: &str) -> bool {
    use crate::check::Measure;
    fn content(m: &Measure) -> bool {
        match m {
            Measure::Count { .. } | Measure::Contains(_) | Measure::Each { .. } => true,
            Measure::Not(inner) => content(inner),
            _ => false,
        }
    }
    use std::sync::LazyLock;
    // A number before a counted unit, however bounded ("over 90 words",
    // "3 paragraphs minimum", "twenty-five words"), or a quote.
    static COUNTED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#"(?i)(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen|couple|few|several|many|million))\W{0,3}(?:[a-z-]+\s+){0,2}?(?:items?|bullets?|points?|entries|entry|steps?|sources?|citations?|references?|links?|urls?|paragraphs?|words?|rows?|headings?|sections?|sentences?|characters?|chars?|lines?|pages?)\b|["“][^"”]+["”]|(?:^|[\s(\[])'[^'\n]{2,}'(?:[\s.,;:!?)\]]|$)|‘[^’\n]+’|„[^“”\n]+[“”]|`[^`\n]*\s[^`\n]*`|«[^»\n]+»|»[^«\n]+«|‹[^›\n]+›|「[^」\n]+」|『[^』\n]+』|\b(?:each|every|all)\b[^.:\n]{0,60}\b(?:has|have|holds?|includes?|contains?|with)\s*:"#)
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    // A number and a counted unit in either order (`Minimum words per
    // output: summary 90.`, a table's `min words` column beside `90`).
    static UNIT: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?i)\b(?:items?|bullets?|points?|entries|entry|sources?|citations?|references?|links?|urls?|paragraphs?|words?|rows?|headings?|sections?|sentences?|characters?|chars?|lines?|pages?)\b")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let r = crate::check::read(text);
    r.measures.iter().any(|(_, m)| content(m))
        || !r.unread.is_empty()
        || COUNTED.is_match(text)
        || (text.chars().any(|c| c.is_ascii_digit()) && UNIT.is_match(text))
}

/// `text` and `name` folded ([`name_fold`]), the name's letters and
/// digits only; `None` for a name of none.
fn folded_pair(text: &str, name: &str) -> Option<(Vec<char>, Vec<char>)> {
    let want: Vec<char> = name_fold(name)
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    (!want.is_empty()).then(|| (name_fold(text).chars().collect(), want))
}

/// Where the name `want` ends in `t` when it is spelled there from
/// `from` on ([`opens_with_name`]): its letters and digits in order, `_`,
/// `-`, `.` or spaces between them, and then what ends it (no letter or
/// digit, no longer name, an extension aside).
fn name_end(t: &[char], want: &[char], from: usize) -> Option<usize> {
    let mut j = 0;
    let mut i = from;
    while j < want.len() {
        match t.get(i) {
            Some(c) if c.is_alphanumeric() => {
                if *c != want[j] {
                    return None;
                }
                j += 1;
            }
            Some('_' | '-' | '.' | ' ') if j > 0 => {}
            _ => return None,
        }
        i += 1;
    }
    // What follows ends the name, unless it goes on as one longer name
    // (`sources-empty`, `out_v2`), save for an extension (`out.md`).
    let ends = match t.get(i) {
        Some(c) if c.is_alphanumeric() => false,
        Some(sep @ ('_' | '-' | '.')) => {
            let rest: String = t[i + 1..]
                .iter()
                .take_while(|c| c.is_alphanumeric())
                .collect();
            rest.is_empty()
                || *sep == '.' && BINDING_EXTENSIONS.iter().any(|e| name_fold(e) == rest)
        }
        _ => true,
    };
    ends.then_some(i)
}

/// A sentence opening with a bare capitalised word and a colon (`Format:
/// in French.`) that no bullet of the contract names is marked
/// [`DeclaredClause::label`]: it may be a label rather than an output, so
/// an output of that name not produced is no evidence against it.
fn labels_naming_no_output(c: &mut ParsedContract, labelled: &BTreeSet<usize>) {
    let named: BTreeSet<String> = c
        .clauses
        .iter()
        .filter(|k| !labelled.contains(&k.line))
        .filter_map(|k| k.output.as_ref())
        .map(|o| o.to_lowercase())
        .collect();
    // A label reads like a word of prose (`Format`, `Tone`); a name like
    // an identifier (`summary`, `key_points`) stays an output's.
    let prose_word = |o: &str| {
        let mut cs = o.chars();
        cs.next().is_some_and(char::is_uppercase) && cs.all(char::is_lowercase)
    };
    for k in &mut c.clauses {
        if labelled.contains(&k.line)
            && k.condition.is_none()
            && k.output.as_deref().is_some_and(prose_word)
            && k.output
                .as_ref()
                .is_some_and(|o| !named.contains(&o.to_lowercase()))
        {
            k.label = true;
        }
    }
}

/// Puts back among the clauses, at its place, every note that names an
/// output of the contract as a word (`out` in "The out is below."): it
/// may be a commitment on it.
fn notes_naming_no_output(c: &mut ParsedContract) {
    let outputs: BTreeSet<String> = c
        .clauses
        .iter()
        .filter_map(|k| k.output.as_ref())
        .map(|o| o.to_lowercase())
        .collect();
    let mut back = Vec::new();
    for note in std::mem::take(&mut c.notes) {
        let names_one = note
            .text
            .split(|ch: char| !(ch.is_alphanumeric() || matches!(ch, '_' | '-' | '.')))
            .any(|w| outputs.contains(&w.trim_matches('.').to_lowercase()));
        if names_one {
            back.push(note);
        } else {
            c.notes.push(note);
        }
    }
    if !back.is_empty() {
        c.clauses.extend(back);
        // Stable: clauses of one bullet keep their order.
        c.clauses.sort_by_key(|k| k.line);
    }
}

fn target_mut<'a>(
    main: &'a mut ParsedContract,
    inline: &'a mut [ParsedContract],
    service: Option<(usize, usize)>,
) -> &'a mut ParsedContract {
    match service {
        Some((_, i)) => &mut inline[i],
        None => main,
    }
}

/// A bullet being read: its first line, wrapped lines and sub-bullets.
struct Bullet {
    line: usize,
    /// Columns before its marker.
    indent: usize,
    /// The column its content starts at, for a list item (a line
    /// indented this far belongs to it); `None` for a prose sentence.
    content: Option<usize>,
    text: String,
    sub: Vec<String>,
}

/// The marker of a code fence `line` opens (CommonMark §4.5): three or
/// more backticks or tildes, indented by at most three spaces; a backtick
/// fence's info string holds no backtick (```` ```json``` ```` is a code
/// span, not a fence).
fn opens_fence(line: &str) -> Option<String> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let c = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let n = trimmed.chars().take_while(|x| *x == c).count();
    if n < 3 || (c == '`' && trimmed[n..].contains('`')) {
        return None;
    }
    Some(trimmed[..n].to_string())
}

/// Whether `line` closes the fence opened by `marker`: the same
/// character at least as many times, indented by at most three spaces,
/// and nothing after it but white space.
fn closes_fence(line: &str, marker: &str) -> bool {
    let trimmed = line.trim_start_matches(' ');
    let Some(c) = marker.chars().next() else {
        return false;
    };
    let n = trimmed.chars().take_while(|x| *x == c).count();
    line.len() - trimmed.len() <= 3 && n >= marker.len() && trimmed[n..].trim().is_empty()
}

/// What a renderer shows that the line reader did not read.
enum Unread {
    /// A list item.
    Item,
    /// A paragraph.
    Paragraph,
}

/// The first line (1-based) of `text` (the file as [`shown_lines`] gives
/// it) that a CommonMark renderer
/// (`pulldown-cmark`) shows as a list item inside a section that holds
/// clauses, by the headings it sees, and that the line reader did not
/// read (`read`, the lines of the bullets it read). A file read two ways
/// is refused rather than a clause dropped.
fn unread_item(
    text: &str,
    read: &BTreeSet<usize>,
    seen: &BTreeSet<usize>,
) -> Option<(usize, Unread)> {
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
    // `text` is the file as shown, its frontmatter already blank.
    let body = text;
    // Items come in file order: lines are counted on from the last one,
    // so the check stays linear in the file.
    let mut counted = (0usize, 1usize);
    let mut line_of = |at: usize| {
        let (from, base) = if at >= counted.0 { counted } else { (0, 1) };
        let n = base
            + body
                .get(from..at)
                .map_or(0, |t| t.bytes().filter(|b| *b == b'\n').count());
        counted = (at, n);
        n
    };
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    // (level, kind) of each open heading, outermost first.
    let mut stack: Vec<(usize, Option<Kind>)> = Vec::new();
    let mut heading: Option<(usize, String)> = None;
    // Lists and quotes the parser is inside: a heading there is part of
    // its item or quote, never a section of the file.
    let mut nested = 0usize;
    for (ev, range) in Parser::new_ext(body, opts).into_offset_iter() {
        match ev {
            Event::Start(Tag::Heading { .. }) if nested > 0 => {}
            Event::End(TagEnd::Heading(_)) if nested > 0 => {}
            Event::Start(Tag::BlockQuote(_)) => nested += 1,
            Event::End(TagEnd::BlockQuote(_)) => nested = nested.saturating_sub(1),
            Event::End(TagEnd::Item) => nested = nested.saturating_sub(1),
            Event::Start(Tag::Heading { level, .. }) => {
                let l = match level {
                    HeadingLevel::H1 => 1,
                    HeadingLevel::H2 => 2,
                    HeadingLevel::H3 => 3,
                    HeadingLevel::H4 => 4,
                    HeadingLevel::H5 => 5,
                    HeadingLevel::H6 => 6,
                };
                heading = Some((l, String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, title)) = heading.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((l, title)) = heading.take() {
                    while stack.last().is_some_and(|(x, _)| *x >= l) {
                        stack.pop();
                    }
                    let inner = stack.iter().rev().find_map(|(_, k)| *k);
                    let kind = match (section_kind(&title), inner) {
                        (Some(Kind::Other), Some(Kind::Commit(_))) if !never_clauses(&title) => {
                            None
                        }
                        (k, _) => k,
                    };
                    stack.push((l, kind));
                }
            }
            Event::Start(Tag::Item) => {
                nested += 1;
                let kind = stack.iter().rev().find_map(|(_, k)| *k);
                let line = line_of(range.start);
                if matches!(kind, Some(Kind::Commit(_))) && !read.contains(&line) {
                    return Some((line, Unread::Item));
                }
            }
            // A paragraph of the section itself (one in an item or a
            // quote is the item's or the quote's).
            Event::Start(Tag::Paragraph) if nested == 0 => {
                let kind = stack.iter().rev().find_map(|(_, k)| *k);
                let line = line_of(range.start);
                if matches!(kind, Some(Kind::Commit(_))) && !seen.contains(&line) {
                    return Some((line, Unread::Paragraph));
                }
            }
            _ => {}
        }
    }
    None
}

/// `(level, title)` of an ATX heading (indented by at most three spaces).
fn heading(line: &str) -> Option<(usize, String)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let line = trimmed;
    let hashes = line.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some((hashes, rest.trim().trim_end_matches('#').trim().to_string()))
}

/// Whether a line is a thematic break (CommonMark §4.1): three or more
/// `-`, `*` or `_`, the same one, spaces between them allowed.
fn is_thematic_break(trimmed: &str) -> bool {
    let compact: Vec<char> = trimmed
        .chars()
        .filter(|c| !matches!(c, ' ' | '\t'))
        .collect();
    compact.len() >= 3
        && ['-', '*', '_']
            .iter()
            .any(|m| compact.iter().all(|c| c == m))
}

/// How many columns a bullet line's marker and the spaces after it take
/// (CommonMark §5.2: one to four spaces; more, and the content starts one
/// column after the marker).
fn content_offset(trimmed: &str) -> usize {
    let marker = trimmed.chars().take_while(char::is_ascii_digit).count() + 1;
    let spaces = trimmed
        .get(marker..)
        .map_or(0, |r| r.chars().take_while(|c| *c == ' ').count());
    if (1..=4).contains(&spaces) {
        marker + spaces
    } else {
        marker + 1
    }
}

/// Whether a line states a measure or an obligation itself: a digit, a
/// quote, a name in code or emphasis, a modal word (`must`, `never`), a
/// quantity (`at least`, `each`, `no`), a unit (`words`, `items`), or a
/// word outside ASCII (a language these lists do not know).
fn states_measure(text: &str) -> bool {
    const WORDS: &[&str] = &[
        "must",
        "shall",
        "should",
        "will",
        "would",
        "can",
        "cannot",
        "can't",
        "may",
        "might",
        "won't",
        "never",
        "always",
        "only",
        "each",
        "every",
        "all",
        "any",
        "no",
        "not",
        "none",
        "nor",
        "without",
        "least",
        "most",
        "exactly",
        "fewer",
        "less",
        "than",
        "between",
        "under",
        "over",
        "within",
        "up",
        "once",
        "twice",
        "word",
        "words",
        "item",
        "items",
        "source",
        "sources",
        "paragraph",
        "paragraphs",
        "sentence",
        "sentences",
        "row",
        "rows",
        "line",
        "lines",
        "character",
        "characters",
        "heading",
        "headings",
        "bullet",
        "bullets",
        "link",
        "links",
        "table",
        "tables",
        "json",
        "url",
        "urls",
        "field",
        "fields",
    ];
    text.chars().any(|c| {
        c.is_ascii_digit()
            || matches!(
                c,
                '`' | '*' | '_' | '"' | '\'' | '“' | '‘' | '«' | '<' | '|'
            )
    }) || has_word(text, WORDS)
        || text
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| !w.is_ascii())
}

/// Whether `text` holds one of `words` as a whole word, in any case.
fn has_word(text: &str, words: &[&str]) -> bool {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .any(|w| words.contains(&w.to_lowercase().as_str()))
}

/// Whether a prose sentence of a section of clauses is only a note: a
/// pure pointer elsewhere and nothing else — `See …`, `Refer to …`,
/// `For (more) details(,) see …`, `Details below.`, or `The outputs are
/// described below.` with a generic subject. Anything else may state a
/// commitment, so it stays a clause.
fn is_note(text: &str) -> bool {
    let t = text.trim().trim_end_matches(['.', '!']).trim();
    let lower = t.to_lowercase();
    // One sentence only, no clause joined to the pointer.
    if lower.is_empty() || lower.contains([';', ':', '.', '!', '?']) {
        return false;
    }
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    // Where a pointer may point: a closed list, so that nothing else
    // (`Refer to the customer by name`, `Details in French`) reads as one.
    let target = |rest: &[&str]| {
        let rest = match rest {
            [r @ .., "for", "details"] | [r @ .., "for", "more", "details"] => r,
            r => r,
        };
        let rest = match rest {
            ["the" | "our" | "its" | "this", r @ ..] => r,
            r => r,
        };
        matches!(
            rest,
            ["readme" | "documentation" | "docs" | "below" | "above" | "appendix"]
        )
    };
    match words.as_slice() {
        ["see", rest @ ..] | ["refer", "to", rest @ ..] => target(rest),
        ["for", "details", "see", rest @ ..] | ["for", "more", "details", "see", rest @ ..] => {
            target(rest)
        }
        ["details", "below" | "above"] => true,
        ["details", "in", rest @ ..] => target(rest),
        [subject @ .., "is" | "are", "described", "below" | "above"] => matches!(
            subject,
            ["the", "output" | "outputs" | "format"]
                | ["the" | "its", "output", "format"]
                | ["details"]
                | ["the", "details"]
        ),
        _ => false,
    }
}

/// Whether a line ending in `:` only introduces the list after it: a few
/// generic words (`The service guarantees:`, `Also:`, `Each output
/// has:`), nothing a commitment could be read from.
fn is_generic_lead_in(trimmed: &str) -> bool {
    const WORDS: &[&str] = &[
        "the",
        "this",
        "it",
        "its",
        "service",
        "program",
        "agent",
        "output",
        "outputs",
        "return",
        "returns",
        "ensure",
        "ensures",
        "guarantee",
        "guarantees",
        "following",
        "below",
        "each",
        "are",
        "is",
        "has",
        "have",
        "with",
        "contains",
        "also",
        "and",
        "here",
        "these",
        "clauses",
        "commitments",
        "we",
        "they",
    ];
    let words: Vec<String> = trimmed
        .trim_end_matches(':')
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    !words.is_empty() && words.len() <= 4 && words.iter().all(|w| WORDS.contains(&w.as_str()))
}

/// Whether a line (or a list item's text) reads, once rendered, as the
/// name of a section of clauses written as a label: comments and tags
/// dropped (`En<!-- -->sures`, `<b>Ensures</b>`, `<h2>Ensures</h2>`), a
/// link's text kept without where it leads (`[Ensures](#x)`), character
/// references decoded (`Ensure&#115;`), backslashes and heading marks
/// (`## Ensures` inside an item) set aside, then read by
/// [`section_kind`]: with or without a trailing `:`, `.` or `!`, in
/// emphasis or not.
fn is_section_label(line: &str) -> bool {
    use std::sync::LazyLock;
    static MARKUP: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"<!--.*?-->|<[^<>]*>").unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    static LINK: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let bare = MARKUP.replace_all(line, "");
    let bare = LINK.replace_all(&bare, "$1");
    let decoded = crate::check::decode_entities(&bare).replace('\\', "");
    let t = decoded
        .trim()
        .trim_start_matches('#')
        .trim_end_matches('#')
        .trim();
    !t.is_empty() && matches!(section_kind(t), Some(Kind::Commit(_)))
}

/// The text of a bullet line (`- `, `* `, `+ `, or numbered `1. `,
/// `1) `), without its marker.
fn bullet_text(trimmed: &str) -> Option<&str> {
    if is_thematic_break(trimmed) {
        return None;
    }
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    let rest = if (1..=9).contains(&digits) {
        trimmed[digits..]
            .strip_prefix('.')
            .or_else(|| trimmed[digits..].strip_prefix(')'))?
    } else {
        trimmed
            .strip_prefix('-')
            .or_else(|| trimmed.strip_prefix('*'))
            .or_else(|| trimmed.strip_prefix('+'))?
    };
    if rest.is_empty() {
        return Some("");
    }
    rest.starts_with([' ', '\t']).then(|| rest.trim())
}

/// Ends the bullet being read, recording it in the section it belongs to.
fn flush(
    current: &mut Option<Bullet>,
    open: Option<(usize, Kind)>,
    target: &mut ParsedContract,
    facet: &Option<(usize, String)>,
    path: &Path,
) -> Result<(), ImportError> {
    let Some(b) = current.take() else {
        return Ok(());
    };
    let Some((_, kind)) = open else { return Ok(()) };
    match kind {
        Kind::Errors => {
            let (name, description) = match split_name(&b.text) {
                Some((n, d)) => (n, d),
                None => (strip_ticks(&b.text).to_string(), String::new()),
            };
            target.errors.push(DeclaredError { name, description });
        }
        Kind::Commit(section) => {
            if b.text.trim().is_empty() {
                return Err(ImportError::Contract {
                    file: path.display().to_string(),
                    line: b.line,
                    message: "an empty clause bullet".into(),
                });
            }
            let facet = facet.as_ref().map(|(_, f)| f.clone());
            if b.content.is_none() && b.sub.is_empty() && is_note(&b.text) {
                target
                    .notes
                    .push(declared(b.line, section, facet, &b.text, Vec::new()));
                return Ok(());
            }
            let clause = declared(b.line, section, facet.clone(), &b.text, b.sub.clone());
            let output = clause.output.clone();
            let mut subs = Vec::new();
            let mut kept = Vec::new();
            for s in &clause.sub {
                // A sub-bullet naming another output in code or emphasis
                // (`` - `note`: at least 3 items ``) is a clause on that
                // output, never measured on this one's binding.
                let other_output = s.trim_start().starts_with(['`', '*', '_'])
                    && split_name(s).is_some_and(|(n, _)| output.as_deref() != Some(n.as_str()));
                if other_output {
                    subs.push(declared(b.line, section, facet.clone(), s, Vec::new()));
                } else if condition_of(s).is_some() {
                    let mut c = declared(b.line, section, facet.clone(), s, Vec::new());
                    if c.output.is_none() {
                        c.output.clone_from(&output);
                    }
                    subs.push(c);
                } else {
                    kept.push(s.clone());
                }
            }
            target.clauses.push(DeclaredClause {
                sub: kept,
                ..clause
            });
            target.clauses.extend(subs);
        }
        Kind::Other => {}
    }
    Ok(())
}

/// A sub-bullet labelled with another output of the contract in plain
/// words (`- summary: at least 90 words`, `- Summary — …` under
/// `` - `report`: … ``) is a clause on that output, as one in code is,
/// never measured on its parent's binding.
fn subs_on_other_outputs(c: &mut ParsedContract) {
    let outputs: Vec<String> = c
        .clauses
        .iter()
        .filter(|k| !k.label)
        .filter_map(|k| k.output.clone())
        .collect();
    let mut split = Vec::new();
    for k in &mut c.clauses {
        let own = k.output.clone();
        k.sub.retain(|s| {
            let text = opening(&rendered_inline(s));
            let other = outputs
                .iter()
                .find(|o| own.as_deref() != Some(o.as_str()) && labels_name(&text, o));
            if let Some(o) = other {
                let mut d = declared(k.line, k.section, k.facet.clone(), s, Vec::new());
                if d.output.as_deref() != Some(o.as_str()) {
                    d.output = Some(o.clone());
                }
                split.push(d);
            }
            other.is_none()
        });
    }
    c.clauses.extend(split);
}

/// `- if {condition}: {then}` → `(condition, then)`.
fn condition_of(text: &str) -> Option<(String, String)> {
    let lower = text.to_ascii_lowercase();
    if !lower.starts_with("if ") {
        return None;
    }
    let (cond, then) = text[3..].split_once(':')?;
    Some((cond.trim().to_string(), then.trim().to_string()))
}

/// The names written in code or emphasis in `line` (`` `out` ``,
/// `**out**`, `*out*`, `_out_`) that could be an output's: letters,
/// digits, `_`, `-` and `.`.
fn names_marked(line: &str) -> Vec<String> {
    use std::sync::LazyLock;
    static MARKED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"`([^`\n]+)`|\*\*([^*\n]+)\*\*|__([^_\n]+)__|\*([^*\n]+)\*|_([^_\n]+)_")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    MARKED
        .captures_iter(line)
        .filter_map(|c| (1..=5).find_map(|i| c.get(i)))
        .map(|m| m.as_str().trim())
        .filter(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        })
        .map(output_name)
        .collect()
}

/// Whether a note points to a later part of the file ("See below.",
/// "Refer to the appendix.", "described in the next section").
fn points_below(note: &str) -> bool {
    let words: Vec<String> = note
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "below"
                | "following"
                | "next"
                | "appendix"
                | "later"
                | "beneath"
                | "underneath"
                | "further"
                | "after"
        )
    })
}

/// `` `name`: rest `` or `name: rest` where `name` is one identifier.
fn split_name(text: &str) -> Option<(String, String)> {
    let (head, rest) = text.split_once(':')?;
    // A note in parentheses after the name (`summary (markdown):`) is no
    // part of it.
    let head = match head
        .trim()
        .strip_suffix(')')
        .and_then(|h| h.rsplit_once('('))
    {
        Some((name, _)) if !name.trim().is_empty() => name,
        _ => head,
    };
    let name = strip_ticks(head.trim());
    // Letters and digits of any script (`résumé`), in one normal form: a
    // file name may be written in either.
    let ident = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.');
    ident.then(|| (output_name(name), rest.trim().to_string()))
}

/// The extensions a binding may be written with, as [`binding_key`]
/// strips them once more from a name (`out.md.md`).
pub(crate) const BINDING_EXTENSIONS: [&str; 10] = [
    "md", "markdown", "mdx", "json", "txt", "text", "html", "htm", "yaml", "yml",
];

/// A binding's name (a file's stem, a folder's name) as a reader tells
/// binding names apart: read by [`rendered::lookalike_fold`], with white
/// space anywhere dropped (`out .md`, ` out.md`, an ideographic space),
/// dots at either end dropped (`out..md`, `.svc`) and an extension a
/// binding is written with stripped again (`out.md.md`, `out.json.md`).
/// Two names with one key are one binding written twice.
pub(crate) fn binding_key(name: &str) -> String {
    name_key(&output_name(name), &BINDING_EXTENSIONS)
}

/// `name` as a reader tells file names apart: [`rendered::lookalike_fold`]ed,
/// white space dropped, dots at either end dropped, and each of
/// `extensions` it ends with stripped, again and again.
pub(crate) fn name_key(name: &str, extensions: &[&str]) -> String {
    let folded: String = rendered::lookalike_fold(name)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut key = folded.as_str();
    loop {
        key = key.trim_matches('.');
        match key.rsplit_once('.') {
            Some((stem, ext))
                if extensions
                    .iter()
                    .any(|e| rendered::lookalike_fold(e) == ext) =>
            {
                key = stem;
            }
            _ => return key.to_string(),
        }
    }
}

/// An output name as pactum compares it: composed (NFC), so that a name
/// and a file name written in another normal form are one name.
pub fn output_name(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.nfc().collect()
}

/// Whether a line holds a code span that could name an output (letters,
/// digits, `_`, `-`, `.`): a path or a URL (`` `docs/style.md` ``) names
/// none.
fn names_in_code(line: &str) -> bool {
    line.split('`').skip(1).step_by(2).any(|span| {
        let span = span.trim();
        !span.is_empty()
            && span
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
    }) || line.matches('`').count() == 1
}

/// A name without the code or emphasis marks around it (`` `name` ``,
/// `**name**`, `*name*`, `_name_`, `__name__`).
fn strip_ticks(s: &str) -> &str {
    let mut s = s.trim();
    loop {
        let mut cs = s.chars();
        match (cs.next(), cs.next_back()) {
            (Some(a), Some(b)) if a == b && matches!(a, '`' | '*' | '_') && s.len() >= 2 => {
                s = s[1..s.len() - 1].trim();
            }
            _ => return s,
        }
    }
}

/// One clause from its joined bullet text.
fn declared(
    line: usize,
    section: Section,
    facet: Option<String>,
    text: &str,
    sub: Vec<String>,
) -> DeclaredClause {
    let text = text.trim().to_string();
    if let Some((cond, then)) = condition_of(&text) {
        // The degraded output may name its output: `` `name` is … `` or
        // `` `name`: … ``.
        let named = then
            .strip_prefix('`')
            .and_then(|r| r.split_once('`'))
            .map(|(n, rest)| (output_name(n), rest));
        let (output, description) = match named {
            Some((n, rest)) => {
                let rest = rest.trim_start_matches(':').trim_start();
                let rest = rest.strip_prefix("is ").unwrap_or(rest);
                (Some(n), rest.trim().to_string())
            }
            None => (None, then),
        };
        return DeclaredClause {
            line,
            section,
            facet,
            output,
            description,
            text,
            sub,
            condition: Some(cond),
            label: false,
        };
    }
    let lower = text.to_ascii_lowercase();
    let (output, description) = if lower.starts_with("each ") {
        (None, text.clone())
    } else {
        match split_name(&text) {
            Some((n, d)) => (Some(n), d),
            None => (None, text.clone()),
        }
    };
    DeclaredClause {
        line,
        section,
        facet,
        output,
        description,
        text,
        sub,
        condition: None,
        label: false,
    }
}

/// A stable slug of a clause text: lowercase ASCII words joined by `-`,
/// at most 6 words. A key written in the text (SPEC §4), in any spelling
/// the redactor sees through, gives none of its words (`redacted`
/// stands for it): the slug is a clause's id, which every report shows
/// and the judge reads.
pub fn slug(text: &str) -> String {
    let keys = pactum_core::secret::key_tokens(text);
    let text = if keys.is_empty() {
        std::borrow::Cow::Borrowed(text)
    } else {
        // A redactor that cannot be built leaves no word of the text.
        pactum_core::secret::Redactor::new(keys).map_or(std::borrow::Cow::Borrowed(""), |r| {
            std::borrow::Cow::Owned(r.redact(text).into_owned())
        })
    };
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .map(str::to_ascii_lowercase)
        .collect();
    if words.is_empty() {
        "clause".into()
    } else {
        words.join("-")
    }
}

/// Unique clause ids for a contract's clauses: the output name (for a
/// conditional, `if-` and the slug of its condition), else a slug of the
/// text; a repeated id gets `-2`, `-3`…
pub fn clause_ids(clauses: &[DeclaredClause]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    // The next suffix to try for each base: many clauses on one output
    // are numbered in linear time.
    let mut next: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    clauses
        .iter()
        .map(|c| {
            let base = match (&c.condition, &c.output, &c.facet) {
                (Some(cond), _, _) => format!("if-{}", slug(cond)),
                (None, Some(o), _) => o.clone(),
                (None, None, Some(f)) => format!("{}-{}", slug(f), slug(&c.text)),
                (None, None, None) => slug(&c.text),
            };
            let mut id = base.clone();
            let n = next.entry(base.clone()).or_insert(2);
            while !seen.insert(id.clone()) {
                id = format!("{base}-{n}");
                *n += 1;
            }
            id
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ParsedFile {
        parse_file(Path::new("x.prose.md"), text).expect("parses")
    }

    const SERVICE: &str = "---\nname: researcher\nkind: service\nversion: 0.12\n---\n\n# Researcher\n\n## Requires\n\n- topic: what to research\n- if the topic is empty: nothing\n\n## Ensures\n\n- `findings`: at least 3 sources,\n  each with a URL\n- summary: a 2-3 paragraph summary\n  - if search-failed: a note saying \"no sources were found\"\n  - preserving key claims\n\nSome prose here, not a clause.\n- each source has: title, url, date\n- if the search tool failed: `findings` is a short note\n\n```text\n- not a clause\n```\n\n## Errors\n\n- search-failed: the search tool failed\n\n## Invariants\n\n- if anything: not a clause\n- every source is real\n\n## Strategies\n\n- if stuck: retry\n";

    #[test]
    fn reads_clauses_conditionals_wrapped_lines_and_sub_bullets() {
        let f = parse(SERVICE);
        assert_eq!(f.name, "researcher");
        assert_eq!(f.kind, "service");
        let c = &f.main;
        let texts: Vec<(&str, Option<&str>, Option<&str>)> = c
            .clauses
            .iter()
            .map(|c| {
                (
                    c.description.as_str(),
                    c.output.as_deref(),
                    c.condition.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            texts,
            vec![
                (
                    "at least 3 sources, each with a URL",
                    Some("findings"),
                    None
                ),
                ("a 2-3 paragraph summary", Some("summary"), None),
                (
                    "a note saying \"no sources were found\"",
                    Some("summary"),
                    Some("search-failed")
                ),
                // Prose in a section of clauses may be a commitment.
                ("Some prose here, not a clause.", None, None),
                ("each source has: title, url, date", None, None),
                (
                    "a short note",
                    Some("findings"),
                    Some("the search tool failed")
                ),
            ]
        );
        assert_eq!(c.clauses[1].sub, vec!["preserving key claims".to_string()]);
        assert_eq!(
            c.errors,
            vec![DeclaredError {
                name: "search-failed".into(),
                description: "the search tool failed".into()
            }]
        );
        assert!(f.inline.is_empty());
        let ids = clause_ids(&c.clauses);
        assert_eq!(
            ids,
            vec![
                "findings",
                "summary",
                "if-search-failed",
                "some-prose-here-not-a-clause",
                "each-source-has-title-url-date",
                "if-the-search-tool-failed"
            ]
        );
    }

    #[test]
    fn sections_that_are_not_clauses() {
        for section in [
            "Requires",
            "Parameters",
            "Invariants",
            "Strategies",
            "Execution",
            "Goal",
        ] {
            let text = format!(
                "---\nname: s\nkind: service\n---\n### {section}\n\n- `x`: at least 3 items\n- if it failed: a note\n"
            );
            let f = parse(&text);
            assert!(f.main.clauses.is_empty(), "{section}");
            assert!(!f.main.has_commitments, "{section}");
        }
    }

    #[test]
    fn returns_and_maintains_facets() {
        let f = parse("---\nname: f\nkind: function\n---\n### Returns\n\n- grade: a JSON object\n    - run_id: string\n\n### Maintains\n\n#### freshness\n\n- the index is rebuilt daily\n\n#### Execution\n\n- a step, not a clause\n");
        let c = &f.main;
        assert_eq!(c.clauses.len(), 2, "{c:#?}");
        assert_eq!(c.clauses[0].section, Section::Returns);
        assert_eq!(c.clauses[0].sub, vec!["run_id: string".to_string()]);
        assert_eq!(c.clauses[1].section, Section::Maintains);
        assert_eq!(c.clauses[1].facet.as_deref(), Some("freshness"));
        assert_eq!(
            clause_ids(&c.clauses),
            vec!["grade", "freshness-the-index-is-rebuilt-daily"]
        );
    }

    #[test]
    fn inline_services() {
        let f = parse("---\nname: sys\nkind: system\n---\n# Sys\n\n## Ensures\n\n- report: a markdown table\n\n## researcher\n\n### Ensures\n\n- findings: 3+ sources\n\n## writer\n\n### Ensures\n\n- draft: headings\n\n## Notes\n\n- nothing\n");
        assert_eq!(f.main.clauses.len(), 1);
        let names: Vec<&str> = f.inline.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["researcher", "writer"]);
        assert_eq!(
            f.inline_service("Writer")
                .map(|c| c.clauses[0].output.clone()),
            Some(Some("draft".into()))
        );
    }

    #[test]
    fn bad_files_name_the_line() {
        for (text, line, needle) in [
            ("# no frontmatter\n", 1, "frontmatter"),
            ("---\nname: x\n", 1, "not closed"),
            ("---\nkind: service\n---\n", 1, "`name`"),
            ("---\nname: x\n---\n", 1, "`kind`"),
            ("---\n- a\n---\n", 1, "mapping"),
            (
                "---\nname: x\nkind: service\n---\n## Ensures\n```\n- a: b\n",
                6,
                "never closed",
            ),
            (
                "---\nname: x\nkind: service\n---\n## Ensures\n-  \n",
                6,
                "empty",
            ),
        ] {
            match parse_file(Path::new("x.prose.md"), text) {
                Err(ImportError::Contract {
                    line: l, message, ..
                }) => {
                    assert_eq!(l, line, "{text}: {message}");
                    assert!(message.contains(needle), "{text}: {message}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    fn outputs_and_texts(f: &ParsedFile) -> Vec<(Option<String>, String)> {
        f.main
            .clauses
            .iter()
            .map(|c| (c.output.clone(), c.description.clone()))
            .collect()
    }

    const HEAD: &str = "---\nname: svc\nkind: service\n---\n\n# Svc\n\n";

    /// Every bullet a reader sees as a clause is read as one, whatever
    /// its marker or indentation; none is dropped.
    #[test]
    fn no_bullet_is_dropped() {
        let two = vec![
            (
                Some("findings".to_string()),
                "at least 3 sources".to_string(),
            ),
            (Some("summary".to_string()), "at most 5 words".to_string()),
        ];
        for body in [
            // Numbered bullets.
            "## Ensures\n\n1. `findings`: at least 3 sources\n2. `summary`: at most 5 words\n",
            "## Ensures\n\n- `findings`: at least 3 sources\n2) `summary`: at most 5 words\n",
            // Indented bullets, directly under the heading.
            "## Ensures\n\n  - `findings`: at least 3 sources\n  - `summary`: at most 5 words\n",
            // Indented bullets after a prose line.
            "## Ensures\n\nThe service guarantees:\n  - `findings`: at least 3 sources\n  - `summary`: at most 5 words\n",
            "## Ensures\n\n- `findings`: at least 3 sources\n\nAlso:\n  - `summary`: at most 5 words\n",
            // A heading with a note.
            "## Ensures (outputs)\n\n- `findings`: at least 3 sources\n- `summary`: at most 5 words\n",
            "## Ensures:\n\n- `findings`: at least 3 sources\n- `summary`: at most 5 words\n",
        ] {
            let f = parse(&format!("{HEAD}{body}"));
            assert_eq!(outputs_and_texts(&f), two, "{body}");
            assert!(f.main.clauses.iter().all(|c| c.sub.is_empty()), "{body}");
        }
    }

    /// An unindented line right after a bullet continues it (a lazy
    /// continuation line); after a blank line it is prose, read as a
    /// clause of its own (it may be a commitment).
    #[test]
    fn unindented_continuation_lines_join_their_bullet() {
        let f = parse(&format!(
            "{HEAD}## Ensures\n\n- `summary`: a summary saying \"batteries\"\nand at most 5 words\n\nProse, not a clause.\n"
        ));
        assert_eq!(
            outputs_and_texts(&f),
            vec![
                (
                    Some("summary".to_string()),
                    "a summary saying \"batteries\" and at most 5 words".to_string()
                ),
                (None, "Prose, not a clause.".to_string())
            ]
        );
    }

    /// `## Contract` wraps the file's own sections: its `### Ensures` and
    /// `### Errors` are the file's, not an inline service's.
    #[test]
    fn a_contract_heading_wraps_the_files_own_sections() {
        let f = parse(&format!(
            "{HEAD}## Contract\n\n### Requires\n\n- market: the market\n\n### Ensures\n\n- `brief`: headings\n- `appendix`: a markdown table\n\n### Errors\n\n- research-failed: nothing found\n"
        ));
        assert!(f.inline.is_empty(), "{:?}", f.inline);
        assert!(f.main.has_commitments);
        assert_eq!(f.main.clauses.len(), 2);
        assert_eq!(f.main.errors.len(), 1);
    }

    /// A heading that reads like a commitment section but is none pactum
    /// knows is refused, naming its line: its bullets would be lost.
    #[test]
    fn a_section_heading_pactum_does_not_know_is_refused() {
        for (heading, line) in [
            ("## Ensures and guarantees", 8),
            ("### Returns value", 8),
            ("## Errors raised", 8),
        ] {
            let text = format!("{HEAD}{heading}\n\n- `x`: at least 3 items\n");
            match parse_file(Path::new("x.prose.md"), &text) {
                Err(ImportError::Contract {
                    file,
                    line: l,
                    message,
                }) => {
                    assert_eq!(
                        (file.as_str(), l),
                        ("x.prose.md", line),
                        "{heading}: {message}"
                    );
                    assert!(
                        message.contains(heading.trim_start_matches('#').trim()),
                        "{message}"
                    );
                }
                other => panic!("{heading}: {other:?}"),
            }
        }
    }

    /// An inline service records the line of its heading.
    #[test]
    fn inline_services_know_their_line() {
        let f = parse(&format!(
            "{HEAD}## Ensures\n\n- `summary`: a summary\n\n## helper\n\n### Ensures\n\n- `notes`: at most 3 words\n"
        ));
        assert_eq!(f.inline.len(), 1);
        assert_eq!(f.inline[0].line, 12);
        assert_eq!(f.main.line, 0);
    }

    #[test]
    fn an_item_opens_with_an_output_in_every_spelling_a_reader_takes_for_it() {
        let opens =
            |item: &str, name: &str| opens_with_name(&opening(&rendered_inline(item)), name);
        for item in [
            "`summary`: at least 90 words",
            "summary.md: at least 90 words",
            "Summary has at least 90 words.",
            "summary → at least 90 words",
            "[x] summary: at least 90 words",
            "1. summary: at least 90 words",
            "*Summary:* at least 90 words",
            "✅ summary: at least 90 words",
            "[summary](summary.md): at least 90 words",
            "<code>summary</code>: at least 90 words",
            "\"summary\": at least 90 words",
            "&#115;ummary: at least 90 words",
            "sum\u{200b}mary: at least 90 words",
            "{summary}: at least 90 words",
            "{{summary}} must have at least 90 words",
            "$summary: at least 90 words",
            "#summary: at least 90 words",
            "bindings/svc/summary.md: at least 90 words",
            "`svc.summary`: at least 90 words",
            "ѕummary: at least 90 words",
        ] {
            assert!(opens(item, "summary"), "{item}");
        }
        for item in [
            "key\\_points: at least 9 items",
            "Key points: at least 9",
            "key-points: 9",
            "`key points`: 9",
        ] {
            assert!(opens(item, "key_points"), "{item}");
        }
        assert!(opens("resume: one page", "résumé"));
        for item in [
            "sources-empty: the researcher returned no source",
            "summary_style: short",
            "summaries are short",
            "The summary has at least 90 words.",
            "summary.final: the last one",
        ] {
            assert!(!opens(item, "summary") && !opens(item, "sources"), "{item}");
        }
    }
}
