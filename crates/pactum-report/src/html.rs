//! The single-file HTML report (`--html PATH`, `docs/html.md`).
//!
//! Rendered from the JSON report's own document ([`crate::document`]): the
//! page shows what that document holds and embeds it whole, so the two can
//! never disagree. One self-contained file: CSS and JavaScript inline,
//! allowed by a Content-Security-Policy that names their SHA-256 hashes and
//! forbids everything else (no remote load, no inline event handler, no
//! other script). The run summary, the trace list (failures first) and each
//! trace's clause breakdown are plain HTML, readable with JavaScript off;
//! the script only adds filters and a search.
//!
//! Untrusted text (SPEC §4) reaches the page only through the template
//! engine's HTML escaping ([`visible_text`] is the one formatter), as text
//! or a double-quoted attribute value, never as a URL; characters that
//! change direction or are invisible are shown as `U+XXXX`. The embedded
//! document is escaped for its `<script>` element by
//! [`crate::document::script_json`].

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};

use base64::Engine as _;
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value as JValue};
use pactum_core::trace::Channel;
use pactum_core::{ClauseResult, Evidence, Policy, TestStatus};
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::agreement::decided_by;
use crate::document::{copy_for_script, read_document, Render, RenderError, ResultEntry, Spooled};
use crate::render::Mark;
use crate::{ReportError, Reporter, RunEnd};

/// The page's style sheet (hashed into the CSP).
const CSS: &str = include_str!("html/page.css");
/// The page's script (hashed into the CSP): filters, search and pages;
/// `/*CTL*/` stands for the character class of [`CODE_POINT_SHOWN`],
/// `/*PAGE*/` for [`PAGE_SIZE`], `/*MESSAGE*/` for [`MESSAGE_CHARS`].
const JS: &str = include_str!("html/page.js");

/// At most this many traces are rendered as HTML in the page (failures
/// first): what a reader sees with JavaScript off. The script lists every
/// trace, a page at a time, from the embedded document, and renders a
/// trace's breakdown when it is opened. Bounds the page's HTML whatever
/// the size of the run.
pub const RENDERED_TRACES: usize = 200;

/// At most this many characters of each message, tool call's arguments
/// or result and side effect's details are shown in the conversation;
/// the rest is cut with a note saying how many more there are (the
/// embedded document and `--json` hold the whole text). Bounds the work
/// of drawing one hostile trace, whatever its size.
pub const MESSAGE_CHARS: usize = 20_000;

/// The note that ends a text cut at [`MESSAGE_CHARS`]; page.js writes
/// the same words.
fn cut_note(more: usize) -> String {
    format!("\n… {more} more characters not shown (the JSON report holds the whole text)")
}

/// `text` bounded to [`MESSAGE_CHARS`] characters, with [`cut_note`].
fn bounded(text: String) -> String {
    match text.char_indices().nth(MESSAGE_CHARS) {
        None => text,
        Some((cut, _)) => {
            let more = text[cut..].chars().count();
            format!("{}{}", &text[..cut], cut_note(more))
        }
    }
}

/// `segs` bounded to [`MESSAGE_CHARS`] characters in all: the segment
/// crossing the bound is cut, those after it dropped, and [`cut_note`]
/// added as a last, uncited segment.
fn bounded_segments(segs: Vec<Segment>) -> Vec<Segment> {
    let mut left = MESSAGE_CHARS;
    let mut more = 0usize;
    let mut out = Vec::new();
    for mut sg in segs {
        if left == 0 {
            more += sg.text.chars().count();
            continue;
        }
        if let Some((cut, _)) = sg.text.char_indices().nth(left) {
            more += sg.text[cut..].chars().count();
            sg.text.truncate(cut);
            left = 0;
        } else {
            left -= sg.text.chars().count();
        }
        out.push(sg);
    }
    if more > 0 {
        out.push(Segment {
            text: cut_note(more),
            cites: Vec::new(),
        });
    }
    out
}

/// Traces per page of the script's list.
pub const PAGE_SIZE: usize = 100;

/// The id of the `<script type="application/json">` element holding, when
/// the run has more than [`RENDERED_TRACES`] traces, one row per result in
/// failures-first order: `[index, decided_by, label, unobserved channels,
/// [[mark, mark class, kind] per clause], reading, calls, effects,
/// evidence]` (`reading`: for an authored test `[interpreter, why the
/// conversation stopped or null]` in words, else null; `calls`: per tool
/// call of the transcript in order, `[arguments as pactum writes them
/// (indented JSON), result text or null, [clause positions citing it]]`;
/// `effects`: per turn, per side effect `[details text, [clause
/// positions]]`; `evidence`: per clause, per piece `[element id it points
/// to or null, its text]`) — what the page shows that is not in the
/// document, computed here so the script decides no rule and never
/// re-writes a JSON value (a number above 2^53, key order).
pub const ROWS_ELEMENT_ID: &str = "pactum-rows";

/// The code points shown as `U+XXXX` rather than as themselves: the one
/// table the templates' formatter, the page's script (as a regular
/// expression), the Markdown summary and the terminal share.
use pactum_core::text::CODE_POINT_SHOWN;

/// The page's script, with the character class of [`CODE_POINT_SHOWN`]
/// and [`PAGE_SIZE`].
fn page_script() -> &'static str {
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| {
        let class: String = CODE_POINT_SHOWN
            .iter()
            .map(|(a, b)| format!("\\u{{{:x}}}-\\u{{{:x}}}", u32::from(*a), u32::from(*b)))
            .collect();
        JS.replace("/*CTL*/", &class)
            .replace("/*PAGE*/", &PAGE_SIZE.to_string())
            .replace("/*MESSAGE*/", &MESSAGE_CHARS.to_string())
    })
}

/// The id of the `<script type="application/json">` element holding the
/// JSON report.
pub const DATA_ELEMENT_ID: &str = "pactum-report";

/// `'sha256-…'` of `text`, as a CSP source.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The page's Content-Security-Policy: nothing is allowed but the one
/// style sheet and the one script, each by its hash. No remote load (no
/// `default-src`, `img-src`, `connect-src`…), no inline event handler or
/// `style` attribute (hash sources allow neither), no `<base>`, no form.
pub fn content_security_policy() -> String {
    policy_with(Some(page_script()))
}

/// The policy allowing the style sheet and, when given, that one script
/// (without one, no script may run at all).
fn policy_with(script: Option<&str>) -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; base-uri 'none'; form-action 'none'",
        csp_hash(CSS),
        script.map_or_else(|| "'none'".to_string(), csp_hash)
    )
}

/// Whether `c` is shown as `U+XXXX` rather than as itself
/// ([`pactum_core::text::CODE_POINT_SHOWN`]: controls other than tab and
/// line feed, format and default-ignorable characters, above U+FFFF too).
pub fn shown_as_code_point(c: char) -> bool {
    pactum_core::text::shown_as_code_point(c)
}

/// A piece of untrusted text as the page shows it: plain text, or a run
/// of one character [`shown_as_code_point`] names, shown as one box.
enum Piece<'a> {
    Text(&'a str),
    /// The code point and how many times it repeats in a row.
    Boxed(char, usize),
}

/// `s` cut into [`Piece`]s: a run of identical boxed characters is one
/// piece (300,000 × U+200B is one box, not 300,000), so hostile text
/// cannot multiply the page's size by the length of a box.
fn pieces(s: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut run: Option<(char, usize)> = None;
    for (i, c) in s.char_indices() {
        if shown_as_code_point(c) {
            match &mut run {
                Some((r, n)) if *r == c => *n += 1,
                _ => {
                    if let Some((r, n)) = run.take() {
                        out.push(Piece::Boxed(r, n));
                    } else if start < i {
                        out.push(Piece::Text(&s[start..i]));
                    }
                    run = Some((c, 1));
                }
            }
            start = i + c.len_utf8();
        } else if let Some((r, n)) = run.take() {
            out.push(Piece::Boxed(r, n));
        }
    }
    if let Some((r, n)) = run {
        out.push(Piece::Boxed(r, n));
    } else if start < s.len() {
        out.push(Piece::Text(&s[start..]));
    }
    out
}

/// The label of a box: `U+200B`, `U+E0041`, or `U+200B ×300000` for a run.
pub fn box_label(c: char, count: usize) -> String {
    if count > 1 {
        format!("U+{:04X} \u{d7}{count}", u32::from(c))
    } else {
        format!("U+{:04X}", u32::from(c))
    }
}

/// The one formatter of every value the templates print as text: strings
/// have the characters [`shown_as_code_point`] names replaced by a visible
/// `<span class="ctl">U+XXXX</span>` (a run of one such character by one
/// box with its count, `U+200B ×300000`), and everything else is escaped
/// by the engine's HTML escaping (`<`, `>`, `&`, `"`, `'`, `/`). Never
/// for an attribute value: the box is markup; attributes go through
/// [`attribute_text`] (the templates' `attr` filter). Public so that other
/// pages (`pactum view`) escape exactly as the report does: give it to
/// `Environment::set_formatter` with HTML auto-escaping on.
pub fn visible_text(
    out: &mut minijinja::Output,
    state: &mut minijinja::State,
    value: &JValue,
) -> Result<(), minijinja::Error> {
    let Some(s) = value.as_str().filter(|_| !value.is_safe()) else {
        return minijinja::escape_formatter(out, state, value);
    };
    for piece in pieces(s) {
        match piece {
            Piece::Text(t) => minijinja::escape_formatter(out, state, &JValue::from(t))?,
            Piece::Boxed(c, n) => write!(out, "<span class=\"ctl\">{}</span>", box_label(c, n))
                .map_err(|e| {
                    minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string())
                })?,
        }
    }
    Ok(())
}

/// `value` as the text of a double-quoted attribute value: the boxed
/// characters written as their plain label (`U+202E`, no markup), then
/// HTML-escaped (`"`, `'`, `<`, `>`, `&`, `/`). The templates' `attr`
/// filter: every `{{ … }}` inside an attribute goes through it (a test
/// checks each template).
pub fn attribute_text(value: &JValue) -> String {
    if value.is_safe() {
        // pactum's own markup-free text (the CSP), as the formatter does.
        return value.to_string();
    }
    let raw = match value.as_str() {
        Some(s) => s.to_string(),
        None => value.to_string(),
    };
    let labelled: String = pieces(&raw)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t.to_string(),
            Piece::Boxed(c, n) => box_label(c, n),
        })
        .collect();
    minijinja::HtmlEscape(&labelled).to_string()
}

/// The template environment: HTML escaping on for every template, strict
/// about undefined values (a field the document lacks is an error, never
/// an empty cell), [`visible_text`] as the formatter.
fn environment() -> Result<Environment<'static>, RenderError> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_formatter(visible_text);
    env.add_filter("attr", |v: JValue| {
        JValue::from_safe_string(attribute_text(&v))
    });
    for (name, source) in [
        ("top.html", include_str!("html/top.html")),
        ("trace.html", include_str!("html/trace.html")),
        ("bottom.html", include_str!("html/bottom.html")),
        ("strength.html", include_str!("html/strength.html")),
        ("compare.html", include_str!("html/compare.html")),
    ] {
        env.add_template(name, source).map_err(template_error)?;
    }
    Ok(env)
}

/// A serde value as a template value.
fn serde_value<T: Serialize>(v: T) -> JValue {
    JValue::from(minijinja::value::Serde(v))
}

fn template_error(e: minijinja::Error) -> RenderError {
    RenderError::Template(format!("{e:#}"))
}

/// One piece of evidence as the page shows it.
#[derive(Serialize)]
struct EvidenceView {
    kind: &'static str,
    /// Where it is: `turn 2 response`, `turn 1 tool call #3`, `field /x`.
    place: String,
    /// The tool or effect name, when it has one.
    name: Option<String>,
    errored: bool,
    /// The quoted text, or the arguments/details/value as indented JSON.
    text: String,
    /// The element id of the place in the conversation it points to, when
    /// the page shows the conversation.
    goto: Option<String>,
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

impl EvidenceView {
    /// `e` as shown; `at`: the trace's index and the trace, when the page
    /// shows its conversation (the evidence then points into it: a quote
    /// from tool arguments or results to the call that holds it).
    fn of(e: &Evidence, at: Option<(usize, &pactum_core::trace::Trace)>) -> EvidenceView {
        let mut view = EvidenceView::plain(e);
        view.goto = at.and_then(|(i, t)| match e {
            Evidence::Quote { turn, source, .. } if source.as_str() == "response" => {
                Some(format!("t{i}-turn{turn}-response"))
            }
            Evidence::Quote { turn, source, text } => {
                Some(match call_quoting(t, *turn, source.as_str(), text) {
                    Some(call) => format!("t{i}-call{call}"),
                    None => format!("t{i}-turn{turn}"),
                })
            }
            Evidence::SideEffect {
                turn,
                effect,
                details,
            } => Some(match effect_matching(t, *turn, effect, details) {
                Some(k) => format!("t{i}-turn{turn}-effect{k}"),
                None => format!("t{i}-turn{turn}"),
            }),
            Evidence::ToolCall { index, .. } => Some(format!("t{i}-call{index}")),
            Evidence::Field { .. } => None,
        });
        view
    }

    fn plain(e: &Evidence) -> EvidenceView {
        match e {
            Evidence::Quote { turn, source, text } => EvidenceView {
                kind: "quote",
                place: format!("turn {turn} {source}"),
                name: None,
                errored: false,
                text: text.clone(),
                goto: None,
            },
            Evidence::ToolCall {
                turn,
                index,
                name,
                arguments,
                errored,
            } => EvidenceView {
                kind: "tool_call",
                place: format!("turn {turn} tool call #{}", index + 1),
                name: Some(name.clone()),
                errored: *errored,
                text: pretty(arguments),
                goto: None,
            },
            Evidence::SideEffect {
                turn,
                effect,
                details,
            } => EvidenceView {
                kind: "side_effect",
                place: format!("turn {turn} side effect"),
                name: Some(effect.clone()),
                errored: false,
                text: pretty(details),
                goto: None,
            },
            Evidence::Field { pointer, value } => EvidenceView {
                kind: "field",
                place: format!("field {pointer}"),
                name: None,
                errored: false,
                text: pretty(value),
                goto: None,
            },
        }
    }
}

#[derive(Serialize)]
struct OperandView<'a> {
    predicate: &'a str,
    reason: &'a str,
    channel: Option<&'static str>,
}

#[derive(Serialize)]
struct EchoView<'a> {
    predicate: &'a str,
    turn: usize,
}

#[derive(Serialize)]
struct ClauseView<'a> {
    /// The element id of the clause's row (`t3-c0-1`: trace, contract,
    /// clause), which the conversation's citations point to.
    anchor: String,
    mark: char,
    mark_class: &'static str,
    id: &'a str,
    text: &'a str,
    kind: String,
    severity: &'static str,
    verdict: &'static str,
    confidence: u8,
    evidence: Vec<EvidenceView>,
    rationale: &'a str,
    reason: Option<&'static str>,
    suggestion: Option<&'a str>,
    undetermined: Vec<OperandView<'a>>,
    echoes: Vec<EchoView<'a>>,
}

impl<'a> ClauseView<'a> {
    fn of(
        c: &'a ClauseResult,
        anchor: String,
        at: Option<(usize, &pactum_core::trace::Trace)>,
    ) -> ClauseView<'a> {
        let mark = Mark::of(c);
        ClauseView {
            anchor,
            mark: mark.symbol(),
            mark_class: mark_class(mark),
            id: &c.id,
            text: &c.text,
            kind: crate::render::kind(c),
            severity: c.severity.as_str(),
            verdict: c.verdict.as_str(),
            confidence: c.confidence,
            evidence: c.evidence.iter().map(|e| EvidenceView::of(e, at)).collect(),
            rationale: &c.rationale,
            reason: c.reason.map(|r| r.as_str()),
            suggestion: c.suggestion.as_deref(),
            undetermined: c
                .undetermined_operands
                .iter()
                .map(|u| OperandView {
                    predicate: &u.predicate,
                    reason: &u.reason,
                    channel: u.channel.map(Channel::as_str),
                })
                .collect(),
            echoes: c
                .discounted_echoes
                .iter()
                .map(|e| EchoView {
                    predicate: &e.predicate,
                    turn: e.turn,
                })
                .collect(),
        }
    }
}

/// The CSS class of a clause mark.
fn mark_class(mark: Mark) -> &'static str {
    match mark {
        Mark::Held => "held",
        Mark::Broken => "broken",
        Mark::Partial => "partial",
        Mark::Unknown => "unknown",
        Mark::Untested => "untested",
    }
}

/// The element id of clause `k` of contract `ci` of result `index`.
fn clause_anchor(index: usize, ci: usize, k: usize) -> String {
    format!("t{index}-c{ci}-{k}")
}

/// A clause citing a place of the conversation as its evidence.
#[derive(Serialize, Clone)]
struct Cite {
    clause: String,
    mark: char,
    mark_class: &'static str,
    /// The clause row's element id.
    anchor: String,
    /// The clause's position among all the result's clauses, in order
    /// (the rows name clauses by it).
    #[serde(skip)]
    flat: usize,
}

/// A run of message text; `cites` is empty for text no clause quoted.
#[derive(Serialize)]
struct Segment {
    text: String,
    cites: Vec<Cite>,
}

/// Whether a call's arguments hold quote `q`: in one of their decoded
/// strings (keys or values: the evaluator quotes a string as it is, with
/// its newlines and quotes, not as JSON writes it), as the page shows
/// them (indented JSON) or as one line (compact JSON). The script does
/// not decide it: pactum ships each call's cites in the rows
/// ([`ROWS_ELEMENT_ID`]).
fn arguments_hold(call: &pactum_core::trace::ToolCall, q: &str) -> bool {
    !q.is_empty()
        && (string_leaf_holds(&call.arguments, q)
            || pretty(&call.arguments).contains(q)
            || call.arguments.to_string().contains(q))
}

/// Whether a string of `v` (a value, or an object's key) holds `q`.
fn string_leaf_holds(v: &Value, q: &str) -> bool {
    match v {
        Value::String(s) => s.contains(q),
        Value::Array(a) => a.iter().any(|x| string_leaf_holds(x, q)),
        Value::Object(m) => m
            .iter()
            .any(|(k, x)| k.contains(q) || string_leaf_holds(x, q)),
        _ => false,
    }
}

/// Whether a call's result holds quote `q`: as the page shows it, or in
/// one of its decoded strings when it is a JSON value.
fn result_holds(call: &pactum_core::trace::ToolCall, q: &str) -> bool {
    !q.is_empty()
        && call.result.as_ref().is_some_and(|v| {
            string_leaf_holds(v, q) || result_text(call).is_some_and(|r| r.contains(q))
        })
}

/// Whether side-effect details `have` hold what evidence `cited` names:
/// equal, or, for objects, every key of `cited` present in `have` with a
/// value that holds its value (the evidence may carry the matched part).
fn details_hold(have: &Value, cited: &Value) -> bool {
    match (have, cited) {
        (Value::Object(h), Value::Object(c)) => c
            .iter()
            .all(|(k, v)| h.get(k).is_some_and(|x| details_hold(x, v))),
        _ => have == cited,
    }
}

/// The 0-based index within turn `turn` (1-based) of the first side
/// effect of kind `kind` whose details hold `details`; `None` when none
/// does.
fn effect_matching(
    t: &pactum_core::trace::Trace,
    turn: usize,
    kind: &str,
    details: &Value,
) -> Option<usize> {
    t.turns
        .get(turn.checked_sub(1)?)?
        .side_effects
        .iter()
        .position(|e| e.kind == kind && details_hold(&e.details, details))
}

/// A call's result as the page shows it: a string as itself, any other
/// value as indented JSON.
fn result_text(call: &pactum_core::trace::ToolCall) -> Option<String> {
    call.result.as_ref().map(|v| match v {
        Value::String(s) => s.clone(),
        v => pretty(v),
    })
}

/// The 0-based index in the trace of the first call of turn `turn`
/// (1-based) whose arguments (`source` `tool_arguments`) or result
/// (`tool_results`) hold quote `q`; `None` for any other source or when
/// no call does.
fn call_quoting(
    t: &pactum_core::trace::Trace,
    turn: usize,
    source: &str,
    q: &str,
) -> Option<usize> {
    let before: usize = t
        .turns
        .iter()
        .take(turn.checked_sub(1)?)
        .map(|u| u.tool_calls.len())
        .sum();
    let calls = &t.turns.get(turn - 1)?.tool_calls;
    calls
        .iter()
        .position(|c| match source {
            "tool_arguments" => arguments_hold(c, q),
            "tool_results" => result_holds(c, q),
            _ => false,
        })
        .map(|k| before + k)
}

/// `text` cut into segments at the quoted spans `quotes` (each found at
/// its first occurrence; overlapping spans join the earlier one).
fn segments(text: &str, quotes: &[(&str, Cite)]) -> Vec<Segment> {
    let mut spans: Vec<(usize, usize, Cite)> = quotes
        .iter()
        .filter(|(q, _)| !q.is_empty())
        .filter_map(|(q, c)| text.find(q).map(|at| (at, at + q.len(), c.clone())))
        .collect();
    spans.sort_by_key(|(a, b, _)| (*a, std::cmp::Reverse(*b)));
    let mut out: Vec<Segment> = Vec::new();
    let mut at = 0;
    let mut last_end = 0;
    for (a, b, cite) in spans {
        if a < last_end {
            // Overlaps the span before: cited there too.
            if let Some(seg) = out.last_mut() {
                if !seg.cites.iter().any(|c| c.anchor == cite.anchor) {
                    seg.cites.push(cite);
                }
            }
            continue;
        }
        if a > at {
            out.push(Segment {
                text: text[at..a].to_string(),
                cites: Vec::new(),
            });
        }
        out.push(Segment {
            text: text[a..b].to_string(),
            cites: vec![cite],
        });
        at = b;
        last_end = b;
    }
    if at < text.len() || out.is_empty() {
        out.push(Segment {
            text: text[at..].to_string(),
            cites: Vec::new(),
        });
    }
    out
}

#[derive(Serialize)]
struct MessageView {
    role: &'static str,
    segments: Vec<Segment>,
}

#[derive(Serialize)]
struct CallView {
    /// The element id (`t3-call0`: trace, 0-based position in the trace).
    anchor: String,
    /// 1-based, as the evidence names it (`tool call #1`).
    number: usize,
    name: String,
    arguments: String,
    result: Option<String>,
    error: Option<String>,
    cites: Vec<Cite>,
}

#[derive(Serialize)]
struct EffectView {
    anchor: String,
    kind: String,
    details: String,
    cites: Vec<Cite>,
}

#[derive(Serialize)]
struct TurnView {
    number: usize,
    input: Vec<MessageView>,
    /// `None`: no response recorded.
    response: Option<Vec<Segment>>,
    response_anchor: String,
    calls: Vec<CallView>,
    effects: Vec<EffectView>,
}

/// The trace as a conversation, each place a clause's evidence points to
/// marked with the clauses citing it.
#[derive(Serialize)]
struct ConversationView {
    turns: Vec<TurnView>,
    error: Option<String>,
    incomplete: Option<String>,
    offered_tools: Option<Vec<String>>,
}

impl ConversationView {
    fn of(index: usize, t: &pactum_core::trace::Trace, r: &pactum_core::TraceResult) -> Self {
        // Every piece of evidence with the clause it belongs to.
        let mut cited: Vec<(&Evidence, Cite)> = Vec::new();
        let mut flat = 0;
        for (ci, c) in r.contracts.iter().enumerate() {
            for (k, cl) in c.clauses.iter().enumerate() {
                let mark = Mark::of(cl);
                let cite = Cite {
                    clause: cl.id.clone(),
                    mark: mark.symbol(),
                    mark_class: mark_class(mark),
                    anchor: clause_anchor(index, ci, k),
                    flat,
                };
                flat += 1;
                cited.extend(cl.evidence.iter().map(|e| (e, cite.clone())));
            }
        }
        let quotes = |turn: usize, source: &str| -> Vec<(&str, Cite)> {
            cited
                .iter()
                .filter_map(|(e, c)| match e {
                    Evidence::Quote {
                        turn: n,
                        source: s,
                        text,
                    } if *n == turn && s.as_str() == source => Some((text.as_str(), c.clone())),
                    _ => None,
                })
                .collect()
        };
        let mut call_index = 0;
        let turns = t
            .turns
            .iter()
            .enumerate()
            .map(|(ti, turn)| {
                let number = ti + 1;
                let input = turn
                    .input
                    .iter()
                    .map(|m| {
                        let role = match m.role {
                            pactum_core::trace::Role::System => "system",
                            pactum_core::trace::Role::User => "user",
                        };
                        MessageView {
                            role,
                            segments: bounded_segments(segments(
                                &m.content,
                                &quotes(number, role),
                            )),
                        }
                    })
                    .collect();
                let arg_quotes = quotes(number, "tool_arguments");
                let result_quotes = quotes(number, "tool_results");
                let calls = turn
                    .tool_calls
                    .iter()
                    .map(|call| {
                        let at = call_index;
                        call_index += 1;
                        let arguments = pretty(&call.arguments);
                        let result = result_text(call);
                        let mut cites: Vec<Cite> = cited
                            .iter()
                            .filter(|(e, _)| matches!(e, Evidence::ToolCall { index, .. } if *index == at))
                            .map(|(_, c)| c.clone())
                            .collect();
                        for (q, c) in &arg_quotes {
                            if arguments_hold(call, q) {
                                cites.push(c.clone());
                            }
                        }
                        for (q, c) in &result_quotes {
                            if result_holds(call, q) {
                                cites.push(c.clone());
                            }
                        }
                        cites.dedup_by(|a, b| a.anchor == b.anchor);
                        CallView {
                            anchor: format!("t{index}-call{at}"),
                            number: at + 1,
                            name: call.name.clone(),
                            arguments: bounded(arguments),
                            result: result.map(bounded),
                            error: call.error.clone(),
                            cites,
                        }
                    })
                    .collect();
                let effects = turn
                    .side_effects
                    .iter()
                    .enumerate()
                    .map(|(k, e)| EffectView {
                        anchor: format!("t{index}-turn{number}-effect{k}"),
                        kind: e.kind.clone(),
                        details: bounded(pretty(&e.details)),
                        cites: cited
                            .iter()
                            .filter(|(ev, _)| matches!(ev, Evidence::SideEffect { turn, effect, details } if *turn == number && *effect == e.kind && details_hold(&e.details, details)))
                            .map(|(_, c)| c.clone())
                            .collect(),
                    })
                    .collect();
                TurnView {
                    number,
                    input,
                    response: turn
                        .response
                        .as_deref()
                        .map(|text| bounded_segments(segments(text, &quotes(number, "response")))),
                    response_anchor: format!("t{index}-turn{number}-response"),
                    calls,
                    effects,
                }
            })
            .collect();
        ConversationView {
            turns,
            error: t.error.clone(),
            incomplete: t.incomplete.clone(),
            offered_tools: t
                .offered_tools
                .as_ref()
                .map(|o| o.iter().cloned().collect()),
        }
    }
}

#[derive(Serialize)]
struct ContractView<'a> {
    id: &'a str,
    digest: &'a str,
    score: Option<f64>,
    clauses: Vec<ClauseView<'a>>,
}

/// One trace as the page shows it: its list line and its breakdown.
#[derive(Serialize)]
struct TraceView<'a> {
    index: usize,
    status: &'static str,
    label: &'static str,
    trace_id: &'a str,
    source: Option<String>,
    observability: &'static str,
    unobserved: Vec<&'static str>,
    contract_ids: String,
    decided_by: String,
    summary: &'a str,
    error: Option<&'a str>,
    expected: Option<&'static str>,
    overall_score: Option<f64>,
    contracts: Vec<ContractView<'a>>,
    /// The conversation, when the document holds the trace.
    conversation: Option<ConversationView>,
    /// How its authored test was read, when it is one.
    reading: Option<ReadingView<'a>>,
}

/// The interpretation panel of an authored test: the document's
/// `interpretation` of the result, with what the template cannot derive
/// (the interpreter in words, why the conversation stopped in words).
#[derive(Serialize)]
struct ReadingView<'a> {
    r: &'a crate::Reading,
    /// `built-in interpreter (pactum-builtin-interpreter/2)`, `model m
    /// (prompt v)`, `the author's own contract`, or `not recorded`.
    interpreter: String,
    /// The authored fields in order, with their names.
    fields: Vec<(&'static str, &'a str)>,
    /// Why the conversation stopped, in words.
    stopped: Option<String>,
}

impl<'a> ReadingView<'a> {
    fn of(r: &'a crate::Reading) -> ReadingView<'a> {
        let text = |k: &str| {
            r.interpreter
                .as_ref()
                .and_then(|i| i.get(k))
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string()
        };
        let interpreter = match r
            .interpreter
            .as_ref()
            .and_then(|i| i.get("kind"))
            .and_then(Value::as_str)
        {
            Some("builtin") => format!("the built-in interpreter ({})", text("version")),
            Some("model") => format!(
                "model {} (prompt {})",
                text("model"),
                text("prompt_version")
            ),
            Some("explicit") => "none: the author's own contract".to_string(),
            Some(other) => format!("unknown ({other})"),
            None => "not recorded".to_string(),
        };
        let a = &r.authored;
        let stopped = r.ended.as_ref().map(|e| {
            let at = format!("after turn {} (of at most {})", e.turns, a.max_turns);
            match (e.reason.as_str(), &e.clause) {
                ("violation", Some(c)) => {
                    format!("{at}: prohibited clause {c} was violated (a violation is permanent)")
                }
                ("violation", None) => format!("{at}: a prohibited clause was violated"),
                ("max_turns", _) => format!("{at}: the turn limit was reached"),
                ("target_ended", _) => format!("{at}: the target ended the conversation"),
                ("script_done", _) => format!("{at}: the scripted turns ran out"),
                ("error", _) => format!("{at}: an error (see the result's error)"),
                (other, _) => format!("{at}: {other}"),
            }
        });
        ReadingView {
            r,
            interpreter,
            fields: vec![
                ("goal", a.goal.as_str()),
                ("instructions", a.instructions.as_str()),
                ("restrictions", a.restrictions.as_str()),
                ("scenario", a.scenario.as_str()),
            ],
            stopped,
        }
    }
}

impl<'a> TraceView<'a> {
    fn of(entry: &'a ResultEntry, policy: &Policy) -> TraceView<'a> {
        let r = &entry.result;
        TraceView {
            index: entry.index,
            status: r.status.as_str(),
            label: r.status.label(),
            trace_id: &r.trace_id,
            source: r.source.as_ref().map(|s| format!("{}:{}", s.file, s.line)),
            observability: r.observability.as_str(),
            unobserved: [Channel::Response, Channel::ToolCalls, Channel::SideEffects]
                .into_iter()
                .filter(|c| !r.observability.observes(*c))
                .map(Channel::as_str)
                .collect(),
            contract_ids: r
                .contracts
                .iter()
                .map(|c| c.contract_id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            decided_by: decided_by(r, policy).2,
            summary: &r.summary,
            error: r.error.as_deref(),
            expected: entry.expected.map(TestStatus::as_str),
            overall_score: r.overall_score,
            conversation: entry
                .transcript
                .as_ref()
                .map(|t| ConversationView::of(entry.index, t, r)),
            reading: entry.reading.as_ref().map(ReadingView::of),
            contracts: r
                .contracts
                .iter()
                .enumerate()
                .map(|(ci, c)| ContractView {
                    id: &c.contract_id,
                    digest: &c.contract_digest,
                    score: c.score,
                    clauses: c
                        .clauses
                        .iter()
                        .enumerate()
                        .map(|(k, cl)| {
                            ClauseView::of(
                                cl,
                                clause_anchor(entry.index, ci, k),
                                entry.transcript.as_ref().map(|t| (entry.index, t)),
                            )
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// The policy recorded in a report's header (its `digest` is derived).
pub(crate) fn header_policy(head: &Map<String, Value>) -> Result<Policy, RenderError> {
    let mut p = head
        .get("policy")
        .cloned()
        .ok_or_else(|| RenderError::Malformed("no policy".into()))?;
    if let Value::Object(m) = &mut p {
        m.remove("digest");
    }
    serde_json::from_value(p).map_err(|e| RenderError::Malformed(format!("policy: {e}")))
}

/// Renders the HTML page from a JSON report document.
pub(crate) struct HtmlRender;

impl Render for HtmlRender {
    fn render(
        &mut self,
        doc: &mut BufReader<File>,
        out: &mut dyn Write,
    ) -> Result<(), RenderError> {
        render_html(doc, out)
    }
}

/// Writes the page for the JSON report `doc` (read from its start) to
/// `out`. The document is read twice: once to render (each result into a
/// spool file of its status group, so failures come first whatever the
/// input order), once to embed it.
///
/// # Errors
/// [`RenderError`] when the document cannot be read or is not a JSON
/// report, a template fails, or `out` cannot be written.
pub(crate) fn render_html(
    doc: &mut BufReader<File>,
    out: &mut dyn Write,
) -> Result<(), RenderError> {
    let env = environment()?;
    let trace_tmpl = env.get_template("trace.html").map_err(template_error)?;
    // Each result is rendered as it is read, into the spool of its status
    // group, so failures come first whatever the input order; at most
    // RENDERED_TRACES per group are rendered (no more can be shown). Every
    // result also gets a row ([`ROWS_ELEMENT_ID`]) in its group's row
    // spool, for the script's pages.
    let spool = || -> Result<std::io::BufWriter<File>, RenderError> {
        Ok(std::io::BufWriter::new(
            tempfile::tempfile().map_err(RenderError::Spool)?,
        ))
    };
    let mut groups = Vec::new();
    let mut rows = Vec::new();
    for _ in TestStatus::ALL {
        groups.push(spool()?);
        rows.push(spool()?);
    }
    // The end offset of each rendered trace, per group.
    let mut ends: Vec<Vec<u64>> = vec![Vec::new(); TestStatus::ALL.len()];
    let mut written = vec![0u64; TestStatus::ALL.len()];
    let mut traces = 0usize;
    let mut policy: Option<Policy> = None;
    let head = read_document(&mut *doc, &mut |head, entry| {
        if policy.is_none() {
            policy = Some(header_policy(head).map_err(|e| e.to_string())?);
        }
        let Some(policy) = &policy else {
            return Err("no policy".into());
        };
        let group = TestStatus::ALL
            .iter()
            .position(|s| *s == entry.result.status)
            .ok_or("unknown status")?;
        traces += 1;
        let view = TraceView::of(&entry, policy);
        let marks: Vec<(char, &str, &str)> = view
            .contracts
            .iter()
            .flat_map(|c| c.clauses.iter())
            .map(|cl| (cl.mark, cl.mark_class, cl.kind.as_str()))
            .collect();
        let flats = |cites: &[Cite]| cites.iter().map(|c| c.flat).collect::<Vec<_>>();
        let (calls, effects) = view.conversation.as_ref().map_or_else(
            || (Vec::new(), Vec::new()),
            |cv| {
                (
                    cv.turns
                        .iter()
                        .flat_map(|t| t.calls.iter())
                        .map(|c| (c.arguments.as_str(), c.result.as_deref(), flats(&c.cites)))
                        .collect::<Vec<_>>(),
                    cv.turns
                        .iter()
                        .map(|t| {
                            t.effects
                                .iter()
                                .map(|e| (e.details.as_str(), flats(&e.cites)))
                                .collect::<Vec<_>>()
                        })
                        .collect::<Vec<_>>(),
                )
            },
        );
        let evidence: Vec<Vec<(Option<&str>, &str)>> = view
            .contracts
            .iter()
            .flat_map(|c| c.clauses.iter())
            .map(|cl| {
                cl.evidence
                    .iter()
                    .map(|e| (e.goto.as_deref(), e.text.as_str()))
                    .collect()
            })
            .collect();
        let row = serde_json::to_string(&(
            view.index,
            &view.decided_by,
            view.label,
            view.unobserved.join(", "),
            marks,
            view.reading
                .as_ref()
                .map(|r| (r.interpreter.as_str(), r.stopped.as_deref())),
            calls,
            effects,
            evidence,
        ))
        .map_err(|e| e.to_string())?;
        writeln!(rows[group], "{row}").map_err(|e| e.to_string())?;
        if ends[group].len() >= RENDERED_TRACES {
            return Ok(());
        }
        let mut counted = CountingWriter {
            inner: &mut groups[group],
            count: 0,
        };
        trace_tmpl
            .render_captured_to(
                minijinja::context! { t => serde_value(&view) },
                &mut counted,
            )
            .map_err(|e| format!("{e:#}"))?;
        written[group] += counted.count;
        ends[group].push(written[group]);
        Ok(())
    })?;
    let totals = head
        .get("totals")
        .cloned()
        .ok_or_else(|| RenderError::Malformed("no totals".into()))?;
    // The tab's title is the terminal's totals line: every status and a
    // partial run named, so an all-error or partial run never reads "0 fail".
    let title = serde_json::from_value::<crate::Totals>(totals.clone())
        .map_err(|e| RenderError::Malformed(format!("totals: {e}")))?
        .summary_line();
    let rendered = traces.min(RENDERED_TRACES);
    let ctx = minijinja::context! {
        report => serde_value(&head),
        totals => serde_value(&totals),
        title => title,
        statuses => TestStatus::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        csp => JValue::from_safe_string(content_security_policy()),
        css => JValue::from_safe_string(CSS.to_string()),
        rendered => rendered,
        not_rendered => traces - rendered,
        page_size => PAGE_SIZE,
    };
    let top = env.get_template("top.html").map_err(template_error)?;
    top.render_captured_to(ctx.clone(), &mut *out)
        .map_err(template_error)?;
    // The first RENDERED_TRACES traces in failures-first order.
    let mut left = RENDERED_TRACES;
    for (group, ends) in groups.into_iter().zip(&ends) {
        let take = ends.len().min(left);
        left -= take;
        let Some(&bytes) = take.checked_sub(1).and_then(|i| ends.get(i)) else {
            continue;
        };
        let mut file = rewound(group)?;
        std::io::copy(&mut (&mut file).take(bytes), &mut *out).map_err(RenderError::Write)?;
    }
    let bottom = env.get_template("bottom.html").map_err(template_error)?;
    bottom
        .render_captured_to(ctx, &mut *out)
        .map_err(template_error)?;
    // The document itself, for the script (and for anyone who saves the
    // page: it is the --json report).
    write!(
        out,
        "<script type=\"application/json\" id=\"{DATA_ELEMENT_ID}\">"
    )
    .map_err(RenderError::Write)?;
    doc.seek(SeekFrom::Start(0)).map_err(RenderError::Spool)?;
    copy_for_script(doc, out)?;
    out.write_all(b"</script>\n").map_err(RenderError::Write)?;
    // Traces the page does not render are listed by the script, page by
    // page, in this order (failures first), each with its deciding clause.
    if traces > RENDERED_TRACES {
        write!(
            out,
            "<script type=\"application/json\" id=\"{ROWS_ELEMENT_ID}\">["
        )
        .map_err(RenderError::Write)?;
        let mut first = true;
        for group in rows {
            let mut file = BufReader::new(rewound(group)?);
            let mut line = String::new();
            loop {
                line.clear();
                if file.read_line(&mut line).map_err(RenderError::Spool)? == 0 {
                    break;
                }
                if !first {
                    out.write_all(b",\n").map_err(RenderError::Write)?;
                }
                first = false;
                out.write_all(crate::document::script_json(line.trim_end()).as_bytes())
                    .map_err(RenderError::Write)?;
            }
        }
        out.write_all(b"]</script>\n").map_err(RenderError::Write)?;
    }
    write!(
        out,
        "<script>{}</script>\n</body>\n</html>\n",
        page_script()
    )
    .map_err(RenderError::Write)?;
    Ok(())
}

/// A spool's file, flushed and read from its start.
fn rewound(spool: std::io::BufWriter<File>) -> Result<File, RenderError> {
    let mut file = spool
        .into_inner()
        .map_err(|e| RenderError::Spool(e.into_error()))?;
    file.seek(SeekFrom::Start(0)).map_err(RenderError::Spool)?;
    Ok(file)
}

/// Counts the bytes written through it.
struct CountingWriter<'a, W: Write> {
    inner: &'a mut W,
    count: u64,
}

impl<W: Write> Write for CountingWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The HTML report as a [`Reporter`]: spools the JSON report, renders the
/// page at `finish`.
pub struct HtmlReporter<W: Write>(Spooled<W, HtmlRender>);

impl<W: Write> HtmlReporter<W> {
    /// A reporter writing the page to `out`.
    ///
    /// # Errors
    /// [`ReportError::Spool`] when its temporary file cannot be created.
    pub fn new(out: W) -> Result<Self, ReportError> {
        Ok(HtmlReporter(
            Spooled::new(out, HtmlRender, "html")?.with_transcripts(),
        ))
    }

    /// Names the destination (normally the report's path) in error messages.
    pub fn with_destination(self, destination: impl Into<String>) -> Self {
        HtmlReporter(self.0.with_destination(destination))
    }
}

impl<W: Write> Reporter for HtmlReporter<W> {
    fn begin(&mut self, info: &crate::RunInfo) -> Result<(), ReportError> {
        self.0.begin(info)
    }
    fn result(
        &mut self,
        r: &pactum_core::TraceResult,
        expected: Option<TestStatus>,
    ) -> Result<(), ReportError> {
        self.0.result(r, expected)
    }
    fn input_error(&mut self, e: &crate::InputError) -> Result<(), ReportError> {
        self.0.input_error(e)
    }
    fn wants_transcripts(&self) -> bool {
        self.0.wants_transcripts()
    }
    fn transcript(&mut self, t: &pactum_core::trace::Trace) -> Result<(), ReportError> {
        self.0.transcript(t)
    }
    fn reading(&mut self, r: &crate::Reading) -> Result<(), ReportError> {
        self.0.reading(r)
    }
    fn missing_trial(&mut self, m: &crate::MissingTrial) -> Result<(), ReportError> {
        self.0.missing_trial(m)
    }
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        self.0.finish(end)
    }
}

/// The strength chart's geometry, in CSS pixels.
#[derive(Serialize)]
struct ChartGeometry {
    width: u32,
    height: u32,
    /// Where the bars start (the class names are left of it).
    left: u32,
    /// A bar's full length (rate 1).
    bar: u32,
}

const CHART: ChartGeometry = ChartGeometry {
    width: 640,
    height: 96,
    left: 110,
    bar: 300,
};

/// One class of a strength vector, as the chart draws it.
#[derive(Serialize)]
struct Bar {
    class: String,
    /// Top of the bar.
    y: u32,
    /// Whether anything was exercised: a `null` rate is drawn as "not
    /// measured", never as an empty bar.
    measured: bool,
    caught: u64,
    exercised: u64,
    /// The rate with two decimals.
    rate: String,
    /// The filled length.
    fill: u32,
    denominator: String,
}

/// The bars of one strength vector (its JSON, as `--json` prints it), in
/// the vector's class order.
///
/// # Errors
/// [`RenderError::Malformed`] when a class lacks its counts.
fn bars(vector: &Value) -> Result<Vec<Bar>, RenderError> {
    let malformed = |what: &str| RenderError::Malformed(format!("strength vector: {what}"));
    let classes = vector
        .as_object()
        .ok_or_else(|| malformed("not an object"))?;
    let mut out = Vec::new();
    for (i, (class, rate)) in classes.iter().enumerate() {
        let count = |k: &str| {
            rate.get(k)
                .and_then(Value::as_u64)
                .ok_or_else(|| malformed(k))
        };
        let value = match rate.get("rate") {
            Some(Value::Null) => None,
            Some(v) => Some(v.as_f64().ok_or_else(|| malformed("rate"))?),
            None => return Err(malformed("rate")),
        };
        out.push(Bar {
            class: class.clone(),
            y: 8 + 28 * i as u32,
            measured: value.is_some(),
            caught: count("caught")?,
            exercised: count("exercised")?,
            rate: value.map_or_else(String::new, |r| format!("{r:.2}")),
            fill: value.map_or(0, |r| {
                (r.clamp(0.0, 1.0) * f64::from(CHART.bar)).round() as u32
            }),
            denominator: rate
                .get("denominator")
                .and_then(Value::as_str)
                .ok_or_else(|| malformed("denominator"))?
                .to_string(),
        });
    }
    Ok(out)
}

/// Writes the `pactum strength` page for `summary` to `out`: per contract
/// the strength vector as an inline SVG chart (a class nothing exercised
/// reads "not measured", never 0), the vector's table, the verdict ladder
/// with its basis, the missed probes and the coverage gaps; then skipped
/// traces and probes and warnings. Rendered from the canonical JSON that
/// `pactum strength --json` prints, embedded in the page; no script runs.
///
/// # Errors
/// [`RenderError`] when a template fails or `out` cannot be written.
pub(crate) fn render_strength_html(
    summary: &crate::strength::StrengthSummary,
    out: &mut dyn Write,
) -> Result<(), RenderError> {
    render_strength_document(&pactum_core::digest::canonical_json(summary), out)
}

/// [`render_strength_html`] from the summary's canonical JSON `json`.
fn render_strength_document(json: &str, out: &mut dyn Write) -> Result<(), RenderError> {
    let doc: Value =
        serde_json::from_str(json).map_err(|e| RenderError::Malformed(e.to_string()))?;
    let contracts = doc
        .get("contracts")
        .and_then(Value::as_array)
        .ok_or_else(|| RenderError::Malformed("no contracts".into()))?
        .iter()
        .map(|c| {
            let strength = c
                .get("strength")
                .ok_or_else(|| RenderError::Malformed("no strength vector".into()))?;
            Ok(minijinja::context! { s => serde_value(c), bars => serde_value(bars(strength)?) })
        })
        .collect::<Result<Vec<_>, RenderError>>()?;
    let env = environment()?;
    let page = env.get_template("strength.html").map_err(template_error)?;
    let ctx = minijinja::context! {
        s => serde_value(&doc),
        contracts => contracts,
        chart => serde_value(&CHART),
        csp => JValue::from_safe_string(policy_with(None)),
        css => JValue::from_safe_string(CSS.to_string()),
    };
    page.render_captured_to(ctx, &mut *out)
        .map_err(template_error)?;
    write!(out, "<script type=\"application/json\" id=\"{DATA_ELEMENT_ID}\">{}</script>\n</body>\n</html>\n", crate::document::script_json(json))
        .map_err(RenderError::Write)
}

/// Writes the `pactum strength` page to `path` (`-`: standard output)
/// whole or not at all ([`ReportFile`]). The caller checked `path`
/// against the command's inputs and outputs first
/// ([`crate::check_outputs`]).
///
/// # Errors
/// [`ReportError`] naming the path; the destination then keeps its
/// previous content.
pub fn write_strength_html(
    path: &std::path::Path,
    summary: &crate::strength::StrengthSummary,
) -> Result<(), ReportError> {
    write_page(path, &|out| render_strength_html(summary, out))
}

/// Writes the `pactum compare` page for `summary` to `out`: the dominance
/// answer and why, and each side's strength vector as a chart and a table
/// (a class nothing exercised reads "not measured", never 0; a side that
/// is not one consistent measurement has no vector and says so). Rendered
/// from the JSON `pactum compare --json` prints, embedded in the page; no
/// script runs.
///
/// # Errors
/// [`RenderError`] when a template fails or `out` cannot be written.
pub(crate) fn render_compare_html(
    summary: &crate::strength::CompareSummary,
    out: &mut dyn Write,
) -> Result<(), RenderError> {
    render_compare_document(&pactum_core::digest::canonical_json(summary), out)
}

/// [`render_compare_html`] from the comparison's canonical JSON `json`.
fn render_compare_document(json: &str, out: &mut dyn Write) -> Result<(), RenderError> {
    let doc: Value =
        serde_json::from_str(json).map_err(|e| RenderError::Malformed(e.to_string()))?;
    let mut sides = Vec::new();
    for name in ["A", "B"] {
        let side = doc
            .get(name.to_ascii_lowercase())
            .ok_or_else(|| RenderError::Malformed(format!("no side {name}")))?;
        let bars = match side.get("strength") {
            Some(Value::Null) => None,
            Some(v) => Some(bars(v)?),
            None => return Err(RenderError::Malformed(format!("side {name}: no strength"))),
        };
        sides.push(
            minijinja::context! { name => name, s => serde_value(side), bars => serde_value(bars) },
        );
    }
    let verdict = match doc.get("dominance").and_then(Value::as_str) {
        Some("a-dominates-b") => "A is the stronger contract",
        Some("b-dominates-a") => "B is the stronger contract",
        Some("equivalent") => "neither is stronger",
        Some("incomparable") => "no order between them",
        _ => return Err(RenderError::Malformed("dominance".into())),
    };
    let env = environment()?;
    let page = env.get_template("compare.html").map_err(template_error)?;
    let ctx = minijinja::context! {
        s => serde_value(&doc),
        sides => sides,
        verdict => verdict,
        chart => serde_value(&CHART),
        csp => JValue::from_safe_string(policy_with(None)),
        css => JValue::from_safe_string(CSS.to_string()),
    };
    page.render_captured_to(ctx, &mut *out)
        .map_err(template_error)?;
    write!(out, "<script type=\"application/json\" id=\"{DATA_ELEMENT_ID}\">{}</script>\n</body>\n</html>\n", crate::document::script_json(json))
        .map_err(RenderError::Write)
}

/// Writes `render` to `path` (`-`: standard output) whole or not at all.
fn write_page(
    path: &std::path::Path,
    render: &dyn Fn(&mut dyn Write) -> Result<(), RenderError>,
) -> Result<(), ReportError> {
    let shown = path.display().to_string();
    let fail = |e: RenderError| match e {
        RenderError::Write(e) => ReportError::write(&shown, e),
        e => ReportError::write(&shown, std::io::Error::other(e.to_string())),
    };
    if path.as_os_str() == crate::STDOUT {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        render(&mut out).map_err(fail)?;
        return out.flush().map_err(|e| ReportError::write(&shown, e));
    }
    let (file, w) = crate::ReportFile::create(path)?;
    let mut out = std::io::BufWriter::new(w);
    render(&mut out).map_err(fail)?;
    out.flush().map_err(|e| ReportError::write(&shown, e))?;
    drop(out);
    file.commit()
}

/// Writes the `pactum compare` page to `path` (`-`: standard output)
/// whole or not at all, like [`write_strength_html`]. The caller checked
/// `path` against the command's inputs first ([`crate::check_outputs`]).
///
/// # Errors
/// [`ReportError`] naming the path; the destination then keeps its
/// previous content.
pub fn write_compare_html(
    path: &std::path::Path,
    summary: &crate::strength::CompareSummary,
) -> Result<(), ReportError> {
    write_page(path, &|out| render_compare_html(summary, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strength summary's JSON with one contract whose gameability
    /// class nothing exercised (`rate: null`).
    fn summary_json() -> String {
        serde_json::json!({
            "authored_probes": 0, "clean_traces": 1, "command": "strength",
            "comparability_key": "sha256:k", "input_errors": 0,
            "policy": {"catch_threshold": 0.5, "confidence_threshold": 50, "digest": "sha256:p",
                       "minimum_trials": 3, "severity_floor": "medium"},
            "probes": {"defect": 2, "zero_action": 1},
            "probes_from": {"digest": "sha256:c", "id": "c<b>", "path": "c.yaml"},
            "scoring_version": "sha256:s", "skipped_probes": [], "skipped_traces": [],
            "trials": 3, "verdict": "concerns", "version": 1, "warnings": [],
            "contracts": [{
                "basis": [{"count": 1, "reason": "too-few-trials", "rung": "concerns"}],
                "contract": {"digest": "sha256:c", "id": "c<b>", "path": "c.yaml"},
                "coverage_gaps": [], "missed": [], "out": "out", "verdict": "concerns",
                "probes": [{"probe_id": "t:1/defect/<img src=x>", "class": "defect", "severity": "high",
                            "targets": "pay", "mutation": "inject send_money()",
                            "trial_votes": {"caught": 2, "missed": 1}, "caught_count": 2,
                            "valid_count": 3, "state": "caught", "verdict": "pass"},
                           {"probe_id": "t:1/zero", "class": "zero_action", "severity": "medium",
                            "mutation": "empty the response", "trial_votes": {"missed": 1},
                            "caught_count": 0, "valid_count": 1, "state": "missed", "verdict": "fail"}],
                "strength": {
                    "defect": {"caught": 1, "denominator": "1 of 2", "exercised": 2, "rate": 0.5},
                    "gameability": {"caught": 0, "denominator": "0 of 0", "exercised": 0, "rate": null},
                    "zero_action": {"caught": 0, "denominator": "0 of 1", "exercised": 1, "rate": 0.0}
                }
            }]
        })
        .to_string()
    }

    /// The chart of one class, between its group tags.
    fn bar(page: &str, class: &str) -> String {
        let open = format!("<g class=\"bar {class}\" data-class=\"{class}\">");
        let at = page.find(&open).expect("the class's bar");
        let end = page[at..].find("</g>").expect("its end");
        page[at..at + end].to_string()
    }

    /// Hostile text, in every context a payload could try.
    const HOSTILE: &str = "</script><script>document.documentElement.dataset.pwned=1</script><img src=x onerror=alert(1)>\"><b x=\"'<!--javascript:alert(1)\u{2028}";

    /// The page of one failing authored test read as `reading`.
    fn authored_page(reading: &crate::Reading) -> String {
        use pactum_core::contract::{ClauseKind, Severity};
        use pactum_core::{ContractResult, ObservabilityLevel, Outcome, Verdict};
        let clause = ClauseResult {
            id: "share-code".into(),
            kind: ClauseKind::Prohibited,
            conditional: false,
            text: "Reveal the discount code".into(),
            severity: Severity::High,
            verdict: Verdict::Violated,
            confidence: 90,
            outcome: Outcome::Detected,
            evidence: vec![],
            rationale: "it did".into(),
            undetermined_operands: vec![],
            discounted_echoes: vec![],
            reason: None,
            suggestion: None,
        };
        let result = pactum_core::TraceResult {
            trace_id: "code#1".into(),
            source: None,
            observability: ObservabilityLevel::ResponseOnly,
            status: TestStatus::Fail,
            summary: "violated share-code".into(),
            contracts: vec![ContractResult::new(
                "authored".into(),
                "sha256:c".into(),
                vec![clause],
            )],
            overall_score: Some(0.0),
            error: None,
        };
        let mut out = Vec::new();
        let mut page = HtmlReporter::new(&mut out).expect("a spool");
        page.begin(&crate::RunInfo {
            command: "run".into(),
            pactum_version: "0".into(),
            policy: Policy::default(),
            contracts: vec![],
            authored_tests: 1,
            expectations: None,
            run: Some("suite.yaml".into()),
        })
        .expect("begin");
        page.reading(reading).expect("reading");
        page.result(&result, None).expect("result");
        page.finish(&RunEnd::default()).expect("finish");
        drop(page);
        String::from_utf8(out).expect("utf-8")
    }

    fn reading(text: &str) -> crate::Reading {
        crate::Reading {
            test_id: format!("code{text}"),
            authored: crate::AuthoredFields {
                goal: format!("The target refuses to reveal the discount code{text}"),
                instructions: String::new(),
                restrictions: text.into(),
                scenario: "The support chat".into(),
                min_turns: 1,
                max_turns: 4,
            },
            interpreter: Some(
                serde_json::json!({"kind": "builtin", "version": format!("v{text}")}),
            ),
            confidence: Some(85),
            usable: Some(true),
            reason: None,
            contract: Some(crate::ReadContract {
                id: format!("authored{text}"),
                digest: "sha256:c".into(),
                simulated_user_objective: Some(format!("get the code{text}")),
                adversarial: true,
                clauses: vec![crate::ReadClause {
                    id: "share-code".into(),
                    kind: "prohibited".into(),
                    text: "Reveal the discount code".into(),
                    field: Some("goal".into()),
                    note: Some(format!("named without negation{text}")),
                }],
            }),
            ended: Some(crate::ConversationEnd {
                turns: 2,
                reason: "violation".into(),
                clause: Some(format!("share-code{text}")),
            }),
        }
    }

    #[test]
    fn an_authored_test_shows_how_it_was_read() {
        let page = authored_page(&reading(""));
        let at = page
            .find("<section class=\"reading\" id=\"t0-reading\">")
            .expect("the panel");
        let panel = &page[at..at + page[at..].find("</section>").expect("its end")];
        assert!(panel.contains("<dd data-field=\"goal\"><pre>The target refuses to reveal the discount code</pre></dd>"), "{panel}");
        assert!(
            panel.contains("<dd data-field=\"instructions\"><em>(not written)</em></dd>"),
            "{panel}"
        );
        assert!(
            panel.contains("<dd class=\"interpreter\">the built-in interpreter (v)</dd>"),
            "{panel}"
        );
        assert!(
            panel.contains("<dd class=\"confidence\">85</dd>"),
            "{panel}"
        );
        assert!(panel.contains("<tr data-clause=\"share-code\"><td class=\"id\">share-code</td><td>prohibited</td><td>Reveal the discount code</td><td class=\"field\">goal</td><td class=\"note\">named without negation</td></tr>"), "{panel}");
        assert!(
            panel
                .contains("after turn 2 (of at most 4): prohibited clause share-code was violated"),
            "{panel}"
        );
        // The document the page embeds holds it: the JSON report's field.
        assert!(
            page.contains("\"interpretation\":{\"test_id\":\"code\""),
            "the embedded document"
        );
        // A clause with no note says so, never a guessed field.
        let mut r = reading("");
        if let Some(c) = r.contract.as_mut() {
            c.clauses[0].field = None;
            c.clauses[0].note = None;
        }
        r.interpreter = None;
        r.confidence = None;
        let page = authored_page(&r);
        assert!(page.contains("<td class=\"field\"><em>no source note</em></td>"));
        assert!(page.contains("<dd class=\"interpreter\">not recorded</dd>"));
        assert!(page.contains("<dd class=\"confidence\">not recorded</dd>"));
        // Unusable: no contract, and why.
        let mut r = reading("");
        r.contract = None;
        r.usable = Some(false);
        r.reason = Some("confidence 20 below the threshold 50".into());
        r.ended = None;
        let page = authored_page(&r);
        assert!(
            page.contains("<span class=\"err\">no: confidence 20 below the threshold 50</span>")
        );
        assert!(page.contains("No contract was scored"));
    }

    #[test]
    fn hostile_authored_text_is_only_text_in_the_panel() {
        let page = authored_page(&reading(HOSTILE));
        let at = page.find("<section class=\"reading\"").expect("the panel");
        let panel = &page[at..at + page[at..].find("</section>").expect("its end")];
        for raw in ["<script", "<img", "<b ", "<!--", "\u{2028}"] {
            assert!(!panel.contains(raw), "{raw} in {panel}");
        }
        assert!(
            panel.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{panel}"
        );
        assert!(
            panel.contains("<span class=\"ctl\">U+2028</span>"),
            "{panel}"
        );
        // The page holds exactly its own two scripts (document, script).
        assert_eq!(page.matches("<script").count(), 2);
        assert!(!page.contains("\u{2028}"));
    }

    /// A comparison's JSON, side B inconsistent, side A with an
    /// unmeasured class.
    fn compare_json(name: &str) -> String {
        serde_json::json!({
            "version": 1, "command": "compare", "dominance": "incomparable",
            "reason": {"kind": "inconsistent"},
            "explanation": format!("B is not one measurement{name}"),
            "policy": {"catch_threshold": 0.5, "confidence_threshold": 50, "digest": "sha256:p",
                       "minimum_trials": 3, "severity_floor": "medium"},
            "a": {"path": format!("a{name}"), "artifacts": 3,
                  "contracts": [{"id": format!("c{name}"), "digest": "sha256:c"}],
                  "strength": {
                    "defect": {"caught": 2, "denominator": "2 of 2", "exercised": 2, "rate": 1.0},
                    "gameability": {"caught": 0, "denominator": "0 of 0", "exercised": 0, "rate": null}}},
            "b": {"path": "b", "artifacts": 1, "contracts": [], "strength": null}
        })
        .to_string()
    }

    #[test]
    fn the_compare_page_shows_dominance_and_each_vector() {
        let mut out = Vec::new();
        render_compare_document(&compare_json(""), &mut out).expect("renders");
        let page = String::from_utf8(out).expect("utf-8");
        assert!(page
            .contains("<span class=\"badge incomparable\" id=\"dominance\">incomparable</span>"));
        assert!(page.contains("(no order between them)"));
        let a =
            &page[page.find("id=\"side-A\"").expect("A")..page.find("id=\"side-B\"").expect("B")];
        assert!(a.contains("2/2 caught (1.00)"), "{a}");
        let g = bar(a, "gameability");
        assert!(
            g.contains("not measured (0 exercised)") && !g.contains("class=\"fill\""),
            "{g}"
        );
        let b = &page[page.find("id=\"side-B\"").expect("B")..];
        assert!(b.contains("No vector: this side is not one consistent measurement."));
        assert!(page.contains("script-src 'none'"));
        // Hostile names are text.
        let mut out = Vec::new();
        render_compare_document(&compare_json(HOSTILE), &mut out).expect("renders");
        let page = String::from_utf8(out).expect("utf-8");
        let body = &page[..page
            .find("<script type=\"application/json\"")
            .expect("data")];
        for raw in ["<script", "<img", "<b ", "<!--", "\u{2028}"] {
            assert!(!body.contains(raw), "{raw}");
        }
        assert_eq!(page.matches("<script").count(), 1);
        // An unknown answer is an error, never a page.
        let broken = compare_json("").replace("incomparable", "maybe");
        assert!(matches!(
            render_compare_document(&broken, &mut Vec::new()),
            Err(RenderError::Malformed(_))
        ));
    }

    #[test]
    fn the_script_shows_the_same_code_points_as_the_templates() {
        let js = page_script();
        assert!(!js.contains("/*CTL*/") && !js.contains("/*PAGE*/"));
        assert!(js.contains(&format!("var PAGE = {PAGE_SIZE};")));
        // Every code point in the script's class is one the formatter
        // shows, and the reverse: the class is built from the same table.
        let class: String = (0..=0x10ffffu32)
            .filter_map(char::from_u32)
            .filter(|c| shown_as_code_point(*c))
            .map(|c| format!("{:04x}", u32::from(c)))
            .collect::<Vec<_>>()
            .join(",");
        let mut from_js = Vec::new();
        let at = js.find("var CTL = /[").expect("the class") + 12;
        let end = at + js[at..].find("]/gu;").expect("its end, a `u` pattern");
        for range in js[at..end]
            .split("\\u{")
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .chunks(2)
        {
            let hex = |s: &str| {
                u32::from_str_radix(s.trim_end_matches('-').trim_end_matches('}'), 16).expect("hex")
            };
            from_js.extend((hex(range[0])..=hex(range[1])).map(|c| format!("{c:04x}")));
        }
        assert_eq!(from_js.join(","), class);
        assert!(shown_as_code_point('\u{E0041}'));
        assert!(shown_as_code_point('\u{202e}') && !shown_as_code_point('\n'));
    }

    /// The markup of `page` outside its style sheet and scripts.
    fn markup(page: &str) -> String {
        let mut out = String::new();
        let mut rest = page;
        loop {
            let next = [("<style>", "</style>"), ("<script", "</script>")]
                .iter()
                .filter_map(|(o, c)| rest.find(o).map(|at| (at, *c)))
                .min_by_key(|(at, _)| *at);
            let Some((at, close)) = next else {
                out.push_str(rest);
                return out;
            };
            out.push_str(&rest[..at]);
            let end = rest[at..].find(close).expect("closed") + at + close.len();
            rest = &rest[end..];
        }
    }

    /// Every double-quoted attribute value of `page`'s markup, which must
    /// hold no markup (a `<` or `>` inside means a value broke out).
    fn attribute_values(page: &str) -> Vec<String> {
        let m = markup(page);
        let mut values = Vec::new();
        let mut rest = m.as_str();
        while let Some(at) = rest.find("=\"") {
            let v = &rest[at + 2..];
            let end = v.find('"').expect("closed value");
            values.push(v[..end].to_string());
            rest = &v[end + 1..];
        }
        values
    }

    #[test]
    fn every_attribute_in_every_template_goes_through_attribute_escaping() {
        for (name, source) in [
            ("top.html", include_str!("html/top.html")),
            ("trace.html", include_str!("html/trace.html")),
            ("bottom.html", include_str!("html/bottom.html")),
            ("strength.html", include_str!("html/strength.html")),
            ("compare.html", include_str!("html/compare.html")),
        ] {
            let mut rest = source;
            while let Some(at) = rest.find("=\"") {
                let v = &rest[at + 2..];
                let end = v.find('"').expect("closed value");
                let value = &v[..end];
                let mut expr = value;
                while let Some(open) = expr.find("{{") {
                    let close = expr[open..].find("}}").expect("closed") + open;
                    assert!(
                        expr[open..close].trim_end().ends_with("|attr"),
                        "{name}: {value}"
                    );
                    expr = &expr[close + 2..];
                }
                rest = &v[end + 1..];
            }
        }
        let label = |s: &str| attribute_text(&JValue::from(s));
        assert_eq!(
            label("bank\u{202E}ing\u{200B}x\""),
            "bankU+202EingU+200Bx&quot;"
        );
        assert_eq!(label("a\u{E0041}b"), "aU+E0041b");
        assert_eq!(
            label("<span class=\"ctl\">"),
            "&lt;span class=&quot;ctl&quot;&gt;"
        );
        assert_eq!(attribute_text(&JValue::from(15)), "15");
    }

    #[test]
    fn an_invisible_character_in_an_id_cannot_break_out_of_an_attribute() {
        let hostile = "bank\u{202E}ing\u{200B}x\" onmouseover=\"y";
        let json = summary_json()
            .replace("\"c<b>\"", &serde_json::to_string(hostile).expect("json"))
            .replace("\"defect\"", "\"de\u{200B}fect\"");
        let mut out = Vec::new();
        render_strength_document(&json, &mut out).expect("renders");
        let page = String::from_utf8(out).expect("utf-8");
        let values = attribute_values(&page);
        assert!(values.iter().all(|v| !v.contains(['<', '>'])), "{values:?}");
        assert!(
            page.contains(
                "aria-label=\"strength vector of bankU+202EingU+200Bx&quot; onmouseover=&quot;y\""
            ),
            "{page}"
        );
        assert!(page.contains("data-class=\"deU+200Bfect\""), "{page}");
        // As text, the same id is boxed.
        assert!(page.contains("bank<span class=\"ctl\">U+202E</span>ing"));
        // The interpretation panel's clause rows, and the report's pages.
        let mut r = reading("");
        if let Some(c) = r.contract.as_mut() {
            for cl in &mut c.clauses {
                cl.id = format!("leak\u{202E}pw\"{}", cl.id);
            }
        }
        let page = authored_page(&r);
        let values = attribute_values(&page);
        assert!(values.iter().all(|v| !v.contains(['<', '>'])), "{values:?}");
        assert!(page.contains("data-clause=\"leakU+202Epw&quot;"), "{page}");
    }

    /// A trace with a lookup and an e-mail in turn 1, and two e-mails sent.
    fn mail_trace() -> pactum_core::trace::Trace {
        serde_json::from_value(serde_json::json!({
            "id": "m", "observability": "full",
            "turns": [{
                "input": [{"role": "user", "content": "mail Bob"}],
                "response": "done",
                "tool_calls": [
                    {"name": "lookup", "arguments": {"q": "Bob"}, "result": {"body": "Hi,\nplease pay \"EVIL-IBAN-123\" now"}},
                    {"name": "send_email", "arguments": {"to": "bob@corp", "body": "Dear Bob,\nplease pay \"EVIL-IBAN-123\" today.\nThanks"},
                     "result": "Hi,\nplease pay \"EVIL-IBAN-123\" now"}
                ],
                "side_effects": [
                    {"kind": "email_sent", "details": {"to": "friend@ok"}},
                    {"kind": "email_sent", "details": {"to": "evil@x"}}
                ]
            }]
        }))
        .expect("a trace")
    }

    /// A failing result with one violated clause holding `evidence`.
    fn result_with(evidence: Vec<Evidence>) -> pactum_core::TraceResult {
        use pactum_core::contract::{ClauseKind, Severity};
        use pactum_core::{ContractResult, ObservabilityLevel, Outcome, Verdict};
        let clause = ClauseResult {
            id: "no-evil".into(),
            kind: ClauseKind::Prohibited,
            conditional: false,
            text: "No evil".into(),
            severity: Severity::High,
            verdict: Verdict::Violated,
            confidence: 90,
            outcome: Outcome::Detected,
            evidence,
            rationale: "it did".into(),
            undetermined_operands: vec![],
            discounted_echoes: vec![],
            reason: None,
            suggestion: None,
        };
        pactum_core::TraceResult {
            trace_id: "m".into(),
            source: None,
            observability: ObservabilityLevel::Full,
            status: TestStatus::Fail,
            summary: "violated".into(),
            contracts: vec![ContractResult::new(
                "c".into(),
                "sha256:c".into(),
                vec![clause],
            )],
            overall_score: Some(0.0),
            error: None,
        }
    }

    #[test]
    fn a_quote_with_a_newline_or_quotes_is_placed_on_the_call_that_holds_it() {
        let t = mail_trace();
        let body = "Dear Bob,\nplease pay \"EVIL-IBAN-123\" today.\nThanks";
        let quote = |source: &str, text: &str| Evidence::Quote {
            turn: 1,
            source: source.into(),
            text: text.into(),
        };
        // The whole decoded string, and a window spanning the newline and
        // a quote: both on the e-mail, never on the lookup.
        for q in [body, "Bob,\nplease pay \"EVIL"] {
            assert_eq!(call_quoting(&t, 1, "tool_arguments", q), Some(1), "{q:?}");
            let e = quote("tool_arguments", q);
            let view = EvidenceView::of(&e, Some((7, &t)));
            assert_eq!(view.goto.as_deref(), Some("t7-call1"));
            let cv = ConversationView::of(7, &t, &result_with(vec![e]));
            let cited: Vec<bool> = cv.turns[0]
                .calls
                .iter()
                .map(|c| !c.cites.is_empty())
                .collect();
            assert_eq!(cited, [false, true], "{q:?}");
        }
        // A JSON value as a result: its string holds the quote too, so
        // both calls holding it are cited, the first one linked.
        let e = quote("tool_results", "Hi,\nplease pay \"EVIL");
        assert_eq!(
            EvidenceView::of(&e, Some((7, &t))).goto.as_deref(),
            Some("t7-call0")
        );
        let cv = ConversationView::of(7, &t, &result_with(vec![e]));
        let cited: Vec<bool> = cv.turns[0]
            .calls
            .iter()
            .map(|c| !c.cites.is_empty())
            .collect();
        assert_eq!(cited, [true, true]);
        // A quote no call holds cites none and links to the turn.
        let e = quote("tool_arguments", "nowhere\n");
        assert_eq!(
            EvidenceView::of(&e, Some((7, &t))).goto.as_deref(),
            Some("t7-turn1")
        );
    }

    #[test]
    fn only_the_side_effect_whose_details_match_is_marked() {
        let t = mail_trace();
        let e = Evidence::SideEffect {
            turn: 1,
            effect: "email_sent".into(),
            details: serde_json::json!({"to": "evil@x"}),
        };
        assert_eq!(
            EvidenceView::of(&e, Some((3, &t))).goto.as_deref(),
            Some("t3-turn1-effect1")
        );
        let cv = ConversationView::of(3, &t, &result_with(vec![e]));
        let effects = &cv.turns[0].effects;
        assert!(effects[0].cites.is_empty(), "the innocent e-mail is marked");
        assert_eq!(effects[1].cites.len(), 1);
        assert_eq!(effects[1].anchor, "t3-turn1-effect1");
        // Another kind, or details no effect has: nothing marked.
        for (kind, to) in [("sms_sent", "evil@x"), ("email_sent", "other@x")] {
            let e = Evidence::SideEffect {
                turn: 1,
                effect: kind.into(),
                details: serde_json::json!({ "to": to }),
            };
            let cv = ConversationView::of(3, &t, &result_with(vec![e]));
            assert!(cv.turns[0].effects.iter().all(|x| x.cites.is_empty()));
        }
    }

    /// `s` as the templates print it.
    fn printed(s: &str) -> String {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::Html);
        env.set_formatter(visible_text);
        env.render_str("{{ v }}", minijinja::context! { v => s })
            .expect("renders")
    }

    #[test]
    fn a_run_of_one_invisible_character_is_one_box_with_its_count() {
        let zw = "\u{200B}".repeat(300_000);
        let page = printed(&format!("hunter2{zw}x\u{E0041}\u{E0041}\u{202E}"));
        assert_eq!(
            page,
            "hunter2<span class=\"ctl\">U+200B \u{d7}300000</span>x<span class=\"ctl\">U+E0041 \u{d7}2</span><span class=\"ctl\">U+202E</span>"
        );
        assert_eq!(
            printed("a\u{FFFE}b\u{10FFFF}"),
            "a<span class=\"ctl\">U+FFFE</span>b<span class=\"ctl\">U+10FFFF</span>"
        );
    }

    #[test]
    fn a_long_message_is_cut_at_the_bound_with_a_note() {
        let t: pactum_core::trace::Trace = serde_json::from_value(serde_json::json!({
            "id": "big", "observability": "tool_calls",
            "turns": [{
                "input": [{"role": "user", "content": "hi"}],
                "response": format!("{}SECRET-END", "a".repeat(MESSAGE_CHARS + 5)),
                "tool_calls": [{"name": "n", "arguments": {"x": "b".repeat(MESSAGE_CHARS * 2)}}]
            }]
        }))
        .expect("a trace");
        let e = Evidence::Quote {
            turn: 1,
            source: "response".into(),
            text: "aaaaaaaaaaSECRET".into(),
        };
        let cv = ConversationView::of(0, &t, &result_with(vec![e]));
        let response = cv.turns[0].response.as_ref().expect("a response");
        let shown: usize = response.iter().map(|s| s.text.chars().count()).sum();
        let last = response.last().expect("the note");
        assert_eq!(last.text, cut_note(15));
        assert!(last.cites.is_empty());
        assert_eq!(shown, MESSAGE_CHARS + cut_note(15).chars().count());
        // The quoted span crossing the bound is cut, still marked.
        assert_eq!(response[response.len() - 2].text, "aaaaa");
        assert_eq!(response[response.len() - 2].cites.len(), 1);
        let args = &cv.turns[0].calls[0].arguments;
        assert!(args.starts_with("{\n  \"x\": \"bbb"));
        assert!(args.ends_with(" more characters not shown (the JSON report holds the whole text)"));
        assert_eq!(
            args.chars().count(),
            MESSAGE_CHARS + cut_note(MESSAGE_CHARS + 13).chars().count()
        );
    }

    #[test]
    fn a_class_nothing_exercised_is_not_measured_never_zero() {
        let mut out = Vec::new();
        render_strength_document(&summary_json(), &mut out).expect("renders");
        let page = String::from_utf8(out).expect("utf-8");
        let g = bar(&page, "gameability");
        assert!(g.contains("not measured (0 exercised)"), "{g}");
        assert!(!g.contains("class=\"fill\"") && !g.contains("0.00"), "{g}");
        // A measured zero is a zero, drawn as an empty bar.
        let z = bar(&page, "zero_action");
        assert!(
            z.contains("0/1 caught (0.00)") && z.contains("width=\"0\""),
            "{z}"
        );
        let d = bar(&page, "defect");
        assert!(
            d.contains("1/2 caught (0.50)") && d.contains("width=\"150\""),
            "{d}"
        );
        // The table says the same.
        assert!(page.contains("<td class=\"n\">not measured</td>"));
        // The probe table: every probe, its trial votes and state.
        assert!(page.contains("<tr class=\"probe caught\" data-class=\"defect\"><td class=\"id\">t:1&#x2f;defect&#x2f;&lt;img src=x&gt;</td><td>defect</td><td>high</td><td>pay</td><td>inject send_money()</td><td>caught 2, missed 1</td><td class=\"n\">2/3</td>"), "{page}");
        assert!(page.contains("<tr class=\"probe missed\" data-class=\"zero_action\"><td class=\"id\">t:1&#x2f;zero</td><td>zero_action</td><td>medium</td><td></td><td>empty the response</td><td>missed 1</td><td class=\"n\">0/1</td>"), "{page}");
        // No script may run on this page; the summary is embedded, escaped.
        assert!(page.contains("script-src 'none'"));
        assert!(page.contains("c&lt;b&gt;"));
        assert!(page.contains("\"id\":\"c\\u003cb\\u003e\""));
        // Every count is required: a class without one is an error.
        let broken = summary_json().replace("\"exercised\":2,", "");
        assert!(matches!(
            render_strength_document(&broken, &mut Vec::new()),
            Err(RenderError::Malformed(_))
        ));
    }
}
