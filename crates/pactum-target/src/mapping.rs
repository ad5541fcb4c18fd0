//! The parts of a target's answer, read from JSON: the http target's
//! response mapping (JSONPath, RFC 9535) and the tool-call and side-effect
//! shapes shared with the exec protocol.
//!
//! Rules (documented in `docs/targets.md`). A path's matches are the nodes
//! it selects, in the order JSONPath gives them, each node once (a
//! selector like `[0,0]` names one node twice).
//! * `text` is required: a path that matches nothing is a protocol error
//!   (a wrong mapping, or an error body, must never read as "the target
//!   said nothing"). Matches that are `null` are "no text"; exactly one
//!   match that is not `null` must be a string, the text; more than one is
//!   a protocol error (an ambiguous mapping: picking one would hide the
//!   others); anything else is a protocol error.
//! * `tool_calls` and `side_effects` are optional, but a mistyped path must
//!   not read as "none" (SPEC §3.2: what was not seen is not evidence of
//!   absence). **Every match counts**: each must be an array or `null`
//!   (none), anything else is a protocol error naming the match's index
//!   and location; the items of all matches are concatenated in match
//!   order. A match that lies inside another match is a protocol error
//!   (its items would be read twice, or a call's arguments read as calls).
//!   A path that matches nothing means none only when its parent (the path
//!   without its last segment) matches an object in the answer: the API
//!   omitted an empty list there. When the parent matches no object, or
//!   the path has no parent (`$`), it is a protocol error naming the field
//!   and the path, with an excerpt of the answer.
//! * `conversation_id` is optional: no match, or only `null` matches,
//!   means none; one match that is not `null` is the id; more than one is
//!   a protocol error, as for `text`.
//! * Each tool call is decoded by [`pactum_core::chat::decode_call`], as
//!   every importer and target decodes one: pactum's `{name, arguments,
//!   result, error, id}` or any vendor shape it lists (OpenAI, Anthropic,
//!   Gemini, LangChain…), with only that shape's keys — an unknown key is a
//!   protocol error naming it (a path pointed at the wrong object must not
//!   read as garbage calls). Arguments that are a JSON-encoded string are
//!   decoded strictly (a repeated key is a protocol error, as in the answer
//!   itself); a blank string is `{}`; text that is not a JSON object is kept
//!   as that text, and absent or `null` arguments as not recorded, so
//!   argument conditions on such a call are undetermined (SPEC §3.2), never
//!   "no such call".
//! * Side effects accept only `kind` and `details`, for http and exec
//!   alike.
//! * The answer itself is parsed by the caller with
//!   [`pactum_core::json::parse_strict`] (SPEC §4): a repeated key is a
//!   protocol error before any mapping is applied.

use std::collections::{HashMap, HashSet};

use pactum_core::chat::{decode_call, kind as type_name, CallError};
use pactum_core::text::one_line;
use pactum_core::trace::{SideEffect, ToolCall};
use serde_json::{Map, Value};
use serde_json_path::JsonPath;

use crate::error::TargetError;
use pactum_suite::ResponseMap;

/// The keys a side-effect object may have (http and exec).
const SIDE_EFFECT_KEYS: [&str; 2] = ["kind", "details"];

/// What a mapping read from one answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Mapped {
    pub text: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub side_effects: Vec<SideEffect>,
    pub conversation_id: Option<String>,
}

#[derive(Debug, Clone)]
struct Path {
    source: String,
    path: JsonPath,
}

/// An optional list path (`tool_calls`, `side_effects`) and its parent,
/// which decides whether no match means "none" or a wrong mapping.
#[derive(Debug, Clone)]
struct ListPath {
    path: Path,
    /// `None` when the path has no segment to remove (`$`).
    parent: Option<Path>,
}

/// A compiled [`ResponseMap`].
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    text: Path,
    tool_calls: Option<ListPath>,
    side_effects: Option<ListPath>,
    conversation_id: Option<Path>,
}

fn config(target: &str, field: &str, reason: String) -> TargetError {
    TargetError::Config {
        target: target.to_string(),
        field: format!("response.{field}"),
        reason,
    }
}

fn compile(target: &str, field: &str, source: &str) -> Result<Path, TargetError> {
    JsonPath::parse(source)
        .map(|path| Path {
            source: source.to_string(),
            path,
        })
        .map_err(|e| {
            config(
                target,
                field,
                format!(
                    "`{}` is not a JSONPath: {}",
                    one_line(source, 120),
                    one_line(&e.to_string(), 200)
                ),
            )
        })
}

/// Byte offset in `source` where its last top-level segment starts
/// (`.name`, `..name`, `[…]`, `..[…]`), or `None` when it has none.
/// Dots and brackets inside a bracketed selection (string literals,
/// filters) are not segment starts.
fn last_segment_start(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let (mut depth, mut quote, mut last) = (0usize, None::<u8>, None);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = quote {
            match b {
                // An escape: the next byte cannot close the string.
                b'\\' => i += 1,
                _ if b == q => quote = None,
                _ => {}
            }
        } else if depth > 0 {
            match b {
                b'\'' | b'"' => quote = Some(b),
                b'[' | b'(' => depth += 1,
                b']' | b')' => depth -= 1,
                _ => {}
            }
        } else {
            match b {
                b'.' => {
                    last = Some(i);
                    if bytes.get(i + 1) == Some(&b'.') {
                        i += 1;
                        // `..[…]` is one segment: its bracket is no new start.
                        if bytes.get(i + 1) == Some(&b'[') {
                            i += 1;
                            depth = 1;
                        }
                    }
                }
                b'[' => {
                    last = Some(i);
                    depth = 1;
                }
                _ => {}
            }
        }
        i += 1;
    }
    last
}

/// The parent of `path`: its source with the last segment removed,
/// compiled. `Ok(None)` when the path has no segment (`$`).
///
/// The split is checked against the parser: the parent's canonical form
/// followed by the last segment's must be the whole path's, so a path
/// this scanner misreads is refused at build time rather than guessed at.
fn parent(target: &str, field: &str, path: &Path) -> Result<Option<Path>, TargetError> {
    let Some(start) = last_segment_start(&path.source) else {
        return Ok(None);
    };
    let cannot = || {
        config(
            target,
            field,
            format!(
                "cannot tell the parent of `{}` (the path without its last segment), which decides \
                 whether a missing list means none or a wrong mapping; write it with `.name` or \
                 `['name']` segments",
                one_line(&path.source, 120)
            ),
        )
    };
    let parent_source = path.source[..start].trim_end();
    let parent = JsonPath::parse(parent_source).map_err(|_| cannot())?;
    let last = JsonPath::parse(&format!("${}", &path.source[start..])).map_err(|_| cannot())?;
    let last = last.to_string();
    let joined = format!("{parent}{}", last.strip_prefix('$').unwrap_or(&last));
    if joined != path.path.to_string() {
        return Err(cannot());
    }
    Ok(Some(Path {
        source: parent_source.to_string(),
        path: parent,
    }))
}

fn compile_list(target: &str, field: &str, source: &str) -> Result<ListPath, TargetError> {
    let path = compile(target, field, source)?;
    let parent = parent(target, field, &path)?;
    Ok(ListPath { path, parent })
}

/// A bounded, one-line excerpt of an answer for an error.
fn excerpt(body: &Value) -> String {
    one_line(&body.to_string(), 200)
}

impl Mapping {
    /// Compiles every path of `map`, and the parent of each optional list
    /// path (`tool_calls`, `side_effects`).
    ///
    /// # Errors
    /// [`TargetError::Config`] naming `response.FIELD` for a path that does
    /// not parse, or a list path whose parent cannot be derived.
    pub(crate) fn new(target: &str, map: &ResponseMap) -> Result<Self, TargetError> {
        let list = |field: &str, p: &Option<String>| {
            p.as_deref()
                .map(|s| compile_list(target, field, s))
                .transpose()
        };
        Ok(Mapping {
            text: compile(target, "text", &map.text)?,
            tool_calls: list("tool_calls", &map.tool_calls)?,
            side_effects: list("side_effects", &map.side_effects)?,
            conversation_id: map
                .conversation_id
                .as_deref()
                .map(|s| compile(target, "conversation_id", s))
                .transpose()?,
        })
    }

    /// Whether a tool-call path is configured.
    pub(crate) fn has_tool_calls(&self) -> bool {
        self.tool_calls.is_some()
    }

    /// Whether a side-effect path is configured.
    pub(crate) fn has_side_effects(&self) -> bool {
        self.side_effects.is_some()
    }

    /// Reads the answer's parts from `body`, under the rules of this
    /// module (`docs/targets.md`, "The response mapping").
    ///
    /// # Errors
    /// A fragment naming the mapping field and path, with a bounded excerpt.
    pub(crate) fn apply(&self, body: &Value) -> Result<Mapped, String> {
        let text_matches = matches(&self.text, body);
        if text_matches.is_empty() {
            return Err(format!(
                "response.text `{}` matches nothing in the answer `{}`",
                one_line(&self.text.source, 120),
                excerpt(body)
            ));
        }
        let text = match at_most_one("text", &self.text, &text_matches)? {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(format!(
                    "response.text `{}` matched {}, not a string or null",
                    one_line(&self.text.source, 120),
                    type_name(other)
                ))
            }
        };
        let mut tool_calls = Vec::new();
        for (at, v) in list_matches(self.tool_calls.as_ref(), "tool_calls", body)? {
            tool_calls.extend(self::tool_calls(v, &at)?);
        }
        let mut side_effects = Vec::new();
        for (at, v) in list_matches(self.side_effects.as_ref(), "side_effects", body)? {
            side_effects.extend(self::side_effects(v, &at)?);
        }
        let conversation_id = match &self.conversation_id {
            None => None,
            Some(p) => match at_most_one("conversation_id", p, &matches(p, body))? {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                Some(other) => {
                    return Err(format!(
                        "response.conversation_id matched {}, not a string, a number or null",
                        type_name(other)
                    ))
                }
            },
        };
        Ok(Mapped {
            text,
            tool_calls,
            side_effects,
            conversation_id,
        })
    }
}

/// One node a path selected.
struct Match<'a> {
    /// Its normalized path (RFC 9535 §2.7), `$['steps'][1]['calls']`.
    location: String,
    /// The same location as a JSON pointer: unambiguous, so equal
    /// pointers are one node and a pointer's prefix is an ancestor.
    pointer: String,
    value: &'a Value,
}

/// The nodes `p` selects in `body`, in JSONPath order, each node once.
fn matches<'a>(p: &Path, body: &'a Value) -> Vec<Match<'a>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for node in p.path.query_located(body).iter() {
        let pointer = node.location().to_json_pointer();
        if seen.insert(pointer.clone()) {
            out.push(Match {
                location: node.location().to_string(),
                pointer,
                value: node.node(),
            });
        }
    }
    out
}

/// The locations of `ms`, bounded, for an error.
fn locations(ms: &[&Match<'_>]) -> String {
    const SHOWN: usize = 3;
    let mut out: Vec<String> = ms
        .iter()
        .take(SHOWN)
        .map(|m| one_line(&m.location, 120))
        .collect();
    if ms.len() > SHOWN {
        out.push(format!("and {} more", ms.len() - SHOWN));
    }
    out.join(", ")
}

/// The one match of a single-valued field (`text`, `conversation_id`)
/// that is not `null`, or `None` when every match is `null` (or there is
/// none).
///
/// # Errors
/// When more than one match is not `null`: the mapping is ambiguous, and
/// reading the first would silently drop the others.
fn at_most_one<'a>(field: &str, p: &Path, ms: &[Match<'a>]) -> Result<Option<&'a Value>, String> {
    let present: Vec<&Match<'a>> = ms.iter().filter(|m| !m.value.is_null()).collect();
    match present.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.value)),
        many => Err(format!(
            "response.{field} `{}` matches {} values that are not null ({}): an ambiguous \
             mapping (write a path that selects one value)",
            one_line(&p.source, 120),
            many.len(),
            locations(many)
        )),
    }
}

/// The arrays an optional list path selects, each with the name errors
/// give its items (`response.tool_calls` for a single match,
/// `response.tool_calls match 1 ($['steps'][1]['calls'])` for the second
/// of several). Empty when the path is not mapped, when every match is
/// `null`, or when it matches nothing under a parent that matches an
/// object (an omitted empty list).
///
/// # Errors
/// When a match is neither an array nor `null`, naming its index and
/// location; when a match lies inside another (its items would be read
/// twice, or arguments read as calls); when the path matches nothing and
/// its parent matches no object, or it has no parent: the mapping is
/// wrong, and reading "none" would turn a mistyped path into "the target
/// made no calls".
fn list_matches<'a>(
    p: Option<&ListPath>,
    field: &str,
    body: &'a Value,
) -> Result<Vec<(String, &'a Value)>, String> {
    let Some(p) = p else {
        return Ok(Vec::new());
    };
    let ms = matches(&p.path, body);
    if ms.is_empty() {
        return match &p.parent {
            Some(parent) if parent.path.query(body).iter().any(|v| v.is_object()) => Ok(Vec::new()),
            Some(parent) => Err(format!(
                "response.{field} `{}` matches nothing and its parent `{}` matches no object in \
                 the answer `{}` (a wrong path must not read as none)",
                one_line(&p.path.source, 120),
                one_line(&parent.source, 120),
                excerpt(body)
            )),
            None => Err(format!(
                "response.{field} `{}` matches nothing in the answer `{}` (a wrong path must \
                 not read as none)",
                one_line(&p.path.source, 120),
                excerpt(body)
            )),
        };
    }
    let name = |i: usize, m: &Match<'_>| {
        if ms.len() == 1 {
            format!("response.{field}")
        } else {
            format!(
                "response.{field} match {i} ({})",
                one_line(&m.location, 120)
            )
        }
    };
    if let Some((inner, outer)) = nested(&ms) {
        return Err(format!(
            "response.{field} `{}`: {} lies inside {}, so its items would be read twice (write \
             a path whose matches do not contain one another)",
            one_line(&p.path.source, 120),
            name(inner, &ms[inner]),
            name(outer, &ms[outer]),
        ));
    }
    let mut out = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        match m.value {
            Value::Null => {}
            Value::Array(_) => out.push((name(i, m), m.value)),
            other => {
                return Err(format!(
                    "{} is {}, not an array or null",
                    name(i, m),
                    type_name(other)
                ))
            }
        }
    }
    Ok(out)
}

/// The first match (by index) lying inside another match, and that one.
fn nested(ms: &[Match<'_>]) -> Option<(usize, usize)> {
    let index: HashMap<&str, usize> = ms
        .iter()
        .enumerate()
        .map(|(i, m)| (m.pointer.as_str(), i))
        .collect();
    ms.iter().enumerate().find_map(|(i, m)| {
        // Every proper prefix of a pointer ending before a `/` is an
        // ancestor (`/` inside a key is escaped as `~1`).
        m.pointer
            .match_indices('/')
            .find_map(|(cut, _)| index.get(&m.pointer[..cut]))
            .map(|outer| (i, *outer))
    })
}

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{at} is {}, not an object", type_name(v)))
}

fn array<'a>(v: &'a Value, at: &str) -> Result<&'a Vec<Value>, String> {
    v.as_array()
        .ok_or_else(|| format!("{at} is {}, not an array", type_name(v)))
}

/// Refuses any key of `m` outside `allowed`, naming the first (in key
/// order) and the keys expected.
fn known_keys(m: &Map<String, Value>, allowed: &[&str], at: &str) -> Result<(), String> {
    match m.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err(format!(
            "{at} has an unknown key `{}` (expected: {})",
            one_line(k, 40),
            allowed.join(", ")
        )),
    }
}

fn required_string(m: &Map<String, Value>, key: &str, at: &str) -> Result<String, String> {
    match m.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(format!("{at}.{key} is empty")),
        Some(v) => Err(format!("{at}.{key} is {}, not a string", type_name(v))),
        None => Err(format!("{at}.{key} is missing")),
    }
}

/// A decoding error inside the item at `at`, as `at.field: message`
/// (`response.tool_calls[0].function.arguments: …`).
fn at_field(at: &str, e: CallError) -> String {
    let mut field = at.to_string();
    match pactum_core::json::pointer_tokens(&e.pointer) {
        Ok(tokens) => {
            for token in tokens {
                field.push('.');
                field.push_str(&one_line(&token, 40));
            }
        }
        // Not built by pactum's decoder: shown as it is.
        Err(_) => field.push_str(&one_line(&e.pointer, 80)),
    }
    format!("{field}: {}", e.message)
}

/// An array of tool calls (http and exec), each decoded by
/// [`decode_call`] in any shape it reads.
///
/// # Errors
/// A fragment naming the item and the field at fault.
pub(crate) fn tool_calls(v: &Value, at: &str) -> Result<Vec<ToolCall>, String> {
    array(v, at)?
        .iter()
        .enumerate()
        .map(|(i, item)| decode_call(item).map_err(|e| at_field(&format!("{at}[{i}]"), e)))
        .collect()
}

/// An array of `{kind, details?}` as side effects (http and exec; missing
/// details are `null`). Any other key is an error naming it.
pub(crate) fn side_effects(v: &Value, at: &str) -> Result<Vec<SideEffect>, String> {
    let items = array(v, at)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let m = object(item, &at)?;
        known_keys(m, &SIDE_EFFECT_KEYS, &at)?;
        out.push(SideEffect {
            kind: required_string(m, "kind", &at)?,
            details: m.get("details").cloned().unwrap_or(Value::Null),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(text: &str) -> ResponseMap {
        ResponseMap {
            text: text.into(),
            tool_calls: Some("$.calls".into()),
            side_effects: Some("$.effects".into()),
            conversation_id: Some("$.conversation.id".into()),
        }
    }

    #[test]
    fn every_part_is_read() {
        let m = Mapping::new("t", &map("$.output[*].text")).expect("compiles");
        let got = m
            .apply(&json!({
                "output": [{"text": null}, {"text": "first"}, {"text": null}],
                "calls": [
                    {"name": "refund", "arguments": "{\"order\": \"A1\"}", "result": {"ok": true}, "id": 7},
                    {"name": "lookup", "arguments": "not json", "error": "timeout"},
                    {"name": "noop"}
                ],
                "effects": [{"kind": "email_sent", "details": {"to": "a@b"}}, {"kind": "log"}],
                "conversation": {"id": 42}
            }))
            .expect("maps");
        assert_eq!(got.text.as_deref(), Some("first"));
        assert_eq!(
            got.tool_calls,
            vec![
                ToolCall {
                    id: Some("7".into()),
                    name: "refund".into(),
                    arguments: json!({"order": "A1"}),
                    result: Some(json!({"ok": true})),
                    error: None
                },
                ToolCall {
                    id: None,
                    name: "lookup".into(),
                    arguments: json!("not json"),
                    result: None,
                    error: Some("timeout".into())
                },
                ToolCall {
                    id: None,
                    name: "noop".into(),
                    // Not recorded: argument conditions on it are undetermined.
                    arguments: Value::Null,
                    result: None,
                    error: None
                },
            ]
        );
        assert_eq!(
            got.side_effects,
            vec![
                SideEffect {
                    kind: "email_sent".into(),
                    details: json!({"to": "a@b"})
                },
                SideEffect {
                    kind: "log".into(),
                    details: Value::Null
                }
            ]
        );
        assert_eq!(got.conversation_id.as_deref(), Some("42"));
    }

    #[test]
    fn text_is_required_but_optional_parts_may_be_absent() {
        let m = Mapping::new("t", &map("$.text")).expect("compiles");
        let none = m.apply(&json!({"text": null})).expect("null text");
        assert_eq!(none, Mapped::default());
        let err = m.apply(&json!({"txt": "hi"})).expect_err("no match");
        assert!(
            err.contains("response.text `$.text` matches nothing"),
            "{err}"
        );
        assert!(err.contains("\"txt\""), "{err}");
        for (body, why) in [
            (json!({"text": 5}), "matched a number"),
            (json!({"text": ["a"]}), "matched an array"),
            (
                json!({"text": "a", "calls": {"name": "x"}}),
                "response.tool_calls is an object, not an array or null",
            ),
            (
                json!({"text": "a", "calls": [{"arguments": {}}]}),
                "response.tool_calls[0].name: missing tool name",
            ),
            (
                json!({"text": "a", "calls": [{"name": ""}]}),
                "response.tool_calls[0].name: the tool name is empty",
            ),
            (
                json!({"text": "a", "calls": ["x"]}),
                "response.tool_calls[0]: expected a tool call object, found a string",
            ),
            (
                json!({"text": "a", "effects": [{"kind": 1}]}),
                "response.side_effects[0].kind is a number",
            ),
            (
                json!({"text": "a", "conversation": {"id": [1]}}),
                "response.conversation_id matched an array",
            ),
        ] {
            let err = m.apply(&body).expect_err(why);
            assert!(err.contains(why), "{why}: {err}");
        }
    }

    #[test]
    fn bad_paths_are_config_errors_naming_the_field() {
        let mut bad = map("$.text");
        bad.side_effects = Some("$[".into());
        match Mapping::new("t", &bad) {
            Err(TargetError::Config { field, .. }) => assert_eq!(field, "response.side_effects"),
            other => panic!("{other:?}"),
        }
        match Mapping::new("t", &map("text")) {
            Err(TargetError::Config { field, .. }) => assert_eq!(field, "response.text"),
            other => panic!("{other:?}"),
        }
    }

    fn list_map(tool_calls: &str, side_effects: &str) -> Mapping {
        let m = ResponseMap {
            text: "$.choices[0].message.content".into(),
            tool_calls: Some(tool_calls.into()),
            side_effects: Some(side_effects.into()),
            conversation_id: None,
        };
        Mapping::new("t", &m).expect("compiles")
    }

    #[test]
    fn a_list_path_matching_nothing_is_none_only_under_an_object_parent() {
        let right = list_map(
            "$.choices[0].message.tool_calls",
            "$.choices[0].message.effects",
        );
        // The API omitted its empty lists: the parent object is there.
        let omitted = json!({"choices": [{"message": {"content": "hi"}}]});
        let got = right.apply(&omitted).expect("omitted lists are none");
        assert!(got.tool_calls.is_empty() && got.side_effects.is_empty());
        let nulls = json!({"choices": [{"message": {"content": "hi", "tool_calls": null, "effects": null}}]});
        assert!(right
            .apply(&nulls)
            .expect("null is none")
            .tool_calls
            .is_empty());

        // A mistyped segment: neither the path nor its parent matches.
        let typo = list_map(
            "$.choices[0].mesage.tool_calls",
            "$.choices[0].message.effects",
        );
        let answer = json!({"choices": [{"message": {"content": "I refunded it",
            "tool_calls": [{"name": "refund"}]}}]});
        let err = typo.apply(&answer).expect_err("a wrong path is not none");
        assert!(
            err.starts_with(
                "response.tool_calls `$.choices[0].mesage.tool_calls` matches nothing and its \
                 parent `$.choices[0].mesage` matches no object in the answer `{\"choices\":"
            ),
            "{err}"
        );
        assert!(
            err.contains("refund"),
            "the excerpt shows the answer: {err}"
        );
        let typo = list_map(
            "$.choices[0].message.tool_calls",
            "$.choices[0].mesage.effects",
        );
        let err = typo.apply(&answer).expect_err("side effects too");
        assert!(
            err.starts_with("response.side_effects `$.choices[0].mesage.effects` matches nothing"),
            "{err}"
        );

        // A parent that matches, but not an object, is no place for a list.
        let mut map = ResponseMap {
            text: "$.text".into(),
            tool_calls: Some("$.output.calls".into()),
            side_effects: None,
            conversation_id: None,
        };
        let m = Mapping::new("t", &map).expect("compiles");
        let err = m
            .apply(&json!({"text": "a", "output": "calls: none"}))
            .expect_err("a string parent");
        assert!(
            err.contains("its parent `$.output` matches no object"),
            "{err}"
        );
        // No parent (`$`): the root always matches, so only its type is
        // checked.
        map.tool_calls = Some("$".into());
        let m = Mapping::new("t", &map).expect("compiles");
        let err = m.apply(&json!({"text": "a"})).expect_err("an object");
        assert!(err.contains("response.tool_calls is an object"), "{err}");
    }

    #[test]
    fn parents_are_the_path_without_its_last_segment() {
        let parent_of = |source: &str| {
            compile_list("t", "tool_calls", source)
                .expect("compiles")
                .parent
                .map(|p| p.source)
        };
        for (source, want) in [
            ("$", None),
            ("$.calls", Some("$")),
            ("$.a.b.calls", Some("$.a.b")),
            (
                "$.choices[0].message.tool_calls",
                Some("$.choices[0].message"),
            ),
            ("$.a[0]", Some("$.a")),
            ("$['a.b']['c[d]']", Some("$['a.b']")),
            ("$[\"q\\\"]\"].calls", Some("$[\"q\\\"]\"]")),
            ("$..calls", Some("$")),
            ("$.a..[0]", Some("$.a")),
            ("$.a[?@.b == 'x.y]'].calls", Some("$.a[?@.b == 'x.y]']")),
            ("$.a[?(@.b[0] == 1)]", Some("$.a")),
            ("$.a .calls", Some("$.a")),
            ("$.*", Some("$")),
        ] {
            assert_eq!(parent_of(source).as_deref(), want, "{source}");
        }
        // A split the parser does not confirm is refused when the target
        // is built, never guessed at (a source and a parse that disagree
        // stand in for a path the scanner would misread).
        let odd = Path {
            source: "$.a.calls".into(),
            path: JsonPath::parse("$.b.calls").expect("parses"),
        };
        match parent("t", "tool_calls", &odd) {
            Err(TargetError::Config { field, reason, .. }) => {
                assert_eq!(field, "response.tool_calls");
                assert!(
                    reason.contains("cannot tell the parent of `$.a.calls`"),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    proptest::proptest! {
        /// Whatever segments a path is made of, its parent is the path
        /// written without the last one.
        #[test]
        fn the_parent_drops_exactly_the_last_segment(
            picks in proptest::collection::vec(0usize..9, 1..6),
        ) {
            const SEGMENTS: [&str; 9] = [
                ".a", "['x.y']", "[0]", "..b", "[*]", "[?@.c == 'd]']", "[\"e\\\"]\"]",
                ".*", "[1:2]",
            ];
            let segments: Vec<&str> = picks.iter().map(|i| SEGMENTS[*i]).collect();
            let source = format!("${}", segments.concat());
            let want = format!("${}", segments[..segments.len() - 1].concat());
            let got = compile_list("t", "tool_calls", &source).expect("compiles").parent;
            proptest::prop_assert_eq!(got.map(|p| p.source), Some(want));
        }
    }

    #[test]
    fn unknown_keys_in_calls_and_effects_are_protocol_errors() {
        let m = Mapping::new("t", &map("$.text")).expect("compiles");
        for (body, why) in [
            (
                json!({"text": "a", "calls": [{"name": "f", "kind": "function"}]}),
                "response.tool_calls[0].kind: unknown key `kind` in a tool call (expected: name, arguments, args, input, parameters, id, result, error, type)",
            ),
            (
                json!({"text": "a", "calls": [{"function": {"name": "f"}, "name": "f"}]}),
                "response.tool_calls[0].name: unknown key `name` in an OpenAI tool call",
            ),
            (
                json!({"text": "a", "effects": [{"kind": "k", "detail": {}}]}),
                "response.side_effects[0] has an unknown key `detail` (expected: kind, details)",
            ),
        ] {
            let err = m.apply(&body).expect_err(why);
            assert!(err.contains(why), "{why}: {err}");
        }
    }

    fn steps_map(tool_calls: &str) -> Mapping {
        let m = ResponseMap {
            text: "$.text".into(),
            tool_calls: Some(tool_calls.into()),
            side_effects: Some("$.steps[*].effects".into()),
            conversation_id: None,
        };
        Mapping::new("t", &m).expect("compiles")
    }

    fn names(m: &Mapped) -> Vec<&str> {
        m.tool_calls.iter().map(|c| c.name.as_str()).collect()
    }

    /// The review's false green: a refund in the second match of a list
    /// path was dropped, and a contract prohibiting it passed.
    #[test]
    fn every_match_of_a_list_path_counts_in_match_order() {
        let refund = json!({"text": "ok", "steps": [
            {"calls": []},
            {"calls": [{"name": "refund", "arguments": {"amount": 5000}}]}
        ]});
        for path in ["$.steps[*].calls", "$..calls", "$.steps[0,1].calls"] {
            let got = steps_map(path).apply(&refund).expect(path);
            assert_eq!(names(&got), ["refund"], "{path}");
            assert_eq!(got.tool_calls[0].arguments, json!({"amount": 5000}));
        }
        // A first match of `null` is no longer "none" for the whole path.
        let null_first = json!({"text": "ok", "steps": [
            {"calls": null},
            {"calls": [{"name": "refund"}]}
        ]});
        for path in ["$.steps[*].calls", "$..calls"] {
            let got = steps_map(path).apply(&null_first).expect(path);
            assert_eq!(names(&got), ["refund"], "{path}");
        }
        // Concatenated in match order; side effects alike; a node selected
        // twice is read once.
        let many = json!({"text": "ok", "steps": [
            {"calls": [{"name": "a"}, {"name": "b"}], "effects": [{"kind": "x"}]},
            {"calls": null, "effects": null},
            {"calls": [{"name": "c"}], "effects": [{"kind": "y"}, {"kind": "z"}]}
        ]});
        let got = steps_map("$.steps[*].calls").apply(&many).expect("many");
        assert_eq!(names(&got), ["a", "b", "c"]);
        let kinds: Vec<&str> = got.side_effects.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["x", "y", "z"]);
        let got = steps_map("$.steps[2,2,0].calls")
            .apply(&many)
            .expect("twice");
        assert_eq!(names(&got), ["c", "a", "b"]);
        // Every match null: none.
        let got = steps_map("$.steps[1].calls").apply(&many).expect("null");
        assert!(got.tool_calls.is_empty());
    }

    #[test]
    fn a_list_match_that_is_not_an_array_or_null_is_named_by_index() {
        let m = steps_map("$.steps[*].calls");
        for (body, why) in [
            (
                json!({"text": "ok", "steps": [{"calls": []}, {"calls": {"name": "refund"}}]}),
                "response.tool_calls match 1 ($['steps'][1]['calls']) is an object, not an array or null",
            ),
            (
                json!({"text": "ok", "steps": [{"calls": "refund"}, {"calls": []}]}),
                "response.tool_calls match 0 ($['steps'][0]['calls']) is a string, not an array or null",
            ),
            (
                json!({"text": "ok", "steps": [{"calls": []}, {"calls": [{"name": "f", "kind": "function"}]}]}),
                "response.tool_calls match 1 ($['steps'][1]['calls'])[0].kind: unknown key `kind`",
            ),
            (
                json!({"text": "ok", "steps": [{"calls": []}, {"effects": [{"kind": ""}]}]}),
                "response.side_effects[0].kind is empty",
            ),
        ] {
            let err = m.apply(&body).expect_err(why);
            assert!(err.contains(why), "{why}: {err}");
        }
        // A match inside another: a call's arguments are not calls.
        let err = steps_map("$..calls")
            .apply(&json!({"text": "ok", "calls": [
                {"name": "schedule", "arguments": {"calls": [{"name": "refund"}]}}
            ]}))
            .expect_err("nested");
        assert!(
            err.contains(
                "response.tool_calls `$..calls`: response.tool_calls match 1 \
                 ($['calls'][0]['arguments']['calls']) lies inside response.tool_calls match 0 \
                 ($['calls'])"
            ),
            "{err}"
        );
        // The parent rule for a path that matches nothing is unchanged.
        let err = m
            .apply(&json!({"text": "ok", "steps": []}))
            .expect_err("no parent object");
        assert!(
            err.contains("its parent `$.steps[*]` matches no object"),
            "{err}"
        );
        let got = m
            .apply(&json!({"text": "ok", "steps": [{}]}))
            .expect("omitted");
        assert!(got.tool_calls.is_empty());
    }

    #[test]
    fn text_and_conversation_id_refuse_several_values() {
        let m = ResponseMap {
            text: "$.output[*].text".into(),
            tool_calls: None,
            side_effects: None,
            conversation_id: Some("$..id".into()),
        };
        let m = Mapping::new("t", &m).expect("compiles");
        let err = m
            .apply(&json!({"output": [{"text": "I cannot"}, {"text": "Refunded"}]}))
            .expect_err("two texts");
        assert_eq!(
            err,
            "response.text `$.output[*].text` matches 2 values that are not null \
             ($['output'][0]['text'], $['output'][1]['text']): an ambiguous mapping (write a \
             path that selects one value)"
        );
        let err = m
            .apply(&json!({"output": [{"text": "a"}, {"text": "b"}, {"text": 1}, {"text": "d"}]}))
            .expect_err("four");
        assert!(
            err.contains("matches 4 values") && err.contains("and 1 more"),
            "{err}"
        );
        // Nulls are not values; only nulls is no text.
        let got = m
            .apply(&json!({"output": [{"text": null}, {"text": "only"}], "id": 7}))
            .expect("one");
        assert_eq!(got.text.as_deref(), Some("only"));
        assert_eq!(got.conversation_id.as_deref(), Some("7"));
        let got = m
            .apply(&json!({"output": [{"text": null}, {"text": null}]}))
            .expect("nulls");
        assert_eq!(got.text, None);
        assert_eq!(got.conversation_id, None);
        let err = m
            .apply(&json!({"output": [{"text": "a"}], "id": "c-1", "meta": {"id": "c-2"}}))
            .expect_err("two ids");
        assert!(
            err.starts_with("response.conversation_id `$..id` matches 2 values that are not null"),
            "{err}"
        );
        // The text still must match something.
        let err = m.apply(&json!({"output": []})).expect_err("nothing");
        assert!(err.contains("matches nothing"), "{err}");
    }

    #[test]
    fn string_arguments_with_a_repeated_key_are_a_protocol_error() {
        let err = tool_calls(
            &json!([{"name": "refund", "arguments": "{\"amount\":5000,\"amount\":1}"}]),
            "response.tool_calls",
        )
        .expect_err("duplicate");
        assert_eq!(
            err,
            "response.tool_calls[0].arguments: the arguments (a JSON-encoded string) have a duplicate key \
             `amount` at `/amount`, line 1 column 23"
        );
    }

    #[test]
    fn arguments_are_decoded_by_the_one_decoder() {
        let at = |a: Value| {
            tool_calls(&json!([{"name": "f", "arguments": a}]), "tool_calls")
                .map(|c| c[0].arguments.clone())
        };
        assert_eq!(at(json!("{\"a\": 1}")), Ok(json!({"a": 1})));
        assert_eq!(at(json!("  ")), Ok(json!({})));
        assert_eq!(at(json!("")), Ok(json!({})));
        // Not recorded, or not decodable: kept so, and argument conditions
        // on this call are undetermined (pactum-eval), never "no such call".
        assert_eq!(at(Value::Null), Ok(Value::Null));
        assert_eq!(at(json!("{\"a\": 1")), Ok(json!("{\"a\": 1")));
        assert_eq!(
            at(json!(["x"])),
            Err("tool_calls[0].arguments: expected an object or a JSON-encoded string of arguments, found an array".into())
        );
        // Any vendor shape the decoder reads, in the same list.
        let calls = tool_calls(
            &json!([
                {"id": "c1", "type": "function", "function": {"name": "refund", "arguments": "{\"amount\": 5000}"}},
                {"type": "tool_use", "id": "t1", "name": "refund", "input": {"amount": 5000}},
                {"functionCall": {"name": "refund", "args": {"amount": 5000}}},
                {"name": "refund", "args": {"amount": 5000}, "id": "c2", "type": "tool_call"}
            ]),
            "response.tool_calls",
        )
        .expect("every shape");
        assert!(calls
            .iter()
            .all(|c| c.name == "refund" && c.arguments == json!({"amount": 5000})));
    }
}
