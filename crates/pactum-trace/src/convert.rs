//! What every record converter shares: where the record is, the id rule,
//! and JSON error reporting. Message content and tool calls are decoded by
//! [`pactum_core::chat`].

pub(crate) use pactum_core::chat::kind;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use pactum_core::json::Field;
use pactum_core::trace::{ObservabilityLevel, SourceRef, ToolCall, Trace};
use serde_json::error::Category;
use serde_json::Value;

use crate::error::{quote, serde_message, RecordError};
use crate::messages::Problem;
use crate::pointer::Pointer;

/// The outcome of converting one record.
#[derive(Debug)]
pub(crate) enum Conv {
    /// A trace, before `withhold` is applied.
    Trace(Trace),
    /// A record that holds no trace; the reason names its line.
    Skip(String),
    /// A record that could not be read.
    Error(RecordError),
    /// The record gives no observability level and no flag does.
    NoLevel,
}

/// What a scan of a whole file found about one trace beyond what its
/// spans say (a LangSmith run cut off or placed in two traces, a Langfuse
/// observation pactum cannot classify), applied once the trace is built.
#[derive(Debug, Clone)]
pub(crate) enum Note {
    /// The recording stops before the target finished: why.
    Incomplete(String),
    /// The trace cannot be graded.
    Error(RecordError),
}

/// Notes by OpenTelemetry trace id (a built trace lists its ids in
/// metadata `otel_trace_ids`), in the order found.
pub(crate) type Notes = BTreeMap<String, Vec<Note>>;

/// The trace with the notes of its OpenTelemetry traces applied: the first
/// error refuses it; else the first reason it is incomplete, unless the
/// builder found one already.
pub(crate) fn apply_notes(notes: &Notes, mut trace: Trace) -> Conv {
    let ids: Vec<&str> = match trace.metadata.field("otel_trace_ids") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mine: Vec<&Note> = ids
        .iter()
        .filter_map(|id| notes.get(*id))
        .flatten()
        .collect();
    if let Some(e) = mine.iter().find_map(|n| match n {
        Note::Error(e) => Some(e.clone()),
        Note::Incomplete(_) => None,
    }) {
        return Conv::Error(e);
    }
    if trace.incomplete.is_none() {
        trace.incomplete = mine.iter().find_map(|n| match n {
            Note::Incomplete(why) => Some(why.clone()),
            Note::Error(_) => None,
        });
    }
    Conv::Trace(trace)
}

/// Where one record sits, and what it inherits from the options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordCtx<'a> {
    /// The file path as given.
    pub file: &'a str,
    /// The file's name (last component), for fallback ids.
    pub file_name: &'a str,
    /// 1-based line where the record starts.
    pub line: u64,
    /// 1-based position in its JSON array, for array elements.
    pub ordinal: Option<u64>,
    /// The record is a whole line (JSONL), so parser columns are line columns.
    pub line_framed: bool,
    /// The `--observability` flag.
    pub level_flag: Option<ObservabilityLevel>,
}

impl RecordCtx<'_> {
    /// A record error at the record's line.
    pub(crate) fn error(&self, field: Option<&str>, message: impl AsRef<str>) -> RecordError {
        RecordError::new(self.file, self.line, field.map(str::to_string), message)
    }

    /// The record's bytes as one JSON value, refusing a key repeated in
    /// one object (SPEC §4): `serde_json` would keep the last, so
    /// `{"messages": [attack], "messages": []}` would read as a harmless
    /// record. The error names the repeated key's JSON pointer.
    pub(crate) fn strict_value(&self, bytes: &[u8]) -> Result<Value, RecordError> {
        match pactum_core::json::parse_strict(bytes) {
            Ok(v) => Ok(v),
            Err(pactum_core::json::StrictJsonError::Syntax(e)) => Err(self.json_error(&e, None)),
            Err(e @ pactum_core::json::StrictJsonError::DuplicateKey { .. }) => {
                let rel = u64::try_from(e.line()).unwrap_or(1).saturating_sub(1);
                let pointer = match &e {
                    pactum_core::json::StrictJsonError::DuplicateKey { pointer, .. } => {
                        Some(pointer.clone())
                    }
                    _ => None,
                };
                Err(RecordError::new(
                    self.file,
                    self.line + rel,
                    pointer,
                    format!("the record is ambiguous: {e}"),
                ))
            }
        }
    }

    /// A record error for a serde_json failure inside the record's bytes,
    /// at the line the parser stopped on, naming the field when known.
    pub(crate) fn json_error(
        &self,
        e: &serde_json::Error,
        path: Option<&serde_path_to_error::Path>,
    ) -> RecordError {
        let rel = u64::try_from(e.line()).unwrap_or(1).saturating_sub(1);
        let line = self.line + rel;
        let msg = serde_message(e);
        match e.classify() {
            Category::Data => {
                let field = path.and_then(pointer_of);
                RecordError::new(self.file, line, field, msg)
            }
            Category::Syntax | Category::Eof | Category::Io => {
                let column = if rel > 0 || self.line_framed {
                    format!(" (column {})", e.column())
                } else {
                    String::new()
                };
                RecordError::new(
                    self.file,
                    line,
                    None,
                    format!("invalid JSON: {msg}{column}"),
                )
            }
        }
    }

    /// `{file name}#{n}` for the n-th element of a JSON array, else
    /// `{file name}:{line}`.
    pub(crate) fn fallback_id(&self) -> String {
        match self.ordinal {
            Some(n) => format!("{}#{n}", self.file_name),
            None => format!("{}:{}", self.file_name, self.line),
        }
    }

    /// Where the trace was read from.
    pub(crate) fn source(&self) -> SourceRef {
        SourceRef {
            file: self.file.to_string(),
            line: self.line,
        }
    }

    /// The trace id of a JSON record: the value at `explicit` (given by a
    /// flag; an error when absent or unusable), else the record's `id`
    /// member when it is a non-empty string or a number, else
    /// [`Self::fallback_id`].
    pub(crate) fn trace_id(
        &self,
        record: &Value,
        explicit: Option<(&Pointer, &str)>,
    ) -> Result<String, RecordError> {
        if let Some((p, flag)) = explicit {
            return match p.get(record) {
                Some(v) => id_text(v).ok_or_else(|| {
                    self.error(
                        Some(p.as_str()),
                        format!("expected a non-empty string or a number for the trace id ({flag}), found {}", kind(v)),
                    )
                }),
                None => Err(self.error(Some(p.as_str()), format!("no trace id here ({flag})"))),
            };
        }
        Ok(record
            .field("id")
            .and_then(id_text)
            .unwrap_or_else(|| self.fallback_id()))
    }
}

/// A usable id: a non-empty string, or a number's JSON spelling.
pub(crate) fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A JSON pointer for a serde path; `None` for the record itself.
fn pointer_of(path: &serde_path_to_error::Path) -> Option<String> {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        out.push('/');
        match seg {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } => out.push_str(&pactum_core::json::escape_pointer_token(key)),
            Segment::Enum { variant } => out.push_str(variant),
            Segment::Unknown => out.push('?'),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A value from the file, bounded and cleaned for a message.
pub(crate) fn shown(s: &str) -> String {
    quote(s)
}

// ---- What the Langfuse and LangSmith readers share ----------------------

/// How [`json_text`] reads a string that starts like JSON but is not
/// strict JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unparsed {
    /// An error: the field holds messages, calls or attributes, and read
    /// as plain text they would be lost (an LLM call's input or output,
    /// metadata).
    Refused,
    /// Kept as the recorded text: a tool's arguments or result are what it
    /// was given or returned (a Python `repr` included). A repeated key is
    /// an error all the same: reading either value would be a guess.
    Text,
}

/// A value that exporters may record as JSON text, decoded. A string that
/// starts — after whitespace or a byte-order mark — with `{` or `[` is
/// JSON text and must be strict JSON (no repeated key, no `NaN`, no
/// trailing comma, no Python `repr`, no byte-order mark), else see
/// [`Unparsed`]; a JSON string literal holding such text (encoded twice)
/// is decoded again; any other string is text, and any other value is
/// kept.
///
/// # Errors
/// A problem at `at` naming why the text is not strict JSON.
pub(crate) fn json_text(v: &Value, at: &str, unparsed: Unparsed) -> Result<Value, Problem> {
    let Value::String(s) = v else {
        return Ok(v.clone());
    };
    let mut text = s.clone();
    loop {
        let start = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if start.starts_with(['{', '[']) {
            return match pactum_core::json::parse_strict(text.as_bytes()) {
                Ok(v) => Ok(v),
                Err(pactum_core::json::StrictJsonError::Syntax(_)) if unparsed == Unparsed::Text => {
                    Ok(Value::String(text))
                }
                Err(e) => Err((
                    at.to_string(),
                    format!(
                        "text that starts like JSON is not strict JSON ({e}): it is never read as plain text, which would hide the messages or calls it holds"
                    ),
                )),
            };
        }
        if start.starts_with('"') {
            if let Ok(Value::String(inner)) = pactum_core::json::parse_strict(text.as_bytes()) {
                text = inner;
                continue;
            }
        }
        return Ok(Value::String(text));
    }
}

/// Whether a value is one chat message: a string `role`, a LangChain
/// message `type` (a chunk's class included), or a LangChain.js
/// constructor.
pub(crate) fn is_message(v: &Value) -> bool {
    v.field("role").is_some_and(Value::is_string)
        || v.field("lc").is_some()
        || v.field("type").and_then(Value::as_str).is_some_and(|t| {
            matches!(
                t,
                "human"
                    | "ai"
                    | "system"
                    | "tool"
                    | "function"
                    | "chat"
                    | "AIMessageChunk"
                    | "HumanMessageChunk"
                    | "ToolMessageChunk"
                    | "SystemMessageChunk"
            )
        })
}

/// Whether a value is messages: a non-empty list of them, `{messages:
/// [...]}`, or one message.
pub(crate) fn is_messages(v: &Value) -> bool {
    match v {
        Value::Array(items) => !items.is_empty() && items.iter().all(is_message),
        Value::Object(o) => {
            is_message(v)
                || o.field("messages")
                    .and_then(Value::as_array)
                    .is_some_and(|m| m.iter().all(is_message))
        }
        _ => false,
    }
}

/// Refuses a key of an LLM output object that is none of `known` and may
/// hold calls: its name says so ([`pactum_core::chat::is_call_like`]), or
/// its value is an object or an array. Reading the output by the keys
/// pactum knows would drop the calls such a key holds.
///
/// # Errors
/// A problem at the key.
pub(crate) fn unknown_output_key(
    o: &serde_json::Map<String, Value>,
    known: &[&str],
    at: &str,
) -> Result<(), Problem> {
    let unknown = o.iter().find(|(k, v)| {
        !known.contains(&k.as_str())
            && (pactum_core::chat::is_call_like(k) || v.is_object() || v.is_array())
    });
    match unknown {
        Some((k, _)) => Err((
            format!("{at}/{}", pactum_core::json::escape_pointer_token(k)),
            format!(
                "unknown key `{}` in an LLM output (pactum reads {}): it may hold calls pactum would miss",
                shown(k),
                known.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// One place of an LLM output that holds its messages: its name (for
/// messages) and the messages as recorded.
pub(crate) type Place = (&'static str, Vec<Value>);

/// What pactum compares of a message held in two places: its speaker,
/// its text and its calls (names and arguments; ids are not compared, a
/// framework may invent them).
type Reading = (String, Option<String>, Vec<(String, Value)>);

fn reading(msgs: &[Value], at: &str) -> Result<Vec<Reading>, Problem> {
    let mut out = Vec::with_capacity(msgs.len());
    for (i, m) in msgs.iter().enumerate() {
        let mat = format!("{at}/{i}");
        let Value::Object(mut m) = crate::messages::langchain::to_role_message(m, &mat)? else {
            return Err((mat, "expected a message object".into()));
        };
        let role = match m.remove("role") {
            Some(Value::String(r)) => r,
            _ => String::new(),
        };
        let text = pactum_core::chat::content_text(m.field("content"))
            .map_err(|e| (format!("{mat}/content"), e))?
            .map(|t| t.trim().to_string())
            // No text and an empty text say the same.
            .filter(|t| !t.is_empty());
        let mut calls: Vec<(String, Value)> = pactum_core::chat::message_tools(&m)
            .map_err(|e| (format!("{mat}{}", e.pointer), e.message))?
            .calls
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect();
        calls.sort_by(|a, b| (&a.0, a.1.to_string()).cmp(&(&b.0, b.1.to_string())));
        out.push((role, text, calls));
    }
    Ok(out)
}

/// The messages of an LLM output that records them in `places` of one
/// object (a chat completion's `choices` beside `messages`, a message
/// that also holds a `messages` list…): every place must hold the same
/// messages — speakers, texts and calls — and the first is read; places
/// that disagree are an error (which did the model answer?). `None` when
/// there is no place.
///
/// # Errors
/// A problem at `at` naming the two places, or one a place's messages
/// cannot be read for.
pub(crate) fn one_reading(places: Vec<Place>, at: &str) -> Result<Option<Vec<Value>>, Problem> {
    let mut it = places.into_iter();
    let Some((first_at, first)) = it.next() else {
        return Ok(None);
    };
    let rest: Vec<Place> = it.collect();
    if rest.is_empty() {
        return Ok(Some(first));
    }
    let place_at = |p: &str| {
        if p.is_empty() {
            at.to_string()
        } else {
            format!("{at}/{p}")
        }
    };
    let named = |p: &str| {
        if p.is_empty() {
            "the output as one message".to_string()
        } else {
            format!("`{p}`")
        }
    };
    let a = reading(&first, &place_at(first_at))?;
    for (other_at, msgs) in &rest {
        let b = reading(msgs, &place_at(other_at))?;
        if a != b {
            let what = if a.len() == b.len() {
                a.iter()
                    .zip(&b)
                    .position(|(x, y)| x != y)
                    .map_or_else(String::new, |i| {
                        let (x, y) = (&a[i], &b[i]);
                        if x.2 != y.2 {
                            format!(": message {i} makes other calls")
                        } else {
                            format!(": message {i} differs")
                        }
                    })
            } else {
                format!(": {} message(s) against {}", a.len(), b.len())
            };
            return Err((
                at.to_string(),
                format!(
                    "{} and {} hold the messages of one output and disagree{what}: which did the model answer?",
                    named(first_at),
                    named(other_at)
                ),
            ));
        }
    }
    Ok(Some(first))
}

/// The calls an LLM output's messages make, as the one decoder reads
/// them; `None` when one cannot be read (the builder then says why).
pub(crate) fn calls_of(msgs: &[Value]) -> Option<Vec<ToolCall>> {
    let mut calls = Vec::new();
    for m in msgs {
        let Ok(Value::Object(mut m)) = crate::messages::langchain::to_role_message(m, "") else {
            return None;
        };
        m.remove("role");
        calls.extend(pactum_core::chat::message_tools(&m).ok()?.calls);
    }
    Some(calls)
}

/// The tool an observation or run named `name` executes when that name —
/// without a `tool.` prefix (koog) — is one of `tools`, the tools its
/// trace's LLM calls called or were offered.
pub(crate) fn tool_named(name: &str, tools: &BTreeSet<String>) -> Option<String> {
    let bare = name.strip_prefix("tool.").unwrap_or(name);
    tools.contains(bare).then(|| bare.to_string())
}

/// What one observation or run is, for [`cut_off`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// An LLM call.
    Llm,
    /// A tool execution.
    Tool,
    /// An agent invocation.
    Agent,
    /// A span that says nothing of what ran (Langfuse `SPAN`, `CHAIN`,
    /// `EVENT`; a LangSmith `chain` run).
    Generic,
    /// Anything else: what its type says.
    Other,
}

/// One observation or run, for [`cut_off`].
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// Its id.
    pub id: String,
    /// Its parent's id, if it names one.
    pub parent: Option<String>,
    /// The trace it belongs to.
    pub trace: String,
    /// What it is.
    pub part: Part,
    /// It recorded an input that is not messages, and an output.
    pub io: bool,
    /// How a message names it (`observation `x` (`id`)`).
    pub who: String,
}

/// Why each trace is cut off by a generic span that may have run a tool
/// no LLM call shows (a function traced with Langfuse's `@observe()` or
/// LangSmith's `@traceable`, called by code): one that recorded an input
/// (not messages) and an output, is not a tool execution, does not sit
/// inside one, and under which no LLM call, tool execution or agent ran
/// (those would show what it did; an event or an inner span does not).
/// Absences in such a trace prove nothing. By trace, in node order.
pub(crate) fn cut_off(nodes: &[Node]) -> Vec<(String, String)> {
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let parent = |i: usize| -> Option<usize> {
        nodes[i]
            .parent
            .as_deref()
            .and_then(|p| index.get(p).copied())
    };
    // Under which node an LLM call, a tool or an agent ran: each marks its
    // ancestors, stopping at one already marked (so a cycle ends too).
    let mut shown_below = vec![false; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if matches!(n.part, Part::Llm | Part::Tool | Part::Agent) {
            let mut up = parent(i);
            while let Some(j) = up.filter(|&j| !shown_below[j]) {
                shown_below[j] = true;
                up = parent(j);
            }
        }
    }
    // Whether a tool execution is among a node's ancestors, remembered
    // along each walk (a cycle reads as no tool).
    let mut in_tool: Vec<Option<bool>> = vec![None; nodes.len()];
    let mut on_path = vec![false; nodes.len()];
    for i in 0..nodes.len() {
        if in_tool[i].is_some() {
            continue;
        }
        let mut path = vec![i];
        on_path[i] = true;
        let mut up = parent(i);
        let found = loop {
            let Some(j) = up else { break false };
            if nodes[j].part == Part::Tool {
                break true;
            }
            if let Some(v) = in_tool[j] {
                break v;
            }
            if on_path[j] {
                break false;
            }
            on_path[j] = true;
            path.push(j);
            up = parent(j);
        };
        for p in path {
            on_path[p] = false;
            in_tool[p] = Some(found);
        }
    }
    nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| {
            n.part == Part::Generic && n.io && !shown_below[*i] && in_tool[*i] != Some(true)
        })
        .map(|(_, n)| {
            (
                n.trace.clone(),
                format!(
                    "{} recorded an input and an output but is neither an LLM call nor a tool execution pactum can name, and no LLM call or tool ran inside it: it may have run a tool no LLM call shows",
                    n.who
                ),
            )
        })
        .collect()
}

/// The first parent cycle among `links` (id → the parent it names), as
/// the ids around it in parent order; `None` when every chain of parents
/// ends. Ids are visited in sorted order, so the cycle reported is the
/// same on every run.
pub(crate) fn parent_cycle(links: &BTreeMap<String, String>) -> Option<Vec<String>> {
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for start in links.keys() {
        let mut path: Vec<&str> = Vec::new();
        let mut on_path: HashMap<&str, usize> = HashMap::new();
        let mut cur = Some(start.as_str());
        while let Some(id) = cur {
            if done.contains(id) {
                break;
            }
            if let Some(&at) = on_path.get(id) {
                return Some(path[at..].iter().map(|s| (*s).to_string()).collect());
            }
            on_path.insert(id, path.len());
            path.push(id);
            cur = links.get(id).map(String::as_str);
        }
        done.extend(path);
    }
    None
}

/// Why a parent cycle is refused, naming `what` (`observation`, `run`).
pub(crate) fn cycle_message(what: &str, cycle: &[String]) -> String {
    match cycle {
        [one] => format!(
            "{what} `{}` is its own parent: which one is the trace's root is not recorded",
            shown(one)
        ),
        _ => {
            let ids: Vec<String> = cycle
                .iter()
                .chain(cycle.first())
                .map(|i| format!("`{}`", shown(i)))
                .collect();
            format!(
                "{what}s {} form a parent cycle: which one is the trace's root is not recorded",
                ids.join(" → ")
            )
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_text_is_strict_where_text_would_hide_what_it_holds() {
        let s = |t: &str| Value::String(t.into());
        let strict = |t: &str| json_text(&s(t), "/f", Unparsed::Refused);
        let kept = |t: &str| json_text(&s(t), "/f", Unparsed::Text);
        assert_eq!(strict(" {\"a\": 1}").unwrap(), json!({"a": 1}));
        // Encoded twice: decoded twice.
        assert_eq!(strict("\"{\\\"a\\\": 1}\"").unwrap(), json!({"a": 1}));
        assert_eq!(strict("\"hi\"").unwrap(), json!("hi"));
        assert_eq!(strict("plain text").unwrap(), json!("plain text"));
        for bad in [
            "{'a': 1}",
            "[{'a': 1}]",
            "{\"a\": 1,}",
            "{\"a\": NaN}",
            "\u{feff}{\"a\": 1}",
            "{\"a\": 1, \"a\": 2}",
        ] {
            let (at, why) = strict(bad).unwrap_err();
            assert_eq!(at, "/f");
            assert!(why.contains("not strict JSON"), "{why}");
        }
        // A tool's recorded text stays text; a repeated key does not.
        assert_eq!(kept("{'a': 1}").unwrap(), json!("{'a': 1}"));
        assert!(kept("{\"a\": 1, \"a\": 2}").is_err());
        assert_eq!(
            json_text(&json!({"a": 1}), "/f", Unparsed::Refused).unwrap(),
            json!({"a": 1})
        );
    }

    #[test]
    fn parent_cycles_are_found_and_chains_end() {
        let links = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
                .collect()
        };
        assert_eq!(parent_cycle(&links(&[("b", "a"), ("c", "b")])), None);
        assert_eq!(
            parent_cycle(&links(&[("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")])),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(parent_cycle(&links(&[("x", "x")])), Some(vec!["x".into()]));
        assert!(cycle_message("run", &["x".into()]).contains("its own parent"));
        assert!(cycle_message("run", &["a".into(), "b".into()]).contains("`a` → `b` → `a`"));
    }

    #[test]
    fn a_generic_span_cuts_off_unless_what_ran_under_it_shows_or_a_tool_holds_it() {
        let node = |id: &str, parent: Option<&str>, part: Part, io: bool| Node {
            id: id.into(),
            parent: parent.map(str::to_string),
            trace: "t".into(),
            part,
            io,
            who: format!("`{id}`"),
        };
        let nodes = vec![
            node("root", None, Part::Generic, true),
            node("llm", Some("root"), Part::Llm, false),
            node("helper", Some("root"), Part::Generic, true),
            node("event", Some("helper"), Part::Generic, false),
            node("tool", Some("root"), Part::Tool, true),
            node("inner", Some("tool"), Part::Generic, true),
            node("quiet", Some("root"), Part::Generic, false),
            // A cycle ends every walk.
            node("c1", Some("c2"), Part::Generic, true),
            node("c2", Some("c1"), Part::Llm, false),
        ];
        let found: Vec<String> = cut_off(&nodes).into_iter().map(|(_, w)| w).collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("`helper`"), "{found:?}");
    }

    #[test]
    fn id_rules() {
        let ctx = RecordCtx {
            file: "dir/f.jsonl",
            file_name: "f.jsonl",
            line: 7,
            ordinal: None,
            line_framed: true,
            level_flag: None,
        };
        assert_eq!(ctx.trace_id(&json!({"id": "x"}), None).unwrap(), "x");
        assert_eq!(ctx.trace_id(&json!({"id": 12}), None).unwrap(), "12");
        assert_eq!(ctx.trace_id(&json!({"id": ""}), None).unwrap(), "f.jsonl:7");
        assert_eq!(
            ctx.trace_id(&json!({"id": null}), None).unwrap(),
            "f.jsonl:7"
        );
        let arr = RecordCtx {
            ordinal: Some(3),
            ..ctx
        };
        assert_eq!(arr.trace_id(&json!({}), None).unwrap(), "f.jsonl#3");
        let p = Pointer::parse("--id-field", "/a/b").unwrap();
        let flag = Some((&p, "--id-field"));
        assert_eq!(
            ctx.trace_id(&json!({"a": {"b": 5}, "id": "no"}), flag)
                .unwrap(),
            "5"
        );
        assert_eq!(
            ctx.trace_id(&json!({"id": "x"}), flag)
                .unwrap_err()
                .to_string(),
            "dir/f.jsonl:7: field `/a/b`: no trace id here (--id-field)"
        );
        assert_eq!(
            ctx.trace_id(&json!({"a": {"b": [1]}}), flag).unwrap_err().to_string(),
            "dir/f.jsonl:7: field `/a/b`: expected a non-empty string or a number for the trace id (--id-field), found an array"
        );
    }
}
